//! What a job asks for: the canonical request every front end produces
//! (`JobSpec`), its validation against the cluster (Slurm's error for each
//! invalid combination), and the resolved per-node demand placement works on
//! (`Shape`).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::constraint::Constraint;
use crate::id::Uid;
use crate::resources::Time;

/// How much memory a job asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MemRequest {
    /// Nothing given: the partition's or cluster's default applies.
    #[default]
    Default,
    /// `--mem=N` (MiB per node); `--mem=0` means all of each node's memory.
    PerNode(u64),
    /// `--mem-per-cpu=N` (MiB).
    PerCpu(u64),
    /// `--mem-per-gpu=N` (MiB).
    PerGpu(u64),
}

/// `--exclusive` and its forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Exclusive {
    /// Nodes may be shared with other jobs (OverSubscribe permitting).
    #[default]
    No,
    /// `--exclusive`: whole nodes, shared with no other job.
    Node,
    /// `--exclusive=user`: nodes shared only with the same user's jobs.
    User,
    /// `--exclusive=topo`: whole base blocks; no other job runs in a block
    /// this job uses.
    Topo,
}

/// How segments of a `--segment` job are laid over base blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum SegmentLayout {
    /// Best fit: each segment where it wastes least, fewest blocks first.
    #[default]
    Default,
    /// `--spread-segments`: every segment in a different base block.
    Spread,
    /// `--consolidate-segments`: as few base blocks as possible, filling each.
    Consolidate,
}

/// `--switches=count[@max-time]` (topology/tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchesRequest {
    /// The most leaf switches the job wants.
    pub count: u32,
    /// How long it is willing to wait for them, in seconds (None: the
    /// cluster's max_switch_wait).
    pub max_wait: Option<u64>,
}

/// The canonical job request, as every front end produces it. Names (of
/// partitions, nodes, QOS) are resolved by [`crate::Core`] on submit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// `-J`.
    pub name: Box<str>,
    /// The submitting user.
    pub user: Uid,
    /// `-A`.
    pub account: Option<Box<str>>,
    /// `-p`: one or more partitions, comma-separated in Slurm; the first that
    /// can run the job is used. Empty: the default partition.
    pub partitions: Vec<String>,
    /// `-q`.
    pub qos: Option<Box<str>>,
    /// `-N min[-max]`: the minimum node count.
    pub min_nodes: Option<u32>,
    /// `-N min-max`: the maximum node count.
    pub max_nodes: Option<u32>,
    /// `-n`.
    pub ntasks: Option<u32>,
    /// `--ntasks-per-node`.
    pub ntasks_per_node: Option<u32>,
    /// `-c` (default 1).
    pub cpus_per_task: Option<u32>,
    /// `--mem`, `--mem-per-cpu`, `--mem-per-gpu`.
    pub mem: MemRequest,
    /// `--gpus`: GPUs for the whole job.
    pub gpus: Option<u32>,
    /// `--gpus-per-node` or `--gres=gpu[:type]:N`.
    pub gpus_per_node: Option<u32>,
    /// `--gpus-per-task`.
    pub gpus_per_task: Option<u32>,
    /// The GPU type of `--gres=gpu:type:N` / `--gpus=type:N`.
    pub gpu_type: Option<Box<str>>,
    /// `--cpus-per-gpu`.
    pub cpus_per_gpu: Option<u32>,
    /// `--exclusive[=user|topo]`.
    pub exclusive: Exclusive,
    /// `--segment=N`.
    pub segment: Option<u32>,
    /// `--spread-segments` / `--consolidate-segments`.
    pub segment_layout: SegmentLayout,
    /// `--switches`.
    pub switches: Option<SwitchesRequest>,
    /// `-w`: nodes the job must have (names, hostlists already expanded).
    pub required_nodes: Vec<String>,
    /// `-x`: nodes the job must not have.
    pub excluded_nodes: Vec<String>,
    /// `-C`: a node feature expression.
    pub constraint: Option<Box<str>>,
    /// `-t` in seconds; None: the partition's DefaultTime, else MaxTime.
    pub time_limit: Option<u64>,
    /// `-t UNLIMITED` (or `-t 0`): as long as the partition's MaxTime
    /// allows, never its DefaultTime.
    #[serde(default)]
    pub time_unlimited: bool,
    /// `--time-min` in seconds: backfill may shorten the limit down to this.
    pub time_min: Option<u64>,
    /// `--nice`.
    pub nice: i32,
    /// `--priority` (operators only): a fixed priority.
    pub priority: Option<u32>,
    /// `--begin`.
    pub begin: Option<Time>,
    /// `--deadline`: a pending job that can no longer end by then is ended
    /// as DEADLINE.
    #[serde(default)]
    pub deadline: Option<Time>,
    /// `--hold`.
    pub hold: bool,
    /// `--requeue` (true) / `--no-requeue` (false); None: the cluster default.
    pub requeue: Option<bool>,
    /// `--signal=[R:]sig[@time]`: the signal to send, and how many seconds
    /// before the time limit.
    pub signal: Option<(i32, u64)>,
    /// `--array`: the task ids expression as given (`0-15:4%2`), parsed by
    /// [`crate::array::parse_array`] at submit. Every task of the array
    /// carries it.
    #[serde(default)]
    pub array: Option<Box<str>>,
    /// `--dependency`, as given (`afterok:5:6,singleton`), parsed by
    /// [`crate::dependency::parse_dependency`] at submit; replaced by
    /// [`crate::Core::set_dependency`].
    #[serde(default)]
    pub dependency: Option<Box<str>>,
    /// `--kill-on-invalid-dep=yes|no`; None: the cluster's
    /// kill_invalid_depend decides.
    #[serde(default)]
    pub kill_on_invalid_dep: Option<bool>,
}

