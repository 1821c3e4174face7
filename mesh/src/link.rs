//! This host's mesh interface: made with its key and listen port, given its
//! mesh address and brought up over rtnetlink, then told its peers (each a
//! public key, an endpoint and the one mesh address it may send from). The
//! kernel's WireGuard serves where the kernel has it; elsewhere
//! wireguard-go does, reached through its control socket.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::SystemTime;

use netlink_packet_core::{NLM_F_ACK, NLM_F_CREATE, NLM_F_REPLACE, NLM_F_REQUEST};
use netlink_packet_route::address::{AddressAttribute, AddressHeader, AddressMessage};
use netlink_packet_route::link::{LinkAttribute, LinkFlags, LinkHeader, LinkMessage};
use netlink_packet_route::{AddressFamily, RouteNetlinkMessage};
use netlink_request::netlink_request_rtnl;
use wireguard_control::{Backend, Device, DeviceUpdate, InterfaceName, Key, PeerConfigBuilder};

use spur_conf::MeshBackend;

use crate::{MeshError, MeshKey};

/// A member of the mesh, as this host's interface knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    pub key: Key,
    /// Where its WireGuard listens (its node address and the mesh port);
    /// None for a peer that only calls in.
    pub endpoint: Option<SocketAddr>,
    /// Its mesh address: the only source address accepted from it.
    pub address: Ipv4Addr,
}

/// A peer as the interface sees it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerState {
    pub key: Key,
    pub endpoint: Option<SocketAddr>,
    pub last_handshake: Option<SystemTime>,
    pub rx_bytes: u64,
    pub tx_bytes: u64,
}

/// Seconds between keepalives to a peer, so that a link through a NAT or
/// a stateful firewall stays open while no job talks over it.
const KEEPALIVE_SECS: u16 = 25;

/// This host's mesh interface.
#[derive(Debug)]
pub struct Link {
    name: InterfaceName,
    backend: Backend,
}

impl Link {
    /// Makes (or takes over) interface `name` with `key` listening on
    /// `port`, with mesh address `address`/`prefix`, and brings it up. Its
    /// peers are set apart ([`Link::set_peers`]).
    pub fn up(
        name: &str,
        choice: MeshBackend,
        key: &MeshKey,
        port: u16,
        address: Ipv4Addr,
        prefix: u8,
    ) -> Result<Link, MeshError> {
        let iface: InterfaceName = name
            .parse()
            .map_err(|_| MeshError::InterfaceName(name.to_string()))?;
        let fail = |what, source| MeshError::Link {
            name: name.to_string(),
            what,
            source,
        };
        let update = || {
            DeviceUpdate::new()
                .set_private_key(key.private().clone())
                .set_public_key(key.public().clone())
                .set_listen_port(port)
        };
        let backend = match choice {
            MeshBackend::Kernel => apply(update(), &iface, Backend::Kernel)
                .map(|()| Backend::Kernel)
                .map_err(|e| fail("the kernel's WireGuard", e))?,
            MeshBackend::Userspace => apply(update(), &iface, Backend::Userspace)
                .map(|()| Backend::Userspace)
                .map_err(|e| fail("wireguard-go", e))?,
            MeshBackend::Auto => match apply(update(), &iface, Backend::Kernel) {
                Ok(()) => Backend::Kernel,
                Err(kernel) => {
                    tracing::info!(interface = name, error = %kernel,
                        "no WireGuard in the kernel: the mesh runs on wireguard-go");
                    apply(update(), &iface, Backend::Userspace)
                        .map(|()| Backend::Userspace)
                        .map_err(|e| fail("wireguard-go (the kernel has no WireGuard)", e))?
                }
            },
        };
        let index = index_of(&iface).map_err(|e| fail("finding it", e))?;
        set_address(index, address, prefix).map_err(|e| fail("setting its address", e))?;
        set_up(index).map_err(|e| fail("bringing it up", e))?;
        Ok(Link {
            name: iface,
            backend,
        })
    }

    /// Gives the interface a new key pair (`spurd mesh rotate`): its peers
    /// take it once the controller has told them.
    pub fn set_key(&self, key: &MeshKey) -> Result<(), MeshError> {
        let update = DeviceUpdate::new()
            .set_private_key(key.private().clone())
            .set_public_key(key.public().clone());
        apply(update, &self.name, self.backend).map_err(|source| MeshError::Link {
            name: self.name.to_string(),
            what: "giving it a new key",
            source,
        })
    }

