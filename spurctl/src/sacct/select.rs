//! Which lines a sacct report prints, in which order: the jobs the `-j`
//! list and the client-side filters keep, sorted as sacct sorts them (by
//! submit time, then array, task and job id), each followed by its steps
//! unless `-X` (only the named steps when `-j` names steps). Pure.

use spur_proto::{HistoryJob, HistoryStep, JobSelector, StepId};

use super::field::{job_cpus, job_nodes, Line};
use super::options::{Filters, Plan};

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
pub fn jobs<'a>(all: &'a [HistoryJob], plan: &Plan) -> Vec<&'a HistoryJob> {
    let mut kept: Vec<&HistoryJob> = all
        .iter()
        .filter(|j| shown(&plan.query.jobs, j).is_some() && keeps(&plan.filters, j))
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
pub fn steps<'a>(job: &'a HistoryJob, plan: &Plan) -> Vec<&'a HistoryStep> {
    if plan.no_steps {
        return Vec::new();
    }
    let named = shown(&plan.query.jobs, job).and_then(|(_, steps)| steps);
    job.steps
        .iter()
        .filter(|s| named.as_ref().is_none_or(|n| n.contains(&s.step)))
        .collect()
}

/// The lines of the report for `jobs` (already chosen and sorted).
pub fn lines<'a>(jobs: &[&'a HistoryJob], plan: &Plan) -> Vec<Line<'a>> {
    let mut out = Vec::with_capacity(jobs.len() * 2);
    for &job in jobs {
        let Some((full, steps)) = shown(&plan.query.jobs, job) else {
            continue;
        };
        // Without steps the job's line shows even when only steps were
        // named.
        if full || plan.no_steps {
            out.push(Line::Job(job));
        }
        if plan.no_steps {
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
