//! `spurd agent`: one per node. It connects to the controller, registers
//! (resources, GPUs, the jobs it still runs, the ends not yet acknowledged),
//! heartbeats, starts each batch script under its own supervisor process,
//! and signals jobs. Jobs outlive the agent: a restarted agent finds them in
//! its spool directory and reports them.

mod acct;
pub mod cgroup;
mod fence;
mod gpu;
mod groups;
mod launcher;
mod mesh;
pub(crate) mod nvml;
pub mod relay;
mod spare;
pub mod stepd;

use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::mpsc;
use tracing::{info, warn};

use spur_conf::{CgroupConf, ConfFile, NodeConf, SlurmConf};
use spur_proto::frame;
use spur_proto::{
    AgentHello, BatchLaunch, ClientRequest, ClientResponse, ErrorCode, FromAgent, Hello, JobEnd,
    ProtoError, Registration, Role, SignalScope, ToAgent, PROTOCOL_VERSION,
};

use cgroup::Memcg;
pub use gpu::{ConfiguredGpus, GpuDiscovery};
use spur_supervise as supervisor;
use spur_supervise::rusage::TaskRusage;

/// The runtime an agent runs on: one thread. A node's agent waits on its
/// controller and its jobs and does little between; with a worker per core
/// each launch and each end passed between threads (a futex wake or an
/// eventfd write a hop), which cost more than the work they carried
/// (`bench/control-plane`'s `sbatch_sequential_cpu_agents`, medians of
/// three runs: 0.30 ms a job on two worker threads, 0.21 on one). What may
/// block runs on the blocking pool (`spawn_blocking`) or on a thread of its
/// own (the accounting gatherer).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// The longest heartbeat period.
const HEARTBEAT: Duration = Duration::from_secs(5);

/// slurm.conf's setting `key` (one spur-conf keeps as text), read by
/// `read`: `default` where it is not set, and also where `read` cannot
/// make sense of it, which is said in a warning (`what`: which setting,
/// and what is used instead).
pub(crate) fn setting<T>(
    conf: &SlurmConf,
    key: &str,
    default: T,
    read: impl FnOnce(&str) -> Option<T>,
    what: &str,
) -> T {
    let Some(text) = conf.other.get(key) else {
        return default;
    };
    read(text).unwrap_or_else(|| {
        warn!(value = text.as_str(), "{what}");
        default
    })
}

/// How often an agent says it is alive: every 5 s, or three times per
/// SlurmdTimeout where that is shorter (as slurmctld pings its nodes), so
/// that a node is never silent for SlurmdTimeout while it is reachable.
fn heartbeat(slurmd_timeout_secs: u32) -> Duration {
    if slurmd_timeout_secs == 0 {
        return HEARTBEAT;
    }
    (Duration::from_secs(slurmd_timeout_secs.into()) / 3)
        .clamp(Duration::from_millis(500), HEARTBEAT)
}

/// How long a controller's silence stops this node's jobs: SlurmdTimeout
/// less a heartbeat, so that they stop before the controller, which
/// counts from this node's last heartbeat, can set it DOWN and run them
/// elsewhere (None: SlurmdTimeout=0, nodes never time out).
fn fence_after(slurmd_timeout_secs: u32) -> Option<Duration> {
    (slurmd_timeout_secs > 0).then(|| {
        Duration::from_secs(slurmd_timeout_secs.into())
            .saturating_sub(heartbeat(slurmd_timeout_secs))
    })
}

/// How many heartbeats the controller may leave unanswered before the
/// connection is taken for dead and made anew: a partition leaves a TCP
/// connection open, and only a new registration gets a healed node's
/// stale jobs killed.
const UNANSWERED_BEATS: u32 = 3;

/// How long a batch script's start may wait to be reported: the starts
/// of such a span go together, when its first is due. The controller
/// needs the report only while the job runs, to tell a job whose launch
/// never reached the node (sent again when the node registers) from one
/// the node lost; a script whose end comes first is reported by its end
/// alone, which spares a message and a turn of the controller per short
/// job. A node that registers lists the scripts it runs, which says as
/// much.
const LAUNCH_REPORT_DELAY: Duration = Duration::from_millis(100);

/// What an agent needs to run.
pub struct Settings {
    /// This node's slurm.conf entry.
    pub node: NodeConf,
    /// The controller's address and port.
    pub controller: (String, u16),
    /// The cluster key.
    pub key: Vec<u8>,
    /// This node's spool directory.
    pub spool: PathBuf,
    /// GPU discovery.
    pub gpus: Box<dyn GpuDiscovery>,
    /// The `spurd` executable the step processes run.
    pub exe: PathBuf,
    /// What the batch scripts' supervisors run.
    pub supervisor: Supervisor,
    /// Memory confinement (cgroup.conf `ConstrainRAMSpace`), if asked for.
    pub memcg: Option<Arc<Memcg>>,
    /// The controller's clock, by which step grants expire.
    pub clock: Arc<launcher::ControllerClock>,
    /// How often to say this node is alive.
    pub heartbeat: Duration,
    /// What stops this node's jobs when the controller is silent.
    pub fence: Arc<fence::Fence>,
    /// How the jobs' usage is gathered (None: it is not).
    pub acct: Option<acct::AcctConf>,
    /// The WireGuard mesh, where spur.conf turns it on.
    pub mesh: Option<Arc<mesh::AgentMesh>>,
    /// The job users' groups, kept for GroupUpdateTime.
    pub groups: groups::GroupCache,
}

