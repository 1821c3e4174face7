//! `sstat`: what running steps have used so far (Slurm 22.05
//! `src/sstat/`), as their nodes' agents last sampled it (every
//! JobAcctGatherFrequency). The command line, the step choice and the
//! errors live here; the fields and lines are spur-report's.

pub mod args;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use spur_client::RequestError;
use spur_proto::{ErrorCode, StepId, StepInfo};
use spur_report::print_fields::{Parsable, Style};
use spur_report::sstat::{header, help_format, line, parse_format, Column, DEFAULT_FORMAT};

use self::args::SstatArgs;
use crate::controller::{Api, Live};

/// The options sstat accepts and does not act on: none (`-i` is refused).
pub const NOT_ACTED: &[&str] = &[];

/// Which of a job's running steps to show: the one named, else the first
/// srun step (or all with `-a`). Err: sstat's complaint.
pub fn choose(
    job_id: u32,
    step: Option<StepId>,
    all: bool,
    steps: &[StepInfo],
) -> Result<Vec<&StepInfo>, String> {
    if steps.is_empty() {
        return Err(match step {
            None => format!("No steps running for job {job_id}"),
            Some(s) => format!("StepId={job_id}.{s} not found running."),
        });
    }
    Ok(match step {
        Some(s) => {
            let named: Vec<&StepInfo> = steps.iter().filter(|i| i.step == s).collect();
            if named.is_empty() {
                return Err(format!("StepId={job_id}.{s} not found running."));
            }
            named
        }
        None if all => steps.iter().collect(),
        None => steps
            .iter()
            .find(|i| matches!(i.step, StepId::Numbered(_)))
            .into_iter()
            .collect(),
    })
}

/// Runs `sstat`.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    let last = argv.last().cloned().unwrap_or_default();
    let a = match SstatArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            eprint!("{}", crate::getopt::error("sstat", &e, &last));
            return ExitCode::from(1);
        }
    };
    if a.version {
        println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
        return ExitCode::SUCCESS;
    }
    if a.help {
        print!("{}", args::HELP);
        return ExitCode::SUCCESS;
    }
    if a.helpformat {
        print!("{}", help_format());
        return ExitCode::SUCCESS;
    }
    if a.usage {
        print!("{}", args::USAGE);
        return ExitCode::SUCCESS;
    }
    if a.pidformat {
        eprintln!(
            "sstat: error: --pidformat: spur's agents do not report task pids to the controller"
        );
        return ExitCode::from(1);
    }
    let format = if a.format.is_empty() {
        DEFAULT_FORMAT.to_string()
    } else {
        a.format.join(",")
    };
    let columns = match parse_format(&format) {
        Ok(c) => c,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    if columns.iter().any(|c| c.def.name == "Pids") {
        eprintln!("sstat: warning: spur's agents do not report task pids; Pids is blank");
    }
    let items: Vec<String> = a
        .jobs
        .iter()
        .chain(a.positional.first())
        .flat_map(|j| spur_conf::comma_list(j))
        .collect();
    if items.is_empty() {
        eprintln!("sstat: error: You didn't give me any jobs to stat.");
        return ExitCode::from(1);
    }
    let mut selected = Vec::new();
    for item in &items {
        match spur_slurm::step_ref::parse_step_str(item) {
            Ok(sel) => selected.push(sel),
            Err(text) => {
                eprintln!("sstat: fatal: {text}");
                return ExitCode::from(1);
            }
        }
    }
    let parsable = if a.parsable2 {
        Parsable::NoEnding
    } else if a.parsable {
        Parsable::Ending
    } else {
        Parsable::No
    };
    let style = Style {
        parsable,
        delimiter: None,
    };
    let mut out = std::io::stdout().lock();
    if !a.noheader {
        write(&mut out, &header(&columns, style));
    }
    for sel in selected {
        let job_id = match sel.array_task {
            Some(task) => Live.task_job_id(sel.job_id, task).unwrap_or(sel.job_id),
            None => sel.job_id,
        };
        stat_job(&mut out, job_id, sel.step, &a, &columns, style);
    }
    ExitCode::SUCCESS
}

/// Prints the lines of one job's chosen steps, or sstat's error.
fn stat_job(
    out: &mut impl std::io::Write,
    job_id: u32,
    step: Option<StepId>,
    a: &SstatArgs,
    columns: &[Column],
    style: Style<'_>,
) {
    let steps = match Live.steps(vec![job_id]) {
        Ok(listing) => listing.items,
        Err(RequestError::Refused(e)) if e.code == ErrorCode::InvalidJobId => {
            eprintln!("sstat: error: couldn't get steps for job {job_id}");
            return;
        }
        Err(e) => {
            eprintln!("sstat: error: couldn't get steps for job {job_id}: {e}");
            return;
        }
    };
    let steps: Vec<StepInfo> = steps.into_iter().filter(|s| s.job_id == job_id).collect();
    match choose(job_id, step, a.allsteps, &steps) {
        Ok(chosen) => {
            for s in chosen {
                write(out, &line(s, columns, style, a.noconvert));
            }
        }
        Err(text) => eprintln!("sstat: error: {text}"),
    }
}

fn write(out: &mut impl std::io::Write, text: &str) {
    let _ = out.write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: StepId) -> StepInfo {
        StepInfo {
            job_id: 5,
            step: id,
            array: None,
            name: String::new(),
            user_id: 0,
            user_name: String::new(),
            partition: String::new(),
            start_time: 0,
            time_limit: None,
            nodes: String::new(),
            node_count: 1,
            num_tasks: 1,
            num_cpus: 1,
            tres: None,
            tres_per_step: None,
            tres_per_node: None,
            tres_per_task: None,
            dist: None,
            srun: None,
            usage: None,
        }
    }

    #[test]
    fn steps_are_chosen_as_sstat_chooses_them() {
        let steps = [
            step(StepId::Batch),
            step(StepId::Numbered(0)),
            step(StepId::Numbered(1)),
        ];
        let ids = |r: Result<Vec<&StepInfo>, String>| {
            r.map(|v| v.iter().map(|s| s.step).collect::<Vec<_>>())
        };
        assert_eq!(
            ids(choose(5, None, false, &steps)),
            Ok(vec![StepId::Numbered(0)])
        );
        assert_eq!(ids(choose(5, None, true, &steps)).map(|v| v.len()), Ok(3));
        assert_eq!(
            ids(choose(5, Some(StepId::Batch), false, &steps)),
            Ok(vec![StepId::Batch])
        );
        assert_eq!(
            ids(choose(5, Some(StepId::Numbered(7)), false, &steps)),
            Err("StepId=5.7 not found running.".into())
        );
        assert_eq!(
            ids(choose(5, None, false, &steps[..1])),
            Ok(vec![]),
            "only a batch step: nothing, and no error"
        );
        assert_eq!(
            ids(choose(5, None, false, &[])),
            Err("No steps running for job 5".into())
        );
    }

    #[test]
    fn jobs_come_from_j_and_the_first_word_after_the_options() {
        let a =
            SstatArgs::try_parse_from(["sstat", "-j", "4,5.1", "-a", "-P", "9"]).expect("parses");
        assert_eq!(a.jobs, ["4,5.1"]);
        assert_eq!(a.positional, ["9"]);
        assert!(a.allsteps && a.parsable2);
    }
}
