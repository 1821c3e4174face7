//! spur.conf, beside slurm.conf in slurm.conf's syntax: what slurm.conf
//! cannot say. Today that is the WireGuard mesh between the controller and
//! the nodes (`MeshType=wireguard` turns it on; without the file, or
//! without that key, there is no mesh and nothing changes). Every host of
//! the cluster reads the same file, as it reads the same slurm.conf.

use std::io;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{ConfError, ErrorKind, Parsed, Warning};
use crate::file::ConfFile;
use crate::line::{self, Loader, Pair};

/// spur.conf.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpurConf {
    /// The mesh, where `MeshType=wireguard` turns it on.
    pub mesh: Option<MeshConf>,
}

/// Which WireGuard the mesh interfaces run on (`MeshBackend`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MeshBackend {
    /// `auto` (the default): the kernel's, else wireguard-go.
    #[default]
    Auto,
    /// `kernel`.
    Kernel,
    /// `userspace`: wireguard-go (or `WG_USERSPACE_IMPLEMENTATION`).
    Userspace,
}

/// Which of spur's traffic crosses the mesh (`MeshTraffic`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MeshTraffic {
    /// `all` (the default): controller and agents, and steps (srun and
    /// the agents, the tasks' input and output).
    #[default]
    All,
    /// `control`: the controller and the agents only.
    Control,
}

/// The mesh's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshConf {
    /// `MeshInterface` (`spur0`): the interface's name on every host.
    pub interface: String,
    /// `MeshPort` (51820): the UDP port WireGuard listens on, every host.
    pub port: u16,
    /// `MeshNetwork` (`10.77.0.0/16`): the mesh's addresses; the
    /// controller has the first, the nodes the others.
    pub network: Ipv4Addr,
    /// The network's prefix length (8 to 30).
    pub prefix: u8,
    /// `MeshBackend`.
    pub backend: MeshBackend,
    /// `MeshTraffic`.
    pub traffic: MeshTraffic,
}

impl Default for MeshConf {
    fn default() -> Self {
        MeshConf {
            interface: "spur0".into(),
            port: 51820,
            network: Ipv4Addr::new(10, 77, 0, 0),
            prefix: 16,
            backend: MeshBackend::Auto,
            traffic: MeshTraffic::All,
        }
    }
}

impl MeshConf {
    /// The controller's mesh address: the network's first.
    pub fn controller_address(&self) -> Ipv4Addr {
        self.host(1).expect("a network of at least 4 addresses")
    }

    /// The `n`th address of the network (0 is the network itself), None
    /// past its last usable one.
    pub fn host(&self, n: u32) -> Option<Ipv4Addr> {
        let size = 1u64 << (32 - self.prefix);
        (n > 0 && u64::from(n) < size - 1).then(|| Ipv4Addr::from(u32::from(self.network) + n))
    }
}

impl SpurConf {
    /// The spur.conf that sits beside `slurm_conf`.
    pub fn path_beside(slurm_conf: &Path) -> PathBuf {
        slurm_conf
            .parent()
            .unwrap_or(Path::new("."))
            .join("spur.conf")
    }

    /// The spur.conf beside `slurm_conf`; the defaults (no mesh) where
    /// there is none.
    pub fn load_beside(slurm_conf: &Path) -> Result<Parsed<SpurConf>, ConfError> {
        let path = SpurConf::path_beside(slurm_conf);
        match std::fs::read_to_string(&path) {
            Ok(text) => SpurConf::parse(&text, &path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Parsed {
                value: SpurConf::default(),
                warnings: vec![],
            }),
            Err(source) => Err(ConfError::Read { path, source }),
        }
    }
}

