//! Slurm's node states: the numeric state word (base state plus flag
//! bits, as `NODE_STATE_*` in `slurm.h`) and its long, compact and complete
//! names (`node_state_string*` in `src/common/slurm_protocol_defs.c`).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_words_are_named_as_slurm_names_them() {
        let drained = IDLE | DRAIN;
        let draining = ALLOCATED | DRAIN;
        assert_eq!(
            (long_name(drained), compact_name(drained)),
            ("DRAINED".into(), "DRAIN".into())
        );
        assert_eq!(
            (long_name(draining), compact_name(draining)),
            ("DRAINING".into(), "DRNG".into())
        );
        assert_eq!(compact_name(ALLOCATED | COMPLETING), "ALLOC+");
        assert_eq!(compact_name(IDLE | NO_RESPOND), "IDLE*");
        assert_eq!(
            complete_name(MIXED | DRAIN | NO_RESPOND),
            "MIXED+DRAIN+NOT_RESPONDING"
        );
        assert_eq!(base_name(7), "INVALID");
    }
}
