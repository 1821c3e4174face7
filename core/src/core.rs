//! The scheduler state and its entry points: the cluster (nodes, partitions,
//! QOS, topology), every job, and the inputs that change them. A scheduling
//! pass lives in `sched`, invariants in `sanity`. Time always comes in as an
//! argument; decisions leave through `Effects`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use thiserror::Error;

use crate::array::{parse_array, JobArray, TaskSet};
use crate::backfill::BackfillConfig;
use crate::dependency::DependencyError;
use crate::effects::{Effect, Effects};
use crate::id::{JobId, NodeId, PartitionId, QosId, Uid};
use crate::job::{ExitStatus, Hold, Job, JobState, KillCause, Resolved, TransitionError};
use crate::node::{Health, Node, NodeAlloc, NodeConfig};
use crate::partition::{Partition, PartitionState, Qos};
use crate::placement::{BlockPlacement, FlatPlacement, Placement, TreePlacement};
use crate::queue::{FairShare, PriorityType};
use crate::reconfig::Reconfiguration;
use crate::resources::Time;
use crate::spec::{
    parse_constraint, resolve_shape, Exclusive, JobSpec, ShapeDefaults, SubmitError,
};
use crate::step::{StepError, StepPart, StepShape};
use crate::topology::Topology;

/// Who may preempt whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PreemptType {
    /// preempt/none.
    #[default]
    None,
    /// preempt/partition_prio: jobs of a higher PriorityTier partition
    /// preempt jobs of lower tiers on shared nodes.
    PartitionPrio,
    /// preempt/qos: a QOS preempts the QOS in its Preempt list.
    Qos,
}

/// How nodes are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PlacementPolicy {
    /// By the configured topology (block, tree, or best fit when flat).
    #[default]
    Topology,
    /// Linear first fit, ignoring topology: the simulator's baseline.
    LinearFirstFit,
    /// Best fit by what a node has left, ignoring topology and the workload
    /// mix: the simulator's fragmentation baseline.
    BestFit,
}

/// Scheduler settings, from slurm.conf.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SchedConfig {
    /// Backfill (SchedulerType, SchedulerParameters bf_*).
    pub backfill: BackfillConfig,
    /// PriorityType and weights.
    pub priority: PriorityType,
    /// PreemptType.
    pub preempt: PreemptType,
    /// DefMemPerCPU (MiB).
    pub def_mem_per_cpu: Option<u64>,
    /// DefMemPerGPU (MiB).
    pub def_mem_per_gpu: Option<u64>,
    /// max_switch_wait in seconds.
    pub max_switch_wait: u64,
    /// FirstJobId.
    pub first_job_id: u32,
    /// MaxJobCount: jobs kept (pending, running and finished).
    pub max_job_count: u32,
    /// KillWait in seconds.
    pub kill_wait: u64,
    /// How nodes are chosen.
    pub placement: PlacementPolicy,
    /// How long (seconds from eligibility) a job larger than a base block
    /// waits for a placement on the fewest base blocks its size needs
    /// before it takes one on more (topology/block; 0: it never waits).
    /// Like `--switches=N@time` on topology/tree.
    pub block_wait: u64,
    /// MaxArraySize: array task ids must be below it (0: no arrays).
    pub max_array_size: u32,
    /// DependencyParameters=kill_invalid_depend (SchedulerParameters in
    /// Slurm before 20.02): cancel a job whose dependency can never be met,
    /// unless it asked `--kill-on-invalid-dep=no`.
    pub kill_invalid_depend: bool,
    /// JobRequeue: whether a job that says neither `--requeue` nor
    /// `--no-requeue` may be requeued.
    pub job_requeue: bool,
    /// Seconds a requeued job waits before it may run again (slurmctld:
    /// the credential lifetime, AuthInfo's cred_expire, plus one), unless
    /// its `--begin` is later.
    pub requeue_delay: u64,
    /// SchedulerParameters default_queue_depth: the most jobs a head pass
    /// tries ([`Core::schedule_head`]; 0: none).
    #[serde(default = "default_queue_depth")]
    pub queue_depth: u32,
}

/// Slurm's default_queue_depth.
fn default_queue_depth() -> u32 {
    100
}

impl Default for SchedConfig {
    fn default() -> Self {
        SchedConfig {
            backfill: BackfillConfig::default(),
            priority: PriorityType::Basic,
            preempt: PreemptType::None,
            def_mem_per_cpu: None,
            def_mem_per_gpu: None,
            max_switch_wait: 300,
            first_job_id: 1,
            max_job_count: 10_000,
            kill_wait: 30,
            placement: PlacementPolicy::Topology,
            block_wait: 0,
            max_array_size: 1001,
            kill_invalid_depend: false,
            job_requeue: true,
            requeue_delay: 121,
            queue_depth: default_queue_depth(),
        }
    }
}

/// The cluster as configured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Nodes, indexed by [`NodeId`].
    pub nodes: Vec<NodeConfig>,
    /// Partitions, indexed by [`PartitionId`].
    pub partitions: Vec<Partition>,
    /// QOS, indexed by [`QosId`].
    pub qos: Vec<Qos>,
    /// Topology over the nodes.
    pub topology: Topology,
}

/// A cluster that cannot be scheduled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// Two nodes, partitions or QOS with one name.
    #[error("{kind} {name} is defined twice")]
    Duplicate {
        /// `node`, `partition` or `qos`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A partition names a node index beyond the node table.
    #[error("partition {partition} names node index {node}, but the cluster has {count} nodes")]
    UnknownNode {
        /// The partition.
        partition: String,
        /// The index.
        node: NodeId,
        /// Nodes in the cluster.
        count: usize,
    },
    /// A node with more GPUs than the core tracks.
    #[error("node {node} has {gpus} GPUs; at most {max} per node are supported")]
    TooManyGpus {
        /// The node.
        node: String,
        /// Its GPUs.
        gpus: u32,
        /// The limit.
        max: u32,
    },
}

