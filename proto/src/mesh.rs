//! The WireGuard mesh on the wire: a node's agent joining (its public key,
//! proven by the cluster key) and the members each host's interface is
//! told of. Only public keys and addresses travel; a private key never
//! leaves its host.

use std::net::{Ipv4Addr, SocketAddr};

use serde::{Deserialize, Serialize};

use crate::error::ProtoError;
use crate::message::Nonce;

/// A WireGuard public key (Curve25519, 32 bytes).
pub type MeshKeyBytes = [u8; 32];

/// An agent's introduction when it joins the mesh, on the controller's
/// plain address (the one exchange that cannot cross the mesh). The
/// cluster key is proven as an agent's hello proves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshJoinHello {
    /// The NodeName it serves.
    pub node: String,
    /// Fresh random bytes the controller's proof must cover.
    pub nonce: Nonce,
    /// The node's public key.
    pub public_key: MeshKeyBytes,
}

/// A member of the mesh, as an interface is told of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshPeer {
    /// Its NodeName (the controller's: its SlurmctldHost name).
    pub name: String,
    /// Its public key.
    pub public_key: MeshKeyBytes,
    /// Where its WireGuard listens (its address and MeshPort).
    pub endpoint: Option<SocketAddr>,
    /// Its mesh address.
    pub address: Ipv4Addr,
}

/// The controller's answer to a join: the node's mesh address and every
/// other member (the controller first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshWelcome {
    /// The node's mesh address.
    pub address: Ipv4Addr,
    /// The mesh network's prefix length.
    pub prefix: u8,
    /// The other members.
    pub peers: Vec<MeshPeer>,
}

/// What a join gets back, after the controller's hello and its proof.
pub type MeshAnswer = Result<MeshWelcome, ProtoError>;

/// A [`MeshAnswer`] as it travels: its encoding (a frame's payload) and
/// the controller's seal on it under the cluster key, so that no one on
/// the way can change the peers a joining node is told of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshSealed {
    /// The answer, encoded.
    pub answer: Vec<u8>,
    /// The seal.
    pub seal: [u8; 32],
}

/// The mesh as the controller's interface sees it: `spurd mesh status`,
/// the REST server's `/spur/v1/mesh`, the metrics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshStatus {
    /// MeshInterface.
    pub interface: String,
    /// The controller's mesh address.
    pub address: Ipv4Addr,
    /// MeshPort.
    pub port: u16,
    /// The controller's public key.
    pub public_key: MeshKeyBytes,
    /// Every member, by node name.
    pub peers: Vec<MeshPeerStatus>,
}

/// One member as the controller's interface sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshPeerStatus {
    /// Its NodeName.
    pub name: String,
    /// Its mesh address.
    pub address: Ipv4Addr,
    /// Its public key.
    pub public_key: MeshKeyBytes,
    /// Where its packets last came from (or where they are sent).
    pub endpoint: Option<SocketAddr>,
    /// Its last handshake with the controller, in seconds since the
    /// epoch; None before the first.
    pub last_handshake: Option<u64>,
    /// Bytes received from it.
    pub rx_bytes: u64,
    /// Bytes sent to it.
    pub tx_bytes: u64,
}
