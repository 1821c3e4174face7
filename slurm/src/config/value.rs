//! How Slurm 22.05 prints the values of `scontrol show config`: counts,
//! durations, yes/no, TRES and flag lists, each in config_info.c's words.

use spur_conf::slurm_conf::{PreemptMode, PreemptModeBase};
use spur_conf::SlurmConf;

use super::{Ctx, DEFAULT_TRES, NULL};

/// `s_p_handle_uint*`, as slurm.conf is read.
pub(super) use spur_conf::parse_count as count;

/// `s_p_handle_boolean`, as slurm.conf is read.
pub(super) use spur_conf::parse_bool as boolean;

pub(super) fn yes_no(b: bool) -> &'static str {
    if b {
        "Yes"
    } else {
        "No"
    }
}

pub(super) fn list_or_null(items: &[String]) -> String {
    if items.is_empty() {
        NULL.to_string()
    } else {
        items.join(",")
    }
}

/// The comma-separated tokens of a value.
pub(super) fn tokens(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|t| !t.is_empty())
}

/// `secs2time_str`: `[days-]HH:MM:SS`.
pub(super) use crate::time::duration_full as duration;

/// DefMemPerNode and MaxMemPerNode: 0 and UNLIMITED print UNLIMITED.
pub(super) fn per_node(value: &str) -> String {
    match count(value) {
        Some(Some(n)) if n > 0 => n.to_string(),
        _ => "UNLIMITED".to_string(),
    }
}

/// OverTimeLimit and ResvOverRun: minutes, or UNLIMITED.
pub(super) fn minutes_or_unlimited(value: Option<&str>) -> String {
    match value.map(count) {
        Some(Some(None)) => "UNLIMITED".to_string(),
        Some(Some(Some(n))) => format!("{n} min"),
        _ => "0 min".to_string(),
    }
}

/// AccountingStorageTRES: Slurm's defaults first, then what the site adds
/// (slurmctld lists TRES in the order of their ids).
pub(super) fn tres(value: Option<&str>) -> String {
    let mut all: Vec<&str> = DEFAULT_TRES.split(',').collect();
    for t in value.into_iter().flat_map(tokens) {
        if !all.iter().any(|a| a.eq_ignore_ascii_case(t)) {
            all.push(t);
        }
    }
    all.join(",")
}

/// `accounting_enforce_string` of what `_validate_accounting_storage_enforce`
/// reads, and whether it sets TrackWCKey.
pub(super) fn enforce(value: Option<&str>) -> (String, bool) {
    // ACCOUNTING_ENFORCE_* of read_config.h.
    let (assoc, limits, wckeys, qos, safe, nojobs, nosteps) = (1, 2, 4, 8, 16, 32, 64);
    let mut bits = 0u8;
    let mut track_wckey = false;
    for t in value.into_iter().flat_map(tokens) {
        let is = |w: &str| t.eq_ignore_ascii_case(w);
        bits |= match () {
            _ if is("1") || is("associations") => assoc,
            _ if is("2") || is("limits") => assoc | limits,
            _ if is("safe") => assoc | limits | safe,
            _ if is("qos") => assoc | qos,
            _ if is("nojobs") => nojobs | nosteps,
            _ if is("nosteps") => nosteps,
            _ if is("wckeys") || is("all") => {
                track_wckey = true;
                if is("all") {
                    assoc | limits | qos | safe | wckeys
                } else {
                    assoc | wckeys
                }
            }
            _ => 0,
        };
    }
    (
        crate::flags::accounting_enforce_string(bits.into()),
        track_wckey,
    )
}

/// The names of the set bits, bit 0 first, or `none` if no bit is set.
pub(super) fn flag_names(bits: u64, names: &[&str], none: &str) -> String {
    let set: Vec<&str> = (names.iter().enumerate())
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, n)| *n)
        .collect();
    if set.is_empty() {
        none.to_string()
    } else {
        set.join(",")
    }
}

