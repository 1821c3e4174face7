//! The commands' way to the controller: spur-client's process session, with
//! what a command inside a job needs (it outlives its own cancel).

use spur_proto::{ClientRequest, ClientResponse};

pub use spur_client::{Api, Controller, Listing, PerTarget, RequestError};

/// The controller named by slurm.conf, as the commands ask it.
#[derive(Debug, Default)]
pub struct Live;

impl Controller for Live {
    /// The process's session, after making sure a request that ends this
    /// command's own job lets the command report it.
    fn request(&mut self, req: &ClientRequest) -> Result<ClientResponse, RequestError> {
        if ends_own_job(req, std::env::var("SLURM_JOB_ID").ok().as_deref()) {
            outlive_own_job();
        }
        spur_client::Process.request(req)
    }
}

/// ClusterName, as the controller's configuration says it (None when the
/// controller cannot be asked).
pub fn cluster_name() -> Option<String> {
    let config = Live.config().ok()?;
    Some(config.conf.cluster_name.unwrap_or_default())
}

/// Whether `req` requeues or cancels the job this command runs in (the
/// job id in `SLURM_JOB_ID`): `scontrol requeue $SLURM_JOB_ID` from inside
/// a job, as submitit's checkpointing does.
fn ends_own_job(req: &ClientRequest, own: Option<&str>) -> bool {
    let Some(own) = own.and_then(|id| id.parse::<u32>().ok()) else {
        return false;
    };
    match req {
        ClientRequest::Requeue { jobs, .. } => jobs.contains(&own),
        ClientRequest::Signal(target) => target.signal.is_none() && target.jobs.contains(&own),
        _ => false,
    }
}

/// Blocks SIGTERM for the rest of this command's life. The controller
/// answers before it ends the job, but the end reaches this process (it is
/// one of the job's) through another path and could overtake the answer:
/// with SIGTERM blocked the command still reports, and exits with its own
/// status, as under Slurm, where the answer always comes first. SIGKILL,
/// after KillWait, still ends it.
fn outlive_own_job() {
    // SAFETY: sigprocmask on an initialised set; this process's commands
    // are single-threaded when they send requests.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_proto::{RequeueHold, SignalTarget};

    #[test]
    fn only_requests_that_end_the_callers_own_job_count() {
        let requeue = ClientRequest::Requeue {
            jobs: vec![7, 9],
            hold: RequeueHold::default(),
            incomplete: false,
        };
        assert!(ends_own_job(&requeue, Some("9")));
        assert!(!ends_own_job(&requeue, Some("8")));
        assert!(!ends_own_job(&requeue, None));
        assert!(!ends_own_job(&requeue, Some("x")));
        let mut target = SignalTarget {
            jobs: vec![8],
            array_tasks: Vec::new(),
            signal: None,
            batch_only: false,
            full: false,
        };
        assert!(ends_own_job(
            &ClientRequest::Signal(target.clone()),
            Some("8")
        ));
        target.signal = Some(10);
        assert!(!ends_own_job(&ClientRequest::Signal(target), Some("8")));
        assert!(!ends_own_job(&ClientRequest::Ping, Some("8")));
    }
}