/// An input to the core (what the controller would log as a command).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Input {
    /// Submit a job.
    Submit(Box<JobSpec>),
    /// A job's processes ended.
    JobExited {
        /// The job.
        job: JobId,
        /// How.
        status: ExitStatus,
    },
    /// Cancel a job.
    Cancel(JobId),
    /// End a running job as past a limit the controller keeps
    /// (InactiveLimit: its salloc or srun went silent); it ends as TIMEOUT.
    TimeOut(JobId),
    /// Hold a pending job.
    Hold(JobId, Hold),
    /// Release a held job.
    Release(JobId),
    /// Requeue a running or finished batch job (`scontrol requeue`);
    /// with a hold, it waits held (`scontrol requeuehold`).
    Requeue {
        /// The job.
        job: JobId,
        /// How it is held once requeued ([`Hold::Requeued`] or
        /// [`Hold::SpecialExit`]).
        hold: Option<Hold>,
    },
    /// A running job's batch script could not be started; it ends as
    /// FAILED with `JobLaunchFailure`.
    LaunchFailed(JobId),
    /// A node stopped responding, or was set DOWN.
    NodeDown(NodeId, String),
    /// A node responds again / was RESUMEd from DOWN.
    NodeUp(NodeId),
    /// The controller has not heard from the node since it started.
    NodeUnknown(NodeId),
    /// Drain a node.
    Drain(NodeId, String),
    /// Resume a drained node.
    Resume(NodeId),
    /// Cancel tasks of an array (`scancel N_3`, `scancel N_[1-5]`); see
    /// [`Core::cancel_array_tasks`]. Tasks it does not know are an
    /// [`CoreError::UnknownTask`] after the others are cancelled.
    CancelArrayTasks {
        /// The array (its own job id).
        array: JobId,
        /// The task ids.
        tasks: TaskSet,
    },
    /// Change an array's throttle (`ArrayTaskThrottle=`).
    SetArrayThrottle {
        /// The array (its own job id).
        array: JobId,
        /// The most tasks running at once (0: no limit).
        throttle: u32,
    },
    /// Replace a pending job's dependency (`Dependency=`; empty clears).
    SetDependency {
        /// The job.
        job: JobId,
        /// The new dependency, in `--dependency` syntax.
        dependency: String,
    },
    /// Change a job's time limit (`TimeLimit=`; None: unlimited).
    SetTimeLimit {
        /// The job.
        job: JobId,
        /// The limit in seconds.
        limit: Option<u64>,
    },
    /// Rename a job (`JobName=`).
    Rename {
        /// The job.
        job: JobId,
        /// Its new name.
        name: String,
    },
    /// Move a pending job to other partitions (`Partition=`).
    SetPartitions {
        /// The job.
        job: JobId,
        /// The partitions, by name.
        partitions: Vec<String>,
    },
    /// Fix a job's priority (`Priority=N`, N > 0).
    SetPriority {
        /// The job.
        job: JobId,
        /// The priority.
        priority: u32,
    },
    /// Change a pending job's nice value (`Nice=`).
    SetNice {
        /// The job.
        job: JobId,
        /// The nice value.
        nice: i32,
    },
    /// Lay a step out in a running job and hold what it takes
    /// ([`Outcome::StepStarted`]).
    StartStep {
        /// The job.
        job: JobId,
        /// The step's id.
        step: u32,
        /// What it asks for.
        shape: StepShape,
    },
    /// A step ended ([`Outcome::StepEnded`]).
    EndStep {
        /// The job.
        job: JobId,
        /// The step.
        step: u32,
    },
    /// Take one task still pending in an array's record out into a job of
    /// its own ([`Outcome::Submitted`] names it).
    SplitArrayTask {
        /// The array (its own job id).
        array: JobId,
        /// The task id.
        task: u32,
    },
    /// Forget finished jobs that ended before this time (MinJobAge;
    /// [`Outcome::Purged`]).
    PurgeFinished {
        /// The cutoff.
        ended_before: Time,
    },
    /// Install a new configuration with every job in place
    /// ([`Outcome::Reconfigured`]; see [`crate::reconfig`]).
    Reconfigure(Box<Reconfiguration>),
}

/// What an input produced, beyond effects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A job was accepted (or split out of an array) under this id.
    Submitted(JobId),
    /// A step was laid out: its part on each node.
    StepStarted(Vec<StepPart>),
    /// A step ended; false if it held nothing (already ended, or started
    /// before a restart).
    StepEnded(bool),
    /// These finished jobs were forgotten.
    Purged(Vec<JobId>),
    /// The new configuration is in place; each node of the old one has
    /// its number in the new one (None: it is gone).
    Reconfigured(Vec<Option<NodeId>>),
    /// Done.
    Done,
}

