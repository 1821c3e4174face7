//! squeue's row order: `-S` keys (default `P,t,-p`: partition, state,
//! priority descending) applied from the last to the first, each as one
//! stable sort, after Slurm's initial sort by start time. Slurm's start
//! time comparator is not a total order, and the order glibc's merge sort
//! leaves by it is part of the output: the initial sort finds that order
//! directly, an `S` key sorts with glibc's merge sort step for step.

use std::cmp::Ordering;

use spur_proto::{JobField, JobFields, JobInfo, JobStateName, MemSpec};

use super::field::time_used;

/// Slurm's default `-S`.
pub const DEFAULT_SORT: &str = "P,t,-p";

/// What one sort step compares.
#[derive(Debug, Clone, Copy)]
enum By {
    /// A number of the job.
    Unsigned(fn(&JobInfo, u64) -> u64),
    /// A number of the job that may be negative.
    Signed(fn(&JobInfo, u64) -> i64),
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

/// A row's value for one sort step, one word read as its step's kind
/// says: a number (a negative one as its bits), a range of [`SortKeys`]'
/// text (where it starts in the high half, where it ends in the low), or
/// the start time as Slurm's comparator sees it (0 for none, a pending
/// job's past start being now). A listing's keys are read again and again
/// as it sorts: at a word each, twice as many fit in the cache as tagged
/// values would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key(u64);

impl Key {
    /// The key of the text from `from` to `to` in [`SortKeys`]' text.
    fn text(from: u32, to: u32) -> Key {
        Key((u64::from(from) << 32) | u64::from(to))
    }

