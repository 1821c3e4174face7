//! Job history for sacct: what the controller notes about a job for its
//! accounting record (its partition and requested resources at submission,
//! its allocation at start, who cancelled it), and the answer to a
//! `History` request, read on blocking threads through read-only store
//! connections so that the actor never waits on a history query. The
//! command does the formatting.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tracing::{debug, info, warn};

use spur_core::{Core, JobId, JobState};
use spur_proto::{
    ClientResponse, ErrorCode, HistoryJob, HistoryQuery, HistoryStep, JobStateName, ProtoError,
    StepId, Tres,
};

use super::actor::{now, Controller};
use super::convert::state_word;
use super::store::{AllocRecord, HistoryRow, JobMeta, Reader, StepRow, TresCount};

/// Idle read-only connections kept for the next query.
const IDLE_READERS: usize = 4;

/// Answers history queries from the state database.
#[derive(Debug)]
pub struct History {
    dir: PathBuf,
    // A std Mutex: it is held only to push or pop a connection, never
    // across an await or a query.
    idle: Mutex<Vec<Reader>>,
}

impl History {
    /// Reads the state database in `dir` (StateSaveLocation).
    pub fn new(dir: PathBuf) -> Arc<History> {
        Arc::new(History {
            dir,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// The answer to `query`, computed on a blocking thread.
    pub async fn answer(self: &Arc<Self>, query: HistoryQuery) -> ClientResponse {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.run(&query))
            .await
            .unwrap_or_else(|_| ClientResponse::Error(ErrorCode::TryAgain.into()))
    }

    /// Writes a consistent copy of the state database to `to`, on a
    /// blocking thread, from a reader's snapshot (the actor never waits).
    pub async fn backup(self: &Arc<Self>, to: PathBuf) -> ClientResponse {
        let dir = self.dir.clone();
        let done = tokio::task::spawn_blocking(move || {
            Reader::open(&dir).and_then(|reader| reader.backup_into(&to))
        })
        .await;
        match done {
            Ok(Ok(copied)) => {
                info!(
                    jobs = copied.jobs,
                    bytes = copied.bytes,
                    "state backup written"
                );
                ClientResponse::BackedUp {
                    jobs: copied.jobs,
                    bytes: copied.bytes,
                }
            }
            Ok(Err(e)) => {
                warn!(error = %e, "state backup failed");
                ClientResponse::Error(ProtoError::with_detail(
                    ErrorCode::StateStore,
                    e.to_string(),
                ))
            }
            Err(_) => ClientResponse::Error(ErrorCode::TryAgain.into()),
        }
    }

    fn run(&self, query: &HistoryQuery) -> ClientResponse {
        let started = Instant::now();
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut reader = match pooled.map_or_else(|| Reader::open(&self.dir), Ok) {
            Ok(reader) => reader,
            Err(e) => return unreadable(&e),
        };
        let rows = match reader.history(query) {
            Ok(rows) => rows,
            Err(e) => return unreadable(&e),
        };
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < IDLE_READERS {
                idle.push(reader);
            }
        }
        let now = now();
        let jobs: Vec<HistoryJob> = rows
            .into_iter()
            .map(|row| history_job(row, query))
            .collect();
        debug!(
            jobs = jobs.len(),
            elapsed_us = started.elapsed().as_micros() as u64,
            "history query"
        );
        ClientResponse::History { now, jobs }
    }
}

fn unreadable(e: &super::store::StoreError) -> ClientResponse {
    warn!(error = %e, "cannot read the job history");
    ClientResponse::Error(ProtoError::with_detail(
        ErrorCode::Unspecified,
        "cannot read the job history",
    ))
}

/// What a job asks for, as accounting counts it.
fn requested(core: &Core, id: JobId) -> Option<TresCount> {
    let job = core.job(id)?;
    let shape = job.shape();
    let nodes = shape.nodes_min.max(1);
    Some(TresCount {
        cpus: shape.tasks * shape.cpus_per_task,
        mem_mb: shape.mem_on_node(shape.tasks.div_ceil(nodes), 0) * u64::from(nodes),
        nodes,
        gpus: shape
            .gpus_total
            .unwrap_or(shape.gpus_on_node(shape.min_tasks_per_node()) * nodes),
    })
}

fn partition_name(core: &Core, id: JobId) -> Option<String> {
    let job = core.job(id)?;
    Some(core.partitions()[job.partition().index()].name.clone())
}

/// The accounting part of a new job's metadata: its partition and what it
/// asks for, as resolved at submission.
pub(super) fn submitted_meta(core: &Core, id: JobId) -> JobMeta {
    JobMeta {
        partition: partition_name(core, id).map(Into::into),
        requested: requested(core, id),
        ..JobMeta::default()
    }
}

impl Controller {
    /// Notes a started job's partition and allocation for its record.
    pub(super) fn note_start(&mut self, id: JobId) {
        let Some(job) = self.core.job(id) else { return };
        let alloc = job.allocation();
        let count = |a: &spur_core::NodeAlloc| TresCount {
            cpus: a.res.cpus,
            mem_mb: a.res.mem_mb,
            nodes: 1,
            gpus: a.res.gpus,
        };
        let mut total = TresCount::default();
        for a in alloc {
            let c = count(a);
            total.cpus += c.cpus;
            total.mem_mb += c.mem_mb;
            total.nodes += 1;
            total.gpus += c.gpus;
        }
        let record = AllocRecord {
            total,
            batch_host: alloc.first().map(count).unwrap_or_default(),
            priority: job.priority(),
        };
        let partition = partition_name(&self.core, id);
        if let Some(meta) = self.metas.get_mut(&id) {
            meta.allocated = Some(Box::new(record));
            meta.partition = partition.map(Into::into);
            self.turn.meta_dirty.insert(id);
        }
    }

