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

use spur_core::{JobId, JobState, PassSummary};
use spur_proto::{BackfillCounts, ClientRequest, RpcCount, SchedCounts, UserCount};

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
        ClientRequest::Nodes | ClientRequest::Domains | ClientRequest::Mesh => {
            (2007, "REQUEST_NODE_INFO")
        }
        ClientRequest::Partitions => (2009, "REQUEST_PARTITION_INFO"),
        ClientRequest::Diag | ClientRequest::ResetDiag => (2035, "REQUEST_STATS_INFO"),
        ClientRequest::Shares => (2022, "REQUEST_SHARE_INFO"),
        ClientRequest::Priorities(_) => (2026, "REQUEST_PRIORITY_FACTORS"),
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

/// Requests served, by type and by user, each kind in the order it was
/// first seen (slurmctld's table order, which sdiag's sorts start from).
#[derive(Debug, Default)]
pub(super) struct RpcTable {
    by_type: Vec<RpcCount>,
    type_row: HashMap<u16, usize>,
    by_user: Vec<UserCount>,
    user_row: HashMap<u32, usize>,
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
        let mut guard = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let t = &mut *guard;
        let next = t.by_type.len();
        let row = *t.type_row.entry(kind.0).or_insert(next);
        if row == next {
            t.by_type.push(RpcCount {
                type_id: kind.0,
                name: kind.1.to_string(),
                count: 0,
                total_us: 0,
            });
        }
        // Slurm's counters wrap; a long-lived table must not panic.
        t.by_type[row].count = t.by_type[row].count.wrapping_add(1);
        t.by_type[row].total_us = t.by_type[row].total_us.wrapping_add(micros);
        let next = t.by_user.len();
        let row = *t.user_row.entry(uid).or_insert(next);
        if row == next {
            t.by_user.push(UserCount {
                uid,
                count: 0,
                total_us: 0,
            });
        }
        t.by_user[row].count = t.by_user[row].count.wrapping_add(1);
        t.by_user[row].total_us = t.by_user[row].total_us.wrapping_add(micros);
    }

    /// The table's rows, each kind in the order it was first seen.
    pub(super) fn rows(&self) -> (Vec<RpcCount>, Vec<UserCount>) {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        (t.by_type.clone(), t.by_user.clone())
    }

    /// Forgets every request served (`sdiag -r`).
    pub(super) fn clear(&self) {
        *self.table.lock().unwrap_or_else(|e| e.into_inner()) = RpcTable::default();
    }
}

/// Jobs and passes since the counters began: the controller's start, the
/// last midnight (UTC) or the last `sdiag -r`, as slurmctld's.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub since: u64,
    pub submitted: u32,
    pub started: u32,
    pub completed: u32,
    pub canceled: u32,
    pub failed: u32,
    pub sched: SchedCounts,
    pub backfill: BackfillCounts,
    /// Jobs whose end is counted (ended jobs still in the core).
    ended: HashSet<JobId>,
    /// The next midnight, when the counters begin again.
    next_day: u64,
}

/// The midnight (UTC) after `t`.
fn next_midnight(t: u64) -> u64 {
    t - t % 86_400 + 86_400
}

impl Counters {
    /// Counters from `since`, with the jobs that had already ended then.
    pub fn new(since: u64, already_ended: impl Iterator<Item = JobId>) -> Counters {
        Counters {
            since,
            ended: already_ended.collect(),
            next_day: next_midnight(since),
            ..Counters::default()
        }
    }

    /// Begins the counters again at `now`: what slurmctld's reset_stats
    /// clears. The last pass's time and queue, and when backfill last ran
    /// and over how many start times, stay; `explicit` (sdiag -r) also
    /// clears the jobs backfilled since the start.
    pub fn reset(&mut self, now: u64, explicit: bool) {
        self.since = now;
        self.submitted = 0;
        self.started = 0;
        self.completed = 0;
        self.canceled = 0;
        self.failed = 0;
        self.sched = SchedCounts {
            last_us: self.sched.last_us,
            last_queue_len: self.sched.last_queue_len,
            ..SchedCounts::default()
        };
        let bf = &self.backfill;
        self.backfill = BackfillCounts {
            jobs_total: if explicit { 0 } else { bf.jobs_total },
            last_when: bf.last_when,
            table_size: bf.table_size,
            ..BackfillCounts::default()
        };
        self.next_day = next_midnight(now);
    }

