//! spur-slurm: Slurm's vocabulary, with no I/O, in one place for every
//! front end (the commands, the REST server, the C library): how Slurm
//! reads numbers the C way, and its signal names. Each module says which
//! Slurm function it follows.

pub mod number;
pub mod signal;
