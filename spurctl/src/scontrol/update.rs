//! `scontrol update`: which entity the words name (`_update_it`) and the
//! `Key=value` words of a job or node update read as Slurm 22.05 reads them
//! (`scontrol_update_job`, `scontrol_update_node`), with Slurm's error
//! text. Pure: words in, a request or the text for stderr out.

use spur_proto::{NodeStateRequest, NodeUpdate};

use super::args::{abbrev, tag_value};

/// Slurm's NICE_OFFSET - 3: the largest |Nice|.
const NICE_LIMIT: i64 = 0x8000_0000 - 3;

/// What an update names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    /// `JobId=` or `JobName=`.
    Job,
    /// `StepId=`.
    Step,
    /// `ReservationName=`.
    Reservation,
    /// `NodeName=`.
    Node,
    /// `FrontendName=`.
    FrontEnd,
    /// `PartitionName=`.
    Partition,
    /// `SlurmctldDebug=`.
    Debug,
}

/// Finds the entity as `_update_it` does (job first, then step,
/// reservation, node, front end, partition, debug).
pub fn entity(words: &[String]) -> Option<Entity> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (tag, value) = tag_value(&words[i]);
        if value.is_none() {
            i += 1;
        }
        let table: [(&str, usize, Entity); 8] = [
            ("NodeName", 3, Entity::Node),
            ("PartitionName", 3, Entity::Partition),
            ("JobId", 3, Entity::Job),
            ("JobNAME", 3, Entity::Job),
            ("StepId", 4, Entity::Step),
            ("FrontendName", 2, Entity::FrontEnd),
            ("ReservationName", 3, Entity::Reservation),
            ("SlurmctldDebug", 2, Entity::Debug),
        ];
        if let Some((_, _, e)) = table.iter().find(|(n, m, _)| abbrev(tag, n, *m)) {
            found.push(*e);
        }
        i += 1;
    }
    [
        Entity::Job,
        Entity::Step,
        Entity::Reservation,
        Entity::Node,
        Entity::FrontEnd,
        Entity::Partition,
        Entity::Debug,
    ]
    .into_iter()
    .find(|e| found.contains(e))
}

/// The text scontrol prints when no entity is named.
pub const NO_ENTITY: &str = "No valid entity in update command\n\
Input line must include \"NodeName\", \"PartitionName\", \"Reservation\", \"JobId\", or \"SlurmctldDebug\"\n";

/// A new time limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeChange {
    /// `TimeLimit=...`: seconds, None for UNLIMITED.
    Set(Option<u64>),
    /// `TimeLimit=+...`: seconds to add.
    Add(u64),
    /// `TimeLimit=-...`: seconds to take away.
    Sub(u64),
}

/// A job update as read from the words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobRequest {
    /// `JobId=`, as written (a job id list).
    pub ids: Option<String>,
    /// `TimeLimit=`.
    pub time: Option<TimeChange>,
    /// `Partition=`.
    pub partition: Option<String>,
    /// `JobName=` / `Name=`.
    pub name: Option<String>,
    /// `Nice=` (bare `Nice` is 100).
    pub nice: Option<i32>,
    /// `Priority=`.
    pub priority: Option<u32>,
    /// `Comment=`.
    pub comment: Option<String>,
    /// `ArrayTaskThrottle=`.
    pub throttle: Option<u32>,
    /// `Dependency=`, as given.
    pub dependency: Option<String>,
}

/// What a job keyword does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobKey {
    Id,
    Comment,
    TimeLimit,
    Priority,
    Nice,
    Partition,
    Name,
    Throttle,
    Dependency,
    /// A keyword Slurm knows that spur's job update cannot carry yet.
    Unsupported,
}

