//! `sacct`: accounting data of jobs and steps from spur's own history (the
//! controller keeps it; no database server is involved), with Slurm's
//! options, fields, formats, error texts and exit codes. This module does
//! the I/O (one `History` request, and `Config` when the cluster's name is
//! printed); resolving the command line (options.rs), choosing lines
//! (spur-report's select) and printing them (render, json) are pure.

pub mod args;
#[cfg(test)]
mod fixture;
#[cfg(test)]
mod golden;
pub mod options;

pub use spur_report::sacct::{field, format, json, render, select};
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use spur_proto::{HistoryJob, HistoryQuery, HistoryStep};

use crate::controller::{self, Api, Live};

use self::field::{Ctx, F};
use self::options::Plan;

/// Runs `sacct`.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    let a = match args::parse(argv) {
        Ok(a) => a,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    if let Some(text) = informational(&a) {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    let env = |name: &str| std::env::var(name).ok();
    let plan = match Plan::new(&a, &env, clock() as i64, spur_sys::users::current_uid()) {
        Ok(plan) => plan,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    for w in &plan.warnings {
        eprintln!("{w}");
    }
    if let Some(line) = &plan.verbose_line {
        eprintln!("{line}");
    }
    let cluster = if needs_cluster(&plan) {
        controller::cluster_name().unwrap_or_default()
    } else {
        String::new()
    };
    let this_cluster = plan
        .clusters
        .as_ref()
        .is_none_or(|wanted| wanted.contains(&cluster));
    let (now, mut jobs) = if this_cluster {
        match fetch(&plan.query) {
            Ok(answer) => answer,
            Err(text) => {
                eprint!("{text}");
                return ExitCode::from(1);
            }
        }
    } else {
        // Another cluster's jobs: spur holds none.
        (clock(), Vec::new())
    };
    if plan.truncate {
        let start = plan.query.start.unwrap_or(0);
        let end = plan.query.end.unwrap_or(now);
        select::truncate(&mut jobs, start, end, now);
    }
    print!("{}", report(&plan, now, &jobs, &cluster));
    let _ = std::io::stdout().flush();
    ExitCode::SUCCESS
}

/// `-h`, `-U`, `-V`, `-e`, `--helpstate`, `--helpreason`.
fn informational(a: &args::SacctArgs) -> Option<String> {
    if a.help {
        Some(args::help_text())
    } else if a.usage {
        Some(args::usage_text())
    } else if a.version {
        Some(format!("slurm {}\n", spur_proto::SLURM_COMPAT_VERSION))
    } else if a.helpformat {
        Some(field::help_format())
    } else if a.helpstate {
        Some(
            spur_proto::AcctState::ALL
                .iter()
                .map(|s| format!("{}\n", s.as_str()))
                .collect(),
        )
    } else if a.helpreason {
        Some(
            [
                "None",
                "Priority",
                "Resources",
                "Dependency",
                "DependencyNeverSatisfied",
                "ReqNodeNotAvail",
                "PartitionTimeLimit",
                "PartitionNodeLimit",
                "PartitionDown",
                "PartitionInactive",
                "QOSMaxJobsPerUserLimit",
                "BeginTime",
                "JobHeldUser",
                "JobHeldAdmin",
                "BadConstraints",
            ]
            .iter()
            .map(|r| format!("{r}\n"))
            .collect(),
        )
    } else {
        None
    }
}

fn needs_cluster(plan: &Plan) -> bool {
    plan.json
        || plan.clusters.is_some()
        || plan.layout.columns.iter().any(|c| c.field.id == F::Cluster)
}

fn clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The history the query selects, with the controller's clock.
fn fetch(query: &HistoryQuery) -> Result<(u64, Vec<HistoryJob>), String> {
    let problem =
        |e: &dyn std::fmt::Display| format!("sacct: error: Problem talking to the database: {e}\n");
    match Live.history(query.clone()) {
        Ok(listing) => Ok((listing.now, listing.items)),
        Err(e) => Err(problem(&e)),
    }
}

/// What sacct prints for `jobs` (the controller's answer). Pure.
pub fn report(plan: &Plan, now: u64, jobs: &[HistoryJob], cluster: &str) -> String {
    let chosen = select::jobs(jobs, plan.selection());
    if plan.json {
        let with_steps: Vec<(&HistoryJob, Vec<&HistoryStep>)> = chosen
            .iter()
            .map(|j| (*j, select::steps(j, plan.selection())))
            .collect();
        let ctx = json::Ctx {
            cluster,
            now,
            user_name: spur_sys::users::name_of,
        };
        return json::render_json(&with_steps, &ctx);
    }
    let ctx = Ctx {
        now,
        cluster: cluster.to_string(),
        noconvert: plan.noconvert,
    };
    render::render(
        &select::lines(&chosen, plan.selection()),
        &plan.layout,
        &ctx,
    )
}
