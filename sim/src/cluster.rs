//! The simulated cluster: generated NVL72 domains (`--domains N`), or a
//! site's slurm.conf with its topology.conf; plus which nodes are down.

use spur_core::{BaseBlock, BlockTopology, Cluster, NodeConfig, NodeId, Partition, Topology};
pub use spur_site::{from_slurm_conf, sched_config, ClusterConfError};

use crate::metrics::DOMAIN_NODES;

/// CPUs of a GB200 compute node (2 Grace CPUs).
const GB200_CPUS: u32 = 144;
/// Memory of a GB200 compute node in MiB.
const GB200_MEM_MB: u64 = 960 * 1024;

/// A cluster of `domains` NVL72 domains: 18 nodes of 4 GPUs each, one base
/// block per domain, block levels up to the whole cluster, one default
/// partition.
pub fn nvl72(domains: u32) -> Cluster {
    let count = domains * DOMAIN_NODES;
    let width = count.to_string().len().max(3);
    let nodes: Vec<NodeConfig> = (0..count)
        .map(|i| NodeConfig::new(format!("gb{:0width$}", i + 1), GB200_CPUS, GB200_MEM_MB, 4))
        .collect();
    let blocks = (0..domains)
        .map(|d| BaseBlock {
            name: format!("nvl72-{d:03}"),
            nodes: (d * DOMAIN_NODES..(d + 1) * DOMAIN_NODES)
                .map(NodeId)
                .collect(),
        })
        .collect();
    // BlockSizes as an NVL72 site writes it: the domain, doubled until one
    // block spans every domain, so that every job can be placed by level.
    let mut sizes = vec![DOMAIN_NODES];
    while (sizes[sizes.len() - 1] / DOMAIN_NODES) < domains {
        sizes.push(sizes[sizes.len() - 1] * 2);
    }
    let topology = BlockTopology::new(count as usize, blocks, Some(sizes))
        .expect("generated blocks are disjoint and non-empty");
    let mut batch = Partition::new("batch", (0..count).map(NodeId).collect());
    batch.is_default = true;
    Cluster {
        nodes,
        partitions: vec![batch],
        qos: vec![],
        topology: Topology::Block(topology),
    }
}

/// The Alibaba openb GPU cluster from its node list: one node per row,
/// flat topology, one partition.
pub fn from_alibaba(nodes: &[crate::trace::AlibabaNode]) -> Cluster {
    let configs: Vec<NodeConfig> = nodes
        .iter()
        .map(|n| {
            NodeConfig::new(
                n.name.clone(),
                n.cpu_milli.div_ceil(1000),
                n.mem_mib,
                n.gpus,
            )
        })
        .collect();
    let mut all = Partition::new("default", (0..configs.len() as u32).map(NodeId).collect());
    all.is_default = true;
    Cluster {
        nodes: configs,
        partitions: vec![all],
        qos: vec![],
        topology: Topology::Flat,
    }
}

/// Each node's base block (domain), if the topology has blocks.
pub fn domain_map(cluster: &Cluster) -> Vec<Option<u32>> {
    match &cluster.topology {
        Topology::Block(b) => (0..cluster.nodes.len() as u32)
            .map(|n| b.block_of(NodeId(n)).map(|b| b.get()))
            .collect(),
        _ => vec![None; cluster.nodes.len()],
    }
}

/// A deterministic choice of `fraction` of the nodes, spread over the
/// cluster (a seeded shuffle, the same for every run).
pub fn down_nodes(node_count: usize, fraction: f64) -> Vec<NodeId> {
    let want = ((node_count as f64) * fraction.clamp(0.0, 1.0)).round() as usize;
    let mut order: Vec<u32> = (0..node_count as u32).collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    let mut down: Vec<NodeId> = order[..want].iter().map(|&n| NodeId(n)).collect();
    down.sort_unstable();
    down
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvl72_cluster_has_domains_of_18_nodes() {
        let c = nvl72(277);
        assert_eq!(c.nodes.len(), 4986);
        assert_eq!(c.nodes.iter().map(|n| n.gpus).sum::<u32>(), 19_944);
        let map = domain_map(&c);
        assert_eq!(map[17], Some(0));
        assert_eq!(map[18], Some(1));
    }

    #[test]
    fn down_nodes_are_deterministic() {
        assert_eq!(down_nodes(100, 0.1), down_nodes(100, 0.1));
        assert_eq!(down_nodes(100, 0.1).len(), 10);
    }
}
