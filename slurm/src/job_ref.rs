//! References to jobs, array tasks and steps as Slurm's commands read
//! them: scontrol's job id lists (`12`, `12,13`, `1[2-4]`, `8_3`,
//! `8_[1-3]`, `9+1`; `_is_job_id` and `_next_job_id` in
//! `src/scontrol/update_job.c`), scancel's arguments (`N`, `N_i`,
//! `N_[1-3]`, `N_*`, `N+k`, `N.S`, comma lists; `_xlate_job_step_ids` in
//! `src/scancel/opt.c`), and array task lists (`1-3,7`, `0-15:4%2`).

use crate::number::strtol_or_zero as strtol;

/// One job named in scontrol's job id lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRef {
    /// A job id.
    Job(u32),
    /// One task of an array (`8_3`).
    Task(u32, u32),
    /// Tasks of an array (`8_[1-3]`), the tasks as written inside the
    /// brackets.
    Tasks(u32, String),
    /// A component of a heterogeneous job (`9+1`).
    Het(u32, u32),
}

impl std::fmt::Display for JobRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobRef::Job(id) => write!(f, "{id}"),
            JobRef::Task(id, t) => write!(f, "{id}_{t}"),
            JobRef::Tasks(id, t) => write!(f, "{id}_[{t}]"),
            JobRef::Het(id, o) => write!(f, "{id}+{o}"),
        }
    }
}

/// Whether `text` is a job id list (`_is_job_id`).
pub fn is_job_list(text: &str) -> bool {
    let (mut plus, mut under, mut depth) = (false, false, 0i32);
    for c in text.chars() {
        match c {
            '+' if plus => return false,
            '+' => plus = true,
            '_' if under => return false,
            '_' => under = true,
            '[' => depth += 1,
            ']' => depth -= 1,
            '-' if depth == 0 && !under => return false,
            '-' => {}
            ',' | ' ' if depth == 0 => {
                plus = false;
                under = false;
            }
            ',' | ' ' => {}
            d if d.is_ascii_digit() => {}
            _ => return false,
        }
    }
    depth == 0 && !text.is_empty()
}

/// Splits a job id list into its jobs; None when it is not one.
pub fn parse_job_list(text: &str) -> Option<Vec<JobRef>> {
    if !is_job_list(text) {
        return None;
    }
    let mut out = Vec::new();
    for token in split_top(text) {
        out.extend(parse_token(&token)?);
    }
    Some(out)
}

/// Splits at `,` and ` ` outside brackets.
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' | ' ' if depth == 0 => {
                if !cur.is_empty() {
                    parts.push(std::mem::take(&mut cur));
                }
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

fn parse_token(token: &str) -> Option<Vec<JobRef>> {
    let (jobs, task) = match token.split_once('_') {
        Some((j, t)) => (j, Some(t)),
        None => (token, None),
    };
    let (jobs, het) = match jobs.split_once('+') {
        Some((j, h)) => (j, Some(h.parse::<u32>().ok()?)),
        None => (jobs, None),
    };
    let ids: Vec<u32> = if jobs.contains('[') {
        spur_conf::hostlist::expand(jobs)
            .ok()?
            .iter()
            .map(|s| s.parse().ok())
            .collect::<Option<_>>()?
    } else {
        vec![jobs.parse().ok()?]
    };
    ids.into_iter()
        .map(|id| match (task, het) {
            (Some(t), _) if t.starts_with('[') => {
                let inner = t.trim_start_matches('[');
                Some(JobRef::Tasks(id, inner.split(']').next()?.to_string()))
            }
            (Some(t), _) => Some(JobRef::Task(id, t.parse().ok()?)),
            (None, Some(h)) => Some(JobRef::Het(id, h)),
            (None, None) => Some(JobRef::Job(id)),
        })
        .collect()
}

/// Which part of an array a job id argument names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArraySel {
    /// Not an array task: the job (or the whole array).
    None,
    /// `N_i`.
    Task(u32),
    /// `N_*`.
    All,
}

/// One of scancel's job id arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRef {
    /// The job id (or array job id).
    pub job: u32,
    /// The array part.
    pub array: ArraySel,
    /// `.S`: a step.
    pub step: Option<u32>,
    /// The argument as written, which Slurm prints in its messages.
    pub text: String,
}

/// Splits and parses scancel's job id arguments; on error, the argument
/// Slurm names in `Invalid job id X`.
pub fn parse_step_refs(args: &[String]) -> Result<Vec<StepRef>, String> {
    let mut out = Vec::new();
    for arg in args {
        let mut rest = Some(arg.as_str());
        while let Some(text) = rest {
            rest = parse_one(text, arg, &mut out)?;
        }
    }
    Ok(out)
}

