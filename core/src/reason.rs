//! Why a job is in its state, as data (Slurm's `state_reason`). The
//! scheduler sets a reason on every pending job in every pass; a job that
//! ends keeps the reason its end gives it (`NonZeroExitCode`, `TimeLimit`,
//! ...). squeue and `scontrol show job` print the name Slurm prints.

use serde::{Deserialize, Serialize};

/// A job's reason, named as Slurm names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Reason {
    /// Not yet considered by a scheduling pass.
    #[default]
    None,
    /// Higher-priority jobs come first (and hold reservations).
    Priority,
    /// The resources are busy.
    Resources,
    /// Waiting on another job (dependencies).
    Dependency,
    /// A dependency can never be satisfied.
    DependencyNeverSatisfied,
    /// Nodes the job requires (`-w`) are down, drained or not usable.
    ReqNodeNotAvail,
    /// The time limit exceeds the partition's MaxTime.
    PartitionTimeLimit,
    /// The node count is outside the partition's MinNodes..MaxNodes, or
    /// beyond the nodes the partition has.
    PartitionNodeLimit,
    /// The partition is DOWN.
    PartitionDown,
    /// The partition is INACTIVE.
    PartitionInactive,
    /// The QOS' per-user job limit is reached.
    QosMaxJobsPerUserLimit,
    /// `--begin` is in the future.
    BeginTime,
    /// Held by its user (`--hold`, `scontrol hold`).
    JobHeldUser,
    /// Held by an operator (priority 0).
    JobHeldAdmin,
    /// No node can satisfy the feature expression.
    BadConstraints,
    /// topology/tree: waiting for an allocation on fewer leaf switches
    /// (Slurm shows this as `Resources`).
    Switches,
    /// The array runs as many tasks as its `%N` throttle allows.
    JobArrayTaskLimit,
    /// Held since `scontrol requeuehold` put it back in the queue (Slurm's
    /// JobHeldUser with the description squeue prints instead).
    RequeuedHeld,
    /// Held since `scontrol requeue State=SpecialExit`.
    RequeuedSpecialExit,
    /// Ended with a non-zero exit code (FAILED).
    NonZeroExitCode,
    /// Killed by a signal of its own, or its batch script could not be
    /// started (FAILED).
    JobLaunchFailure,
    /// Ended by its time limit (TIMEOUT).
    TimeLimit,
    /// Ended because its salloc or srun went silent longer than
    /// InactiveLimit (TIMEOUT).
    InactiveLimit,
    /// Ended because a node it ran on failed (NODE_FAIL).
    NodeDown,
    /// Could no longer end before its `--deadline` (DEADLINE).
    DeadLine,
    /// Killed for outgrowing its confined memory (OUT_OF_MEMORY).
    OutOfMemory,
}

impl Reason {
    /// The reason as squeue's `%r` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::None => "None",
            Reason::Priority => "Priority",
            Reason::Resources => "Resources",
            Reason::Dependency => "Dependency",
            Reason::DependencyNeverSatisfied => "DependencyNeverSatisfied",
            Reason::ReqNodeNotAvail => "ReqNodeNotAvail",
            Reason::PartitionTimeLimit => "PartitionTimeLimit",
            Reason::PartitionNodeLimit => "PartitionNodeLimit",
            Reason::PartitionDown => "PartitionDown",
            Reason::PartitionInactive => "PartitionInactive",
            Reason::QosMaxJobsPerUserLimit => "QOSMaxJobsPerUserLimit",
            Reason::BeginTime => "BeginTime",
            Reason::JobHeldUser => "JobHeldUser",
            Reason::JobHeldAdmin => "JobHeldAdmin",
            Reason::BadConstraints => "BadConstraints",
            Reason::Switches => "Resources",
            Reason::JobArrayTaskLimit => "JobArrayTaskLimit",
            Reason::RequeuedHeld => "job requeued in held state",
            Reason::RequeuedSpecialExit => "job requeued in special exit state",
            Reason::NonZeroExitCode => "NonZeroExitCode",
            Reason::JobLaunchFailure => "JobLaunchFailure",
            Reason::TimeLimit => "TimeLimit",
            Reason::InactiveLimit => "InactiveLimit",
            Reason::NodeDown => "NodeDown",
            Reason::DeadLine => "DeadLine",
            Reason::OutOfMemory => "OutOfMemory",
        }
    }

    /// Whether the job cannot start before something other than the
    /// scheduler changes (a hold, a limit, a dependency): such jobs are not
    /// considered for placement and get no reservation.
    pub fn is_blocking(self) -> bool {
        !matches!(
            self,
            Reason::None | Reason::Priority | Reason::Resources | Reason::Switches
        )
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
