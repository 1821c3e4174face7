//! slurmrestd's openapi/v0.0.38 documents: `/nodes/` (`sinfo --json`) and
//! `/jobs/` (`squeue --json`).

use serde::Serialize;

use super::Meta;

/// The `/nodes/` document (and `sinfo --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Nodes {
    /// `meta`.
    pub meta: Meta,
    /// `errors` (none when the document is written).
    pub errors: Vec<String>,
    /// `nodes`.
    pub nodes: Vec<Node>,
}

/// One node, as `_dump_node` in openapi/v0.0.38 writes it; each field is
/// the key of the same name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub architecture: Option<String>,
    pub burstbuffer_network_address: String,
    pub boards: i64,
    pub boot_time: i64,
    pub comment: String,
    pub cores: i64,
    pub cpu_binding: i64,
    pub cpu_load: i64,
    pub extra: String,
    pub free_memory: i64,
    pub cpus: i64,
    pub last_busy: i64,
    pub features: String,
    pub active_features: String,
    pub gres: String,
    pub gres_drained: String,
    pub gres_used: String,
    pub mcs_label: String,
    pub name: String,
    pub next_state_after_reboot: String,
    pub address: String,
    pub hostname: String,
    pub state: String,
    pub state_flags: Vec<String>,
    pub next_state_after_reboot_flags: Vec<String>,
    pub operating_system: Option<String>,
    pub owner: Option<String>,
    pub partitions: Vec<String>,
    pub port: i64,
    pub real_memory: i64,
    pub reason: String,
    pub reason_changed_at: i64,
    pub reason_set_by_user: Option<String>,
    pub slurmd_start_time: i64,
    pub sockets: i64,
    pub threads: i64,
    pub temporary_disk: i64,
    pub weight: i64,
    pub tres: String,
    pub slurmd_version: Option<String>,
    pub alloc_memory: i64,
    pub alloc_cpus: i64,
    pub idle_cpus: i64,
    pub tres_used: Option<String>,
    pub tres_weighted: f64,
}

/// The `/jobs/` document (and `squeue --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Jobs<'a> {
    /// `meta`.
    pub meta: Meta,
    /// `errors`.
    pub errors: Vec<String>,
    /// `jobs`.
    pub jobs: Vec<Job<'a>>,
}

/// `job_resources` of a job holding nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resources<'a> {
    pub nodes: &'a str,
    pub allocated_cores: u32,
    pub allocated_hosts: u32,
    pub allocated_nodes: Vec<AllocNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AllocNode {
    /// Core positions are not reported by spur: an empty map.
    pub sockets: std::collections::BTreeMap<String, u32>,
    pub nodename: String,
    pub cpus_used: u32,
    pub memory_used: u64,
    pub memory_allocated: u64,
}

/// One job, as `_dump_job` in openapi/v0.0.38 writes it (`/jobs/` and
/// `squeue --json`); each field is the key of the same name, in Slurm's
/// order.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Job<'a> {
    pub account: &'a str,
    pub accrue_time: u64,
    pub admin_comment: &'a str,
    pub array_job_id: u32,
    pub array_task_id: Option<u32>,
    pub array_max_tasks: u32,
    pub array_task_string: &'a str,
    pub association_id: u32,
    pub batch_features: &'a str,
    pub batch_flag: bool,
    pub batch_host: &'a str,
    pub flags: Vec<&'static str>,
    pub burst_buffer: &'a str,
    pub burst_buffer_state: &'a str,
    pub cluster: &'a str,
    pub cluster_features: &'a str,
    pub command: &'a str,
    pub comment: &'a str,
    pub container: &'a str,
    pub contiguous: bool,
    pub core_spec: Option<u32>,
    pub thread_spec: Option<u32>,
    pub cores_per_socket: Option<u32>,
    pub billable_tres: f64,
    pub cpus_per_task: Option<u32>,
    pub cpu_frequency_minimum: Option<u32>,
    pub cpu_frequency_maximum: Option<u32>,
    pub cpu_frequency_governor: Option<u32>,
    pub cpus_per_tres: &'a str,
    pub deadline: u64,
    pub delay_boot: u64,
    pub dependency: &'a str,
    pub derived_exit_code: i32,
    pub eligible_time: u64,
    pub end_time: u64,
    pub excluded_nodes: &'a str,
    pub exit_code: i32,
    pub features: &'a str,
    pub federation_origin: &'a str,
    pub federation_siblings_active: &'a str,
    pub federation_siblings_viable: &'a str,
    pub gres_detail: Vec<String>,
    pub group_id: u32,
    pub group_name: &'a str,
    pub job_id: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_resources: Option<Resources<'a>>,
    pub job_state: &'static str,
    pub last_sched_evaluation: u64,
    pub licenses: &'a str,
    pub max_cpus: u32,
    pub max_nodes: u32,
    pub mcs_label: &'a str,
    pub memory_per_tres: &'a str,
    pub name: &'a str,
    pub nodes: &'a str,
    pub nice: Option<i32>,
    pub tasks_per_core: Option<u32>,
    pub tasks_per_node: u32,
    pub tasks_per_socket: Option<u32>,
    pub tasks_per_board: u32,
    pub cpus: u32,
    pub node_count: u32,
    pub tasks: u32,
    pub het_job_id: u32,
    pub het_job_id_set: &'a str,
    pub het_job_offset: u32,
    pub partition: &'a str,
    pub prefer: &'a str,
    pub memory_per_node: Option<u64>,
    pub memory_per_cpu: Option<u64>,
    pub minimum_cpus_per_node: u32,
    pub minimum_tmp_disk_per_node: u32,
    pub preempt_time: u64,
    pub pre_sus_time: u64,
    pub priority: u32,
    pub profile: Option<Vec<&'static str>>,
    pub qos: &'a str,
    pub reboot: bool,
    pub required_nodes: &'a str,
    pub requeue: bool,
    pub resize_time: u64,
    pub restart_cnt: u32,
    pub resv_name: &'a str,
    pub shared: Option<&'static str>,
    pub show_flags: [&'static str; 3],
    pub sockets_per_board: u32,
    pub sockets_per_node: Option<u32>,
    pub start_time: u64,
    pub state_description: &'a str,
    pub state_reason: &'a str,
    pub standard_error: &'a str,
    pub standard_input: &'a str,
    pub standard_output: &'a str,
    pub submit_time: u64,
    pub suspend_time: u64,
    pub system_comment: &'a str,
    pub time_limit: Option<u64>,
    pub time_minimum: u64,
    pub threads_per_core: Option<u32>,
    pub tres_bind: &'a str,
    pub tres_freq: &'a str,
    pub tres_per_job: &'a str,
    pub tres_per_node: &'a str,
    pub tres_per_socket: &'a str,
    pub tres_per_task: &'a str,
    pub tres_req_str: String,
    pub tres_alloc_str: String,
    pub user_id: u32,
    pub user_name: &'a str,
    pub wckey: &'a str,
    pub current_working_directory: &'a str,
}