/// Slurm's job keywords in the order `scontrol_update_job` tries them.
const JOB_KEYS: [(&str, usize, JobKey); 66] = [
    ("JobId", 3, JobKey::Id),
    ("AdminComment", 6, JobKey::Unsupported),
    ("SiteFactor", 5, JobKey::Unsupported),
    ("ArrayTaskThrottle", 10, JobKey::Throttle),
    ("Comment", 3, JobKey::Comment),
    ("Clusters", 8, JobKey::Unsupported),
    ("ClusterFeatures", 8, JobKey::Unsupported),
    ("DelayBoot", 5, JobKey::Unsupported),
    ("TimeLimit", 5, JobKey::TimeLimit),
    ("TimeMin", 5, JobKey::Unsupported),
    ("Priority", 2, JobKey::Priority),
    ("Nice", 2, JobKey::Nice),
    ("CPUsPerTask", 9, JobKey::Unsupported),
    ("CpusPerTres", 9, JobKey::Unsupported),
    ("NumCPUs", 6, JobKey::Unsupported),
    ("NumTasks", 8, JobKey::Unsupported),
    ("ReqProcs", 8, JobKey::Unsupported),
    ("Requeue", 4, JobKey::Unsupported),
    ("ReqNodes", 8, JobKey::Unsupported),
    ("NumNodes", 8, JobKey::Unsupported),
    ("ReqSockets", 4, JobKey::Unsupported),
    ("ReqCores", 4, JobKey::Unsupported),
    ("TasksPerNode", 2, JobKey::Unsupported),
    ("ReqThreads", 4, JobKey::Unsupported),
    ("MinCPUsNode", 4, JobKey::Unsupported),
    ("MinMemoryNode", 10, JobKey::Unsupported),
    ("MinMemoryCPU", 10, JobKey::Unsupported),
    ("MinTmpDiskNode", 5, JobKey::Unsupported),
    ("Partition", 2, JobKey::Partition),
    ("QOS", 2, JobKey::Unsupported),
    ("ReservationName", 3, JobKey::Unsupported),
    ("Name", 2, JobKey::Name),
    ("JobName", 4, JobKey::Name),
    ("WCKey", 1, JobKey::Unsupported),
    ("StdOut", 6, JobKey::Unsupported),
    ("Switches", 5, JobKey::Unsupported),
    ("wait-for-switch", 5, JobKey::Unsupported),
    ("OverSubscribe", 2, JobKey::Unsupported),
    ("Shared", 2, JobKey::Unsupported),
    ("Contiguous", 3, JobKey::Unsupported),
    ("CoreSpec", 4, JobKey::Unsupported),
    ("MemPerTres", 5, JobKey::Unsupported),
    ("ThreadSpec", 4, JobKey::Unsupported),
    ("TresBind", 5, JobKey::Unsupported),
    ("TresFreq", 5, JobKey::Unsupported),
    ("TresPerJob", 8, JobKey::Unsupported),
    ("TresPerNode", 8, JobKey::Unsupported),
    ("TresPerSocket", 8, JobKey::Unsupported),
    ("TresPerTask", 8, JobKey::Unsupported),
    ("ExcNodeList", 3, JobKey::Unsupported),
    ("NodeList", 8, JobKey::Unsupported),
    ("ReqNodeList", 8, JobKey::Unsupported),
    ("Features", 1, JobKey::Unsupported),
    ("Prefer", 3, JobKey::Unsupported),
    ("Gres", 2, JobKey::Unsupported),
    ("Account", 1, JobKey::Unsupported),
    ("BurstBuffer", 1, JobKey::Unsupported),
    ("Dependency", 1, JobKey::Dependency),
    ("Licenses", 1, JobKey::Unsupported),
    ("EligibleTime", 2, JobKey::Unsupported),
    ("StartTime", 2, JobKey::Unsupported),
    ("EndTime", 2, JobKey::Unsupported),
    ("Reboot", 3, JobKey::Unsupported),
    ("Deadline", 3, JobKey::Unsupported),
    ("WorkDir", 2, JobKey::Unsupported),
    ("MailType", 5, JobKey::Unsupported),
];

/// Reads the words of a job update. Err is the text for stderr.
pub fn parse_job(words: &[String]) -> Result<JobRequest, String> {
    let mut req = JobRequest::default();
    let mut changes = 0;
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let (mut tag, value) = tag_value(word);
        let mut add = None;
        let value = match value {
            Some(v) => {
                if let Some(t) = tag.strip_suffix(['+', '-']) {
                    add = tag.chars().last();
                    tag = t;
                }
                v
            }
            None if abbrev(tag, "Nice", 2) => {
                req.nice = Some(100);
                changes += 1;
                i += 1;
                continue;
            }
            None if i + 1 < words.len() => {
                i += 1;
                &words[i]
            }
            None => return Err(format!("Invalid input: {word}\nRequest aborted\n")),
        };
        let key = JOB_KEYS
            .iter()
            .find(|(n, m, _)| abbrev(tag, n, *m))
            .map(|(_, _, k)| *k);
        match key {
            Some(JobKey::Id) => req.ids = Some(value.to_string()),
            Some(k) => {
                set_job_field(&mut req, k, tag, value, &mut add)?;
                changes += 1;
            }
            None if abbrev(tag, "MailUser", 5) || abbrev(tag, "UserID", 3) => {
                return Err(unsupported(tag));
            }
            None => {
                return Err(format!(
                    "Update of this parameter is not supported: {word}\nRequest aborted\n"
                ))
            }
        }
        if add.is_some() {
            return Err(format!(
                "scontrol: error: Option {tag} does not accept [+|-]= syntax\n"
            ));
        }
        i += 1;
    }
    if changes == 0 {
        return Err("No changes specified\n".to_string());
    }
    Ok(req)
}