impl Settings {
    /// Settings for node `node` (default: the short host name) of the
    /// cluster in `conf`.
    pub fn load(conf: &Path, key_file: &Path, node: Option<String>) -> Result<Settings> {
        let parsed =
            SlurmConf::load(conf).with_context(|| format!("while reading {}", conf.display()))?;
        for warning in &parsed.warnings {
            warn!(%warning, "slurm.conf");
        }
        let key = crate::controller::jwt::read_secret(key_file, "cluster key")?;
        let name = node.unwrap_or_else(spur_sys::short_hostname);
        let mut settings = Settings::from_conf(&parsed.value, key, name)?;
        let gres_path = conf.parent().unwrap_or(Path::new(".")).join("gres.conf");
        if gres_path.exists() {
            let gres = spur_conf::GresConf::load(&gres_path)
                .with_context(|| format!("while reading {}", gres_path.display()))?;
            for warning in &gres.warnings {
                warn!(%warning, "gres.conf");
            }
            let node = &settings.node.name;
            let configured: Box<dyn GpuDiscovery> =
                match ConfiguredGpus::from_gres_conf(&gres.value, node) {
                    Some(gpus) => Box::new(gpus),
                    None => settings.gpus,
                };
            settings.gpus = gpu::select_discovery(&gres.value, node, configured);
            if let Some(acct) = settings.acct.as_mut() {
                if acct::tracks_gpus(&parsed.value) && gpu::uses_nvml(&gres.value, node) {
                    match nvml::NvmlUsage::open() {
                        Ok(usage) => acct.gpus = Some(Arc::new(usage)),
                        Err(error) => warn!(
                            node,
                            %error,
                            "NVML cannot be read; GPU use is not gathered"
                        ),
                    }
                }
            }
        }
        let cgroup_path = CgroupConf::path_beside(conf);
        let cgroup = if cgroup_path.exists() {
            let parsed = CgroupConf::load(&cgroup_path)
                .with_context(|| format!("while reading {}", cgroup_path.display()))?;
            for warning in &parsed.warnings {
                warn!(%warning, "cgroup.conf");
            }
            parsed.value
        } else {
            CgroupConf::default()
        };
        let spur = spur_conf::SpurConf::load_beside(conf).context("while reading spur.conf")?;
        for warning in &spur.warnings {
            warn!(%warning, "spur.conf");
        }
        if let Some(mesh_conf) = spur.value.mesh {
            settings.mesh = Some(Arc::new(mesh::AgentMesh::load(mesh_conf, &settings.spool)?));
        }
        let task_plugin = parsed.value.other.get("taskplugin").map(String::as_str);
        settings.memcg = Memcg::setup(
            &cgroup,
            task_plugin,
            &settings.node.name,
            settings.node.real_memory_mb,
        )
        .context("while setting up memory confinement")?
        .map(Arc::new);
        Ok(settings)
    }

    /// Settings for node `name` from a parsed slurm.conf.
    pub fn from_conf(conf: &SlurmConf, key: Vec<u8>, name: String) -> Result<Settings> {
        let node = conf
            .nodes
            .iter()
            .find(|n| n.name == name)
            .with_context(|| format!("{name} is not a NodeName in slurm.conf"))?
            .clone();
        let host = conf
            .slurmctld_hosts
            .first()
            .context("slurm.conf has no SlurmctldHost")?;
        let spool = node.slurmd_path(&conf.slurmd_spool_dir);
        let gpu = node.gres.iter().find(|g| g.name == "gpu");
        let exe = std::env::current_exe().context("while finding the spurd executable")?;
        Ok(Settings {
            gpus: Box::new(ConfiguredGpus {
                count: gpu.map_or(0, |g| g.count as u32),
                type_name: gpu.and_then(|g| g.type_name.clone()),
            }),
            controller: (
                host.addr.clone().unwrap_or_else(|| host.name.clone()),
                conf.slurmctld_port.first,
            ),
            key,
            fence: Arc::new(fence::Fence::new(
                PathBuf::from(&spool),
                fence_after(conf.slurmd_timeout_secs),
            )),
            spool: PathBuf::from(spool),
            exe: exe.clone(),
            supervisor: Supervisor::beside(&exe),
            node,
            memcg: None,
            clock: Arc::default(),
            heartbeat: heartbeat(conf.slurmd_timeout_secs),
            acct: acct::AcctConf::from_conf(conf),
            mesh: None,
            groups: groups::GroupCache::new(groups::keep_time(conf)),
        })
    }
}

/// What happened to a job on this node.
#[derive(Debug)]
enum Event {
    /// A batch script ended, having used this (if its supervisor said).
    Ended(JobEnd, Option<TaskRusage>),
    /// The node's part of a step ended.
    StepEnded(launcher::StepEnd),
    /// A batch script's launch is on disk and its supervisor started.
    Launched(u32),
}

/// The agent's jobs and the ends the controller has not acknowledged.
struct Jobs {
    running: BTreeMap<u32, PathBuf>,
    unacked: BTreeMap<u32, JobEnd>,
    /// Ended jobs' folders, kept for the next.
    spares: spare::Spares,
}

