//! scancel's command line: every option of Slurm's scancel (25.11 man
//! page) parsed the way getopt_long parses it, and the SCANCEL_* variables
//! that stand in for options not given. Nothing here talks to the
//! controller.

use std::ffi::OsString;

use clap::{ArgAction, CommandFactory, Parser};

/// `scancel`'s options, as Slurm names them.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "scancel",
    about = "Used to signal jobs or job steps that are under the control of Slurm",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct ScancelArgs {
    /// Act only on jobs charging this account.
    #[arg(short = 'A', long = "account", allow_hyphen_values = true)]
    pub account: Option<String>,
    /// Set the admin comment of the jobs (operators only).
    #[arg(long = "admin-comment", allow_hyphen_values = true)]
    pub admin_comment: Option<String>,
    /// Signal the batch shell only.
    #[arg(short = 'b', long = "batch")]
    pub batch: bool,
    /// Send the request through the controller.
    #[arg(long = "ctld")]
    pub ctld: bool,
    /// Allow cancelling cron jobs.
    #[arg(short = 'c', long = "cron")]
    pub cron: bool,
    /// Signal the batch shell and every step.
    #[arg(short = 'f', long = "full")]
    pub full: bool,
    /// Show this help message.
    #[arg(long = "help")]
    pub help: bool,
    /// Do not stage out burst buffer data.
    #[arg(short = 'H', long = "hurry")]
    pub hurry: bool,
    /// Ask for confirmation of each job.
    #[arg(short = 'i', long = "interactive")]
    pub interactive: bool,
    /// Clusters to issue commands to.
    #[arg(
        short = 'M',
        long = "clusters",
        alias = "cluster",
        allow_hyphen_values = true
    )]
    pub clusters: Option<String>,
    /// Act only on jobs of this name.
    #[arg(
        short = 'n',
        long = "name",
        alias = "jobname",
        allow_hyphen_values = true
    )]
    pub name: Option<String>,
    /// Act only on jobs of the user running the command.
    #[arg(long = "me")]
    pub me: bool,
    /// Act only on jobs on these nodes (a hostlist, or a file of names).
    #[arg(short = 'w', long = "nodelist", allow_hyphen_values = true)]
    pub nodelist: Option<String>,
    /// Act only on jobs in this partition.
    #[arg(short = 'p', long = "partition", allow_hyphen_values = true)]
    pub partition: Option<String>,
    /// Act only on jobs of this QOS.
    #[arg(short = 'q', long = "qos", allow_hyphen_values = true)]
    pub qos: Option<String>,
    /// Do not report jobs that are not found.
    #[arg(short = 'Q', long = "quiet")]
    pub quiet: bool,
    /// Act only on jobs in this reservation.
    #[arg(short = 'R', long = "reservation", allow_hyphen_values = true)]
    pub reservation: Option<String>,
    /// Remove an active sibling job from a federated job.
    #[arg(long = "sibling", allow_hyphen_values = true)]
    pub sibling: Option<String>,
    /// The signal to send (name or number); default: cancel.
    #[arg(short = 's', long = "signal", allow_hyphen_values = true)]
    pub signal: Option<String>,
    /// Act only on jobs in this state.
    #[arg(short = 't', long = "state", allow_hyphen_values = true)]
    pub state: Option<String>,
    /// A brief usage message.
    #[arg(long = "usage")]
    pub usage: bool,
    /// Act only on jobs of this user.
    #[arg(short = 'u', long = "user", allow_hyphen_values = true)]
    pub user: Option<String>,
    /// Verbosity.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// Act only on jobs with this workload characterization key.
    #[arg(long = "wckey", allow_hyphen_values = true)]
    pub wckey: Option<String>,
    /// Shell completion helper.
    #[arg(long = "autocomplete", hide = true, allow_hyphen_values = true)]
    pub autocomplete: Option<String>,
    /// job_id[_array_id][.step_id], several, or comma separated.
    #[arg(value_name = "JOB_ID")]
    pub ids: Vec<String>,
}

