//! The one place where wire types meet core types: a submitted `JobDesc`
//! becomes a core `JobSpec` (plus what the controller keeps beside it), and
//! core jobs, nodes and partitions become the `JobInfo`, `NodeInfo` and
//! `PartitionInfo` the commands print. No placement or policy here.

use spur_conf::hostlist;
use spur_core::node::Node;
use spur_core::spec::MemDemand;
use spur_core::{
    Core, DependencyError, Exclusive, Job, JobSpec, JobState, KillCause, MemRequest, NodeState,
    Partition, PartitionState, SegmentLayout, SubmitError, SwitchesRequest, Uid,
};
use spur_proto::{
    ErrorCode, ExclusiveMode, JobDesc, JobField, JobFields, JobInfo, JobStateName, KillNotice,
    MemSpec, NodeBaseState, NodeInfo, PartitionInfo, ProtoError,
};

use super::registry::NodeLive;
use super::store::JobMeta;

/// The core's request for a submitted job.
pub fn job_spec(desc: &JobDesc, uid: u32) -> JobSpec {
    JobSpec {
        name: desc.name.as_deref().unwrap_or("sbatch").into(),
        user: Uid(uid),
        account: desc.account.as_deref().map(Into::into),
        partitions: desc.partitions.clone(),
        qos: desc.qos.as_deref().map(Into::into),
        min_nodes: desc.min_nodes,
        max_nodes: desc.max_nodes,
        ntasks: desc.ntasks,
        ntasks_per_node: desc.ntasks_per_node,
        cpus_per_task: desc.cpus_per_task,
        mem: match desc.mem {
            MemSpec::Default => MemRequest::Default,
            MemSpec::PerNode(mb) => MemRequest::PerNode(mb),
            MemSpec::PerCpu(mb) => MemRequest::PerCpu(mb),
            MemSpec::PerGpu(mb) => MemRequest::PerGpu(mb),
        },
        gpus: desc.gpus,
        gpus_per_node: desc.gpus_per_node,
        gpus_per_task: desc.gpus_per_task,
        gpu_type: desc.gpu_type.as_deref().map(Into::into),
        cpus_per_gpu: desc.cpus_per_gpu,
        exclusive: match desc.exclusive {
            ExclusiveMode::No => Exclusive::No,
            ExclusiveMode::Node => Exclusive::Node,
            ExclusiveMode::User => Exclusive::User,
            ExclusiveMode::Topo => Exclusive::Topo,
        },
        segment: desc.segment,
        segment_layout: match desc.segment_layout {
            spur_proto::SegmentLayout::Default => SegmentLayout::Default,
            spur_proto::SegmentLayout::Spread => SegmentLayout::Spread,
            spur_proto::SegmentLayout::Consolidate => SegmentLayout::Consolidate,
        },
        switches: desc
            .switches
            .map(|(count, max_wait)| SwitchesRequest { count, max_wait }),
        required_nodes: desc.required_nodes.clone(),
        excluded_nodes: desc.excluded_nodes.clone(),
        constraint: desc.constraint.as_deref().map(Into::into),
        time_limit: desc.time_limit,
        time_unlimited: desc.time_unlimited,
        time_min: desc.time_min,
        nice: desc.nice,
        priority: desc.priority,
        begin: desc.begin,
        deadline: desc.deadline,
        hold: desc.hold,
        requeue: desc.requeue,
        signal: desc.signal.map(|s| (s.signal, s.before)),
        array: desc.array.as_deref().map(Into::into),
        dependency: desc.dependency.as_deref().map(Into::into),
        kill_on_invalid_dep: desc.kill_on_invalid_dep,
    }
}

