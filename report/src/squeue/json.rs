//! `squeue --json`: the jobs in the shape Slurm 22.05 prints (the
//! slurmrestd v0.0.38 job dump: `meta`, `errors`, `jobs` with every key in
//! Slurm's order). Keys spur holds no data for carry the value Slurm gives
//! an unset field. Pure: rows in, text out.

use spur_proto::{ExclusiveMode, JobInfo, JobStateName, MemSpec};
use spur_slurm::openapi::v0038::{AllocNode, Job, Jobs, Resources};
use spur_slurm::openapi::Meta;

/// The document for `rows` (slurmrestd's v0.0.38 `/jobs/` answer),
/// `cluster` being the ClusterName.
pub fn document<'a>(rows: &'a [JobInfo], cluster: &'a str) -> Jobs<'a> {
    Jobs {
        meta: Meta::v0038(spur_proto::SLURM_COMPAT_VERSION),
        errors: Vec::new(),
        jobs: rows.iter().map(|j| job(j, cluster)).collect(),
    }
}

/// `squeue --json` for `rows`, `cluster` being the ClusterName.
pub fn render_json(rows: &[JobInfo], cluster: &str) -> String {
    spur_slurm::openapi::document_text(&document(rows, cluster))
}

/// A job's `flags` as slurmctld 22.05 shows them: a job no longer
/// pending has stopped accruing age (`JOB_ACCRUE_OVER`), and one still on
/// its nodes `JOB_WAS_RUNNING`, which its end clears.
pub fn flags(j: &JobInfo) -> &'static [&'static str] {
    match j.state {
        JobStateName::Pending => &[],
        JobStateName::Running | JobStateName::Completing if !j.nodes.is_empty() => {
            &["JOB_ACCRUE_OVER", "JOB_WAS_RUNNING"]
        }
        _ => &["JOB_ACCRUE_OVER"],
    }
}

/// One job of the document.
pub fn job<'a>(j: &'a JobInfo, cluster: &'a str) -> Job<'a> {
    let s = |o: &'a Option<String>| o.as_deref().unwrap_or("");
    let started = !j.nodes.is_empty() && j.state != JobStateName::Pending;
    let mut out = Job {
        account: s(&j.account),
        array_job_id: j.array_job_id.unwrap_or(0),
        array_task_id: j.array_task_id,
        // The array's throttle, on every job of it (slurmctld packs the
        // array's max_run_tasks with each task).
        array_max_tasks: j.array_task_throttle,
        array_task_string: s(&j.array_task_str),
        batch_flag: j.batch,
        batch_host: s(&j.batch_host),
        flags: flags(j).to_vec(),
        cluster,
        command: s(&j.command),
        comment: s(&j.comment),
        contiguous: j.contiguous,
        dependency: s(&j.dependency),
        excluded_nodes: s(&j.exc_nodes),
        exit_code: (j.exit_code << 8) | (j.exit_signal & 0x7f),
        features: s(&j.features),
        group_id: j.group_id,
        group_name: &j.group_name,
        job_id: j.job_id,
        job_state: j.state.as_str(),
        name: &j.name,
        nodes: &j.nodes,
        nice: (j.nice != 0).then_some(j.nice),
        partition: &j.partition,
        priority: j.priority,
        qos: &j.qos,
        required_nodes: s(&j.req_nodes),
        requeue: j.requeue,
        restart_cnt: j.restarts,
        shared: shared(j.exclusive),
        show_flags: ["SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"],
        state_reason: &j.reason,
        standard_error: &j.stderr,
        standard_input: &j.stdin,
        standard_output: &j.stdout,
        user_id: j.user_id,
        user_name: &j.user_name,
        current_working_directory: &j.work_dir,
        ..Job::default()
    };
    times(&mut out, j);
    requests(&mut out, j, started);
    out
}

