//! The controller's counters, for `sdiag` and slurmrestd's diag paths:
//! jobs submitted, started and ended since the start (ends counted once
//! per job, by how it ended, as slurmctld's job_completion_logger counts
//! them), the scheduler's passes, and each request served, by Slurm's
//! message type and by user, with the time its handling took (slurmctld's
//! RPC statistics). The request table is shared by the actor and the
//! gateway, which answers some requests itself.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use spur_core::{JobId, JobState};
use spur_proto::{ClientRequest, RpcCount, SchedCounts, UserCount};

/// Slurm's message type of a request: its number and name.
pub(super) type MessageType = (u16, &'static str);

/// A node agent's registration (`MESSAGE_NODE_REGISTRATION_STATUS`).
pub(super) const NODE_REGISTRATION: MessageType = (1002, "MESSAGE_NODE_REGISTRATION_STATUS");
/// A batch script's end (`REQUEST_COMPLETE_BATCH_SCRIPT`).
pub(super) const COMPLETE_BATCH_SCRIPT: MessageType = (5018, "REQUEST_COMPLETE_BATCH_SCRIPT");

/// `scontrol token` (`REQUEST_AUTH_TOKEN`).
pub(super) const AUTH_TOKEN: MessageType = (5039, "REQUEST_AUTH_TOKEN");
/// sacct's query, served from spur's own history where Slurm asks slurmdbd
/// (`DBD_GET_JOBS_COND`).
pub(super) const HISTORY: MessageType = (1444, "DBD_GET_JOBS_COND");

/// `spurd controller --backup` (spur's own: Slurm has no such request).
pub(super) const STATE_BACKUP: MessageType = (65001, "SPUR_REQUEST_STATE_BACKUP");

/// The message type slurmctld would have counted `req` under.
pub(super) fn message_type(req: &ClientRequest) -> MessageType {
    match req {
        ClientRequest::Ping => (1008, "REQUEST_PING"),
        ClientRequest::Reconfigure => (1003, "REQUEST_RECONFIGURE"),
        ClientRequest::Config => (2001, "REQUEST_BUILD_INFO"),
        ClientRequest::Jobs { ids, .. } if ids.len() == 1 => (2021, "REQUEST_JOB_INFO_SINGLE"),
        ClientRequest::Jobs { .. } => (2003, "REQUEST_JOB_INFO"),
        ClientRequest::Steps { .. } => (2005, "REQUEST_JOB_STEP_INFO"),
        ClientRequest::Nodes => (2007, "REQUEST_NODE_INFO"),
        ClientRequest::Partitions => (2009, "REQUEST_PARTITION_INFO"),
        ClientRequest::Diag => (2035, "REQUEST_STATS_INFO"),
        ClientRequest::Shares => (2022, "REQUEST_SHARE_INFO"),
        ClientRequest::UpdateJob(_)
        | ClientRequest::Hold { .. }
        | ClientRequest::Release { .. }
        | ClientRequest::SplitArrayTasks(_) => (3001, "REQUEST_UPDATE_JOB"),
        ClientRequest::UpdateNode(_) => (3002, "REQUEST_UPDATE_NODE"),
        ClientRequest::Submit(d) if d.script.is_none() => (4001, "REQUEST_RESOURCE_ALLOCATION"),
        ClientRequest::Submit(_) => (4003, "REQUEST_SUBMIT_BATCH_JOB"),
        ClientRequest::WillRun(_) => (4012, "REQUEST_JOB_WILL_RUN"),
        ClientRequest::AllocationAlive { .. } => (4014, "REQUEST_JOB_ALLOCATION_INFO"),
        ClientRequest::StepCreate(_) => (5001, "REQUEST_JOB_STEP_CREATE"),
        ClientRequest::StepComplete { .. } => (5016, "REQUEST_STEP_COMPLETE"),
        ClientRequest::ReleaseAllocation { .. } => (5017, "REQUEST_COMPLETE_JOB_ALLOCATION"),
        ClientRequest::Requeue { .. } => (5023, "REQUEST_JOB_REQUEUE"),
        ClientRequest::Signal(_) => (5032, "REQUEST_KILL_JOB"),
        ClientRequest::SignalStep { .. } => (5005, "REQUEST_CANCEL_JOB_STEP"),
        ClientRequest::Token(_) => AUTH_TOKEN,
        ClientRequest::History(_) => HISTORY,
        ClientRequest::Backup { .. } => STATE_BACKUP,
        ClientRequest::Authenticated(a) => message_type(&a.request),
        _ => (0, "UNKNOWN"),
    }
}

/// Requests served, by type and by user.
#[derive(Debug, Default)]
pub(super) struct RpcTable {
    by_type: HashMap<u16, (&'static str, u32, u64)>,
    by_user: HashMap<u32, (u32, u64)>,
}

/// The request table and the clients being served, shared by the actor
/// and the gateway.
#[derive(Debug, Default)]
pub(super) struct Shared {
    table: Mutex<RpcTable>,
    /// Client connections open now (sdiag's server thread count).
    connections: AtomicU32,
}

/// The shared counters.
pub(super) type Rpcs = Arc<Shared>;

/// A client connection, counted while it lasts.
pub(super) struct Served(Rpcs);

impl Served {
    /// Counts a connection until the value drops.
    pub fn new(rpcs: &Rpcs) -> Served {
        rpcs.connections.fetch_add(1, Ordering::Relaxed);
        Served(rpcs.clone())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Shared {
    /// Client connections open now.
    pub(super) fn connections(&self) -> u32 {
        self.connections.load(Ordering::Relaxed)
    }

    /// Notes one request of `kind` by `uid` that took `took`.
    pub(super) fn record(&self, kind: MessageType, uid: u32, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        // The lock is held for two map updates; no await or I/O under it.
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let entry = t.by_type.entry(kind.0).or_insert((kind.1, 0, 0));
        entry.1 += 1;
        entry.2 += micros;
        let user = t.by_user.entry(uid).or_default();
        user.0 += 1;
        user.1 += micros;
    }

    /// The table's rows, busiest first, as sdiag sorts them.
    pub(super) fn rows(&self) -> (Vec<RpcCount>, Vec<UserCount>) {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let mut by_type: Vec<RpcCount> = t
            .by_type
            .iter()
            .map(|(&type_id, &(name, count, total_us))| RpcCount {
                type_id,
                name: name.to_string(),
                count,
                total_us,
            })
            .collect();
        by_type.sort_by(|a, b| b.count.cmp(&a.count).then(a.type_id.cmp(&b.type_id)));
        let mut by_user: Vec<UserCount> = t
            .by_user
            .iter()
            .map(|(&uid, &(count, total_us))| UserCount {
                uid,
                count,
                total_us,
            })
            .collect();
        by_user.sort_by(|a, b| b.count.cmp(&a.count).then(a.uid.cmp(&b.uid)));
        (by_type, by_user)
    }
}

/// Jobs and passes since the controller started.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub since: u64,
    pub submitted: u32,
    pub started: u32,
    pub completed: u32,
    pub canceled: u32,
    pub failed: u32,
    pub sched: SchedCounts,
    /// Jobs whose end is counted (ended jobs still in the core).
    ended: HashSet<JobId>,
}

impl Counters {
    /// Counters from `since`, with the jobs that had already ended then.
    pub fn new(since: u64, already_ended: impl Iterator<Item = JobId>) -> Counters {
        Counters {
            since,
            ended: already_ended.collect(),
            ..Counters::default()
        }
    }

    /// Counts `id`'s end once, by its final state.
    pub fn note_end(&mut self, id: JobId, state: JobState) {
        if !state.is_finished() || !self.ended.insert(id) {
            return;
        }
        match state {
            JobState::Completed => self.completed += 1,
            JobState::Cancelled => self.canceled += 1,
            _ => self.failed += 1,
        }
    }

    /// Forgets ended jobs the core no longer holds.
    pub fn forget_gone(&mut self, still_there: impl Fn(JobId) -> bool) {
        self.ended.retain(|id| still_there(*id));
    }

    /// Notes a scheduling pass over `queue` pending jobs.
    pub fn note_pass(&mut self, took: Duration, queue: usize) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let s = &mut self.sched;
        s.cycles += 1;
        s.last_us = us;
        s.max_us = s.max_us.max(us);
        s.sum_us += us;
        s.depth_sum += queue as u64;
        s.last_queue_len = u32::try_from(queue).unwrap_or(u32::MAX);
    }
}