    /// Notes who cancelled a job.
    pub(super) fn note_cancel(&mut self, id: JobId, uid: u32) {
        if let Some(meta) = self.metas.get_mut(&id) {
            meta.cancelled_by = Some(uid);
            self.turn.meta_dirty.insert(id);
        }
    }

    /// Notes a pending job's new partition (`scontrol update Partition=`).
    pub(super) fn note_partition(&mut self, id: JobId) {
        let partition = partition_name(&self.core, id);
        if let Some(meta) = self.metas.get_mut(&id) {
            meta.partition = partition.map(Into::into);
            self.turn.meta_dirty.insert(id);
        }
    }
}

fn tres(c: TresCount, billing: bool) -> Tres {
    Tres {
        cpus: c.cpus,
        mem_mb: c.mem_mb,
        nodes: c.nodes,
        billing: if billing { c.cpus } else { 0 },
        gpus: c.gpus,
    }
}

/// What a job asked for, for records written before it was noted at
/// submission: counted from the request alone.
fn requested_from_spec(spec: &spur_core::JobSpec) -> TresCount {
    let nodes = spec.min_nodes.unwrap_or(1).max(1);
    let cpus = spec.ntasks.unwrap_or(nodes) * spec.cpus_per_task.unwrap_or(1);
    let gpus = spec.gpus.unwrap_or(spec.gpus_per_node.unwrap_or(0) * nodes);
    let mem_mb = match spec.mem {
        spur_core::MemRequest::PerNode(mb) => mb * u64::from(nodes),
        spur_core::MemRequest::PerCpu(mb) => mb * u64::from(cpus),
        spur_core::MemRequest::PerGpu(mb) => mb * u64::from(gpus),
        spur_core::MemRequest::Default => 0,
    };
    TresCount {
        cpus,
        mem_mb,
        nodes,
        gpus,
    }
}

/// One stored job as sacct's record of it.
fn history_job(row: HistoryRow, q: &HistoryQuery) -> HistoryJob {
    let HistoryRow {
        record,
        meta,
        steps,
        derived,
        mut usage,
    } = row;
    let req = meta
        .requested
        .unwrap_or_else(|| requested_from_spec(&record.spec));
    let (req_mem_mb, req_mem_per_cpu) = match record.spec.mem {
        spur_core::MemRequest::PerNode(mb) => (mb, false),
        spur_core::MemRequest::PerCpu(mb) => (mb, true),
        _ if req.cpus > 0 => (req.mem_mb / u64::from(req.cpus), true),
        _ => (0, true),
    };
    // The job's own exit code is recorded when it is ended: a job ended by
    // scancel, its time limit, a node or preemption keeps 0:0, and its
    // batch step holds the signal.
    let (exit_code, exit_signal) = match (record.state, record.exit) {
        (JobState::Completed | JobState::Failed | JobState::OutOfMemory, Some(e)) => {
            (e.code, e.signal)
        }
        // slurmctld's exit code 1 for a job past its deadline, which
        // slurmdbd keeps as the code, not a signal.
        (JobState::Deadline, _) => (1, 0),
        _ => (0, 0),
    };
    let mut out = HistoryJob {
        job_id: record.id.0,
        array_job_id: record.array.as_ref().map(|a| a.array_job_id().0),
        array_task_id: record.array.as_ref().and_then(|a| a.task_id()),
        array_task_str: record
            .array
            .as_ref()
            .filter(|a| a.is_meta() && !a.pending_tasks().is_empty())
            .map(|a| a.pending_text()),
        name: record.spec.name.to_string(),
        user_id: record.spec.user.0,
        user_name: meta.user_name.to_string(),
        group_id: meta.gid,
        group_name: meta.group_name.to_string(),
        account: record.spec.account.as_deref().map(str::to_string),
        partition: meta.partition_of(&record).to_string(),
        qos: record.spec.qos.as_deref().unwrap_or("normal").to_string(),
        state: state_word(record.state),
        cancelled_by: (record.state == JobState::Cancelled)
            .then_some(meta.cancelled_by)
            .flatten(),
        // slurmdbd keeps the last reason the job waited for beyond its
        // turn or room, not why it ended.
        reason: record.reason_prev.as_str().into(),
        exit_code,
        exit_signal,
        derived_exit_code: derived.0,
        derived_exit_signal: derived.1,
        submit_time: record.submit_time,
        // A job held while it waits is not eligible (slurmdbd's 0).
        eligible_time: (record.state != JobState::Pending || record.hold.is_none())
            .then_some(record.eligible_time),
        start_time: record.start_time,
        end_time: record.end_time,
        time_limit: record.time_limit,
        priority: meta
            .allocated
            .as_ref()
            .map_or(record.spec.priority.unwrap_or(0), |a| a.priority),
        nodes: meta.nodes.clone().unwrap_or_default().to_string(),
        requested: tres(req, true),
        req_mem_mb,
        req_mem_per_cpu,
        allocated: meta.allocated.as_ref().map(|a| tres(a.total, true)),
        work_dir: meta.work_dir.to_string(),
        comment: meta.comment.as_deref().map(str::to_string),
        constraints: record.spec.constraint.as_deref().map(str::to_string),
        steps: Vec::new(),
    };
    if q.steps {
        if let Some(mut batch) = batch_step(&out, &record, &meta, q) {
            batch.usage = usage.remove(&spur_proto::BATCH_STEP);
            if let Some(u) = &batch.usage {
                (batch.user_cpu_us, batch.system_cpu_us) = (u.user_cpu_us, u.system_cpu_us);
            }
            out.steps.push(batch);
        }
        out.steps.extend(steps.iter().map(|s| {
            let mut step = srun_step(s);
            step.usage = usage.remove(&s.step_id);
            if let Some(u) = &step.usage {
                (step.user_cpu_us, step.system_cpu_us) = (u.user_cpu_us, u.system_cpu_us);
            }
            step
        }));
    }
    out
}

/// The batch step of a started batch job, derived from the job: it runs
/// on the first node with that node's part of the allocation, from the
/// job's start to its end, and ends as the script did. An allocation of
/// salloc or srun has none.
fn batch_step(
    job: &HistoryJob,
    record: &spur_core::JobRecord,
    meta: &JobMeta,
    q: &HistoryQuery,
) -> Option<HistoryStep> {
    if meta.interactive {
        return None;
    }
    let start = record.start_time?;
    let alloc = *meta.allocated.as_deref()?;
    let in_window = q.end.is_none_or(|e| start <= e)
        && record
            .end_time
            .is_none_or(|e| q.start.is_none_or(|s| e >= s));
    if !in_window {
        return None;
    }
    let exit = record.exit.unwrap_or_default();
    let state = match record.state {
        JobState::Pending | JobState::Running => JobStateName::Running,
        JobState::NodeFail => JobStateName::NodeFail,
        JobState::OutOfMemory => JobStateName::OutOfMemory,
        _ if exit.signal != 0 => JobStateName::Cancelled,
        _ if exit.code != 0 => JobStateName::Failed,
        _ => JobStateName::Completed,
    };
    let host = spur_conf::hostlist::expand(&job.nodes)
        .ok()
        .and_then(|names| names.into_iter().next())
        .unwrap_or_default();
    Some(HistoryStep {
        step: StepId::Batch,
        name: "batch".into(),
        state,
        cancelled_by: None,
        exit_code: exit.code,
        exit_signal: exit.signal,
        start_time: start,
        end_time: record.end_time,
        nodes: host,
        node_count: 1,
        ntasks: 1,
        allocated: tres(alloc.batch_host, false),
        layout: None,
        user_cpu_us: 0,
        system_cpu_us: 0,
        usage: None,
    })
}

/// A stored srun step.
fn srun_step(s: &StepRow) -> HistoryStep {
    let allocated = s.tres;
    HistoryStep {
        step: StepId::Numbered(s.step_id),
        name: s.name.clone(),
        state: state_word(s.state),
        cancelled_by: s.cancelled_by,
        exit_code: s.exit_code,
        exit_signal: s.exit_signal,
        start_time: s.start_time,
        end_time: s.end_time,
        nodes: s.nodes.clone(),
        node_count: s.node_count,
        ntasks: s.ntasks,
        allocated,
        layout: s.layout.clone(),
        user_cpu_us: s.user_cpu_us,
        system_cpu_us: s.system_cpu_us,
        usage: None,
    }
}

#[cfg(test)]
mod tests {
    use spur_core::{ExitStatus, JobId, JobRecord, JobSpec, Uid};

