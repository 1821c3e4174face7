//! An agent's part of the WireGuard mesh: its key pair (made in its spool
//! folder, mode 0600; the private key never leaves the node), joining on
//! the controller's plain address (the cluster key proves the node, and
//! seals the answer), its interface, and the peers the controller names.
//! After the join the agent talks to the controller over the mesh only.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use spur_conf::{MeshConf, MeshTraffic};
use spur_mesh::{Key, Link, MeshKey, Peer};
use spur_proto::PROTOCOL_VERSION;
use spur_proto::{frame, Hello, MeshAnswer, MeshJoinHello, MeshPeer, MeshSealed, Role};
use tracing::info;

/// This node's mesh.
pub struct AgentMesh {
    conf: MeshConf,
    /// The key file, in the spool folder.
    key_file: std::path::PathBuf,
    key: Mutex<MeshKey>,
    /// The interface and its address, once a join has brought it up.
    link: Mutex<Option<(Link, Ipv4Addr)>>,
    /// Peers the controller named that the interface could not be given
    /// (wireguard-go busy or restarting): tried again on the next
    /// heartbeat, so that one failed update does not cut this node off
    /// from the members it names until the membership next changes.
    unapplied: Mutex<Option<Vec<MeshPeer>>>,
}

impl AgentMesh {
    /// The mesh of the node whose spool folder is `spool` (its key is
    /// made there on the first start).
    pub fn load(conf: MeshConf, spool: &Path) -> Result<AgentMesh> {
        std::fs::create_dir_all(spool)
            .with_context(|| format!("while creating {}", spool.display()))?;
        let key_file = spool.join("mesh.key");
        let key = MeshKey::load_or_make(&key_file)?;
        Ok(AgentMesh {
            conf,
            key_file,
            key: Mutex::new(key),
            link: Mutex::new(None),
            unapplied: Mutex::new(None),
        })
    }

    /// Whether steps (srun's connections, the tasks' I/O) cross the mesh.
    pub fn carries_steps(&self) -> bool {
        self.conf.traffic == MeshTraffic::All
    }

    /// This node's mesh address, once it has joined.
    pub fn address(&self) -> Option<Ipv4Addr> {
        self.link
            .lock()
            .expect("mesh lock")
            .as_ref()
            .map(|(_, a)| *a)
    }

    /// Joins through the controller at `plain` as node `node`, proving
    /// `cluster_key`: brings up (or updates) the interface with the
    /// address and peers the controller gives. The controller's address
    /// on the mesh, and its port.
    pub async fn join(
        self: &Arc<Self>,
        plain: &(String, u16),
        node: &str,
        cluster_key: &[u8],
    ) -> Result<(String, u16)> {
        let stream = crate::handshake::connect(plain)
            .await
            .with_context(|| format!("while reaching {}:{} to join the mesh", plain.0, plain.1))?;
        let (mut rd, mut wr) = stream.into_split();
        let nonce = crate::handshake::nonce()?;
        let public_key = self.key.lock().expect("mesh lock").public().0;
        let hello = Hello {
            version: PROTOCOL_VERSION,
            role: Role::MeshJoin(MeshJoinHello {
                node: node.to_string(),
                nonce,
                public_key,
            }),
        };
        frame::write(&mut wr, &hello).await?;
        let theirs: Hello = crate::handshake::opening(&mut rd).await?;
        anyhow::ensure!(
            theirs.version == PROTOCOL_VERSION,
            "controller speaks protocol {}",
            theirs.version
        );
        let me = crate::handshake::Peer::MeshJoin(node, &public_key);
        let controllers =
            crate::handshake::answer(&mut rd, &mut wr, cluster_key, me, &nonce).await?;
        let sealed: MeshSealed = crate::handshake::opening(&mut rd).await?;
        if !crate::handshake::sealed(
            cluster_key,
            &nonce,
            &controllers,
            &sealed.answer,
            &sealed.seal,
        ) {
            bail!("the controller's answer to the mesh join is not sealed with the cluster key");
        }
        let answer: MeshAnswer = frame::decode(&sealed.answer)?;
        let welcome = match answer {
            Ok(welcome) => welcome,
            Err(e) => bail!("the controller refused this node's mesh join: {e}"),
        };
        // The interface's calls block (wireguard-go starts, rtnetlink):
        // off the agent's one runtime thread.
        let mesh = Arc::clone(self);
        let welcome = tokio::task::spawn_blocking(move || {
            mesh.bring_up(welcome.address, welcome.prefix)?;
            mesh.set_peers(&welcome.peers)?;
            Ok::<_, anyhow::Error>(welcome)
        })
        .await
        .context("the mesh's interface task ended early")??;
        let controller = welcome
            .peers
            .first()
            .context("the controller's answer names no peer")?;
        Ok((controller.address.to_string(), plain.1))
    }

    fn bring_up(&self, address: Ipv4Addr, prefix: u8) -> Result<()> {
        let mut link = self.link.lock().expect("mesh lock");
        if link.as_ref().is_some_and(|(_, a)| *a == address) {
            return Ok(());
        }
        let key = self.key.lock().expect("mesh lock").clone();
        let up = Link::up(
            &self.conf.interface,
            self.conf.backend,
            &key,
            self.conf.port,
            address,
            prefix,
        )?;
        info!(interface = %self.conf.interface, %address, userspace = up.is_userspace(), "mesh joined");
        *link = Some((up, address));
        Ok(())
    }

    /// A new key pair (`spurd mesh rotate`), in the key file and on the
    /// interface at once; the next join tells the controller, which tells
    /// every other member.
    pub fn rotate(&self) -> Result<()> {
        let key = MeshKey::rotate(&self.key_file)?;
        if let Some((link, _)) = self.link.lock().expect("mesh lock").as_ref() {
            link.set_key(&key)?;
        }
        info!(public_key = %spur_mesh::key::fingerprint(key.public()), "mesh key rotated");
        *self.key.lock().expect("mesh lock") = key;
        Ok(())
    }

    /// The interface's peers made `peers`. Where that fails, the list is
    /// kept and [`AgentMesh::retry_peers`] tries it again; a later list
    /// replaces it.
    pub fn set_peers(&self, peers: &[MeshPeer]) -> Result<()> {
        let applied = self.apply_peers(peers);
        *self.unapplied.lock().expect("mesh lock") = applied.is_err().then(|| peers.to_vec());
        applied
    }

    /// Gives the interface the last peer list it could not be given, if
    /// any. Whether there was one.
    pub fn retry_peers(&self) -> Option<Result<()>> {
        let peers = self.unapplied.lock().expect("mesh lock").take()?;
        Some(self.set_peers(&peers))
    }

    fn apply_peers(&self, peers: &[MeshPeer]) -> Result<()> {
        let link = self.link.lock().expect("mesh lock");
        let Some((link, _)) = link.as_ref() else {
            bail!("mesh peers before the mesh was joined");
        };
        let peers: Vec<Peer> = peers
            .iter()
            .map(|p| Peer {
                key: Key(p.public_key),
                endpoint: p.endpoint,
                address: p.address,
            })
            .collect();
        link.set_peers(&peers)?;
        Ok(())
    }

    /// Whether a connection that arrived at local address `to` came over
    /// the mesh.
    pub fn reached_over_mesh(&self, to: IpAddr) -> bool {
        self.address().is_some_and(|a| IpAddr::V4(a) == to)
    }
}
