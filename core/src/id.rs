//! Typed identifiers. Every id the core hands out or accepts is a newtype
//! made by [`define_id!`], so a node index can never be passed where a job id
//! is expected.

/// Defines a `Copy` newtype id over an unsigned integer, with `Display`,
/// ordering and conversion helpers.
#[macro_export]
macro_rules! define_id {
    ($(#[$meta:meta])* $name:ident($inner:ty)) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl $name {
            /// The raw value.
            pub const fn get(self) -> $inner {
                self.0
            }

            /// The value as a vector index.
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<$inner> for $name {
            fn from(value: $inner) -> Self {
                Self(value)
            }
        }
    };
}

define_id!(
    /// A job, as Slurm numbers it (`SLURM_JOB_ID`).
    JobId(u32)
);
define_id!(
    /// A node: its index in the cluster's node table.
    NodeId(u32)
);
define_id!(
    /// A base block (an NVL72 domain on GB200): its index in the topology.
    BlockId(u32)
);
define_id!(
    /// A switch of a tree topology: its index in the topology.
    SwitchId(u32)
);
define_id!(
    /// A partition: its index in the cluster's partition table.
    PartitionId(u32)
);
define_id!(
    /// A quality of service: its index in the cluster's QOS table.
    QosId(u32)
);
define_id!(
    /// A Unix user id.
    Uid(u32)
);
