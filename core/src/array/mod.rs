//! Job arrays: Slurm's `--array` expressions (`0-15:4%2`), the set of task
//! ids they name (`TaskSet`), and the array state a job carries
//! (`JobArray`). A submitted array is one pending record, Slurm's meta job,
//! holding its pending task ids; the scheduler splits a task off as its own
//! job when it starts, the last task keeping the record's id. Parsing is
//! pure; what the core does with arrays (split, cancel, throttle) is in
//! `ops`.

mod ops;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

use crate::id::JobId;

/// A set of array task ids, kept as sorted, disjoint runs so that large
/// ranges (`0-1000000`) stay small. Prints as Slurm prints a task list:
/// `0-3,5,7-9`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct TaskSet {
    /// Inclusive runs, sorted, neither overlapping nor touching.
    runs: Vec<(u32, u32)>,
}

impl TaskSet {
    /// The empty set.
    pub fn new() -> TaskSet {
        TaskSet::default()
    }

    /// The tasks `first..=last`.
    pub fn range(first: u32, last: u32) -> TaskSet {
        let mut set = TaskSet::new();
        if first <= last {
            set.runs.push((first, last));
        }
        set
    }

    /// A set from inclusive runs in any order, overlapping or not.
    fn from_runs(mut runs: Vec<(u32, u32)>) -> TaskSet {
        runs.retain(|(a, b)| a <= b);
        runs.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(runs.len());
        for (a, b) in runs {
            match merged.last_mut() {
                Some(last) if u64::from(a) <= u64::from(last.1) + 1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        TaskSet { runs: merged }
    }

    /// Whether no task is in the set.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// How many tasks are in the set.
    pub fn len(&self) -> usize {
        self.runs.iter().map(|(a, b)| (b - a) as usize + 1).sum()
    }

    /// Whether `task` is in the set.
    pub fn contains(&self, task: u32) -> bool {
        self.run_of(task).is_ok()
    }

    /// The lowest task id.
    pub fn first(&self) -> Option<u32> {
        self.runs.first().map(|r| r.0)
    }

    /// The highest task id.
    pub fn last(&self) -> Option<u32> {
        self.runs.last().map(|r| r.1)
    }

    /// The run holding `task` (Ok) or where a run starting at it would go.
    fn run_of(&self, task: u32) -> Result<usize, usize> {
        self.runs.binary_search_by(|&(a, b)| {
            if b < task {
                std::cmp::Ordering::Less
            } else if a > task {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
    }

    /// Adds `task`; false if it was there.
    pub fn insert(&mut self, task: u32) -> bool {
        if self.contains(task) {
            return false;
        }
        let mut runs = std::mem::take(&mut self.runs);
        runs.push((task, task));
        *self = TaskSet::from_runs(runs);
        true
    }

    /// Removes `task`; false if it was not there.
    pub fn remove(&mut self, task: u32) -> bool {
        let Ok(i) = self.run_of(task) else {
            return false;
        };
        let (a, b) = self.runs[i];
        match (a == task, b == task) {
            (true, true) => {
                self.runs.remove(i);
            }
            (true, false) => self.runs[i].0 = task + 1,
            (false, true) => self.runs[i].1 = task - 1,
            (false, false) => {
                self.runs[i].1 = task - 1;
                self.runs.insert(i + 1, (task + 1, b));
            }
        }
        true
    }

    /// The task ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs.iter().flat_map(|&(a, b)| a..=b)
    }

    /// The tasks in both sets.
    pub fn intersection(&self, other: &TaskSet) -> TaskSet {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < self.runs.len() && j < other.runs.len() {
            let (a1, b1) = self.runs[i];
            let (a2, b2) = other.runs[j];
            let (a, b) = (a1.max(a2), b1.min(b2));
            if a <= b {
                out.push((a, b));
            }
            if b1 < b2 {
                i += 1;
            } else {
                j += 1;
            }
        }
        TaskSet { runs: out }
    }

    /// The tasks in either set.
    pub fn union(&self, other: &TaskSet) -> TaskSet {
        TaskSet::from_runs(self.runs.iter().chain(&other.runs).copied().collect())
    }

    /// The tasks of this set that are not in `other`.
    pub fn difference(&self, other: &TaskSet) -> TaskSet {
        let mut out = self.clone();
        for t in other.intersection(self).iter() {
            out.remove(t);
        }
        out
    }
}

impl FromIterator<u32> for TaskSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> TaskSet {
        TaskSet::from_runs(iter.into_iter().map(|t| (t, t)).collect())
    }
}

impl fmt::Display for TaskSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(a, b)) in self.runs.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

/// A task list that is not of the form `a-b,c` (what [`TaskSet`] prints).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid task list {0:?}")]
pub struct BadTaskList(pub String);

impl FromStr for TaskSet {
    type Err = BadTaskList;

    /// Reads what `Display` writes: comma-separated ids and `a-b` ranges.
    fn from_str(s: &str) -> Result<TaskSet, BadTaskList> {
        let bad = || BadTaskList(s.to_string());
        let mut runs = Vec::new();
        for part in s.split(',').filter(|p| !p.is_empty()) {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (a, b),
                None => (part, part),
            };
            let a: u32 = a.parse().map_err(|_| bad())?;
            let b: u32 = b.parse().map_err(|_| bad())?;
            if b < a {
                return Err(bad());
            }
            runs.push((a, b));
        }
        Ok(TaskSet::from_runs(runs))
    }
}

impl Serialize for TaskSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TaskSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TaskSet, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// An `--array` expression Slurm refuses (ESLURM_INVALID_ARRAY).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("Invalid job array specification")]
pub struct InvalidArray;

/// A parsed `--array` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArraySpec {
    /// The task ids.
    pub tasks: TaskSet,
    /// `%N`: the most tasks running at once (0: no limit).
    pub throttle: u32,
    /// The step of the first `a-b:step` range, or 1 (`SLURM_ARRAY_TASK_STEP`).
    pub step: u32,
}