/// A request Slurm would reject at submission, with Slurm's text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SubmitError {
    /// ESLURM_INVALID_PARTITION_NAME.
    #[error("Invalid partition name specified")]
    InvalidPartition {
        /// The partition asked for.
        name: String,
    },
    /// ESLURM_PARTITION_NOT_AVAIL: the partition is DRAIN or INACTIVE and
    /// takes no new jobs.
    #[error("Required partition not available (inactive or drain)")]
    PartitionNotAvailable,
    /// No partition given and none is marked Default=YES.
    #[error("No partition specified or system default partition")]
    NoDefaultPartition,
    /// ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE: no node of the partition
    /// could ever hold the job (too many GPUs, CPUs or memory per node, too
    /// few blocks for a segment layout, ...).
    #[error("Requested node configuration is not available")]
    NodeConfigUnavailable,
    /// ESLURM_INVALID_NODE_COUNT.
    #[error("Node count specification invalid")]
    InvalidNodeCount,
    /// ESLURM_INVALID_NODE_NAME.
    #[error("Invalid node name specified")]
    InvalidNodeName {
        /// The name that is not a node.
        name: String,
    },
    /// ESLURM_INVALID_FEATURE.
    #[error("Invalid feature specification")]
    InvalidFeature,
    /// ESLURM_INVALID_GRES.
    #[error("Invalid generic resource (gres) specification")]
    InvalidGres,
    /// ESLURM_INVALID_QOS.
    #[error("Invalid qos specification")]
    InvalidQos,
    /// ESLURM_INVALID_ACCOUNT.
    #[error("Invalid account or account/partition combination specified")]
    InvalidAccount,
    /// ESLURM_INVALID_TIME_LIMIT.
    #[error("Requested time limit is invalid (missing or exceeds some limit)")]
    InvalidTimeLimit,
    /// ESLURM_BAD_TASK_COUNT.
    #[error("Task count specification invalid")]
    InvalidTaskCount,
    /// `--segment` whose size does not divide the node count (Slurm 24.11+
    /// reports it as ESLURM_REQUESTED_TOPO_CONFIG_UNAVAILABLE).
    #[error("Requested topology configuration is not available")]
    SegmentNotDivisor,
    /// `--segment` or `--exclusive=topo` without topology/block. Slurm
    /// silently ignores these there; spur refuses rather than ignore a
    /// placement request.
    #[error("Requested topology configuration is not available")]
    TopologyUnavailable,
    /// Two options that exclude each other.
    #[error("{first} and {second} are mutually exclusive")]
    Conflict {
        /// The first option.
        first: &'static str,
        /// The second option.
        second: &'static str,
    },
    /// MaxJobCount reached.
    #[error("Slurm temporarily unable to accept job, sleeping and retrying")]
    QueueFull,
    /// ESLURM_INVALID_ARRAY: a bad `--array`, or a task id not below
    /// MaxArraySize.
    #[error(transparent)]
    InvalidArray(#[from] crate::array::InvalidArray),
    /// A bad `--dependency` (ESLURM_DEPENDENCY, ESLURM_CIRCULAR_DEPENDENCY).
    #[error(transparent)]
    Dependency(#[from] crate::dependency::DependencyError),
}

/// The per-node demand of a job, resolved once at submit from its spec and
/// the cluster's defaults. Placement works on this alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// Fewest nodes.
    pub nodes_min: u32,
    /// Most nodes (the job gets as many as it can without waiting).
    pub nodes_max: u32,
    /// Tasks in all.
    pub tasks: u32,
    /// Exact tasks on every node (`--ntasks-per-node`), if given.
    pub tasks_per_node: Option<u32>,
    /// CPUs per task (`-c`, raised by `--cpus-per-gpu`).
    pub cpus_per_task: u32,
    /// Memory per node (MiB) independent of tasks, or per CPU, or per GPU.
    pub mem: MemDemand,
    /// GPUs per node independent of tasks (`--gpus-per-node`, or `--gpus`
    /// spread evenly).
    pub gpus_per_node: u32,
    /// GPUs per task (`--gpus-per-task`).
    pub gpus_per_task: u32,
    /// GPUs for the whole job when given as a total (`--gpus`); placement
    /// gives every node ceil(total / nodes) and the last ones fewer.
    pub gpus_total: Option<u32>,
    /// Interned GPU type required, if any.
    pub gpu_type: Option<u16>,
    /// Node sharing.
    pub exclusive: Exclusive,
    /// Segment size in nodes (`--segment`, when it applies).
    pub segment: Option<u32>,
    /// Segment layout.
    pub segment_layout: SegmentLayout,
    /// Most leaf switches (`--switches`) and how long to wait for them.
    pub switches: Option<(u32, u64)>,
}

