//! Job id lists as scontrol's hold, release, requeue and update read them
//! (`_is_job_id` and `_next_job_id` in `src/scontrol/update_job.c`):
//! `12`, `12,13`, `12 13`, `1[2-4]`, `8_3`, `8_[1-3]`, `9+1`. Pure.

/// One job named on the command line.
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

/// The task ids of a range list such as `1-3,7` or `2-9%2` (the throttle is
/// ignored).
pub fn task_ids(spec: &str) -> Option<Vec<u32>> {
    let spec = spec.split('%').next().unwrap_or("");
    let mut out = Vec::new();
    for part in spec.split(',').filter(|p| !p.is_empty()) {
        let (range, step) = match part.split_once(':') {
            Some((r, s)) => (r, s.parse::<u32>().ok().filter(|s| *s > 0)?),
            None => (part, 1),
        };
        let (lo, hi): (u32, u32) = match range.split_once('-') {
            Some((lo, hi)) => (lo.parse().ok()?, hi.parse().ok()?),
            None => {
                let v = range.parse().ok()?;
                (v, v)
            }
        };
        if hi < lo || hi - lo > 1_000_000 {
            return None;
        }
        out.extend((lo..=hi).step_by(step as usize));
    }
    Some(out)
}
