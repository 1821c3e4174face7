//! sinfo's `-t` state names and the filter they make; the state words and
//! their names are [`spur_slurm::node_state`]'s.

pub use spur_slurm::node_state::*;

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
