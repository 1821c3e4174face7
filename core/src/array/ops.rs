//! What the core does with job arrays: finds their tasks, splits a task off
//! the meta record (to start it, or to update it alone), cancels tasks or
//! whole arrays, applies the `%N` throttle, and keeps the index of each
//! array's jobs. Job states change only through `job.rs`.

use std::collections::{BTreeMap, BTreeSet};

use super::{JobArray, TaskLocation, TaskSet};
use crate::core::{Core, CoreError, Input, Outcome};
use crate::dependency::DependencyKind;
use crate::effects::{Effect, Effects};
use crate::id::JobId;
use crate::job::{Job, JobState, TransitionError};
use crate::resources::Time;

/// slurmctld's correspond_after_task_cnt default: how many tasks of an
/// array with an `aftercorr` dependency wait as jobs of their own.
const CORRESPOND_ARRAY_TASK_CNT: usize = 10;

impl Core {
    /// Every job of array `array` (its own record and the tasks split off),
    /// by job id; empty when `array` is not an array the core knows.
    pub fn array_members(&self, array: JobId) -> Vec<JobId> {
        self.arrays
            .get(&array)
            .map_or_else(Vec::new, |m| m.iter().copied().collect())
    }

    /// Whether `id` names a whole array (`scancel N`, `scontrol hold N`):
    /// some job the core knows has array job id `id`.
    pub fn is_array(&self, id: JobId) -> bool {
        self.arrays.contains_key(&id)
    }

    /// Where task `task` of array `array` is, if anywhere.
    pub fn find_array_task(&self, array: JobId, task: u32) -> Option<TaskLocation> {
        let members = self.arrays.get(&array)?;
        for id in members {
            let Some(a) = self.jobs.get(id).and_then(|j| j.array.as_deref()) else {
                continue;
            };
            if a.task_id == Some(task) {
                return Some(TaskLocation::Job(*id));
            }
            if a.task_id.is_none() && a.pending.contains(task) {
                return Some(TaskLocation::InRecord(*id));
            }
        }
        None
    }

    /// The array's `%N` throttle (`ArrayTaskThrottle`; 0: none), read from
    /// its own record.
    pub fn array_throttle(&self, array: JobId) -> Option<u32> {
        self.jobs.get(&array)?.array.as_ref().map(|a| a.throttle)
    }

    /// The pending tasks of a meta record as squeue prints them inside
    /// `N_[...]`: `2-9`, with `%k` when the array is throttled (`2-9%2`).
    /// None for jobs that are not a meta record.
    pub fn array_task_str(&self, id: JobId) -> Option<String> {
        let job = self.jobs.get(&id)?;
        // The meta record is the array's own, which keeps the throttle.
        let a = job.array.as_deref().filter(|a| a.task_id.is_none())?;
        Some(a.pending_text())
    }

    /// Changes the array's throttle (`scontrol update JobId=N
    /// ArrayTaskThrottle=k`; 0 lifts it). Allowed in any state, as Slurm
    /// does. Slurm ignores the setting for a job that is not an array; the
    /// core reports it as [`CoreError::NotAnArray`].
    pub fn set_array_throttle(&mut self, array: JobId, throttle: u32) -> Result<(), CoreError> {
        let job = self.job_mut(array)?;
        match job.array.as_deref_mut() {
            Some(a) if a.array_job_id == array => {
                a.throttle = throttle;
                Ok(())
            }
            _ => Err(CoreError::NotAnArray(array)),
        }
    }

    /// Takes task `task` out of the pending meta record of array `array`
    /// into a pending job of its own and returns its id, as slurmctld does
    /// before updating one task of the record (`scontrol hold N_3`). The new
    /// job copies the record (request, priority, hold, dependency); an
    /// [`Effect::ArrayTaskSplit`] reports it. When `task` is the record's
    /// only task, the record itself becomes that task and keeps its id.
    pub fn split_array_task(
        &mut self,
        array: JobId,
        task: u32,
        effects: &mut impl Effects,
    ) -> Result<JobId, CoreError> {
        match self.handle(Input::SplitArrayTask { array, task }, 0, effects)? {
            Outcome::Submitted(job) => Ok(job),
            _ => Err(CoreError::UnknownTask { array, task }),
        }
    }