/// AccountingStoreFlags: `job_comment`, `job_env`, `job_script`, found
/// anywhere in the value as read_config.c looks for them.
pub(super) fn store_flags(value: Option<&str>) -> String {
    let lower = value.unwrap_or_default().to_ascii_lowercase();
    let set: Vec<String> = ["job_comment", "job_env", "job_script"]
        .iter()
        .filter(|f| lower.contains(*f))
        .map(|f| f.to_string())
        .collect();
    list_or_null(&set)
}

/// CommunicationParameters, plus the NoInAddrAny/NoCtldInAddrAny that
/// older files put in TopologyParam (read_config.c moves them over).
pub(super) fn comm_params(c: &Ctx<'_>) -> String {
    let mut params = c.raw("communicationparameters").map(str::to_string);
    for legacy in ["NoInAddrAny", "NoCtldInAddrAny"] {
        let lower = legacy.to_ascii_lowercase();
        let in_topo =
            (c.conf.topology_param.iter()).any(|t| t.to_ascii_lowercase().contains(&lower));
        let there = (params.as_deref()).is_some_and(|p| p.to_ascii_lowercase().contains(&lower));
        if in_topo && !there {
            params = Some(match params {
                Some(p) => format!("{p},{legacy}"),
                None => legacy.to_string(),
            });
        }
    }
    params.unwrap_or_else(|| NULL.to_string())
}

/// CPU governors by their prefix, as `_cpu_freq_check_gov` matches them,
/// in `cpu_freq_govlist_to_string`'s order.
pub(super) const GOVERNORS: [(&str, &str); 6] = [
    ("co", "Conservative"),
    ("onde", "OnDemand"),
    ("perf", "Performance"),
    ("pow", "PowerSave"),
    ("sche", "SchedUtil"),
    ("user", "UserSpace"),
];

pub(super) fn governor(token: &str) -> Option<usize> {
    let t = token.to_ascii_lowercase();
    GOVERNORS
        .iter()
        .position(|(prefix, _)| t.starts_with(prefix))
}

/// CpuFreqDef: a governor other than UserSpace, else `Unknown`.
pub(super) fn cpu_freq_def(value: Option<&str>) -> String {
    match value.and_then(governor).map(|i| GOVERNORS[i].1) {
        Some(name) if name != "UserSpace" => name.to_string(),
        _ => "Unknown".to_string(),
    }
}

/// CpuFreqGovernors; an invalid list keeps the default.
pub(super) fn cpu_freq_governors(value: Option<&str>) -> String {
    let default = "OnDemand,Performance,UserSpace".to_string();
    let Some(value) = value else {
        return default;
    };
    let mut bits = 0u64;
    for t in tokens(value) {
        match governor(t) {
            Some(i) => bits |= 1 << i,
            None => return default,
        }
    }
    let names: Vec<&str> = GOVERNORS.iter().map(|(_, n)| *n).collect();
    flag_names(bits, &names, "No Governors defined")
}

/// DebugFlags: each flag's name in `debug_flags2str`'s order, then the
/// other names `debug_str2flags` takes for it.
pub(super) const DEBUG_FLAGS: &[&[&str]] = &[
    &["Accrue"],
    &["JobAccountGather", "JAG"],
    &["Agent"],
    &["Backfill"],
    &["BackfillMap"],
    &["BurstBuffer"],
    &["Cgroup"],
    &["CpuFrequency"],
    &["CPU_Bind"],
    &["Data"],
    &["DB_Archive"],
    &["DB_Assoc"],
    &["DB_TRES"],
    &["DB_Event"],
    &["DB_Job"],
    &["DB_QOS"],
    &["DB_Query"],
    &["DB_Reservation"],
    &["DB_Resource"],
    &["DB_Step"],
    &["DB_Usage"],
    &["DB_WCKey"],
    &["Dependency"],
    &["Elasticsearch"],
    &["Energy"],
    &["ExtSensors"],
    &["Federation"],
    &["FrontEnd"],
    &["Gang"],
    &["Gres"],
    &["Hetjob"],
    &["Interconnect"],
    &["JobContainer"],
    &["NodeFeatures"],
    &["License"],
    &["MPI"],
    &["Network", "Net"],
    &["NetworkRaw", "NetRaw"],
    &["NO_CONF_HASH"],
    &["Power", "PowerSave"],
    &["Priority"],
    &["Profile"],
    &["Protocol"],
    &["Reservation"],
    &["Route"],
    &["Script"],
    &["SelectType"],
    &["Steps"],
    &["Switch"],
    &["TimeCray"],
    &["TraceJobs"],
    &["Triggers", "Trigger"],
    &["WorkQueue", "WorkQ"],
];

