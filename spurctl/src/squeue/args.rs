//! squeue's command line: every option of Slurm's squeue (25.11 man page),
//! parsed the way getopt_long parses it (unique prefixes of long options,
//! `-j` with an optional list, the last of a repeated option wins), and
//! getopt's error texts. Nothing here talks to the controller.

use std::ffi::OsString;

use clap::{ArgAction, CommandFactory, Parser};

/// `squeue`'s options, as Slurm names them.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "squeue",
    about = "view information about jobs located in the Slurm scheduling queue",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SqueueArgs {
    /// Comma separated list of accounts to view.
    #[arg(
        short = 'A',
        long = "accounts",
        alias = "account",
        allow_hyphen_values = true
    )]
    pub accounts: Option<String>,
    /// Old name of -A.
    #[arg(short = 'U', hide = true, allow_hyphen_values = true)]
    pub accounts_old: Option<String>,
    /// Display jobs in hidden partitions.
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Display one job array element per line.
    #[arg(short = 'r', long = "array")]
    pub array: bool,
    /// Display one unique pending job array element per line.
    #[arg(long = "array-unique")]
    pub array_unique: bool,
    /// Field-name format specification.
    #[arg(short = 'O', long = "Format", allow_hyphen_values = true)]
    pub format_long: Option<String>,
    /// %-code format specification.
    #[arg(short = 'o', long = "format", allow_hyphen_values = true)]
    pub format: Option<String>,
    /// Report federated information.
    #[arg(long = "federation")]
    pub federation: bool,
    /// Show this help message.
    #[arg(long = "help")]
    pub help: bool,
    /// List the -o field codes.
    #[arg(long = "helpformat")]
    pub helpformat: bool,
    /// List the -O field names.
    #[arg(long = "helpFormat")]
    pub helpformat_long: bool,
    /// List the job states.
    #[arg(long = "helpstate")]
    pub helpstate: bool,
    /// Do not display jobs in hidden partitions.
    #[arg(long = "hide")]
    pub hide: bool,
    /// Repeat every this many seconds.
    #[arg(short = 'i', long = "iterate", allow_hyphen_values = true)]
    pub iterate: Option<String>,
    /// Comma separated list of job ids (the list may also follow as an
    /// argument).
    #[arg(short = 'j', long = "jobs", alias = "job", num_args = 0..=1, default_missing_value = "")]
    pub jobs: Option<String>,
    /// Report only about jobs on the local cluster.
    #[arg(long = "local")]
    pub local: bool,
    /// Long report.
    #[arg(short = 'l', long = "long")]
    pub long: bool,
    /// Comma separated list of license names to view.
    #[arg(short = 'L', long = "licenses", allow_hyphen_values = true)]
    pub licenses: Option<String>,
    /// Clusters to issue commands to.
    #[arg(
        short = 'M',
        long = "clusters",
        alias = "cluster",
        allow_hyphen_values = true
    )]
    pub clusters: Option<String>,
    /// Only the jobs of the user running the command.
    #[arg(long = "me")]
    pub me: bool,
    /// Comma separated list of job names to view.
    #[arg(short = 'n', long = "name", allow_hyphen_values = true)]
    pub name: Option<String>,
    /// Do not convert units.
    #[arg(long = "noconvert")]
    pub noconvert: bool,
    /// Hostlist of nodes to view.
    #[arg(short = 'w', long = "nodelist", aliases = ["node", "nodes"], allow_hyphen_values = true)]
    pub nodelist: Option<String>,
    /// No headers on output.
    #[arg(short = 'h', long = "noheader")]
    pub noheader: bool,
    /// Every job except those of the user running the command.
    #[arg(long = "notme")]
    pub notme: bool,
    /// Only job ids and states.
    #[arg(long = "only-job-state")]
    pub only_job_state: bool,
    /// Comma separated list of partitions to view.
    #[arg(
        short = 'p',
        long = "partitions",
        alias = "partition",
        allow_hyphen_values = true
    )]
    pub partitions: Option<String>,
    /// One line per partition of a pending job.
    #[arg(short = 'P', long = "priority")]
    pub priority: bool,
    /// Comma separated list of QOS to view.
    #[arg(short = 'q', long = "qos", allow_hyphen_values = true)]
    pub qos: Option<String>,
    /// Reservation to view.
    #[arg(short = 'R', long = "reservation", allow_hyphen_values = true)]
    pub reservation: Option<String>,
    /// Jobs that have run longer than this.
    #[arg(long = "running-over", allow_hyphen_values = true)]
    pub running_over: Option<String>,
    /// Jobs that have run less than this.
    #[arg(long = "running-under", allow_hyphen_values = true)]
    pub running_under: Option<String>,
    /// Report about all sibling jobs of a federation.
    #[arg(long = "sibling", alias = "sib")]
    pub sibling: bool,
    /// Comma separated list of fields to sort on.
    #[arg(short = 'S', long = "sort", allow_hyphen_values = true)]
    pub sort: Option<String>,
    /// Expected start times of pending jobs.
    #[arg(long = "start")]
    pub start: bool,
    /// Comma separated list of job steps to view.
    #[arg(short = 's', long = "steps", alias = "step", num_args = 0..=1, default_missing_value = "")]
    pub steps: Option<String>,
    /// Comma separated list of states to view (`all` for all).
    #[arg(
        short = 't',
        long = "states",
        alias = "state",
        allow_hyphen_values = true
    )]
    pub states: Option<String>,
    /// A brief summary of the options.
    #[arg(long = "usage")]
    pub usage: bool,
    /// Comma separated list of users (names or uids) to view.
    #[arg(
        short = 'u',
        long = "user",
        alias = "users",
        allow_hyphen_values = true
    )]
    pub user: Option<String>,
    /// Verbosity.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// JSON output (optionally a data_parser name).
    #[arg(long = "json", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub json: Option<String>,
    /// YAML output (optionally a data_parser name).
    #[arg(long = "yaml", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub yaml: Option<String>,
    /// Expand the patterns of StdIn/StdOut/StdErr.
    #[arg(long = "expand-patterns")]
    pub expand_patterns: bool,
    /// Shell completion helper.
    #[arg(long = "autocomplete", hide = true, allow_hyphen_values = true)]
    pub autocomplete: Option<String>,
    /// A job (with -j) or step (with -s) list given as an argument.
    #[arg(value_name = "LIST")]
    pub rest: Vec<String>,
}

