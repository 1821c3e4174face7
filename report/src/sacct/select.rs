//! Which records a history report shows, in which order: the jobs the
//! `-j` list and the filters the controller's query does not apply keep,
//! sorted as sacct sorts them (by submit time, then array, task and job
//! id), each followed by its steps unless `-X` (only the named steps when
//! `-j` names steps). sacct and the REST server's `/slurmdb/` jobs both
//! choose their records here. Pure.

use spur_proto::{HistoryJob, HistoryStep, JobSelector, StepId};
use spur_slurm::job_ref::task_ids_lenient;

use super::field::{job_cpus, job_nodes, Line};

/// Narrowing done on what the controller returns (selections the history
/// query does not carry).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// `-A`.
    pub accounts: Vec<String>,
    /// `-g`, as gids.
    pub gids: Vec<u32>,
    /// `-q`.
    pub qos: Vec<String>,
    /// `-N`: node names.
    pub nodes: Vec<String>,
    /// `-i`: node count range.
    pub nnodes: Option<(u32, u32)>,
    /// `-I`: CPU count range.
    pub ncpus: Option<(u32, u32)>,
    /// `-k`/`-K`: time limit range in minutes.
    pub timelimit: Option<(u64, u64)>,
    /// `-C`.
    pub constraints: Vec<String>,
    /// `-R`.
    pub reasons: Vec<String>,
}

/// What picks the records: the `-j` list, the filters, and `-X`.
#[derive(Debug, Clone, Copy)]
pub struct Selection<'a> {
    /// The job list the query carried (empty: every job).
    pub jobs: &'a [JobSelector],
    /// The filters applied here.
    pub filters: &'a Filters,
    /// `-X`: jobs without their steps.
    pub no_steps: bool,
    /// `--array`: an array's pending tasks a line each, not one line for
    /// the array's record.
    pub expand_arrays: bool,
}

/// Whether `sel` names `job` (`N` is the job or an array's tasks; `N_i`
/// one task).
fn names_job(sel: &JobSelector, job: &HistoryJob) -> bool {
    match sel.array_task {
        None => sel.job_id == job.job_id || Some(sel.job_id) == job.array_job_id,
        Some(task) => Some(sel.job_id) == job.array_job_id && Some(task) == job.array_task_id,
    }
}

/// What the `-j` list shows of `job`: None when it does not name it;
/// else whether the job's own line shows and which steps (None: all).
/// Slurm walks the list in order: a step entry adds its step, and an
/// entry for the whole job shows the job line and stops there.
fn shown(sels: &[JobSelector], job: &HistoryJob) -> Option<(bool, Option<Vec<StepId>>)> {
    if sels.is_empty() {
        return Some((true, None));
    }
    let mut named = false;
    let mut steps: Vec<StepId> = Vec::new();
    for sel in sels.iter().filter(|s| names_job(s, job)) {
        named = true;
        match sel.step {
            None => return Some((true, (!steps.is_empty()).then_some(steps))),
            Some(step) => steps.push(step),
        }
    }
    named.then_some((false, Some(steps)))
}

fn in_range(value: u32, range: Option<(u32, u32)>) -> bool {
    range.is_none_or(|(lo, hi)| value >= lo && value <= hi)
}

/// The filters the controller's query does not apply.
fn keeps(f: &Filters, job: &HistoryJob) -> bool {
    let account = job.account.as_deref().unwrap_or_default();
    (f.accounts.is_empty() || f.accounts.iter().any(|a| a == account))
        && (f.gids.is_empty() || f.gids.contains(&job.group_id))
        && (f.qos.is_empty() || f.qos.contains(&job.qos))
        && (f.reasons.is_empty() || f.reasons.contains(&job.reason))
        && (f.constraints.is_empty()
            || f.constraints
                .iter()
                .any(|c| Some(c.as_str()) == job.constraints.as_deref()))
        && (f.nodes.is_empty() || ran_on(&f.nodes, &job.nodes))
        && in_range(job_nodes(job), f.nnodes)
        && in_range(job_cpus(job), f.ncpus)
        && f.timelimit.is_none_or(|(lo, hi)| {
            let minutes = job.time_limit.map_or(u64::MAX, |s| s.div_ceil(60));
            minutes >= lo && minutes <= hi
        })
}

fn ran_on(wanted: &[String], nodes: &str) -> bool {
    spur_conf::hostlist::expand(nodes)
        .map(|names| names.iter().any(|n| wanted.contains(n)))
        .unwrap_or(false)
}

