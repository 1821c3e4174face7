//! Slurm 22.05's `openapi/v0.0.38`: its paths, its answers' shapes (the
//! same documents `squeue --json` and `sinfo --json` print, from
//! spur-report), its error entries and its statuses (every failed
//! operation is a 500 in 22.05). Jobs are submitted with the options
//! their properties name ([`props`]).

pub mod older;
pub mod props;

use std::sync::Arc;

use axum::extract::{Path, Query, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use spur_client::{Api, RequestError};
use spur_proto::stats::mean;
use spur_proto::{JobFields, JobInfo, JobUpdate, NodeInfo, PartitionInfo, ProtoError};
use spur_slurm::locale::Locale;

use crate::auth::Caller;
use crate::reply::{plain, text, Version};
use crate::State;

const V: Version = Version::V0038;

/// The routes of v0.0.38.
pub fn routes() -> Router<Arc<State>> {
    let base = "/slurm/v0.0.38";
    Router::new()
        .route(&format!("{base}/ping"), get(ping))
        .route(&format!("{base}/jobs"), get(jobs))
        .route(&format!("{base}/job/submit"), post(submit))
        .route(
            &format!("{base}/job/{{job_id}}"),
            get(job).post(update).delete(cancel),
        )
        .route(&format!("{base}/nodes"), get(nodes))
        .route(&format!("{base}/node/{{node_name}}"), get(node))
        .route(&format!("{base}/partitions"), get(partitions))
        .route(
            &format!("{base}/partition/{{partition_name}}"),
            get(partition),
        )
        .route(&format!("{base}/diag"), get(diag))
        .route(&format!("{base}/licenses"), get(licenses))
        .route(&format!("{base}/reservations"), get(reservations))
        .route(
            &format!("{base}/reservation/{{reservation_name}}"),
            get(reservation),
        )
}

/// An answer: `meta`, `errors`, then the document's own keys.
fn answer(
    state: &State,
    status: StatusCode,
    errors: Vec<Value>,
    rest: Map<String, Value>,
) -> Response {
    let mut doc = Map::new();
    doc.insert("meta".into(), V.meta(&state.cluster));
    doc.insert("errors".into(), Value::Array(errors));
    doc.extend(rest);
    state.settings.style.json(status, &Value::Object(doc))
}

fn ok(state: &State, rest: Map<String, Value>) -> Response {
    answer(state, StatusCode::OK, Vec::new(), rest)
}

fn keys(pairs: Vec<(&str, Value)>) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The error entry most v0.0.38 operations write (`resp_error`).
fn entry(description: &str, e: &RequestError, source: &str) -> Value {
    crate::reply::ErrorEntry::of(e, description, source).to_value()
}

/// A failed operation: 500 (22.05 has no other status for them).
fn failed(state: &State, errors: Vec<Value>, rest: Map<String, Value>) -> Response {
    answer(state, StatusCode::INTERNAL_SERVER_ERROR, errors, rest)
}

async fn ping(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    let answer = ask!(state.ask(&caller, |c| c.ping()).await);
    let host = state.controller_host(answer.as_ref().ok().map(String::as_str));
    let (word, status) = match &answer {
        Ok(_) => ("UP", 0),
        Err(e) => ("DOWN", e.errno()),
    };
    let pings = json!([{"hostname": host, "ping": word, "status": status, "mode": "primary"}]);
    ok(&state, keys(vec![("pings", pings)]))
}

/// `update_time` (jobs changed since) is not read: spur keeps no time of
/// a job's last change, so every job is listed, as Slurm lists every job
/// once anything has changed (compat/DEVIATIONS.md).
async fn jobs(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    match ask!(
        state
            .ask(&caller, |c| c.jobs(Vec::new(), JobFields::ALL, false))
            .await
    ) {
        Ok(listing) => jobs_doc(&state, listing.items).await,
        Err(e) => failed(
            &state,
            vec![entry("slurm_load_jobs error", &e, "slurm_load_jobs")],
            keys(vec![("jobs", json!([]))]),
        ),
    }
}

/// Jobs to list, each written as squeue --json writes it when reached.
struct Jobs {
    jobs: Vec<JobInfo>,
    cluster: String,
}

impl crate::listing::Records for Jobs {
    fn count(&self) -> usize {
        self.jobs.len()
    }

    fn write(&self, i: usize, w: &mut crate::listing::Writer<'_>) -> std::io::Result<()> {
        w.record(&spur_report::squeue::json::job(
            &self.jobs[i],
            &self.cluster,
        ))
    }
}

/// The jobs' document (squeue --json's), sent while it is written.
async fn jobs_doc(state: &State, jobs: Vec<JobInfo>) -> Response {
    let style = state.settings.style;
    let head = spur_report::squeue::json::document(&[], &state.cluster);
    let head = serde_json::to_value(&head).unwrap_or_default();
    let records = Jobs {
        jobs,
        cluster: state.cluster.clone(),
    };
    let body = crate::listing::body(style, head, "jobs", crate::listing::Place::Last, records);
    style.body(StatusCode::OK, body)
}

fn not_found(state: &State, id: &str, source: &str) -> Response {
    let e = RequestError::Refused(ProtoError::new(spur_proto::ErrorCode::InvalidJobId));
    failed(
        state,
        vec![entry(&format!("Unable to find JobId={id}"), &e, source)],
        keys(vec![("jobs", json!([]))]),
    )
}

async fn job(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    let Some((job_id, task)) = crate::target::job_ref(&id) else {
        return not_found(&state, &id, "slurm_xlate_job_id");
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
            let found: Vec<JobInfo> = listing
                .items
                .into_iter()
                .filter(|j| task.is_none_or(|t| j.array_task_id == Some(t)))
                .collect();
            if found.is_empty() {
                return not_found(&state, &id, "slurm_load_job");
            }
            jobs_doc(&state, found).await
        }
        Err(e) => failed(
            &state,
            vec![entry(
                &format!("Unable to find JobId={id}"),
                &e,
                "slurm_load_job",
            )],
            keys(vec![("jobs", json!([]))]),
        ),
    }
}

