//! Which active jobs a cancel or signal request names, as Slurm's scancel
//! and `slurm_kill_jobs` find them: job id arguments matched to the jobs
//! (a job, an array, its tasks wherever they are), filters applied to the
//! active ones (`_filter_job_records`), pending jobs first, and the one
//! `Signal` request that acts on them. scancel and the REST server's bulk
//! cancel both choose here. Pure: no I/O.

use spur_proto::{ArrayTasks, ErrorCode, JobInfo, JobStateName, ProtoError, SignalTarget};

use crate::api::PerTarget;

use spur_slurm::job_ref::task_ids_lenient as task_ids;

pub use spur_slurm::job_ref::{ArraySel, StepRef as JobRef};

/// A job spur can address, and the name Slurm gives it in messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The job id sent to the controller; with `tasks`, the array's id.
    pub job_id: u32,
    /// Tasks of array `job_id` (`1-3,7`), wherever they are: pending in
    /// the array's record or jobs of their own. None: job `job_id` (all of
    /// the array when it is an array's id).
    pub tasks: Option<String>,
    /// `5`, `8_1`, `8_[2-9]`.
    pub label: String,
}

impl Target {
    /// Job `job_id` (a whole array when it names one).
    pub fn job(job_id: u32, label: impl Into<String>) -> Target {
        Target {
            job_id,
            tasks: None,
            label: label.into(),
        }
    }

    /// Tasks `tasks` of array `array`.
    pub fn tasks(array: u32, tasks: impl Into<String>, label: impl Into<String>) -> Target {
        Target {
            job_id: array,
            tasks: Some(tasks.into()),
            label: label.into(),
        }
    }
}

/// A job id argument that names nothing spur can signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// No such job (active).
    NotFound(String),
    /// A step: spur cannot address it yet.
    NotSupported(String),
}

/// The filters of a request (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// `-A`, lower-cased.
    pub account: Option<String>,
    /// `-n`.
    pub name: Option<String>,
    /// `-p`.
    pub partition: Option<String>,
    /// `-q`, lower-cased.
    pub qos: Option<String>,
    /// `-R` (spur has no reservations: matches nothing).
    pub reservation: Option<String>,
    /// `-t`: Some(None) for a Slurm state spur never reports.
    pub state: Option<Option<JobStateName>>,
    /// `-u` / `--me`: the name as given and its uid.
    pub user: Option<(String, u32)>,
    /// `-w`, expanded.
    pub nodes: Option<Vec<String>>,
    /// `-w` as given.
    pub nodelist: Option<String>,
    /// `--wckey` (spur keeps none: matches nothing).
    pub wckey: Option<String>,
}

impl Filters {
    /// Whether any filter is given.
    pub fn any(&self) -> bool {
        *self != Filters::default()
    }

    /// Slurm's `_filter_job_records` for one active job.
    pub fn keeps(&self, job: &JobInfo) -> bool {
        let eq = |want: &Option<String>, have: Option<&str>| {
            want.as_ref().is_none_or(|w| have == Some(w.as_str()))
        };
        let nodes_ok = self.nodes.as_ref().is_none_or(|want| {
            spur_conf::hostlist::expand(&job.nodes)
                .is_ok_and(|have| have.iter().any(|n| want.contains(n)))
        });
        matches!(job.state, JobStateName::Pending | JobStateName::Running)
            && eq(&self.account, job.account.as_deref())
            && eq(&self.name, Some(&job.name))
            && eq(&self.partition, Some(&job.partition))
            && eq(&self.qos, Some(&job.qos))
            && self.reservation.is_none()
            && self.state.is_none_or(|s| s == Some(job.state))
            && self
                .user
                .as_ref()
                .is_none_or(|(_, uid)| *uid == job.user_id)
            && nodes_ok
            && self.wckey.is_none()
    }
}

/// Whether the job has ended as scancel sees it (completing counts).
pub fn is_done(job: &JobInfo) -> bool {
    job.state.is_finished() || job.state == JobStateName::Completing
}

/// The array job id of an array task or a pending array's record.
fn array_of(job: &JobInfo) -> Option<u32> {
    job.array_job_id
        .or_else(|| job.array_task_str.as_ref().map(|_| job.job_id))
}

/// Whether `r` names `job` (Slurm's `_verify_job_ids` test).
pub fn names(r: &JobRef, job: &JobInfo) -> bool {
    match r.array {
        ArraySel::None => r.job == job.job_id || (r.step.is_none() && Some(r.job) == array_of(job)),
        ArraySel::All => Some(r.job) == array_of(job),
        ArraySel::Task(t) => {
            Some(r.job) == array_of(job)
                && (job.array_task_id == Some(t)
                    || job
                        .array_task_str
                        .as_deref()
                        .is_some_and(|s| task_ids(s).contains(&t)))
        }
    }
}

/// Slurm's name for a job in scancel's messages.
pub fn label(job: &JobInfo) -> String {
    job.id_text()
}

/// How a record is addressed: the tasks of an array's record or task (so
/// that `8_0` never names the whole array 8), or the job.
fn record_target(job: &JobInfo) -> Target {
    let label = label(job);
    match (array_of(job), &job.array_task_str, job.array_task_id) {
        (Some(array), Some(pending), _) => {
            let tasks = pending.split('%').next().unwrap_or_default();
            Target::tasks(array, tasks, label)
        }
        (Some(array), None, Some(task)) => Target::tasks(array, task.to_string(), label),
        _ => Target::job(job.job_id, label),
    }
}

