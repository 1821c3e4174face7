//! The data_parser versions' operations on many jobs at once: `DELETE
//! jobs` (`kill_jobs_msg`: the jobs a list and filters select, chosen as
//! scancel chooses them in spur-client's `select`, signalled in one
//! request) and v0.0.45's requeues (`job/{job_id}/requeue`, `jobs/requeue`).
//! Each job's outcome is one `status` entry.

use std::sync::Arc;

use axum::extract::{Path, Query, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Extension;
use serde::Deserialize;
use serde_json::{json, Value};

use spur_client::select::{self, Filters};
use spur_client::{Api, PerTarget, RequestError};
use spur_proto::{ErrorCode, JobFields, JobStateName, ProtoError, RequeueHold};

use super::{unparsable, value, version, Doc};
use crate::auth::Caller;
use crate::reply::{plain, rest_errno, text, Version, Warning};
use crate::State;

const SIGKILL: i32 = 9;

/// A `kill_jobs_msg` read: what it selects and how it signals.
#[derive(Debug, Default)]
struct Kill {
    refs: Vec<select::JobRef>,
    filters: Filters,
    signal: Option<i32>,
    batch_only: bool,
    full: bool,
    warnings: Vec<Warning>,
}

/// A string field, or why it is not one.
fn text_of(key: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(format!(
            "kill_jobs_msg/{key}: expected a string but got {}",
            value::kind(other)
        )),
    }
}

/// A list of strings (a single string is a list of one).
fn texts_of(key: &str, v: &Value) -> Result<Vec<String>, String> {
    match v {
        Value::Array(items) => items.iter().map(|i| text_of(key, i)).collect(),
        other => Ok(vec![text_of(key, other)?]),
    }
}

/// Reads a `kill_jobs_msg`; Err is why it is not one.
fn kill_of(body: &Value) -> Result<Kill, String> {
    let Some(map) = body.as_object() else {
        return Err("the request is not a dictionary".into());
    };
    let mut k = Kill::default();
    for (key, v) in map {
        match key.as_str() {
            "account" => k.filters.account = Some(text_of(key, v)?.to_lowercase()),
            "job_name" => k.filters.name = Some(text_of(key, v)?),
            "partition" => k.filters.partition = Some(text_of(key, v)?),
            "qos" => k.filters.qos = Some(text_of(key, v)?.to_lowercase()),
            "reservation" => k.filters.reservation = Some(text_of(key, v)?),
            "wckey" => k.filters.wckey = Some(text_of(key, v)?),
            "user_name" => {
                let name = text_of(key, v)?;
                let uid = spur_sys::users::uid_of(&name)
                    .ok_or_else(|| format!("kill_jobs_msg/user_name: unknown user {name}"))?;
                k.filters.user = Some((name, uid));
            }
            "user_id" => {
                let id = text_of(key, v)?;
                let uid: u32 = id
                    .parse()
                    .map_err(|_| format!("kill_jobs_msg/user_id: not a uid: {id}"))?;
                k.filters.user = Some((spur_sys::users::name_of(uid), uid));
            }
            "job_state" => {
                let states = texts_of(key, v)?;
                let [state] = states.as_slice() else {
                    return Err("kill_jobs_msg/job_state: one state is taken".into());
                };
                // A state spur never reports (SUSPENDED) selects nothing.
                k.filters.state = Some(JobStateName::parse(state));
            }
            "nodes" => {
                // One expression, so that hostlist's limit on names holds
                // for the whole list.
                let list = texts_of(key, v)?.join(",");
                let names = spur_conf::hostlist::expand(&list)
                    .map_err(|_| format!("kill_jobs_msg/nodes: invalid node list {list}"))?;
                k.filters.nodelist = Some(list);
                k.filters.nodes = Some(names);
            }
            "jobs" => {
                let ids = texts_of(key, v)?;
                k.refs = spur_slurm::job_ref::parse_step_refs(&ids)
                    .map_err(|arg| format!("kill_jobs_msg/jobs: invalid job id {arg}"))?;
            }
            "signal" => {
                let name = text_of(key, v)?;
                let n = crate::target::requested_signal(Some(&name))
                    .ok_or_else(|| format!("kill_jobs_msg/signal: unknown signal {name}"))?;
                k.signal = Some(n);
            }
            "flags" => {
                for flag in texts_of(key, v)? {
                    match flag.as_str() {
                        "BATCH_JOB" => k.batch_only = true,
                        "FULL_JOB" => k.full = true,
                        // Every selected job is signalled whole or by its
                        // tasks already; VERBOSE only asks for the status.
                        "ARRAY_TASK" | "VERBOSE" => {}
                        other => k.warnings.push(Warning {
                            description: format!(
                                "flags={other} is accepted for compatibility; spur does not act on it"
                            ),
                            source: "slurm_kill_jobs".into(),
                        }),
                    }
                }
            }
            other => k.warnings.push(Warning {
                description: format!(
                    "Ignoring unknown field \"{other}\" of type {} in kill_jobs_msg",
                    value::kind(v)
                ),
                source: "kill_jobs_msg".into(),
            }),
        }
    }
    Ok(k)
}

