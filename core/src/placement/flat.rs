//! topology/flat placement: nodes as a one-dimensional array. Best fit
//! (spur's default: lowest weight, then the nodes a job fills most), or
//! linear first fit (lowest weight, then node order), the topology-unaware
//! baseline the simulator compares against.

use crate::id::NodeId;
use crate::placement::{best_nodes, key_weight, Miss, Placement, Request};

/// Placement with no topology.
#[derive(Debug, Clone)]
pub struct FlatPlacement {
    nodes: Vec<NodeId>,
    first_fit: bool,
}

impl FlatPlacement {
    /// Best fit over `node_count` nodes.
    pub fn best_fit(node_count: usize) -> FlatPlacement {
        FlatPlacement {
            nodes: (0..node_count as u32).map(NodeId).collect(),
            first_fit: false,
        }
    }

    /// Linear first fit over `node_count` nodes: Slurm's selection without
    /// a topology plugin, as the simulator's baseline.
    pub fn first_fit(node_count: usize) -> FlatPlacement {
        FlatPlacement {
            nodes: (0..node_count as u32).map(NodeId).collect(),
            first_fit: true,
        }
    }
}

impl Placement for FlatPlacement {
    fn select(&self, req: &Request<'_>, out: &mut Vec<NodeId>) -> Result<(), Miss> {
        out.clear();
        let count = req.nodes as usize;
        if self.first_fit {
            // Keys still carry the weight in their high bits; first fit
            // orders by weight, then by node order alone.
            let mut usable: Vec<NodeId> = self
                .nodes
                .iter()
                .copied()
                .filter(|&n| req.is_usable(n))
                .collect();
            if usable.len() < count {
                return Err(Miss::Resources);
            }
            usable.sort_by_key(|n| (key_weight(req.keys[n.index()]), *n));
            out.extend_from_slice(&usable[..count]);
        } else {
            best_nodes(req, &self.nodes, count, out);
            if out.len() < count {
                out.clear();
                return Err(Miss::Resources);
            }
        }
        out.sort_unstable();
        Ok(())
    }

    fn name(&self) -> &'static str {
        if self.first_fit {
            "linear"
        } else {
            "flat"
        }
    }
}
