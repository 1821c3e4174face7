//! Proving the cluster key without sending it. An agent or relay opens
//! with a hello that carries a fresh nonce; the controller answers with its
//! own nonce and an HMAC over both under the key ([`KeyChallenge`]); the
//! peer checks it and answers with its own HMAC. Each proof covers who
//! made it, the peer's name and both nonces, so a proof captured on one
//! connection is worth nothing on another, a peer cannot be talked into
//! answering its own question, and the key never crosses the wire.

use anyhow::{bail, Result};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::io::{AsyncRead, AsyncWrite};

use spur_proto::{frame, KeyChallenge, KeyProof, Nonce};

type HmacSha256 = Hmac<Sha256>;

/// How long a peer has for each frame of a connection's opening (its
/// hello, its proof): one that sends nothing holds no socket for long.
pub const OPENING_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Connects to the controller at `addr`, giving up after [`OPENING_WAIT`]:
/// a connect begun while the network was cut would otherwise wait out
/// TCP's own retries (minutes) after it heals.
pub async fn connect(addr: &(String, u16)) -> std::io::Result<tokio::net::TcpStream> {
    let connecting = tokio::net::TcpStream::connect((addr.0.as_str(), addr.1));
    match tokio::time::timeout(OPENING_WAIT, connecting).await {
        Ok(connected) => connected,
        Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
    }
}

/// Reads one frame of a connection's opening, within [`OPENING_WAIT`].
pub async fn opening<T, R>(rd: &mut R) -> Result<T>
where
    T: serde::de::DeserializeOwned,
    R: AsyncRead + Unpin,
{
    match tokio::time::timeout(OPENING_WAIT, frame::read(rd)).await {
        Ok(read) => Ok(read?),
        Err(_) => bail!(
            "nothing sent within {} s of connecting",
            OPENING_WAIT.as_secs()
        ),
    }
}

/// The peer the controller shakes hands with, by the name it gave.
#[derive(Debug, Clone, Copy)]
pub enum Peer<'a> {
    /// A node agent, by NodeName.
    Agent(&'a str),
    /// A relay, by host.
    Relay(&'a str),
    /// A node's agent joining the mesh, by NodeName, with its public key
    /// (which the proofs cover, so that no one on the way can swap it).
    MeshJoin(&'a str, &'a [u8; 32]),
}

impl std::fmt::Display for Peer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Peer::Agent(node) => write!(f, "agent {node}"),
            Peer::Relay(host) => write!(f, "relay on {host}"),
            Peer::MeshJoin(node, _) => write!(f, "agent {node} joining the mesh"),
        }
    }
}

/// Who made a proof.
#[derive(Clone, Copy)]
enum Prover {
    Controller,
    Peer,
}

/// Fresh random bytes for a hello or a challenge.
pub fn nonce() -> Result<Nonce> {
    let mut n = [0u8; 32];
    spur_sys::random_bytes(&mut n)?;
    Ok(n)
}

fn mac(key: &[u8], prover: Prover, peer: Peer, peer_nonce: &Nonce, ours: &Nonce) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(b"spur cluster key proof 1\0");
    mac.update(&[prover as u8]);
    let (kind, name, mesh_key) = match peer {
        Peer::Agent(n) => (0u8, n, None),
        Peer::Relay(h) => (1u8, h, None),
        Peer::MeshJoin(n, k) => (2u8, n, Some(k)),
    };
    mac.update(&[kind]);
    mac.update(&(name.len() as u64).to_be_bytes());
    mac.update(name.as_bytes());
    if let Some(k) = mesh_key {
        mac.update(k);
    }
    mac.update(peer_nonce);
    mac.update(ours);
    mac
}

fn prove(key: &[u8], prover: Prover, peer: Peer, peer_nonce: &Nonce, ours: &Nonce) -> KeyProof {
    mac(key, prover, peer, peer_nonce, ours)
        .finalize()
        .into_bytes()
        .into()
}

fn holds(
    key: &[u8],
    prover: Prover,
    peer: Peer,
    (peer_nonce, ours): (&Nonce, &Nonce),
    proof: &KeyProof,
) -> bool {
    // Compared in constant time.
    mac(key, prover, peer, peer_nonce, ours)
        .verify_slice(proof)
        .is_ok()
}

/// The controller's side, after its hello to `peer`, whose hello carried
/// `peer_nonce`: challenge it and check its answer. Its own nonce, which
/// [`seal`] covers.
pub async fn challenge<R, W>(
    rd: &mut R,
    wr: &mut W,
    key: &[u8],
    peer: Peer<'_>,
    peer_nonce: &Nonce,
) -> Result<Nonce>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let ours = nonce()?;
    let challenge = KeyChallenge {
        nonce: ours,
        proof: prove(key, Prover::Controller, peer, peer_nonce, &ours),
    };
    frame::write(wr, &challenge).await?;
    let answer: KeyProof = opening(rd).await?;
    if !holds(key, Prover::Peer, peer, (peer_nonce, &ours), &answer) {
        bail!("{peer} does not hold the cluster key");
    }
    Ok(ours)
}

/// The agent's or relay's side, after the controller's hello: check the
/// controller's proof over `own_nonce` (the one in our hello) and answer
/// its challenge. The controller's nonce, which [`seal`] covers.
pub async fn answer<R, W>(
    rd: &mut R,
    wr: &mut W,
    key: &[u8],
    peer: Peer<'_>,
    own_nonce: &Nonce,
) -> Result<Nonce>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let challenge: KeyChallenge = opening(rd).await?;
    let theirs = (own_nonce, &challenge.nonce);
    if !holds(key, Prover::Controller, peer, theirs, &challenge.proof) {
        bail!(
            "the controller does not hold this node's cluster key (is spur.key the same on both?)"
        );
    }
    let answer = prove(key, Prover::Peer, peer, own_nonce, &challenge.nonce);
    frame::write(wr, &answer).await?;
    Ok(challenge.nonce)
}

