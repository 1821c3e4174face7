//! Cluster topology as typed data: flat, block (NVLink domains as base blocks,
//! aggregated into power-of-two levels) and tree (switches). Owns validation
//! of the shape; parsing topology.conf belongs to spur-conf, placement on the
//! shape to `placement`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::id::{BlockId, NodeId, SwitchId};

/// The network topology the placement works on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub enum Topology {
    /// No topology: every node is as close as any other (topology/flat).
    #[default]
    Flat,
    /// topology/block: base blocks (NVL72 domains) and aggregation levels.
    Block(BlockTopology),
    /// topology/tree: a switch hierarchy with nodes under leaf switches.
    Tree(TreeTopology),
}

/// A base block: the planning unit of topology/block. On GB200 NVL72 it is
/// one NVLink domain of 18 nodes with 4 GPUs each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaseBlock {
    /// The block's name from topology.conf (`BlockName=`).
    pub name: String,
    /// Its nodes, in configuration order.
    pub nodes: Vec<NodeId>,
}

/// topology/block: base blocks in configuration order, and the levels at
/// which consecutive, aligned groups of 2^k base blocks form larger blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockTopology {
    blocks: Vec<BaseBlock>,
    /// The planning base block size in nodes (`BlockSizes`' first value).
    base_size: u32,
    /// Each level's size in base blocks: 1, then powers of two, ascending.
    levels: Vec<u32>,
    node_block: Vec<Option<BlockId>>,
}

/// A switch of a tree topology.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Switch {
    /// The switch's name from topology.conf (`SwitchName=`).
    pub name: String,
    /// Its parent, `None` for a top-level switch.
    pub parent: Option<SwitchId>,
    /// Child switches (empty for a leaf switch).
    pub children: Vec<SwitchId>,
    /// Nodes directly under this switch (leaf switches only).
    pub nodes: Vec<NodeId>,
    /// Height above the leaves: 0 for a leaf switch.
    pub level: u32,
}

/// A switch as configured, before validation: children by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwitchSpec {
    /// `SwitchName=`.
    pub name: String,
    /// `Switches=`, expanded.
    pub switches: Vec<String>,
    /// `Nodes=`, resolved to node ids.
    pub nodes: Vec<NodeId>,
}

/// topology/tree: switches with nodes under the leaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeTopology {
    switches: Vec<Switch>,
    node_leaf: Vec<Option<SwitchId>>,
}

/// A topology that cannot be built, with the place that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// A node appears in two blocks.
    #[error("node {node} is in block {first} and in block {second}")]
    NodeInTwoBlocks {
        /// The node's index.
        node: NodeId,
        /// The first block naming it.
        first: String,
        /// The second block naming it.
        second: String,
    },
    /// A node appears under two leaf switches.
    #[error("node {node} is under switch {first} and under switch {second}")]
    NodeUnderTwoSwitches {
        /// The node's index.
        node: NodeId,
        /// The first switch naming it.
        first: String,
        /// The second switch naming it.
        second: String,
    },
    /// A node index beyond the node table.
    #[error("{place} names node index {node}, but the cluster has {count} nodes")]
    UnknownNode {
        /// Where the node was named.
        place: String,
        /// The index given.
        node: NodeId,
        /// How many nodes there are.
        count: usize,
    },
    /// BlockSizes is not ascending power-of-two multiples of its first value.
    #[error(
        "BlockSizes {sizes:?}: each size must be the first size times a power of two, ascending"
    )]
    BadBlockSizes {
        /// The sizes given.
        sizes: Vec<u32>,
    },
    /// A block topology without blocks, or a block without nodes.
    #[error("block {name} has no nodes")]
    EmptyBlock {
        /// The block's name.
        name: String,
    },
    /// No blocks at all.
    #[error("topology/block needs at least one BlockName line")]
    NoBlocks,
    /// Two blocks or two switches with one name.
    #[error("{name} is defined twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A switch names a child switch that does not exist.
    #[error("switch {switch} names unknown child switch {child}")]
    UnknownSwitch {
        /// The parent.
        switch: String,
        /// The unknown child.
        child: String,
    },
    /// A switch with two parents, or a cycle of switches.
    #[error("switch {switch} has more than one parent or is part of a cycle")]
    SwitchNotATree {
        /// The switch.
        switch: String,
    },
}