/// Memory demand in MiB, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MemDemand {
    /// A fixed amount per node (0: none).
    PerNode(u64),
    /// All of each node's memory (`--mem=0`).
    WholeNode,
    /// Per allocated CPU.
    PerCpu(u64),
    /// Per allocated GPU.
    PerGpu(u64),
}

impl Shape {
    /// Whether the job needs whole nodes to itself.
    pub fn is_whole_node(&self) -> bool {
        matches!(self.exclusive, Exclusive::Node | Exclusive::Topo)
    }

    /// The GPUs the job will hold on a node running `tasks` of its tasks.
    pub fn gpus_on_node(&self, tasks: u32) -> u32 {
        self.gpus_per_node + self.gpus_per_task * tasks
    }

    /// The CPUs the job will hold on a node running `tasks` of its tasks.
    pub fn cpus_on_node(&self, tasks: u32) -> u32 {
        tasks * self.cpus_per_task
    }

    /// The memory the job will hold on a node (MiB) running `tasks` tasks,
    /// given the node's real memory.
    pub fn mem_on_node(&self, tasks: u32, node_mem: u64) -> u64 {
        match self.mem {
            MemDemand::PerNode(mb) => mb,
            MemDemand::WholeNode => node_mem,
            MemDemand::PerCpu(mb) => mb * u64::from(self.cpus_on_node(tasks)),
            MemDemand::PerGpu(mb) => mb * u64::from(self.gpus_on_node(tasks)),
        }
    }

    /// The tasks every node must at least run.
    pub fn min_tasks_per_node(&self) -> u32 {
        self.tasks_per_node.unwrap_or(1)
    }
}

/// Cluster-wide defaults a spec is resolved against.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShapeDefaults {
    /// DefMemPerCPU (MiB).
    pub def_mem_per_cpu: Option<u64>,
    /// DefMemPerGPU (MiB).
    pub def_mem_per_gpu: Option<u64>,
    /// max_switch_wait (seconds).
    pub max_switch_wait: u64,
    /// Whether topology/block is configured (segments and topo-exclusive
    /// need it).
    pub block_topology: bool,
}