/// The controller's seal on `bytes` it sends after a handshake whose
/// nonces were `peer_nonce` and `ours`: the peer knows by it that the
/// bytes came from the holder of the cluster key on this connection (a
/// mesh join's answer: no one on the way may change the peers it lists).
pub fn seal(key: &[u8], peer_nonce: &Nonce, ours: &Nonce, bytes: &[u8]) -> KeyProof {
    sealing(key, peer_nonce, ours, bytes)
        .finalize()
        .into_bytes()
        .into()
}

/// Whether `tag` is the controller's [`seal`] on `bytes`.
pub fn sealed(key: &[u8], own_nonce: &Nonce, theirs: &Nonce, bytes: &[u8], tag: &KeyProof) -> bool {
    sealing(key, own_nonce, theirs, bytes)
        .verify_slice(tag)
        .is_ok()
}

fn sealing(key: &[u8], peer_nonce: &Nonce, ours: &Nonce, bytes: &[u8]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(b"spur cluster key seal 1\0");
    mac.update(peer_nonce);
    mac.update(ours);
    mac.update(bytes);
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    async fn shake(
        controller_key: &'static [u8],
        peer_key: &'static [u8],
    ) -> (Result<Nonce>, Result<Nonce>) {
        shake_as(
            controller_key,
            peer_key,
            Peer::Agent("n01"),
            Peer::Agent("n01"),
        )
        .await
    }

    /// A handshake in which the controller sees the peer as `seen` and
    /// the peer says it is `said`; each side's result and the peer's
    /// nonce.
    async fn shake_as(
        controller_key: &'static [u8],
        peer_key: &'static [u8],
        seen: Peer<'static>,
        said: Peer<'static>,
    ) -> (Result<Nonce>, Result<Nonce>) {
        let (a, b) = tokio::io::duplex(4096);
        let (mut ard, mut awr) = tokio::io::split(a);
        let (mut brd, mut bwr) = tokio::io::split(b);
        let peer_nonce = nonce().expect("random");
        let ctl = async { challenge(&mut ard, &mut awr, controller_key, seen, &peer_nonce).await };
        let agent = async move {
            let done = answer(&mut brd, &mut bwr, peer_key, said, &peer_nonce).await;
            // Hang up, as a process that gives up does.
            drop((brd, bwr));
            done
        };
        tokio::join!(ctl, agent)
    }

    #[tokio::test]
    async fn a_mesh_join_proves_its_public_key_and_the_answer_is_sealed() {
        const MINE: [u8; 32] = [7; 32];
        const SWAPPED: [u8; 32] = [9; 32];
        let me = Peer::MeshJoin("n01", &MINE);
        let (ctl, agent) = shake_as(KEY, KEY, me, me).await;
        let (ours, theirs) = (
            ctl.expect("the controller takes it"),
            agent.expect("and the agent"),
        );
        assert_eq!(ours, theirs, "both hold the controller's nonce");
        // A key swapped on the way: neither side takes the other.
        let (ctl, agent) = shake_as(KEY, KEY, Peer::MeshJoin("n01", &SWAPPED), me).await;
        assert!(ctl.is_err() && agent.is_err());
        // The answer's seal holds for its bytes, on this connection only.
        let peer_nonce = [1; 32];
        let tag = seal(KEY, &peer_nonce, &ours, b"the answer");
        assert!(sealed(KEY, &peer_nonce, &ours, b"the answer", &tag));
        assert!(!sealed(KEY, &peer_nonce, &ours, b"another answer", &tag));
        assert!(!sealed(KEY, &[2; 32], &ours, b"the answer", &tag));
        assert!(!sealed(
            b"another cluster key of 32 bytes!",
            &peer_nonce,
            &ours,
            b"the answer",
            &tag
        ));
    }

    #[tokio::test]
    async fn the_same_key_on_both_sides_shakes_hands() {
        let (ctl, agent) = shake(KEY, KEY).await;
        ctl.expect("the controller takes the agent");
        agent.expect("the agent takes the controller");
    }

    #[tokio::test]
    async fn a_peer_without_the_key_learns_nothing_and_is_refused() {
        let (ctl, agent) = shake(KEY, b"another key of the same length!!").await;
        // The agent sees the controller's proof fail and hangs up, so the
        // controller never gets an answer.
        assert!(agent.is_err());
        assert!(ctl.is_err());
    }

    #[test]
    fn a_proof_is_bound_to_its_prover_peer_and_both_nonces() {
        let (n1, n2, n3) = ([1u8; 32], [2u8; 32], [3u8; 32]);
        let agent = Peer::Agent("n01");
        let p = prove(KEY, Prover::Peer, agent, &n1, &n2);
        assert!(holds(KEY, Prover::Peer, agent, (&n1, &n2), &p));
        // Replayed on a connection with another challenge.
        assert!(!holds(KEY, Prover::Peer, agent, (&n1, &n3), &p));
        // The controller's own proof sent back as the peer's.
        let c = prove(KEY, Prover::Controller, agent, &n1, &n2);
        assert!(!holds(KEY, Prover::Peer, agent, (&n1, &n2), &c));
        // Another node's name, or a relay by the same name.
        assert!(!holds(
            KEY,
            Prover::Peer,
            Peer::Agent("n02"),
            (&n1, &n2),
            &p
        ));
        assert!(!holds(
            KEY,
            Prover::Peer,
            Peer::Relay("n01"),
            (&n1, &n2),
            &p
        ));
    }
}
