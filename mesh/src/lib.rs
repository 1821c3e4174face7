//! spur-mesh: one host's part of the WireGuard mesh between the controller
//! and the nodes: its key pair ([`key`]) and its interface with its peers
//! ([`link`]), through wireguard-control, on the kernel's WireGuard where
//! the kernel has it and on wireguard-go where it has not. Who is a member
//! and with which address is the controller's to say; this crate only
//! makes one host's interface say it.

pub mod key;
pub mod link;

pub use key::MeshKey;
pub use link::{Link, Peer, PeerState};
pub use spur_conf::MeshBackend;
pub use wireguard_control::Key;

/// What can go wrong with the mesh on this host.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("mesh key {path}: {source}")]
    Key {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("mesh key {path} is not a WireGuard private key")]
    BadKey { path: std::path::PathBuf },
    #[error("mesh key {path} can be read by others (mode {mode:o}): it must be 0600")]
    OpenKey { path: std::path::PathBuf, mode: u32 },
    #[error("'{0}' cannot name a network interface (1 to 15 characters, no '/')")]
    InterfaceName(String),
    #[error("mesh interface {name}: {what}: {source}")]
    Link {
        name: String,
        what: &'static str,
        source: std::io::Error,
    },
}
