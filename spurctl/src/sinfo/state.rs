//! Slurm's node states as the commands print and select them: the numeric
//! state word (base state plus flag bits, as in `slurm.h`), its long,
//! compact and complete names (`node_state_string*` in
//! `src/common/slurm_protocol_defs.c`), and sinfo's `-t` state names.
//! Shared by sinfo and scontrol; no I/O.

use spur_proto::{NodeBaseState, NodeInfo};

/// NODE_STATE_UNKNOWN.
pub const UNKNOWN: u32 = 0;
/// NODE_STATE_DOWN.
pub const DOWN: u32 = 1;
/// NODE_STATE_IDLE.
pub const IDLE: u32 = 2;
/// NODE_STATE_ALLOCATED.
pub const ALLOCATED: u32 = 3;
/// NODE_STATE_MIXED.
pub const MIXED: u32 = 5;
/// NODE_STATE_FUTURE.
pub const FUTURE: u32 = 6;
/// NODE_STATE_BASE: the bits holding the base state.
pub const BASE: u32 = 0xf;
/// NODE_STATE_NET (PERFCTRS).
pub const NET: u32 = 1 << 4;
/// NODE_STATE_RES.
pub const RESERVED: u32 = 1 << 5;
/// NODE_STATE_CLOUD.
pub const CLOUD: u32 = 1 << 7;
/// NODE_STATE_DRAIN.
pub const DRAIN: u32 = 1 << 9;
/// NODE_STATE_COMPLETING.
pub const COMPLETING: u32 = 1 << 10;
/// NODE_STATE_NO_RESPOND.
pub const NO_RESPOND: u32 = 1 << 11;
/// NODE_STATE_POWERED_DOWN.
pub const POWERED_DOWN: u32 = 1 << 12;
/// NODE_STATE_FAIL.
pub const FAIL: u32 = 1 << 13;
/// NODE_STATE_POWERING_UP.
pub const POWERING_UP: u32 = 1 << 14;
/// NODE_STATE_MAINT.
pub const MAINT: u32 = 1 << 15;
/// NODE_STATE_REBOOT_REQUESTED.
pub const REBOOT_REQUESTED: u32 = 1 << 16;
/// NODE_STATE_POWERING_DOWN.
pub const POWERING_DOWN: u32 = 1 << 18;
/// NODE_STATE_REBOOT_ISSUED.
pub const REBOOT_ISSUED: u32 = 1 << 20;
/// NODE_STATE_PLANNED.
pub const PLANNED: u32 = 1 << 21;
/// NODE_STATE_POWER_DOWN.
pub const POWER_DOWN: u32 = 1 << 23;

/// What sinfo prints after `Bad state string` (`_node_state_list`).
pub const VALID_STATES: &str = "unknown,down,idle,allocated,?,mixed,future,drain,drained,\
draining,no_respond,reserved,perfctrs,cloud,completing,powering_down,powered_down,\
power_down,powering_up,fail,maint,reboot,reboot^,unknown";

/// The state word Slurm would report for `node`.
pub fn bits(node: &NodeInfo) -> u32 {
    let base = match node.state {
        NodeBaseState::Unknown => UNKNOWN,
        NodeBaseState::Down => DOWN,
        NodeBaseState::Idle => IDLE,
        NodeBaseState::Allocated => ALLOCATED,
        NodeBaseState::Mixed => MIXED,
    };
    let mut word = base;
    if node.drain {
        word |= DRAIN;
    }
    if node.completing {
        word |= COMPLETING;
    }
    if node.not_responding {
        word |= NO_RESPOND;
    }
    word
}

/// Whether the DRAIN flag is set and jobs still run (DRAINING).
pub fn is_draining(word: u32) -> bool {
    let base = word & BASE;
    word & DRAIN != 0 && (word & COMPLETING != 0 || base == ALLOCATED || base == MIXED)
}

/// Slurm's `node_state_string`, for the flags spur knows.
pub fn long_name(word: u32) -> String {
    name(word, &LONG)
}

/// Slurm's `node_state_string_compact`, for the flags spur knows.
pub fn compact_name(word: u32) -> String {
    name(word, &COMPACT)
}

