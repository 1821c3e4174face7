//! An allocation's life as its holder (salloc, or srun outside a job)
//! lives it: ask for it and wait for the grant with Slurm's lines, tell the
//! controller the holder is still there, and give it back.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use spur_client::Submitted;
use spur_proto::{JobField, JobFields, JobInfo, JobStateName};

use crate::controller::{Api, Live, RequestError};

/// How often a holder tells the controller it is still there (so that
/// slurm.conf's InactiveLimit, when set, does not end its allocation).
pub const KEEPALIVE: Duration = Duration::from_secs(5);

/// Tells the controller allocation `id`'s holder is still here.
pub fn keep_alive(id: u32) {
    let _ = Live.allocation_alive(id);
}

/// Gives allocation `id` back, ended by a command with this status.
pub fn release(id: u32, exit_code: i32, signal: i32) {
    let _ = Live.release_allocation(id, exit_code, signal);
}

fn job(id: u32) -> Option<JobInfo> {
    let listing = Live.jobs(vec![id], JobFields::ALL, false).ok()?;
    listing.items.into_iter().find(|j| j.job_id == id)
}

/// Whether allocation `id` still runs (a moment unreachable counts as
/// yes).
pub fn still_running(id: u32) -> bool {
    // Unreachable for a moment is not revoked.
    match Live.jobs(
        vec![id],
        JobFields::of(&[JobField::JobId, JobField::State]),
        false,
    ) {
        Ok(listing) => listing
            .items
            .iter()
            .any(|j| j.job_id == id && j.state == JobStateName::Running),
        Err(RequestError::Unreachable(_)) => true,
        _ => false,
    }
}

/// Submits `desc` and waits until it runs; prints Slurm's lines on the way.
/// Returns the job and the cluster's name.
pub fn grant(
    prog: &str,
    desc: spur_proto::JobDesc,
    quiet: bool,
) -> Result<(JobInfo, String), ExitCode> {
    let (id, cluster) = match Live.submit(desc) {
        Ok(Submitted { job_id, cluster }) => (job_id, cluster),
        Err(e) => {
            match e {
                RequestError::Refused(e) if e.code == spur_proto::ErrorCode::InvalidClusterName => {
                    eprintln!(
                        "{prog}: error: '{}' can't be reached now, or it is an invalid entry \
                         for --cluster.  Use 'sacctmgr list clusters' to see available clusters.",
                        e.detail.unwrap_or_default()
                    );
                }
                e => eprintln!("{prog}: error: Job submit/allocate failed: {e}"),
            }
            return Err(ExitCode::from(1));
        }
    };
    let started = Instant::now();
    let mut announced = false;
    let mut pause = Duration::from_millis(2);
    loop {
        match job(id) {
            Some(j) if j.state == JobStateName::Running => {
                if announced && !quiet {
                    eprintln!("{prog}: job {id} has been allocated resources");
                }
                // srun says nothing of a grant; salloc always does.
                if !quiet && prog == "salloc" {
                    eprintln!("{prog}: Granted job allocation {id}");
                }
                return Ok((j, cluster));
            }
            Some(j) if j.state == JobStateName::Pending => {
                if !announced && started.elapsed() > Duration::from_millis(100) {
                    announced = true;
                    if !quiet {
                        if prog == "salloc" {
                            eprintln!("{prog}: Pending job allocation {id}");
                        }
                        eprintln!("{prog}: job {id} queued and waiting for resources");
                    }
                }
            }
            _ => {
                eprintln!("{prog}: error: Job allocation {id} has been revoked.");
                return Err(ExitCode::from(1));
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(500));
    }
}
