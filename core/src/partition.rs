//! Partitions and QOS as the scheduler sees them: which nodes, which limits,
//! which priority tier, and who may preempt whom.

use serde::{Deserialize, Serialize};

use crate::id::NodeId;

/// Whether a partition takes and runs jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PartitionState {
    /// Takes and runs jobs.
    #[default]
    Up,
    /// Takes jobs, starts none.
    Down,
    /// Takes no new jobs; queued ones still run.
    Drain,
    /// Neither.
    Inactive,
}

/// What happens to a preempted job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PreemptMode {
    /// Not preemptable.
    #[default]
    Off,
    /// Cancelled (state PREEMPTED).
    Cancel,
    /// Put back in the queue.
    Requeue,
}

/// A partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partition {
    /// PartitionName.
    pub name: String,
    /// Its nodes.
    pub nodes: Vec<NodeId>,
    /// Default=YES.
    pub is_default: bool,
    /// State.
    pub state: PartitionState,
    /// MaxTime in seconds (None: unlimited).
    pub max_time: Option<u64>,
    /// DefaultTime in seconds (None: MaxTime).
    pub default_time: Option<u64>,
    /// MaxNodes (None: unlimited).
    pub max_nodes: Option<u32>,
    /// MinNodes.
    pub min_nodes: u32,
    /// PriorityTier: higher tiers are scheduled first and may preempt lower
    /// ones under preempt/partition_prio.
    pub priority_tier: u32,
    /// PriorityJobFactor.
    pub priority_job_factor: u32,
    /// OverSubscribe=EXCLUSIVE: every job gets whole nodes.
    pub exclusive: bool,
    /// AllowAccounts (None: all).
    pub allow_accounts: Option<Vec<String>>,
    /// PreemptMode of jobs in this partition.
    pub preempt_mode: PreemptMode,
    /// GraceTime in seconds.
    pub grace_time: u64,
}

impl Partition {
    /// An UP partition over `nodes` with Slurm's defaults.
    pub fn new(name: impl Into<String>, nodes: Vec<NodeId>) -> Partition {
        Partition {
            name: name.into(),
            nodes,
            is_default: false,
            state: PartitionState::Up,
            max_time: None,
            default_time: None,
            max_nodes: None,
            min_nodes: 0,
            priority_tier: 1,
            priority_job_factor: 1,
            exclusive: false,
            allow_accounts: None,
            preempt_mode: PreemptMode::Off,
            grace_time: 0,
        }
    }
}

/// A quality of service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Qos {
    /// Name.
    pub name: String,
    /// Priority (normalized against the highest QOS priority).
    pub priority: u32,
    /// QOS this one may preempt (preempt/qos).
    pub preempt: Vec<String>,
    /// What happens to jobs of this QOS when preempted.
    pub preempt_mode: PreemptMode,
    /// GraceTime in seconds.
    pub grace_time: u64,
    /// MaxJobsPerUser (running jobs).
    pub max_jobs_per_user: Option<u32>,
}

impl Qos {
    /// A QOS with no limits and priority 0.
    pub fn new(name: impl Into<String>) -> Qos {
        Qos {
            name: name.into(),
            priority: 0,
            preempt: Vec::new(),
            preempt_mode: PreemptMode::Off,
            grace_time: 0,
            max_jobs_per_user: None,
        }
    }
}
