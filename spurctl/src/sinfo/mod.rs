//! `sinfo`: nodes and partitions, grouped and printed as Slurm's sinfo does
//! (`src/sinfo/` of Slurm 22.05). The command line and the controller round
//! trips live here; grouping (`row`), columns (`render`), formats
//! (`format`) and `--json` (`json`) are pure. `state` and `locale` are
//! shared with scontrol.

pub mod args;
pub mod layout;

pub use spur_report::sinfo::{format, json, render, row, state};

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use spur_proto::{NodeInfo, PartitionInfo};

use self::args::SinfoArgs;
use self::layout::Layout;
use self::render::Table;
use self::row::{Fields, Selection};
use self::state::StateFilter;
use crate::controller::{Api, Live, RequestError};
use spur_slurm::locale::Locale;

/// The environment variables sinfo reads.
#[derive(Debug, Clone, Default)]
pub struct SinfoEnv {
    /// `SINFO_FORMAT`: the default `-o`.
    pub format: Option<String>,
    /// `SINFO_SORT`: the default `-S`.
    pub sort: Option<String>,
    /// `SINFO_PARTITION`: the default `-p`.
    pub partition: Option<String>,
    /// `SINFO_ALL` is set.
    pub all: bool,
}

impl SinfoEnv {
    /// Reads the process environment.
    pub fn from_process() -> SinfoEnv {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        SinfoEnv {
            format: var("SINFO_FORMAT"),
            sort: var("SINFO_SORT"),
            partition: var("SINFO_PARTITION"),
            all: std::env::var_os("SINFO_ALL").is_some(),
        }
    }
}

/// Everything `render` needs to know about the command line.
#[derive(Debug, Clone)]
pub struct Options {
    /// The columns.
    pub layout: Layout,
    /// Which nodes and how to group them.
    pub selection: Selection,
    /// The sort letters.
    pub sort: String,
    /// `-h`.
    pub no_header: bool,
    /// Print the date first (`-l`, `-i`, `-v` without `-h`).
    pub date_header: bool,
    /// `--noconvert`: counts as plain numbers (`2048`, not `2K`).
    pub noconvert: bool,
}

impl Options {
    /// Reads `args` as sinfo's `parse_command_line` does. Err is the text
    /// for stderr (sinfo then exits 1).
    pub fn from_args(args: &SinfoArgs, env: &SinfoEnv) -> Result<Options, String> {
        if args.long && (args.format.is_some() || args.long_format.is_some()) {
            return Err(
                "sinfo: fatal: Options -o(--format) and -l(--long) are mutually \
                        exclusive. Please remove one and retry.\n"
                    .to_string(),
            );
        }
        if env.all && env.partition.is_some() {
            return Err(
                "sinfo: error: Conflicting options, SINFO_ALL and SINFO_PARTITION, \
                        specified. Please choose one or the other.\n"
                    .to_string(),
            );
        }
        if args.all && args.partition.is_some() {
            return Err("sinfo: error: Conflicting options, -a and -p, specified. \
                        Please choose one or the other.\n"
                .to_string());
        }
        let layout = layout::layout(args, env.format.as_deref());
        let selection = selection(args, env)?;
        let sort = args.sort.clone().or_else(|| env.sort.clone());
        let sort = sort.unwrap_or_else(|| if args.node { "N" } else { "#P,-t" }.to_string());
        let repeats = args.iterate.is_some() || args.verbose > 0 || args.long;
        Ok(Options {
            layout,
            selection,
            sort,
            no_header: args.noheader,
            date_header: !args.noheader && repeats,
            noconvert: args.noconvert,
        })
    }
}

fn selection(args: &SinfoArgs, env: &SinfoEnv) -> Result<Selection, String> {
    let partition = args
        .partition
        .clone()
        .or_else(|| (!args.all).then(|| env.partition.clone()).flatten());
    let nodes = match &args.nodes {
        None => None,
        Some(expr) => match spur_conf::hostlist::expand(expr) {
            Ok(names) => Some(names.into_iter().collect::<HashSet<_>>()),
            Err(_) => {
                return Err(format!(
                    "sinfo: error: '{expr}' invalid entry for --nodes\n"
                ))
            }
        },
    };
    let states = match (&args.states, args.list_reasons) {
        (Some(text), _) => Some(parse_states(text)?),
        (None, true) => Some(parse_states("down,fail,drain")?),
        (None, false) => None,
    };
    Ok(Selection {
        per_node: args.node,
        exact: args.exact,
        list_reasons: args.list_reasons,
        partitions: partition.map(|p| {
            p.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        }),
        nodes,
        states,
        dead: args.dead,
        responding: args.responding,
    })
}

