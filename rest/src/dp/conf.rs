//! `GET conf` (v0.0.45): the running configuration, typed as Slurm 26.05's
//! data_parser dumps `slurm_conf_t`.
//!
//! The values are `scontrol show config`'s ([`entries`]: Slurm 22.05's
//! text, made from the controller's typed slurm.conf), each read back into
//! its v0.0.45 shape key by key: a number, a boolean, a list, flag names in
//! the data_parser's spelling and order, or a wrapped number. A key 22.05
//! does not list shows the site's slurm.conf value, else the default Slurm
//! 26.05's read_config.c gives it. Where the data_parser writes an unset
//! string it writes `""`, and an unset list `[]`; so does this.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::extract::{Path, State as AxState};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Extension;
use serde_json::{json, Map, Value};

use spur_client::Api;
use spur_conf::SlurmConf;
use spur_proto::ConfigInfo;
use spur_slurm::config::{entries, HostFacts};

use super::value::Wrapped;
use super::{version, Doc};
use crate::auth::Caller;
use crate::reply::{plain, text, Version};
use crate::State;

/// `GET /slurm/v0.0.45/conf`.
pub(super) async fn conf(
    AxState(state): AxState<Arc<State>>,
    Extension(caller): Extension<Caller>,
    Path(tag): Path<String>,
) -> Response {
    let Some(v) = version(&tag).filter(|&v| v == Version::V0045) else {
        return plain(StatusCode::NOT_FOUND, text::UNKNOWN_PATH);
    };
    let answer = ask!(state.ask(&caller, |c| c.config()).await);
    match answer {
        Ok(info) => {
            let pairs = listing(&info.conf, &info.facts);
            Doc::new(v)
                .put("slurm_conf", slurm_conf(&pairs, &info.conf))
                .put("slurm_conf_meta", meta(&info))
                .answer(&state)
        }
        Err(e) => Doc::new(v)
            .put("slurm_conf", json!({}))
            .error(
                &e,
                "unable to read the controller's configuration",
                "slurm_load_ctl_conf",
            )
            .answer(&state),
    }
}

/// `slurm_conf_meta`. spur keeps no accounting database (so no ClusterId)
/// and no hash of slurm.conf (so no HashValue).
fn meta(info: &ConfigInfo) -> Value {
    json!({
        "LastUpdate": info.loaded_at,
        "BOOT_TIME": info.loaded_at,
        "ClusterId": Wrapped::unset(),
        "NEXT_JOB_ID": Wrapped::of(info.facts.next_job_id),
        "SLURM_CONF": info.facts.conf_path,
        "SLURM_VERSION": spur_proto::SLURM_COMPAT_VERSION,
    })
}

/// `scontrol show config`'s pairs, with the priority keys 22.05 hides under
/// priority/basic: 26.05 reads and dumps them whatever the plugin, so they
/// come from the listing of the same slurm.conf under priority/multifactor.
fn listing(conf: &SlurmConf, facts: &HostFacts) -> Vec<(String, String)> {
    let mut pairs = entries(conf, facts);
    if conf.priority.priority_type == "priority/basic" {
        let mut twin = conf.clone();
        twin.priority.priority_type = "priority/multifactor".into();
        let listed: BTreeSet<String> = pairs.iter().map(|(k, _)| k.clone()).collect();
        let hidden: Vec<_> = (entries(&twin, facts).into_iter())
            .filter(|(k, _)| !listed.contains(k))
            .collect();
        pairs.extend(hidden);
    }
    pairs
}

/// `slurm_conf`: every key of the v0.0.45 schema, in its order, from
/// `scontrol show config`'s pairs and the raw keys of `conf`.
fn slurm_conf(pairs: &[(String, String)], conf: &SlurmConf) -> Map<String, Value> {
    let src = Src {
        pairs: pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
        conf,
    };
    let mut out = Map::new();
    for (key, kind) in KEYS {
        let value = match kind {
            Pair(shape) => shape.of(src.pair(key)),
            Was(old, shape) => shape.of(src.pair(old)),
            Raw(default, shape) => shape.of(src.raw(key).or(Some(default))),
            Made(make) => make(&src),
        };
        match value {
            Some(value) => {
                out.insert((*key).to_string(), value);
            }
            None => tracing::debug!(key = *key, "no value to show for a configuration key"),
        }
    }
    out
}

/// What the pairs say when Slurm holds no value.
const NULL: &str = "(null)";

/// NO_VAL, which the data_parser writes as a plain number for 32-bit
/// counts.
const NO_VAL: u64 = 0xffff_fffe;

/// The pairs by key, and the configuration's raw keys.
struct Src<'a> {
    pairs: BTreeMap<&'a str, &'a str>,
    conf: &'a SlurmConf,
}

impl<'a> Src<'a> {
    fn pair(&self, key: &str) -> Option<&'a str> {
        self.pairs.get(key).copied()
    }

    /// The site's value of a key spur keeps raw.
    fn raw(&self, key: &str) -> Option<&'a str> {
        (self.conf.other.get(&key.to_ascii_lowercase())).map(String::as_str)
    }
}