/// Parses an `--array` expression as slurmctld does: comma-separated ids
/// and ranges `a-b` with an optional `:step`, brackets allowed around a
/// token, and `%N` for the throttle. Every task id must be below
/// `max_array_size` (MaxArraySize; 0 disables arrays). `Ok(None)`: the
/// expression names no task, and Slurm then submits an ordinary job.
pub fn parse_array(text: &str, max_array_size: u32) -> Result<Option<ArraySpec>, InvalidArray> {
    if text.is_empty() {
        return Ok(None);
    }
    if max_array_size == 0 {
        return Err(InvalidArray);
    }
    let mut runs = Vec::new();
    for token in text.split(',').filter(|t| !t.is_empty()) {
        parse_token(token, i64::from(max_array_size), &mut runs)?;
    }
    let tasks = TaskSet::from_runs(runs);
    if tasks.is_empty() {
        return Ok(None);
    }
    let after = |c: char| text.find(c).map(|at| atoi(&text[at + 1..]));
    Ok(Some(ArraySpec {
        tasks,
        throttle: after('%').map_or(0, |t| u32::try_from(t).unwrap_or(0)),
        step: after(':').map_or(1, |s| u32::try_from(s).unwrap_or(1).max(1)),
    }))
}

/// One comma-separated token: `[a]`, `a-b`, `a-b:step`, each optionally
/// followed by `%...` (slurmctld's `_parse_array_tok`).
fn parse_token(token: &str, max: i64, runs: &mut Vec<(u32, u32)>) -> Result<(), InvalidArray> {
    fn strip(rest: &str) -> &str {
        rest.strip_prefix(']').unwrap_or(rest)
    }
    let ends = |rest: &str| rest.is_empty() || rest.starts_with('%');
    let token = token.strip_prefix('[').unwrap_or(token);
    let (first, rest) = strtol(token);
    let rest = strip(rest);
    if first < 0 {
        return Err(InvalidArray);
    }
    let (last, step) = if let Some(range) = rest.strip_prefix('-') {
        let (last, rest) = strtol(range);
        let rest = strip(rest);
        let step = if let Some(step) = rest.strip_prefix(':') {
            let (step, rest) = strtol(step);
            if !ends(strip(rest)) || step <= 0 || step >= max {
                return Err(InvalidArray);
            }
            step
        } else if !ends(rest) {
            return Err(InvalidArray);
        } else {
            1
        };
        if last < first {
            return Err(InvalidArray);
        }
        (last, step)
    } else if !ends(rest) {
        return Err(InvalidArray);
    } else {
        (first, 1)
    };
    if last >= max {
        return Err(InvalidArray);
    }
    // Bounded by max (a u32), so these fit.
    let (first, last) = (first as u32, last as u32);
    if step == 1 {
        runs.push((first, last));
    } else {
        runs.extend((first..=last).step_by(step as usize).map(|t| (t, t)));
    }
    Ok(())
}

/// C's `strtol` as Slurm calls it here, not checking where it stopped.
pub(crate) use spur_slurm::number::strtol_or_zero as strtol;

/// C's `atoi`.
fn atoi(s: &str) -> i64 {
    strtol(s).0
}

/// A job's place in an array. The array's first record (job id
/// `array_job_id`) starts as the meta record holding every pending task;
/// tasks split off get their own job ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobArray {
    array_job_id: JobId,
    task_id: Option<u32>,
    /// Tasks still pending in this record (the meta record only). Always
    /// written, so that encodings without field names read it back.
    #[serde(default)]
    pending: TaskSet,
    /// `%N` (0: none); kept on the array's own record.
    #[serde(default)]
    throttle: u32,
    /// Whether a task ended other than COMPLETED, or pending tasks were
    /// cancelled (Slurm's max_exit_code != 0); kept on the array's own
    /// record. An array with such a task never satisfies `afterok:N`.
    #[serde(default)]
    task_failed: bool,
}

