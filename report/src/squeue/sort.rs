//! squeue's row order: `-S` keys (default `P,t,-p`: partition, state,
//! priority descending) applied from the last to the first, each as one
//! stable sort, after Slurm's initial sort by start time. The sorts are
//! glibc's merge sort step for step, because Slurm's start time comparator
//! is not a total order and the order it leaves is part of the output.

use std::cmp::Ordering;

use spur_proto::{JobField, JobFields, JobInfo, JobStateName, MemSpec};

use super::field::time_used;

/// Slurm's default `-S`.
pub const DEFAULT_SORT: &str = "P,t,-p";

/// What one sort step compares.
#[derive(Debug, Clone, Copy)]
enum By {
    /// A number of the job.
    Number(fn(&JobInfo, u64) -> Key),
    /// A text of the job, compared as strcmp does.
    Text(fn(&JobInfo) -> &str),
    /// Slurm's start time comparator.
    Start,
}

/// One `-S` key: what it compares, which way, and whether only glibc's own
/// merge steps give Slurm's order (its comparator is not a total order).
#[derive(Debug, Clone, Copy)]
struct Step {
    by: By,
    reverse: bool,
    glibc: bool,
}

/// `-S` resolved: the stable sorts to make after the initial one by start
/// time, in the order they are made (the last key first).
#[derive(Debug, Clone)]
pub struct SortSpec {
    steps: Vec<Step>,
}

impl SortSpec {
    /// `keys` (`-S`) resolved, with the notes Slurm logs at info level
    /// (`Invalid sort specification: b`); or the error that ends squeue.
    pub fn parse(keys: &str) -> Result<(SortSpec, Vec<String>), String> {
        let mut notes = Vec::new();
        let mut steps = Vec::new();
        let chars: Vec<char> = keys.chars().collect();
        let mut i = chars.len();
        while i > 0 {
            i -= 1;
            let c = chars[i];
            if matches!(c, ',' | '+' | '-') {
                continue;
            }
            let reverse = i > 0 && chars[i - 1] == '-';
            let word: String = chars[i.saturating_sub(6)..=i].iter().collect();
            if i >= 6 && word.eq_ignore_ascii_case("cluster") {
                // One cluster: every row compares equal.
                i -= 6;
                continue;
            }
            match key(c) {
                Ok(Some(by)) => steps.push(Step {
                    by,
                    reverse,
                    glibc: c == 'S',
                }),
                Ok(None) if c == 'b' => notes.push("Invalid sort specification: b".to_string()),
                Ok(None) => {}
                Err(()) => return Err(format!("Invalid sort specification: {c}")),
            }
        }
        Ok((SortSpec { steps }, notes))
    }
}

/// A row's value for one sort step.
#[derive(Debug, Clone, Copy)]
enum Key {
    Unsigned(u64),
    Signed(i64),
    /// A range of [`SortKeys`]' text.
    Text(u32, u32),
    /// The start time as Slurm's comparator sees it: 0 for none, a
    /// pending job's past start being now.
    Start(u64),
}

/// The sort keys of rows as they come, each row's values taken once; then
/// their order. A row's keys are a few words, so a listing sorts without
/// keeping its jobs.
#[derive(Debug)]
pub struct SortKeys<'s> {
    spec: &'s SortSpec,
    now: u64,
    /// Per row: the start key, then one key per step.
    keys: Vec<Key>,
    text: String,
}

impl<'s> SortKeys<'s> {
    /// No rows yet, to be sorted by `spec` at the controller's time `now`.
    pub fn new(spec: &'s SortSpec, now: u64) -> SortKeys<'s> {
        SortKeys {
            spec,
            now,
            keys: Vec::new(),
            text: String::new(),
        }
    }

    /// Makes room for `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        self.keys
            .reserve(rows.saturating_mul(self.spec.steps.len() + 1));
    }

    /// Takes the next row's keys.
    pub fn push(&mut self, job: &JobInfo) {
        self.keys.push(start_key(job, self.now));
        for step in &self.spec.steps {
            let key = match step.by {
                By::Number(value) => value(job, self.now),
                By::Text(text) => {
                    let from = self.text.len() as u32;
                    self.text.push_str(text(job));
                    Key::Text(from, self.text.len() as u32)
                }
                By::Start => start_key(job, self.now),
            };
            self.keys.push(key);
        }
    }

