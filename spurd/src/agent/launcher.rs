//! The agent's own port (its slurm.conf NodeAddr and Port): srun connects
//! here to run a step's tasks on this node. The agent checks the step grant
//! srun brings against the cluster key, then hands the connection to a
//! `spurd step` process of its own ([`super::stepd`]), which runs the tasks
//! and talks to srun until they end.

use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, info, warn};

use spur_proto::{frame, FromStep, Hello, Role, TaskLaunch, ToStep, PROTOCOL_VERSION};

use super::stepd;

/// What the launcher needs of the agent's settings.
pub struct Launcher {
    /// This node's name.
    pub node: String,
    /// The cluster key grants are signed with.
    pub key: Vec<u8>,
    /// The spool directory.
    pub spool: PathBuf,
    /// The `spurd` executable.
    pub exe: PathBuf,
    /// Memory confinement, if asked for.
    pub memcg: Option<Arc<super::cgroup::Memcg>>,
    /// Told when a step's process ends (job, step), for the controller.
    pub ended: Box<dyn Fn(u32, u32) + Send + Sync>,
}

/// Binds the node's port.
pub async fn bind(addr: &str, port: u16) -> Result<TcpListener> {
    TcpListener::bind((addr, port))
        .await
        .with_context(|| format!("while binding the node's port {addr}:{port}"))
}

/// Serves srun connections until the task is dropped.
pub async fn serve(listener: TcpListener, launcher: Arc<Launcher>) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let _ = stream.set_nodelay(true);
                let launcher = launcher.clone();
                tokio::spawn(async move {
                    if let Err(e) = connection(stream, &launcher).await {
                        info!(%peer, error = %e, "step launch refused");
                    }
                });
            }
            Err(e) => warn!(error = %e, "accept on the node's port failed"),
        }
    }
}

async fn connection(mut stream: TcpStream, launcher: &Launcher) -> Result<()> {
    let theirs: Hello = frame::read(&mut stream).await?;
    frame::write(
        &mut stream,
        &Hello {
            version: PROTOCOL_VERSION,
            role: Role::Launcher,
        },
    )
    .await?;
    if theirs.version != PROTOCOL_VERSION || !matches!(theirs.role, Role::Launcher) {
        bail!("not srun, or another protocol version");
    }
    let ToStep::Launch(launch) = frame::read(&mut stream).await? else {
        bail!("srun did not start with a launch");
    };
    if let Err(message) = check(&launch, launcher) {
        return refuse(&mut stream, message).await;
    }
    let grant = &launch.grant;
    let dir = step_dir(&launcher.spool, grant.job_id, grant.step_id);
    std::fs::create_dir_all(&dir).with_context(|| format!("while creating {}", dir.display()))?;
    if let Some(memcg) = &launcher.memcg {
        let memory = launch.grant.nodes[launch.node_index as usize].memory_mib;
        let made = memcg.prepare(grant.job_id, &grant.step_id.to_string(), memory);
        match made {
            Ok(cg) => std::fs::write(
                dir.join(super::cgroup::CGROUP_FILE),
                cg.as_os_str().as_encoded_bytes(),
            )?,
            Err(e) => {
                let message = format!("cannot make the step's memory cgroup: {e}");
                return refuse(&mut stream, message).await;
            }
        }
    }
    std::fs::write(dir.join(stepd::LAUNCH_FILE), bincode::serialize(&*launch)?)?;
    let socket = stream.into_std()?;
    socket.set_nonblocking(false)?;
    let fd = socket.as_raw_fd();
    let mut cmd = std::process::Command::new(&launcher.exe);
    cmd.arg("step")
        .arg(&dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    // SAFETY: in the child before exec: dup2 and setsid are
    // async-signal-safe and touch only the child.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(fd, stepd::SRUN_FD) < 0 || libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().context("while starting the step process")?;
    drop(socket);
    info!(
        job = grant.job_id,
        step = grant.step_id,
        tasks = launch.grant.nodes[launch.node_index as usize].tasks.len(),
        "step started"
    );
    let job_dir = super::job_dir(&launcher.spool, grant.job_id);
    let (job_id, step_id) = (grant.job_id, grant.step_id);
    let memcg = launcher.memcg.clone();
    let waited = tokio::task::spawn_blocking(move || {
        let _ = child.wait();
        if let Some(memcg) = memcg {
            memcg.release(job_id, &step_id.to_string());
        }
        let _ = std::fs::remove_dir_all(&dir);
        // A node that runs only steps of the job keeps no folder for it.
        let _ = std::fs::remove_dir(super::supervisor::control_dir(&job_dir));
    });
    let _ = waited.await;
    (launcher.ended)(job_id, step_id);
    Ok(())
}

/// Tells srun the step cannot start here, with the message it prints.
async fn refuse(stream: &mut TcpStream, message: String) -> Result<()> {
    let failed = FromStep::Failed {
        message: message.clone(),
    };
    frame::write(stream, &failed).await?;
    bail!(message)
}

/// Whether the launch may run here: signed by the controller, for this node.
fn check(launch: &TaskLaunch, launcher: &Launcher) -> Result<(), String> {
    if !crate::credential::verify(&launcher.key, &launch.grant, &launch.signature) {
        return Err("Invalid job credential".into());
    }
    match launch.grant.nodes.get(launch.node_index as usize) {
        Some(n) if n.name == launcher.node => Ok(()),
        _ => Err(format!(
            "the step's credential is not for node {}",
            launcher.node
        )),
    }
}

/// A step's folder on this node, in its job's control folder: only root
/// writes there.
pub fn step_dir(spool: &Path, job: u32, step: u32) -> PathBuf {
    super::supervisor::control_dir(&super::job_dir(spool, job)).join(format!("step{step}"))
}

/// Signals every step of `job` running on this node.
pub fn signal_steps(spool: &Path, job: u32, signal: i32) {
    let ctl = super::supervisor::control_dir(&super::job_dir(spool, job));
    let Ok(entries) = std::fs::read_dir(ctl) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with("step") {
            signal_step_dir(&e.path(), job, signal);
        }
    }
}

/// Sends `signal` to the tasks of step `step` of `job` on this node, if
/// it runs any of them.
pub fn signal_step(spool: &Path, job: u32, step: u32, signal: i32) {
    signal_step_dir(&step_dir(spool, job, step), job, signal);
}

/// Sends `signal` to the process group of the step whose control folder
/// is `dir`.
fn signal_step_dir(dir: &Path, job: u32, signal: i32) {
    let pgid = std::fs::read_to_string(dir.join(stepd::PGID_FILE))
        .ok()
        .and_then(|t| t.trim().parse::<i32>().ok());
    if let Some(pgid) = pgid.filter(|&p| p > 0) {
        debug!(job, pgid, signal, "signalling a step");
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(-pgid, signal) };
    }
}
