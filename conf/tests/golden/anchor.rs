//! The reference cluster: 72 nodes gb[001-072], topology/tree with one leaf
//! switch per 18-node domain. Values are checked against what real Slurm
//! printed for it (scontrol show config/partition/node/topology).

use spur_conf::slurm_conf::{NodeConfState, OverSubscribe, PartitionState, PortRange};
use spur_conf::ConfFile;
use spur_conf::{hostlist, AutoDetect, GresConf, SlurmConf, TopologyConf};

use crate::fixture;

#[test]
fn slurm_conf_matches_scontrol_show_config() {
    let parsed = SlurmConf::load(&fixture("anchor", "slurm.conf")).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let c = parsed.value;
    assert_eq!(c.cluster_name.as_deref(), Some("anchor"));
    assert_eq!(c.slurmctld_hosts.len(), 1);
    assert_eq!(c.slurmctld_hosts[0].name, "vm");
    assert_eq!(c.slurmctld_hosts[0].addr.as_deref(), Some("127.0.0.1"));
    assert_eq!(
        c.slurmctld_port,
        PortRange {
            first: 6817,
            last: 6817
        }
    );
    assert_eq!(c.slurmd_port, 6818);
    assert_eq!(c.slurm_user, "slurm");
    assert_eq!(c.state_save_location, "/var/spool/slurmctld");
    assert_eq!(c.slurmd_spool_dir, "/var/spool/slurmd/%n");
    assert_eq!(c.slurmd_timeout_secs, 300);
    assert_eq!(c.min_job_age_secs, 300);
    assert_eq!(c.kill_wait_secs, 30);
    assert_eq!(c.max_array_size, 100_001);
    assert_eq!(c.max_job_count, 200_000);
    assert_eq!(c.first_job_id, 1);
    assert_eq!(c.gres_types, ["gpu"]);
    assert_eq!(c.topology_plugin, "topology/tree");
    assert_eq!(c.select_type, "select/cons_tres");
    assert_eq!(c.select_type_parameters, ["CR_Core_Memory"]);
    assert_eq!(c.scheduler_type, "sched/backfill");
    assert_eq!(c.def_mem_per_cpu_mb, Some(4096));
    assert_eq!(
        c.other.get("accountingstorageenforce").map(String::as_str),
        Some("associations,limits,qos")
    );
    assert_eq!(
        c.other.get("srunportrange").map(String::as_str),
        Some("60001-63000")
    );
}

#[test]
fn nodes_match_scontrol_show_node() {
    let c = SlurmConf::load(&fixture("anchor", "slurm.conf"))
        .unwrap()
        .value;
    assert_eq!(c.nodes.len(), 72);
    let names: Vec<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(hostlist::compress(&names), "gb[001-072]");
    // slurm-reference/35-scontrol-show-node-idle.txt
    let n = c.node("gb072").unwrap();
    assert_eq!(
        (n.addr.as_str(), n.hostname.as_str(), n.port),
        ("127.0.0.1", "gb072", 17072)
    );
    assert_eq!(
        (
            n.cpus,
            n.sockets,
            n.cores_per_socket,
            n.threads_per_core,
            n.boards
        ),
        (144, 2, 72, 1, 1)
    );
    assert_eq!(n.real_memory_mb, 880_000);
    assert_eq!((n.tmp_disk_mb, n.weight), (0, 1));
    assert_eq!(n.features, ["gb200", "nvl04"]);
    assert_eq!(n.gres_count("gpu"), 4);
    assert_eq!(n.state, NodeConfState::Unknown);
    assert_eq!(c.node("gb001").unwrap().port, 17001);
    assert_eq!(c.node("gb019").unwrap().origin.line, 52);
}

#[test]
fn partitions_match_scontrol_show_partition() {
    let c = SlurmConf::load(&fixture("anchor", "slurm.conf"))
        .unwrap()
        .value;
    // slurm-reference/40-scontrol-show-partition.txt
    let batch = c.partition("batch").unwrap();
    assert!(batch.default);
    assert_eq!(hostlist::compress_sorted(&batch.nodes), "gb[001-072]");
    assert_eq!(batch.max_time_secs, None);
    assert_eq!(batch.default_time_secs, None);
    assert_eq!((batch.max_nodes, batch.min_nodes), (None, 0));
    assert_eq!((batch.priority_tier, batch.priority_job_factor), (1, 1));
    assert_eq!(batch.oversubscribe, OverSubscribe::No);
    assert_eq!(batch.state, PartitionState::Up);
    assert_eq!(batch.grace_time_secs, 0);
    assert!(!batch.hidden && !batch.exclusive_user);
    assert_eq!(batch.allow_accounts, None);
    let debug = c.partition("debug").unwrap();
    assert_eq!(hostlist::compress_sorted(&debug.nodes), "gb[001-004]");
    assert_eq!(debug.max_time_secs, Some(30 * 60));
    assert_eq!(debug.default_time_secs, Some(10 * 60));
    assert_eq!(
        c.default_partition().map(|p| p.name.as_str()),
        Some("batch")
    );
}

#[test]
fn topology_tree_matches_scontrol_show_topology() {
    let slurm = SlurmConf::load(&fixture("anchor", "slurm.conf"))
        .unwrap()
        .value;
    let parsed = TopologyConf::load(&fixture("anchor", "topology.conf")).unwrap();
    assert!(parsed.warnings.is_empty());
    let t = parsed.value;
    t.check_nodes(&slurm).unwrap();
    assert!(!t.is_block());
    // slurm-reference/41-scontrol-show-topology.txt
    let leaves: Vec<(String, String)> = t
        .switches
        .iter()
        .filter(|s| !s.nodes.is_empty())
        .map(|s| (s.name.clone(), hostlist::compress(&s.nodes)))
        .collect();
    assert_eq!(
        leaves,
        [
            ("nvl01".to_string(), "gb[001-018]".to_string()),
            ("nvl02".to_string(), "gb[019-036]".to_string()),
            ("nvl03".to_string(), "gb[037-054]".to_string()),
            ("nvl04".to_string(), "gb[055-072]".to_string()),
        ]
    );
    let spine = &t.switches[4];
    assert_eq!(spine.name, "spine");
    assert_eq!(hostlist::compress(&spine.switches), "nvl[01-04]");
}

#[test]
fn gres_conf_fake_devices() {
    let g = GresConf::load(&fixture("anchor", "gres.conf"))
        .unwrap()
        .value;
    assert_eq!(g.auto_detect, Some(AutoDetect::Off));
    assert_eq!(g.lines.len(), 1);
    assert_eq!(g.lines[0].count(), 4);
    assert_eq!(g.lines_for("gb036").count(), 1);
    assert_eq!(g.lines[0].files[3], "/dev/fakegpu3");
}
