//! Which format sinfo prints with: `-o`, `-O`, the report switches
//! (`-s`, `-N`, `-R`, `-l`) and `$SINFO_FORMAT`, picked as Slurm's
//! `parse_command_line` picks them. Parsing a format is spur-report's.

use spur_report::sinfo::format::{parse_long, parse_short, Format};

use super::args::SinfoArgs;

/// The format sinfo uses and whether it sizes the NODELIST and PARTITION
/// columns to their contents (`node_field_flag`, `part_field_flag`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The format.
    pub format: Format,
    /// NODELIST is as wide as the longest node list (at least 9).
    pub size_nodes: bool,
    /// PARTITION is as wide as the longest name (at least 9).
    pub size_partitions: bool,
}

/// Picks the format for `args` as `parse_command_line` does; `env_format`
/// is `$SINFO_FORMAT`.
pub fn layout(args: &SinfoArgs, env_format: Option<&str>) -> Layout {
    if let Some(f) = &args.format {
        return plain(parse_short(f));
    }
    if let Some(f) = &args.long_format {
        return plain(parse_long(f));
    }
    let long = args.long;
    let (spec, size_nodes, size_partitions) = if args.summarize {
        (SUMMARIZE, false, true)
    } else if args.node {
        (if long { NODE_LONG } else { NODE }, true, true)
    } else if args.list_reasons {
        (if long { REASONS_LONG } else { REASONS }, false, false)
    } else if let Some(f) = env_format {
        return plain(parse_short(f));
    } else {
        (if long { PARTITION_LONG } else { PARTITION }, false, true)
    };
    Layout {
        format: parse_long(spec),
        size_nodes,
        size_partitions,
    }
}

fn plain(format: Format) -> Layout {
    Layout {
        format,
        size_nodes: false,
        size_partitions: false,
    }
}

const SUMMARIZE: &str = "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0";
const NODE_LONG: &str = "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,\
socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,reason:20";
const NODE: &str = "nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6";
const REASONS_LONG: &str = "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0";
const REASONS: &str = "reason:20 ,user:9 ,timestamp:19 ,nodelist:0";
const PARTITION_LONG: &str = "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,\
oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0";
const PARTITION: &str =
    "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0";
