//! A job as the data_parser versions write it (`job_info`): every key of
//! the version's schema, in its order, with the values squeue, scontrol and
//! sacct show for the same job; keys spur holds no data for carry what
//! Slurm writes for an unset field. The versions differ in a handful of
//! keys, each decided here.

use serde_json::{json, Map, Value};

use spur_proto::{ExclusiveMode, JobInfo, JobStateName, MemSpec};

use super::value::{limit, maybe, set, unset};
use crate::reply::Version;

/// `process_exit_code_verbose` of a wait status's parts.
pub fn exit_code(code: i32, signal: i32, ended: bool) -> Value {
    let status = if !ended {
        "PENDING"
    } else if signal != 0 {
        "SIGNALED"
    } else if code != 0 {
        "ERROR"
    } else {
        "SUCCESS"
    };
    let signal_part = if signal != 0 {
        json!({"id": set(signal), "name": spur_slurm::signal::num2name(signal)})
    } else {
        json!({"id": unset(), "name": ""})
    };
    json!({
        "status": [status],
        "return_code": if ended { set(code) } else { unset() },
        "signal": signal_part,
    })
}

fn is_ended(state: JobStateName) -> bool {
    !matches!(
        state,
        JobStateName::Pending | JobStateName::Running | JobStateName::Completing
    )
}

/// `shared`: what `--exclusive`/`--oversubscribe` left.
fn shared(mode: ExclusiveMode) -> Value {
    match mode {
        ExclusiveMode::No => json!([]),
        ExclusiveMode::Node => json!(["none"]),
        ExclusiveMode::User => json!(["user"]),
        ExclusiveMode::Topo => json!(["topo"]),
    }
}

/// `job_resources`, for a job that holds nodes.
fn resources(j: &JobInfo) -> Value {
    let names = spur_conf::hostlist::expand(&j.nodes).unwrap_or_default();
    let allocation: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let cpus = j.cpus_per_node.get(i).copied().unwrap_or(0);
            let gpus = j.gpus_per_node_idx.get(i).map_or(0, |g| g.len() as u64);
            let memory = match j.mem {
                MemSpec::PerNode(m) => m,
                MemSpec::PerCpu(m) => m * u64::from(cpus),
                MemSpec::PerGpu(m) => m * gpus,
                MemSpec::Default => 0,
            };
            json!({
                "index": i,
                "name": name,
                "cpus": {"count": cpus, "used": cpus},
                "memory": {"used": memory, "allocated": memory},
                "sockets": [],
            })
        })
        .collect();
    json!({
        "select_type": ["CORE"],
        "nodes": {
            "count": names.len(),
            "select_type": ["AVAILABLE"],
            "list": j.nodes,
            "whole": j.exclusive != ExclusiveMode::No,
            "allocation": allocation,
        },
        "cpus": j.num_cpus,
        "threads_per_core": set(1),
    })
}

fn minutes(secs: Option<u64>) -> Option<u64> {
    secs.map(|s| s / 60)
}

