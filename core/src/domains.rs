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
    /// Its nodes, in topology.conf order.
    pub nodes: Vec<crate::NodeId>,
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
        // What each waiting job needs of the nodes of one domain; jobs
        // alike need alike, so each demand is tried once per domain.
        let waiting: std::collections::BTreeSet<Demand> = self
            .jobs
            .values()
            .filter(|j| j.state() == JobState::Pending && j.hold().is_none())
            .filter(|j| {
                matches!(
                    j.reason(),
                    Reason::Resources | Reason::Priority | Reason::None
                )
            })
            .map(|j| Demand::of(j, j.partition().index()))
            .collect();
        topo.blocks()
            .iter()
            .map(|block| {
                let nodes: Vec<(usize, &Node)> = block
                    .nodes
                    .iter()
                    .map(|n| (n.index(), &self.nodes[n.index()]))
                    .collect();
                let total = nodes.iter().map(|(_, n)| n.config.gpus).sum();
                let alloc = nodes.iter().map(|(_, n)| n.used().gpus).sum();
                let open: Vec<(usize, &Node)> = nodes
                    .iter()
                    .copied()
                    .filter(|(_, n)| takes_work(n))
                    .collect();
                let idle = open
                    .iter()
                    .map(|(_, n)| n.config.gpus.saturating_sub(n.used().gpus))
                    .sum();
                let members = &self.part_member;
                let unused = !waiting.is_empty()
                    && !waiting
                        .iter()
                        .any(|d| d.fits(&open, nodes.len(), &members[d.partition]));
                DomainGpus {
                    name: block.name.clone(),
                    nodes: block.nodes.clone(),
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

/// What a job needs of the nodes of one domain to run part of itself
/// there: as many nodes of its partition as it needs in one domain (its
/// segment, else all of its nodes, at most the domain's size), each with
/// one of its nodes' share free, or wholly free for a job that takes whole
/// nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Demand {
    /// The job's partition, by index: only its nodes count.
    partition: usize,
    nodes: u32,
    whole: bool,
    cpus: u32,
    gpus: u32,
    /// Memory per node, MiB (None: all of the node's).
    mem: Option<u64>,
}

impl Demand {
    fn of(job: &Job, partition: usize) -> Demand {
        let shape = job.shape();
        let tasks = shape
            .tasks_per_node
            .unwrap_or_else(|| shape.tasks.div_ceil(shape.nodes_min.max(1)))
            .max(1);
        let mem = match shape.mem {
            crate::spec::MemDemand::WholeNode => None,
            _ => Some(shape.mem_on_node(tasks, 0)),
        };
        Demand {
            partition,
            nodes: shape.segment.unwrap_or(shape.nodes_min).max(1),
            whole: shape.is_whole_node(),
            cpus: shape.cpus_on_node(tasks),
            gpus: shape.gpus_on_node(tasks),
            mem,
        }
    }

    /// Whether `open` (the nodes of a domain of `size` nodes that take
    /// work, by index) have it free on nodes of the job's partition
    /// (`member`, by node index).
    fn fits(&self, open: &[(usize, &Node)], size: usize, member: &[bool]) -> bool {
        let need = (self.nodes as usize).min(size);
        let free = |n: &Node| {
            if self.whole {
                return n.jobs().is_empty();
            }
            let used = n.used();
            let cfg = &n.config;
            let mem = self.mem.unwrap_or(cfg.mem_mb);
            cfg.cpus.saturating_sub(used.cpus) >= self.cpus
                && cfg.gpus.saturating_sub(used.gpus) >= self.gpus
                && cfg.mem_mb.saturating_sub(used.mem_mb) >= mem
        };
        open.iter()
            .filter(|(i, n)| member.get(*i).copied().unwrap_or(false) && free(n))
            .count()
            >= need
    }
}
