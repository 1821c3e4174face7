//! `sinfo`: not implemented yet.

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `sinfo`.
pub fn run(_args: Vec<OsString>) -> ExitCode {
    eprintln!("sinfo: not implemented yet");
    ExitCode::from(1)
}
