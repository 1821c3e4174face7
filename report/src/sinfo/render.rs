//! sinfo's text output: each column's value for a row and Slurm's padding
//! and cutting rules (`src/sinfo/print.c`). Pure: rows in, text out.

use spur_proto::{NodeInfo, PartitionInfo};
use spur_slurm::print::padded;

use super::format::{Field, Item};
use super::row::{self, Row, Span, NO_VAL, NO_VAL64};
use super::state;
use spur_slurm::locale::Locale;

/// The narrowest NODELIST and PARTITION columns when sized to fit.
const MIN_FIELD: usize = 9;

/// What the printing of one table needs besides the rows.
pub struct Table<'a> {
    /// The format.
    pub items: &'a [Item],
    /// The partitions the rows point into.
    pub parts: &'a [PartitionInfo],
    /// NODELIST width when sized to fit (None: as the format says).
    pub node_width: Option<usize>,
    /// PARTITION width when sized to fit.
    pub part_width: Option<usize>,
    /// Times and users.
    pub locale: &'a Locale,
    /// How counts are printed: [`num_unit`], or plain with `--noconvert`.
    pub units: fn(u64) -> String,
}

impl Table<'_> {
    /// The header line.
    pub fn header(&self) -> String {
        let mut out = String::new();
        for item in self.items {
            match item {
                Item::Text(t) => out.push_str(t),
                Item::Column {
                    field,
                    width,
                    right,
                    suffix,
                } => {
                    let width = self.width(*field, *width);
                    let cut =
                        !matches!(field, Field::NodeList | Field::NodeAddr | Field::Hostnames);
                    out.push_str(&padded(field.title(), width, *right, cut));
                    out.push_str(suffix);
                }
            }
        }
        out.push('\n');
        out
    }

    /// One row's line.
    pub fn line(&self, row: &Row<'_>) -> String {
        let mut out = String::new();
        for item in self.items {
            match item {
                Item::Text(t) => out.push_str(t),
                Item::Column {
                    field,
                    width,
                    right,
                    suffix,
                } => {
                    let width = self.width(*field, *width);
                    let text = self.value(*field, row, width);
                    out.push_str(&padded(&text, width, *right, true));
                    out.push_str(suffix);
                }
            }
        }
        out.push('\n');
        out
    }

    fn width(&self, field: Field, given: usize) -> usize {
        match field {
            Field::NodeList | Field::Hostnames => self.node_width.unwrap_or(given),
            Field::Partition | Field::PartitionName => self.part_width.unwrap_or(given),
            _ => given,
        }
    }

    fn value(&self, field: Field, row: &Row<'_>, width: usize) -> String {
        let part = &self.parts[row.part];
        if let Some(v) = partition_value(field, part, width, self.units) {
            return v;
        }
        match row.first {
            Some(first) => node_value(field, row, first, self.locale, self.units),
            None => empty_value(field),
        }
    }
}