/// An input the core refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CoreError {
    /// A submission Slurm would reject.
    #[error(transparent)]
    Submit(#[from] SubmitError),
    /// A step that cannot be laid out.
    #[error(transparent)]
    Step(#[from] StepError),
    /// No such job (ESLURM_INVALID_JOB_ID).
    #[error("Invalid job id specified")]
    UnknownJob(JobId),
    /// No such node.
    #[error("Invalid node name specified")]
    UnknownNode(NodeId),
    /// The job is not in a state for this.
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// A task the array does not have (ESLURM_INVALID_JOB_ID for `N_i`).
    #[error("Invalid job id specified")]
    UnknownTask {
        /// The array.
        array: JobId,
        /// The task.
        task: u32,
    },
    /// An array operation on a job that is not an array's own record.
    #[error("job {0} is not a job array")]
    NotAnArray(JobId),
    /// A bad `Dependency=` update.
    #[error(transparent)]
    Dependency(#[from] DependencyError),
    /// Requeue of a pending job (ESLURM_JOB_PENDING).
    #[error("Job is pending execution")]
    JobPending(JobId),
    /// Requeue of a job that may not be requeued: `--no-requeue`, or
    /// JobRequeue=0 without `--requeue` (ESLURM_DISABLED).
    #[error("Requested operation is presently disabled")]
    RequeueDisabled(JobId),
    /// A configuration that cannot hold the current jobs; the core is
    /// unchanged.
    #[error("{0}")]
    Reconfigure(String),
}

/// How long a running job has run by `now`.
fn run_time(job: &Job, now: Time) -> Time {
    job.start_time.map_or(0, |s| now.saturating_sub(s))
}

/// The scheduling core. See the crate documentation.
#[derive(Debug)]
pub struct Core {
    pub(crate) nodes: Vec<Node>,
    node_index: BTreeMap<String, NodeId>,
    pub(crate) partitions: Vec<Partition>,
    partition_index: BTreeMap<String, PartitionId>,
    pub(crate) qos: Vec<Qos>,
    qos_index: BTreeMap<String, QosId>,
    pub(crate) topology: Topology,
    pub(crate) placement: Box<dyn Placement>,
    gpu_types: Vec<String>,
    pub(crate) features: Vec<String>,
    /// Which partitions share a node, for preempt/partition_prio.
    part_share: Vec<Vec<bool>>,
    pub(crate) jobs: BTreeMap<JobId, Box<Job>>,
    /// The cluster with every node free, which the feasibility check of
    /// each submission places the job on: made at the first submission
    /// and kept, since the nodes' configuration is fixed for a core's life
    /// (reconfiguration makes a new core).
    empty_profile: std::sync::OnceLock<crate::backfill::Profile>,
    /// The verdicts of that check, by request.
    feasible: crate::feasible::Verdicts,
    pub(crate) pending: crate::pending::PendingJobs,
    pub(crate) running: BTreeSet<JobId>,
    /// Ended jobs by end time, so that MinJobAge's purge reads only those
    /// old enough instead of every job each second.
    pub(crate) ended: BTreeSet<(Time, JobId)>,
    pub(crate) next_job_id: u32,
    pub(crate) seq: u32,
    pub(crate) fairshare: FairShare,
    /// Users charged since [`Core::take_charged`] was last asked.
    pub(crate) charged: BTreeSet<Uid>,
    pub(crate) config: SchedConfig,
    /// Base block of every node (topology/block), for `--exclusive=topo`.
    pub(crate) node_block: Vec<Option<u32>>,
    /// Nodes of every base block.
    pub(crate) block_nodes: Vec<Vec<NodeId>>,
    /// Per partition, whether each node is in it.
    pub(crate) part_member: Vec<Vec<bool>>,
    /// Jobs holding base blocks exclusively, per block.
    pub(crate) block_owner: Vec<Option<JobId>>,
    /// Preemptors and the victims they wait for.
    pub(crate) preempting: BTreeMap<JobId, Vec<JobId>>,
    /// The mix of per-node demands of shared jobs, for fragmentation-aware
    /// node choice.
    pub(crate) workload: crate::placement::frag::Workload,
    /// Every job of each array, by array job id.
    pub(crate) arrays: BTreeMap<JobId, BTreeSet<JobId>>,
    /// What changed the state since [`Core::start_journal`], if asked.
    journal: Option<Vec<Entry>>,
    /// What the last scheduling pass did.
    pub(crate) last_pass: crate::sched::PassSummary,
    /// The last full pass's order, for head passes.
    pub(crate) head: crate::sched::HeadOrder,
}

/// One change of a core's state, as [`Core::replay`] takes it: the core is
/// deterministic, so a fresh core given the same entries ends in the same
/// state. This is the log a replicated controller would ship.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Entry {
    /// [`Core::handle`] of `input` at `now`.
    Input {
        /// The clock.
        now: Time,
        /// The input.
        input: Input,
    },
    /// [`Core::schedule`] at `now`.
    Schedule {
        /// The clock.
        now: Time,
    },
    /// [`Core::schedule_head`] at `now`.
    ScheduleHead {
        /// The clock.
        now: Time,
    },
}

fn part_member(partitions: &[Vec<NodeId>], node_count: usize) -> Vec<Vec<bool>> {
    partitions
        .iter()
        .map(|nodes| {
            let mut member = vec![false; node_count];
            for n in nodes {
                member[n.index()] = true;
            }
            member
        })
        .collect()
}

fn intern(table: &mut Vec<String>, name: &str) -> u16 {
    match table.iter().position(|t| t == name) {
        Some(i) => i as u16,
        None => {
            table.push(name.to_string());
            (table.len() - 1) as u16
        }
    }
}

impl Core {
    /// A core for `cluster` with `config`.
    pub fn new(cluster: Cluster, config: SchedConfig) -> Result<Core, ClusterError> {
        let mut gpu_types = Vec::new();
        let mut features = Vec::new();
        let mut node_index = BTreeMap::new();
        let mut nodes = Vec::with_capacity(cluster.nodes.len());
        for (i, cfg) in cluster.nodes.into_iter().enumerate() {
            if cfg.gpus > crate::resources::MAX_GPUS_PER_NODE {
                return Err(ClusterError::TooManyGpus {
                    node: cfg.name,
                    gpus: cfg.gpus,
                    max: crate::resources::MAX_GPUS_PER_NODE,
                });
            }
            if node_index
                .insert(cfg.name.clone(), NodeId(i as u32))
                .is_some()
            {
                return Err(ClusterError::Duplicate {
                    kind: "node",
                    name: cfg.name,
                });
            }
            let gpu_type = cfg.gpu_type.as_deref().map(|t| intern(&mut gpu_types, t));
            let mut feats: SmallVec<[u16; 4]> = cfg
                .features
                .iter()
                .map(|f| intern(&mut features, f))
                .collect();
            feats.sort_unstable();
            nodes.push(Node::new(cfg, gpu_type, feats));
        }
        let mut partition_index = BTreeMap::new();
        for (i, p) in cluster.partitions.iter().enumerate() {
            if partition_index
                .insert(p.name.clone(), PartitionId(i as u32))
                .is_some()
            {
                return Err(ClusterError::Duplicate {
                    kind: "partition",
                    name: p.name.clone(),
                });
            }
            if let Some(&bad) = p.nodes.iter().find(|n| n.index() >= nodes.len()) {
                return Err(ClusterError::UnknownNode {
                    partition: p.name.clone(),
                    node: bad,
                    count: nodes.len(),
                });
            }
        }
        let mut qos_index = BTreeMap::new();
        for (i, q) in cluster.qos.iter().enumerate() {
            if qos_index.insert(q.name.clone(), QosId(i as u32)).is_some() {
                return Err(ClusterError::Duplicate {
                    kind: "qos",
                    name: q.name.clone(),
                });
            }
        }
        let node_count = nodes.len();
        let mut node_parts: Vec<Vec<usize>> = vec![Vec::new(); node_count];
        for (i, p) in cluster.partitions.iter().enumerate() {
            for n in &p.nodes {
                node_parts[n.index()].push(i);
            }
        }
        let mut part_share = vec![vec![false; cluster.partitions.len()]; cluster.partitions.len()];
        for parts in &node_parts {
            for &a in parts {
                for &b in parts {
                    part_share[a][b] = true;
                }
            }
        }
        let (placement, node_block, block_count): (Box<dyn Placement>, Vec<Option<u32>>, usize) =
            match (&cluster.topology, config.placement) {
                (_, PlacementPolicy::BestFit) => (
                    Box::new(FlatPlacement::best_fit(node_count)),
                    vec![None; node_count],
                    0,
                ),
                (_, PlacementPolicy::LinearFirstFit) => (
                    Box::new(FlatPlacement::first_fit(node_count)),
                    vec![None; node_count],
                    0,
                ),
                (Topology::Flat, _) => (
                    Box::new(FlatPlacement::best_fit(node_count)),
                    vec![None; node_count],
                    0,
                ),
                (Topology::Block(b), _) => {
                    let map = (0..node_count as u32)
                        .map(|n| b.block_of(NodeId(n)).map(|b| b.get()))
                        .collect();
                    (
                        Box::new(BlockPlacement::new(b.clone())),
                        map,
                        b.blocks().len(),
                    )
                }
                (Topology::Tree(t), _) => (
                    Box::new(TreePlacement::new(t.clone())),
                    vec![None; node_count],
                    0,
                ),
            };
        let partitions_for_members: Vec<Vec<NodeId>> =
            cluster.partitions.iter().map(|p| p.nodes.clone()).collect();
        Ok(Core {
            nodes,
            node_index,
            partitions: cluster.partitions,
            partition_index,
            qos: cluster.qos,
            qos_index,
            topology: cluster.topology,
            placement,
            gpu_types,
            features,
            part_share,
            jobs: BTreeMap::new(),
            empty_profile: std::sync::OnceLock::new(),
            feasible: Default::default(),
            pending: Default::default(),
            running: BTreeSet::new(),
            ended: BTreeSet::new(),
            next_job_id: config.first_job_id.max(1),
            seq: 0,
            fairshare: FairShare::default(),
            charged: BTreeSet::new(),
            config,
            block_nodes: {
                let mut lists = vec![Vec::new(); block_count];
                for (n, b) in node_block.iter().enumerate() {
                    if let Some(b) = b {
                        lists[*b as usize].push(NodeId(n as u32));
                    }
                }
                lists
            },
            part_member: part_member(&partitions_for_members, node_count),
            node_block,
            block_owner: vec![None; block_count],
            preempting: BTreeMap::new(),
            workload: Default::default(),
            arrays: BTreeMap::new(),
            journal: None,
            last_pass: crate::sched::PassSummary::default(),
            head: crate::sched::HeadOrder::default(),
        })
    }

    /// Applies one input. Scheduling happens in [`Core::schedule`].
    pub fn handle(
        &mut self,
        input: Input,
        now: Time,
        effects: &mut impl Effects,
    ) -> Result<Outcome, CoreError> {
        if let Some(journal) = &mut self.journal {
            journal.push(Entry::Input {
                now,
                input: input.clone(),
            });
        }
        match input {
            Input::Submit(spec) => return Ok(Outcome::Submitted(self.submit(*spec, now)?)),
            Input::JobExited { job, status } => self.on_job_exited(job, status, now)?,
            Input::Cancel(job) => self.cancel_job(job, now, effects)?,
            Input::TimeOut(id) => {
                let kill_wait = self.config.kill_wait;
                let job = self.job_mut(id)?;
                if job.state() == JobState::Running && job.kill.is_none() {
                    job.mark_kill(KillCause::InactiveLimit)?;
                    effects.emit(Effect::KillJob {
                        job: id,
                        cause: KillCause::InactiveLimit,
                        grace: kill_wait,
                    });
                }
            }
            Input::Hold(job, hold) => self.hold_job(job, Some(hold))?,
            Input::Release(job) => self.hold_job(job, None)?,
            Input::Requeue { job, hold } => self.requeue_job(job, hold, now, effects)?,
            Input::LaunchFailed(job) => self.on_launch_failed(job, now)?,
            Input::NodeDown(node, reason) => self.on_node_down(node, reason, effects)?,
            Input::NodeUp(node) => {
                let n = self.node_mut(node)?;
                // A node back from DOWN sheds the reason it went down for;
                // a drain's reason stays with the drain.
                if n.health == Health::Down && !n.drain {
                    n.reason = None;
                }
                n.health = Health::Up;
            }
            Input::NodeUnknown(node) => self.node_mut(node)?.health = Health::Unknown,
            Input::Drain(node, reason) => {
                let n = self.node_mut(node)?;
                n.drain = true;
                n.reason = Some(reason);
            }
            Input::Resume(node) => {
                let n = self.node_mut(node)?;
                n.drain = false;
                n.health = Health::Up;
                n.reason = None;
            }
            Input::CancelArrayTasks { array, tasks } => {
                let missing = self.cancel_array_tasks(array, &tasks, now, effects)?;
                if let Some(task) = missing.first() {
                    return Err(CoreError::UnknownTask { array, task });
                }
            }
            Input::SetArrayThrottle { array, throttle } => {
                self.set_array_throttle(array, throttle)?
            }
            Input::SetDependency { job, dependency } => self.set_dependency(job, &dependency)?,
            Input::SetTimeLimit { job, limit } => self.job_mut(job)?.set_time_limit(limit)?,
            Input::Rename { job, name } => self.job_mut(job)?.spec.name = name.into(),
            Input::SetPartitions { job, partitions } => self.move_partitions(job, partitions)?,
            Input::SetPriority { job, priority } => self.fix_priority(job, priority)?,
            Input::SetNice { job, nice } => self.change_nice(job, nice)?,
            Input::StartStep { job, step, shape } => {
                return Ok(Outcome::StepStarted(self.lay_out_step(job, step, &shape)?));
            }
            Input::EndStep { job, step } => {
                return Ok(Outcome::StepEnded(self.release_step(job, step)))
            }
            Input::SplitArrayTask { array, task } => {
                return Ok(Outcome::Submitted(
                    self.split_array_task_now(array, task, effects)?,
                ));
            }
            Input::PurgeFinished { ended_before } => {
                return Ok(Outcome::Purged(self.purge(ended_before)));
            }
            Input::Reconfigure(r) => {
                let (mut next, renumber) = self.reconfigured(*r, now)?;
                next.journal = self.journal.take();
                *self = next;
                return Ok(Outcome::Reconfigured(renumber));
            }
        }
        Ok(Outcome::Done)
    }

    /// Keeps every [`Entry`] from now on, until [`Core::take_journal`].
    pub fn start_journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }

    /// Journals a scheduling pass.
    pub(crate) fn note_pass(&mut self, now: Time) {
        if let Some(journal) = &mut self.journal {
            journal.push(Entry::Schedule { now });
        }
    }

    pub(crate) fn note_head_pass(&mut self, now: Time) {
        if let Some(journal) = &mut self.journal {
            journal.push(Entry::ScheduleHead { now });
        }
    }

    /// The entries kept since [`Core::start_journal`]; keeping stops.
    pub fn take_journal(&mut self) -> Vec<Entry> {
        self.journal.take().unwrap_or_default()
    }

    /// Applies `entries` in order, as they were applied to the core that
    /// kept them; inputs refused then are refused again.
    pub fn replay(&mut self, entries: &[Entry], effects: &mut impl Effects) {
        for entry in entries {
            match entry {
                Entry::Input { now, input } => {
                    let _ = self.handle(input.clone(), *now, effects);
                }
                Entry::Schedule { now } => self.schedule(*now, effects),
                Entry::ScheduleHead { now } => {
                    self.schedule_head(*now, effects);
                }
            }
        }
    }

    pub(crate) fn job_mut(&mut self, job: JobId) -> Result<&mut Job, CoreError> {
        self.jobs
            .get_mut(&job)
            .map(|j| &mut **j)
            .ok_or(CoreError::UnknownJob(job))
    }

    fn node_mut(&mut self, node: NodeId) -> Result<&mut Node, CoreError> {
        self.nodes
            .get_mut(node.index())
            .ok_or(CoreError::UnknownNode(node))
    }

    /// Shorthand for [`Input::Submit`]: validates and queues a job; the id
    /// is final once this returns. With
    /// `spec.array`, the job is the array's meta record holding every task
    /// (see [`crate::array`]); with `spec.dependency`, the dependency is
    /// resolved against the jobs the core knows (an unknown job id is
    /// accepted, as Slurm 22.05 does, and met at the next pass).
    pub fn submit_job(&mut self, spec: JobSpec, now: Time) -> Result<JobId, SubmitError> {
        match self.handle(Input::Submit(Box::new(spec)), now, &mut Vec::new()) {
            Ok(Outcome::Submitted(id)) => Ok(id),
            Err(CoreError::Submit(e)) => Err(e),
            // A submission fails only with a SubmitError.
            _ => Err(SubmitError::InvalidTimeLimit),
        }
    }

    fn submit(&mut self, spec: JobSpec, now: Time) -> Result<JobId, SubmitError> {
        if spec.deadline.is_some_and(|d| d < now) {
            return Err(SubmitError::InvalidTimeLimit);
        }
        let array = match spec.array.as_deref() {
            Some(text) => parse_array(text, self.config.max_array_size)?,
            None => None,
        };
        // Every task counts against MaxJobCount, as in slurmctld.
        let tasks = array.as_ref().map_or(1, |a| a.tasks.len());
        if self.job_count() + tasks > self.config.max_job_count as usize {
            return Err(SubmitError::QueueFull);
        }
        let resolved = self.resolve(&spec)?;
        self.check_open(&resolved)?;
        self.check_feasible(&resolved)?;
        let id = JobId(self.next_job_id);
        let array = array.map(|a| JobArray::meta(id, a));
        let dependency = match spec.dependency.as_deref() {
            Some(text) => self.resolve_dependency(text, id, array.as_ref())?,
            None => None,
        };
        self.next_job_id += 1;
        self.seq += 1;
        if self.config.placement == PlacementPolicy::Topology {
            // Whole-node jobs count as needing every GPU of a node, so that
            // shared jobs keep whole nodes free when such jobs are common.
            let shape = &resolved.shape;
            let tasks = shape.min_tasks_per_node();
            self.workload.record(crate::resources::Resources {
                cpus: if shape.is_whole_node() {
                    1
                } else {
                    shape.cpus_on_node(tasks)
                },
                mem_mb: if shape.is_whole_node() {
                    0
                } else {
                    shape.mem_on_node(tasks, 0)
                },
                gpus: shape
                    .gpus_on_node(tasks)
                    .max(u32::from(shape.is_whole_node())),
            });
        }
        let mut job = Job::new(id, spec, resolved, now, self.seq);
        job.array = array.map(Box::new);
        job.dependency = dependency.map(Box::new);
        // Its priority from the start, as slurmctld sets it at submission
        // (a held job's stays 0, as there); passes keep it current.
        if job.hold.is_none() {
            job.priority = self.priority_at(&job, now);
        }
        self.pending.file(&job);
        self.jobs.insert(id, Box::new(job));
        self.index_array_member(id);
        Ok(id)
    }

    /// Resolves names and demand against the cluster.
    pub(crate) fn resolve(&self, spec: &JobSpec) -> Result<Resolved, SubmitError> {
        let partition = self.resolve_partition(spec)?;
        let part = &self.partitions[partition.index()];
        let qos = match &spec.qos {
            Some(name) => Some(*self.qos_index.get(&**name).ok_or(SubmitError::InvalidQos)?),
            None => None,
        };
        if let (Some(allowed), Some(account)) = (&part.allow_accounts, &spec.account) {
            if !allowed.iter().any(|a| **a == **account) {
                return Err(SubmitError::InvalidAccount);
            }
        }
        let gpu_type = match &spec.gpu_type {
            Some(t) => Some(
                self.gpu_types
                    .iter()
                    .position(|g| **g == **t)
                    .ok_or(SubmitError::InvalidGres)? as u16,
            ),
            None => None,
        };
        let defaults = ShapeDefaults {
            def_mem_per_cpu: self.config.def_mem_per_cpu,
            def_mem_per_gpu: self.config.def_mem_per_gpu,
            max_switch_wait: self.config.max_switch_wait,
            // Segments and topo-exclusivity need block placement, not just
            // a block topology on paper.
            block_topology: matches!(self.topology, Topology::Block(_))
                && self.config.placement == PlacementPolicy::Topology,
        };
        let mut shape = resolve_shape(spec, gpu_type, &defaults)?;
        if part.exclusive && shape.exclusive == Exclusive::No {
            shape.exclusive = Exclusive::Node;
        }
        let names = |list: &[String]| -> Result<Vec<NodeId>, SubmitError> {
            let mut ids = list
                .iter()
                .map(|n| {
                    self.node_index
                        .get(n)
                        .copied()
                        .ok_or_else(|| SubmitError::InvalidNodeName { name: n.clone() })
                })
                .collect::<Result<Vec<_>, _>>()?;
            ids.sort_unstable();
            ids.dedup();
            Ok(ids)
        };
        let required = names(&spec.required_nodes)?;
        let excluded = names(&spec.excluded_nodes)?;
        if required.iter().any(|n| excluded.binary_search(n).is_ok()) {
            return Err(SubmitError::Conflict {
                first: "--nodelist",
                second: "--exclude",
            });
        }
        if required.len() as u32 > shape.nodes_max {
            shape.nodes_min = required.len() as u32;
            shape.nodes_max = shape.nodes_min;
            shape.tasks = shape.tasks.max(shape.nodes_min);
        }
        let constraint = match &spec.constraint {
            Some(text) => {
                let c = parse_constraint(text)?;
                if c.features()
                    .iter()
                    .any(|f| !self.features.iter().any(|known| known == f))
                {
                    return Err(SubmitError::InvalidFeature);
                }
                Some(c)
            }
            None => None,
        };
        let time_limit = if spec.time_unlimited {
            part.max_time
        } else {
            spec.time_limit.or(part.default_time).or(part.max_time)
        };
        if spec
            .time_min
            .is_some_and(|min| time_limit.is_some_and(|t| min > t))
        {
            return Err(SubmitError::InvalidTimeLimit);
        }
        Ok(Resolved {
            shape,
            partition,
            qos,
            required,
            excluded,
            constraint,
            time_limit,
        })
    }

    fn resolve_partition(&self, spec: &JobSpec) -> Result<PartitionId, SubmitError> {
        if spec.partitions.is_empty() {
            return self
                .partitions
                .iter()
                .position(|p| p.is_default)
                .map(|i| PartitionId(i as u32))
                .ok_or(SubmitError::NoDefaultPartition);
        }
        // Every named partition must exist; the first is used.
        let mut first = None;
        for name in &spec.partitions {
            let id = *self
                .partition_index
                .get(name)
                .ok_or_else(|| SubmitError::InvalidPartition { name: name.clone() })?;
            first.get_or_insert(id);
        }
        first.ok_or(SubmitError::NoDefaultPartition)
    }

    /// Rejects a new job for a partition that takes none (DRAIN, INACTIVE).
    fn check_open(&self, r: &Resolved) -> Result<(), SubmitError> {
        match self.partitions[r.partition.index()].state {
            PartitionState::Up | PartitionState::Down => Ok(()),
            PartitionState::Drain | PartitionState::Inactive => {
                Err(SubmitError::PartitionNotAvailable)
            }
        }
    }

    /// Rejects a job that could never run: no node of its partition could
    /// hold its per-node demand even when empty, or its topology request
    /// cannot be met on the empty cluster. A request asked before gets the
    /// verdict it got then ([`crate::feasible`]).
    pub(crate) fn check_feasible(&self, r: &Resolved) -> Result<(), SubmitError> {
        if self.feasible.get(r, || self.could_ever_run(r)) {
            Ok(())
        } else {
            Err(SubmitError::NodeConfigUnavailable)
        }
    }

    /// The feasibility check itself, over every node of the partition.
    fn could_ever_run(&self, r: &Resolved) -> bool {
        let part = &self.partitions[r.partition.index()];
        let capable = part
            .nodes
            .iter()
            .filter(|&&n| self.could_ever_hold(n, r))
            .count() as u32;
        if capable == 0 {
            return false;
        }
        // Too few nodes: accepted, as Slurm does; it pends with
        // PartitionNodeLimit.
        capable < r.shape.nodes_min || crate::sched::place_on_empty(self, r).is_some()
    }

    /// The cluster with every node free and idle, at time 0.
    pub(crate) fn empty_profile(&self) -> &crate::backfill::Profile {
        self.empty_profile
            .get_or_init(|| crate::backfill::Profile::empty(&self.nodes))
    }

    fn could_ever_hold(&self, n: NodeId, r: &Resolved) -> bool {
        let node = &self.nodes[n.index()];
        let total = node.config.resources();
        crate::sched::node_matches(self, node, n, r)
            && crate::placement::tasks_fit(&r.shape, &total, &total, true)
                >= r.shape.min_tasks_per_node()
    }

    /// A job's processes ended: the job leaves RUNNING (or goes back to the
    /// queue if it was being requeued) and its resources are released.
    pub fn on_job_exited(
        &mut self,
        id: JobId,
        status: ExitStatus,
        now: Time,
    ) -> Result<(), CoreError> {
        let begin = now + self.config.requeue_delay;
        let job = self.jobs.get_mut(&id).ok_or(CoreError::UnknownJob(id))?;
        let ran = run_time(job, now);
        let alloc = match job.kill {
            Some(KillCause::Requeue(hold)) => job.requeue(now, begin, hold)?,
            Some(KillCause::PreemptRequeue) => job.requeue(now, begin, None)?,
            _ => job.finish(now, status)?,
        };
        self.release_job(id, alloc, ran, now);
        Ok(())
    }

    /// A running job's batch script never started: FAILED, with Slurm's
    /// `JobLaunchFailure` (a job being ended for another cause ends as that
    /// cause says).
    fn on_launch_failed(&mut self, id: JobId, now: Time) -> Result<(), CoreError> {
        let job = self.jobs.get_mut(&id).ok_or(CoreError::UnknownJob(id))?;
        if job.kill.is_some() {
            return self.on_job_exited(id, ExitStatus::default(), now);
        }
        let ran = run_time(job, now);
        let alloc = job.fail_launch(now)?;
        self.release_job(id, alloc, ran, now);
        Ok(())
    }

    /// Gives back what a job that left RUNNING held, charges its use to
    /// its user, and files it as pending again or ended.
    fn release_job(&mut self, id: JobId, alloc: Vec<NodeAlloc>, elapsed: Time, now: Time) {
        let half_life = self.half_life();
        let Some(job) = self.jobs.get(&id) else {
            return;
        };
        let requeued = job.state() == JobState::Pending;
        let used: u64 = alloc
            .iter()
            .map(|a| {
                u64::from(if a.res.gpus > 0 {
                    a.res.gpus
                } else {
                    a.res.cpus
                })
            })
            .sum();
        let user = job.spec.user;
        self.fairshare
            .charge(user, (used * elapsed) as f64, now, half_life);
        self.charged.insert(user);
        for a in &alloc {
            self.nodes[a.node.index()].release(id, a);
        }
        for owner in self.block_owner.iter_mut() {
            if *owner == Some(id) {
                *owner = None;
            }
        }
        self.running.remove(&id);
        if requeued {
            self.refile_pending(id);
        } else {
            self.note_ended(id);
            self.note_task_end(id);
        }
        self.preempting.retain(|_, victims| {
            victims.retain(|v| *v != id);
            !victims.is_empty()
        });
    }

    /// Cancels a job: a pending one at once ([`Effect::PendingJobEnded`]), a
    /// running one by a kill. The id of an array (`scancel N`) cancels every
    /// job of the array: the meta record with its pending tasks and each
    /// task split off; [`Core::cancel_array_tasks`] cancels single tasks.
    pub fn cancel_job(
        &mut self,
        id: JobId,
        now: Time,
        effects: &mut impl Effects,
    ) -> Result<(), CoreError> {
        if self.arrays.contains_key(&id) {
            return self.cancel_array(id, now, effects);
        }
        self.cancel_one(id, now, effects)
    }

    /// Cancels one job record, never the rest of its array.
    pub(crate) fn cancel_one(
        &mut self,
        id: JobId,
        now: Time,
        effects: &mut impl Effects,
    ) -> Result<(), CoreError> {
        let kill_wait = self.config.kill_wait;
        let job = self.jobs.get_mut(&id).ok_or(CoreError::UnknownJob(id))?;
        match job.state() {
            JobState::Pending => {
                job.cancel_pending(now)?;
                self.pending_ended(id, effects);
            }
            JobState::Running => {
                job.mark_kill(KillCause::Cancelled)?;
                effects.emit(Effect::KillJob {
                    job: id,
                    cause: KillCause::Cancelled,
                    grace: kill_wait,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// Holds (`Some`) or releases (`None`) a pending job. The id of an array
    /// holds or releases every pending job of it; an error only when none
    /// is pending.
    fn hold_job(&mut self, id: JobId, hold: Option<Hold>) -> Result<(), CoreError> {
        let members = self.array_members(id);
        let pending: Vec<JobId> = members
            .iter()
            .copied()
            .filter(|m| self.pending.contains(m))
            .collect();
        match (members.first(), pending.is_empty()) {
            (None, _) => {
                self.job_mut(id)?.set_hold(hold)?;
                self.refile_pending(id);
            }
            // Nothing of the array is pending: the record says why.
            (Some(&first), true) => self.job_mut(first)?.set_hold(hold)?,
            (Some(_), false) => {
                for m in pending {
                    self.job_mut(m)?.set_hold(hold)?;
                    self.refile_pending(m);
                }
            }
        }
        Ok(())
    }

    /// `scontrol requeue[hold]`: a running job is ended and goes back to
    /// the queue when its processes are gone; a finished one goes back at
    /// once. A pending job, or one that may not be requeued, is refused.
    fn requeue_job(
        &mut self,
        id: JobId,
        hold: Option<Hold>,
        now: Time,
        effects: &mut impl Effects,
    ) -> Result<(), CoreError> {
        let kill_wait = self.config.kill_wait;
        let default = self.config.job_requeue;
        let begin = now + self.config.requeue_delay;
        let job = self.jobs.get_mut(&id).ok_or(CoreError::UnknownJob(id))?;
        if !job.spec.requeue.unwrap_or(default) {
            return Err(CoreError::RequeueDisabled(id));
        }
        match job.state() {
            JobState::Pending => Err(CoreError::JobPending(id)),
            JobState::Running => {
                let cause = KillCause::Requeue(hold);
                if job.kill.is_none() {
                    job.mark_kill(cause)?;
                    effects.emit(Effect::KillJob {
                        job: id,
                        cause,
                        grace: kill_wait,
                    });
                }
                Ok(())
            }
            _ => {
                let ended = job.end_time.map(|end| (end, id));
                job.requeue(now, begin, hold)?;
                if let Some(key) = ended {
                    self.ended.remove(&key);
                }
                self.refile_pending(id);
                Ok(())
            }
        }
    }

    /// A node went down: jobs on it are ended as NODE_FAIL.
    pub fn on_node_down(
        &mut self,
        node: NodeId,
        reason: String,
        effects: &mut impl Effects,
    ) -> Result<(), CoreError> {
        let n = self.node_mut(node)?;
        n.health = Health::Down;
        n.reason = Some(reason);
        let victims: Vec<JobId> = n.jobs().to_vec();
        for id in victims {
            if let Some(job) = self.jobs.get_mut(&id) {
                if job.kill.is_none() && job.mark_kill(KillCause::NodeFail).is_ok() {
                    effects.emit(Effect::KillJob {
                        job: id,
                        cause: KillCause::NodeFail,
                        grace: 0,
                    });
                }
            }
        }
        Ok(())
    }

    /// Shorthand for [`Input::SetTimeLimit`]: a running job's deadline
    /// moves with its limit.
    pub fn update_time_limit(&mut self, id: JobId, limit: Option<u64>) -> Result<(), CoreError> {
        let input = Input::SetTimeLimit { job: id, limit };
        self.handle(input, 0, &mut Vec::new()).map(drop)
    }

    /// Shorthand for [`Input::Rename`].
    pub fn rename_job(&mut self, id: JobId, name: String) -> Result<(), CoreError> {
        let input = Input::Rename { job: id, name };
        self.handle(input, 0, &mut Vec::new()).map(drop)
    }

    /// Shorthand for [`Input::SetPartitions`].
    pub fn change_partitions(
        &mut self,
        id: JobId,
        partitions: Vec<String>,
    ) -> Result<(), CoreError> {
        let input = Input::SetPartitions {
            job: id,
            partitions,
        };
        self.handle(input, 0, &mut Vec::new()).map(drop)
    }

    /// Shorthand for [`Input::SetPriority`].
    pub fn set_priority(&mut self, id: JobId, priority: u32) -> Result<(), CoreError> {
        let input = Input::SetPriority { job: id, priority };
        self.handle(input, 0, &mut Vec::new()).map(drop)
    }

    /// Shorthand for [`Input::SetNice`].
    pub fn set_nice(&mut self, id: JobId, nice: i32) -> Result<(), CoreError> {
        let input = Input::SetNice { job: id, nice };
        self.handle(input, 0, &mut Vec::new()).map(drop)
    }

    /// Shorthand for [`Input::PurgeFinished`].
    pub fn purge_finished(&mut self, before: Time) -> Vec<JobId> {
        let input = Input::PurgeFinished {
            ended_before: before,
        };
        match self.handle(input, before, &mut Vec::new()) {
            Ok(Outcome::Purged(ids)) => ids,
            _ => Vec::new(),
        }
    }

    /// Moves a pending job to other partitions (`scontrol update
    /// Partition=`). The request is resolved again against them, so their
    /// limits and defaults apply; if it could not run there, or they take no
    /// new jobs, the job stays as it was.
    fn move_partitions(&mut self, id: JobId, partitions: Vec<String>) -> Result<(), CoreError> {
        let job = self.job(id).ok_or(CoreError::UnknownJob(id))?;
        if job.state() != JobState::Pending {
            return Err(CoreError::Transition(TransitionError::WrongState {
                job: id,
                state: job.state().as_str(),
                action: "change partition",
            }));
        }
        let mut spec = job.spec.clone();
        spec.partitions = partitions;
        let resolved = self.resolve(&spec)?;
        self.check_open(&resolved)?;
        self.check_feasible(&resolved)?;
        let job = self.job_mut(id)?;
        job.spec = spec;
        job.shape = resolved.shape;
        job.partition = resolved.partition;
        job.qos = resolved.qos;
        job.required = resolved.required.into();
        job.excluded = resolved.excluded.into();
        job.constraint = resolved.constraint.map(Box::new);
        job.time_limit = resolved.time_limit;
        job.forget_plan();
        Ok(())
    }

    /// Fixes a pending or running job's priority (`scontrol update
    /// Priority=N`, N > 0), as an operator's `--priority` does; the nice
    /// value no longer counts. Holding with priority 0 is `Input::Hold`.
    fn fix_priority(&mut self, id: JobId, priority: u32) -> Result<(), CoreError> {
        let job = self.job_mut(id)?;
        if job.state().is_finished() {
            return Err(CoreError::Transition(TransitionError::WrongState {
                job: id,
                state: job.state().as_str(),
                action: "change priority",
            }));
        }
        job.spec.priority = Some(priority.max(1));
        job.spec.nice = 0;
        if job.hold.is_none() {
            job.priority = priority.max(1);
        }
        self.refile_pending(id);
        Ok(())
    }

    /// Changes a pending job's nice value (`scontrol update Nice=`); its
    /// priority follows at the next pass.
    fn change_nice(&mut self, id: JobId, nice: i32) -> Result<(), CoreError> {
        let job = self.job_mut(id)?;
        if job.state() != JobState::Pending {
            return Err(CoreError::Transition(TransitionError::WrongState {
                job: id,
                state: job.state().as_str(),
                action: "change nice",
            }));
        }
        job.spec.nice = nice;
        self.refile_pending(id);
        Ok(())
    }

    /// Forgets finished jobs that ended before `before` (MinJobAge). Kept
    /// for now: jobs that unmet dependency parts of pending jobs name (they
    /// go once a pass has decided those parts), and an array's own record
    /// while other jobs of the array are kept (slurmctld purges it last).
    fn purge(&mut self, before: Time) -> Vec<JobId> {
        let mut old = self
            .ended
            .range(..(before, JobId(0)))
            .map(|&(_, id)| id)
            .peekable();
        if old.peek().is_none() {
            return Vec::new();
        }
        let named = self.dependency_targets();
        let old: BTreeSet<JobId> = old
            .filter_map(|id| self.jobs.get(&id))
            .filter(|j| {
                !named.contains(&j.id) && !j.array_job_id().is_some_and(|a| named.contains(&a))
            })
            .map(|j| j.id)
            .collect();
        let gone: Vec<JobId> = old
            .iter()
            .copied()
            .filter(|id| {
                self.arrays
                    .get(id)
                    .is_none_or(|members| members.iter().all(|m| old.contains(m)))
            })
            .collect();
        for id in &gone {
            let Some(job) = self.jobs.remove(id) else {
                continue;
            };
            if let Some(end) = job.end_time {
                self.ended.remove(&(end, *id));
            }
            if let Some(array) = job.array_job_id() {
                self.unindex_array_member(array, *id);
            }
        }
        gone
    }

    /// Files a pending job again after its hold or dependency changed (or
    /// it went back to the queue).
    pub(crate) fn refile_pending(&mut self, id: JobId) {
        if let Some(job) = self.jobs.get(&id) {
            if job.state() == JobState::Pending {
                self.pending.file(job);
            }
        }
    }

    /// Files a pending job that has just ended without running (cancelled,
    /// its dependency never met, its deadline missed) and says so.
    pub(crate) fn pending_ended(&mut self, id: JobId, effects: &mut impl Effects) {
        self.pending.remove(id);
        self.preempting.remove(&id);
        self.note_ended(id);
        effects.emit(Effect::PendingJobEnded { job: id });
    }

    /// Files a job that has just ended for MinJobAge's purge.
    pub(crate) fn note_ended(&mut self, id: JobId) {
        if let Some(end) = self
            .jobs
            .get(&id)
            .filter(|j| j.state().is_finished())
            .and_then(|j| j.end_time)
        {
            self.ended.insert((end, id));
        }
    }

    /// A job, if known.
    pub fn job(&self, id: JobId) -> Option<&Job> {
        self.jobs.get(&id).map(|j| &**j)
    }

    /// Every known job, by id.
    pub fn jobs(&self) -> impl Iterator<Item = &Job> {
        self.jobs.values().map(|j| &**j)
    }

    /// Every known job with its id, by id. The id comes from the index,
    /// not from the job: a walk that looks a job's id up elsewhere before
    /// it reads the job does not wait for the job's memory to do so.
    pub fn jobs_with_ids(&self) -> impl Iterator<Item = (JobId, &Job)> {
        self.jobs.iter().map(|(id, j)| (*id, &**j))
    }

    /// Pending jobs, by id.
    pub fn pending_jobs(&self) -> impl Iterator<Item = &Job> {
        self.pending.iter().filter_map(|id| self.job(*id))
    }

    /// How many jobs are pending.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// How many jobs are running.
    pub fn running_count(&self) -> usize {
        self.running.len()
    }

    /// The terms of pending job `id`'s priority, aged to the last pass's
    /// time, with its user's usage, QOS, partition and nice as they are
    /// now (None under priority/basic, or for a job not pending).
    pub fn priority_factors(&self, id: JobId) -> Option<crate::queue::PriorityFactors> {
        let PriorityType::Multifactor(w) = self.config.priority else {
            return None;
        };
        let job = self.jobs.get(&id).filter(|_| self.pending.contains(&id))?;
        let ctx = crate::queue::PriorityContext {
            now: self.last_pass.at,
            total_nodes: self.nodes.len() as u32,
            partitions: &self.partitions,
            qos: &self.qos,
            fairshare: &self.fairshare,
        };
        Some(crate::queue::PriorityFactors::of(&w, job, &ctx))
    }

    /// What the last [`Core::schedule`] did.
    pub fn last_pass(&self) -> crate::sched::PassSummary {
        self.last_pass
    }

    /// Running jobs, by id.
    pub fn running_jobs(&self) -> impl Iterator<Item = &Job> {
        self.running.iter().filter_map(|id| self.job(*id))
    }

    /// The nodes, indexed by [`NodeId`].
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// A node's id by name.
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.node_index.get(name).copied()
    }

    /// The partitions, indexed by [`PartitionId`].
    pub fn partitions(&self) -> &[Partition] {
        &self.partitions
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// PriorityDecayHalfLife, in seconds (0: usage never decays).
    fn half_life(&self) -> u64 {
        match self.config.priority {
            PriorityType::Multifactor(w) => w.decay_half_life,
            PriorityType::Basic => 0,
        }
    }

    /// Fair-share as `sshare` shows it, every user an equal share: each
    /// user with past usage, that usage (GPU-seconds, or CPU-seconds for
    /// jobs without GPUs) decayed to `now`, and the user's fair-share
    /// factor.
    pub fn shares(&self, now: Time) -> Vec<(Uid, f64, f64)> {
        self.fairshare.factors(now, self.half_life())
    }

    /// The usage of each user charged since this was last asked, as kept
    /// (the amount, and the time it was decayed to), for the store.
    pub fn take_charged(&mut self) -> Vec<(Uid, f64, Time)> {
        std::mem::take(&mut self.charged)
            .into_iter()
            .filter_map(|user| {
                let (usage, at) = self.fairshare.kept(user)?;
                Some((user, usage, at))
            })
            .collect()
    }

    /// Puts back a user's usage kept from before a restart.
    pub fn restore_usage(&mut self, user: Uid, usage: f64, at: Time) {
        self.fairshare.restore(user, usage, at);
    }

    /// The settings.
    pub fn config(&self) -> &SchedConfig {
        &self.config
    }

    /// The node selection in use (`block`, `tree`, `flat`, `linear`).
    pub fn placement_name(&self) -> &'static str {
        self.placement.name()
    }

    /// Whether partitions `a` and `b` have a node in common.
    pub(crate) fn partitions_share(&self, a: PartitionId, b: PartitionId) -> bool {
        self.part_share[a.index()][b.index()]
    }

    /// The next time after `now` something happens without an input: a time
    /// limit, a `--signal`, a `--begin`, the end of a `--switches` wait. A
    /// driver calls [`Core::schedule`] then.
    pub fn next_wakeup(&self, now: Time) -> Option<Time> {
        let running = self.running_jobs().filter_map(Core::running_wakeup);
        let pending = self.pending.unheld().iter().map(|id| &*self.jobs[id]);
        let pending = pending.filter_map(|j| {
            let begin = j.spec.begin.filter(|&b| b > j.submit_time);
            let switches = match j.shape.switches {
                Some((_, wait)) => Some(j.eligible_time + wait),
                None if self.config.block_wait > 0 && j.shape.nodes_min > 1 => {
                    Some(j.eligible_time + self.config.block_wait)
                }
                None => None,
            };
            let deadline = j.last_start_for_deadline().map(|t| t + 1);
            [begin, switches, deadline].into_iter().flatten().min()
        });
        running
            .chain(pending)
            .chain(self.dependency_wakeups())
            .filter(|&t| t > now)
            .min()
    }

    /// When the running `job` must be looked at without an input: its
    /// `--signal` time, then its time limit (None: neither, or it is
    /// being killed).
    pub fn running_wakeup(job: &Job) -> Option<Time> {
        if job.kill.is_some() {
            return None;
        }
        let deadline = job.deadline()?;
        match job.spec.signal {
            Some((_, before)) if !job.signaled => Some(deadline.saturating_sub(before)),
            _ => Some(deadline),
        }
    }
}
