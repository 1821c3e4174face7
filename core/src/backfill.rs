//! The availability profile a scheduling pass plans on: what each node has
//! free now, what running jobs release and when (their time limits), and the
//! reservations backfill made for higher-priority jobs. Answers "what is free
//! on node n for the whole window [t, t+d)". Knows no topology and no
//! priorities.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::id::NodeId;
use crate::node::{Node, NodeAlloc};
use crate::resources::{Resources, Time};

/// A time beyond any window: jobs without a time limit never release.
pub const NEVER: Time = Time::MAX / 4;

/// Backfill settings (slurm.conf SchedulerParameters). `bf_continue` has no
/// counterpart: Slurm needs it because its backfill cycle releases locks and
/// restarts; a spur pass never yields, so every pass is whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Reservations of whole nodes: (from, until, nodes).
    whole_holds: Vec<(Time, Time, usize)>,
    /// Per node, its whole-node holds, sorted (they never overlap).
    whole_reserved: Vec<SmallVec<[(Time, Time); 2]>>,
    /// Per node, how many holds take only part of it.
    partial_holds: Vec<u32>,
    /// Base block of each node (empty: no blocks), for per-block bounds.
    groups: Vec<Option<u32>>,
    /// Per block, its nodes' `idle_at`, sorted; rebuilt when stale.
    group_idle: Vec<Vec<Time>>,
    group_idle_stale: bool,
    /// Per block, whole-node holds: (from, until, nodes in the block).
    group_holds: Vec<Vec<(Time, Time, u32)>>,
    /// Free GPUs and CPUs now, summed over nodes.
    free_gpus: u64,
    free_cpus: u64,
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
        let free: Vec<Resources> = nodes
            .iter()
            .map(|n| {
                if n.is_schedulable() {
                    n.free()
                } else {
                    Resources::ZERO
                }
            })
            .collect();
        Profile::with(
            now,
            nodes,
            free,
            nodes.iter().map(Node::is_idle).collect(),
            releases,
            idle_at,
        )
    }

    /// A profile of the cluster with every node free and idle, at time 0.
    pub(crate) fn empty(nodes: &[Node]) -> Profile {
        let n = nodes.len();
        let total = nodes.iter().map(|n| n.config.resources()).collect();
        Profile::with(
            0,
            nodes,
            total,
            vec![true; n],
            vec![SmallVec::new(); n],
            vec![0; n],
        )
    }

    /// A profile from what is free, idle and released per node, with no
    /// reservations yet.
    fn with(
        now: Time,
        nodes: &[Node],
        free: Vec<Resources>,
        idle: Vec<bool>,
        releases: Vec<SmallVec<[(Time, Resources); 2]>>,
        idle_at: Vec<Time>,
    ) -> Profile {
        let n = nodes.len();
        Profile {
            now,
            total: nodes.iter().map(|n| n.config.resources()).collect(),
            free_gpus: free.iter().map(|f| u64::from(f.gpus)).sum(),
            free_cpus: free.iter().map(|f| u64::from(f.cpus)).sum(),
            free,
            idle,
            releases,
            idle_at,
            reserved: vec![SmallVec::new(); n],
            idle_sorted: Vec::new(),
            idle_sorted_stale: true,
            whole_holds: Vec::new(),
            whole_reserved: vec![SmallVec::new(); n],
            partial_holds: vec![0; n],
            groups: Vec::new(),
            group_idle: Vec::new(),
            group_idle_stale: true,
            group_holds: Vec::new(),
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

    /// Whether nothing runs or is reserved on node `n` during `[t, t + d)`
    /// (the question whole-node jobs ask; cheaper than [`Profile::free_over`]).
    pub(crate) fn is_idle_over(&self, n: NodeId, t: Time, d: u64) -> bool {
        let i = n.index();
        let idle = if t > self.now {
            self.idle_at[i] <= t
        } else {
            self.idle[i]
        };
        if !idle {
            return false;
        }
        let end = t.saturating_add(d);
        if self.partial_holds[i] > 0 {
            return !self.reserved[i].iter().any(|h| h.from < end && h.until > t);
        }
        // Whole-node holds on one node never overlap, so sorted by start
        // they are sorted by end too: only the first ending after `t` can
        // reach into the window.
        let holds = &self.whole_reserved[i];
        let first = holds.partition_point(|&(_, until)| until <= t);
        holds.get(first).is_none_or(|&(from, _)| from >= end)
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

    /// `t` rounded up to the resolution, counted from `now`.
    pub(crate) fn round_time(&self, t: Time, resolution: u64) -> Time {
        if t <= self.now || t >= NEVER {
            return t;
        }
        let r = resolution.max(1);
        self.now + (t - self.now).div_ceil(r) * r
    }

    /// Whether a job of `shape` certainly cannot start now: fewer idle
    /// nodes, free GPUs or free CPUs in the whole cluster than it needs.
    pub(crate) fn cannot_fit_now(&mut self, shape: &crate::spec::Shape) -> bool {
        if shape.is_whole_node() {
            return self.idle_bound(self.now) < shape.nodes_min as usize;
        }
        let tasks = shape.tasks;
        let gpus = u64::from(
            shape
                .gpus_total
                .unwrap_or(shape.gpus_per_node * shape.nodes_min + shape.gpus_per_task * tasks),
        );
        let cpus = u64::from(tasks) * u64::from(shape.cpus_per_task);
        self.free_gpus < gpus || self.free_cpus < cpus
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
            self.free_gpus = self.free_gpus.saturating_sub(u64::from(a.res.gpus));
            self.free_cpus = self.free_cpus.saturating_sub(u64::from(a.res.cpus));
            self.idle[i] = false;
            let pos = self.releases[i].partition_point(|(t, _)| *t <= end);
            self.releases[i].insert(pos, (end, a.res));
            self.idle_at[i] = self.idle_at[i].max(end);
        }
        self.idle_sorted_stale = true;
        self.group_idle_stale = true;
    }

    /// Tells the profile each node's base block, for [`Profile::block_bounds`].
    pub(crate) fn set_groups(&mut self, groups: Vec<Option<u32>>) {
        let count = groups
            .iter()
            .flatten()
            .map(|&g| g as usize + 1)
            .max()
            .unwrap_or(0);
        self.groups = groups;
        self.group_idle = vec![Vec::new(); count];
        self.group_holds = vec![Vec::new(); count];
        self.group_idle_stale = true;
    }

    /// Per base block, an upper bound on the nodes a whole-node job could
    /// have there at `t`: idle by `t`, less those held at the instant `t`.
    /// Empty when the profile knows no blocks.
    pub(crate) fn block_bounds(&mut self, t: Time, out: &mut Vec<u32>) {
        out.clear();
        if self.group_idle.is_empty() {
            return;
        }
        if self.group_idle_stale {
            for list in &mut self.group_idle {
                list.clear();
            }
            for (i, g) in self.groups.iter().enumerate() {
                if let Some(g) = g {
                    self.group_idle[*g as usize].push(self.idle_at[i]);
                }
            }
            for list in &mut self.group_idle {
                list.sort_unstable();
            }
            self.group_idle_stale = false;
        }
        for (idle, holds) in self.group_idle.iter().zip(&self.group_holds) {
            let idle_now = idle.partition_point(|&at| at <= t) as u32;
            let held: u32 = holds
                .iter()
                .filter(|h| h.0 <= t && t < h.1)
                .map(|h| h.2)
                .sum();
            out.push(idle_now.saturating_sub(held));
        }
    }

    /// Nodes held whole by reservations at instant `t`. Such a node is idle
    /// by `t` (it was reserved free), so `idle_bound(t)` minus this is still
    /// an upper bound on the nodes a whole-node job can get at `t`.
    pub(crate) fn whole_holds_at(&self, t: Time) -> usize {
        self.whole_holds
            .iter()
            .filter(|h| h.0 <= t && t < h.1)
            .map(|h| h.2)
            .sum()
    }

    /// Reserves `alloc` (whole nodes) for `[from, until)`.
    pub(crate) fn reserve_whole(&mut self, alloc: &[NodeAlloc], from: Time, until: Time) {
        self.whole_holds.push((from, until, alloc.len()));
        if !self.group_holds.is_empty() {
            let mut per_group: std::collections::BTreeMap<u32, u32> =
                std::collections::BTreeMap::new();
            for a in alloc {
                if let Some(Some(g)) = self.groups.get(a.node.index()) {
                    *per_group.entry(*g).or_default() += 1;
                }
            }
            for (g, count) in per_group {
                self.group_holds[g as usize].push((from, until, count));
            }
        }
        for a in alloc {
            let holds = &mut self.whole_reserved[a.node.index()];
            let pos = holds.partition_point(|&(f, _)| f < from);
            holds.insert(pos, (from, until));
        }
        self.hold(alloc, from, until);
    }

    /// Reserves part of the nodes of `alloc` for `[from, until)`.
    pub(crate) fn reserve(&mut self, alloc: &[NodeAlloc], from: Time, until: Time) {
        for a in alloc {
            self.partial_holds[a.node.index()] += 1;
        }
        self.hold(alloc, from, until);
    }

    fn hold(&mut self, alloc: &[NodeAlloc], from: Time, until: Time) {
        for a in alloc {
            self.reserved[a.node.index()].push(Hold {
                from,
                until,
                res: a.res,
            });
        }
    }
}
