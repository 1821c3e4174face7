//! scontrol's commands that change things or check on the controller:
//! `update`, `hold`/`uhold`/`release`, `requeue`, `reconfigure`, `ping`,
//! `version`, with Slurm's per-job error lines (`<error> for job <id>`).

use spur_proto::{ArrayTasks, JobFields, JobInfo, JobUpdate, ProtoError, RequeueHold};

use super::args::starts_with_ci;
use super::config::{render_ping, RESTORE_BANNER};
use super::session::Session;
use super::update::{self, Entity, JobRequest, NodeUpdateError, TimeChange};
use crate::controller::{Api, PerTarget, RequestError};
use spur_slurm::job_ref::{is_job_list, parse_job_list, task_ids, JobRef};

/// `ping`: one line per controller; exit 0 when one is up.
pub fn ping(s: &mut Session<'_>) {
    let answer = s.ask.ping();
    let up = answer.is_ok();
    let host = match (&answer, s.site.controllers.first()) {
        (_, Some(name)) => name.clone(),
        (Ok(host), None) => host.clone(),
        _ => "(null)".to_string(),
    };
    s.out.push_str(&render_ping(&[(host, up)]));
    s.exit_code = u8::from(!up);
    if !up && s.uid == 0 {
        s.out.push_str(RESTORE_BANNER);
    }
}

/// `version`.
pub fn version(s: &mut Session<'_>) {
    s.out
        .push_str(&format!("slurm {}\n", spur_proto::SLURM_COMPAT_VERSION));
}

/// `token [lifespan=S] [username=U]`: prints `SLURM_JWT=...` as
/// `_fetch_token` does.
pub fn token(s: &mut Session<'_>, words: &[String]) {
    let mut asked = spur_proto::TokenRequest::default();
    for word in &words[1..] {
        let key = |k: &str| starts_with_ci(word, k);
        if key("lifespan=") {
            let n = spur_slurm::number::strtol_or_zero(&word["lifespan=".len()..]).0;
            asked.lifespan = u32::try_from(n).ok().filter(|&n| n > 0);
        } else if key("username=") {
            asked.user_name = Some(word["username=".len()..].to_string());
        } else {
            s.fail(&format!("Invalid option: `{word}`\n"));
            return;
        }
    }
    match s.ask.token(asked) {
        Ok(token) => s.out.push_str(&format!("SLURM_JWT={token}\n")),
        Err(e) => s.fail(&format!(
            "scontrol: error: slurm_fetch_token: error with request: {e}\nError fetching token\n"
        )),
    }
}

/// `reconfigure`.
pub fn reconfigure(s: &mut Session<'_>) {
    if let Err(e) = s.ask.reconfigure() {
        s.perror("slurm_reconfigure error", &e);
    }
}

/// The jobs named by one argument of hold/release/requeue/update, as ids
/// the controller knows: array tasks still pending in their array's record
/// are taken out of it into jobs of their own first, as slurmctld does
/// before it acts on one task. Err is the job reference that cannot be
/// resolved and why.
fn resolve(s: &mut Session<'_>, refs: &[JobRef]) -> Result<Vec<u32>, (String, RequestError)> {
    let mut out = Vec::new();
    for r in refs {
        let (array, tasks) = match r {
            JobRef::Job(id) | JobRef::Het(id, 0) => {
                out.push(*id);
                continue;
            }
            JobRef::Het(..) => return Err((r.to_string(), invalid_job())),
            JobRef::Task(a, t) => (*a, vec![*t]),
            JobRef::Tasks(a, spec) => {
                let ids = task_ids(spec).ok_or_else(|| (r.to_string(), invalid_job()))?;
                (*a, ids)
            }
        };
        let found = task_jobs(s, array, &tasks).map_err(|e| (r.to_string(), e))?;
        for t in tasks {
            match found.iter().find(|(task, _)| *task == t) {
                Some((_, job)) => out.push(*job),
                None => return Err((format!("{array}_{t}"), invalid_job())),
            }
        }
    }
    Ok(out)
}

/// `(task, job id)` of the tasks of `array` the controller knows, each one
/// a job of its own from now on.
fn task_jobs(
    s: &mut Session<'_>,
    array: u32,
    tasks: &[u32],
) -> Result<Vec<(u32, u32)>, RequestError> {
    let mut ids = tasks.to_vec();
    ids.sort_unstable();
    ids.dedup();
    s.ask.split_array_tasks(ArrayTasks {
        array_job_id: array,
        tasks: spur_slurm::print::bit_fmt(&ids),
    })
}

fn invalid_job() -> RequestError {
    RequestError::Refused(ProtoError::new(spur_proto::ErrorCode::InvalidJobId))
}