fn parse_states(text: &str) -> Result<StateFilter, String> {
    StateFilter::parse(text).map_err(|bad| {
        format!(
            "sinfo: error: Bad state string: \"{bad}\"\nsinfo: error: valid states: {}\n",
            state::VALID_STATES
        )
    })
}

/// sinfo's whole text output for one snapshot of the cluster.
pub fn render(
    nodes: &[NodeInfo],
    parts: &[PartitionInfo],
    now: u64,
    opts: &Options,
    locale: &Locale,
) -> String {
    let format = &opts.layout.format;
    let fields = Fields::new(format.fields());
    let rows = row::build(nodes, parts, &opts.selection, &fields, &opts.sort);
    let (node_width, part_width) = render::sized_widths(&rows, parts);
    let table = Table {
        items: &format.items,
        parts,
        node_width: opts.layout.size_nodes.then_some(node_width),
        part_width: opts.layout.size_partitions.then_some(part_width),
        locale,
        units: if opts.noconvert {
            |n: u64| n.to_string()
        } else {
            render::num_unit
        },
    };
    let mut out = String::new();
    if opts.date_header {
        out.push_str(&(locale.ctime)(now));
        out.push('\n');
    }
    if !opts.no_header {
        out.push_str(&table.header());
    }
    for row in &rows {
        out.push_str(&table.line(row));
    }
    out
}

/// Runs `sinfo`.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let last = args.last().cloned().unwrap_or_default();
    let args = match SinfoArgs::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            eprint!("{}", crate::getopt::error("sinfo", &e, &last));
            return ExitCode::from(1);
        }
    };
    if let Some(code) = informational(&args) {
        return code;
    }
    let opts = match Options::from_args(&args, &SinfoEnv::from_process()) {
        Ok(o) => o,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    for warning in &opts.layout.format.warnings {
        eprintln!("{warning}");
    }
    let locale = Locale::local(spur_sys::users::name_of);
    if args.json {
        return print_json(&locale);
    }
    if args.reservation {
        println!("No reservations in the system");
        return ExitCode::SUCCESS;
    }
    let every = match iterate_secs(&args) {
        Ok(s) => s,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::from(1);
        }
    };
    loop {
        let code = print_once(&opts, &locale);
        let Some(secs) = every else {
            return code;
        };
        println!();
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}

/// --help, --usage, --version and the flags spur only accepts.
fn informational(args: &SinfoArgs) -> Option<ExitCode> {
    if args.help {
        print!("{}", args::HELP);
        return Some(ExitCode::SUCCESS);
    }
    if args.usage {
        print!("{}", args::USAGE);
        return Some(ExitCode::SUCCESS);
    }
    if args.version {
        println!("slurm {}", spur_proto::SLURM_COMPAT_VERSION);
        return Some(ExitCode::SUCCESS);
    }
    if args.yaml {
        eprintln!("sinfo: error: --yaml is not supported by spur; use --json");
        return Some(ExitCode::from(1));
    }
    if args.clusters.is_some() {
        eprintln!("sinfo: warning: --clusters is not supported by spur; showing this cluster");
    }
    None
}

fn iterate_secs(args: &SinfoArgs) -> Result<Option<u64>, String> {
    match &args.iterate {
        None => Ok(None),
        Some(text) => match text.trim().parse::<i64>() {
            Ok(n) if n > 0 => Ok(Some(n as u64)),
            _ => Err(format!(
                "sinfo: error: Error: invalid entry for --iterate={text}\n"
            )),
        },
    }
}

fn print_once(opts: &Options, locale: &Locale) -> ExitCode {
    let parts = match Live.partitions() {
        Ok(p) => p,
        Err(e) => return failed("slurm_load_partitions", e),
    };
    let (now, nodes) = match Live.nodes() {
        Ok(listing) => (listing.now, listing.items),
        Err(e) => return failed("slurm_load_node", e),
    };
    print!("{}", render(&nodes, &parts, now, opts, locale));
    ExitCode::SUCCESS
}

fn print_json(locale: &Locale) -> ExitCode {
    match Live.nodes() {
        Ok(listing) => {
            print!("{}", json::render(&listing.items, locale));
            ExitCode::SUCCESS
        }
        Err(e) => failed("slurm_load_node", e),
    }
}

/// Slurm's `slurm_perror(what)`: `what: <error text>`, exit 1.
fn failed(what: &str, e: RequestError) -> ExitCode {
    eprintln!("{what}: {e}");
    ExitCode::from(1)
}
