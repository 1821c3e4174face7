//! sacct's command line: every option of Slurm's sacct (26.05 man page),
//! parsed the way getopt_long parses it (unique prefixes of long options;
//! `-j`, `-o`, `-u`, `-s`, `--name` and `-r` add to their lists when
//! repeated), and getopt's error texts. Nothing here talks to the
//! controller.

use std::ffi::OsString;

use clap::{ArgAction, CommandFactory, FromArgMatches, Parser};

/// `sacct`'s options, as Slurm names them.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sacct",
    about = "displays accounting data for all jobs and job steps in the Slurm job accounting log",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SacctArgs {
    /// Display jobs for all users.
    #[arg(short = 'a', long = "allusers")]
    pub allusers: bool,
    /// Only jobs charging these accounts.
    #[arg(short = 'A', long = "accounts", action = ArgAction::Append, allow_hyphen_values = true)]
    pub accounts: Vec<String>,
    /// Only statistics relevant to the job allocation itself, no steps.
    #[arg(short = 'X', long = "allocations")]
    pub allocations: bool,
    /// Deprecated form of -X.
    #[arg(short = 't', hide = true)]
    pub allocations_old: bool,
    /// Expand job arrays: an array's pending tasks a line each.
    #[arg(long = "array")]
    pub array: bool,
    /// Equivalent to '--format=jobstep,state,error'.
    #[arg(short = 'b', long = "brief")]
    pub brief: bool,
    /// Print the batch script of the jobs.
    #[arg(short = 'B', long = "batch-script")]
    pub batch_script: bool,
    /// Use job completion data instead of job accounting.
    #[arg(short = 'c', long = "completion")]
    pub completion: bool,
    /// Only jobs that asked for these features.
    #[arg(short = 'C', long = "constraints", action = ArgAction::Append, allow_hyphen_values = true)]
    pub constraints: Vec<String>,
    /// Separator of the fields of -p and -P.
    #[arg(long = "delimiter", allow_hyphen_values = true)]
    pub delimiter: Option<String>,
    /// Show every record of a job id, not only the most recent.
    #[arg(short = 'D', long = "duplicates")]
    pub duplicates: bool,
    /// List the fields -o takes.
    #[arg(short = 'e', long = "helpformat", alias = "help-fields")]
    pub helpformat: bool,
    /// List the reasons -R takes.
    #[arg(long = "helpreason")]
    pub helpreason: bool,
    /// List the states -s takes.
    #[arg(long = "helpstate")]
    pub helpstate: bool,
    /// Jobs eligible before this time.
    #[arg(short = 'E', long = "endtime", allow_hyphen_values = true)]
    pub endtime: Option<String>,
    /// Print the environment of the batch scripts.
    #[arg(long = "env-vars")]
    pub env_vars: bool,
    /// Expand the patterns of StdIn/StdOut/StdErr.
    #[arg(long = "expand-patterns")]
    pub expand_patterns: bool,
    /// Read this job completion file.
    #[arg(short = 'f', long = "file", allow_hyphen_values = true)]
    pub file: Option<String>,
    /// Filter on these job flags.
    #[arg(short = 'F', long = "flags", allow_hyphen_values = true)]
    pub flags: Option<String>,
    /// Only jobs of these groups (names or gids).
    #[arg(short = 'g', long = "gid", alias = "group", action = ArgAction::Append, allow_hyphen_values = true)]
    pub gid: Vec<String>,
    /// Show this help message.
    #[arg(short = 'h', long = "help")]
    pub help: bool,
    /// Only jobs that ran on this many nodes (min[-max]).
    #[arg(short = 'i', long = "nnodes", allow_hyphen_values = true)]
    pub nnodes: Option<String>,
    /// Only jobs that ran on this many CPUs (min[-max]).
    #[arg(short = 'I', long = "ncpus", allow_hyphen_values = true)]
    pub ncpus: Option<String>,
    /// Jobs and steps: job[.step], comma separated.
    #[arg(short = 'j', long = "jobs", action = ArgAction::Append, allow_hyphen_values = true)]
    pub jobs: Vec<String>,
    /// Only jobs with at least this time limit.
    #[arg(short = 'k', long = "timelimit-min", allow_hyphen_values = true)]
    pub timelimit_min: Option<String>,
    /// Only jobs with at most this time limit (with -k).
    #[arg(short = 'K', long = "timelimit-max", allow_hyphen_values = true)]
    pub timelimit_max: Option<String>,
    /// Long format.
    #[arg(short = 'l', long = "long")]
    pub long: bool,
    /// Jobs of all clusters.
    #[arg(short = 'L', long = "allclusters")]
    pub allclusters: bool,
    /// Jobs of these clusters.
    #[arg(
        short = 'M',
        long = "clusters",
        alias = "cluster",
        allow_hyphen_values = true
    )]
    pub clusters: Option<String>,
    /// Jobs of the user running the command (same as -u $USER).
    #[arg(long = "me")]
    pub me: bool,
    /// Only jobs of these names.
    #[arg(long = "name", action = ArgAction::Append, allow_hyphen_values = true)]
    pub name: Vec<String>,
    /// Only jobs that ran on these nodes.
    #[arg(short = 'N', long = "nodelist", allow_hyphen_values = true)]
    pub nodelist: Option<String>,
    /// Do not convert units (2048M stays 2048M).
    #[arg(long = "noconvert")]
    pub noconvert: bool,
    /// Display values in this unit.
    #[arg(long = "units", allow_hyphen_values = true)]
    pub units: Option<String>,
    /// No header.
    #[arg(short = 'n', long = "noheader")]
    pub noheader: bool,
    /// Comma separated list of fields.
    #[arg(short = 'o', long = "format", alias = "fields", action = ArgAction::Append, allow_hyphen_values = true)]
    pub format: Vec<String>,
    /// '|' delimited output with a '|' at the end.
    #[arg(short = 'p', long = "parsable")]
    pub parsable: bool,
    /// '|' delimited output without a '|' at the end.
    #[arg(short = 'P', long = "parsable2")]
    pub parsable2: bool,
    /// Only jobs of these QOS.
    #[arg(short = 'q', long = "qos", allow_hyphen_values = true)]
    pub qos: Option<String>,
    /// Only jobs in these partitions.
    #[arg(short = 'r', long = "partition", action = ArgAction::Append, allow_hyphen_values = true)]
    pub partition: Vec<String>,
    /// Only jobs pending for these reasons.
    #[arg(short = 'R', long = "reason", action = ArgAction::Append, allow_hyphen_values = true)]
    pub reason: Vec<String>,
    /// Jobs in these states during the window.
    #[arg(short = 's', long = "state", action = ArgAction::Append, allow_hyphen_values = true)]
    pub state: Vec<String>,
    /// Jobs eligible after this time.
    #[arg(short = 'S', long = "starttime", allow_hyphen_values = true)]
    pub starttime: Option<String>,
    /// Truncate start and end times to the window.
    #[arg(short = 'T', long = "truncate")]
    pub truncate: bool,
    /// Only jobs of these users (names or uids).
    #[arg(short = 'u', long = "uid", alias = "user", action = ArgAction::Append, allow_hyphen_values = true)]
    pub user: Vec<String>,
    /// Report the uid of the local user of the same name.
    #[arg(long = "use-local-uid")]
    pub use_local_uid: bool,
    /// Brief usage message.
    #[arg(short = 'U', long = "usage")]
    pub usage: bool,
    /// Verbosity.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// Only jobs of these wckeys.
    #[arg(short = 'W', long = "wckeys", allow_hyphen_values = true)]
    pub wckeys: Option<String>,
    /// All components of heterogeneous jobs (yes|no).
    #[arg(long = "whole-hetjob", num_args = 0..=1, default_missing_value = "yes", require_equals = true)]
    pub whole_hetjob: Option<String>,
    /// Only jobs of these association ids.
    #[arg(short = 'x', long = "associations", allow_hyphen_values = true)]
    pub associations: Option<String>,
    /// JSON output.
    #[arg(long = "json", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub json: Option<String>,
    /// YAML output.
    #[arg(long = "yaml", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub yaml: Option<String>,
    /// Local cluster only.
    #[arg(long = "local")]
    pub local: bool,
    /// Jobs of the whole federation.
    #[arg(long = "federation")]
    pub federation: bool,
    /// Shell completion helper.
    #[arg(long = "autocomplete", hide = true, allow_hyphen_values = true)]
    pub autocomplete: Option<String>,
    /// Arguments that are not options (an error).
    #[arg(value_name = "ARGS", hide = true)]
    pub rest: Vec<String>,
    /// Whether `-a` came after the last `-u` (the later one wins).
    #[arg(skip)]
    pub allusers_last: bool,
}