/// Runs the agent until `shutdown` resolves.
pub async fn run(
    settings: Settings,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<()> {
    std::fs::create_dir_all(&settings.spool)
        .with_context(|| format!("while creating {}", settings.spool.display()))?;
    let _ = std::fs::set_permissions(&settings.spool, std::fs::Permissions::from_mode(0o755));
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let mut jobs = scan_spool(&settings, &events_tx)?;
    // srun reaches this node's tasks on its slurm.conf address and Port;
    // where steps cross the mesh, on its mesh address (which comes with
    // the join: the port is bound on every address and the others are
    // refused).
    let steps_over_mesh = settings.mesh.clone().filter(|m| m.carries_steps());
    let bind_addr = match steps_over_mesh {
        Some(_) => "0.0.0.0",
        None => settings.node.addr.as_str(),
    };
    let listener = launcher::bind(bind_addr, settings.node.port).await?;
    let launcher_task = tokio::spawn(launcher::serve(
        listener,
        std::sync::Arc::new(launcher::Launcher {
            node: settings.node.name.clone(),
            key: settings.key.clone(),
            spool: settings.spool.clone(),
            exe: settings.exe.clone(),
            memcg: settings.memcg.clone(),
            clock: settings.clock.clone(),
            grants: launcher::UsedGrants::open(&settings.spool)?,
            ended: {
                let events = events_tx.clone();
                Box::new(move |end| {
                    let _ = events.send(Event::StepEnded(end));
                })
            },
            mesh: steps_over_mesh,
        }),
    ));
    let (relay_tx, mut relayed) = mpsc::unbounded_channel();
    let relay_server = tokio::spawn(relay::serve(
        relay::bind(&settings.spool.join(relay::SOCKET_NAME))?,
        relay_tx,
    ));
    // Woken when the controller's silence would reach the fence's time
    // (which each word from it moves on), so that the jobs stop before
    // its SlurmdTimeout runs out, and then several times a second while
    // the silence lasts; a node that hears its controller is not woken.
    let fence_watch = tokio::spawn({
        let fence = settings.fence.clone();
        async move {
            while let Some(due) = fence.due_in() {
                if due.is_zero() {
                    fence.check();
                    tokio::time::sleep(Duration::from_millis(200)).await;
                } else {
                    tokio::time::sleep(due).await;
                }
            }
        }
    });
    info!(node = %settings.node.name, running = jobs.running.len(), ended = jobs.unacked.len(), "agent starting");
    tokio::pin!(shutdown);
    let mut backoff = Duration::from_millis(50);
    // The jobs' usage, sampled on a thread of its own; its sender stays
    // here too, so the channel stays open when nothing is gathered.
    let (live_tx, mut live) = mpsc::channel(8);
    let acct = match &settings.acct {
        Some(conf) => Some(
            acct::Acct::start(conf.clone(), settings.spool.clone(), live_tx.clone())
                .context("while starting the usage gatherer")?,
        ),
        None => None,
    };
    let mut channels = Channels {
        events: &mut events,
        events_tx: &events_tx,
        relayed: &mut relayed,
        acct,
        live: &mut live,
    };
    let result = loop {
        let session = session(&settings, &mut jobs, &mut channels);
        tokio::select! {
            () = &mut shutdown => break Ok(()),
            r = session => {
                if let Err(e) = r {
                    warn!(node = %settings.node.name, error = %format!("{e:#}"), "controller connection lost");
                }
            }
        }
        // Commands waiting to be relayed are told now (their connection
        // closes) rather than wait for a controller that is away.
        while let Ok(pending) = channels.relayed.try_recv() {
            pending.tell_unreachable();
        }
        tokio::select! {
            () = &mut shutdown => break Ok(()),
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(2));
    };
    relay_server.abort();
    launcher_task.abort();
    fence_watch.abort();
    // Gone before this returns: an agent started again at once (slurmd's
    // SIGHUP) binds the same port and socket.
    let _ = relay_server.await;
    let _ = launcher_task.await;
    let _ = fence_watch.await;
    let _ = std::fs::remove_file(settings.spool.join(relay::SOCKET_NAME));
    result
}

/// What a session reads from and writes to besides the controller.
struct Channels<'a> {
    events: &'a mut mpsc::UnboundedReceiver<Event>,
    events_tx: &'a mpsc::UnboundedSender<Event>,
    relayed: &'a mut mpsc::UnboundedReceiver<relay::Pending>,
    /// The jobs' usage gatherer, if usage is gathered.
    acct: Option<acct::Acct>,
    /// Its samples of running steps.
    live: &'a mut mpsc::Receiver<Vec<spur_proto::LiveUsage>>,
}

