//! The `/slurmdb/` paths. Job history comes from spur's own store (the
//! controller keeps it; no slurmdbd is involved), chosen as sacct chooses
//! it (spur-report's `select`) and written in v0.0.38's shape (the document
//! `sacct --json` prints) or the data_parser versions' ([`crate::dp::history`]);
//! diag shows the controller's counters of history requests, and ping the
//! controller that answers them. spur keeps no accounting database of
//! accounts, users, associations, QOS, WCKeys, TRES, clusters or
//! instances: their paths answer 404 with an error that says so.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{any, get};
use axum::{Extension, Router};
use serde_json::{json, Map, Value};

use spur_client::{Api, RequestError};
use spur_proto::{AcctState, ErrorCode, HistoryJob, HistoryQuery, ProtoError, Stats};
use spur_report::sacct::select::{self, Filters, Selection};

use crate::auth::Caller;
use crate::dp::{both, history};
use crate::reply::{plain, rest_errno, text, ErrorEntry, Version, Warning};
use crate::State;

/// The version a `/slurmdb/` path names, among those served here.
fn version(tag: &str) -> Option<Version> {
    std::iter::once(Version::V0038)
        .chain(Version::PARSERS)
        .find(|v| v.tag() == tag)
}

macro_rules! version_or_404 {
    ($tag:expr) => {
        match version(&$tag) {
            Some(v) => v,
            None => return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH),
        }
    };
}

/// The accounting database's objects, under every version's spelling of
/// their paths: spur keeps none of them.
const NOT_KEPT: &[&str] = &[
    "accounts",
    "account/{name}",
    "accounts_association",
    "users",
    "user/{name}",
    "users_association",
    "associations",
    "association",
    "qos",
    "qos/{name}",
    "wckeys",
    "wckey/{name}",
    "tres",
    "clusters",
    "cluster/{name}",
    "instances",
    "instance",
    "config",
    "conf",
];

/// The routes of every version.
pub fn routes() -> Router<Arc<State>> {
    let base = "/slurmdb/{version}";
    let mut r = Router::new();
    r = both(r, &format!("{base}/jobs"), get(jobs));
    r = both(r, &format!("{base}/job/{{job_id}}"), get(job));
    r = both(r, &format!("{base}/diag"), get(diag));
    r = both(r, &format!("{base}/ping"), get(ping));
    for path in NOT_KEPT {
        r = both(r, &format!("{base}/{path}"), any(not_kept));
    }
    r
}

/// The `meta`, `errors` and `warnings` around `keys`, with `status`.
fn answer(
    state: &State,
    v: Version,
    status: StatusCode,
    keys: Map<String, Value>,
    errors: &[ErrorEntry],
    warnings: &[Warning],
) -> Response {
    let mut doc = Map::new();
    doc.insert("meta".into(), v.db_meta(&state.cluster));
    doc.insert(
        "errors".into(),
        errors.iter().map(ErrorEntry::to_value).collect(),
    );
    // v0.0.38's documents have no warnings.
    if v != Version::V0038 {
        doc.insert(
            "warnings".into(),
            warnings.iter().map(Warning::to_value).collect(),
        );
    }
    doc.extend(keys);
    state.settings.style.json(status, &Value::Object(doc))
}

fn one(key: &str, value: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), value);
    m
}

/// The status of a failed operation: 500 in 22.05, else 25.11's.
fn status_of(v: Version, e: &RequestError) -> StatusCode {
    v.status_of(e.code())
}

async fn not_kept(
    AxState(state): AxState<Arc<State>>,
    Path(params): Path<HashMap<String, String>>,
    uri: axum::http::Uri,
) -> Response {
    let tag = params.get("version").cloned().unwrap_or_default();
    let v = version_or_404!(tag);
    let entry = ErrorEntry::of(
        &RequestError::Refused(ProtoError::new(ErrorCode::NotSupported)),
        "spur keeps no accounting database: accounts, users, associations, QOS, \
         WCKeys, TRES, clusters and instances are not served; job history is \
         under /slurmdb/<version>/jobs",
        uri.path(),
    );
    answer(&state, v, StatusCode::NOT_FOUND, Map::new(), &[entry], &[])
}

/// What a jobs query selects: the controller's query, the filters applied
/// to its answer, whether another cluster was asked for, and warnings for
/// what is accepted but not acted on.
#[derive(Debug, Default)]
struct Selected {
    query: HistoryQuery,
    filters: Filters,
    other_cluster: bool,
    warnings: Vec<Warning>,
}

