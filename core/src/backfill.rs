//! The availability profile a scheduling pass plans on: what each node has
//! free now, what running jobs release and when (their time limits), and the
//! reservations backfill made for higher-priority jobs. Answers "what is free
//! on node n for the whole window [t, t+d)". Knows no topology and no
//! priorities.

use smallvec::SmallVec;

use crate::id::NodeId;
use crate::node::{Node, NodeAlloc};
use crate::resources::{Resources, Time};

/// A time beyond any window: jobs without a time limit never release.
pub const NEVER: Time = Time::MAX / 4;

/// Backfill settings (slurm.conf SchedulerParameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackfillConfig {
    /// Whether lower-priority jobs may start ahead of reservations (false:
    /// strict priority order, sched/builtin).
    pub enabled: bool,
    /// bf_window in seconds: how far ahead reservations are planned.
    pub window: u64,
    /// bf_resolution in seconds: start times are rounded up to this.
    pub resolution: u64,
    /// bf_max_job_test: jobs a pass plans for.
    pub max_job_test: u32,
    /// bf_job_part_count_reserve: how many jobs get reservations (0: all
    /// tested jobs, Slurm's default).
    pub reserve_depth: u32,
}

impl Default for BackfillConfig {
    fn default() -> Self {
        BackfillConfig {
            enabled: true,
            window: 1440 * 60,
            resolution: 60,
            max_job_test: 500,
            reserve_depth: 0,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Hold {
    from: Time,
    until: Time,
    res: Resources,
}

/// Free resources over time, for one pass.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    now: Time,
    total: Vec<Resources>,
    free: Vec<Resources>,
    idle: Vec<bool>,
    /// When each node's running jobs end, with what they hold.
    releases: Vec<SmallVec<[(Time, Resources); 2]>>,
    /// When each node has nothing running.
    idle_at: Vec<Time>,
    reserved: Vec<SmallVec<[Hold; 1]>>,
    /// `idle_at` sorted, for the quick bound; rebuilt when stale.
    idle_sorted: Vec<Time>,
    idle_sorted_stale: bool,
}

impl Profile {
    /// The profile at `now`: `deadline(job)` tells when a running job ends
    /// at the latest.
    pub(crate) fn new(
        now: Time,
        nodes: &[Node],
        deadline: impl Fn(crate::id::JobId) -> Time,
        allocs: impl Fn(crate::id::JobId) -> Vec<(NodeId, Resources)>,
    ) -> Profile {
        let n = nodes.len();
        let mut releases: Vec<SmallVec<[(Time, Resources); 2]>> = vec![SmallVec::new(); n];
        let mut seen = std::collections::BTreeSet::new();
        for node in nodes {
            for &job in node.jobs() {
                if !seen.insert(job) {
                    continue;
                }
                let end = deadline(job).max(now);
                for (id, res) in allocs(job) {
                    releases[id.index()].push((end, res));
                }
            }
        }
        for list in &mut releases {
            list.sort_by_key(|(t, _)| *t);
        }
        let idle_at = releases
            .iter()
            .map(|l| l.last().map_or(now, |(t, _)| *t))
            .collect();
        Profile {
            now,
            total: nodes.iter().map(|n| n.config.resources()).collect(),
            free: nodes.iter().map(Node::free).collect(),
            idle: nodes.iter().map(Node::is_idle).collect(),
            releases,
            idle_at,
            reserved: vec![SmallVec::new(); n],
            idle_sorted: Vec::new(),
            idle_sorted_stale: true,
        }
    }

    /// A profile of the cluster with every node free and idle, at time 0.
    pub(crate) fn empty(nodes: &[Node]) -> Profile {
        let n = nodes.len();
        let total: Vec<Resources> = nodes.iter().map(|n| n.config.resources()).collect();
        Profile {
            now: 0,
            free: total.clone(),
            total,
            idle: vec![true; n],
            releases: vec![SmallVec::new(); n],
            idle_at: vec![0; n],
            reserved: vec![SmallVec::new(); n],
            idle_sorted: Vec::new(),
            idle_sorted_stale: true,
        }
    }

    /// Seconds from `t` until the first reservation on any of `nodes` that
    /// starts after `t` (NEVER if none): how long a job starting at `t` on
    /// them may run without delaying a reservation.
    pub(crate) fn room_before_hold(&self, nodes: &[NodeId], t: Time) -> u64 {
        nodes
            .iter()
            .flat_map(|n| self.reserved[n.index()].iter())
            .filter(|h| h.from >= t)
            .map(|h| h.from - t)
            .min()
            .unwrap_or(NEVER)
    }

    /// The pass's time.
    pub(crate) fn now(&self) -> Time {
        self.now
    }

    /// What node `n` has free for all of `[t, t + d)`, and whether nothing
    /// else runs or is reserved there in that window.
    pub(crate) fn free_over(&self, n: NodeId, t: Time, d: u64) -> (Resources, bool) {
        let i = n.index();
        let mut free = self.free[i];
        let mut idle = self.idle[i];
        if t > self.now {
            for (at, res) in &self.releases[i] {
                if *at <= t {
                    free = free.add(res);
                }
            }
            free = Resources {
                cpus: free.cpus.min(self.total[i].cpus),
                mem_mb: free.mem_mb.min(self.total[i].mem_mb),
                gpus: free.gpus.min(self.total[i].gpus),
            };
            idle = self.idle_at[i] <= t;
        }
        let end = t.saturating_add(d);
        for hold in &self.reserved[i] {
            if hold.from < end && hold.until > t {
                free = free.saturating_sub(&hold.res);
                idle = false;
            }
        }
        (free, idle)
    }

    /// An upper bound on the nodes that could be wholly free at `t`.
    pub(crate) fn idle_bound(&mut self, t: Time) -> usize {
        if self.idle_sorted_stale {
            self.idle_sorted.clear();
            self.idle_sorted.extend_from_slice(&self.idle_at);
            self.idle_sorted.sort_unstable();
            self.idle_sorted_stale = false;
        }
        self.idle_sorted.partition_point(|&at| at <= t)
    }

    /// Start times worth trying after `now`, in order: whenever something is
    /// released or a reservation ends, rounded up to the resolution, within
    /// the window.
    pub(crate) fn candidate_times(&self, window: u64, resolution: u64) -> Vec<Time> {
        let horizon = self.now.saturating_add(window);
        let round = |t: Time| {
            let r = resolution.max(1);
            self.now + (t - self.now).div_ceil(r) * r
        };
        let mut times: Vec<Time> = self
            .releases
            .iter()
            .flat_map(|l| l.iter().map(|(t, _)| *t))
            .chain(self.reserved.iter().flat_map(|l| l.iter().map(|h| h.until)))
            .filter(|&t| t > self.now && t <= horizon)
            .map(round)
            .collect();
        times.sort_unstable();
        times.dedup();
        times
    }

    /// Records a job started now on `alloc`, ending by `end`.
    pub(crate) fn start(&mut self, alloc: &[NodeAlloc], end: Time) {
        for a in alloc {
            let i = a.node.index();
            self.free[i] = self.free[i].saturating_sub(&a.res);
            self.idle[i] = false;
            let pos = self.releases[i].partition_point(|(t, _)| *t <= end);
            self.releases[i].insert(pos, (end, a.res));
            self.idle_at[i] = self.idle_at[i].max(end);
        }
        self.idle_sorted_stale = true;
    }

    /// Reserves `alloc` for `[from, until)`.
    pub(crate) fn reserve(&mut self, alloc: &[NodeAlloc], from: Time, until: Time) {
        for a in alloc {
            self.reserved[a.node.index()].push(Hold {
                from,
                until,
                res: a.res,
            });
        }
    }
}