async fn session(settings: &Settings, jobs: &mut Jobs, ch: &mut Channels<'_>) -> Result<()> {
    // With the mesh on, the node joins it first (on the plain network)
    // and then reaches the controller over it only.
    let controller = match &settings.mesh {
        None => settings.controller.clone(),
        Some(mesh) => {
            let joined = mesh
                .join(&settings.controller, &settings.node.name, &settings.key)
                .await;
            match joined {
                Ok(over_mesh) => over_mesh,
                Err(e) if is_unreachable(&e) => {
                    tracing::debug!(error = %format!("{e:#}"), "controller not reachable yet");
                    return Ok(());
                }
                Err(e) => return Err(e.context("while joining the mesh")),
            }
        }
    };
    let stream = match crate::handshake::connect(&controller).await {
        Ok(s) => s,
        Err(e) => {
            // Not an error worth a warning: the controller may be starting.
            tracing::debug!(error = %e, "controller not reachable yet");
            return Ok(());
        }
    };
    stream.set_nodelay(true)?;
    let (mut rd, mut wr) = stream.into_split();
    let nonce = crate::handshake::nonce()?;
    let hello = Hello {
        version: PROTOCOL_VERSION,
        role: Role::Agent(AgentHello {
            node: settings.node.name.clone(),
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
    let me = crate::handshake::Peer::Agent(&settings.node.name);
    crate::handshake::answer(&mut rd, &mut wr, &settings.key, me, &nonce).await?;
    frame::write(
        &mut wr,
        &FromAgent::Register(Box::new(registration(settings, jobs))),
    )
    .await?;
    let (in_tx, mut incoming) = mpsc::unbounded_channel();
    let reader = tokio::spawn(async move {
        loop {
            match frame::read::<ToAgent, _>(&mut rd).await {
                Ok(msg) => {
                    if in_tx.send(msg).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    });
    let mut beat = tokio::time::interval(settings.heartbeat);
    // Relayed requests sent on and waiting for their answer, by tag. If the
    // connection ends first they are dropped, and their commands told the
    // controller went away after taking them (they may have been acted
    // on, so they are not sent again).
    let mut waiting: HashMap<u64, tokio::sync::oneshot::Sender<Vec<u8>>> = HashMap::new();
    let mut next_tag = 0u64;
    let mut heard = tokio::time::Instant::now();
    // Scripts started and not yet reported, and when they are due to be
    // ([`LAUNCH_REPORT_DELAY`]).
    let mut unreported: Vec<u32> = Vec::new();
    let mut report_at: Option<tokio::time::Instant> = None;
    let result = 'session: loop {
        tokio::select! {
            msg = incoming.recv() => match msg.inspect(|_| {
                heard = tokio::time::Instant::now();
                settings.fence.heard();
            }) {
                // The controller heard this node when it sent this: it
                // has not set it DOWN, and jobs stopped in a silence that
                // ended continue.
                Some(ToAgent::Alive) => settings.fence.resume(),
                Some(ToAgent::RelayReply { tag, frame }) => {
                    if let Some(reply) = waiting.remove(&tag) {
                        let _ = reply.send(frame);
                    }
                }
                Some(msg) => on_message(settings, jobs, msg, ch.events_tx),
                None => break Err(anyhow::anyhow!("controller closed the connection")),
            },
            Some(p) = ch.relayed.recv() => {
                // `spurd mesh rotate` on this node is the agent's to answer;
                // the session then ends and the next joins with the new key.
                if matches!(p.req, ClientRequest::MeshRotate) {
                    let rotated = rotate_mesh_key(settings, p.uid);
                    let done = rotated.is_ok();
                    p.answer(&rotated.unwrap_or_else(ClientResponse::Error));
                    if done {
                        break Ok(());
                    }
                    continue;
                }
                next_tag += 1;
                waiting.insert(next_tag, p.reply);
                let msg = FromAgent::Relay { tag: next_tag, uid: p.uid, req: Box::new(p.req) };
                if let Err(e) = frame::write(&mut wr, &msg).await {
                    break Err(e.into());
                }
            }
            Some(event) = ch.events.recv() => {
                let msg = match event {
                    Event::Launched(job_id) => {
                        unreported.push(job_id);
                        report_at.get_or_insert_with(|| {
                            tokio::time::Instant::now() + LAUNCH_REPORT_DELAY
                        });
                        continue;
                    }
                    Event::Ended(mut end, rusage) => {
                        // Its end says it started.
                        unreported.retain(|&id| id != end.job_id);
                        if let Some(acct) = &ch.acct {
                            let key = acct::StepKey { job_id: end.job_id, step_id: spur_proto::BATCH_STEP };
                            let ended: Vec<_> = rusage.into_iter().map(|r| (0, r)).collect();
                            let usage = acct.finish(key, 0, ended).await;
                            if !end.launch_failed {
                                end.usage = usage.map(Box::new);
                            }
                        }
                        jobs.running.remove(&end.job_id);
                        jobs.unacked.insert(end.job_id, end.clone());
                        FromAgent::JobEnded(end)
                    }
                    Event::StepEnded(end) => {
                        let usage = match &ch.acct {
                            Some(acct) => {
                                let key = acct::StepKey { job_id: end.job_id, step_id: end.step_id };
                                acct.finish(key, end.node, end.rusage).await.map(Box::new)
                            }
                            None => None,
                        };
                        FromAgent::StepEnded { job_id: end.job_id, step_id: end.step_id, usage }
                    }
                };
                if let Err(e) = frame::write(&mut wr, &msg).await {
                    break Err(e.into());
                }
            }
            () = tokio::time::sleep_until(report_at.unwrap_or_else(tokio::time::Instant::now)),
                if report_at.is_some() =>
            {
                report_at = None;
                for job_id in std::mem::take(&mut unreported) {
                    if let Err(e) = frame::write(&mut wr, &FromAgent::Launched { job_id }).await {
                        break 'session Err(e.into());
                    }
                }
            }
            Some(live) = ch.live.recv() => {
                if let Err(e) = frame::write(&mut wr, &FromAgent::Usage(live)).await {
                    break Err(e.into());
                }
            }
            _ = beat.tick() => {
                if let Some(retried) = settings.mesh.as_ref().and_then(|m| m.retry_peers()) {
                    match retried {
                        Ok(()) => info!("the mesh interface has its peers, tried again"),
                        Err(e) => warn!(error = %format!("{e:#}"), "still cannot give the mesh interface its peers"),
                    }
                }
                if heard.elapsed() > settings.heartbeat * UNANSWERED_BEATS {
                    break Err(anyhow::anyhow!(
                        "controller silent for {} s",
                        heard.elapsed().as_secs()
                    ));
                }
                let (cpu_load, free_mem) = host_load();
                if let Err(e) = frame::write(&mut wr, &FromAgent::Heartbeat { cpu_load, free_mem }).await {
                    break Err(e.into());
                }
            }
        }
    };
    reader.abort();
    result
}

fn registration(settings: &Settings, jobs: &Jobs) -> Registration {
    let n = &settings.node;
    let uname = uname();
    Registration {
        cpus: n.cpus,
        boards: n.boards,
        sockets: n.sockets,
        cores_per_socket: n.cores_per_socket,
        threads_per_core: n.threads_per_core,
        real_memory: n.real_memory_mb,
        gpus: settings.gpus.discover(),
        arch: uname.0,
        os: uname.1,
        version: spur_proto::SLURM_COMPAT_VERSION.into(),
        boot_time: boot_time(),
        running: jobs.running.keys().copied().collect(),
        steps: fence::jobs_in(&settings.spool)
            .into_iter()
            .filter(|&id| launcher::runs_steps(&settings.spool, id))
            .collect(),
        ended: jobs.unacked.values().cloned().collect(),
    }
}

/// `spurd mesh rotate` on this node, asked by `uid` (root alone: the key
/// is root's): a new key pair for its mesh interface.
fn rotate_mesh_key(settings: &Settings, uid: u32) -> Result<ClientResponse, ProtoError> {
    if uid != 0 {
        return Err(ErrorCode::AccessDenied.into());
    }
    let Some(mesh) = &settings.mesh else {
        return Err(ProtoError::with_detail(
            ErrorCode::Disabled,
            "the mesh is off (spur.conf)",
        ));
    };
    mesh.rotate()
        .map(|()| ClientResponse::Done)
        .map_err(|e| ProtoError::with_detail(ErrorCode::NotSupported, format!("{e:#}")))
}

/// Whether `e` is a controller that does not answer yet (it may be
/// starting), not worth a warning.
fn is_unreachable(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::TimedOut
            )
        })
    })
}

