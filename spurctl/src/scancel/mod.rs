//! `scancel`: not implemented yet.

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `scancel`.
pub fn run(_args: Vec<OsString>) -> ExitCode {
    eprintln!("scancel: not implemented yet");
    ExitCode::from(1)
}