/// `signal`: a name (`KILL`, `SIGUSR1`) or a number.
#[derive(Debug, Deserialize)]
struct CancelQuery {
    signal: Option<String>,
}

async fn cancel(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    Query(q): Query<CancelQuery>,
) -> Response {
    let Some(signal) = crate::target::requested_signal(q.signal.as_deref()) else {
        let name = q.signal.unwrap_or_default();
        let e = RequestError::Refused(ProtoError::new(spur_proto::ErrorCode::InvalidArgument));
        return failed(
            &state,
            vec![entry(
                &format!("Unknown signal: {name}"),
                &e,
                "sig_name2num",
            )],
            Map::new(),
        );
    };
    let Some((job_id, task)) = crate::target::job_ref(&id) else {
        return not_found(&state, &id, "slurm_kill_job");
    };
    let target = crate::target::signal(job_id, task, signal, false, false);
    let result = ask!(state.ask(&caller, move |c| c.signal(target)).await);
    match crate::target::first_failure(result) {
        None => ok(&state, Map::new()),
        Some(e) => failed(
            &state,
            vec![entry(
                &format!("unable to kill JobId={id} with signal {signal}: {e}"),
                &e,
                "slurm_kill_job",
            )],
            Map::new(),
        ),
    }
}

/// The job properties an update may carry, and what they become.
fn job_update(job_id: u32, body: &Value) -> Result<JobUpdate, String> {
    let Value::Object(map) = body else {
        return Err("job description is not a dictionary".into());
    };
    let mut u = JobUpdate {
        job_id,
        ..JobUpdate::default()
    };
    for (key, value) in map {
        let lower = key.to_ascii_lowercase();
        let text = || match value {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let bad = || format!("Unable to process key \"{lower}\"");
        match lower.as_str() {
            "time_limit" => {
                let t = text().ok_or_else(bad)?;
                let limit = spur_conf::parse_time_minutes(&t).map_err(|_| bad())?;
                u.time_limit = Some(limit.map(|m| m * 60));
            }
            "partition" => u.partition = Some(text().ok_or_else(bad)?),
            "name" | "job_name" => u.name = Some(text().ok_or_else(bad)?),
            "nice" => u.nice = Some(text().ok_or_else(bad)?.parse().map_err(|_| bad())?),
            "priority" => u.priority = Some(text().ok_or_else(bad)?.parse().map_err(|_| bad())?),
            "comment" => u.comment = Some(text().ok_or_else(bad)?),
            "dependency" => u.dependency = Some(text().ok_or_else(bad)?),
            // slurmctld's update_job leaves these as they were submitted;
            // the generated client always sends them (open_mode with its
            // default, "append").
            "environment" | "argv" | "open_mode" => {}
            // A switch given as false asks for nothing (the generated
            // client sends oversubscribe=false by default).
            other if props::is_switch(other) && value == &Value::Bool(false) => {}
            other if props::keys().any(|k| k == other) => {
                return Err(format!("Updating \"{other}\" is not supported by spur"))
            }
            other => return Err(format!("Unknown key \"{other}\"")),
        }
    }
    Ok(u)
}

async fn update(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Extension(peer): Extension<crate::auth::Peer>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return plain(StatusCode::BAD_REQUEST, text::BAD_QUERY);
    };
    let Some((job_id, None)) = crate::target::job_ref(&id) else {
        return not_found(&state, &id, "_parse_job_list");
    };
    let update = match job_update(job_id, &body) {
        Ok(u) => u,
        Err(description) => {
            let e = RequestError::Refused(ProtoError::new(spur_proto::ErrorCode::NotSupported));
            return failed(
                &state,
                vec![entry(&description, &e, "_parse_job_list")],
                Map::new(),
            );
        }
    };
    let result = ask!(state.ask(&caller, move |c| c.update_job(update)).await);
    match crate::target::first_failure(result) {
        None => ok(&state, Map::new()),
        Some(e) => failed(
            &state,
            vec![entry(
                // The peer's name may take a resolver's time: off the
                // async threads.
                &format!(
                    "job update from {} failed",
                    tokio::task::spawn_blocking(move || peer.name())
                        .await
                        .unwrap_or_else(|_| "unknown".into())
                ),
                &e,
                "_parse_job_list",
            )],
            Map::new(),
        ),
    }
}

