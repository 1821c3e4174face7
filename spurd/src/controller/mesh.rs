//! The controller's side of the WireGuard mesh: who is a member (each
//! node's public key and mesh address, kept in the state database:
//! [`Membership`], no I/O), its own interface with every member as a peer
//! ([`Mesh`]), and what a joining node is told. The actor owns it: a join
//! is one of its turns, committed before it is answered, and every
//! connected agent then hears of the new peer.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::path::Path;

use anyhow::{Context, Result};
use spur_conf::{MeshConf, SlurmConf};
use spur_mesh::{Key, Link, MeshKey, Peer};
use spur_proto::{MeshKeyBytes, MeshPeer, MeshPeerStatus, MeshStatus, MeshWelcome};

use super::store::StoredMember;

/// Why a node cannot join.
#[derive(Debug, thiserror::Error)]
pub enum JoinRefused {
    #[error("node {0} is not in slurm.conf")]
    UnknownNode(String),
    #[error("the mesh network has no address left for node {0}")]
    Full(String),
}

/// Who is in the mesh and with which address, and what each member is
/// told of the others.
#[derive(Debug)]
pub struct Membership {
    conf: MeshConf,
    /// The controller as its peers know it.
    me: MeshPeer,
    /// Members by node name.
    members: BTreeMap<String, StoredMember>,
    /// Where each node's WireGuard listens: its NodeAddr and MeshPort.
    endpoints: BTreeMap<String, Option<SocketAddr>>,
}

impl Membership {
    /// The members `stored`, with the controller as `me`, for the nodes
    /// of `slurm`. Members whose node left slurm.conf, or whose address
    /// is outside MeshNetwork (it changed), are left out: they are
    /// returned, to be forgotten in the store too, and join afresh.
    pub fn new(
        conf: &MeshConf,
        me: MeshPeer,
        stored: Vec<StoredMember>,
        slurm: &SlurmConf,
    ) -> (Membership, Vec<String>) {
        let mut membership = Membership {
            conf: conf.clone(),
            me,
            members: BTreeMap::new(),
            endpoints: BTreeMap::new(),
        };
        membership.set_nodes(slurm);
        let gone = membership.reset(stored);
        (membership, gone)
    }

    /// The members as `stored` has them (after a turn failed to commit,
    /// what it admitted did not happen), but for those whose node is not
    /// in slurm.conf or whose address is outside MeshNetwork: those are
    /// returned, to be forgotten in the store too.
    pub fn reset(&mut self, stored: Vec<StoredMember>) -> Vec<String> {
        let (kept, gone): (Vec<_>, Vec<_>) = stored.into_iter().partition(|m| {
            m.host >= 2 && self.conf.host(m.host).is_some() && self.endpoints.contains_key(&m.node)
        });
        self.members = kept.into_iter().map(|m| (m.node.clone(), m)).collect();
        gone.into_iter().map(|m| m.node).collect()
    }

    /// Takes slurm.conf's nodes: their endpoints, and the members whose
    /// node left it forgotten. The nodes forgotten, for the store.
    pub fn set_nodes(&mut self, slurm: &SlurmConf) -> Vec<String> {
        self.endpoints = slurm
            .nodes
            .iter()
            .map(|n| (n.name.clone(), endpoint(&n.addr, self.conf.port)))
            .collect();
        let gone: Vec<String> = self
            .members
            .keys()
            .filter(|name| !self.endpoints.contains_key(*name))
            .cloned()
            .collect();
        for name in &gone {
            self.members.remove(name);
        }
        gone
    }

    /// Admits node `node` with `public_key`: a member already keeps its
    /// address (a new key replaces its old one), a new one gets the
    /// lowest free address. The member to store, and whether anything
    /// changed.
    pub fn admit(
        &mut self,
        node: &str,
        public_key: MeshKeyBytes,
    ) -> Result<(StoredMember, bool), JoinRefused> {
        if !self.endpoints.contains_key(node) {
            return Err(JoinRefused::UnknownNode(node.to_string()));
        }
        if let Some(member) = self.members.get_mut(node) {
            let changed = member.public_key != public_key;
            member.public_key = public_key;
            return Ok((member.clone(), changed));
        }
        let taken: std::collections::HashSet<u32> = self.members.values().map(|m| m.host).collect();
        // Host 1 is the controller's.
        let host = (2..)
            .take_while(|h| self.conf.host(*h).is_some())
            .find(|h| !taken.contains(h))
            .ok_or_else(|| JoinRefused::Full(node.to_string()))?;
        let member = StoredMember {
            node: node.to_string(),
            public_key,
            host,
        };
        self.members.insert(node.to_string(), member.clone());
        Ok((member, true))
    }

