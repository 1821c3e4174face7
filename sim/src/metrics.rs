//! Figures from a replay: occupancy (and the bound the trace allows), queue
//! waits, bounded slowdown, domain locality and fragmentation, makespan.

use serde::Serialize;

use crate::engine::Replay;
use crate::workload::SimJob;

/// Nodes per NVL72 domain.
pub const DOMAIN_NODES: u32 = 18;

/// Run time floor of the bounded slowdown (s).
const SLOWDOWN_BOUND_S: f64 = 10.0;

/// One scheduler's figures, as written under "spur" and "baseline".
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Metrics {
    /// The node selection (`block`, `linear`, ...).
    pub placement: String,
    /// Allocated GPU-time over the arrival window / usable GPU-time.
    pub occupancy: f64,
    /// The most the trace allows over that window: offered GPU-time /
    /// usable GPU-time, at most 1.
    pub occupancy_bound: f64,
    /// occupancy / occupancy_bound.
    pub occupancy_of_bound: f64,
    /// Mean queue wait (s).
    pub wait_mean_s: f64,
    /// Median queue wait (s).
    pub wait_p50_s: f64,
    /// 99th percentile queue wait (s).
    pub wait_p99_s: f64,
    /// Mean of max(1, (wait + run) / max(run, 10 s)).
    pub bounded_slowdown_mean: f64,
    /// Jobs in the trace.
    pub jobs_total: usize,
    /// Jobs that started.
    pub jobs_started: usize,
    /// Jobs refused at submission.
    pub jobs_rejected: usize,
    /// Jobs spread over more domains than their size needs.
    pub jobs_split: usize,
    /// Of those, jobs of at most one domain (18 nodes).
    pub jobs_split_le18_nodes: usize,
    /// Mean over multi-node jobs of domains spanned / ceil(nodes / 18).
    pub domain_span_ratio: f64,
    /// Time-averaged free GPUs no pending job could use (while jobs pend).
    pub gpus_free_unusable_mean: f64,
    /// Free GPUs no pending job could use, at the last moment jobs pended.
    pub gpus_free_unusable_final: u64,
    /// Time-averaged domains partly used.
    pub domains_partly_used_mean: f64,
    /// From the first submission to the last end (s).
    pub makespan_s: u64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Computes the figures of `replay` of `jobs`.
pub fn compute(replay: &Replay, jobs: &[SimJob]) -> Metrics {
    let t0 = jobs.first().map_or(0, |j| j.submit);
    let t1 = jobs.last().map_or(0, |j| j.submit).max(t0 + 1);
    let window = (t1 - t0) as f64;
    let capacity = replay.usable_gpus as f64 * window;

    // Allocated GPU-time inside the window, from the samples (a step
    // function: each sample holds until the next).
    let mut busy = 0.0;
    let mut unusable = 0.0;
    let mut partly = 0.0;
    let mut pending_time = 0.0;
    for pair in replay.samples.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let span = (b.t - a.t) as f64;
        let from = a.t.max(t0);
        let to = b.t.min(t1);
        if to > from {
            busy += a.busy_gpus as f64 * (to - from) as f64;
        }
        partly += f64::from(a.partly_used_domains) * span;
        if a.queue > 0 {
            unusable += a.unusable_gpus as f64 * span;
            pending_time += span;
        }
    }
    let offered: f64 = jobs
        .iter()
        .zip(&replay.jobs)
        .filter(|(_, r)| r.rejected.is_none())
        .map(|(j, _)| f64::from(j.gpus) * j.runtime.unwrap_or(t1 - j.submit) as f64)
        .sum();
    let occupancy = if capacity > 0.0 { busy / capacity } else { 0.0 };
    let occupancy_bound = if capacity > 0.0 {
        (offered / capacity).min(1.0)
    } else {
        0.0
    };

    let mut waits = Vec::new();
    let mut slowdowns = Vec::new();
    let mut split = 0;
    let mut split_small = 0;
    let mut span_sum = 0.0;
    let mut multi = 0;
    let mut last_end = t0;
    for (job, rec) in jobs.iter().zip(&replay.jobs) {
        let Some(start) = rec.start else { continue };
        let wait = (start - rec.submit) as f64;
        waits.push(wait);
        let run = rec.end.map_or(0, |e| e - start) as f64;
        slowdowns.push(((wait + run) / run.max(SLOWDOWN_BOUND_S)).max(1.0));
        if let Some(end) = rec.end {
            last_end = last_end.max(end);
        }
        let needed = rec.nodes.div_ceil(DOMAIN_NODES).max(1);
        if rec.domains > needed {
            split += 1;
            if job.nodes <= DOMAIN_NODES {
                split_small += 1;
            }
        }
        if rec.nodes > 1 && rec.domains > 0 {
            span_sum += f64::from(rec.domains) / f64::from(needed);
            multi += 1;
        }
    }
    waits.sort_by(f64::total_cmp);
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let total_time = replay
        .samples
        .last()
        .map_or(0, |s| s.t)
        .saturating_sub(t0)
        .max(1) as f64;
    Metrics {
        placement: replay.placement.to_string(),
        occupancy,
        occupancy_bound,
        occupancy_of_bound: if occupancy_bound > 0.0 {
            occupancy / occupancy_bound
        } else {
            0.0
        },
        wait_mean_s: mean(&waits),
        wait_p50_s: percentile(&waits, 50.0),
        wait_p99_s: percentile(&waits, 99.0),
        bounded_slowdown_mean: mean(&slowdowns),
        jobs_total: jobs.len(),
        jobs_started: waits.len(),
        jobs_rejected: replay.jobs.iter().filter(|r| r.rejected.is_some()).count(),
        jobs_split: split,
        jobs_split_le18_nodes: split_small,
        domain_span_ratio: if multi > 0 {
            span_sum / f64::from(multi)
        } else {
            0.0
        },
        gpus_free_unusable_mean: if pending_time > 0.0 {
            unusable / pending_time
        } else {
            0.0
        },
        gpus_free_unusable_final: replay
            .samples
            .iter()
            .rev()
            .find(|s| s.queue > 0)
            .map_or(0, |s| s.unusable_gpus),
        domains_partly_used_mean: partly / total_time,
        makespan_s: last_end - t0,
    }
}
