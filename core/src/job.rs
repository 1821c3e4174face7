//! A job and its state machine. Every change of a job's state goes through a
//! method here that checks the transition is legal; nothing else assigns
//! `state`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::array::JobArray;
use crate::constraint::Constraint;
use crate::dependency::Dependency;
use crate::id::{JobId, NodeId, PartitionId, QosId};
use crate::node::NodeAlloc;
use crate::reason::Reason;
use crate::resources::Time;
use crate::spec::{JobSpec, Shape};

/// Slurm's job states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobState {
    /// Queued.
    Pending,
    /// Allocated and running.
    Running,
    /// Ended with exit code 0.
    Completed,
    /// Ended with a non-zero exit code or a signal.
    Failed,
    /// Cancelled by a user or operator.
    Cancelled,
    /// Ended by its time limit.
    Timeout,
    /// Ended because a node it ran on failed.
    NodeFail,
    /// Ended by preemption (PreemptMode=CANCEL).
    Preempted,
    /// Ended while pending: it could no longer end before its
    /// `--deadline`.
    Deadline,
    /// Ended because its processes outgrew the memory confined to it
    /// (cgroup.conf `ConstrainRAMSpace`) and the kernel killed one.
    OutOfMemory,
}

impl JobState {
    /// Every state.
    pub const ALL: [JobState; 10] = [
        JobState::Pending,
        JobState::Running,
        JobState::Completed,
        JobState::Failed,
        JobState::Cancelled,
        JobState::Timeout,
        JobState::NodeFail,
        JobState::Preempted,
        JobState::Deadline,
        JobState::OutOfMemory,
    ];

    /// The state Slurm names `name` (`COMPLETED`, as [`JobState::as_str`]).
    pub fn from_name(name: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The name Slurm prints (`squeue -o %T`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "PENDING",
            JobState::Running => "RUNNING",
            JobState::Completed => "COMPLETED",
            JobState::Failed => "FAILED",
            JobState::Cancelled => "CANCELLED",
            JobState::Timeout => "TIMEOUT",
            JobState::NodeFail => "NODE_FAIL",
            JobState::Preempted => "PREEMPTED",
            JobState::Deadline => "DEADLINE",
            JobState::OutOfMemory => "OUT_OF_MEMORY",
        }
    }

    /// The compact code (`squeue -o %t`).
    pub fn short(self) -> &'static str {
        match self {
            JobState::Pending => "PD",
            JobState::Running => "R",
            JobState::Completed => "CD",
            JobState::Failed => "F",
            JobState::Cancelled => "CA",
            JobState::Timeout => "TO",
            JobState::NodeFail => "NF",
            JobState::Preempted => "PR",
            JobState::Deadline => "DL",
            JobState::OutOfMemory => "OOM",
        }
    }

    /// Whether the job has ended.
    pub fn is_finished(self) -> bool {
        !matches!(self, JobState::Pending | JobState::Running)
    }
}

/// How a job's processes ended, as the agent reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExitStatus {
    /// The exit code (0..=255).
    pub code: i32,
    /// The signal that killed it, 0 if none.
    pub signal: i32,
}

impl ExitStatus {
    /// How an end by the out-of-memory killer is written: Slurm's SIG_OOM
    /// (253) read as a wait status, signal 125, which no real signal uses.
    /// sacct shows it as `0:125`.
    pub const OUT_OF_MEMORY: ExitStatus = ExitStatus {
        code: 0,
        signal: 125,
    };

    /// Whether the out-of-memory killer ended it.
    pub fn is_out_of_memory(self) -> bool {
        self == ExitStatus::OUT_OF_MEMORY
    }
}

/// Why the scheduler asked for a running job to be ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KillCause {
    /// The time limit passed.
    TimeLimit,
    /// Preempted, to be cancelled.
    PreemptCancel,
    /// Preempted, to be requeued.
    PreemptRequeue,
    /// Cancelled by a user or operator.
    Cancelled,
    /// A node of the job failed.
    NodeFail,
    /// Its salloc or srun went silent longer than InactiveLimit.
    InactiveLimit,
    /// `scontrol requeue[hold]`: it goes back to the queue, held so if
    /// the hold is given.
    Requeue(Option<Hold>),
}