    /// What node `node` is told on joining.
    pub fn welcome(&self, node: &str) -> Option<MeshWelcome> {
        Some(MeshWelcome {
            address: self.address_of(node)?,
            prefix: self.conf.prefix,
            peers: self.peers_of(node),
        })
    }

    /// Every member but `node`, the controller first.
    pub fn peers_of(&self, node: &str) -> Vec<MeshPeer> {
        std::iter::once(self.me.clone())
            .chain(self.members().filter(|m| m.name != node))
            .collect()
    }

    /// Node `node`'s mesh address, where it is a member.
    pub fn address_of(&self, node: &str) -> Option<Ipv4Addr> {
        self.members.get(node).and_then(|m| self.conf.host(m.host))
    }

    /// Every member, as its peers know it.
    fn members(&self) -> impl Iterator<Item = MeshPeer> + '_ {
        self.members.values().filter_map(|m| {
            Some(MeshPeer {
                name: m.node.clone(),
                public_key: m.public_key,
                endpoint: self.endpoints.get(&m.node).copied().flatten(),
                address: self.conf.host(m.host)?,
            })
        })
    }
}

/// The controller's mesh: its interface and who is on it.
pub struct Mesh {
    link: Link,
    /// The controller's key file, in StateSaveLocation.
    key_file: std::path::PathBuf,
    /// Who is a member.
    pub members: Membership,
}

impl std::fmt::Debug for Mesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mesh")
            .field("members", &self.members)
            .finish_non_exhaustive()
    }
}

impl Mesh {
    /// Brings up the controller's interface (its key in `state_dir`,
    /// made on the first start) with the members `stored` as its peers.
    /// The members left out ([`Membership::new`]), for the store.
    pub fn start(
        conf: &MeshConf,
        state_dir: &Path,
        ctld_name: &str,
        ctld_addr: &str,
        slurm: &SlurmConf,
        stored: Vec<StoredMember>,
    ) -> Result<(Mesh, Vec<String>)> {
        let key_file = state_dir.join("mesh.key");
        let key = MeshKey::load_or_make(&key_file)?;
        let address = conf.controller_address();
        let link = Link::up(
            &conf.interface,
            conf.backend,
            &key,
            conf.port,
            address,
            conf.prefix,
        )
        .context("while bringing up the controller's mesh interface")?;
        let me = MeshPeer {
            name: ctld_name.to_string(),
            public_key: key.public().0,
            endpoint: endpoint(ctld_addr, conf.port),
            address,
        };
        let (members, gone) = Membership::new(conf, me, stored, slurm);
        let mesh = Mesh {
            link,
            key_file,
            members,
        };
        mesh.apply()?;
        tracing::info!(
            interface = %conf.interface,
            %address,
            members = mesh.members.members.len(),
            userspace = mesh.link.is_userspace(),
            "mesh up"
        );
        Ok((mesh, gone))
    }

    /// A new key pair for the controller's interface (`spurd mesh
    /// rotate`); every member must then be told the new public key.
    pub fn rotate(&mut self) -> Result<()> {
        let key = MeshKey::rotate(&self.key_file)?;
        self.link.set_key(&key)?;
        self.members.me.public_key = key.public().0;
        tracing::info!(public_key = %spur_mesh::key::fingerprint(key.public()), "controller's mesh key rotated");
        Ok(())
    }

    /// The controller's interface told every member.
    pub fn apply(&self) -> Result<()> {
        let peers: Vec<Peer> = self
            .members
            .members()
            .map(|p| Peer {
                key: Key(p.public_key),
                endpoint: p.endpoint,
                address: p.address,
            })
            .collect();
        self.link.set_peers(&peers)?;
        Ok(())
    }

    /// Every member as the controller's interface sees it now (its
    /// handshakes and bytes); members the interface cannot be read for
    /// show none.
    pub fn status(&self) -> MeshStatus {
        let seen: BTreeMap<[u8; 32], spur_mesh::PeerState> = match self.link.peers() {
            Ok(peers) => peers.into_iter().map(|p| (p.key.0, p)).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the controller's mesh interface");
                BTreeMap::new()
            }
        };
        let since_epoch = |t: std::time::SystemTime| {
            t.duration_since(std::time::UNIX_EPOCH)
                .ok()
                .map(|d| d.as_secs())
        };
        let peers = self
            .members
            .members()
            .map(|peer| {
                let state = seen.get(&peer.public_key);
                MeshPeerStatus {
                    endpoint: state.and_then(|s| s.endpoint).or(peer.endpoint),
                    last_handshake: state.and_then(|s| s.last_handshake).and_then(since_epoch),
                    rx_bytes: state.map_or(0, |s| s.rx_bytes),
                    tx_bytes: state.map_or(0, |s| s.tx_bytes),
                    name: peer.name,
                    address: peer.address,
                    public_key: peer.public_key,
                }
            })
            .collect();
        let me = &self.members.me;
        MeshStatus {
            interface: self.members.conf.interface.clone(),
            address: me.address,
            port: self.members.conf.port,
            public_key: me.public_key,
            peers,
        }
    }
}

