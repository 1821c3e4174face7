//! The controller's sockets. Clients come on a local unix socket and are
//! known by its peer credentials (a uid the client claims is never used);
//! agents come over TCP and must present the cluster key. Each connection is
//! a task that forwards to the actor and writes back what it answers.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot, Notify};
use tracing::{debug, info, warn};

use spur_proto::frame;
use spur_proto::{
    ClientRequest, ClientResponse, ErrorCode, FromAgent, Hello, ProtoError, Role, ToAgent,
    PROTOCOL_VERSION,
};

use super::actor::{Command, Reply, ReplyTo};
use super::history::History;
use super::registry::AgentLink;
use super::Site;

/// Binds the local socket, refusing to steal it from a live controller.
pub fn bind_unix(path: &Path) -> Result<UnixListener> {
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        bail!("a controller is already listening on {}", path.display());
    }
    let _ = std::fs::remove_file(path);
    let listener =
        UnixListener::bind(path).with_context(|| format!("while binding {}", path.display()))?;
    // Every user may connect; who they are comes from the credentials.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))
        .with_context(|| format!("while opening {} to all users", path.display()))?;
    Ok(listener)
}

fn hello() -> Hello {
    Hello {
        version: PROTOCOL_VERSION,
        role: Role::Client,
    }
}

/// Accepts clients and agents until `shutdown` resolves.
pub async fn serve(
    clients: UnixListener,
    agents: TcpListener,
    actor: Sender<Command>,
    site: Site,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let key: Arc<Vec<u8>> = Arc::new(site.key.clone());
    let conns = Arc::new(AtomicU64::new(1));
    let history = History::new(site.conf.state_save_location.clone().into());
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = clients.accept() => match accepted {
                Ok((stream, _)) => {
                    let (actor, history) = (actor.clone(), history.clone());
                    tokio::spawn(async move {
                        if let Err(e) = client_conn(stream, actor, history).await {
                            debug!(error = %e, "client connection ended");
                        }
                    });
                }
                Err(e) => warn!(error = %e, "accept on the local socket failed"),
            },
            accepted = agents.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let (actor, key, history) = (actor.clone(), key.clone(), history.clone());
                    let conn = conns.fetch_add(1, Ordering::Relaxed);
                    tokio::spawn(async move {
                        if let Err(e) = agent_conn(stream, conn, actor, &key, history).await {
                            info!(%peer, error = %e, "agent connection ended");
                        }
                    });
                }
                Err(e) => warn!(error = %e, "accept on SlurmctldPort failed"),
            },
        }
    }
}