    /// Where a text key's text is.
    fn range(self) -> std::ops::Range<usize> {
        (self.0 >> 32) as usize..(self.0 & u64::from(u32::MAX)) as usize
    }
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
                By::Unsigned(value) => Key(value(job, self.now)),
                By::Signed(value) => Key(value(job, self.now) as u64),
                By::Text(text) => self.text_key(text(job)),
                By::Start => start_key(job, self.now),
            };
            self.keys.push(key);
        }
    }

    /// The key of `text` for the row being pushed: where the row before
    /// has the same text (rows of a listing mostly share their partition
    /// and state), the same range of [`SortKeys::text`], else a new one.
    /// Rows with the same range compare equal without reading it.
    fn text_key(&mut self, text: &str) -> Key {
        let width = self.spec.steps.len() + 1;
        let above = self.keys.len().checked_sub(width).map(|i| self.keys[i]);
        if let Some(key) = above {
            if self.text.get(key.range()) == Some(text) {
                return key;
            }
        }
        let from = self.text.len() as u32;
        self.text.push_str(text);
        Key::text(from, self.text.len() as u32)
    }

    /// Takes `other`'s rows after this one's: rows pushed elsewhere (on
    /// another thread) for the same order.
    pub fn append(&mut self, other: SortKeys<'_>) {
        // Both ends of a range move by the text before it.
        let shift = self.text.len() as u64;
        let shift = (shift << 32) | shift;
        let width = self.spec.steps.len() + 1;
        let texts: Vec<bool> = std::iter::once(false)
            .chain(self.spec.steps.iter().map(|s| matches!(s.by, By::Text(_))))
            .collect();
        self.keys
            .extend(other.keys.iter().enumerate().map(|(i, &k)| {
                if texts[i % width] {
                    Key(k.0 + shift)
                } else {
                    k
                }
            }));
        self.text.push_str(&other.text);
    }

    /// The rows' order, as positions in the order they were pushed: after
    /// Slurm's initial sort by start time, each step as one stable sort.
    pub fn order(&self) -> Vec<usize> {
        let width = self.spec.steps.len() + 1;
        let rows = self.keys.len() / width;
        let at = |row: usize, k: usize| self.keys[row * width + k];
        let mut order = by_start_descending((0..rows).map(|row| at(row, 0).0));
        let signed = |k: usize, a: usize, b: usize| {
            let d = self.compare(self.spec.steps[k].by, at(a, k + 1), at(b, k + 1));
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
                msort(&mut order, |&a, &b| signed(k, a, b));
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

    /// Two rows' keys of a step that compares `by`.
    fn compare(&self, by: By, a: Key, b: Key) -> i32 {
        match by {
            By::Unsigned(_) => diff(a.0, b.0),
            By::Signed(_) => diff(a.0 as i64, b.0 as i64),
            // The same range: the same text, unread.
            By::Text(_) if a == b => 0,
            By::Text(_) => strcmp(&self.text[a.range()], &self.text[b.range()]),
            By::Start => by_start(a, b, false),
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
    use By::{Signed, Unsigned};
    let by = match c {
        'b' | 'c' | 'f' | 'h' | 'n' | 'O' | 'd' | 'H' | 'I' | 'J' | 'v' | 'z' => return Ok(None),
        'B' => By::Text(host),
        'C' => Unsigned(|j, _| j.num_cpus.into()),
        'D' => Unsigned(|j, _| j.num_nodes.into()),
        'e' => Unsigned(|j, _| j.end_time.unwrap_or(0)),
        'g' => By::Text(|j| &j.group_name),
        'G' => Unsigned(|j, _| j.group_id.into()),
        'i' => Unsigned(|j, _| by_id(j)),
        'j' => By::Text(|j| &j.name),
        'l' => Unsigned(|j, _| limit(j)),
        'L' => Signed(time_left),
        'm' => Unsigned(|j, _| min_memory(j)),
        'M' => Signed(time_used),
        'N' => By::Text(first_node),
        'p' | 'Q' => Unsigned(|j, _| j.priority.into()),
        'P' => By::Text(|j| &j.partition),
        'S' => By::Start,
        't' => By::Text(|j| j.state.short()),
        'T' => By::Text(|j| j.state.as_str()),
        'u' => By::Text(|j| &j.user_name),
        'U' => Unsigned(|j, _| j.user_id.into()),
        'V' => Unsigned(|j, _| j.submit_time),
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
    Key(match j.start_time.unwrap_or(0) {
        s if j.state == JobStateName::Pending && s != 0 && s < now => now,
        s => s,
    })
}

/// Slurm's start time comparator: a job that has no start time is always
/// "greater", whatever the direction; a pending job's past start is now.
fn by_start(a: Key, b: Key, reverse: bool) -> i32 {
    by_start_time(a.0, b.0, reverse)
}

/// [`by_start`] of two start times.
fn by_start_time(a: u64, b: u64, reverse: bool) -> i32 {
    match (a, b) {
        (0, _) => 1,
        (_, 0) => -1,
        (a, b) if reverse => -diff(a, b),
        (a, b) => diff(a, b),
    }
}

/// Rows, by their start keys in the order they came, in the order glibc's
/// merge sort leaves them by Slurm's start time comparator, descending:
/// those with a start by start, latest first, ties as they came; then
/// those without one, which compare greater than every row, each other
/// included, and so end up in the reverse of the order they came in (a
/// merge takes the right run's first while the left's compares greater).
fn by_start_descending(starts: impl Iterator<Item = u64>) -> Vec<usize> {
    let mut started = Vec::new();
    let mut order = Vec::with_capacity(starts.size_hint().0);
    for (row, start) in starts.enumerate() {
        if start == 0 {
            order.push(row);
        } else {
            started.push((start, row));
        }
    }
    order.reverse();
    if !started.is_empty() {
        started.sort_by_key(|&(start, _)| std::cmp::Reverse(start));
        order.splice(0..0, started.into_iter().map(|(_, row)| row));
    }
    order
}

/// glibc's `msort_with_tmp`: top-down merge sort taking from the left run
/// while `cmp(left, right) <= 0`. Its result depends on nothing but the
/// answers of `cmp`, which need not be a total order.
pub fn msort<T: Copy, F: Fn(&T, &T) -> i32>(v: &mut [T], cmp: F) {
    if v.len() > 1 {
        let mut tmp = v.to_vec();
        msort_with_tmp(v, &cmp, &mut tmp);
    }
}

fn msort_with_tmp<T: Copy, F: Fn(&T, &T) -> i32>(v: &mut [T], cmp: &F, tmp: &mut [T]) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    msort_with_tmp(&mut v[..n1], cmp, tmp);
    msort_with_tmp(&mut v[n1..], cmp, tmp);
    let (mut i, mut j, mut k) = (0, n1, 0);
    while i < n1 && j < n {
        if cmp(&v[i], &v[j]) <= 0 {
            tmp[k] = v[i];
            i += 1;
        } else {
            tmp[k] = v[j];
            j += 1;
        }
        k += 1;
    }
    // What is left of the left run goes after the merged rows; what is
    // left of the right run is in its place already.
    let merged = k + (n1 - i);
    tmp[k..merged].copy_from_slice(&v[i..n1]);
    v[..merged].copy_from_slice(&tmp[..merged]);
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
    fn keys_taken_in_parts_order_rows_as_keys_taken_at_once() {
        let jobs = tied_jobs();
        let now = 1_700_000_500;
        for keys in ["P,t,-p", "j,-u,N", "-B,T,i", "-L,M,S,g"] {
            let (spec, _) = SortSpec::parse(keys).expect("valid");
            let mut whole = SortKeys::new(&spec, now);
            jobs.iter().for_each(|job| whole.push(job));
            for cut in [1, jobs.len() / 3, jobs.len() - 1] {
                let (left, right) = jobs.split_at(cut);
                let mut first = SortKeys::new(&spec, now);
                left.iter().for_each(|job| first.push(job));
                let mut second = SortKeys::new(&spec, now);
                right.iter().for_each(|job| second.push(job));
                first.append(second);
                assert_eq!(first.order(), whole.order(), "-S {keys}, cut at {cut}");
                // Each text key names the same text as taken at once.
                let width = spec.steps.len() + 1;
                for (i, step) in spec.steps.iter().enumerate() {
                    if matches!(step.by, By::Text(_)) {
                        for row in 0..jobs.len() {
                            let at = |k: &SortKeys<'_>| {
                                k.text[k.keys[row * width + i + 1].range()].to_string()
                            };
                            assert_eq!(at(&first), at(&whole), "-S {keys}, row {row}");
                        }
                    }
                }
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
            msort_as_glibc(&mut one_by_one, &|&a, &b| {
                by_start(at(a, 0), at(b, 0), true)
            });
            for (k, step) in spec.steps.iter().enumerate() {
                let signed = |a: &usize, b: &usize| {
                    let d = sorted.compare(step.by, at(*a, k + 1), at(*b, k + 1));
                    if step.reverse {
                        -d
                    } else {
                        d
                    }
                };
                msort_as_glibc(&mut one_by_one, &signed);
            }
            assert_eq!(sorted.order(), one_by_one, "-S {keys}");
        }
    }

    /// glibc's `msort_with_tmp` as glibc writes it, a row at a time.
    fn msort_as_glibc<T: Copy>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> i32) {
        let n = v.len();
        if n <= 1 {
            return;
        }
        let n1 = n / 2;
        msort_as_glibc(&mut v[..n1], cmp);
        msort_as_glibc(&mut v[n1..], cmp);
        let mut tmp = Vec::with_capacity(n);
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
        v.copy_from_slice(&tmp);
    }

    #[test]
    fn msort_orders_as_glibc_also_by_the_start_times_partial_order() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in (0..70).chain([257, 1000, 4099]) {
            // Start times with many ties and many "none" (0), which
            // compares greater than everything, itself included.
            let rows: Vec<(u64, usize)> = (0..len).map(|row| (next() % 4, row)).collect();
            for reverse in [true, false] {
                let cmp = |a: &(u64, usize), b: &(u64, usize)| by_start_time(a.0, b.0, reverse);
                let mut fast = rows.clone();
                msort(&mut fast, cmp);
                let mut glibc = rows.clone();
                msort_as_glibc(&mut glibc, &cmp);
                assert_eq!(fast, glibc, "{len} rows, reverse {reverse}");
                if reverse {
                    let glibc_rows: Vec<usize> = glibc.iter().map(|&(_, row)| row).collect();
                    let starts = rows.iter().map(|&(start, _)| start);
                    assert_eq!(by_start_descending(starts), glibc_rows, "{len} rows");
                }
            }
        }
    }

    #[test]
    fn msort_is_stable() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
        msort(&mut v, |a, b| diff(a.0, b.0));
        assert_eq!(v, vec![(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    }

    #[test]
    fn msort_with_an_always_greater_comparator_reverses() {
        let mut v = vec![1, 2, 3, 4, 5];
        msort(&mut v, |_, _| 1);
        assert_eq!(v, vec![5, 4, 3, 2, 1]);
    }
}
