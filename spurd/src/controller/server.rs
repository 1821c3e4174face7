//! The controller's sockets. Clients come on a local unix socket and are
//! known by its peer credentials (a uid the client claims is never used);
//! agents and relays come over TCP and must present the cluster key, and
//! a client over TCP (a REST server on another host) proves nothing, so
//! each of its requests must carry a token. Each connection is a task that
//! hands requests to the [`Gateway`] and writes back what it answers.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot, Notify};
use tracing::{debug, info, warn};

use spur_proto::frame;
use spur_proto::{
    Authenticated, ClientRequest, ClientResponse, Credential, ErrorCode, FromAgent, Hello,
    ProtoError, Role, ToAgent, TokenRequest, PROTOCOL_VERSION,
};

use super::actor::{Command, Reply, ReplyTo};
use super::history::History;
use super::jwt::JwtKeys;
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

/// What the gateway shares with the actor.
pub(super) struct Shared {
    /// Requests served, for sdiag.
    pub rpcs: super::stats::Rpcs,
    /// slurm.conf's PrivateData bits, as the actor last read them.
    pub private_data: Arc<AtomicU16>,
}

/// Where the controller is reached.
pub(super) struct Listeners {
    /// The local socket, for commands on this host.
    pub clients: UnixListener,
    /// SlurmctldPort on SlurmctldHost's address: agents, relays, clients
    /// with tokens, metrics; with the mesh on, agents only join there.
    pub agents: TcpListener,
    /// SlurmctldPort on the controller's mesh address, where the mesh is
    /// on and `agents` listens on one address only: agents register there.
    pub mesh: Option<TcpListener>,
    /// The controller's mesh address, where the mesh is on: a connection
    /// to it came over the mesh, whichever listener took it.
    pub mesh_address: Option<std::net::Ipv4Addr>,
}

/// Accepts clients and agents until `shutdown` resolves. `jwt` holds
/// auth/jwt's keys when slurm.conf turns it on.
pub(super) async fn serve(
    listeners: Listeners,
    actor: Sender<Command>,
    site: Site,
    shared: Shared,
    jwt: Option<JwtKeys>,
    shutdown: impl std::future::Future<Output = ()> + Send,
) {
    let Listeners {
        clients,
        agents,
        mesh: mesh_agents,
        mesh_address,
    } = listeners;
    let key: Arc<Vec<u8>> = Arc::new(site.key.clone());
    let conns = Arc::new(AtomicU64::new(1));
    let gateway = Arc::new(Gateway {
        actor,
        history: History::new(site.conf.state_save_location.clone().into()),
        jwt,
        slurm_user_uid: site.slurm_user_uid,
        uids: Mutex::new(HashMap::new()),
        rpcs: shared.rpcs,
        private_data: shared.private_data,
        metrics: super::metrics::MetricsConf::of(&site.conf),
        http_slots: Arc::new(tokio::sync::Semaphore::new(
            super::metrics::HTTP_CONNECTIONS,
        )),
        scrapes: super::metrics::Scrapes::default(),
        mesh_address,
    });
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = clients.accept() => match accepted {
                Ok((stream, _)) => {
                    let gateway = gateway.clone();
                    tokio::spawn(async move {
                        if let Err(e) = local_client_conn(stream, gateway).await {
                            debug!(error = %e, "client connection ended");
                        }
                    });
                }
                Err(e) => warn!(error = %e, "accept on the local socket failed"),
            },
            accepted = accept_tcp(&agents, mesh_agents.as_ref()) => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let (gateway, key) = (gateway.clone(), key.clone());
                    let conn = conns.fetch_add(1, Ordering::Relaxed);
                    tokio::spawn(async move {
                        if let Err(e) = tcp_conn(stream, conn, gateway, &key).await {
                            info!(%peer, error = %e, "connection on SlurmctldPort ended");
                        }
                    });
                }
                Err(e) => warn!(error = %e, "accept on SlurmctldPort failed"),
            },
        }
    }
}

