//! topology/block placement. A job without `--segment` lies inside one block
//! of some level (aligned groups of 2^k base blocks, the last group possibly
//! partial; a job larger than the top level takes the whole topology as one
//! block, as Slurm does). Slurm takes the lowest level that fits; spur takes
//! the lowest level at which a block reaches the fewest base blocks the job
//! can span at all, so a job never spans more NVLink domains than it must,
//! and a job that fits in one base block only ever gets one.
//! Inside, the fewest base blocks (best fit for the remainder), then best-fit
//! nodes inside each base block.
//!
//! With `--segment` each segment lies inside one base block: by default
//! each segment goes, one after the other, to the base block it fits best
//! (segments may share a block); `--spread-segments` gives every segment a
//! base block of its own; `--consolidate-segments` keeps all segments inside
//! one block of the lowest level that holds them.

use crate::id::NodeId;
use crate::placement::{best_nodes, fewest_groups, Miss, Placement, Request};
use crate::spec::SegmentLayout;
use crate::topology::BlockTopology;

/// Placement on a [`BlockTopology`].
#[derive(Debug, Clone)]
pub struct BlockPlacement {
    topo: BlockTopology,
}

impl BlockPlacement {
    /// Placement over `topo`.
    pub fn new(topo: BlockTopology) -> BlockPlacement {
        BlockPlacement { topo }
    }

    /// The topology.
    pub fn topology(&self) -> &BlockTopology {
        &self.topo
    }

    /// Usable nodes per base block.
    fn usable_per_block(&self, req: &Request<'_>) -> Vec<u32> {
        self.topo
            .blocks()
            .iter()
            .enumerate()
            .map(|(b, block)| {
                if req.idle_blocks.is_some_and(|idle| !idle[b]) {
                    return 0;
                }
                block.nodes.iter().filter(|&&n| req.is_usable(n)).count() as u32
            })
            .collect()
    }
}

impl BlockPlacement {
    /// The levels a job of `nodes` nodes may use. A job that fits in one
    /// base block stays in one base block: on NVL72 that keeps it inside one
    /// NVLink domain (Slurm would also take a block of the next level up; spur
    /// waits for room in a domain instead).
    fn levels_for(&self, nodes: u32) -> &[u32] {
        let levels = self.topo.levels();
        if nodes <= self.topo.base_size() {
            &levels[..1]
        } else {
            levels
        }
    }

    /// The job (in units of `unit` nodes: 1, or the segment size) inside
    /// one block of the lowest level that reaches the fewest base blocks
    /// possible. Returns (base block, nodes) pairs.
    fn within_one_block(
        &self,
        req: &Request<'_>,
        usable: &[u32],
        unit: u32,
    ) -> Option<Vec<(usize, u32)>> {
        let units: Vec<u32> = usable.iter().map(|&u| u / unit).collect();
        let need = req.nodes / unit;
        let mut order = Vec::new();
        // The fewest base blocks any arrangement can use: what every level
        // is measured against. Failing here means the job does not fit at all.
        let whole = fewest_groups(&units, need, &mut order)?;
        let floor = whole.len();
        // (base blocks spanned, nodes left free in them, blocks taken)
        let mut best: Option<(usize, u64, Taken)> = None;
        for &factor in self.levels_for(req.nodes) {
            let factor = factor as usize;
            for start in (0..units.len()).step_by(factor) {
                let end = (start + factor).min(units.len());
                let group = &units[start..end];
                if group.iter().map(|&u| u64::from(u)).sum::<u64>() < u64::from(need) {
                    continue;
                }
                let Some(taken) = fewest_groups(group, need, &mut order) else {
                    continue;
                };
                // What the job leaves free in the base blocks it touches:
                // the less, the fewer domains it leaves partly used.
                let spare: u64 = taken
                    .iter()
                    .map(|&(i, n)| u64::from(usable[start + i] - n * unit))
                    .sum();
                if best
                    .as_ref()
                    .is_none_or(|(span, s, _)| (taken.len(), spare) < (*span, *s))
                {
                    let span = taken.len();
                    best = Some((
                        span,
                        spare,
                        taken.into_iter().map(|(i, n)| (start + i, n)).collect(),
                    ));
                }
            }
            if best.as_ref().is_some_and(|(span, _, _)| *span <= floor) {
                break;
            }
        }
        // Only a job larger than the top level may go anywhere (Slurm
        // treats the whole topology as one block for it); any other job
        // waits for room inside one block.
        let top = self.topo.levels().last().copied().unwrap_or(1) * self.topo.base_size();
        let taken = match best {
            Some((_, _, taken)) => taken,
            None if req.nodes > top => whole,
            None => return None,
        };
        // Before its block wait is over, a job takes no more base blocks
        // than its size needs.
        let needed = req.nodes.div_ceil(self.topo.base_size().max(1)) as usize;
        if !req.wait_over && taken.len() > needed {
            return None;
        }
        Some(taken.into_iter().map(|(b, n)| (b, n * unit)).collect())
    }
}

