//! spur-core: the scheduling domain, pure and deterministic.
//!
//! It owns nodes (CPUs, memory, GPUs by index), topology (NVLink domains as
//! base blocks, switch trees), partitions, QOS and jobs. Inputs come in with
//! the time as an argument ([`Core::handle`], [`Core::schedule`]); decisions
//! leave as data through [`Effects`]. No I/O, no clock, no threads: the same
//! inputs give the same effects, which the simulator and the golden tests
//! rely on.
//!
//! Placement ([`placement`]) and queue policy ([`queue`]) are separate: one
//! knows topology, the other priorities; a pass in `sched` joins them.

pub mod array;
pub mod backfill;
pub mod constraint;
mod core;
pub mod dependency;
pub mod domains;
pub mod effects;
mod feasible;
pub mod id;
pub mod job;
pub mod node;
pub mod partition;
mod pending;
pub mod placement;
mod preempt;
pub mod queue;
pub mod reason;
pub mod reconfig;
mod record;
pub mod resources;
mod sanity;
mod sched;
pub mod spec;
pub mod step;
pub mod topology;

pub use crate::core::{
    Cluster, ClusterError, Core, CoreError, Entry, Input, Outcome, PlacementPolicy, PreemptType,
    SchedConfig,
};
pub use array::{parse_array, ArraySpec, InvalidArray, JobArray, TaskLocation, TaskSet};
pub use backfill::BackfillConfig;
pub use dependency::{
    parse_dependency, Dependency, DependencyError, DependencyItem, DependencyKind, DependencyState,
    DependencyStatus, DependencyTarget,
};
pub use domains::DomainGpus;
pub use effects::{Discard, Effect, Effects};
pub use id::{BlockId, JobId, NodeId, PartitionId, QosId, SwitchId, Uid};
pub use job::{ExitStatus, Hold, Job, JobState, KillCause};
pub use node::{NodeAlloc, NodeConfig, NodeState};
pub use partition::{Partition, PartitionState, PreemptMode, Qos};
pub use queue::{PriorityFactors, PriorityType, PriorityWeights};
pub use reason::Reason;
pub use reconfig::Reconfiguration;
pub use record::{JobRecord, RestoreError};
pub use resources::{GpuSet, Resources, Time};
pub use sanity::SanityError;
pub use sched::PassSummary;
pub use spec::{Exclusive, JobSpec, MemRequest, SegmentLayout, SubmitError, SwitchesRequest};
pub use step::{StepError, StepHold, StepPart, StepShape};
pub use topology::{BaseBlock, BlockTopology, SwitchSpec, Topology, TreeTopology};