impl BlockTopology {
    /// Builds a block topology over `node_count` nodes. `block_sizes` is
    /// topology.conf's `BlockSizes` in nodes; `None` takes Slurm's default:
    /// the first block's node count as the base, and levels of 1, 2, 4, 8 and
    /// 16 base blocks. A job larger than the top level treats the whole
    /// topology as one block, as Slurm does.
    pub fn new(
        node_count: usize,
        blocks: Vec<BaseBlock>,
        block_sizes: Option<Vec<u32>>,
    ) -> Result<BlockTopology, TopologyError> {
        if blocks.is_empty() {
            return Err(TopologyError::NoBlocks);
        }
        let mut node_block: Vec<Option<BlockId>> = vec![None; node_count];
        let mut names = std::collections::BTreeSet::new();
        for (index, block) in blocks.iter().enumerate() {
            if !names.insert(block.name.as_str()) {
                return Err(TopologyError::DuplicateName {
                    name: block.name.clone(),
                });
            }
            if block.nodes.is_empty() {
                return Err(TopologyError::EmptyBlock {
                    name: block.name.clone(),
                });
            }
            for &node in &block.nodes {
                let slot =
                    node_block
                        .get_mut(node.index())
                        .ok_or_else(|| TopologyError::UnknownNode {
                            place: format!("block {}", block.name),
                            node,
                            count: node_count,
                        })?;
                if let Some(first) = slot {
                    return Err(TopologyError::NodeInTwoBlocks {
                        node,
                        first: blocks[first.index()].name.clone(),
                        second: block.name.clone(),
                    });
                }
                *slot = Some(BlockId(index as u32));
            }
        }
        let sizes = match block_sizes {
            Some(sizes) => sizes,
            None => default_block_sizes(blocks[0].nodes.len() as u32),
        };
        let levels = levels_of(&sizes)?;
        Ok(BlockTopology {
            blocks,
            base_size: sizes[0],
            levels,
            node_block,
        })
    }

    /// The base blocks, indexed by [`BlockId`].
    pub fn blocks(&self) -> &[BaseBlock] {
        &self.blocks
    }

    /// The planning base block size in nodes.
    pub fn base_size(&self) -> u32 {
        self.base_size
    }

    /// Level sizes in base blocks (1, 2, 4, ...), ascending.
    pub fn levels(&self) -> &[u32] {
        &self.levels
    }

    /// Nodes in the cluster (in a block or not).
    pub fn node_count(&self) -> usize {
        self.node_block.len()
    }

    /// The base block holding `node`, if any. Nodes outside every block are
    /// not allocated under topology/block, as in Slurm.
    pub fn block_of(&self, node: NodeId) -> Option<BlockId> {
        self.node_block.get(node.index()).copied().flatten()
    }
}

/// Slurm's default when BlockSizes is absent: levels of 1, 2, 4, 8 and 16
/// base blocks.
fn default_block_sizes(base: u32) -> Vec<u32> {
    (0..5).map(|level| base << level).collect()
}

fn levels_of(sizes: &[u32]) -> Result<Vec<u32>, TopologyError> {
    let bad = || TopologyError::BadBlockSizes {
        sizes: sizes.to_vec(),
    };
    let base = *sizes.first().ok_or_else(bad)?;
    if base == 0 {
        return Err(bad());
    }
    let mut levels = Vec::with_capacity(sizes.len());
    for &size in sizes {
        if size % base != 0 || !(size / base).is_power_of_two() {
            return Err(bad());
        }
        let factor = size / base;
        if levels.last().is_some_and(|&last| factor <= last) {
            return Err(bad());
        }
        levels.push(factor);
    }
    Ok(levels)
}

impl TreeTopology {
    /// Builds a switch tree over `node_count` nodes from switch specs.
    pub fn new(node_count: usize, specs: Vec<SwitchSpec>) -> Result<TreeTopology, TopologyError> {
        let mut by_name = std::collections::BTreeMap::new();
        for (index, spec) in specs.iter().enumerate() {
            if by_name
                .insert(spec.name.clone(), SwitchId(index as u32))
                .is_some()
            {
                return Err(TopologyError::DuplicateName {
                    name: spec.name.clone(),
                });
            }
        }
        let mut switches: Vec<Switch> = specs
            .iter()
            .map(|spec| Switch {
                name: spec.name.clone(),
                parent: None,
                children: Vec::new(),
                nodes: spec.nodes.clone(),
                level: 0,
            })
            .collect();
        let mut node_leaf: Vec<Option<SwitchId>> = vec![None; node_count];
        for (index, spec) in specs.iter().enumerate() {
            let id = SwitchId(index as u32);
            for child in &spec.switches {
                let &child_id = by_name
                    .get(child)
                    .ok_or_else(|| TopologyError::UnknownSwitch {
                        switch: spec.name.clone(),
                        child: child.clone(),
                    })?;
                let child_switch = &mut switches[child_id.index()];
                if child_switch.parent.is_some() || child_id == id {
                    return Err(TopologyError::SwitchNotATree {
                        switch: child.clone(),
                    });
                }
                child_switch.parent = Some(id);
                switches[index].children.push(child_id);
            }
            for &node in &spec.nodes {
                let slot =
                    node_leaf
                        .get_mut(node.index())
                        .ok_or_else(|| TopologyError::UnknownNode {
                            place: format!("switch {}", spec.name),
                            node,
                            count: node_count,
                        })?;
                if let Some(first) = slot {
                    return Err(TopologyError::NodeUnderTwoSwitches {
                        node,
                        first: specs[first.index()].name.clone(),
                        second: spec.name.clone(),
                    });
                }
                *slot = Some(id);
            }
        }
        // Levels, computed bottom-up; a cycle never reaches a root.
        for index in 0..switches.len() {
            let mut seen = 0;
            let mut at = SwitchId(index as u32);
            let mut height = 0;
            while let Some(parent) = switches[at.index()].parent {
                seen += 1;
                if seen > switches.len() {
                    return Err(TopologyError::SwitchNotATree {
                        switch: switches[index].name.clone(),
                    });
                }
                height += 1;
                let level = &mut switches[parent.index()].level;
                *level = (*level).max(height);
                at = parent;
            }
        }
        Ok(TreeTopology {
            switches,
            node_leaf,
        })
    }

