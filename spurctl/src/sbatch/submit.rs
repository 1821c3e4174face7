//! Talking to the controller: submit in one round trip (retrying while it
//! is busy, as Slurm does; the answer names the cluster for `-M`),
//! `--test-only`, `--wait`, and Slurm's wording for each answer. The
//! controller is a trait so tests can stand one in.

use std::io::Write;
use std::time::Duration;

use spur_proto::{ErrorCode, JobDesc, JobField, JobFields, JobInfo, JobStateName, ProtoError};

use super::error::SbatchError;
pub use crate::controller::Controller;
use crate::controller::{Api, Listing, RequestError};
use spur_client::Submitted;

/// How the job is to be submitted and reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The job.
    pub desc: JobDesc,
    /// `--parsable`.
    pub parsable: bool,
    /// `-Q` on the command line.
    pub quiet: bool,
    /// `--test-only`.
    pub test_only: bool,
    /// `-W`.
    pub wait: bool,
}

/// Slurm retries a busy controller this many times, sleeping 1, 2, ... s.
const MAX_RETRIES: u64 = 15;

/// Submits (or tests) the job and reports as sbatch does; returns the exit
/// status. `sleep` stands for the waits between retries and polls.
pub fn submit(
    plan: Plan,
    ctl: &mut dyn Controller,
    out: &mut dyn Write,
    err: &mut dyn Write,
    sleep: &mut dyn FnMut(Duration),
) -> Result<u8, SbatchError> {
    if plan.test_only {
        return test_only(plan, ctl, err);
    }
    let (job_id, ours) = submit_with_retries(&plan.desc, ctl, err, sleep)?;
    // The controller took the job only if -M names its cluster.
    let cluster = plan.desc.clusters.as_ref().map(|_| ours);
    if !plan.quiet {
        let line = match (&cluster, plan.parsable) {
            (None, false) => format!("Submitted batch job {job_id}"),
            (Some(c), false) => format!("Submitted batch job {job_id} on cluster {c}"),
            (None, true) => job_id.to_string(),
            (Some(c), true) => format!("{job_id};{c}"),
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    if plan.wait {
        return Ok(wait_for(job_id, ctl, err, sleep));
    }
    Ok(0)
}

/// The job id the controller gave and its ClusterName, after up to
/// [`MAX_RETRIES`] waits while it says "try again".
fn submit_with_retries(
    desc: &JobDesc,
    ctl: &mut dyn Controller,
    err: &mut dyn Write,
    sleep: &mut dyn FnMut(Duration),
) -> Result<(u32, String), SbatchError> {
    let mut retries = 0;
    loop {
        match ctl.submit(desc.clone()) {
            Ok(Submitted { job_id, cluster }) => return Ok((job_id, cluster)),
            Err(RequestError::Refused(e)) if e.code == ErrorCode::InvalidClusterName => {
                return Err(SbatchError::Cluster(e.detail.unwrap_or_default()));
            }
            Err(RequestError::Refused(e))
                if e.code == ErrorCode::TryAgain && retries < MAX_RETRIES =>
            {
                if retries == 0 {
                    let _ = writeln!(
                        err,
                        "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying"
                    );
                }
                retries += 1;
                sleep(Duration::from_secs(retries));
            }
            Err(error) => {
                let detail = match &error {
                    RequestError::Refused(e) => explain(e, desc),
                    RequestError::Unreachable(_) => None,
                };
                return Err(SbatchError::Submit { detail, error });
            }
        }
    }
}

/// The line Slurm's controller sends with some refusals (its `err_msg`),
/// which sbatch prints before the error itself.
fn explain(e: &ProtoError, desc: &JobDesc) -> Option<String> {
    match e.code {
        ErrorCode::InvalidPartitionName => {
            // Without the controller's word, the one partition asked for.
            let name = match (&e.detail, &desc.partitions[..]) {
                (Some(d), _) => d.clone(),
                (None, [only]) => only.clone(),
                (None, _) => return None,
            };
            Some(if name.starts_with("invalid partition specified") {
                name
            } else {
                format!("invalid partition specified: {name}")
            })
        }
        ErrorCode::NodeConfigUnavailable => e
            .detail
            .as_ref()
            .filter(|d| d.ends_with("can not be satisfied"))
            .cloned(),
        _ => None,
    }
}

/// `--test-only`: when and where the job would start, on stderr.
fn test_only(plan: Plan, ctl: &mut dyn Controller, err: &mut dyn Write) -> Result<u8, SbatchError> {
    match ctl.will_run(plan.desc) {
        Ok(w) => {
            if !plan.quiet {
                let _ = writeln!(
                    err,
                    "sbatch: Job {} to start at {} using {} processors on nodes {} in partition {}",
                    w.job_id,
                    spur_slurm::time::timestamp(w.start),
                    w.cpus,
                    w.nodes,
                    w.partition
                );
            }
            Ok(0)
        }
        Err(RequestError::Refused(e)) if e.code == ErrorCode::InvalidClusterName => {
            Err(SbatchError::Cluster(e.detail.unwrap_or_default()))
        }
        Err(e) => Err(SbatchError::WillRun(e)),
    }
}

/// `--wait`: polls until the job ends (every 0.2 s at first, backing off
/// to 1 s) and returns its exit status as sbatch does. For an array, until
/// every task has ended, with the highest status.
fn wait_for(
    job_id: u32,
    ctl: &mut dyn Controller,
    err: &mut dyn Write,
    sleep: &mut dyn FnMut(Duration),
) -> u8 {
    let mut delay = Duration::from_millis(200);
    loop {
        sleep(delay);
        delay = (delay * 2).min(Duration::from_secs(1));
        let gone =
            || format!("sbatch: error: Job {job_id} no longer found and exit code not found");
        match ctl.jobs(vec![job_id], WAIT_FIELDS, false) {
            Ok(Listing { items: jobs, .. }) => {
                let mine: Vec<&JobInfo> = jobs
                    .iter()
                    .filter(|j| j.job_id == job_id || j.array_job_id == Some(job_id))
                    .collect();
                if mine.is_empty() {
                    let _ = writeln!(err, "{}", gone());
                    return 0;
                }
                if mine.iter().all(|j| j.state.is_finished()) {
                    return mine.iter().map(|j| exit_status(j)).max().unwrap_or(0);
                }
            }
            Err(RequestError::Refused(e)) if e.code == ErrorCode::InvalidJobId => {
                let _ = writeln!(err, "{}", gone());
                return 0;
            }
            Err(e) => {
                let _ = writeln!(
                    err,
                    "sbatch: error: Currently unable to load job state information, retrying: {e}"
                );
            }
        }
    }
}

/// What `--wait` reads of its job: which job, its state, how it ended.
const WAIT_FIELDS: JobFields = JobFields::of(&[
    JobField::JobId,
    JobField::ArrayJobId,
    JobField::State,
    JobField::ExitCode,
    JobField::ExitSignal,
]);

/// An ended job's status for `--wait`: its exit code if the script exited,
/// 1 if a signal, a cancel or a time limit ended it.
pub fn exit_status(job: &JobInfo) -> u8 {
    let code = (job.exit_code & 0xff) as u8;
    let ended_early = matches!(
        job.state,
        JobStateName::Cancelled
            | JobStateName::Timeout
            | JobStateName::NodeFail
            | JobStateName::Preempted
            | JobStateName::Deadline
            | JobStateName::Failed
    );
    if job.exit_signal != 0 || (ended_early && code == 0) {
        1
    } else {
        code
    }
}
