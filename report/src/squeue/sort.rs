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

/// A comparator in C's style: negative, zero or positive.
type Cmp = fn(&JobInfo, &JobInfo, u64) -> i32;

/// The order of `rows` by `keys` (`-S`), as positions in `rows`: rows are
/// large, so they stay where they are. Also the notes Slurm logs at info
/// level (`Invalid sort specification: b`), or the error that ends squeue.
pub fn sort_rows(
    rows: &[JobInfo],
    keys: &str,
    now: u64,
) -> Result<(Vec<usize>, Vec<String>), String> {
    let mut notes = Vec::new();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let jobs = rows;
    msort(&mut order, &|&a, &b| {
        by_start(&jobs[a], &jobs[b], now, true)
    });
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
            Ok(Some(cmp)) => {
                let signed = |a: &usize, b: &usize| {
                    let d = cmp(&jobs[*a], &jobs[*b], now);
                    if reverse {
                        -d
                    } else {
                        d
                    }
                };
                if c == 'S' {
                    // Not a total order: only glibc's own merge steps give
                    // Slurm's row order.
                    msort(&mut order, &signed);
                } else {
                    // A total order: any stable sort gives the same rows,
                    // and the standard one is fast on nearly sorted lists.
                    order.sort_by(|a, b| signed(a, b).cmp(&0));
                }
            }
            Ok(None) if c == 'b' => notes.push("Invalid sort specification: b".to_string()),
            Ok(None) => {}
            Err(()) => return Err(format!("Invalid sort specification: {c}")),
        }
    }
    Ok((order, notes))
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

/// The comparator of a key; `Ok(None)` for keys Slurm accepts and ignores.
fn key(c: char) -> Result<Option<Cmp>, ()> {
    let cmp: Cmp = match c {
        'b' | 'c' | 'f' | 'h' | 'n' | 'O' => return Ok(None),
        'd' | 'H' | 'I' | 'J' | 'v' | 'z' => |_, _, _| 0,
        'B' => |a, b, _| strcmp(host(a), host(b)),
        'C' => |a, b, _| diff(a.num_cpus, b.num_cpus),
        'D' => |a, b, _| diff(a.num_nodes, b.num_nodes),
        'e' => |a, b, _| diff(a.end_time.unwrap_or(0), b.end_time.unwrap_or(0)),
        'g' => |a, b, _| strcmp(&a.group_name, &b.group_name),
        'G' => |a, b, _| diff(a.group_id, b.group_id),
        'i' => by_id,
        'j' => |a, b, _| strcmp(&a.name, &b.name),
        'l' => |a, b, _| diff(limit(a), limit(b)),
        'L' => |a, b, now| diff(time_left(a, now), time_left(b, now)),
        'm' => |a, b, _| diff(min_memory(a), min_memory(b)),
        'M' => |a, b, now| diff(time_used(a, now), time_used(b, now)),
        'N' => |a, b, _| strcmp(first_node(a), first_node(b)),
        'p' | 'Q' => |a, b, _| diff(a.priority, b.priority),
        'P' => |a, b, _| strcmp(&a.partition, &b.partition),
        'S' => |a, b, now| by_start(a, b, now, false),
        't' => |a, b, _| strcmp(a.state.short(), b.state.short()),
        'T' => |a, b, _| strcmp(a.state.as_str(), b.state.as_str()),
        'u' => |a, b, _| strcmp(&a.user_name, &b.user_name),
        'U' => |a, b, _| diff(a.user_id, b.user_id),
        'V' => |a, b, _| diff(a.submit_time, b.submit_time),
        _ => return Err(()),
    };
    Ok(Some(cmp))
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

/// By job id, array tasks by their array's id and then task id.
fn by_id(a: &JobInfo, b: &JobInfo, _now: u64) -> i32 {
    let id = |j: &JobInfo| match j.array_task_id {
        Some(_) => j.array_job_id.unwrap_or(j.job_id),
        None => j.job_id,
    };
    let (ia, ib) = (id(a), id(b));
    if ia == ib {
        let task = |j: &JobInfo| j.array_task_id.unwrap_or(u32::MAX);
        return diff(task(a), task(b));
    }
    diff(ia, ib)
}

/// Slurm's start time comparator: a job that has no start time is always
/// "greater", whatever the direction; a pending job's past start is now.
fn by_start(a: &JobInfo, b: &JobInfo, now: u64, reverse: bool) -> i32 {
    let (sa, sb) = (a.start_time.unwrap_or(0), b.start_time.unwrap_or(0));
    if sa == 0 {
        return 1;
    }
    if sb == 0 {
        return -1;
    }
    let start = |j: &JobInfo, s: u64| {
        if j.state == JobStateName::Pending && s < now {
            now
        } else {
            s
        }
    };
    let d = diff(start(a, sa), start(b, sb));
    if reverse {
        -d
    } else {
        d
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

    #[test]
    fn each_key_reads_only_what_it_asks_for() {
        let mut jobs = crate::squeue::field::tests::rich_jobs();
        // Ties and differences in every key, in both orders.
        let more: Vec<JobInfo> = jobs.iter().rev().cloned().collect();
        jobs.extend(more);
        for (i, j) in jobs.iter_mut().enumerate() {
            j.priority = (i % 3) as u32;
            j.num_cpus = (i % 2) as u32;
        }
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
