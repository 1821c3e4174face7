//! spur-slurm: Slurm's vocabulary, with no I/O, in one place for every
//! front end (the commands, the REST server, the C library): how Slurm
//! reads numbers the C way, its signal names, how it prints times,
//! durations and sizes, and how its listings lay out a line. Each module says which Slurm function it follows.

pub mod number;
pub mod parse_time;
pub mod print;
pub mod signal;
pub mod time;
pub mod units;
