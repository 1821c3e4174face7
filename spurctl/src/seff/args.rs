//! seff's command line (Slurm 22.05's `contribs/seff/seff`, which reads
//! it with Perl's `getopts('hvdf:')`).

use clap::Parser;

/// `seff [-h] [-v] [-d] JOBID`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "seff",
    about = "Efficiency of a job's CPU, memory and GPU use, from its accounting record",
    disable_help_flag = true,
    disable_version_flag = true
)]
pub struct SeffArgs {
    /// Print the usage text.
    #[arg(short = 'h', long = "help")]
    pub help: bool,
    /// Print seff's version.
    #[arg(short = 'v', long = "version")]
    pub version: bool,
    /// Print the raw figures first.
    #[arg(short = 'd')]
    pub debug: bool,
    /// Taken and not acted on (seff takes it and uses it for nothing);
    /// spur warns.
    #[arg(short = 'f', value_name = "ARG")]
    pub f: Option<String>,
    /// The job: `N` or `N_T` (an array task).
    #[arg(value_name = "JOBID")]
    pub jobs: Vec<String>,
}

/// seff's usage text, for `-h` and a wrong number of jobs.
pub const USAGE: &str = "Usage: seff [Options] <Jobid>
       Options:
       -h    Help menu
       -v    Version
       -d    Debug mode: display raw Slurm data
";

/// The version seff reports.
pub const VERSION: &str = "seff Version 2.1";
