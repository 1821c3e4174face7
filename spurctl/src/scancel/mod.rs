//! `scancel`: cancel or signal jobs, with Slurm's options, messages and
//! exit statuses. Like Slurm's scancel it loads the jobs and filters them
//! client-side when filters or a signal are given; the jobs are then sent to
//! the controller in one `Signal` request. Choosing the jobs (spur-client's
//! `select`) and
//! wording the results (`outcome`) are pure.

pub mod args;
pub mod target;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::process::ExitCode;

use spur_proto::{ErrorCode, JobFields, JobInfo, JobStateName, ProtoError};

use crate::controller::{Api, Live, RequestError};
use args::ScancelArgs;
use target::{Filters, JobRef, Miss, Target};

/// SIGKILL: errors for jobs already gone are ignored when cancelling.
const SIGKILL: i32 = 9;
/// Slurm's ESLURM_NOT_SUPPORTED.
const NOT_SUPPORTED: i32 = 2036;
/// Slurm's SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR.
const CONNECTION_ERROR: i32 = 1800;

/// A parsed scancel request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The job id arguments.
    pub refs: Vec<JobRef>,
    /// The filters.
    pub filters: Filters,
    /// `-s`; None cancels.
    pub signal: Option<i32>,
    /// `-b`.
    pub batch: bool,
    /// `-f`.
    pub full: bool,
    /// `-i`.
    pub interactive: bool,
    /// `-v` count; -1 for `-Q`.
    pub verbose: i32,
}

/// Why the controller did not act on a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Slurm's text.
    pub text: String,
    /// Slurm's errno for it (scancel exits with it, modulo 256).
    pub errno: i32,
    /// The job is gone (ended or unknown): not an error when cancelling.
    pub gone: bool,
}

impl Failure {
    /// A request's failure: the controller's refusal, or no controller.
    fn of_request(e: RequestError) -> Failure {
        match e {
            RequestError::Refused(e) => Failure::of(&e),
            e @ RequestError::Unreachable(_) => Failure {
                text: e.to_string(),
                errno: CONNECTION_ERROR,
                gone: false,
            },
        }
    }

    fn of(e: &ProtoError) -> Failure {
        Failure {
            text: e.code.text().to_string(),
            errno: slurm_errno(e.code),
            gone: matches!(e.code, ErrorCode::AlreadyDone | ErrorCode::InvalidJobId),
        }
    }
}

/// Slurm's errno for a code, as far as scancel can meet it.
fn slurm_errno(code: ErrorCode) -> i32 {
    match code {
        ErrorCode::InvalidPartitionName => 2000,
        ErrorCode::AccessDenied => 2002,
        ErrorCode::InvalidJobId => 2017,
        ErrorCode::InvalidNodeName => 2018,
        ErrorCode::TransitionStateNoUpdate => 2020,
        ErrorCode::AlreadyDone => 2021,
        ErrorCode::JobPending => 2024,
        ErrorCode::NotSupported => NOT_SUPPORTED,
        ErrorCode::Disabled => 2037,
        ErrorCode::JobNotPending => 2073,
        ErrorCode::JobNotRunning => 2085,
        _ => 1,
    }
}

impl Request {
    /// Builds the request from the options; `Err` is the stderr text of a
    /// fatal error (scancel exits 1).
    pub fn new(a: &ScancelArgs) -> Result<Request, String> {
        let signal = match &a.signal {
            None => None,
            Some(s) => {
                Some(target::parse_signal(s).ok_or_else(|| format!("Unknown job signal: {s}\n"))?)
            }
        };
        let refs = target::parse_ids(&a.ids).map_err(|e| format!("scancel: error: {e}\n"))?;
        let req = Request {
            refs,
            filters: filters(a)?,
            signal,
            batch: a.batch,
            full: a.full,
            interactive: a.interactive,
            verbose: if a.quiet { -1 } else { i32::from(a.verbose) },
        };
        if req.refs.is_empty() && !req.filters.any() {
            return Err("scancel: error: No job identification provided\n".into());
        }
        Ok(req)
    }

    /// Slurm's fast path: only job ids, no signal and no options that need
    /// the jobs loaded first.
    pub fn is_direct(&self) -> bool {
        !self.filters.any()
            && !self.batch
            && !self.interactive
            && self.signal.is_none()
            && self.refs.iter().all(|r| r.step.is_none())
    }

