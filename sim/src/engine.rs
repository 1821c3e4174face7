//! The replay: a virtual clock drives one `Core` through a trace. Arrivals
//! are submitted, starts become completions after the job's run time, kills
//! end jobs at once, and `next_wakeup` brings the clock to time limits. The
//! engine records what happened; `metrics` turns that into figures.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use spur_core::{Cluster, Core, Effect, ExitStatus, JobId, NodeId, SchedConfig, Time};
use thiserror::Error;

use crate::workload::SimJob;

/// A run that could not be set up.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SimError {
    /// The cluster is not valid for the core.
    #[error("invalid cluster")]
    Cluster(#[from] spur_core::ClusterError),
    /// A node to take down does not exist.
    #[error("node index {0} out of range")]
    NoSuchNode(NodeId),
}

/// What happened to one job.
#[derive(Debug, Clone, Default)]
pub struct JobRecord {
    /// Submit time.
    pub submit: Time,
    /// Start time, if it started.
    pub start: Option<Time>,
    /// End time, if it ended.
    pub end: Option<Time>,
    /// Nodes it got.
    pub nodes: u32,
    /// GPUs it got.
    pub gpus: u32,
    /// Distinct domains (base blocks) its nodes are in.
    pub domains: u32,
    /// Whether the submission was refused (and why).
    pub rejected: Option<String>,
    /// Its nodes, when the replay keeps them (`keep_nodes`).
    pub node_list: Option<Vec<NodeId>>,
}

/// The state of the cluster after an event, for time series.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// When.
    pub t: Time,
    /// GPUs allocated.
    pub busy_gpus: u64,
    /// Pending jobs.
    pub queue: u32,
    /// Domains with some but not all nodes allocated.
    pub partly_used_domains: u32,
    /// Free GPUs (on up nodes) that no pending job could use.
    pub unusable_gpus: u64,
}

/// The outcome of one replay.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Per job, in input order.
    pub jobs: Vec<JobRecord>,
    /// One sample after every event time.
    pub samples: Vec<Sample>,
    /// GPUs on up nodes.
    pub usable_gpus: u64,
    /// The node selection used (`block`, `linear`, ...).
    pub placement: &'static str,
}

/// Replays `jobs` (sorted by submit time) on `cluster` with `config`;
/// `down` nodes are down throughout; `domain_of` maps nodes to domains.
pub fn replay(
    cluster: Cluster,
    config: SchedConfig,
    jobs: &[SimJob],
    down: &[NodeId],
    domain_of: &[Option<u32>],
    keep_nodes: bool,
) -> Result<Replay, SimError> {
    let gpus_of: Vec<u32> = cluster.nodes.iter().map(|n| n.gpus).collect();
    let nodes_per_domain = count_per_domain(domain_of);
    let mut core = Core::new(cluster, config)?;
    let mut effects = Vec::new();
    for &n in down {
        if n.index() >= gpus_of.len() {
            return Err(SimError::NoSuchNode(n));
        }
        core.on_node_down(n, "simulated down".into(), &mut effects)
            .map_err(|_| SimError::NoSuchNode(n))?;
    }
    let usable_gpus: u64 = (0..gpus_of.len())
        .filter(|i| !core.nodes()[*i].is_down())
        .map(|i| u64::from(gpus_of[i]))
        .sum();

    let mut state = State {
        records: jobs
            .iter()
            .map(|j| JobRecord {
                submit: j.submit,
                ..JobRecord::default()
            })
            .collect(),
        by_id: BTreeMap::new(),
        completions: BinaryHeap::new(),
        busy_gpus: 0,
        busy_per_domain: vec![0; nodes_per_domain.len()],
        partly_used: 0,
        samples: Vec::with_capacity(jobs.len() * 2 + 16),
        keep_nodes,
    };
    let mut next = 0usize;
    let mut clock: Time = 0;
    loop {
        let arrival = jobs.get(next).map(|j| j.submit);
        let completion = state.completions.peek().map(|Reverse((t, _))| *t);
        let wakeup = core.next_wakeup(clock);
        let Some(t) = [arrival, completion, wakeup].into_iter().flatten().min() else {
            break;
        };
        clock = t;
        while let Some(&Reverse((at, id))) = state.completions.peek() {
            if at > t {
                break;
            }
            state.completions.pop();
            state.end(
                &mut core,
                id,
                t,
                ExitStatus::default(),
                domain_of,
                &nodes_per_domain,
            );
        }
        while next < jobs.len() && jobs[next].submit <= t {
            match core.submit_job(jobs[next].spec.clone(), t) {
                Ok(id) => {
                    state.by_id.insert(id, next);
                }
                Err(e) => state.records[next].rejected = Some(e.to_string()),
            }
            next += 1;
        }
        // Kills free resources at once; schedule again until quiet.
        loop {
            effects.clear();
            core.schedule(t, &mut effects);
            let mut killed = false;
            for effect in effects.drain(..) {
                match effect {
                    Effect::StartJob { job, alloc } => {
                        state.start(&core, job, &alloc, t, jobs, domain_of, &nodes_per_domain)
                    }
                    Effect::KillJob { job, .. } => {
                        let status = ExitStatus { code: 0, signal: 9 };
                        state.end(&mut core, job, t, status, domain_of, &nodes_per_domain);
                        killed = true;
                    }
                    Effect::SignalJob { .. } => {}
                    // Bookkeeping for a store; traces have no arrays or
                    // dependencies, and the simulator keeps no store.
                    Effect::ArrayTaskSplit { .. }
                    | Effect::PendingJobEnded { .. }
                    | Effect::DependencyChanged { .. } => {}
                }
            }
            if !killed {
                break;
            }
        }
        if cfg!(debug_assertions) {
            if let Err(e) = core.sanity_check() {
                panic!("core invariant broken at t={t}: {e}");
            }
        }
        let unusable = if core.pending_jobs().next().is_some() {
            unusable_gpus(&core)
        } else {
            0
        };
        state.samples.push(Sample {
            t,
            busy_gpus: state.busy_gpus,
            queue: core.pending_jobs().count() as u32,
            partly_used_domains: state.partly_used,
            unusable_gpus: unusable,
        });
    }
    Ok(Replay {
        jobs: state.records,
        samples: state.samples,
        usable_gpus,
        placement: core.placement_name(),
    })
}

