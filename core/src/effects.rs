//! What the core asks the world to do, as data. The controller turns these
//! into agent messages after committing the turn; the simulator applies them
//! to its virtual cluster; tests record and assert them.

use serde::{Deserialize, Serialize};

use crate::id::JobId;
use crate::job::KillCause;
use crate::node::NodeAlloc;

/// One decision of the core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Effect {
    /// Start the job on these nodes (the batch script runs on the first).
    StartJob {
        /// The job.
        job: JobId,
        /// Its allocation, sorted by node.
        alloc: Vec<NodeAlloc>,
    },
    /// Send a signal to the job's processes (`--signal`).
    SignalJob {
        /// The job.
        job: JobId,
        /// The signal number.
        signal: i32,
    },
    /// End the job: SIGTERM, then SIGKILL after `grace` seconds (KillWait,
    /// or the preemption GraceTime). The job leaves RUNNING when the agent
    /// reports its end.
    KillJob {
        /// The job.
        job: JobId,
        /// Why.
        cause: KillCause,
        /// Seconds between SIGTERM and SIGKILL.
        grace: u64,
    },
    /// Task `task` of array `array_job` left the array's pending meta record
    /// as a new pending job `job` (same request, script and environment as
    /// the record). Persist the new job and the record; a `StartJob` for it
    /// follows when the scheduler split it to start it.
    ArrayTaskSplit {
        /// The array (its own record's id).
        array_job: JobId,
        /// The task id (`SLURM_ARRAY_TASK_ID`).
        task: u32,
        /// The new job.
        job: JobId,
    },
    /// A pending job ended without running: CANCELLED by a cancel, as part
    /// of its array, or because its dependency can never be met; DEADLINE
    /// when it could no longer end by its `--deadline`. Persist it; an
    /// `salloc` or `srun` waiting for its allocation is told.
    PendingJobEnded {
        /// The job.
        job: JobId,
    },
    /// A pending job's dependency changed state (a part met or failed, or
    /// all met and cleared): persist it, so that a restart keeps what was
    /// decided even after the jobs it names are forgotten.
    DependencyChanged {
        /// The job.
        job: JobId,
    },
}

/// Where the core sends its decisions.
pub trait Effects {
    /// Takes one decision.
    fn emit(&mut self, effect: Effect);
}

impl Effects for Vec<Effect> {
    fn emit(&mut self, effect: Effect) {
        self.push(effect);
    }
}

/// Drops every decision (for queries that must not act, and benchmarks).
#[derive(Debug, Default)]
pub struct Discard;

impl Effects for Discard {
    fn emit(&mut self, _effect: Effect) {}
}