    pub(crate) fn split_array_task_now(
        &mut self,
        array: JobId,
        task: u32,
        effects: &mut impl Effects,
    ) -> Result<JobId, CoreError> {
        match self.find_array_task(array, task) {
            Some(TaskLocation::InRecord(record)) => {
                let job = &self.jobs[&record];
                if job.state() != JobState::Pending {
                    return Err(CoreError::Transition(TransitionError::WrongState {
                        job: record,
                        state: job.state().as_str(),
                        action: "split an array task from",
                    }));
                }
                Ok(self.split_task(record, task, effects))
            }
            Some(TaskLocation::Job(id)) => Ok(id),
            None => Err(CoreError::UnknownTask { array, task }),
        }
    }

    /// Splits `task` off the pending meta record `record` (which holds it).
    /// With only that task left, the record becomes the task instead.
    pub(crate) fn split_task(
        &mut self,
        record: JobId,
        task: u32,
        effects: &mut impl Effects,
    ) -> JobId {
        let meta = self.jobs.get_mut(&record).expect("split records exist");
        let a = meta.array.as_deref_mut().expect("split records are arrays");
        if a.pending.len() <= 1 {
            a.pending = TaskSet::new();
            a.task_id = Some(task);
            return record;
        }
        a.pending.remove(task);
        let array_job_id = a.array_job_id;
        if a.pending.len() == 1 {
            // The last task keeps the record's id (slurmctld's
            // job_array_split).
            a.task_id = a.pending.first();
            a.pending = TaskSet::new();
        }
        let id = JobId(self.next_job_id);
        self.next_job_id += 1;
        let mut job: Job = (**meta).clone();
        job.id = id;
        job.array = Some(Box::new(JobArray {
            array_job_id,
            task_id: Some(task),
            pending: TaskSet::new(),
            throttle: 0,
            task_failed: false,
        }));
        job.forget_plan();
        self.pending.file(&job);
        self.jobs.insert(id, Box::new(job));
        self.arrays.entry(array_job_id).or_default().insert(id);
        effects.emit(Effect::ArrayTaskSplit {
            array_job: array_job_id,
            task,
            job: id,
        });
        id
    }

    /// Cancels tasks `tasks` of array `array` (`scancel N_3`,
    /// `scancel N_[1-5]`): tasks still in the pending meta record are taken
    /// out of it (the record is cancelled when none is left); tasks that are
    /// jobs of their own are cancelled as jobs. Returns the tasks not found,
    /// which Slurm reports as invalid job ids while cancelling the rest.
    pub fn cancel_array_tasks(
        &mut self,
        array: JobId,
        tasks: &TaskSet,
        now: Time,
        effects: &mut impl Effects,
    ) -> Result<TaskSet, CoreError> {
        if !self.arrays.contains_key(&array) {
            return Err(CoreError::UnknownJob(array));
        }
        let mut rest = tasks.clone();
        if let Some(meta) = self.jobs.get_mut(&array) {
            let pending = meta.state() == JobState::Pending;
            if let Some(a) = meta
                .array
                .as_mut()
                .filter(|a| a.task_id.is_none() && pending)
            {
                let hit = a.pending.intersection(tasks);
                if !hit.is_empty() {
                    a.pending = a.pending.difference(&hit);
                    rest = rest.difference(&hit);
                    if a.pending.is_empty() {
                        meta.cancel_pending(now)?;
                        self.pending_ended(array, effects);
                    } else {
                        // Slurm counts cancelled pending tasks as failed
                        // (max_exit_code), so `afterok:N` fails.
                        a.task_failed = true;
                    }
                }
            }
        }
        let mut missing = TaskSet::new();
        for task in rest.iter() {
            match self.find_array_task(array, task) {
                Some(TaskLocation::Job(id)) => self.cancel_one(id, now, effects)?,
                _ => {
                    missing.insert(task);
                }
            }
        }
        Ok(missing)
    }

    /// Cancels every job of array `array` (`scancel N`): the meta record
    /// with all its pending tasks, pending tasks, and running tasks by a
    /// kill.
    pub(crate) fn cancel_array(
        &mut self,
        array: JobId,
        now: Time,
        effects: &mut impl Effects,
    ) -> Result<(), CoreError> {
        for id in self.array_members(array) {
            self.cancel_one(id, now, effects)?;
        }
        Ok(())
    }