/// Resolves a spec's demand. `gpu_type` is the interned GPU type.
pub fn resolve_shape(
    spec: &JobSpec,
    gpu_type: Option<u16>,
    defaults: &ShapeDefaults,
) -> Result<Shape, SubmitError> {
    let nonzero = |v: Option<u32>, err: SubmitError| match v {
        Some(0) => Err(err),
        other => Ok(other),
    };
    let min_nodes = nonzero(spec.min_nodes, SubmitError::InvalidNodeCount)?;
    let ntasks = nonzero(spec.ntasks, SubmitError::InvalidTaskCount)?;
    let tasks_per_node = nonzero(spec.ntasks_per_node, SubmitError::InvalidTaskCount)?;
    let cpus_per_task = nonzero(spec.cpus_per_task, SubmitError::InvalidTaskCount)?.unwrap_or(1);
    if spec
        .max_nodes
        .is_some_and(|max| max < min_nodes.unwrap_or(1))
    {
        return Err(SubmitError::InvalidNodeCount);
    }
    let gpu_options = [spec.gpus, spec.gpus_per_node, spec.gpus_per_task];
    if gpu_options.iter().filter(|g| g.is_some()).count() > 1 {
        let names = ["--gpus", "--gpus-per-node", "--gpus-per-task"];
        let given: Vec<_> = names
            .iter()
            .zip(gpu_options)
            .filter(|(_, g)| g.is_some())
            .collect();
        return Err(SubmitError::Conflict {
            first: given[0].0,
            second: given[1].0,
        });
    }
    if spec.segment_layout != SegmentLayout::Default && spec.segment.is_none() {
        return Err(SubmitError::Conflict {
            first: if spec.segment_layout == SegmentLayout::Spread {
                "--spread-segments"
            } else {
                "--consolidate-segments"
            },
            second: "a job without --segment",
        });
    }
    if (spec.segment.is_some() || spec.exclusive == Exclusive::Topo) && !defaults.block_topology {
        return Err(SubmitError::TopologyUnavailable);
    }

    // Node count: -N, else enough nodes for the tasks per node, else 1.
    let mut nodes_min = min_nodes.unwrap_or(1);
    if let (None, Some(n), Some(tpn)) = (min_nodes, ntasks, tasks_per_node) {
        nodes_min = n.div_ceil(tpn);
    }
    let nodes_max = spec.max_nodes.unwrap_or(nodes_min).max(nodes_min);
    let tasks = match (ntasks, tasks_per_node) {
        (Some(n), _) => n,
        (None, Some(tpn)) => tpn * nodes_min,
        (None, None) => nodes_min,
    };
    if tasks < nodes_min {
        // Slurm lowers the node count to the task count only when -N was
        // not given; with both, fewer tasks than nodes is invalid.
        return Err(SubmitError::InvalidTaskCount);
    }
    if let Some(tpn) = tasks_per_node {
        if tasks > tpn * nodes_max {
            return Err(SubmitError::InvalidTaskCount);
        }
    }

    let (gpus_per_node, gpus_per_task, gpus_total) =
        match (spec.gpus, spec.gpus_per_node, spec.gpus_per_task) {
            (Some(total), _, _) => (total.div_ceil(nodes_min), 0, Some(total)),
            (_, Some(per_node), _) => (per_node, 0, None),
            (_, _, Some(per_task)) => (0, per_task, None),
            _ => (0, 0, None),
        };
    if gpus_total.is_some_and(|t| t < nodes_min) && nodes_min != nodes_max {
        return Err(SubmitError::NodeConfigUnavailable);
    }
    let has_gpus = gpus_per_node + gpus_per_task > 0;
    if spec.gpu_type.is_some() && !has_gpus {
        return Err(SubmitError::InvalidGres);
    }
    let mut cpus_per_task = cpus_per_task;
    if let Some(cpg) = spec.cpus_per_gpu {
        if !has_gpus {
            return Err(SubmitError::Conflict {
                first: "--cpus-per-gpu",
                second: "a job without GPUs",
            });
        }
        // --cpus-per-gpu raises the CPUs of each task to cover its GPUs;
        // for per-node GPUs the extra CPUs are spread over the node's tasks.
        let per_task_gpus = if gpus_per_task > 0 {
            gpus_per_task
        } else {
            let tasks_on_node = tasks.div_ceil(nodes_min).max(1);
            gpus_per_node.div_ceil(tasks_on_node)
        };
        cpus_per_task = cpus_per_task.max(cpg * per_task_gpus);
    }

    let mem = match spec.mem {
        MemRequest::PerNode(0) => MemDemand::WholeNode,
        MemRequest::PerNode(mb) => MemDemand::PerNode(mb),
        MemRequest::PerCpu(mb) => MemDemand::PerCpu(mb),
        MemRequest::PerGpu(mb) if has_gpus => MemDemand::PerGpu(mb),
        MemRequest::PerGpu(_) => {
            return Err(SubmitError::Conflict {
                first: "--mem-per-gpu",
                second: "a job without GPUs",
            })
        }
        MemRequest::Default => match (defaults.def_mem_per_gpu, defaults.def_mem_per_cpu) {
            (Some(mb), _) if has_gpus => MemDemand::PerGpu(mb),
            (_, Some(mb)) => MemDemand::PerCpu(mb),
            _ => MemDemand::PerNode(0),
        },
    };

    // A segment larger than the job is ignored, as in Slurm.
    let segment = match spec.segment {
        Some(0) => return Err(SubmitError::InvalidNodeCount),
        Some(s) if s >= nodes_max => None,
        Some(s) => {
            if nodes_min != nodes_max {
                return Err(SubmitError::Conflict {
                    first: "--segment",
                    second: "a node count range",
                });
            }
            if nodes_min % s != 0 {
                return Err(SubmitError::SegmentNotDivisor);
            }
            Some(s)
        }
        None => None,
    };
    let segment_layout = if segment.is_some() {
        spec.segment_layout
    } else {
        SegmentLayout::Default
    };
    let switches = spec.switches.map(|s| {
        (
            s.count.max(1),
            s.max_wait
                .unwrap_or(defaults.max_switch_wait)
                .min(defaults.max_switch_wait),
        )
    });

    Ok(Shape {
        nodes_min,
        nodes_max,
        tasks,
        tasks_per_node,
        cpus_per_task,
        mem,
        gpus_per_node,
        gpus_per_task,
        gpus_total,
        gpu_type,
        exclusive: spec.exclusive,
        segment,
        segment_layout,
        switches,
    })
}

