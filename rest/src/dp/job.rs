//! A job as the data_parser versions write it (`job_info`): every key of
//! the version's schema, in its order, with the values squeue, scontrol and
//! sacct show for the same job; keys spur holds no data for carry what
//! Slurm writes for an unset field. The versions differ in a handful of
//! keys, each decided here.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

use spur_proto::{ExclusiveMode, JobInfo, JobStateName, MemSpec};

use super::value::Wrapped as W;
use crate::reply::Version;

/// `process_exit_code_verbose`.
#[derive(Debug, Serialize)]
pub struct ExitCode {
    status: [&'static str; 1],
    return_code: W,
    signal: ExitSignal,
}

/// `process_exit_code_verbose.signal`.
#[derive(Debug, Serialize)]
struct ExitSignal {
    id: W,
    name: String,
}

/// `process_exit_code_verbose` of a wait status's parts.
pub fn exit_code(code: i32, signal: i32, ended: bool) -> ExitCode {
    let status = if !ended {
        "PENDING"
    } else if signal != 0 {
        "SIGNALED"
    } else if code != 0 {
        "ERROR"
    } else {
        "SUCCESS"
    };
    ExitCode {
        status: [status],
        return_code: if ended { W::of(code) } else { W::unset() },
        signal: if signal != 0 {
            ExitSignal {
                id: W::of(signal),
                name: spur_slurm::signal::num2name(signal),
            }
        } else {
            ExitSignal {
                id: W::unset(),
                name: String::new(),
            }
        },
    }
}

/// `power` (no power management).
#[derive(Debug, Serialize)]
struct Power {
    flags: [&'static str; 0],
}

/// `slurm_step_id` of a job.
#[derive(Debug, Serialize)]
struct StepId {
    sluid: &'static str,
    job_id: W,
    step_het_component: W,
    step_id: &'static str,
}

fn is_ended(state: JobStateName) -> bool {
    !matches!(
        state,
        JobStateName::Pending | JobStateName::Running | JobStateName::Completing
    )
}

/// `shared`: what `--exclusive`/`--oversubscribe` left.
fn shared(mode: ExclusiveMode) -> &'static [&'static str] {
    match mode {
        ExclusiveMode::No => &[],
        ExclusiveMode::Node => &["none"],
        ExclusiveMode::User => &["user"],
        ExclusiveMode::Topo => &["topo"],
    }
}

/// The memory (MiB) a job holds on its `i`th node.
pub fn node_memory(j: &JobInfo, i: usize) -> u64 {
    let cpus = j.cpus_per_node.get(i).copied().unwrap_or(0);
    let gpus = j.gpus_per_node_idx.get(i).map_or(0, |g| g.len() as u64);
    match j.mem {
        MemSpec::PerNode(m) => m,
        MemSpec::PerCpu(m) => m * u64::from(cpus),
        MemSpec::PerGpu(m) => m * gpus,
        MemSpec::Default => 0,
    }
}

/// `job_resources`, for a job that holds nodes.
fn resources(j: &JobInfo, v: Version) -> Value {
    let names = spur_conf::hostlist::expand(&j.nodes).unwrap_or_default();
    let allocation: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let cpus = j.cpus_per_node.get(i).copied().unwrap_or(0);
            let memory = node_memory(j, i);
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
        "select_type": if v >= Version::V0045 { json!(["CR_CORE_MEMORY"]) } else { json!(["CORE"]) },
        "nodes": {
            "count": names.len(),
            "select_type": ["AVAILABLE"],
            "list": j.nodes,
            "whole": j.exclusive != ExclusiveMode::No,
            "allocation": allocation,
        },
        "cpus": j.num_cpus,
        "threads_per_core": W::of(1),
    })
}

fn minutes(secs: Option<u64>) -> Option<u64> {
    secs.map(|s| s / 60)
}

/// One job's `job_info` in version `v`, written straight to the
/// serializer (a listing of 10,000 jobs builds no JSON tree).
#[derive(Debug, Clone, Copy)]
pub struct JobInfoDoc<'a> {
    /// The job.
    pub job: &'a JobInfo,
    /// The cluster's name.
    pub cluster: &'a str,
    /// The version.
    pub v: Version,
}

