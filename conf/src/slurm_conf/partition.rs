//! `PartitionName` lines: one [`PartitionConf`] each, with
//! `PartitionName=DEFAULT` values inherited as Slurm's
//! `_parse_partitionname` inherits them. `Nodes` is resolved against the
//! node table afterwards, by the caller.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::keys::{is_known, untyped, PARTITION_KEYS};
use super::record::{comma_list, Record};
use super::sched::PreemptMode;
use crate::error::{ConfError, Origin, Warning};
use crate::value;

/// One partition as slurm.conf defines it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionConf {
    /// `PartitionName`.
    pub name: String,
    /// The partition's nodes, in node-table (slurm.conf) order, each once.
    pub nodes: Vec<String>,
    /// `Nodes` as written (`ALL`, a hostlist, node set names).
    pub nodes_expr: Option<String>,
    /// `Default=YES`.
    pub default: bool,
    /// `MaxTime` in seconds, rounded up to whole minutes as Slurm stores
    /// it; `None` is UNLIMITED (the default).
    pub max_time_secs: Option<u64>,
    /// `DefaultTime` in seconds (whole minutes); `None` when not set or
    /// UNLIMITED, and jobs then get `MaxTime`.
    pub default_time_secs: Option<u64>,
    /// `MaxNodes`; `None` is UNLIMITED.
    pub max_nodes: Option<u32>,
    /// `MinNodes` (default 0).
    pub min_nodes: u32,
    /// `State` (default UP).
    pub state: PartitionState,
    /// `PriorityTier` (default 1).
    pub priority_tier: u16,
    /// `PriorityJobFactor` (default 1).
    pub priority_job_factor: u16,
    /// `OverSubscribe` (or the old `Shared`).
    pub oversubscribe: OverSubscribe,
    /// `AllowAccounts`, lowercased; `None` is ALL.
    pub allow_accounts: Option<Vec<String>>,
    /// `AllowGroups`; `None` is ALL.
    pub allow_groups: Option<Vec<String>>,
    /// `AllowQos`, lowercased; `None` is ALL.
    pub allow_qos: Option<Vec<String>>,
    /// `DenyAccounts`, lowercased (ignored by Slurm with AllowAccounts).
    pub deny_accounts: Vec<String>,
    /// `DenyQos`, lowercased (ignored by Slurm with AllowQos).
    pub deny_qos: Vec<String>,
    /// `PreemptMode` (`None`: the cluster's).
    pub preempt_mode: Option<PreemptMode>,
    /// `GraceTime` in seconds.
    pub grace_time_secs: u32,
    /// `Hidden=YES`.
    pub hidden: bool,
    /// `ExclusiveUser=YES` or `Exclusive=USER`.
    pub exclusive_user: bool,
    /// `ExclusiveTopo=YES` or `Exclusive=TOPO` (whole topology blocks).
    pub exclusive_topo: bool,
    /// `QOS`: the partition QOS.
    pub qos: Option<String>,
    /// Other PartitionName keys spur keeps raw, by lowercased key.
    pub other: BTreeMap<String, String>,
    /// The line that defined the partition.
    pub origin: Origin,
}

/// A partition's `State`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PartitionState {
    /// `UP`: jobs are accepted and run.
    #[default]
    Up,
    /// `DOWN`: jobs are accepted but do not start.
    Down,
    /// `DRAIN`: no new jobs; queued ones run.
    Drain,
    /// `INACTIVE`: no new jobs and queued ones do not start.
    Inactive,
}

/// A partition's `OverSubscribe` setting.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OverSubscribe {
    /// `NO` (the default).
    #[default]
    No,
    /// `EXCLUSIVE`: whole nodes only.
    Exclusive,
    /// `YES[:count]` (count 4 when not given): jobs may ask to share.
    Yes(u16),
    /// `FORCE[:count]` (count 4 when not given): jobs always share.
    Force(u16),
}

/// Keys that [`PartitionConf`] holds typed; other known keys go to `other`.
const TYPED: &[&str] = &[
    "PartitionName",
    "Nodes",
    "Default",
    "MaxTime",
    "DefaultTime",
    "MaxNodes",
    "MinNodes",
    "State",
    "PriorityTier",
    "PriorityJobFactor",
    "Priority",
    "OverSubscribe",
    "Shared",
    "Exclusive",
    "ExclusiveUser",
    "ExclusiveTopo",
    "AllowAccounts",
    "AllowGroups",
    "AllowQos",
    "DenyAccounts",
    "DenyQos",
    "PreemptMode",
    "GraceTime",
    "Hidden",
    "QOS",
];

/// Warns about keys a `PartitionName` line should not hold.
pub(crate) fn check_keys(rec: &Record<'_>, warnings: &mut Vec<Warning>) {
    for p in rec.pairs.iter().skip(1) {
        if !is_known(PARTITION_KEYS, &p.key) {
            warnings.push(Warning::at(
                rec.origin,
                format!("unknown PartitionName key {}, ignored", p.key),
            ));
        }
    }
}