/// Slurm's error for a rejected submission.
pub fn submit_error(e: &SubmitError) -> ProtoError {
    let code = match e {
        SubmitError::InvalidPartition { name } => {
            return ProtoError::with_detail(ErrorCode::InvalidPartitionName, name.clone())
        }
        SubmitError::NoDefaultPartition => ErrorCode::DefaultPartitionNotSet,
        SubmitError::PartitionNotAvailable => ErrorCode::PartitionNotAvailable,
        SubmitError::NodeConfigUnavailable => ErrorCode::NodeConfigUnavailable,
        SubmitError::InvalidNodeCount => ErrorCode::InvalidNodeCount,
        SubmitError::InvalidNodeName { name } => {
            return ProtoError::with_detail(ErrorCode::InvalidNodeName, name.clone())
        }
        SubmitError::InvalidFeature => ErrorCode::InvalidFeature,
        SubmitError::InvalidGres => ErrorCode::InvalidGres,
        SubmitError::InvalidQos => ErrorCode::InvalidQos,
        SubmitError::InvalidAccount => ErrorCode::InvalidAccount,
        SubmitError::InvalidTimeLimit => ErrorCode::InvalidTimeLimit,
        SubmitError::InvalidTaskCount => ErrorCode::BadTaskCount,
        SubmitError::SegmentNotDivisor | SubmitError::TopologyUnavailable => {
            ErrorCode::TopoConfigUnavailable
        }
        SubmitError::Conflict { first, second } => {
            return ProtoError::with_detail(
                ErrorCode::NodeConfigUnavailable,
                format!("{first} and {second} are mutually exclusive"),
            )
        }
        SubmitError::QueueFull => ErrorCode::TryAgain,
        SubmitError::InvalidArray(_) => ErrorCode::InvalidArray,
        SubmitError::Dependency(e) => dependency_error(*e),
        _ => ErrorCode::NodeConfigUnavailable,
    };
    ProtoError::new(code)
}

/// Slurm's code for a refused dependency.
pub fn dependency_error(e: DependencyError) -> ErrorCode {
    match e {
        DependencyError::Circular => ErrorCode::CircularDependency,
        DependencyError::NotSupported => ErrorCode::NotSupported,
        _ => ErrorCode::Dependency,
    }
}

/// The state Slurm would name for `job`.
pub fn state_name(job: &Job) -> JobStateName {
    match job.state() {
        JobState::Pending if job.hold().is_some_and(|h| h.is_special_exit()) => {
            JobStateName::SpecialExit
        }
        // A job whose end was asked for shows COMPLETING until its node
        // reports the processes gone.
        JobState::Running if job.kill_cause().is_some() => JobStateName::Completing,
        state => state_word(state),
    }
}

/// The line slurmstepd writes into the output of a batch job ended for
/// `cause`.
pub fn kill_notice(cause: KillCause) -> KillNotice {
    match cause {
        KillCause::TimeLimit => KillNotice::TimeLimit,
        KillCause::PreemptCancel | KillCause::PreemptRequeue => KillNotice::Preemption,
        KillCause::Requeue(_) => KillNotice::Requeue,
        KillCause::NodeFail => KillNotice::NodeFailure,
        KillCause::Cancelled | KillCause::InactiveLimit => KillNotice::Cancelled,
    }
}

/// The name of a core state, as accounting records it.
pub fn state_word(state: JobState) -> JobStateName {
    match state {
        JobState::Pending => JobStateName::Pending,
        JobState::Running => JobStateName::Running,
        JobState::Completed => JobStateName::Completed,
        JobState::Failed => JobStateName::Failed,
        JobState::Cancelled => JobStateName::Cancelled,
        JobState::Timeout => JobStateName::Timeout,
        JobState::NodeFail => JobStateName::NodeFail,
        JobState::Preempted => JobStateName::Preempted,
        JobState::Deadline => JobStateName::Deadline,
        JobState::OutOfMemory => JobStateName::OutOfMemory,
    }
}

fn names(core: &Core, ids: impl Iterator<Item = spur_core::NodeId>) -> Vec<String> {
    ids.map(|n| core.nodes()[n.index()].config.name.clone())
        .collect()
}

/// What squeue and scontrol show of a job, every field filled.
pub fn job_info(core: &Core, job: &Job, meta: &JobMeta, pattern_node: &str) -> JobInfo {
    let mut info = JobInfo::default();
    fill_job_info(&mut info, core, job, meta, pattern_node, JobFields::ALL);
    info
}

