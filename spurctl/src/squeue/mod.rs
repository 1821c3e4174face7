//! `squeue`: not implemented yet.

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `squeue`.
pub fn run(_args: Vec<OsString>) -> ExitCode {
    eprintln!("squeue: not implemented yet");
    ExitCode::from(1)
}
