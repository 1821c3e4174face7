//! `squeue`: view the jobs in the queue, with Slurm's options, formats,
//! sort order, error texts and exit codes. This module does the I/O (one
//! `Jobs` request per report); choosing rows (filter.rs), ordering them
//! (sort.rs) and printing them (render.rs, json.rs) are pure.

pub mod args;
pub mod filter;
#[cfg(test)]
mod golden;
pub mod options;
pub mod step;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use spur_client::{ClientError, RequestError};
use spur_proto::frame::FrameError;
use spur_proto::listing::{ListingError, Part};
use spur_proto::{ErrorCode, JobField, JobFields, JobList};
use spur_report::squeue::sort::{SortKeys, SortSpec};
use spur_report::squeue::Renderer;

use crate::controller::{self, Api, Live};

pub use spur_report::squeue::Format;
pub use spur_report::squeue::{field, format, json, render, sort};

use options::Plan;

/// Runs `squeue`.
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
    let mut plan = match Plan::new(&a, &env) {
        Ok(plan) => plan,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    for w in &plan.warnings {
        eprintln!("{w}");
    }
    if plan.verbose > 0 {
        print!("{}", plan.options_dump(&a));
    }
    if let Err(text) = prepare(&mut plan) {
        eprint!("{text}");
        return ExitCode::from(1);
    }
    loop {
        if plan.date_line {
            println!("{}", date_line(now_local()));
        }
        let ok = report_once(&plan);
        let _ = std::io::stdout().flush();
        match plan.iterate {
            Some(secs) => {
                println!();
                std::thread::sleep(std::time::Duration::from_secs(secs));
            }
            None => {
                return if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// `--help`, `--usage`, `-V`, `--helpformat`, `--helpFormat`, `--helpstate`.
fn informational(a: &args::SqueueArgs) -> Option<String> {
    if a.help {
        Some(args::help_text())
    } else if a.usage {
        Some(args::usage_text())
    } else if a.version {
        Some(format!("slurm {}\n", spur_proto::SLURM_COMPAT_VERSION))
    } else if a.helpformat {
        Some(format::help_format())
    } else if a.helpformat_long {
        Some(format::help_format_long())
    } else if a.helpstate {
        let states = "PENDING\nRUNNING\nSUSPENDED\nCOMPLETED\nCANCELLED\nFAILED\nTIMEOUT\n\
                      NODE_FAIL\nPREEMPTED\nBOOT_FAIL\nDEADLINE\nOUT_OF_MEMORY\nCOMPLETING\n\
                      CONFIGURING\nRESIZING\nRESV_DEL_HOLD\nREQUEUED\nREQUEUE_FED\n\
                      REQUEUE_HOLD\nREVOKED\nSIGNALING\nSPECIAL_EXIT\nSTAGE_OUT\nSTOPPED\n";
        Some(states.to_string())
    } else {
        None
    }
}

/// What needs the controller once, before the first report: the `-w` node
/// names checked and expanded, the cluster's name.
fn prepare(plan: &mut Plan) -> Result<(), String> {
    if let Some(list) = plan.nodelist.clone() {
        plan.query.nodes = Some(check_nodes(&list)?);
    }
    if plan.json || plan.wants_cluster() {
        plan.format.cluster = controller::cluster_name();
        plan.step_format.cluster = plan.format.cluster.clone();
    }
    Ok(())
}

/// `-w`: each name must be a node (or `localhost`).
fn check_nodes(list: &str) -> Result<Vec<String>, String> {
    let names = spur_conf::hostlist::expand(list)
        .map_err(|_| format!("squeue: error: '{list}' invalid entry for --nodelist\n"))?;
    let known = match Live.nodes() {
        Ok(listing) => listing.items,
        Err(e) => return Err(format!("slurm_load_node error: {e}\n")),
    };
    let mut out = Vec::new();
    for name in names {
        let wanted = if name.eq_ignore_ascii_case("localhost") {
            spur_sys::short_hostname()
        } else {
            name.clone()
        };
        match known
            .iter()
            .find(|n| n.name == wanted || n.hostname == wanted)
        {
            Some(node) => out.push(node.name.clone()),
            None => return Err(format!("squeue: error: Invalid node name {name}\n")),
        }
    }
    Ok(out)
}

/// One report: fetch, select, sort, print. False when it failed.
fn report_once(plan: &Plan) -> bool {
    // --json lists jobs whatever else is asked, as squeue's dump_data does.
    if plan.steps && !plan.json {
        return steps_once(plan);
    }
    let (now, jobs) = match fetch(plan) {
        Ok(answer) => answer,
        Err(text) => {
            eprint!("{text}");
            return false;
        }
    };
    if plan.verbose > 0 {
        println!("last_update_time={now} records={}", jobs.len());
    }
    for e in &plan.format_errors {
        eprintln!("squeue: error: {e}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(64 << 10, stdout.lock());
    let written = write_report(plan, now, &jobs, &mut out).and_then(|done| {
        out.flush()?;
        Ok(done)
    });
    match written {
        Ok((err, ok)) => {
            eprint!("{err}");
            ok
        }
        Err(e) => {
            eprintln!("squeue: error: cannot write the report: {e}");
            false
        }
    }
}

/// One step report (`-s`): every running step, selected and printed here
/// as squeue does it.
fn steps_once(plan: &Plan) -> bool {
    let (now, steps) = match Live.steps(Vec::new()) {
        Ok(listing) => (listing.now, listing.items),
        Err(e) => {
            eprintln!("slurm_get_job_steps error: {e}");
            return false;
        }
    };
    if plan.verbose > 0 {
        println!("last_update_time={now} records={}", steps.len());
    }
    for e in &plan.format_errors {
        eprintln!("squeue: error: {e}");
    }
    let list = plan.step_list.as_deref();
    print!(
        "{}",
        step::render(&steps, &plan.query, list, &plan.step_format, now)
    );
    true
}

/// What one report prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Stdout.
    pub out: String,
    /// Stderr (printed after stdout).
    pub err: String,
    /// False when squeue exits 1.
    pub ok: bool,
}

/// The jobs, as `slurm_load_job(s)` gets them: every job the controller
/// holds (selection is client-side, as in Slurm), or for a single `-j` id
/// that job, or every job of that array in the controller's order, and an
/// error when it names none. They stay as they came, decoded as the report
/// reads them.
fn fetch(plan: &Plan) -> Result<(u64, JobList), String> {
    let failed = |e: RequestError| format!("slurm_load_jobs error: {e}\n");
    let (now, jobs) = Live
        .job_list(
            plan.single_job.into_iter().collect(),
            fields(plan),
            // Jobs kept for MinJobAge are left out where squeue would drop them.
            !plan.json && plan.query.states == filter::States::Active,
        )
        .map_err(failed)?;
    if let Some(id) = plan.single_job {
        let mut known = false;
        jobs.for_each(|j| known |= j.job_id == id || j.array_job_id == Some(id))
            .map_err(|e| failed(undecodable(e)))?;
        if !known {
            let text = ErrorCode::InvalidJobId.text();
            return Err(format!("slurm_load_jobs error: {text}\n"));
        }
    }
    Ok((now, jobs))
}

/// A listing that does not decode, as a request that failed.
fn undecodable(e: ListingError) -> RequestError {
    RequestError::from(ClientError::from(FrameError::from(e)))
}

/// The fields of each job the report reads: the controller sends no
/// others.
fn fields(plan: &Plan) -> JobFields {
    if plan.json {
        return JobFields::ALL;
    }
    // A single id is looked for among the jobs the answer holds.
    let found = JobFields::of(&[JobField::JobId, JobField::ArrayJobId]);
    plan.format.reads() | sort::reads(&plan.sort) | plan.query.reads() | found
}

/// What a report prints for `jobs`. Pure.
pub fn report(plan: &Plan, now: u64, jobs: &JobList) -> Report {
    let mut out = Vec::new();
    let (err, ok) = write_report(plan, now, jobs, &mut out).expect("memory takes every byte");
    let out = String::from_utf8(out).expect("a report is text");
    Report { out, err, ok }
}

/// Writes what a report prints for `jobs` on stdout to `out`; returns
/// what it prints on stderr, and false where squeue exits 1. The rows'
/// lines go out from where they were rendered, never gathered into one
/// text first: a report of 10,000 jobs is most of a megabyte.
pub fn write_report(
    plan: &Plan,
    now: u64,
    jobs: &JobList,
    out: &mut impl Write,
) -> std::io::Result<(String, bool)> {
    let failed = |e: ListingError| {
        let err = format!("slurm_load_jobs error: {}\n", undecodable(e));
        Ok((err, false))
    };
    if plan.json {
        let mut query = plan.query.clone();
        if query.states == filter::States::Active {
            // Slurm's --json lists every job it holds, ended ones too.
            query.states = filter::States::All;
        }
        let mut rows = Vec::new();
        let selected =
            jobs.for_each(|job| filter::select(job, &query, &mut |row| rows.push(row.clone())));
        if let Err(e) = selected {
            return failed(e);
        }
        let cluster = plan.format.cluster.as_deref().unwrap_or("");
        out.write_all(json::render_json(&rows, cluster).as_bytes())?;
        return Ok((String::new(), true));
    }
    let renderer = Renderer::new(&plan.format, now);
    let mut header = String::new();
    renderer.header(&mut header);
    let (spec, notes) = match SortSpec::parse(&plan.sort) {
        Ok(parsed) => parsed,
        Err(e) => {
            // Slurm prints the header before it sorts, and stops there.
            out.write_all(header.as_bytes())?;
            return Ok((format!("squeue: error: {e}\n"), false));
        }
    };
    let parts = match jobs.parts() {
        Ok(parts) => parts,
        Err(e) => return failed(e),
    };
    // Each row is rendered and its sort keys taken as it is decoded; the
    // rows' lines are then written in order. A large listing comes in
    // parts, each read on a thread of its own.
    let read = |part: &Part<'_>| {
        let mut read = Rows::new(&spec, now, part.len());
        part.for_each(|job| {
            filter::select(job, &plan.query, &mut |row| {
                read.keys.push(row);
                renderer.job(&mut read.lines, row);
                if read.ends.is_empty() {
                    // Room for every job's lines the size of the first's,
                    // so that the text is not copied as it grows.
                    let each = read.lines.len() + read.lines.len() / 4;
                    read.lines.reserve(part.len().saturating_mul(each));
                }
                read.ends.push(read.lines.len());
            })
        })
        .map(|()| read)
    };
    let each = std::thread::scope(|scope| {
        // Each part past the first on a CPU beside this one; a part whose
        // thread cannot be had is read here after the first.
        let others: Vec<_> = parts
            .iter()
            .skip(1)
            .map(|part| {
                spur_sys::spawn_apart(scope, "squeue-part", move || read(part)).map_err(|_| part)
            })
            .collect();
        let first = parts.first().map(read);
        let others = others.into_iter().map(|t| match t {
            Ok(t) => t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(part) => read(part),
        });
        first.into_iter().chain(others).collect::<Vec<_>>()
    });
    // The parts' sort keys are sorted together, in the first part's (which
    // grows by moving its pages, not its bytes); their lines stay where
    // they were written.
    let rows: usize = each.iter().flatten().map(|part| part.ends.len()).sum();
    let mut keys: Option<SortKeys<'_>> = None;
    let mut texts = Vec::with_capacity(each.len());
    for part in each {
        let Rows {
            keys: part_keys,
            lines,
            ends,
        } = match part {
            Ok(part) => part,
            Err(e) => return failed(e),
        };
        match &mut keys {
            Some(keys) => keys.append(part_keys),
            None => {
                let mut first = part_keys;
                first.reserve(rows - ends.len());
                keys = Some(first);
            }
        }
        texts.push((lines, ends));
    }
    let keys = keys.unwrap_or_else(|| SortKeys::new(&spec, now));
    // The listing's row number of each part's first row.
    let firsts: Vec<usize> = texts
        .iter()
        .scan(0, |rows, (_, ends)| {
            let first = *rows;
            *rows += ends.len();
            Some(first)
        })
        .collect();
    out.write_all(header.as_bytes())?;
    // Rows that follow each other in a part's text go out as one slice:
    // all of a part's, where the order is the listing's.
    let mut run: Option<(usize, std::ops::Range<usize>)> = None;
    for i in keys.order() {
        let part = firsts.partition_point(|&first| first <= i) - 1;
        let ends = &texts[part].1;
        let row = i - firsts[part];
        let line = if row == 0 { 0 } else { ends[row - 1] }..ends[row];
        match &mut run {
            Some((p, range)) if *p == part && range.end == line.start => range.end = line.end,
            _ => {
                if let Some((p, range)) = run.replace((part, line)) {
                    out.write_all(&texts[p].0.as_bytes()[range])?;
                }
            }
        }
    }
    if let Some((p, range)) = run {
        out.write_all(&texts[p].0.as_bytes()[range])?;
    }
    Ok((
        notes.iter().map(|n| format!("squeue: {n}\n")).collect(),
        true,
    ))
}

/// Rows as a report reads them: their sort keys, their lines one after
/// another, and where each line ends.
struct Rows<'s> {
    keys: SortKeys<'s>,
    lines: String,
    ends: Vec<usize>,
}

impl<'s> Rows<'s> {
    /// No rows yet, room for `rows`, to be sorted by `spec` at `now`.
    fn new(spec: &'s SortSpec, now: u64, rows: usize) -> Rows<'s> {
        let mut keys = SortKeys::new(spec, now);
        keys.reserve(rows);
        Rows {
            keys,
            lines: String::new(),
            ends: Vec::with_capacity(rows),
        }
    }
}

fn now_local() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The date line of `-l`: `Sun Nov 09 23:05:03 2026`.
pub fn date_line(unix: u64) -> String {
    spur_slurm::time::ctime(unix)
}