fn unsupported(tag: &str) -> String {
    format!("scontrol: error: Update of {tag} is not supported by spur\nRequest aborted\n")
}

fn set_job_field(
    req: &mut JobRequest,
    key: JobKey,
    tag: &str,
    value: &str,
    add: &mut Option<char>,
) -> Result<(), String> {
    match key {
        JobKey::Comment => req.comment = Some(value.to_string()),
        JobKey::Partition => req.partition = Some(value.to_string()),
        JobKey::Name => req.name = Some(value.to_string()),
        JobKey::Dependency => req.dependency = Some(value.to_string()),
        JobKey::Throttle => {
            // scontrol reads it into an int, as C does.
            let throttle = spur_slurm::number::strtol_or_zero(value).0 as i32;
            if throttle < 0 {
                return Err("scontrol: error: Invalid ArrayTaskThrottle value\n".to_string());
            }
            req.throttle = Some(throttle as u32);
        }
        JobKey::TimeLimit => req.time = Some(time_change(req, value, add)?),
        JobKey::Priority => {
            let p = value
                .parse::<u32>()
                .map_err(|_| format!("scontrol: error: Invalid Priority value: {value}\n"))?;
            req.priority = Some(p);
        }
        JobKey::Nice => {
            let n = spur_slurm::number::strtol_or_zero(value).0;
            if n.abs() > NICE_LIMIT {
                return Err(format!(
                    "scontrol: error: Nice value out of range (+/- {NICE_LIMIT}). Value ignored\n"
                ));
            }
            req.nice = Some(n as i32);
        }
        JobKey::Id | JobKey::Unsupported => return Err(unsupported(tag)),
    }
    Ok(())
}

fn time_change(
    req: &JobRequest,
    value: &str,
    add: &mut Option<char>,
) -> Result<TimeChange, String> {
    let mut value = value;
    if let Some(sign @ ('+' | '-')) = value.chars().next() {
        if add.is_some() {
            return Err(
                "scontrol: error: Invalid syntax, variations of +=- are not accepted.\n"
                    .to_string(),
            );
        }
        *add = Some(sign);
        value = &value[1..];
    }
    let secs = spur_conf::parse_time_limit(value)
        .map_err(|_| "scontrol: error: Invalid TimeLimit value\n".to_string())?;
    // Slurm keeps limits in minutes, rounding up (`time_str2mins`).
    let secs = secs.map(|s| s.div_ceil(60) * 60);
    let Some(sign) = add.take() else {
        return Ok(TimeChange::Set(secs));
    };
    if req.ids.is_none() {
        return Err(
            "scontrol: error: JobId must precede TimeLimit increment or decrement\n".to_string(),
        );
    }
    let secs = secs.ok_or_else(|| "scontrol: error: Invalid TimeLimit value\n".to_string())?;
    Ok(if sign == '+' {
        TimeChange::Add(secs)
    } else {
        TimeChange::Sub(secs)
    })
}

/// A node state named by `State=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StateWord {
    Request(NodeStateRequest),
    /// A state Slurm takes that spur's controller does not (NoResp, FAIL,
    /// FUTURE, POWER_*, CANCEL_REBOOT).
    Unsupported,
    /// A base state that cannot be set (UNKNOWN, ALLOCATED, MIXED).
    Invalid,
    /// FAIL also needs a reason.
    Fail,
}

/// The text for a State= value no keyword matches.
fn bad_state(word: &str) -> String {
    format!(
        "Invalid input: {word}\nRequest aborted\nValid states are: NoResp DRAIN FAIL FUTURE \
         RESUME POWER_DOWN POWER_UP UNDRAIN\nNot all states are valid given a node's prior state\n"
    )
}

