//! The `sbatch` command line as one clap struct: every option of Slurm's
//! sbatch(1) that spur acts on, kept as the text given (the values are
//! checked later, in Slurm's order, by `value`), plus the options spur only
//! stores (`unacted`). The same [`command`] parses the command line, the
//! `SBATCH_*` variables and the `#SBATCH` directives.

use std::ffi::OsString;

use clap::{ArgAction, Command, CommandFactory, Parser};

pub use crate::getopt::{takes, Takes};
use crate::unacted;

/// The options sbatch acts on. Names follow sbatch(1); `None`/`false` means
/// "not given".
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sbatch",
    about = "Submit a batch script to Slurm (spur).",
    long_about = None,
    next_line_help = false,
    override_usage = "sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]",
    infer_long_args = true,
    args_override_self = true,
    disable_help_flag = true,
    disable_version_flag = true
)]
pub struct SbatchArgs {
    /// Charge the job to this account.
    #[arg(short = 'A', long, value_name = "name", allow_hyphen_values = true)]
    pub account: Option<String>,
    /// Submit a job array: task ids such as 0-15:4%2.
    #[arg(short = 'a', long, value_name = "indexes", allow_hyphen_values = true)]
    pub array: Option<String>,
    /// Defer the job until this time.
    #[arg(short = 'b', long, value_name = "time", allow_hyphen_values = true)]
    pub begin: Option<String>,
    /// Working directory of the batch script.
    #[arg(
        short = 'D',
        long,
        value_name = "directory",
        allow_hyphen_values = true
    )]
    pub chdir: Option<String>,
    /// Remove the job if it cannot end before this time.
    #[arg(long, value_name = "time", allow_hyphen_values = true)]
    pub deadline: Option<String>,
    /// Clusters to submit to.
    #[arg(
        short = 'M',
        long,
        alias = "cluster",
        value_name = "names",
        allow_hyphen_values = true
    )]
    pub clusters: Option<String>,
    /// An arbitrary comment.
    #[arg(long, value_name = "string", allow_hyphen_values = true)]
    pub comment: Option<String>,
    /// Pack the job's segments into as few base blocks as possible.
    #[arg(long, overrides_with = "spread_segments")]
    pub consolidate_segments: bool,
    /// Required node features.
    #[arg(short = 'C', long, value_name = "list", allow_hyphen_values = true)]
    pub constraint: Option<String>,
    /// CPUs per allocated GPU.
    #[arg(long, value_name = "ncpus", allow_hyphen_values = true)]
    pub cpus_per_gpu: Option<String>,
    /// CPUs per task.
    #[arg(short = 'c', long, value_name = "ncpus", allow_hyphen_values = true)]
    pub cpus_per_task: Option<String>,
    /// Defer the job until dependencies are satisfied.
    #[arg(
        short = 'd',
        long,
        value_name = "dependency_list",
        allow_hyphen_values = true
    )]
    pub dependency: Option<String>,
    /// File for the batch script's standard error.
    #[arg(
        short = 'e',
        long,
        value_name = "filename_pattern",
        allow_hyphen_values = true
    )]
    pub error: Option<String>,
    /// Nodes not to use.
    #[arg(
        short = 'x',
        long,
        value_name = "node_name_list",
        allow_hyphen_values = true
    )]
    pub exclude: Option<String>,
    /// Do not share nodes (with other jobs, other users, or other NVLink
    /// blocks).
    #[arg(long, value_name = "user|mcs|topo", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub exclusive: Option<String>,
    /// Environment variables to propagate: ALL, NONE, NIL or a list.
    #[arg(
        long,
        value_name = "[ALL,]vars|ALL|NIL|NONE",
        allow_hyphen_values = true
    )]
    pub export: Option<String>,
    /// Environment taken from a file of NUL-separated NAME=value entries.
    #[arg(long, value_name = "filename|fd", allow_hyphen_values = true)]
    pub export_file: Option<String>,
    /// An external job with no script (not supported yet).
    #[arg(long)]
    pub external: bool,
    /// Load the user's login environment on the node.
    #[arg(long, value_name = "timeout", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub get_user_env: Option<String>,
    /// GPUs for the whole job.
    #[arg(
        short = 'G',
        long,
        value_name = "[type:]number",
        allow_hyphen_values = true
    )]
    pub gpus: Option<String>,
    /// GPUs per node.
    #[arg(long, value_name = "[type:]number", allow_hyphen_values = true)]
    pub gpus_per_node: Option<String>,
    /// GPUs per task.
    #[arg(long, value_name = "[type:]number", allow_hyphen_values = true)]
    pub gpus_per_task: Option<String>,
    /// Generic resources per node (gpu[:type][:count]).
    #[arg(long, value_name = "list", allow_hyphen_values = true)]
    pub gres: Option<String>,
    /// Print this help.
    #[arg(short = 'h', long)]
    pub help: bool,
    /// Submit the job held.
    #[arg(short = 'H', long)]
    pub hold: bool,
    /// Ignore #PBS and #BSUB options in the script.
    #[arg(long)]
    pub ignore_pbs: bool,
    /// File for the batch script's standard input.
    #[arg(
        short = 'i',
        long,
        value_name = "filename_pattern",
        allow_hyphen_values = true
    )]
    pub input: Option<String>,
    /// Name of the job.
    #[arg(short = 'J', long, value_name = "jobname", allow_hyphen_values = true)]
    pub job_name: Option<String>,
    /// Cancel the job if its dependency can never be satisfied (yes|no).
    #[arg(long, value_name = "yes|no", allow_hyphen_values = true)]
    pub kill_on_invalid_dep: Option<String>,
    /// Memory per node (0: all of it).
    #[arg(long, value_name = "size[units]", allow_hyphen_values = true)]
    pub mem: Option<String>,
    /// Memory per allocated CPU.
    #[arg(long, value_name = "size[units]", allow_hyphen_values = true)]
    pub mem_per_cpu: Option<String>,
    /// Memory per allocated GPU.
    #[arg(long, value_name = "size[units]", allow_hyphen_values = true)]
    pub mem_per_gpu: Option<String>,
    /// Lower the job's priority by this much (default 100).
    #[arg(long, value_name = "adjustment", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub nice: Option<String>,
    /// Never requeue the job.
    #[arg(long, overrides_with = "requeue")]
    pub no_requeue: bool,
    /// File holding the nodes to use.
    #[arg(
        short = 'F',
        long,
        value_name = "node_file",
        allow_hyphen_values = true
    )]
    pub nodefile: Option<String>,
    /// Nodes to use (a hostlist, or a file name containing '/').
    #[arg(
        short = 'w',
        long,
        value_name = "node_name_list",
        allow_hyphen_values = true
    )]
    pub nodelist: Option<String>,
    /// Node count: min[-max].
    #[arg(
        short = 'N',
        long,
        value_name = "minnodes[-maxnodes]",
        allow_hyphen_values = true
    )]
    pub nodes: Option<String>,
    /// Number of tasks.
    #[arg(short = 'n', long, value_name = "number", allow_hyphen_values = true)]
    pub ntasks: Option<String>,
    /// Tasks per node.
    #[arg(
        long,
        alias = "tasks-per-node",
        value_name = "ntasks",
        allow_hyphen_values = true
    )]
    pub ntasks_per_node: Option<String>,
    /// append or truncate the output files.
    #[arg(long, value_name = "append|truncate", allow_hyphen_values = true)]
    pub open_mode: Option<String>,
    /// File for the batch script's standard output.
    #[arg(
        short = 'o',
        long,
        value_name = "filename_pattern",
        allow_hyphen_values = true
    )]
    pub output: Option<String>,
    /// Print only the job id (and cluster) on success.
    #[arg(long)]
    pub parsable: bool,
    /// Partitions to use, comma separated.
    #[arg(
        short = 'p',
        long,
        value_name = "partition_names",
        allow_hyphen_values = true
    )]
    pub partition: Option<String>,
    /// The job's priority (operators only), or TOP.
    #[arg(long, value_name = "value", allow_hyphen_values = true)]
    pub priority: Option<String>,
    /// Quality of service.
    #[arg(short = 'q', long, value_name = "qos", allow_hyphen_values = true)]
    pub qos: Option<String>,
    /// Print nothing but errors.
    #[arg(short = 'Q', long)]
    pub quiet: bool,
    /// Allow the job to be requeued.
    #[arg(long, value_name = "expedite", num_args = 0..=1, require_equals = true, default_missing_value = "", overrides_with = "no_requeue")]
    pub requeue: Option<String>,
    /// Nodes per segment: each segment stays inside one NVLink block.
    #[arg(long, value_name = "segment_size", allow_hyphen_values = true)]
    pub segment: Option<String>,
    /// Signal the job this many seconds before its time limit.
    #[arg(
        long,
        value_name = "[{R|B}:]sig_num[@sig_time]",
        allow_hyphen_values = true
    )]
    pub signal: Option<String>,
    /// Put each segment in its own base block.
    #[arg(long, overrides_with = "consolidate_segments")]
    pub spread_segments: bool,
    /// Most leaf switches, and how long to wait for them.
    #[arg(long, value_name = "count[@max-time]", allow_hyphen_values = true)]
    pub switches: Option<String>,
    /// Say when and where the job would start; submit nothing.
    #[arg(long)]
    pub test_only: bool,
    /// Time limit.
    #[arg(short = 't', long, value_name = "time", allow_hyphen_values = true)]
    pub time: Option<String>,
    /// Minimum time limit.
    #[arg(long, value_name = "time", allow_hyphen_values = true)]
    pub time_min: Option<String>,
    /// Print a short usage message.
    #[arg(long)]
    pub usage: bool,
    /// More messages (repeatable).
    #[arg(short = 'v', long, action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long)]
    pub version: bool,
    /// Wait for the job to end; exit with its exit code.
    #[arg(short = 'W', long)]
    pub wait: bool,
    /// Wrap this command string in a sh script.
    #[arg(long, value_name = "command_string", allow_hyphen_values = true)]
    pub wrap: Option<String>,
    /// The batch script (stdin if none) and its arguments.
    #[arg(trailing_var_arg = true, value_name = "script [args...]")]
    pub script: Vec<OsString>,
}