fn on_message(
    settings: &Settings,
    jobs: &mut Jobs,
    msg: ToAgent,
    events: &mpsc::UnboundedSender<Event>,
) {
    match msg {
        ToAgent::MeshPeers(peers) => match &settings.mesh {
            Some(mesh) => {
                if let Err(e) = mesh.set_peers(&peers) {
                    warn!(error = %format!("{e:#}"), "cannot give the mesh interface its peers");
                }
            }
            None => warn!("mesh peers from the controller, but the mesh is off here (spur.conf)"),
        },
        ToAgent::Registered { now } => {
            let off = settings.clock.heard(now);
            info!(node = %settings.node.name, "registered with the controller");
            // The controller's kills for what it no longer runs here came
            // before this answer.
            settings.fence.resume();
            if off.unsigned_abs() > launcher::CLOCK_SKEW_WARNING_SECS {
                warn!(
                    node = %settings.node.name,
                    offset_secs = off,
                    "this node's clock is off from the controller's; step grants are judged by the controller's"
                );
            }
        }
        ToAgent::LaunchBatch(launch) => {
            let id = launch.job_id;
            match start(settings, &mut jobs.spares, *launch, events) {
                Ok(dir) => {
                    jobs.running.insert(id, dir);
                    let _ = events.send(Event::Launched(id));
                }
                Err(e) => {
                    warn!(job = id, error = %e, "cannot start the batch script");
                    if let Some(memcg) = &settings.memcg {
                        memcg.release(id, "batch");
                    }
                    let end = JobEnd {
                        job_id: id,
                        code: 1,
                        signal: 0,
                        at: now(),
                        launch_failed: true,
                        usage: None,
                    };
                    let _ = events.send(Event::Ended(end, None));
                }
            }
        }
        ToAgent::Signal {
            job_id,
            signal,
            scope,
        } => {
            if let Some(dir) = jobs.running.get(&job_id) {
                match scope {
                    SignalScope::BatchShell => signal_job(dir, signal, false),
                    SignalScope::Full => signal_job(dir, signal, true),
                    SignalScope::Steps => {}
                }
            }
            if scope != SignalScope::BatchShell {
                launcher::signal_steps(&settings.spool, job_id, signal);
            }
        }
        ToAgent::Kill {
            job_id,
            grace,
            notice,
        } => {
            if settings.fence.take(job_id) {
                // Stopped while cut off: killed before it runs again.
                fence::signal(&settings.spool, job_id, libc::SIGKILL);
            }
            if let (Some(notice), Some(dir)) = (notice, jobs.running.get(&job_id)) {
                let line = notice.line(&format!("JOB {job_id}"), &settings.node.name, now());
                supervisor::post_notice(dir, &line);
            }
            // Steps first: they end with the job, on every node of it.
            launcher::signal_steps(&settings.spool, job_id, libc::SIGCONT);
            launcher::signal_steps(&settings.spool, job_id, libc::SIGTERM);
            let spool = settings.spool.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(grace)).await;
                launcher::signal_steps(&spool, job_id, libc::SIGKILL);
            });
            if let Some(dir) = jobs.running.get(&job_id).cloned() {
                drop(kill_job(dir, grace));
            }
        }
        ToAgent::SignalStep {
            job_id,
            step_id,
            signal,
        } => launcher::signal_step(&settings.spool, job_id, step_id, signal),
        ToAgent::EndAcknowledged { job_id } => {
            jobs.unacked.remove(&job_id);
            jobs.spares.keep(&job_dir(&settings.spool, job_id));
        }
        _ => warn!("unexpected message from the controller"),
    }
}