/// A submission error as v0.0.38's submit writes it.
fn submit_error(code: i32, text: &str) -> Value {
    json!({"error_code": code, "error": text})
}

/// A request body that is not a job: 400, with the reason and
/// "Failure during parsing".
fn parse_failure(state: &State, errno: i32, why: &str) -> Response {
    let reason = {
        let mut m = Map::new();
        m.insert("error".into(), why.into());
        m.insert("error_code".into(), errno.into());
        Value::Object(m)
    };
    answer(
        state,
        StatusCode::BAD_REQUEST,
        vec![reason, submit_error(9001, "Failure during parsing")],
        Map::new(),
    )
}

async fn submit(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return plain(StatusCode::BAD_REQUEST, text::BAD_QUERY);
    };
    if body.get("jobs").is_some() {
        // sbatch refuses heterogeneous jobs too.
        let e = ProtoError::new(spur_proto::ErrorCode::NotSupported);
        return parse_failure(
            &state,
            e.code.errno(),
            "heterogeneous jobs are not supported by spur",
        );
    }
    let Some(job) = body.get("job") else {
        return parse_failure(&state, 9002, "Unable to find job description");
    };
    let props = match props::read(job) {
        Ok(p) => p,
        Err(e) => return parse_failure(&state, 9001, &e.to_string()),
    };
    let Some(mut env) = props.environment.clone() else {
        return parse_failure(&state, 2127, "environment must be set");
    };
    if let Some(umask) = &props.umask {
        env.retain(|(k, _)| k != "SLURM_UMASK");
        env.push(("SLURM_UMASK".into(), umask.clone()));
    }
    let script = body
        .get("script")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let ctx = spur_options::desc::Context {
        script,
        script_path: None,
        wrap: false,
        argv: props.argv.clone(),
        env: &env,
        cwd: props.cwd.clone().unwrap_or_else(|| "/tmp".into()),
        hostname: spur_sys::short_hostname(),
        now,
    };
    let built = match spur_options::desc::from_words(&props.words, &ctx) {
        Ok(b) => b,
        Err(e) => {
            let text = e.to_string();
            let text = text.trim_end().replace("sbatch: ", "");
            return parse_failure(&state, 9001, &text);
        }
    };
    let desc = spur_proto::JobDesc {
        submit_key: crate::submit_key(&headers),
        ..built.desc
    };
    match ask!(state.ask(&caller, move |c| c.submit(desc)).await) {
        Ok(s) => ok(
            &state,
            keys(vec![
                ("job_id", s.job_id.into()),
                ("step_id", "BATCH".into()),
                ("job_submit_user_msg", "".into()),
            ]),
        ),
        Err(e) => failed(
            &state,
            vec![submit_error(e.errno(), &e.to_string())],
            Map::new(),
        ),
    }
}

async fn nodes(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    match ask!(state.ask(&caller, |c| c.nodes()).await) {
        Ok(listing) => nodes_doc(&state, &listing.items),
        Err(e) => failed(
            &state,
            vec![entry("slurm_load_node error", &e, "slurm_load_node")],
            keys(vec![("nodes", json!([]))]),
        ),
    }
}

