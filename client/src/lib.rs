//! spur-client: finds the controller as Slurm's commands do (SLURM_CONF,
//! else /etc/slurm/slurm.conf) and exchanges requests with it over its local
//! socket. Blocking on purpose: a command makes a handful of round trips and
//! should start in a millisecond, without a runtime.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use spur_conf::{ConfFile, SlurmConf};
use spur_proto::frame::{self, FrameError};
use spur_proto::{ClientRequest, ClientResponse, Hello, Role, PROTOCOL_VERSION};
use thiserror::Error;

/// The controller's local socket, inside StateSaveLocation.
pub const SOCKET_NAME: &str = "spur.sock";

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

/// Reads slurm.conf (warnings are the daemons' business, not the commands').
pub fn load_conf(path: &Path) -> Result<SlurmConf, ClientError> {
    SlurmConf::load(path)
        .map(|parsed| parsed.value)
        .map_err(|source| ClientError::Conf {
            path: path.to_owned(),
            source,
        })
}

/// The controller's socket for a configuration.
pub fn socket_path(conf: &SlurmConf) -> PathBuf {
    Path::new(&conf.state_save_location).join(SOCKET_NAME)
}

/// A connection to the controller.
#[derive(Debug)]
pub struct Client {
    stream: UnixStream,
}

impl Client {
    /// Connects using SLURM_CONF / slurm.conf.
    pub fn connect_default() -> Result<Client, ClientError> {
        let conf = load_conf(&spur_conf::slurm_conf_path())?;
        Client::connect(&socket_path(&conf))
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
        )?;
        let theirs: Hello = frame::read_sync(&mut stream)?;
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