/// Parses sacct's command line (args[0] is the program name). On error,
/// returns the text to print on stderr; sacct exits 1 after it.
pub fn parse(args: Vec<OsString>) -> Result<SacctArgs, String> {
    let last = args.last().cloned().unwrap_or_default();
    let error = |e: clap::Error| crate::getopt::error("sacct", &e, &last);
    let matches = SacctArgs::command()
        .try_get_matches_from(args)
        .map_err(error)?;
    let mut a = SacctArgs::from_arg_matches(&matches).map_err(error)?;
    let last_of = |id: &str| matches.indices_of(id).and_then(|i| i.max());
    a.allusers_last = match (last_of("allusers"), last_of("user")) {
        (Some(all), Some(user)) => all > user,
        (Some(_), None) => true,
        _ => false,
    };
    Ok(a)
}

/// sacct's --help text.
pub fn help_text() -> String {
    SacctArgs::command().render_help().to_string()
}

/// sacct's --usage text.
pub fn usage_text() -> String {
    "Usage: sacct [options]\n\tUse --help for help\n".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        std::iter::once("sacct")
            .chain(list.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn unknown_options_read_as_getopt_says_them() {
        assert_eq!(
            parse(args(&["--bogus"])).unwrap_err(),
            "sacct: unrecognized option '--bogus'\nTry \"sacct --help\" for more information\n"
        );
        assert!(parse(args(&["-y"]))
            .unwrap_err()
            .starts_with("sacct: invalid option -- 'y'\n"));
        assert!(parse(args(&["-o"]))
            .unwrap_err()
            .starts_with("sacct: option requires an argument -- 'o'\n"));
    }

    #[test]
    fn list_options_add_up_and_long_options_take_prefixes() {
        let a = parse(args(&[
            "-j", "5,6", "--jobs=7", "-X", "--form", "JobID", "-oState",
        ]))
        .expect("parses");
        assert_eq!(a.jobs, vec!["5,6", "7"]);
        assert!(a.allocations);
        assert_eq!(a.format, vec!["JobID", "State"]);
        let a = parse(args(&["-P", "-n", "-S", "now-1hour", "--endt", "now"])).expect("parses");
        assert!(a.parsable2 && a.noheader);
        assert_eq!(a.starttime.as_deref(), Some("now-1hour"));
        assert_eq!(a.endtime.as_deref(), Some("now"));
    }

    #[test]
    fn the_later_of_a_and_u_wins() {
        assert!(
            parse(args(&["-u", "root", "-a"]))
                .expect("parses")
                .allusers_last
        );
        assert!(
            !parse(args(&["-a", "-u", "root"]))
                .expect("parses")
                .allusers_last
        );
    }
}
