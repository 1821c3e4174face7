//! slurmrestd's data_parser versions, v0.0.41 to v0.0.45 (Slurm 24.05 to
//! 26.05): one set of handlers for the paths they share, each answer in
//! its version's shape ([`job`], [`node`]), job descriptions read as the
//! data_parser reads them ([`desc`]), with `meta`, `errors` and
//! `warnings` on every answer and 25.11's statuses for errors.

mod absent;
mod bulk;
mod conf;
pub mod desc;
pub mod history;
pub mod job;
pub mod node;
mod resources;
mod shares;
pub mod value;

use std::sync::Arc;

use axum::extract::{Path, Query, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post, MethodRouter};
use axum::{Extension, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use spur_client::{Api, RequestError};
use spur_options::fields::Request;
use spur_proto::{
    ErrorCode, JobDesc, JobFields, JobUpdate, NodeStateRequest, NodeUpdate, ProtoError,
};

use crate::auth::Caller;
use crate::reply::{plain, rest_errno, text, ErrorEntry, Version, Warning};
use crate::State;

/// The version a path's first segment names, among those served here.
fn version(tag: &str) -> Option<Version> {
    Version::parser(tag)
}

/// A route at `path` and at `path/` (slurmrestd ignores a trailing slash).
pub(crate) fn both(
    router: Router<Arc<State>>,
    path: &str,
    m: MethodRouter<Arc<State>>,
) -> Router<Arc<State>> {
    let bare = path.trim_end_matches('/');
    router.route(bare, m.clone()).route(&format!("{bare}/"), m)
}

/// The routes of every data_parser version.
pub fn routes() -> Router<Arc<State>> {
    let mut r = Router::new();
    let base = "/slurm/{version}";
    r = both(r, &format!("{base}/ping"), get(ping));
    r = both(
        r,
        &format!("{base}/jobs"),
        get(jobs).delete(bulk::cancel_jobs),
    );
    r = both(r, &format!("{base}/jobs/requeue"), post(bulk::requeue_jobs));
    r = both(r, &format!("{base}/jobs/state"), get(jobs));
    r = both(r, &format!("{base}/job/submit"), post(submit));
    r = both(r, &format!("{base}/job/allocate"), post(allocate));
    r = both(
        r,
        &format!("{base}/job/{{job_id}}"),
        get(job).post(update).delete(cancel),
    );
    r = both(
        r,
        &format!("{base}/job/{{job_id}}/requeue"),
        get(bulk::requeue_job),
    );
    r = both(
        r,
        &format!("{base}/nodes"),
        get(nodes).post(update_named_nodes),
    );
    r = both(
        r,
        &format!("{base}/node/{{node_name}}"),
        get(node).post(update_node).delete(delete_node),
    );
    r = both(
        r,
        &format!("{base}/partitions"),
        get(partitions).post(absent::change_partitions),
    );
    r = both(
        r,
        &format!("{base}/partition/{{partition_name}}"),
        get(partition).delete(absent::delete_partition),
    );
    r = both(r, &format!("{base}/licenses"), get(licenses));
    r = both(
        r,
        &format!("{base}/resources/{{job_id}}"),
        get(resources::resources),
    );
    r = both(
        r,
        &format!("{base}/reservations"),
        get(reservations).post(absent::change_reservations),
    );
    r = both(
        r,
        &format!("{base}/reservation"),
        post(absent::change_reservations),
    );
    r = both(
        r,
        &format!("{base}/reservation/{{reservation_name}}"),
        get(absent::reservation).delete(absent::delete_reservation),
    );
    r = both(r, &format!("{base}/new/node"), post(absent::new_node));
    r = both(r, &format!("{base}/shares"), get(shares::shares));
    r = both(r, &format!("{base}/reconfigure"), get(reconfigure));
    r = both(r, &format!("{base}/diag"), get(diag));
    r = both(r, &format!("{base}/conf"), get(conf::conf));
    let util = "/util/{version}";
    r = both(r, &format!("{util}/hostnames"), post(hostnames));
    r = both(r, &format!("{util}/hostlist"), post(hostlist));
    r
}

/// An answer under construction.
struct Doc {
    v: Version,
    keys: Map<String, Value>,
    errors: Vec<ErrorEntry>,
    warnings: Vec<Warning>,
    status: StatusCode,
}

impl Doc {
    fn new(v: Version) -> Doc {
        Doc {
            v,
            keys: Map::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            status: StatusCode::OK,
        }
    }

    fn put(mut self, key: &str, value: impl serde::Serialize) -> Doc {
        let value = serde_json::to_value(value).expect("plain data serializes");
        self.keys.insert(key.to_string(), value);
        self
    }

    fn error(mut self, e: &RequestError, description: impl Into<String>, source: &str) -> Doc {
        let (code, detail) = match e {
            RequestError::Refused(p) => (p.code, p.detail.clone()),
            RequestError::Unreachable(u) => (u.code(), None),
        };
        self.status = self.v.status_of(code);
        let description = match detail {
            Some(d) => format!("{}: {d}", description.into()),
            None => description.into(),
        };
        self.errors.push(ErrorEntry::of(e, description, source));
        self
    }

    fn rest_error(
        mut self,
        status: StatusCode,
        errno: i32,
        description: String,
        source: &str,
    ) -> Doc {
        self.status = status;
        self.errors
            .push(ErrorEntry::rest(errno, description, source));
        self
    }

    fn answer(self, state: &State) -> Response {
        let mut doc = self.keys;
        doc.insert("meta".into(), self.v.meta(&state.cluster));
        doc.insert(
            "errors".into(),
            Value::Array(self.errors.iter().map(ErrorEntry::to_value).collect()),
        );
        doc.insert(
            "warnings".into(),
            Value::Array(self.warnings.iter().map(Warning::to_value).collect()),
        );
        state.settings.style.json(self.status, &Value::Object(doc))
    }
}

/// The version of a path, or slurmrestd's "no such path".
macro_rules! version_or_404 {
    ($tag:expr) => {
        match version(&$tag) {
            Some(v) => v,
            None => return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH),
        }
    };
}

