//! Consumable resources of a node (select/cons_tres semantics): CPUs, memory
//! and GPUs handed out by index. Owns the arithmetic on them; knows nothing of
//! jobs or topology.

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch. The core never reads a clock: every entry
/// point takes `now` as an argument.
pub type Time = u64;

/// A set of GPU indices on one node (at most 64 GPUs per node).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct GpuSet(pub u64);

/// The most GPUs one node may have.
pub const MAX_GPUS_PER_NODE: u32 = 64;

impl GpuSet {
    /// The empty set.
    pub const EMPTY: GpuSet = GpuSet(0);

    /// The set `{0, 1, ..., count - 1}`.
    pub fn first(count: u32) -> GpuSet {
        match count {
            0 => GpuSet(0),
            c if c >= MAX_GPUS_PER_NODE => GpuSet(u64::MAX),
            c => GpuSet((1u64 << c) - 1),
        }
    }

    /// The set of these indices (those of a node's range only).
    pub fn from_indices(indices: impl IntoIterator<Item = u32>) -> GpuSet {
        GpuSet(
            indices
                .into_iter()
                .filter(|&i| i < MAX_GPUS_PER_NODE)
                .fold(0, |set, i| set | (1 << i)),
        )
    }

    /// How many GPUs the set holds.
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `self` and `other` share a GPU.
    pub fn intersects(self, other: GpuSet) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every GPU of `other` is in `self`.
    pub fn contains_all(self, other: GpuSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union of both sets.
    pub fn union(self, other: GpuSet) -> GpuSet {
        GpuSet(self.0 | other.0)
    }

    /// `self` without the GPUs of `other`.
    pub fn without(self, other: GpuSet) -> GpuSet {
        GpuSet(self.0 & !other.0)
    }

    /// The `count` lowest indices of the set, or `None` if it holds fewer.
    pub fn take_lowest(self, count: u32) -> Option<GpuSet> {
        if self.len() < count {
            return None;
        }
        let mut rest = self.0;
        let mut taken = 0u64;
        for _ in 0..count {
            let low = rest & rest.wrapping_neg();
            taken |= low;
            rest &= !low;
        }
        Some(GpuSet(taken))
    }

    /// The indices in ascending order.
    pub fn indices(self) -> impl Iterator<Item = u32> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let index = rest.trailing_zeros();
            rest &= rest - 1;
            Some(index)
        })
    }
}

impl std::fmt::Display for GpuSet {
    /// Slurm's index list form, as in `SLURM_JOB_GPUS`: `0,1,3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for index in self.indices() {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{index}")?;
        }
        Ok(())
    }
}

/// The consumable resources of one node, or an amount of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    /// CPUs (Slurm counts hardware threads when ThreadsPerCore > 1).
    pub cpus: u32,
    /// Memory in MiB.
    pub mem_mb: u64,
    /// GPUs (a count; indices are tracked by [`GpuSet`]).
    pub gpus: u32,
}

impl Resources {
    /// Nothing.
    pub const ZERO: Resources = Resources {
        cpus: 0,
        mem_mb: 0,
        gpus: 0,
    };

    /// Whether `self` covers `need` in every dimension.
    pub fn covers(&self, need: &Resources) -> bool {
        self.cpus >= need.cpus && self.mem_mb >= need.mem_mb && self.gpus >= need.gpus
    }

    /// `self - other`, saturating at zero in each dimension.
    pub fn saturating_sub(&self, other: &Resources) -> Resources {
        Resources {
            cpus: self.cpus.saturating_sub(other.cpus),
            mem_mb: self.mem_mb.saturating_sub(other.mem_mb),
            gpus: self.gpus.saturating_sub(other.gpus),
        }
    }

    /// `self + other`.
    pub fn add(&self, other: &Resources) -> Resources {
        Resources {
            cpus: self.cpus + other.cpus,
            mem_mb: self.mem_mb + other.mem_mb,
            gpus: self.gpus + other.gpus,
        }
    }

    /// Whether every dimension is zero.
    pub fn is_zero(&self) -> bool {
        *self == Resources::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_set_takes_lowest_free_indices() {
        let used = GpuSet(0b0101);
        let free = GpuSet::first(4).without(used);
        assert_eq!(free.take_lowest(2), Some(GpuSet(0b1010)));
        assert_eq!(free.take_lowest(3), None);
        assert_eq!(GpuSet(0b1011).to_string(), "0,1,3");
        assert_eq!(GpuSet::first(64).len(), 64);
    }

    #[test]
    fn resources_cover_and_subtract() {
        let node = Resources {
            cpus: 144,
            mem_mb: 1000,
            gpus: 4,
        };
        let need = Resources {
            cpus: 72,
            mem_mb: 1000,
            gpus: 4,
        };
        assert!(node.covers(&need));
        assert_eq!(
            node.saturating_sub(&need),
            Resources {
                cpus: 72,
                mem_mb: 0,
                gpus: 0
            }
        );
        assert!(!need.covers(&node));
    }
}