fn nodes_doc(state: &State, nodes: &[NodeInfo]) -> Response {
    let locale = Locale::local(spur_sys::users::name_of);
    let doc = spur_report::sinfo::json::document(nodes, &locale);
    state.settings.style.json(StatusCode::OK, &doc)
}

async fn node(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(name): Path<String>,
) -> Response {
    match ask!(state.ask(&caller, |c| c.nodes()).await) {
        Ok(listing) => {
            let found: Vec<NodeInfo> = listing
                .items
                .into_iter()
                .filter(|n| n.name == name)
                .collect();
            if found.is_empty() {
                let e =
                    RequestError::Refused(ProtoError::new(spur_proto::ErrorCode::InvalidNodeName));
                return failed(
                    &state,
                    vec![entry(
                        &format!("Unable to find node {name}"),
                        &e,
                        "slurm_load_node_single",
                    )],
                    keys(vec![("nodes", json!([]))]),
                );
            }
            nodes_doc(&state, &found)
        }
        Err(e) => failed(
            &state,
            vec![entry("slurm_load_node error", &e, "slurm_load_node")],
            keys(vec![("nodes", json!([]))]),
        ),
    }
}

/// NO_VAL-style numbers of v0.0.38: null when unset, -1 when unlimited.
fn limit_minutes(secs: Option<u64>) -> Value {
    secs.map_or(json!(-1), |s| json!(s / 60))
}

fn partition_doc(p: &PartitionInfo, nodes: &[NodeInfo]) -> Value {
    let list = |l: &Option<Vec<String>>| l.as_ref().map_or(String::new(), |v| v.join(","));
    json!({
        "flags": if p.is_default { json!(["default"]) } else { json!([]) },
        // 22.05 names PreemptMode=OFF "disabled".
        "preemption_mode": [match p.preempt_mode.to_ascii_lowercase().as_str() {
            "off" => "disabled".to_string(),
            other => other.to_string(),
        }],
        "allowed_allocation_nodes": "",
        "allowed_accounts": list(&p.allow_accounts),
        "allowed_groups": list(&p.allow_groups),
        "allowed_qos": "",
        "alternative": "",
        "billing_weights": "",
        "default_memory_per_cpu": p.def_mem_per_cpu,
        "default_memory_per_node": null,
        "default_time_limit": p.default_time.map(|s| s / 60),
        "denied_accounts": "",
        "denied_qos": "",
        "preemption_grace_time": 0,
        "maximum_cpus_per_node": -1,
        "maximum_memory_per_cpu": null,
        "maximum_memory_per_node": p.max_mem_per_node,
        "maximum_nodes_per_job": p.max_nodes.map_or(json!(-1), |n| json!(n)),
        "max_time_limit": limit_minutes(p.max_time),
        "min nodes per job": p.min_nodes,
        "name": p.name,
        "nodes": p.nodes,
        "over_time_limit": null,
        "priority_job_factor": p.priority_job_factor,
        "priority_tier": p.priority_tier,
        "qos": "",
        "state": p.state,
        "total_cpus": p.total_cpus,
        "total_nodes": p.total_nodes,
        "tres": spur_report::show::node::partition_tres(p, nodes),
    })
}

async fn partitions(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    partitions_named(&state, &caller, None).await
}

async fn partition(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(name): Path<String>,
) -> Response {
    partitions_named(&state, &caller, Some(name)).await
}

async fn partitions_named(state: &Arc<State>, caller: &Caller, name: Option<String>) -> Response {
    let answer = ask!(
        state
            .ask(caller, |c| Ok::<_, RequestError>((
                c.partitions()?,
                c.nodes()?.items
            )))
            .await
    );
    match answer {
        Ok((parts, nodes)) => {
            let chosen: Vec<Value> = parts
                .iter()
                .filter(|p| name.as_ref().is_none_or(|n| *n == p.name))
                .map(|p| partition_doc(p, &nodes))
                .collect();
            if chosen.is_empty() {
                if let Some(name) = name {
                    let e = RequestError::Refused(ProtoError::new(
                        spur_proto::ErrorCode::InvalidPartitionName,
                    ));
                    return failed(
                        state,
                        vec![entry(
                            &format!("Unable to find partition {name}"),
                            &e,
                            "slurm_load_partitions",
                        )],
                        keys(vec![("partitions", json!([]))]),
                    );
                }
            }
            ok(state, keys(vec![("partitions", Value::Array(chosen))]))
        }
        Err(e) => failed(
            state,
            vec![entry(
                "slurm_load_partitions error",
                &e,
                "slurm_load_partitions",
            )],
            keys(vec![("partitions", json!([]))]),
        ),
    }
}

