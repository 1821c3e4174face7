//! sinfo's output formats: the `-o` `%`-codes and `-O` field names parsed as
//! `src/sinfo/opts.c` parses them (widths, `.` for right justification,
//! suffix text). Which format a command line picks is sinfo's business.

use spur_slurm::print::{code_tokens, CodeSpec, NameSpec};

/// One column sinfo can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `%a` AVAIL.
    Avail,
    /// `%A` NODES(A/I).
    NodesAi,
    /// `%b` ACTIVE_FEATURES.
    FeaturesAct,
    /// `%B` MAX_CPUS_PER_NODE.
    MaxCpusPerNode,
    /// `%c` CPUS.
    Cpus,
    /// `%C` CPUS(A/I/O/T).
    CpusAiot,
    /// `%d` TMP_DISK.
    Disk,
    /// `%D` NODES.
    Nodes,
    /// `%e` FREE_MEM.
    FreeMem,
    /// `%E` REASON.
    Reason,
    /// `%f` AVAIL_FEATURES.
    Features,
    /// `%F` NODES(A/I/O/T).
    NodesAiot,
    /// `%g` GROUPS.
    Groups,
    /// `%G` GRES.
    Gres,
    /// `%h` OVERSUBSCRIBE.
    OverSubscribe,
    /// `%H` TIMESTAMP.
    Timestamp,
    /// `%I` PRIO_JOB_FACTOR.
    PriorityJobFactor,
    /// `%l` TIMELIMIT.
    Time,
    /// `%L` DEFAULTTIME.
    DefaultTime,
    /// `%m` MEMORY.
    Memory,
    /// `%M` PREEMPT_MODE.
    PreemptMode,
    /// `%n` HOSTNAMES.
    Hostnames,
    /// `%N` NODELIST.
    NodeList,
    /// `%o` NODE_ADDR.
    NodeAddr,
    /// `%O` CPU_LOAD.
    CpuLoad,
    /// `%p` PRIO_TIER.
    PriorityTier,
    /// `%P` PARTITION (with `*` for the default).
    Partition,
    /// `%r` ROOT.
    Root,
    /// `%R` PARTITION (name only).
    PartitionName,
    /// `%s` JOB_SIZE.
    Size,
    /// `%S` ALLOCNODES.
    AllocNodes,
    /// `%t` STATE, compact.
    StateCompact,
    /// `%T` STATE, long.
    StateLong,
    /// `%u` USER.
    User,
    /// `%U` USER, with the uid.
    UserLong,
    /// `%v` VERSION.
    Version,
    /// `%V` CLUSTER.
    Cluster,
    /// `%w` WEIGHT.
    Weight,
    /// `%X` SOCKETS.
    Sockets,
    /// `%Y` CORES.
    Cores,
    /// `%Z` THREADS.
    Threads,
    /// `%z` S:C:T.
    Sct,
    /// `-O allocmem`.
    AllocMem,
    /// `-O comment`.
    Comment,
    /// `-O extra`.
    Extra,
    /// `-O gresused`.
    GresUsed,
    /// `-O port`.
    Port,
    /// `-O statecomplete`.
    StateComplete,
}

/// `%`-code letters and their fields.
const CODES: [(char, Field); 42] = [
    ('a', Field::Avail),
    ('A', Field::NodesAi),
    ('b', Field::FeaturesAct),
    ('B', Field::MaxCpusPerNode),
    ('c', Field::Cpus),
    ('C', Field::CpusAiot),
    ('d', Field::Disk),
    ('D', Field::Nodes),
    ('e', Field::FreeMem),
    ('E', Field::Reason),
    ('f', Field::Features),
    ('F', Field::NodesAiot),
    ('g', Field::Groups),
    ('G', Field::Gres),
    ('h', Field::OverSubscribe),
    ('H', Field::Timestamp),
    ('I', Field::PriorityJobFactor),
    ('l', Field::Time),
    ('L', Field::DefaultTime),
    ('m', Field::Memory),
    ('M', Field::PreemptMode),
    ('n', Field::Hostnames),
    ('N', Field::NodeList),
    ('o', Field::NodeAddr),
    ('O', Field::CpuLoad),
    ('p', Field::PriorityTier),
    ('P', Field::Partition),
    ('r', Field::Root),
    ('R', Field::PartitionName),
    ('s', Field::Size),
    ('S', Field::AllocNodes),
    ('t', Field::StateCompact),
    ('T', Field::StateLong),
    ('u', Field::User),
    ('U', Field::UserLong),
    ('v', Field::Version),
    ('V', Field::Cluster),
    ('w', Field::Weight),
    ('X', Field::Sockets),
    ('Y', Field::Cores),
    ('Z', Field::Threads),
    ('z', Field::Sct),
];