/// The next connection on SlurmctldPort: on SlurmctldHost's address, or
/// on the mesh's where it has a listener of its own (`tcp_conn` knows
/// which by the address the connection came to).
async fn accept_tcp(
    agents: &TcpListener,
    mesh: Option<&TcpListener>,
) -> std::io::Result<(TcpStream, std::net::SocketAddr)> {
    match mesh {
        None => agents.accept().await,
        Some(mesh) => tokio::select! {
            accepted = agents.accept() => accepted,
            accepted = mesh.accept() => accepted,
        },
    }
}

/// A command or library on this host: the socket's peer credentials say
/// who it is.
async fn local_client_conn(mut stream: UnixStream, gateway: Arc<Gateway>) -> Result<()> {
    let uid = stream
        .peer_cred()
        .context("while reading peer credentials")?
        .uid();
    let theirs: Hello = crate::handshake::opening(&mut stream).await?;
    frame::write(&mut stream, &hello()).await?;
    if theirs.version != PROTOCOL_VERSION {
        bail!("client speaks protocol {}", theirs.version);
    }
    client_requests(stream, Some(uid), &gateway).await
}

/// Requests and answers, one at a time, on a client's connection after
/// the hello; `caller` is who the transport vouches for (None over TCP).
async fn client_requests<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    caller: Option<u32>,
    gateway: &Gateway,
) -> Result<()> {
    let _served = super::stats::Served::new(&gateway.rpcs);
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
        if !gateway.dispatch(caller, req, ReplyTo::Local(reply)) {
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

/// A connection on SlurmctldPort: an agent, a relay, a client that
/// proves nothing (every request of it must carry a token), or an HTTP
/// client of the metrics and health endpoints.
async fn tcp_conn(
    mut stream: TcpStream,
    conn: u64,
    gateway: Arc<Gateway>,
    key: &[u8],
) -> Result<()> {
    let mesh_on = gateway.mesh_address.is_some();
    let via_mesh = match (gateway.mesh_address, stream.local_addr()?.ip()) {
        (Some(mesh), std::net::IpAddr::V4(to)) => mesh == to,
        _ => false,
    };
    let mut first = [0u8; 1];
    let peeked = tokio::time::timeout(crate::handshake::OPENING_WAIT, stream.peek(&mut first));
    if let Ok(Ok(1)) = peeked.await {
        if super::metrics::is_http(first[0]) {
            return super::metrics::serve(stream, gateway).await;
        }
    }
    let theirs: Hello = crate::handshake::opening(&mut stream).await?;
    let agent = match theirs.role {
        Role::Agent(agent) if mesh_on && !via_mesh => {
            bail!(
                "agent {} connected over the plain network; with the mesh on, agents join it and register over it",
                agent.node
            )
        }
        Role::Agent(agent) => agent,
        Role::MeshJoin(join) if mesh_on && !via_mesh => {
            return mesh_join_conn(stream, theirs.version, join, &gateway, key).await;
        }
        Role::MeshJoin(join) => bail!(
            "agent {} asked to join the mesh {}",
            join.node,
            if mesh_on {
                "over the mesh itself"
            } else {
                "but it is off here (spur.conf)"
            }
        ),
        Role::Relay(relay) => {
            let (rd, wr) = stream.into_split();
            return relay_conn(rd, wr, theirs.version, relay, &gateway, key).await;
        }
        Role::Client => {
            frame::write(&mut stream, &hello()).await?;
            if theirs.version != PROTOCOL_VERSION {
                bail!("client speaks protocol {}", theirs.version);
            }
            return client_requests(stream, None, &gateway).await;
        }
        Role::Launcher => bail!("a launcher connected to SlurmctldPort"),
    };
    let from = stream.peer_addr()?.ip();
    agent_conn(stream, conn, from, agent, theirs.version, &gateway, key).await
}

/// A node's agent joining the mesh: it proves the cluster key (the proofs
/// cover its public key), the actor admits it, and the answer goes back
/// sealed under the cluster key.
async fn mesh_join_conn(
    stream: TcpStream,
    version: u16,
    join: spur_proto::MeshJoinHello,
    gateway: &Gateway,
    key: &[u8],
) -> Result<()> {
    let (mut rd, mut wr) = stream.into_split();
    if version != PROTOCOL_VERSION {
        bail!("agent {} speaks protocol {version}", join.node);
    }
    frame::write(&mut wr, &hello()).await?;
    let peer = crate::handshake::Peer::MeshJoin(&join.node, &join.public_key);
    let ours = crate::handshake::challenge(&mut rd, &mut wr, key, peer, &join.nonce).await?;
    let (reply, answer) = oneshot::channel();
    gateway
        .actor
        .send(Command::MeshJoin {
            node: join.node.clone(),
            public_key: join.public_key,
            reply,
        })
        .map_err(|_| anyhow::anyhow!("controller is stopping"))?;
    let answer = answer
        .await
        .context("the controller did not answer the join (its state database may refuse writes)")?;
    let bytes = frame::encode(&answer)?;
    let payload = bytes[4..].to_vec();
    let sealed = spur_proto::MeshSealed {
        seal: crate::handshake::seal(key, &join.nonce, &ours, &payload),
        answer: payload,
    };
    frame::write(&mut wr, &sealed).await?;
    Ok(())
}

/// One agent's connection. The actor knows it by `conn` and decides which
/// node it serves, so that a reconfigure may renumber the nodes under it.
async fn agent_conn(
    stream: TcpStream,
    conn: u64,
    from: std::net::IpAddr,
    agent: spur_proto::AgentHello,
    version: u16,
    gateway: &Gateway,
    key: &[u8],
) -> Result<()> {
    let (mut rd, mut wr) = stream.into_split();
    let actor = &gateway.actor;
    if version != PROTOCOL_VERSION {
        bail!("agent {} speaks protocol {version}", agent.node);
    }
    frame::write(&mut wr, &hello()).await?;
    let peer = crate::handshake::Peer::Agent(&agent.node);
    crate::handshake::challenge(&mut rd, &mut wr, key, peer, &agent.nonce).await?;
    let FromAgent::Register(reg) = crate::handshake::opening(&mut rd).await? else {
        bail!("agent {} did not register first", agent.node);
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<ToAgent>();
    let relay_tx = tx.clone();
    let close = Arc::new(Notify::new());
    let (accepted, answer) = oneshot::channel();
    actor
        .send(Command::AgentUp {
            name: agent.node.clone(),
            from,
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
        bail!(
            "agent for node {} refused (unknown node, or not from its mesh address)",
            agent.node
        );
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
                if !forward(tag, uid, *req, gateway, &relay_tx) {
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

/// How long a user name's uid is trusted before the passwd database is
/// asked again.
const UID_CACHE_TTL: Duration = Duration::from_secs(60);

/// The one way in for a client's request, however it came: the local
/// socket, an agent or relay passing it on, or a client over TCP (a REST
/// server). It settles who makes the request (the caller the transport
/// vouches for, or the user a credential names), answers what needs no
/// actor (accounting history, read from the store beside it; tokens), and
/// hands the rest to the actor.
pub(super) struct Gateway {
    pub(super) actor: Sender<Command>,
    history: Arc<History>,
    jwt: Option<JwtKeys>,
    slurm_user_uid: Option<u32>,
    /// User names recently resolved, with when.
    uids: Mutex<HashMap<String, (u32, Instant)>>,
    /// Requests served, for sdiag (the actor counts its own).
    rpcs: super::stats::Rpcs,
    /// slurm.conf's PrivateData bits.
    pub(super) private_data: Arc<AtomicU16>,
    /// slurm.conf's metrics settings, for the HTTP endpoints.
    pub(super) metrics: super::metrics::MetricsConf,
    /// HTTP connections that may still be taken.
    pub(super) http_slots: Arc<tokio::sync::Semaphore>,
    /// The metrics endpoints' last answers.
    pub(super) scrapes: super::metrics::Scrapes,
    /// The controller's mesh address, where the WireGuard mesh is on:
    /// agents then register over it only, and join it on the plain
    /// network.
    mesh_address: Option<std::net::Ipv4Addr>,
}

impl Gateway {
    /// Hands `req` in, made by `caller` (None: the transport vouches for
    /// no one); the answer goes to `reply`. False when the controller is
    /// stopping.
    pub(super) fn dispatch(&self, caller: Option<u32>, req: ClientRequest, reply: ReplyTo) -> bool {
        let (uid, req) = match self.identify(caller, req) {
            Ok(who) => who,
            Err(e) => {
                reply.send(Reply::Response(ClientResponse::Error(e)));
                return true;
            }
        };
        match req {
            ClientRequest::History(mut query) => {
                let private =
                    spur_conf::PrivateData::from_bits(self.private_data.load(Ordering::Relaxed));
                if private.hides(spur_conf::PrivateData::JOBS) && !self.is_operator(uid) {
                    // Only their own jobs; asking for others' finds none.
                    if !query.uids.is_empty() && !query.uids.contains(&uid) {
                        reply.send(Reply::Response(ClientResponse::History {
                            now: super::actor::now(),
                            jobs: Vec::new(),
                        }));
                        return true;
                    }
                    query.uids = vec![uid];
                }
                let history = self.history.clone();
                let rpcs = self.rpcs.clone();
                tokio::spawn(async move {
                    let began = Instant::now();
                    let answer = history.answer(query).await;
                    rpcs.record(super::stats::HISTORY, uid, began.elapsed());
                    reply.send(Reply::Response(answer));
                });
                true
            }
            ClientRequest::Backup { path } => {
                if !self.is_operator(uid) {
                    warn!(uid, "state backup refused: not an operator");
                    reply.send(Reply::Response(ClientResponse::Error(
                        ErrorCode::AccessDenied.into(),
                    )));
                    return true;
                }
                let history = self.history.clone();
                let rpcs = self.rpcs.clone();
                tokio::spawn(async move {
                    let began = Instant::now();
                    let answer = history.backup(path.into()).await;
                    rpcs.record(super::stats::STATE_BACKUP, uid, began.elapsed());
                    reply.send(Reply::Response(answer));
                });
                true
            }
            ClientRequest::Token(asked) => {
                let began = Instant::now();
                let answer = self.token(uid, asked);
                self.rpcs
                    .record(super::stats::AUTH_TOKEN, uid, began.elapsed());
                reply.send(Reply::Response(answer));
                true
            }
            req => self.actor.send(Command::Client { uid, req, reply }).is_ok(),
        }
    }

    pub(super) fn is_operator(&self, uid: u32) -> bool {
        uid == 0 || Some(uid) == self.slurm_user_uid
    }

    /// Who makes `req` and what it asks: the caller, or the user its
    /// credential names.
    fn identify(
        &self,
        caller: Option<u32>,
        req: ClientRequest,
    ) -> Result<(u32, ClientRequest), ProtoError> {
        let ClientRequest::Authenticated(auth) = req else {
            let uid = caller.ok_or_else(|| {
                ProtoError::with_detail(
                    ErrorCode::AuthCredInvalid,
                    "a request over TCP must carry a token",
                )
            })?;
            return Ok((uid, req));
        };
        let Authenticated {
            credential,
            request,
        } = *auth;
        if matches!(request, ClientRequest::Authenticated(_)) {
            return Err(ProtoError::with_detail(
                ErrorCode::AuthCredInvalid,
                "nested credentials",
            ));
        }
        let uid = match credential {
            Credential::Token { token, user_name } => {
                self.token_user(&token, user_name.as_deref())?
            }
            Credential::As { user_name } => {
                let caller = caller.ok_or_else(|| {
                    ProtoError::with_detail(ErrorCode::AuthCredInvalid, "no caller to act for")
                })?;
                if !self.is_operator(caller) {
                    warn!(uid = caller, user = %user_name, "attempt to act as another user");
                    return Err(ProtoError::with_detail(
                        ErrorCode::AuthCredInvalid,
                        "only root and SlurmUser may act as another user",
                    ));
                }
                self.uid_of(&user_name)?
            }
        };
        Ok((uid, request))
    }

    /// The uid a token makes a request as: its user, or, for a token of
    /// root or SlurmUser, the user named beside it (auth/jwt's rule).
    pub(super) fn token_user(&self, token: &str, named: Option<&str>) -> Result<u32, ProtoError> {
        let Some(keys) = &self.jwt else {
            return Err(ProtoError::with_detail(
                ErrorCode::AuthCredInvalid,
                "auth/jwt is not configured (AuthAltTypes)",
            ));
        };
        let user = keys.verify(token, super::actor::now()).map_err(|e| {
            info!(error = %e, "token refused");
            ProtoError::with_detail(ErrorCode::AuthCredInvalid, e.to_string())
        })?;
        let uid = self.uid_of(&user)?;
        match named {
            Some(name) if name != user => {
                if !self.is_operator(uid) {
                    warn!(token_user = %user, named = %name, "attempt to authenticate as another user");
                    return Err(ProtoError::with_detail(
                        ErrorCode::AuthCredInvalid,
                        format!("a token of {user} cannot act as {name}"),
                    ));
                }
                self.uid_of(name)
            }
            _ => Ok(uid),
        }
    }

    /// A user name's uid (cached for a minute), or Slurm's "Invalid user
    /// id".
    fn uid_of(&self, name: &str) -> Result<u32, ProtoError> {
        let cached = self
            .uids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .copied();
        if let Some((uid, at)) = cached {
            if at.elapsed() < UID_CACHE_TTL {
                return Ok(uid);
            }
        }
        // The passwd database (perhaps LDAP) is asked without the lock held.
        let uid = spur_sys::users::uid_of(name).ok_or_else(|| {
            ProtoError::with_detail(ErrorCode::UserIdMissing, format!("unknown user {name}"))
        })?;
        let mut cache = self.uids.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() > 4096 {
            cache.clear();
        }
        cache.insert(name.to_string(), (uid, Instant::now()));
        Ok(uid)
    }

    /// `scontrol token`, as slurmctld's `_slurm_rpc_auth_token` answers it.
    fn token(&self, uid: u32, asked: TokenRequest) -> ClientResponse {
        let refuse =
            |code, detail: String| ClientResponse::Error(ProtoError::with_detail(code, detail));
        let Some(keys) = &self.jwt else {
            return refuse(
                ErrorCode::NotSupported,
                "auth/jwt is not configured (AuthAltTypes)".into(),
            );
        };
        let operator = self.is_operator(uid);
        if !keys.may_create(operator) {
            return refuse(ErrorCode::AccessDenied, "token creation is disabled".into());
        }
        let own = spur_sys::users::user(uid).name;
        let user = match asked.user_name {
            Some(name) if operator || name == own => name,
            Some(name) => {
                warn!(uid, user = %name, "attempt to get a token for another user");
                return refuse(
                    ErrorCode::UserIdMissing,
                    format!("uid {uid} may not get a token for {name}"),
                );
            }
            None => own,
        };
        let lifespan = match keys.lifespan(asked.lifespan, operator) {
            Ok(l) => l,
            Err(max) => {
                return refuse(
                    ErrorCode::InvalidTimeLimit,
                    format!("lifespan exceeds max_token_lifespan={max}"),
                )
            }
        };
        match keys.issue(&user, lifespan, super::actor::now()) {
            Ok(token) => {
                info!(user = %user, lifespan, "created token");
                ClientResponse::Token(token)
            }
            Err(e) => refuse(ErrorCode::NotSupported, e.to_string()),
        }
    }
}

/// Hands a relayed request in, as made by `uid`; the answer goes back with
/// its tag. False when the controller is stopping.
fn forward(
    tag: u64,
    uid: u32,
    req: ClientRequest,
    gateway: &Gateway,
    replies: &mpsc::UnboundedSender<ToAgent>,
) -> bool {
    let reply = ReplyTo::Relay {
        tag,
        to: replies.clone(),
    };
    gateway.dispatch(Some(uid), req, reply)
}

/// A login node's relay: it only forwards commands.
async fn relay_conn(
    mut rd: tokio::net::tcp::OwnedReadHalf,
    mut wr: tokio::net::tcp::OwnedWriteHalf,
    version: u16,
    relay: spur_proto::RelayHello,
    gateway: &Gateway,
    key: &[u8],
) -> Result<()> {
    if version != PROTOCOL_VERSION {
        bail!("relay on {} speaks protocol {version}", relay.host);
    }
    frame::write(&mut wr, &hello()).await?;
    let peer = crate::handshake::Peer::Relay(&relay.host);
    crate::handshake::challenge(&mut rd, &mut wr, key, peer, &relay.nonce).await?;
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
                if !forward(tag, uid, *req, gateway, &tx) {
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
