//! topology/tree placement, as Slurm does it: the lowest-level switch whose
//! subtree can hold the job (best fit among switches of that level), then the
//! fewest leaf switches under it with best fit for the remainder, then
//! best-fit nodes under each leaf. `--switches=N` makes the job wait, up to
//! its limit, for an allocation on at most N leaf switches.

use crate::id::{NodeId, SwitchId};
use crate::placement::{best_nodes, fewest_groups, Miss, Placement, Request};
use crate::topology::TreeTopology;

/// Placement on a [`TreeTopology`].
#[derive(Debug, Clone)]
pub struct TreePlacement {
    topo: TreeTopology,
    /// Leaf switches under each switch, precomputed.
    leaves: Vec<Vec<SwitchId>>,
}

impl TreePlacement {
    /// Placement over `topo`.
    pub fn new(topo: TreeTopology) -> TreePlacement {
        let leaves = (0..topo.switches().len() as u32)
            .map(|s| topo.leaves_under(SwitchId(s)))
            .collect();
        TreePlacement { topo, leaves }
    }
}

impl Placement for TreePlacement {
    fn select(&self, req: &Request<'_>, out: &mut Vec<NodeId>) -> Result<(), Miss> {
        out.clear();
        let switches = self.topo.switches();
        let usable: Vec<u32> = switches
            .iter()
            .map(|s| s.nodes.iter().filter(|&&n| req.is_usable(n)).count() as u32)
            .collect();
        let under = |s: usize| -> u64 {
            self.leaves[s]
                .iter()
                .map(|l| u64::from(usable[l.index()]))
                .sum()
        };
        // The lowest level with a switch that can hold the job; best fit
        // among that level's switches.
        let chosen = (0..switches.len())
            .filter(|&s| under(s) >= u64::from(req.nodes))
            .min_by_key(|&s| (switches[s].level, under(s), s))
            .ok_or(Miss::Resources)?;
        let leaves = &self.leaves[chosen];
        let units: Vec<u32> = leaves.iter().map(|l| usable[l.index()]).collect();
        let mut order = Vec::new();
        let taken = fewest_groups(&units, req.nodes, &mut order).ok_or(Miss::Resources)?;
        if let Some((max_leaves, _)) = req.shape.switches {
            if taken.len() > max_leaves as usize && !req.wait_over {
                return Err(Miss::Switches);
            }
        }
        for (leaf, count) in taken {
            best_nodes(
                req,
                &switches[leaves[leaf].index()].nodes,
                count as usize,
                out,
            );
        }
        out.sort_unstable();
        Ok(())
    }

    fn name(&self) -> &'static str {
        "tree"
    }
}
