//! spur-supervise: the process that runs one job's batch script on its
//! first node ([`job`]), and what every per-job process of the agent takes
//! on before it runs the user's program ([`exec`], [`cgroup`]).
//!
//! The supervisor is its own small binary, `spur-supervise`, beside spurd
//! (`spurd supervise` runs the same code where it is missing): a node
//! starts one per job, and an exec of the daemon with all it links costs
//! several times more than the script it then runs. Built for a static C
//! library it starts in under 0.2 ms of CPU; it reads no user
//! database, so it needs none: the agent resolves the job's groups and
//! leaves them with the launch.

pub mod arena;
pub mod cgroup;
pub mod exec;
pub mod job;
pub mod rusage;

pub use job::{
    launch_bytes, post_notice, read_record, read_status, run, script_pid, Record, LAUNCH_FILE,
    NOTICE_FILE, SCRIPT_FILE,
};

/// The supervisor's binary, looked for beside spurd.
pub const BINARY: &str = "spur-supervise";
