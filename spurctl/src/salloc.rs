//! `salloc`: asks for an allocation (sbatch's options), waits until it is
//! granted, runs the command (or the user's shell) on this host with the
//! allocation's SLURM_* variables, so that `srun` inside it runs steps on
//! the allocated nodes, and gives the allocation back when the command
//! ends, exiting with its status.

use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use spur_proto::JobInfo;

use crate::allocation::{grant, keep_alive, release, still_running, KEEPALIVE};
use spur_options::{alloc, Host};

/// `salloc`.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let host = Host::current();
    let a = match alloc::parse("salloc", &args, &host) {
        Ok(a) => a,
        Err((text, code)) => {
            if code == 0 {
                print!("{text}");
            } else {
                eprint!("{text}");
            }
            return ExitCode::from(code);
        }
    };
    if !a.quiet {
        for w in &a.warnings {
            eprintln!("{w}");
        }
    }
    let command = if a.command.is_empty() {
        vec![host
            .env
            .iter()
            .find(|(k, _)| k == "SHELL")
            .map_or_else(|| "/bin/sh".to_string(), |(_, v)| v.clone())]
    } else {
        a.command.clone()
    };
    let ntasks = a.desc.ntasks;
    let (job, cluster) = match grant("salloc", a.desc, a.quiet) {
        Ok(granted) => granted,
        Err(code) => return code,
    };
    let asked = Asked { ntasks, cluster };
    let id = job.job_id;
    let mut child = match std::process::Command::new(&command[0])
        .args(&command[1..])
        .envs(allocation_env(&job, &host, &asked))
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("salloc: error: {}: {e}", command[0]);
            release(id, 1, 0);
            relinquish("salloc", id, a.quiet);
            return ExitCode::from(1);
        }
    };
    // The terminal's Ctrl-C is for the command, not for salloc.
    // SAFETY: setting a disposition; no handler runs.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    let pgid = child.id() as i32;
    let mut heard = Instant::now();
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if heard.elapsed() >= KEEPALIVE {
            keep_alive(id);
            heard = Instant::now();
        }
        if !still_running(id) {
            eprintln!("salloc: Job allocation {id} has been revoked.");
            // SAFETY: signalling the command's process group.
            unsafe { libc::kill(-pgid, libc::SIGHUP) };
            let status = child.wait().ok();
            return ExitCode::from(status.and_then(|s| s.code()).unwrap_or(1).clamp(0, 255) as u8);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let (code, signal) = (status.code().unwrap_or(0), status.signal().unwrap_or(0));
    relinquish("salloc", id, a.quiet);
    release(id, code, signal);
    if !a.quiet {
        eprintln!("salloc: Job allocation {id} has been revoked.");
    }
    ExitCode::from(if signal != 0 {
        (128 + signal).min(255) as u8
    } else {
        code.clamp(0, 255) as u8
    })
}

fn relinquish(prog: &str, id: u32, quiet: bool) {
    if !quiet {
        eprintln!("{prog}: Relinquishing job allocation {id}");
    }
}

/// What salloc knows beside the allocation: what it asked for, and the
/// cluster's name.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `-n`.
    pub ntasks: Option<u32>,
    /// ClusterName.
    pub cluster: String,
}

/// The variables a command holding allocation `job` gets (salloc's list,
/// env_array_for_job's).
pub fn allocation_env(job: &JobInfo, host: &Host, asked: &Asked) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let mut set = |k: &str, v: String| env.push((k.to_string(), v));
    let id = job.job_id.to_string();
    let cpus = spur_proto::counts::compress_counts(&job.cpus_per_node);
    // The tasks each node can hold, filled in order up to -n when given.
    let mut left = asked.ntasks.map_or(u32::MAX, |n| n.max(job.num_nodes));
    let tasks: Vec<u32> = job
        .cpus_per_node
        .iter()
        .map(|&c| {
            let t = (c / job.cpus_per_task.max(1)).max(1).min(left);
            left -= t;
            t
        })
        .collect();
    set("SLURM_JOB_ID", id.clone());
    set("SLURM_JOBID", id);
    set("SLURM_JOB_NAME", job.name.clone());
    set("SLURM_JOB_NODELIST", job.nodes.clone());
    set("SLURM_NODELIST", job.nodes.clone());
    set("SLURM_JOB_NUM_NODES", job.num_nodes.to_string());
    set("SLURM_NNODES", job.num_nodes.to_string());
    set("SLURM_JOB_CPUS_PER_NODE", cpus);
    set("SLURM_JOB_PARTITION", job.partition.clone());
    set("SLURM_JOB_QOS", job.qos.clone());
    if let Some(a) = &job.account {
        set("SLURM_JOB_ACCOUNT", a.clone());
    }
    set("SLURM_SUBMIT_DIR", host.cwd.clone());
    set("SLURM_SUBMIT_HOST", host.hostname.clone());
    if let Some(g) = job
        .tres_per_job
        .as_deref()
        .and_then(|t| t.rsplit(':').next())
    {
        set("SLURM_GPUS", g.to_string());
    }
    if let Some(g) = job
        .tres_per_node
        .as_deref()
        .and_then(|t| t.rsplit(':').next())
    {
        set("SLURM_GPUS_PER_NODE", g.to_string());
    }
    if job.ntasks_per_node > 0 {
        set("SLURM_NTASKS_PER_NODE", job.ntasks_per_node.to_string());
    }
    set("SLURM_NODE_ALIASES", "(null)".into());
    set(
        "SLURM_TASKS_PER_NODE",
        spur_proto::counts::compress_counts(&tasks),
    );
    if let Some(n) = asked.ntasks {
        let n = n.max(job.num_nodes).to_string();
        set("SLURM_NTASKS", n.clone());
        set("SLURM_NPROCS", n);
    }
    set("SLURM_CLUSTER_NAME", asked.cluster.clone());
    env
}
