//! A 2-domain GB200 NVL72-style cluster on topology/block: 36 nodes of
//! 144 CPUs and 4 GPUs, one block per NVLink domain, BlockSizes=18,36.

use spur_conf::slurm_conf::{NodeConfState, OverSubscribe, PreemptModeBase};
use spur_conf::ConfFile;
use spur_conf::{hostlist, AutoDetect, GresConf, SlurmConf, TopologyConf};

use crate::fixture;

fn slurm() -> SlurmConf {
    let parsed = SlurmConf::load(&fixture("gb200", "slurm.conf")).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    parsed.value
}

#[test]
fn cluster_settings() {
    let c = slurm();
    assert_eq!(c.cluster_name.as_deref(), Some("nvl72"));
    let hosts: Vec<(&str, Option<&str>)> = c
        .slurmctld_hosts
        .iter()
        .map(|h| (h.name.as_str(), h.addr.as_deref()))
        .collect();
    assert_eq!(
        hosts,
        [("ctl01", Some("10.10.0.1")), ("ctl02", Some("10.10.0.2"))]
    );
    assert_eq!(c.slurmctld_port.count(), 2);
    assert_eq!(c.topology_plugin, "topology/block");
    assert_eq!(c.topology_param, ["BlockAsNodeRank"]);
    let s = &c.scheduler_parameters;
    assert_eq!(
        (
            s.bf_window_minutes,
            s.bf_resolution_secs,
            s.bf_max_job_test,
            s.bf_continue
        ),
        (4320, 120, 1000, true)
    );
    assert_eq!(
        (
            s.bf_interval_secs,
            s.default_queue_depth,
            s.max_switch_wait_secs
        ),
        (30, 200, 600)
    );
    assert_eq!(s.raw.len(), 7);
    let p = &c.priority;
    assert_eq!(p.priority_type, "priority/multifactor");
    assert_eq!(
        (
            p.weight_age,
            p.weight_fairshare,
            p.weight_job_size,
            p.weight_partition,
            p.weight_qos
        ),
        (1000, 10_000, 1000, 1000, 10_000)
    );
    assert_eq!(
        (p.max_age_secs, p.decay_half_life_secs),
        (7 * 86_400, 14 * 86_400)
    );
    assert!(!p.favor_small);
    assert_eq!(c.preempt_type, "preempt/qos");
    assert_eq!(c.preempt_mode.base, PreemptModeBase::Requeue);
    assert_eq!(
        (
            c.def_mem_per_cpu_mb,
            c.def_mem_per_gpu_mb,
            c.max_mem_per_cpu_mb
        ),
        (Some(4096), Some(196_608), Some(8192))
    );
    assert_eq!(c.first_job_id, 1000);
    assert_eq!(c.other.get("mpidefault").map(String::as_str), Some("pmix"));
}

#[test]
fn nodes_of_both_domains() {
    let c = slurm();
    assert_eq!(c.nodes.len(), 36);
    for n in &c.nodes {
        assert_eq!(
            (n.cpus, n.sockets, n.cores_per_socket),
            (144, 2, 72),
            "{}",
            n.name
        );
        assert_eq!(n.real_memory_mb, 880_000);
        assert_eq!(n.gres.len(), 1);
        assert_eq!(n.gres[0].type_name.as_deref(), Some("gb200"));
        assert_eq!(n.gres_count("gpu"), 4);
        assert_eq!(n.state, NodeConfState::Unknown);
        assert_eq!(n.port, 6818);
    }
    let n = c.node("gb019").unwrap();
    assert_eq!(n.addr, "10.20.1.1");
    assert_eq!(n.features, ["gb200", "nvl02"]);
    assert_eq!(c.node("gb018").unwrap().addr, "10.20.0.18");
    assert_eq!(
        c.node("gb018").unwrap().origin.line,
        66,
        "a continued line counts as one"
    );
    let gpus: u64 = c.nodes.iter().map(|n| n.gres_count("gpu")).sum();
    assert_eq!(gpus, 144);
}

#[test]
fn partitions() {
    let c = slurm();
    let gpu = c.partition("gpu").unwrap();
    assert!(gpu.default);
    assert_eq!(gpu.nodes.len(), 36);
    assert_eq!(gpu.oversubscribe, OverSubscribe::Exclusive);
    assert_eq!(gpu.max_time_secs, Some(2 * 86_400));
    assert_eq!(gpu.default_time_secs, Some(3600));
    let debug = c.partition("debug").unwrap();
    assert_eq!(debug.nodes, ["gb001", "gb002"]);
    assert_eq!(
        (debug.max_time_secs, debug.default_time_secs),
        (Some(1800), Some(600))
    );
    assert_eq!((debug.max_nodes, debug.priority_tier), (Some(2), 10));
    let long = c.partition("long").unwrap();
    assert_eq!(hostlist::compress_sorted(&long.nodes), "gb[019-036]");
    assert_eq!(long.max_time_secs, None);
    assert_eq!(
        long.allow_accounts.as_deref(),
        Some(&["research".to_string(), "infra".to_string()][..])
    );
}

#[test]
fn topology_blocks_are_the_nvlink_domains() {
    let c = slurm();
    let parsed = TopologyConf::load(&fixture("gb200", "topology.conf")).unwrap();
    assert!(parsed.warnings.is_empty());
    let t = parsed.value;
    t.check_nodes(&c).unwrap();
    assert!(t.is_block() && t.switches.is_empty());
    let blocks: Vec<(&str, String, usize)> = t
        .blocks
        .iter()
        .map(|b| (b.name.as_str(), hostlist::compress(&b.nodes), b.origin.line))
        .collect();
    assert_eq!(
        blocks,
        [
            ("nvl01", "gb[001-018]".to_string(), 2),
            ("nvl02", "gb[019-036]".to_string(), 3)
        ]
    );
    assert_eq!(t.block_sizes, Some(vec![18, 36]));
    assert_eq!(t.base_block_size(), Some(18));
    assert_eq!(t.planning_block_sizes(), [18, 36]);
    // Every block's nodes share the feature naming their domain.
    for b in &t.blocks {
        for node in &b.nodes {
            assert!(c.node(node).unwrap().features.contains(&b.name), "{node}");
        }
    }
}

#[test]
fn gres_files_per_node() {
    let g = GresConf::load(&fixture("gb200", "gres.conf"))
        .unwrap()
        .value;
    assert_eq!(g.auto_detect_for("gb001"), Some(AutoDetect::Nvml));
    let line = g.lines_for("gb036").next().unwrap();
    assert_eq!(line.type_name.as_deref(), Some("gb200"));
    assert_eq!(
        line.files,
        [
            "/dev/nvidia0",
            "/dev/nvidia1",
            "/dev/nvidia2",
            "/dev/nvidia3"
        ]
    );
    assert_eq!(line.count(), 4);
    assert_eq!(line.cores.as_ref().map(Vec::len), Some(144));
}