/// Builds one job's `job_info` for version `v`.
pub fn job_info(j: &JobInfo, cluster: &str, v: Version) -> Value {
    let s = |o: &Option<String>| o.clone().unwrap_or_default();
    let started = !j.nodes.is_empty() && j.state != JobStateName::Pending;
    let ended = is_ended(j.state);
    let tres = j.tres.map(|t| t.job_text()).unwrap_or_default();
    let held = j.state == JobStateName::Pending && j.reason.starts_with("JobHeld");
    let (mem_node, mem_cpu) = match j.mem {
        MemSpec::PerNode(m) => (Some(m), None),
        MemSpec::PerCpu(m) => (None, Some(m)),
        MemSpec::PerGpu(_) | MemSpec::Default => (None, None),
    };
    let unlimited_end = match (j.state, j.time_limit, j.start_time) {
        (JobStateName::Running, None, Some(start)) => Some(start + 365 * 86_400),
        _ => None,
    };
    let gres_detail: Vec<String> = j
        .gpus_per_node_idx
        .iter()
        .filter(|idx| !idx.is_empty())
        .map(|idx| format!("gpu:{}(IDX:{})", idx.len(), spur_slurm::print::bit_fmt(idx)))
        .collect();
    let mut m = Map::new();
    let mut put = |k: &str, val: Value| {
        m.insert(k.to_string(), val);
    };
    put("account", s(&j.account).into());
    put("accrue_time", set(j.eligible_time));
    put("admin_comment", "".into());
    put("allocating_node", j.submit_host.clone().into());
    put("array_job_id", set(j.array_job_id.unwrap_or(0)));
    put("array_task_id", maybe(j.array_task_id.map(u64::from)));
    put("array_max_tasks", set(j.array_task_throttle));
    put("array_task_string", s(&j.array_task_str).into());
    put("association_id", 0.into());
    put("batch_features", "".into());
    put("batch_flag", j.batch.into());
    put("batch_host", s(&j.batch_host).into());
    put(
        "flags",
        if started {
            json!(["JOB_WAS_RUNNING"])
        } else {
            json!([])
        },
    );
    put("burst_buffer", "".into());
    put("burst_buffer_state", "".into());
    put("cluster", cluster.into());
    put("cluster_features", "".into());
    put("command", s(&j.command).into());
    put("comment", s(&j.comment).into());
    put("container", "".into());
    put("container_id", "".into());
    put("contiguous", j.contiguous.into());
    put("core_spec", 0.into());
    put("thread_spec", 0.into());
    put("cores_per_socket", unset());
    let billable = j.tres.map_or(j.num_cpus, |t| t.billing);
    put("billable_tres", set(f64::from(billable)));
    put("cpus_per_task", set(j.cpus_per_task));
    put("cpu_frequency_minimum", unset());
    put("cpu_frequency_maximum", unset());
    put("cpu_frequency_governor", unset());
    put("cpus_per_tres", "".into());
    put("cron", "".into());
    put("deadline", set(j.deadline.unwrap_or(0)));
    put("delay_boot", set(0));
    put("dependency", s(&j.dependency).into());
    put("derived_exit_code", exit_code(0, 0, ended));
    put("eligible_time", set(j.eligible_time));
    put("end_time", set(j.end_time.or(unlimited_end).unwrap_or(0)));
    put("excluded_nodes", s(&j.exc_nodes).into());
    put("exit_code", exit_code(j.exit_code, j.exit_signal, ended));
    put("extra", "".into());
    put("failed_node", "".into());
    put("features", s(&j.features).into());
    put("federation_origin", "".into());
    put("federation_siblings_active", "".into());
    put("federation_siblings_viable", "".into());
    put("gres_detail", gres_detail.into());
    put("group_id", j.group_id.into());
    put("group_name", j.group_name.clone().into());
    put("het_job_id", set(0));
    put("het_job_id_set", "".into());
    put("het_job_offset", unset());
    put("job_id", j.job_id.into());
    if started {
        put("job_resources", resources(j));
    }
    put("job_size_str", json!([]));
    put("job_state", json!([j.state.as_str()]));
    put("last_sched_evaluation", set(j.last_sched_eval.unwrap_or(0)));
    put("licenses", "".into());
    if v >= Version::V0043 {
        put("licenses_allocated", "".into());
    }
    put("mail_type", json!([]));
    put("mail_user", "".into());
    put("max_cpus", set(0));
    put("max_nodes", set(0));
    put("mcs_label", "".into());
    put("memory_per_tres", "".into());
    put("name", j.name.clone().into());
    put("network", "".into());
    put("nodes", j.nodes.clone().into());
    put("nice", j.nice.into());
    put("tasks_per_core", unset());
    put("tasks_per_tres", unset());
    put(
        "tasks_per_node",
        maybe((j.ntasks_per_node > 0).then_some(u64::from(j.ntasks_per_node))),
    );
    put("tasks_per_socket", unset());
    put("tasks_per_board", unset());
    put("cpus", set(j.num_cpus));
    put("node_count", set(j.num_nodes));
    put("tasks", set(j.num_tasks));
    put("partition", j.partition.clone().into());
    put("prefer", "".into());
    put("memory_per_cpu", maybe(mem_cpu));
    put("memory_per_node", maybe(mem_node));
    put(
        "minimum_cpus_per_node",
        set(j.cpus_per_task.max(1) * j.ntasks_per_node.max(1)),
    );
    put("minimum_tmp_disk_per_node", set(0));
    if v <= Version::V0044 {
        put("power", json!({"flags": []}));
    }
    put("preempt_time", set(0));
    put("preemptable_time", set(0));
    put("pre_sus_time", set(0));
    put("hold", held.into());
    put("priority", set(j.priority));
    if v >= Version::V0042 {
        put("priority_by_partition", json!([]));
    }
    put("profile", json!(["NOT_SET"]));
    put("qos", j.qos.clone().into());
    put("reboot", false.into());
    put("required_nodes", s(&j.req_nodes).into());
    if v >= Version::V0042 {
        put("required_switches", 0.into());
    } else {
        put("minimum_switches", 0.into());
    }
    put("requeue", j.requeue.into());
    put("resize_time", set(0));
    put("restart_cnt", j.restarts.into());
    put("resv_name", "".into());
    put("scheduled_nodes", s(&j.sched_nodes).into());
    if v >= Version::V0043 {
        put("segment_size", 0.into());
    }
    put("selinux_context", "".into());
    put("shared", shared(j.exclusive));
    if v == Version::V0041 {
        let exclusive = match j.exclusive {
            ExclusiveMode::No => json!(["false"]),
            ExclusiveMode::Node => json!(["true"]),
            ExclusiveMode::User => json!(["user"]),
            ExclusiveMode::Topo => json!(["topo"]),
        };
        put("exclusive", exclusive);
        put("oversubscribe", (j.exclusive == ExclusiveMode::No).into());
        put("show_flags", json!(["ALL", "DETAIL", "LOCAL"]));
    }
    if v >= Version::V0044 {
        put(
            "step_id",
            json!({"sluid": "", "job_id": set(j.job_id), "step_het_component": unset(), "step_id": ""}),
        );
    }
    put("sockets_per_board", 0.into());
    put("sockets_per_node", unset());
    put("start_time", set(j.start_time.unwrap_or(0)));
    put("state_description", "".into());
    put("state_reason", j.reason.clone().into());
    put("standard_input", j.stdin.clone().into());
    put("standard_output", j.stdout.clone().into());
    put("standard_error", j.stderr.clone().into());
    if v >= Version::V0043 {
        put("stdin_expanded", j.stdin.clone().into());
        put("stdout_expanded", j.stdout.clone().into());
        put("stderr_expanded", j.stderr.clone().into());
    }
    put("submit_time", set(j.submit_time));
    if v >= Version::V0044 {
        put("submit_line", "".into());
    }
    put("suspend_time", set(0));
    put("system_comment", "".into());
    put("time_limit", limit(minutes(j.time_limit)));
    put("time_minimum", set(minutes(j.time_min).unwrap_or(0)));
    put("threads_per_core", unset());
    put("tres_bind", "".into());
    put("tres_freq", "".into());
    put("tres_per_job", s(&j.tres_per_job).into());
    put("tres_per_node", s(&j.tres_per_node).into());
    put("tres_per_socket", "".into());
    put("tres_per_task", s(&j.tres_per_task).into());
    put("tres_req_str", tres.clone().into());
    put(
        "tres_alloc_str",
        if started { tres } else { String::new() }.into(),
    );
    put("user_id", j.user_id.into());
    put("user_name", j.user_name.clone().into());
    put("maximum_switch_wait_time", 0.into());
    put("wckey", "".into());
    put("current_working_directory", j.work_dir.clone().into());
    if v >= Version::V0045 {
        put("container_type", "".into());
        put("memory_update_delay", 0.into());
        put("memory_update_margin", 0.into());
    }
    Value::Object(m)
}