impl JobArray {
    /// The meta record of a new array.
    pub(crate) fn meta(id: JobId, spec: ArraySpec) -> JobArray {
        JobArray {
            array_job_id: id,
            task_id: None,
            pending: spec.tasks,
            throttle: spec.throttle,
            task_failed: false,
        }
    }

    /// `SLURM_ARRAY_JOB_ID`: the id of the array's own record.
    pub fn array_job_id(&self) -> JobId {
        self.array_job_id
    }

    /// `SLURM_ARRAY_TASK_ID`; None while this is the meta record holding
    /// pending tasks.
    pub fn task_id(&self) -> Option<u32> {
        self.task_id
    }

    /// The tasks still pending in this record (empty unless it is the meta
    /// record).
    pub fn pending_tasks(&self) -> &TaskSet {
        &self.pending
    }

    /// The pending tasks as Slurm names them after the array's id, with
    /// the throttle (`0-3%2`), for the meta record.
    pub fn pending_text(&self) -> String {
        match self.throttle {
            0 => self.pending.to_string(),
            k => format!("{}%{k}", self.pending),
        }
    }

    /// Whether this is the meta record (no task id of its own yet).
    pub fn is_meta(&self) -> bool {
        self.task_id.is_none()
    }

    /// On the array's own record: whether a task ended other than
    /// COMPLETED or pending tasks were cancelled.
    pub(crate) fn task_failed(&self) -> bool {
        self.task_failed
    }
}

/// Where an array task is: split off as its own job, or still pending in
/// the meta record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskLocation {
    /// A job of its own (its job id).
    Job(JobId),
    /// Pending inside the meta record (the array's own job id).
    InRecord(JobId),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(text: &str) -> String {
        parse_array(text, 1001)
            .expect("valid")
            .expect("an array")
            .tasks
            .to_string()
    }

    #[test]
    fn ranges_lists_and_steps() {
        assert_eq!(tasks("0-15"), "0-15");
        assert_eq!(tasks("1,3,5"), "1,3,5");
        assert_eq!(tasks("0-15:4"), "0,4,8,12");
        assert_eq!(tasks("0,6,16-32"), "0,6,16-32");
        assert_eq!(tasks("[1-3]"), "1-3");
        assert_eq!(tasks("3,1,2,2"), "1-3");
        assert_eq!(tasks("5"), "5");
    }

    #[test]
    fn throttle_and_step_are_read() {
        let spec = parse_array("0-15:4%2", 1001).unwrap().unwrap();
        assert_eq!((spec.throttle, spec.step), (2, 4));
        let spec = parse_array("1-9%0", 1001).unwrap().unwrap();
        assert_eq!((spec.throttle, spec.step, spec.tasks.len()), (0, 1, 9));
    }

    #[test]
    fn task_ids_must_stay_below_max_array_size() {
        assert_eq!(parse_array("0-200000", 100_001), Err(InvalidArray));
        assert_eq!(
            parse_array("0-1000", 1001).unwrap().unwrap().tasks.len(),
            1001
        );
        assert_eq!(parse_array("1001", 1001), Err(InvalidArray));
        assert_eq!(parse_array("1", 0), Err(InvalidArray));
    }

    #[test]
    fn malformed_expressions_are_refused() {
        for bad in [
            "a", "-1", "5-3", "1-5:0", "1-5:-1", "1-5:1001", "1-5x", "1:2", "1;2",
        ] {
            assert_eq!(parse_array(bad, 1001), Err(InvalidArray), "{bad}");
        }
        assert_eq!(InvalidArray.to_string(), "Invalid job array specification");
    }

    #[test]
    fn an_expression_naming_no_task_is_no_array() {
        assert_eq!(parse_array("", 1001), Ok(None));
        assert_eq!(parse_array(",,", 1001), Ok(None));
    }

    #[test]
    fn task_sets_remove_split_and_print_like_slurm() {
        let mut set: TaskSet = "2-9".parse().unwrap();
        assert!(set.remove(5));
        assert!(!set.remove(5));
        assert_eq!(set.to_string(), "2-4,6-9");
        assert_eq!(set.len(), 7);
        assert!(set.insert(5));
        assert_eq!(set.to_string(), "2-9");
        let other = TaskSet::range(0, 3);
        assert_eq!(set.intersection(&other).to_string(), "2-3");
        assert_eq!(set.difference(&other).to_string(), "4-9");
        assert_eq!(set.first(), Some(2));
        assert_eq!(set.last(), Some(9));
        assert_eq!(set.union(&TaskSet::range(11, 12)).to_string(), "2-9,11-12");
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#""2-9""#);
        assert_eq!(serde_json::from_str::<TaskSet>(&json).unwrap(), set);
        assert!("3-1".parse::<TaskSet>().is_err());
        assert!(serde_json::from_str::<TaskSet>(r#""x""#).is_err());
    }
}