/// Where a key's value comes from.
enum Kind {
    /// The 22.05 pair of the same name.
    Pair(Shape),
    /// The 22.05 pair of this older name.
    Was(&'static str, Shape),
    /// A key 22.05 does not list: the site's value, else 26.05's default
    /// (`(null)` where it has none).
    Raw(&'static str, Shape),
    /// Made from other pairs, or from the typed configuration.
    Made(fn(&Src<'_>) -> Option<Value>),
}

/// The v0.0.45 shape of a value, read from its text.
enum Shape {
    /// A string.
    Str,
    /// A plugin's name; 26.05 drops one named none (read_config.c).
    Plugin,
    /// A comma-separated list (`CSV_STRING`).
    List,
    /// A list of plugins; none drops as for [`Shape::Plugin`].
    Plugins,
    /// Script paths (`STRING_ARRAY`): the one the pair shows, if any.
    Scripts,
    /// A 16-bit count; INFINITE16 is written as its number.
    U16,
    /// A 32-bit count; INFINITE is written as its number.
    U32,
    /// Yes/No or 1/0.
    Bool,
    /// A wrapped 16-bit number (NO_VAL16 unset, INFINITE16 infinite).
    NoVal16,
    /// A wrapped 32-bit number of seconds: `N sec`, `[D-]HH:MM:SS`, or
    /// never.
    NoValSecs,
    /// The data_parser's flag names found in the value, in its order.
    Flags(&'static [&'static str]),
    /// One name, picked by the value's number.
    Named(&'static [&'static str]),
}

use Kind::{Made, Pair, Raw, Was};
use Shape::{
    Bool, Flags, List, Named, NoVal16, NoValSecs, Plugin, Plugins, Scripts, Str, U16, U32,
};

impl Shape {
    /// The value of `text` (an absent pair is `(null)`), if it reads as
    /// this shape.
    fn of(&self, text: Option<&str>) -> Option<Value> {
        let text = text.unwrap_or(NULL);
        let null = text == NULL;
        let none = null || text.to_ascii_lowercase().contains("none");
        Some(match self {
            Str if null => json!(""),
            Str => json!(text),
            Plugin if none => json!(""),
            Plugin => json!(text),
            List if null => json!([]),
            Plugins if none => json!([]),
            List | Plugins => json!(csv(text)),
            Scripts if null => json!([]),
            Scripts => json!([text]),
            U16 => json!(count(text, u64::from(u16::MAX))?),
            U32 => json!(count(text, u64::from(u32::MAX))?),
            Bool => json!(spur_conf::parse_bool(text)?),
            NoVal16 if null => Wrapped::unset().into(),
            NoVal16 => match count(text, u64::from(u16::MAX))? {
                0xfffe => Wrapped::unset(),
                0xffff => Wrapped::infinite(),
                n => Wrapped::of(n),
            }
            .into(),
            NoValSecs => secs(text)?.into(),
            Flags(names) => flags(names, &tokens(text)),
            Named(names) => json!(names.get(usize::try_from(leading(text)?).ok()?)?),
        })
    }
}

/// The number a value starts with (`10 sec`, `300 nodes/min`).
fn leading(text: &str) -> Option<u64> {
    let t = text.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    t[..digits].parse().ok()
}

/// A count; UNLIMITED and INFINITE are `infinite`, NONE is 0.
fn count(text: &str, infinite: u64) -> Option<u64> {
    let t = text.trim();
    let is = |w: &str| t.eq_ignore_ascii_case(w);
    match leading(t) {
        Some(n) => Some(n),
        None if is("UNLIMITED") || is("INFINITE") => Some(infinite),
        None if is("NONE") => Some(0),
        None => None,
    }
}

/// Seconds as `N sec` or a duration; NONE, UNLIMITED and INFINITE are
/// infinite.
fn secs(text: &str) -> Option<Wrapped> {
    let t = text.trim();
    if t == NULL {
        return Some(Wrapped::unset());
    }
    if t.eq_ignore_ascii_case("NONE") {
        return Some(Wrapped::infinite());
    }
    if let Some(n) = t.strip_suffix(" sec") {
        return leading(n).map(Wrapped::of);
    }
    match spur_conf::parse_time_limit(t).ok()? {
        Some(s) => Some(Wrapped::of(s)),
        None => Some(Wrapped::infinite()),
    }
}

/// A comma-separated list's items, as `strtok` splits it.
fn csv(text: &str) -> Vec<&str> {
    text.split(',').filter(|t| !t.is_empty()).collect()
}

/// A value's comma-separated words, under their 26.05 names.
fn tokens(text: &str) -> Vec<&str> {
    (text.split(',').map(str::trim))
        .map(|t| {
            RENAMED
                .iter()
                .find(|(old, _)| old.eq_ignore_ascii_case(t))
                .map_or(t, |(_, new)| *new)
        })
        .collect()
}

/// Flag names 22.05 prints that 26.05 spells otherwise.
const RENAMED: [(&str, &str); 3] = [
    ("JobContainer", "Namespace"),
    ("Elasticsearch", "JobComp"),
    ("OFF", "DISABLED"),
];

/// The names among `words`, in `names`' order.
fn flags(names: &[&str], words: &[&str]) -> Value {
    let set: Vec<&str> = (names.iter().copied())
        .filter(|n| words.iter().any(|w| w.eq_ignore_ascii_case(n)))
        .collect();
    json!(set)
}

/// Each flag array's names, as the v0.0.45 data_parser dumps them.
const ENFORCE: &[&str] = &[
    "associations",
    "limits",
    "wckeys",
    "qos",
    "safe",
    "nojobs",
    "nosteps",
];
const DEBUG_FLAGS: &[&str] = &[
    "Accrue",
    "Agent",
    "AuditRPCs",
    "AuditTLS",
    "Backfill",
    "BackfillMap",
    "BurstBuffer",
    "Cgroup",
    "ConMgr",
    "CpuFrequency",
    "CPU_Bind",
    "Data",
    "DBD_Agent",
    "DB_Archive",
    "DB_Assoc",
    "DB_Event",
    "DB_Job",
    "DB_QOS",
    "DB_Query",
    "DB_Reservation",
    "DB_Resource",
    "DB_Step",
    "DB_TRES",
    "DB_Usage",
    "DB_WCKey",
    "Dependency",
    "Energy",
    "Federation",
    "Gang",
    "GLOB_SILENCE",
    "Gres",
    "Hetjob",
    "Interconnect",
    "JobAccountGather",
    "JobComp",
    "Namespace",
    "NodeFeatures",
    "License",
    "Metrics",
    "MPI",
    "Network",
    "NetworkRaw",
    "NO_CONF_HASH",
    "Power",
    "Priority",
    "Profile",
    "Protocol",
    "Reservation",
    "Route",
    "Sack",
    "Script",
    "SelectType",
    "Steps",
    "Switch",
    "thread",
    "TLS",
    "TraceJobs",
    "Triggers",
];
const PART_LIMITS: &[&str] = &["NO", "ANY", "ALL"];
const HEALTH_STATES: &[&str] = &[
    "START_ONLY",
    "REBOOT_ONLY",
    "ANY",
    "IDLE",
    "ALLOC",
    "MIXED",
    "NONDRAINED_IDLE",
    "CYCLE",
];
const PREEMPT_MODES: &[&str] = &[
    "DISABLED", "SUSPEND", "REQUEUE", "CANCEL", "GANG", "WITHIN", "PRIORITY",
];
const PRIORITY_FLAGS: &[&str] = &[
    "ACCRUE_ALWAYS",
    "SMALL_RELATIVE_TO_TIME",
    "CALCULATE_RUNNING",
    "DEPTH_OBLIVIOUS",
    "FAIR_TREE",
    "INCR_ONLY",
    "MAX_TRES",
    "MAX_TRES_GRES",
    "NO_NORMAL_ASSOC",
    "NO_NORMAL_PART",
    "NO_NORMAL_QOS",
    "NO_NORMAL_TRES",
];
const PRIVATE_DATA: &[&str] = &[
    "accounts",
    "events",
    "jobs",
    "nodes",
    "partitions",
    "reservations",
    "usage",
    "users",
];
const PROLOG_FLAGS: &[&str] = &[
    "Alloc",
    "NoHold",
    "Contain",
    "Serial",
    "X11",
    "DeferBatch",
    "ForceRequeueOnFail",
    "RunInJob",
];
const RECONFIG_FLAGS: &[&str] = &["KeepPartInfo", "KeepPartState", "KeepPowerSaveSettings"];
const SELECT_TYPE_PARAMS: &[&str] = &[
    "NONE",
    "CR_CPU_MEMORY",
    "CR_CPU",
    "CR_CORE_MEMORY",
    "CR_CORE",
    "CR_SOCKET_MEMORY",
    "CR_SOCKET",
    "CR_MEMORY",
    "CR_ONE_TASK_PER_CORE",
    "CR_CORE_DEFAULT_DIST_BLOCK",
    "CR_NO_DIST_TOPO_BLOCK",
    "CR_LLN",
    "CR_PACK_NODES",
    "LL_SHARED_GRES",
    "MULTIPLE_SHARING_GRES_PJ",
    "ENFORCE_BINDING_GRES",
    "ONE_TASK_PER_SHARING_GRES",
];
const TASK_PLUGIN_PARAMS: &[&str] = &[
    "None",
    "Threads",
    "Cores",
    "Sockets",
    "autobind=threads",
    "autobind=cores",
    "autobind=sockets",
    "Verbose",
    "SlurmdOffSpec",
    "OOMKillStep",
    "SlurmdSpecOverride",
];
const GOVERNORS: &[&str] = &[
    "Conservative",
    "OnDemand",
    "Performance",
    "PowerSave",
    "SchedUtil",
    "UserSpace",
];

/// The schema's keys, in its order.
const KEYS: &[(&str, Kind)] = &[
    ("AccountingStorageTRES", Pair(List)),
    ("AccountingStorageBackupHost", Pair(Str)),
    ("AccountingStorageEnforce", Pair(Flags(ENFORCE))),
    ("AccountingStorageExternalHost", Pair(Str)),
    ("AccountingStorageHost", Pair(Str)),
    ("AccountingStorageParameters", Pair(List)),
    ("AccountingStoragePort", Pair(U16)),
    ("AccountingStorageType", Pair(Plugin)),
    ("AcctGatherEnergyType", Pair(Plugins)),
    ("AcctGatherProfileType", Pair(Plugin)),
    ("AcctGatherInterconnectType", Pair(Plugin)),
    ("AcctGatherFilesystemType", Pair(Plugin)),
    ("AcctGatherNodeFreq", Pair(U16)),
    ("ConfFlags", Made(conf_flags)),
    ("AuthAltTypes", Pair(List)),
    ("AuthInfo", Pair(Str)),
    ("AuthAltParameters", Pair(Str)),
    ("AuthType", Pair(Str)),
    ("BatchStartTimeout", Pair(U16)),
    ("BurstBufferType", Pair(Str)),
    ("BcastExclude", Pair(List)),
    ("BcastParameters", Pair(List)),
    ("CertgenParameters", Raw(NULL, List)),
    ("CertgenType", Raw(NULL, Str)),
    ("CertmgrParameters", Raw(NULL, Str)),
    ("CertmgrType", Raw(NULL, Str)),
    ("CliFilterParameters", Raw(NULL, List)),
    ("CliFilterPlugins", Pair(Plugins)),
    ("ClusterName", Pair(Str)),
    ("CommunicationParameters", Pair(List)),
    ("CompleteWait", Pair(U16)),
    ("CommunicationParametersFlags", Made(communication_flags)),
    ("AccountingStoreFlags", Made(store_flags)),
    ("SlurmdParametersFlags", Made(slurmd_flags)),
    ("controllers", Made(controllers)),
    ("CpuFreqDef", Pair(Str)),
    ("CpuFreqGovernors", Made(governors)),
    ("CredType", Pair(Str)),
    ("DataParserParameters", Raw(NULL, Str)),
    ("DebugFlags", Pair(Flags(DEBUG_FLAGS))),
    ("DefMemPerCPU", Made(def_mem_per_cpu)),
    ("DependencyParameters", Pair(List)),
    ("EioTimeout", Pair(U16)),
    ("EnforcePartLimits", Pair(Flags(PART_LIMITS))),
    ("Epilog", Pair(Scripts)),
    ("EpilogMsgTime", Pair(U32)),
    ("EpilogSlurmctld", Pair(Scripts)),
    (
        "EpilogTimeout",
        Made(|s| script_timeout(s, "EpilogTimeout")),
    ),
    ("FederationParameters", Pair(List)),
    ("FirstJobId", Pair(U32)),
    ("FairShareDampeningFactor", Pair(U16)),
    (
        "GetNameInfoCacheTimeout",
        Made(|s| {
            Some(json!(
                comm_option(s, "getnameinfo_cache_timeout=").unwrap_or(60)
            ))
        }),
    ),
    ("GresTypes", Pair(List)),
    ("GroupUpdateTime", Pair(U16)),
    ("GroupUpdateForce", Pair(Bool)),
    ("GpuFreqDef", Pair(Str)),
    ("HashPlugin", Raw("hash/k12", Str)),
    ("HealthCheckInterval", Pair(U16)),
    ("HealthCheckNodeState", Pair(Flags(HEALTH_STATES))),
    ("HealthCheckProgram", Pair(Str)),
    ("HealthCheckTimeout", Raw("60", U16)),
    ("HttpParserType", Raw(NULL, Str)),
    (
        "HostUnreachRetryCount",
        Made(|s| {
            Some(json!(
                comm_option(s, "host_unreach_retry_count=").unwrap_or(0)
            ))
        }),
    ),
    ("InactiveLimit", Pair(U16)),
    ("InteractiveStepOptions", Pair(Str)),
    ("JobAcctGatherFrequency", Pair(List)),
    ("JobAcctGatherType", Pair(Plugin)),
    ("JobAcctGatherParams", Pair(List)),
    ("JobAcctOomKill", Made(oom_kill)),
    ("JobCompHost", Pair(Str)),
    ("JobCompLoc", Pair(Str)),
    ("JobCompParams", Raw(NULL, Str)),
    ("JobCompPort", Pair(U32)),
    ("JobCompType", Pair(Plugin)),
    ("JobCompUser", Pair(Str)),
    ("JobDefaults", Made(job_defaults)),
    ("JobFileAppend", Pair(Bool)),
    ("JobRequeue", Pair(Bool)),
    ("JobSubmitPlugins", Pair(List)),
    (
        "KeepaliveInterval",
        Made(|s| Some(json!(comm_option(s, "keepaliveinterval=").unwrap_or(NO_VAL)))),
    ),
    (
        "KeepaliveProbes",
        Made(|s| Some(json!(comm_option(s, "keepaliveprobes=").unwrap_or(NO_VAL)))),
    ),
    ("KeepaliveTime", Made(keepalive_time)),
    ("KillOnBadExit", Pair(Bool)),
    ("KillWait", Pair(U16)),
    ("LaunchParameters", Pair(List)),
    ("Licenses", Pair(List)),
    ("LicenseParameters", Raw(NULL, List)),
    ("LogTimeFormat", Pair(Str)),
    ("MailDomain", Pair(Str)),
    ("MailProg", Pair(Str)),
    ("MaxArraySize", Pair(U32)),
    ("MaxBatchRequeue", Raw("5", U32)),
    ("MaxDBDMsgs", Pair(U32)),
    ("MaxJobCount", Pair(U32)),
    ("MaxJobId", Pair(U32)),
    ("MaxMemPerCPU", Made(max_mem_per_cpu)),
    ("MaxNodeCount", Pair(U32)),
    ("MaxStepCount", Pair(U32)),
    ("MaxTasksPerNode", Pair(U16)),
    ("MCSPlugin", Pair(Plugin)),
    ("MCSParameters", Pair(List)),
    ("MetricsAuthUsers", Raw(NULL, List)),
    ("MetricsParameters", Raw(NULL, List)),
    ("MetricsType", Raw(NULL, Str)),
    ("MinJobAge", Pair(U32)),
    ("MpiDefault", Pair(Plugin)),
    ("MpiParams", Pair(List)),
    ("MessageTimeout", Pair(U16)),
    ("NamespaceType", Made(namespace_type)),
    ("NodeFeaturesPlugins", Pair(List)),
    ("OverTimeLimit", Pair(U16)),
    ("PluginDir", Pair(Str)),
    ("PlugStackConfig", Pair(Str)),
    ("PreemptExemptTime", Pair(NoValSecs)),
    ("PreemptMode", Pair(Flags(PREEMPT_MODES))),
    ("PreemptParameters", Raw(NULL, List)),
    ("PreemptType", Pair(Str)),
    ("PrEpParameters", Pair(Str)),
    ("PrEpPlugins", Pair(List)),
    ("PriorityDecayHalfLife", Pair(Str)),
    ("PriorityCalcPeriod", Pair(Str)),
    ("PriorityFavorSmall", Pair(Bool)),
    ("PriorityFlags", Made(priority_flags)),
    ("PriorityMaxAge", Pair(Str)),
    ("PriorityParameters", Pair(Str)),
    ("PriorityUsageResetPeriod", Pair(Str)),
    ("PriorityType", Pair(Str)),
    ("PriorityWeightAge", Pair(U32)),
    ("PriorityWeightAssoc", Pair(U32)),
    (
        "PriorityWeightFairshare",
        Was("PriorityWeightFairShare", U32),
    ),
    ("PriorityWeightJobSize", Pair(U32)),
    ("PriorityWeightPartition", Pair(U32)),
    ("PriorityWeightQOS", Pair(U32)),
    ("PriorityWeightTRES", Pair(Str)),
    ("PrivateData", Pair(Flags(PRIVATE_DATA))),
    ("ProctrackType", Pair(Str)),
    ("Prolog", Pair(Scripts)),
    ("PrologSlurmctld", Pair(Scripts)),
    (
        "PrologTimeout",
        Made(|s| script_timeout(s, "PrologTimeout")),
    ),
    ("PropagatePrioProcess", Pair(Named(&["off", "on", "nicer"]))),
    ("PrologFlags", Pair(Flags(PROLOG_FLAGS))),
    ("PropagateResourceLimits", Pair(List)),
    ("PropagateResourceLimitsExcept", Pair(List)),
    ("RebootProgram", Pair(Str)),
    ("ReconfigFlags", Pair(Flags(RECONFIG_FLAGS))),
    ("RequeueExit", Pair(List)),
    ("RequeueExitHold", Pair(List)),
    ("ResumeFailProgram", Pair(Str)),
    ("ResumeProgram", Pair(Str)),
    ("ResumeRate", Pair(U16)),
    ("ResumeTimeout", Pair(U16)),
    ("ResvEpilog", Pair(Str)),
    ("ResvOverRun", Pair(U16)),
    ("ResvProlog", Pair(Str)),
    (
        "ReturnToService",
        Pair(Named(&["none", "non_responsive_only", "all"])),
    ),
    ("SlurmSchedLogFile", Pair(Str)),
    ("SlurmSchedLogLevel", Pair(U16)),
    ("SchedulerParameters", Pair(List)),
    ("SchedulerTimeSlice", Pair(U16)),
    ("SchedulerType", Pair(Str)),
    ("ScronParameters", Pair(List)),
    ("SelectType", Pair(Str)),
    ("SelectTypeParameters", Made(select_type_parameters)),
    ("PrioritySiteFactorPlugin", Pair(Plugin)),
    ("PrioritySiteFactorParameters", Pair(Str)),
    (
        "SlurmUserId",
        Made(|s| Some(json!(user(s, "SlurmUser")?.1))),
    ),
    ("SlurmUser", Made(|s| Some(json!(user(s, "SlurmUser")?.0)))),
    (
        "SlurmdUserId",
        Made(|s| Some(json!(user(s, "SlurmdUser")?.1))),
    ),
    (
        "SlurmdUser",
        Made(|s| Some(json!(user(s, "SlurmdUser")?.0))),
    ),
    ("SlurmctldAddr", Pair(Str)),
    ("SlurmctldDebug", Pair(Str)),
    ("SlurmctldHttpAuthParams", Raw(NULL, List)),
    ("SlurmctldLogFile", Pair(Str)),
    ("SlurmctldPidFile", Pair(Str)),
    (
        "SlurmctldPort",
        Made(|s| Some(json!(slurmctld_ports(s)?.0))),
    ),
    (
        "SlurmctldPortCount",
        Made(|s| Some(json!(slurmctld_ports(s)?.1))),
    ),
    ("SlurmctldPrimaryOffProg", Pair(Str)),
    ("SlurmctldPrimaryOnProg", Pair(Str)),
    ("SlurmctldSyslogDebug", Pair(Str)),
    ("SlurmctldTimeout", Pair(U16)),
    ("SlurmctldParameters", Pair(List)),
    ("SlurmdDebug", Pair(Str)),
    ("SlurmdHttpAuthParams", Raw(NULL, List)),
    ("SlurmdLogFile", Pair(Str)),
    ("SlurmdParameters", Pair(List)),
    ("SlurmdPidFile", Pair(Str)),
    ("SlurmdPort", Pair(U32)),
    ("SlurmdSpoolDir", Pair(Str)),
    ("SlurmdSyslogDebug", Pair(Str)),
    ("SlurmdTimeout", Pair(U16)),
    ("SrunEpilog", Pair(Str)),
    ("SrunPortRange", Made(srun_port_range)),
    ("SrunProlog", Pair(Str)),
    ("StateSaveLocation", Pair(Str)),
    ("SuspendExcNodes", Pair(List)),
    ("SuspendExcParts", Pair(List)),
    ("SuspendExcStates", Raw(NULL, List)),
    ("SuspendProgram", Pair(Str)),
    ("SuspendRate", Pair(U16)),
    ("SuspendTime", Pair(NoValSecs)),
    ("SuspendTimeout", Pair(U16)),
    ("SwitchType", Pair(Plugin)),
    ("SwitchParameters", Pair(List)),
    ("TaskEpilog", Pair(Str)),
    ("TaskPlugin", Pair(Plugins)),
    ("TaskPluginParam", Pair(Flags(TASK_PLUGIN_PARAMS))),
    ("TaskProlog", Pair(Str)),
    ("TLSParameters", Raw(NULL, List)),
    ("TLSType", Raw("tls/none", Str)),
    ("TCPTimeout", Pair(U16)),
    ("TmpFS", Pair(Str)),
    ("TopologyParam", Pair(List)),
    // 22.05 says topology/none for what 26.05 calls topology/flat, the
    // name spur keeps.
    (
        "TopologyPlugin",
        Made(|s| Some(json!(s.conf.topology_plugin))),
    ),
    ("TreeWidth", Pair(U16)),
    ("UnkillableStepProgram", Pair(Str)),
    ("UnkillableStepTimeout", Pair(U16)),
    ("UrlParserType", Raw(NULL, Str)),
    ("VSizeFactor", Pair(U16)),
    ("WaitTime", Pair(U16)),
    ("X11Parameters", Pair(List)),
];

/// `conf_flags`' general flags: each a Yes/No pair of the same name.
fn conf_flags(s: &Src<'_>) -> Option<Value> {
    let names = [
        "DisableRootJobs",
        "AllowSpecResourcesUsage",
        "UsePam",
        "TrackWCKey",
    ];
    let set: Vec<&str> = (names.into_iter())
        .filter(|n| s.pair(n).and_then(spur_conf::parse_bool) == Some(true))
        .collect();
    Some(json!(set))
}

/// Whether `text` holds `word` anywhere, as read_config.c's `xstrcasestr`
/// finds the words of these flags.
fn holds(text: &str, word: &str) -> bool {
    text.to_ascii_lowercase()
        .contains(&word.to_ascii_lowercase())
}

/// IPv4 unless turned off, IPv6 if turned on, and disable_http.
fn communication_flags(s: &Src<'_>) -> Option<Value> {
    let params = s.pair("CommunicationParameters").unwrap_or_default();
    let set = [
        ("IPv4", !holds(params, "DisableIPv4")),
        ("IPv6", holds(params, "EnableIPv6")),
        ("disable_http", holds(params, "disable_http")),
    ];
    Some(json!(flags_set(&set)))
}

/// The names whose condition holds.
fn flags_set<'n>(set: &[(&'n str, bool)]) -> Vec<&'n str> {
    set.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect()
}

