//! sbatch(1) options that spur accepts and stores but does not act on yet.
//! Real tools pass them (`--mail-type`, `--licenses`, `--cpu-freq`, ...);
//! rejecting them would break those tools, so each is accepted, warned about
//! once on stderr, and kept as `--name=value` in `JobDesc::unacted`.

use clap::{Arg, ArgAction, ArgMatches};

use super::args::Takes;
use Takes::{Nothing as F, Optional as O, Value as V};

/// One stored-only option: long name, short letter, how it takes a value.
struct Unacted {
    long: &'static str,
    short: Option<char>,
    takes: Takes,
    help: &'static str,
}

const fn opt(long: &'static str, short: Option<char>, takes: Takes, help: &'static str) -> Unacted {
    Unacted {
        long,
        short,
        takes,
        help,
    }
}

/// Every sbatch(1) option (Slurm 25.11/26.05) that spur stores only.
const UNACTED: &[Unacted] = &[
    opt(
        "acctg-freq",
        None,
        V,
        "accounting and profiling sampling intervals",
    ),
    opt("batch", None, V, "features the batch host must have"),
    opt("bb", None, V, "burst buffer specification"),
    opt("bbf", None, V, "burst buffer specification file"),
    opt(
        "cluster-constraint",
        None,
        V,
        "features the cluster must have",
    ),
    opt("container", None, V, "OCI container bundle path"),
    opt("container-id", None, V, "OCI container id"),
    opt("context", None, V, "SELinux context"),
    opt("contiguous", None, F, "demand a contiguous range of nodes"),
    opt("core-spec", Some('S'), V, "count of reserved cores"),
    opt("cores-per-socket", None, V, "cores per socket to allocate"),
    opt(
        "cpu-freq",
        None,
        V,
        "requested CPU frequency (and governor)",
    ),
    opt(
        "delay-boot",
        None,
        V,
        "delay boot for desired node features",
    ),
    opt(
        "distribution",
        Some('m'),
        V,
        "distribution of tasks to nodes",
    ),
    opt("extra", None, V, "arbitrary string for node features"),
    opt(
        "extra-node-info",
        Some('B'),
        V,
        "sockets[:cores[:threads]] per node",
    ),
    opt("gid", None, V, "group to run the job as (root only)"),
    opt("gpu-bind", None, V, "task to GPU binding"),
    opt("gpu-freq", None, V, "requested GPU frequency"),
    opt("gpus-per-socket", None, V, "GPUs per socket"),
    opt("gres-flags", None, V, "GRES management flags"),
    opt("hint", None, V, "task binding hints"),
    opt("licenses", Some('L'), V, "licenses the job needs"),
    opt("mail-type", None, V, "mail on these job events"),
    opt("mail-user", None, V, "who gets the mail"),
    opt("mcs-label", None, V, "MCS label"),
    opt("mem-bind", None, V, "memory binding"),
    opt("mem-update", None, V, "memory limit updates"),
    opt("mincpus", None, V, "minimum CPUs per node"),
    opt("network", None, V, "network specification"),
    opt(
        "no-kill",
        Some('k'),
        O,
        "do not end the job when a node fails",
    ),
    opt("ntasks-per-core", None, V, "tasks per core"),
    opt("ntasks-per-gpu", None, V, "tasks per GPU"),
    opt("ntasks-per-socket", None, V, "tasks per socket"),
    opt("ntasks-per-tres", None, V, "tasks per GRES"),
    opt(
        "oom-kill-step",
        None,
        O,
        "end the step when a task is OOM-killed",
    ),
    opt("overcommit", Some('O'), F, "overcommit resources"),
    opt("oversubscribe", Some('s'), F, "share nodes with other jobs"),
    opt("power", None, V, "power management options"),
    opt("prefer", None, V, "preferred node features"),
    opt("profile", None, V, "acct_gather_profile data to collect"),
    opt("propagate", None, O, "resource limits to propagate"),
    opt("reboot", None, F, "reboot the nodes before starting"),
    opt("reservation", None, V, "reservations to use"),
    opt("resources", None, V, "resources the job needs"),
    opt("resv-ports", None, O, "reserve communication ports"),
    opt("runtime", None, V, "container runtime"),
    opt("sockets-per-node", None, V, "sockets per node"),
    opt(
        "spread-job",
        None,
        F,
        "spread the job over as many nodes as possible",
    ),
    opt("stepmgr", None, F, "step management by slurmstepd"),
    opt("thread-spec", None, V, "count of reserved threads"),
    opt("threads-per-core", None, V, "threads per core"),
    opt("tmp", None, V, "minimum temporary disk"),
    opt("tres-bind", None, V, "task to TRES binding"),
    opt("tres-per-task", None, V, "TRES per task"),
    opt("uid", None, V, "user to run the job as (root only)"),
    opt(
        "use-min-nodes",
        None,
        F,
        "prefer the smaller node count of a range",
    ),
    opt(
        "wait-all-nodes",
        None,
        V,
        "start only when all nodes are ready (0|1)",
    ),
    opt("wckey", None, V, "workload characterization key"),
];

/// The stored-only options as clap arguments; each id is its long name.
pub fn args() -> impl Iterator<Item = Arg> {
    UNACTED.iter().map(|u| {
        let arg = Arg::new(u.long).long(u.long).help(u.help);
        let arg = match u.short {
            Some(c) => arg.short(c),
            None => arg,
        };
        let arg = match u.takes {
            Takes::Nothing => arg.action(ArgAction::SetTrue),
            Takes::Optional => arg
                .action(ArgAction::Set)
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value(""),
            Takes::Value => arg.action(ArgAction::Set).num_args(1),
        };
        if u.long == "power" {
            arg.hide(true)
        } else {
            arg
        }
    })
}

/// The stored-only options given in `matches`, as `--name=value` (or
/// `--name` for a flag or an optional value left out), in sbatch(1) order.
pub fn given(matches: &ArgMatches) -> Vec<String> {
    let mut out = Vec::new();
    for u in UNACTED {
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