/// Widths of the sized columns: the longest node list and partition name
/// (with its `*`), at least 9.
pub fn sized_widths(rows: &[Row<'_>], parts: &[PartitionInfo]) -> (usize, usize) {
    let nodes = rows
        .iter()
        .map(|r| node_list(&r.nodes).len())
        .fold(MIN_FIELD, usize::max);
    let names = rows
        .iter()
        .map(|r| &parts[r.part])
        .map(|p| p.name.len() + usize::from(p.is_default))
        .fold(MIN_FIELD, usize::max);
    (nodes, names)
}

/// A row's node names as a sorted hostlist.
pub fn node_list(names: &[&str]) -> String {
    spur_conf::hostlist::compress_sorted(names)
}

fn partition_value(
    field: Field,
    part: &PartitionInfo,
    width: usize,
    units: fn(u64) -> String,
) -> Option<String> {
    Some(match field {
        Field::Avail => match part.state.as_str() {
            "UP" => "up",
            "DOWN" => "down",
            "DRAIN" => "drain",
            "INACTIVE" => "inactive",
            _ => "unknown",
        }
        .to_string(),
        Field::Partition => partition_name(part, width),
        Field::PartitionName => part.name.clone(),
        Field::Groups => part
            .allow_groups
            .as_ref()
            .map_or_else(|| "all".to_string(), |g| g.join(",")),
        Field::AllocNodes => "all".to_string(),
        Field::Root => "no".to_string(),
        Field::OverSubscribe => part.oversubscribe.clone(),
        Field::PreemptMode => part.preempt_mode.clone(),
        Field::PriorityTier => units(u64::from(part.priority_tier)),
        Field::PriorityJobFactor => units(u64::from(part.priority_job_factor)),
        Field::MaxCpusPerNode => "UNLIMITED".to_string(),
        Field::Cluster => "N/A".to_string(),
        Field::Time => part.max_time.map_or_else(
            || "infinite".to_string(),
            spur_slurm::time::duration_compact,
        ),
        Field::DefaultTime => part
            .default_time
            .map_or_else(|| "n/a".to_string(), spur_slurm::time::duration_compact),
        Field::Size => job_size(part, units),
        _ => return None,
    })
}

/// `%P`: the name with `*` for the default partition, the `*` replacing the
/// last character when the name fills the column.
fn partition_name(part: &PartitionInfo, width: usize) -> String {
    let mut name = part.name.clone();
    if part.is_default {
        if width == 0 || name.chars().count() < width {
            name.push('*');
        } else {
            name = name.chars().take(width - 1).collect();
            name.push('*');
        }
    }
    name
}

fn job_size(part: &PartitionInfo, units: fn(u64) -> String) -> String {
    let max = part.max_nodes;
    let min = if part.min_nodes < 1 && max != Some(0) {
        1
    } else {
        part.min_nodes
    };
    match max {
        Some(m) if m == min => units(u64::from(m)),
        Some(m) => format!("{}-{}", units(u64::from(min)), units(u64::from(m))),
        None => format!("{}-infinite", units(u64::from(min))),
    }
}

/// Values of a row with nodes.
fn node_value(
    field: Field,
    row: &Row<'_>,
    first: &NodeInfo,
    locale: &Locale,
    units: fn(u64) -> String,
) -> String {
    let [a, i, o, t] = row.node_counts;
    let [ca, ci, co, ct] = row.cpu_counts;
    match field {
        Field::Nodes => t.to_string(),
        Field::NodesAi => format!("{a}/{i}"),
        Field::NodesAiot => format!("{a}/{i}/{o}/{t}"),
        Field::CpusAiot => format!("{ca}/{ci}/{co}/{ct}"),
        Field::NodeList => node_list(&row.nodes),
        Field::NodeAddr => spur_conf::hostlist::compress(&row.addrs),
        Field::Hostnames => spur_conf::hostlist::compress(&row.hosts),
        Field::StateCompact => state::compact_name(row.state).to_lowercase(),
        Field::StateLong => state::long_name(row.state).to_lowercase(),
        Field::StateComplete => state::complete_name(row.state).to_lowercase(),
        Field::Reason | Field::Timestamp | Field::User | Field::UserLong => {
            reason_value(field, first, locale)
        }
        _ => size_value(field, row, first, units),
    }
}

fn reason_value(field: Field, node: &NodeInfo, locale: &Locale) -> String {
    let uid = row::reason_uid(node);
    let user = |long: bool| {
        let name = (locale.user_name)(uid);
        if name == uid.to_string() {
            format!("Unk({uid})")
        } else if long {
            format!("{name}({uid})")
        } else {
            name
        }
    };
    match field {
        Field::Reason => match node.reason.as_deref() {
            None | Some("") => "none".to_string(),
            Some(r) if r.starts_with("(null)") => "none".to_string(),
            Some(r) => r.to_string(),
        },
        Field::Timestamp => locale.time_or_unknown(row::reason_time(node)),
        _ if uid == NO_VAL => "Unknown".to_string(),
        Field::UserLong => user(true),
        _ => user(false),
    }
}

fn size_value(field: Field, row: &Row<'_>, first: &NodeInfo, units: fn(u64) -> String) -> String {
    let u = |s: Span<u32>| Span {
        min: u64::from(s.min),
        max: u64::from(s.max),
    };
    match field {
        Field::Cpus => plus(u(row.cpus), units),
        Field::Sockets => plus(u(row.sockets), units),
        Field::Cores => plus(u(row.cores), units),
        Field::Threads => plus(u(row.threads), units),
        Field::Sct => format!(
            "{}:{}:{}",
            plus(u(row.sockets), units),
            plus(u(row.cores), units),
            plus(u(row.threads), units)
        ),
        Field::Disk => plus(row.disk, |v| v.to_string()),
        Field::Weight => plus(u(row.weight), |v| v.to_string()),
        Field::Memory => plus(row.memory, |v| v.to_string()),
        Field::FreeMem => range(row.free_mem, |v| {
            if v == NO_VAL64 {
                "N/A".to_string()
            } else {
                v.to_string()
            }
        }),
        Field::CpuLoad => range(u(row.cpu_load), |v| {
            if v == u64::from(NO_VAL) {
                "N/A".to_string()
            } else {
                format!("{:.2}", v as f64 / 100.0)
            }
        }),
        Field::AllocMem => row.alloc_mem.to_string(),
        Field::Port => units(u64::from(first.port)),
        _ => text_value(field, first),
    }
}

fn text_value(field: Field, node: &NodeInfo) -> String {
    let or_null = |s: String| {
        if s.is_empty() {
            "(null)".to_string()
        } else {
            s
        }
    };
    match field {
        Field::Features | Field::FeaturesAct => or_null(node.features.join(",")),
        Field::Gres => or_null(node.gres.clone()),
        Field::GresUsed => node.gres_used(),
        Field::Version => node.version.clone().unwrap_or_else(|| "N/A".to_string()),
        Field::Comment | Field::Extra => "(null)".to_string(),
        _ => String::new(),
    }
}

/// Values of a partition row without nodes (sinfo prints its zeroed
/// record).
fn empty_value(field: Field) -> String {
    match field {
        Field::StateCompact | Field::StateLong | Field::StateComplete => "n/a".to_string(),
        Field::NodeList | Field::NodeAddr | Field::Hostnames => String::new(),
        Field::Nodes | Field::AllocMem | Field::Disk | Field::Weight | Field::Memory => {
            "0".to_string()
        }
        Field::Cpus | Field::Sockets | Field::Cores | Field::Threads | Field::Port => {
            "0".to_string()
        }
        Field::Sct => "0:0:0".to_string(),
        Field::NodesAi => "0/0".to_string(),
        Field::NodesAiot | Field::CpusAiot => "0/0/0/0".to_string(),
        Field::FreeMem => "0".to_string(),
        Field::CpuLoad => "0.00".to_string(),
        Field::Reason => "none".to_string(),
        Field::Timestamp | Field::User | Field::UserLong => "Unknown".to_string(),
        Field::Version => "N/A".to_string(),
        _ => "(null)".to_string(),
    }
}

/// `min` when all nodes agree, else `min+`.
fn plus(span: Span<u64>, show: impl Fn(u64) -> String) -> String {
    if span.min == span.max {
        show(span.max)
    } else {
        format!("{}+", show(span.min))
    }
}

/// `min` when all nodes agree, else `min-max`.
fn range(span: Span<u64>, show: impl Fn(u64) -> String) -> String {
    if span.min == span.max {
        show(span.max)
    } else {
        format!("{}-{}", show(span.min), show(span.max))
    }
}

/// A plain count as sinfo prints it: `144`, `2K`, `1.50K`.
pub fn num_unit(n: u64) -> String {
    spur_slurm::units::convert_num_unit(n, spur_slurm::units::Unit::None, false)
}
