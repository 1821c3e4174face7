//! libslurm.so.38: Slurm 22.05's C library over spur's controller API, for
//! programs built against Debian 12's `slurm/slurm.h` (the Perl `Slurm`
//! module, slurm-wlm-torque's commands, pyslurm, site tools in C). The
//! ABI is bindgen's reading of that header ([`bindings`]); every function
//! it declares is exported: those spur serves work over the controller
//! API, the others ([`absent`]) answer `SLURM_ERROR` (or their type's
//! failure value) with errno `ESLURM_NOT_SUPPORTED`. No panic crosses the
//! C boundary ([`call`]).

#[rustfmt::skip]
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    unsafe_op_in_unsafe_fn,
    clippy::all
)]
pub mod bindings;

#[rustfmt::skip]
pub mod absent;
pub mod allocate;
pub mod ask;
pub mod bitstring;
pub mod call;
pub mod conf;
pub mod db;
pub mod env;
pub mod errors;
pub mod hostlist;
pub mod jobs;
pub mod list;
pub mod memory;
pub mod nodes;
pub mod session;
pub mod show;
pub mod stats;
pub mod steps;
pub mod submit;
pub mod times;
pub mod update;
pub mod words;
