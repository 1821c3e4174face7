//! sinfo's rows: nodes grouped by partition and by whatever the printed
//! columns show, then sorted, as `src/sinfo/sinfo.c` (`_build_sinfo_data`,
//! `_insert_node_ptr`, `_match_*`, `_update_sinfo`) and `sort.c` do it.
//! Pure: nodes and partitions in, rows out.

use std::cmp::Ordering;
use std::collections::HashSet;

use spur_proto::{NodeInfo, PartitionInfo};

use super::format::Field;
use super::state::{self, StateFilter};

/// Slurm's NO_VAL for 32-bit values (unknown CPU load, unset reason uid).
pub const NO_VAL: u32 = 0xffff_fffe;
/// Slurm's NO_VAL64 (unknown free memory).
pub const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;

/// Which nodes and partitions to show and how to group them.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `-N`: one row per node and partition.
    pub per_node: bool,
    /// `-e`: group only nodes of equal size.
    pub exact: bool,
    /// `-R`: group across partitions.
    pub list_reasons: bool,
    /// `-p`: only these partitions.
    pub partitions: Option<Vec<String>>,
    /// `-n`: only these nodes.
    pub nodes: Option<HashSet<String>>,
    /// `-t`: only nodes in these states.
    pub states: Option<StateFilter>,
    /// `-d`: only nodes that do not respond.
    pub dead: bool,
    /// `-r`: only nodes that respond.
    pub responding: bool,
}

/// A `(min, max)` pair over the nodes of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span<T> {
    /// The smallest value.
    pub min: T,
    /// The largest value.
    pub max: T,
}

impl<T: Copy + Ord> Span<T> {
    fn of(v: T) -> Span<T> {
        Span { min: v, max: v }
    }

    fn widen(&mut self, v: T) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }
}

/// One output line of sinfo: a partition and the nodes that look alike.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    /// The partition's index.
    pub part: usize,
    /// The first node added; its text fields stand for the row.
    pub first: Option<&'a NodeInfo>,
    /// The first node's state word.
    pub state: u32,
    /// Node names, in the order added.
    pub nodes: Vec<&'a str>,
    /// NodeAddr of each node (when printed).
    pub addrs: Vec<&'a str>,
    /// NodeHostName of each node (when printed).
    pub hosts: Vec<&'a str>,
    /// Nodes allocated, idle, other (down or drained), and in total.
    pub node_counts: [u32; 4],
    /// CPUs allocated, idle, other, and in total.
    pub cpu_counts: [u32; 4],
    /// CPUs per node.
    pub cpus: Span<u32>,
    /// Sockets per node.
    pub sockets: Span<u32>,
    /// Cores per socket.
    pub cores: Span<u32>,
    /// Threads per core.
    pub threads: Span<u32>,
    /// TmpDisk.
    pub disk: Span<u64>,
    /// RealMemory.
    pub memory: Span<u64>,
    /// Weight.
    pub weight: Span<u32>,
    /// CPU load in hundredths (NO_VAL: unknown).
    pub cpu_load: Span<u32>,
    /// Free memory (NO_VAL64: unknown).
    pub free_mem: Span<u64>,
    /// AllocMem of the last node added (as sinfo keeps it).
    pub alloc_mem: u64,
}

/// The CPU load Slurm keeps: hundredths, NO_VAL when unknown.
pub fn load_hundredths(node: &NodeInfo) -> u32 {
    node.cpu_load.map_or(NO_VAL, |l| (l * 100.0).round() as u32)
}

