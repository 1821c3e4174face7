//! spur-sim: replays job traces through spur-core on a virtual clock, next
//! to a topology-unaware Slurm-like baseline (linear first fit + backfill) on
//! the same input, and reports occupancy, waits, locality and fragmentation.

pub mod cluster;
pub mod engine;
pub mod metrics;
pub mod plot;
pub mod report;
pub mod trace;
pub mod workload;