    /// The switches, indexed by [`SwitchId`].
    pub fn switches(&self) -> &[Switch] {
        &self.switches
    }

    /// The leaf switch above `node`, if any.
    pub fn leaf_of(&self, node: NodeId) -> Option<SwitchId> {
        self.node_leaf.get(node.index()).copied().flatten()
    }

    /// The leaf switches under `switch` (itself if it is a leaf), in order.
    pub fn leaves_under(&self, switch: SwitchId) -> Vec<SwitchId> {
        let mut out = Vec::new();
        let mut stack = vec![switch];
        while let Some(at) = stack.pop() {
            let s = &self.switches[at.index()];
            if s.children.is_empty() {
                out.push(at);
            } else {
                stack.extend(s.children.iter().rev().copied());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(name: &str, nodes: std::ops::Range<u32>) -> BaseBlock {
        BaseBlock {
            name: name.into(),
            nodes: nodes.map(NodeId).collect(),
        }
    }

    #[test]
    fn default_block_sizes_are_five_levels() {
        let topo = BlockTopology::new(
            54,
            vec![block("b1", 0..18), block("b2", 18..36), block("b3", 36..54)],
            None,
        )
        .expect("valid");
        assert_eq!(topo.levels(), &[1, 2, 4, 8, 16]);
        assert_eq!(topo.base_size(), 18);
        assert_eq!(topo.block_of(NodeId(20)), Some(BlockId(1)));
    }

    #[test]
    fn block_sizes_must_be_power_of_two_multiples() {
        let blocks = || vec![block("b1", 0..18), block("b2", 18..36)];
        assert!(BlockTopology::new(36, blocks(), Some(vec![18, 36])).is_ok());
        for bad in [vec![18, 54], vec![18, 18], vec![36, 18], vec![0], vec![]] {
            assert_eq!(
                BlockTopology::new(36, blocks(), Some(bad.clone())).unwrap_err(),
                TopologyError::BadBlockSizes { sizes: bad }
            );
        }
    }

    #[test]
    fn node_in_two_blocks_is_an_error_naming_both() {
        let err = BlockTopology::new(36, vec![block("b1", 0..18), block("b2", 17..36)], None)
            .unwrap_err();
        assert_eq!(err.to_string(), "node 17 is in block b1 and in block b2");
    }

    #[test]
    fn tree_levels_and_leaves() {
        let leaf = |name: &str, nodes: std::ops::Range<u32>| SwitchSpec {
            name: name.into(),
            switches: vec![],
            nodes: nodes.map(NodeId).collect(),
        };
        let top = SwitchSpec {
            name: "top".into(),
            switches: vec!["s0".into(), "s1".into()],
            nodes: vec![],
        };
        let tree =
            TreeTopology::new(8, vec![leaf("s0", 0..4), leaf("s1", 4..8), top]).expect("valid");
        assert_eq!(tree.switches()[2].level, 1);
        assert_eq!(
            tree.leaves_under(SwitchId(2)),
            vec![SwitchId(0), SwitchId(1)]
        );
        assert_eq!(tree.leaf_of(NodeId(5)), Some(SwitchId(1)));
    }

    #[test]
    fn switch_cycles_are_rejected() {
        let spec = |name: &str, child: &str| SwitchSpec {
            name: name.into(),
            switches: vec![child.into()],
            nodes: vec![],
        };
        let err = TreeTopology::new(0, vec![spec("a", "b"), spec("b", "a")]).unwrap_err();
        assert!(matches!(err, TopologyError::SwitchNotATree { .. }));
    }
}
