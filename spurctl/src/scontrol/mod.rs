//! `scontrol`: not implemented yet.

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `scontrol`.
pub fn run(_args: Vec<OsString>) -> ExitCode {
    eprintln!("scontrol: not implemented yet");
    ExitCode::from(1)
}
