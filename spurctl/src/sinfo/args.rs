//! sinfo's command line (Slurm 22.05-26.05 `sinfo.1`), parsed with clap the
//! way getopt_long reads it, and the getopt-style error text that sinfo and
//! scontrol print for a bad option.

use clap::{ArgAction, Parser};

/// `sinfo [OPTIONS]`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sinfo",
    about = "view information about nodes and partitions",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SinfoArgs {
    /// Show all partitions, hidden ones included.
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Only nodes that do not respond.
    #[arg(short = 'd', long = "dead")]
    pub dead: bool,
    /// Group nodes only when their configuration matches exactly.
    #[arg(short = 'e', long = "exact")]
    pub exact: bool,
    /// Federation information (accepted; spur has no federations).
    #[arg(long = "federation")]
    pub federation: bool,
    /// Print the help text.
    #[arg(long = "help")]
    pub help: bool,
    /// Hide hidden partitions (the default).
    #[arg(long = "hide")]
    pub hide: bool,
    /// Print again every this many seconds.
    #[arg(short = 'i', long = "iterate", value_name = "SECONDS")]
    pub iterate: Option<String>,
    /// This cluster only (accepted).
    #[arg(long = "local")]
    pub local: bool,
    /// Long output.
    #[arg(short = 'l', long = "long")]
    pub long: bool,
    /// Clusters to ask (accepted; spur answers for its own cluster).
    #[arg(
        short = 'M',
        long = "clusters",
        alias = "cluster",
        value_name = "NAMES"
    )]
    pub clusters: Option<String>,
    /// Only these nodes (a hostlist).
    #[arg(short = 'n', long = "nodes", value_name = "NODES")]
    pub nodes: Option<String>,
    /// Do not convert units (accepted).
    #[arg(long = "noconvert")]
    pub noconvert: bool,
    /// No header line.
    #[arg(short = 'h', long = "noheader")]
    pub noheader: bool,
    /// One line per node.
    #[arg(short = 'N', long = "Node")]
    pub node: bool,
    /// Output format with `%` codes.
    #[arg(short = 'o', long = "format", value_name = "FORMAT")]
    pub format: Option<String>,
    /// Output format with field names.
    #[arg(short = 'O', long = "Format", value_name = "FORMAT")]
    pub long_format: Option<String>,
    /// Only these partitions (comma separated).
    #[arg(short = 'p', long = "partition", value_name = "PARTITION")]
    pub partition: Option<String>,
    /// Only nodes that respond.
    #[arg(short = 'r', long = "responding")]
    pub responding: bool,
    /// Why nodes are down or drained.
    #[arg(short = 'R', long = "list-reasons")]
    pub list_reasons: bool,
    /// A summary per partition.
    #[arg(short = 's', long = "summarize")]
    pub summarize: bool,
    /// Sort order (sinfo's `-S` letters).
    #[arg(short = 'S', long = "sort", value_name = "FIELDS")]
    pub sort: Option<String>,
    /// Only nodes in these states.
    #[arg(short = 't', long = "states", value_name = "STATES")]
    pub states: Option<String>,
    /// Reservations instead of nodes.
    #[arg(short = 'T', long = "reservation")]
    pub reservation: bool,
    /// Print the usage line.
    #[arg(long = "usage")]
    pub usage: bool,
    /// More detail.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// JSON output (the nodes, as slurmrestd's v0.0.38 `/nodes/`).
    #[arg(long = "json")]
    pub json: bool,
    /// YAML output (not supported by spur; sinfo says so).
    #[arg(long = "yaml")]
    pub yaml: bool,
    /// Words after the options (ignored, as sinfo ignores them).
    #[arg(hide = true)]
    pub rest: Vec<String>,
}

/// `sinfo --usage`.
pub const USAGE: &str = "\
Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]
             [-S fields] [-o format] [-O Format] [--federation] [--local]
";

/// `sinfo --help`.
pub const HELP: &str = "\
Usage: sinfo [OPTIONS]
  -a, --all                  show all partitions (including hidden and those
			     not accessible)
  -d, --dead                 show only non-responding nodes
  -e, --exact                group nodes only on exact match of configuration
      --federation           Report federated information if a member of one
  -h, --noheader             no headers on output
  --hide                     do not show hidden or non-accessible partitions
  -i, --iterate=seconds      specify an iteration period
      --json                 Produce JSON output
      --local                show only local cluster in a federation.
                             Overrides --federation.
  -l, --long                 long output - displays more information
  -M, --clusters=names       clusters to issue commands to. Implies --local.
                             NOTE: SlurmDBD must be up.
  -n, --nodes=NODES          report on specific node(s)
  --noconvert                don't convert units from their original type
			     (e.g. 2048M won't be converted to 2G).
  -N, --Node                 Node-centric format
  -o, --format=format        format specification
  -O, --Format=format        long format specification
  -p, --partition=PARTITION  report on specific partition
  -r, --responding           report only responding nodes
  -R, --list-reasons         list reason nodes are down or drained
  -s, --summarize            report state summary only
  -S, --sort=fields          comma separated list of fields to sort on
  -t, --states=node_state    specify the what states of nodes to view
  -T, --reservation          show only reservation information
  -v, --verbose              verbosity level
  -V, --version              output version information and exit
      --yaml                 Produce YAML output

Help options:
  --help                     show this help message
  --usage                    display brief usage message
";