/// (base block, nodes) pairs a placement takes.
type Taken = Vec<(usize, u32)>;

/// Each segment in turn to the base block with the fewest usable nodes that
/// still holds it (ties: lowest block).
fn segments_best_fit(usable: &[u32], size: u32, segments: u32) -> Option<Vec<(usize, u32)>> {
    let mut left = usable.to_vec();
    let mut taken: std::collections::BTreeMap<usize, u32> = std::collections::BTreeMap::new();
    for _ in 0..segments {
        let (block, _) = left
            .iter()
            .enumerate()
            .filter(|(_, &u)| u >= size)
            .min_by_key(|(i, &u)| (u, *i))?;
        left[block] -= size;
        *taken.entry(block).or_default() += size;
    }
    Some(taken.into_iter().collect())
}

/// Every segment in a base block of its own, best fit first.
fn segments_spread(usable: &[u32], size: u32, segments: u32) -> Option<Vec<(usize, u32)>> {
    let mut blocks: Vec<usize> = (0..usable.len()).filter(|&b| usable[b] >= size).collect();
    if blocks.len() < segments as usize {
        return None;
    }
    blocks.sort_by_key(|&b| (usable[b], b));
    blocks.truncate(segments as usize);
    blocks.sort_unstable();
    Some(blocks.into_iter().map(|b| (b, size)).collect())
}

impl Placement for BlockPlacement {
    fn select(&self, req: &Request<'_>, out: &mut Vec<NodeId>) -> Result<(), Miss> {
        out.clear();
        let usable = self.usable_per_block(req);
        let taken = match (req.shape.segment, req.shape.segment_layout) {
            (Some(size), SegmentLayout::Default) => {
                segments_best_fit(&usable, size, req.nodes / size)
            }
            (Some(size), SegmentLayout::Spread) => segments_spread(&usable, size, req.nodes / size),
            (size, _) => self.within_one_block(req, &usable, size.unwrap_or(1)),
        }
        .ok_or(Miss::Resources)?;
        for (block, count) in taken {
            best_nodes(req, &self.topo.blocks()[block].nodes, count as usize, out);
        }
        out.sort_unstable();
        debug_assert_eq!(out.len(), req.nodes as usize);
        Ok(())
    }

    fn name(&self) -> &'static str {
        "block"
    }

    fn may_fit(&self, shape: &crate::spec::Shape, nodes: u32, per_block: &[u32]) -> bool {
        let unit = shape.segment.unwrap_or(1);
        let need = nodes / unit;
        let units = |u: u32| match (shape.segment, shape.segment_layout) {
            (Some(_), SegmentLayout::Spread) => (u / unit).min(1),
            _ => u / unit,
        };
        let total: u64 = per_block.iter().map(|&u| u64::from(units(u))).sum();
        if total < u64::from(need) {
            return false;
        }
        let free_anywhere = matches!(
            shape.segment_layout,
            SegmentLayout::Default | SegmentLayout::Spread
        ) && shape.segment.is_some();
        let top = self.topo.levels().last().copied().unwrap_or(1) * self.topo.base_size();
        if free_anywhere || nodes > top {
            return true;
        }
        // Otherwise some block of some level must hold the job.
        self.levels_for(nodes).iter().any(|&factor| {
            per_block.chunks(factor as usize).any(|group| {
                group.iter().map(|&u| u64::from(units(u))).sum::<u64>() >= u64::from(need)
            })
        })
    }
}
