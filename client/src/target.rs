//! The signal request a cancel or signal makes of a job (or one of its
//! array tasks, as `N_T` names it), and the first refusal among the
//! answers of a request that acted on several: shared by the REST server
//! and the C library.

use spur_proto::{ArrayTasks, SignalTarget};

use crate::{PerTarget, RequestError};

/// SIGKILL: a cancel, as `slurm_kill_job` with it is.
pub const SIGKILL: i32 = 9;

/// What signalling `job_id` (or one of its array tasks) with `signal`
/// asks of the controller; SIGKILL to the whole job cancels it.
pub fn signal(
    job_id: u32,
    task: Option<u32>,
    signal: i32,
    batch_only: bool,
    full: bool,
) -> SignalTarget {
    SignalTarget {
        jobs: if task.is_none() {
            vec![job_id]
        } else {
            Vec::new()
        },
        array_tasks: task
            .map(|t| ArrayTasks {
                array_job_id: job_id,
                tasks: t.to_string(),
            })
            .into_iter()
            .collect(),
        signal: (signal != SIGKILL || batch_only || full).then_some(signal),
        batch_only,
        full,
    }
}

/// A job id as a path or `slurm_kill_job2` names it: `N`, or an array
/// task `N_T`.
pub fn job_ref(text: &str) -> Option<(u32, Option<u32>)> {
    match text.split_once('_') {
        Some((job, task)) => Some((job.parse().ok()?, Some(task.parse().ok()?))),
        None => Some((text.parse().ok()?, None)),
    }
}

/// The first refusal of a request that acted on several jobs.
pub fn first_failure(result: Result<PerTarget, RequestError>) -> Option<RequestError> {
    match result {
        Err(e) => Some(e),
        Ok(PerTarget::Done) => None,
        Ok(PerTarget::Jobs(r)) => r
            .into_iter()
            .find_map(|(_, r)| r.err().map(RequestError::Refused)),
        Ok(PerTarget::Tasks(r)) => r
            .into_iter()
            .find_map(|(_, r)| r.err().map(RequestError::Refused)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kill_of_the_whole_job_is_a_cancel() {
        let kill = signal(12, None, SIGKILL, false, false);
        assert_eq!((kill.jobs, kill.signal), (vec![12], None));
        let usr1 = signal(12, Some(3), 10, false, false);
        assert!(usr1.jobs.is_empty());
        assert_eq!(usr1.array_tasks[0].tasks, "3");
        assert_eq!(usr1.signal, Some(10));
    }
}
