//! The agent's own port (its slurm.conf NodeAddr and Port): srun connects
//! here to run a step's tasks on this node. The agent checks the step grant
//! srun brings against the cluster key, its expiry by the controller's
//! clock and the nonces it has already used, then hands the connection to
//! a `spurd step` process of its own ([`super::stepd`]), which runs the
//! tasks and talks to srun until they end.

use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

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
    /// The controller's clock, by which grants expire.
    pub clock: Arc<ControllerClock>,
    /// The grants already used here.
    pub grants: UsedGrants,
    /// Told when a step's process ends, for the controller.
    pub ended: Box<dyn Fn(StepEnd) + Send + Sync>,
    /// The mesh, where steps cross it: srun must then come over it.
    pub mesh: Option<Arc<super::mesh::AgentMesh>>,
}

/// A step's part on this node that ended.
#[derive(Debug)]
pub struct StepEnd {
    /// The job.
    pub job_id: u32,
    /// The step.
    pub step_id: u32,
    /// This node's index among the step's.
    pub node: u32,
    /// What its tasks used, as their step process recorded it.
    pub rusage: Vec<(u32, spur_supervise::rusage::TaskRusage)>,
}

/// An offset between this node's clock and the controller's larger than
/// this is worth a warning.
pub const CLOCK_SKEW_WARNING_SECS: u64 = 30;

/// The controller's clock, as this node last heard it: grants carry their
/// expiry in the controller's time, so a node whose own clock is off by
/// minutes still judges them right.
#[derive(Debug, Default)]
pub struct ControllerClock {
    /// The controller's time minus this node's, in seconds.
    offset: AtomicI64,
}

impl ControllerClock {
    /// Notes the controller's time `now`; returns the offset from ours.
    pub fn heard(&self, now: u64) -> i64 {
        let offset = now as i64 - (super::now() as i64);
        self.offset.store(offset, Ordering::Relaxed);
        offset
    }

    /// The controller's time now, in seconds since the epoch.
    pub fn now(&self) -> u64 {
        ((super::now() as i64) + self.offset.load(Ordering::Relaxed)).max(0) as u64
    }
}

/// The nonces of the grants this node has run, each kept until its grant
/// expires, in a root-only folder of the spool so that they outlive an
/// agent restart: a grant captured on the wire and brought again, while
/// its step runs or after, is refused as slurmd refuses a replayed
/// credential.
pub struct UsedGrants {
    dir: PathBuf,
    /// Serializes a check with its record.
    lock: Mutex<()>,
}

impl UsedGrants {
    /// The folder of used grants in `spool`, made if missing.
    pub fn open(spool: &Path) -> Result<UsedGrants> {
        Ok(UsedGrants {
            dir: super::private_folder(spool, "grants")?,
            lock: Mutex::new(()),
        })
    }