/// [`job_info`] written over `info`, reusing its strings' buffers: a
/// listing fills one value per job and encodes it, allocating next to
/// nothing. Of the fields outside `fields`, those that cost something to
/// compute are left as they are: the listing does not send them.
pub fn fill_job_info(
    info: &mut JobInfo,
    core: &Core,
    job: &Job,
    meta: &JobMeta,
    pattern_node: &str,
    fields: JobFields,
) {
    let wants = |f: JobField| fields.has(f);
    let shape = job.shape();
    let alloc = job.allocation();
    let running = !alloc.is_empty();
    let num_nodes = if running {
        alloc.len() as u32
    } else {
        shape.nodes_min
    };
    let num_cpus = if running {
        alloc.iter().map(|a| a.res.cpus).sum()
    } else {
        shape.tasks * shape.cpus_per_task
    };
    let mem_total: u64 = if running {
        alloc.iter().map(|a| a.res.mem_mb).sum()
    } else {
        shape.mem_on_node(shape.tasks.div_ceil(num_nodes.max(1)), 0) * u64::from(num_nodes)
    };
    let gpus_total: u32 = if running {
        alloc.iter().map(|a| a.res.gpus).sum()
    } else {
        shape
            .gpus_total
            .unwrap_or(shape.gpus_on_node(shape.min_tasks_per_node()) * num_nodes)
    };
    let array_job_id = job.array_job_id();
    let expand = |p: &str| {
        let values = spur_proto::PatternValues {
            job_id: job.id.0,
            array_job_id: array_job_id.map(|a| a.0),
            array_task_id: job.array_task_id(),
            node: pattern_node,
            user: &meta.user_name,
            job_name: &job.spec.name,
            ..Default::default()
        };
        absolute(&meta.work_dir, &spur_proto::pattern::expand(p, &values))
    };
    if wants(JobField::StdOut) || wants(JobField::StdErr) || wants(JobField::StdIn) {
        info.stdout = expand(
            meta.stdout
                .as_deref()
                .unwrap_or(spur_proto::pattern::default_output(array_job_id.is_some())),
        );
        info.stderr = meta.stderr.as_deref().map_or(info.stdout.clone(), expand);
        info.stdin = meta
            .stdin
            .as_deref()
            .map_or_else(|| "/dev/null".into(), expand);
    }
    let node_name = |a: &spur_core::NodeAlloc| core.nodes()[a.node.index()].config.name.as_str();
    let partition = &core.partitions()[job.partition().index()];
    let begin = job.spec.begin.filter(|&b| b > job.submit_time());
    // Strings are copied only when asked for; numbers always (they cost
    // less than the test).
    let text = |to: &mut String, field, from: &str| {
        if wants(field) {
            set(to, from);
        }
    };
    info.job_id = job.id.0;
    text(&mut info.name, JobField::Name, &job.spec.name);
    info.user_id = job.spec.user.0;
    text(&mut info.user_name, JobField::UserName, &meta.user_name);
    info.group_id = meta.gid;
    text(&mut info.group_name, JobField::GroupName, &meta.group_name);
    info.state = state_name(job);
    text(&mut info.reason, JobField::Reason, job.reason().as_str());
    info.priority = job.priority();
    info.nice = job.spec.nice;
    if wants(JobField::Account) {
        set_opt(&mut info.account, job.spec.account.as_deref());
    }
    let qos = job.spec.qos.as_deref().unwrap_or("normal");
    text(&mut info.qos, JobField::Qos, qos);
    text(&mut info.partition, JobField::Partition, &partition.name);
    info.time_limit = job.time_limit();
    info.time_min = job.spec.time_min;
    info.submit_time = job.submit_time();
    // slurmctld's begin_time: the submission, or a later --begin (a
    // requeued job's too); none (Unknown) while the job waits held, as
    // sacct's record says (history.rs).
    let held = job.state() == JobState::Pending && job.hold().is_some();
    info.eligible_time = if held {
        0
    } else {
        begin.unwrap_or(job.submit_time())
    };
    // A pending job's start: backfill's plan, else the begin time it
    // waits for (as slurmctld shows a job held by BeginTime).
    info.start_time = job
        .start_time()
        .or(job.expected_start())
        .or(begin.filter(|_| job.state() == JobState::Pending));
    info.end_time = job
        .end_time()
        .or_else(|| Some(job.start_time()? + job.time_limit()?));
    if wants(JobField::Nodes) {
        if running {
            info.nodes = hostlist::compress(&alloc.iter().map(node_name).collect::<Vec<_>>());
        } else if job.state().is_finished() {
            set(&mut info.nodes, meta.nodes.as_deref().unwrap_or_default());
        } else {
            info.nodes.clear();
        }
    }
    if wants(JobField::SchedNodes) {
        info.sched_nodes = (!job.sched_nodes().is_empty()).then(|| {
            hostlist::compress(
                &job.sched_nodes()
                    .iter()
                    .map(|n| core.nodes()[n.index()].config.name.as_str())
                    .collect::<Vec<_>>(),
            )
        });
    }
    info.num_nodes = num_nodes;
    info.num_cpus = num_cpus;
    info.num_tasks = shape.tasks;
    info.cpus_per_task = shape.cpus_per_task;
    info.ntasks_per_node = job.spec.ntasks_per_node.unwrap_or(0);
    info.cpus_per_node.clear();
    info.cpus_per_node.extend(alloc.iter().map(|a| a.res.cpus));
    match alloc.first() {
        _ if !wants(JobField::BatchHost) => {}
        Some(first) => set_opt(&mut info.batch_host, Some(node_name(first))),
        None => {
            info.batch_host = meta
                .nodes
                .as_deref()
                .and_then(|first| hostlist::expand(first).ok()?.into_iter().next())
        }
    }
    if wants(JobField::ReqNodes) {
        info.req_nodes = (!job.spec.required_nodes.is_empty())
            .then(|| hostlist::compress(&job.spec.required_nodes));
    }
    if wants(JobField::ExcNodes) {
        info.exc_nodes = (!job.spec.excluded_nodes.is_empty())
            .then(|| hostlist::compress(&job.spec.excluded_nodes));
    }
    set_opt(&mut info.features, job.spec.constraint.as_deref());
    info.mem = match shape.mem {
        MemDemand::PerNode(mb) => MemSpec::PerNode(mb),
        MemDemand::WholeNode => MemSpec::PerNode(0),
        MemDemand::PerCpu(mb) => MemSpec::PerCpu(mb),
        MemDemand::PerGpu(mb) => MemSpec::PerGpu(mb),
    };
    info.tres = wants(JobField::Tres).then_some(spur_proto::Tres {
        cpus: num_cpus,
        mem_mb: mem_total,
        nodes: num_nodes,
        billing: num_cpus,
        gpus: gpus_total,
    });
    if wants(JobField::TresPerNode) {
        info.tres_per_node =
            (shape.gpus_per_node > 0).then(|| format!("gres:gpu:{}", shape.gpus_per_node));
    }
    if wants(JobField::TresPerJob) {
        info.tres_per_job = shape.gpus_total.map(|g| format!("gres:gpu:{g}"));
    }
    if wants(JobField::TresPerTask) {
        info.tres_per_task =
            (shape.gpus_per_task > 0).then(|| format!("gres:gpu:{}", shape.gpus_per_task));
    }
    if wants(JobField::GpusPerNodeIdx) {
        info.gpus_per_node_idx.clear();
        info.gpus_per_node_idx
            .extend(alloc.iter().map(|a| a.gpus.indices().collect()));
    }
    if wants(JobField::WorkDir) {
        set(&mut info.work_dir, &meta.work_dir);
    }
    if wants(JobField::Command) {
        set_opt(&mut info.command, meta.command.as_deref());
    }
    if wants(JobField::Comment) {
        set_opt(&mut info.comment, meta.comment.as_deref());
    }
    info.exit_code = job.exit_status().map_or(0, |e| e.code);
    info.exit_signal = job.exit_status().map_or(0, |e| e.signal);
    info.restarts = job.restarts();
    info.requeue = job.spec.requeue.unwrap_or(core.config().job_requeue);
    info.batch = !meta.interactive;
    info.deadline = job.spec.deadline;
    info.exclusive = match shape.exclusive {
        Exclusive::No => ExclusiveMode::No,
        Exclusive::Node => ExclusiveMode::Node,
        Exclusive::User => ExclusiveMode::User,
        Exclusive::Topo => ExclusiveMode::Topo,
    };
    info.contiguous = false;
    if wants(JobField::SubmitHost) {
        set(&mut info.submit_host, &meta.submit_host);
    }
    if wants(JobField::Dependency) {
        info.dependency = job.dependency_str();
    }
    info.array_job_id = array_job_id.map(|a| a.0);
    info.array_task_id = job.array_task_id();
    if wants(JobField::ArrayTaskStr) {
        info.array_task_str = array_job_id
            .and_then(|_| core.array_task_str(job.id))
            .filter(|t| !t.is_empty());
    }
    info.array_task_throttle = array_job_id
        .and_then(|a| core.array_throttle(a))
        .unwrap_or(0);
    info.last_sched_eval = None;
    if wants(JobField::Unacted) {
        info.unacted.clone_from(&meta.unacted);
    }
}

