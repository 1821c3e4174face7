//! Which jobs squeue shows: the selection options (-j, -u, -t, -p, -n, -A,
//! -q, -L, -R, -w, --me, --notme) parsed as Slurm parses them, and applied
//! client-side as Slurm's `_filter_job` applies them, including the
//! narrowing of a pending array to the tasks `-j N_i` names.

use spur_proto::{JobField, JobFields, JobInfo, JobStateName};

use spur_slurm::job_ref::task_ids_lenient as task_ids;

/// Slurm's job states spur never reports: accepted by `-t`, match nothing.
const OTHER_STATES: &[(&str, &str)] = &[
    ("SUSPENDED", "S"),
    ("BOOT_FAIL", "BF"),
    ("DEADLINE", "DL"),
    ("OUT_OF_MEMORY", "OOM"),
    ("CONFIGURING", "CF"),
    ("RESIZING", "RS"),
    ("RESV_DEL_HOLD", "RD"),
    ("REQUEUED", "RQ"),
    ("REQUEUE_FED", "RF"),
    ("REQUEUE_HOLD", "RH"),
    ("REVOKED", "RV"),
    ("SIGNALING", "SI"),
    ("SPECIAL_EXIT", "SE"),
    ("STAGE_OUT", "SO"),
    ("STOPPED", "ST"),
];

/// The states Slurm lists after `Valid job states include:`.
const VALID_STATES: &str = "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,\
NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,\
RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,\
STOPPED";

pub use spur_slurm::step_ref::JobSel;

/// A `-t` state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateSel {
    /// A state spur reports.
    Job(JobStateName),
    /// A Slurm state spur never reports.
    Other(&'static str),
}

/// `-t`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum States {
    /// Pending, running and completing (squeue's default).
    #[default]
    Active,
    /// `-t all`.
    All,
    /// The states listed.
    List(Vec<StateSel>),
}

/// Everything that selects rows. `None` lists select everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// `-j`.
    pub jobs: Option<Vec<JobSel>>,
    /// `-u` / `--me` (uids).
    pub users: Option<Vec<u32>>,
    /// `--notme`.
    pub not_user: Option<u32>,
    /// `-A` (any case).
    pub accounts: Option<Vec<String>>,
    /// `-n` (any case).
    pub names: Option<Vec<String>>,
    /// `-p`.
    pub partitions: Option<Vec<String>>,
    /// `-q` (any case).
    pub qos: Option<Vec<String>>,
    /// `-L` (spur has no licenses: matches nothing).
    pub licenses: Option<Vec<String>>,
    /// `-R` (spur has no reservations: matches nothing).
    pub reservation: Option<String>,
    /// `-t`.
    pub states: States,
    /// `-w`, expanded.
    pub nodes: Option<Vec<String>>,
    /// `-P`: one row per partition a job asked for.
    pub per_partition: bool,
}

impl Query {
    /// The fields of a job the selection reads.
    pub fn reads(&self) -> JobFields {
        use JobField as J;
        let mut fields = JobFields::from(J::State);
        let mut add = |on: bool, more: &[JobField]| {
            if on {
                fields = fields | JobFields::of(more);
            }
        };
        let ids = [J::JobId, J::ArrayJobId, J::ArrayTaskId, J::ArrayTaskStr];
        add(self.jobs.is_some(), &ids);
        add(
            self.users.is_some() || self.not_user.is_some(),
            &[J::UserId],
        );
        add(self.accounts.is_some(), &[J::Account]);
        add(self.names.is_some(), &[J::Name]);
        add(
            self.partitions.is_some() || self.per_partition,
            &[J::Partition],
        );
        add(self.qos.is_some(), &[J::Qos]);
        add(self.nodes.is_some(), &[J::Nodes]);
        fields
    }
}

/// A comma separated list, empty items dropped (strtok).
pub fn str_list(text: &str) -> Vec<String> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

pub use spur_slurm::step_ref::squeue_jobs as parse_jobs;

/// `-t PD,R` or `-t all`; on an unknown state, the two error lines Slurm
/// prints.
pub fn parse_states(text: &str) -> Result<States, Vec<String>> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(States::All);
    }
    let mut list = Vec::new();
    for name in str_list(text) {
        if let Some(state) = JobStateName::parse(&name) {
            list.push(StateSel::Job(state));
        } else if let Some((full, _)) = OTHER_STATES.iter().find(|(full, short)| {
            full.eq_ignore_ascii_case(&name) || short.eq_ignore_ascii_case(&name)
        }) {
            list.push(StateSel::Other(full));
        } else {
            return Err(vec![
                format!("Invalid job state specified: {name}"),
                format!("Valid job states include: {VALID_STATES}\n"),
            ]);
        }
    }
    Ok(States::List(list))
}

