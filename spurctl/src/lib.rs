//! spurctl: Slurm's commands, with Slurm's flags, output formats, error texts
//! and exit codes. Each command owns a module; formatting functions are pure
//! (rows in, text out) so golden tests need no controller.

use std::ffi::OsStr;
use std::process::ExitCode;

pub mod allocation;
pub mod controller;
pub mod docs;
pub mod sacct;
pub mod salloc;
pub mod sbatch;
pub mod scancel;
pub mod scontrol;
pub mod sdiag;
pub mod seff;
pub mod sinfo;
pub mod sprio;
pub mod squeue;
pub mod srun;
pub mod sshare;
pub mod sstat;
pub use spur_options::{getopt, unacted};

/// The commands this binary answers to.
pub use spur_slurm::COMMANDS;

/// The command a program name stands for (`/usr/bin/sbatch` -> `sbatch`).
pub fn command_name(argv0: &OsStr) -> String {
    std::path::Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs command `name` with `args` (args[0] is the program name).
pub fn dispatch(name: &str, args: Vec<std::ffi::OsString>) -> Option<ExitCode> {
    Some(match name {
        "sbatch" => sbatch::run(args),
        "srun" => srun::run(args),
        "salloc" => salloc::run(args),
        "squeue" => squeue::run(args),
        "scancel" => scancel::run(args),
        "sinfo" => sinfo::run(args),
        "scontrol" => scontrol::run(args),
        "sacct" => sacct::run(args),
        "sdiag" => sdiag::run(args),
        "sprio" => sprio::run(args),
        "sshare" => sshare::run(args),
        "sstat" => sstat::run(args),
        "seff" => seff::run(args),
        _ => return None,
    })
}

/// Restores the default SIGPIPE action, so that `squeue | head` ends quietly
/// instead of panicking on a closed pipe (Rust ignores SIGPIPE by default).
pub fn reset_sigpipe() {
    // SAFETY: setting a signal disposition to SIG_DFL at startup, before any
    // thread exists, has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