/// `to = from`, in `to`'s buffer.
fn set(to: &mut String, from: &str) {
    to.clear();
    to.push_str(from);
}

/// `to = from`, in `to`'s buffer when it has one.
fn set_opt(to: &mut Option<String>, from: Option<&str>) {
    match (to.as_mut(), from) {
        (Some(to), Some(from)) => set(to, from),
        (_, from) => *to = from.map(str::to_string),
    }
}

/// `dir/name` unless `name` is absolute.
pub fn absolute(dir: &str, name: &str) -> String {
    if name.starts_with('/') {
        name.to_string()
    } else {
        format!("{}/{name}", dir.trim_end_matches('/'))
    }
}

/// Whether `node` runs a job asked to end (not to go back to the queue)
/// whose processes are not yet gone: Slurm's COMPLETING node flag.
pub fn completing(core: &Core, node: &Node) -> bool {
    node.jobs().iter().any(|j| {
        core.job(*j)
            .is_some_and(|j| j.kill_cause().is_some_and(|c| !c.is_requeue()))
    })
}

/// What sinfo and scontrol show of a node.
pub fn node_info(
    core: &Core,
    node: &Node,
    conf: &spur_conf::NodeConf,
    live: &NodeLive,
) -> NodeInfo {
    let state = node.state();
    let cfg = &node.config;
    let used = node.used();
    NodeInfo {
        name: cfg.name.clone(),
        addr: conf.addr.clone(),
        hostname: conf.hostname.clone(),
        port: conf.port,
        state: match state {
            NodeState::Idle | NodeState::Drained => NodeBaseState::Idle,
            NodeState::Mixed => NodeBaseState::Mixed,
            NodeState::Allocated => NodeBaseState::Allocated,
            NodeState::Draining => {
                if used.cpus >= cfg.cpus {
                    NodeBaseState::Allocated
                } else {
                    NodeBaseState::Mixed
                }
            }
            NodeState::Down => NodeBaseState::Down,
            NodeState::Unknown => NodeBaseState::Unknown,
        },
        drain: node.is_drain(),
        completing: completing(core, node),
        not_responding: live.not_responding,
        cpus: cfg.cpus,
        cpus_alloc: used.cpus,
        boards: conf.boards,
        sockets: conf.sockets,
        cores_per_socket: conf.cores_per_socket,
        threads_per_core: conf.threads_per_core,
        real_memory: cfg.mem_mb,
        alloc_mem: used.mem_mb,
        free_mem: live.free_mem,
        cpu_load: live.cpu_load,
        tmp_disk: conf.tmp_disk_mb,
        gres: gres_string(cfg),
        gpus_alloc: spur_core::GpuSet::first(cfg.gpus)
            .without(node.free_gpus())
            .indices()
            .collect(),
        gpus: cfg.gpus,
        features: cfg.features.clone(),
        partitions: core
            .partitions()
            .iter()
            .filter(|p| {
                p.nodes
                    .iter()
                    .any(|n| core.nodes()[n.index()].config.name == cfg.name)
            })
            .map(|p| p.name.clone())
            .collect(),
        reason: node.reason().map(str::to_string),
        reason_set: live.reason_set,
        weight: cfg.weight,
        arch: live.arch.clone(),
        os: live.os.clone(),
        version: live.version.clone(),
        boot_time: live.boot_time,
        agent_start_time: live.registered_at,
        last_busy: live.last_busy,
        topology_addr: None,
    }
}