/// The jobs to print, in sacct's order.
pub fn jobs<'a>(all: &'a [HistoryJob], sel: Selection<'_>) -> Vec<&'a HistoryJob> {
    let mut kept: Vec<&HistoryJob> = all
        .iter()
        .filter(|j| shown(sel.jobs, j).is_some() && keeps(sel.filters, j))
        .collect();
    // Non-array jobs sort before array tasks submitted the same second.
    kept.sort_by_key(|j| {
        (
            j.submit_time,
            j.array_job_id.unwrap_or(0),
            j.array_task_id.unwrap_or(u32::MAX - 1),
            j.job_id,
        )
    });
    kept
}

/// The steps of `job` the report shows (none with `-X`).
pub fn steps<'a>(job: &'a HistoryJob, sel: Selection<'_>) -> Vec<&'a HistoryStep> {
    if sel.no_steps {
        return Vec::new();
    }
    let named = shown(sel.jobs, job).and_then(|(_, steps)| steps);
    job.steps
        .iter()
        .filter(|s| named.as_ref().is_none_or(|n| n.contains(&s.step)))
        .collect()
}

/// The lines of the report for `jobs` (already chosen and sorted).
pub fn lines<'a>(jobs: &[&'a HistoryJob], sel: Selection<'_>) -> Vec<Line<'a>> {
    let mut out = Vec::with_capacity(jobs.len() * 2);
    for &job in jobs {
        let Some((full, steps)) = shown(sel.jobs, job) else {
            continue;
        };
        // Without steps the job's line shows even when only steps were
        // named.
        if full || sel.no_steps {
            match (&job.array_task_str, job.array_task_id) {
                (Some(pending), None) if sel.expand_arrays => out.extend(
                    task_ids_lenient(pending)
                        .into_iter()
                        .map(|task| Line::Task(job, task)),
                ),
                _ => out.push(Line::Job(job)),
            }
        }
        if sel.no_steps {
            continue;
        }
        for step in job
            .steps
            .iter()
            .filter(|s| steps.as_ref().is_none_or(|n| n.contains(&s.step)))
        {
            out.push(Line::Step(job, step));
        }
    }
    out
}

/// The time window of a history query (`slurmdb_job_cond_def_start_end`)
/// from the start and end asked for (0: not given), at `now`: with states,
/// a missing start is now (unless jobs are named) and a missing end the
/// start; without, a missing start is midnight unless jobs are named; a
/// missing end is now, and an end equal to the start or to now moves a
/// second on. The caller refuses a start after the end.
pub fn window(start: u64, end: u64, states: bool, jobs: bool, now: i64) -> (u64, u64) {
    let now_u = now.max(0) as u64;
    let (mut start, mut end) = (start, end);
    if states {
        if start == 0 && !jobs {
            start = now_u;
        }
        if start != 0 && end == 0 {
            end = start;
        }
    } else if !jobs && start == 0 {
        start = midnight(now);
    }
    if end == 0 {
        end = now_u;
    }
    if end == start || end == now_u {
        end = end.saturating_add(1);
    }
    (start, end)
}

/// Local midnight of the day of `now`.
fn midnight(now: i64) -> u64 {
    spur_slurm::parse_time::parse_past("midnight", now)
        .ok()
        .flatten()
        .map_or(0, |t| t.max(0) as u64)
}

/// `-T`: start and end times cut to the window (`end` no later than
/// `now`), as slurmdbd does without JOBCOND_FLAG_NO_TRUNC. A job that never
/// started starts when it is cut to end.
pub fn truncate(jobs: &mut [HistoryJob], start: u64, end: u64, now: u64) {
    let end = end.min(now);
    for job in jobs {
        if let Some(s) = job.start_time.as_mut() {
            *s = (*s).max(start);
        }
        if job.end_time.is_none_or(|e| e > end) {
            job.end_time = Some(end);
        }
        if job.start_time.is_none() {
            job.start_time = job.end_time;
        }
        for step in &mut job.steps {
            step.start_time = step.start_time.max(start);
            if step.end_time.is_none_or(|e| e > end) {
                step.end_time = Some(end);
            }
            if step.end_time.is_some_and(|e| step.start_time > e) {
                step.start_time = 0;
                step.end_time = Some(0);
            }
        }
    }
}
