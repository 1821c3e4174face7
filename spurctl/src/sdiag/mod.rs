//! `sdiag`: the controller's counters (Slurm 22.05 `src/sdiag/`), or with
//! `-r` their reset. The command line and the round trip live here; the
//! report is spur-report's.

pub mod args;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::process::ExitCode;

use crate::controller::{Api, Live};
pub use spur_report::sdiag::{render, RpcOrder};

/// The options sdiag accepts and does not act on: spur answers for its
/// own cluster.
pub const NOT_ACTED: &[&str] = &["cluster"];

/// Runs `sdiag`.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let last = args.last().cloned().unwrap_or_default();
    let (args, order) = match args::parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprint!("{}", crate::getopt::error("sdiag", &e, &last));
            return ExitCode::from(1);
        }
    };
    if args.help {
        print!("{}", args::HELP);
        return ExitCode::SUCCESS;
    }
    if args.usage {
        print!("{}", args::USAGE);
        return ExitCode::SUCCESS;
    }
    if args.version {
        println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
        return ExitCode::SUCCESS;
    }
    if args.cluster.is_some() {
        eprintln!("sdiag: warning: --cluster is not supported by spur; asking this cluster");
    }
    // slurm_perror's line, then sdiag exits with SLURM_ERROR (-1).
    let failed = |call: &str, e| {
        eprintln!("{call}: {e}");
        ExitCode::from(255)
    };
    if args.reset {
        return match Live.reset_diag() {
            Ok(()) => {
                println!("Reset scheduling statistics");
                ExitCode::SUCCESS
            }
            Err(e) => failed("slurm_reset_statistics", e),
        };
    }
    match Live.diag() {
        Ok(stats) => {
            let name = spur_sys::users::name_of;
            print!("{}", render(&stats, order, &name));
            ExitCode::SUCCESS
        }
        Err(e) => failed("slurm_get_statistics", e),
    }
}