fn gres_string(cfg: &spur_core::NodeConfig) -> String {
    match (&cfg.gpu_type, cfg.gpus) {
        (_, 0) => "(null)".into(),
        (Some(t), n) => format!("gpu:{t}:{n}"),
        (None, n) => format!("gpu:{n}"),
    }
}

/// What sinfo and scontrol show of a partition.
pub fn partition_info(
    core: &Core,
    p: &Partition,
    conf: Option<&spur_conf::PartitionConf>,
) -> PartitionInfo {
    let node_names = names(core, p.nodes.iter().copied());
    PartitionInfo {
        name: p.name.clone(),
        nodes: hostlist::compress(&node_names),
        is_default: p.is_default,
        max_time: p.max_time,
        default_time: p.default_time,
        max_nodes: p.max_nodes,
        min_nodes: p.min_nodes,
        state: match p.state {
            PartitionState::Up => "UP",
            PartitionState::Down => "DOWN",
            PartitionState::Drain => "DRAIN",
            PartitionState::Inactive => "INACTIVE",
        }
        .into(),
        priority_tier: p.priority_tier,
        priority_job_factor: p.priority_job_factor,
        oversubscribe: if p.exclusive { "EXCLUSIVE" } else { "NO" }.into(),
        allow_accounts: p.allow_accounts.clone(),
        allow_groups: conf.and_then(|c| c.allow_groups.clone()),
        total_cpus: p
            .nodes
            .iter()
            .map(|n| core.nodes()[n.index()].config.cpus)
            .sum(),
        total_nodes: p.nodes.len() as u32,
        preempt_mode: "OFF".into(),
        // The partition's own DefMemPerCPU, as slurmctld keeps it: one set
        // for the whole cluster is not the partition's (Slurm shows
        // DefMemPerNode=UNLIMITED, and slurmrestd null, there).
        def_mem_per_cpu: conf
            .and_then(|c| c.other.get("defmempercpu"))
            .and_then(|v| spur_conf::parse_memory_mb(v).ok()),
        max_mem_per_node: None,
    }
}