    /// Notes on the array's record that a task ended other than COMPLETED.
    pub(crate) fn note_task_end(&mut self, id: JobId) {
        let Some(job) = self.jobs.get(&id) else {
            return;
        };
        let Some(array) = job.array.as_deref().map(|a| a.array_job_id) else {
            return;
        };
        if job.state() == JobState::Completed || job.state() == JobState::Pending {
            return;
        }
        if let Some(a) = self
            .jobs
            .get_mut(&array)
            .and_then(|j| j.array.as_deref_mut())
        {
            a.task_failed = true;
        }
    }

    /// Running tasks per array, for the throttle.
    pub(crate) fn running_per_array(&self) -> BTreeMap<JobId, u32> {
        let mut counts = BTreeMap::new();
        for job in self.running.iter().filter_map(|id| self.jobs.get(id)) {
            if let Some(a) = &job.array {
                *counts.entry(a.array_job_id).or_insert(0) += 1;
            }
        }
        counts
    }

    /// Whether the job is an array task (or meta record) whose array runs
    /// as many tasks as its throttle allows.
    pub(crate) fn is_throttled(&self, job: &Job, running: &BTreeMap<JobId, u32>) -> bool {
        let Some(a) = &job.array else {
            return false;
        };
        match self.array_throttle(a.array_job_id) {
            None | Some(0) => false,
            Some(k) => running.get(&a.array_job_id).copied().unwrap_or(0) >= k,
        }
    }

    /// Jobs counted against MaxJobCount: every job, plus the tasks beyond
    /// the first that pending meta records hold (slurmctld's job_count).
    pub(crate) fn job_count(&self) -> usize {
        let extra: usize = self
            .arrays
            .keys()
            .filter_map(|id| self.jobs.get(id))
            .filter(|j| j.state() == JobState::Pending)
            .filter_map(|j| j.array.as_deref())
            .filter(|a| a.task_id.is_none())
            .map(|a| a.pending.len().saturating_sub(1))
            .sum();
        self.jobs.len() + extra
    }

    /// The array state a restored job carries, checked against the others.
    pub(crate) fn check_restored_array(&self, id: JobId, a: &JobArray) -> bool {
        if a.task_id.is_none() && a.array_job_id != id {
            return false;
        }
        let mut tasks = a.pending.clone();
        if let Some(t) = a.task_id {
            tasks.insert(t);
        }
        let taken = tasks
            .iter()
            .any(|t| self.find_array_task(a.array_job_id, t).is_some());
        !taken
    }

    /// Records a job in the index of arrays.
    pub(crate) fn index_array_member(&mut self, id: JobId) {
        if let Some(a) = self.jobs.get(&id).and_then(|j| j.array.as_deref()) {
            let array = a.array_job_id;
            self.arrays.entry(array).or_default().insert(id);
        }
    }

    /// Drops a forgotten job from the index of arrays.
    pub(crate) fn unindex_array_member(&mut self, array: JobId, id: JobId) {
        if let Some(members) = self.arrays.get_mut(&array) {
            members.remove(&id);
            if members.is_empty() {
                self.arrays.remove(&array);
            }
        }
    }

    /// Members of the array index, for the sanity check.
    pub(crate) fn array_index(&self) -> &BTreeMap<JobId, BTreeSet<JobId>> {
        &self.arrays
    }

    /// Meta records of arrays with an `aftercorr` dependency hand tasks out
    /// as pending jobs of their own, so that each waits for its
    /// corresponding task, until CORRESPOND_ARRAY_TASK_CNT of the array
    /// pend that way (slurmctld's build_job_queue).
    pub(crate) fn split_corresponding_tasks(&mut self, effects: &mut impl Effects) {
        let metas: Vec<JobId> = self
            .pending
            .dependent()
            .iter()
            .copied()
            .filter(|id| {
                let job = &self.jobs[id];
                job.array.as_deref().is_some_and(|a| a.is_meta())
                    && job.dependency.as_deref().is_some_and(|d| {
                        d.items.iter().any(|i| i.kind == DependencyKind::AfterCorr)
                    })
            })
            .collect();
        for meta in metas {
            loop {
                let split_pending = self
                    .array_members(meta)
                    .iter()
                    .filter(|&&m| m != meta && self.pending.contains(&m))
                    .count();
                let next = self.jobs[&meta]
                    .array
                    .as_ref()
                    .filter(|a| a.is_meta())
                    .and_then(|a| a.pending_tasks().first());
                match next {
                    Some(task) if split_pending < CORRESPOND_ARRAY_TASK_CNT => {
                        self.split_task(meta, task, effects);
                    }
                    _ => break,
                }
            }
        }
    }
}