    /// Makes the interface's peers `peers`. A peer it has already is
    /// updated in place and keeps its session: a member joining again (as
    /// every member does when the controller restarts) or another joining
    /// interrupts no traffic. Replacing them all instead would drop every
    /// session here while the other side kept sending on its own, unheard
    /// until it gave up on the session (15 s). A peer not named goes.
    pub fn set_peers(&self, peers: &[Peer]) -> Result<(), MeshError> {
        let mut update = DeviceUpdate::new();
        for gone in self
            .peers()?
            .into_iter()
            .filter(|had| !peers.iter().any(|p| p.key == had.key))
        {
            update = update.remove_peer_by_key(&gone.key);
        }
        for peer in peers {
            let mut config = PeerConfigBuilder::new(&peer.key)
                .replace_allowed_ips()
                .add_allowed_ip(IpAddr::V4(peer.address), 32)
                .set_persistent_keepalive_interval(KEEPALIVE_SECS);
            if let Some(endpoint) = peer.endpoint {
                config = config.set_endpoint(endpoint);
            }
            update = update.add_peer(config);
        }
        apply(update, &self.name, self.backend).map_err(|source| MeshError::Link {
            name: self.name.to_string(),
            what: "setting its peers",
            source,
        })
    }

    /// The peers as the interface sees them now: endpoints learnt,
    /// handshakes, bytes moved.
    pub fn peers(&self) -> Result<Vec<PeerState>, MeshError> {
        let device = Device::get(&self.name, self.backend).map_err(|source| MeshError::Link {
            name: self.name.to_string(),
            what: "reading its peers",
            source,
        })?;
        Ok(device
            .peers
            .into_iter()
            .map(|p| PeerState {
                key: p.config.public_key,
                endpoint: p.config.endpoint,
                last_handshake: p.stats.last_handshake_time,
                rx_bytes: p.stats.rx_bytes,
                tx_bytes: p.stats.tx_bytes,
            })
            .collect())
    }

    /// Whether the interface runs on wireguard-go.
    pub fn is_userspace(&self) -> bool {
        self.backend == Backend::Userspace
    }

    /// Removes the interface (wireguard-go's process ends with its tun
    /// device). Called in the network namespace the interface is in.
    pub fn remove(self) -> Result<(), MeshError> {
        let fail = |what, source| MeshError::Link {
            name: self.name.to_string(),
            what,
            source,
        };
        if self.backend == Backend::Userspace {
            delete_link(&self.name).map_err(|e| fail("removing its tun device", e))?;
        }
        let device = Device::get(&self.name, self.backend);
        match device {
            Ok(device) => device.delete().map_err(|e| fail("removing it", e)),
            // wireguard-go went with its device, and its socket with it.
            Err(_) if self.backend == Backend::Userspace => Ok(()),
            Err(e) => Err(fail("finding it to remove it", e)),
        }
    }
}

/// `update` applied, once more after a moment where wireguard-go had not
/// yet opened its control socket when first asked.
fn apply(update: DeviceUpdate, iface: &InterfaceName, backend: Backend) -> std::io::Result<()> {
    match update.clone().apply(iface, backend) {
        Err(e) if backend == Backend::Userspace && e.kind() != std::io::ErrorKind::NotFound => {
            std::thread::sleep(std::time::Duration::from_millis(500));
            update.apply(iface, backend)
        }
        done => done,
    }
}

fn index_of(iface: &InterfaceName) -> std::io::Result<u32> {
    // SAFETY: `as_ptr` is a NUL-terminated name that outlives the call.
    match unsafe { libc::if_nametoindex(iface.as_ptr()) } {
        0 => Err(std::io::Error::last_os_error()),
        index => Ok(index),
    }
}

fn set_address(index: u32, address: Ipv4Addr, prefix: u8) -> std::io::Result<()> {
    let mut message = AddressMessage::default();
    message.header = AddressHeader {
        family: AddressFamily::Inet,
        prefix_len: prefix,
        index,
        ..Default::default()
    };
    message.attributes = vec![
        AddressAttribute::Local(IpAddr::V4(address)),
        AddressAttribute::Address(IpAddr::V4(address)),
    ];
    netlink_request_rtnl(
        RouteNetlinkMessage::NewAddress(message),
        Some(NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE),
    )
    .map(drop)
}

fn set_up(index: u32) -> std::io::Result<()> {
    let mut message = LinkMessage::default();
    message.header = LinkHeader {
        index,
        flags: LinkFlags::Up,
        change_mask: LinkFlags::Up,
        ..Default::default()
    };
    netlink_request_rtnl(
        RouteNetlinkMessage::SetLink(message),
        Some(NLM_F_REQUEST | NLM_F_ACK),
    )
    .map(drop)
}

/// Deletes the link named `iface` in this namespace (by name, so that no
/// other link can be hit).
fn delete_link(iface: &InterfaceName) -> std::io::Result<()> {
    let mut message = LinkMessage::default();
    message
        .attributes
        .push(LinkAttribute::IfName(iface.as_str_lossy().into_owned()));
    netlink_request_rtnl(
        RouteNetlinkMessage::DelLink(message),
        Some(NLM_F_REQUEST | NLM_F_ACK),
    )
    .map(drop)
}
