//! The jobs a path names (`N`, or an array task `N_T`), the signal request
//! a cancel makes of them, and the first refusal among the answers of a
//! request that acted on several: shared by every version's handlers.

use spur_client::{PerTarget, RequestError};
use spur_proto::{ArrayTasks, SignalTarget};

/// SIGKILL: a cancel, as `slurm_kill_job` with it is.
const SIGKILL: i32 = 9;

/// The signal a cancel's `signal` names (a name or a number): SIGKILL
/// when it names none, None when it is no signal.
pub fn requested_signal(name: Option<&str>) -> Option<i32> {
    name.map_or(Some(SIGKILL), spur_slurm::signal::name2num)
}

/// A job id of a path: `N`, or an array task `N_T`.
pub fn job_ref(text: &str) -> Option<(u32, Option<u32>)> {
    match text.split_once('_') {
        Some((job, task)) => Some((job.parse().ok()?, Some(task.parse().ok()?))),
        None => Some((text.parse().ok()?, None)),
    }
}

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
    fn paths_name_jobs_and_tasks() {
        assert_eq!(job_ref("12"), Some((12, None)));
        assert_eq!(job_ref("12_3"), Some((12, Some(3))));
        assert_eq!(job_ref("x"), None);
        assert_eq!(job_ref("12_"), None);
        let kill = signal(12, None, SIGKILL, false, false);
        assert_eq!((kill.jobs, kill.signal), (vec![12], None));
        let usr1 = signal(12, Some(3), 10, false, false);
        assert!(usr1.jobs.is_empty());
        assert_eq!(usr1.array_tasks[0].tasks, "3");
        assert_eq!(usr1.signal, Some(10));
    }
}