impl<'a> Row<'a> {
    fn empty(part: usize) -> Row<'a> {
        Row {
            part,
            first: None,
            state: 0,
            nodes: Vec::new(),
            addrs: Vec::new(),
            hosts: Vec::new(),
            node_counts: [0; 4],
            cpu_counts: [0; 4],
            cpus: Span::default(),
            sockets: Span::default(),
            cores: Span::default(),
            threads: Span::default(),
            disk: Span::default(),
            memory: Span::default(),
            weight: Span::default(),
            cpu_load: Span::default(),
            free_mem: Span::default(),
            alloc_mem: 0,
        }
    }

    /// The node count.
    pub fn total(&self) -> u32 {
        self.node_counts[3]
    }

    /// `_update_sinfo`: adds `node` unless it is already here.
    fn add(&mut self, node: &'a NodeInfo, fields: &Fields) {
        if self.first.is_none() {
            self.first = Some(node);
            self.state = node.state_word();
            self.cpus = Span::of(node.cpus);
            self.sockets = Span::of(node.sockets);
            self.cores = Span::of(node.cores_per_socket);
            self.threads = Span::of(node.threads_per_core);
            self.disk = Span::of(node.tmp_disk);
            self.memory = Span::of(node.real_memory);
            self.weight = Span::of(node.weight);
            self.cpu_load = Span::of(load_hundredths(node));
            self.free_mem = Span::of(node.free_mem.unwrap_or(NO_VAL64));
        } else if self.nodes.contains(&node.name.as_str()) {
            return;
        } else {
            self.widen(node);
        }
        self.nodes.push(&node.name);
        if fields.addr && !self.addrs.contains(&node.addr.as_str()) {
            self.addrs.push(&node.addr);
        }
        if fields.host && !self.hosts.contains(&node.hostname.as_str()) {
            self.hosts.push(&node.hostname);
        }
        self.count(node);
    }

    fn widen(&mut self, node: &NodeInfo) {
        self.cpus.widen(node.cpus);
        self.sockets.widen(node.sockets);
        self.cores.widen(node.cores_per_socket);
        self.threads.widen(node.threads_per_core);
        self.disk.widen(node.tmp_disk);
        self.memory.widen(node.real_memory);
        self.weight.widen(node.weight);
        self.cpu_load.widen(load_hundredths(node));
        self.free_mem.widen(node.free_mem.unwrap_or(NO_VAL64));
    }

    fn count(&mut self, node: &NodeInfo) {
        let word = node.state_word();
        let base = word & state::BASE;
        let unusable = word & state::DRAIN != 0 || base == state::DOWN;
        let slot =
            if base == state::ALLOCATED || base == state::MIXED || word & state::COMPLETING != 0 {
                0
            } else if unusable {
                2
            } else {
                1
            };
        self.node_counts[slot] += 1;
        self.node_counts[3] += 1;
        let used = node.cpus_alloc.min(node.cpus);
        self.cpu_counts[0] += used;
        self.cpu_counts[3] += node.cpus;
        self.cpu_counts[if unusable { 2 } else { 1 }] += node.cpus - used;
        self.alloc_mem = node.alloc_mem;
    }
}

/// What the printed columns ask rows to agree on (`sinfo_match_flags`).
#[derive(Debug, Clone, Default)]
pub struct Fields {
    set: Vec<Field>,
    addr: bool,
    host: bool,
}

impl Fields {
    /// The fields of a format.
    pub fn new(fields: impl Iterator<Item = Field>) -> Fields {
        let set: Vec<Field> = fields.collect();
        Fields {
            addr: set.contains(&Field::NodeAddr),
            host: set.contains(&Field::Hostnames),
            set,
        }
    }

    fn has(&self, f: Field) -> bool {
        self.set.contains(&f)
    }

    fn has_any(&self, fs: &[Field]) -> bool {
        fs.iter().any(|f| self.has(*f))
    }

    /// Whether rows are split by partition.
    pub fn by_partition(&self) -> bool {
        self.set.iter().any(|f| f.is_partition())
    }
}