impl KillCause {
    /// Whether the job goes back to the queue once its processes are gone.
    pub fn is_requeue(self) -> bool {
        matches!(self, KillCause::PreemptRequeue | KillCause::Requeue(_))
    }
}

/// Who holds a pending job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hold {
    /// The user (`--hold`, `scontrol hold`).
    User,
    /// An operator (`scontrol hold` by root, or priority 0).
    Admin,
    /// `scontrol requeuehold`: held by its user since it was requeued.
    Requeued,
    /// `scontrol requeue State=SpecialExit`: held, shown in the
    /// SPECIAL_EXIT state until released.
    SpecialExit,
    /// `scontrol requeuehold State=SpecialExit`: as [`Hold::SpecialExit`],
    /// described as requeued held.
    SpecialExitHeld,
}

impl Hold {
    /// Whether the job shows in the SPECIAL_EXIT state while so held.
    pub fn is_special_exit(self) -> bool {
        matches!(self, Hold::SpecialExit | Hold::SpecialExitHeld)
    }

    /// The reason a job held so shows.
    pub fn reason(self) -> Reason {
        match self {
            Hold::User => Reason::JobHeldUser,
            Hold::Admin => Reason::JobHeldAdmin,
            Hold::Requeued | Hold::SpecialExitHeld => Reason::RequeuedHeld,
            Hold::SpecialExit => Reason::RequeuedSpecialExit,
        }
    }
}

/// An illegal state change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TransitionError {
    /// The job is not in a state that allows the change.
    #[error("job {job} is {state}, cannot {action}")]
    WrongState {
        /// The job.
        job: JobId,
        /// Its state.
        state: &'static str,
        /// What was asked.
        action: &'static str,
    },
}

/// A job: its request, resolved demand, state and allocation.
#[derive(Debug, Clone)]
pub struct Job {
    /// The id.
    pub id: JobId,
    /// The request as submitted.
    pub spec: JobSpec,
    pub(crate) shape: Shape,
    pub(crate) partition: PartitionId,
    pub(crate) qos: Option<QosId>,
    /// `--nodelist` and `--exclude`, resolved (boxed slices, as the
    /// backfill plan's nodes below: fixed once set, and a queue of jobs
    /// pays 8 bytes less for each than for a vector).
    pub(crate) required: Box<[NodeId]>,
    pub(crate) excluded: Box<[NodeId]>,
    /// `--constraint`, parsed (boxed, as the array and dependency below:
    /// most jobs have none, and every job the controller holds pays for
    /// the room inline).
    pub(crate) constraint: Option<Box<Constraint>>,
    pub(crate) time_limit: Option<u64>,
    state: JobState,
    pub(crate) submit_time: Time,
    pub(crate) eligible_time: Time,
    pub(crate) start_time: Option<Time>,
    pub(crate) end_time: Option<Time>,
    pub(crate) alloc: Vec<NodeAlloc>,
    pub(crate) reason: Reason,
    /// The last reason it waited for that was more than its turn or room
    /// (slurmctld's state_reason_prev_db, sacct's Reason).
    pub(crate) reason_prev: Reason,
    pub(crate) priority: u32,
    pub(crate) seq: u32,
    pub(crate) hold: Option<Hold>,
    pub(crate) exit: Option<ExitStatus>,
    pub(crate) kill: Option<KillCause>,
    pub(crate) restarts: u32,
    pub(crate) signaled: bool,
    pub(crate) expected_start: Option<Time>,
    pub(crate) sched_nodes: Box<[NodeId]>,
    /// Its place in a job array, if it belongs to one.
    pub(crate) array: Option<Box<JobArray>>,
    /// What it still waits for (`--dependency`), with the state of each
    /// part; None once met.
    pub(crate) dependency: Option<Box<Dependency>>,
    /// The job's running steps and what each holds of its allocation (not
    /// kept across a controller restart: steps hold nothing after one).
    pub(crate) steps: std::collections::BTreeMap<u32, crate::step::StepHold>,
}

/// The parts of a job fixed at submission, resolved by the core.
pub(crate) struct Resolved {
    pub shape: Shape,
    pub partition: PartitionId,
    pub qos: Option<QosId>,
    pub required: Vec<NodeId>,
    pub excluded: Vec<NodeId>,
    pub constraint: Option<Constraint>,
    pub time_limit: Option<u64>,
}

