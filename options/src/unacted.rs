//! The options of sbatch(1), salloc(1) and srun(1) that spur accepts but
//! does not act on yet, in one table for the three commands (Slurm parses
//! them all with one table too, slurm_opt.c). Real tools pass them
//! (`--mail-type`, `--licenses`, `--cpu-freq`, ...); rejecting them would
//! break those tools, so each is accepted and warned about once on stderr;
//! sbatch and salloc also keep it as `--name=value` in `JobDesc::unacted`.

use clap::{Arg, ArgAction, ArgMatches};

use crate::getopt::Takes;
use Takes::{Nothing as F, Optional as O, Value as V};

/// Which commands take an option: a set of [`BATCH`] and [`SRUN`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commands(u8);

/// sbatch and salloc (one parser).
pub const BATCH: Commands = Commands(1);
/// srun.
pub const SRUN: Commands = Commands(2);
/// All three.
const ALL: Commands = Commands(3);

impl Commands {
    fn has(self, other: Commands) -> bool {
        self.0 & other.0 != 0
    }
}

/// One option spur does not act on: long name, short letter, how it takes
/// a value, the commands that take it, its help line.
struct Unacted {
    long: &'static str,
    short: Option<char>,
    takes: Takes,
    commands: Commands,
    help: &'static str,
}

const fn opt(
    long: &'static str,
    short: Option<char>,
    takes: Takes,
    commands: Commands,
    help: &'static str,
) -> Unacted {
    Unacted {
        long,
        short,
        takes,
        commands,
        help,
    }
}

