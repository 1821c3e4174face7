//! The environment of a batch job: what the user exported plus every SLURM_*
//! variable Slurm sets for the batch script (see
//! ../shared/slurm-reference/81-env-batch-2node-4gpu.txt). The node adds
//! only what it alone knows (SLURMD_NODENAME, SLURM_TASK_PID, TMPDIR).

use spur_core::ArraySpec;
use spur_proto::JobInfo;

/// Cluster-wide facts the environment names.
#[derive(Debug, Clone)]
pub struct ClusterFacts {
    /// ClusterName.
    pub cluster_name: String,
    /// The slurm.conf path the daemons read.
    pub conf_path: String,
    /// The controller's address and port (SLURM_WORKING_CLUSTER).
    pub ctld_addr: String,
    /// SlurmctldPort.
    pub ctld_port: u16,
}

pub use spur_proto::counts::compress_counts;

/// The environment for the batch script of `job`, starting from the
/// exported `user_env`. What Slurm sets replaces what the user exported
/// under the same name (the supervisor keeps the last value of each name); other SLURM_* variables the
/// user had stay, as in Slurm, but not a stale GPU binding.
pub fn batch_env(
    job: &JobInfo,
    user_env: &[(String, String)],
    tasks_per_node: &[u32],
    facts: &ClusterFacts,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = user_env
        .iter()
        .filter(|(k, _)| !is_gpu_binding(k))
        .cloned()
        .collect();
    let mut set = |k: &str, v: String| env.push((k.to_string(), v));
    let gpus: Vec<u32> = job.gpus_per_node_idx.first().cloned().unwrap_or_default();
    let gpu_list = gpus
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    set("ENVIRONMENT", "BATCH".into());
    if !gpus.is_empty() {
        for k in [
            "CUDA_VISIBLE_DEVICES",
            "GPU_DEVICE_ORDINAL",
            "ROCR_VISIBLE_DEVICES",
            "ZE_AFFINITY_MASK",
        ] {
            set(k, gpu_list.clone());
        }
        set("SLURM_GPUS_ON_NODE", gpus.len().to_string());
        set("SLURM_JOB_GPUS", gpu_list.clone());
    }
    if let Some(tpn) = &job.tres_per_node {
        if let Some(n) = tpn.rsplit(':').next() {
            set("SLURM_GPUS_PER_NODE", n.to_string());
        }
    }
    set(
        "SLURM_CPUS_ON_NODE",
        job.cpus_per_node.first().copied().unwrap_or(1).to_string(),
    );
    set("SLURM_GTIDS", "0".into());
    set("SLURM_LOCALID", "0".into());
    match job.mem {
        spur_proto::MemSpec::PerCpu(mb) => set("SLURM_MEM_PER_CPU", mb.to_string()),
        spur_proto::MemSpec::PerGpu(mb) => set("SLURM_MEM_PER_GPU", mb.to_string()),
        spur_proto::MemSpec::PerNode(mb) => set("SLURM_MEM_PER_NODE", mb.to_string()),
        spur_proto::MemSpec::Default => {}
    }
    set("SLURM_NNODES", job.num_nodes.to_string());
    set("SLURM_NODEID", "0".into());
    set("SLURM_NODELIST", job.nodes.clone());
    set("SLURM_NODE_ALIASES", "(null)".into());
    set("SLURM_NPROCS", job.num_tasks.to_string());
    set("SLURM_NTASKS", job.num_tasks.to_string());
    if job.ntasks_per_node > 0 {
        set("SLURM_NTASKS_PER_NODE", job.ntasks_per_node.to_string());
    }
    set("SLURM_PRIO_PROCESS", "0".into());
    set("SLURM_PROCID", "0".into());
    // A requeued job can tell it runs again (slurmd's batch launch).
    if job.restarts > 0 {
        set("SLURM_RESTART_COUNT", job.restarts.to_string());
    }
    set("SLURM_TASKS_PER_NODE", compress_counts(tasks_per_node));
    env.extend(job_vars(job, facts));
    env
}

/// The SLURM_ARRAY_* variables of an array task: its array and task id
/// (`task`), and the count, lowest, highest id and step of the array's
/// tasks as submitted (`spec`, the parsed `--array`), which slurmctld adds
/// to the environment of every task at submission. Nothing outside an
/// array.
pub fn array_vars(task: Option<(u32, u32)>, spec: Option<&ArraySpec>) -> Vec<(String, String)> {
    let Some((array, task)) = task else {
        return Vec::new();
    };
    let mut env = vec![
        ("SLURM_ARRAY_JOB_ID".to_string(), array.to_string()),
        ("SLURM_ARRAY_TASK_ID".to_string(), task.to_string()),
    ];
    if let (Some(spec), Some(min), Some(max)) = (
        spec,
        spec.and_then(|s| s.tasks.first()),
        spec.and_then(|s| s.tasks.last()),
    ) {
        env.push((
            "SLURM_ARRAY_TASK_COUNT".into(),
            spec.tasks.len().to_string(),
        ));
        env.push(("SLURM_ARRAY_TASK_MAX".into(), max.to_string()));
        env.push(("SLURM_ARRAY_TASK_MIN".into(), min.to_string()));
        env.push(("SLURM_ARRAY_TASK_STEP".into(), spec.step.to_string()));
    }
    env
}

