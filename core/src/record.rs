//! A job as it is persisted (`JobRecord`) and how a restarted controller
//! rebuilds the core from such records. The record holds only what cannot be
//! recomputed: the request, the state and its times, the allocation. Resolved
//! demand, priorities and pending reasons are derived again on restore.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::array::JobArray;
use crate::core::Core;
use crate::dependency::Dependency;
use crate::id::JobId;
use crate::job::{ExitStatus, Hold, Job, JobState, KillCause};
use crate::node::NodeAlloc;
use crate::reason::Reason;
use crate::resources::Time;
use crate::spec::{Exclusive, JobSpec, SubmitError};

/// Everything about a job that must survive a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    /// The id.
    pub id: JobId,
    /// The request as submitted (with later updates applied).
    pub spec: JobSpec,
    /// The state.
    pub state: JobState,
    /// When it was submitted.
    pub submit_time: Time,
    /// When it last became eligible (submission or requeue).
    pub eligible_time: Time,
    /// When it started.
    pub start_time: Option<Time>,
    /// When it ended.
    pub end_time: Option<Time>,
    /// The time limit in force (the partition default applied, or shortened
    /// by `--time-min` backfill).
    pub time_limit: Option<u64>,
    /// Its allocation while running.
    pub alloc: Vec<NodeAlloc>,
    /// Who holds it.
    pub hold: Option<Hold>,
    /// How it ended.
    pub exit: Option<ExitStatus>,
    /// Why the scheduler asked for its end, while it is being ended.
    pub kill: Option<KillCause>,
    /// Times requeued.
    pub restarts: u32,
    /// Whether its `--signal` was sent.
    pub signaled: bool,
    /// Its place in a job array: the array's id, its task id, or, for the
    /// meta record, the tasks still pending in it, the throttle.
    #[serde(default)]
    pub array: Option<JobArray>,
    /// What it still waits for, with the state of each part (None: no
    /// dependency, or met).
    #[serde(default)]
    pub dependency: Option<Dependency>,
    /// The reason a finished job keeps (`DependencyNeverSatisfied` for one
    /// cancelled because its dependency can never be met); None for
    /// others. Pending reasons are derived again on restore.
    #[serde(default)]
    pub reason: Reason,
    /// The last reason it waited for other than its turn or room (sacct's
    /// Reason).
    #[serde(default)]
    pub reason_prev: Reason,
}

/// A record that no longer fits the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RestoreError {
    /// The id is taken.
    #[error("job {0} is restored twice")]
    Duplicate(JobId),
    /// The request no longer resolves (a partition or node was removed).
    #[error("job {job} no longer fits the configuration")]
    Unresolvable {
        /// The job.
        job: JobId,
        /// Why.
        #[source]
        source: SubmitError,
    },
    /// The allocation names a node or GPUs the cluster does not have free.
    #[error("job {0} holds resources the cluster does not have")]
    BadAllocation(JobId),
    /// The array task is restored twice, or a meta record under another
    /// job's id.
    #[error("job {0} holds array tasks another job holds")]
    BadArray(JobId),
}

impl Job {
    /// What must be persisted of this job.
    pub fn record(&self) -> JobRecord {
        JobRecord {
            id: self.id,
            spec: self.spec.clone(),
            state: self.state(),
            submit_time: self.submit_time,
            eligible_time: self.eligible_time,
            start_time: self.start_time,
            end_time: self.end_time,
            time_limit: self.time_limit,
            alloc: self.alloc.clone(),
            hold: self.hold,
            exit: self.exit,
            kill: self.kill,
            restarts: self.restarts,
            signaled: self.signaled,
            array: self.array.as_deref().cloned(),
            dependency: self.dependency.as_deref().cloned(),
            reason: if self.state().is_finished() {
                self.reason
            } else {
                Reason::None
            },
            reason_prev: self.reason_prev,
        }
    }
}

