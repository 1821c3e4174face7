//! spur-client: the one way to the controller for the commands and the
//! libraries. It finds the controller as Slurm's commands do (SLURM_CONF,
//! else /etc/slurm/slurm.conf), keeps one connection per process (slurm.conf
//! read once, the connection reused while the controller keeps it), rides
//! out a controller restart for MessageTimeout, and returns typed errors
//! that carry Slurm's error number. Blocking on purpose: a command makes a
//! handful of round trips and should start in a millisecond, without a
//! runtime. A server acting for many callers (the REST server) takes
//! sessions from a [`Pool`] and makes each request with the caller's
//! [`Credential`]. Which jobs a cancel names is chosen in [`select`], for
//! scancel and the REST server alike.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use spur_conf::{ConfFile, SlurmConf};
use spur_proto::frame::{self, FrameError};
use spur_proto::{
    Authenticated, ClientRequest, ClientResponse, Credential, ErrorCode, Hello, ProtoError, Role,
    PROTOCOL_VERSION,
};
use thiserror::Error;

pub mod api;
pub mod pool;
pub mod select;
pub mod submit_key;
pub mod target;
pub use api::{Api, Listing, PerTarget, StepCreated, Submitted};
pub use pool::Pool;

/// Why the controller could not be asked.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ClientError {
    /// slurm.conf could not be read.
    #[error("cannot read {path}")]
    Conf {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: spur_conf::ConfError,
    },
    /// The controller is not listening.
    #[error("Unable to contact slurm controller (connect failure)")]
    Connect {
        /// The socket tried (or `host:port`).
        socket: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The connection broke before the controller answered the hello.
    #[error("Zero Bytes were transmitted or received")]
    Hello(#[source] FrameError),
    /// The connection broke or carried garbage.
    #[error("Zero Bytes were transmitted or received")]
    Frame(#[from] FrameError),
    /// The controller speaks another protocol version.
    #[error("Protocol version has changed, re-link your code")]
    Version {
        /// The controller's version.
        theirs: u16,
    },
}

impl ClientError {
    /// Whether the controller was not there to take a request: nothing
    /// listened on its socket, or it went away before the hello was
    /// answered. Such a request was never acted on.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, ClientError::Connect { .. } | ClientError::Hello(_))
    }

    /// Slurm's error number for the failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            ClientError::Connect { .. } | ClientError::Hello(_) => ErrorCode::ControllerUnreachable,
            ClientError::Frame(_) => ErrorCode::ConnectionLost,
            ClientError::Version { .. } => ErrorCode::ProtocolVersion,
            ClientError::Conf { .. } => ErrorCode::Unspecified,
        }
    }
}

/// Why a request got no answer it could use: the controller could not be
/// asked, or it refused.
#[derive(Debug, Error)]
pub enum RequestError {
    /// The controller could not be reached or the connection broke.
    #[error("{0}")]
    Unreachable(#[from] ClientError),
    /// The controller refused.
    #[error("{0}")]
    Refused(ProtoError),
}

impl RequestError {
    /// The failure in Slurm's terms.
    pub fn code(&self) -> ErrorCode {
        match self {
            RequestError::Unreachable(e) => e.code(),
            RequestError::Refused(e) => e.code,
        }
    }

    /// Slurm's error number (what `slurm_get_errno()` gives after the call,
    /// REST's `error_number`).
    pub fn errno(&self) -> i32 {
        self.code().errno()
    }