/// Builds one partition (not `DEFAULT`); `nodes` is left empty.
pub(crate) fn build(
    rec: &Record<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<PartitionConf, ConfError> {
    let mut warn = |msg: String| {
        warnings.push(Warning::at(
            rec.origin,
            format!("PartitionName={}: {msg}", rec.name()),
        ))
    };
    let time = |key: &str| -> Result<Option<u64>, ConfError> {
        match rec.get(key) {
            Some(p) => value::parse_time_minutes(&p.value)
                .map(|m| m.map(|m| m * 60))
                .map_err(|_| rec.invalid(p)),
            None => Ok(None),
        }
    };
    let flag = |key: &str| rec.get(key).map(|p| rec.flag(p)).transpose();
    let access = Access::read(rec, &mut warn);
    let (priority_tier, priority_job_factor) = priorities(rec)?;
    let preempt_mode = match rec.get("PreemptMode") {
        Some(p) => {
            let mut mode = PreemptMode::parse(&p.value).ok_or_else(|| rec.invalid(p))?;
            if mode.gang {
                warn("PreemptMode=GANG is a cluster-wide option, ignored here".into());
                mode.gang = false;
            }
            Some(mode)
        }
        None => None,
    };
    let (oversubscribe, exclusive_user, exclusive_topo) = exclusivity(rec, &mut warn)?;
    let mut other = BTreeMap::new();
    static UNTYPED: std::sync::OnceLock<Vec<&str>> = std::sync::OnceLock::new();
    for key in untyped(&UNTYPED, PARTITION_KEYS, TYPED) {
        if let Some(p) = rec.get(key) {
            other.insert(key.to_ascii_lowercase(), p.value.clone());
        }
    }
    Ok(PartitionConf {
        name: rec.name().to_string(),
        nodes: Vec::new(),
        nodes_expr: rec.get("Nodes").map(|p| p.value.clone()),
        default: flag("Default")?.unwrap_or(false),
        max_time_secs: time("MaxTime")?,
        default_time_secs: time("DefaultTime")?,
        max_nodes: match rec.get("MaxNodes") {
            Some(p) => match value::parse_count(&p.value) {
                Some(Some(n)) if n < u64::from(u32::MAX) => Some(n as u32),
                Some(_) => None,
                None => return Err(rec.invalid(p)),
            },
            None => None,
        },
        min_nodes: rec.count("MinNodes", u32::MAX.into())?.unwrap_or(0) as u32,
        state: state(rec)?,
        priority_tier,
        priority_job_factor,
        oversubscribe,
        allow_accounts: access.allow_accounts,
        allow_groups: access.allow_groups,
        allow_qos: access.allow_qos,
        deny_accounts: access.deny_accounts,
        deny_qos: access.deny_qos,
        preempt_mode,
        grace_time_secs: rec.count("GraceTime", u32::MAX.into())?.unwrap_or(0) as u32,
        hidden: flag("Hidden")?.unwrap_or(false),
        exclusive_user,
        exclusive_topo,
        qos: rec.get("QOS").map(|p| p.value.clone()),
        other,
        origin: rec.origin.clone(),
    })
}

/// The Allow*/Deny* lists: accounts and QOS lowercased, `ALL` meaning no
/// restriction, and Deny* dropped when the matching Allow* is set.
struct Access {
    allow_accounts: Option<Vec<String>>,
    allow_groups: Option<Vec<String>>,
    allow_qos: Option<Vec<String>>,
    deny_accounts: Vec<String>,
    deny_qos: Vec<String>,
}

impl Access {
    fn read(rec: &Record<'_>, warn: &mut dyn FnMut(String)) -> Self {
        let list = |key: &str, lower: bool| {
            rec.get(key).map(|p| {
                let v = if lower {
                    p.value.to_ascii_lowercase()
                } else {
                    p.value.clone()
                };
                comma_list(&v)
            })
        };
        let allow = |key: &str, lower: bool| {
            list(key, lower).filter(|v| !(v.len() == 1 && v[0].eq_ignore_ascii_case("ALL")))
        };
        let mut access = Self {
            allow_accounts: allow("AllowAccounts", true),
            allow_groups: allow("AllowGroups", false),
            allow_qos: allow("AllowQos", true),
            deny_accounts: list("DenyAccounts", true).unwrap_or_default(),
            deny_qos: list("DenyQos", true).unwrap_or_default(),
        };
        if access.allow_accounts.is_some() && !access.deny_accounts.is_empty() {
            warn("both AllowAccounts and DenyAccounts are defined, DenyAccounts ignored".into());
            access.deny_accounts.clear();
        }
        if access.allow_qos.is_some() && !access.deny_qos.is_empty() {
            warn("both AllowQos and DenyQos are defined, DenyQos ignored".into());
            access.deny_qos.clear();
        }
        access
    }
}

/// `PriorityTier`, `PriorityJobFactor`, and the old `Priority` setting both.
fn priorities(rec: &Record<'_>) -> Result<(u16, u16), ConfError> {
    let get = |key: &str| -> Result<Option<u16>, ConfError> {
        Ok(rec.count(key, u16::MAX.into())?.map(|n| n as u16))
    };
    if let Some(n) = get("Priority")? {
        return Ok((n, n));
    }
    Ok((
        get("PriorityTier")?.unwrap_or(1),
        get("PriorityJobFactor")?.unwrap_or(1),
    ))
}

/// `State`: matched by prefix as Slurm does (`UPPER` reads as UP).
fn state(rec: &Record<'_>) -> Result<PartitionState, ConfError> {
    let Some(p) = rec.get("State") else {
        return Ok(PartitionState::Up);
    };
    let starts = |w: &str| {
        p.value
            .get(..w.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(w))
    };
    if starts("DOWN") {
        Ok(PartitionState::Down)
    } else if starts("UP") {
        Ok(PartitionState::Up)
    } else if starts("DRAIN") {
        Ok(PartitionState::Drain)
    } else if starts("INACTIVE") {
        Ok(PartitionState::Inactive)
    } else {
        Err(rec.invalid(p))
    }
}

/// `OverSubscribe`/`Shared`, `ExclusiveUser`, `ExclusiveTopo` and the newer
/// `Exclusive=NO|NODE|USER|TOPO`, combined in Slurm's order. The two
/// Exclusive* flags are read from the line only, never from `DEFAULT`.
fn exclusivity(
    rec: &Record<'_>,
    warn: &mut dyn FnMut(String),
) -> Result<(OverSubscribe, bool, bool), ConfError> {
    let own_flag = |key: &str| rec.own(key).map(|p| rec.flag(p)).transpose();
    let mut exclusive_user = own_flag("ExclusiveUser")?.unwrap_or(false);
    let mut exclusive_topo = own_flag("ExclusiveTopo")?.unwrap_or(false);
    if exclusive_user && exclusive_topo {
        warn("ExclusiveUser ignored, since it is mutually exclusive with ExclusiveTopo".into());
        exclusive_user = false;
    }
    let mut oversubscribe = oversubscribe(rec, warn)?;
    if exclusive_topo {
        oversubscribe = OverSubscribe::Exclusive;
    }
    if let Some(p) = rec.get("Exclusive") {
        exclusive_user = false;
        exclusive_topo = false;
        let is = |w: &str| p.value.eq_ignore_ascii_case(w);
        if is("NO") || is("NONE") {
            if oversubscribe == OverSubscribe::Exclusive {
                oversubscribe = OverSubscribe::No;
            }
        } else if is("NODE") {
            oversubscribe = OverSubscribe::Exclusive;
        } else if is("USER") {
            exclusive_user = true;
        } else if is("TOPO") {
            exclusive_topo = true;
            oversubscribe = OverSubscribe::Exclusive;
        } else {
            return Err(rec.invalid(p));
        }
    }
    Ok((oversubscribe, exclusive_user, exclusive_topo))
}

/// `OverSubscribe` (or `Shared`): NO, EXCLUSIVE, YES[:n], FORCE[:n].
fn oversubscribe(
    rec: &Record<'_>,
    warn: &mut dyn FnMut(String),
) -> Result<OverSubscribe, ConfError> {
    let Some(p) = rec.get("OverSubscribe").or_else(|| rec.get("Shared")) else {
        return Ok(OverSubscribe::No);
    };
    let v = p.value.as_str();
    let word_count = |word: &str| -> Option<Option<&str>> {
        let head = v.get(..word.len())?;
        if !head.eq_ignore_ascii_case(word) {
            return None;
        }
        match &v[word.len()..] {
            "" => Some(None),
            rest => rest.strip_prefix(':').map(Some),
        }
    };
    // Slurm reads the count with strtol and does not check what follows.
    let leading = |s: &str| crate::number::strtol_or_zero(s).0;
    let to_u16 = |n: i64| u16::try_from(n).unwrap_or(u16::MAX);
    if v.eq_ignore_ascii_case("NO") {
        Ok(OverSubscribe::No)
    } else if v.eq_ignore_ascii_case("EXCLUSIVE") {
        Ok(OverSubscribe::Exclusive)
    } else if let Some(count) = word_count("YES") {
        match count.map(leading) {
            None => Ok(OverSubscribe::Yes(4)),
            Some(n) if n <= 1 => {
                warn(format!("ignoring bad OverSubscribe value {v}"));
                Ok(OverSubscribe::No)
            }
            Some(n) => Ok(OverSubscribe::Yes(to_u16(n))),
        }
    } else if let Some(count) = word_count("FORCE") {
        match count.map(leading) {
            None => Ok(OverSubscribe::Force(4)),
            Some(n) if n < 1 => {
                warn(format!("ignoring bad OverSubscribe value {v}"));
                Ok(OverSubscribe::No)
            }
            Some(n) => Ok(OverSubscribe::Force(to_u16(n))),
        }
    } else {
        Err(rec.invalid(p))
    }
}
