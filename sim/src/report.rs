//! One simulator run: spur and the baseline side by side on the same input,
//! and the ways it is reported (a table on stdout, JSON, CSV, an SVG plot).

use std::fmt::Write as _;

use serde::Serialize;
use spur_core::{Cluster, Exclusive, NodeId, PlacementPolicy, SchedConfig};

use crate::engine::{replay, Replay, SimError};
use crate::metrics::{compute, Metrics};
use crate::plot::{render_svg, Panel, Series};
use crate::workload::SimJob;

/// Both runs' figures and how the run was set up.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// spur's scheduling.
    pub spur: Metrics,
    /// Linear first fit + backfill on the same input.
    pub baseline: Metrics,
    /// Wall time of the whole run (both replays) in seconds.
    pub sim_wall_s: f64,
    /// The inputs, for the record.
    pub setup: Setup,
}

/// The run's inputs.
#[derive(Debug, Clone, Serialize)]
pub struct Setup {
    /// The trace file.
    pub trace: String,
    /// Nodes in the cluster.
    pub nodes: usize,
    /// GPUs in the cluster.
    pub gpus: u64,
    /// Arrival-time compression.
    pub compress: f64,
    /// Copies of the trace.
    pub copies: u32,
    /// The segment policy.
    pub segment_policy: String,
    /// Share of nodes down.
    pub down: f64,
    /// The baseline: `linear` (first fit) or `best-fit`.
    pub baseline: String,
    /// Seconds a multi-domain job waits for the fewest domains.
    pub block_wait: u64,
    /// Whether the replays keep every job's nodes (for a schedule).
    #[serde(skip)]
    pub keep_nodes: bool,
}

/// The replays behind a comparison, for plotting.
pub struct Runs {
    /// spur's replay.
    pub spur: Replay,
    /// The baseline's replay.
    pub baseline: Replay,
}

/// The baseline's view of a job: no topology requests.
pub fn baseline_job(job: &SimJob) -> SimJob {
    let mut job = job.clone();
    job.spec.segment = None;
    job.spec.segment_layout = spur_core::SegmentLayout::Default;
    if job.spec.exclusive == Exclusive::Topo {
        job.spec.exclusive = Exclusive::Node;
    }
    job
}

/// Replays `jobs` with spur and with the baseline (linear first fit, or
/// best fit, as `setup.baseline` says), concurrently.
pub fn compare(
    cluster: &Cluster,
    config: SchedConfig,
    jobs: &[SimJob],
    down: &[NodeId],
    domain_of: &[Option<u32>],
    setup: Setup,
) -> Result<(Comparison, Runs), SimError> {
    let keep_nodes = setup.keep_nodes;
    let started = std::time::Instant::now();
    let baseline_jobs: Vec<SimJob> = jobs.iter().map(baseline_job).collect();
    let baseline_config = SchedConfig {
        placement: match setup.baseline.as_str() {
            "best-fit" => PlacementPolicy::BestFit,
            _ => PlacementPolicy::LinearFirstFit,
        },
        ..config
    };
    let (spur, baseline) = std::thread::scope(|s| {
        let spur = s.spawn(|| replay(cluster.clone(), config, jobs, down, domain_of, keep_nodes));
        let baseline = replay(
            cluster.clone(),
            baseline_config,
            &baseline_jobs,
            down,
            domain_of,
            keep_nodes,
        );
        (
            spur.join().expect("the spur replay does not panic"),
            baseline,
        )
    });
    let (spur, baseline) = (spur?, baseline?);
    let comparison = Comparison {
        spur: compute(&spur, jobs),
        baseline: compute(&baseline, &baseline_jobs),
        sim_wall_s: started.elapsed().as_secs_f64(),
        setup,
    };
    Ok((comparison, Runs { spur, baseline }))
}

