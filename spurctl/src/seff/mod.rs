//! `seff JOBID`: one job's CPU, memory and GPU efficiency from its history
//! (Slurm 22.05's contributed `seff`, which reads slurmdbd; spur's history
//! is the controller's own). The command line and the round trip live
//! here; the report is spur-report's.

pub mod args;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use spur_proto::HistoryQuery;

use self::args::SeffArgs;
use crate::controller::{Api, Live};

/// Runs `seff`.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    let a = match SeffArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(_) => {
            print!("{}", args::USAGE);
            return ExitCode::from(1);
        }
    };
    if a.version {
        println!("{}", args::VERSION);
        return ExitCode::from(1);
    }
    if a.help || a.jobs.len() != 1 {
        print!("{}", args::USAGE);
        return ExitCode::from(1);
    }
    if a.f.is_some() {
        eprintln!("seff: warning: -f is not acted on");
    }
    let Ok(selector) = spur_slurm::step_ref::parse_step_str(&a.jobs[0]) else {
        eprintln!("Job not found.");
        return ExitCode::from(2);
    };
    let query = HistoryQuery {
        jobs: vec![spur_proto::JobSelector {
            step: None,
            ..selector
        }],
        steps: true,
        ..HistoryQuery::default()
    };
    let listing = match Live.history(query) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("seff: error: {e}");
            return ExitCode::from(1);
        }
    };
    let Some(job) = listing.items.first() else {
        eprintln!("Job not found.");
        return ExitCode::from(2);
    };
    let cluster = crate::controller::cluster_name().unwrap_or_default();
    print!(
        "{}",
        spur_report::seff::report(job, &cluster, listing.now, a.debug)
    );
    ExitCode::SUCCESS
}