/// spur has no licenses: the list is empty (as Slurm's is without any).
async fn licenses(AxState(state): AxState<Arc<State>>) -> Response {
    ok(&state, keys(vec![("licenses", json!([]))]))
}

/// spur has no reservations: the list is empty.
async fn reservations(AxState(state): AxState<Arc<State>>) -> Response {
    ok(&state, keys(vec![("reservations", json!([]))]))
}

async fn reservation(AxState(state): AxState<Arc<State>>, Path(name): Path<String>) -> Response {
    let e = RequestError::Refused(ProtoError::with_detail(
        spur_proto::ErrorCode::NotSupported,
        "spur has no reservations",
    ));
    failed(
        &state,
        vec![entry(
            &format!("Unable to find reservation {name}"),
            &e,
            "slurm_load_reservations",
        )],
        keys(vec![("reservations", json!([]))]),
    )
}

async fn diag(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    let s = match ask!(state.ask(&caller, |c| c.diag()).await) {
        Ok(s) => s,
        Err(e) => {
            return failed(
                &state,
                vec![entry(
                    "slurm_get_statistics error",
                    &e,
                    "slurm_get_statistics",
                )],
                Map::new(),
            )
        }
    };
    let by_type: Vec<Value> = s
        .by_type
        .iter()
        .map(|r| {
            json!({"message_type": r.name, "type_id": r.type_id, "count": r.count,
                   "average_time": mean(r.total_us, u64::from(r.count)), "total_time": r.total_us})
        })
        .collect();
    let by_user: Vec<Value> = s
        .by_user
        .iter()
        .map(|u| {
            json!({"user": spur_sys::users::name_of(u.uid), "user_id": u.uid, "count": u.count,
                   "average_time": mean(u.total_us, u64::from(u.count)), "total_time": u.total_us})
        })
        .collect();
    let sched = &s.sched;
    let cycles = u64::from(sched.cycles);
    let minutes = (s.now.saturating_sub(s.since) / 60).max(1);
    let bf = &s.backfill;
    let bf_cycles = u64::from(bf.cycles);
    let statistics = json!({
        "rpcs_by_message_type": by_type,
        "rpcs_by_user": by_user,
        "parts_packed": 1,
        "req_time": s.now,
        "req_time_start": s.since,
        "server_thread_count": s.server_threads,
        "agent_queue_size": s.agent_queue,
        "agent_count": s.agents,
        "agent_thread_count": 0,
        "dbd_agent_queue_size": 0,
        "gettimeofday_latency": s.clock_latency_us,
        "schedule_cycle_max": sched.max_us,
        "schedule_cycle_last": sched.last_us,
        "schedule_cycle_total": sched.cycles,
        "schedule_cycle_mean": mean(sched.sum_us, cycles),
        "schedule_cycle_mean_depth": mean(sched.depth_sum, cycles),
        "schedule_cycle_per_minute": cycles / minutes,
        "schedule_queue_length": sched.last_queue_len,
        "jobs_submitted": s.jobs_submitted,
        "jobs_started": s.jobs_started,
        "jobs_completed": s.jobs_completed,
        "jobs_canceled": s.jobs_canceled,
        "jobs_failed": s.jobs_failed,
        "jobs_pending": s.jobs_pending,
        "jobs_running": s.jobs_running,
        "job_states_ts": s.now,
        "bf_backfilled_jobs": bf.jobs_total,
        "bf_last_backfilled_jobs": bf.jobs,
        "bf_backfilled_het_jobs": 0,
        "bf_cycle_counter": bf.cycles,
        "bf_cycle_mean": mean(bf.sum_us, bf_cycles),
        "bf_depth_mean": mean(bf.depth_sum, bf_cycles),
        "bf_depth_mean_try": mean(bf.depth_try_sum, bf_cycles),
        "bf_cycle_last": bf.last_us,
        "bf_cycle_max": bf.max_us,
        "bf_queue_len": bf.queue_len,
        "bf_queue_len_mean": mean(bf.queue_len_sum, bf_cycles),
        "bf_table_size": bf.table_size,
        "bf_table_size_mean": mean(bf.table_size_sum, bf_cycles),
        "bf_when_last_cycle": bf.last_when,
        "bf_active": false,
    });
    ok(&state, keys(vec![("statistics", statistics)]))
}
