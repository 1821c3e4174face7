//! References to steps, and to jobs where a listing names them, as
//! Slurm's commands read them: a step id after its dot (`batch`, `0`),
//! sacct's `-j` (`slurm_parse_step_str`), squeue's `-j` and `-s`
//! (`_build_job_list`, `_build_step_list`), and scontrol's `show job` and
//! `show step` arguments (`scontrol_print_job`, `scontrol_print_step`).
//! Each keeps its function's leniency.

use serde::{Deserialize, Serialize};

use crate::number::strtol_or_zero as strtol;

/// A step id as Slurm writes it after the dot (`N.batch`, `N.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StepId {
    /// The batch script (`batch`).
    Batch,
    /// The extern step (`extern`); spur has none.
    Extern,
    /// The interactive step of salloc (`interactive`).
    Interactive,
    /// An srun step: 0, 1, ...
    Numbered(u32),
}

impl StepId {
    /// Parses what follows the dot: `batch`, `extern`, `interactive` or a
    /// number (Slurm's `slurm_parse_step_str`: digits are read as far as
    /// they go).
    pub fn parse(text: &str) -> Option<StepId> {
        match text {
            "batch" => Some(StepId::Batch),
            "extern" => Some(StepId::Extern),
            "interactive" => Some(StepId::Interactive),
            _ => crate::number::strtol(text)
                .and_then(|(n, _)| u32::try_from(n).ok())
                .map(StepId::Numbered),
        }
    }
}

impl std::fmt::Display for StepId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepId::Batch => f.write_str("batch"),
            StepId::Extern => f.write_str("extern"),
            StepId::Interactive => f.write_str("interactive"),
            StepId::Numbered(n) => write!(f, "{n}"),
        }
    }
}

/// One entry of `sacct -j`: `N`, `N_i`, `N.step` or `N_i.step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSelector {
    /// The job id (or the array's id with `array_task`).
    pub job_id: u32,
    /// `_i`: one task of an array.
    pub array_task: Option<u32>,
    /// `.step`: only this step (the job's own line is then not shown).
    pub step: Option<StepId>,
}

/// `-j N` or `-j N_i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSel {
    /// The job (or array job) id.
    pub job: u32,
    /// The array task.
    pub task: Option<u32>,
}

/// `-j 5,8_1`: `Invalid job id: X` for an id that is not positive.
pub fn squeue_jobs(text: &str) -> Result<Vec<JobSel>, String> {
    let mut out = Vec::new();
    for item in text.split(',').filter(|s| !s.is_empty()) {
        let (job, rest) = strtol(item);
        let task = rest
            .strip_prefix('_')
            .map(|t| u32::try_from(strtol(t).0).unwrap_or(u32::MAX));
        match u32::try_from(job) {
            Ok(job) if job > 0 => out.push(JobSel { job, task }),
            _ => return Err(format!("Invalid job id: {item}")),
        }
    }
    Ok(out)
}

/// One entry of `-s`: `job[_task].step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepSel {
    /// The job (or array) id.
    pub job: u32,
    /// The array task.
    pub task: Option<u32>,
    /// The step; `batch` reads as 0, as squeue's strtol reads it.
    pub step: u32,
}

/// Parses `-s`'s list as squeue's _build_step_list does; the error is
/// squeue's message.
pub fn squeue_steps(list: &str) -> Result<Vec<StepSel>, String> {
    let mut out = Vec::new();
    for entry in list.split(',').filter(|e| !e.is_empty()) {
        let mut parts = entry.split('.').filter(|p| !p.is_empty());
        let Some(job_text) = parts.next() else {
            break;
        };
        let (job, rest) = strtol(job_text);
        let task = rest.strip_prefix('_').map(|t| strtol(t).0 as u32);
        let Some(step_text) = parts.next() else {
            return Err(format!("Invalid job_step id: {job_text}.??"));
        };
        let (step, _) = strtol(step_text);
        if job <= 0 || step < 0 {
            return Err(format!("Invalid job_step id: {job_text}.{step_text}"));
        }
        out.push(StepSel {
            job: job as u32,
            task,
            step: step as u32,
        });
    }
    Ok(out)
}

/// A job id as `show job` reads it: `5`, `8_3`, `9+1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShowId {
    /// The job (or array) id.
    pub job: u32,
    /// The array task.
    pub task: Option<u32>,
    /// The heterogeneous job offset.
    pub het: Option<u32>,
}