pub(super) fn debug_flags(value: Option<&str>) -> String {
    let mut bits = 0u64;
    for t in value.into_iter().flat_map(tokens) {
        let found =
            (DEBUG_FLAGS.iter()).position(|names| names.iter().any(|n| n.eq_ignore_ascii_case(t)));
        if let Some(i) = found {
            bits |= 1 << i;
        }
    }
    let names: Vec<&str> = DEBUG_FLAGS.iter().map(|n| n[0]).collect();
    flag_names(bits, &names, NULL)
}

/// EnforcePartLimits: NO, ANY or ALL.
pub(super) fn part_limits(value: Option<&str>) -> String {
    let v = value.unwrap_or_default().trim();
    let is = |w: &str| v.eq_ignore_ascii_case(w);
    let limits = if is("yes") || is("up") || is("true") || is("1") || is("any") {
        "ANY"
    } else if is("all") {
        "ALL"
    } else {
        "NO"
    };
    limits.to_string()
}

/// HealthCheckNodeState: `CYCLE` first, then ANY alone or the states set.
pub(super) fn health_state(value: Option<&str>) -> String {
    let (mut cycle, mut states) = (false, Vec::new());
    let order = ["IDLE", "ALLOC", "MIXED"];
    let mut any = false;
    for t in value.into_iter().flat_map(tokens) {
        let t = t.to_ascii_uppercase();
        match t.as_str() {
            "CYCLE" => cycle = true,
            "ANY" => any = true,
            s if order.contains(&s) && !states.contains(&t) => states.push(t),
            _ => {}
        }
    }
    let mut out: Vec<String> = Vec::new();
    if cycle {
        out.push("CYCLE".into());
    }
    // ANY is all four state bits; IDLE,ALLOC,MIXED is not ANY.
    if any || states.is_empty() {
        out.push("ANY".into());
    } else {
        out.extend(
            order
                .iter()
                .filter(|s| states.iter().any(|t| t == *s))
                .map(|s| s.to_string()),
        );
    }
    out.join(",")
}

/// LogTimeFormat, matched as read_config.c does (first substring found).
pub(super) fn log_time_format(value: Option<&str>) -> String {
    let lower = value.unwrap_or_default().to_ascii_lowercase();
    let known = [
        "iso8601_ms",
        "iso8601",
        "rfc5424_ms",
        "rfc5424",
        "clock",
        "short",
        "thread_id",
    ];
    known
        .into_iter()
        .find(|k| lower.contains(k))
        .unwrap_or("iso8601_ms")
        .to_string()
}

/// Slurm's log levels by number (`log.h`): `quiet` is 0, `info` 3.
pub const LOG_LEVELS: [&str; 10] = [
    "quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4", "debug5",
];

/// A log level by name or number, as `log_num2string` prints it;
/// `default` when unset.
pub(super) fn log_level(value: Option<&str>, default: &str) -> String {
    let Some(v) = value.map(str::trim) else {
        return default.to_string();
    };
    let level = if v.starts_with(|ch: char| ch.is_ascii_digit()) {
        usize::try_from(crate::number::strtol_or_zero(v).0).ok()
    } else {
        LOG_LEVELS.iter().position(|l| l.eq_ignore_ascii_case(v))
    };
    match level {
        Some(n) => LOG_LEVELS[n.min(LOG_LEVELS.len() - 1)].to_string(),
        None => default.to_string(),
    }
}