fn load_jobs(s: &mut Session<'_>, ids: Vec<u32>) -> Result<Vec<JobInfo>, RequestError> {
    Ok(s.ask.jobs(ids, JobFields::SUMMARY, false)?.items)
}

/// Ids of the unfinished jobs named `name` (`Name=` / `JobName=`).
fn jobs_named(s: &mut Session<'_>, name: &str) -> Result<Vec<u32>, RequestError> {
    let jobs = load_jobs(s, Vec::new())?;
    Ok(jobs
        .iter()
        .filter(|j| j.name == name && !j.state.is_finished())
        .map(|j| j.job_id)
        .collect())
}

/// Prints `<error> for job <id>` for each failure of a per-job reply;
/// returns the last error text.
fn report(
    s: &mut Session<'_>,
    result: Result<PerTarget, RequestError>,
    what: &str,
) -> Option<String> {
    match result {
        Ok(PerTarget::Jobs(results)) => {
            let mut last = None;
            for (id, r) in results {
                if let Err(e) = r {
                    s.fail(&format!("{e} for job {id}\n"));
                    last = Some(e.to_string());
                }
            }
            last
        }
        Ok(PerTarget::Tasks(groups)) => {
            // An array's outcomes, `8_0,2-9: <text>` each, unless all went
            // well (scontrol's update_job).
            if let [(_, Ok(()))] = &groups[..] {
                return None;
            }
            let mut last = None;
            for (tasks, r) in groups {
                let text = r.map_or_else(|e| e.to_string(), |()| "No error".to_string());
                s.fail(&format!("{tasks}: {text}\n"));
                last = Some(text);
            }
            last
        }
        Ok(PerTarget::Done) => None,
        Err(e) => Some(report_one(s, &e, what)),
    }
}

fn report_one(s: &mut Session<'_>, e: &RequestError, what: &str) -> String {
    s.fail(&format!("{e} for job {what}\n"));
    e.to_string()
}

/// `hold`, `holdu`/`uhold` or `release` of each argument (`words[0]` is
/// the command).
pub fn hold(s: &mut Session<'_>, words: &[String]) {
    let op = &words[0];
    let user = starts_with_ci(op, "holdu") || starts_with_ci(op, "uhold");
    let release = !starts_with_ci(op, "hold") && !user;
    for arg in &words[1..] {
        let Some(ids) = job_ids_of(s, arg) else {
            continue;
        };
        let result = if release {
            s.ask.release(ids)
        } else {
            s.ask.hold(ids, !user)
        };
        if let Some(last) = report(s, result, strip_job_prefix(arg)) {
            s.fail(&format!("slurm_suspend error: {last}\n"));
        }
    }
}

fn strip_job_prefix(arg: &str) -> &str {
    for prefix in ["JobID=", "Job="] {
        if starts_with_ci(arg, prefix) {
            return &arg[prefix.len()..];
        }
    }
    arg
}

/// The ids one hold/release/requeue argument names, or None after
/// reporting why not.
fn job_ids_of(s: &mut Session<'_>, arg: &str) -> Option<Vec<u32>> {
    let text = strip_job_prefix(arg);
    let name = ["Name=", "JobName="]
        .iter()
        .find(|p| starts_with_ci(text, p))
        .map(|p| &text[p.len()..]);
    let ids = if let Some(name) = name {
        jobs_named(s, name).map_err(|e| (text.to_string(), e))
    } else if let Some(refs) = parse_job_list(text) {
        resolve(s, &refs)
    } else {
        Err((text.to_string(), invalid_job()))
    };
    match ids {
        Ok(ids) => Some(ids),
        Err((what, e)) => {
            report_one(s, &e, &what);
            None
        }
    }
}

/// `requeue` or `requeuehold` (`hold`), each with leading flags
/// `Incomplete` and `State=SpecialExit`, then the jobs.
pub fn requeue(s: &mut Session<'_>, words: &[String], hold: bool) {
    let mut flags = RequeueFlags::default();
    let start = 1 + words[1..].iter().take_while(|w| flags.parse(w)).count();
    let mode = RequeueHold {
        hold,
        special_exit: flags.special_exit,
    };
    for arg in &words[start..] {
        let Some(ids) = job_ids_of(s, arg) else {
            continue;
        };
        let result = s.ask.requeue(ids, mode, flags.incomplete);
        report(s, result, strip_job_prefix(arg));
    }
}

/// The flags before the jobs of `requeue` (scontrol's
/// parse_requeue_flags).
#[derive(Default)]
struct RequeueFlags {
    incomplete: bool,
    special_exit: bool,
}

