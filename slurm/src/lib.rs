//! spur-slurm: Slurm's vocabulary, with no I/O, in one place for every
//! front end (the commands, the REST server, the C library): how Slurm
//! reads numbers the C way and times the way of its `parse_time`; its job,
//! array and step references, GPU requests and `--export` lists; its node
//! states, signal names and the bounds on a job's values; how it prints
//! times, durations and sizes, and how its listings lay out a line. Each
//! module says which Slurm function it follows.

pub mod config;
pub mod errno;
pub mod export;
pub mod flags;
pub mod gres;
pub mod job_ref;
pub mod job_state;
pub mod limits;
pub mod locale;
pub mod node_state;
pub use spur_conf::number;
pub mod openapi;
pub mod parse_time;
pub mod print;
pub mod signal;
#[cfg(test)]
mod slurm_lib;
pub mod step_ref;
pub mod time;
pub mod units;

/// The Slurm release whose commands, texts and wire answers spur speaks
/// (`scontrol version`, `sbatch --version`, SLURM_VERSION in
/// `scontrol show config`).
pub const SLURM_VERSION: &str = "22.05.8";

/// Slurm's user commands that spur has, each a name `spurctl` answers to:
/// what a site links (or a package installs) under Slurm's names.
pub const COMMANDS: &[&str] = &[
    "sbatch", "salloc", "srun", "squeue", "scancel", "sinfo", "scontrol", "sacct", "sdiag",
    "sprio", "sshare", "sstat", "seff",
];

/// The commands of [`COMMANDS`] that are also built as programs of their
/// own, each named as its command, beside `spurctl`: their names lead to
/// those. A shell loop starts its command once a line, and a program of
/// one command's code starts in less time than the multi-call binary.
pub const OWN_PROGRAMS: &[&str] = &["sbatch"];

/// The program the name `command` leads to: its own, or `spurctl`.
pub fn program_of(command: &str) -> &str {
    if OWN_PROGRAMS.contains(&command) {
        command
    } else {
        "spurctl"
    }
}

#[cfg(test)]
mod program_tests {
    use super::*;

    #[test]
    fn a_name_leads_to_its_own_program_or_to_spurctl() {
        assert_eq!(program_of("sbatch"), "sbatch");
        assert_eq!(program_of("squeue"), "spurctl");
        assert!(OWN_PROGRAMS.iter().all(|p| COMMANDS.contains(p)));
    }
}
