//! Client requests about job arrays and their tasks: which jobs an array's
//! id names, cancelling or signalling tasks (`scancel N_3`, `N_[1-5]`), and
//! taking tasks out of the array's pending record before scontrol acts on
//! them one by one. The array logic itself is the core's.

use std::collections::BTreeSet;

use tracing::info;

use spur_core::{CoreError, Hold, Input, Job, JobId, JobState, Outcome, TaskLocation, TaskSet};
use spur_proto::{
    ArrayTasks, ClientResponse, ErrorCode, ProtoError, RequeueHold, SignalScope, SignalTarget,
};

use super::actor::Controller;
use super::request::core_error;

impl Controller {
    /// The jobs `id` names in a listing or an action on a whole array:
    /// every job of array `id`, its own record first and then the newest
    /// first (the order slurmctld lists an array in), or job `id` alone.
    pub(super) fn members(&self, id: JobId) -> Vec<JobId> {
        if !self.core.is_array(id) {
            return vec![id];
        }
        let mut members = self.core.array_members(id);
        members.sort_by_key(|&m| (m != id, std::cmp::Reverse(m)));
        members
    }

    /// The jobs `ids` name, each array expanded to its jobs, without
    /// repeats, in the order named.
    pub(super) fn named_jobs(&self, ids: &[u32]) -> Vec<JobId> {
        let mut seen = BTreeSet::new();
        ids.iter()
            .flat_map(|&id| self.members(JobId(id)))
            .filter(|id| seen.insert(*id))
            .collect()
    }

    /// Cancels or signals the tasks `t` names. Cancelled tasks still in
    /// the array's pending record leave it (the record ends when none is
    /// left); tasks that are jobs of their own are cancelled as jobs. A
    /// task the array does not have is an invalid job id, reported after
    /// the others are done, as slurmctld's job_str_signal does.
    pub(super) fn signal_tasks(
        &mut self,
        uid: u32,
        t: &ArrayTasks,
        target: &SignalTarget,
    ) -> Result<(), ProtoError> {
        let array = JobId(t.array_job_id);
        self.authorize(uid, array)?;
        let tasks = self.task_set(&t.tasks)?;
        let Some(signal) = target.signal else {
            return self.cancel_tasks(uid, array, tasks);
        };
        let mut result = Ok(());
        for task in tasks.iter() {
            let r = match self.core.find_array_task(array, task) {
                Some(TaskLocation::Job(id)) => self.signal_running(id, signal, target.scope()),
                // slurmctld signals no task of the pending record.
                Some(TaskLocation::InRecord(_)) => Err(ErrorCode::TransitionStateNoUpdate.into()),
                None => Err(ErrorCode::InvalidJobId.into()),
            };
            if r.is_err() {
                result = r;
            }
        }
        result
    }

    /// Task ids as a request gives them (`1-3,7`); as slurmctld does, none
    /// may reach MaxArraySize, which also bounds the work one request
    /// asks for.
    fn task_set(&self, text: &str) -> Result<TaskSet, ProtoError> {
        let tasks: TaskSet = text.parse().map_err(|_| ErrorCode::InvalidJobId)?;
        match tasks.last() {
            Some(last) if last < self.core.config().max_array_size => Ok(tasks),
            _ => Err(ErrorCode::InvalidJobId.into()),
        }
    }

    fn cancel_tasks(&mut self, uid: u32, array: JobId, tasks: TaskSet) -> Result<(), ProtoError> {
        let jobs: Vec<JobId> = tasks
            .iter()
            .filter_map(|task| match self.core.find_array_task(array, task) {
                Some(TaskLocation::Job(id)) => {
                    let unfinished = self.core.job(id).is_some_and(|j| !j.state().is_finished());
                    unfinished.then_some(id)
                }
                _ => None,
            })
            .collect();
        let text = tasks.to_string();
        let r = self.apply(Input::CancelArrayTasks { array, tasks });
        // The record's pending tasks changed even when it did not end.
        self.turn.dirty.insert(array);
        for id in jobs {
            self.turn.dirty.insert(id);
            self.note_cancel(id, uid);
        }
        info!(job = array.0, tasks = %text, uid, "array tasks cancelled");
        r.map(drop).map_err(|e| core_error(&e))
    }

    /// The SLURM_ARRAY_* variables of `job` (none outside an array), for
    /// its batch script and its steps' tasks alike.
    pub(super) fn array_env(&self, job: &Job) -> Vec<(String, String)> {
        let task = job.array_job_id().map(|a| a.0).zip(job.array_task_id());
        // Any id an accepted expression holds is below u32::MAX, whatever
        // MaxArraySize is now.
        let spec = job
            .spec
            .array
            .as_deref()
            .and_then(|text| spur_core::parse_array(text, u32::MAX).ok().flatten());
        super::env::array_vars(task, spec.as_ref())
    }

