//! How the core resolves a dependency's job ids when it is given (submit,
//! `scontrol update Dependency=`) and evaluates it in every scheduling pass,
//! as slurmctld 22.05 does: a job the core no longer knows satisfies any
//! condition on it ("job is gone, dependency lifted"); met parts are cleared,
//! a failed part stays failed; a dependency that can never be met leaves its
//! job pending with `DependencyNeverSatisfied`, or cancels it.

use std::collections::{BTreeMap, BTreeSet};

use super::{
    parse_dependency, push, Dependency, DependencyError, DependencyKind, DependencyState,
    DependencyStatus, DependencyTarget,
};
use crate::array::{JobArray, TaskLocation};
use crate::core::{Core, CoreError};
use crate::effects::{Effect, Effects};
use crate::id::{JobId, Uid};
use crate::job::{Job, JobState, TransitionError};
use crate::reason::Reason;
use crate::resources::Time;

/// slurmctld's max_depend_depth default: how many dependency lists the
/// circular-dependency scan reads.
const MAX_DEPEND_DEPTH: u32 = 10;

/// What a dependency's job is, for the test of one part.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    /// Ended COMPLETED (every task, for an array).
    complete: bool,
    /// Ended, in any state (every task).
    completed: bool,
    /// Pending (any task).
    pending: bool,
    /// When it started, or ended without starting.
    started: Option<Time>,
}

impl Outcome {
    fn of(job: &Job) -> Outcome {
        Outcome {
            complete: job.state() == JobState::Completed,
            completed: job.state().is_finished(),
            pending: job.state() == JobState::Pending,
            started: job.start_time.or(job.end_time),
        }
    }
}

/// The job a dependency is being resolved for: its id and place in an
/// array.
#[derive(Debug, Clone, Copy)]
struct Dependent<'a> {
    id: JobId,
    array: Option<&'a JobArray>,
}

impl Dependent<'_> {
    /// slurmctld's _depends_on_same_job.
    fn is(&self, target: DependencyTarget) -> bool {
        match target {
            DependencyTarget::Job(n) => n == self.id,
            DependencyTarget::Array(n) => {
                self.array.map_or(n == self.id, |a| a.array_job_id() == n)
            }
            DependencyTarget::Task(n, task) => self.array.is_some_and(|a| {
                a.array_job_id() == n
                    && (a.task_id() == Some(task) || a.pending_tasks().contains(task))
            }),
        }
    }
}

impl Core {
    /// Parses `text` for job `id` (a new job: the id it will get) and
    /// resolves its job ids: `N` naming an array means every task (`N_*`).
    /// Refuses a job that depends on itself, and circular dependencies. A
    /// job id the core does not know is accepted, as Slurm does; such a part
    /// is met at the next pass.
    pub(crate) fn resolve_dependency(
        &self,
        text: &str,
        id: JobId,
        array: Option<&JobArray>,
    ) -> Result<Option<Dependency>, DependencyError> {
        let Some(parsed) = parse_dependency(text, self.config.max_array_size)? else {
            return Ok(None);
        };
        let me = Dependent { id, array };
        let mut dep = Dependency {
            items: Vec::new(),
            any: parsed.any,
        };
        for item in parsed.items {
            let target = item.target.map(|t| match t {
                DependencyTarget::Job(n) if self.arrays.contains_key(&n) => {
                    DependencyTarget::Array(n)
                }
                other => other,
            });
            if target.is_some_and(|t| me.is(t)) {
                return Err(DependencyError::Invalid);
            }
            push(&mut dep, item.kind, target, item.delay_minutes, item.state);
        }
        let mut budget = MAX_DEPEND_DEPTH;
        if self.reaches(&dep, &me, &mut budget) {
            return Err(DependencyError::Circular);
        }
        Ok(Some(dep))
    }