impl RequeueFlags {
    /// Takes `word` if it is a flag.
    fn parse(&mut self, word: &str) -> bool {
        // Any prefix of "incomplete", even an empty one, as strncasecmp
        // over the word's own length compares.
        if starts_with_ci("incomplete", word) {
            self.incomplete = true;
            return true;
        }
        let Some(state) = word.get(..6).filter(|p| p.eq_ignore_ascii_case("state=")) else {
            return false;
        };
        let value = &word[state.len()..];
        if starts_with_ci(value, "specialexit") || starts_with_ci(value, "se") {
            self.special_exit = true;
            return true;
        }
        false
    }
}

/// `update <specification>` (`words[0]` is `update`).
pub fn update(s: &mut Session<'_>, words: &[String]) {
    let words = &words[1..];
    match update::entity(words) {
        Some(Entity::Job) => update_job(s, words),
        Some(Entity::Node) => update_node(s, words),
        Some(_) => s.fail(&format!(
            "slurm_update error: {}\n",
            spur_proto::ErrorCode::NotSupported.text()
        )),
        None => s.fail(update::NO_ENTITY),
    }
}

fn update_node(s: &mut Session<'_>, words: &[String]) {
    match update::parse_node(words) {
        Ok(req) => {
            if let Err(e) = s.ask.update_node(req) {
                s.perror("slurm_update error", &e);
            }
        }
        Err(NodeUpdateError::Usage(text)) => s.fail(&text),
        Err(NodeUpdateError::Refused(code)) => {
            s.fail(&format!("slurm_update error: {}\n", code.text()));
        }
    }
}

fn update_job(s: &mut Session<'_>, words: &[String]) {
    let req = match update::parse_job(words) {
        Ok(r) => r,
        Err(text) => return s.fail(&text),
    };
    let ids = match (&req.ids, &req.name) {
        (Some(list), _) if !is_job_list(list) => {
            return s.fail(&format!("Invalid job id specified for job {list}\n"));
        }
        (Some(list), _) => match parse_job_list(list).map(|refs| resolve(s, &refs)) {
            Some(Ok(ids)) => ids,
            Some(Err((what, e))) => return s.fail(&format!("{e} for job {what}\n")),
            None => return s.fail(&format!("Invalid job id specified for job {list}\n")),
        },
        (None, Some(name)) => match jobs_named(s, name) {
            Ok(ids) if ids.is_empty() => {
                return s.fail(&format!("scontrol: error: No jobs with name '{name}'\n"));
            }
            Ok(ids) => ids,
            Err(e) => {
                return s.fail(&format!(
                    "scontrol: error: Could not load state information: {e}\n"
                ))
            }
        },
        (None, None) => return s.fail("scontrol: error: No job ID specified\n"),
    };
    for id in ids {
        let Some(update) = job_update(s, &req, id) else {
            continue;
        };
        let result = s.ask.update_job(update);
        report(s, result, &id.to_string());
    }
}

/// The update for one job; a relative TimeLimit needs the job's limit.
fn job_update(s: &mut Session<'_>, req: &JobRequest, id: u32) -> Option<JobUpdate> {
    let time_limit = match req.time {
        None => None,
        Some(TimeChange::Set(t)) => Some(t),
        Some(change) => Some(relative_limit(s, id, change)?),
    };
    Some(JobUpdate {
        job_id: id,
        time_limit,
        partition: req.partition.clone(),
        name: req.name.clone(),
        nice: req.nice,
        priority: req.priority,
        comment: req.comment.clone(),
        array_task_throttle: req.throttle,
        dependency: req.dependency.clone(),
    })
}

fn relative_limit(s: &mut Session<'_>, id: u32, change: TimeChange) -> Option<Option<u64>> {
    let current = match load_jobs(s, vec![id]) {
        Ok(jobs) => match jobs.iter().find(|j| j.job_id == id) {
            Some(j) => j.time_limit,
            None => {
                report_one(s, &invalid_job(), &id.to_string());
                return None;
            }
        },
        Err(e) => {
            report_one(s, &e, &id.to_string());
            return None;
        }
    };
    let Some(cur) = current else {
        return Some(None);
    };
    match change {
        TimeChange::Add(d) => Some(Some(cur + d)),
        TimeChange::Sub(d) if d > cur => {
            s.fail(&format!(
                "scontrol: error: TimeLimit decrement larger than current time limit ({} > {})\n",
                d / 60,
                cur / 60
            ));
            None
        }
        TimeChange::Sub(d) => Some(Some(cur - d)),
        TimeChange::Set(t) => Some(t),
    }
}