/// `addr` (an address or a host name) at `port`; None where it does not
/// resolve.
fn endpoint(addr: &str, port: u16) -> Option<SocketAddr> {
    if let Ok(ip) = addr.parse::<IpAddr>() {
        return Some(SocketAddr::new(ip, port));
    }
    (addr, port)
        .to_socket_addrs()
        .ok()?
        .find(SocketAddr::is_ipv4)
}

use spur_proto::{ClientResponse, ErrorCode, ProtoError};

impl super::actor::Controller {
    /// Node `node`'s agent asks to join the mesh with `public_key`. The
    /// answer goes out once the membership is committed; the other agents
    /// hear of the change with it.
    pub(super) fn on_mesh_join(
        &mut self,
        node: &str,
        public_key: MeshKeyBytes,
        reply: tokio::sync::oneshot::Sender<spur_proto::MeshAnswer>,
    ) {
        let Some(mesh) = self.mesh.as_mut() else {
            let off = ProtoError::with_detail(ErrorCode::Disabled, "the mesh is off (spur.conf)");
            let _ = reply.send(Err(off));
            return;
        };
        let (member, changed) = match mesh.members.admit(node, public_key) {
            Ok(admitted) => admitted,
            Err(refused) => {
                let code = match refused {
                    JoinRefused::UnknownNode(_) => ErrorCode::InvalidNodeName,
                    JoinRefused::Full(_) => ErrorCode::NodeConfigUnavailable,
                };
                tracing::warn!(node, error = %refused, "mesh join refused");
                let _ = reply.send(Err(ProtoError::with_detail(code, refused.to_string())));
                return;
            }
        };
        if changed {
            tracing::info!(node, host = member.host, "mesh member admitted");
            if let Err(e) = mesh.apply() {
                tracing::warn!(error = %format!("{e:#}"), "cannot give the controller's mesh interface its peers");
            }
            self.turn.mesh_members.push(member);
            self.tell_mesh_peers(Some(node));
        }
        let welcome = self.mesh.as_ref().and_then(|m| m.members.welcome(node));
        let answer = welcome.ok_or_else(|| ProtoError::new(ErrorCode::NodeConfigUnavailable));
        self.turn.mesh_replies.push((reply, answer));
    }

    /// Every connected agent but `except`'s is told the members it has
    /// as peers now.
    pub(super) fn tell_mesh_peers(&mut self, except: Option<&str>) {
        let Some(mesh) = &self.mesh else { return };
        for (i, live) in self.live.iter().enumerate() {
            let name = &self.core.nodes()[i].config.name;
            if live.link.is_none() || except == Some(name.as_str()) {
                continue;
            }
            let peers = mesh.members.peers_of(name);
            self.turn.to_agents.push((
                spur_core::NodeId(i as u32),
                spur_proto::ToAgent::MeshPeers(peers),
            ));
        }
    }

    /// `spurd mesh rotate` on the controller's host, by `uid`: a new key
    /// pair for the controller's interface, and every agent told.
    pub(super) fn rotate_mesh_key(&mut self, uid: u32) -> Result<ClientResponse, ProtoError> {
        if !self.is_operator(uid) {
            return Err(ErrorCode::AccessDenied.into());
        }
        let Some(mesh) = self.mesh.as_mut() else {
            return Err(ProtoError::with_detail(
                ErrorCode::Disabled,
                "the mesh is off (spur.conf)",
            ));
        };
        mesh.rotate()
            .map_err(|e| ProtoError::with_detail(ErrorCode::NotSupported, format!("{e:#}")))?;
        self.tell_mesh_peers(None);
        Ok(ClientResponse::Done)
    }

    /// The mesh's members as the controller sees them (None: it is off).
    pub(super) fn mesh_status(&self) -> Option<MeshStatus> {
        self.mesh.as_ref().map(Mesh::status)
    }

    /// Where srun reaches node `node`'s agent for a step: its mesh address
    /// where steps cross the mesh (MeshTraffic=all), else its NodeAddr.
    pub(super) fn step_addr(&self, node: &spur_conf::NodeConf) -> String {
        self.mesh
            .as_ref()
            .filter(|m| m.members.conf.traffic == spur_conf::MeshTraffic::All)
            .and_then(|m| m.members.address_of(&node.name))
            .map_or_else(|| node.addr.clone(), |a| a.to_string())
    }