/// From the site's value: 22.05's pair lists only the three flags it knew.
fn store_flags(s: &Src<'_>) -> Option<Value> {
    let value = s.raw("AccountingStoreFlags").unwrap_or_default();
    let names = [
        "job_comment",
        "job_extra",
        "job_script",
        "job_env",
        "no_stdio",
    ];
    let set: Vec<(&str, bool)> = names.iter().map(|n| (*n, holds(value, n))).collect();
    Some(json!(flags_set(&set)))
}

/// l3cache_as_socket wins over numa_node_as_socket.
fn slurmd_flags(s: &Src<'_>) -> Option<Value> {
    let params = s.pair("SlurmdParameters").unwrap_or_default();
    let l3cache = holds(params, "l3cache_as_socket");
    let set = [
        ("config_overrides", holds(params, "config_override")),
        ("l3cache_as_socket", l3cache),
        (
            "numa_node_as_socket",
            !l3cache && holds(params, "numa_node_as_socket"),
        ),
        ("allow_ecores", holds(params, "allow_ecores")),
        ("shutdown_on_reboot", holds(params, "shutdown_on_reboot")),
        ("contain_spank", holds(params, "contain_spank")),
    ];
    Some(json!(flags_set(&set)))
}

/// `SlurmctldHost[i]`, `name(addr)` or just `name` when they are the same.
fn controllers(s: &Src<'_>) -> Option<Value> {
    let hosts: Vec<Value> = (0..)
        .map_while(|i| s.pair(&format!("SlurmctldHost[{i}]")))
        .map(|host| {
            let (machine, address) = match host.split_once('(') {
                Some((name, rest)) => (name, rest.strip_suffix(')').unwrap_or(rest)),
                None => (host, host),
            };
            json!({"address": address, "machine": machine})
        })
        .collect();
    Some(json!(hosts))
}

