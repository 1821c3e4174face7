//! spur-chaos, the fault harness behind `bench/chaos`: a spur cluster of
//! separate processes (a controller, agents, a REST server) under load from
//! concurrent submitters (batch jobs, arrays, failing jobs, srun, REST),
//! while its controller is killed at random moments (also inside a commit
//! and between a commit and its answers, through failpoints) and its agents
//! are killed while their jobs run. Then every acknowledged job is checked:
//! it exists exactly once, its id was told to no one else, it is not stuck,
//! it ran once, and it ended as its script says. Prints
//! `acknowledged / lost / duplicate ids / stuck / ran twice` and exits
//! non-zero unless all is well.

mod cluster;
mod faults;
mod load;
mod verdict;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Parser;

use cluster::Cluster;
use load::{Kind, Load};

/// Faults against a spur cluster under load, then a check of every job.
#[derive(Debug, Parser)]
#[command(name = "spur-chaos")]
struct Opts {
    /// How long the submitters run and faults are dealt, in seconds.
    #[arg(long, default_value_t = 600)]
    seconds: u64,
    /// Concurrent submitters.
    #[arg(long, default_value_t = 8)]
    submitters: usize,
    /// Nodes (one agent each).
    #[arg(long, default_value_t = 4)]
    nodes: u32,
    /// Mean seconds between controller kills.
    #[arg(long, default_value_t = 15.0)]
    controller_every: f64,
    /// Mean seconds between agent kills.
    #[arg(long, default_value_t = 40.0)]
    agent_every: f64,
    /// Milliseconds each submitter waits between its submissions.
    #[arg(long, default_value_t = 100)]
    pause_ms: u64,
    /// Seconds the jobs may take to end once the faults stop.
    #[arg(long, default_value_t = 300)]
    settle: u64,
    /// Random seed (default: from the clock); the run prints it.
    #[arg(long)]
    seed: Option<u64>,
    /// The folder of spurd, spurctl and sbatch (default: this program's).
    #[arg(long)]
    bin: Option<PathBuf>,
    /// Keep the cluster's folder (logs, state, runs) and print it.
    #[arg(long)]
    keep: bool,
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    match run(&opts) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("spur-chaos: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn bin_dir(opts: &Opts) -> Result<PathBuf> {
    if let Some(bin) = &opts.bin {
        return Ok(bin.clone());
    }
    let exe = std::env::current_exe()?;
    Ok(exe.parent().context("this program's folder")?.to_path_buf())
}

fn run(opts: &Opts) -> Result<bool> {
    let bin = bin_dir(opts)?;
    for &b in ["spurd", "spurctl"].iter().chain(spur_slurm::OWN_PROGRAMS) {
        if !bin.join(b).exists() {
            bail!("no {b} in {} (build it, or give --bin)", bin.display());
        }
    }
    let seed = opts.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    println!(
        "chaos: seed {seed}, {} s, {} submitters, {} nodes, a controller kill every ~{} s, an agent kill every ~{} s",
        opts.seconds, opts.submitters, opts.nodes, opts.controller_every, opts.agent_every
    );
    let mut c = Cluster::start(&bin, opts.nodes).context("while starting the cluster")?;
    let token = token(&c)?;
    let began = Instant::now();
    let stop = AtomicBool::new(false);
    let (submissions, dealt, agents_killed) = std::thread::scope(|s| -> Result<_> {
        let killer = s.spawn(|| faults::controller_killer(&c, opts.controller_every, seed, &stop));
        let agents = s.spawn(|| faults::agent_killer(&c, opts.agent_every, seed ^ 0xa9e7, &stop));
        let until = began + Duration::from_secs(opts.seconds);
        let submitters: Vec<_> = (0..opts.submitters)
            .map(|me| {
                let load = Load {
                    until,
                    pause: Duration::from_millis(opts.pause_ms),
                    token: token.clone(),
                    seed: seed.wrapping_add(me as u64 + 1),
                };
                let c = &c;
                s.spawn(move || load::submitter(c, me, &load))
            })
            .collect();
        let mut all = Vec::new();
        for h in submitters {
            all.extend(h.join().expect("a submitter panicked"));
        }
        stop.store(true, Ordering::SeqCst);
        let dealt = killer.join().expect("the killer panicked")?;
        let agents_killed = agents.join().expect("the killer panicked")?;
        Ok((all, dealt, agents_killed))
    })?;
    let faulted = began.elapsed();
    let settled = c.wait_for(Duration::from_secs(opts.settle), "every job to end", || {
        c.run("squeue", &["-h", "-o", "%i"])
            .is_ok_and(|o| o.status.success() && o.stdout.is_empty())
    });
    if let Err(e) = &settled {
        println!("chaos: {e}");
    }
    let dead = c.dead_daemon();
    let v = verdict::judge(&c, &submissions)?;
    let count = |k: fn(&Kind) -> bool| submissions.iter().filter(|s| k(&s.kind)).count();
    println!(
        "chaos: {:.0} s of faults; controller killed {} times ({} from outside, {} inside a commit, {} between a commit and its answers); agents killed {} times",
        faulted.as_secs_f64(),
        dealt.controller_deaths(),
        dealt.controller_killed,
        dealt.died_in_commit,
        dealt.died_before_answer,
        agents_killed
    );
    println!(
        "chaos: {} submissions: batch {}, failing {}, arrays {}, srun {}, REST {}; {} commands failed ({} of whose jobs exist)",
        submissions.len(),
        count(|k| *k == Kind::Batch),
        count(|k| *k == Kind::Fails),
        count(|k| matches!(k, Kind::Array(_))),
        count(|k| *k == Kind::Srun),
        count(|k| *k == Kind::Rest),
        v.failed,
        v.made_unacknowledged,
    );
    for line in &v.examples {
        println!("chaos: {line}");
    }
    if let Some(d) = &dead {
        println!("chaos: {d} is not running at the end");
    }
    for status in &dealt.crashes {
        println!("chaos: the controller died by itself: {status}");
    }
    println!(
        "acknowledged {} / lost {} / duplicate ids {} / stuck {} / ran twice {}",
        v.acknowledged, v.lost, v.duplicate_ids, v.stuck, v.ran_twice
    );
    println!(
        "second jobs from retries {} / wrong end states {}",
        v.second_jobs, v.wrong_end
    );
    if opts.keep {
        println!("chaos: kept {}", c.keep().display());
    }
    Ok(v.clean() && dead.is_none() && settled.is_ok() && dealt.crashes.is_empty())
}

/// A REST token for the whole run.
fn token(c: &Cluster) -> Result<String> {
    let out = c.run("scontrol", &["token", "lifespan=86400"])?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .strip_prefix("SLURM_JWT=")
        .map(str::to_string)
        .with_context(|| format!("scontrol token printed {text:?}"))
}