/// `preempt_mode_string` of the mode's number.
pub(super) fn preempt_mode(mode: PreemptMode) -> String {
    use crate::flags::{
        PREEMPT_CANCEL, PREEMPT_GANG, PREEMPT_REQUEUE, PREEMPT_SUSPEND, PREEMPT_WITHIN,
    };
    let base = match mode.base {
        PreemptModeBase::Cancel => PREEMPT_CANCEL,
        PreemptModeBase::Requeue => PREEMPT_REQUEUE,
        PreemptModeBase::Suspend => PREEMPT_SUSPEND,
        _ => 0,
    };
    let flag = if mode.gang {
        PREEMPT_GANG
    } else if mode.within {
        PREEMPT_WITHIN
    } else {
        0
    };
    crate::flags::preempt_mode_string(base | flag).to_string()
}

/// PriorityFlags, as `priority_flags_string` prints what read_config.c
/// finds in the value (fair tree is on unless turned off).
pub(super) fn priority_flags(value: Option<&str>) -> String {
    let lower = value.unwrap_or_default().to_ascii_uppercase();
    let has = |w: &str| lower.contains(w);
    let mut out = Vec::new();
    for flag in [
        "ACCRUE_ALWAYS",
        "SMALL_RELATIVE_TO_TIME",
        "CALCULATE_RUNNING",
    ] {
        if has(flag) {
            out.push(flag);
        }
    }
    if has("DEPTH_OBLIVIOUS") {
        out.extend(["DEPTH_OBLIVIOUS", "NO_FAIR_TREE"]);
    } else if has("NO_FAIR_TREE") {
        out.push("NO_FAIR_TREE");
    }
    for flag in ["INCR_ONLY", "MAX_TRES"] {
        if has(flag) {
            out.push(flag);
        }
    }
    // Any NO_NORMAL_* flag prints as NO_NORMAL_ALL in 22.05.
    if has("NO_NORMAL_") {
        out.push("NO_NORMAL_ALL");
    }
    out.join(",")
}

/// PriorityUsageResetPeriod.
pub(super) fn reset_period(value: Option<&str>) -> String {
    let periods = [
        "NONE",
        "NOW",
        "DAILY",
        "WEEKLY",
        "MONTHLY",
        "QUARTERLY",
        "YEARLY",
    ];
    let v = value.unwrap_or("NONE").trim();
    (periods.iter())
        .find(|p| p.eq_ignore_ascii_case(v))
        .map_or("UNKNOWN", |p| p)
        .to_string()
}

/// PrivateData, as slurm.conf's reader reads it.
pub(super) fn private_data(value: Option<&str>) -> String {
    let bits = spur_conf::PrivateData::parse(value.unwrap_or_default()).bits();
    crate::flags::private_data_string(bits)
}

/// PrologFlags: Contain implies Alloc, X11 implies Alloc and Contain,
/// NoHold implies Alloc.
pub(super) fn prolog_flags(value: Option<&str>) -> String {
    const NAMES: [&str; 6] = ["Alloc", "Contain", "DeferBatch", "NoHold", "Serial", "X11"];
    let (alloc, contain, defer, nohold, serial, x11) = (1, 2, 4, 8, 16, 32);
    let mut bits = 0u64;
    for t in value.into_iter().flat_map(tokens) {
        let is = |w: &str| t.eq_ignore_ascii_case(w);
        bits |= match () {
            _ if is("alloc") => alloc,
            _ if is("contain") => alloc | contain,
            _ if is("deferbatch") => defer,
            _ if is("nohold") => alloc | nohold,
            _ if is("serial") => serial,
            _ if is("x11") => alloc | contain | x11,
            _ => 0,
        };
    }
    flag_names(bits, &NAMES, NULL)
}

/// ReconfigFlags.
pub(super) fn reconfig_flags(value: Option<&str>) -> String {
    const NAMES: [&str; 2] = ["KeepPartInfo", "KeepPartState"];
    let mut bits = 0u64;
    for t in value.into_iter().flat_map(tokens) {
        if let Some(i) = NAMES.iter().position(|n| n.eq_ignore_ascii_case(t)) {
            bits |= 1 << i;
        }
    }
    flag_names(bits, &NAMES, NULL)
}