impl Job {
    pub(crate) fn new(id: JobId, spec: JobSpec, resolved: Resolved, now: Time, seq: u32) -> Job {
        let hold = spec.hold.then_some(Hold::User);
        Job {
            id,
            spec,
            shape: resolved.shape,
            partition: resolved.partition,
            qos: resolved.qos,
            required: resolved.required.into(),
            excluded: resolved.excluded.into(),
            constraint: resolved.constraint.map(Box::new),
            time_limit: resolved.time_limit,
            state: JobState::Pending,
            submit_time: now,
            eligible_time: now,
            start_time: None,
            end_time: None,
            alloc: Vec::new(),
            // A held job shows why at once, as slurmctld shows it (and
            // accounting keeps it as what the job waited for).
            reason: hold.map_or(Reason::None, |h| h.reason()),
            reason_prev: hold.map_or(Reason::None, |h| h.reason()),
            priority: 0,
            seq,
            hold,
            exit: None,
            kill: None,
            restarts: 0,
            signaled: false,
            expected_start: None,
            sched_nodes: Box::default(),
            steps: Default::default(),
            array: None,
            dependency: None,
        }
    }

    fn wrong(&self, action: &'static str) -> TransitionError {
        TransitionError::WrongState {
            job: self.id,
            state: self.state.as_str(),
            action,
        }
    }

    /// The state.
    pub fn state(&self) -> JobState {
        self.state
    }

    /// The resolved demand.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The partition it runs in.
    pub fn partition(&self) -> PartitionId {
        self.partition
    }

    /// Why it is pending (None when not pending).
    pub fn reason(&self) -> Reason {
        self.reason
    }

    /// The last reason it waited for other than its turn or room
    /// (`Dependency`, `JobHeldUser`, `BeginTime`, ...): what accounting
    /// keeps as its Reason, `None` if it never waited for such.
    pub fn reason_prev(&self) -> Reason {
        self.reason_prev
    }

    /// Sets the reason of a pending job, remembering one worth accounting
    /// (slurmctld's build_job_queue).
    pub(crate) fn set_pending_reason(&mut self, reason: Reason) {
        self.reason = reason;
        if !matches!(
            reason,
            Reason::None | Reason::Priority | Reason::Resources | Reason::Switches
        ) {
            self.reason_prev = reason;
        }
    }

    /// The priority computed in the last pass.
    pub fn priority(&self) -> u32 {
        self.priority
    }

    /// The time limit in seconds (None: unlimited).
    pub fn time_limit(&self) -> Option<u64> {
        self.time_limit
    }

    /// When it was submitted.
    pub fn submit_time(&self) -> Time {
        self.submit_time
    }

    /// When it started (last start, if requeued).
    pub fn start_time(&self) -> Option<Time> {
        self.start_time
    }

    /// When it ended.
    pub fn end_time(&self) -> Option<Time> {
        self.end_time
    }

    /// Its allocation while running (empty otherwise).
    pub fn allocation(&self) -> &[NodeAlloc] {
        &self.alloc
    }

