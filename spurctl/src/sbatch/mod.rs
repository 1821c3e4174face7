//! `sbatch`: not implemented yet.

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `sbatch`.
pub fn run(_args: Vec<OsString>) -> ExitCode {
    eprintln!("sbatch: not implemented yet");
    ExitCode::from(1)
}
