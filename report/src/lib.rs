//! spur-report: Slurm's reports of spur's wire types, pure and shared by
//! every front end. `scontrol show` records (which libslurm's
//! `slurm_sprint_*` print too), squeue's, sinfo's and sacct's fields,
//! formats and tables, sdiag's counters, sprio's priority terms, sshare's
//! fair-share tree, what steps used (sacct's and sstat's usage fields,
//! seff's efficiency), and the `--json` documents that slurmrestd's v0.0.38
//! answers share. Records and the clock in, text or serde shapes out: no
//! I/O, no requests.

pub mod print_fields;
pub mod sacct;
pub mod sdiag;
pub mod seff;
pub mod shares;
pub mod show;
pub mod sinfo;
pub mod sprio;
pub mod squeue;
pub mod sshare;
pub mod sstat;
pub mod usage;
