//! Nodes, partitions and the configuration as the controller reports them to
//! sinfo and scontrol.

use serde::{Deserialize, Serialize};

/// Slurm's base node state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeBaseState {
    /// IDLE.
    Idle,
    /// MIXED.
    Mixed,
    /// ALLOCATED.
    Allocated,
    /// DOWN.
    Down,
    /// UNKNOWN: not registered yet.
    Unknown,
}

impl NodeBaseState {
    /// The upper-case name (`scontrol show node`).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeBaseState::Idle => "IDLE",
            NodeBaseState::Mixed => "MIXED",
            NodeBaseState::Allocated => "ALLOCATED",
            NodeBaseState::Down => "DOWN",
            NodeBaseState::Unknown => "UNKNOWN",
        }
    }
}

/// A node as sinfo and scontrol see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// NodeName.
    pub name: String,
    /// NodeAddr.
    pub addr: String,
    /// NodeHostName.
    pub hostname: String,
    /// Port.
    pub port: u16,
    /// The base state.
    pub state: NodeBaseState,
    /// DRAIN flag (DRAINING while jobs run, DRAINED after).
    pub drain: bool,
    /// COMPLETING flag: a job is being ended there.
    pub completing: bool,
    /// NOT_RESPONDING flag (`*` in sinfo).
    pub not_responding: bool,
    /// CPUTot.
    pub cpus: u32,
    /// CPUAlloc.
    pub cpus_alloc: u32,
    /// Boards.
    pub boards: u32,
    /// Sockets.
    pub sockets: u32,
    /// CoresPerSocket.
    pub cores_per_socket: u32,
    /// ThreadsPerCore.
    pub threads_per_core: u32,
    /// RealMemory in MiB.
    pub real_memory: u64,
    /// AllocMem in MiB.
    pub alloc_mem: u64,
    /// FreeMem in MiB, as the agent last reported it.
    pub free_mem: Option<u64>,
    /// CPULoad, as the agent last reported it.
    pub cpu_load: Option<f64>,
    /// TmpDisk in MiB.
    pub tmp_disk: u64,
    /// Gres, e.g. `gpu:4` or `gpu:h100:8`.
    pub gres: String,
    /// GPU indices allocated.
    pub gpus_alloc: Vec<u32>,
    /// The number of GPUs.
    pub gpus: u32,
    /// AvailableFeatures.
    pub features: Vec<String>,
    /// Partitions holding the node.
    pub partitions: Vec<String>,
    /// Reason of the last DOWN or DRAIN.
    pub reason: Option<String>,
    /// Who set the reason (uid) and when.
    pub reason_set: Option<(u32, u64)>,
    /// Weight.
    pub weight: u32,
    /// Arch, as the agent reported it.
    pub arch: Option<String>,
    /// OS, as the agent reported it.
    pub os: Option<String>,
    /// The agent's version.
    pub version: Option<String>,
    /// BootTime.
    pub boot_time: Option<u64>,
    /// SlurmdStartTime: when the agent registered.
    pub agent_start_time: Option<u64>,
    /// LastBusyTime.
    pub last_busy: Option<u64>,
    /// The switch path for SLURM_TOPOLOGY_ADDR, e.g. `spine.nvl01.gb001`.
    pub topology_addr: Option<String>,
}

impl NodeInfo {
    /// CfgTRES: `cpu=144,mem=880000M,billing=144,gres/gpu=4`.
    pub fn cfg_tres(&self) -> String {
        let mut parts = vec![
            format!("cpu={}", self.cpus),
            format!("mem={}", spur_slurm::units::memory(self.real_memory, false)),
            format!("billing={}", self.cpus),
        ];
        if self.gpus > 0 && !self.gres.is_empty() {
            parts.extend(gpu_tres(&self.gres, self.gpus as usize));
        }
        parts.join(",")
    }

    /// AllocTRES: `cpu=5,mem=20G,gres/gpu=4`; empty when nothing is in use.
    pub fn alloc_tres(&self) -> String {
        let mut parts = Vec::new();
        if self.cpus_alloc > 0 {
            parts.push(format!("cpu={}", self.cpus_alloc));
        }
        if self.alloc_mem > 0 {
            parts.push(format!(
                "mem={}",
                spur_slurm::units::memory(self.alloc_mem, false)
            ));
        }
        if !self.gpus_alloc.is_empty() && !self.gres.is_empty() {
            parts.extend(gpu_tres(&self.gres, self.gpus_alloc.len()));
        }
        parts.join(",")
    }