impl Core {
    /// Puts a persisted job back. Running jobs take their allocation again,
    /// so restore them before the first scheduling pass. Job ids handed out
    /// later stay above every restored id.
    pub fn restore_job(&mut self, record: JobRecord) -> Result<(), RestoreError> {
        let id = record.id;
        if self.jobs.contains_key(&id) {
            return Err(RestoreError::Duplicate(id));
        }
        let resolved = self
            .resolve(&record.spec)
            .map_err(|source| RestoreError::Unresolvable { job: id, source })?;
        if record.state == JobState::Running {
            self.check_allocation(id, &record.alloc)?;
        }
        if let Some(a) = &record.array {
            if !self.check_restored_array(id, a) {
                return Err(RestoreError::BadArray(id));
            }
        }
        self.seq += 1;
        let mut job = Job::new(id, record.spec, resolved, record.submit_time, self.seq);
        job.restore_state(
            record.state,
            record.eligible_time,
            record.start_time,
            record.end_time,
        );
        job.time_limit = record.time_limit.or(job.time_limit);
        job.hold = record.hold;
        job.exit = record.exit;
        job.kill = record.kill;
        job.restarts = record.restarts;
        job.signaled = record.signaled;
        job.array = record.array.map(Box::new);
        job.dependency = record.dependency.map(Box::new);
        if record.state.is_finished() {
            job.reason = record.reason;
        }
        job.reason_prev = record.reason_prev;
        match record.state {
            JobState::Pending => {
                if let Some(hold) = job.hold {
                    // Never looked at by a pass while held: shown now.
                    job.set_pending_reason(hold.reason());
                }
                self.pending.file(&job);
            }
            JobState::Running => {
                let whole = job.shape.is_whole_node();
                let topo = job.shape.exclusive == Exclusive::Topo;
                for a in &record.alloc {
                    self.nodes[a.node.index()].allocate(id, a, whole);
                    if topo {
                        if let Some(Some(b)) = self.node_block.get(a.node.index()) {
                            self.block_owner[*b as usize] = Some(id);
                        }
                    }
                }
                job.alloc = record.alloc;
                self.running.insert(id);
            }
            _ => {}
        }
        // Filed from the job at hand: another look-up of each of 100,000
        // jobs is a tenth of a restart.
        if let Some(end) = job.end_time.filter(|_| job.state().is_finished()) {
            self.ended.insert((end, id));
        }
        if let Some(a) = job.array.as_deref() {
            self.arrays.entry(a.array_job_id()).or_default().insert(id);
        }
        self.jobs.insert(id, Box::new(job));
        self.next_job_id = self.next_job_id.max(id.0 + 1);
        Ok(())
    }

    fn check_allocation(&self, id: JobId, alloc: &[NodeAlloc]) -> Result<(), RestoreError> {
        for a in alloc {
            let node = self
                .nodes
                .get(a.node.index())
                .ok_or(RestoreError::BadAllocation(id))?;
            let free = node.free();
            if a.gpus.intersects(node.gpus_used)
                || a.res.gpus > free.gpus
                || a.res.cpus > free.cpus
                || a.res.mem_mb > free.mem_mb
            {
                return Err(RestoreError::BadAllocation(id));
            }
        }
        Ok(())
    }

    /// The id the next submission gets.
    pub fn next_job_id(&self) -> JobId {
        JobId(self.next_job_id)
    }

