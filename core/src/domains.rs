//! What each NVLink domain's GPUs are doing now: held by jobs, idle, and
//! of the idle ones those stranded, in a domain where no waiting job could
//! take part. A domain is a base block of topology/block (an NVL72 rack).

use crate::core::Core;
use crate::job::{Job, JobState};
use crate::node::{Node, NodeState};
use crate::reason::Reason;

/// One domain's GPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainGpus {
    /// The block's name (topology.conf `BlockName`).
    pub name: String,
    /// GPUs of its nodes.
    pub total: u32,
    /// Held by jobs.
    pub alloc: u32,
    /// Free on nodes that take work (not down, drained, draining or
    /// never registered).
    pub idle: u32,
    /// Idle while jobs wait for resources, none of which could take part
    /// here now: each needs more of its nodes free than this domain has
    /// (with no job waiting, idle GPUs are not stranded, only idle).
    pub stranded: u32,
}

impl Core {
    /// Each base block's GPUs, in topology.conf order (none without
    /// topology/block).
    pub fn domain_gpus(&self) -> Vec<DomainGpus> {
        let crate::topology::Topology::Block(topo) = &self.topology else {
            return Vec::new();
        };
        let waiting: Vec<&Job> = self
            .pending
            .iter()
            .filter_map(|id| self.jobs.get(id).map(|j| &**j))
            .filter(|j| {
                matches!(
                    j.reason(),
                    Reason::Resources | Reason::Priority | Reason::None
                )
            })
            .filter(|j| j.hold().is_none())
            .collect();
        topo.blocks()
            .iter()
            .map(|block| {
                let nodes: Vec<&Node> =
                    block.nodes.iter().map(|n| &self.nodes[n.index()]).collect();
                let total = nodes.iter().map(|n| n.config.gpus).sum();
                let alloc = nodes.iter().map(|n| n.used().gpus).sum();
                let open: Vec<&Node> = nodes.iter().copied().filter(|n| takes_work(n)).collect();
                let idle = open
                    .iter()
                    .map(|n| n.config.gpus.saturating_sub(n.used().gpus))
                    .sum();
                let unused = !waiting.is_empty()
                    && !waiting
                        .iter()
                        .any(|j| could_take_part(j, &open, nodes.len()));
                DomainGpus {
                    name: block.name.clone(),
                    total,
                    alloc,
                    idle,
                    stranded: if unused { idle } else { 0 },
                }
            })
            .collect()
    }
}

impl Core {
    /// How many running jobs span how many domains: (domains, jobs), by
    /// domains (none without topology/block). A job placed as topology
    /// asks spans as few as its size and segments allow.
    pub fn domain_spans(&self) -> Vec<(u32, u32)> {
        let crate::topology::Topology::Block(topo) = &self.topology else {
            return Vec::new();
        };
        let mut spans = std::collections::BTreeMap::new();
        for job in self.running.iter().filter_map(|id| self.jobs.get(id)) {
            let mut blocks: Vec<_> = job
                .allocation()
                .iter()
                .filter_map(|a| topo.block_of(a.node))
                .collect();
            blocks.sort_unstable();
            blocks.dedup();
            *spans.entry(blocks.len() as u32).or_insert(0u32) += 1;
        }
        spans.into_iter().collect()
    }
}

/// Whether new work may land on `node`.
fn takes_work(node: &Node) -> bool {
    matches!(
        node.state(),
        NodeState::Idle | NodeState::Mixed | NodeState::Allocated
    )
}

/// Whether `job` could run part of itself on the free resources of `open`
/// (nodes of a domain of `size` nodes): as many nodes as it needs in one
/// domain (its segment, else all of its nodes, at most the domain's size)
/// each have what one of its nodes needs free.
fn could_take_part(job: &Job, open: &[&Node], size: usize) -> bool {
    if job.state() != JobState::Pending {
        return false;
    }
    let shape = job.shape();
    let here = shape.segment.unwrap_or(shape.nodes_min).max(1) as usize;
    let need = here.min(size);
    let tasks = shape
        .tasks_per_node
        .unwrap_or_else(|| shape.tasks.div_ceil(shape.nodes_min.max(1)))
        .max(1);
    let fits = |n: &Node| {
        let used = n.used();
        let cfg = &n.config;
        if shape.is_whole_node() {
            return n.jobs().is_empty();
        }
        let cpus = shape.cpus_on_node(tasks);
        let gpus = shape.gpus_on_node(tasks);
        let mem = shape.mem_on_node(tasks, cfg.mem_mb);
        cfg.cpus.saturating_sub(used.cpus) >= cpus
            && cfg.gpus.saturating_sub(used.gpus) >= gpus
            && cfg.mem_mb.saturating_sub(used.mem_mb) >= mem
    };
    open.iter().filter(|n| fits(n)).count() >= need
}