/// A comma-separated query value's items.
fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// A query's boolean: present and not `false`/`0`/`no`.
fn truthy(text: &str) -> bool {
    !matches!(text.to_ascii_lowercase().as_str(), "false" | "0" | "no")
}

/// A time as the query gives it: Unix seconds (at most i64::MAX, as
/// Slurm's time_t), or a Slurm time.
fn when(text: &str, now: u64) -> Option<u64> {
    if let Ok(secs) = text.parse::<u64>() {
        return Some(secs.min(i64::MAX as u64));
    }
    match spur_slurm::parse_time::parse_past(text, now as i64) {
        Ok(t) => Some(t.map_or(0, |t| t.max(0) as u64)),
        Err(_) => None,
    }
}

/// `min` and `max` of a count range (v0.0.38's cpus_/nodes_ pairs).
fn range(min: Option<&String>, max: Option<&String>) -> Result<Option<(u32, u32)>, String> {
    let read = |t: &String| t.parse::<u32>().map_err(|_| t.clone());
    match (min, max) {
        (None, None) => Ok(None),
        (lo, hi) => {
            let lo = lo.map(read).transpose()?.unwrap_or(0);
            let hi = hi.map(read).transpose()?.unwrap_or(u32::MAX);
            Ok(Some((lo, hi)))
        }
    }
}

/// The query keys each version documents that spur accepts without
/// acting on (no record of them is kept, or every job already answers).
const NOT_ACTED: &[&str] = &[
    "association",
    "exit_code",
    "format",
    "reservation",
    "reservation_id",
    "wckey",
    "submit_time",
    "disable_wait_for_result",
    "scheduler_unset",
    "scheduled_on_submit",
    "scheduled_by_main",
    "scheduled_by_backfill",
    "job_started",
    "job_altered",
    "show_duplicates",
    "disable_truncate_usage_time",
    "whole_hetjob",
    "disable_whole_hetjob",
    "usage_time_as_submit_time",
    "show_batch_script",
    "show_job_environment",
];

/// Reads a jobs query as slurmdbd's job condition, with sacct's default
/// window (`slurmdb_job_cond_def_start_end`) when any key is given; no
/// keys select every job of every time, as slurmrestd asks for them.
/// Err: the key whose value could not be read, and why.
fn selected(
    v: Version,
    q: &HashMap<String, String>,
    cluster: &str,
    now: u64,
) -> Result<Selected, String> {
    let mut s = Selected {
        query: HistoryQuery {
            steps: true,
            ..HistoryQuery::default()
        },
        ..Selected::default()
    };
    if q.is_empty() {
        return Ok(s);
    }
    let list = |key: &str| -> Vec<String> {
        q.get(key)
            .map(|t| items(t).map(str::to_string).collect())
            .unwrap_or_default()
    };
    for name in list("users") {
        let uid = spur_sys::users::uid_of(&name)
            .or_else(|| name.parse().ok())
            .ok_or_else(|| format!("users: unknown user {name}"))?;
        s.query.uids.push(uid);
    }
    let groups = if v == Version::V0038 {
        "group"
    } else {
        "groups"
    };
    for name in list(groups) {
        let gid = spur_sys::users::gid_of(&name)
            .or_else(|| name.parse().ok())
            .ok_or_else(|| format!("{groups}: unknown group {name}"))?;
        s.filters.gids.push(gid);
    }
    for name in list("state") {
        let state =
            AcctState::parse(&name).ok_or_else(|| format!("state: unknown job state {name}"))?;
        s.query.states.push(state);
    }
    for item in list("step") {
        s.query
            .jobs
            .push(spur_slurm::step_ref::parse_step_str(&item).map_err(|e| format!("step: {e}"))?);
    }
    let time = |key: &str| -> Result<u64, String> {
        match q.get(key) {
            None => Ok(0),
            Some(t) => when(t, now).ok_or_else(|| format!("{key}: invalid time {t}")),
        }
    };
    let (start, end) = select::window(
        time("start_time")?,
        time("end_time")?,
        !s.query.states.is_empty(),
        !s.query.jobs.is_empty(),
        now as i64,
    );
    if start > end {
        return Err(format!(
            "Start time ({}) requested is after end time ({}).",
            spur_slurm::time::timestamp(start),
            spur_slurm::time::timestamp(end)
        ));
    }
    s.query.start = (start != 0).then_some(start);
    s.query.end = Some(end);
    s.query.names = list("job_name");
    s.query.partitions = list("partition");
    s.query.steps = !q.get("skip_steps").is_some_and(|t| truthy(t));
    s.filters.accounts = list("account");
    s.filters.qos = list("qos");
    s.filters.reasons = list("reason");
    s.filters.constraints = list("constraints");
    if let Some(nodes) = q.get("node") {
        // One expression, so that hostlist's limit on names holds for all.
        s.filters.nodes = spur_conf::hostlist::expand(nodes)
            .map_err(|_| format!("node: invalid node list {nodes}"))?;
    }
    if v == Version::V0038 {
        s.filters.ncpus = range(q.get("cpus_min"), q.get("cpus_max"))
            .map_err(|t| format!("cpus_min/cpus_max: not a count: {t}"))?;
        s.filters.nnodes = range(q.get("nodes_min"), q.get("nodes_max"))
            .map_err(|t| format!("nodes_min/nodes_max: not a count: {t}"))?;
    }
    let clusters = list("cluster");
    s.other_cluster = !clusters.is_empty() && !clusters.iter().any(|c| c == cluster);
    let known = |key: &str| {
        matches!(
            key,
            "users"
                | "state"
                | "step"
                | "start_time"
                | "end_time"
                | "job_name"
                | "partition"
                | "skip_steps"
                | "account"
                | "qos"
                | "reason"
                | "constraints"
                | "node"
                | "cluster"
        ) || key == groups
            || (v == Version::V0038
                && matches!(key, "cpus_min" | "cpus_max" | "nodes_min" | "nodes_max"))
    };
    let mut keys: Vec<&String> = q.keys().filter(|k| !known(k)).collect();
    keys.sort();
    for key in keys {
        if v == Version::V0038 && !NOT_ACTED.contains(&key.as_str()) {
            return Err(format!("Unknown Query field: {key}"));
        }
        let description = if NOT_ACTED.contains(&key.as_str()) {
            format!("{key} is accepted for compatibility; spur does not act on it")
        } else {
            format!("Ignoring unknown field: {key}")
        };
        s.warnings.push(Warning {
            description,
            source: "slurmdb_jobs_get".into(),
        });
    }
    Ok(s)
}