/// This host's clock, Unix seconds.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

async fn ping(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let v = version_or_404!(tag);
    let started = std::time::Instant::now();
    let answer = ask!(state.ask(&caller, |c| c.ping()).await);
    let latency = started.elapsed().as_micros() as u64;
    let host = state.controller_host(answer.as_ref().ok().map(String::as_str));
    let up = answer.is_ok();
    let mut p = Map::new();
    p.insert("hostname".into(), host.into());
    if v <= Version::V0044 {
        p.insert("pinged".into(), if up { "UP" } else { "DOWN" }.into());
    }
    if v >= Version::V0042 {
        p.insert("responding".into(), up.into());
    }
    p.insert("latency".into(), latency.into());
    if v <= Version::V0044 {
        p.insert("mode".into(), "primary".into());
    }
    if v >= Version::V0042 {
        p.insert("primary".into(), true.into());
    }
    if v >= Version::V0045 {
        p.insert("status".into(), if up { "UP" } else { "DOWN" }.into());
    }
    let mut doc = Doc::new(v).put("pings", json!([Value::Object(p)]));
    if let Err(e) = &answer {
        doc = doc.error(e, "unable to ping the controller", "slurm_ping");
    }
    doc.answer(&state)
}

/// `GET jobs`' query: `update_time` and `flags`. spur keeps no time of
/// each job's last change, so every job is listed (Slurm lists them all
/// too once anything has changed); a warning says so.
#[derive(Debug, Deserialize)]
struct JobsQuery {
    update_time: Option<String>,
    flags: Option<String>,
}

async fn jobs(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    Query(q): Query<JobsQuery>,
) -> Response {
    let v = version_or_404!(tag);
    let answer = ask!(
        state
            .ask(&caller, |c| c.jobs(Vec::new(), JobFields::ALL, false))
            .await
    );
    let mut doc = Doc::new(v);
    if q.update_time.is_some() {
        doc.warnings.push(Warning {
            description: "update_time: spur lists every job".into(),
            source: "slurm_load_jobs".into(),
        });
    }
    // Every job is listed with its details: ALL, DETAIL, LOCAL and MIXED
    // ask for what spur always gives; the federation flags have no effect.
    for flag in q.flags.iter().flat_map(|f| f.split(',')) {
        if !matches!(flag, "ALL" | "DETAIL" | "LOCAL" | "MIXED" | "") {
            doc.warnings.push(Warning {
                description: format!(
                    "flags={flag} is accepted for compatibility; spur does not act on it"
                ),
                source: "slurm_load_jobs".into(),
            });
        }
    }
    match answer {
        Ok(listing) => jobs_answer(&state, v, listing.items, listing.now, &doc.warnings).await,
        Err(e) => doc
            .put("jobs", json!([]))
            .put("last_backfill", value::Wrapped::unset())
            .put("last_update", value::Wrapped::unset())
            .error(&e, "unable to list jobs", "slurm_load_jobs")
            .answer(&state),
    }
}

/// `openapi_job_info_resp` without its jobs (the listing puts them in).
#[derive(serde::Serialize)]
struct JobsHead {
    jobs: [(); 0],
    last_backfill: value::Wrapped,
    last_update: value::Wrapped,
    meta: Value,
    errors: [(); 0],
    warnings: Vec<Value>,
}

/// The jobs' answer, sent while it is written.
async fn jobs_answer(
    state: &State,
    v: Version,
    jobs: Vec<spur_proto::JobInfo>,
    now: u64,
    warnings: &[Warning],
) -> Response {
    let head = JobsHead {
        jobs: [],
        last_backfill: value::Wrapped::of(0),
        last_update: value::Wrapped::of(now),
        meta: v.meta(&state.cluster),
        errors: [],
        warnings: warnings.iter().map(Warning::to_value).collect(),
    };
    let style = state.settings.style;
    let cluster = state.cluster.clone();
    let records = job::Jobs { jobs, cluster, v };
    let body = crate::listing::body(style, head, "jobs", crate::listing::Place::First, records);
    style.body(StatusCode::OK, body)
}