/// The sbatch command: the options above and the stored-only ones. Each
/// option that takes a value takes the next word whatever it starts with,
/// as getopt does (`-J -x` names the job `-x`): declared so, option by
/// option, rather than set on the built table, whose every option a
/// rewrite would move (a tenth of the command's start).
pub fn command() -> Command {
    let mut cmd = SbatchArgs::command().args(unacted::args(unacted::BATCH));
    cmd.build();
    cmd
}

/// sbatch's declarations of the options with these long names, for a
/// command that shares them (srun): one table, one value syntax.
pub fn shared(longs: &[&str]) -> Vec<clap::Arg> {
    let cmd = command();
    longs
        .iter()
        .map(|long| {
            cmd.get_arguments()
                .find(|a| a.get_long() == Some(long))
                .unwrap_or_else(|| panic!("sbatch has no --{long}"))
                .clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_that_takes_a_value_takes_a_word_starting_with_a_hyphen() {
        let cmd = command();
        let refused: Vec<&str> = cmd
            .get_arguments()
            .filter(|a| !a.is_positional() && takes(a) == Takes::Value)
            .filter(|a| !a.is_allow_hyphen_values_set())
            .filter_map(|a| a.get_long())
            .collect();
        assert!(refused.is_empty(), "{refused:?}");
        // A stored-only option too: --mail-user's value is the next word.
        let words = ["sbatch", "--mail-user", "-x", "--wrap=true"];
        let m = command().try_get_matches_from(words).expect("parses");
        let got = m.get_raw("mail-user").and_then(|mut v| v.next());
        assert_eq!(got.and_then(|v| v.to_str()), Some("-x"));
    }
}