/// Parses squeue's command line (args[0] is the program name). On error,
/// returns the text to print on stderr; squeue exits 1 after it.
pub fn parse(args: Vec<OsString>) -> Result<SqueueArgs, String> {
    let last = args.last().cloned().unwrap_or_default();
    SqueueArgs::try_parse_from(args).map_err(|e| crate::getopt::error("squeue", &e, &last))
}

/// squeue's --help text.
pub fn help_text() -> String {
    SqueueArgs::command().render_help().to_string()
}

/// squeue's --usage text.
pub fn usage_text() -> String {
    format!("{}\n", SqueueArgs::command().render_usage())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        std::iter::once("squeue")
            .chain(list.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn unknown_long_option_reads_as_getopt_says_it() {
        let err = parse(args(&["--bogus"])).unwrap_err();
        assert_eq!(
            err,
            "squeue: unrecognized option '--bogus'\nTry \"squeue --help\" for more information\n"
        );
    }

    #[test]
    fn unknown_short_option_reads_as_getopt_says_it() {
        let err = parse(args(&["-k"])).unwrap_err();
        assert!(err.starts_with("squeue: invalid option -- 'k'\n"), "{err}");
    }

    #[test]
    fn missing_argument_reads_as_getopt_says_it() {
        let err = parse(args(&["-o"])).unwrap_err();
        assert!(
            err.starts_with("squeue: option requires an argument -- 'o'\n"),
            "{err}"
        );
        let err = parse(args(&["--format"])).unwrap_err();
        assert!(
            err.starts_with("squeue: option '--format' requires an argument\n"),
            "{err}"
        );
    }

    #[test]
    fn options_parse_like_getopt() {
        let a = parse(args(&["-h", "-u", "anchor", "-o", "%A %i %t"])).unwrap();
        assert!(a.noheader);
        assert_eq!(a.user.as_deref(), Some("anchor"));
        assert_eq!(a.format.as_deref(), Some("%A %i %t"));
        let a = parse(args(&["--form=%i", "--sort", "-p,i", "-j8"])).unwrap();
        assert_eq!(a.format.as_deref(), Some("%i"));
        assert_eq!(a.sort.as_deref(), Some("-p,i"));
        assert_eq!(a.jobs.as_deref(), Some("8"));
        let a = parse(args(&["-j", "--start", "-vv", "-t", "PD", "-t", "R"])).unwrap();
        assert_eq!(a.jobs.as_deref(), Some(""));
        assert!(a.start);
        assert_eq!(a.verbose, 2);
        assert_eq!(a.states.as_deref(), Some("R"));
        let a = parse(args(&["--json", "-O", "JobID,Name:20"])).unwrap();
        assert_eq!(a.json.as_deref(), Some(""));
        assert_eq!(a.format_long.as_deref(), Some("JobID,Name:20"));
    }

    #[test]
    fn a_job_list_may_follow_as_an_argument() {
        let a = parse(args(&["--jobs", "--noheader", "5,13"])).unwrap();
        assert_eq!(a.jobs.as_deref(), Some(""));
        assert_eq!(a.rest, vec!["5,13".to_string()]);
    }
}
