//! The bounds Slurm puts on a job's values, shared by the commands that
//! refuse them early and the controller that refuses them for every front
//! end (slurmctld's `_test_job_desc_fields`, slurm_opt.c's readers).

/// Slurm's NO_VAL (32 bits): "not given"; no value may reach it.
pub const NO_VAL: u32 = 0xffff_fffe;

/// `NICE_OFFSET - 3`: the most `--nice` may move a job either way.
pub const NICE_LIMIT: i32 = 0x7fff_fffd;

/// The largest batch script slurmctld takes (its default
/// `SchedulerParameters=max_script_size`).
pub const MAX_SCRIPT_BYTES: usize = 4 << 20;

/// The longest path slurmctld stores (MAXPATHLEN): the working directory
/// and the standard stream patterns.
pub const MAX_PATH: usize = 4096;

/// The longest name-like text slurmctld stores (job name, account,
/// partition, QOS, comment, features).
pub const MAX_NAME: usize = 1024;

/// The longest `--dependency` slurmctld stores.
pub const MAX_DEPENDENCY: usize = 128 * 1024;

/// The longest `--array` slurmctld stores.
pub const MAX_ARRAY: usize = 4 * 1024;

/// The highest signal number a job may ask for (SIGRTMAX on Linux).
pub const MAX_SIGNAL: i32 = 64;