    /// `scontrol requeue[hold] N`: job N, or every job of array N; an
    /// error only when none could be requeued. An allocation that salloc
    /// or srun holds is not a batch job and is refused.
    pub(super) fn requeue(
        &mut self,
        id: JobId,
        hold: RequeueHold,
        incomplete: bool,
    ) -> Result<(), ProtoError> {
        if self.metas.get(&id).is_some_and(|m| m.interactive) {
            return Err(ErrorCode::BatchOnly.into());
        }
        let hold = match (hold.hold, hold.special_exit) {
            (false, false) => None,
            (true, false) => Some(Hold::Requeued),
            (false, true) => Some(Hold::SpecialExit),
            (true, true) => Some(Hold::SpecialExitHeld),
        };
        let mut first_error = None;
        let mut requeued = false;
        for m in self.members(id) {
            let running = self
                .core
                .job(m)
                .is_some_and(|j| j.state() == JobState::Running);
            if incomplete && !running {
                // slurmctld leaves such a job alone and reports success.
                requeued = true;
                continue;
            }
            match self.apply(Input::Requeue { job: m, hold }) {
                Ok(_) => {
                    requeued = true;
                    if !running {
                        self.note_requeued(m);
                    }
                    info!(job = m.0, ?hold, "job requeued");
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) if !requeued => Err(core_error(&e)),
            _ => Ok(()),
        }
    }

    /// Whether job `id` runs, with slurmctld's word for why a signal
    /// cannot reach it if not: pending, or already done.
    pub(super) fn require_running(&self, id: JobId) -> Result<(), ProtoError> {
        let state = self
            .core
            .job(id)
            .map(|j| j.state())
            .ok_or(ErrorCode::InvalidJobId)?;
        match state {
            JobState::Running => Ok(()),
            JobState::Pending => Err(ErrorCode::JobPending.into()),
            _ => Err(ErrorCode::AlreadyDone.into()),
        }
    }

    /// Sends `signal` to the processes `scope` names of a running job.
    pub(super) fn signal_running(
        &mut self,
        id: JobId,
        signal: i32,
        scope: SignalScope,
    ) -> Result<(), ProtoError> {
        self.require_running(id)?;
        self.batch_host(id).ok_or(ErrorCode::JobNotRunning)?;
        self.send_signal(id, signal, scope);
        Ok(())
    }

    /// The results of an update of every job of array `array`, grouped by
    /// outcome over the tasks each job holds (slurmctld's _resp_array_add
    /// and _resp_array_xlate): one line per outcome, lowest task first.
    pub(super) fn per_tasks(
        &self,
        array: JobId,
        results: Vec<(JobId, Result<(), ProtoError>)>,
    ) -> ClientResponse {
        let mut groups: Vec<(TaskSet, Result<(), ProtoError>)> = Vec::new();
        for (id, result) in results {
            let Some(a) = self.core.job(id).and_then(|j| j.array()) else {
                continue;
            };
            let tasks = match a.task_id() {
                Some(t) => TaskSet::range(t, t),
                None => a.pending_tasks().clone(),
            };
            let code = result.as_ref().err().map(|e| e.code);
            match groups
                .iter_mut()
                .find(|(_, r)| r.as_ref().err().map(|e| e.code) == code)
            {
                Some((set, _)) => *set = set.union(&tasks),
                None => groups.push((tasks, result)),
            }
        }
        groups.retain(|(set, _)| !set.is_empty());
        groups.sort_by_key(|(set, _)| set.first());
        ClientResponse::PerTasks(
            groups
                .into_iter()
                .map(|(set, r)| (format!("{}_{set}", array.0), r))
                .collect(),
        )
    }

    /// `scontrol hold|release|update N_i`: the job ids of tasks `t`, each
    /// task still in the array's pending record first split off into a job
    /// of its own (slurmctld's update_job_str does the same). Tasks the
    /// array does not have are left out of the answer.
    pub(super) fn split_array_tasks(
        &mut self,
        uid: u32,
        t: &ArrayTasks,
    ) -> Result<ClientResponse, ProtoError> {
        let array = JobId(t.array_job_id);
        self.authorize(uid, array)?;
        let tasks = self.task_set(&t.tasks)?;
        let mut found = Vec::new();
        for task in tasks.iter() {
            match self.apply(Input::SplitArrayTask { array, task }) {
                Ok(Outcome::Submitted(job)) => found.push((task, job.0)),
                Ok(_) => {}
                Err(CoreError::UnknownTask { .. }) => {}
                Err(e) => return Err(core_error(&e)),
            }
        }
        self.turn.dirty.insert(array);
        Ok(ClientResponse::ArrayTaskJobs(found))
    }
}
