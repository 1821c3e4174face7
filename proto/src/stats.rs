//! The controller's counters, as `sdiag` and slurmrestd's diag paths show
//! them (slurmctld's `stats_info_response_msg_t`): jobs submitted, started
//! and ended since the counters began, the scheduler's passes, and the
//! requests served by type and by user with the time they took.

use serde::{Deserialize, Serialize};

/// One kind of request and what serving it took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RpcCount {
    /// Slurm's message type number (`REQUEST_SUBMIT_BATCH_JOB` is 4003).
    pub type_id: u16,
    /// Slurm's message type name.
    pub name: String,
    /// How many were served.
    pub count: u32,
    /// Microseconds spent serving them.
    pub total_us: u64,
}

/// One user's requests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserCount {
    /// The uid.
    pub uid: u32,
    /// How many requests.
    pub count: u32,
    /// Microseconds spent serving them.
    pub total_us: u64,
}

/// The mean of `total` over `count`, as slurmctld's statistics divide
/// (whole numbers; 0 when nothing was counted).
pub fn mean(total: u64, count: u64) -> u64 {
    total.checked_div(count).unwrap_or(0)
}

/// The scheduler's passes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedCounts {
    /// Passes run.
    pub cycles: u32,
    /// The last pass, microseconds.
    pub last_us: u64,
    /// The longest pass, microseconds.
    pub max_us: u64,
    /// All passes, microseconds.
    pub sum_us: u64,
    /// Pending jobs looked at, summed over the passes.
    pub depth_sum: u64,
    /// Pending jobs at the last pass.
    pub last_queue_len: u32,
}

/// The passes that backfilled: planned for a job that could not start, so
/// that jobs behind it may start without delaying it. spur's pass starts
/// jobs in priority order and backfills in one go; these count the passes
/// that did the latter, with what each took in all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackfillCounts {
    /// Jobs backfilled since the controller started (or sdiag -r).
    pub jobs_total: u32,
    /// Jobs backfilled since the counters began (each day at midnight UTC,
    /// or sdiag -r).
    pub jobs: u32,
    /// Passes that backfilled.
    pub cycles: u32,
    /// When the last one ran (0: none yet).
    pub last_when: u64,
    /// The last one, microseconds.
    pub last_us: u64,
    /// The longest one, microseconds.
    pub max_us: u64,
    /// All of them, microseconds.
    pub sum_us: u64,
    /// Jobs the last one looked at.
    pub last_depth: u32,
    /// Jobs the last one planned for.
    pub last_depth_try: u32,
    /// Jobs looked at, summed over them.
    pub depth_sum: u64,
    /// Jobs planned for, summed over them.
    pub depth_try_sum: u64,
    /// Pending jobs at the last one.
    pub queue_len: u32,
    /// Pending jobs, summed over them.
    pub queue_len_sum: u64,
    /// Start times the last one planned over.
    pub table_size: u32,
    /// Start times, summed over them.
    pub table_size_sum: u64,
}

/// The counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The controller's clock.
    pub now: u64,
    /// When the counters began: the controller's start, the last midnight
    /// (UTC) or the last `sdiag -r`.
    pub since: u64,
    /// Connections being served.
    pub server_threads: u32,
    /// Messages waiting to be sent to agents.
    pub agent_queue: u32,
    /// Agents connected.
    pub agents: u32,
    /// Jobs submitted.
    pub jobs_submitted: u32,
    /// Jobs started.
    pub jobs_started: u32,
    /// Jobs that completed.
    pub jobs_completed: u32,
    /// Jobs cancelled.
    pub jobs_canceled: u32,
    /// Jobs that failed (non-zero exit, timeout, node failure, OOM, ...).
    pub jobs_failed: u32,
    /// Jobs pending now.
    pub jobs_pending: u32,
    /// Jobs running now.
    pub jobs_running: u32,
    /// The scheduler's passes.
    pub sched: SchedCounts,
    /// The passes that backfilled.
    pub backfill: BackfillCounts,
    /// Microseconds the controller takes for 1,000 reads of the clock.
    pub clock_latency_us: u64,
    /// Requests by type, each in the order it was first seen.
    pub by_type: Vec<RpcCount>,
    /// Requests by user, each in the order they were first seen.
    pub by_user: Vec<UserCount>,
}