    use super::*;

    fn row(state: JobState, exit: Option<ExitStatus>) -> HistoryRow {
        let tres = TresCount {
            cpus: 8,
            mem_mb: 32_768,
            nodes: 2,
            gpus: 8,
        };
        HistoryRow {
            record: JobRecord {
                id: JobId(31),
                spec: JobSpec {
                    user: Uid(2001),
                    name: "envjob".into(),
                    account: Some("research".into()),
                    mem: spur_core::MemRequest::PerCpu(4096),
                    ..Default::default()
                },
                state,
                submit_time: 100,
                eligible_time: 100,
                start_time: Some(110),
                end_time: (state != JobState::Running).then_some(150),
                time_limit: Some(300),
                alloc: vec![],
                hold: None,
                exit,
                kill: None,
                restarts: 0,
                signaled: false,
                array: None,
                dependency: None,
                reason: spur_core::Reason::None,
                reason_prev: spur_core::Reason::None,
            },
            meta: JobMeta {
                user_name: "anchor".into(),
                nodes: Some("gb[001-002]".into()),
                partition: Some("batch".into()),
                requested: Some(tres),
                allocated: Some(Box::new(AllocRecord {
                    total: tres,
                    batch_host: TresCount {
                        cpus: 4,
                        mem_mb: 16_384,
                        nodes: 1,
                        gpus: 4,
                    },
                    priority: 7,
                })),
                cancelled_by: Some(2001),
                ..JobMeta::default()
            },
            steps: vec![],
            derived: (0, 0),
            usage: std::collections::HashMap::new(),
        }
    }