fn invalid_job() -> RequestError {
    RequestError::Refused(ProtoError::new(ErrorCode::InvalidJobId))
}

async fn job(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, id)): Path<(String, String)>,
) -> Response {
    let v = version_or_404!(tag);
    let doc = Doc::new(v);
    let empty = |doc: Doc| {
        doc.put("jobs", json!([]))
            .put("last_backfill", value::Wrapped::unset())
            .put("last_update", value::Wrapped::unset())
    };
    let Some((job_id, task)) = crate::target::job_ref(&id) else {
        return empty(doc)
            .error(
                &invalid_job(),
                format!("Unable to find JobId={id}"),
                "slurm_xlate_job_id",
            )
            .answer(&state);
    };
    let answer = ask!(
        state
            .ask(&caller, move |c| c.jobs(
                vec![job_id],
                JobFields::ALL,
                false
            ))
            .await
    );
    match answer {
        Ok(listing) => {
            let found: Vec<spur_proto::JobInfo> = listing
                .items
                .into_iter()
                .filter(|j| task.is_none_or(|t| j.array_task_id == Some(t)))
                .collect();
            if found.is_empty() {
                return empty(doc)
                    .error(
                        &invalid_job(),
                        format!("Unable to query JobId={id}"),
                        "slurm_load_job",
                    )
                    .answer(&state);
            }
            jobs_answer(&state, v, found, listing.now, &[]).await
        }
        Err(e) => empty(doc)
            .error(&e, format!("Unable to query JobId={id}"), "slurm_load_job")
            .answer(&state),
    }
}

/// `signal` (a name or number) and `flags` of a cancel.
#[derive(Debug, Deserialize)]
struct CancelQuery {
    signal: Option<String>,
    flags: Option<String>,
}

async fn cancel(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, id)): Path<(String, String)>,
    Query(q): Query<CancelQuery>,
) -> Response {
    let v = version_or_404!(tag);
    let mut doc = Doc::new(v);
    if v >= Version::V0042 {
        // The answer's schema requires the list, empty when refused.
        doc = doc.put("status", json!([]));
    }
    let Some(signal) = crate::target::requested_signal(q.signal.as_deref()) else {
        let name = q.signal.unwrap_or_default();
        return doc
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::DATA_CONV_FAILED,
                format!("Unable to parse signal \"{name}\""),
                "signal",
            )
            .answer(&state);
    };
    let (batch_only, full) = match q.flags.as_deref() {
        Some("BATCH_JOB") => (true, false),
        Some("FULL_JOB") => (false, true),
        None => (false, false),
        Some(other) => {
            doc.warnings.push(Warning {
                description: format!(
                    "flags={other} is accepted for compatibility; spur does not act on it"
                ),
                source: "slurm_kill_job".into(),
            });
            (false, false)
        }
    };
    let Some((job_id, task)) = crate::target::job_ref(&id) else {
        return doc
            .error(
                &invalid_job(),
                format!("Unable to find JobId={id}"),
                "slurm_xlate_job_id",
            )
            .answer(&state);
    };
    let target = crate::target::signal(job_id, task, signal, batch_only, full);
    let result = ask!(state.ask(&caller, move |c| c.signal(target)).await);
    let failure = crate::target::first_failure(result);
    if v >= Version::V0042 {
        let refused = failure.as_ref().map(|e| (e.errno(), e.to_string()));
        doc = doc.put("status", json!([bulk::kill_status(job_id, refused)]));
    }
    if let Some(e) = failure {
        doc = doc.error(
            &e,
            format!("unable to signal JobId={id} with signal {signal}"),
            "slurm_kill_job",
        );
    }
    doc.answer(&state)
}

/// A body that is not JSON: 400, as slurmrestd's router answers it.
fn unparsable() -> Response {
    plain(StatusCode::BAD_REQUEST, text::BAD_QUERY)
}

async fn submit(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let v = version_or_404!(tag);
    let key = crate::submit_key(&headers);
    submission(&state, &caller, v, &body, key, Request::Batch).await
}

/// `job/allocate`: an allocation without a script, as
/// `slurm_allocate_resources` leaves one: steps run in it (`srun
/// --jobid`), and it lasts until it is cancelled or its time limit ends
/// it; InactiveLimit applies.
async fn allocate(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let v = version_or_404!(tag);
    let key = crate::submit_key(&headers);
    submission(&state, &caller, v, &body, key, Request::Allocation).await
}