    /// Records `nonce`, expiring at `expires` (controller time); false if it
    /// was used before. Forgets grants that expired before `now`.
    fn first_use(&self, nonce: u64, expires: u64, now: u64) -> std::io::Result<bool> {
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.forget_expired(now);
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(self.dir.join(format!("{nonce:016x}.{expires}")));
        match made {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn forget_expired(&self, now: u64) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let expires = name
                .to_str()
                .and_then(|n| n.split_once('.'))
                .and_then(|(_, t)| t.parse::<u64>().ok());
            if expires.is_some_and(|t| t < now) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
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
    if let Some(mesh) = &launcher.mesh {
        let to = stream.local_addr()?.ip();
        anyhow::ensure!(
            mesh.reached_over_mesh(to),
            "srun came to {to}, not over the mesh (MeshTraffic=all)"
        );
    }
    let theirs: Hello = crate::handshake::opening(&mut stream).await?;
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
    let ToStep::Launch(launch) = crate::handshake::opening(&mut stream).await? else {
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
    let node = launch.node_index;
    let memcg = launcher.memcg.clone();
    let waited = tokio::task::spawn_blocking(move || {
        let _ = child.wait();
        if let Some(memcg) = memcg {
            memcg.release(job_id, &step_id.to_string());
        }
        let rusage = super::acct::read_step_rusage(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        // A node that runs only steps of the job keeps no folder for it.
        let _ = std::fs::remove_dir(&job_dir);
        rusage
    });
    let rusage = waited.await.unwrap_or_default();
    (launcher.ended)(StepEnd {
        job_id,
        step_id,
        node,
        rusage,
    });
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

/// Whether the launch may run here: signed by the controller, for this
/// node, not expired, and not run here before (the last is recorded).
fn check(launch: &TaskLaunch, launcher: &Launcher) -> Result<(), String> {
    let grant = &launch.grant;
    if !crate::credential::verify(&launcher.key, grant, &launch.signature) {
        return Err("Invalid job credential".into());
    }
    match grant.nodes.get(launch.node_index as usize) {
        Some(n) if n.name == launcher.node => {}
        _ => {
            return Err(format!(
                "the step's credential is not for node {}",
                launcher.node
            ))
        }
    }
    let now = launcher.clock.now();
    if grant.expires < now {
        return Err("Job credential expired".into());
    }
    match launcher.grants.first_use(grant.nonce, grant.expires, now) {
        Ok(true) => Ok(()),
        Ok(false) => Err("Job credential replayed".into()),
        Err(e) => Err(format!("cannot record the step's credential: {e}")),
    }
}

/// A step's folder on this node, in its job's folder: only root writes
/// there.
pub fn step_dir(spool: &Path, job: u32, step: u32) -> PathBuf {
    super::job_dir(spool, job).join(format!("step{step}"))
}

/// Whether steps of `job` run on this node.
pub fn runs_steps(spool: &Path, job: u32) -> bool {
    !step_ids(spool, job).is_empty()
}

/// The steps of `job` whose folders are on this node.
pub fn step_ids(spool: &Path, job: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(super::job_dir(spool, job)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("step")?.parse().ok())
        .collect()
}

/// Signals every step of `job` running on this node.
pub fn signal_steps(spool: &Path, job: u32, signal: i32) {
    for step in step_ids(spool, job) {
        signal_step_dir(&step_dir(spool, job, step), job, signal);
    }
}

/// Sends `signal` to the tasks of step `step` of `job` on this node, if
/// it runs any of them.
pub fn signal_step(spool: &Path, job: u32, step: u32, signal: i32) {
    signal_step_dir(&step_dir(spool, job, step), job, signal);
}

/// Sends `signal` to the process group of the step whose folder is
/// `dir`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_is_used_once_and_forgotten_once_expired() {
        let spool = tempfile::tempdir().expect("temp dir");
        let used = UsedGrants::open(spool.path()).expect("opens");
        assert!(used.first_use(7, 1_000, 900).expect("records"));
        assert!(!used.first_use(7, 1_000, 950).expect("reads"), "replayed");
        // Another agent process on the same spool (a restart) remembers.
        let again = UsedGrants::open(spool.path()).expect("opens");
        assert!(!again.first_use(7, 1_000, 999).expect("reads"));
        // Past its expiry the record goes (the grant is refused as
        // expired before it gets here).
        assert!(again.first_use(8, 2_000, 1_001).expect("records"));
        let names: Vec<String> = std::fs::read_dir(spool.path().join("grants"))
            .expect("lists")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["0000000000000008.2000"]);
        let mode = std::fs::metadata(spool.path().join("grants"))
            .expect("stat")
            .permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o700
        );
    }

    #[test]
    fn the_controllers_clock_is_followed_whatever_ours_says() {
        let clock = ControllerClock::default();
        let ours = crate::agent::now();
        assert!(clock.now().abs_diff(ours) <= 1, "unheard: our own");
        // The controller is ten minutes ahead of this node.
        assert!((clock.heard(ours + 600) - 600).abs() <= 1);
        assert!(clock.now().abs_diff(ours + 600) <= 1);
        assert!((clock.heard(ours - 600) + 600).abs() <= 1);
        assert!(clock.now().abs_diff(ours - 600) <= 1);
    }
}
