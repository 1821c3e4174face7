//! The per-job process's side of memory confinement: it joins the cgroup
//! the agent made for it before it forks the job's processes, and counts
//! the out-of-memory killer's kills there when they end. The agent makes
//! and removes the cgroups (spurd's agent::cgroup).

use std::fs;
use std::path::{Path, PathBuf};

/// The file, in a job's or a step's folder on its node, naming the cgroup
/// its supervisor or step process joins.
pub const CGROUP_FILE: &str = "cgroup";

/// Moves the calling process into the cgroup that `file` (one of root's,
/// in a job's or step's folder) names, if there is one. Returns the
/// cgroup joined.
pub fn join_from(file: &Path) -> Result<Option<PathBuf>, String> {
    let Ok(text) = fs::read_to_string(file) else {
        return Ok(None);
    };
    let cg = PathBuf::from(text.trim());
    let procs = cg.join("cgroup.procs");
    fs::write(&procs, std::process::id().to_string())
        .map_err(|e| format!("cannot join the memory cgroup {}: {e}", cg.display()))?;
    Ok(Some(cg))
}

/// How many processes of `cg` the out-of-memory killer has killed.
pub fn oom_kills(cg: &Path) -> u64 {
    // v2 counts them in memory.events, v1 in memory.oom_control.
    ["memory.events", "memory.oom_control"]
        .iter()
        .find_map(|f| fs::read_to_string(cg.join(f)).ok())
        .and_then(|text| {
            text.lines().find_map(|l| {
                l.strip_prefix("oom_kill ")
                    .and_then(|n| n.trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

/// slurmstepd's line for step `step_id` (`StepId=7.batch`) whose
/// processes the killer took.
pub fn oom_message(kills: u64, step_id: &str) -> String {
    format!(
        "slurmstepd: error: Detected {kills} oom-kill event(s) in {step_id}. \
         Some of your processes may have been killed by the cgroup out-of-memory handler."
    )
}