/// A submission (`job_submit_req`) or an allocation (`job_alloc_req`):
/// the job description read as the data_parser reads it and submitted as
/// sbatch or salloc would have, under the client's submission key if it
/// gave one.
async fn submission(
    state: &Arc<State>,
    caller: &Caller,
    v: Version,
    body: &[u8],
    submit_key: Option<String>,
    request: Request,
) -> Response {
    let batch = request == Request::Batch;
    let (what, source) = if batch {
        ("job_submit_req", "slurm_submit_batch_job")
    } else {
        ("job_alloc_req", "slurm_allocate_resources")
    };
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return unparsable();
    };
    let mut doc = Doc::new(v);
    let parse_failure = |doc: Doc, description: String| {
        doc.rest_error(
            StatusCode::BAD_REQUEST,
            rest_errno::FAIL_PARSING,
            description,
            what,
        )
    };
    if !body.is_object() {
        return parse_failure(doc, "the request is not a dictionary".into()).answer(state);
    }
    let het = if batch { "jobs" } else { "hetjob" };
    if body.get(het).is_some_and(|j| !j.is_null()) {
        // sbatch and salloc refuse heterogeneous jobs too.
        let e = RequestError::Refused(ProtoError::with_detail(
            ErrorCode::NotSupported,
            "heterogeneous jobs are not supported by spur",
        ));
        return doc
            .error(&e, "unable to submit a heterogeneous job", what)
            .answer(state);
    }
    let Some(job) = body.get("job") else {
        return doc
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::INVALID_JOBS_DESC,
                "Unable to find job description: expected \"job\"".into(),
                what,
            )
            .answer(state);
    };
    let read = match desc::read(job, "job") {
        Ok(r) => r,
        Err(e) => return parse_failure(doc, e.to_string()).answer(state),
    };
    doc.warnings.extend(read.warnings);
    let mut fields = read.fields;
    if batch && fields.script.is_none() {
        fields.script = body
            .get("script")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if !batch && fields.script.take().is_some() {
        doc.warnings.push(Warning {
            description: "script: an allocation runs no script; ignored".into(),
            source: what.into(),
        });
    }
    if fields.alloc_node.is_none() {
        fields.alloc_node = Some(spur_sys::short_hostname());
    }
    let desc = match fields.job_desc(request) {
        Ok(d) => JobDesc { submit_key, ..d },
        Err(e) => {
            return doc
                .error(&RequestError::Refused(e), "invalid job description", what)
                .answer(state)
        }
    };
    match ask!(state.ask(caller, move |c| c.submit(desc)).await) {
        Ok(s) => {
            doc = doc.put("job_id", s.job_id);
            if batch {
                doc = doc.put("step_id", "batch");
            }
            doc = doc.put("job_submit_user_msg", "");
            if batch && v == Version::V0041 {
                doc = doc.put(
                    "result",
                    json!({"job_id": s.job_id, "step_id": "batch", "error_code": 0, "error": "", "job_submit_user_msg": ""}),
                );
            }
            doc.answer(state)
        }
        Err(e) => doc
            .error(&e, "unable to submit the job", source)
            .answer(state),
    }
}

/// What a job description asks of an existing job.
fn job_update(job_id: u32, body: &Value, warnings: &mut Vec<Warning>) -> Result<JobUpdate, String> {
    let Value::Object(map) = body else {
        return Err("the job description is not a dictionary".into());
    };
    let read = desc::read(body, "job").map_err(|e| e.to_string())?;
    for key in map.keys() {
        if read.unknown.contains(key) {
            // Warned about, as at submission.
            continue;
        }
        match key.as_str() {
            "time_limit" | "partition" | "name" | "nice" | "priority" | "comment"
            | "dependency" => {}
            // slurmctld's update_job leaves these as submitted.
            "environment" | "argv" | "script" | "open_mode" => {}
            other => return Err(format!("updating {other} is not supported by spur")),
        }
    }
    let u = read.fields.job_update(job_id);
    warnings.extend(read.warnings);
    Ok(u)
}

/// A job update's answer keys: `results` (one entry per job, none when
/// refused before the controller was asked), and v0.0.41's own keys.
fn update_keys(doc: Doc, id: &str, results: Value) -> Doc {
    let v = doc.v;
    let doc = doc.put("results", results);
    if v == Version::V0041 {
        doc.put("job_id", id)
            .put("step_id", "")
            .put("job_submit_user_msg", "")
    } else {
        doc
    }
}