/// The folder `name` in the spool, made root's alone if missing: what the
/// agent keeps there for itself (used grants, spare job folders).
fn private_folder(spool: &Path, name: &str) -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = spool.join(name);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .with_context(|| format!("while creating {}", dir.display()))?;
    Ok(dir)
}

fn job_dir(spool: &Path, job: u32) -> PathBuf {
    spool.join(format!("job{job:010}"))
}

/// Starts the supervisor of a batch job; returns its folder.
fn start(
    settings: &Settings,
    spares: &mut spare::Spares,
    mut launch: BatchLaunch,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<PathBuf> {
    let dir = job_dir(&settings.spool, launch.job_id);
    let _ = std::fs::remove_dir_all(&dir);
    launch
        .env
        .push(("SLURMD_NODENAME".into(), settings.node.name.clone()));
    if !launch.env.iter().any(|(k, _)| k == "TMPDIR") {
        launch.env.push(("TMPDIR".into(), "/tmp".into()));
    }
    // The folder is made ready where only root sees it, then renamed into
    // place whole: a restarted agent starts what it finds.
    let folder = spares.take(launch.uid, launch.gid)?;
    let ready = prepare(settings, &folder, &launch).and_then(|()| {
        std::fs::rename(&folder, &dir).with_context(|| format!("while creating {}", dir.display()))
    });
    if let Err(e) = ready {
        spares.give_back(&folder);
        return Err(e);
    }
    spawn_supervisor(settings, launch.job_id, &dir, events)?;
    Ok(dir)
}

/// Fills the private `folder` for `launch`: its memory cgroup named, its
/// launch file written.
fn prepare(settings: &Settings, folder: &Path, launch: &BatchLaunch) -> Result<()> {
    if let Some(memcg) = &settings.memcg {
        let cg = memcg
            .prepare(launch.job_id, "batch", launch.memory_mib)
            .context("while making the job's memory cgroup")?;
        std::fs::write(
            folder.join(cgroup::CGROUP_FILE),
            cg.as_os_str().as_encoded_bytes(),
        )?;
    }
    // The supervisor reads no user database: the groups are resolved here.
    let groups = settings
        .groups
        .groups(&launch.user_name, launch.gid, std::time::Instant::now());
    let bytes = supervisor::launch_bytes(launch, &groups).context("while encoding the launch")?;
    // Only root reads it: it holds the job's environment. A kept folder's
    // launch file is written over, not emptied first (spur_sys::rewrite).
    let path = folder.join(supervisor::LAUNCH_FILE);
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(&path)
        .and_then(|f| spur_sys::rewrite(&f, &bytes))
        .with_context(|| format!("while writing {}", path.display()))
}

/// What runs a batch script's supervisor: the lean `spur-supervise` beside
/// spurd, else spurd itself (`spurd supervise`, the same code).
#[derive(Debug, Clone)]
pub struct Supervisor {
    program: PathBuf,
    /// Whether `program` is spurd, which takes the `supervise` subcommand.
    is_spurd: bool,
}

impl Supervisor {
    /// The supervisor for the spurd at `exe`.
    pub fn beside(exe: &Path) -> Supervisor {
        let lean = exe.with_file_name(supervisor::BINARY);
        if lean.is_file() {
            Supervisor {
                program: lean,
                is_spurd: false,
            }
        } else {
            info!(
                missing = %lean.display(),
                "batch scripts are supervised by spurd itself, which starts slower"
            );
            Supervisor {
                program: exe.to_path_buf(),
                is_spurd: true,
            }
        }
    }

    /// The command that supervises the job in `dir`.
    fn command(&self, dir: &Path) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.program);
        if self.is_spurd {
            cmd.arg("supervise");
        }
        cmd.arg(dir);
        cmd
    }
}