/// SLURM_TOPOLOGY_ADDR and SLURM_TOPOLOGY_ADDR_PATTERN of a node: the
/// switches from the top down to it (topology/tree, e.g.
/// `spine.nvl01.gb001` / `switch.switch.node`), its block
/// (topology/block: `nvl01.gb001` / `block.node`), or just its name.
pub fn topology_addr(core: &Core, node: spur_core::NodeId) -> (String, String) {
    let name = core.nodes()[node.index()].config.name.clone();
    match core.topology() {
        spur_core::Topology::Tree(tree) => {
            let mut path = vec![name];
            let mut at = tree.leaf_of(node);
            while let Some(s) = at {
                let switch = &tree.switches()[s.index()];
                path.push(switch.name.clone());
                at = switch.parent;
            }
            path.reverse();
            let pattern: Vec<&str> = (0..path.len())
                .map(|i| {
                    if i + 1 == path.len() {
                        "node"
                    } else {
                        "switch"
                    }
                })
                .collect();
            (path.join("."), pattern.join("."))
        }
        spur_core::Topology::Block(blocks) => match blocks.block_of(node) {
            Some(b) => (
                format!("{}.{name}", blocks.blocks()[b.index()].name),
                "block.node".into(),
            ),
            None => (name, "node".into()),
        },
        spur_core::Topology::Flat => (name, "node".into()),
    }
}