/// One `kill_jobs_resp_job`: the job and, when it was refused, Slurm's
/// error number and text.
pub(super) fn kill_status(job_id: u32, refused: Option<(i32, String)>) -> Value {
    let (code, message) = refused.unwrap_or_default();
    json!({
        "error": {"string": message, "code": code, "message": message},
        "step_id": "",
        "job_id": value::Wrapped::of(job_id),
        "federation": {"sibling": ""},
    })
}

/// `DELETE jobs`.
pub(super) async fn cancel_jobs(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(v) = version(&tag) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return unparsable();
    };
    let mut doc = Doc::new(v);
    let kill = match kill_of(&body) {
        Ok(k) => k,
        Err(why) => {
            return doc
                .put("status", json!([]))
                .rest_error(
                    StatusCode::BAD_REQUEST,
                    rest_errno::FAIL_PARSING,
                    why,
                    "kill_jobs_msg",
                )
                .answer(&state);
        }
    };
    doc.warnings.extend(kill.warnings.iter().cloned());
    if kill.refs.is_empty() && !kill.filters.any() {
        // slurm_kill_jobs refuses a request that names no job.
        return doc
            .put("status", json!([]))
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::INVALID_QUERY,
                "kill_jobs_msg: no jobs and no filters given".into(),
                "slurm_kill_jobs",
            )
            .answer(&state);
    }
    let listing = ask!(
        state
            .ask(&caller, |c| c.jobs(Vec::new(), JobFields::ALL, false))
            .await
    );
    let jobs = match listing {
        Ok(l) => l.items,
        Err(e) => {
            return doc
                .put("status", json!([]))
                .error(&e, "unable to list jobs", "slurm_kill_jobs")
                .answer(&state)
        }
    };
    let (targets, misses) = select::select(&kill.refs, &kill.filters, &jobs);
    let mut status: Vec<Value> = Vec::new();
    for miss in &misses {
        let (id, code) = match miss {
            select::Miss::NotFound(t) => (t, ErrorCode::InvalidJobId),
            select::Miss::NotSupported(t) => (t, ErrorCode::NotSupported),
        };
        // `12`, `12_3`, `12.1`, `12_[1-3]`: the job's id leads.
        let digits = id.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("");
        let job_id = digits.parse().unwrap_or(0);
        let e = ProtoError::new(code);
        status.push(kill_status(job_id, Some((e.code.errno(), e.to_string()))));
    }
    if !targets.is_empty() {
        let signal = kill.signal.unwrap_or(SIGKILL);
        let cancel = signal == SIGKILL && !kill.batch_only && !kill.full;
        let ask = select::request(
            &targets,
            (!cancel).then_some(signal),
            kill.batch_only,
            kill.full,
        );
        let answer = ask!(state.ask(&caller, move |c| c.signal(ask)).await);
        match answer {
            Ok(per_target) => {
                for (t, outcome) in targets.iter().zip(select::outcomes(&targets, &per_target)) {
                    let refused = outcome.err().map(|e| (e.code.errno(), e.to_string()));
                    status.push(kill_status(t.job_id, refused));
                }
            }
            Err(e) => {
                return doc
                    .put("status", Value::Array(status))
                    .error(&e, "unable to signal the jobs", "slurm_kill_jobs")
                    .answer(&state)
            }
        }
    }
    doc.put("status", Value::Array(status)).answer(&state)
}