impl Serialize for JobInfoDoc<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        write(&mut m, self.job, self.cluster, self.v)?;
        m.end()
    }
}

/// Jobs to list, each written as its `job_info` when reached.
pub struct Jobs {
    /// The jobs.
    pub jobs: Vec<JobInfo>,
    /// The cluster's name.
    pub cluster: String,
    /// The version.
    pub v: Version,
}

impl crate::listing::Records for Jobs {
    fn count(&self) -> usize {
        self.jobs.len()
    }

    fn write(&self, i: usize, w: &mut crate::listing::Writer<'_>) -> std::io::Result<()> {
        w.record(&JobInfoDoc {
            job: &self.jobs[i],
            cluster: &self.cluster,
            v: self.v,
        })
    }
}

fn write<M: SerializeMap>(
    m: &mut M,
    j: &JobInfo,
    cluster: &str,
    v: Version,
) -> Result<(), M::Error> {
    fn s(o: &Option<String>) -> &str {
        o.as_deref().unwrap_or("")
    }
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
    let none: [&str; 0] = [];
    let empty = "";
    m.serialize_entry("account", s(&j.account))?;
    m.serialize_entry("accrue_time", &W::of(j.eligible_time))?;
    m.serialize_entry("admin_comment", empty)?;
    m.serialize_entry("allocating_node", &j.submit_host)?;
    m.serialize_entry("array_job_id", &W::of(j.array_job_id.unwrap_or(0)))?;
    m.serialize_entry("array_task_id", &W::maybe(j.array_task_id.map(u64::from)))?;
    m.serialize_entry("array_max_tasks", &W::of(j.array_task_throttle))?;
    m.serialize_entry("array_task_string", s(&j.array_task_str))?;
    m.serialize_entry("association_id", &0)?;
    m.serialize_entry("batch_features", empty)?;
    m.serialize_entry("batch_flag", &j.batch)?;
    m.serialize_entry("batch_host", s(&j.batch_host))?;
    // The data_parser names 22.05's JOB_ACCRUE_OVER ACCRUE_COUNT_CLEARED.
    let flags: Vec<&str> = spur_report::squeue::json::flags(j)
        .iter()
        .map(|f| match *f {
            "JOB_ACCRUE_OVER" => "ACCRUE_COUNT_CLEARED",
            other => other,
        })
        .collect();
    m.serialize_entry("flags", &flags)?;
    m.serialize_entry("burst_buffer", empty)?;
    m.serialize_entry("burst_buffer_state", empty)?;
    m.serialize_entry("cluster", cluster)?;
    m.serialize_entry("cluster_features", empty)?;
    m.serialize_entry("command", s(&j.command))?;
    m.serialize_entry("comment", s(&j.comment))?;
    m.serialize_entry("container", empty)?;
    m.serialize_entry("container_id", empty)?;
    m.serialize_entry("contiguous", &j.contiguous)?;
    m.serialize_entry("core_spec", &0)?;
    m.serialize_entry("thread_spec", &0)?;
    m.serialize_entry("cores_per_socket", &W::unset())?;
    let billable = j.tres.map_or(j.num_cpus, |t| t.billing);
    m.serialize_entry("billable_tres", &W::float(f64::from(billable)))?;
    m.serialize_entry("cpus_per_task", &W::of(j.cpus_per_task))?;
    m.serialize_entry("cpu_frequency_minimum", &W::unset())?;
    m.serialize_entry("cpu_frequency_maximum", &W::unset())?;
    m.serialize_entry("cpu_frequency_governor", &W::unset())?;
    m.serialize_entry("cpus_per_tres", empty)?;
    m.serialize_entry("cron", empty)?;
    m.serialize_entry("deadline", &W::of(j.deadline.unwrap_or(0)))?;
    m.serialize_entry("delay_boot", &W::of(0))?;
    m.serialize_entry("dependency", s(&j.dependency))?;
    m.serialize_entry("derived_exit_code", &exit_code(0, 0, ended))?;
    m.serialize_entry("eligible_time", &W::of(j.eligible_time))?;
    m.serialize_entry(
        "end_time",
        &W::of(j.end_time.or(unlimited_end).unwrap_or(0)),
    )?;
    m.serialize_entry("excluded_nodes", s(&j.exc_nodes))?;
    m.serialize_entry("exit_code", &exit_code(j.exit_code, j.exit_signal, ended))?;
    m.serialize_entry("extra", empty)?;
    m.serialize_entry("failed_node", empty)?;
    m.serialize_entry("features", s(&j.features))?;
    m.serialize_entry("federation_origin", empty)?;
    m.serialize_entry("federation_siblings_active", empty)?;
    m.serialize_entry("federation_siblings_viable", empty)?;
    m.serialize_entry("gres_detail", &gres_detail)?;
    m.serialize_entry("group_id", &j.group_id)?;
    m.serialize_entry("group_name", &j.group_name)?;
    m.serialize_entry("het_job_id", &W::of(0))?;
    m.serialize_entry("het_job_id_set", empty)?;
    m.serialize_entry("het_job_offset", &W::unset())?;
    m.serialize_entry("job_id", &j.job_id)?;
    if started {
        m.serialize_entry("job_resources", &resources(j, v))?;
    }
    m.serialize_entry("job_size_str", &none)?;
    m.serialize_entry("job_state", &[j.state.as_str()])?;
    m.serialize_entry(
        "last_sched_evaluation",
        &W::of(j.last_sched_eval.unwrap_or(0)),
    )?;
    m.serialize_entry("licenses", empty)?;
    if v >= Version::V0043 {
        m.serialize_entry("licenses_allocated", empty)?;
    }
    m.serialize_entry("mail_type", &none)?;
    m.serialize_entry("mail_user", empty)?;
    m.serialize_entry("max_cpus", &W::of(0))?;
    m.serialize_entry("max_nodes", &W::of(0))?;
    m.serialize_entry("mcs_label", empty)?;
    m.serialize_entry("memory_per_tres", empty)?;
    m.serialize_entry("name", &j.name)?;
    m.serialize_entry("network", empty)?;
    m.serialize_entry("nodes", &j.nodes)?;
    m.serialize_entry("nice", &j.nice)?;
    m.serialize_entry("tasks_per_core", &W::unset())?;
    m.serialize_entry("tasks_per_tres", &W::unset())?;
    let per_node = (j.ntasks_per_node > 0).then_some(u64::from(j.ntasks_per_node));
    m.serialize_entry("tasks_per_node", &W::maybe(per_node))?;
    m.serialize_entry("tasks_per_socket", &W::unset())?;
    m.serialize_entry("tasks_per_board", &W::unset())?;
    m.serialize_entry("cpus", &W::of(j.num_cpus))?;
    m.serialize_entry("node_count", &W::of(j.num_nodes))?;
    m.serialize_entry("tasks", &W::of(j.num_tasks))?;
    m.serialize_entry("partition", &j.partition)?;
    m.serialize_entry("prefer", empty)?;
    m.serialize_entry("memory_per_cpu", &W::maybe(mem_cpu))?;
    m.serialize_entry("memory_per_node", &W::maybe(mem_node))?;
    let min_cpus = j.cpus_per_task.max(1) * j.ntasks_per_node.max(1);
    m.serialize_entry("minimum_cpus_per_node", &W::of(min_cpus))?;
    m.serialize_entry("minimum_tmp_disk_per_node", &W::of(0))?;
    if v <= Version::V0044 {
        m.serialize_entry("power", &Power { flags: [] })?;
    }
    m.serialize_entry("preempt_time", &W::of(0))?;
    m.serialize_entry("preemptable_time", &W::of(0))?;
    m.serialize_entry("pre_sus_time", &W::of(0))?;
    m.serialize_entry("hold", &held)?;
    m.serialize_entry("priority", &W::of(j.priority))?;
    if v >= Version::V0042 {
        m.serialize_entry("priority_by_partition", &none)?;
    }
    m.serialize_entry("profile", &["NOT_SET"])?;
    m.serialize_entry("qos", &j.qos)?;
    m.serialize_entry("reboot", &false)?;
    m.serialize_entry("required_nodes", s(&j.req_nodes))?;
    if v >= Version::V0042 {
        m.serialize_entry("required_switches", &0)?;
    } else {
        m.serialize_entry("minimum_switches", &0)?;
    }
    m.serialize_entry("requeue", &j.requeue)?;
    m.serialize_entry("resize_time", &W::of(0))?;
    m.serialize_entry("restart_cnt", &j.restarts)?;
    m.serialize_entry("resv_name", empty)?;
    m.serialize_entry("scheduled_nodes", s(&j.sched_nodes))?;
    if v >= Version::V0043 {
        m.serialize_entry("segment_size", &0)?;
    }
    m.serialize_entry("selinux_context", empty)?;
    m.serialize_entry("shared", &shared(j.exclusive))?;
    if v == Version::V0041 {
        let exclusive = match j.exclusive {
            ExclusiveMode::No => "false",
            ExclusiveMode::Node => "true",
            ExclusiveMode::User => "user",
            ExclusiveMode::Topo => "topo",
        };
        m.serialize_entry("exclusive", &[exclusive])?;
        m.serialize_entry("oversubscribe", &(j.exclusive == ExclusiveMode::No))?;
        m.serialize_entry("show_flags", &["ALL", "DETAIL", "LOCAL"])?;
    }
    if v >= Version::V0044 {
        let step = StepId {
            sluid: "",
            job_id: W::of(j.job_id),
            step_het_component: W::unset(),
            step_id: "",
        };
        m.serialize_entry("step_id", &step)?;
    }
    m.serialize_entry("sockets_per_board", &0)?;
    m.serialize_entry("sockets_per_node", &W::unset())?;
    m.serialize_entry("start_time", &W::of(j.start_time.unwrap_or(0)))?;
    m.serialize_entry("state_description", empty)?;
    m.serialize_entry("state_reason", &j.reason)?;
    m.serialize_entry("standard_input", &j.stdin)?;
    m.serialize_entry("standard_output", &j.stdout)?;
    m.serialize_entry("standard_error", &j.stderr)?;
    if v >= Version::V0043 {
        m.serialize_entry("stdin_expanded", &j.stdin)?;
        m.serialize_entry("stdout_expanded", &j.stdout)?;
        m.serialize_entry("stderr_expanded", &j.stderr)?;
    }
    m.serialize_entry("submit_time", &W::of(j.submit_time))?;
    if v >= Version::V0044 {
        m.serialize_entry("submit_line", empty)?;
    }
    m.serialize_entry("suspend_time", &W::of(0))?;
    m.serialize_entry("system_comment", empty)?;
    m.serialize_entry("time_limit", &W::limit(minutes(j.time_limit)))?;
    m.serialize_entry("time_minimum", &W::of(minutes(j.time_min).unwrap_or(0)))?;
    m.serialize_entry("threads_per_core", &W::unset())?;
    m.serialize_entry("tres_bind", empty)?;
    m.serialize_entry("tres_freq", empty)?;
    m.serialize_entry("tres_per_job", s(&j.tres_per_job))?;
    m.serialize_entry("tres_per_node", s(&j.tres_per_node))?;
    m.serialize_entry("tres_per_socket", empty)?;
    m.serialize_entry("tres_per_task", s(&j.tres_per_task))?;
    m.serialize_entry("tres_req_str", &tres)?;
    m.serialize_entry(
        "tres_alloc_str",
        if started { tres.as_str() } else { empty },
    )?;
    m.serialize_entry("user_id", &j.user_id)?;
    m.serialize_entry("user_name", &j.user_name)?;
    m.serialize_entry("maximum_switch_wait_time", &0)?;
    m.serialize_entry("wckey", empty)?;
    m.serialize_entry("current_working_directory", &j.work_dir)?;
    if v >= Version::V0045 {
        m.serialize_entry("container_type", empty)?;
        m.serialize_entry("memory_update_delay", &0)?;
        m.serialize_entry("memory_update_margin", &0)?;
    }
    Ok(())
}
