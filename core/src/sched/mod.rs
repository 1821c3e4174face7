//! One scheduling pass: time limits and signals, blocking reasons and
//! priorities, then every pending job in priority order is started now if it
//! fits without delaying a reservation, else (backfill) given a reservation at
//! the earliest time it fits, else left with a reason. Preemption is tried for
//! jobs that may preempt. Between full passes, a head pass starts what fits
//! at the head of the last full pass's order. Placement decides where; this
//! module decides who and when.

mod pass;

use std::cmp::Reverse;
use std::collections::BTreeMap;

use crate::backfill::{Profile, NEVER};
use crate::constraint::Constraint;
use crate::core::{Core, PreemptType};
use crate::dependency::DependencyStatus;
use crate::effects::{Effect, Effects};
use crate::id::{JobId, NodeId, PartitionId};
use crate::job::{Job, JobState, KillCause, Resolved};
use crate::node::{Node, NodeAlloc, NodeState};
use crate::partition::PartitionState;
use crate::placement::{distribute_tasks, fit_key, node_alloc, tasks_fit, Miss, Request};
use crate::preempt::Overlay;
use crate::queue::{PriorityContext, QueuePolicy};
use crate::reason::Reason;
use crate::resources::{GpuSet, Time};
use crate::spec::{Exclusive, Shape, SubmitError};

use self::pass::{MemoFloor, MemoKey, Pass};

/// What one scheduling pass did: the figures sdiag's main and backfill
/// statistics show of a cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassSummary {
    /// When it ran.
    pub at: Time,
    /// Pending jobs not held when the pass began (slurmctld leaves held
    /// jobs out of its queue too).
    pub queue: u32,
    /// Jobs the pass tried to start (the rest waited behind a job that
    /// stopped it, or their array's throttle).
    pub depth: u32,
    /// Jobs that could not start and were planned for: given the earliest
    /// start that delays no reservation, or found to have none.
    pub planned: u32,
    /// Jobs it started.
    pub started: u32,
    /// Of those, jobs started while a job of higher priority in their
    /// partition waited: backfilled.
    pub backfilled: u32,
    /// The start times the plans were looked for at (backfill's table).
    pub table_size: u32,
}

/// A count of a pass, saturated to its field's width.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Where a pending job comes in a pass's order, first first: partition
/// PriorityTier and priority (both highest first), eligible time, then its
/// array and task id (tasks of one array keep their order, the meta record
/// after its split-off tasks, as slurmctld sorts), then its id.
pub(crate) type OrderKey = (Reverse<u32>, Reverse<u32>, Time, (JobId, u32), JobId);

/// What head passes go by: the order the last full pass tried the queue
/// in, and the first place in it of a job filed since.
#[derive(Debug, Default)]
pub(crate) struct HeadOrder {
    order: Vec<OrderKey>,
    /// Jobs waiting, not held, that the full pass left out of its order
    /// (blocked: a dependency, a begin time, a limit).
    left_out: usize,
    /// The least key of the jobs filed since the full pass (its place).
    barrier: Option<OrderKey>,
    /// How many of those jobs `barrier` accounts for.
    seen: usize,
}

/// Per-node buffers reused by every placement of a pass.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    caps: Vec<u32>,
    keys: Vec<u64>,
    idle_blocks: Vec<bool>,
    chosen: Vec<NodeId>,
    /// Per-block upper bounds of idle nodes at the time being tried.
    bounds: Vec<u32>,
    /// Nodes a placement looks at.
    visit: Vec<NodeId>,
}

/// What one job needs from a placement attempt (the parts of `Job` and
/// `Resolved` that placement reads).
pub(crate) struct Want<'a> {
    pub shape: &'a Shape,
    pub partition: PartitionId,
    pub required: &'a [NodeId],
    pub excluded: &'a [NodeId],
    pub constraint: Option<&'a Constraint>,
    pub user: crate::id::Uid,
    pub wait_over: bool,
}