    /// `batch ` / `full ` in the verbose lines.
    fn job_type(&self) -> &'static str {
        if self.full {
            "full "
        } else if self.batch {
            "batch "
        } else {
            ""
        }
    }
}

/// The filter options, checked as Slurm checks them.
fn filters(a: &ScancelArgs) -> Result<Filters, String> {
    let state = match &a.state {
        None => None,
        Some(s) => Some(parse_state(s).ok_or_else(|| {
            format!(
                "Invalid job state specified: {s}\n\
                 Valid job states are PENDING, RUNNING, and SUSPENDED\n"
            )
        })?),
    };
    let user_name = if a.me {
        Some(spur_sys::users::current_uid().to_string())
    } else {
        a.user.clone()
    };
    let user = match user_name {
        None => None,
        Some(name) => match spur_sys::users::uid_of(&name) {
            Some(uid) => Some((name, uid)),
            None => return Err(format!("scancel: error: Invalid user name: {name}\n")),
        },
    };
    Ok(Filters {
        account: a.account.as_ref().map(|s| s.to_lowercase()),
        name: a.name.clone(),
        partition: a.partition.clone(),
        qos: a.qos.as_ref().map(|s| s.to_lowercase()),
        reservation: a.reservation.clone(),
        state,
        user,
        nodes: a.nodelist.as_deref().map(node_names),
        nodelist: a.nodelist.clone(),
        wckey: a.wckey.clone(),
    })
}

/// `-t`: a state spur reports, or Some(None) for another Slurm state.
fn parse_state(text: &str) -> Option<Option<JobStateName>> {
    const OTHERS: &[&str] = &[
        "SUSPENDED",
        "S",
        "BOOT_FAIL",
        "BF",
        "DEADLINE",
        "DL",
        "OUT_OF_MEMORY",
        "OOM",
        "CONFIGURING",
        "CF",
        "RESIZING",
        "RS",
        "REQUEUED",
        "RQ",
        "REQUEUE_FED",
        "RF",
        "REQUEUE_HOLD",
        "RH",
        "RESV_DEL_HOLD",
        "RD",
        "REVOKED",
        "RV",
        "SIGNALING",
        "SI",
        "SPECIAL_EXIT",
        "SE",
        "STAGE_OUT",
        "SO",
        "STOPPED",
        "ST",
    ];
    match JobStateName::parse(text) {
        Some(s) => Some(Some(s)),
        None => OTHERS
            .iter()
            .any(|o| o.eq_ignore_ascii_case(text))
            .then_some(None),
    }
}

/// `-w`: a hostlist, or (with a `/`) a file of host names.
fn node_names(list: &str) -> Vec<String> {
    let text = if list.contains('/') {
        std::fs::read_to_string(list).unwrap_or_default()
    } else {
        list.to_string()
    };
    text.split_whitespace()
        .flat_map(|h| spur_conf::hostlist::expand(h).unwrap_or_default())
        .collect()
}

/// Runs `scancel`.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    let mut a = match args::parse(argv) {
        Ok(a) => a,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    if a.help || a.usage || a.version {
        print!("{}", informational(&a));
        return ExitCode::SUCCESS;
    }
    for line in args::apply_env(&mut a, &|v| std::env::var(v).ok()) {
        eprintln!("{line}");
    }
    let req = match Request::new(&a) {
        Ok(req) => req,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    for w in warnings(&a) {
        eprintln!("{w}");
    }
    let rc = match act(&req) {
        Ok(rc) => rc,
        Err(text) => {
            eprint!("{text}");
            1
        }
    };
    ExitCode::from((rc & 0xff) as u8)
}

fn informational(a: &ScancelArgs) -> String {
    if a.help {
        args::help_text()
    } else if a.usage {
        args::usage_text()
    } else {
        format!("slurm {}\n", spur_proto::SLURM_COMPAT_VERSION)
    }
}

/// The options scancel accepts and does not act on (its man page says so).
pub const NOT_ACTED: &[&str] = &["clusters", "sibling", "admin-comment", "hurry"];

/// One warning per option spur does not act on.
fn warnings(a: &ScancelArgs) -> Vec<String> {
    let given = [
        a.clusters.is_some(),
        a.sibling.is_some(),
        a.admin_comment.is_some(),
        a.hurry,
    ];
    NOT_ACTED
        .iter()
        .zip(given)
        .filter(|(_, on)| *on)
        .map(|(o, _)| {
            format!("scancel: warning: --{o} is not supported by spur yet and is ignored")
        })
        .collect()
}

