//! spur-bench: the scheduling core's speed figures, each next to the
//! topology-unaware baseline measured in the same run. Prints one line per
//! figure: `name value unit`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use spur_core::placement::frag::Workload;
use spur_core::placement::{fit_key, tasks_fit, BlockPlacement, FlatPlacement, Placement, Request};
use spur_core::{
    Core, Discard, Exclusive, JobSpec, PlacementPolicy, Resources, SchedConfig, Topology, Uid,
};
use spur_sim::{cluster, engine, trace, workload};

/// Measures a full scheduling pass, single placements and a trace replay.
#[derive(Debug, Parser)]
#[command(name = "spur-bench")]
struct BenchOpts {
    /// NVL72 domains in the cluster.
    #[arg(long, default_value_t = 277)]
    domains: u32,
    /// Pending jobs in the pass benchmark.
    #[arg(long, default_value_t = 100_000)]
    pending: u32,
    /// Placements timed for the percentile.
    #[arg(long, default_value_t = 20_000)]
    placements: u32,
    /// Times each pass is repeated (the median is printed).
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// A trace to replay for the year figure (skipped when absent).
    #[arg(long)]
    trace: Option<PathBuf>,
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn job(rng: &mut Rng) -> JobSpec {
    let mut spec = JobSpec {
        user: Uid(1000 + rng.below(50) as u32),
        time_limit: Some(3600 * (1 + rng.below(24))),
        ..Default::default()
    };
    if rng.below(4) == 0 {
        spec.gpus = Some(1 + rng.below(3) as u32);
        spec.cpus_per_task = Some(8);
    } else {
        let sizes = [1, 2, 4, 8, 16, 18, 32, 36, 64, 128, 256];
        spec.min_nodes = Some(sizes[rng.below(sizes.len() as u64) as usize]);
        spec.gpus_per_node = Some(4);
        spec.exclusive = Exclusive::Node;
    }
    spec
}

/// A cluster about 90% allocated, and the generator's state after filling it.
fn busy_core(domains: u32, placement: PlacementPolicy) -> Result<(Core, Rng)> {
    let config = SchedConfig {
        placement,
        max_job_count: u32::MAX,
        ..SchedConfig::default()
    };
    let mut core = Core::new(cluster::nvl72(domains), config)?;
    let mut rng = Rng(0x5eed_1234_abcd_9876);
    let total = core.nodes().len();
    let mut now = 1_000_000;
    while core.nodes().iter().filter(|n| !n.is_idle()).count() * 10 < total * 9 {
        let mut spec = job(&mut rng);
        spec.time_limit = Some(86_400 * 7);
        if core.submit_job(spec, now).is_ok() {
            core.schedule(now, &mut Discard);
        }
        now += 1;
    }
    // Whatever did not fit stays queued: drop it so the pass sees only the
    // benchmark's jobs.
    let queued: Vec<_> = core.pending_jobs().map(|j| j.id).collect();
    for id in queued {
        core.cancel_job(id, now, &mut Discard)?;
    }
    Ok((core, rng))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pass_seconds(opts: &BenchOpts, placement: PlacementPolicy) -> Result<f64> {
    let mut times = Vec::new();
    for _ in 0..opts.repeat {
        let (mut core, mut rng) = busy_core(opts.domains, placement)?;
        let now = 2_000_000;
        for _ in 0..opts.pending {
            core.submit_job(job(&mut rng), now)
                .context("while queueing")?;
        }
        let started = Instant::now();
        core.schedule(now, &mut Discard);
        times.push(started.elapsed().as_secs_f64());
    }
    Ok(median(times))
}

/// Times single placements of random jobs on the busy cluster: per-node
/// capacity over every node, then the topology's node selection.
fn placement_micros(opts: &BenchOpts, first_fit: bool) -> Result<(f64, f64)> {
    let (core, mut rng) = busy_core(opts.domains, PlacementPolicy::Topology)?;
    let placer: Box<dyn Placement> = match (core.topology(), first_fit) {
        (Topology::Block(b), false) => Box::new(BlockPlacement::new(b.clone())),
        _ => Box::new(FlatPlacement::first_fit(core.nodes().len())),
    };
    let defaults = spur_core::spec::ShapeDefaults {
        block_topology: true,
        max_switch_wait: 300,
        ..Default::default()
    };
    // The demand mix the core learns from submissions, from the same
    // generator.
    let mut workload = Workload::default();
    let mut mix = Rng(0x0bad_cafe_0123_4567);
    for _ in 0..10_000 {
        let shape = spur_core::spec::resolve_shape(&job(&mut mix), None, &defaults)?;
        let tasks = shape.min_tasks_per_node();
        workload.record(Resources {
            cpus: shape.cpus_on_node(tasks),
            mem_mb: shape.mem_on_node(tasks, 0),
            gpus: shape
                .gpus_on_node(tasks)
                .max(u32::from(shape.is_whole_node())),
        });
    }
    let mut caps = vec![0u32; core.nodes().len()];
    let mut keys = vec![u64::MAX; core.nodes().len()];
    let mut out = Vec::new();
    let mut samples = Vec::with_capacity(opts.placements as usize);
    for _ in 0..opts.placements {
        let spec = job(&mut rng);
        let shape = spur_core::spec::resolve_shape(&spec, None, &defaults)?;
        let started = Instant::now();
        // Per-node capacity and the best-fit key, with the fragmentation
        // term for jobs that share nodes, as a scheduling pass computes them.
        let tasks = shape.min_tasks_per_node();
        let demand = Resources {
            cpus: shape.cpus_on_node(tasks),
            mem_mb: shape.mem_on_node(tasks, 0),
            gpus: shape.gpus_on_node(tasks),
        };
        for (i, node) in core.nodes().iter().enumerate() {
            let total = node.config.resources();
            let free = node.free();
            caps[i] = tasks_fit(&shape, &total, &free, node.is_idle());
            if caps[i] > 0 {
                let frag = (!shape.is_whole_node()).then(|| workload.delta(&free, &demand));
                keys[i] = fit_key(node.config.weight, frag, &free.saturating_sub(&demand));
            }
        }
        let req = Request {
            shape: &shape,
            nodes: shape.nodes_min,
            caps: &caps,
            keys: &keys,
            idle_blocks: None,
            wait_over: true,
        };
        let _ = placer.select(&req, &mut out);
        samples.push(started.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(&out);
    }
    samples.sort_by(f64::total_cmp);
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    Ok((p(0.5), p(0.99)))
}

/// Times submissions to an idle cluster of `domains` NVL72 domains: the
/// mix of [`job`] and, as a shell loop of `sbatch --wrap` sends them, one
/// single-node job over and over (p50, in microseconds, of each).
fn submit_micros(opts: &BenchOpts, domains: u32) -> Result<(f64, f64)> {
    let config = SchedConfig {
        max_job_count: u32::MAX,
        ..SchedConfig::default()
    };
    let mut core = Core::new(cluster::nvl72(domains), config)?;
    let mut rng = Rng(0x51b_0000_5eed_0001);
    let mut time = |spec: JobSpec| -> Result<f64> {
        let started = Instant::now();
        core.submit_job(spec, 1_000_000)
            .context("while submitting")?;
        Ok(started.elapsed().as_secs_f64() * 1e6)
    };
    let mut mix = Vec::with_capacity(opts.placements as usize);
    let mut same = Vec::with_capacity(opts.placements as usize);
    for _ in 0..opts.placements {
        mix.push(time(job(&mut rng))?);
        same.push(time(JobSpec {
            user: Uid(1000),
            ..Default::default()
        })?);
    }
    Ok((median(mix), median(same)))
}

fn replay_seconds(path: &std::path::Path, domains: u32, placement: PlacementPolicy) -> Result<f64> {
    let trace = trace::load(path)?;
    let cluster = cluster::nvl72(domains);
    let jobs: Vec<_> = trace
        .jobs
        .iter()
        .map(|j| workload::to_sim_job(j, workload::SegmentPolicy::None))
        .collect();
    let domain_of = cluster::domain_map(&cluster);
    let config = SchedConfig {
        placement,
        max_job_count: u32::MAX,
        ..SchedConfig::default()
    };
    let started = Instant::now();
    engine::replay(cluster, config, &jobs, &[], &domain_of, false)?;
    Ok(started.elapsed().as_secs_f64())
}

fn main() -> Result<()> {
    let opts = BenchOpts::parse();
    let spur = pass_seconds(&opts, PlacementPolicy::Topology)?;
    let base = pass_seconds(&opts, PlacementPolicy::LinearFirstFit)?;
    println!(
        "sched_pass_{}k_pending_spur {spur:.4} s",
        opts.pending / 1000
    );
    println!(
        "sched_pass_{}k_pending_baseline {base:.4} s",
        opts.pending / 1000
    );
    let (p50, p99) = placement_micros(&opts, false)?;
    let (b50, b99) = placement_micros(&opts, true)?;
    println!("placement_p50_spur {p50:.1} us");
    println!("placement_p99_spur {p99:.1} us");
    println!("placement_p50_baseline {b50:.1} us");
    println!("placement_p99_baseline {b99:.1} us");
    // Submission beside the same on the benches' cluster (4 domains, 72
    // nodes): what a submission costs as the cluster grows.
    for domains in [4, opts.domains] {
        let (mix, same) = submit_micros(&opts, domains)?;
        let nodes = domains * spur_sim::metrics::DOMAIN_NODES;
        println!("submit_p50_mix_{nodes}_nodes {mix:.1} us");
        println!("submit_p50_one_node_{nodes}_nodes {same:.1} us");
    }
    if let Some(path) = &opts.trace {
        let spur = replay_seconds(path, opts.domains, PlacementPolicy::Topology)?;
        let base = replay_seconds(path, opts.domains, PlacementPolicy::LinearFirstFit)?;
        println!("trace_replay_spur {spur:.2} s");
        println!("trace_replay_baseline {base:.2} s");
    }
    Ok(())
}
