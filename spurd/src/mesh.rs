//! `spurd mesh status`: the WireGuard mesh's members as the controller's
//! interface sees them (each one's key, endpoint, last handshake and bytes
//! moved), asked of the controller as any command asks it; `spurd mesh
//! rotate`: a new key pair for this host's interface (a node's agent, or
//! the controller on its host, makes it and tells the others).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use spur_client::Api;
use spur_proto::MeshStatus;

/// Prints the mesh's status for the cluster of the slurm.conf at `conf`.
pub fn status(conf: &Path) -> Result<()> {
    let slurm = spur_client::load_conf(conf)?;
    let mut session = spur_client::Session::new(slurm);
    let status = session
        .mesh()
        .map_err(|e| anyhow::anyhow!(e.detailed()))
        .context("while asking the controller")?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    match status {
        None => println!("the mesh is off (spur.conf has no MeshType=wireguard)"),
        Some(status) => print!("{}", render(&status, now)),
    }
    Ok(())
}

/// Has this host's mesh key pair replaced, for the cluster of the
/// slurm.conf at `conf`.
pub fn rotate(conf: &Path) -> Result<()> {
    let slurm = spur_client::load_conf(conf)?;
    let mut session = spur_client::Session::new(slurm);
    session
        .mesh_rotate()
        .map_err(|e| anyhow::anyhow!(e.detailed()))?;
    println!("spurd: mesh key rotated; the other members are told the new public key");
    Ok(())
}

/// The status as `spurd mesh status` prints it, at `now` (seconds since
/// the epoch).
fn render(status: &MeshStatus, now: u64) -> String {
    let key = |k: &[u8; 32]| spur_mesh::key::fingerprint(&spur_mesh::Key(*k));
    let mut out = format!(
        "interface: {}\n  address: {}\n  listening port: {}\n  public key: {}\n",
        status.interface,
        status.address,
        status.port,
        key(&status.public_key)
    );
    let mut rows = vec![[
        "NODE".to_string(),
        "ADDRESS".into(),
        "PUBLIC KEY".into(),
        "ENDPOINT".into(),
        "LATEST HANDSHAKE".into(),
        "RECEIVED".into(),
        "SENT".into(),
    ]];
    for p in &status.peers {
        rows.push([
            p.name.clone(),
            p.address.to_string(),
            key(&p.public_key),
            p.endpoint.map_or("(none)".into(), |e| e.to_string()),
            p.last_handshake.map_or("never".into(), |t| {
                format!("{} s ago", now.saturating_sub(t))
            }),
            p.rx_bytes.to_string(),
            p.tx_bytes.to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_proto::MeshPeerStatus;

    #[test]
    fn the_status_shows_each_members_key_endpoint_handshake_and_bytes() {
        let status = MeshStatus {
            interface: "spur0".into(),
            address: "10.77.0.1".parse().unwrap(),
            port: 51820,
            public_key: [1; 32],
            peers: vec![
                MeshPeerStatus {
                    name: "n01".into(),
                    address: "10.77.0.2".parse().unwrap(),
                    public_key: [2; 32],
                    endpoint: Some("192.168.1.11:51820".parse().unwrap()),
                    last_handshake: Some(1_000),
                    rx_bytes: 4_312,
                    tx_bytes: 17_048,
                },
                MeshPeerStatus {
                    name: "n02".into(),
                    address: "10.77.0.3".parse().unwrap(),
                    public_key: [3; 32],
                    endpoint: None,
                    last_handshake: None,
                    rx_bytes: 0,
                    tx_bytes: 0,
                },
            ],
        };
        assert_eq!(
            render(&status, 1_012),
            "interface: spur0\n  address: 10.77.0.1\n  listening port: 51820\n  \
             public key: AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\n\
             NODE  ADDRESS    PUBLIC KEY                                    ENDPOINT            LATEST HANDSHAKE  RECEIVED  SENT\n\
             n01   10.77.0.2  AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=  192.168.1.11:51820  12 s ago          4312      17048\n\
             n02   10.77.0.3  AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=  (none)              never             0         0\n"
        );
    }
}