/// Every option of sbatch(1), salloc(1) and srun(1) (Slurm 25.11/26.05)
/// that spur stores or ignores, and which commands take it.
const UNACTED: &[Unacted] = &[
    opt("accel-bind", None, V, SRUN, "accelerator binding"),
    opt(
        "acctg-freq",
        None,
        V,
        ALL,
        "accounting and profiling sampling intervals",
    ),
    opt("batch", None, V, BATCH, "features the batch host must have"),
    opt("bb", None, V, ALL, "burst buffer specification"),
    opt("bbf", None, V, ALL, "burst buffer specification file"),
    opt(
        "bcast",
        None,
        O,
        SRUN,
        "copy the executable to the nodes first",
    ),
    opt(
        "bcast-exclude",
        None,
        V,
        SRUN,
        "shared-object folders --bcast leaves out",
    ),
    opt(
        "cluster-constraint",
        None,
        V,
        ALL,
        "features the cluster must have",
    ),
    opt("clusters", Some('M'), V, SRUN, "clusters to run on"),
    opt(
        "compress",
        None,
        O,
        SRUN,
        "compress the files --bcast copies",
    ),
    opt("container", None, V, ALL, "OCI container bundle path"),
    opt("container-id", None, V, BATCH, "OCI container id"),
    opt("context", None, V, BATCH, "SELinux context"),
    opt(
        "contiguous",
        None,
        F,
        ALL,
        "demand a contiguous range of nodes",
    ),
    opt("core-spec", Some('S'), V, ALL, "count of reserved cores"),
    opt(
        "cores-per-socket",
        None,
        V,
        ALL,
        "cores per socket to allocate",
    ),
    opt(
        "cpu-freq",
        None,
        V,
        ALL,
        "requested CPU frequency (and governor)",
    ),
    opt(
        "deadline",
        None,
        V,
        SRUN,
        "remove the job if it cannot end before this time",
    ),
    opt(
        "delay-boot",
        None,
        V,
        ALL,
        "delay boot for desired node features",
    ),
    opt(
        "disable-status",
        Some('X'),
        F,
        SRUN,
        "no task status report on Ctrl-C",
    ),
    opt(
        "distribution",
        Some('m'),
        V,
        BATCH,
        "distribution of tasks to nodes",
    ),
    opt("epilog", None, V, SRUN, "program srun runs after the step"),
    opt(
        "extra",
        None,
        V,
        BATCH,
        "arbitrary string for node features",
    ),
    opt(
        "extra-node-info",
        Some('B'),
        V,
        ALL,
        "sockets[:cores[:threads]] per node",
    ),
    opt("gid", None, V, ALL, "group to run the job as (root only)"),
    opt("gpu-bind", None, V, BATCH, "task to GPU binding"),
    opt("gpu-freq", None, V, ALL, "requested GPU frequency"),
    opt("gpus-per-socket", None, V, ALL, "GPUs per socket"),
    opt("gres-flags", None, V, ALL, "GRES management flags"),
    opt(
        "het-group",
        None,
        V,
        SRUN,
        "heterogeneous job components to run in",
    ),
    opt("hint", None, V, ALL, "task binding hints"),
    opt(
        "immediate",
        Some('I'),
        O,
        SRUN,
        "give up unless resources are free within seconds",
    ),
    opt("licenses", Some('L'), V, ALL, "licenses the job needs"),
    opt("mail-type", None, V, ALL, "mail on these job events"),
    opt("mail-user", None, V, ALL, "who gets the mail"),
    opt("mcs-label", None, V, ALL, "MCS label"),
    opt("mem-bind", None, V, ALL, "memory binding"),
    opt("mem-update", None, V, BATCH, "memory limit updates"),
    opt("mincpus", None, V, ALL, "minimum CPUs per node"),
    opt("msg-timeout", None, V, SRUN, "message timeout (obsolete)"),
    opt("network", None, V, ALL, "network specification"),
    opt(
        "no-allocate",
        Some('Z'),
        F,
        SRUN,
        "run without an allocation (root only)",
    ),
    opt(
        "no-kill",
        Some('k'),
        O,
        ALL,
        "do not end the job when a node fails",
    ),
    opt("ntasks-per-core", None, V, ALL, "tasks per core"),
    opt("ntasks-per-gpu", None, V, ALL, "tasks per GPU"),
    opt("ntasks-per-socket", None, V, ALL, "tasks per socket"),
    opt("ntasks-per-tres", None, V, BATCH, "tasks per GRES"),
    opt(
        "oom-kill-step",
        None,
        O,
        BATCH,
        "end the step when a task is OOM-killed",
    ),
    opt("overcommit", Some('O'), F, ALL, "overcommit resources"),
    opt(
        "oversubscribe",
        Some('s'),
        F,
        ALL,
        "share nodes with other jobs",
    ),
    opt("power", None, V, ALL, "power management options"),
    opt("prefer", None, V, ALL, "preferred node features"),
    opt(
        "preserve-env",
        Some('E'),
        F,
        SRUN,
        "hand SLURM_NNODES and SLURM_NTASKS_PER_NODE down unchanged",
    ),
    opt(
        "profile",
        None,
        V,
        ALL,
        "acct_gather_profile data to collect",
    ),
    opt("prolog", None, V, SRUN, "program srun runs before the step"),
    opt("propagate", None, O, ALL, "resource limits to propagate"),
    opt("pty", None, F, SRUN, "run task zero in a pseudo terminal"),
    opt(
        "quit-on-interrupt",
        None,
        F,
        SRUN,
        "quit on the first Ctrl-C",
    ),
    opt("reboot", None, F, ALL, "reboot the nodes before starting"),
    opt(
        "relative",
        Some('r'),
        V,
        SRUN,
        "first node of the step within the allocation",
    ),
    opt("reservation", None, V, ALL, "reservations to use"),
    opt("resources", None, V, BATCH, "resources the job needs"),
    opt("resv-ports", None, O, ALL, "reserve communication ports"),
    opt("runtime", None, V, BATCH, "container runtime"),
    opt(
        "send-libs",
        None,
        O,
        SRUN,
        "copy the executable's libraries with --bcast",
    ),
    opt(
        "slurmd-debug",
        None,
        V,
        SRUN,
        "debug level of the step's daemon",
    ),
    opt("sockets-per-node", None, V, ALL, "sockets per node"),
    opt(
        "spread-job",
        None,
        F,
        ALL,
        "spread the job over as many nodes as possible",
    ),
    opt("stepmgr", None, F, BATCH, "step management by slurmstepd"),
    opt(
        "task-epilog",
        None,
        V,
        SRUN,
        "program each task runs after it ends",
    ),
    opt(
        "task-prolog",
        None,
        V,
        SRUN,
        "program each task runs before it starts",
    ),
    opt(
        "test-only",
        None,
        F,
        SRUN,
        "only estimate when the job would start",
    ),
    opt("thread-spec", None, V, ALL, "count of reserved threads"),
    opt(
        "threads",
        Some('T'),
        V,
        SRUN,
        "threads srun starts tasks with",
    ),
    opt("threads-per-core", None, V, ALL, "threads per core"),
    opt("tmp", None, V, ALL, "minimum temporary disk"),
    opt("tres-bind", None, V, BATCH, "task to TRES binding"),
    opt("tres-per-task", None, V, BATCH, "TRES per task"),
    opt("uid", None, V, ALL, "user to run the job as (root only)"),
    opt(
        "use-min-nodes",
        None,
        F,
        ALL,
        "prefer the smaller node count of a range",
    ),
    opt(
        "wait-all-nodes",
        None,
        V,
        BATCH,
        "start only when all nodes are ready (0|1)",
    ),
    opt("wckey", None, V, ALL, "workload characterization key"),
    opt("x11", None, O, SRUN, "X11 forwarding"),
];

