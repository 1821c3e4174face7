//! The cluster the reference outputs in `golden/` were recorded on (see
//! `/work/shared/slurm-reference/README.md`): 72 GB200-like nodes
//! `gb[001-072]` (144 CPUs, 880000 MB, 4 GPUs), partitions `batch`
//! (default, all nodes) and `debug` (`gb[001-004]`, 30 minutes), jobs 5 and
//! 7 running on gb001-gb003. Shared by the sinfo and scontrol tests.

use spur_proto::{NodeBaseState, NodeInfo, PartitionInfo};

/// 2026-11-29T22:10:05 UTC: when the machine booted.
pub const BOOT: u64 = 1_795_990_205;
/// 2026-11-29T23:04:55 UTC: when the first agents started.
pub const AGENT_START: u64 = 1_795_993_495;
/// 2026-11-29T23:05:03 UTC: when sinfo and `show config` ran.
pub const NOW: u64 = 1_795_993_503;

/// Reads a recorded case: drops the `$ command` line, `# ` notes and the
/// final `[exit N]` line; returns the output and the exit code.
pub fn golden(text: &str) -> (String, u8) {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let last = lines.pop().unwrap_or_default().trim_end();
    let code = last
        .strip_prefix("[exit ")
        .and_then(|s| s.strip_suffix(']'))
        .and_then(|s| s.parse().ok())
        .expect("a golden file ends with [exit N]");
    let body: String = lines
        .into_iter()
        .skip(1)
        .skip_while(|l| l.starts_with("# "))
        .collect();
    (body, code)
}

/// One node as recorded: idle, 144 CPUs, 880000 MB, 4 GPUs.
pub fn node(index: u32) -> NodeInfo {
    let domain = (index - 1) / 18 + 1;
    let mut partitions = vec!["batch".to_string()];
    if index <= 4 {
        partitions.push("debug".to_string());
    }
    NodeInfo {
        name: format!("gb{index:03}"),
        addr: "127.0.0.1".to_string(),
        hostname: format!("gb{index:03}"),
        port: 17_000 + index as u16,
        state: NodeBaseState::Idle,
        drain: false,
        completing: false,
        not_responding: false,
        cpus: 144,
        cpus_alloc: 0,
        boards: 1,
        sockets: 2,
        cores_per_socket: 72,
        threads_per_core: 1,
        real_memory: 880_000,
        alloc_mem: 0,
        free_mem: Some(22_364),
        cpu_load: Some(26.76),
        tmp_disk: 0,
        gres: "gpu:4".to_string(),
        gpus_alloc: Vec::new(),
        gpus: 4,
        features: vec!["gb200".to_string(), format!("nvl{domain:02}")],
        partitions,
        reason: None,
        reason_set: None,
        weight: 1,
        arch: Some("x86_64".to_string()),
        os: Some("Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0".to_string()),
        version: Some("22.05.8".to_string()),
        boot_time: Some(BOOT),
        agent_start_time: Some(AGENT_START),
        last_busy: Some(AGENT_START),
        topology_addr: Some(format!("spine.nvl{domain:02}.gb{index:03}")),
    }
}

/// The 72 nodes as they stood when sinfo ran.
pub fn nodes() -> Vec<NodeInfo> {
    let mut nodes: Vec<NodeInfo> = (1..=72).map(node).collect();
    let busy = [(0, 5, 20_480, 4), (1, 1, 4_096, 4), (2, 2, 8_192, 0)];
    for (i, cpus, mem, gpus) in busy {
        let n = &mut nodes[i];
        n.state = NodeBaseState::Mixed;
        n.cpus_alloc = cpus;
        n.alloc_mem = mem;
        n.gpus_alloc = (0..gpus).collect();
    }
    nodes[4].free_mem = Some(22_363);
    nodes[5].free_mem = Some(22_362);
    let last = &mut nodes[71];
    last.free_mem = Some(22_253);
    last.cpu_load = Some(26.32);
    last.agent_start_time = Some(AGENT_START + 2);
    last.last_busy = Some(AGENT_START + 2);
    nodes
}

/// batch and debug.
pub fn partitions() -> Vec<PartitionInfo> {
    let batch = PartitionInfo {
        name: "batch".to_string(),
        nodes: "gb[001-072]".to_string(),
        is_default: true,
        max_time: None,
        default_time: None,
        max_nodes: None,
        min_nodes: 0,
        state: "UP".to_string(),
        priority_tier: 1,
        priority_job_factor: 1,
        oversubscribe: "NO".to_string(),
        allow_accounts: None,
        allow_groups: None,
        total_cpus: 10_368,
        total_nodes: 72,
        preempt_mode: "OFF".to_string(),
        def_mem_per_cpu: None,
        max_mem_per_node: None,
    };
    let debug = PartitionInfo {
        name: "debug".to_string(),
        nodes: "gb[001-004]".to_string(),
        is_default: false,
        max_time: Some(1800),
        default_time: Some(600),
        total_cpus: 576,
        total_nodes: 4,
        ..batch.clone()
    };
    vec![batch, debug]
}