/// Reads `show job`'s id as `scontrol_print_job` does (digits, `_`, `+`
/// only; `strtol` for each number). None: not a job id.
pub fn show_job_id(text: &str) -> Option<ShowId> {
    if !text
        .chars()
        .all(|c| c.is_ascii_digit() || c == '_' || c == '+')
    {
        return None;
    }
    let lead = |t: &str| -> (u32, usize) {
        let n = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (t[..n].parse().unwrap_or(0), n)
    };
    let (job, n) = lead(text);
    let mut rest = &text[n..];
    let mut id = ShowId {
        job,
        task: None,
        het: None,
    };
    if let Some(r) = rest.strip_prefix('_') {
        let (t, n) = lead(r);
        id.task = Some(t);
        rest = &r[n..];
    }
    if let Some(r) = rest.strip_prefix('+') {
        id.het = Some(lead(r).0);
    }
    Some(id)
}

/// What `show step`'s argument names, as scontrol_print_step reads it:
/// the job (strtol), then `_task` or `.step` (strtol: `batch` reads as 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepArg {
    /// The job (0: none named).
    pub job: u32,
    /// `_task`.
    pub task: Option<u32>,
    /// `.step`.
    pub step: Option<u32>,
}

/// Reads `show step`'s argument.
pub fn show_step_arg(text: &str) -> StepArg {
    let (job, rest) = strtol(text);
    let mut arg = StepArg {
        job: job.max(0) as u32,
        task: None,
        step: None,
    };
    if let Some(r) = rest.strip_prefix('_') {
        arg.task = Some(strtol(r).0 as u32);
    } else if let Some(r) = rest.strip_prefix('.') {
        arg.step = Some(strtol(r).0 as u32);
    }
    arg
}

/// One `sacct -j` entry (`N`, `N_i`, `N.step`, `N_i.step`) as
/// `slurm_parse_step_str` reads it; the error is sacct's fatal message.
pub fn parse_step_str(item: &str) -> Result<JobSelector, String> {
    if !item.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("Bad job/step specified: {item}"));
    }
    let (job, step) = match item.split_once('.') {
        Some((job, step)) => {
            let parsed = StepId::parse(step)
                .filter(|_| step.starts_with(|c: char| c.is_ascii_alphanumeric()))
                .ok_or_else(|| format!("Bad step specified: {job}"))?;
            (job, Some(parsed))
        }
        None => (item, None),
    };
    let (job, task) = match job.split_once('_') {
        Some((job, task)) => {
            if !task.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(format!("Bad job array element specified: {job}"));
            }
            (job, Some(strtol(task).0.max(0) as u32))
        }
        None => (job, None),
    };
    Ok(JobSelector {
        job_id: strtol(job).0.max(0) as u32,
        array_task: task,
        step,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sacct_job_entries_read_as_slurm_parse_step_str_reads_them() {
        let sel = |job_id, array_task, step| JobSelector {
            job_id,
            array_task,
            step,
        };
        assert_eq!(parse_step_str("12"), Ok(sel(12, None, None)));
        assert_eq!(
            parse_step_str("8_3.batch"),
            Ok(sel(8, Some(3), Some(StepId::Batch)))
        );
        assert_eq!(
            parse_step_str("8.1x"),
            Ok(sel(8, None, Some(StepId::Numbered(1))))
        );
        assert_eq!(
            parse_step_str("x"),
            Err("Bad job/step specified: x".to_string())
        );
        assert_eq!(
            parse_step_str("8._"),
            Err("Bad step specified: 8".to_string())
        );
        assert_eq!(
            parse_step_str("8_x"),
            Err("Bad job array element specified: 8".to_string())
        );
    }

    #[test]
    fn squeues_lists_read_as_its_list_builders_read_them() {
        assert_eq!(
            squeue_jobs("5,,8_1"),
            Ok(vec![
                JobSel { job: 5, task: None },
                JobSel {
                    job: 8,
                    task: Some(1)
                }
            ])
        );
        assert_eq!(squeue_jobs("0"), Err("Invalid job id: 0".to_string()));
        assert_eq!(
            squeue_steps("5.batch,6_2.1"),
            Ok(vec![
                StepSel {
                    job: 5,
                    task: None,
                    step: 0
                },
                StepSel {
                    job: 6,
                    task: Some(2),
                    step: 1
                }
            ])
        );
        assert_eq!(
            squeue_steps("5"),
            Err("Invalid job_step id: 5.??".to_string())
        );
        assert_eq!(
            show_job_id("8_3+1"),
            Some(ShowId {
                job: 8,
                task: Some(3),
                het: Some(1)
            })
        );
        assert_eq!(show_job_id("8.1"), None);
    }

    #[test]
    fn show_steps_argument_reads_as_scontrol_reads_it() {
        let a = |text| show_step_arg(text);
        assert_eq!(
            a("37.1"),
            StepArg {
                job: 37,
                task: None,
                step: Some(1)
            }
        );
        assert_eq!(a("37.batch").step, Some(0));
        assert_eq!(a("39_3.0").task, Some(3));
        assert_eq!(a("39_3.0").step, None);
        assert_eq!(a("abc").job, 0);
    }
}
