//! `scontrol show node` and `show partition`: records laid out as Slurm
//! 22.05's `slurm_sprint_node_table` (`src/api/node_info.c`) and
//! `slurm_sprint_partition_info` (`src/api/partition_info.c`) do. Pure.

use spur_slurm::locale::Locale;
use spur_slurm::node_state;

use super::ShowOpts;
use spur_proto::{NodeInfo, PartitionInfo};

/// What `show node` needs besides the node.
#[derive(Debug, Clone, Copy)]
pub struct NodeView<'a> {
    /// SlurmdPort: a node's Port= is printed only when it differs.
    pub slurmd_port: u16,
    /// Times and users.
    pub locale: &'a Locale,
}

fn or_null(s: &str) -> &str {
    if s.is_empty() {
        "(null)"
    } else {
        s
    }
}

/// One node's record.
pub fn render_node(node: &NodeInfo, opts: ShowOpts, view: NodeView<'_>) -> String {
    let end = opts.line_end();
    let mut out = format!("NodeName={} ", node.name);
    if let Some(arch) = &node.arch {
        out.push_str(&format!("Arch={arch} "));
    }
    out.push_str(&format!("CoresPerSocket={} {end}", node.cores_per_socket));
    let load = node
        .cpu_load
        .map_or_else(|| "N/A".to_string(), |l| format!("{l:.2}"));
    out.push_str(&format!(
        "CPUAlloc={} CPUEfctv={} CPUTot={} CPULoad={load}{end}",
        node.cpus_alloc, node.cpus, node.cpus
    ));
    let features = node.features.join(",");
    out.push_str(&format!("AvailableFeatures={}{end}", or_null(&features)));
    out.push_str(&format!("ActiveFeatures={}{end}", or_null(&features)));
    out.push_str(&format!("Gres={}{end}", or_null(&node.gres)));
    out.push_str(&address_line(node, view.slurmd_port, end));
    if let Some(os) = &node.os {
        out.push_str(&format!("OS={os} {end}"));
    }
    let free = node
        .free_mem
        .map_or_else(|| "N/A".to_string(), |f| f.to_string());
    out.push_str(&format!(
        "RealMemory={} AllocMem={} FreeMem={free} Sockets={} Boards={}{end}",
        node.real_memory, node.alloc_mem, node.sockets, node.boards
    ));
    out.push_str(&format!(
        "State={} ThreadsPerCore={} TmpDisk={} Weight={} Owner=N/A MCS_label=N/A{end}",
        node_state::complete_name(node.state_word()),
        node.threads_per_core,
        node.tmp_disk,
        node.weight
    ));
    if !node.partitions.is_empty() {
        out.push_str(&format!("Partitions={} {end}", node.partitions.join(",")));
    }
    out.push_str(&times(node, end, view.locale));
    out.push_str(&format!("CfgTRES={}{end}", node.cfg_tres()));
    out.push_str(&format!("AllocTRES={}{end}", node.alloc_tres()));
    out.push_str(&format!("CapWatts=n/a{end}CurrentWatts=0 AveWatts=0{end}"));
    out.push_str("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
    out.push_str(&reason(node, end, view.locale));
    out.push_str(opts.record_end());
    out
}

fn times(node: &NodeInfo, end: &str, locale: &Locale) -> String {
    let time = |t: Option<u64>, none: &str| match t {
        Some(t) if t > 0 => (locale.timestamp)(t),
        _ => none.to_string(),
    };
    format!(
        "BootTime={} SlurmdStartTime={}{end}LastBusyTime={}{end}",
        time(node.boot_time, "None"),
        time(node.agent_start_time, "None"),
        time(node.last_busy, "Unknown")
    )
}

fn address_line(node: &NodeInfo, slurmd_port: u16, end: &str) -> String {
    let mut line = format!("NodeAddr={} NodeHostName={} ", node.addr, node.hostname);
    if node.port != slurmd_port {
        line.push_str(&format!("Port={} ", node.port));
    }
    if let Some(v) = &node.version {
        line.push_str(&format!("Version={v}"));
    }
    line.push_str(end);
    line
}

/// `Reason=text [user@time]`, further lines of the text indented.
fn reason(node: &NodeInfo, end: &str, locale: &Locale) -> String {
    let Some(text) = node.reason.as_deref().filter(|r| !r.is_empty()) else {
        return String::new();
    };
    let mut out = String::new();
    for (i, line) in text.split('\n').filter(|l| !l.is_empty()).enumerate() {
        out.push_str(end);
        if i == 0 {
            out.push_str("Reason=");
        } else {
            out.push_str("       ");
        }
        out.push_str(line);
        if i == 0 {
            if let Some((uid, at)) = node.reason_set.filter(|(_, at)| *at > 0) {
                let user = (locale.user_name)(uid);
                out.push_str(&format!(" [{user}@{}]", (locale.timestamp)(at)));
            }
        }
    }
    out
}

/// One partition's record; `nodes` are all nodes (for the TRES line).
pub fn render_partition(part: &PartitionInfo, nodes: &[NodeInfo], opts: ShowOpts) -> String {
    render_partition_with_tres(part, &partition_tres(part, nodes), opts)
}

/// One partition's record with its TRES line given (libslurm's records
/// carry it as `tres_fmt_str`).
pub fn render_partition_with_tres(part: &PartitionInfo, tres: &str, opts: ShowOpts) -> String {
    let end = opts.line_end();
    let all = |v: &Option<Vec<String>>| v.as_ref().map_or("ALL".to_string(), |l| l.join(","));
    let limit =
        |t: Option<u64>, none: &str| t.map_or(none.to_string(), spur_slurm::time::duration_full);
    let mut out = format!("PartitionName={}{end}", part.name);
    out.push_str(&format!(
        "AllowGroups={} AllowAccounts={} AllowQos=ALL{end}",
        all(&part.allow_groups),
        all(&part.allow_accounts)
    ));
    let default = if part.is_default { "YES" } else { "NO" };
    out.push_str(&format!("AllocNodes=ALL Default={default} QoS=N/A{end}"));
    out.push_str(&format!(
        "DefaultTime={} DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO{end}",
        limit(part.default_time, "NONE")
    ));
    let max_nodes = part
        .max_nodes
        .map_or_else(|| "UNLIMITED".to_string(), |n| n.to_string());
    out.push_str(&format!(
        "MaxNodes={max_nodes} MaxTime={} MinNodes={} LLN=NO MaxCPUsPerNode=UNLIMITED{end}",
        limit(part.max_time, "UNLIMITED"),
        part.min_nodes
    ));
    out.push_str(&format!("Nodes={}{end}", part.nodes));
    out.push_str(&format!(
        "PriorityJobFactor={} PriorityTier={} RootOnly=NO ReqResv=NO OverSubscribe={}{end}",
        part.priority_job_factor, part.priority_tier, part.oversubscribe
    ));
    out.push_str(&format!(
        "OverTimeLimit=NONE PreemptMode={}{end}",
        part.preempt_mode
    ));
    out.push_str(&format!(
        "State={} TotalCPUs={} TotalNodes={} SelectTypeParameters=NONE{end}",
        part.state, part.total_cpus, part.total_nodes
    ));
    out.push_str(&format!("JobDefaults=(null){end}"));
    out.push_str(&memory_line(part));
    out.push_str(end);
    out.push_str(&format!("TRES={tres}"));
    out.push_str(opts.record_end());
    out
}

fn memory_line(part: &PartitionInfo) -> String {
    let def = part.def_mem_per_cpu.map_or_else(
        || "DefMemPerNode=UNLIMITED".to_string(),
        |m| format!("DefMemPerCPU={m}"),
    );
    let max = part.max_mem_per_node.map_or_else(
        || "MaxMemPerNode=UNLIMITED".to_string(),
        |m| format!("MaxMemPerNode={m}"),
    );
    format!("{def} {max}")
}

/// `cpu=10368,mem=61875G,node=72,billing=10368,gres/gpu=288`.
pub fn partition_tres(part: &PartitionInfo, nodes: &[NodeInfo]) -> String {
    let members: Vec<&NodeInfo> = nodes
        .iter()
        .filter(|n| n.partitions.contains(&part.name))
        .collect();
    let mem: u64 = members.iter().map(|n| n.real_memory).sum();
    let gpus: u64 = members.iter().map(|n| u64::from(n.gpus)).sum();
    let mut tres = format!(
        "cpu={},mem={},node={},billing={}",
        part.total_cpus,
        spur_slurm::units::memory(mem, false),
        part.total_nodes,
        part.total_cpus
    );
    if gpus > 0 {
        tres.push_str(&format!(",gres/gpu={gpus}"));
    }
    tres
}
