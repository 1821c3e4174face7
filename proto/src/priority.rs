//! Pending jobs' priority terms, as `sprio` shows them (slurmctld's
//! `priority_factors_response_msg_t`): the weights of slurm.conf's
//! multifactor priority and, per job, each term weighted.

use serde::{Deserialize, Serialize};

/// Which jobs' terms are asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityQuery {
    /// Only these jobs (empty: every job).
    pub jobs: Vec<u32>,
    /// Only jobs of these uids (None: every user's; an empty list, as
    /// `-u` naming no user this host knows, selects none).
    pub users: Option<Vec<u32>>,
    /// Only jobs in these partitions (None: every partition's).
    pub partitions: Option<Vec<String>>,
}

/// slurm.conf's `PriorityWeight*` that spur acts on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityWeights {
    /// PriorityWeightAge.
    pub age: u32,
    /// PriorityWeightFairshare.
    pub fairshare: u32,
    /// PriorityWeightJobSize.
    pub job_size: u32,
    /// PriorityWeightPartition.
    pub partition: u32,
    /// PriorityWeightQOS.
    pub qos: u32,
}

/// One pending job's terms: each 0 for a job whose priority an operator
/// set, as slurmctld sends them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobPriority {
    /// The job.
    pub job_id: u32,
    /// Its owner's uid.
    pub user_id: u32,
    /// Its partition.
    pub partition: String,
    /// Its priority: the sum of its terms less its nice, or the one set.
    pub priority: u32,
    /// The priority was set by an operator, not computed.
    pub fixed: bool,
    /// The age term, weighted.
    pub age: f64,
    /// The fair-share term, weighted.
    pub fairshare: f64,
    /// The job-size term, weighted.
    pub job_size: f64,
    /// The partition term, weighted.
    pub partition_term: f64,
    /// The QOS term, weighted.
    pub qos: f64,
    /// The job's nice.
    pub nice: i32,
}

/// The answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Priorities {
    /// The weights; None under priority/basic, which has no terms.
    pub weights: Option<PriorityWeights>,
    /// The pending jobs asked for, eligible and not held, by id.
    pub jobs: Vec<JobPriority>,
}