/// Chooses the jobs, asks, signals, reports. Returns Slurm's rc.
fn act(req: &Request) -> Result<i32, String> {
    let jobs = if req.is_direct() {
        None
    } else {
        Some(load_jobs()?)
    };
    // Steps (`N.S`) are signalled one by one; the jobs the other
    // arguments (or, with none, the filters) name are chosen together.
    let (step_refs, job_refs): (Vec<JobRef>, Vec<JobRef>) =
        req.refs.iter().cloned().partition(|r| r.step.is_some());
    let jobs_named = !job_refs.is_empty() || step_refs.is_empty();
    let (mut targets, mut misses) = match &jobs {
        Some(jobs) if jobs_named => target::select(&job_refs, &req.filters, jobs),
        Some(_) => (Vec::new(), Vec::new()),
        None => (target::resolve_direct(&req.refs), Vec::new()),
    };
    let step_targets = match &jobs {
        Some(jobs) => step_targets(req, &step_refs, jobs, &mut misses),
        None => Vec::new(),
    };
    let mut err = String::new();
    let mut rc = misses_report(req, &misses, &mut err);
    if let Some(jobs) = &jobs {
        let matched = jobs.iter().filter(|j| req.filters.keeps(j)).count();
        if req.filters.any() && matched == 0 && req.verbose > 0 {
            let what = target::describe(&req.filters);
            err.push_str(&format!(
                "scancel: error: No active jobs match ALL job filters, including: {what}\n"
            ));
        }
        if req.interactive {
            targets.retain(|t| confirm(t, jobs));
        }
    }
    eprint!("{err}");
    let (text, steps_rc) = signal_steps(req, &step_targets);
    eprint!("{text}");
    rc = rc.max(steps_rc);
    if targets.is_empty() {
        return Ok(rc);
    }
    let results = signal(req, &targets);
    let (text, signal_rc) = outcome(req, &targets, &results);
    eprint!("{text}");
    rc = rc.max(signal_rc);
    Ok(rc)
}

/// The lines for arguments that named nothing, and the rc they set.
pub fn misses_report(req: &Request, misses: &[Miss], err: &mut String) -> i32 {
    let mut rc = 0;
    for miss in misses {
        match miss {
            Miss::NotFound(label) if req.is_direct() => {
                // Slurm sends these to the controller, which answers so.
                let gone = Failure::of(&ProtoError::new(ErrorCode::InvalidJobId));
                let target = Target::job(0, label.clone());
                let (text, r) = outcome(req, &[target], &[Err(gone)]);
                err.push_str(&text);
                rc = rc.max(r);
            }
            Miss::NotFound(label) => {
                rc = rc.max(1);
                if req.verbose >= 0 {
                    let what = if label.contains('.') {
                        "job step id"
                    } else {
                        "job id"
                    };
                    let text = ErrorCode::InvalidJobId.text();
                    err.push_str(&format!(
                        "scancel: error: Kill job error on {what} {label}: {text}\n"
                    ));
                }
            }
            Miss::NotSupported(label) => {
                rc = rc.max(NOT_SUPPORTED);
                let text = ErrorCode::NotSupported.text();
                err.push_str(&format!(
                    "scancel: error: Kill job error on job id {label}: {text}\n"
                ));
            }
        }
    }
    rc
}

/// What scancel prints for each target's result, and the rc: a job that
/// is gone is no error when cancelling (and silent unless -v).
pub fn outcome(
    req: &Request,
    targets: &[Target],
    results: &[Result<(), Failure>],
) -> (String, i32) {
    let mut text = String::new();
    let mut rc = 0;
    let sig = req.signal.unwrap_or(SIGKILL);
    for (t, result) in targets.iter().zip(results) {
        if req.verbose > 0 {
            let kind = req.job_type();
            text.push_str(&match req.signal {
                None => format!("scancel: Terminating {kind}job {}\n", t.label),
                Some(s) => format!("scancel: Signal {s} to {kind}job {}\n", t.label),
            });
        }
        if let Err(f) = result {
            if req.verbose > 0 || !f.gone {
                let line = format!("Kill job error on job id {}: {}", t.label, f.text);
                text.push_str(&format!("scancel: error: {line}\n"));
            }
            rc = rc.max(if f.gone && sig == SIGKILL { 0 } else { f.errno });
        }
    }
    (text, rc)
}