    /// Begins the counters again when `now` has passed midnight.
    pub fn roll_day(&mut self, now: u64) {
        if now >= self.next_day {
            self.reset(now, false);
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

    /// Notes a scheduling pass at `now` that took `took` and did `pass`.
    /// One that planned for a job (which only backfill does) counts as a
    /// backfill cycle too.
    pub fn note_pass(&mut self, now: u64, took: Duration, pass: PassSummary) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let s = &mut self.sched;
        s.cycles += 1;
        s.last_us = us;
        s.max_us = s.max_us.max(us);
        s.sum_us += us;
        s.depth_sum += u64::from(pass.depth);
        s.last_queue_len = pass.queue;
        if pass.planned == 0 {
            return;
        }
        let b = &mut self.backfill;
        b.jobs_total += pass.backfilled;
        b.jobs += pass.backfilled;
        b.cycles += 1;
        b.last_when = now;
        b.last_us = us;
        b.max_us = b.max_us.max(us);
        b.sum_us += us;
        b.last_depth = pass.depth;
        b.last_depth_try = pass.planned;
        b.depth_sum += u64::from(pass.depth);
        b.depth_try_sum += u64::from(pass.planned);
        b.queue_len = pass.queue;
        b.queue_len_sum += u64::from(pass.queue);
        b.table_size = pass.table_size;
        b.table_size_sum += u64::from(pass.table_size);
    }
}

/// Microseconds 1,000 reads of the clock take (sdiag's gettimeofday line).
pub(super) fn clock_latency_us() -> u64 {
    let began = std::time::Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(std::time::SystemTime::now());
    }
    u64::try_from(began.elapsed().as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(planned: u32, backfilled: u32) -> PassSummary {
        PassSummary {
            at: 0,
            queue: 5,
            depth: 4,
            planned,
            started: backfilled + 1,
            backfilled,
            table_size: 3,
        }
    }

    #[test]
    fn a_pass_that_planned_is_a_backfill_cycle_too() {
        let mut c = Counters::new(1_000, std::iter::empty());
        c.note_pass(1_001, Duration::from_micros(300), pass(0, 0));
        assert_eq!((c.sched.cycles, c.backfill.cycles), (1, 0));
        c.note_pass(1_002, Duration::from_micros(500), pass(2, 1));
        assert_eq!(
            (c.sched.cycles, c.sched.depth_sum, c.sched.max_us),
            (2, 8, 500)
        );
        let b = &c.backfill;
        assert_eq!((b.cycles, b.last_when, b.last_us), (1, 1_002, 500));
        assert_eq!((b.jobs_total, b.jobs, b.last_depth_try), (1, 1, 2));
        assert_eq!((b.queue_len, b.table_size), (5, 3));
    }

    #[test]
    fn counters_begin_again_at_midnight_and_on_a_reset() {
        let day = 86_400 * 20_000;
        let mut c = Counters::new(day + 100, std::iter::empty());
        c.submitted = 4;
        c.note_pass(day + 200, Duration::from_micros(50), pass(1, 2));
        c.roll_day(day + 86_399);
        assert_eq!(c.submitted, 4);
        c.roll_day(day + 86_400);
        assert_eq!((c.since, c.submitted, c.sched.cycles), (day + 86_400, 0, 0));
        // What slurmctld keeps over its daily reset.
        assert_eq!((c.sched.last_us, c.sched.last_queue_len), (50, 5));
        assert_eq!((c.backfill.jobs_total, c.backfill.jobs), (2, 0));
        assert_eq!(c.backfill.last_when, day + 200);
        c.roll_day(day + 86_401);
        assert_eq!(c.since, day + 86_400, "once a day");
        c.reset(day + 90_000, true);
        assert_eq!((c.since, c.backfill.jobs_total), (day + 90_000, 0));
    }
}
