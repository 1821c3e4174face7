//! The verdict: the submissions as their submitters were told, set against
//! the history sacct keeps and the runs each job recorded.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{bail, Result};

use crate::cluster::Cluster;
use crate::load::{Kind, Submission};

/// One job as sacct lists it.
#[derive(Debug, Clone)]
struct Row {
    /// JobIDRaw.
    raw: u32,
    /// JobID (`N`, or `A_i` for a task of array A).
    id: String,
    name: String,
    state: String,
    exit: String,
}

/// What the checks found.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Submissions whose submitter was told a job id.
    pub acknowledged: usize,
    /// Jobs (array tasks each) acknowledged and missing from the history.
    pub lost: usize,
    /// Job ids told to more than one submission.
    pub duplicate_ids: usize,
    /// Jobs still pending or running once the cluster settled.
    pub stuck: usize,
    /// Jobs whose script ran more than once.
    pub ran_twice: usize,
    /// Jobs more than a submission asked for (a retry that made another).
    pub second_jobs: usize,
    /// Jobs that ended otherwise than their script says.
    pub wrong_end: usize,
    /// Submissions whose command failed.
    pub failed: usize,
    /// Of those, submissions whose job exists all the same.
    pub made_unacknowledged: usize,
    /// Examples of what went wrong, one line each.
    pub examples: Vec<String>,
}

impl Verdict {
    /// Whether nothing acknowledged was lost, doubled, stuck or run twice,
    /// and every job ended as it should.
    pub fn clean(&self) -> bool {
        self.lost == 0
            && self.duplicate_ids == 0
            && self.stuck == 0
            && self.ran_twice == 0
            && self.second_jobs == 0
            && self.wrong_end == 0
            && self.failed == 0
    }

    fn example(&mut self, line: String) {
        if self.examples.len() < 20 {
            self.examples.push(line);
        }
    }
}

fn history(c: &Cluster) -> Result<Vec<Row>> {
    let out = c.run(
        "sacct",
        &[
            "-X",
            "-n",
            "-P",
            "-a",
            "-S",
            "2000-01-01",
            "-E",
            "now",
            "-o",
            "JobIDRaw,JobID,JobName,State,ExitCode",
        ],
    )?;
    if !out.status.success() {
        bail!("sacct failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let mut rows = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = line.split('|').collect();
        let [raw, id, name, state, exit] = f[..] else {
            bail!("sacct printed {line:?}");
        };
        rows.push(Row {
            raw: raw.parse()?,
            id: id.to_string(),
            name: name.to_string(),
            state: state.split(' ').next().unwrap_or_default().to_string(),
            exit: exit.to_string(),
        });
    }
    Ok(rows)
}

/// How many times each job's script ran.
fn runs(dir: &Path) -> Result<HashMap<u32, usize>> {
    let mut runs = HashMap::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(id) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let text = std::fs::read_to_string(entry.path())?;
        runs.insert(id, text.lines().count());
    }
    Ok(runs)
}

/// Checks every submission against the history and the runs.
pub fn judge(c: &Cluster, submissions: &[Submission]) -> Result<Verdict> {
    let rows = history(c)?;
    let runs = runs(&c.runs())?;
    let mut v = Verdict::default();
    let mut by_name: HashMap<&str, Vec<&Row>> = HashMap::new();
    for r in &rows {
        by_name.entry(r.name.as_str()).or_default().push(r);
        if matches!(
            r.state.as_str(),
            "PENDING" | "RUNNING" | "COMPLETING" | "REQUEUED" | "SUSPENDED"
        ) {
            v.stuck += 1;
            v.example(format!("stuck: job {} ({}) is {}", r.id, r.name, r.state));
        }
    }
    for (&id, &n) in &runs {
        if n > 1 {
            v.ran_twice += 1;
            v.example(format!("ran twice: job {id} ran {n} times"));
        }
    }
    let mut told: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for s in submissions {
        let jobs = by_name.get(s.name.as_str()).map_or(&[][..], Vec::as_slice);
        let id = match &s.answer {
            Ok(id) => *id,
            Err(why) => {
                v.failed += 1;
                v.example(format!(
                    "command failed: {} ({}): {why}",
                    s.name,
                    s.kind.word()
                ));
                if !jobs.is_empty() {
                    v.made_unacknowledged += 1;
                }
                continue;
            }
        };
        v.acknowledged += 1;
        told.entry(id).or_default().push(&s.name);
        let (state, exit) = s.kind.expected();
        let mine: Vec<&Row> = match s.kind {
            Kind::Array(_) => jobs
                .iter()
                .filter(|r| r.id.split('_').next() == Some(&id.to_string()))
                .copied()
                .collect(),
            _ => jobs.iter().filter(|r| r.raw == id).copied().collect(),
        };
        let wanted = match s.kind {
            Kind::Array(tasks) => tasks as usize,
            _ => 1,
        };
        if mine.len() < wanted {
            v.lost += wanted - mine.len();
            v.example(format!(
                "lost: {} was told job {id}; the history has {} of its {wanted} jobs",
                s.name,
                mine.len()
            ));
        }
        if jobs.len() > mine.len() {
            v.second_jobs += jobs.len() - mine.len();
            let others: Vec<&str> = jobs.iter().map(|r| r.id.as_str()).collect();
            v.example(format!(
                "second job: {} was told {id}; the history has {others:?}",
                s.name
            ));
        }
        for r in mine {
            let ran = runs.get(&r.raw).copied().unwrap_or(0);
            if r.state != state || r.exit != exit || ran == 0 {
                v.wrong_end += 1;
                v.example(format!(
                    "wrong end: job {} ({}) is {} {} after {ran} runs; expected {state} {exit}",
                    r.id, s.name, r.state, r.exit
                ));
            }
        }
    }
    for (id, names) in told {
        if names.len() > 1 {
            v.duplicate_ids += 1;
            v.example(format!("duplicate id: {id} was told to {names:?}"));
        }
    }
    Ok(v)
}