    /// How its processes ended.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.exit
    }

    /// Who holds it, if held.
    pub fn hold(&self) -> Option<Hold> {
        self.hold
    }

    /// Why the scheduler asked for it to end, if it did.
    pub fn kill_cause(&self) -> Option<KillCause> {
        self.kill
    }

    /// How often it was requeued.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// When backfill expects it to start (`squeue --start`).
    pub fn expected_start(&self) -> Option<Time> {
        self.expected_start
    }

    /// The nodes backfill reserved for it (`squeue --start` SCHEDNODES).
    pub fn sched_nodes(&self) -> &[NodeId] {
        &self.sched_nodes
    }

    /// Its place in a job array (`ArrayJobId`, `ArrayTaskId`, the pending
    /// tasks of a meta record), if it belongs to one.
    pub fn array(&self) -> Option<&JobArray> {
        self.array.as_deref()
    }

    /// `SLURM_ARRAY_JOB_ID`, for a job of an array.
    pub fn array_job_id(&self) -> Option<JobId> {
        self.array.as_deref().map(JobArray::array_job_id)
    }

    /// `SLURM_ARRAY_TASK_ID`, for an array task (None for the meta record
    /// still holding pending tasks, and for jobs outside arrays).
    pub fn array_task_id(&self) -> Option<u32> {
        self.array.as_deref().and_then(JobArray::task_id)
    }

    /// What it still waits for, with the state of each part; None when it
    /// has no dependency or its dependency was met.
    pub fn dependency(&self) -> Option<&Dependency> {
        self.dependency.as_deref()
    }

    /// The dependency as squeue `%E` and `scontrol show job` show it
    /// (`afterok:5(unfulfilled)`); None where Slurm prints `(null)`.
    pub fn dependency_str(&self) -> Option<String> {
        self.dependency.as_deref().and_then(Dependency::render)
    }

    /// The last time a pending job may start and still end by its
    /// `--deadline` (slurmctld's deadline_ok): the run time that counts is
    /// `--time-min`, else the time limit asked for, else one minute; a job
    /// with no limit at all never misses it.
    pub fn last_start_for_deadline(&self) -> Option<Time> {
        let deadline = self.spec.deadline?;
        let needed = match (self.spec.time_min, self.spec.time_limit) {
            (Some(min), _) => min,
            (None, Some(limit)) => limit,
            (None, None) if self.spec.time_unlimited => return None,
            (None, None) => 60,
        };
        Some(deadline.saturating_sub(needed))
    }

    /// When it must end by its time limit, if running.
    pub fn deadline(&self) -> Option<Time> {
        Some(self.start_time? + self.time_limit?)
    }

    pub(crate) fn start(
        &mut self,
        now: Time,
        alloc: Vec<NodeAlloc>,
    ) -> Result<(), TransitionError> {
        if self.state != JobState::Pending {
            return Err(self.wrong("start"));
        }
        self.state = JobState::Running;
        self.start_time = Some(now);
        self.alloc = alloc;
        self.reason = Reason::None;
        self.forget_plan();
        self.kill = None;
        self.signaled = false;
        Ok(())
    }

    /// Ends a running job; the final state and its reason follow from why
    /// the scheduler asked for its end, else from the exit status (as
    /// slurmctld's _job_complete). Returns the allocation to release.
    pub(crate) fn finish(
        &mut self,
        now: Time,
        exit: ExitStatus,
    ) -> Result<Vec<NodeAlloc>, TransitionError> {
        if self.state != JobState::Running {
            return Err(self.wrong("finish"));
        }
        (self.state, self.reason) = match self.kill {
            Some(KillCause::TimeLimit) => (JobState::Timeout, Reason::TimeLimit),
            Some(KillCause::InactiveLimit) => (JobState::Timeout, Reason::InactiveLimit),
            Some(KillCause::PreemptCancel) => (JobState::Preempted, self.reason),
            Some(KillCause::Cancelled) => (JobState::Cancelled, self.reason),
            Some(KillCause::NodeFail) => (JobState::NodeFail, Reason::NodeDown),
            _ if exit.is_out_of_memory() => (JobState::OutOfMemory, Reason::OutOfMemory),
            _ if exit.code != 0 => (JobState::Failed, Reason::NonZeroExitCode),
            // slurmctld names a job killed by a signal of its own a
            // launch failure.
            _ if exit.signal != 0 => (JobState::Failed, Reason::JobLaunchFailure),
            _ => (JobState::Completed, Reason::None),
        };
        self.exit = Some(exit);
        self.end_time = Some(now);
        self.steps.clear();
        Ok(std::mem::take(&mut self.alloc))
    }

    /// Ends a running job whose batch script could not be started (bad
    /// working directory, output file, user): FAILED with
    /// `JobLaunchFailure`, the exit Slurm reports for it (`0:53`).
    pub(crate) fn fail_launch(&mut self, now: Time) -> Result<Vec<NodeAlloc>, TransitionError> {
        self.finish(
            now,
            ExitStatus {
                code: 0,
                signal: 53,
            },
        )
    }

    /// Puts a running or finished job back in the queue as slurmctld's
    /// requeue does: a restart more, submitted anew at `now`, eligible no
    /// earlier than `begin`, held if `hold` says so. Returns the allocation
    /// to release (empty for a finished job).
    pub(crate) fn requeue(
        &mut self,
        now: Time,
        begin: Time,
        hold: Option<Hold>,
    ) -> Result<Vec<NodeAlloc>, TransitionError> {
        if self.state == JobState::Pending {
            return Err(self.wrong("requeue"));
        }
        self.state = JobState::Pending;
        self.restarts += 1;
        self.submit_time = now;
        self.eligible_time = now;
        if self.spec.begin.is_none_or(|b| b <= now) {
            self.spec.begin = Some(begin);
        }
        self.start_time = None;
        self.end_time = None;
        self.kill = None;
        self.signaled = false;
        self.reason = Reason::None;
        self.reason_prev = Reason::None;
        if let Some(hold) = hold {
            self.hold = Some(hold);
            (self.priority, self.reason) = (0, hold.reason());
            self.forget_plan();
        }
        self.steps.clear();
        Ok(std::mem::take(&mut self.alloc))
    }

    pub(crate) fn cancel_pending(&mut self, now: Time) -> Result<(), TransitionError> {
        if self.state != JobState::Pending {
            return Err(self.wrong("cancel"));
        }
        // The reason it waited for stays (slurmctld's job_signal).
        self.state = JobState::Cancelled;
        self.end_time = Some(now);
        Ok(())
    }

    /// Ends a pending job that can no longer end before its `--deadline`
    /// (slurmctld's deadline_ok): DEADLINE, exit code 1 as slurmctld sets
    /// it (a raw wait status, so `0:1`).
    pub(crate) fn miss_deadline(&mut self, now: Time) -> Result<(), TransitionError> {
        if self.state != JobState::Pending {
            return Err(self.wrong("end"));
        }
        self.state = JobState::Deadline;
        self.reason = Reason::DeadLine;
        self.exit = Some(ExitStatus { code: 0, signal: 1 });
        self.start_time = Some(now);
        self.end_time = Some(now);
        Ok(())
    }

    /// Cancels a pending job whose dependency can never be met (slurmctld's
    /// _kill_dependent): CANCELLED, keeping the reason
    /// `DependencyNeverSatisfied`.
    pub(crate) fn cancel_never_satisfied(&mut self, now: Time) -> Result<(), TransitionError> {
        self.cancel_pending(now)?;
        self.set_pending_reason(Reason::DependencyNeverSatisfied);
        Ok(())
    }

    pub(crate) fn mark_kill(&mut self, cause: KillCause) -> Result<(), TransitionError> {
        if self.state != JobState::Running {
            return Err(self.wrong("kill"));
        }
        // The first cause wins: a job already timing out stays TIMEOUT.
        self.kill.get_or_insert(cause);
        Ok(())
    }

    /// Sets the state and times of a job rebuilt from its record.
    pub(crate) fn restore_state(
        &mut self,
        state: JobState,
        eligible: Time,
        start: Option<Time>,
        end: Option<Time>,
    ) {
        self.state = state;
        self.eligible_time = eligible;
        self.start_time = start;
        self.end_time = end;
    }

    /// Changes the time limit (`scontrol update TimeLimit=`).
    pub(crate) fn set_time_limit(&mut self, limit: Option<u64>) -> Result<(), TransitionError> {
        if self.state.is_finished() {
            return Err(self.wrong("update"));
        }
        self.time_limit = limit;
        self.spec.time_limit = limit;
        self.signaled = false;
        Ok(())
    }

    pub(crate) fn set_hold(&mut self, hold: Option<Hold>) -> Result<(), TransitionError> {
        if self.state != JobState::Pending {
            return Err(self.wrong(if hold.is_some() { "hold" } else { "release" }));
        }
        self.hold = hold;
        // Shown at once, as slurmctld does: passes do not look at held
        // jobs.
        if let Some(hold) = hold {
            self.priority = 0;
            self.set_pending_reason(hold.reason());
            self.forget_plan();
        }
        Ok(())
    }

    /// Drops the start time and nodes a pass planned for it.
    pub(crate) fn forget_plan(&mut self) {
        self.expected_start = None;
        self.sched_nodes = Box::default();
    }
}
