//! What scancel's command line names: job id arguments (read by
//! `spur_slurm::job_ref`), signal names parsed as Slurm parses them, and
//! the filters as its "No active jobs match" line words them. Which jobs
//! they select is spur-client's `select`. Pure: no I/O.

use spur_proto::JobStateName;

pub use spur_client::select::*;

/// `-s USR1`, `-s SIGUSR1`, `-s 10` (any case, blanks around allowed),
/// as scancel's `sig_name2num` into a 16-bit signal.
pub fn parse_signal(text: &str) -> Option<i32> {
    spur_slurm::signal::name2num(text).filter(|n| (1..=0xffff).contains(n))
}

/// Splits and parses the job id arguments; `Invalid job id X` on error.
pub fn parse_ids(args: &[String]) -> Result<Vec<JobRef>, String> {
    spur_slurm::job_ref::parse_step_refs(args).map_err(|arg| format!("Invalid job id {arg}"))
}

/// `account=x job_name=y ...` for Slurm's "No active jobs match" line.
pub fn describe(f: &Filters) -> String {
    let mut out = String::new();
    let mut add = |key: &str, v: &Option<String>| {
        if let Some(v) = v {
            out.push_str(&format!("{key}={v} "));
        }
    };
    add("account", &f.account);
    add("job_name", &f.name);
    add("nodelist", &f.nodelist);
    add("partition", &f.partition);
    add("qos", &f.qos);
    add("reservation", &f.reservation);
    let state = f
        .state
        .map(|s| s.map_or("SUSPENDED", JobStateName::as_str).to_string());
    add("state", &state);
    add("user_name", &f.user.as_ref().map(|(n, _)| n.clone()));
    add("wckey", &f.wckey);
    out
}
