//! A job of spur's history as the data_parser versions write slurmdbd's
//! `job` (the `/slurmdb/` jobs paths): every key of the version's schema,
//! in its order, with the values sacct shows for the same job and step;
//! keys spur records nothing for carry what slurmdbd writes for an unset
//! field. The versions differ in a handful of keys, each decided here.

use serde_json::{json, Map, Value};

use spur_proto::{HistoryJob, HistoryStep, JobStateName, StepId, Tres};
use spur_report::sacct::field::{job_cpu, job_elapsed, step_elapsed};
use spur_report::sacct::json::tres_counts;

use super::job::exit_code;
use super::value::Wrapped as W;
use crate::reply::Version;

/// What a job's record needs besides the job.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The cluster's name.
    pub cluster: &'a str,
    /// The controller's clock, for the elapsed time of running jobs.
    pub now: u64,
    /// The version.
    pub v: Version,
}

/// One TRES of a list.
fn tres_item((kind, name, id, count): (&str, Option<&str>, i64, u64)) -> Value {
    json!({"type": kind, "name": name.unwrap_or(""), "id": id, "count": count})
}

/// `tres_list`.
fn tres(t: &Tres) -> Value {
    tres_counts(t).into_iter().map(tres_item).collect()
}

/// `{seconds, microseconds}` of a CPU time.
fn cpu_time(us: u64) -> Value {
    json!({"seconds": us / 1_000_000, "microseconds": us % 1_000_000})
}

/// What a step's tasks took in (`output` false, `requested`) or put out
/// (`consumed`), by figure; empty lists when nothing was sampled.
fn usage(st: &HistoryStep, output: bool) -> Value {
    use spur_report::usage::{tres_items, Pick};
    let list = |pick| -> Value {
        st.usage
            .as_ref()
            .map(|u| tres_items(u, output, pick))
            .unwrap_or_default()
            .into_iter()
            .map(tres_item)
            .collect()
    };
    json!({
        "max": list(Pick::Max),
        "min": list(Pick::Min),
        "average": list(Pick::Ave),
        "total": list(Pick::Tot),
    })
}

fn ended(state: JobStateName) -> bool {
    state.is_finished()
}

/// A time limit in minutes (None: INFINITE).
fn limit(secs: Option<u64>) -> W {
    W::limit(secs.map(|s| s.div_ceil(60)))
}

fn step(job: &HistoryJob, st: &HistoryStep, ctx: &Ctx) -> Value {
    let v = ctx.v;
    let mut time = Map::new();
    time.insert("elapsed".into(), step_elapsed(st, ctx.now).into());
    time.insert("end".into(), W::maybe(st.end_time).into());
    time.insert("start".into(), W::of(st.start_time).into());
    time.insert("suspended".into(), 0.into());
    time.insert("system".into(), cpu_time(st.system_cpu_us));
    if v >= Version::V0043 {
        time.insert("limit".into(), limit(job.time_limit).into());
    }
    time.insert("total".into(), cpu_time(st.user_cpu_us + st.system_cpu_us));
    time.insert("user".into(), cpu_time(st.user_cpu_us));

    let step_name = match st.step {
        StepId::Numbered(n) => n.to_string(),
        other => other.to_string(),
    };
    let mut id = Map::new();
    id.insert("id".into(), format!("{}.{step_name}", job.job_id).into());
    id.insert("name".into(), st.name.clone().into());
    if v >= Version::V0043 {
        for key in [
            "stderr",
            "stdin",
            "stdout",
            "stderr_expanded",
            "stdin_expanded",
            "stdout_expanded",
        ] {
            id.insert(key.into(), "".into());
        }
    }

    let mut m = Map::new();
    m.insert("time".into(), Value::Object(time));
    m.insert(
        "exit_code".into(),
        serde_json::to_value(exit_code(st.exit_code, st.exit_signal, ended(st.state)))
            .expect("plain data serializes"),
    );
    m.insert(
        "nodes".into(),
        json!({
            "count": st.node_count,
            "range": st.nodes,
            "list": spur_conf::hostlist::expand(&st.nodes).unwrap_or_default(),
        }),
    );
    m.insert("tasks".into(), json!({"count": st.ntasks}));
    if v <= Version::V0044 {
        m.insert("pid".into(), "".into());
    }
    m.insert(
        "CPU".into(),
        json!({
            "requested_frequency": {"min": W::unset(), "max": W::unset()},
            "governor": "",
        }),
    );
    m.insert(
        "kill_request_user".into(),
        st.cancelled_by
            .map(spur_sys::users::name_of)
            .unwrap_or_default()
            .into(),
    );
    m.insert("state".into(), json!([st.state.as_str()]));
    m.insert(
        "statistics".into(),
        json!({"CPU": {"actual_frequency": 0}, "energy": {"consumed": W::of(0)}}),
    );
    m.insert("step".into(), Value::Object(id));
    m.insert(
        "task".into(),
        json!({"distribution": st.layout.clone().unwrap_or_else(|| "Unknown".into())}),
    );
    m.insert(
        "tres".into(),
        json!({
            "requested": usage(st, false),
            "consumed": usage(st, true),
            "allocated": tres(&st.allocated),
        }),
    );
    if v >= Version::V0045 {
        m.insert("submit_line".into(), "".into());
    }
    Value::Object(m)
}