/// Builds and sorts the rows for `nodes` and `parts`.
pub fn build<'a>(
    nodes: &'a [NodeInfo],
    parts: &'a [PartitionInfo],
    sel: &Selection,
    fields: &Fields,
    sort: &str,
) -> Vec<Row<'a>> {
    let wanted = |p: &PartitionInfo| {
        sel.partitions
            .as_ref()
            .is_none_or(|list| list.contains(&p.name))
    };
    let mut rows = Vec::new();
    if !sel.per_node && fields.by_partition() {
        rows.extend(
            parts
                .iter()
                .enumerate()
                .filter(|(_, p)| wanted(p))
                .map(|(i, _)| Row::empty(i)),
        );
    }
    let shown: Vec<&NodeInfo> = nodes.iter().filter(|n| is_shown(n, sel)).collect();
    for (pi, part) in processing_order(parts) {
        if !wanted(part) {
            continue;
        }
        let members = members(part);
        for node in shown.iter().filter(|n| is_member(n, part, &members)) {
            insert(&mut rows, pi, parts, node, sel, fields);
        }
    }
    sort_rows(&mut rows, parts, sort);
    rows
}

/// Slurm builds each partition's rows in its own thread, so rows of the
/// same node come in an order set by a race; the reference recordings show
/// the smaller partition first. spur makes that order fixed: fewest nodes
/// first, ties in configuration order.
fn processing_order(parts: &[PartitionInfo]) -> Vec<(usize, &PartitionInfo)> {
    let mut order: Vec<(usize, &PartitionInfo)> = parts.iter().enumerate().collect();
    order.sort_by_key(|(_, p)| p.total_nodes);
    order
}

fn members(part: &PartitionInfo) -> HashSet<String> {
    spur_conf::hostlist::expand(&part.nodes)
        .map(|v| v.into_iter().collect())
        .unwrap_or_default()
}

fn is_member(node: &NodeInfo, part: &PartitionInfo, members: &HashSet<String>) -> bool {
    members.contains(&node.name) || node.partitions.contains(&part.name)
}

/// `_filter_out`, inverted.
fn is_shown(node: &NodeInfo, sel: &Selection) -> bool {
    if sel
        .nodes
        .as_ref()
        .is_some_and(|set| !set.contains(&node.name))
    {
        return false;
    }
    if (sel.dead && !node.not_responding) || (sel.responding && node.not_responding) {
        return false;
    }
    sel.states
        .as_ref()
        .is_none_or(|f| f.matches(node.state_word(), node.cpus_alloc))
}

/// `_insert_node_ptr`.
fn insert<'a>(
    rows: &mut Vec<Row<'a>>,
    part: usize,
    parts: &[PartitionInfo],
    node: &'a NodeInfo,
    sel: &Selection,
    fields: &Fields,
) {
    // -N never merges, so the search can be skipped.
    let found = (!sel.per_node).then_some(()).and_then(|()| {
        rows.iter_mut().find(|row| {
            same_partition(row.part, part, parts, sel, fields)
                && (row.total() == 0 || same_node(row, node, sel, fields))
        })
    });
    match found {
        Some(row) => row.add(node, fields),
        None => {
            let mut row = Row::empty(part);
            row.add(node, fields);
            rows.push(row);
        }
    }
}

/// `_match_part_data`.
fn same_partition(
    a: usize,
    b: usize,
    parts: &[PartitionInfo],
    sel: &Selection,
    fields: &Fields,
) -> bool {
    if sel.list_reasons || a == b {
        return true;
    }
    let (pa, pb) = (&parts[a], &parts[b]);
    let differs = |f: Field, eq: bool| fields.has(f) && !eq;
    !(differs(Field::Partition, pa.name == pb.name)
        || differs(Field::PartitionName, pa.name == pb.name)
        || differs(Field::Avail, pa.state == pb.state)
        || differs(Field::Groups, pa.allow_groups == pb.allow_groups)
        || differs(
            Field::Size,
            (pa.min_nodes, pa.max_nodes) == (pb.min_nodes, pb.max_nodes),
        )
        || differs(Field::DefaultTime, pa.default_time == pb.default_time)
        || differs(Field::Time, pa.max_time == pb.max_time)
        || differs(Field::OverSubscribe, pa.oversubscribe == pb.oversubscribe)
        || differs(Field::PreemptMode, pa.preempt_mode == pb.preempt_mode)
        || differs(Field::PriorityTier, pa.priority_tier == pb.priority_tier)
        || differs(
            Field::PriorityJobFactor,
            pa.priority_job_factor == pb.priority_job_factor,
        ))
}