/// `-O` names and their fields.
const NAMES: [(&str, Field); 49] = [
    ("allocmem", Field::AllocMem),
    ("allocnodes", Field::AllocNodes),
    ("available", Field::Avail),
    ("cluster", Field::Cluster),
    ("comment", Field::Comment),
    ("cpus", Field::Cpus),
    ("cpusload", Field::CpuLoad),
    ("freemem", Field::FreeMem),
    ("cpusstate", Field::CpusAiot),
    ("cores", Field::Cores),
    ("defaulttime", Field::DefaultTime),
    ("disk", Field::Disk),
    ("extra", Field::Extra),
    ("features", Field::Features),
    ("features_act", Field::FeaturesAct),
    ("groups", Field::Groups),
    ("gres", Field::Gres),
    ("gresused", Field::GresUsed),
    ("maxcpuspernode", Field::MaxCpusPerNode),
    ("memory", Field::Memory),
    ("nodes", Field::Nodes),
    ("nodeaddr", Field::NodeAddr),
    ("nodeai", Field::NodesAi),
    ("nodeaiot", Field::NodesAiot),
    ("nodehost", Field::Hostnames),
    ("nodelist", Field::NodeList),
    ("partition", Field::Partition),
    ("partitionname", Field::PartitionName),
    ("port", Field::Port),
    ("preemptmode", Field::PreemptMode),
    ("priorityjobfactor", Field::PriorityJobFactor),
    ("prioritytier", Field::PriorityTier),
    ("reason", Field::Reason),
    ("root", Field::Root),
    ("oversubscribe", Field::OverSubscribe),
    ("share", Field::OverSubscribe),
    ("size", Field::Size),
    ("statecompact", Field::StateCompact),
    ("statecomplete", Field::StateComplete),
    ("statelong", Field::StateLong),
    ("sockets", Field::Sockets),
    ("socketcorethread", Field::Sct),
    ("time", Field::Time),
    ("timestamp", Field::Timestamp),
    ("threads", Field::Threads),
    ("user", Field::User),
    ("userlong", Field::UserLong),
    ("version", Field::Version),
    ("weight", Field::Weight),
];

impl Field {
    /// The column title.
    pub fn title(self) -> &'static str {
        use Field::*;
        match self {
            Avail => "AVAIL",
            NodesAi => "NODES(A/I)",
            FeaturesAct => "ACTIVE_FEATURES",
            MaxCpusPerNode => "MAX_CPUS_PER_NODE",
            Cpus => "CPUS",
            CpusAiot => "CPUS(A/I/O/T)",
            Disk => "TMP_DISK",
            Nodes => "NODES",
            FreeMem => "FREE_MEM",
            Reason => "REASON",
            Features => "AVAIL_FEATURES",
            NodesAiot => "NODES(A/I/O/T)",
            Groups => "GROUPS",
            Gres => "GRES",
            OverSubscribe => "OVERSUBSCRIBE",
            Timestamp => "TIMESTAMP",
            PriorityJobFactor => "PRIO_JOB_FACTOR",
            Time => "TIMELIMIT",
            DefaultTime => "DEFAULTTIME",
            Memory => "MEMORY",
            PreemptMode => "PREEMPT_MODE",
            Hostnames => "HOSTNAMES",
            NodeList => "NODELIST",
            NodeAddr => "NODE_ADDR",
            CpuLoad => "CPU_LOAD",
            PriorityTier => "PRIO_TIER",
            Partition | PartitionName => "PARTITION",
            Root => "ROOT",
            Size => "JOB_SIZE",
            AllocNodes => "ALLOCNODES",
            StateCompact | StateLong => "STATE",
            User | UserLong => "USER",
            Version => "VERSION",
            Cluster => "CLUSTER",
            Weight => "WEIGHT",
            Sockets => "SOCKETS",
            Cores => "CORES",
            Threads => "THREADS",
            Sct => "S:C:T",
            AllocMem => "ALLOCMEM",
            Comment => "COMMENT",
            Extra => "EXTRA",
            GresUsed => "GRES_USED",
            Port => "PORT",
            StateComplete => "STATECOMPLETE",
        }
    }

    /// Whether rows are split by partition when this field is printed
    /// (sinfo's `partition_flag`).
    pub fn is_partition(self) -> bool {
        matches!(self, Field::Partition | Field::PartitionName)
    }
}