/// A single governor dumps by name. The data_parser compares each name
/// with the whole set, so a set of two or more dumps as no names at all.
fn governors(s: &Src<'_>) -> Option<Value> {
    let words = tokens(s.pair("CpuFreqGovernors").unwrap_or(NULL));
    match flags(GOVERNORS, &words) {
        Value::Array(names) if names.len() == 1 => Some(Value::Array(names)),
        _ => Some(json!([])),
    }
}

/// Unset when the default is per node (DefMemPerNode, or UNLIMITED).
fn def_mem_per_cpu(s: &Src<'_>) -> Option<Value> {
    let per_cpu = s.pair("DefMemPerCPU").and_then(leading);
    Some(per_cpu.map_or_else(Wrapped::unset, Wrapped::of).into())
}

/// The data_parser reads this field with its per-node reader: the node
/// limit shows (0 for UNLIMITED), and a per-CPU limit is unset.
fn max_mem_per_cpu(s: &Src<'_>) -> Option<Value> {
    let per_node = match s.pair("MaxMemPerNode") {
        Some(limit) => Wrapped::of(leading(limit).unwrap_or(0)),
        None => Wrapped::unset(),
    };
    Some(per_node.into())
}

/// The site's PrologTimeout or EpilogTimeout, else PrologEpilogTimeout.
fn script_timeout(s: &Src<'_>, key: &str) -> Option<Value> {
    NoVal16.of(s.raw(key).or(s.pair("PrologEpilogTimeout")))
}