/// Parses a feature expression (`-C`) for validation; see [`Constraint`].
pub fn parse_constraint(text: &str) -> Result<Constraint, SubmitError> {
    Constraint::parse(text).map_err(|_| SubmitError::InvalidFeature)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> ShapeDefaults {
        ShapeDefaults {
            def_mem_per_cpu: Some(4096),
            block_topology: true,
            max_switch_wait: 300,
            ..Default::default()
        }
    }

    fn shape(spec: JobSpec) -> Result<Shape, SubmitError> {
        resolve_shape(&spec, None, &defaults())
    }

    #[test]
    fn nodes_and_tasks_default_to_one_per_node() {
        let s = shape(JobSpec {
            min_nodes: Some(4),
            gpus_per_node: Some(4),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (s.nodes_min, s.nodes_max, s.tasks, s.gpus_per_node),
            (4, 4, 4, 4)
        );
        assert_eq!(s.mem, MemDemand::PerCpu(4096));
    }

    #[test]
    fn ntasks_with_tasks_per_node_sets_the_node_count() {
        let s = shape(JobSpec {
            ntasks: Some(16),
            ntasks_per_node: Some(4),
            ..Default::default()
        })
        .unwrap();
        assert_eq!((s.nodes_min, s.tasks), (4, 16));
    }

    #[test]
    fn segment_must_divide_the_node_count_and_larger_ones_are_ignored() {
        let spec = |nodes, seg| JobSpec {
            min_nodes: Some(nodes),
            segment: Some(seg),
            ..Default::default()
        };
        assert_eq!(shape(spec(32, 16)).unwrap().segment, Some(16));
        assert_eq!(
            shape(spec(30, 16)).unwrap_err(),
            SubmitError::SegmentNotDivisor
        );
        assert_eq!(shape(spec(8, 16)).unwrap().segment, None);
    }

    #[test]
    fn segment_needs_block_topology() {
        let spec = JobSpec {
            min_nodes: Some(32),
            segment: Some(16),
            ..Default::default()
        };
        let flat = ShapeDefaults {
            block_topology: false,
            ..defaults()
        };
        assert_eq!(
            resolve_shape(&spec, None, &flat).unwrap_err(),
            SubmitError::TopologyUnavailable
        );
    }

    #[test]
    fn gpu_options_are_mutually_exclusive() {
        let spec = JobSpec {
            gpus: Some(4),
            gpus_per_node: Some(4),
            ..Default::default()
        };
        assert_eq!(
            shape(spec).unwrap_err(),
            SubmitError::Conflict {
                first: "--gpus",
                second: "--gpus-per-node"
            }
        );
    }

    #[test]
    fn cpus_per_gpu_raises_cpus_per_task() {
        let spec = JobSpec {
            gpus_per_task: Some(2),
            cpus_per_gpu: Some(8),
            ntasks: Some(4),
            ..Default::default()
        };
        assert_eq!(shape(spec).unwrap().cpus_per_task, 16);
    }

    #[test]
    fn mem_zero_means_whole_node() {
        let s = shape(JobSpec {
            mem: MemRequest::PerNode(0),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(s.mem_on_node(1, 1000), 1000);
    }
}