    /// Takes `other`'s rows after this one's: rows pushed elsewhere (on
    /// another thread) for the same order.
    pub fn append(&mut self, other: SortKeys<'_>) {
        let shift = self.text.len() as u32;
        self.keys.extend(other.keys.into_iter().map(|k| match k {
            Key::Text(from, to) => Key::Text(from + shift, to + shift),
            k => k,
        }));
        self.text.push_str(&other.text);
    }

    /// The rows' order, as positions in the order they were pushed: after
    /// Slurm's initial sort by start time, each step as one stable sort.
    pub fn order(&self) -> Vec<usize> {
        let width = self.spec.steps.len() + 1;
        let rows = self.keys.len() / width;
        let at = |row: usize, k: usize| self.keys[row * width + k];
        let mut order: Vec<usize> = (0..rows).collect();
        msort(&mut order, &|&a, &b| by_start(at(a, 0), at(b, 0), true));
        let signed = |k: usize, a: usize, b: usize| {
            let d = self.compare(at(a, k + 1), at(b, k + 1));
            if self.spec.steps[k].reverse {
                -d
            } else {
                d
            }
        };
        let steps = &self.spec.steps;
        let mut k = 0;
        while k < steps.len() {
            if steps[k].glibc {
                msort(&mut order, &|&a, &b| signed(k, a, b));
                k += 1;
                continue;
            }
            // Stable sorts by total orders, one after another, order the
            // rows as one stable sort by all their keys, the last sorted
            // by first: one pass instead of one per key (and the
            // standard sort is fast on nearly sorted lists).
            let run = k..steps[k..]
                .iter()
                .position(|s| s.glibc)
                .map_or(steps.len(), |end| k + end);
            order.sort_by(|&a, &b| {
                run.clone()
                    .rev()
                    .map(|k| signed(k, a, b))
                    .find(|&d| d != 0)
                    .unwrap_or(0)
                    .cmp(&0)
            });
            k = run.end;
        }
        order
    }

    fn compare(&self, a: Key, b: Key) -> i32 {
        match (a, b) {
            (Key::Unsigned(a), Key::Unsigned(b)) => diff(a, b),
            (Key::Signed(a), Key::Signed(b)) => diff(a, b),
            (Key::Text(a0, a1), Key::Text(b0, b1)) => strcmp(
                &self.text[a0 as usize..a1 as usize],
                &self.text[b0 as usize..b1 as usize],
            ),
            (a @ Key::Start(_), b @ Key::Start(_)) => by_start(a, b, false),
            _ => unreachable!("one step's keys are of one kind"),
        }
    }
}

/// The fields of a job that sorting by `keys` reads.
pub fn reads(keys: &str) -> JobFields {
    use JobField as J;
    let used = [J::StartTime, J::State, J::EndTime];
    // The initial sort by start time is always made.
    let mut fields = JobFields::of(&[J::StartTime, J::State]);
    for c in keys.chars() {
        fields = fields
            | JobFields::of(match c {
                'B' => &[J::BatchHost],
                'C' => &[J::NumCpus],
                'D' => &[J::NumNodes],
                'e' => &[J::EndTime],
                'g' => &[J::GroupName],
                'G' => &[J::GroupId],
                'i' => &[J::JobId, J::ArrayJobId, J::ArrayTaskId],
                'j' => &[J::Name],
                'l' => &[J::TimeLimit],
                'L' => &[J::TimeLimit, J::StartTime, J::State, J::EndTime],
                'm' => &[J::Mem],
                'M' => &used,
                'N' => &[J::Nodes],
                'p' | 'Q' => &[J::Priority],
                'P' => &[J::Partition],
                't' | 'T' | 'S' => &[J::State],
                'u' => &[J::UserName],
                'U' => &[J::UserId],
                'V' => &[J::SubmitTime],
                _ => &[],
            });
    }
    fields
}

