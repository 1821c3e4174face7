//! The signal a cancel's query names; the job a path names (`N`, or an
//! array task `N_T`), the signal request and the first refusal come from
//! spur-client, shared with the C library.

pub use spur_client::target::{first_failure, job_ref, signal, SIGKILL};

/// The signal a cancel's `signal` names (a name or a number): SIGKILL
/// when it names none, None when it is no signal.
pub fn requested_signal(name: Option<&str>) -> Option<i32> {
    name.map_or(Some(SIGKILL), spur_slurm::signal::name2num)
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
        assert_eq!(requested_signal(None), Some(SIGKILL));
        assert_eq!(requested_signal(Some("USR1")), Some(10));
    }
}
