//! spur-slurm: Slurm's vocabulary, with no I/O, in one place for every
//! front end (the commands, the REST server, the C library): how Slurm
//! reads numbers the C way, its signal names, and how its listings lay out
//! a line. Each module says which Slurm function it follows.

pub mod number;
pub mod print;
pub mod signal;