/// One job of the history with the steps given for it, in `ctx.v`'s shape.
pub fn job(j: &HistoryJob, steps: &[&HistoryStep], ctx: &Ctx) -> Value {
    let v = ctx.v;
    let account = j.account.clone().unwrap_or_default();
    // Every ended step counts, whichever are shown.
    let (user_us, system_us) = job_cpu(j);
    let planned = match (j.start_time, j.eligible_time) {
        (Some(start), Some(eligible)) => W::of(start.saturating_sub(eligible)),
        _ => W::unset(),
    };
    let (per_cpu, per_node) = if j.req_mem_per_cpu {
        (W::of(j.req_mem_mb), W::unset())
    } else {
        (W::unset(), W::of(j.req_mem_mb))
    };
    let held = j.state == JobStateName::Pending && j.reason.starts_with("JobHeld");
    let flags: &[&str] = if j.start_time.is_some() {
        &["CLEAR_SCHEDULING", "STARTED_ON_SCHEDULE"]
    } else {
        &[]
    };
    let mut reservation = json!({"id": 0, "name": ""});
    if v >= Version::V0043 {
        reservation["requested"] = "".into();
    }

    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.into(), value);
    };
    put("account", account.clone().into());
    put(
        "comment",
        json!({"administrator": "", "job": j.comment.clone().unwrap_or_default(), "system": ""}),
    );
    put(
        "allocation_nodes",
        j.allocated.map_or(0, |a| a.nodes).into(),
    );
    put(
        "array",
        json!({
            "job_id": j.array_job_id.unwrap_or(0),
            "limits": {"max": {"running": {"tasks": 0}}},
            "task_id": W::maybe(j.array_task_id.map(u64::from)),
            "task": j.array_task_str.clone().unwrap_or_default(),
        }),
    );
    put(
        "association",
        json!({
            "account": account,
            "cluster": ctx.cluster,
            "partition": "",
            "user": j.user_name,
            "id": 0,
        }),
    );
    put("block", "".into());
    put("cluster", ctx.cluster.into());
    put(
        "constraints",
        j.constraints.clone().unwrap_or_default().into(),
    );
    put("container", "".into());
    put(
        "derived_exit_code",
        serde_json::to_value(exit_code(
            j.derived_exit_code,
            j.derived_exit_signal,
            ended(j.state),
        ))
        .expect("plain data serializes"),
    );
    put(
        "time",
        json!({
            "elapsed": job_elapsed(j, ctx.now),
            "eligible": j.eligible_time.unwrap_or(0),
            "end": j.end_time.unwrap_or(0),
            "planned": planned,
            "start": j.start_time.unwrap_or(0),
            "submission": j.submit_time,
            "suspended": 0,
            "system": cpu_time(system_us),
            "limit": limit(j.time_limit),
            "total": cpu_time(user_us + system_us),
            "user": cpu_time(user_us),
        }),
    );
    put(
        "exit_code",
        serde_json::to_value(exit_code(j.exit_code, j.exit_signal, ended(j.state)))
            .expect("plain data serializes"),
    );
    put("extra", "".into());
    put("failed_node", "".into());
    put("flags", json!(flags));
    put("group", j.group_name.clone().into());
    put("het", json!({"job_id": 0, "job_offset": W::unset()}));
    put("job_id", j.job_id.into());
    put("name", j.name.clone().into());
    put("licenses", "".into());
    put("mcs", json!({"label": ""}));
    put("nodes", j.nodes.clone().into());
    put("partition", j.partition.clone().into());
    put("hold", held.into());
    put("priority", W::of(j.priority).into());
    put("qos", j.qos.clone().into());
    if v >= Version::V0042 {
        put("qosreq", j.qos.clone().into());
    }
    put(
        "required",
        json!({
            "CPUs": j.requested.cpus,
            "memory_per_cpu": per_cpu,
            "memory_per_node": per_node,
        }),
    );
    put(
        "kill_request_user",
        j.cancelled_by
            .map(spur_sys::users::name_of)
            .unwrap_or_default()
            .into(),
    );
    if v >= Version::V0042 {
        put("restart_cnt", 0.into());
    }
    put("reservation", reservation);
    put("script", "".into());
    if v >= Version::V0043 {
        put("segment_size", 0.into());
    }
    for key in [
        "stdin_expanded",
        "stdout_expanded",
        "stderr_expanded",
        "stdout",
        "stderr",
        "stdin",
    ] {
        put(key, "".into());
    }
    put(
        "state",
        json!({"current": [j.state.as_str()], "reason": j.reason}),
    );
    put("steps", steps.iter().map(|st| step(j, st, ctx)).collect());
    put("submit_line", "".into());
    put(
        "tres",
        json!({
            "allocated": j.allocated.map_or_else(|| json!([]), |a| tres(&a)),
            "requested": tres(&j.requested),
        }),
    );
    put("used_gres", "".into());
    put("user", j.user_name.clone().into());
    put("wckey", json!({"wckey": "", "flags": []}));
    put("working_directory", j.work_dir.clone().into());
    if v >= Version::V0045 {
        for key in ["sluid", "exclusive", "oversubscribe", "original_sluid"] {
            put(key, "".into());
        }
    }
    Value::Object(m)
}