/// Names of one naming style, in the order `name` needs them.
struct Names {
    draining: &'static str,
    drained: &'static str,
    down: &'static str,
    allocated: &'static str,
    completing: &'static str,
    idle: &'static str,
    mixed: &'static str,
    future: &'static str,
    unknown: &'static str,
}

const LONG: Names = Names {
    draining: "DRAINING",
    drained: "DRAINED",
    down: "DOWN",
    allocated: "ALLOCATED",
    completing: "COMPLETING",
    idle: "IDLE",
    mixed: "MIXED",
    future: "FUTURE",
    unknown: "UNKNOWN",
};

const COMPACT: Names = Names {
    draining: "DRNG",
    drained: "DRAIN",
    down: "DOWN",
    allocated: "ALLOC",
    completing: "COMP",
    idle: "IDLE",
    mixed: "MIX",
    future: "FUTR",
    unknown: "UNK",
};

fn name(word: u32, names: &Names) -> String {
    let base = word & BASE;
    let star = if word & NO_RESPOND != 0 { "*" } else { "" };
    let comp = word & COMPLETING != 0;
    let stem = if word & DRAIN != 0 {
        if is_draining(word) {
            names.draining
        } else {
            names.drained
        }
    } else if base == DOWN {
        names.down
    } else if base == ALLOCATED {
        if star.is_empty() && comp {
            return format!("{}+", names.allocated);
        }
        names.allocated
    } else if comp {
        names.completing
    } else if base == IDLE {
        names.idle
    } else if base == MIXED {
        names.mixed
    } else if base == FUTURE {
        names.future
    } else if base == UNKNOWN {
        names.unknown
    } else {
        return "?".to_string();
    };
    format!("{stem}{star}")
}

/// The base state's name (`node_state_base_string`).
pub fn base_name(word: u32) -> &'static str {
    match word & BASE {
        UNKNOWN => "UNKNOWN",
        DOWN => "DOWN",
        IDLE => "IDLE",
        ALLOCATED => "ALLOCATED",
        MIXED => "MIXED",
        FUTURE => "FUTURE",
        _ => "INVALID",
    }
}

/// The flag names, in Slurm's table order (`node_state_flag_string`).
pub fn flag_names(word: u32) -> Vec<&'static str> {
    const TABLE: [(u32, &str); 3] = [
        (COMPLETING, "COMPLETING"),
        (DRAIN, "DRAIN"),
        (NO_RESPOND, "NOT_RESPONDING"),
    ];
    TABLE
        .iter()
        .filter(|(bit, _)| word & bit != 0)
        .map(|(_, name)| *name)
        .collect()
}

/// Slurm's `node_state_string_complete`: `MIXED+DRAIN`.
pub fn complete_name(word: u32) -> String {
    let mut out = base_name(word).to_string();
    for flag in flag_names(word) {
        out.push('+');
        out.push_str(flag);
    }
    out
}

/// One state named by `sinfo -t`, as sinfo's `_node_state_id` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateSelector {
    /// A base state: the node's base must be equal.
    Base(u32),
    /// ALLOCATED: the node has CPUs allocated (so MIXED nodes match too).
    Allocated,
    /// DRAIN: the drain flag is set.
    Drain,
    /// DRAINING: drained with jobs still running.
    Draining,
    /// DRAINED: drained and empty.
    Drained,
    /// A flag bit.
    Flag(u32),
}

impl StateSelector {
    /// Whether a node with state word `word` and `cpus_alloc` CPUs in use
    /// matches (sinfo's `_filter_out`).
    pub fn matches(self, word: u32, cpus_alloc: u32) -> bool {
        match self {
            StateSelector::Base(base) => word & BASE == base,
            StateSelector::Allocated => cpus_alloc > 0,
            StateSelector::Drain => word & DRAIN != 0,
            StateSelector::Draining => is_draining(word),
            StateSelector::Drained => word & DRAIN != 0 && !is_draining(word),
            StateSelector::Flag(bit) => word & bit != 0,
        }
    }
}