async fn update(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, id)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> Response {
    let v = version_or_404!(tag);
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return unparsable();
    };
    let mut doc = Doc::new(v);
    let Some((job_id, None)) = crate::target::job_ref(&id) else {
        return update_keys(doc, &id, json!([]))
            .error(
                &invalid_job(),
                format!("Unable to find JobId={id}"),
                "slurm_xlate_job_id",
            )
            .answer(&state);
    };
    let update = match job_update(job_id, &body, &mut doc.warnings) {
        Ok(u) => u,
        Err(why) => {
            let e = RequestError::Refused(ProtoError::with_detail(ErrorCode::NotSupported, why));
            return update_keys(doc, &id, json!([]))
                .error(
                    &e,
                    format!("job update of JobId={id} refused"),
                    "slurm_update_job",
                )
                .answer(&state);
        }
    };
    let failure = crate::target::first_failure(ask!(
        state.ask(&caller, move |c| c.update_job(update)).await
    ));
    let (code, error) = match &failure {
        None => (0, String::new()),
        Some(e) => (e.errno(), e.to_string()),
    };
    let results =
        json!([{"job_id": job_id, "step_id": "", "error": error, "error_code": code, "why": ""}]);
    doc = update_keys(doc, &id, results);
    if let Some(e) = failure {
        doc = doc.error(
            &e,
            format!("job update of JobId={id} failed"),
            "slurm_update_job",
        );
    }
    doc.answer(&state)
}

async fn nodes(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let v = version_or_404!(tag);
    nodes_named(&state, &caller, v, None).await
}

async fn node(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, name)): Path<(String, String)>,
) -> Response {
    let v = version_or_404!(tag);
    nodes_named(&state, &caller, v, Some(name)).await
}

async fn nodes_named(
    state: &Arc<State>,
    caller: &Caller,
    v: Version,
    name: Option<String>,
) -> Response {
    let answer = ask!(state.ask(caller, |c| c.nodes()).await);
    match answer {
        Ok(listing) => {
            let chosen: Vec<Value> = listing
                .items
                .iter()
                .filter(|n| name.as_ref().is_none_or(|want| *want == n.name))
                .map(|n| node::node(n, &state.cluster, v, spur_sys::users::name_of))
                .collect();
            listed(state, v, &NODES, name.as_deref(), chosen, listing.now)
        }
        Err(e) => unlisted(state, v, &NODES, &e),
    }
}

/// A kind of record listed whole or by name.
struct Kind {
    /// The document's key for the records.
    key: &'static str,
    /// The error of a name that matches none.
    unknown: ErrorCode,
    /// What a record is called in messages.
    what: &'static str,
    /// The libslurm call slurmrestd would have made.
    source: &'static str,
}

const NODES: Kind = Kind {
    key: "nodes",
    unknown: ErrorCode::InvalidNodeName,
    what: "node",
    source: "slurm_load_node",
};

const PARTITIONS: Kind = Kind {
    key: "partitions",
    unknown: ErrorCode::InvalidPartitionName,
    what: "partition",
    source: "slurm_load_partitions",
};

/// The records chosen; a name that chose none is an error.
fn listed(
    state: &State,
    v: Version,
    kind: &Kind,
    name: Option<&str>,
    chosen: Vec<Value>,
    now: u64,
) -> Response {
    let none = chosen.is_empty();
    let doc = Doc::new(v)
        .put(kind.key, Value::Array(chosen))
        .put("last_update", value::Wrapped::of(now));
    match name {
        Some(name) if none => {
            let e = RequestError::Refused(ProtoError::new(kind.unknown));
            let what = format!("Unable to query {} {name}", kind.what);
            doc.error(&e, what, kind.source).answer(state)
        }
        _ => doc.answer(state),
    }
}

/// The listing the controller refused.
fn unlisted(state: &State, v: Version, kind: &Kind, e: &RequestError) -> Response {
    Doc::new(v)
        .put(kind.key, json!([]))
        .put("last_update", value::Wrapped::unset())
        .error(e, format!("unable to list {}s", kind.what), kind.source)
        .answer(state)
}

/// A node update field of the wrong type.
fn wrong_type(doc: Doc, key: &str, wanted: &str, got: &Value) -> Doc {
    let why = format!(
        "update_node_msg/{key}: expected {wanted} but got {}",
        value::kind(got)
    );
    doc.rest_error(
        StatusCode::BAD_REQUEST,
        rest_errno::FAIL_PARSING,
        why,
        "update_node_msg",
    )
}

async fn update_node(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, name)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> Response {
    let v = version_or_404!(tag);
    update_nodes(&state, &caller, v, Some(name), &body).await
}

/// `POST nodes`: the nodes its `name` list names.
async fn update_named_nodes(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let v = version_or_404!(tag);
    update_nodes(&state, &caller, v, None, &body).await
}

