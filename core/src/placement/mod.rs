//! Where a job goes: given how many of the job's tasks each node could take
//! now (or in a window of the backfill profile), choose the nodes. Knows
//! topology (flat, block with segments, tree), never priorities or time:
//! queue policy lives in `queue`, and the two meet only in `Core::schedule`.

mod block;
mod flat;
pub mod frag;
mod tree;

pub use block::BlockPlacement;
pub use flat::FlatPlacement;
pub use tree::TreePlacement;

use crate::id::NodeId;
use crate::node::NodeAlloc;
use crate::resources::{GpuSet, Resources};
use crate::spec::{MemDemand, Shape};

/// What one placement attempt gets: the job's demand, the node count to
/// find, and per node how many of its tasks fit (0: the node cannot be used).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The job's demand.
    pub shape: &'a Shape,
    /// Nodes to choose.
    pub nodes: u32,
    /// Per node (indexed by [`NodeId`]): tasks of this job that fit there.
    pub caps: &'a [u32],
    /// Per node: best-fit preference, lower first (weight, then how little
    /// would be left free).
    pub keys: &'a [u64],
    /// topology/block with `--exclusive=topo`: which base blocks hold no
    /// other job (indexed by block).
    pub idle_blocks: Option<&'a [bool]>,
    /// Whether the job has waited long enough for a tight placement that it
    /// may now take a looser one: more leaf switches than `--switches`
    /// (tree), more base blocks than its size needs (block, after the
    /// configured block wait).
    pub wait_over: bool,
}

impl Request<'_> {
    /// Tasks every chosen node must be able to run.
    pub fn min_tasks(&self) -> u32 {
        self.shape.min_tasks_per_node()
    }

    /// Whether `node` can be one of the job's nodes.
    pub fn is_usable(&self, node: NodeId) -> bool {
        self.caps[node.index()] >= self.min_tasks()
    }
}

/// Why a placement found nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// Not enough usable nodes in any allowed arrangement.
    Resources,
    /// topology/tree: nodes exist, but only on more leaf switches than
    /// `--switches` allows, and the job may still wait for fewer.
    Switches,
}