/// The jobs `s` selects, each with the steps it shows, from the history
/// the controller returned.
fn chosen<'a>(
    jobs: &'a [HistoryJob],
    s: &Selected,
) -> Vec<(&'a HistoryJob, Vec<&'a spur_proto::HistoryStep>)> {
    if s.other_cluster {
        return Vec::new();
    }
    let sel = Selection {
        jobs: &s.query.jobs,
        filters: &s.filters,
        no_steps: !s.query.steps,
        expand_arrays: false,
    };
    select::jobs(jobs, sel)
        .into_iter()
        .map(|j| (j, select::steps(j, sel)))
        .collect()
}

async fn jobs(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let v = version_or_404!(tag);
    let selected = match selected(v, &q, &state.cluster, crate::dp::now()) {
        Ok(s) => s,
        Err(why) => {
            let status = if v == Version::V0038 {
                StatusCode::INTERNAL_SERVER_ERROR
            } else {
                StatusCode::BAD_REQUEST
            };
            let entry = ErrorEntry::rest(rest_errno::INVALID_QUERY, why, "slurmdb_jobs_get");
            return answer(&state, v, status, one("jobs", json!([])), &[entry], &[]);
        }
    };
    history_answer(&state, &caller, v, selected).await
}

async fn job(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, id)): Path<(String, String)>,
) -> Response {
    let v = version_or_404!(tag);
    let sel = match spur_slurm::step_ref::parse_step_str(&id) {
        Ok(sel) => sel,
        Err(e) => {
            let status = if v == Version::V0038 {
                StatusCode::INTERNAL_SERVER_ERROR
            } else {
                StatusCode::BAD_REQUEST
            };
            let entry = ErrorEntry::rest(rest_errno::INVALID_QUERY, e, "slurmdb_jobs_get");
            return answer(&state, v, status, one("jobs", json!([])), &[entry], &[]);
        }
    };
    let selected = Selected {
        query: HistoryQuery {
            jobs: vec![sel],
            steps: true,
            ..HistoryQuery::default()
        },
        ..Selected::default()
    };
    history_answer(&state, &caller, v, selected).await
}