/// An `update_node_msg` for the nodes of the path (`node/{name}`), or,
/// without one, for those its `name` names.
async fn update_nodes(
    state: &Arc<State>,
    caller: &Caller,
    v: Version,
    path_name: Option<String>,
    body: &[u8],
) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return unparsable();
    };
    let doc = Doc::new(v);
    let Some(map) = body.as_object() else {
        return doc
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::FAIL_PARSING,
                "the node update is not a dictionary".into(),
                "update_node_msg",
            )
            .answer(state);
    };
    let name = match (path_name, map.get("name")) {
        (Some(name), _) => name,
        (None, Some(Value::String(list))) => list.clone(),
        (None, Some(Value::Array(items))) => {
            let names: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            match names {
                Some(names) => names.join(","),
                None => {
                    return wrong_type(doc, "name", "a list of node names", &map["name"])
                        .answer(state)
                }
            }
        }
        (None, Some(other)) => {
            return wrong_type(doc, "name", "a list of node names", other).answer(state)
        }
        (None, None) => {
            return doc
                .rest_error(
                    StatusCode::BAD_REQUEST,
                    rest_errno::FAIL_PARSING,
                    "update_node_msg/name: the nodes to update are not named".into(),
                    "update_node_msg",
                )
                .answer(state)
        }
    };
    let Ok(nodes) = spur_conf::hostlist::expand(&name) else {
        let e = RequestError::Refused(ProtoError::with_detail(
            ErrorCode::InvalidNodeName,
            name.clone(),
        ));
        return doc
            .error(
                &e,
                format!("unable to update node {name}"),
                "slurm_update_node",
            )
            .answer(state);
    };
    let mut update = NodeUpdate {
        nodes,
        state: None,
        reason: None,
    };
    let mut doc = doc;
    for (key, value) in map {
        match key.as_str() {
            // The nodes, read above.
            "name" => {}
            "state" => {
                let states: Option<Vec<String>> = match value {
                    Value::Array(items) => items
                        .iter()
                        .map(|i| i.as_str().map(str::to_string))
                        .collect(),
                    Value::String(s) => Some(vec![s.clone()]),
                    _ => None,
                };
                let Some(states) = states else {
                    return wrong_type(doc, "state", "a list of node states", value).answer(state);
                };
                for s in states {
                    update.state = Some(match s.to_ascii_uppercase().as_str() {
                        "DRAIN" => NodeStateRequest::Drain,
                        "RESUME" | "IDLE" => NodeStateRequest::Resume,
                        "DOWN" => NodeStateRequest::Down,
                        "UNDRAIN" => NodeStateRequest::Undrain,
                        other => {
                            let e = RequestError::Refused(ProtoError::with_detail(
                                ErrorCode::InvalidNodeState,
                                other.to_string(),
                            ));
                            return doc
                                .error(
                                    &e,
                                    format!("unable to set node {name} to {other}"),
                                    "slurm_update_node",
                                )
                                .answer(state);
                        }
                    });
                }
            }
            "reason" => match value {
                Value::String(s) => update.reason = Some(s.clone()),
                Value::Null => {}
                other => return wrong_type(doc, "reason", "a string", other).answer(state),
            },
            other => doc.warnings.push(Warning {
                description: format!(
                    "{other} is accepted for compatibility; spur does not act on it"
                ),
                source: "update_node_msg".into(),
            }),
        }
    }
    match ask!(state.ask(caller, move |c| c.update_node(update)).await) {
        Ok(()) => doc.answer(state),
        Err(e) => doc
            .error(
                &e,
                format!("unable to update node {name}"),
                "slurm_update_node",
            )
            .answer(state),
    }
}

/// `DELETE node/{node_name}`: Slurm deletes only dynamic nodes (made with
/// `scontrol create node` or `new/node`), and every node of spur's comes
/// from slurm.conf, so each named node that exists is refused as
/// slurmctld refuses a static one; a name that matches none is 404.
async fn delete_node(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, name)): Path<(String, String)>,
) -> Response {
    let v = version_or_404!(tag);
    let doc = Doc::new(v);
    let source = "slurm_delete_node";
    let refuse = |doc: Doc, code: ErrorCode, detail: String| {
        let e = RequestError::Refused(ProtoError::with_detail(code, detail));
        doc.error(&e, format!("Unable to delete node {name}"), source)
    };
    let Ok(names) = spur_conf::hostlist::expand(&name) else {
        return refuse(doc, ErrorCode::InvalidNodeName, name.clone()).answer(&state);
    };
    let listing = match ask!(state.ask(&caller, |c| c.nodes()).await) {
        Ok(listing) => listing,
        Err(e) => {
            return doc
                .error(&e, format!("Unable to delete node {name}"), source)
                .answer(&state)
        }
    };
    let names_known: std::collections::HashSet<&str> = listing
        .items
        .iter()
        .map(|node| node.name.as_str())
        .collect();
    let known = |n: &String| names_known.contains(n.as_str());
    let doc = match names.iter().find(|n| !known(n)) {
        Some(unknown) => refuse(doc, ErrorCode::InvalidNodeName, unknown.clone()),
        None => {
            let first = names.first().cloned().unwrap_or_default();
            let why = format!("Can't delete non-dynamic node '{first}'.");
            refuse(doc, ErrorCode::InvalidNodeState, why)
        }
    };
    doc.answer(&state)
}

async fn partitions(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let v = version_or_404!(tag);
    partitions_named(&state, &caller, v, None).await
}

async fn partition(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path((tag, name)): Path<(String, String)>,
) -> Response {
    let v = version_or_404!(tag);
    partitions_named(&state, &caller, v, Some(name)).await
}

