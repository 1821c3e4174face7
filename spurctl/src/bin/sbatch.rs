//! `sbatch` as a program of its own, which the name `sbatch` links to. A
//! shell loop of submissions starts it once a line: with sbatch's code
//! alone (two fifths of the multi-call binary's) it starts in fewer page
//! faults. `spurctl sbatch` runs the same command.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: spur_sys::LargePages = spur_sys::LargePages;

fn main() -> ExitCode {
    spurctl::reset_sigpipe();
    spurctl::sbatch::run(std::env::args_os().collect())
}