/// The requeue flags, by their names in both spellings.
fn requeue_flags(flags: &[String]) -> Result<(RequeueHold, bool), String> {
    let mut hold = RequeueHold::default();
    let mut incomplete = false;
    for flag in flags {
        match flag.to_ascii_lowercase().as_str() {
            "incomplete" => incomplete = true,
            "hold" => hold.hold = true,
            "specialexit" | "special_exit" => hold.special_exit = true,
            other => return Err(format!("unknown requeue flag {other}")),
        }
    }
    Ok((hold, incomplete))
}

/// One `job_array_response_msg_entry`.
fn requeue_status(job_id: u32, outcome: Option<&ProtoError>) -> Value {
    let (code, message) = match outcome {
        None => (0, String::new()),
        Some(e) => (e.code.errno(), e.to_string()),
    };
    json!({
        "job_id": job_id,
        "step_id": "",
        "error": message,
        "error_code": code,
        "why": message,
    })
}

/// Requeues `ids`: one status entry per job, or the refusal of the whole
/// request; Err(Unauthorized) when the controller refused the caller.
async fn requeue(
    state: &Arc<State>,
    caller: &Caller,
    ids: Vec<u32>,
    hold: RequeueHold,
    incomplete: bool,
) -> Result<Result<Vec<Value>, RequestError>, crate::Unauthorized> {
    let asked = ids.clone();
    let answer = match state
        .ask(caller, move |c| c.requeue(asked, hold, incomplete))
        .await?
    {
        Ok(answer) => answer,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(ids
        .iter()
        .map(|&id| {
            let outcome = match &answer {
                PerTarget::Jobs(results) => results
                    .iter()
                    .find(|(j, _)| *j == id)
                    .and_then(|(_, r)| r.clone().err()),
                _ => None,
            };
            requeue_status(id, outcome.as_ref())
        })
        .collect()))
}

/// The ids of a requeue's job list; Err names the first that is not one,
/// or says the list is empty.
fn requeue_ids(texts: &[String]) -> Result<Vec<u32>, String> {
    if texts.is_empty() {
        return Err("no jobs to requeue given".into());
    }
    texts
        .iter()
        .map(|t| {
            t.parse::<u32>()
                .map_err(|_| format!("invalid job id {t} (requeue takes whole jobs)"))
        })
        .collect()
}

/// `job/{job_id}/requeue`'s query: its flags as keys.
#[derive(Debug, Deserialize)]
pub(super) struct RequeueQuery {
    #[serde(rename = "Incomplete")]
    incomplete: Option<String>,
    #[serde(rename = "Hold")]
    hold: Option<String>,
    #[serde(rename = "SpecialExit")]
    special_exit: Option<String>,
}

fn v0045_only(v: Version) -> bool {
    v >= Version::V0045
}

/// The answer of a requeue: `status` (a list, or a list of lists for
/// `jobs/requeue`), or the refusal.
fn requeue_answer(
    state: &State,
    v: Version,
    result: Result<Vec<Value>, RequestError>,
    nested: bool,
) -> Response {
    let doc = Doc::new(v);
    match result {
        Ok(status) => {
            let status = if nested {
                Value::Array(status.into_iter().map(|s| json!([s])).collect())
            } else {
                Value::Array(status)
            };
            doc.put("status", status).answer(state)
        }
        Err(e) => doc
            .put("status", json!([]))
            .error(&e, "unable to requeue", "slurm_requeue")
            .answer(state),
    }
}