async fn partitions_named(
    state: &Arc<State>,
    caller: &Caller,
    v: Version,
    name: Option<String>,
) -> Response {
    let answer = ask!(
        state
            .ask(caller, |c| Ok::<_, RequestError>((
                c.partitions()?,
                c.nodes()?
            )))
            .await
    );
    match answer {
        Ok((parts, nodes)) => {
            let chosen: Vec<Value> = parts
                .iter()
                .filter(|p| name.as_ref().is_none_or(|want| *want == p.name))
                .map(|p| node::partition(p, &nodes.items, &state.cluster, v))
                .collect();
            listed(state, v, &PARTITIONS, name.as_deref(), chosen, nodes.now)
        }
        Err(e) => unlisted(state, v, &PARTITIONS, &e),
    }
}

/// spur has no licenses: an empty list, as Slurm's without any.
async fn licenses(AxState(state): AxState<Arc<State>>, Path(tag): Path<String>) -> Response {
    let v = version_or_404!(tag);
    Doc::new(v)
        .put("licenses", json!([]))
        .put("last_update", value::Wrapped::of(now()))
        .answer(&state)
}

/// spur has no reservations: an empty list.
async fn reservations(AxState(state): AxState<Arc<State>>, Path(tag): Path<String>) -> Response {
    let v = version_or_404!(tag);
    Doc::new(v)
        .put("reservations", json!([]))
        .put("last_update", value::Wrapped::of(now()))
        .answer(&state)
}

async fn reconfigure(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let v = version_or_404!(tag);
    match ask!(state.ask(&caller, |c| c.reconfigure()).await) {
        Ok(()) => Doc::new(v).answer(&state),
        Err(e) => Doc::new(v)
            .error(&e, "unable to reconfigure", "slurm_reconfigure")
            .answer(&state),
    }
}

/// The util paths exist from v0.0.44 (slurmrestd's openapi/util).
fn util_version(tag: &str) -> Option<Version> {
    version(tag).filter(|&v| v >= Version::V0044)
}

/// `POST /util/{v}/hostnames`: a hostlist expression's host names.
async fn hostnames(
    AxState(state): AxState<Arc<State>>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(v) = util_version(&tag) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return unparsable();
    };
    // The answer's schema requires its list, empty when refused.
    let doc = Doc::new(v).put("hostnames", json!([]));
    let Some(list) = body.get("hostlist").and_then(Value::as_str) else {
        return doc
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::FAIL_PARSING,
                "expected \"hostlist\": a hostlist expression".into(),
                "openapi_hostlist_req_resp",
            )
            .answer(&state);
    };
    match spur_conf::hostlist::expand(list) {
        Ok(names) => doc.put("hostnames", json!(names)).answer(&state),
        Err(e) => doc
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::FAIL_PARSING,
                format!("invalid hostlist {list:?}: {e}"),
                "hostlist_create",
            )
            .answer(&state),
    }
}

/// `POST /util/{v}/hostlist`: host names as one hostlist expression.
async fn hostlist(
    AxState(state): AxState<Arc<State>>,
    Path(tag): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(v) = util_version(&tag) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return unparsable();
    };
    // The answer's schema requires its expression, empty when refused.
    let doc = Doc::new(v).put("hostlist", "");
    let names: Option<Vec<String>> = match body.get("hostnames") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => Some(
            s.split(',')
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    };
    let Some(names) = names else {
        return doc
            .rest_error(
                StatusCode::BAD_REQUEST,
                rest_errno::FAIL_PARSING,
                "expected \"hostnames\": a list of host names".into(),
                "openapi_hostnames_req_resp",
            )
            .answer(&state);
    };
    doc.put("hostlist", spur_conf::hostlist::compress(&names))
        .answer(&state)
}