/// `_match_node_data`: whether `node` may join `row`.
fn same_node(row: &Row<'_>, node: &NodeInfo, sel: &Selection, fields: &Fields) -> bool {
    let Some(first) = row.first else {
        return true;
    };
    if sel.per_node
        || (fields.host && !row.hosts.contains(&node.hostname.as_str()))
        || (fields.addr && !row.addrs.contains(&node.addr.as_str()))
    {
        return false;
    }
    let word = node.state_word();
    let text_equal = [
        (Field::Features, first.features == node.features),
        (Field::FeaturesAct, first.features == node.features),
        (Field::Gres, first.gres == node.gres),
        (
            Field::GresUsed,
            first.gpus_alloc.len() == node.gpus_alloc.len(),
        ),
        (Field::Reason, first.reason == node.reason),
        (Field::Timestamp, reason_time(first) == reason_time(node)),
        (Field::User, reason_uid(first) == reason_uid(node)),
        (Field::UserLong, reason_uid(first) == reason_uid(node)),
        (
            Field::StateCompact,
            state::long_name(row.state) == state::long_name(word),
        ),
        (
            Field::StateLong,
            state::long_name(row.state) == state::long_name(word),
        ),
        (Field::StateComplete, row.state == word),
        (Field::AllocMem, row.alloc_mem == node.alloc_mem),
    ];
    if text_equal.iter().any(|(f, eq)| fields.has(*f) && !eq) {
        return false;
    }
    !sel.exact || same_size(row, node, fields)
}

/// The `-e` part of `_match_node_data`.
fn same_size(row: &Row<'_>, node: &NodeInfo, fields: &Fields) -> bool {
    let sct = (node.sockets, node.cores_per_socket, node.threads_per_core)
        == (row.sockets.min, row.cores.min, row.threads.min);
    let checks = [
        (
            &[Field::Cpus, Field::CpusAiot][..],
            node.cpus == row.cpus.min,
        ),
        (&[Field::Sockets], node.sockets == row.sockets.min),
        (&[Field::Cores], node.cores_per_socket == row.cores.min),
        (&[Field::Threads], node.threads_per_core == row.threads.min),
        (&[Field::Sct], sct),
        (&[Field::Disk], node.tmp_disk == row.disk.min),
        (&[Field::Memory], node.real_memory == row.memory.min),
        (&[Field::Weight], node.weight == row.weight.min),
        (&[Field::CpuLoad], load_hundredths(node) == row.cpu_load.min),
        (
            &[Field::FreeMem],
            node.free_mem.unwrap_or(NO_VAL64) == row.free_mem.min,
        ),
        (&[Field::Port], Some(node.port) == row.first.map(|f| f.port)),
        (
            &[Field::Version],
            Some(&node.version) == row.first.map(|f| &f.version),
        ),
    ];
    !checks.iter().any(|(fs, eq)| fields.has_any(fs) && !eq)
}

/// When the node's reason was set (0: never).
pub fn reason_time(node: &NodeInfo) -> u64 {
    node.reason_set.map_or(0, |(_, t)| t)
}

/// Who set the node's reason (NO_VAL: nobody).
pub fn reason_uid(node: &NodeInfo) -> u32 {
    node.reason_set.map_or(NO_VAL, |(uid, _)| uid)
}

