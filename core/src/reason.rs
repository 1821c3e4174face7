//! Why a job is pending, as data. The scheduler sets a reason on every
//! pending job in every pass; squeue and `scontrol show job` print the name
//! Slurm prints.

use serde::{Deserialize, Serialize};

/// A pending job's reason, named as Slurm names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Pending {
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
}

impl Pending {
    /// The reason as squeue's `%r` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Pending::None => "None",
            Pending::Priority => "Priority",
            Pending::Resources => "Resources",
            Pending::Dependency => "Dependency",
            Pending::DependencyNeverSatisfied => "DependencyNeverSatisfied",
            Pending::ReqNodeNotAvail => "ReqNodeNotAvail",
            Pending::PartitionTimeLimit => "PartitionTimeLimit",
            Pending::PartitionNodeLimit => "PartitionNodeLimit",
            Pending::PartitionDown => "PartitionDown",
            Pending::PartitionInactive => "PartitionInactive",
            Pending::QosMaxJobsPerUserLimit => "QOSMaxJobsPerUserLimit",
            Pending::BeginTime => "BeginTime",
            Pending::JobHeldUser => "JobHeldUser",
            Pending::JobHeldAdmin => "JobHeldAdmin",
            Pending::BadConstraints => "BadConstraints",
            Pending::Switches => "Resources",
            Pending::JobArrayTaskLimit => "JobArrayTaskLimit",
        }
    }

    /// Whether the job cannot start before something other than the
    /// scheduler changes (a hold, a limit, a dependency): such jobs are not
    /// considered for placement and get no reservation.
    pub fn is_blocking(self) -> bool {
        !matches!(
            self,
            Pending::None | Pending::Priority | Pending::Resources | Pending::Switches
        )
    }
}

impl std::fmt::Display for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