#[cfg(test)]
mod tests {
    use spur_core::{
        Cluster, Core, NodeConfig, NodeId, Partition, SchedConfig, SwitchSpec, Topology,
        TreeTopology,
    };

    use super::topology_addr;
    use super::{job_info, job_spec, partition_info};
    use crate::controller::store::JobMeta;

    #[test]
    fn the_wire_and_the_core_write_an_out_of_memory_end_alike() {
        // Agents and srun send SIG_OOM as the signal; the core knows the
        // end by its own constant. They must stay one number.
        let oom = spur_core::ExitStatus::OUT_OF_MEMORY;
        assert_eq!((oom.code, oom.signal), (0, spur_proto::SIG_OOM));
    }

    #[test]
    fn a_tree_address_runs_from_the_top_switch_to_the_node() {
        let specs = vec![
            SwitchSpec {
                name: "nvl01".into(),
                switches: vec![],
                nodes: vec![NodeId(0), NodeId(1)],
            },
            SwitchSpec {
                name: "spine".into(),
                switches: vec!["nvl01".into()],
                nodes: vec![],
            },
        ];
        let cluster = Cluster {
            nodes: vec![
                NodeConfig::new("gb001", 4, 1000, 4),
                NodeConfig::new("gb002", 4, 1000, 4),
            ],
            partitions: vec![Partition::new("batch", vec![NodeId(0), NodeId(1)])],
            qos: vec![],
            topology: Topology::Tree(TreeTopology::new(2, specs).expect("valid tree")),
        };
        let core = Core::new(cluster, SchedConfig::default()).expect("valid cluster");
        // ../shared/slurm-reference/81-env-batch-2node-4gpu.txt
        assert_eq!(
            topology_addr(&core, NodeId(0)),
            (
                "spine.nvl01.gb001".to_string(),
                "switch.switch.node".to_string()
            )
        );
    }

    /// A core of one node, gb001, in the default partition `batch`.
    fn one_node_core() -> Core {
        let cluster = Cluster {
            nodes: vec![NodeConfig::new("gb001", 4, 16000, 0)],
            partitions: vec![Partition {
                is_default: true,
                ..Partition::new("batch", vec![NodeId(0)])
            }],
            qos: vec![],
            topology: Topology::Flat,
        };
        Core::new(cluster, SchedConfig::default()).expect("valid cluster")
    }