/// `sort_sinfo_list`: applies the sort letters from last to first, each a
/// stable sort, `-` reversing one and `#` ordering partitions by position.
pub fn sort_rows(rows: &mut [Row<'_>], parts: &[PartitionInfo], sort: &str) {
    let chars: Vec<char> = sort.chars().collect();
    for i in (0..chars.len()).rev() {
        let c = chars[i];
        if matches!(c, ',' | '#' | '+' | '-') {
            continue;
        }
        let reverse = i > 0 && chars[i - 1] == '-';
        let by_index = i > 0 && chars[i - 1] == '#';
        rows.sort_by(|a, b| {
            let ord = compare(c, a, b, parts, by_index);
            if reverse {
                ord.reverse()
            } else {
                ord
            }
        });
    }
}

fn compare(c: char, a: &Row<'_>, b: &Row<'_>, parts: &[PartitionInfo], by_index: bool) -> Ordering {
    let part = |r: &Row<'_>| &parts[r.part];
    match c {
        'a' => part_state_rank(part(a)).cmp(&part_state_rank(part(b))),
        'A' | 'F' => a.node_counts[0].cmp(&b.node_counts[0]),
        'c' => a.cpus.min.cmp(&b.cpus.min),
        'd' => a.disk.min.cmp(&b.disk.min),
        'D' => a.total().cmp(&b.total()),
        'e' => a.free_mem.min.cmp(&b.free_mem.min),
        'E' => reason(a).cmp(reason(b)),
        'f' | 'b' => features(a).cmp(&features(b)),
        'H' => a
            .first
            .map_or(0, reason_time)
            .cmp(&b.first.map_or(0, reason_time)),
        'l' => limit(part(a).max_time).cmp(&limit(part(b).max_time)),
        'm' => a.memory.min.cmp(&b.memory.min),
        'n' => first_key(&a.hosts).cmp(&first_key(&b.hosts)),
        'N' => first_key(&a.nodes).cmp(&first_key(&b.nodes)),
        'o' => first_key(&a.addrs).cmp(&first_key(&b.addrs)),
        'O' => a.cpu_load.min.cmp(&b.cpu_load.min),
        'p' => part(a).priority_tier.cmp(&part(b).priority_tier),
        'P' | 'R' if by_index => a.part.cmp(&b.part),
        'P' | 'R' => part(a).name.cmp(&part(b).name),
        'S' => part(a)
            .priority_job_factor
            .cmp(&part(b).priority_job_factor),
        't' | 'T' => a.state.cmp(&b.state),
        'u' | 'U' => {
            let uid = |r: &Row<'_>| r.first.map_or(NO_VAL, reason_uid);
            uid(a).cmp(&uid(b))
        }
        'w' => a.weight.min.cmp(&b.weight.min),
        'X' => a.sockets.min.cmp(&b.sockets.min),
        'Y' => a.cores.min.cmp(&b.cores.min),
        'Z' => a.threads.min.cmp(&b.threads.min),
        'z' => (a.sockets.min, a.cores.min, a.threads.min).cmp(&(
            b.sockets.min,
            b.cores.min,
            b.threads.min,
        )),
        _ => Ordering::Equal,
    }
}

/// The partition state as Slurm's `state_up` number orders it
/// (INACTIVE 0, DOWN 1, DRAIN 2, UP 3).
fn part_state_rank(p: &PartitionInfo) -> u8 {
    match p.state.as_str() {
        "INACTIVE" => 0,
        "DOWN" => 1,
        "DRAIN" => 2,
        "UP" => 3,
        _ => 4,
    }
}

fn limit(max_time: Option<u64>) -> u64 {
    max_time.unwrap_or(u64::MAX)
}

fn reason<'a>(r: &Row<'a>) -> &'a str {
    r.first.and_then(|n| n.reason.as_deref()).unwrap_or("")
}

fn features(r: &Row<'_>) -> String {
    r.first.map(|n| n.features.join(",")).unwrap_or_default()
}

/// The smallest name of a list in hostlist order: prefix, then number.
fn first_key(names: &[&str]) -> Option<(String, u64, usize)> {
    names.iter().map(|n| host_key(n)).min()
}

/// A host name as hostlist orders it: the text before the trailing digits,
/// the number they form, and their width.
pub fn host_key(name: &str) -> (String, u64, usize) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (prefix, num) = name.split_at(name.len() - digits);
    (prefix.to_string(), num.parse().unwrap_or(0), digits)
}