/// A number CommunicationParameters sets with `name=N`.
fn comm_option(s: &Src<'_>, name: &str) -> Option<u64> {
    let params = s.pair("CommunicationParameters")?;
    let at = params.to_ascii_lowercase().find(name)?;
    leading(&params[at + name.len()..])
}

/// CommunicationParameters' keepalivetime, else the older KeepAliveTime.
fn keepalive_time(s: &Src<'_>) -> Option<Value> {
    let own = s.raw("KeepAliveTime").and_then(leading);
    let time = comm_option(s, "keepalivetime=").or(own);
    Some(json!(time.unwrap_or(NO_VAL)))
}

fn oom_kill(s: &Src<'_>) -> Option<Value> {
    let params = s.pair("JobAcctGatherParams").unwrap_or_default();
    let kill = (params.split(',')).any(|p| p.eq_ignore_ascii_case("OverMemoryKill"));
    Some(json!(kill))
}

/// `DefCpuPerGPU=N,DefMemPerGPU=M`, each a typed entry.
fn job_defaults(s: &Src<'_>) -> Option<Value> {
    let text = s.pair("JobDefaults").unwrap_or(NULL);
    let entries: Vec<Value> = (csv(text).into_iter())
        .filter_map(|d| d.split_once('='))
        .filter_map(|(kind, n)| Some(json!({"type": [kind], "value": leading(n)?})))
        .collect();
    Some(json!(entries))
}