    /// The error as a daemon's command line tells it: Slurm's text, then
    /// the controller's detail where it gave one.
    pub fn detailed(&self) -> String {
        match self {
            RequestError::Refused(ProtoError {
                detail: Some(detail),
                ..
            }) => format!("{self}: {detail}"),
            e => e.to_string(),
        }
    }
}

/// Whoever answers requests: the controller (through [`Session`]), or a
/// test's stand-in. One request, one answer; an error answer is
/// [`RequestError::Refused`].
pub trait Controller {
    /// Sends `req` and returns the answer.
    fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, RequestError>;
}

/// A function answering requests is a controller (tests stand one in so).
impl<F> Controller for F
where
    F: FnMut(&ClientRequest) -> Result<ClientResponse, RequestError>,
{
    fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, RequestError> {
        self(req)
    }
}

/// The process's session with the controller that SLURM_CONF names, and
/// the slurm.conf it was read from.
static SESSION: Mutex<Option<ProcessSession>> = Mutex::new(None);

/// The process's session and the slurm.conf it was made from. Until
/// something asks for more, only the file's settings are read
/// ([`SlurmConf::load_settings`]): they lead to the controller, and a
/// command does not read every node of a large cluster to submit a job.
#[derive(Debug)]
struct ProcessSession {
    path: PathBuf,
    session: Session,
    /// Whether the session holds the whole file, records included.
    whole: bool,
}

impl ProcessSession {
    /// A session from the settings of the slurm.conf at `path`.
    fn new(path: PathBuf) -> Result<ProcessSession, ClientError> {
        let conf = SlurmConf::load_settings(&path)
            .map(|parsed| parsed.value)
            .map_err(|source| ClientError::Conf {
                path: path.clone(),
                source,
            })?;
        Ok(ProcessSession {
            path,
            session: Session::new(conf),
            whole: false,
        })
    }

    /// Reads the whole file, if only its settings were read; the
    /// connection is kept.
    fn read_whole(&mut self) -> Result<(), ClientError> {
        if !self.whole {
            self.session.conf = load_conf(&self.path)?;
            self.whole = true;
        }
        Ok(())
    }
}

/// The process's controller, for code that takes a [`Controller`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Process;

impl Controller for Process {
    fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, RequestError> {
        refused_as_error(request(req)?)
    }
}

/// An error answer as [`RequestError::Refused`].
fn refused_as_error(answer: ClientResponse) -> Result<ClientResponse, RequestError> {
    match answer {
        ClientResponse::Error(e) => Err(RequestError::Refused(e)),
        other => Ok(other),
    }
}

/// A controller reached with a credential: every request is made as the
/// user the credential names (the controller checks it).
pub struct WithCredential<'a, C: Controller + ?Sized> {
    /// The way to the controller.
    pub controller: &'a mut C,
    /// Who makes the requests.
    pub credential: &'a Credential,
}

impl<C: Controller + ?Sized> Controller for WithCredential<'_, C> {
    fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, RequestError> {
        let wrapped = ClientRequest::Authenticated(Box::new(Authenticated {
            credential: self.credential.clone(),
            request: req.clone(),
        }));
        self.controller.request(&wrapped)
    }
}

/// A session is a controller: an error answer is
/// [`RequestError::Refused`].
impl Controller for Session {
    fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, RequestError> {
        refused_as_error(Session::request(self, req)?)
    }
}

/// A connection to the controller of one slurm.conf, made when first
/// needed and kept for the next request.
#[derive(Debug)]
pub struct Session {
    conf: SlurmConf,
    conn: Option<Client>,
    /// Whether SlurmctldPort may be used when no socket on this host leads
    /// to the controller (requests that carry tokens need no socket).
    tcp: bool,
}

impl Session {
    /// A session with the controller of `conf` (nothing is connected yet).
    pub fn new(conf: SlurmConf) -> Session {
        Session {
            conf,
            conn: None,
            tcp: false,
        }
    }

    /// A session whose requests carry credentials, so that it may reach
    /// the controller over TCP (SlurmctldHost and SlurmctldPort) from a
    /// host without an agent or relay.
    pub fn for_credentials(conf: SlurmConf) -> Session {
        Session {
            conf,
            conn: None,
            tcp: true,
        }
    }

    /// The configuration the session reads.
    pub fn conf(&self) -> &SlurmConf {
        &self.conf
    }