/// `-u anchor,1234`: the uids, and an `Invalid user: X` line (with Slurm's
/// extra newline) for each name that is no user.
pub fn parse_users(text: &str) -> (Vec<u32>, Vec<String>) {
    let mut uids = Vec::new();
    let mut errors = Vec::new();
    for name in str_list(text) {
        match spur_sys::users::uid_of(&name) {
            Some(uid) => uids.push(uid),
            None => errors.push(format!("Invalid user: {name}\n")),
        }
    }
    (uids, errors)
}

/// Hands `emit` the rows `query` makes of `job`: none, the job, the job
/// narrowed to the pending array's tasks `-j N_i` names, or with `-P` one
/// per partition asked for.
pub fn select(job: &JobInfo, query: &Query, emit: &mut impl FnMut(&JobInfo)) {
    let narrowed;
    let job = match &query.jobs {
        None => job,
        Some(sels) => match job_selected(job, sels) {
            Selected::No => return,
            Selected::Whole => job,
            Selected::Tasks(tasks) => {
                narrowed = tasks;
                &narrowed
            }
        },
    };
    if !keeps(job, query) {
        return;
    }
    if query.per_partition {
        for part in str_list(&job.partition) {
            if partition_ok(&part, query) {
                let mut one = job.clone();
                one.partition = part;
                emit(&one);
            }
        }
    } else if partition_ok(&job.partition, query) {
        emit(job);
    }
}

/// Slurm's `_filter_job`, less the job and partition tests.
fn keeps(job: &JobInfo, q: &Query) -> bool {
    let any_ci = |list: &Option<Vec<String>>, value: Option<&str>| match list {
        None => true,
        Some(list) => value.is_some_and(|v| list.iter().any(|x| x.eq_ignore_ascii_case(v))),
    };
    let nodes_ok = match &q.nodes {
        None => true,
        Some(wanted) => spur_conf::hostlist::expand(&job.nodes)
            .is_ok_and(|have| have.iter().any(|n| wanted.contains(n))),
    };
    q.licenses.is_none()
        && any_ci(&q.accounts, job.account.as_deref())
        && any_ci(&q.qos, Some(&job.qos))
        && state_ok(job.state, &q.states)
        && nodes_ok
        && q.users.as_ref().is_none_or(|u| u.contains(&job.user_id))
        && q.not_user != Some(job.user_id)
        && q.reservation.is_none()
        && any_ci(&q.names, Some(&job.name))
}

fn state_ok(state: JobStateName, states: &States) -> bool {
    match states {
        States::All => true,
        States::Active => matches!(
            state,
            JobStateName::Pending
                | JobStateName::SpecialExit
                | JobStateName::Running
                | JobStateName::Completing
        ),
        States::List(list) => list.contains(&StateSel::Job(state)),
    }
}

/// Any of `partition`'s comma separated names is one `-p` asked for.
fn partition_ok(partition: &str, q: &Query) -> bool {
    match &q.partitions {
        None => true,
        Some(wanted) => partition.split(',').any(|p| wanted.iter().any(|w| w == p)),
    }
}

/// The array job id of an array task or of a pending array's record.
fn array_job(job: &JobInfo) -> Option<u32> {
    job.array_job_id
        .or_else(|| job.array_task_str.as_ref().map(|_| job.job_id))
}

/// How `-j` selects a job.
enum Selected {
    No,
    Whole,
    /// A pending array named only by some of its tasks: narrowed to them.
    Tasks(Box<JobInfo>),
}

/// Whether `-j` selects `job`.
fn job_selected(job: &JobInfo, sels: &[JobSel]) -> Selected {
    let array = array_job(job);
    for sel in sels {
        match sel.task {
            None if sel.job == job.job_id || Some(sel.job) == array => return Selected::Whole,
            Some(t) if Some(sel.job) == array && Some(t) == job.array_task_id => {
                return Selected::Whole
            }
            Some(t) if Some(sel.job) == array => {
                let tasks = job.array_task_str.as_deref().map(task_ids);
                if tasks.is_some_and(|ids| ids.contains(&t)) {
                    let mut narrowed = Box::new(job.clone());
                    narrow(&mut narrowed, sels);
                    return Selected::Tasks(narrowed);
                }
            }
            _ => {}
        }
    }
    Selected::No
}

/// Keeps only the tasks of a pending array record that `sels` name.
fn narrow(job: &mut JobInfo, sels: &[JobSel]) {
    let array = array_job(job);
    let have = job
        .array_task_str
        .as_deref()
        .map(task_ids)
        .unwrap_or_default();
    let keep: Vec<u32> = have
        .into_iter()
        .filter(|t| {
            sels.iter()
                .any(|s| Some(s.job) == array && s.task == Some(*t))
        })
        .collect();
    if let [one] = keep[..] {
        job.array_task_str = None;
        job.array_task_id = Some(one);
        job.array_job_id = array;
    } else {
        job.array_task_str = Some(spur_slurm::print::bit_fmt(&keep));
    }
}