/// What a key compares; `Ok(None)` for keys Slurm accepts and ignores, or
/// that compare every row equal (a stable sort leaves the order as it is).
fn key(c: char) -> Result<Option<By>, ()> {
    use Key::{Signed, Unsigned};
    let by = match c {
        'b' | 'c' | 'f' | 'h' | 'n' | 'O' | 'd' | 'H' | 'I' | 'J' | 'v' | 'z' => return Ok(None),
        'B' => By::Text(host),
        'C' => By::Number(|j, _| Unsigned(j.num_cpus.into())),
        'D' => By::Number(|j, _| Unsigned(j.num_nodes.into())),
        'e' => By::Number(|j, _| Unsigned(j.end_time.unwrap_or(0))),
        'g' => By::Text(|j| &j.group_name),
        'G' => By::Number(|j, _| Unsigned(j.group_id.into())),
        'i' => By::Number(|j, _| Unsigned(by_id(j))),
        'j' => By::Text(|j| &j.name),
        'l' => By::Number(|j, _| Unsigned(limit(j))),
        'L' => By::Number(|j, now| Signed(time_left(j, now))),
        'm' => By::Number(|j, _| Unsigned(min_memory(j))),
        'M' => By::Number(|j, now| Signed(time_used(j, now))),
        'N' => By::Text(first_node),
        'p' | 'Q' => By::Number(|j, _| Unsigned(j.priority.into())),
        'P' => By::Text(|j| &j.partition),
        'S' => By::Start,
        't' => By::Text(|j| j.state.short()),
        'T' => By::Text(|j| j.state.as_str()),
        'u' => By::Text(|j| &j.user_name),
        'U' => By::Number(|j, _| Unsigned(j.user_id.into())),
        'V' => By::Number(|j, _| Unsigned(j.submit_time)),
        _ => return Err(()),
    };
    Ok(Some(by))
}

fn diff<T: Ord>(a: T, b: T) -> i32 {
    match a.cmp(&b) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn strcmp(a: &str, b: &str) -> i32 {
    diff(a.as_bytes(), b.as_bytes())
}

fn host(job: &JobInfo) -> &str {
    job.batch_host.as_deref().unwrap_or("")
}

/// Minutes as Slurm compares them: UNLIMITED is the largest.
fn limit(job: &JobInfo) -> u64 {
    job.time_limit.map_or(u64::MAX, |s| s / 60)
}

fn time_left(job: &JobInfo, now: u64) -> i64 {
    job.time_limit
        .map_or(i64::MAX, |l| l as i64 - time_used(job, now))
}

fn min_memory(job: &JobInfo) -> u64 {
    match job.mem {
        MemSpec::PerNode(m) | MemSpec::PerCpu(m) => m,
        MemSpec::PerGpu(_) | MemSpec::Default => 0,
    }
}

fn first_node(job: &JobInfo) -> &str {
    let end = job.nodes.find([',', '[']).unwrap_or(job.nodes.len());
    &job.nodes[..end]
}

/// By job id, array tasks by their array's id and then task id: the two
/// as one number.
fn by_id(j: &JobInfo) -> u64 {
    let id = match j.array_task_id {
        Some(_) => j.array_job_id.unwrap_or(j.job_id),
        None => j.job_id,
    };
    (u64::from(id) << 32) | u64::from(j.array_task_id.unwrap_or(u32::MAX))
}

/// A job's start time as Slurm's comparator sees it.
fn start_key(j: &JobInfo, now: u64) -> Key {
    Key::Start(match j.start_time.unwrap_or(0) {
        s if j.state == JobStateName::Pending && s != 0 && s < now => now,
        s => s,
    })
}

/// Slurm's start time comparator: a job that has no start time is always
/// "greater", whatever the direction; a pending job's past start is now.
fn by_start(a: Key, b: Key, reverse: bool) -> i32 {
    let (Key::Start(a), Key::Start(b)) = (a, b) else {
        unreachable!("start keys")
    };
    match (a, b) {
        (0, _) => 1,
        (_, 0) => -1,
        (a, b) if reverse => -diff(a, b),
        (a, b) => diff(a, b),
    }
}

/// glibc's `msort_with_tmp`: top-down merge sort taking from the left run
/// while `cmp(left, right) <= 0`.
pub fn msort<T: Copy>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> i32) {
    let mut tmp = Vec::with_capacity(v.len());
    msort_with_tmp(v, cmp, &mut tmp);
}