async fn diag(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    use spur_proto::stats::mean;
    let v = version_or_404!(tag);
    let s = match ask!(state.ask(&caller, |c| c.diag()).await) {
        Ok(s) => s,
        Err(e) => {
            return Doc::new(v)
                .error(
                    &e,
                    "unable to read the controller's statistics",
                    "slurm_get_statistics",
                )
                .answer(&state)
        }
    };
    let by_type: Vec<Value> = s
        .by_type
        .iter()
        .map(|r| {
            json!({"type_id": r.type_id, "message_type": r.name, "count": r.count,
                   "queued": 0, "dropped": 0, "cycle_last": 0, "cycle_max": 0,
                   "total_time": r.total_us,
                   "average_time": value::Wrapped::of(mean(r.total_us, u64::from(r.count)))})
        })
        .collect();
    let by_user: Vec<Value> = s
        .by_user
        .iter()
        .map(|u| {
            json!({"user_id": u.uid, "user": spur_sys::users::name_of(u.uid), "count": u.count,
                   "total_time": u.total_us,
                   "average_time": value::Wrapped::of(mean(u.total_us, u64::from(u.count)))})
        })
        .collect();
    let sched = &s.sched;
    let cycles = u64::from(sched.cycles);
    let minutes = (s.now.saturating_sub(s.since) / 60).max(1);
    let bf = &s.backfill;
    let bf_cycles = u64::from(bf.cycles);
    let mut m = Map::new();
    if v <= Version::V0044 {
        m.insert("parts_packed".into(), 1.into());
    }
    let rest = json!({
        "req_time": value::Wrapped::of(s.now),
        "req_time_start": value::Wrapped::of(s.since),
        "server_thread_count": s.server_threads,
        "agent_queue_size": s.agent_queue,
        "agent_count": s.agents,
        "agent_thread_count": 0,
        "dbd_agent_queue_size": 0,
        "gettimeofday_latency": s.clock_latency_us,
        "schedule_cycle_max": sched.max_us,
        "schedule_cycle_last": sched.last_us,
        "schedule_cycle_sum": sched.sum_us,
        "schedule_cycle_total": sched.cycles,
        "schedule_cycle_mean": mean(sched.sum_us, cycles),
        "schedule_cycle_mean_depth": mean(sched.depth_sum, cycles),
        "schedule_cycle_per_minute": cycles / minutes,
        "schedule_cycle_depth": sched.depth_sum,
        "schedule_exit": {"end_job_queue": sched.cycles, "default_queue_depth": 0, "max_job_start": 0,
                          "max_rpc_cnt": 0, "max_sched_time": 0, "licenses": 0},
        "schedule_queue_length": sched.last_queue_len,
        "jobs_submitted": s.jobs_submitted,
        "jobs_started": s.jobs_started,
        "jobs_completed": s.jobs_completed,
        "jobs_canceled": s.jobs_canceled,
        "jobs_failed": s.jobs_failed,
        "jobs_pending": s.jobs_pending,
        "jobs_running": s.jobs_running,
        "job_states_ts": value::Wrapped::of(s.now),
        "bf_backfilled_jobs": bf.jobs_total, "bf_last_backfilled_jobs": bf.jobs,
        "bf_backfilled_het_jobs": 0,
        "bf_cycle_counter": bf.cycles, "bf_cycle_mean": mean(bf.sum_us, bf_cycles),
        "bf_depth_mean": mean(bf.depth_sum, bf_cycles),
        "bf_depth_mean_try": mean(bf.depth_try_sum, bf_cycles),
        "bf_cycle_sum": bf.sum_us, "bf_cycle_last": bf.last_us, "bf_cycle_max": bf.max_us,
        // A pass walks the whole queue.
        "bf_exit": {"end_job_queue": bf.cycles, "bf_max_job_start": 0, "bf_max_job_test": 0,
                    "bf_max_time": 0, "bf_node_space_size": 0, "state_changed": 0},
        "bf_last_depth": bf.last_depth, "bf_last_depth_try": bf.last_depth_try,
        "bf_depth_sum": bf.depth_sum, "bf_depth_try_sum": bf.depth_try_sum,
        "bf_queue_len": bf.queue_len, "bf_queue_len_mean": mean(bf.queue_len_sum, bf_cycles),
        "bf_queue_len_sum": bf.queue_len_sum,
        "bf_table_size": bf.table_size, "bf_table_size_sum": bf.table_size_sum,
        "bf_table_size_mean": mean(bf.table_size_sum, bf_cycles),
        "bf_when_last_cycle": value::Wrapped::of(bf.last_when),
        "bf_active": false,
        "rpcs_by_message_type": by_type,
        "rpcs_by_user": by_user,
        "pending_rpcs": [],
        "pending_rpcs_by_hostlist": [],
    });
    if let Value::Object(rest) = rest {
        m.extend(rest);
    }
    Doc::new(v)
        .put("statistics", Value::Object(m))
        .answer(&state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update_of(body: Value) -> (Result<JobUpdate, String>, Vec<Warning>) {
        let mut warnings = Vec::new();
        (job_update(7, &body, &mut warnings), warnings)
    }

    #[test]
    fn an_update_changes_what_it_names_and_nothing_it_leaves_unset() {
        let (u, _) = update_of(json!({"time_limit": {"set": false, "number": 0}}));
        assert_eq!(u.expect("reads").time_limit, None, "unset: no change");
        let (u, _) = update_of(json!({"time_limit": 5}));
        assert_eq!(u.expect("reads").time_limit, Some(Some(300)));
        let (u, _) = update_of(json!({"time_limit": "INFINITE"}));
        assert_eq!(u.expect("reads").time_limit, Some(None));
        let (u, warnings) = update_of(json!({"comment": "x", "frobnicate": 1}));
        assert_eq!(u.expect("reads").comment.as_deref(), Some("x"));
        assert!(
            warnings[0].description.contains("Ignoring unknown field"),
            "{warnings:?}"
        );
        let (u, _) = update_of(json!({"account": "a"}));
        assert_eq!(
            u,
            Err("updating account is not supported by spur".to_string())
        );
    }
}