/// NamespaceType, or the JobContainerType it replaced.
fn namespace_type(s: &Src<'_>) -> Option<Value> {
    Plugin.of(s.raw("NamespaceType").or(s.pair("JobContainerType")))
}

/// Fair tree is on unless turned off; 22.05 writes any NO_NORMAL_* as
/// NO_NORMAL_ALL.
fn priority_flags(s: &Src<'_>) -> Option<Value> {
    let mut words = tokens(s.pair("PriorityFlags").unwrap_or_default());
    if !words.iter().any(|w| w.eq_ignore_ascii_case("NO_FAIR_TREE")) {
        words.push("FAIR_TREE");
    }
    if words
        .iter()
        .any(|w| w.eq_ignore_ascii_case("NO_NORMAL_ALL"))
    {
        words.extend([
            "NO_NORMAL_ASSOC",
            "NO_NORMAL_PART",
            "NO_NORMAL_QOS",
            "NO_NORMAL_TRES",
        ]);
    }
    Some(flags(PRIORITY_FLAGS, &words))
}

/// 22.05 lists none without a consumable-resource select plugin.
fn select_type_parameters(s: &Src<'_>) -> Option<Value> {
    let words = tokens(s.pair("SelectTypeParameters").unwrap_or("NONE"));
    Some(flags(SELECT_TYPE_PARAMS, &words))
}

/// `name(uid)`, split.
fn user<'a>(s: &Src<'a>, key: &str) -> Option<(&'a str, u64)> {
    let (name, uid) = s.pair(key)?.split_once('(')?;
    Some((name, leading(uid)?))
}

/// `first` or `first-last`: the first port and the count.
fn slurmctld_ports(s: &Src<'_>) -> Option<(u64, u64)> {
    let ports = s.pair("SlurmctldPort")?;
    let first = leading(ports)?;
    let count = match ports.split_once('-') {
        Some((_, last)) => (leading(last)? + 1).saturating_sub(first),
        None => 1,
    };
    Some((first, count))
}