    /// Sends `req` and returns the answer. While the controller cannot be
    /// reached (its socket not listening, or a relay that could not reach
    /// it, so the request was never taken) it tries again until
    /// MessageTimeout has passed, as Slurm's commands do: a controller
    /// restart shorter than that goes unseen. A request that was sent and
    /// got no answer is sent again only if repeating it is harmless
    /// ([`ClientRequest::may_repeat`]: it changes nothing, or it is a
    /// submission with an idempotency key); any other may have been acted
    /// on, and its caller is told the connection was lost. A report of an
    /// end ([`ClientRequest::reports_end`]) is also sent again while the
    /// controller cannot save state.
    pub fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, ClientError> {
        let deadline = Instant::now() + message_timeout(&self.conf);
        // Short: a restarted controller is found within a few milliseconds,
        // and trying a local socket costs next to nothing.
        let pause = Duration::from_millis(5);
        let repeatable = req.may_repeat();
        let must_land = req.reports_end();
        loop {
            let answer = self.once(req);
            let again = match &answer {
                Err(e) => e.is_unreachable() || (repeatable && matches!(e, ClientError::Frame(_))),
                Ok(ClientResponse::Error(e)) => {
                    e.code == ErrorCode::ControllerUnreachable
                        || (repeatable && e.code == ErrorCode::ConnectionLost)
                        || (must_land && e.code == ErrorCode::StateStore)
                }
                Ok(_) => false,
            };
            let now = Instant::now();
            if !again || now >= deadline {
                return answer;
            }
            // A controller that cannot save state tries its store each
            // second: no point asking it more often.
            let unsaved =
                matches!(&answer, Ok(ClientResponse::Error(e)) if e.code == ErrorCode::StateStore);
            let pause = if unsaved {
                Duration::from_millis(500)
            } else {
                pause
            };
            std::thread::sleep(pause.min(deadline - now));
        }
    }

    /// One try: on the kept connection if the controller still holds it,
    /// else on a new one.
    fn once(&mut self, req: &ClientRequest) -> Result<ClientResponse, ClientError> {
        if let Some(conn) = self.conn.as_mut().filter(|c| c.is_open()) {
            match conn.send(req) {
                Ok(()) => return self.receive(),
                // Not delivered (the controller closed it as it was
                // checked): a new connection carries it.
                Err(_) => self.conn = None,
            }
        }
        self.conn = None;
        let mut conn = if self.tcp {
            Client::connect_any(&self.conf)?
        } else {
            Client::connect_with(&self.conf)?
        };
        conn.send(req)?;
        self.conn = Some(conn);
        self.receive()
    }

    fn receive(&mut self) -> Result<ClientResponse, ClientError> {
        let conn = self.conn.as_mut().expect("a request was just sent on it");
        let answer = conn.receive();
        if answer.is_err() {
            self.conn = None;
        }
        answer
    }
}

/// Reads slurm.conf (warnings are the daemons' business, not the commands').
pub fn load_conf(path: &Path) -> Result<SlurmConf, ClientError> {
    SlurmConf::load(path)
        .map(|parsed| parsed.value)
        .map_err(|source| ClientError::Conf {
            path: path.to_owned(),
            source,
        })
}

/// How long a command keeps trying to reach the controller: slurm.conf's
/// MessageTimeout, 10 s unless it says otherwise.
pub fn message_timeout(conf: &SlurmConf) -> Duration {
    let secs = conf
        .other
        .get("messagetimeout")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(10);
    Duration::from_secs(secs)
}

/// Sends `req` to the controller that SLURM_CONF names and returns its
/// answer. While the controller cannot be reached (its socket not
/// listening, or a relay that could not reach it, so the request was never
/// taken) it tries again until MessageTimeout has passed, as Slurm's
/// commands do: a controller restart shorter than that goes unseen.
///
/// The process keeps one [`Session`]: slurm.conf is read on the first
/// request and the connection is kept for the next. Threads of one
/// process (srun's keep-alive beside its main thread) take turns on it: a
/// request waits while another rides out a controller restart.
pub fn request(req: &ClientRequest) -> Result<ClientResponse, ClientError> {
    with_session(|s| {
        // Without the controller's own socket here the way is this node's
        // agent, and the records say which node this is.
        if !s.whole && !socket_path(s.session.conf()).exists() {
            s.read_whole()?;
        }
        s.session.request(req)
    })?
}

/// Reads the process's session's slurm.conf and where it was read from
/// (reading SLURM_CONF's first if no request has been made yet).
pub fn with_conf<T>(f: impl FnOnce(&SlurmConf, &Path) -> T) -> Result<T, ClientError> {
    with_session(|s| {
        s.read_whole()?;
        Ok(f(s.session.conf(), &s.path))
    })?
}

