//! Tests of slurm.conf parsing: keys, NodeName and PartitionName lines,
//! Include, errors naming file and line, and no panic on any input.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use std::fs;

fn parse(text: &str) -> Result<Parsed<SlurmConf>, ConfError> {
    parse_files(text, &[])
}

fn parse_files(text: &str, files: &[(&str, &str)]) -> Result<Parsed<SlurmConf>, ConfError> {
    let map: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    SlurmConf::parse_with(text, Path::new("slurm.conf"), &mut |p: &Path| {
        map.get(p)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not found"))
    })
}

fn conf(text: &str) -> SlurmConf {
    parse(text).unwrap().value
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn an_empty_file_gives_slurm_defaults() {
    let parsed = parse("# nothing\n\n").unwrap();
    assert_eq!(parsed.value, SlurmConf::default());
    assert!(parsed.warnings.is_empty());
    let c = parsed.value;
    assert_eq!(c.slurmd_port, 6818);
    assert_eq!(
        c.slurmctld_port,
        PortRange {
            first: 6817,
            last: 6817
        }
    );
    assert_eq!(c.max_array_size, 1001);
    assert_eq!(c.scheduler_parameters.bf_window_minutes, 1440);
    assert_eq!(c.priority.max_age_secs, 7 * 86_400);
}

#[test]
fn cluster_wide_keys_are_typed() {
    let c = conf(
        "ClusterName=GB200 SlurmctldPort=6817-6818 SlurmdPort=7000\n\
         slurmuser=slurm StateSaveLocation=/var/spool/slurmctld SlurmdSpoolDir=/var/spool/slurmd/%n\n\
         SlurmdTimeout=120 MinJobAge=60 KillWait=15 MaxArraySize=100001 MaxJobCount=200000 FirstJobId=1000\n\
         GresTypes=gpu,mps TopologyPlugin=topology/block TopologyParam=SwitchAsNodeRank,RoutePart\n\
         SelectType=select/cons_tres SelectTypeParameters=CR_Core_Memory,CR_ONE_TASK_PER_CORE\n\
         SchedulerType=sched/backfill SchedulerParameters=bf_window=2880,bf_continue\n\
         PriorityType=priority/multifactor PriorityWeightAge=1000 PriorityWeightFairshare=10000\n\
         PriorityWeightJobSize=100 PriorityWeightPartition=1000 PriorityWeightQOS=5000\n\
         PriorityMaxAge=14-0 PriorityDecayHalfLife=1-12 PriorityFavorSmall=YES\n\
         PreemptType=preempt/qos PreemptMode=REQUEUE\n\
         DefMemPerCPU=4096 DefMemPerGPU=200G MaxMemPerCPU=UNLIMITED\n",
    );
    assert_eq!(c.cluster_name.as_deref(), Some("gb200"));
    assert_eq!(
        c.slurmctld_port,
        PortRange {
            first: 6817,
            last: 6818
        }
    );
    assert_eq!(c.slurmctld_port.count(), 2);
    assert_eq!(c.slurmd_port, 7000);
    assert_eq!(c.slurm_user, "slurm");
    assert_eq!(c.state_save_location, "/var/spool/slurmctld");
    assert_eq!(c.slurmd_spool_dir, "/var/spool/slurmd/%n");
    assert_eq!(
        (c.slurmd_timeout_secs, c.min_job_age_secs, c.kill_wait_secs),
        (120, 60, 15)
    );
    assert_eq!(
        (c.max_array_size, c.max_job_count, c.first_job_id),
        (100_001, 200_000, 1000)
    );
    assert_eq!(c.gres_types, ["gpu", "mps"]);
    assert_eq!(c.topology_plugin, "topology/block");
    assert_eq!(c.topology_param, ["SwitchAsNodeRank", "RoutePart"]);
    assert_eq!(
        c.select_type_parameters,
        ["CR_Core_Memory", "CR_ONE_TASK_PER_CORE"]
    );
    assert_eq!(c.scheduler_parameters.bf_window_minutes, 2880);
    assert!(c.scheduler_parameters.bf_continue);
    assert_eq!(c.priority.weight_age, 1000);
    assert_eq!(c.priority.weight_fairshare, 10_000);
    assert_eq!(c.priority.weight_job_size, 100);
    assert_eq!(c.priority.weight_partition, 1000);
    assert_eq!(c.priority.weight_qos, 5000);
    assert_eq!(c.priority.max_age_secs, 14 * 86_400);
    assert_eq!(c.priority.decay_half_life_secs, 86_400 + 12 * 3600);
    assert!(c.priority.favor_small);
    assert_eq!(c.preempt_type, "preempt/qos");
    assert_eq!(c.preempt_mode.base, PreemptModeBase::Requeue);
    assert_eq!(c.def_mem_per_cpu_mb, Some(4096));
    assert_eq!(c.def_mem_per_gpu_mb, Some(200 * 1024));
    assert_eq!(c.max_mem_per_cpu_mb, None);
}

#[test]
fn real_but_unused_keys_are_kept_and_unknown_keys_warn() {
    let parsed = parse(
        "AuthType=auth/munge\nProctrackType=proctrack/cgroup TaskPlugin=task/affinity,task/cgroup\n\
         FrobnicateLevel=11\nReturnToService=2\n",
    )
    .unwrap();
    let c = &parsed.value;
    assert_eq!(
        c.other.get("authtype").map(String::as_str),
        Some("auth/munge")
    );
    assert_eq!(
        c.other.get("taskplugin").map(String::as_str),
        Some("task/affinity,task/cgroup")
    );
    assert_eq!(
        c.other.get("returntoservice").map(String::as_str),
        Some("2")
    );
    assert_eq!(c.return_to_service, 2);
    assert!(!c.other.contains_key("frobnicatelevel"));
    assert_eq!(
        parsed.warnings,
        [Warning {
            file: "slurm.conf".into(),
            line: 3,
            message: "unknown key FrobnicateLevel, ignored".into()
        }]
    );
}

#[test]
fn repeated_keys_warn_and_the_last_wins() {
    let parsed = parse("KillWait=10\nKillWait=20\n").unwrap();
    assert_eq!(parsed.value.kill_wait_secs, 20);
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(parsed.warnings[0].line, 2);
}

#[test]
fn slurmctld_hosts_new_and_old_style() {
    let c = conf("SlurmctldHost=vm(127.0.0.1)\nSlurmctldHost=backup\n");
    assert_eq!(
        c.slurmctld_hosts,
        [
            SlurmctldHost {
                name: "vm".into(),
                addr: Some("127.0.0.1".into())
            },
            SlurmctldHost {
                name: "backup".into(),
                addr: None
            }
        ]
    );
    let c = conf("ControlMachine=ctl ControlAddr=10.0.0.1 BackupController=ctl2\n");
    assert_eq!(c.slurmctld_hosts.len(), 2);
    assert_eq!(c.slurmctld_hosts[0].addr.as_deref(), Some("10.0.0.1"));
    assert_eq!(c.slurmctld_hosts[1].name, "ctl2");
    assert_eq!(
        err("SlurmctldHost=a\nControlMachine=b\n"),
        "slurm.conf:2: SlurmctldHost and ControlMachine cannot be used together"
    );
    assert_eq!(
        err("SlurmctldHost=a(b\n"),
        "slurm.conf:1: invalid value \"a(b\" for SlurmctldHost"
    );
}

#[test]
fn bad_ports_are_errors() {
    for bad in [
        "SlurmctldPort=0",
        "SlurmctldPort=6818-6817",
        "SlurmctldPort=x",
        "SlurmdPort=70000",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn node_lines_expand_to_one_node_each() {
    let c = conf(
        "NodeName=gb[001-003] CPUs=144 Boards=1 SocketsPerBoard=2 CoresPerSocket=72 ThreadsPerCore=1 \
         RealMemory=880000 Gres=gpu:4 Feature=gb200,nvl01 State=UNKNOWN Weight=10 TmpDisk=1T\n",
    );
    assert_eq!(c.nodes.len(), 3);
    let n = &c.nodes[1];
    assert_eq!(n.name, "gb002");
    assert_eq!(
        (n.hostname.as_str(), n.addr.as_str(), n.port),
        ("gb002", "gb002", 6818)
    );
    assert_eq!(
        (
            n.cpus,
            n.boards,
            n.sockets,
            n.cores_per_socket,
            n.threads_per_core
        ),
        (144, 1, 2, 72, 1)
    );
    assert_eq!(n.real_memory_mb, 880_000);
    assert_eq!(n.tmp_disk_mb, 1024 * 1024);
    assert_eq!(n.gres_count("gpu"), 4);
    assert_eq!(n.features, ["gb200", "nvl01"]);
    assert_eq!(n.weight, 10);
    assert_eq!(n.state, NodeConfState::Unknown);
    assert_eq!(n.origin, Origin::new("slurm.conf", 1));
}

#[test]
fn cpus_default_from_the_socket_layout() {
    let c = conf("NodeName=a Sockets=2 CoresPerSocket=8 ThreadsPerCore=2\nNodeName=b\n");
    assert_eq!(c.nodes[0].cpus, 32);
    assert_eq!(
        (
            c.nodes[1].cpus,
            c.nodes[1].real_memory_mb,
            c.nodes[1].weight
        ),
        (1, 1, 1)
    );
}

#[test]
fn node_defaults_apply_to_later_lines() {
    let c = conf(
        "NodeName=DEFAULT CPUs=8 RealMemory=1000 State=IDLE\nNodeName=a\n\
         NodeName=DEFAULT RealMemory=2000\nNodeName=b CPUs=4\n",
    );
    let (a, b) = (&c.nodes[0], &c.nodes[1]);
    assert_eq!(
        (a.cpus, a.real_memory_mb, a.state),
        (8, 1000, NodeConfState::Idle)
    );
    assert_eq!(
        (b.cpus, b.real_memory_mb, b.state),
        (4, 2000, NodeConfState::Idle)
    );
}

#[test]
fn addresses_hostnames_and_ports_match_by_position() {
    let c = conf(
        "SlurmdPort=7000\nNodeName=n[1-3] NodeHostname=h[7-9] NodeAddr=10.0.0.[1-3] Port=[17001-17003]\n\
         NodeName=m[1-2] NodeAddr=127.0.0.1 Port=17010-17011\nNodeName=k[1-2]\n",
    );
    let got: Vec<(&str, &str, &str, u16)> = c
        .nodes
        .iter()
        .map(|n| {
            (
                n.name.as_str(),
                n.hostname.as_str(),
                n.addr.as_str(),
                n.port,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("n1", "h7", "10.0.0.1", 17001),
            ("n2", "h8", "10.0.0.2", 17002),
            ("n3", "h9", "10.0.0.3", 17003),
            ("m1", "m1", "127.0.0.1", 17010),
            ("m2", "m2", "127.0.0.1", 17011),
            ("k1", "k1", "k1", 7000),
            ("k2", "k2", "k2", 7000),
        ]
    );
    assert_eq!(
        err("NodeName=n[1-3] NodeAddr=a[1-2]\n"),
        "slurm.conf:1: NodeAddr names 2 entries but NodeName names 3 (they must match, or NodeAddr must name one)"
    );
    assert!(parse("NodeName=n[1-3] Port=1-2\n").is_err());
    assert!(parse("NodeName=n1 Port=0\n").is_err());
}

#[test]
fn slurmd_paths_expand_to_each_nodes_name_and_host() {
    let c = conf(
        "SlurmdSpoolDir=/var/spool/slurmd/%n\nSlurmdPidFile=/run/slurmd-%n.pid\n\
         NodeName=gb[001-002] NodeHostname=h[1-2] NodeAddr=127.0.0.1 Port=[17001-17002]\n",
    );
    let gb002 = c.node("gb002").expect("listed");
    assert_eq!(
        gb002.slurmd_path(&c.slurmd_spool_dir),
        "/var/spool/slurmd/gb002"
    );
    assert_eq!(
        gb002.slurmd_path("/run/slurmd-%n.pid"),
        "/run/slurmd-gb002.pid"
    );
    assert_eq!(
        gb002.slurmd_path("/var/log/%h/%n.log"),
        "/var/log/h2/gb002.log"
    );
    assert_eq!(gb002.slurmd_path("/run/slurmd.pid"), "/run/slurmd.pid");
}

#[test]
fn malformed_node_values_name_file_line_and_key() {
    assert_eq!(
        err("ClusterName=x\n\nNodeName=a CPUs=abc\n"),
        "slurm.conf:3: invalid value \"abc\" for CPUs"
    );
    assert_eq!(
        err("NodeName=a RealMemory=lots\n"),
        "slurm.conf:1: invalid value \"lots\" for RealMemory"
    );
    assert_eq!(
        err("NodeName=a State=sleepy\n"),
        "slurm.conf:1: invalid value \"sleepy\" for State"
    );
    assert_eq!(
        err("NodeName=n[3-1]\n"),
        "slurm.conf:1: NodeName: invalid hostlist \"n[3-1]\": range \"3-1\" is descending"
    );
    assert_eq!(
        err("NodeName=ALL\n"),
        "slurm.conf:1: \"ALL\" is a reserved word and cannot be used with NodeName"
    );
    assert_eq!(
        err("NodeName=DEFAULT NodeAddr=x\n"),
        "slurm.conf:1: NodeAddr is not allowed with NodeName=DEFAULT"
    );
    assert_eq!(
        err("NodeName=\"\" CPUs=2\n"),
        "slurm.conf:1: NodeName needs a name"
    );
    assert_eq!(
        err("NodeName=a CPUs=4 junk\n"),
        "slurm.conf:1: cannot parse \"junk\" (expected Key=Value)"
    );
}

#[test]
fn slurm_resets_become_warnings() {
    let parsed =
        parse("NodeName=a Sockets=2 CoresPerSocket=4 CPUs=7\nNodeName=b Bogus=1\n").unwrap();
    assert_eq!(parsed.value.nodes[0].cpus, 8);
    let messages: Vec<&str> = parsed.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "NodeName=a: CPUs=7 match no Sockets, Sockets*CoresPerSocket or Sockets*CoresPerSocket*ThreadsPerCore, reset to 8",
            "unknown NodeName key Bogus, ignored"
        ]
    );
}

#[test]
fn unused_node_keys_are_kept_raw() {
    let c =
        conf("NodeName=DEFAULT CoreSpecCount=2\nNodeName=a MemSpecLimit=1024 Reason=\"bad fan\"\n");
    let n = &c.nodes[0];
    assert_eq!(n.other.get("corespeccount").map(String::as_str), Some("2"));
    assert_eq!(
        n.other.get("memspeclimit").map(String::as_str),
        Some("1024")
    );
    assert_eq!(n.reason.as_deref(), Some("bad fan"));
}

#[test]
fn a_node_defined_twice_is_an_error_naming_both_places() {
    let e = parse("NodeName=a[1-2]\nNodeName=a2\nNodeName=a1\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "slurm.conf:2: node a2 is already defined at slurm.conf:1\n\
         slurm.conf:3: node a1 is already defined at slurm.conf:1"
    );
    assert_eq!(e.problems().len(), 2);
}

const PARTITIONS: &str = "NodeName=gb[001-008] CPUs=4\n\
PartitionName=DEFAULT MaxTime=1-0 State=UP\n\
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE OverSubscribe=EXCLUSIVE\n\
PartitionName=debug Nodes=gb[004,001-002] MaxTime=00:30:00 DefaultTime=10 MaxNodes=2 MinNodes=1\n\
PartitionName=shared Nodes=gb[005-008] OverSubscribe=FORCE:2 PriorityTier=10 PriorityJobFactor=5 \
AllowAccounts=Physics,CHEM DenyQos=low State=DRAIN Hidden=YES GraceTime=30 QOS=part PreemptMode=SUSPEND \
ExclusiveUser=YES MaxNodes=UNLIMITED Alternate=batch\n";

#[test]
fn partitions_are_typed_with_defaults() {
    let c = conf(PARTITIONS);
    let batch = c.partition("batch").unwrap();
    assert_eq!(batch.nodes.len(), 8);
    assert!(batch.default);
    assert_eq!(batch.max_time_secs, None);
    assert_eq!(batch.oversubscribe, OverSubscribe::Exclusive);
    assert_eq!(batch.state, PartitionState::Up);
    assert_eq!(
        c.default_partition().map(|p| p.name.as_str()),
        Some("batch")
    );

    let debug = c.partition("debug").unwrap();
    assert_eq!(debug.nodes, ["gb001", "gb002", "gb004"]);
    assert_eq!(debug.max_time_secs, Some(30 * 60));
    assert_eq!(debug.default_time_secs, Some(10 * 60));
    assert_eq!((debug.max_nodes, debug.min_nodes), (Some(2), 1));
    assert!(!debug.default);

    let shared = c.partition("shared").unwrap();
    assert_eq!(shared.max_time_secs, Some(86_400), "inherited from DEFAULT");
    assert_eq!(shared.oversubscribe, OverSubscribe::Force(2));
    assert_eq!((shared.priority_tier, shared.priority_job_factor), (10, 5));
    assert_eq!(
        shared.allow_accounts.as_deref(),
        Some(&["physics".to_string(), "chem".to_string()][..])
    );
    assert_eq!(shared.deny_qos, ["low"]);
    assert_eq!(shared.state, PartitionState::Drain);
    assert!(shared.hidden && shared.exclusive_user);
    assert_eq!(shared.grace_time_secs, 30);
    assert_eq!(shared.qos.as_deref(), Some("part"));
    assert_eq!(
        shared.preempt_mode.map(|m| m.base),
        Some(PreemptModeBase::Suspend)
    );
    assert_eq!(shared.max_nodes, None);
    assert_eq!(
        shared.other.get("alternate").map(String::as_str),
        Some("batch")
    );
}

#[test]
fn partition_values_follow_slurm() {
    let part = |line: &str| {
        conf(&format!("NodeName=n1\nPartitionName=p Nodes=n1 {line}\n")).partitions[0].clone()
    };
    assert_eq!(
        part("OverSubscribe=YES").oversubscribe,
        OverSubscribe::Yes(4)
    );
    assert_eq!(part("Shared=FORCE").oversubscribe, OverSubscribe::Force(4));
    assert_eq!(part("OverSubscribe=NO").oversubscribe, OverSubscribe::No);
    assert_eq!(
        part("Exclusive=TOPO").oversubscribe,
        OverSubscribe::Exclusive
    );
    assert!(part("Exclusive=TOPO").exclusive_topo);
    assert_eq!(part("AllowAccounts=ALL").allow_accounts, None);
    assert_eq!(
        part("MaxTime=1:30").max_time_secs,
        Some(120),
        "rounded up to minutes"
    );
    assert_eq!(part("State=INACTIVE").state, PartitionState::Inactive);
    assert_eq!(part("Priority=7").priority_tier, 7);
    let bad = |line: &str| {
        parse(&format!("NodeName=n1\nPartitionName=p Nodes=n1 {line}\n"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad("MaxTime=soon"),
        "slurm.conf:2: invalid value \"soon\" for MaxTime"
    );
    assert_eq!(
        bad("OverSubscribe=MAYBE"),
        "slurm.conf:2: invalid value \"MAYBE\" for OverSubscribe"
    );
    assert_eq!(
        bad("State=SIDEWAYS"),
        "slurm.conf:2: invalid value \"SIDEWAYS\" for State"
    );
    assert_eq!(
        bad("Default=perhaps"),
        "slurm.conf:2: invalid value \"perhaps\" for Default"
    );
    assert_eq!(
        bad("PreemptMode=GANG,WITHIN"),
        "slurm.conf:2: invalid value \"GANG,WITHIN\" for PreemptMode"
    );
}

#[test]
fn partition_errors_name_the_place() {
    assert_eq!(
        err("NodeName=a[1-2]\nPartitionName=p Nodes=a[1-3]\n"),
        "slurm.conf:2: partition p names unknown node a3"
    );
    assert_eq!(
        err("NodeName=a1\nPartitionName=p Nodes=a1\nPartitionName=p Nodes=a1\n"),
        "slurm.conf:3: partition p is already defined at slurm.conf:2"
    );
    let e = parse("PartitionName=p Nodes=x\nPartitionName=q Nodes=y\n").unwrap_err();
    assert_eq!(e.problems().len(), 2, "every problem is reported");
}

#[test]
fn node_sets_can_be_used_in_partitions() {
    let c = conf(
        "NodeName=a[1-4] Feature=cpu\nNodeName=g[1-2] Feature=gpu\n\
         NodeSet=gpus Feature=gpu\nNodeSet=few Nodes=a[1-2]\n\
         PartitionName=p Nodes=gpus,few,a4\n",
    );
    assert_eq!(c.node_sets[0].nodes, ["g1", "g2"]);
    assert_eq!(
        c.partition("p").unwrap().nodes,
        ["a1", "a2", "a4", "g1", "g2"]
    );
}

#[test]
fn several_default_partitions_warn() {
    let parsed = parse("PartitionName=a Default=YES\nPartitionName=b Default=YES\n").unwrap();
    assert_eq!(
        parsed.value.default_partition().map(|p| p.name.as_str()),
        Some("b")
    );
    assert_eq!(parsed.warnings.len(), 1);
}

#[test]
fn other_record_lines_are_kept() {
    let c = conf("NodeName=n1\nDownNodes=n1 Reason=dead State=DOWN\n");
    assert_eq!(c.other_records.len(), 1);
    assert_eq!(c.other_records[0].key, "DownNodes");
    assert_eq!(
        c.other_records[0].pairs[1],
        ("Reason".to_string(), "dead".to_string())
    );
}

#[test]
fn include_and_continuation() {
    let parsed = parse_files(
        "ClusterName=c\nInclude nodes.conf\nPartitionName=p \\\n  Nodes=n[1-2]\n",
        &[("nodes.conf", "# nodes\nNodeName=n[1-2] CPUs=2\n")],
    )
    .unwrap();
    let c = parsed.value;
    assert_eq!(c.nodes[0].origin, Origin::new("nodes.conf", 2));
    assert_eq!(c.partitions[0].nodes, ["n1", "n2"]);
    assert_eq!(c.partitions[0].origin.line, 3);
    let e = parse("Include missing.conf\n").unwrap_err();
    assert!(matches!(e, ConfError::IncludeRead { .. }), "{e}");
}

#[test]
fn load_reads_the_file() {
    let dir = std::env::temp_dir().join(format!("spur-conf-load-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let main = dir.join("slurm.conf");
    fs::write(&main, "ClusterName=disk\nInclude part.conf\n").unwrap();
    fs::write(dir.join("part.conf"), "PartitionName=p\n").unwrap();
    let c = SlurmConf::load(&main).unwrap().value;
    assert_eq!(c.cluster_name.as_deref(), Some("disk"));
    assert_eq!(c.partitions[0].origin.file, dir.join("part.conf"));
    let missing = SlurmConf::load(&dir.join("nope.conf")).unwrap_err();
    assert!(matches!(missing, ConfError::Read { .. }));
    fs::remove_dir_all(&dir).unwrap();
}

fn line_strategy() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "NodeName",
        "PartitionName",
        "CPUs",
        "Nodes",
        "Port",
        "NodeAddr",
        "Gres",
        "MaxTime",
        "State",
        "Default",
        "SlurmctldPort",
        "SlurmctldHost",
        "Include",
        "OverSubscribe",
        "SchedulerParameters",
        "NodeSet",
        "Feature",
        "Sockets",
        "Weight",
    ]);
    let value = "[a-z0-9\\[\\],:\\-()\"=#\\\\ ]{0,12}";
    prop::collection::vec((key, value), 0..4).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

proptest! {
    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn random_key_value_lines_never_panic(lines in prop::collection::vec(line_strategy(), 0..6)) {
        let _ = parse(&lines.join("\n"));
    }
}

#[test]
fn cred_expire_is_read_as_slurm_cred_c_reads_it() {
    assert_eq!(conf("AuthInfo=CRED_EXPIRE=30").cred_expire_secs, 30);
    assert_eq!(
        conf("AuthInfo=socket=/x,cred_expire=45s").cred_expire_secs,
        45
    );
    let low = parse("AuthInfo=cred_expire=-3").expect("parses");
    assert_eq!(low.value.cred_expire_secs, 120);
    let said: Vec<String> = low.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter()
            .any(|w| w.contains("AuthInfo=cred_expire=-3 invalid; 120 applies")),
        "{said:?}"
    );
}

#[test]
fn return_to_service_is_0_1_or_2() {
    assert_eq!(parse("").unwrap().value.return_to_service, 0);
    assert_eq!(
        parse("ReturnToService=1\n")
            .unwrap()
            .value
            .return_to_service,
        1
    );
    let e = parse("ReturnToService=3\n").unwrap_err().to_string();
    assert!(e.contains("ReturnToService"), "{e}");
}

#[test]
fn settings_alone_are_the_whole_files_settings_without_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("slurm.conf");
    let text = "ClusterName=c\nSlurmctldHost=ctl(10.0.0.1)\nSlurmctldPort=7000\n\
                StateSaveLocation=/var/spool/spur\nMessageTimeout=30\n\
                NodeName=n[01-40] CPUs=8 Bogus=1\nNodeName=broken CPUs=lots\n\
                PartitionName=p Nodes=ALL Default=YES\nInclude more.conf\n";
    fs::write(&path, text).unwrap();
    fs::write(
        dir.path().join("more.conf"),
        "SlurmdSpoolDir=/var/spool/spurd/%n\n",
    )
    .unwrap();
    // The whole file has a bad node line; its settings are still read.
    assert!(SlurmConf::load(&path).is_err());
    let settings = SlurmConf::load_settings(&path).unwrap().value;
    assert!(settings.nodes.is_empty() && settings.partitions.is_empty());
    assert_eq!(settings.cluster_name.as_deref(), Some("c"));
    assert_eq!(settings.slurmctld_port.first, 7000);
    assert_eq!(
        settings.slurmctld_hosts[0].addr.as_deref(),
        Some("10.0.0.1")
    );
    assert_eq!(settings.state_save_location, "/var/spool/spur");
    assert_eq!(settings.slurmd_spool_dir, "/var/spool/spurd/%n");
    fs::write(&path, text.replace("NodeName=broken CPUs=lots\n", "")).unwrap();
    let whole = SlurmConf::load(&path).unwrap().value;
    assert_eq!(whole.nodes.len(), 40);
    let unrecorded = SlurmConf {
        nodes: Vec::new(),
        partitions: Vec::new(),
        node_sets: settings.node_sets.clone(),
        ..whole
    };
    assert_eq!(format!("{unrecorded:?}"), format!("{settings:?}"));
    assert!(SlurmConf::load_settings(&dir.path().join("none.conf")).is_err());
}
