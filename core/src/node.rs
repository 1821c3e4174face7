//! A node: its configured resources and features, its health (up, down,
//! drain) and what is allocated on it. Owns the arithmetic of allocating and
//! releasing a job's share of one node.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::id::JobId;
use crate::resources::{GpuSet, Resources};

/// A node as configured (slurm.conf `NodeName=` line, or an agent's
/// registration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeConfig {
    /// NodeName.
    pub name: String,
    /// CPUs.
    pub cpus: u32,
    /// RealMemory in MiB.
    pub mem_mb: u64,
    /// GPUs (`Gres=gpu[:type]:N`).
    pub gpus: u32,
    /// The GPU type, if the Gres names one.
    pub gpu_type: Option<String>,
    /// Features (`Features=`).
    pub features: Vec<String>,
    /// Weight: lower weights are allocated first.
    pub weight: u32,
}

impl NodeConfig {
    /// A node with `cpus`, `mem_mb` and `gpus`, weight 1 and no features.
    pub fn new(name: impl Into<String>, cpus: u32, mem_mb: u64, gpus: u32) -> NodeConfig {
        NodeConfig {
            name: name.into(),
            cpus,
            mem_mb,
            gpus,
            gpu_type: None,
            features: Vec::new(),
            weight: 1,
        }
    }

    /// The node's total resources.
    pub fn resources(&self) -> Resources {
        Resources {
            cpus: self.cpus,
            mem_mb: self.mem_mb,
            gpus: self.gpus,
        }
    }
}

/// Whether a node can take work, as the controller last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Health {
    /// Responding.
    #[default]
    Up,
    /// Not responding, or set DOWN by an operator.
    Down,
    /// Not heard from since the controller started: takes no new work, and
    /// jobs restored onto it keep running until it registers or times out.
    Unknown,
}

/// Slurm's base node states, as `sinfo` prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeState {
    /// Up, nothing allocated.
    Idle,
    /// Up, partly allocated.
    Mixed,
    /// Up, fully allocated (or held whole by an exclusive job).
    Allocated,
    /// Down.
    Down,
    /// Draining: no new work, jobs still running.
    Draining,
    /// Drained: no new work, nothing running.
    Drained,
    /// Not registered since the controller started, nothing allocated.
    Unknown,
}

impl NodeState {
    /// The name Slurm prints (`scontrol show node`'s State=).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeState::Idle => "IDLE",
            NodeState::Mixed => "MIXED",
            NodeState::Allocated => "ALLOCATED",
            NodeState::Down => "DOWN",
            NodeState::Draining => "DRAINING",
            NodeState::Drained => "DRAINED",
            NodeState::Unknown => "UNKNOWN",
        }
    }
}

/// A node and what runs on it.
#[derive(Debug, Clone)]
pub struct Node {
    /// Configuration.
    pub config: NodeConfig,
    pub(crate) gpu_type: Option<u16>,
    pub(crate) features: SmallVec<[u16; 4]>,
    pub(crate) health: Health,
    pub(crate) drain: bool,
    pub(crate) reason: Option<String>,
    pub(crate) used: Resources,
    pub(crate) gpus_used: GpuSet,
    pub(crate) jobs: SmallVec<[JobId; 4]>,
    /// Set while an `--exclusive` job (or one that asked for whole nodes)
    /// holds the node.
    pub(crate) whole: bool,
}

/// One node's share of a job's allocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeAlloc {
    /// The node.
    pub node: crate::id::NodeId,
    /// Tasks placed there.
    pub tasks: u32,
    /// CPUs, memory and GPU count held.
    pub res: Resources,
    /// Which GPUs, by index.
    pub gpus: GpuSet,
}

impl Node {
    pub(crate) fn new(
        config: NodeConfig,
        gpu_type: Option<u16>,
        features: SmallVec<[u16; 4]>,
    ) -> Node {
        Node {
            config,
            gpu_type,
            features,
            health: Health::Up,
            drain: false,
            reason: None,
            used: Resources::ZERO,
            gpus_used: GpuSet::EMPTY,
            jobs: SmallVec::new(),
            whole: false,
        }
    }

    /// Resources not allocated.
    pub fn free(&self) -> Resources {
        self.config.resources().saturating_sub(&self.used)
    }

    /// GPU indices not allocated.
    pub fn free_gpus(&self) -> GpuSet {
        GpuSet::first(self.config.gpus).without(self.gpus_used)
    }

    /// Resources allocated.
    pub fn used(&self) -> Resources {
        self.used
    }

    /// Jobs holding part of the node.
    pub fn jobs(&self) -> &[JobId] {
        &self.jobs
    }

    /// Whether new work may be placed here.
    pub fn is_schedulable(&self) -> bool {
        self.health == Health::Up && !self.drain
    }

    /// Whether nothing is allocated.
    pub fn is_idle(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Whether the node is down.
    pub fn is_down(&self) -> bool {
        self.health == Health::Down
    }

    /// Whether the node has not registered since the controller started.
    pub fn is_unknown(&self) -> bool {
        self.health == Health::Unknown
    }

    /// Whether the node is draining or drained.
    pub fn is_drain(&self) -> bool {
        self.drain
    }

    /// The reason set with the last DOWN or DRAIN.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Slurm's state name for the node.
    pub fn state(&self) -> NodeState {
        match (self.health, self.drain, self.jobs.is_empty()) {
            (Health::Down, _, _) => NodeState::Down,
            (Health::Up, true, true) => NodeState::Drained,
            (Health::Up | Health::Unknown, true, false) => NodeState::Draining,
            (Health::Up, false, true) => NodeState::Idle,
            (Health::Unknown, _, true) => NodeState::Unknown,
            (Health::Up | Health::Unknown, false, false) => {
                if self.whole || self.free().cpus == 0 {
                    NodeState::Allocated
                } else {
                    NodeState::Mixed
                }
            }
        }
    }

    pub(crate) fn allocate(&mut self, job: JobId, alloc: &NodeAlloc, whole: bool) {
        debug_assert!(!self.gpus_used.intersects(alloc.gpus), "GPU given twice");
        self.used = self.used.add(&alloc.res);
        self.gpus_used = self.gpus_used.union(alloc.gpus);
        self.jobs.push(job);
        self.whole |= whole;
    }

    pub(crate) fn release(&mut self, job: JobId, alloc: &NodeAlloc) {
        self.used = self.used.saturating_sub(&alloc.res);
        self.gpus_used = self.gpus_used.without(alloc.gpus);
        self.jobs.retain(|j| *j != job);
        if self.jobs.is_empty() {
            self.whole = false;
        }
    }
}