/// Reads one `-t` name (any case, any unique-enough prefix, Slurm's order
/// of trial). None: not a state.
pub fn parse_selector(text: &str) -> Option<StateSelector> {
    const BASES: [(u32, &str, &str); 7] = [
        (UNKNOWN, "UNKNOWN", "UNK"),
        (DOWN, "DOWN", "DOWN"),
        (IDLE, "IDLE", "IDLE"),
        (ALLOCATED, "ALLOCATED", "ALLOC"),
        (4, "?", "?"),
        (MIXED, "MIXED", "MIX"),
        (FUTURE, "FUTURE", "FUTR"),
    ];
    let is = |name: &str| is_prefix_of(text, name);
    for (base, long, short) in BASES {
        if is(long) || is(short) {
            return Some(match base {
                ALLOCATED => StateSelector::Allocated,
                other => StateSelector::Base(other),
            });
        }
    }
    let flags: [(&[&str], StateSelector); 16] = [
        (&["PLANNED", "PLND"], StateSelector::Flag(PLANNED)),
        (&["DRAIN"], StateSelector::Drain),
        (&["DRAINED"], StateSelector::Drained),
        (&["RESV", "RESERVED"], StateSelector::Flag(RESERVED)),
        (&["PERFCTRS", "NPC"], StateSelector::Flag(NET)),
        (&["DRAINING", "DRNG"], StateSelector::Draining),
        (&["COMPLETING", "COMP"], StateSelector::Flag(COMPLETING)),
        (&["NO_RESPOND"], StateSelector::Flag(NO_RESPOND)),
        (
            &["POWERING_DOWN", "POWRING_DN"],
            StateSelector::Flag(POWERING_DOWN),
        ),
        (
            &["POWERED_DOWN", "POWERED_DN"],
            StateSelector::Flag(POWERED_DOWN),
        ),
        (&["POWER_DOWN", "POW_DN"], StateSelector::Flag(POWER_DOWN)),
        (&["POWERING_UP"], StateSelector::Flag(POWERING_UP)),
        (&["FAIL"], StateSelector::Flag(FAIL)),
        (&["MAINT"], StateSelector::Flag(MAINT)),
        (&["REBOOT", "BOOT"], StateSelector::Flag(REBOOT_REQUESTED)),
        (&["REBOOT^", "BOOT^"], StateSelector::Flag(REBOOT_ISSUED)),
    ];
    flags
        .iter()
        .find(|(names, _)| names.iter().any(|n| is(n)))
        .map(|(_, sel)| *sel)
        .or_else(|| is("CLOUD").then_some(StateSelector::Flag(CLOUD)))
}

/// `xstrncasecmp(name, text, strlen(text)) == 0`.
fn is_prefix_of(text: &str, name: &str) -> bool {
    text.len() <= name.len() && name.as_bytes()[..text.len()].eq_ignore_ascii_case(text.as_bytes())
}

/// A `-t` list: comma separated (any) or `&` separated (all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFilter {
    /// The states named.
    pub states: Vec<StateSelector>,
    /// `&` was used: every state must match.
    pub all: bool,
}

impl StateFilter {
    /// Parses `-t`'s argument; Err carries the bad name.
    pub fn parse(text: &str) -> Result<StateFilter, String> {
        if text.eq_ignore_ascii_case("all") {
            let mut states: Vec<StateSelector> = [UNKNOWN, DOWN, IDLE, 4, MIXED, FUTURE]
                .into_iter()
                .map(StateSelector::Base)
                .collect();
            states.extend([
                StateSelector::Allocated,
                StateSelector::Drain,
                StateSelector::Flag(COMPLETING),
            ]);
            return Ok(StateFilter { states, all: false });
        }
        let states = text
            .split([',', '&'])
            .filter(|s| !s.is_empty())
            .map(|s| parse_selector(s).ok_or_else(|| s.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(StateFilter {
            states,
            all: text.contains('&'),
        })
    }

    /// Whether a node passes the filter.
    pub fn matches(&self, word: u32, cpus_alloc: u32) -> bool {
        if self.all {
            self.states.iter().all(|s| s.matches(word, cpus_alloc))
        } else {
            self.states.iter().any(|s| s.matches(word, cpus_alloc))
        }
    }
}