/// `low-high`; set only when both are given.
fn srun_port_range(s: &Src<'_>) -> Option<Value> {
    let range = s.pair("SrunPortRange").and_then(|r| r.split_once('-'));
    let (low, high) = range.map_or((0, 0), |(l, h)| {
        (leading(l).unwrap_or(0), leading(h).unwrap_or(0))
    });
    let set = low > 0 && high > 0;
    let (low, high) = if set { (low, high) } else { (0, 0) };
    Some(json!({"minimum": low, "maximum": high, "set": set}))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use spur_conf::ConfFile;

    use super::*;

    fn parse(text: &str) -> SlurmConf {
        let mut no_includes = |_: &std::path::Path| Err(std::io::ErrorKind::NotFound.into());
        let file = std::path::Path::new("/etc/slurm/slurm.conf");
        SlurmConf::parse_with(text, file, &mut no_includes)
            .expect("the test's slurm.conf parses")
            .value
    }

    fn host() -> HostFacts {
        HostFacts {
            conf_path: "/etc/slurm/slurm.conf".into(),
            next_job_id: 14,
            slurm_user_uid: Some(64030),
            slurmd_user_uid: Some(0),
            plugin_dir: "/usr/lib/x86_64-linux-gnu/slurm-wlm".into(),
            mail_prog: "/bin/mail".into(),
            hostname: "vm".into(),
        }
    }

    fn dump(text: &str) -> Map<String, Value> {
        let conf = parse(text);
        slurm_conf(&listing(&conf, &host()), &conf)
    }

    /// Few keys: the rest show their defaults.
    const SMALL: &str = "ClusterName=tiny\nSlurmctldHost=ctl(10.0.0.1)\nSlurmUser=slurm\n\
                         AuthAltTypes=auth/jwt\nDefMemPerCPU=2048\nPriorityType=priority/basic\n\
                         NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n";

    /// Most keys off their defaults (the file 22.05's listing was recorded
    /// with), and the anchor cluster's.
    const BUSY: &str = include_str!("../../../spurctl/src/scontrol/golden/39b-slurm.conf");
    const ANCHOR: &str = include_str!("../../../conf/tests/fixtures/anchor/slurm.conf");

    /// The published v0.0.45 document, if it is beside the repository.
    fn document() -> Option<Value> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/slurm-openapi/openapi_spec_v0.0.45.json");
        let text = std::fs::read_to_string(path).ok()?;
        Some(serde_json::from_str(&text).expect("the document is JSON"))
    }

    /// Whether `value` has the type `schema` gives (its `$ref`s resolved),
    /// its items theirs and its strings one of its enum's; else the path
    /// and value that do not.
    fn mismatch(doc: &Value, schema: &Value, value: &Value, at: &str) -> Option<String> {
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or_default();
            return mismatch(doc, &doc["components"]["schemas"][name], value, at);
        }
        let ok = match schema["type"].as_str() {
            Some("object") => value.is_object(),
            Some("array") => value.is_array(),
            Some("string") => value.is_string(),
            Some("boolean") => value.is_boolean(),
            Some("integer") => value.is_u64() || value.is_i64(),
            _ => true,
        };
        if !ok {
            return Some(format!("{at}: {value} is not {}", schema["type"]));
        }
        if let Some(allowed) = schema["enum"].as_array() {
            if !allowed.contains(value) {
                return Some(format!("{at}: {value} is none of {allowed:?}"));
            }
        }
        match value {
            Value::Array(items) => (items.iter().enumerate())
                .find_map(|(i, v)| mismatch(doc, &schema["items"], v, &format!("{at}[{i}]"))),
            Value::Object(m) => m.iter().find_map(|(k, v)| match &schema["properties"][k] {
                Value::Null => Some(format!("{at}.{k}: not in the schema")),
                s => mismatch(doc, s, v, &format!("{at}.{k}")),
            }),
            _ => None,
        }
    }

    #[test]
    fn every_key_of_the_schema_shows_in_its_order_and_type() {
        let Some(doc) = document() else {
            eprintln!("skipped: no published OpenAPI document (../shared/slurm-openapi)");
            return;
        };
        let schema = &doc["components"]["schemas"]["v0.0.45_slurm_conf"];
        let keys: Vec<&String> = (schema["properties"].as_object())
            .expect("slurm_conf has properties")
            .keys()
            .collect();
        for text in [SMALL, BUSY, ANCHOR] {
            let conf = dump(text);
            assert_eq!(conf.keys().collect::<Vec<_>>(), keys);
            let whole = Value::Object(conf);
            assert_eq!(mismatch(&doc, schema, &whole, "slurm_conf"), None);
        }
        let meta = meta(&ConfigInfo {
            loaded_at: 1_700_000_000,
            conf: Box::new(parse(SMALL)),
            facts: host(),
        });
        let meta_schema = &doc["components"]["schemas"]["v0.0.45_slurm_conf_meta"];
        assert_eq!(mismatch(&doc, meta_schema, &meta, "meta"), None);
    }

    #[test]
    fn values_take_their_v0045_shapes() {
        let c = dump(SMALL);
        assert_eq!(c["MessageTimeout"], json!(10));
        assert_eq!(
            c["DefMemPerCPU"],
            json!({"set": true, "infinite": false, "number": 2048})
        );
        assert_eq!(
            c["MaxMemPerCPU"],
            json!({"set": true, "infinite": false, "number": 0})
        );
        assert_eq!(c["AuthAltTypes"], json!(["auth/jwt"]));
        assert_eq!(c["ClusterName"], json!("tiny"));
        assert_eq!(c["AuthInfo"], json!(""), "(null) is an empty string");
        assert_eq!(c["Epilog"], json!([]));
        assert_eq!(c["JobRequeue"], json!(true));
        assert_eq!(
            c["controllers"],
            json!([{"address": "10.0.0.1", "machine": "ctl"}])
        );
        assert_eq!(c["SlurmUser"], json!("slurm"));
        assert_eq!(c["SlurmUserId"], json!(64030));
        assert_eq!(c["SlurmctldPort"], json!(6817));
        assert_eq!(c["SlurmctldPortCount"], json!(1));
        assert_eq!(
            c["SrunPortRange"],
            json!({"minimum": 0, "maximum": 0, "set": false})
        );
        assert_eq!(c["KeepaliveTime"], json!(NO_VAL));
        assert_eq!(c["SuspendTime"], Value::from(Wrapped::infinite()));
        assert_eq!(c["PrologTimeout"], Value::from(Wrapped::unset()));
    }

    #[test]
    fn unset_plugins_show_slurm_2605s_defaults() {
        let c = dump(SMALL);
        assert_eq!(c["AuthType"], json!("auth/munge"));
        assert_eq!(c["CredType"], json!("cred/munge"));
        assert_eq!(c["HashPlugin"], json!("hash/k12"));
        assert_eq!(c["TLSType"], json!("tls/none"));
        assert_eq!(c["TopologyPlugin"], json!("topology/flat"));
        assert_eq!(c["CertgenType"], json!(""));
        // read_config.c drops a plugin named none.
        assert_eq!(c["AccountingStorageType"], json!(""));
        assert_eq!(c["AcctGatherEnergyType"], json!([]));
        assert_eq!(c["NamespaceType"], json!(""));
        assert_eq!(c["MpiDefault"], json!(""));
        // priority/basic hides these from 22.05's listing, not from 26.05.
        assert_eq!(c["PriorityType"], json!("priority/basic"));
        assert_eq!(c["PriorityFlags"], json!(["FAIR_TREE"]));
        assert_eq!(c["FairShareDampeningFactor"], json!(1));
        assert_eq!(c["PriorityMaxAge"], json!("7-00:00:00"));
    }

    #[test]
    fn flags_show_by_the_data_parsers_names_in_its_order() {
        let c = dump(BUSY);
        assert_eq!(
            c["ConfFlags"],
            json!([
                "DisableRootJobs",
                "AllowSpecResourcesUsage",
                "UsePam",
                "TrackWCKey"
            ]),
            "AccountingStorageEnforce=wckeys tracks WCKeys"
        );
        assert_eq!(
            c["AccountingStorageEnforce"],
            json!(["associations", "limits", "wckeys", "safe", "nosteps"])
        );
        assert_eq!(
            c["DebugFlags"],
            json!(["Backfill", "Cgroup", "Gres", "Network", "Triggers"])
        );
        assert_eq!(
            c["AccountingStoreFlags"],
            json!(["job_comment", "job_script"])
        );
        assert_eq!(c["PreemptMode"], json!(["SUSPEND", "GANG"]));
        assert_eq!(
            c["PriorityFlags"],
            json!([
                "ACCRUE_ALWAYS",
                "DEPTH_OBLIVIOUS",
                "MAX_TRES",
                "NO_NORMAL_ASSOC",
                "NO_NORMAL_PART",
                "NO_NORMAL_QOS",
                "NO_NORMAL_TRES"
            ])
        );
        assert_eq!(c["PrivateData"], json!(["jobs", "usage"]));
        assert_eq!(
            c["SelectTypeParameters"],
            json!([
                "CR_SOCKET_MEMORY",
                "CR_ONE_TASK_PER_CORE",
                "CR_LLN",
                "CR_PACK_NODES"
            ])
        );
        assert_eq!(c["HealthCheckNodeState"], json!(["IDLE", "ALLOC", "CYCLE"]));
        assert_eq!(
            c["TaskPluginParam"],
            json!(["Cores", "autobind=threads", "Verbose"])
        );
        assert_eq!(c["EnforcePartLimits"], json!(["ALL"]));
        assert_eq!(c["CpuFreqGovernors"], json!([]), "three governors");
        assert_eq!(c["ReturnToService"], json!("non_responsive_only"));
        assert_eq!(c["PropagatePrioProcess"], json!("nicer"));
        assert_eq!(c["OverTimeLimit"], json!(u16::MAX));
        assert_eq!(c["DefMemPerCPU"], Value::from(Wrapped::unset()));
        assert_eq!(c["MaxMemPerCPU"], Value::from(Wrapped::unset()));
        assert_eq!(c["PreemptExemptTime"], Value::from(Wrapped::of(5400)));
        assert_eq!(c["SuspendTime"], Value::from(Wrapped::of(600)));
        assert_eq!(c["SlurmctldPortCount"], json!(2));
        assert_eq!(
            c["SrunPortRange"],
            json!({"minimum": 50000, "maximum": 50100, "set": true})
        );
        assert_eq!(
            c["JobDefaults"],
            json!([{"type": ["DefCpuPerGPU"], "value": 4},
                   {"type": ["DefMemPerGPU"], "value": 16384}])
        );
        assert_eq!(c["PriorityWeightFairshare"], json!(10000));
        assert_eq!(c["CommunicationParametersFlags"], json!(["IPv4"]));
    }

    #[test]
    fn keys_2205_does_not_list_take_the_sites_value() {
        let c = dump(&format!(
            "{SMALL}TLSType=tls/s2n\nMaxBatchRequeue=2\nPrologTimeout=30\n\
             CommunicationParameters=keepalivetime=20,EnableIPv6\n\
             JobAcctGatherParams=OverMemoryKill\nJobContainerType=job_container/tmpfs\n"
        ));
        assert_eq!(c["TLSType"], json!("tls/s2n"));
        assert_eq!(c["MaxBatchRequeue"], json!(2));
        assert_eq!(c["PrologTimeout"], Value::from(Wrapped::of(30)));
        assert_eq!(c["EpilogTimeout"], Value::from(Wrapped::unset()));
        assert_eq!(c["KeepaliveTime"], json!(20));
        assert_eq!(c["CommunicationParametersFlags"], json!(["IPv4", "IPv6"]));
        assert_eq!(c["JobAcctOomKill"], json!(true));
        assert_eq!(c["NamespaceType"], json!("job_container/tmpfs"));
    }
}