/// Starts the supervisor of the job in `dir` and reports the job's end
/// when it exits. The supervisor inherits a lock on the launch file taken
/// before it is started, as its standard input, and holds it as long as it
/// (or the script) lives: a restarted agent tells a live job from one whose
/// supervisor never started by that lock alone, with no window between the
/// two. Handing it over as standard input needs nothing run between fork
/// and exec, so the supervisor is spawned without copying the agent's
/// address space.
fn spawn_supervisor(
    settings: &Settings,
    job_id: u32,
    dir: &Path,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<()> {
    let lock = std::fs::File::open(dir.join(supervisor::LAUNCH_FILE))
        .context("while opening the job's launch file, its lock")?;
    if !take_lock(&lock) {
        anyhow::bail!("job {job_id} already has a live supervisor");
    }
    let mut cmd = settings.supervisor.command(dir);
    cmd.stdin(lock)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .kill_on_drop(false);
    // The child holds the lock now; the agent's descriptor went with the
    // command.
    let mut child = cmd.spawn().context("while starting the supervisor")?;
    drop(cmd);
    let (events, dir) = (events.clone(), dir.to_path_buf());
    let memcg = settings.memcg.clone();
    tokio::spawn(async move {
        let _ = child.wait().await;
        batch_ended(job_id, &dir, memcg, &events).await;
    });
    Ok(())
}

/// The batch script's supervisor is gone: what is left of the script's
/// processes goes with its cgroup, then the end is reported.
async fn batch_ended(
    job_id: u32,
    dir: &Path,
    memcg: Option<Arc<Memcg>>,
    events: &mpsc::UnboundedSender<Event>,
) {
    if let Some(memcg) = memcg {
        let _ = tokio::task::spawn_blocking(move || memcg.release(job_id, "batch")).await;
    }
    report_end(job_id, dir, events);
}

/// Takes the job's lock on its open launch file: false while a supervisor
/// (or the script it started) holds it.
fn take_lock(launch: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor the caller owns.
    unsafe { libc::flock(launch.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Whether the job's lock on its open launch file is free: taken and let
/// go at once. Let go explicitly, not by closing: a lock belongs to the
/// open file, and a process the agent forks (a step's, until its exec)
/// holds a copy of every descriptor the agent has open, so a lock left to
/// the close would stay taken while that copy lives, and the next job
/// given the folder would find it taken.
fn lock_is_free(launch: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    if !take_lock(launch) {
        return false;
    }
    // SAFETY: flock on a descriptor the caller owns.
    unsafe { libc::flock(launch.as_raw_fd(), libc::LOCK_UN) };
    true
}

/// Whether a supervisor (or the script it started) still holds the job's
/// lock.
fn supervisor_alive(dir: &Path) -> bool {
    std::fs::File::open(dir.join(supervisor::LAUNCH_FILE)).is_ok_and(|lock| !lock_is_free(&lock))
}

fn report_end(job_id: u32, dir: &Path, events: &mpsc::UnboundedSender<Event>) {
    let record = supervisor::read_record(dir).unwrap_or_default();
    let (code, signal, at) = record.end.unwrap_or((0, libc::SIGKILL, now()));
    if let Some(error) = &record.error {
        warn!(job = job_id, error = %error.trim(), "batch script could not be started");
    }
    let end = JobEnd {
        job_id,
        code,
        signal,
        at,
        launch_failed: record.error.is_some(),
        usage: None,
    };
    let _ = events.send(Event::Ended(end, record.usage));
}

fn signal_job(dir: &Path, signal: i32, whole_group: bool) {
    if let Some(pid) = supervisor::script_pid(dir) {
        let target = if whole_group { -pid } else { pid };
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(target, signal) };
    }
}

/// SIGCONT and SIGTERM now, SIGKILL after `grace` seconds to the same
/// script, if it has not ended.
fn kill_job(dir: PathBuf, grace: u64) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        // The script may not have been forked yet.
        for _ in 0..50 {
            let record = supervisor::read_record(&dir);
            if record.is_some_and(|r| r.pid.is_some() || r.end.is_some()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let signalled = supervisor::script_pid(&dir);
        signal_job(&dir, libc::SIGCONT, true);
        signal_job(&dir, libc::SIGTERM, true);
        tokio::time::sleep(Duration::from_secs(grace)).await;
        // The folder may hold another run of the job's id by now (its ids
        // begun anew with a new state): that one is not this kill's.
        let same = signalled.is_none() || supervisor::script_pid(&dir) == signalled;
        if same && supervisor::read_status(&dir).is_none() {
            signal_job(&dir, libc::SIGKILL, true);
        }
    })
}

/// The end reported for a job whose processes vanished.
fn lost(job_id: u32) -> JobEnd {
    JobEnd {
        job_id,
        code: 0,
        signal: libc::SIGKILL,
        at: now(),
        launch_failed: false,
        usage: None,
    }
}

/// Jobs left by a previous agent: still running (watched until they end)
/// or ended (to report).
fn scan_spool(settings: &Settings, events: &mpsc::UnboundedSender<Event>) -> Result<Jobs> {
    let spool = &settings.spool;
    let mut jobs = Jobs {
        running: BTreeMap::new(),
        unacked: BTreeMap::new(),
        spares: spare::Spares::open(spool)?,
    };
    let Ok(entries) = std::fs::read_dir(spool) else {
        return Ok(jobs);
    };
    let mut watch: HashMap<u32, PathBuf> = HashMap::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_prefix("job").and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let dir = entry.path();
        let record = supervisor::read_record(&dir);
        if let Some(supervisor::Record {
            end: Some((code, signal, at)),
            error,
            ..
        }) = &record
        {
            jobs.unacked.insert(
                id,
                JobEnd {
                    job_id: id,
                    code: *code,
                    signal: *signal,
                    at: *at,
                    launch_failed: error.is_some(),
                    usage: None,
                },
            );
        } else if supervisor_alive(&dir) {
            jobs.running.insert(id, dir.clone());
            watch.insert(id, dir);
        } else if record.as_ref().is_some_and(|r| r.pid.is_none()) {
            // The agent stopped between writing the launch and starting its
            // supervisor: the script never ran. Start it now.
            match spawn_supervisor(settings, id, &dir, events) {
                Ok(()) => {
                    jobs.running.insert(id, dir);
                }
                Err(e) => {
                    warn!(job = id, error = %e, "cannot start an interrupted launch");
                    jobs.unacked.insert(id, lost(id));
                }
            }
        } else if record.is_none() {
            // No launch here: a batch job's folder comes into place with
            // its launch written, so this one holds the job's steps on this
            // node, which their own processes end and clear.
            if !launcher::runs_steps(spool, id) {
                let _ = std::fs::remove_dir_all(&dir);
            }
        } else {
            // Started but neither finished nor running: the supervisor
            // died with the machine. The job is lost.
            jobs.unacked.insert(id, lost(id));
        }
    }
    for (id, dir) in watch {
        let events = events.clone();
        let memcg = settings.memcg.clone();
        tokio::spawn(async move {
            while supervisor::read_status(&dir).is_none() && supervisor_alive(&dir) {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            batch_ended(id, &dir, memcg, &events).await;
        });
    }
    // Ends found on disk: their cgroups, if any, are empty by now.
    if let Some(memcg) = &settings.memcg {
        for &id in jobs.unacked.keys() {
            memcg.release(id, "batch");
        }
    }
    Ok(jobs)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn uname() -> (String, String) {
    // SAFETY: a zeroed utsname is a valid out-parameter for uname.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: u is valid for writing.
    if unsafe { libc::uname(&mut u) } != 0 {
        return ("unknown".into(), "unknown".into());
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (
        field(&u.machine),
        format!(
            "{} {} {}",
            field(&u.sysname),
            field(&u.release),
            field(&u.version)
        ),
    )
}

fn boot_time() -> u64 {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("btime ")?.trim().parse().ok())
        })
        .unwrap_or(0)
}

fn host_load() -> (f64, u64) {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    let free = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("MemAvailable:")?
                    .trim()
                    .trim_end_matches(" kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
        })
        .map_or(0, |kb| kb / 1024);
    (load, free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeats_come_three_times_per_slurmd_timeout_at_most_every_five_seconds() {
        assert_eq!(heartbeat(0), HEARTBEAT, "no timeout");
        assert_eq!(heartbeat(300), HEARTBEAT);
        assert_eq!(heartbeat(6), Duration::from_secs(2));
        assert_eq!(heartbeat(1), Duration::from_millis(500));
    }

    #[test]
    fn a_lock_found_free_is_free_for_the_next_job_while_a_forked_copy_lives() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(supervisor::LAUNCH_FILE);
        std::fs::write(&path, b"launch").expect("launch file");
        let open = || std::fs::File::open(&path).expect("opens");
        let probe = open();
        // What a process forked by the agent holds until its exec.
        let forked_copy = probe.try_clone().expect("dup");
        assert!(lock_is_free(&probe));
        drop(probe);
        let next_job = open();
        assert!(take_lock(&next_job), "the next job's launch takes the lock");
        // Held by the job now: found taken, through either copy or anew.
        assert!(!lock_is_free(&open()));
        assert!(supervisor_alive(dir.path()));
        drop((forked_copy, next_job));
        assert!(!supervisor_alive(dir.path()));
    }

    /// A job's folder whose record names `script` as the script, in a
    /// process group of its own that ignores SIGTERM.
    fn job_running(dir: &Path) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new("sleep");
        command.arg("30").process_group(0);
        // SAFETY: setting a disposition to SIG_IGN is async-signal-safe;
        // an ignored signal stays ignored across the exec.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
                Ok(())
            });
        }
        let script = command.spawn().expect("sleep");
        let mut launch = 0u64.to_le_bytes().to_vec();
        launch.extend(format!("{}\n", script.id()).as_bytes());
        std::fs::create_dir_all(dir).expect("job folder");
        std::fs::write(dir.join(supervisor::LAUNCH_FILE), launch).expect("launch file");
        script
    }

    #[tokio::test]
    async fn a_kill_after_the_grace_time_spares_a_new_run_of_the_same_job_id() {
        let spool = tempfile::tempdir().expect("temp dir");
        let dir = spool.path().join("job0000000001");
        let mut first = job_running(&dir);
        let kill = kill_job(dir.clone(), 1);
        // Its folder goes, and a job of the same id starts there within
        // the grace time (ids begun anew).
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::fs::remove_dir_all(&dir).expect("folder removed");
        let mut second = job_running(&dir);
        kill.await.expect("kill ran");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            second.try_wait().expect("waits").is_none(),
            "the new run was killed"
        );
        // The first ignored SIGTERM, and its SIGKILL went with its folder:
        // the test ends both.
        for child in [&mut first, &mut second] {
            // SAFETY: kill on the test's own process groups.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            child.wait().expect("reaped");
        }
    }

    #[tokio::test]
    async fn a_script_that_ignores_sigterm_is_killed_after_the_grace_time() {
        let spool = tempfile::tempdir().expect("temp dir");
        let dir = spool.path().join("job0000000002");
        let mut script = job_running(&dir);
        kill_job(dir, 1).await.expect("kill ran");
        let status = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let Some(status) = script.try_wait().expect("waits") {
                    return status;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("killed");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
}