async fn client_conn(
    mut stream: UnixStream,
    actor: Sender<Command>,
    history: Arc<History>,
) -> Result<()> {
    let uid = stream
        .peer_cred()
        .context("while reading peer credentials")?
        .uid();
    let theirs: Hello = frame::read(&mut stream).await?;
    frame::write(&mut stream, &hello()).await?;
    if theirs.version != PROTOCOL_VERSION {
        bail!("client speaks protocol {}", theirs.version);
    }
    loop {
        let req: ClientRequest = match frame::read(&mut stream).await {
            Ok(r) => r,
            Err(e) if e.is_eof() => return Ok(()),
            Err(spur_proto::FrameError::Decode(_)) => {
                let resp = ClientResponse::Error(ProtoError::new(ErrorCode::Malformed));
                frame::write(&mut stream, &resp).await?;
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        let (reply, answer) = oneshot::channel();
        if !dispatch(uid, req, ReplyTo::Local(reply), (&actor, &history)) {
            // The request was not taken: say so, so that the client waits
            // for the next controller instead of taking it as lost.
            let resp = ClientResponse::Error(ProtoError::new(ErrorCode::ControllerUnreachable));
            let _ = frame::write(&mut stream, &resp).await;
            bail!("controller is stopping");
        }
        match answer.await.context("controller dropped the request")? {
            Reply::Response(resp) => frame::write(&mut stream, &resp).await?,
            Reply::Frame(bytes) => {
                stream.write_all(&bytes).await?;
                stream.flush().await?;
            }
        }
    }
}

fn same_key(a: &[u8], b: &[u8]) -> bool {
    // Constant time in the key's length: no early exit on a mismatch.
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// One agent's connection. The actor knows it by `conn` and decides which
/// node it serves, so that a reconfigure may renumber the nodes under it.
async fn agent_conn(
    stream: TcpStream,
    conn: u64,
    actor: Sender<Command>,
    key: &[u8],
    history: Arc<History>,
) -> Result<()> {
    let (mut rd, mut wr) = stream.into_split();
    let theirs: Hello = frame::read(&mut rd).await?;
    let agent = match theirs.role {
        Role::Agent(agent) => agent,
        Role::Relay(relay) => {
            let links = (actor, history);
            return relay_conn(rd, wr, theirs.version, relay, links, key).await;
        }
        Role::Client | Role::Launcher => bail!("a client connected to the agent port"),
    };
    if theirs.version != PROTOCOL_VERSION {
        bail!("agent {} speaks protocol {}", agent.node, theirs.version);
    }
    if !same_key(&agent.key, key) {
        bail!("agent {} presented a wrong cluster key", agent.node);
    }
    frame::write(&mut wr, &hello()).await?;
    let FromAgent::Register(reg) = frame::read(&mut rd).await? else {
        bail!("agent {} did not register first", agent.node);
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<ToAgent>();
    let relay_tx = tx.clone();
    let close = Arc::new(Notify::new());
    let (accepted, answer) = oneshot::channel();
    actor
        .send(Command::AgentUp {
            name: agent.node.clone(),
            link: AgentLink {
                conn,
                tx,
                close: close.clone(),
            },
            reg,
            accepted,
        })
        .map_err(|_| anyhow::anyhow!("controller is stopping"))?;
    if !answer.await.unwrap_or(false) {
        bail!("agent for unknown node {}", agent.node);
    }
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            if frame::write(&mut wr, &msg).await.is_err() {
                break;
            }
        }
    });
    let result = loop {
        let read = tokio::select! {
            read = frame::read::<FromAgent, _>(&mut rd) => read,
            // The node left slurm.conf at a reconfigure.
            () = close.notified() => break Ok(()),
        };
        match read {
            Ok(FromAgent::Relay { tag, uid, req }) => {
                if !forward(tag, uid, *req, (&actor, &history), &relay_tx) {
                    break Ok(());
                }
            }
            Ok(msg) => {
                if actor.send(Command::Agent { conn, msg }).is_err() {
                    break Ok(());
                }
            }
            Err(e) if e.is_eof() => break Ok(()),
            Err(e) => break Err(e.into()),
        }
    };
    let _ = actor.send(Command::AgentDown { conn });
    writer.abort();
    result
}

/// The one way in for a client's request, however it came (the local
/// socket, or an agent or relay passing it on), made by `uid`: accounting
/// history is read from the store beside the actor, never by it; every
/// other request is the actor's. The answer goes to `reply`. False when
/// the controller is stopping.
pub(super) fn dispatch(
    uid: u32,
    req: ClientRequest,
    reply: ReplyTo,
    (actor, history): (&Sender<Command>, &Arc<History>),
) -> bool {
    if let ClientRequest::History(query) = req {
        let history = history.clone();
        tokio::spawn(async move {
            reply.send(Reply::Response(history.answer(query).await));
        });
        return true;
    }
    actor.send(Command::Client { uid, req, reply }).is_ok()
}

/// Hands a relayed request in, as made by `uid`; the answer goes back with
/// its tag. False when the controller is stopping.
fn forward(
    tag: u64,
    uid: u32,
    req: ClientRequest,
    gateway: (&Sender<Command>, &Arc<History>),
    replies: &mpsc::UnboundedSender<ToAgent>,
) -> bool {
    let reply = ReplyTo::Relay {
        tag,
        to: replies.clone(),
    };
    dispatch(uid, req, reply, gateway)
}

/// A login node's relay: it only forwards commands.
async fn relay_conn(
    mut rd: tokio::net::tcp::OwnedReadHalf,
    mut wr: tokio::net::tcp::OwnedWriteHalf,
    version: u16,
    relay: spur_proto::RelayHello,
    (actor, history): (Sender<Command>, Arc<History>),
    key: &[u8],
) -> Result<()> {
    if version != PROTOCOL_VERSION {
        bail!("relay on {} speaks protocol {version}", relay.host);
    }
    if !same_key(&relay.key, key) {
        bail!("relay on {} presented a wrong cluster key", relay.host);
    }
    frame::write(&mut wr, &hello()).await?;
    info!(host = %relay.host, "relay connected");
    let (tx, mut rx) = mpsc::unbounded_channel::<ToAgent>();
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            if frame::write(&mut wr, &msg).await.is_err() {
                break;
            }
        }
    });
    let result = loop {
        match frame::read::<FromAgent, _>(&mut rd).await {
            Ok(FromAgent::Relay { tag, uid, req }) => {
                if !forward(tag, uid, *req, (&actor, &history), &tx) {
                    break Ok(());
                }
            }
            Ok(_) => {
                break Err(anyhow::anyhow!(
                    "relay on {} sent a node message",
                    relay.host
                ))
            }
            Err(e) if e.is_eof() => break Ok(()),
            Err(e) => break Err(e.into()),
        }
    };
    writer.abort();
    result
}