    /// Whether an agent for `node` that connected from `from` may
    /// register: with the mesh on, only over it, from the node's own mesh
    /// address (which only the holder of its key can send from).
    pub(super) fn mesh_admits(&self, node: &str, from: IpAddr) -> bool {
        match &self.mesh {
            None => true,
            Some(mesh) => match mesh.members.address_of(node) {
                Some(address) if IpAddr::V4(address) == from => true,
                expected => {
                    tracing::warn!(node, %from, ?expected, "agent refused: not from its mesh address");
                    false
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use spur_conf::ConfFile;

    use super::*;

    fn slurm(nodes: &str) -> SlurmConf {
        let text =
            format!("SlurmctldHost=ctl(10.0.0.1)\n{nodes}PartitionName=p Nodes=ALL Default=YES\n");
        SlurmConf::parse(&text, Path::new("/etc/slurm/slurm.conf"))
            .expect("a slurm.conf")
            .value
    }

    fn membership(prefix: u8, nodes: &str, stored: Vec<StoredMember>) -> (Membership, Vec<String>) {
        let conf = MeshConf {
            prefix,
            ..MeshConf::default()
        };
        let me = MeshPeer {
            name: "ctl".into(),
            public_key: [0; 32],
            endpoint: endpoint("10.0.0.1", conf.port),
            address: conf.controller_address(),
        };
        Membership::new(&conf, me, stored, &slurm(nodes))
    }

    const THREE: &str = "NodeName=n1 NodeAddr=10.0.0.11\nNodeName=n2 NodeAddr=10.0.0.12\n\
                         NodeName=n3 NodeAddr=10.0.0.13\n";

    #[test]
    fn nodes_get_the_lowest_free_address_and_keep_it_across_keys() {
        let (mut m, gone) = membership(16, THREE, vec![]);
        assert!(gone.is_empty());
        let (first, changed) = m.admit("n2", [2; 32]).unwrap();
        assert_eq!((first.host, changed), (2, true));
        assert_eq!(m.admit("n1", [1; 32]).unwrap().0.host, 3);
        // The same key again changes nothing; a new one keeps the address.
        assert!(!m.admit("n2", [2; 32]).unwrap().1);
        let (rotated, changed) = m.admit("n2", [9; 32]).unwrap();
        assert_eq!(
            (rotated.host, rotated.public_key, changed),
            (2, [9; 32], true)
        );
        assert_eq!(m.address_of("n2"), Some(Ipv4Addr::new(10, 77, 0, 2)));
        assert!(matches!(
            m.admit("x9", [7; 32]),
            Err(JoinRefused::UnknownNode(_))
        ));
    }

    #[test]
    fn a_member_is_told_of_the_controller_first_and_every_other_member() {
        let (mut m, _) = membership(16, THREE, vec![]);
        m.admit("n1", [1; 32]).unwrap();
        m.admit("n2", [2; 32]).unwrap();
        let welcome = m.welcome("n1").unwrap();
        assert_eq!(welcome.address, Ipv4Addr::new(10, 77, 0, 2));
        assert_eq!(welcome.prefix, 16);
        let names: Vec<&str> = welcome.peers.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["ctl", "n2"]);
        assert_eq!(
            welcome.peers[1].endpoint,
            Some("10.0.0.12:51820".parse().unwrap())
        );
        assert_eq!(m.welcome("n3"), None, "not a member");
    }

    #[test]
    fn a_full_network_refuses_and_a_node_gone_from_slurm_conf_frees_its_address() {
        // A /30 has two addresses: the controller's and one node's.
        let (mut m, _) = membership(30, THREE, vec![]);
        m.admit("n1", [1; 32]).unwrap();
        assert!(matches!(m.admit("n2", [2; 32]), Err(JoinRefused::Full(_))));
        let gone = m.set_nodes(&slurm("NodeName=n2 NodeAddr=10.0.0.12\n"));
        assert_eq!(gone, ["n1"]);
        assert_eq!(m.admit("n2", [2; 32]).unwrap().0.host, 2);
    }

    #[test]
    fn stored_members_outside_the_network_or_slurm_conf_are_left_out() {
        let stored = |node: &str, host| StoredMember {
            node: node.into(),
            public_key: [host as u8; 32],
            host,
        };
        let (m, gone) = membership(
            24,
            THREE,
            vec![stored("n1", 2), stored("n2", 300), stored("old", 4)],
        );
        assert_eq!(gone, ["n2", "old"]);
        assert_eq!(m.address_of("n1"), Some(Ipv4Addr::new(10, 77, 0, 2)));
        assert_eq!(m.address_of("n2"), None);
    }
}