/// Slurm's fast path: each argument goes to the controller as written, a
/// task (`8_3`) as a task of its array, wherever it is.
pub fn resolve_direct(refs: &[JobRef]) -> Vec<Target> {
    refs.iter()
        .map(|r| match r.array {
            ArraySel::Task(t) => Target::tasks(r.job, t.to_string(), r.text.clone()),
            _ => Target::job(r.job, r.text.clone()),
        })
        .collect()
}

/// What the filtered path selects: the targets in Slurm's order (pending
/// jobs first) and the arguments that named nothing.
pub fn select(refs: &[JobRef], filters: &Filters, jobs: &[JobInfo]) -> (Vec<Target>, Vec<Miss>) {
    let active: Vec<&JobInfo> = jobs.iter().filter(|j| !is_done(j)).collect();
    let mut misses: Vec<Miss> = refs
        .iter()
        .filter(|r| !active.iter().any(|j| names(r, j)))
        .map(|r| Miss::NotFound(r.text.clone()))
        .collect();
    let kept: Vec<&JobInfo> = active
        .into_iter()
        .filter(|j| !filters.any() || filters.keeps(j))
        .collect();
    let pending = |j: &JobInfo| j.state == JobStateName::Pending;
    let mut order: Vec<(Option<&JobRef>, usize)> = Vec::new();
    if refs.is_empty() {
        let (first, rest): (Vec<usize>, Vec<usize>) =
            (0..kept.len()).partition(|&i| pending(kept[i]));
        order.extend(first.into_iter().chain(rest).map(|i| (None, i)));
    } else {
        let has_pending = |r: &JobRef| kept.iter().any(|j| names(r, j) && pending(j));
        let (first, rest): (Vec<&JobRef>, Vec<&JobRef>) = refs.iter().partition(|r| has_pending(r));
        for r in first.into_iter().chain(rest) {
            let named = (0..kept.len()).filter(|&i| names(r, kept[i]));
            order.extend(named.map(|i| (Some(r), i)));
        }
    }
    let mut taken = vec![false; kept.len()];
    let mut targets = Vec::new();
    for (r, i) in order {
        if taken[i] {
            continue;
        }
        match r {
            Some(r) if r.step.is_some() => misses.push(Miss::NotSupported(r.text.clone())),
            // One task still pending in an array's record: that task only.
            Some(JobRef {
                job,
                array: ArraySel::Task(t),
                text,
                ..
            }) if kept[i].array_task_str.is_some() => {
                targets.push(Target::tasks(*job, t.to_string(), text.clone()));
            }
            _ => {
                taken[i] = true;
                targets.push(record_target(kept[i]));
            }
        }
    }
    (targets, misses)
}

/// The one `Signal` request for `targets`: jobs, then array tasks, which
/// the controller answers in that order ([`answer_slots`]). `signal` None
/// cancels.
pub fn request(
    targets: &[Target],
    signal: Option<i32>,
    batch_only: bool,
    full: bool,
) -> SignalTarget {
    let (tasks, jobs): (Vec<&Target>, Vec<&Target>) =
        targets.iter().partition(|t| t.tasks.is_some());
    SignalTarget {
        jobs: jobs.iter().map(|t| t.job_id).collect(),
        array_tasks: tasks
            .iter()
            .map(|t| ArrayTasks {
                array_job_id: t.job_id,
                tasks: t.tasks.clone().unwrap_or_default(),
            })
            .collect(),
        signal,
        batch_only,
        full,
    }
}

/// Where the controller's answer for each target is: jobs are answered
/// first, then array tasks, each in the order sent.
pub fn answer_slots(targets: &[Target]) -> Vec<usize> {
    let jobs = targets.iter().filter(|t| t.tasks.is_none()).count();
    let (mut next_job, mut next_task) = (0, jobs);
    targets
        .iter()
        .map(|t| {
            let slot = if t.tasks.is_some() {
                &mut next_task
            } else {
                &mut next_job
            };
            *slot += 1;
            *slot - 1
        })
        .collect()
}

/// What the controller answered a [`request`] for each target, in the
/// targets' order: a job it did not answer for is unknown to it, and an
/// answer by array tasks (which a signal never gets) is malformed.
pub fn outcomes(targets: &[Target], answer: &PerTarget) -> Vec<Result<(), ProtoError>> {
    let slots = answer_slots(targets);
    targets
        .iter()
        .zip(slots)
        .map(|(t, slot)| match answer {
            PerTarget::Done => Ok(()),
            PerTarget::Jobs(results) => {
                let by_slot = results.get(slot).filter(|(id, _)| *id == t.job_id);
                match by_slot.or_else(|| results.iter().find(|(id, _)| *id == t.job_id)) {
                    Some((_, r)) => r.clone(),
                    None => Err(ProtoError::new(ErrorCode::InvalidJobId)),
                }
            }
            PerTarget::Tasks(_) => Err(ProtoError::new(ErrorCode::Malformed)),
        })
        .collect()
}