/// The figures as `(name, spur, baseline)` rows, in print order.
fn rows(c: &Comparison) -> Vec<(&'static str, String, String)> {
    let f = |v: f64| format!("{v:.4}");
    let s = |v: f64| format!("{v:.0}");
    let (a, b) = (&c.spur, &c.baseline);
    vec![
        ("placement", a.placement.clone(), b.placement.clone()),
        ("occupancy", f(a.occupancy), f(b.occupancy)),
        (
            "occupancy_bound",
            f(a.occupancy_bound),
            f(b.occupancy_bound),
        ),
        (
            "occupancy_of_bound",
            f(a.occupancy_of_bound),
            f(b.occupancy_of_bound),
        ),
        ("wait_mean_s", s(a.wait_mean_s), s(b.wait_mean_s)),
        ("wait_p50_s", s(a.wait_p50_s), s(b.wait_p50_s)),
        ("wait_p99_s", s(a.wait_p99_s), s(b.wait_p99_s)),
        (
            "bounded_slowdown_mean",
            f(a.bounded_slowdown_mean),
            f(b.bounded_slowdown_mean),
        ),
        (
            "jobs_total",
            a.jobs_total.to_string(),
            b.jobs_total.to_string(),
        ),
        (
            "jobs_started",
            a.jobs_started.to_string(),
            b.jobs_started.to_string(),
        ),
        (
            "jobs_rejected",
            a.jobs_rejected.to_string(),
            b.jobs_rejected.to_string(),
        ),
        (
            "jobs_split",
            a.jobs_split.to_string(),
            b.jobs_split.to_string(),
        ),
        (
            "jobs_split_le18_nodes",
            a.jobs_split_le18_nodes.to_string(),
            b.jobs_split_le18_nodes.to_string(),
        ),
        (
            "domain_span_ratio",
            f(a.domain_span_ratio),
            f(b.domain_span_ratio),
        ),
        (
            "gpus_free_unusable_mean",
            format!("{:.1}", a.gpus_free_unusable_mean),
            format!("{:.1}", b.gpus_free_unusable_mean),
        ),
        (
            "gpus_free_unusable_final",
            a.gpus_free_unusable_final.to_string(),
            b.gpus_free_unusable_final.to_string(),
        ),
        (
            "domains_partly_used_mean",
            format!("{:.1}", a.domains_partly_used_mean),
            format!("{:.1}", b.domains_partly_used_mean),
        ),
        (
            "makespan_s",
            a.makespan_s.to_string(),
            b.makespan_s.to_string(),
        ),
    ]
}

/// The side-by-side table printed on stdout.
pub fn render_table(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trace {} on {} nodes / {} GPUs, compress {}, copies {}, segments {}, block wait {} s, down {}",
        c.setup.trace,
        c.setup.nodes,
        c.setup.gpus,
        c.setup.compress,
        c.setup.copies,
        c.setup.segment_policy,
        c.setup.block_wait,
        c.setup.down
    );
    let _ = writeln!(out, "{:<26} {:>14} {:>14}", "metric", "spur", "baseline");
    for (name, a, b) in rows(c) {
        let _ = writeln!(out, "{name:<26} {a:>14} {b:>14}");
    }
    let _ = writeln!(out, "{:<26} {:>14.2}", "sim_wall_s", c.sim_wall_s);
    out
}

/// The figures as CSV: `metric,spur,baseline`.
pub fn render_csv(c: &Comparison) -> String {
    let mut out = String::from("metric,spur,baseline\n");
    for (name, a, b) in rows(c) {
        let _ = writeln!(out, "{name},{a},{b}");
    }
    let _ = writeln!(out, "sim_wall_s,{:.3},{:.3}", c.sim_wall_s, c.sim_wall_s);
    out
}

/// The plot: occupancy, queue length and partly used domains over time.
pub fn render_plot(c: &Comparison, runs: &Runs) -> String {
    let gpus = c.setup.gpus.max(1) as f64;
    let series = |r: &Replay, label: &str, value: &dyn Fn(&crate::engine::Sample) -> f64| Series {
        label: label.to_string(),
        points: r.samples.iter().map(|s| (s.t as f64, value(s))).collect(),
    };
    let panel = |title: &str,
                 y: &str,
                 max: Option<f64>,
                 value: &dyn Fn(&crate::engine::Sample) -> f64| Panel {
        title: title.to_string(),
        y_label: y.to_string(),
        y_max: max,
        series: vec![
            series(&runs.spur, "spur", value),
            series(&runs.baseline, "baseline", value),
        ],
    };
    render_svg(
        &format!("{} — spur vs {}", c.setup.trace, c.baseline.placement),
        &[
            panel("GPU occupancy", "fraction of GPUs", Some(1.0), &|s| {
                s.busy_gpus as f64 / gpus
            }),
            panel("Queue length", "pending jobs", None, &|s| {
                f64::from(s.queue)
            }),
            panel("Domain fragmentation", "domains partly used", None, &|s| {
                f64::from(s.partly_used_domains)
            }),
        ],
    )
}

/// A replay's schedule, one line per job in trace order: when it was
/// submitted, started and ended, and on which nodes (Slurm's hostlist form).
/// Needs a replay that kept its nodes.
pub fn render_schedule(replay: &Replay, jobs: &[SimJob], cluster: &Cluster) -> String {
    let mut out = String::new();
    for (job, rec) in jobs.iter().zip(&replay.jobs) {
        let time = |t: Option<u64>| t.map_or_else(|| "-".to_string(), |t| t.to_string());
        let nodes = rec.node_list.as_ref().map_or_else(
            || "-".to_string(),
            |list| {
                let mut names: Vec<&str> = list
                    .iter()
                    .map(|n| cluster.nodes[n.index()].name.as_str())
                    .collect();
                names.sort_unstable();
                spur_conf::hostlist::compress_sorted(&names)
            },
        );
        let _ = write!(
            out,
            "{} submit={} start={} end={} nodes={}",
            job.spec.name,
            rec.submit,
            time(rec.start),
            time(rec.end),
            nodes
        );
        if let Some(why) = &rec.rejected {
            let _ = write!(out, " rejected={why:?}");
        }
        out.push('\n');
    }
    out
}
