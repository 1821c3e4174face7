//! `srun`: inside an allocation (a batch script, or a shell salloc holds)
//! it asks the controller for a step; outside one it first asks for an
//! allocation of its own, and gives it back at the end. It launches the
//! step's tasks on every node of the step through the nodes' agents,
//! brings their output back (labelled with `-l`, or into `-o`/`-e` files),
//! feeds its stdin to task 0, forwards signals, and exits with the highest
//! task exit code.

pub(crate) mod args;
mod session;

use std::ffi::OsString;
use std::process::ExitCode;

use spur_client::StepCreated;
use spur_proto::ErrorCode;

use crate::controller::{Api, Live, RequestError};

pub use args::SrunArgs;

/// `srun`.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let opts = match args::parse(args) {
        Ok(o) => o,
        Err(code) => return code,
    };
    for w in &opts.warnings {
        eprintln!("srun: warning: {w}");
    }
    if !opts.quiet {
        for n in &opts.notes {
            eprintln!("srun: {n}");
        }
    }
    let (job_id, own) = match opts.job_id {
        Some(id) => (id, false),
        None => match crate::allocation::grant("srun", opts.allocation.clone(), opts.quiet) {
            Ok((job, _)) => (job.job_id, true),
            Err(code) => return code,
        },
    };
    if own {
        // The allocation is this srun's: say so while the step runs.
        std::thread::spawn(move || loop {
            std::thread::sleep(crate::allocation::KEEPALIVE);
            crate::allocation::keep_alive(job_id);
        });
    }
    let (status, out_of_memory) = step(&opts, job_id);
    if own {
        // A job whose only step the out-of-memory killer struck ends
        // OUT_OF_MEMORY, as srun reports SIG_OOM to slurmctld.
        let (code, signal) = if out_of_memory {
            (0, spur_proto::SIG_OOM)
        } else {
            (i32::from(status), 0)
        };
        crate::allocation::release(job_id, code, signal);
    }
    ExitCode::from(status)
}

/// Runs one step in job `job_id`: srun's exit status, and whether the
/// out-of-memory killer struck.
fn step(opts: &SrunArgs, job_id: u32) -> (u8, bool) {
    let req = opts.step_request(job_id);
    let mut waited = false;
    let mut pause = std::time::Duration::from_millis(20);
    let created = loop {
        match Live.step_create(req.clone()) {
            // Other steps hold what this one needs: wait for them, as
            // Slurm's srun does.
            Err(RequestError::Refused(e)) if e.code == ErrorCode::NodesBusy => {
                if !waited && !opts.quiet {
                    eprintln!(
                        "srun: Job {job_id} step creation temporarily disabled, retrying ({e})"
                    );
                }
                waited = true;
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_secs(1));
            }
            other => break other,
        }
    };
    let (grant, signature) = match created {
        Ok(StepCreated { grant, signature }) => {
            if waited && !opts.quiet {
                eprintln!("srun: Step created for StepId={job_id}.{}", grant.step_id);
            }
            (grant, signature)
        }
        Err(e) => {
            eprintln!("srun: error: Unable to create step for job {job_id}: {e}");
            return (1, false);
        }
    };
    let outcome = session::run(opts, grant, signature);
    let _ = Live.step_complete(job_id, outcome.step_id, outcome.exit_code, outcome.signal);
    (outcome.status, outcome.signal == spur_proto::SIG_OOM)
}