/// What every process of `job` is told of the job itself, batch script
/// and step tasks alike.
fn job_vars(job: &JobInfo, facts: &ClusterFacts) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let mut set = |k: &str, v: String| env.push((k.to_string(), v));
    let id = job.job_id.to_string();
    set("SLURM_CLUSTER_NAME", facts.cluster_name.clone());
    set("SLURM_CONF", facts.conf_path.clone());
    // Found by spur's commands when a tool clears the SLURM_* variables.
    set("SPUR_CONF", facts.conf_path.clone());
    if job.cpus_per_task > 1 {
        set("SLURM_CPUS_PER_TASK", job.cpus_per_task.to_string());
    }
    set("SLURM_JOBID", id.clone());
    set("SLURM_JOB_ID", id);
    if let Some(account) = &job.account {
        set("SLURM_JOB_ACCOUNT", account.clone());
    }
    set(
        "SLURM_JOB_CPUS_PER_NODE",
        compress_counts(&job.cpus_per_node),
    );
    set("SLURM_JOB_GID", job.group_id.to_string());
    set("SLURM_JOB_NAME", job.name.clone());
    set("SLURM_JOB_NODELIST", job.nodes.clone());
    set("SLURM_JOB_NUM_NODES", job.num_nodes.to_string());
    set("SLURM_JOB_PARTITION", job.partition.clone());
    set("SLURM_JOB_QOS", job.qos.clone());
    set("SLURM_JOB_UID", job.user_id.to_string());
    set("SLURM_JOB_USER", job.user_name.clone());
    set("SLURM_SUBMIT_DIR", job.work_dir.clone());
    set("SLURM_SUBMIT_HOST", job.submit_host.clone());
    set(
        "SLURM_WORKING_CLUSTER",
        format!(
            "{}:{}:{}:{}:109",
            facts.cluster_name,
            facts.ctld_addr,
            facts.ctld_port,
            spur_proto::PROTOCOL_VERSION
        ),
    );
    env
}

/// The environment every task of a step gets from the controller: the
/// job's SLURM_JOB_* facts and the step's layout (`tasks_per_node` and
/// `nodes`, the step's hostlist). The node adds what differs per node and
/// per task (SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURMD_NODENAME,
/// SLURM_TASK_PID, the GPUs).
pub fn step_env(
    job: &JobInfo,
    step_id: u32,
    nodes: &str,
    tasks_per_node: &[u32],
    facts: &ClusterFacts,
) -> Vec<(String, String)> {
    let mut env = job_vars(job, facts);
    let mut set = |k: &str, v: String| env.push((k.to_string(), v));
    let ntasks: u32 = tasks_per_node.iter().sum();
    set("SLURM_NNODES", tasks_per_node.len().to_string());
    // The job's nodes, as srun leaves them (the step's are
    // SLURM_STEP_NODELIST).
    set("SLURM_NODELIST", job.nodes.clone());
    set("SLURM_NPROCS", ntasks.to_string());
    set("SLURM_NTASKS", ntasks.to_string());
    set("SLURM_PRIO_PROCESS", "0".into());
    set("SLURM_STEPID", step_id.to_string());
    set("SLURM_STEP_ID", step_id.to_string());
    set("SLURM_STEP_NODELIST", nodes.to_string());
    set("SLURM_STEP_NUM_NODES", tasks_per_node.len().to_string());
    set("SLURM_STEP_NUM_TASKS", ntasks.to_string());
    set("SLURM_STEP_TASKS_PER_NODE", compress_counts(tasks_per_node));
    set("SLURM_TASKS_PER_NODE", compress_counts(tasks_per_node));
    env
}

/// The variables that bind a job to its GPUs: Slurm's GPU plugin sets
/// them for the GPUs a job or step holds and removes any the submitter
/// had, so that no process uses GPUs it was not given.
pub fn is_gpu_binding(key: &str) -> bool {
    matches!(
        key,
        "CUDA_VISIBLE_DEVICES"
            | "GPU_DEVICE_ORDINAL"
            | "ROCR_VISIBLE_DEVICES"
            | "ZE_AFFINITY_MASK"
            | "SLURM_JOB_GPUS"
            | "SLURM_STEP_GPUS"
            | "SLURM_GPUS_ON_NODE"
    )
}

/// The GPU bindings a step's tasks get from their node, in place of what
/// srun had: all but SLURM_JOB_GPUS, which tasks inherit from the batch
/// script or salloc that ran srun, as in Slurm.
pub fn is_step_gpu_binding(key: &str) -> bool {
    is_gpu_binding(key) && key != "SLURM_JOB_GPUS"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_tasks_get_slurms_array_variables() {
        let spec = spur_core::parse_array("1-9:2%2", 1001)
            .expect("valid")
            .expect("an array");
        let env = array_vars(Some((24, 5)), Some(&spec));
        let want = [
            ("SLURM_ARRAY_JOB_ID", "24"),
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "5"),
            ("SLURM_ARRAY_TASK_MAX", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ];
        let got: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
        let spec = spur_core::parse_array("0,3,7-8", 1001).unwrap().unwrap();
        let env = array_vars(Some((24, 3)), Some(&spec));
        assert_eq!(
            env[2..],
            [
                ("SLURM_ARRAY_TASK_COUNT".to_string(), "4".to_string()),
                ("SLURM_ARRAY_TASK_MAX".to_string(), "8".to_string()),
                ("SLURM_ARRAY_TASK_MIN".to_string(), "0".to_string()),
                ("SLURM_ARRAY_TASK_STEP".to_string(), "1".to_string()),
            ]
        );
        assert!(array_vars(None, Some(&spec)).is_empty());
        // A task whose array's expression cannot be read again still
        // knows its ids.
        assert_eq!(array_vars(Some((24, 3)), None).len(), 2);
    }
}