impl<'a> Want<'a> {
    /// What `job` asks for at time `now`; `block_wait` is how long a job
    /// waits for the fewest base blocks its size needs.
    pub(crate) fn of_job(job: &'a Job, now: Time, block_wait: u64) -> Want<'a> {
        Want {
            shape: &job.shape,
            partition: job.partition,
            required: &job.required,
            excluded: &job.excluded,
            constraint: job.constraint.as_deref(),
            user: job.spec.user,
            wait_over: now
                >= job.eligible_time + job.shape.switches.map_or(block_wait, |(_, wait)| wait),
        }
    }

    fn of_resolved(r: &'a Resolved, user: crate::id::Uid) -> Want<'a> {
        Want {
            shape: &r.shape,
            partition: r.partition,
            required: &r.required,
            excluded: &r.excluded,
            constraint: r.constraint.as_ref(),
            user,
            wait_over: true,
        }
    }
}

/// Whether `node` matches the job's static filters (features, GPU type,
/// exclusions); partition membership is the caller's.
pub(crate) fn node_matches(core: &Core, node: &Node, n: NodeId, r: &Resolved) -> bool {
    matches_static(
        core,
        node,
        n,
        r.excluded.as_slice(),
        r.constraint.as_ref(),
        r.shape.gpu_type,
    )
}

fn matches_static(
    core: &Core,
    node: &Node,
    n: NodeId,
    excluded: &[NodeId],
    constraint: Option<&Constraint>,
    gpu_type: Option<u16>,
) -> bool {
    if excluded.binary_search(&n).is_ok() {
        return false;
    }
    if gpu_type.is_some() && node.gpu_type != gpu_type {
        return false;
    }
    match constraint {
        None => true,
        Some(c) => c.matches(&|f: &str| {
            core.feature_id(f)
                .is_some_and(|id| node.features.binary_search(&id).is_ok())
        }),
    }
}

/// A placement of `r` on the cluster with every node free and up, to tell
/// at submission whether the job could ever run.
pub(crate) fn place_on_empty(core: &Core, r: &Resolved) -> Option<()> {
    let profile = core.empty_profile();
    let want = Want::of_resolved(r, crate::id::Uid(0));
    let mut scratch = Scratch::default();
    let alts: Vec<Option<&Constraint>> = match r.constraint.as_ref() {
        Some(c) => c.alternatives().into_iter().map(Some).collect(),
        None => vec![None],
    };
    alts.into_iter().find_map(|alt| {
        core.try_place(&want, alt, profile, 0, NEVER, None, &mut scratch, true, &[])
            .ok()
            .map(|_| ())
    })
}

impl Core {
    /// Whether a pass could start the pending job `id` now. False only
    /// where it cannot: the job is held, or fewer nodes of its partition
    /// than it asks for are up, match it and have room for its per-node
    /// demand now (a pass takes away more still: reservations, topology,
    /// other users). Always true with preemption, which makes room. A
    /// caller that has only submitted jobs a pass could not start may
    /// leave the pass for later: it would start nothing, and only tell
    /// the new jobs why they wait.
    pub fn could_start_now(&self, id: JobId) -> bool {
        let Some(job) = self.jobs.get(&id) else {
            return false;
        };
        if job.state() != JobState::Pending || job.hold.is_some() {
            return false;
        }
        if self.config.preempt != PreemptType::None {
            return true;
        }
        let shape = &job.shape;
        let min_tasks = shape.min_tasks_per_node();
        let excluded = job.excluded.as_ref();
        let constraint = job.constraint.as_deref();
        let roomy = self.partitions[job.partition.index()]
            .nodes
            .iter()
            .filter(|&&n| {
                let node = &self.nodes[n.index()];
                node.is_schedulable()
                    && matches_static(self, node, n, excluded, constraint, shape.gpu_type)
                    && tasks_fit(
                        shape,
                        &node.config.resources(),
                        &node.free(),
                        node.is_idle(),
                    ) >= min_tasks
            })
            .take(shape.nodes_min.max(1) as usize)
            .count();
        roomy >= shape.nodes_min.max(1) as usize
    }

    pub(crate) fn feature_id(&self, name: &str) -> Option<u16> {
        self.features
            .iter()
            .position(|f| f == name)
            .map(|i| i as u16)
    }

    /// Runs one scheduling pass at `now`. Dependencies are evaluated first
    /// (jobs whose dependency can never be met may be cancelled); a job
    /// array's meta record starts its tasks in task-id order, each split off
    /// as a job of its own, as many in one pass as fit and its throttle
    /// allows.
    pub fn schedule(&mut self, now: Time, effects: &mut impl Effects) {
        self.note_pass(now);
        self.enforce_limits(now, effects);
        self.enforce_deadlines(now, effects);
        self.split_corresponding_tasks(effects);
        self.update_dependencies(now, effects);
        // Every job filed by now is in the order.
        self.pending.clear_filed();
        let waiting = self.pending.unheld().len();
        let order = self.queue_order(now);
        let left_out = waiting - order.len();
        let mut profile = self.profile(now);
        let mut scratch = Scratch::default();
        let mut pass = Pass {
            times_stale: true,
            ..Pass::default()
        };
        pass.array_running = self.running_per_array();
        let mut summary = PassSummary {
            at: now,
            queue: count(order.len()),
            ..PassSummary::default()
        };
        for key in &order {
            let id = key.4;
            // Loops only while a meta record splits tasks off to start them.
            loop {
                if pass.stop {
                    self.set_reason(id, Reason::Priority);
                    break;
                }
                if self.is_throttled(&self.jobs[&id], &pass.array_running) {
                    self.set_reason(id, Reason::JobArrayTaskLimit);
                    break;
                }
                summary.depth += 1;
                if !self.schedule_one(id, now, &mut profile, &mut scratch, &mut pass, effects) {
                    break;
                }
            }
        }
        summary.planned = pass.tested;
        summary.started = pass.started;
        summary.backfilled = pass.backfilled;
        summary.table_size = if pass.times_stale {
            0
        } else {
            count(pass.times.len())
        };
        self.last_pass = summary;
        self.head = HeadOrder {
            order,
            left_out,
            ..HeadOrder::default()
        };
    }

    /// Whether the last full pass's order holds every job waiting now
    /// that is not held: it left none out as blocked, and none was filed
    /// since. A head pass then tries what a full pass would try first.
    pub fn head_sees_all(&self) -> bool {
        let unheld = self.pending.unheld();
        self.head.left_out == 0 && !self.pending.filed().iter().any(|id| unheld.contains(id))
    }

    /// Whether a node that takes jobs is idle or mixed (a CPU free, and no
    /// exclusive job holding it whole): where none is, no pass can start
    /// a job.
    pub fn has_room(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| n.is_schedulable() && matches!(n.state(), NodeState::Idle | NodeState::Mixed))
    }

    /// A pass for when resources came free between full passes
    /// ([`Core::schedule`]): the jobs at the head of the last full pass's
    /// order are started, in that order, while they fit now, and the first
    /// that does not ends it, as slurmctld's main scheduler stops at a job
    /// it cannot start between its backfill cycles. Its cost follows the
    /// jobs it starts, not the length of the queue. It passes no job: it
    /// ends at the place of any job filed since the full pass (submitted,
    /// released, its priority changed), which that pass did not order.
    /// Jobs blocked now (their partition down, a limit reached) are left
    /// for the full pass, as are reasons, reservations, preemption and
    /// dependencies. It tries at most `queue_depth` jobs (slurmctld's
    /// default_queue_depth). Returns what it did.
    pub fn schedule_head(&mut self, now: Time, effects: &mut impl Effects) -> PassSummary {
        self.note_head_pass(now);
        let barrier = self.head_barrier(now);
        let order = std::mem::take(&mut self.head.order);
        let mut profile = self.profile(now);
        let mut scratch = Scratch::default();
        let mut pass = Pass {
            times_stale: true,
            head: true,
            ..Pass::default()
        };
        let mut summary = PassSummary {
            at: now,
            queue: count(self.pending.unheld().len()),
            ..PassSummary::default()
        };
        // Counted when a job first needs them.
        let mut arrays_counted = false;
        let mut per_user_qos = None;
        for key in &order {
            if pass.stop
                || summary.depth >= self.config.queue_depth
                || barrier.is_some_and(|b| *key >= b)
            {
                break;
            }
            let id = key.4;
            if !self.pending.unheld().contains(&id) {
                continue;
            }
            let job = &self.jobs[&id];
            if job.array.is_some() && !arrays_counted {
                pass.array_running = self.running_per_array();
                arrays_counted = true;
            }
            let limited = job
                .qos
                .is_some_and(|q| self.qos[q.index()].max_jobs_per_user.is_some());
            let per_user_qos: &BTreeMap<_, _> = match (limited, &mut per_user_qos) {
                (true, slot) => slot.get_or_insert_with(|| self.running_per_user_qos()),
                (false, _) => &BTreeMap::new(),
            };
            if self
                .blocking_reason(job, now, per_user_qos, &pass.array_running)
                .is_some()
            {
                continue;
            }
            // An array's meta record counts each task it tries.
            loop {
                if summary.depth >= self.config.queue_depth
                    || self.is_throttled(&self.jobs[&id], &pass.array_running)
                {
                    break;
                }
                summary.depth += 1;
                if !self.schedule_one(id, now, &mut profile, &mut scratch, &mut pass, effects) {
                    break;
                }
            }
        }
        self.head.order = order;
        summary.started = pass.started;
        summary
    }

    /// The place of the first job filed since the last full pass, in its
    /// order, with priorities at `now`: where a head pass ends.
    fn head_barrier(&mut self, now: Time) -> Option<OrderKey> {
        let filed = self.pending.filed();
        let mut barrier = self.head.barrier;
        for id in &filed[self.head.seen.min(filed.len())..] {
            if !self.pending.unheld().contains(id) {
                continue;
            }
            let job = &self.jobs[id];
            let key = self.order_key(job, self.priority_at(job, now));
            barrier = Some(barrier.map_or(key, |b| b.min(key)));
        }
        self.head.seen = filed.len();
        self.head.barrier = barrier;
        barrier
    }

    /// Starts one pending job now if it fits without delaying a
    /// reservation, else preempts for it or plans it (backfill). True when
    /// it was a meta record that started a task and has tasks left to try.
    fn schedule_one(
        &mut self,
        id: JobId,
        now: Time,
        profile: &mut Profile,
        scratch: &mut Scratch,
        pass: &mut Pass,
        effects: &mut impl Effects,
    ) -> bool {
        let placed = {
            let job = &self.jobs[&id];
            let d = job.time_limit.unwrap_or(NEVER);
            if profile.cannot_fit_now(&job.shape) || pass.failed_now(job, d, self.config.block_wait)
            {
                Err(Miss::Resources)
            } else {
                if job.shape.is_whole_node() {
                    profile.block_bounds(now, &mut scratch.bounds);
                } else {
                    scratch.bounds.clear();
                }
                let placed = self.place_job(job, profile, now, d, scratch);
                if placed.is_err() {
                    pass.note_failed_now(job, d, self.config.block_wait);
                }
                placed
            }
        };
        match placed {
            Ok((alloc, limit)) => {
                // A job of higher priority in this partition could not start.
                let passed = pass.blocked.contains(&self.jobs[&id].partition);
                let (started, end) = self.start_job(id, alloc, limit, now, profile, effects);
                if self.running.contains(&started) {
                    pass.started += 1;
                    pass.backfilled += u32::from(passed);
                }
                let bf = self.config.backfill;
                pass.add_time(
                    profile.round_time(end, bf.resolution),
                    now.saturating_add(bf.window),
                );
                if let Some(array) = self.job(started).and_then(Job::array_job_id) {
                    *pass.array_running.entry(array).or_insert(0) += 1;
                }
                return started != id && self.pending.contains(&id);
            }
            Err(miss) => {
                let job = &self.jobs[&id];
                let first = pass.blocked.insert(job.partition);
                let reason = match miss {
                    Miss::Switches => Reason::Switches,
                    Miss::Resources if first => Reason::Resources,
                    Miss::Resources => Reason::Priority,
                };
                self.set_reason(id, reason);
            }
        }
        if pass.head {
            pass.stop = true;
            return false;
        }
        if self.config.preempt != PreemptType::None
            && self.try_preempt(id, now, profile, scratch, effects)
        {
            return false;
        }
        if !self.config.backfill.enabled {
            // Strict priority order: nothing may pass a blocked job.
            pass.stop = true;
            return false;
        }
        self.plan_reservation(id, now, profile, scratch, pass);
        false
    }

    /// When and where a job would start if submitted now, the question
    /// `sbatch --test-only` asks: the earliest time its request fits while
    /// running jobs end at their time limits. As Slurm's will-run test, it
    /// does not queue behind pending jobs. `None`: never, with the nodes
    /// that are up.
    pub fn will_run(
        &self,
        spec: &crate::spec::JobSpec,
        now: Time,
    ) -> Result<Option<(Time, Vec<NodeId>)>, SubmitError> {
        let resolved = self.resolve(spec)?;
        self.check_feasible(&resolved)?;
        let profile = self.profile(now);
        let want = Want::of_resolved(&resolved, spec.user);
        let d = resolved.time_limit.unwrap_or(NEVER);
        let mut scratch = Scratch::default();
        let times = std::iter::once(now).chain(profile.candidate_times(NEVER, 1));
        for t in times {
            if let Ok(alloc) = self.place_alternatives(&want, &profile, t, d, None, &mut scratch) {
                return Ok(Some((t, alloc.iter().map(|a| a.node).collect())));
            }
        }
        Ok(None)
    }

    pub(crate) fn set_reason(&mut self, id: JobId, reason: Reason) {
        if let Some(job) = self.jobs.get_mut(&id) {
            job.set_pending_reason(reason);
            if reason != Reason::Resources && reason != Reason::Priority {
                job.forget_plan();
            }
        }
    }

    /// Time limits and `--signal`: kills and signals due at `now`.
    fn enforce_limits(&mut self, now: Time, effects: &mut impl Effects) {
        let kill_wait = self.config.kill_wait;
        for id in self.running.iter().copied().collect::<Vec<_>>() {
            let Some(job) = self.jobs.get_mut(&id) else {
                continue;
            };
            let Some(deadline) = job.deadline() else {
                continue;
            };
            if let Some((signal, before)) = job.spec.signal {
                if !job.signaled && job.kill.is_none() && now >= deadline.saturating_sub(before) {
                    job.signaled = true;
                    effects.emit(Effect::SignalJob { job: id, signal });
                }
            }
            if now >= deadline && job.kill.is_none() && job.mark_kill(KillCause::TimeLimit).is_ok()
            {
                effects.emit(Effect::KillJob {
                    job: id,
                    cause: KillCause::TimeLimit,
                    grace: kill_wait,
                });
            }
        }
    }

    /// `--deadline`: ends the pending jobs that could no longer end by
    /// their deadline if they started now (slurmctld's deadline_ok).
    fn enforce_deadlines(&mut self, now: Time, effects: &mut impl Effects) {
        let missed: Vec<JobId> = self
            .pending
            .unheld()
            .iter()
            .filter(|id| {
                self.jobs[*id]
                    .last_start_for_deadline()
                    .is_some_and(|t| now > t)
            })
            .copied()
            .collect();
        for id in missed {
            let job = self.jobs.get_mut(&id).expect("pending ids are jobs");
            if job.miss_deadline(now).is_ok() {
                self.pending_ended(id, effects);
                self.note_task_end(id);
            }
        }
    }

    /// Running jobs per user and QOS, for QOS MaxJobsPerUser.
    fn running_per_user_qos(&self) -> BTreeMap<(crate::id::Uid, crate::id::QosId), u32> {
        let mut counts = BTreeMap::new();
        for job in self.running.iter().filter_map(|id| self.jobs.get(id)) {
            if let Some(q) = job.qos {
                *counts.entry((job.spec.user, q)).or_default() += 1;
            }
        }
        counts
    }

    /// Where `job`, of `priority`, comes in a pass's order.
    fn order_key(&self, job: &Job, priority: u32) -> OrderKey {
        let tier = self.partitions[job.partition.index()].priority_tier;
        let array_order = (
            job.array_job_id().unwrap_or(job.id),
            job.array_task_id().unwrap_or(u32::MAX),
        );
        (
            Reverse(tier),
            Reverse(priority),
            job.eligible_time,
            array_order,
            job.id,
        )
    }

    /// Sets blocking reasons and priorities; returns the jobs to consider,
    /// first first ([`OrderKey`]).
    fn queue_order(&mut self, now: Time) -> Vec<OrderKey> {
        let running_per_user_qos = self.running_per_user_qos();
        // Held jobs are left out: they showed why they wait when they
        // were held, and nothing a pass does changes that.
        let mut keyed = Vec::with_capacity(self.pending.unheld().len());
        let pending: Vec<JobId> = self.pending.unheld().iter().copied().collect();
        let running_per_array = self.running_per_array();
        for id in pending {
            let job = &*self.jobs[&id];
            let blocking =
                self.blocking_reason(job, now, &running_per_user_qos, &running_per_array);
            let priority = self.priority_at(job, now);
            let key = self.order_key(job, priority);
            let job = self.jobs.get_mut(&id).expect("pending ids are jobs");
            job.priority = priority;
            if let Some(reason) = blocking {
                job.set_pending_reason(reason);
                job.forget_plan();
                continue;
            }
            keyed.push(key);
        }
        keyed.sort_unstable();
        keyed
    }

    /// The priority of `job` at `now`, as a pass orders the queue by it.
    pub(crate) fn priority_at(&self, job: &Job, now: Time) -> u32 {
        let ctx = PriorityContext {
            now,
            total_nodes: self.nodes.len() as u32,
            partitions: &self.partitions,
            qos: &self.qos,
            fairshare: &self.fairshare,
        };
        self.config.priority.priority(job, &ctx)
    }

    fn blocking_reason(
        &self,
        job: &Job,
        now: Time,
        running: &BTreeMap<(crate::id::Uid, crate::id::QosId), u32>,
        running_per_array: &BTreeMap<JobId, u32>,
    ) -> Option<Reason> {
        // A held job is never asked: it showed its hold when held.
        // slurmctld's job_independent: dependency, then the array's
        // throttle, then the begin time.
        match job.dependency.as_deref().map(|d| d.status()) {
            Some(DependencyStatus::Waiting) => return Some(Reason::Dependency),
            Some(DependencyStatus::NeverSatisfied) => {
                return Some(Reason::DependencyNeverSatisfied)
            }
            Some(DependencyStatus::Satisfied) | None => {}
        }
        if self.is_throttled(job, running_per_array) {
            return Some(Reason::JobArrayTaskLimit);
        }
        if job.spec.begin.is_some_and(|b| b > now) {
            return Some(Reason::BeginTime);
        }
        let part = &self.partitions[job.partition.index()];
        match part.state {
            // DRAIN refuses new submissions (the controller's job); queued
            // jobs still run.
            PartitionState::Up | PartitionState::Drain => {}
            PartitionState::Inactive => return Some(Reason::PartitionInactive),
            PartitionState::Down => return Some(Reason::PartitionDown),
        }
        if let (Some(limit), Some(max)) = (job.time_limit, part.max_time) {
            if limit > max {
                return Some(Reason::PartitionTimeLimit);
            }
        }
        let nodes = job.shape.nodes_min;
        if part.max_nodes.is_some_and(|m| nodes > m)
            || nodes < part.min_nodes
            || nodes as usize > part.nodes.len()
        {
            return Some(Reason::PartitionNodeLimit);
        }
        if let Some(q) = job.qos {
            if let Some(max) = self.qos[q.index()].max_jobs_per_user {
                if running.get(&(job.spec.user, q)).copied().unwrap_or(0) >= max {
                    return Some(Reason::QosMaxJobsPerUserLimit);
                }
            }
        }
        if job
            .required
            .iter()
            .any(|n| !self.nodes[n.index()].is_schedulable())
        {
            return Some(Reason::ReqNodeNotAvail);
        }
        None
    }

    pub(crate) fn profile(&self, now: Time) -> Profile {
        let mut profile = Profile::new(
            now,
            &self.nodes,
            |job| self.job(job).and_then(Job::deadline).unwrap_or(NEVER),
            |job| {
                self.jobs.get(&job).map_or_else(Vec::new, |j| {
                    j.alloc.iter().map(|a| (a.node, a.res)).collect()
                })
            },
        );
        if !self.block_owner.is_empty() {
            profile.set_groups(self.node_block.clone());
        }
        profile
    }

    /// Places a job for `[t, t + d)` on the profile, trying each alternative
    /// of a matching-OR constraint. Returns the allocation and the time
    /// limit to run with (shortened toward `--time-min` when that fits and
    /// the full limit does not).
    fn place_job(
        &self,
        job: &Job,
        profile: &Profile,
        t: Time,
        d: u64,
        scratch: &mut Scratch,
    ) -> Result<(Vec<NodeAlloc>, Option<u64>), Miss> {
        let want = Want::of_job(job, t, self.config.block_wait);
        let mut result = self.place_alternatives(&want, profile, t, d, None, scratch);
        if let (Err(_), Some(min)) = (&result, job.spec.time_min) {
            if min < d {
                if let Ok(alloc) = self.place_alternatives(&want, profile, t, min, None, scratch) {
                    let nodes: Vec<NodeId> = alloc.iter().map(|a| a.node).collect();
                    let room = profile.room_before_hold(&nodes, t).min(d).max(min);
                    return Ok((alloc, Some(room)));
                }
            }
            result = Err(Miss::Resources);
        }
        result.map(|alloc| (alloc, job.time_limit))
    }

    pub(crate) fn place_alternatives(
        &self,
        want: &Want<'_>,
        profile: &Profile,
        t: Time,
        d: u64,
        overlay: Option<&Overlay>,
        scratch: &mut Scratch,
    ) -> Result<Vec<NodeAlloc>, Miss> {
        let alternatives: Vec<Option<&Constraint>> = match want.constraint {
            Some(c) => c.alternatives().into_iter().map(Some).collect(),
            None => vec![None],
        };
        let bounds = std::mem::take(&mut scratch.bounds);
        let mut result = Err(Miss::Resources);
        for alt in alternatives {
            result = self.try_place(want, alt, profile, t, d, overlay, scratch, false, &bounds);
            if result.is_ok() {
                break;
            }
        }
        scratch.bounds = bounds;
        result
    }

    /// One placement attempt. `empty` ignores health and current use (the
    /// submission-time feasibility check). `bounds` are per-block upper
    /// bounds of idle nodes at `t` (empty: none): whole-node jobs then only
    /// look at blocks that have room.
    #[allow(clippy::too_many_arguments)]
    fn try_place(
        &self,
        want: &Want<'_>,
        constraint: Option<&Constraint>,
        profile: &Profile,
        t: Time,
        d: u64,
        overlay: Option<&Overlay>,
        scratch: &mut Scratch,
        empty: bool,
        bounds: &[u32],
    ) -> Result<Vec<NodeAlloc>, Miss> {
        let shape = want.shape;
        let node_count = self.nodes.len();
        scratch.caps.clear();
        scratch.caps.resize(node_count, 0);
        scratch.keys.clear();
        scratch.keys.resize(node_count, u64::MAX);
        let now = profile.now();
        let part = &self.partitions[want.partition.index()];
        // Whole-node jobs only ask whether a node is idle for the window,
        // and only in blocks that can have idle nodes then.
        let whole_fast = shape.is_whole_node() && overlay.is_none() && !empty;
        let mut visit = std::mem::take(&mut scratch.visit);
        visit.clear();
        if whole_fast && !bounds.is_empty() {
            let member = &self.part_member[want.partition.index()];
            for (b, &room) in bounds.iter().enumerate() {
                if room > 0 {
                    visit.extend(
                        self.block_nodes[b]
                            .iter()
                            .copied()
                            .filter(|n| member[n.index()]),
                    );
                }
            }
        } else {
            visit.extend_from_slice(&part.nodes);
        }
        for &n in &visit {
            if whole_fast && !profile.is_idle_over(n, t, d) {
                continue;
            }
            let node = &self.nodes[n.index()];
            if !empty && !node.is_schedulable() {
                continue;
            }
            if !matches_static(self, node, n, want.excluded, constraint, shape.gpu_type) {
                continue;
            }
            if !empty && t <= now {
                if let Some(Some(b)) = self.node_block.get(n.index()) {
                    if self.block_owner[*b as usize].is_some() {
                        continue;
                    }
                }
                if shape.exclusive == Exclusive::User
                    && node
                        .jobs()
                        .iter()
                        .any(|j| self.jobs[j].spec.user != want.user)
                {
                    continue;
                }
            }
            let total = node.config.resources();
            let (mut free, mut idle) = if empty || whole_fast {
                (total, true)
            } else {
                profile.free_over(n, t, d)
            };
            if let Some((extra, all)) = overlay.and_then(|o| o.get(&n)) {
                free = free.add(extra);
                idle |= *all;
            }
            let cap = tasks_fit(shape, &total, &free, idle);
            scratch.caps[n.index()] = cap;
            if cap > 0 {
                let tasks = shape.min_tasks_per_node();
                let demand = crate::resources::Resources {
                    cpus: shape.cpus_on_node(tasks),
                    mem_mb: shape.mem_on_node(tasks, total.mem_mb),
                    gpus: shape.gpus_on_node(tasks),
                };
                let frag = (!shape.is_whole_node() && !self.workload.is_empty())
                    .then(|| self.workload.delta(&free, &demand));
                scratch.keys[n.index()] =
                    fit_key(node.config.weight, frag, &free.saturating_sub(&demand));
            }
        }
        scratch.visit = visit;
        let min_tasks = shape.min_tasks_per_node();
        if want
            .required
            .iter()
            .any(|n| scratch.caps[n.index()] < min_tasks)
        {
            return Err(Miss::Resources);
        }
        if shape.exclusive == Exclusive::Topo {
            self.fill_idle_blocks(profile, t, d, empty, scratch);
        }
        // Required nodes first; the topology places the rest.
        let required = want.required;
        let extra_caps: Vec<u32>;
        let caps: &[u32] = if required.is_empty() {
            &scratch.caps
        } else {
            let mut c = scratch.caps.clone();
            for n in required {
                c[n.index()] = 0;
            }
            extra_caps = c;
            &extra_caps
        };
        let try_count =
            |k: u32, scratch_chosen: &mut Vec<NodeId>| -> Result<Vec<(NodeId, u32)>, Miss> {
                let rest = k.saturating_sub(required.len() as u32);
                let req = Request {
                    shape,
                    nodes: rest,
                    caps,
                    keys: &scratch.keys,
                    idle_blocks: (shape.exclusive == Exclusive::Topo)
                        .then_some(scratch.idle_blocks.as_slice()),
                    wait_over: want.wait_over,
                };
                if rest > 0 {
                    self.placement.select(&req, scratch_chosen)?;
                } else {
                    scratch_chosen.clear();
                }
                scratch_chosen.extend_from_slice(required);
                scratch_chosen.sort_unstable();
                distribute_tasks(shape, scratch_chosen, &scratch.caps).ok_or(Miss::Resources)
            };
        let mut chosen = std::mem::take(&mut scratch.chosen);
        let mut placed = try_count(shape.nodes_max, &mut chosen);
        if placed.is_err() && shape.nodes_min < shape.nodes_max {
            // As many nodes as fit now: the largest feasible count.
            let (mut lo, mut hi) = (shape.nodes_min, shape.nodes_max - 1);
            let mut best = None;
            while lo <= hi {
                let mid = lo + (hi - lo) / 2;
                match try_count(mid, &mut chosen) {
                    Ok(d) => {
                        best = Some(d);
                        lo = mid + 1;
                    }
                    Err(_) => {
                        if mid == 0 {
                            break;
                        }
                        hi = mid - 1;
                    }
                }
            }
            if let Some(d) = best {
                placed = Ok(d);
            }
        }
        scratch.chosen = chosen;
        let tasks = placed?;
        let mut gpus_left = shape.gpus_total.unwrap_or(0);
        Ok(tasks
            .into_iter()
            .map(|(n, count)| {
                let node = &self.nodes[n.index()];
                let free_gpus = if t <= now && !empty {
                    node.free_gpus()
                } else {
                    GpuSet::first(node.config.gpus)
                };
                node_alloc(
                    shape,
                    n,
                    count,
                    &node.config.resources(),
                    free_gpus,
                    &mut gpus_left,
                )
            })
            .collect())
    }

    fn fill_idle_blocks(
        &self,
        profile: &Profile,
        t: Time,
        d: u64,
        empty: bool,
        scratch: &mut Scratch,
    ) {
        scratch.idle_blocks.clear();
        scratch.idle_blocks.resize(self.block_owner.len(), true);
        if empty {
            return;
        }
        for (n, block) in self.node_block.iter().enumerate() {
            let Some(b) = block else { continue };
            let b = *b as usize;
            if !scratch.idle_blocks[b] {
                continue;
            }
            let id = NodeId(n as u32);
            let busy = !profile.free_over(id, t, d).1
                || (t <= profile.now() && self.block_owner[b].is_some());
            if busy || !self.nodes[n].is_schedulable() {
                scratch.idle_blocks[b] = false;
            }
        }
    }

    /// Starts job `id` on `alloc`; a meta record starts its first pending
    /// task instead, split off as a job of its own (or itself, when it holds
    /// one task). Returns the job started and when it must end.
    fn start_job(
        &mut self,
        id: JobId,
        alloc: Vec<NodeAlloc>,
        limit: Option<u64>,
        now: Time,
        profile: &mut Profile,
        effects: &mut impl Effects,
    ) -> (JobId, Time) {
        let first_task = self.jobs[&id]
            .array
            .as_ref()
            .filter(|a| a.is_meta())
            .and_then(|a| a.pending_tasks().first());
        let id = match first_task {
            Some(task) => self.split_task(id, task, effects),
            None => id,
        };
        let job = self.jobs.get_mut(&id).expect("started jobs exist");
        let whole = job.shape.is_whole_node();
        let topo = job.shape.exclusive == Exclusive::Topo;
        if job.start(now, alloc.clone()).is_err() {
            return (id, NEVER);
        }
        job.time_limit = limit;
        if let Some(deadline) = job.spec.deadline {
            // Whole minutes up to the deadline at most, as backfill cuts
            // the limit of a job with a deadline.
            let until = deadline.saturating_sub(now) / 60 * 60;
            job.time_limit = Some(job.time_limit.map_or(until, |l| l.min(until)));
        }
        let end = job.deadline().unwrap_or(NEVER);
        for a in &alloc {
            self.nodes[a.node.index()].allocate(id, a, whole);
            if topo {
                if let Some(Some(b)) = self.node_block.get(a.node.index()) {
                    self.block_owner[*b as usize] = Some(id);
                }
            }
        }
        self.pending.remove(id);
        self.running.insert(id);
        self.preempting.remove(&id);
        profile.start(&alloc, end);
        effects.emit(Effect::StartJob { job: id, alloc });
        (id, end)
    }

    /// Backfill: the earliest start within the window, reserved so that
    /// lower-priority jobs cannot delay it.
    fn plan_reservation(
        &mut self,
        id: JobId,
        now: Time,
        profile: &mut Profile,
        scratch: &mut Scratch,
        pass: &mut Pass,
    ) {
        let bf = self.config.backfill;
        pass.tested += 1;
        if pass.tested > bf.max_job_test
            || (bf.reserve_depth > 0 && pass.reserved >= bf.reserve_depth)
        {
            return;
        }
        let job = &self.jobs[&id];
        let d = job.time_limit.unwrap_or(NEVER);
        let key = MemoKey::of(job, self.config.block_wait);
        let floor = match key.as_ref().map(|k| pass.memo_floor(k, &job.shape, d)) {
            Some(MemoFloor::Never) => {
                return self.clear_plan(id);
            }
            Some(MemoFloor::From(t)) => t,
            None => now,
        };
        if pass.times_stale {
            pass.times = profile.candidate_times(bf.window, bf.resolution);
            pass.times_stale = false;
        }
        let times = std::mem::take(&mut pass.times);
        let whole = job.shape.is_whole_node();
        let need = job.shape.nodes_min as usize;
        let mut found = None;
        for &t in times.iter().filter(|&&t| t >= floor) {
            if whole
                && profile
                    .idle_bound(t)
                    .saturating_sub(profile.whole_holds_at(t))
                    < need
            {
                continue;
            }
            if whole {
                profile.block_bounds(t, &mut scratch.bounds);
                let fits = scratch.bounds.is_empty()
                    || self
                        .placement
                        .may_fit(&job.shape, job.shape.nodes_min, &scratch.bounds);
                if !fits {
                    continue;
                }
            } else {
                scratch.bounds.clear();
            }
            if let Ok((alloc, _)) = self.place_job(job, profile, t, d, scratch) {
                found = Some((t, alloc));
                break;
            }
        }
        pass.times = times;
        if let Some(k) = key {
            pass.memo.entry(k).or_default().push((
                job.shape.clone(),
                d,
                found.as_ref().map(|(t, _)| *t),
            ));
        }
        match found {
            Some((t, alloc)) => {
                if whole {
                    profile.reserve_whole(&alloc, t, t.saturating_add(d));
                } else {
                    profile.reserve(&alloc, t, t.saturating_add(d));
                }
                pass.reserved += 1;
                pass.add_time(
                    profile.round_time(t.saturating_add(d), bf.resolution),
                    now.saturating_add(bf.window),
                );
                let job = self.jobs.get_mut(&id).expect("planned jobs exist");
                job.expected_start = Some(t);
                job.sched_nodes = alloc.iter().map(|a| a.node).collect();
            }
            None => self.clear_plan(id),
        }
    }

    fn clear_plan(&mut self, id: JobId) {
        if let Some(job) = self.jobs.get_mut(&id) {
            job.forget_plan();
        }
    }
}
