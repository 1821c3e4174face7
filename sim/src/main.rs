//! spur-sim: replay a job trace through spur's scheduling core and a
//! topology-unaware baseline, and report both side by side.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Parser;
use spur_sim::{cluster, report, trace, workload};

/// Replays a job trace through spur-core on a virtual clock, next to a
/// topology-unaware baseline (linear first fit or best fit, with backfill)
/// on the same input.
#[derive(Debug, Parser)]
#[command(name = "spur-sim", version)]
struct SimOpts {
    /// The trace: a normalized jobs.csv, a raw SWF file, or Alibaba openb pods.
    #[arg(long)]
    trace: PathBuf,
    /// The cluster as slurm.conf (topology.conf is read from its folder).
    #[arg(long, conflicts_with = "domains")]
    conf: Option<PathBuf>,
    /// The cluster as a number of NVL72 domains (18 nodes x 4 GPUs each).
    #[arg(long, conflicts_with = "alibaba_nodes")]
    domains: Option<u32>,
    /// The cluster as an Alibaba openb node list (for its pod traces).
    #[arg(long, conflicts_with = "conf")]
    alibaba_nodes: Option<PathBuf>,
    /// The baseline's node selection: linear (first fit) or best-fit.
    #[arg(long, default_value = "linear", value_parser = ["linear", "best-fit"])]
    baseline: String,
    /// Arrival-time compression: submit times are divided by K.
    #[arg(long, default_value_t = 1.0)]
    compress: f64,
    /// Copies of every job (same submit time).
    #[arg(long, default_value_t = 1)]
    copies: u32,
    /// --segment for each job: nvidia (by job size), none, or a node count.
    #[arg(long, default_value = "none")]
    segment_policy: workload::SegmentPolicy,
    /// Jobs never end: they arrive until the cluster is full (the way the
    /// fragmentation studies on the Alibaba traces fill a cluster).
    #[arg(long)]
    no_departures: bool,
    /// Seconds a job larger than a domain waits for the fewest domains its
    /// size needs before it takes more (0: it never waits).
    #[arg(long, default_value_t = 0)]
    block_wait: u64,
    /// Share of nodes down for the whole run.
    #[arg(long, default_value_t = 0.0)]
    down: f64,
    /// Write both runs' figures as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write both runs' figures as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Draw occupancy, queue length and domain fragmentation over time here.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Write spur's schedule (one line per job: submit, start, end, nodes)
    /// here.
    #[arg(long)]
    schedule: Option<PathBuf>,
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SPUR_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let opts = SimOpts::parse();
    match run(&opts) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spur-sim: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(opts: &SimOpts) -> Result<()> {
    if !(0.0..1.0).contains(&opts.down) {
        bail!("--down must be at least 0 and below 1, got {}", opts.down);
    }
    let mut trace = trace::load(&opts.trace)
        .with_context(|| format!("while reading the trace {}", opts.trace.display()))?;
    trace
        .compress(opts.compress)
        .context("while compressing arrivals")?;
    trace.replicate(opts.copies);
    let cluster = match (&opts.conf, opts.domains, &opts.alibaba_nodes) {
        (Some(conf), _, _) => cluster::from_slurm_conf(conf)
            .with_context(|| format!("while reading {}", conf.display()))?,
        (None, _, Some(path)) => cluster::from_alibaba(
            &trace::load_alibaba_nodes(path)
                .with_context(|| format!("while reading {}", path.display()))?,
        ),
        (None, Some(domains), None) if domains > 0 => cluster::nvl72(domains),
        _ => bail!(
            "give the cluster with --conf SLURM_CONF, --domains N (N > 0) or --alibaba-nodes FILE"
        ),
    };
    let mut jobs: Vec<workload::SimJob> = trace
        .jobs
        .iter()
        .map(|j| workload::to_sim_job(j, opts.segment_policy))
        .collect();
    if opts.no_departures {
        for job in &mut jobs {
            job.runtime = None;
            job.spec.time_limit = None;
        }
    }
    workload::check_fits(&jobs, cluster.nodes.len(), &trace.source)?;
    let domain_of = cluster::domain_map(&cluster);
    let down = cluster::down_nodes(cluster.nodes.len(), opts.down);
    let setup = report::Setup {
        trace: opts.trace.display().to_string(),
        nodes: cluster.nodes.len(),
        gpus: cluster.nodes.iter().map(|n| u64::from(n.gpus)).sum(),
        compress: opts.compress,
        copies: opts.copies,
        segment_policy: opts.segment_policy.to_string(),
        down: opts.down,
        baseline: opts.baseline.clone(),
        block_wait: opts.block_wait,
        keep_nodes: opts.schedule.is_some(),
    };
    let config = spur_core::SchedConfig {
        max_job_count: u32::MAX,
        block_wait: opts.block_wait,
        ..cluster::sched_config(opts.conf.as_deref())?
    };
    let (comparison, runs) = report::compare(&cluster, config, &jobs, &down, &domain_of, setup)
        .context("while replaying")?;
    print!("{}", report::render_table(&comparison));
    if let Some(path) = &opts.json {
        let text = serde_json::to_string_pretty(&comparison)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("while writing {}", path.display()))?;
    }
    if let Some(path) = &opts.csv {
        std::fs::write(path, report::render_csv(&comparison))
            .with_context(|| format!("while writing {}", path.display()))?;
    }
    if let Some(path) = &opts.schedule {
        std::fs::write(path, report::render_schedule(&runs.spur, &jobs, &cluster))
            .with_context(|| format!("while writing {}", path.display()))?;
    }
    if let Some(path) = &opts.plot {
        std::fs::write(path, report::render_plot(&comparison, &runs))
            .with_context(|| format!("while writing {}", path.display()))?;
    }
    Ok(())
}