    #[test]
    fn arrays_and_dependencies_show_as_slurm_shows_them() {
        let mut core = one_node_core();
        let desc = |array: Option<&str>, dependency: Option<String>| spur_proto::JobDesc {
            name: Some("arr".into()),
            array: array.map(str::to_string),
            dependency,
            ..Default::default()
        };
        let spec = |d: &spur_proto::JobDesc| job_spec(d, 2001);
        let arr = core
            .submit_job(spec(&desc(Some("0-9%2"), None)), 100)
            .expect("an array");
        let after = Some(format!("afterok:{arr}"));
        let dep = core
            .submit_job(spec(&desc(None, after)), 100)
            .expect("a dependent job");
        let plain = core
            .submit_job(spec(&desc(None, None)), 100)
            .expect("a job");
        core.schedule(101, &mut Vec::new());
        let meta = JobMeta {
            work_dir: "/w".into(),
            ..JobMeta::default()
        };
        let info = |id| job_info(&core, core.job(id).expect("known"), &meta, "gb001");
        // 16-squeue-array-compact.txt, 32-scontrol-show-job-array.txt.
        let record = info(arr);
        assert_eq!(
            (
                record.array_job_id,
                record.array_task_id,
                record.array_task_str.as_deref(),
                record.array_task_throttle,
                record.reason.as_str()
            ),
            (Some(arr.0), None, Some("2-9%2"), 2, "JobArrayTaskLimit")
        );
        let tasks: Vec<_> = core
            .array_members(arr)
            .into_iter()
            .filter(|&j| j != arr)
            .map(info)
            .collect();
        let view: Vec<_> = tasks
            .iter()
            .map(|t| {
                (
                    t.array_job_id,
                    t.array_task_id,
                    t.array_task_str.clone(),
                    t.array_task_throttle,
                )
            })
            .collect();
        assert_eq!(
            view,
            [
                (Some(arr.0), Some(0), None, 2),
                (Some(arr.0), Some(1), None, 2)
            ]
        );
        assert_eq!(tasks[0].stdout, format!("/w/slurm-{arr}_0.out"));
        // 50-dependency-pending.txt: an array's id names all of its tasks.
        let d = info(dep);
        assert_eq!(
            (d.reason.as_str(), d.dependency),
            ("Dependency", Some(format!("afterok:{arr}_*(unfulfilled)")))
        );
        let p = info(plain);
        assert_eq!(
            (
                p.array_job_id,
                p.array_task_id,
                p.array_task_str,
                p.array_task_throttle,
                p.dependency
            ),
            (None, None, None, 0, None)
        );
        assert_eq!(p.stdout, format!("/w/slurm-{plain}.out"));
    }

    #[test]
    fn a_job_held_from_its_submission_is_not_yet_eligible() {
        // bench/swap: Slurm 22.05 shows `sbatch -H`'s job with
        // EligibleTime=Unknown, and squeue's %E... N/A.
        let mut core = one_node_core();
        let desc = |hold| spur_proto::JobDesc {
            hold,
            ..Default::default()
        };
        let held = core
            .submit_job(job_spec(&desc(true), 2001), 100)
            .expect("a held job");
        let free = core
            .submit_job(job_spec(&desc(false), 2001), 100)
            .expect("a job");
        let meta = JobMeta::default();
        let info = |id| job_info(&core, core.job(id).expect("known"), &meta, "gb001");
        assert_eq!(info(held).eligible_time, 0);
        assert_eq!(info(free).eligible_time, 100);
        core.handle(spur_core::Input::Release(held), 150, &mut Vec::new())
            .expect("released");
        let released = job_info(&core, core.job(held).expect("known"), &meta, "gb001");
        assert_eq!(released.eligible_time, 100, "eligible since its submission");
    }

    #[test]
    fn a_partition_shows_its_own_default_memory_not_the_clusters() {
        // Slurm 22.05 with a cluster-wide DefMemPerCPU=4096 shows
        // `DefMemPerNode=UNLIMITED` in `scontrol show partition`
        // (slurm-reference/40-scontrol-show-partition.txt).
        let text = "DefMemPerCPU=4096\nNodeName=gb001 CPUs=4 RealMemory=16000\n\
                    PartitionName=batch Nodes=gb001 Default=YES\n\
                    PartitionName=small Nodes=gb001 DefMemPerCPU=1G\n";
        use spur_conf::ConfFile;
        let conf = spur_conf::SlurmConf::parse(text, std::path::Path::new("slurm.conf"))
            .expect("parses")
            .value;
        let cluster = Cluster {
            nodes: vec![NodeConfig::new("gb001", 4, 16000, 0)],
            partitions: vec![
                Partition::new("batch", vec![NodeId(0)]),
                Partition::new("small", vec![NodeId(0)]),
            ],
            qos: vec![],
            topology: Topology::Flat,
        };
        let sched = SchedConfig {
            def_mem_per_cpu: Some(4096),
            ..SchedConfig::default()
        };
        let core = Core::new(cluster, sched).expect("valid cluster");
        let info = |i: usize| {
            let p = &core.partitions()[i];
            partition_info(&core, p, conf.partition(&p.name))
        };
        assert_eq!(info(0).def_mem_per_cpu, None);
        assert_eq!(info(1).def_mem_per_cpu, Some(1024));
    }
}