/// One piece of an output line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// Text printed as it is (a format's prefix, or an unknown code).
    Text(String),
    /// A column.
    Column {
        /// What it prints.
        field: Field,
        /// Its width (0: as wide as the value).
        width: usize,
        /// `.`: right justified.
        right: bool,
        /// Text printed after it.
        suffix: String,
    },
}

/// A parsed format, and the problems sinfo reports on stderr for it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Format {
    /// The pieces, in order.
    pub items: Vec<Item>,
    /// Lines for stderr about unknown codes, as sinfo writes them.
    pub warnings: Vec<String>,
}

impl Format {
    /// The fields printed.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.items.iter().filter_map(|i| match i {
            Item::Column { field, .. } => Some(*field),
            Item::Text(_) => None,
        })
    }

    /// Whether `field` is printed.
    pub fn has(&self, field: Field) -> bool {
        self.fields().any(|f| f == field)
    }
}

/// Parses a `-o` format: `prefix%[.][width]code[suffix]...`.
pub fn parse_short(format: &str) -> Format {
    let mut out = Format::default();
    if format.eq_ignore_ascii_case("%all") {
        all_fields(&mut out);
        return out;
    }
    let (prefix, tokens) = code_tokens(format);
    if !prefix.is_empty() {
        out.items.push(Item::Text(prefix.to_string()));
    }
    for token in tokens {
        short_token(token, &mut out);
    }
    out
}

fn short_token(token: &str, out: &mut Format) {
    let spec = CodeSpec::parse(token);
    match spec.code.and_then(|c| CODES.iter().find(|(k, _)| *k == c)) {
        Some((_, field)) => out.items.push(Item::Column {
            field: *field,
            width: spec.width,
            right: spec.right,
            suffix: spec.suffix.to_string(),
        }),
        None => {
            let letter = spec.code.map_or(String::new(), String::from);
            out.items.push(Item::Text(format!("%{token}")));
            out.warnings
                .push(format!("Invalid node format specification: {letter}"));
        }
    }
}

/// Parses a `-O` format: `name[:[.]width[suffix]],...`.
pub fn parse_long(format: &str) -> Format {
    let mut out = Format::default();
    for token in format.split(',').filter(|t| !t.is_empty()) {
        let NameSpec {
            name,
            width,
            right,
            suffix,
        } = NameSpec::parse(token);
        let suffix = suffix.to_string();
        if name.eq_ignore_ascii_case("all") {
            all_fields(&mut out);
            continue;
        }
        match NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            Some((_, field)) => out.items.push(Item::Column {
                field: *field,
                width,
                right,
                suffix,
            }),
            None => {
                out.items.push(Item::Text(suffix));
                out.warnings.push(format!(
                    "sinfo: error: Invalid job format specification: {name}"
                ));
            }
        }
    }
    out
}

/// `%all`: every `%`-code, separated by `|`.
fn all_fields(out: &mut Format) {
    let mut spec = String::from("%a");
    for c in 'b'..='z' {
        spec.push_str(&format!("|%{c}"));
    }
    for c in 'A'..='Z' {
        spec.push_str(&format!("|%{c} "));
    }
    let parsed = parse_short(&spec);
    // Letters that are no code are skipped silently under %all.
    out.items.extend(
        parsed
            .items
            .into_iter()
            .filter(|i| matches!(i, Item::Column { .. })),
    );
}