/// SelectTypeParameters as `select_type_param_string` prints them; None
/// when Slurm prints no line (nothing set, and no cons_res/cons_tres to
/// default it to CR_Core_Memory).
pub(super) fn select_type_params(conf: &SlurmConf) -> Option<String> {
    let (cpu, socket, core, memory) = (1u16, 2, 4, 0x10);
    let extras: [(u16, &str, &str); 6] = [
        (0x20, "other_cons_res", "OTHER_CONS_RES"),
        (0x800, "other_cons_tres", "OTHER_CONS_TRES"),
        (0x100, "cr_one_task_per_core", "CR_ONE_TASK_PER_CORE"),
        (
            0x1000,
            "cr_core_default_dist_block",
            "CR_CORE_DEFAULT_DIST_BLOCK",
        ),
        (0x4000, "cr_lln", "CR_LLN"),
        (0x200, "cr_pack_nodes", "CR_PACK_NODES"),
    ];
    let mut bits = 0u16;
    for t in &conf.select_type_parameters {
        let t = t.to_ascii_lowercase();
        bits |= match t.as_str() {
            "cr_socket" => socket,
            "cr_socket_memory" => socket | memory,
            "cr_core" => core,
            "cr_core_memory" => core | memory,
            "cr_memory" => memory,
            "cr_cpu" => cpu,
            "cr_cpu_memory" => cpu | memory,
            other => extras.iter().find(|e| e.1 == other).map_or(0, |e| e.0),
        };
    }
    if bits == 0 {
        if !conf.select_type.contains("cons_") {
            return None;
        }
        bits = core | memory;
    }
    let has = |b: u16| bits & b != 0;
    let base = match () {
        _ if has(cpu) && has(memory) => Some("CR_CPU_MEMORY"),
        _ if has(core) && has(memory) => Some("CR_CORE_MEMORY"),
        _ if has(socket) && has(memory) => Some("CR_SOCKET_MEMORY"),
        _ if has(cpu) => Some("CR_CPU"),
        _ if has(core) => Some("CR_CORE"),
        _ if has(socket) => Some("CR_SOCKET"),
        _ if has(memory) => Some("CR_MEMORY"),
        _ => None,
    };
    let mut out: Vec<&str> = base.into_iter().collect();
    out.extend(extras.iter().filter(|e| has(e.0)).map(|e| e.2));
    Some(if out.is_empty() {
        "NONE".to_string()
    } else {
        out.join(",")
    })
}

/// SrunPortRange: `low-high`, `0-0` when unset or invalid.
pub(super) fn srun_ports(value: Option<&str>) -> String {
    let range = value.and_then(|v| {
        let (lo, hi) = v.trim().split_once('-')?;
        Some((
            lo.trim().parse::<u16>().ok()?,
            hi.trim().parse::<u16>().ok()?,
        ))
    });
    let (lo, hi) = range.unwrap_or((0, 0));
    format!("{lo}-{hi}")
}

/// SuspendTime: INFINITE unless a number of seconds is given.
pub(super) fn suspend_time(value: Option<&str>) -> String {
    let v = value.unwrap_or("INFINITE").trim();
    let never = ["NONE", "INFINITE", "-1"];
    if never.iter().any(|n| n.eq_ignore_ascii_case(v)) {
        return "INFINITE".to_string();
    }
    format!("{} sec", crate::number::strtol_or_zero(v).0.max(0))
}

/// TaskPluginParam as `slurm_sprint_cpu_bind_type` prints it.
pub(super) fn task_plugin_param(value: Option<&str>) -> String {
    let names = [
        "verbose",
        "threads",
        "cores",
        "sockets",
        "none",
        "autobind=threads",
        "autobind=cores",
        "autobind=sockets",
    ];
    let set: Vec<&str> = names
        .into_iter()
        .filter(|n| {
            value
                .into_iter()
                .flat_map(tokens)
                .any(|t| t.eq_ignore_ascii_case(n))
        })
        .collect();
    if set.is_empty() {
        "(null type)".to_string()
    } else {
        set.join(",")
    }
}