/// Parses one id at the start of `text`; returns the text after a comma.
fn parse_one<'a>(
    text: &'a str,
    whole: &str,
    out: &mut Vec<StepRef>,
) -> Result<Option<&'a str>, String> {
    let bad = || whole.to_string();
    let (job, rest) = strtol(text);
    let job = u32::try_from(job).ok().filter(|&j| j > 0).ok_or_else(bad)?;
    if let Some(list) = rest.strip_prefix("_[") {
        let inner = list
            .strip_suffix(']')
            .filter(|i| !i.contains(']'))
            .ok_or_else(bad)?;
        for task in task_ids_lenient(inner) {
            let text = format!("{job}_{task}");
            out.push(StepRef {
                job,
                array: ArraySel::Task(task),
                step: None,
                text,
            });
        }
        return Ok(None);
    }
    let (array, rest) = if let Some(r) = rest.strip_prefix("_*") {
        (ArraySel::All, r)
    } else if let Some(r) = rest.strip_prefix('_') {
        let (t, r) = strtol(r);
        (ArraySel::Task(u32::try_from(t).map_err(|_| bad())?), r)
    } else if let Some(r) = rest.strip_prefix('+') {
        // A hetjob component: Slurm acts on the whole hetjob.
        let (c, r) = strtol(r);
        if c < 0 {
            return Err(bad());
        }
        (ArraySel::None, r)
    } else {
        (ArraySel::None, rest)
    };
    let (step, rest) = match rest.strip_prefix('.') {
        Some(r) => {
            let (s, r) = strtol(r);
            (Some(u32::try_from(s).map_err(|_| bad())?), r)
        }
        None => (None, rest),
    };
    let consumed = &text[..text.len() - rest.len()];
    out.push(StepRef {
        job,
        array,
        step,
        text: consumed.to_string(),
    });
    match rest.strip_prefix(',') {
        Some(next) => Ok(Some(next)),
        None if rest.is_empty() => Ok(None),
        None => Err(bad()),
    }
}

/// The task ids of a range list such as `1-3,7` or `2-9%2` (the throttle is
/// ignored), in the order written; None when any part is not a range, its
/// step is not a positive number, or a range is backwards or longer than a
/// million (what a person may name on scontrol's command line).
pub fn task_ids(spec: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in parts(spec) {
        let (span, step) = match part.split_once(':') {
            Some((r, s)) => (r, s.parse::<usize>().ok().filter(|s| *s > 0)?),
            None => (part, 1),
        };
        let (lo, hi) = bounds(span)?;
        if hi < lo || hi - lo > 1_000_000 {
            return None;
        }
        out.extend((lo..=hi).step_by(step));
    }
    Some(out)
}

/// The task ids of a range list, sorted and each once (how squeue and
/// scancel read an array's task string): a part that is not a range is
/// left out, and a step that is not a positive number reads as 1. There is
/// no bound on a range's length: MaxArraySize bounds the arrays.
pub fn task_ids_lenient(spec: &str) -> Vec<u32> {
    let mut ids = Vec::new();
    for part in parts(spec) {
        let (span, step) = match part.split_once(':') {
            Some((r, s)) => (r, s.parse::<usize>().unwrap_or(1).max(1)),
            None => (part, 1),
        };
        if let Some((lo, hi)) = bounds(span) {
            ids.extend((lo..=hi).step_by(step));
        }
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The comma-separated parts of a range list, throttle left off.
fn parts(spec: &str) -> impl Iterator<Item = &str> {
    let spec = spec.split('%').next().unwrap_or_default();
    spec.split(',').filter(|p| !p.is_empty())
}

/// `lo-hi` or `n`.
fn bounds(span: &str) -> Option<(u32, u32)> {
    match span.split_once('-') {
        Some((lo, hi)) => Some((lo.parse().ok()?, hi.parse().ok()?)),
        None => span.parse().ok().map(|v| (v, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_lists_read_strictly_or_leniently() {
        assert_eq!(task_ids("2-9%2"), Some(vec![2, 3, 4, 5, 6, 7, 8, 9]));
        assert_eq!(task_ids("1-7:3,10"), Some(vec![1, 4, 7, 10]));
        assert_eq!(task_ids("7,1"), Some(vec![7, 1]));
        assert_eq!(task_ids("1-x"), None);
        assert_eq!(task_ids("5-1"), None);
        assert_eq!(task_ids_lenient("1,3,5-7"), vec![1, 3, 5, 6, 7]);
        assert_eq!(task_ids_lenient("0-15:4"), vec![0, 4, 8, 12]);
        assert_eq!(task_ids_lenient("7,x,1,1"), vec![1, 7]);
        assert!(task_ids_lenient("").is_empty());
        assert_eq!(task_ids_lenient("0-3:0"), vec![0, 1, 2, 3]);
        assert_eq!(task_ids_lenient("0-1999999").len(), 2_000_000);
        assert_eq!(task_ids("0-1999999"), None);
    }

    #[test]
    fn scontrol_lists_and_scancel_arguments() {
        assert_eq!(
            parse_job_list("1[2-3],8_[1-3] 9+1"),
            Some(vec![
                JobRef::Job(12),
                JobRef::Job(13),
                JobRef::Tasks(8, "1-3".into()),
                JobRef::Het(9, 1)
            ])
        );
        assert_eq!(parse_job_list("12.batch"), None);
        let refs = parse_step_refs(&["8_[1-2]".to_string(), "9.3".to_string()]).expect("parses");
        let got: Vec<_> = refs
            .iter()
            .map(|r| (r.job, r.array, r.step, r.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (8, ArraySel::Task(1), None, "8_1"),
                (8, ArraySel::Task(2), None, "8_2"),
                (9, ArraySel::None, Some(3), "9.3"),
            ]
        );
        assert_eq!(
            parse_step_refs(&["8_*".to_string()]).expect("parses")[0].array,
            ArraySel::All
        );
        assert_eq!(parse_step_refs(&["x".to_string()]), Err("x".to_string()));
    }
}
