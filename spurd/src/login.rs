//! `spurd relay`: the commands' way to the controller on a host that runs
//! no agent, such as a login node. Like an agent it holds the cluster key
//! and vouches for the uid it reads from its local socket's peer
//! credentials; unlike an agent it runs no jobs and registers no node.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use spur_conf::{ConfFile, SlurmConf};
use spur_proto::frame;
use spur_proto::{FromAgent, Hello, RelayHello, Role, ToAgent, PROTOCOL_VERSION};

use crate::agent::relay::{self, Pending};

/// Options of `spurd relay`.
#[derive(Debug, clap::Args)]
pub struct RelayOpts {
    #[command(flatten)]
    conf: crate::ConfOpts,
    /// Where the commands on this host connect.
    #[arg(long, env = "SPUR_RELAY_SOCKET", default_value = spur_proto::DEFAULT_RELAY_SOCKET)]
    socket: PathBuf,
}

/// Runs the relay until `shutdown` resolves.
pub async fn run(opts: RelayOpts, shutdown: impl std::future::Future<Output = ()>) -> Result<()> {
    let conf = SlurmConf::load(&opts.conf.conf)
        .with_context(|| format!("while reading {}", opts.conf.conf.display()))?
        .value;
    let host = conf
        .slurmctld_hosts
        .first()
        .context("slurm.conf has no SlurmctldHost")?;
    let controller = (
        host.addr.clone().unwrap_or_else(|| host.name.clone()),
        conf.slurmctld_port.first,
    );
    let key_file = opts.conf.key_file();
    let key = crate::controller::jwt::read_secret(&key_file, "cluster key")?;
    if let Some(dir) = opts.socket.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("while creating {}", dir.display()))?;
    }
    let (tx, mut relayed) = mpsc::unbounded_channel();
    let server = tokio::spawn(relay::serve(relay::bind(&opts.socket)?, tx));
    info!(socket = %opts.socket.display(), "relay ready");
    tokio::pin!(shutdown);
    let mut backoff = Duration::from_millis(50);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            r = session(&controller, &key, &mut relayed) => {
                if let Err(e) = r {
                    warn!(error = %e, "controller connection lost");
                }
            }
        }
        // Commands waiting to be relayed are told now (their connection
        // closes) rather than wait for a controller that is away.
        while let Ok(pending) = relayed.try_recv() {
            pending.tell_unreachable();
        }
        tokio::select! {
            () = &mut shutdown => break,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(2));
    }
    server.abort();
    let _ = std::fs::remove_file(&opts.socket);
    Ok(())
}

async fn session(
    controller: &(String, u16),
    key: &[u8],
    relayed: &mut mpsc::UnboundedReceiver<Pending>,
) -> Result<()> {
    let stream = match crate::handshake::connect(controller).await {
        Ok(s) => s,
        Err(e) => {
            debug!(error = %e, "controller not reachable yet");
            return Ok(());
        }
    };
    stream.set_nodelay(true)?;
    let (mut rd, mut wr) = stream.into_split();
    let (host, nonce) = (spur_sys::short_hostname(), crate::handshake::nonce()?);
    let hello = Hello {
        version: PROTOCOL_VERSION,
        role: Role::Relay(RelayHello {
            host: host.clone(),
            nonce,
        }),
    };
    frame::write(&mut wr, &hello).await?;
    let theirs: Hello = frame::read(&mut rd).await?;
    anyhow::ensure!(
        theirs.version == PROTOCOL_VERSION,
        "controller speaks protocol {}",
        theirs.version
    );
    let me = crate::handshake::Peer::Relay(&host);
    crate::handshake::answer(&mut rd, &mut wr, key, me, &nonce).await?;
    let mut waiting: std::collections::HashMap<u64, tokio::sync::oneshot::Sender<Vec<u8>>> =
        std::collections::HashMap::new();
    let mut next_tag = 0u64;
    loop {
        tokio::select! {
            msg = frame::read::<ToAgent, _>(&mut rd) => match msg? {
                ToAgent::RelayReply { tag, frame } => {
                    if let Some(reply) = waiting.remove(&tag) {
                        let _ = reply.send(frame);
                    }
                }
                _ => warn!("unexpected message from the controller"),
            },
            Some(p) = relayed.recv() => {
                next_tag += 1;
                waiting.insert(next_tag, p.reply);
                let msg = FromAgent::Relay { tag: next_tag, uid: p.uid, req: Box::new(p.req) };
                frame::write(&mut wr, &msg).await?;
            }
        }
    }
}