    /// Raises the next job id to at least `id`, so that ids of jobs already
    /// purged are never handed out again.
    pub fn reserve_job_ids_below(&mut self, id: JobId) {
        self.next_job_id = self.next_job_id.max(id.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Cluster, SchedConfig};
    use crate::node::NodeConfig;
    use crate::partition::Partition;
    use crate::NodeId;

    fn core() -> Core {
        let nodes = (0..4)
            .map(|i| NodeConfig::new(format!("n{i}"), 8, 1000, 4))
            .collect();
        let mut part = Partition::new("batch", (0..4).map(NodeId).collect());
        part.is_default = true;
        let cluster = Cluster {
            nodes,
            partitions: vec![part],
            ..Default::default()
        };
        Core::new(cluster, SchedConfig::default()).expect("valid cluster")
    }

    fn gpu_spec(gpus: u32) -> JobSpec {
        JobSpec {
            gpus_per_node: Some(gpus),
            min_nodes: Some(1),
            ..Default::default()
        }
    }

    #[test]
    fn a_restored_core_holds_the_same_jobs_and_allocations() {
        let mut before = core();
        let mut effects = Vec::new();
        for _ in 0..3 {
            before.submit_job(gpu_spec(2), 10).expect("valid");
        }
        before.submit_job(gpu_spec(4), 10).expect("valid");
        before.schedule(11, &mut effects);
        let records: Vec<JobRecord> = before.jobs().map(Job::record).collect();

        let mut after = core();
        for r in records.clone() {
            after.restore_job(r).expect("restores");
        }
        after.sanity_check().expect("consistent");
        let again: Vec<JobRecord> = after.jobs().map(Job::record).collect();
        assert_eq!(records, again);
        for (a, b) in before.nodes().iter().zip(after.nodes()) {
            assert_eq!(a.used(), b.used());
            assert_eq!(a.free_gpus(), b.free_gpus());
        }
        assert_eq!(after.next_job_id(), before.next_job_id());
    }

    #[test]
    fn an_allocation_that_overlaps_is_refused() {
        let mut before = core();
        let mut effects = Vec::new();
        before.submit_job(gpu_spec(4), 0).expect("valid");
        before.schedule(1, &mut effects);
        let mut record = before.jobs().next().expect("one job").record();
        let mut after = core();
        after.restore_job(record.clone()).expect("restores");
        record.id = JobId(99);
        assert_eq!(
            after.restore_job(record),
            Err(RestoreError::BadAllocation(JobId(99)))
        );
        after.sanity_check().expect("consistent");
    }

    #[test]
    fn array_and_dependency_state_round_trip_through_json() {
        let mut before = core();
        let mut effects = Vec::new();
        let first = before.submit_job(gpu_spec(4), 0).expect("valid");
        let array = before
            .submit_job(
                JobSpec {
                    array: Some("0-9%2".into()),
                    dependency: Some(format!("afterok:{first},singleton").into()),
                    ..gpu_spec(1)
                },
                0,
            )
            .expect("valid");
        before.schedule(1, &mut effects);
        let record = before.job(array).expect("submitted").record();
        assert_eq!(
            record.array.as_ref().map(|a| a.pending_tasks().to_string()),
            Some("0-9".into())
        );
        let json = serde_json::to_string(&record).expect("encodes");
        assert!(json.contains(r#""pending":"0-9""#), "{json}");
        let back: JobRecord = serde_json::from_str(&json).expect("decodes");
        assert_eq!(back, record);
        let mut after = core();
        after
            .restore_job(before.job(first).expect("kept").record())
            .expect("restores");
        after.restore_job(back).expect("restores");
        after.sanity_check().expect("consistent");
        let job = after.job(array).expect("restored");
        // The job has no name, so `singleton` was met and is not shown.
        assert_eq!(
            job.dependency_str(),
            Some(format!("afterok:{first}(unfulfilled)"))
        );
        assert_eq!(after.array_task_str(array).as_deref(), Some("0-9%2"));
    }

    #[test]
    fn records_written_before_arrays_and_dependencies_still_load() {
        let mut before = core();
        let id = before.submit_job(gpu_spec(2), 0).expect("valid");
        let record = before.job(id).expect("submitted").record();
        let mut value = serde_json::to_value(&record).expect("encodes");
        let fields = value.as_object_mut().expect("a record is an object");
        for key in ["array", "dependency", "reason"] {
            assert!(fields.remove(key).is_some(), "{key}");
        }
        let spec = fields["spec"].as_object_mut().expect("a spec is an object");
        for key in ["array", "dependency", "kill_on_invalid_dep"] {
            assert!(spec.remove(key).is_some(), "{key}");
        }
        let old: JobRecord = serde_json::from_value(value).expect("an old row loads");
        assert_eq!(old, record);
    }
}
