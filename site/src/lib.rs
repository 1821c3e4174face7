//! spur-site: a site's Slurm configuration as the scheduling core sees it.
//! slurm.conf (nodes, partitions, scheduler settings) and topology.conf
//! (blocks or switches) become a core `Cluster` and `SchedConfig`. The
//! controller and the simulator both build their core here, so a site's
//! files mean the same thing to both.

use std::collections::BTreeMap;
use std::path::Path;

use spur_conf::ConfFile;
use spur_conf::{SlurmConf, TopologyConf};
use spur_core::{
    BackfillConfig, BaseBlock, BlockTopology, Cluster, NodeConfig, NodeId, Partition,
    PartitionState, PreemptMode, PreemptType, PriorityType, PriorityWeights, SchedConfig,
    SwitchSpec, Topology, TreeTopology,
};
use thiserror::Error;

/// A configuration spur cannot build a cluster from.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ClusterConfError {
    /// slurm.conf or topology.conf did not parse.
    #[error(transparent)]
    Conf(#[from] spur_conf::ConfError),
    /// The topology does not fit the nodes.
    #[error("invalid topology")]
    Topology(#[from] spur_core::topology::TopologyError),
    /// A name in topology.conf or a partition that is not a node.
    #[error("{place} names {name}, which is not a NodeName in slurm.conf")]
    UnknownNode {
        /// Where.
        place: String,
        /// The name.
        name: String,
    },
    /// The file has no nodes.
    #[error("slurm.conf defines no nodes")]
    NoNodes,
}

/// A cluster from a site's slurm.conf (read from `path`) and, when
/// TopologyPlugin asks for it, the topology.conf beside it.
pub fn from_slurm_conf(path: &Path) -> Result<Cluster, ClusterConfError> {
    let conf = SlurmConf::load(path)?.value;
    cluster(&conf, path.parent().unwrap_or(Path::new(".")))
}

/// A cluster from a parsed slurm.conf; topology.conf is read from `dir`.
pub fn cluster(conf: &SlurmConf, dir: &Path) -> Result<Cluster, ClusterConfError> {
    if conf.nodes.is_empty() {
        return Err(ClusterConfError::NoNodes);
    }
    let index: BTreeMap<&str, NodeId> = conf
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), NodeId(i as u32)))
        .collect();
    let lookup = |place: &str, name: &str| {
        index
            .get(name)
            .copied()
            .ok_or_else(|| ClusterConfError::UnknownNode {
                place: place.into(),
                name: name.into(),
            })
    };
    let nodes = conf
        .nodes
        .iter()
        .map(|n| {
            let gpu = n.gres.iter().find(|g| g.name == "gpu");
            NodeConfig {
                name: n.name.clone(),
                cpus: n.cpus,
                mem_mb: n.real_memory_mb,
                gpus: gpu.map_or(0, |g| g.count as u32),
                gpu_type: gpu.and_then(|g| g.type_name.clone()),
                features: n.features.clone(),
                weight: n.weight,
            }
        })
        .collect::<Vec<_>>();
    let global_mode = preempt_mode(conf.preempt_mode.base);
    let mut partitions = Vec::new();
    for p in &conf.partitions {
        let members = p
            .nodes
            .iter()
            .map(|n| lookup(&format!("partition {}", p.name), n))
            .collect::<Result<_, _>>()?;
        let mut part = Partition::new(p.name.clone(), members);
        part.is_default = p.default;
        part.state = match p.state {
            spur_conf::slurm_conf::PartitionState::Up => PartitionState::Up,
            spur_conf::slurm_conf::PartitionState::Down => PartitionState::Down,
            spur_conf::slurm_conf::PartitionState::Drain => PartitionState::Drain,
            // Any state added later takes no jobs until spur knows it.
            _ => PartitionState::Inactive,
        };
        part.max_time = p.max_time_secs;
        part.default_time = p.default_time_secs;
        part.max_nodes = p.max_nodes;
        part.min_nodes = p.min_nodes;
        part.priority_tier = u32::from(p.priority_tier);
        part.priority_job_factor = u32::from(p.priority_job_factor);
        part.exclusive = p.oversubscribe == spur_conf::slurm_conf::OverSubscribe::Exclusive;
        part.allow_accounts = p.allow_accounts.clone();
        part.preempt_mode = p.preempt_mode.map_or(global_mode, |m| preempt_mode(m.base));
        part.grace_time = u64::from(p.grace_time_secs);
        partitions.push(part);
    }
    let topology = match conf.topology_plugin.as_str() {
        "topology/block" | "topology/tree" => {
            let topo = TopologyConf::load(&dir.join("topology.conf"))?.value;
            build_topology(&topo, nodes.len(), &lookup)?
        }
        _ => Topology::Flat,
    };
    Ok(Cluster {
        nodes,
        partitions,
        qos: vec![],
        topology,
    })
}

