//! spur-client: finds the controller as Slurm's commands do (SLURM_CONF,
//! else /etc/slurm/slurm.conf) and exchanges requests with it over its local
//! socket. Blocking on purpose: a command makes a handful of round trips and
//! should start in a millisecond, without a runtime.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use spur_conf::{ConfFile, SlurmConf};
use spur_proto::frame::{self, FrameError};
use spur_proto::{ClientRequest, ClientResponse, ErrorCode, Hello, Role, PROTOCOL_VERSION};
use thiserror::Error;

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
        /// The socket tried.
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
pub fn request(req: &ClientRequest) -> Result<ClientResponse, ClientError> {
    let conf = load_conf(&spur_conf::slurm_conf_path())?;
    let deadline = Instant::now() + message_timeout(&conf);
    // Short: a restarted controller is found within a few milliseconds,
    // and trying a local socket costs next to nothing.
    let pause = Duration::from_millis(20);
    loop {
        let answer = Client::connect_with(&conf).and_then(|mut c| c.request(req));
        let unreachable = match &answer {
            Err(e) => e.is_unreachable(),
            Ok(ClientResponse::Error(e)) => e.code == ErrorCode::ControllerUnreachable,
            Ok(_) => false,
        };
        let now = Instant::now();
        if !unreachable || now >= deadline {
            return answer;
        }
        std::thread::sleep(pause.min(deadline - now));
    }
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
    let spool = conf
        .slurmd_spool_dir
        .replace("%n", &node.name)
        .replace("%h", &node.hostname);
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

/// A connection to the controller.
#[derive(Debug)]
pub struct Client {
    stream: UnixStream,
}

impl Client {
    /// Connects using SLURM_CONF / slurm.conf: to the controller's socket
    /// on its host, else through this node's agent.
    pub fn connect_default() -> Result<Client, ClientError> {
        Client::connect_with(&load_conf(&spur_conf::slurm_conf_path())?)
    }

    /// Connects to the controller of `conf`: to its socket on its host,
    /// else through this node's agent, else through a relay.
    pub fn connect_with(conf: &SlurmConf) -> Result<Client, ClientError> {
        let controller = socket_path(conf);
        if !controller.exists() {
            if let Some(agent) = agent_socket_path(conf).filter(|p| p.exists()) {
                return Client::connect(&agent);
            }
            let relay = relay_socket_path();
            if relay.exists() {
                return Client::connect(&relay);
            }
        }
        Client::connect(&controller)
    }

    /// Connects to the socket at `path`.
    pub fn connect(path: &Path) -> Result<Client, ClientError> {
        let mut stream = UnixStream::connect(path).map_err(|source| ClientError::Connect {
            socket: path.to_owned(),
            source,
        })?;
        // A controller that accepts but never answers must not hang a
        // pipeline forever.
        let limit = Some(Duration::from_secs(60));
        stream.set_read_timeout(limit).map_err(FrameError::Io)?;
        frame::write_sync(
            &mut stream,
            &Hello {
                version: PROTOCOL_VERSION,
                role: Role::Client,
            },
        )
        .map_err(ClientError::Hello)?;
        let theirs: Hello = frame::read_sync(&mut stream).map_err(ClientError::Hello)?;
        if theirs.version != PROTOCOL_VERSION {
            return Err(ClientError::Version {
                theirs: theirs.version,
            });
        }
        Ok(Client { stream })
    }

    /// Sends one request and waits for its answer.
    pub fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, ClientError> {
        frame::write_sync(&mut self.stream, req)?;
        Ok(frame::read_sync(&mut self.stream)?)
    }
}