/// Runs `f` on the process's session, made from SLURM_CONF's slurm.conf
/// if there is none yet.
fn with_session<T>(f: impl FnOnce(&mut ProcessSession) -> T) -> Result<T, ClientError> {
    let mut session = SESSION.lock().unwrap_or_else(|e| e.into_inner());
    let session = match &mut *session {
        Some(s) => s,
        empty => empty.insert(ProcessSession::new(spur_conf::slurm_conf_path())?),
    };
    Ok(f(session))
}

/// Makes the process's session the controller of the slurm.conf at
/// `path` instead of SLURM_CONF's (libslurm's `slurm_init` with a file).
pub fn use_conf(path: &Path) -> Result<(), ClientError> {
    let session = ProcessSession::new(path.to_path_buf())?;
    *SESSION.lock().unwrap_or_else(|e| e.into_inner()) = Some(session);
    Ok(())
}

/// Closes the process's session: the next request reads slurm.conf again
/// (libslurm's `slurm_fini`).
pub fn close() {
    *SESSION.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The controller's socket for a configuration.
pub fn socket_path(conf: &SlurmConf) -> PathBuf {
    Path::new(&conf.state_save_location).join(spur_proto::CONTROLLER_SOCKET_NAME)
}

/// The socket of this node's agent, which relays commands to the
/// controller. This node is SPUR_NODE, else the NodeName or NodeHostname
/// that equals the short host name.
pub fn agent_socket_path(conf: &SlurmConf) -> Option<PathBuf> {
    let me = std::env::var("SPUR_NODE")
        .ok()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(spur_sys::short_hostname);
    let node = conf
        .nodes
        .iter()
        .find(|n| n.name == me || n.hostname == me)?;
    let spool = node.slurmd_path(&conf.slurmd_spool_dir);
    Some(Path::new(&spool).join(spur_proto::AGENT_SOCKET_NAME))
}

/// The socket of `spurd relay` on a host without an agent:
/// SPUR_RELAY_SOCKET, else `/run/spur/relay.sock`.
pub fn relay_socket_path() -> PathBuf {
    std::env::var_os("SPUR_RELAY_SOCKET")
        .filter(|v| !v.is_empty())
        .map_or_else(
            || PathBuf::from(spur_proto::DEFAULT_RELAY_SOCKET),
            PathBuf::from,
        )
}

/// The socket on this host that leads to the controller of `conf`, in
/// the order tried: the controller's own, this node's agent's, a relay's.
fn local_way(conf: &SlurmConf) -> Option<PathBuf> {
    [
        Some(socket_path(conf)),
        agent_socket_path(conf),
        Some(relay_socket_path()),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.exists())
}

/// What a connection runs over.
#[derive(Debug)]
enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Stream {
    /// Reads one message. From the socket itself, not through [`Read`] on
    /// this enum: std's sockets read into a buffer's unused room as it is,
    /// where a reader of its own must have it zeroed first (a listing of
    /// 10,000 jobs is most of a megabyte, zeroed and then written over).
    fn read_frame<T: serde::de::DeserializeOwned>(&mut self) -> Result<T, FrameError> {
        match self {
            Stream::Unix(s) => frame::read_sync(s),
            Stream::Tcp(s) => frame::read_sync(s),
        }
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tcp(s) => s.as_raw_fd(),
        }
    }
}

/// A connection to the controller.
#[derive(Debug)]
pub struct Client {
    stream: Stream,
    /// Whether the controller's hello has been read. On a socket of this
    /// host the first request follows the command's hello at once, and
    /// the controller's hello is read before the first answer: one round
    /// trip less for every command.
    greeted: bool,
}

impl Client {
    /// Connects to the controller of `conf`: to its socket on its host,
    /// else through this node's agent, else through a relay.
    pub fn connect_with(conf: &SlurmConf) -> Result<Client, ClientError> {
        let path = local_way(conf).unwrap_or_else(|| socket_path(conf));
        Client::connect(&path)
    }