/// A step to signal: its job's id, Slurm's name for the job (`8_1`) and
/// the step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepTarget {
    /// The job's id.
    pub job_id: u32,
    /// The job as scancel names it.
    pub label: String,
    /// The step.
    pub step: u32,
}

/// The steps `refs` name in the active jobs the filters keep; a step of
/// a job that is not there is a miss.
pub fn step_targets(
    req: &Request,
    refs: &[JobRef],
    jobs: &[JobInfo],
    misses: &mut Vec<Miss>,
) -> Vec<StepTarget> {
    let mut out = Vec::new();
    for r in refs {
        let Some(step) = r.step else { continue };
        let named: Vec<&JobInfo> = jobs
            .iter()
            .filter(|j| !target::is_done(j) && target::names(r, j))
            .filter(|j| !req.filters.any() || req.filters.keeps(j))
            .collect();
        if named.is_empty() {
            misses.push(Miss::NotFound(r.text.clone()));
        }
        out.extend(named.into_iter().map(|j| StepTarget {
            job_id: j.job_id,
            label: target::label(j),
            step,
        }));
    }
    out
}

/// Signals each step (SIGKILL unless `-s`), as Slurm's `_cancel_step_id`
/// does: Slurm's lines and the rc. A step already done is no error when
/// it was to be killed, and is silent unless -v.
fn signal_steps(req: &Request, steps: &[StepTarget]) -> (String, i32) {
    let sig = req.signal.unwrap_or(SIGKILL);
    let results: Vec<Result<(), Failure>> = steps
        .iter()
        .map(|s| {
            Live.signal_step(s.job_id, s.step, sig)
                .map_err(Failure::of_request)
        })
        .collect();
    step_outcome(req, steps, &results)
}

/// What scancel prints for each step's result, and the rc.
pub fn step_outcome(
    req: &Request,
    steps: &[StepTarget],
    results: &[Result<(), Failure>],
) -> (String, i32) {
    let sig = req.signal.unwrap_or(SIGKILL);
    let mut text = String::new();
    let mut rc = 0;
    for (s, result) in steps.iter().zip(results) {
        if req.verbose > 0 {
            text.push_str(&if sig == SIGKILL {
                format!("scancel: Terminating step {}.{}\n", s.label, s.step)
            } else {
                format!("scancel: Signal {sig} to step {}.{}\n", s.label, s.step)
            });
        }
        if let Err(f) = result {
            let done = f.errno == slurm_errno(ErrorCode::AlreadyDone);
            if req.verbose > 0 || !done {
                text.push_str(&format!(
                    "scancel: error: Kill job error on job step id {}: {}\n",
                    s.label, f.text
                ));
            }
            rc = rc.max(if done && sig == SIGKILL { 0 } else { f.errno });
        }
    }
    (text, rc)
}

fn load_jobs() -> Result<Vec<JobInfo>, String> {
    match Live.jobs(Vec::new(), JobFields::SUMMARY, false) {
        Ok(listing) => Ok(listing.items),
        Err(e) => Err(format!("slurm_load_jobs error: {e}\n")),
    }
}

/// `-i`: `Cancel job_id=5 name=x partition=batch [y/n]? `; end of input is no.
fn confirm(t: &Target, jobs: &[JobInfo]) -> bool {
    let job = jobs.iter().find(|j| j.job_id == t.job_id);
    let (name, partition) = job.map_or(("", ""), |j| (j.name.as_str(), j.partition.as_str()));
    let stdin = std::io::stdin();
    loop {
        print!(
            "Cancel job_id={} name={name} partition={partition} [y/n]? ",
            t.label
        );
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) => {}
        }
        match line.chars().next() {
            Some('y' | 'Y') => return true,
            Some('n' | 'N') => return false,
            _ => {}
        }
    }
}

/// One Signal request for every target (jobs, then array tasks, which the
/// controller answers in that order); a result per target, in order.
fn signal(req: &Request, targets: &[Target]) -> Vec<Result<(), Failure>> {
    let ask = target::request(targets, req.signal, req.batch, req.full);
    let all = |f: Failure| targets.iter().map(|_| Err(f.clone())).collect();
    match Live.signal(ask) {
        Ok(answer) => target::outcomes(targets, &answer)
            .into_iter()
            .map(|r| r.map_err(|e| Failure::of(&e)))
            .collect(),
        Err(e) => all(Failure::of_request(e)),
    }
}