/// The options of `commands` spur does not act on, as clap arguments;
/// each id is its long name.
pub fn args(commands: Commands) -> impl Iterator<Item = Arg> {
    of(commands).map(|u| {
        let arg = Arg::new(u.long).long(u.long).help(u.help);
        let arg = match u.short {
            Some(c) => arg.short(c),
            None => arg,
        };
        let arg = match u.takes {
            // A flag that is only looked for, never read: no default
            // value, so that a parse does not fill one in for each.
            Takes::Nothing => arg
                .action(ArgAction::Set)
                .num_args(0)
                .default_missing_value("true"),
            Takes::Optional => arg
                .action(ArgAction::Set)
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value(""),
            // The next word is the value whatever it starts with, as
            // getopt takes it.
            Takes::Value => arg
                .action(ArgAction::Set)
                .num_args(1)
                .allow_hyphen_values(true),
        };
        if u.long == "power" {
            arg.hide(true)
        } else {
            arg
        }
    })
}

/// The long names of the options of `commands` spur does not act on.
pub fn names(commands: Commands) -> impl Iterator<Item = &'static str> {
    of(commands).map(|u| u.long)
}

fn of(commands: Commands) -> impl Iterator<Item = &'static Unacted> {
    UNACTED.iter().filter(move |u| u.commands.has(commands))
}

/// The options of `commands` spur does not act on given in `matches`, as
/// `--name=value` (or `--name` for a flag or an optional value left out),
/// in alphabetical order.
pub fn given(matches: &ArgMatches, commands: Commands) -> Vec<String> {
    let mut out = Vec::new();
    for u in of(commands) {
        let explicit = matches.value_source(u.long) == Some(clap::parser::ValueSource::CommandLine);
        if !explicit {
            continue;
        }
        let value = match u.takes {
            Takes::Nothing => None,
            _ => matches
                .get_raw(u.long)
                .and_then(|mut v| v.next_back())
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| !v.is_empty()),
        };
        out.push(record(u.long, value.as_deref()));
    }
    out
}

/// `--name=value`, or `--name` without a value.
pub fn record(long: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("--{long}={v}"),
        None => format!("--{long}"),
    }
}

/// The one warning line for a stored-only option.
pub fn warning(record: &str) -> String {
    let name = record.split_once('=').map_or(record, |(n, _)| n);
    format!("sbatch: warning: {name} is accepted but not acted on yet")
}