    /// Whether the jobs `dep` names depend, through unfinished jobs, on
    /// `me` (slurmctld's _scan_depend, which reads at most max_depend_depth
    /// lists).
    fn reaches(&self, dep: &Dependency, me: &Dependent<'_>, budget: &mut u32) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        for target in dep.items.iter().filter_map(|i| i.target) {
            let Some(job) = self.target_job(target) else {
                continue;
            };
            if me.is(target) || job.id == me.id {
                return true;
            }
            if let (false, Some(next)) = (job.state().is_finished(), job.dependency.as_deref()) {
                if self.reaches(next, me, budget) {
                    return true;
                }
            }
        }
        false
    }

    /// The job record a target names, if the core knows one: the job, the
    /// task (or the meta record holding it), or the array's own record (else
    /// an unfinished task of it).
    fn target_job(&self, target: DependencyTarget) -> Option<&Job> {
        match target {
            DependencyTarget::Job(n) => self.job(n),
            DependencyTarget::Task(n, task) => match self.find_array_task(n, task)? {
                TaskLocation::Job(id) | TaskLocation::InRecord(id) => self.job(id),
            },
            DependencyTarget::Array(n) => self.job(n).or_else(|| {
                let members = self.arrays.get(&n)?;
                let mut jobs = members.iter().filter_map(|id| self.job(*id));
                let first = jobs.clone().next();
                jobs.find(|j| !j.state().is_finished()).or(first)
            }),
        }
    }

    /// How the job (or every task of the array) a target names stands;
    /// None when the core does not know it.
    fn outcome(&self, target: DependencyTarget) -> Option<Outcome> {
        let DependencyTarget::Array(n) = target else {
            return self.target_job(target).map(Outcome::of);
        };
        let members: Vec<&Job> = self
            .arrays
            .get(&n)?
            .iter()
            .filter_map(|id| self.job(*id))
            .collect();
        let head = self.target_job(target)?;
        let failed = self
            .jobs
            .get(&n)
            .and_then(|j| j.array.as_deref())
            .is_some_and(JobArray::task_failed);
        Some(Outcome {
            complete: !failed && members.iter().all(|j| j.state() == JobState::Completed),
            completed: members.iter().all(|j| j.state().is_finished()),
            pending: members.iter().any(|j| j.state() == JobState::Pending),
            started: Outcome::of(head).started,
        })
    }

    /// The state of one unfulfilled part of `job`'s dependency now
    /// (slurmctld's _test_job_dependency_common).
    fn test_part(
        &self,
        job: &Job,
        kind: DependencyKind,
        target: DependencyTarget,
        delay_minutes: u32,
        now: Time,
    ) -> DependencyState {
        use DependencyState::{Failed, Fulfilled, Unfulfilled};
        let Some(dep) = self.outcome(target) else {
            return Fulfilled;
        };
        let ended = |o: Outcome| match (o.completed, o.complete) {
            (false, _) => Unfulfilled,
            (true, true) => Fulfilled,
            (true, false) => Failed,
        };
        match kind {
            DependencyKind::After => {
                let delay = u64::from(delay_minutes) * 60;
                let waited = delay == 0 || dep.started.is_some_and(|s| now >= s + delay);
                if !dep.pending && waited {
                    Fulfilled
                } else {
                    Unfulfilled
                }
            }
            DependencyKind::AfterAny | DependencyKind::AfterBurstBuffer if dep.completed => {
                Fulfilled
            }
            DependencyKind::AfterAny | DependencyKind::AfterBurstBuffer => Unfulfilled,
            DependencyKind::AfterOk => ended(dep),
            DependencyKind::AfterNotOk => match ended(dep) {
                Fulfilled => Failed,
                Failed => Fulfilled,
                Unfulfilled => Unfulfilled,
            },
            DependencyKind::AfterCorr => {
                let task = job.array.as_deref().and_then(JobArray::task_id);
                let corresponding = task
                    .and_then(|t| self.find_array_task(target.job_id(), t))
                    .and_then(|loc| match loc {
                        TaskLocation::Job(id) | TaskLocation::InRecord(id) => self.jobs.get(&id),
                    });
                match corresponding {
                    Some(other) => ended(Outcome::of(other)),
                    // The meta record waits while its tasks are tested one
                    // by one.
                    None if job.array.as_deref().is_some_and(JobArray::is_meta) => match ended(dep)
                    {
                        Failed => Unfulfilled,
                        other => other,
                    },
                    None => ended(dep),
                }
            }
            DependencyKind::Singleton => Fulfilled,
        }
    }

    /// Evaluates the dependency of every pending job that has one, clearing
    /// it when met. A dependency that can never be met cancels its job when
    /// the job asked for `--kill-on-invalid-dep=yes`, or when it did not say
    /// and the cluster has kill_invalid_depend. A job already found never
    /// satisfiable is not looked at again (slurmctld skips WAIT_DEP_INVALID
    /// jobs) until its dependency is replaced.
    pub(crate) fn update_dependencies(&mut self, now: Time, effects: &mut impl Effects) {
        let ids: Vec<JobId> = self
            .pending
            .dependent()
            .iter()
            .copied()
            .filter(|id| {
                let job = &self.jobs[id];
                job.dependency.is_some() && job.reason != Reason::DependencyNeverSatisfied
            })
            .collect();
        if ids.is_empty() {
            return;
        }
        let singletons = self.singleton_index(&ids);
        for id in ids {
            let job = &self.jobs[&id];
            let Some(dep) = job.dependency.as_deref() else {
                continue;
            };
            let mut next = dep.clone();
            for item in next
                .items
                .iter_mut()
                .filter(|i| i.state == DependencyState::Unfulfilled)
            {
                item.state = match item.target {
                    Some(target) => self.test_part(job, item.kind, target, item.delay_minutes, now),
                    None => singleton_state(job, &singletons),
                };
            }
            let changed = next != *dep;
            let status = next.status();
            let kill = job
                .spec
                .kill_on_invalid_dep
                .unwrap_or(self.config.kill_invalid_depend);
            let job = self.jobs.get_mut(&id).expect("pending ids are jobs");
            job.dependency = (status != DependencyStatus::Satisfied).then(|| Box::new(next));
            self.pending.file(job);
            if changed || status == DependencyStatus::Satisfied {
                effects.emit(Effect::DependencyChanged { job: id });
            }
            if status == DependencyStatus::NeverSatisfied && kill {
                self.cancel_for_dependency(id, now, effects);
            }
        }
    }

    fn cancel_for_dependency(&mut self, id: JobId, now: Time, effects: &mut impl Effects) {
        let job = self.jobs.get_mut(&id).expect("pending ids are jobs");
        if job.cancel_never_satisfied(now).is_ok() {
            self.pending_ended(id, effects);
        }
    }

    /// For `singleton`: per user and name, whether a job runs and the lowest
    /// pending job id.
    fn singleton_index(&self, ids: &[JobId]) -> BTreeMap<(Uid, String), (bool, JobId)> {
        let mut index: BTreeMap<(Uid, String), (bool, JobId)> = BTreeMap::new();
        let wanted: BTreeSet<(Uid, &str)> = ids
            .iter()
            .map(|id| &self.jobs[id])
            .filter(|j| {
                j.dependency
                    .as_ref()
                    .is_some_and(|d| d.items.iter().any(|i| i.kind == DependencyKind::Singleton))
            })
            .map(|j| (j.spec.user, &*j.spec.name))
            .collect();
        if wanted.is_empty() {
            return index;
        }
        let active = self.running.iter().chain(self.pending.iter());
        for job in active.filter_map(|id| self.jobs.get(id)) {
            if !wanted.contains(&(job.spec.user, &*job.spec.name)) {
                continue;
            }
            let entry = index
                .entry((job.spec.user, job.spec.name.to_string()))
                .or_insert((false, JobId(u32::MAX)));
            match job.state() {
                JobState::Running => entry.0 = true,
                _ => entry.1 = entry.1.min(job.id),
            }
        }
        index
    }

    /// Replaces a pending job's dependency (`scontrol update
    /// Dependency=...`; `""` or `"0"` clears it), validated as at submit.
    /// The new dependency is evaluated afresh at the next pass.
    pub fn set_dependency(&mut self, id: JobId, text: &str) -> Result<(), CoreError> {
        let job = self.jobs.get(&id).ok_or(CoreError::UnknownJob(id))?;
        if job.state() != JobState::Pending {
            return Err(CoreError::Transition(TransitionError::WrongState {
                job: id,
                state: job.state().as_str(),
                action: "update the dependency of",
            }));
        }
        let dep = self.resolve_dependency(text, id, job.array.as_deref())?;
        let job = self.jobs.get_mut(&id).expect("checked above");
        job.spec.dependency = dep.is_some().then(|| text.into());
        job.dependency = dep.map(Box::new);
        self.pending.file(job);
        if matches!(
            job.reason,
            Reason::Dependency | Reason::DependencyNeverSatisfied
        ) {
            job.reason = Reason::None;
        }
        Ok(())
    }

    /// Jobs that pending jobs' unmet dependencies name, by job id or array
    /// id: they are kept past MinJobAge until those parts are decided, so
    /// that a job's end is never mistaken for its being forgotten.
    pub(crate) fn dependency_targets(&self) -> BTreeSet<JobId> {
        self.open_dependencies()
            .flat_map(|d| d.items.iter())
            .filter(|i| i.state == DependencyState::Unfulfilled)
            .filter_map(|i| i.target.map(DependencyTarget::job_id))
            .collect()
    }

    /// When an `after:N+time` part of a pending job comes due.
    pub(crate) fn dependency_wakeups(&self) -> impl Iterator<Item = Time> + '_ {
        self.open_dependencies()
            .flat_map(|d| d.items.iter())
            .filter(|i| {
                i.state == DependencyState::Unfulfilled
                    && i.kind == DependencyKind::After
                    && i.delay_minutes > 0
            })
            .filter_map(|i| {
                let o = self.outcome(i.target?)?;
                let start = o.started.filter(|_| !o.pending)?;
                Some(start + u64::from(i.delay_minutes) * 60)
            })
    }
}

impl Core {
    /// The dependencies of pending jobs that passes still evaluate.
    fn open_dependencies(&self) -> impl Iterator<Item = &Dependency> + '_ {
        self.pending
            .dependent()
            .iter()
            .filter_map(|id| self.jobs.get(id))
            .filter(|j| j.reason != Reason::DependencyNeverSatisfied)
            .filter_map(|j| j.dependency.as_deref())
            .filter(|d| d.status() == DependencyStatus::Waiting)
    }
}

/// `singleton`: met when no other job of the same user and name runs or
/// waits with a lower id. A job without a name has nothing to wait for.
fn singleton_state(job: &Job, index: &BTreeMap<(Uid, String), (bool, JobId)>) -> DependencyState {
    if job.spec.name.is_empty() {
        return DependencyState::Fulfilled;
    }
    match index.get(&(job.spec.user, job.spec.name.to_string())) {
        Some(&(running, lowest)) if running || lowest < job.id => DependencyState::Unfulfilled,
        _ => DependencyState::Fulfilled,
    }
}