impl ConfFile for SpurConf {
    fn parse_with(
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<Self>, ConfError> {
        let loader: &mut Loader<'_> = loader;
        let mut warnings = Vec::new();
        let lines = line::read_lines(text, file, loader, &mut warnings)?;
        let mut on = false;
        let mut mesh = MeshConf::default();
        for l in &lines {
            for pair in &l.pairs {
                match read_pair(&mut on, &mut mesh, pair) {
                    Some(true) => {}
                    Some(false) => {
                        return Err(ConfError::at(
                            &l.origin,
                            ErrorKind::InvalidValue {
                                key: pair.key.clone(),
                                value: pair.value.clone(),
                            },
                        ))
                    }
                    None => {
                        warnings.push(Warning::at(&l.origin, format!("unknown key {}", pair.key)))
                    }
                }
            }
        }
        Ok(Parsed {
            value: SpurConf {
                mesh: on.then_some(mesh),
            },
            warnings,
        })
    }
}

/// Reads one pair: Some(true) used, Some(false) a bad value, None an
/// unknown key.
fn read_pair(on: &mut bool, mesh: &mut MeshConf, pair: &Pair) -> Option<bool> {
    let v = pair.value.trim();
    let key = |k: &str| pair.is(k);
    let ok = if key("MeshType") {
        match v.to_ascii_lowercase().as_str() {
            "wireguard" => *on = true,
            "none" => *on = false,
            _ => return Some(false),
        }
        true
    } else if key("MeshInterface") {
        let fits = !v.is_empty()
            && v.len() < 16
            && v.bytes()
                .all(|b| b.is_ascii_graphic() && b != b'/' && b != b':');
        if fits {
            mesh.interface = v.to_string();
        }
        fits
    } else if key("MeshPort") {
        match v.parse::<u16>() {
            Ok(port) if port > 0 => {
                mesh.port = port;
                true
            }
            _ => false,
        }
    } else if key("MeshNetwork") {
        match network(v) {
            Some((addr, prefix)) => {
                (mesh.network, mesh.prefix) = (addr, prefix);
                true
            }
            None => false,
        }
    } else if key("MeshBackend") {
        mesh.backend = match v.to_ascii_lowercase().as_str() {
            "auto" => MeshBackend::Auto,
            "kernel" => MeshBackend::Kernel,
            "userspace" => MeshBackend::Userspace,
            _ => return Some(false),
        };
        true
    } else if key("MeshTraffic") {
        mesh.traffic = match v.to_ascii_lowercase().as_str() {
            "all" => MeshTraffic::All,
            "control" => MeshTraffic::Control,
            _ => return Some(false),
        };
        true
    } else {
        return None;
    };
    Some(ok)
}

/// `A.B.C.D/N` with N from 8 to 30 and no host bits set.
fn network(v: &str) -> Option<(Ipv4Addr, u8)> {
    let (addr, prefix) = v.split_once('/')?;
    let addr: Ipv4Addr = addr.parse().ok()?;
    let prefix: u8 = prefix.parse().ok()?;
    if !(8..=30).contains(&prefix) {
        return None;
    }
    let mask = u32::MAX << (32 - prefix);
    (u32::from(addr) & !mask == 0).then_some((addr, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Parsed<SpurConf>, ConfError> {
        SpurConf::parse(text, Path::new("/etc/slurm/spur.conf"))
    }

    #[test]
    fn without_mesh_type_there_is_no_mesh() {
        assert_eq!(parse("").unwrap().value.mesh, None);
        assert_eq!(parse("MeshPort=5000\n").unwrap().value.mesh, None);
        assert_eq!(parse("MeshType=none\n").unwrap().value.mesh, None);
    }

    #[test]
    fn the_mesh_keys_are_read_case_blind_with_defaults() {
        let on = parse("MeshType=wireguard\n").unwrap().value.mesh.unwrap();
        assert_eq!(on, MeshConf::default());
        assert_eq!(on.controller_address(), Ipv4Addr::new(10, 77, 0, 1));
        let text = "meshtype=WireGuard\nMeshInterface=wg-spur\nMeshPort=51900\n\
                    MeshNetwork=172.30.8.0/22\nMeshBackend=userspace\nMeshTraffic=control\n";
        let mesh = parse(text).unwrap().value.mesh.unwrap();
        assert_eq!(
            mesh,
            MeshConf {
                interface: "wg-spur".into(),
                port: 51900,
                network: Ipv4Addr::new(172, 30, 8, 0),
                prefix: 22,
                backend: MeshBackend::Userspace,
                traffic: MeshTraffic::Control,
            }
        );
        assert_eq!(mesh.host(1), Some(Ipv4Addr::new(172, 30, 8, 1)));
        assert_eq!(mesh.host(1022), Some(Ipv4Addr::new(172, 30, 11, 254)));
        assert_eq!(mesh.host(1023), None, "the broadcast address");
    }

    #[test]
    fn bad_values_are_errors_and_unknown_keys_warnings() {
        for bad in [
            "MeshType=ipsec",
            "MeshInterface=much-too-long-name",
            "MeshInterface=a/b",
            "MeshPort=0",
            "MeshPort=70000",
            "MeshNetwork=10.77.0.1/16",
            "MeshNetwork=10.77.0.0/31",
            "MeshNetwork=10.77.0.0",
            "MeshBackend=fast",
            "MeshTraffic=some",
        ] {
            let err = parse(&format!("MeshType=wireguard\n{bad}\n"))
                .unwrap_err()
                .to_string();
            let (key, value) = bad.split_once('=').unwrap();
            assert_eq!(
                err,
                format!("/etc/slurm/spur.conf:2: invalid value \"{value}\" for {key}"),
            );
        }
        let parsed = parse("MeshType=wireguard\nMeshColour=blue\n").unwrap();
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].message, "unknown key MeshColour");
    }

    #[test]
    fn a_missing_file_is_no_mesh_and_a_present_one_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let slurm = dir.path().join("slurm.conf");
        assert_eq!(SpurConf::load_beside(&slurm).unwrap().value.mesh, None);
        std::fs::write(dir.path().join("spur.conf"), "MeshType=wireguard\n").unwrap();
        assert!(SpurConf::load_beside(&slurm).unwrap().value.mesh.is_some());
    }
}