    fn steps_wanted() -> HistoryQuery {
        HistoryQuery {
            steps: true,
            ..Default::default()
        }
    }

    #[test]
    fn a_cancelled_job_keeps_0_0_and_its_batch_step_the_signal() {
        let stopped = ExitStatus {
            code: 0,
            signal: 15,
        };
        let job = history_job(row(JobState::Cancelled, Some(stopped)), &steps_wanted());
        assert_eq!((job.exit_code, job.exit_signal), (0, 0));
        assert_eq!(job.cancelled_by, Some(2001));
        assert_eq!(job.partition, "batch");
        assert_eq!((job.req_mem_mb, job.req_mem_per_cpu), (4096, true));
        assert_eq!(job.allocated.map(|a| (a.cpus, a.billing)), Some((8, 8)));
        let batch = &job.steps[0];
        assert_eq!(batch.step, StepId::Batch);
        assert_eq!(batch.state, JobStateName::Cancelled);
        assert_eq!((batch.exit_code, batch.exit_signal), (0, 15));
        assert_eq!(batch.nodes, "gb001");
        assert_eq!(batch.allocated.cpus, 4);
        assert_eq!(batch.allocated.billing, 0);
        assert_eq!((batch.start_time, batch.end_time), (110, Some(150)));
    }

    #[test]
    fn a_failed_job_and_its_batch_step_keep_the_exit_code() {
        let failed = ExitStatus { code: 3, signal: 0 };
        let job = history_job(row(JobState::Failed, Some(failed)), &steps_wanted());
        assert_eq!((job.exit_code, job.exit_signal), (3, 0));
        assert_eq!(job.cancelled_by, None);
        assert_eq!(job.steps[0].state, JobStateName::Failed);
        assert_eq!(job.steps[0].exit_code, 3);
    }

    #[test]
    fn a_running_jobs_batch_step_runs_and_windows_and_x_leave_it_out() {
        let job = history_job(row(JobState::Running, None), &steps_wanted());
        assert_eq!(job.state, JobStateName::Running);
        assert_eq!(job.steps[0].state, JobStateName::Running);
        assert_eq!(job.steps[0].end_time, None);
        let no_steps = HistoryQuery::default();
        assert!(history_job(row(JobState::Running, None), &no_steps)
            .steps
            .is_empty());
        let later = HistoryQuery {
            steps: true,
            end: Some(105),
            ..Default::default()
        };
        assert!(history_job(row(JobState::Completed, None), &later)
            .steps
            .is_empty());
    }
}
