//! The load: submitters, each a thread running the real commands (sbatch,
//! srun) or posting to the REST server, one submission after another until
//! the run ends. Every job's script records each run it gets in
//! `runs/<job id>`, and every submission is written down with what it
//! should end as and what its submitter was told.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::cluster::Cluster;

/// What a submission was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// sbatch of a script that exits 0.
    Batch,
    /// sbatch of a script that exits 3.
    Fails,
    /// sbatch of an array of this many tasks, each exiting 0.
    Array(u32),
    /// srun of one task that exits 0 (its own allocation).
    Srun,
    /// A batch job posted to the REST server, exiting 0.
    Rest,
}

impl Kind {
    /// The state and exit code (`3:0`) each of its jobs must end with.
    pub fn expected(self) -> (&'static str, &'static str) {
        match self {
            Kind::Fails => ("FAILED", "3:0"),
            _ => ("COMPLETED", "0:0"),
        }
    }

    /// Its word in the report.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Batch => "batch",
            Kind::Fails => "failing",
            Kind::Array(_) => "arrays",
            Kind::Srun => "srun",
            Kind::Rest => "REST",
        }
    }
}

/// One submission and what came of it.
#[derive(Debug, Clone)]
pub struct Submission {
    /// Its job name, unique to it (`chaos-<submitter>-<n>`).
    pub name: String,
    /// What it was.
    pub kind: Kind,
    /// The job id its submitter was told, or why it was told none.
    pub answer: Result<u32, String>,
}

/// A submitter's settings.
#[derive(Debug, Clone)]
pub struct Load {
    /// Seconds the submitters run.
    pub until: Instant,
    /// The pause between one submitter's submissions.
    pub pause: Duration,
    /// The REST server's token.
    pub token: String,
    /// Random seed of this submitter.
    pub seed: u64,
}

/// Runs one submitter (number `me`) until the load ends; returns its
/// submissions.
pub fn submitter(c: &Cluster, me: usize, load: &Load) -> Vec<Submission> {
    let mut rng = StdRng::seed_from_u64(load.seed);
    let mut done = Vec::new();
    let runs = c.runs();
    let record = format!("echo $SLURM_JOB_ID >> {}/$SLURM_JOB_ID", runs.display());
    let mut n = 0;
    while Instant::now() < load.until {
        n += 1;
        let name = format!("chaos-{me}-{n}");
        let nap = format!("sleep 0.{}", rng.gen_range(0..8));
        let kind = match rng.gen_range(0..20) {
            0..=6 => Kind::Batch,
            7..=9 => Kind::Fails,
            10..=12 => Kind::Array(rng.gen_range(2..6)),
            13..=16 => Kind::Srun,
            _ => Kind::Rest,
        };
        let answer = match kind {
            Kind::Batch => sbatch(c, &name, &[], &format!("{record}; {nap}")),
            Kind::Fails => sbatch(c, &name, &[], &format!("{record}; {nap}; exit 3")),
            Kind::Array(tasks) => {
                let array = format!("--array=0-{}", tasks - 1);
                sbatch(c, &name, &[&array], &format!("{record}; {nap}"))
            }
            Kind::Srun => srun(c, &name, &format!("{record}; {nap}")),
            Kind::Rest => rest(c, &load.token, &name, &format!("{record}; {nap}")),
        };
        done.push(Submission { name, kind, answer });
        std::thread::sleep(load.pause);
    }
    done
}

fn first_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines().next().unwrap_or("(nothing)").to_string()
}

fn sbatch(c: &Cluster, name: &str, extra: &[&str], wrap: &str) -> Result<u32, String> {
    let mut args = vec!["--parsable", "-J", name, "-o", "/dev/null"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--wrap", wrap]);
    let out = c.run("sbatch", &args).map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("sbatch: {}", first_line(&out.stderr)));
    }
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| format!("sbatch printed {:?}", first_line(&out.stdout)))
}

fn srun(c: &Cluster, name: &str, script: &str) -> Result<u32, String> {
    let script = format!("{script}; echo JOB=$SLURM_JOB_ID");
    let out = c
        .run("srun", &["-J", name, "-N1", "-n1", "sh", "-c", &script])
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "srun exited {:?}: {}",
            out.status.code(),
            first_line(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("JOB="))
        .and_then(|id| id.trim().parse().ok())
        .ok_or_else(|| format!("srun printed {:?}", first_line(&out.stdout)))
}

fn rest(c: &Cluster, token: &str, name: &str, script: &str) -> Result<u32, String> {
    let body = serde_json::json!({
        "job": {
            "name": name,
            "current_working_directory": c.dir().display().to_string(),
            "environment": ["PATH=/usr/bin:/bin"],
            "standard_output": "/dev/null",
        },
        "script": format!("#!/bin/sh\n{script}\n"),
    })
    .to_string();
    let request = format!(
        "POST /slurm/v0.0.44/job/submit HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
         X-SLURM-USER-TOKEN: {token}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(&c.rest_addr).map_err(|e| format!("REST: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("REST: {e}"))?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|e| format!("REST: {e}"))?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or_default();
    if !status.contains(" 200 ") {
        return Err(format!("REST: {status}: {}", body.trim()));
    }
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|doc| doc["job_id"].as_u64())
        .map(|id| id as u32)
        .ok_or_else(|| format!("REST: no job id in {}", body.trim()))
}
