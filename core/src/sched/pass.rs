//! The bookkeeping of one scheduling pass: what it has tested and reserved,
//! the candidate start times, and the memos that let it skip work. Within a
//! pass the profile only fills up, so a shape that failed (or could start no
//! earlier than t) fails again (or starts no earlier) for as long or longer.

use std::collections::{BTreeMap, BTreeSet};

use crate::id::{JobId, PartitionId};
use crate::job::Job;
use crate::resources::Time;
use crate::spec::{Exclusive, Shape};

/// Bookkeeping of one pass.
#[derive(Default)]
pub(super) struct Pass {
    pub(super) blocked: BTreeSet<PartitionId>,
    pub(super) tested: u32,
    pub(super) reserved: u32,
    /// Jobs started, and of those, started past a waiting job of their
    /// partition.
    pub(super) started: u32,
    pub(super) backfilled: u32,
    pub(super) times: Vec<Time>,
    pub(super) times_stale: bool,
    pub(super) memo: BTreeMap<MemoKey, Vec<(Shape, u64, Option<Time>)>>,
    /// Shapes that could not start now for a time limit: within a pass,
    /// starting jobs only takes resources, so the same shape fails again for
    /// as long or longer.
    pub(super) failed: BTreeMap<MemoKey, Vec<(Shape, u64)>>,
    /// Without backfill, or in a head pass, a job that could not start
    /// stops the pass.
    pub(super) stop: bool,
    /// A head pass ([`crate::Core::schedule_head`]): nothing is planned.
    pub(super) head: bool,
    /// Running tasks per job array, counting those started in this pass,
    /// for the arrays' throttles.
    pub(super) array_running: BTreeMap<JobId, u32>,
}

impl Pass {
    pub(super) fn failed_now(&self, job: &Job, d: u64, block_wait: u64) -> bool {
        let Some(key) = MemoKey::of(job, block_wait) else {
            return false;
        };
        job.spec.time_min.is_none()
            && self
                .failed
                .get(&key)
                .is_some_and(|list| list.iter().any(|(s, dd)| *dd <= d && *s == job.shape))
    }

    pub(super) fn note_failed_now(&mut self, job: &Job, d: u64, block_wait: u64) {
        if let (Some(key), None) = (MemoKey::of(job, block_wait), job.spec.time_min) {
            let list = self.failed.entry(key).or_default();
            if !list.iter().any(|(s, dd)| *dd <= d && *s == job.shape) {
                list.push((job.shape.clone(), d));
            }
        }
    }

    /// A new candidate start time (a reservation's end, a started job's
    /// end), kept sorted.
    pub(super) fn add_time(&mut self, t: Time, horizon: Time) {
        if t > horizon || self.times_stale {
            return;
        }
        if let Err(pos) = self.times.binary_search(&t) {
            self.times.insert(pos, t);
        }
    }

    /// What earlier jobs of the same shape tell about this one: within a
    /// pass the profile only fills up, so a job needing as much for at least
    /// as long cannot start earlier than they could.
    pub(super) fn memo_floor(&self, key: &MemoKey, shape: &Shape, d: u64) -> MemoFloor {
        let mut floor = 0;
        for (s, dd, result) in self.memo.get(key).into_iter().flatten() {
            if s == shape && *dd <= d {
                match result {
                    None => return MemoFloor::Never,
                    Some(t) => floor = floor.max(*t),
                }
            }
        }
        MemoFloor::From(floor)
    }
}

pub(super) enum MemoFloor {
    Never,
    From(Time),
}

/// Jobs with node filters, `--switches` or `--exclusive=user` are not
/// memoized: whether they fit depends on more than their shape.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct MemoKey {
    partition: PartitionId,
    nodes: u32,
    tasks: u32,
    /// When the job's block wait ends: until then it takes only tight
    /// placements, so jobs of one shape but another age differ.
    wait_end: Option<Time>,
}

impl MemoKey {
    pub(super) fn of(job: &Job, block_wait: u64) -> Option<MemoKey> {
        (job.required.is_empty()
            && job.excluded.is_empty()
            && job.constraint.is_none()
            && job.shape.switches.is_none()
            // Whether --exclusive=user fits depends on who else runs there.
            && job.shape.exclusive != Exclusive::User)
            .then_some(MemoKey {
                partition: job.partition,
                nodes: job.shape.nodes_min,
                tasks: job.shape.tasks,
                wait_end: (block_wait > 0 && job.shape.nodes_min > 1)
                    .then_some(job.eligible_time + block_wait),
            })
    }
}