/// The history `selected` picks, in `v`'s shape.
async fn history_answer(state: &Arc<State>, caller: &Caller, v: Version, s: Selected) -> Response {
    let query = s.query.clone();
    let listing = match ask!(state.ask(caller, move |c| c.history(query)).await) {
        Ok(listing) => listing,
        Err(e) => {
            let entry = ErrorEntry::of(&e, "Unable to query jobs", "slurmdb_jobs_get");
            return answer(
                state,
                v,
                status_of(v, &e),
                one("jobs", json!([])),
                &[entry],
                &s.warnings,
            );
        }
    };
    let picked = chosen(&listing.items, &s);
    if v == Version::V0038 {
        let ctx = spur_report::sacct::json::Ctx {
            cluster: &state.cluster,
            now: listing.now,
            user_name: spur_sys::users::name_of,
        };
        let doc = spur_report::sacct::json::document(&picked, &ctx);
        return state.settings.style.json(StatusCode::OK, &doc);
    }
    let ctx = history::Ctx {
        cluster: &state.cluster,
        now: listing.now,
        v,
    };
    let jobs: Vec<Value> = picked
        .iter()
        .map(|(j, steps)| history::job(j, steps, &ctx))
        .collect();
    answer(
        state,
        v,
        StatusCode::OK,
        one("jobs", Value::Array(jobs)),
        &[],
        &s.warnings,
    )
}

/// Whether a message type is one of the accounting requests (slurmdbd's
/// `DBD_*` numbers, 1400 to 1499).
fn accounting(type_id: u16) -> bool {
    (1400..1500).contains(&type_id)
}

/// `statistics`: the controller's counters of the history requests it
/// served. spur runs no rollups (their counts are zero) and counts
/// requests per user over every kind, not per accounting request, so
/// `users` is empty.
fn statistics(v: Version, stats: &Stats) -> Value {
    let rpcs: Vec<Value> = stats
        .by_type
        .iter()
        .filter(|r| accounting(r.type_id))
        .map(|r| {
            let average = r.total_us / u64::from(r.count.max(1));
            json!({
                "rpc": r.name,
                "count": r.count,
                "time": {"average": average, "total": r.total_us},
            })
        })
        .collect();
    let rollups = if v == Version::V0038 {
        ["hourly", "daily", "monthly"]
            .iter()
            .map(|kind| {
                json!({
                    "type": kind,
                    "last_run": 0,
                    "last_cycle": 0,
                    "max_cycle": 0,
                    "total_time": 0,
                    "mean_cycles": 0,
                })
            })
            .collect()
    } else {
        let none =
            || json!({"count": 0, "last_run": 0, "duration": {"last": 0, "max": 0, "time": 0}});
        json!({"hourly": none(), "daily": none(), "monthly": none()})
    };
    json!({
        "time_start": stats.since,
        "rollups": rollups,
        "RPCs": rpcs,
        "users": [],
    })
}

async fn diag(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let v = version_or_404!(tag);
    match ask!(state.ask(&caller, |c| c.diag()).await) {
        Ok(stats) => answer(
            &state,
            v,
            StatusCode::OK,
            one("statistics", statistics(v, &stats)),
            &[],
            &[],
        ),
        Err(e) => {
            let entry = ErrorEntry::of(&e, "Unable to query diagnostics", "slurmdb_get_stats");
            answer(&state, v, status_of(v, &e), Map::new(), &[entry], &[])
        }
    }
}

/// The controller is spur's accounting store: ping it.
async fn ping(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let v = version_or_404!(tag);
    if v == Version::V0038 {
        // dbv0.0.38 has no ping.
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    }
    let started = std::time::Instant::now();
    let answer_ = ask!(state.ask(&caller, |c| c.ping()).await);
    let latency = started.elapsed().as_micros() as u64;
    let host = state.controller_host(answer_.as_ref().ok().map(String::as_str));
    let mut ping = json!({
        "hostname": host,
        "responding": answer_.is_ok(),
        "latency": latency,
        "primary": true,
    });
    if v >= Version::V0045 {
        ping["status"] = if answer_.is_ok() { "UP" } else { "DOWN" }.into();
    }
    let ping = json!([ping]);
    let errors: Vec<ErrorEntry> = answer_
        .as_ref()
        .err()
        .map(|e| ErrorEntry::of(e, "unable to ping the accounting store", "slurmdb_ping"))
        .into_iter()
        .collect();
    let status = answer_
        .as_ref()
        .err()
        .map_or(StatusCode::OK, |e| status_of(v, e));
    answer(&state, v, status, one("pings", ping), &errors, &[])
}