fn msort_with_tmp<T: Copy>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> i32, tmp: &mut Vec<T>) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    msort_with_tmp(&mut v[..n1], cmp, tmp);
    msort_with_tmp(&mut v[n1..], cmp, tmp);
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(&v[i], &v[j]) <= 0 {
            tmp.push(v[i]);
            i += 1;
        } else {
            tmp.push(v[j]);
            j += 1;
        }
    }
    tmp.extend_from_slice(&v[i..n1]);
    tmp.extend_from_slice(&v[j..n]);
    v.copy_from_slice(tmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order of `rows` by `keys` (`-S`), as positions in `rows`, and
    /// the notes Slurm logs; or the error that ends squeue.
    fn sort_rows(
        rows: &[JobInfo],
        keys: &str,
        now: u64,
    ) -> Result<(Vec<usize>, Vec<String>), String> {
        let (spec, notes) = SortSpec::parse(keys)?;
        let mut sorted = SortKeys::new(&spec, now);
        rows.iter().for_each(|job| sorted.push(job));
        Ok((sorted.order(), notes))
    }

    /// Jobs with ties and differences in every key, in both orders.
    fn tied_jobs() -> Vec<JobInfo> {
        let mut jobs = crate::squeue::field::tests::rich_jobs();
        let more: Vec<JobInfo> = jobs.iter().rev().cloned().collect();
        jobs.extend(more);
        for (i, j) in jobs.iter_mut().enumerate() {
            j.priority = (i % 3) as u32;
            j.num_cpus = (i % 2) as u32;
            j.num_nodes = (i % 5) as u32;
        }
        jobs
    }

    #[test]
    fn each_key_reads_only_what_it_asks_for() {
        let jobs = tied_jobs();
        for key in "BCDegGijlLmMNpQPStTuUVbcfhnOdHIJvz".chars() {
            for keys in [key.to_string(), format!("-{key}")] {
                let fields = reads(&keys);
                let kept: Vec<JobInfo> = jobs.iter().map(|j| fields.project(j)).collect();
                assert_eq!(
                    sort_rows(&kept, &keys, 1_700_000_500),
                    sort_rows(&jobs, &keys, 1_700_000_500),
                    "sorting by {keys} reads more than {fields:?}"
                );
            }
        }
    }

    #[test]
    fn keys_sorted_together_order_rows_as_sorted_one_by_one() {
        let jobs = tied_jobs();
        let now = 1_700_000_500;
        for keys in ["P,t,-p", "-C,D,p,u", "t,S,-C,D", "i", "-D,-C,S,P,p"] {
            let (spec, _) = SortSpec::parse(keys).expect("valid");
            let mut sorted = SortKeys::new(&spec, now);
            jobs.iter().for_each(|job| sorted.push(job));
            // Each key as a stable sort of its own, the last key first.
            let width = spec.steps.len() + 1;
            let at = |row: usize, k: usize| sorted.keys[row * width + k];
            let mut one_by_one: Vec<usize> = (0..jobs.len()).collect();
            msort(&mut one_by_one, &|&a, &b| {
                by_start(at(a, 0), at(b, 0), true)
            });
            for (k, step) in spec.steps.iter().enumerate() {
                let signed = |a: &usize, b: &usize| {
                    let d = sorted.compare(at(*a, k + 1), at(*b, k + 1));
                    if step.reverse {
                        -d
                    } else {
                        d
                    }
                };
                msort(&mut one_by_one, &signed);
            }
            assert_eq!(sorted.order(), one_by_one, "-S {keys}");
        }
    }

    #[test]
    fn msort_is_stable() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
        msort(&mut v, &|a, b| diff(a.0, b.0));
        assert_eq!(v, vec![(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    }

    #[test]
    fn msort_with_an_always_greater_comparator_reverses() {
        let mut v = vec![1, 2, 3, 4, 5];
        msort(&mut v, &|_, _| 1);
        assert_eq!(v, vec![5, 4, 3, 2, 1]);
    }
}