fn state_word(value: &str) -> Option<StateWord> {
    use NodeStateRequest::*;
    let words: [(&str, usize, StateWord); 18] = [
        ("NoResp", 3, StateWord::Unsupported),
        ("CANCEL_REBOOT", 3, StateWord::Unsupported),
        ("DRAIN", 3, StateWord::Request(Drain)),
        ("FAIL", 3, StateWord::Fail),
        ("FUTURE", 3, StateWord::Unsupported),
        ("RESUME", 3, StateWord::Request(Resume)),
        ("POWER_DOWN_ASAP", 12, StateWord::Unsupported),
        ("POWER_DOWN_FORCE", 12, StateWord::Unsupported),
        ("POWER_DOWN", 7, StateWord::Unsupported),
        ("POWER_UP", 7, StateWord::Unsupported),
        ("UNDRAIN", 3, StateWord::Request(Undrain)),
        ("UNKNOWN", 3, StateWord::Invalid),
        ("DOWN", 3, StateWord::Request(Down)),
        ("IDLE", 3, StateWord::Request(Resume)),
        ("ALLOCATED", 3, StateWord::Invalid),
        ("?", 3, StateWord::Invalid),
        ("MIXED", 3, StateWord::Invalid),
        ("FUTURE", 3, StateWord::Unsupported),
    ];
    words
        .iter()
        .find(|(n, m, _)| abbrev(value, n, *m))
        .map(|(_, _, w)| *w)
}

/// Why a node update is not sent: the text for stderr, and whether it is
/// the controller's refusal (printed as `slurm_update error: ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeUpdateError {
    /// The words are wrong (scontrol's own message).
    Usage(String),
    /// What slurmctld would refuse, as its error code's text.
    Refused(spur_proto::ErrorCode),
}

/// Reads the words of a node update.
pub fn parse_node(words: &[String]) -> Result<NodeUpdate, NodeUpdateError> {
    let usage = |s: String| Err(NodeUpdateError::Usage(s));
    let mut names = None;
    let mut reason = None;
    let mut state = None;
    let mut changes = 0;
    for word in words {
        let (tag, Some(value)) = tag_value(word) else {
            return usage(format!(
                "scontrol: error: Invalid input: {word}  Request aborted\n"
            ));
        };
        if abbrev(tag, "NodeName", 1)
            && !abbrev(tag, "NodeAddr", 5)
            && !abbrev(tag, "NodeHostName", 5)
        {
            names = Some(value.to_string());
        } else if abbrev(tag, "Reason", 1) {
            let v = value.strip_prefix('"').unwrap_or(value);
            reason = Some(v.strip_suffix('"').unwrap_or(v).to_string());
            changes += 1;
        } else if abbrev(tag, "State", 1) {
            state = Some(state_word(value).ok_or_else(|| NodeUpdateError::Usage(bad_state(word)))?);
            changes += 1;
        } else if is_node_keyword(tag) {
            return usage(unsupported(tag));
        } else {
            return usage(format!(
                "Update of this parameter is not supported: {word}\nRequest aborted\n"
            ));
        }
    }
    node_request(names, reason, state, changes)
}

/// Node keywords Slurm takes that spur's node update cannot carry yet.
fn is_node_keyword(tag: &str) -> bool {
    [
        ("NodeAddr", 5),
        ("NodeHostName", 5),
        ("ActiveFeatures", 3),
        ("CpuBind", 7),
        ("Extra", 1),
        ("Features", 1),
        ("AvailableFeatures", 3),
        ("Gres", 1),
        ("Weight", 1),
        ("Comment", 2),
    ]
    .iter()
    .any(|(n, m)| abbrev(tag, n, *m))
}

fn node_request(
    names: Option<String>,
    reason: Option<String>,
    state: Option<StateWord>,
    changes: usize,
) -> Result<NodeUpdate, NodeUpdateError> {
    let needs_reason = matches!(
        state,
        Some(
            StateWord::Fail | StateWord::Request(NodeStateRequest::Down | NodeStateRequest::Drain)
        )
    );
    if needs_reason && reason.as_deref().is_none_or(str::is_empty) {
        return Err(NodeUpdateError::Usage(
            "You must specify a reason when DOWNING or DRAINING a node. Request denied\n"
                .to_string(),
        ));
    }
    if changes == 0 {
        return Err(NodeUpdateError::Usage("No changes specified\n".to_string()));
    }
    let state = match state {
        None => None,
        Some(StateWord::Request(r)) => Some(r),
        Some(StateWord::Invalid) => {
            return Err(NodeUpdateError::Refused(
                spur_proto::ErrorCode::InvalidNodeState,
            ))
        }
        Some(StateWord::Unsupported | StateWord::Fail) => {
            return Err(NodeUpdateError::Refused(
                spur_proto::ErrorCode::NotSupported,
            ))
        }
    };
    let nodes = names
        .as_deref()
        .and_then(|n| spur_conf::hostlist::expand(n).ok())
        .ok_or(NodeUpdateError::Refused(
            spur_proto::ErrorCode::InvalidNodeName,
        ))?;
    Ok(NodeUpdate {
        nodes,
        state,
        reason,
    })
}