/// The points in time and durations.
fn times<'a>(out: &mut Job<'a>, j: &'a JobInfo) {
    out.accrue_time = j.eligible_time;
    out.eligible_time = j.eligible_time;
    // Slurm's end of a job without a limit: a year after its start.
    let unlimited_end = match (j.state, j.time_limit, j.start_time) {
        (JobStateName::Running, None, Some(start)) => start + 365 * 86_400,
        _ => 0,
    };
    out.end_time = j.end_time.unwrap_or(unlimited_end);
    out.last_sched_evaluation = j.last_sched_eval.unwrap_or(0);
    out.start_time = j.start_time.unwrap_or(0);
    out.submit_time = j.submit_time;
    out.time_limit = j.time_limit.map(|t| t / 60);
    out.time_minimum = j.time_min.unwrap_or(0) / 60;
}

/// What the job asked for and holds.
fn requests<'a>(out: &mut Job<'a>, j: &'a JobInfo, started: bool) {
    let s = |o: &'a Option<String>| o.as_deref().unwrap_or("");
    (out.memory_per_node, out.memory_per_cpu) = match j.mem {
        MemSpec::PerNode(m) => (Some(m), None),
        MemSpec::PerCpu(m) => (None, Some(m)),
        MemSpec::PerGpu(_) | MemSpec::Default => (None, None),
    };
    out.billable_tres = billable(j);
    out.gres_detail = gres_detail(j);
    out.job_resources = started.then(|| resources(j));
    out.tasks_per_node = j.ntasks_per_node;
    out.cpus = j.num_cpus;
    out.node_count = j.num_nodes;
    out.tasks = j.num_tasks;
    out.minimum_cpus_per_node = j.cpus_per_task.max(1) * j.ntasks_per_node.max(1);
    out.tres_per_job = s(&j.tres_per_job);
    out.tres_per_node = s(&j.tres_per_node);
    out.tres_per_task = s(&j.tres_per_task);
    let tres = j.tres.map(|t| t.job_text()).unwrap_or_default();
    out.tres_alloc_str = if started { tres.clone() } else { String::new() };
    out.tres_req_str = tres;
}

/// The TRES's billing, else the CPUs.
fn billable(j: &JobInfo) -> f64 {
    f64::from(j.tres.map_or(j.num_cpus, |t| t.billing))
}

fn shared(mode: ExclusiveMode) -> Option<&'static str> {
    match mode {
        ExclusiveMode::No => None,
        ExclusiveMode::Node | ExclusiveMode::Topo => Some("none"),
        ExclusiveMode::User => Some("user"),
    }
}

/// `gpu:4(IDX:0-3)` for each allocated node holding GPUs.
fn gres_detail(j: &JobInfo) -> Vec<String> {
    j.gpus_per_node_idx
        .iter()
        .filter(|idx| !idx.is_empty())
        .map(|idx| {
            let ids: Vec<u32> = idx.clone();
            format!(
                "gpu:{}(IDX:{})",
                ids.len(),
                spur_slurm::print::bit_fmt(&ids)
            )
        })
        .collect()
}

fn resources(j: &JobInfo) -> Resources<'_> {
    let names = spur_conf::hostlist::expand(&j.nodes).unwrap_or_default();
    let nodes = names
        .into_iter()
        .enumerate()
        .map(|(i, nodename)| {
            let cpus = j.cpus_per_node.get(i).copied().unwrap_or(0);
            let gpus = j.gpus_per_node_idx.get(i).map_or(0, |g| g.len() as u64);
            let memory_allocated = match j.mem {
                MemSpec::PerNode(m) => m,
                MemSpec::PerCpu(m) => m * u64::from(cpus),
                MemSpec::PerGpu(m) => m * gpus,
                MemSpec::Default => 0,
            };
            AllocNode {
                sockets: Default::default(),
                nodename,
                cpus_used: 0,
                memory_used: 0,
                memory_allocated,
            }
        })
        .collect();
    Resources {
        nodes: &j.nodes,
        allocated_cores: j.num_cpus,
        allocated_hosts: j.num_nodes,
        allocated_nodes: nodes,
    }
}