fn count_per_domain(domain_of: &[Option<u32>]) -> Vec<u32> {
    let domains = domain_of
        .iter()
        .flatten()
        .map(|&d| d as usize + 1)
        .max()
        .unwrap_or(0);
    let mut counts = vec![0u32; domains];
    for d in domain_of.iter().flatten() {
        counts[*d as usize] += 1;
    }
    counts
}

struct State {
    records: Vec<JobRecord>,
    by_id: BTreeMap<JobId, usize>,
    completions: BinaryHeap<Reverse<(Time, JobId)>>,
    busy_gpus: u64,
    busy_per_domain: Vec<u32>,
    partly_used: u32,
    samples: Vec<Sample>,
    keep_nodes: bool,
}

impl State {
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        core: &Core,
        job: JobId,
        alloc: &[spur_core::NodeAlloc],
        t: Time,
        jobs: &[SimJob],
        domain_of: &[Option<u32>],
        per_domain: &[u32],
    ) {
        let Some(&index) = self.by_id.get(&job) else {
            return;
        };
        let gpus: u32 = alloc.iter().map(|a| a.gpus.len()).sum();
        let mut domains: Vec<u32> = alloc
            .iter()
            .filter_map(|a| domain_of[a.node.index()])
            .collect();
        domains.sort_unstable();
        domains.dedup();
        let record = &mut self.records[index];
        record.start = Some(t);
        record.nodes = alloc.len() as u32;
        record.gpus = gpus;
        record.domains = domains.len() as u32;
        if self.keep_nodes {
            record.node_list = Some(alloc.iter().map(|a| a.node).collect());
        }
        self.busy_gpus += u64::from(gpus);
        self.touch_domains(core, alloc, domain_of, per_domain, true);
        if let Some(run) = jobs[index].runtime {
            self.completions.push(Reverse((t + run, job)));
        }
    }

    fn end(
        &mut self,
        core: &mut Core,
        job: JobId,
        t: Time,
        status: ExitStatus,
        domain_of: &[Option<u32>],
        per_domain: &[u32],
    ) {
        let alloc = match core.job(job) {
            Some(j) if j.state() == spur_core::JobState::Running => j.allocation().to_vec(),
            _ => return,
        };
        if core.on_job_exited(job, status, t).is_err() {
            return;
        }
        if let Some(&index) = self.by_id.get(&job) {
            self.records[index].end = Some(t);
        }
        let gpus: u64 = alloc.iter().map(|a| u64::from(a.gpus.len())).sum();
        self.busy_gpus -= gpus;
        self.touch_domains(core, &alloc, domain_of, per_domain, false);
    }

    /// Keeps the count of partly used domains: a node counts as used while
    /// any job holds part of it.
    fn touch_domains(
        &mut self,
        core: &Core,
        alloc: &[spur_core::NodeAlloc],
        domain_of: &[Option<u32>],
        per_domain: &[u32],
        started: bool,
    ) {
        for a in alloc {
            let Some(d) = domain_of[a.node.index()] else {
                continue;
            };
            let d = d as usize;
            let jobs_on_node = core.nodes()[a.node.index()].jobs().len();
            // Only the first job on a node makes it used; only the last one
            // leaving makes it free.
            let changes = if started {
                jobs_on_node == 1
            } else {
                jobs_on_node == 0
            };
            if !changes {
                continue;
            }
            let before = self.busy_per_domain[d];
            let after = if started { before + 1 } else { before - 1 };
            self.busy_per_domain[d] = after;
            let partly = |b: u32| b > 0 && b < per_domain[d];
            match (partly(before), partly(after)) {
                (false, true) => self.partly_used += 1,
                (true, false) => self.partly_used -= 1,
                _ => {}
            }
        }
    }
}

/// Free GPUs on up nodes that no pending job could use on that node: a
/// whole-node job needs the node idle, a shared one its per-node demand.
fn unusable_gpus(core: &Core) -> u64 {
    let mut whole = false;
    let mut demands: Vec<spur_core::Resources> = Vec::new();
    for job in core.pending_jobs() {
        let shape = job.shape();
        if shape.is_whole_node() {
            whole = true;
            continue;
        }
        let tasks = shape.min_tasks_per_node();
        let need = spur_core::Resources {
            cpus: shape.cpus_on_node(tasks),
            mem_mb: shape.mem_on_node(tasks, 0),
            gpus: shape
                .gpus_on_node(tasks)
                .max(shape.gpus_total.map_or(0, |g| g.div_ceil(shape.nodes_min))),
        };
        if !demands.iter().any(|d| need.covers(d)) {
            demands.retain(|d| !d.covers(&need));
            demands.push(need);
        }
    }
    let mut unusable = 0;
    for node in core.nodes() {
        if !node.is_schedulable() {
            continue;
        }
        let free = node.free();
        if free.gpus == 0 {
            continue;
        }
        let usable = (whole && node.is_idle()) || demands.iter().any(|d| free.covers(d));
        if !usable {
            unusable += u64::from(free.gpus);
        }
    }
    unusable
}