    /// Connects to the controller of `conf` as [`Client::connect_with`]
    /// does, and over TCP to SlurmctldHost's SlurmctldPort when no socket
    /// on this host leads to it. Over TCP only requests with a token are
    /// taken.
    pub fn connect_any(conf: &SlurmConf) -> Result<Client, ClientError> {
        match local_way(conf) {
            Some(path) => Client::connect(&path),
            None => Client::connect_tcp(conf),
        }
    }

    /// Connects over TCP to SlurmctldHost's SlurmctldPort.
    pub fn connect_tcp(conf: &SlurmConf) -> Result<Client, ClientError> {
        let host = conf.slurmctld_hosts.first();
        let addr = host.map_or("localhost", |h| h.addr.as_deref().unwrap_or(&h.name));
        let port = conf.slurmctld_port.first;
        let unreachable = |source| ClientError::Connect {
            socket: PathBuf::from(format!("{addr}:{port}")),
            source,
        };
        let stream = TcpStream::connect((addr, port)).map_err(unreachable)?;
        let _ = stream.set_nodelay(true);
        // Over TCP a peer that refuses the hello may reset the connection,
        // and with it the hello that says why: it is read first.
        let mut client = Client::handshake(Stream::Tcp(stream))?;
        client.greet()?;
        Ok(client)
    }

    /// Connects to the socket at `path`.
    pub fn connect(path: &Path) -> Result<Client, ClientError> {
        let stream = UnixStream::connect(path).map_err(|source| ClientError::Connect {
            socket: path.to_owned(),
            source,
        })?;
        Client::handshake(Stream::Unix(stream))
    }

    /// Sends the command's hello; the controller's is read by [`Client::greet`].
    fn handshake(stream: Stream) -> Result<Client, ClientError> {
        // A controller that accepts but never answers must not hang a
        // pipeline forever.
        let limit = Some(Duration::from_secs(60));
        match &stream {
            Stream::Unix(s) => s.set_read_timeout(limit),
            Stream::Tcp(s) => s.set_read_timeout(limit),
        }
        .map_err(FrameError::Io)?;
        frame::write_sync(
            &mut NoSigpipe(&stream),
            &Hello {
                version: PROTOCOL_VERSION,
                role: Role::Client,
            },
        )
        .map_err(ClientError::Hello)?;
        Ok(Client {
            stream,
            greeted: false,
        })
    }

    /// Reads the controller's hello, once, and checks its version.
    fn greet(&mut self) -> Result<(), ClientError> {
        if self.greeted {
            return Ok(());
        }
        let theirs: Hello = self.stream.read_frame().map_err(ClientError::Hello)?;
        if theirs.version != PROTOCOL_VERSION {
            return Err(ClientError::Version {
                theirs: theirs.version,
            });
        }
        self.greeted = true;
        Ok(())
    }

    /// Sends one request. A peer that has gone away is an error, never a
    /// SIGPIPE (the commands keep SIGPIPE's default action for their
    /// output).
    fn send(&mut self, req: &ClientRequest) -> Result<(), ClientError> {
        if let Err(e) = frame::write_sync(&mut NoSigpipe(&self.stream), req) {
            // A controller that refused the hello said why in its own.
            self.greet()?;
            return Err(e.into());
        }
        Ok(())
    }

    /// Reads one answer.
    fn receive(&mut self) -> Result<ClientResponse, ClientError> {
        self.greet()?;
        Ok(self.stream.read_frame()?)
    }

    /// Whether the controller still holds the connection: nothing to read
    /// and no hang-up (between requests it never sends unasked).
    fn is_open(&self) -> bool {
        if !self.greeted {
            // The controller's hello may wait unread: nothing else does.
            return true;
        }
        let mut fd = libc::pollfd {
            fd: self.stream.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, a zero timeout.
        let ready = unsafe { libc::poll(&mut fd, 1, 0) };
        ready == 0
    }
}

/// Writes to a socket with MSG_NOSIGNAL.
struct NoSigpipe<'a, S: AsRawFd>(&'a S);

impl<S: AsRawFd> Write for NoSigpipe<'_, S> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // SAFETY: `buf` is valid for its length; the fd is the stream's.
        let n = unsafe {
            libc::send(
                self.0.as_raw_fd(),
                buf.as_ptr().cast(),
                buf.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        if n < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
