//! sprio's command line (Slurm 22.05 `src/sprio/opts.c`), parsed with clap
//! the way getopt_long reads it.

use clap::{ArgAction, Parser};

/// `sprio [OPTIONS] [JOBS]`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sprio",
    about = "view the factors that comprise a job's scheduling priority",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SprioArgs {
    /// No header line.
    #[arg(short = 'h', long = "noheader")]
    pub noheader: bool,
    /// Only these jobs (comma separated); the list may also follow the
    /// options.
    #[arg(
        short = 'j',
        long = "jobs",
        value_name = "JOBS",
        num_args = 0..=1,
        default_missing_value = ""
    )]
    pub jobs: Option<String>,
    /// Every term, whatever its weight.
    #[arg(short = 'l', long = "long")]
    pub long: bool,
    /// The cluster to ask (spur answers for its own).
    #[arg(short = 'M', long = "cluster", alias = "clusters", value_name = "NAME")]
    pub cluster: Option<String>,
    /// Each term as its factor, before its weight.
    #[arg(short = 'n', long = "norm")]
    pub norm: bool,
    /// Output format with `%` codes.
    #[arg(
        short = 'o',
        long = "format",
        value_name = "FORMAT",
        allow_hyphen_values = true
    )]
    pub format: Option<String>,
    /// Sort order (sprio's `-S` letters).
    #[arg(
        short = 'S',
        long = "sort",
        value_name = "FIELDS",
        allow_hyphen_values = true
    )]
    pub sort: Option<String>,
    /// Only jobs in these partitions (comma separated).
    #[arg(short = 'p', long = "partition", value_name = "PARTITIONS")]
    pub partition: Option<String>,
    /// Only these users' jobs (comma separated).
    #[arg(short = 'u', long = "user", alias = "users", value_name = "USERS")]
    pub user: Option<String>,
    /// Print the options first.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// Print the weights instead of the jobs.
    #[arg(short = 'w', long = "weights")]
    pub weights: bool,
    /// Jobs of the whole federation (spur has no federations: this cluster).
    #[arg(long = "federation")]
    pub federation: bool,
    /// Print the help text.
    #[arg(long = "help")]
    pub help: bool,
    /// This cluster only.
    #[arg(long = "local")]
    pub local: bool,
    /// One record per federation cluster, with a cluster column.
    #[arg(long = "sibling", alias = "sib")]
    pub sibling: bool,
    /// Print the usage lines.
    #[arg(long = "usage")]
    pub usage: bool,
    /// Words after the options: the jobs, after `-j`.
    #[arg(hide = true)]
    pub rest: Vec<String>,
}

/// `sprio --usage`.
pub const USAGE: &str = "\
Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]
   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]
";

/// `sprio --help`.
pub const HELP: &str = "\
Usage: sprio [OPTIONS]
      --federation                display jobs in federation if a member of one
  -h, --noheader                  no headers on output
  -j, --jobs                      comma separated list of jobs
                                  to view, default is all
      --local                     display jobs on local cluster only
  -l, --long                      long report
  -M, --cluster=cluster_name      cluster to issue commands to.  Default is
                                  current cluster.  cluster with no name will
                                  reset to default.
                                  NOTE: SlurmDBD must be up.
  -n, --norm                      display normalized values
  -o, --format=format             format specification
      --sibling                   display job records separately for each federation cluster
  -p, --partition=partition_name  comma separated list of partitions
  -u, --user=user_name            comma separated list of users to view
  -v, --verbose                   verbosity level
  -V, --version                   output version information and exit
  -w, --weights                   show the weights for each priority factor

Help options:
  --help                          show this help message
  --usage                         display a brief summary of sprio options
";