/// `GET job/{job_id}/requeue` (v0.0.45).
pub(super) async fn requeue_job(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, id)): Path<(String, String)>,
    Query(q): Query<RequeueQuery>,
) -> Response {
    let Some(v) = version(&tag).filter(|v| v0045_only(*v)) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let ids = match requeue_ids(std::slice::from_ref(&id)) {
        Ok(ids) => ids,
        Err(why) => {
            return Doc::new(v)
                .put("status", json!([]))
                .rest_error(
                    StatusCode::BAD_REQUEST,
                    rest_errno::INVALID_QUERY,
                    why,
                    "slurm_requeue",
                )
                .answer(&state)
        }
    };
    // A flag given without a value (`?Hold`) is on, as is any value but
    // false.
    let on = |flag: &Option<String>| {
        flag.as_deref()
            .is_some_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "false" | "0" | "no"))
    };
    let hold = RequeueHold {
        hold: on(&q.hold),
        special_exit: on(&q.special_exit),
    };
    let result = ask!(requeue(&state, &caller, ids, hold, on(&q.incomplete)).await);
    requeue_answer(&state, v, result, false)
}

/// `POST jobs/requeue` (v0.0.45): `{"jobs": [...], "flags": [...]}`.
pub(super) async fn requeue_jobs(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(v) = version(&tag).filter(|v| v0045_only(*v)) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return unparsable();
    };
    let read = |key: &str| -> Result<Vec<String>, String> {
        match body.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(v) => texts_of(key, v),
        }
    };
    let parsed = read("jobs").and_then(|jobs| {
        let flags = read("flags")?;
        Ok((requeue_ids(&jobs)?, requeue_flags(&flags)?))
    });
    let (ids, (hold, incomplete)) = match parsed {
        Ok(p) => p,
        Err(why) => {
            return Doc::new(v)
                .put("status", json!([]))
                .rest_error(
                    StatusCode::BAD_REQUEST,
                    rest_errno::FAIL_PARSING,
                    why,
                    "openapi_jobs_requeue_query",
                )
                .answer(&state)
        }
    };
    let result = ask!(requeue(&state, &caller, ids, hold, incomplete).await);
    requeue_answer(&state, v, result, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kill_request_reads_as_scancels_options() {
        let k = kill_of(&json!({
            "jobs": ["12", "13_2"], "account": "Research", "job_state": ["PENDING"],
            "nodes": ["n[01-02]"], "signal": "USR1", "flags": ["BATCH_JOB", "HURRY"],
            "bogus": 1,
        }))
        .expect("a kill_jobs_msg");
        assert_eq!(k.refs.len(), 2);
        assert_eq!(k.filters.account.as_deref(), Some("research"));
        assert_eq!(k.filters.state, Some(Some(JobStateName::Pending)));
        assert_eq!(
            k.filters.nodes,
            Some(vec!["n01".to_string(), "n02".to_string()])
        );
        assert_eq!(k.signal, Some(10));
        assert!(k.batch_only);
        assert_eq!(k.warnings.len(), 2, "{:?}", k.warnings);
        assert!(kill_of(&json!({"jobs": ["x"]})).is_err());
        assert!(kill_of(&json!({"signal": "NOPE"})).is_err());
        assert!(kill_of(&json!([1])).is_err());
        assert!(kill_of(&json!({"user_name": {"a": 1}})).is_err());
    }

    #[test]
    fn requeue_flags_are_slurms_names() {
        let (hold, incomplete) =
            requeue_flags(&["Hold".into(), "Incomplete".into()]).expect("flags");
        assert!(hold.hold && !hold.special_exit && incomplete);
        assert!(requeue_flags(&["Sideways".into()]).is_err());
        assert_eq!(requeue_ids(&["7".into()]), Ok(vec![7]));
        assert!(requeue_ids(&["7_1".into()]).is_err());
        assert!(requeue_ids(&[]).is_err());
    }
}