    /// GresUsed: the GRES with the count in use (`gpu:h100:2`), `(null)`
    /// for a node without GRES.
    pub fn gres_used(&self) -> String {
        if self.gres.is_empty() {
            return "(null)".to_string();
        }
        let used = self.gpus_alloc.len();
        let mut parts: Vec<&str> = self.gres.split(':').collect();
        parts.pop();
        format!("{}:{used}", parts.join(":"))
    }

    /// The state word Slurm would report for the node: its base state
    /// and the flags spur sets (`NODE_STATE_*`).
    pub fn state_word(&self) -> u32 {
        use spur_slurm::node_state as ns;
        let mut word = match self.state {
            NodeBaseState::Unknown => ns::UNKNOWN,
            NodeBaseState::Down => ns::DOWN,
            NodeBaseState::Idle => ns::IDLE,
            NodeBaseState::Allocated => ns::ALLOCATED,
            NodeBaseState::Mixed => ns::MIXED,
        };
        if self.drain {
            word |= ns::DRAIN;
        }
        if self.completing {
            word |= ns::COMPLETING;
        }
        if self.not_responding {
            word |= ns::NO_RESPOND;
        }
        word
    }
}

/// A partition as sinfo and scontrol see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionInfo {
    /// PartitionName.
    pub name: String,
    /// Nodes, as a hostlist.
    pub nodes: String,
    /// Default=YES.
    pub is_default: bool,
    /// MaxTime in seconds (None: UNLIMITED).
    pub max_time: Option<u64>,
    /// DefaultTime in seconds.
    pub default_time: Option<u64>,
    /// MaxNodes (None: UNLIMITED).
    pub max_nodes: Option<u32>,
    /// MinNodes.
    pub min_nodes: u32,
    /// State: UP, DOWN, DRAIN, INACTIVE.
    pub state: String,
    /// PriorityTier.
    pub priority_tier: u32,
    /// PriorityJobFactor.
    pub priority_job_factor: u32,
    /// OverSubscribe: NO, YES, EXCLUSIVE, FORCE (with `:N`).
    pub oversubscribe: String,
    /// AllowAccounts (None: ALL).
    pub allow_accounts: Option<Vec<String>>,
    /// AllowGroups (None: ALL).
    pub allow_groups: Option<Vec<String>>,
    /// TotalCPUs.
    pub total_cpus: u32,
    /// TotalNodes.
    pub total_nodes: u32,
    /// PreemptMode.
    pub preempt_mode: String,
    /// DefMemPerCPU in MiB, if set.
    pub def_mem_per_cpu: Option<u64>,
    /// MaxMemPerNode in MiB (None: UNLIMITED).
    pub max_mem_per_node: Option<u64>,
}

/// The running configuration (`scontrol show config`, libslurm's
/// `slurm_load_ctl_conf`): the controller's slurm.conf as it read it, and
/// what only its host knows. The key/value text is made at the edge
/// ([`spur_slurm::config::entries`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigInfo {
    /// When the configuration was loaded.
    pub loaded_at: u64,
    /// slurm.conf, typed.
    pub conf: Box<spur_conf::SlurmConf>,
    /// The controller's host and state.
    pub facts: spur_slurm::config::HostFacts,
}

/// The GPU part of a TRES string: `gres/gpu=4` (and `gres/gpu:h100=4` for
/// a typed GRES).
fn gpu_tres(gres: &str, count: usize) -> Vec<String> {
    let mut parts = gres.split(':');
    let name = parts.next().unwrap_or("gpu");
    let rest: Vec<&str> = parts.collect();
    let mut out = vec![format!("gres/{name}={count}")];
    if rest.len() >= 2 {
        out.push(format!("gres/{name}:{}={count}", rest[0]));
    }
    out
}

/// An NVLink domain (a base block of topology/block) and its GPUs, for the
/// cluster map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomainInfo {
    /// The block's name (topology.conf `BlockName`).
    pub name: String,
    /// Its nodes, in topology.conf order.
    pub nodes: Vec<String>,
    /// GPUs of its nodes.
    pub gpus: u32,
    /// Held by jobs.
    pub alloc: u32,
    /// Free on nodes that take work.
    pub idle: u32,
    /// Idle while jobs wait for resources and none could take part here.
    pub stranded: u32,
}