/// A topology's node selection. Implementations must be deterministic: the
/// same request gives the same nodes.
pub trait Placement: std::fmt::Debug + Send + Sync {
    /// Chooses exactly `req.nodes` usable nodes into `out` (cleared first).
    fn select(&self, req: &Request<'_>, out: &mut Vec<NodeId>) -> Result<(), Miss>;

    /// A short name for reports (`block`, `tree`, `flat`, `linear`).
    fn name(&self) -> &'static str;

    /// A quick necessary condition for [`Placement::select`] to find
    /// `nodes` nodes for `shape`, given an upper bound of the usable nodes
    /// in each base block (`per_block`, indexed by block). `false` means
    /// select would certainly fail. Topologies without blocks say `true`.
    fn may_fit(&self, _shape: &Shape, _nodes: u32, _per_block: &[u32]) -> bool {
        true
    }
}

/// How many of the job's tasks fit on a node with `total` resources of
/// which `free` are unallocated; `idle` says nothing runs there. Returns 0
/// when the node cannot be one of the job's nodes at all.
pub fn tasks_fit(shape: &Shape, total: &Resources, free: &Resources, idle: bool) -> u32 {
    let free = if shape.is_whole_node() {
        if !idle {
            return 0;
        }
        *total
    } else {
        *free
    };
    if free.gpus < shape.gpus_per_node {
        return 0;
    }
    let mut cap = shape.tasks;
    if let Some(by_cpus) = free.cpus.checked_div(shape.cpus_per_task) {
        cap = cap.min(by_cpus);
    }
    let spare_gpus = free.gpus - shape.gpus_per_node;
    if let Some(by_gpus) = spare_gpus.checked_div(shape.gpus_per_task) {
        cap = cap.min(by_gpus);
    }
    cap = match shape.mem {
        MemDemand::PerNode(mb) if free.mem_mb < mb => 0,
        MemDemand::PerNode(_) => cap,
        MemDemand::WholeNode if free.mem_mb < total.mem_mb => 0,
        MemDemand::WholeNode => cap,
        MemDemand::PerCpu(0) | MemDemand::PerGpu(0) => cap,
        MemDemand::PerCpu(mb) => {
            let per_task = mb * u64::from(shape.cpus_per_task.max(1));
            cap.min(u32::try_from(free.mem_mb / per_task).unwrap_or(u32::MAX))
        }
        MemDemand::PerGpu(mb) => {
            let fixed = mb * u64::from(shape.gpus_per_node);
            if free.mem_mb < fixed {
                0
            } else if shape.gpus_per_task > 0 {
                let per_task = mb * u64::from(shape.gpus_per_task);
                cap.min(u32::try_from((free.mem_mb - fixed) / per_task).unwrap_or(u32::MAX))
            } else {
                cap
            }
        }
    };
    match shape.tasks_per_node {
        Some(tpn) if cap >= tpn => tpn,
        Some(_) => 0,
        None => cap,
    }
}

/// A node's best-fit key, lower preferred: the node's weight first, then
/// (for jobs sharing nodes, when the workload mix is known) how much the job
/// would add to the node's fragmentation, then how little it leaves free.
pub fn fit_key(weight: u32, frag_delta: Option<f64>, left: &Resources) -> u64 {
    let frag = frag_delta.map_or(64.0, |d| (d + 64.0).clamp(0.0, 128.0));
    (u64::from(weight.min(0xFFFF)) << 48)
        | (((frag * 65_536.0).round() as u64).min(0xFF_FFFF) << 24)
        | (u64::from(left.gpus.min(0xFF)) << 16)
        | u64::from(left.cpus.min(0xFFFF))
}

/// The node weight a [`fit_key`] was made with.
pub fn key_weight(key: u64) -> u64 {
    key >> 48
}

/// Spreads the job's tasks over the chosen nodes: every node its minimum,
/// the rest filling nodes in order up to what fits (Slurm's block
/// distribution). `None` if the nodes cannot hold all tasks.
pub fn distribute_tasks(
    shape: &Shape,
    chosen: &[NodeId],
    caps: &[u32],
) -> Option<Vec<(NodeId, u32)>> {
    let min = shape.min_tasks_per_node();
    // A node-count range without -n runs one task per node it gets.
    let tasks = shape.tasks.max(min * chosen.len() as u32);
    let mut left = tasks - min * chosen.len() as u32;
    let mut out: Vec<(NodeId, u32)> = chosen.iter().map(|&n| (n, min)).collect();
    for (node, tasks) in &mut out {
        if left == 0 {
            break;
        }
        let room = caps[node.index()].saturating_sub(*tasks);
        let add = room.min(left);
        *tasks += add;
        left -= add;
    }
    (left == 0).then_some(out)
}

/// The resources the job holds on one node running `tasks` tasks, with
/// GPUs taken lowest index first from `free_gpus`. `gpus_left` carries a
/// `--gpus` total across nodes.
pub fn node_alloc(
    shape: &Shape,
    node: NodeId,
    tasks: u32,
    total: &Resources,
    free_gpus: GpuSet,
    gpus_left: &mut u32,
) -> NodeAlloc {
    if shape.is_whole_node() {
        let gpus = GpuSet::first(total.gpus);
        return NodeAlloc {
            node,
            tasks,
            res: *total,
            gpus,
        };
    }
    let mut gpu_count = shape.gpus_on_node(tasks);
    if shape.gpus_total.is_some() {
        gpu_count = gpu_count.min(*gpus_left);
        *gpus_left -= gpu_count;
    }
    let gpus = free_gpus.take_lowest(gpu_count).unwrap_or(GpuSet::EMPTY);
    let res = Resources {
        cpus: shape.cpus_on_node(tasks),
        mem_mb: shape.mem_on_node(tasks, total.mem_mb),
        gpus: gpu_count,
    };
    NodeAlloc {
        node,
        tasks,
        res,
        gpus,
    }
}

/// Picks, among candidate groups each offering `units[i]` units, a set
/// covering `need` units with as few groups as possible; the last group is
/// the best fit for what remains. Returns (group index, units taken) in
/// ascending group order, or `None` if the groups cannot cover `need`.
pub(crate) fn fewest_groups(
    units: &[u32],
    need: u32,
    order: &mut Vec<usize>,
) -> Option<Vec<(usize, u32)>> {
    if need == 0 {
        return Some(Vec::new());
    }
    let total: u64 = units.iter().map(|&u| u64::from(u)).sum();
    if total < u64::from(need) {
        return None;
    }
    // A single group that fits: the smallest such (best fit).
    if let Some((index, _)) = units
        .iter()
        .enumerate()
        .filter(|(_, &u)| u >= need)
        .min_by_key(|(i, &u)| (u, *i))
    {
        return Some(vec![(index, need)]);
    }
    order.clear();
    order.extend((0..units.len()).filter(|&i| units[i] > 0));
    order.sort_by_key(|&i| (std::cmp::Reverse(units[i]), i));
    let mut taken = Vec::new();
    let mut got = 0u32;
    for (pos, &i) in order.iter().enumerate() {
        let rest = need - got;
        if units[i] >= rest {
            // Best fit for the remainder among the groups not yet taken.
            let best = order[pos..]
                .iter()
                .copied()
                .filter(|&j| units[j] >= rest)
                .min_by_key(|&j| (units[j], j))
                .unwrap_or(i);
            taken.push((best, rest));
            break;
        }
        taken.push((i, units[i]));
        got += units[i];
    }
    taken.sort_unstable();
    Some(taken)
}

/// Chooses `count` nodes among `nodes` by best fit (lowest key, then lowest
/// id), appending them to `out`.
pub(crate) fn best_nodes(req: &Request<'_>, nodes: &[NodeId], count: usize, out: &mut Vec<NodeId>) {
    let start = out.len();
    out.extend(nodes.iter().copied().filter(|&n| req.is_usable(n)));
    let slice = &mut out[start..];
    let key = |n: &NodeId| (req.keys[n.index()], *n);
    if slice.len() > count {
        slice.select_nth_unstable_by_key(count, key);
    }
    out.truncate(start + count.min(out.len() - start));
    out[start..].sort_unstable_by_key(key);
}

#[cfg(test)]
mod tests;