/// Parses scancel's command line (args[0] is the program name). On error,
/// returns the text to print on stderr; scancel exits 1 after it.
pub fn parse(args: Vec<OsString>) -> Result<ScancelArgs, String> {
    let last = args.last().cloned().unwrap_or_default();
    ScancelArgs::try_parse_from(args).map_err(|e| crate::getopt::error("scancel", &e, &last))
}

/// scancel's --help text.
pub fn help_text() -> String {
    ScancelArgs::command().render_help().to_string()
}

/// scancel's --usage text.
pub fn usage_text() -> String {
    format!("{}\n", ScancelArgs::command().render_usage())
}

/// Fills options not given from SCANCEL_* (as Slurm reads them before the
/// command line). Returns the error lines for values it cannot read.
pub fn apply_env(a: &mut ScancelArgs, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut errors = Vec::new();
    let mut flag = |set: &mut bool, var: &str| {
        if let Some(v) = env(var) {
            match v.to_ascii_lowercase().as_str() {
                "true" | "t" => *set |= true,
                "false" | "f" => {}
                _ => errors.push(format!("scancel: error: Unrecognized {var} value: {v}")),
            }
        }
    };
    flag(&mut a.batch, "SCANCEL_BATCH");
    flag(&mut a.full, "SCANCEL_FULL");
    flag(&mut a.interactive, "SCANCEL_INTERACTIVE");
    let mut verbose = false;
    flag(&mut verbose, "SCANCEL_VERBOSE");
    if verbose && a.verbose == 0 {
        a.verbose = 1;
    }
    a.ctld |= env("SCANCEL_CTLD").is_some();
    a.hurry |= env("SCANCEL_HURRY").is_some();
    let text = |set: &mut Option<String>, var: &str| {
        if set.is_none() {
            *set = env(var);
        }
    };
    text(&mut a.account, "SCANCEL_ACCOUNT");
    text(&mut a.name, "SCANCEL_NAME");
    text(&mut a.partition, "SCANCEL_PARTITION");
    text(&mut a.qos, "SCANCEL_QOS");
    text(&mut a.state, "SCANCEL_STATE");
    text(&mut a.user, "SCANCEL_USER");
    text(&mut a.wckey, "SCANCEL_WCKEY");
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        std::iter::once("scancel")
            .chain(list.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn options_parse_like_getopt() {
        let a = parse(args(&["--signal=USR1", "--batch", "6"])).unwrap();
        assert_eq!(a.signal.as_deref(), Some("USR1"));
        assert!(a.batch);
        assert_eq!(a.ids, vec!["6".to_string()]);
        let a = parse(args(&["-vQ", "--jobname", "x", "-s", "-9", "1,2", "3"])).unwrap();
        assert_eq!(a.verbose, 1);
        assert!(a.quiet);
        assert_eq!(a.name.as_deref(), Some("x"));
        assert_eq!(a.signal.as_deref(), Some("-9"));
        assert_eq!(a.ids, vec!["1,2".to_string(), "3".to_string()]);
    }

    #[test]
    fn unknown_option_reads_as_getopt_says_it() {
        let err = parse(args(&["--bogus"])).unwrap_err();
        assert_eq!(
            err,
            "scancel: unrecognized option '--bogus'\nTry \"scancel --help\" for more information\n"
        );
    }

    #[test]
    fn environment_fills_what_the_command_line_left_out() {
        let mut a = parse(args(&["-p", "debug"])).unwrap();
        let env = |v: &str| match v {
            "SCANCEL_PARTITION" => Some("batch".to_string()),
            "SCANCEL_NAME" => Some("wrap".to_string()),
            "SCANCEL_BATCH" => Some("T".to_string()),
            "SCANCEL_FULL" => Some("maybe".to_string()),
            _ => None,
        };
        let errors = apply_env(&mut a, &env);
        assert_eq!(a.partition.as_deref(), Some("debug"));
        assert_eq!(a.name.as_deref(), Some("wrap"));
        assert!(a.batch);
        assert_eq!(
            errors,
            vec!["scancel: error: Unrecognized SCANCEL_FULL value: maybe"]
        );
    }
}
