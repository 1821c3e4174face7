//! sdiag's command line (Slurm 22.05 `src/sdiag/opts.c`), parsed with clap
//! the way getopt_long reads it.

use std::ffi::OsString;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use spur_report::sdiag::RpcOrder;

/// `sdiag [OPTIONS]`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sdiag",
    about = "Scheduling diagnostic tool for Slurm",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SdiagArgs {
    /// All statistics (the default).
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Print the help text.
    #[arg(short = 'h', long = "help")]
    pub help: bool,
    /// Sort the request tables by message type and uid.
    #[arg(short = 'i', long = "sort-by-id")]
    pub sort_by_id: bool,
    /// The cluster to ask (spur answers for its own).
    #[arg(short = 'M', long = "cluster", alias = "clusters", value_name = "NAME")]
    pub cluster: Option<String>,
    /// Begin the counters again (operators only).
    #[arg(short = 'r', long = "reset")]
    pub reset: bool,
    /// Sort the request tables by total time.
    #[arg(short = 't', long = "sort-by-time")]
    pub sort_by_time: bool,
    /// Sort the request tables by mean time.
    #[arg(short = 'T', long = "sort-by-time2")]
    pub sort_by_time2: bool,
    /// Print the usage line.
    #[arg(long = "usage")]
    pub usage: bool,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
}

/// `sdiag --usage`.
pub const USAGE: &str = "Usage: sdiag [-M cluster] [-aritT]\n";

/// `sdiag --help`.
pub const HELP: &str = "\
Usage: sdiag [OPTIONS]
  -a, --all           all statistics
  -r, --reset         reset statistics
  -M, --cluster       direct the request to a specific cluster
  -i, --sort-by-id    sort RPCs by id
  -t, --sort-by-time  sort RPCs by total run time
  -T, --sort-by-time2 sort RPCs by average run time
  -V, --version       display current version number

Help options:
  --help          show this help message
  --usage         display brief usage message
";

/// Parses sdiag's command line: the options, and the request tables'
/// order, which the last of `-i`, `-t` and `-T` given sets. Of `-a` and
/// `-r`, the last given decides whether the counters are reset.
pub fn parse(argv: Vec<OsString>) -> Result<(SdiagArgs, RpcOrder), clap::Error> {
    let matches = SdiagArgs::command().try_get_matches_from(argv)?;
    let mut args = SdiagArgs::from_arg_matches(&matches)?;
    let last = |id: &str| {
        let given = matches.value_source(id) == Some(ValueSource::CommandLine);
        given.then(|| matches.indices_of(id)?.max()).flatten()
    };
    args.reset = last("reset") > last("all");
    let order = [
        ("sort_by_id", RpcOrder::Id),
        ("sort_by_time", RpcOrder::Time),
        ("sort_by_time2", RpcOrder::AverageTime),
    ]
    .into_iter()
    .filter_map(|(id, order)| last(id).map(|at| (at, order)))
    .max_by_key(|&(at, _)| at)
    .map_or(RpcOrder::Count, |(_, order)| order);
    Ok((args, order))
}
