//! The agent's local socket: commands on a node without the controller
//! reach it through the agent. The agent reads the caller's uid from the
//! socket's peer credentials and vouches for it on its own connection,
//! which the cluster key authenticates (the role munge plays for Slurm).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{Context, Result};
use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot};
use tracing::debug;

use spur_proto::frame;
use spur_proto::{
    ClientRequest, ClientResponse, ErrorCode, Hello, ProtoError, Role, PROTOCOL_VERSION,
};

/// The socket's name in the node's spool directory.
pub const SOCKET_NAME: &str = spur_proto::AGENT_SOCKET_NAME;

/// A request waiting to be relayed, and where its answer goes.
pub struct Pending {
    /// The caller.
    pub uid: u32,
    /// The request.
    pub req: ClientRequest,
    /// The encoded answer.
    pub reply: oneshot::Sender<Vec<u8>>,
}

impl Pending {
    /// Answers the request here, without the controller.
    pub fn answer(self, resp: &ClientResponse) {
        if let Ok(frame) = frame::encode(resp) {
            let _ = self.reply.send(frame);
        }
    }

    /// Answers a request that was never sent on: the controller cannot be
    /// reached, and the command may try again.
    pub fn tell_unreachable(self) {
        if let Ok(frame) = error_frame(ErrorCode::ControllerUnreachable) {
            let _ = self.reply.send(frame);
        }
    }
}

fn error_frame(code: ErrorCode) -> Result<Vec<u8>, spur_proto::frame::FrameError> {
    frame::encode(&ClientResponse::Error(ProtoError::new(code)))
}

/// Binds the socket at `path`, open to every user.
pub fn bind(path: &Path) -> Result<UnixListener> {
    let _ = std::fs::remove_file(path);
    let listener =
        UnixListener::bind(path).with_context(|| format!("while binding {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))
        .with_context(|| format!("while opening {} to all users", path.display()))?;
    Ok(listener)
}

/// Accepts commands and hands their requests to the agent's session.
pub async fn serve(listener: UnixListener, requests: mpsc::UnboundedSender<Pending>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let requests = requests.clone();
        tokio::spawn(async move {
            if let Err(e) = conn(stream, requests).await {
                debug!(error = %e, "relayed command connection ended");
            }
        });
    }
}

async fn conn(mut stream: UnixStream, requests: mpsc::UnboundedSender<Pending>) -> Result<()> {
    let uid = stream
        .peer_cred()
        .context("while reading peer credentials")?
        .uid();
    let theirs: Hello = crate::handshake::opening(&mut stream).await?;
    let hello = Hello {
        version: PROTOCOL_VERSION,
        role: Role::Client,
    };
    frame::write(&mut stream, &hello).await?;
    anyhow::ensure!(
        theirs.version == PROTOCOL_VERSION,
        "command speaks protocol {}",
        theirs.version
    );
    loop {
        let req: ClientRequest = match frame::read(&mut stream).await {
            Ok(r) => r,
            Err(e) if e.is_eof() => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let (reply, answer) = oneshot::channel();
        requests
            .send(Pending { uid, req, reply })
            .map_err(|_| anyhow::anyhow!("agent is stopping"))?;
        // A request dropped unanswered may have reached the controller,
        // which then went away: the command must not send it again. One
        // that never left is answered `ControllerUnreachable` on purpose
        // ([`Pending::tell_unreachable`]).
        let bytes = match answer.await {
            Ok(bytes) => bytes,
            Err(_) => error_frame(ErrorCode::ConnectionLost)?,
        };
        stream.write_all(&bytes).await?;
        stream.flush().await?;
    }
}