fn build_topology(
    topo: &TopologyConf,
    node_count: usize,
    lookup: &dyn Fn(&str, &str) -> Result<NodeId, ClusterConfError>,
) -> Result<Topology, ClusterConfError> {
    if topo.is_block() {
        let blocks = topo
            .blocks
            .iter()
            .map(|b| {
                let nodes = b
                    .nodes
                    .iter()
                    .map(|n| lookup(&format!("block {}", b.name), n))
                    .collect::<Result<_, _>>()?;
                Ok(BaseBlock {
                    name: b.name.clone(),
                    nodes,
                })
            })
            .collect::<Result<Vec<_>, ClusterConfError>>()?;
        return Ok(Topology::Block(BlockTopology::new(
            node_count,
            blocks,
            topo.block_sizes.clone(),
        )?));
    }
    let specs = topo
        .switches
        .iter()
        .map(|s| {
            let nodes = s
                .nodes
                .iter()
                .map(|n| lookup(&format!("switch {}", s.name), n))
                .collect::<Result<_, _>>()?;
            Ok(SwitchSpec {
                name: s.name.clone(),
                switches: s.switches.clone(),
                nodes,
            })
        })
        .collect::<Result<Vec<_>, ClusterConfError>>()?;
    Ok(Topology::Tree(TreeTopology::new(node_count, specs)?))
}

fn preempt_mode(base: spur_conf::slurm_conf::PreemptModeBase) -> PreemptMode {
    use spur_conf::slurm_conf::PreemptModeBase as Base;
    match base {
        Base::Cancel => PreemptMode::Cancel,
        Base::Requeue => PreemptMode::Requeue,
        // SUSPEND needs gang scheduling, which spur does not do: such jobs
        // are not preempted.
        _ => PreemptMode::Off,
    }
}

/// Scheduler settings from slurm.conf, or Slurm's defaults without one.
pub fn sched_config(path: Option<&Path>) -> Result<SchedConfig, ClusterConfError> {
    let Some(path) = path else {
        return Ok(SchedConfig::default());
    };
    Ok(sched_config_of(&SlurmConf::load(path)?.value))
}

/// Scheduler settings from a parsed slurm.conf.
pub fn sched_config_of(conf: &SlurmConf) -> SchedConfig {
    let bf = &conf.scheduler_parameters;
    let backfill = BackfillConfig {
        enabled: conf.scheduler_type != "sched/builtin",
        window: u64::from(bf.bf_window_minutes) * 60,
        resolution: u64::from(bf.bf_resolution_secs),
        max_job_test: bf.bf_max_job_test,
        reserve_depth: 0,
    };
    let p = &conf.priority;
    let priority = if p.priority_type == "priority/basic" {
        PriorityType::Basic
    } else {
        PriorityType::Multifactor(PriorityWeights {
            age: p.weight_age,
            fairshare: p.weight_fairshare,
            job_size: p.weight_job_size,
            partition: p.weight_partition,
            qos: p.weight_qos,
            max_age: p.max_age_secs,
            favor_small: p.favor_small,
            decay_half_life: p.decay_half_life_secs,
        })
    };
    let preempt = match conf.preempt_type.as_str() {
        "preempt/partition_prio" => PreemptType::PartitionPrio,
        "preempt/qos" => PreemptType::Qos,
        _ => PreemptType::None,
    };
    SchedConfig {
        backfill,
        priority,
        preempt,
        def_mem_per_cpu: conf.def_mem_per_cpu_mb,
        def_mem_per_gpu: conf.def_mem_per_gpu_mb,
        max_switch_wait: u64::from(bf.max_switch_wait_secs),
        first_job_id: conf.first_job_id,
        max_job_count: conf.max_job_count,
        kill_wait: u64::from(conf.kill_wait_secs),
        max_array_size: conf.max_array_size,
        kill_invalid_depend: kill_invalid_depend(conf),
        job_requeue: conf.job_requeue,
        requeue_delay: u64::from(conf.cred_expire_secs) + 1,
        queue_depth: bf.default_queue_depth,
        ..SchedConfig::default()
    }
}

/// DependencyParameters=kill_invalid_depend, matched as slurmctld matches
/// it (anywhere in the value, any case); Slurm before 20.02 read it from
/// SchedulerParameters, which old configurations still carry.
fn kill_invalid_depend(conf: &SlurmConf) -> bool {
    let names = |value: &str| value.to_ascii_lowercase().contains("kill_invalid_depend");
    conf.other
        .get("dependencyparameters")
        .is_some_and(|v| names(v))
        || conf
            .scheduler_parameters
            .get("kill_invalid_depend")
            .is_some()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use spur_conf::{ConfFile, SlurmConf};

    use super::sched_config_of;

    fn conf(text: &str) -> SlurmConf {
        SlurmConf::parse(text, Path::new("slurm.conf"))
            .expect("a valid slurm.conf")
            .value
    }

    #[test]
    fn max_array_size_and_kill_invalid_depend_reach_the_scheduler() {
        let defaults = sched_config_of(&conf(""));
        assert_eq!(
            (defaults.max_array_size, defaults.kill_invalid_depend),
            (1001, false)
        );
        let c = sched_config_of(&conf(
            "MaxArraySize=100001\nDependencyParameters=max_depend_depth=5,Kill_Invalid_Depend\n",
        ));
        assert_eq!((c.max_array_size, c.kill_invalid_depend), (100_001, true));
        let old = sched_config_of(&conf(
            "SchedulerParameters=bf_continue,kill_invalid_depend\n",
        ));
        assert!(old.kill_invalid_depend);
        let other = sched_config_of(&conf("DependencyParameters=disable_remote_singleton\n"));
        assert!(!other.kill_invalid_depend);
        assert_eq!(sched_config_of(&conf("MaxArraySize=0\n")).max_array_size, 0);
    }

    #[test]
    fn default_queue_depth_bounds_the_head_pass() {
        assert_eq!(sched_config_of(&conf("")).queue_depth, 100);
        let c = sched_config_of(&conf("SchedulerParameters=default_queue_depth=20\n"));
        assert_eq!(c.queue_depth, 20);
    }
}
