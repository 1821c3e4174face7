//! The pairs `scontrol show config` prints (and libslurm's
//! `slurm_print_ctl_conf`): every key Slurm 22.05's
//! `slurm_ctl_conf_2_key_pairs` (src/api/config_info.c) lists, in its order
//! and with its value formatting, made at the edge from the controller's
//! typed slurm.conf. A key spur acts on shows spur's value, a key spur
//! keeps raw shows the site's slurm.conf value, any other key shows the
//! default src/common/read_config.c gives it. Pure: what only the
//! controller's host knows comes in as [`HostFacts`].

use serde::{Deserialize, Serialize};
use spur_conf::SlurmConf;

#[cfg(test)]
mod tests;
mod value;

pub use self::value::LOG_LEVELS;
use self::value::{
    boolean, comm_params, count, cpu_freq_def, cpu_freq_governors, debug_flags, duration, enforce,
    health_state, list_or_null, log_level, log_time_format, minutes_or_unlimited, part_limits,
    per_node, preempt_mode, priority_flags, private_data, prolog_flags, reconfig_flags,
    reset_period, select_type_params, srun_ports, store_flags, suspend_time, task_plugin_param,
    tres, yes_no,
};

/// What a key's value may say when the site leaves it unset.
const NULL: &str = "(null)";

/// Slurm's `DEFAULT_ACCOUNTING_TRES`: always tracked, listed first.
const DEFAULT_TRES: &str = "cpu,mem,energy,node,billing,fs/disk,vmem,pages";

/// Facts of the running controller and its host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFacts {
    /// Where slurm.conf was read from (`SLURM_CONF`).
    pub conf_path: String,
    /// The id the next submitted job gets (`NEXT_JOB_ID`).
    pub next_job_id: u32,
    /// SlurmUser's uid, if the user exists here.
    pub slurm_user_uid: Option<u32>,
    /// SlurmdUser's uid, if the user exists here.
    pub slurmd_user_uid: Option<u32>,
    /// Where Debian's Slurm keeps its plugins (`PluginDir`'s default).
    pub plugin_dir: String,
    /// `/bin/mail`, or `/usr/bin/mail` when only that exists (MailProg's
    /// default, as read_config.c picks it).
    pub mail_prog: String,
    /// This host's short name, which stands for a SlurmctldHost named
    /// `localhost`.
    pub hostname: String,
}

/// Where a host's facts come from: what only the host can say.
#[derive(Debug, Clone)]
pub struct HostLookup {
    /// This host's short name.
    pub hostname: String,
    /// A user's uid by name.
    pub uid_of: fn(&str) -> Option<u32>,
    /// Whether a file exists.
    pub exists: fn(&str) -> bool,
}

impl HostFacts {
    /// The facts of a host with Debian's Slurm packages (plugins in the
    /// multiarch library folder), for slurm.conf `conf` read from
    /// `conf_path`.
    pub fn debian(
        conf: &SlurmConf,
        conf_path: String,
        next_job_id: u32,
        host: &HostLookup,
    ) -> HostFacts {
        let slurmd_user = conf.other.get("slurmduser").map_or("root", String::as_str);
        HostFacts {
            conf_path,
            next_job_id,
            slurm_user_uid: (host.uid_of)(&conf.slurm_user),
            slurmd_user_uid: (host.uid_of)(slurmd_user),
            plugin_dir: format!("/usr/lib/{}-linux-gnu/slurm-wlm", std::env::consts::ARCH),
            // read_config.c: /bin/mail unless only /usr/bin/mail exists.
            mail_prog: if !(host.exists)("/bin/mail") && (host.exists)("/usr/bin/mail") {
                "/usr/bin/mail"
            } else {
                "/bin/mail"
            }
            .to_string(),
            hostname: host.hostname.clone(),
        }
    }
}

/// Every pair, in Slurm 22.05's order. `BOOT_TIME` has no value here: the
/// client formats the controller's start there, in its own time format, as
/// scontrol does.
pub fn entries(conf: &SlurmConf, facts: &HostFacts) -> Vec<(String, String)> {
    let c = Ctx { conf, facts };
    let mut p = Pairs(Vec::with_capacity(LISTING.len() + 16));
    for (key, source) in LISTING {
        let raw = || c.raw(&key.to_ascii_lowercase());
        let value = match source {
            Null => raw().unwrap_or(NULL).to_string(),
            Or(default) => raw().unwrap_or(default).to_string(),
            Secs(default) => format!("{} sec", c.count(key, *default)),
            Num(default) => c.count(key, *default).to_string(),
            PerMin(default) => format!("{} nodes/min", c.count(key, *default)),
            YesNo => yes_no(raw().and_then(boolean).unwrap_or(false)).to_string(),
            Parsed(parse) => parse(raw()),
            Spur(value) => value(&c),
            Listed(put) => {
                put(&c, &mut p);
                continue;
            }
        };
        p.put(key, value);
    }
    p.0
}

/// Where a key's value comes from. Unless said otherwise, a key's raw
/// slurm.conf value is looked up under its own name.
enum Source {
    /// The raw value, else `(null)`.
    Null,
    /// The raw value, else this default.
    Or(&'static str),
    /// A number of seconds, `N sec`.
    Secs(u64),
    /// A number.
    Num(u64),
    /// A rate, `N nodes/min`.
    PerMin(u64),
    /// A boolean, `Yes` or `No` (default No).
    YesNo,
    /// Slurm's printing of what it read from the raw value (or its absence).
    Parsed(fn(Option<&str>) -> String),
    /// A value spur knows: a typed setting, or a fact of the host.
    Spur(fn(&Ctx<'_>) -> String),
    /// Pairs of their own: none, or a key whose name varies.
    Listed(fn(&Ctx<'_>, &mut Pairs)),
}

use Source::{Listed, Null, Num, Or, Parsed, PerMin, Secs, Spur, YesNo};

/// slurm_ctl_conf_2_key_pairs, key by key.
const LISTING: &[(&str, Source)] = &[
    ("AccountingStorageBackupHost", Null),
    ("AccountingStorageEnforce", Parsed(|v| enforce(v).0)),
    ("AccountingStorageHost", Or("localhost")),
    ("AccountingStorageExternalHost", Null),
    ("AccountingStorageParameters", Null),
    ("AccountingStoragePort", Spur(accounting_port)),
    ("AccountingStorageTRES", Parsed(tres)),
    ("AccountingStorageType", Or("accounting_storage/none")),
    ("AccountingStorageUser", Spur(accounting_user)),
    ("AccountingStoreFlags", Parsed(store_flags)),
    ("AcctGatherEnergyType", Parsed(energy_type)),
    (
        "AcctGatherFilesystemType",
        Or("acct_gather_filesystem/none"),
    ),
    ("AcctGatherInterconnectType", Spur(interconnect_type)),
    ("AcctGatherNodeFreq", Secs(0)),
    ("AcctGatherProfileType", Or("acct_gather_profile/none")),
    ("AllowSpecResourcesUsage", YesNo),
    ("AuthAltTypes", Null),
    ("AuthAltParameters", Null),
    ("AuthInfo", Null),
    ("AuthType", Or("auth/munge")),
    ("BatchStartTimeout", Secs(10)),
    ("BcastExclude", Or("/lib,/usr/lib,/lib64,/usr/lib64")),
    ("BcastParameters", Spur(bcast_parameters)),
    ("BOOT_TIME", Spur(|_| String::new())),
    ("BurstBufferType", Null),
    ("CliFilterPlugins", Null),
    (
        "ClusterName",
        Spur(|c| c.conf.cluster_name.clone().unwrap_or_default()),
    ),
    ("CommunicationParameters", Spur(comm_params)),
    ("CompleteWait", Secs(0)),
    ("CoreSpecPlugin", Or("core_spec/none")),
    ("CpuFreqDef", Parsed(cpu_freq_def)),
    ("CpuFreqGovernors", Parsed(cpu_freq_governors)),
    ("CredType", Spur(cred_type)),
    ("DebugFlags", Parsed(debug_flags)),
    ("DefMemPerNode", Listed(def_mem)),
    ("DependencyParameters", Null),
    ("DisableRootJobs", YesNo),
    ("EioTimeout", Num(60)),
    ("EnforcePartLimits", Parsed(part_limits)),
    ("Epilog", Null),
    (
        "EpilogMsgTime",
        Spur(|c| format!("{} usec", c.count("EpilogMsgTime", 2000))),
    ),
    ("EpilogSlurmctld", Null),
    ("ExtSensorsType", Or("ext_sensors/none")),
    ("ExtSensorsFreq", Secs(0)),
    ("FairShareDampeningFactor", Listed(fair_share_dampening)),
    ("FederationParameters", Null),
    ("FirstJobId", Spur(|c| c.conf.first_job_id.to_string())),
    ("GetEnvTimeout", Secs(2)),
    ("GresTypes", Spur(|c| list_or_null(&c.conf.gres_types))),
    ("GpuFreqDef", Or("high,memory=high")),
    ("GroupUpdateForce", Num(1)),
    ("GroupUpdateTime", Secs(600)),
    // The client compares its own slurm.conf's hash with the controller's;
    // spurctl reads the controller's configuration, so they match.
    ("HASH_VAL", Spur(|_| "Match".to_string())),
    ("HealthCheckInterval", Secs(0)),
    ("HealthCheckNodeState", Parsed(health_state)),
    ("HealthCheckProgram", Null),
    ("InactiveLimit", Spur(|c| secs(c.conf.inactive_limit_secs))),
    (
        "InteractiveStepOptions",
        Or("--interactive --preserve-env --pty $SHELL"),
    ),
    ("JobAcctGatherFrequency", Or("30")),
    ("JobAcctGatherType", Or("jobacct_gather/none")),
    ("JobAcctGatherParams", Null),
    ("JobCompHost", Or("localhost")),
    ("JobCompLoc", Spur(job_comp_loc)),
    ("JobCompPort", Spur(job_comp_port)),
    ("JobCompType", Or("jobcomp/none")),
    ("JobCompUser", Or("root")),
    ("JobContainerType", Or("job_container/none")),
    ("JobCredentialPrivateKey", Null),
    ("JobCredentialPublicCertificate", Null),
    ("JobDefaults", Spur(job_defaults)),
    ("JobFileAppend", Num(0)),
    (
        "JobRequeue",
        Spur(|c| u8::from(c.conf.job_requeue).to_string()),
    ),
    ("JobSubmitPlugins", Null),
    ("KillOnBadExit", Num(0)),
    ("KillWait", Spur(|c| secs(c.conf.kill_wait_secs))),
    ("LaunchParameters", Null),
    ("LaunchType", Or("launch/slurm")),
    ("Licenses", Null),
    ("LogTimeFormat", Parsed(log_time_format)),
    ("MailDomain", Null),
    ("MailProg", Spur(|c| c.text("mailprog", &c.facts.mail_prog))),
    ("MaxArraySize", Spur(|c| c.conf.max_array_size.to_string())),
    ("MaxDBDMsgs", Spur(max_dbd_msgs)),
    ("MaxJobCount", Spur(|c| c.max_job_count().to_string())),
    ("MaxJobId", Spur(|c| c.max_job_id().to_string())),
    ("MaxMemPerNode", Listed(max_mem)),
    ("MaxNodeCount", Spur(|c| c.node_records().to_string())),
    ("MaxStepCount", Num(40_000)),
    ("MaxTasksPerNode", Num(512)),
    ("MCSPlugin", Or("mcs/none")),
    ("MCSParameters", Null),
    ("MessageTimeout", Secs(10)),
    ("MinJobAge", Spur(|c| secs(c.conf.min_job_age_secs))),
    ("MpiDefault", Parsed(mpi_default)),
    ("MpiParams", Null),
    // Debian builds Slurm with --enable-multiple-slurmd, and spur runs one
    // agent per node on a shared host just as well.
    ("MULTIPLE_SLURMD", Spur(|_| "Yes".to_string())),
    ("NEXT_JOB_ID", Spur(|c| c.facts.next_job_id.to_string())),
    ("NodeFeaturesPlugins", Null),
    ("OverTimeLimit", Parsed(minutes_or_unlimited)),
    (
        "PluginDir",
        Spur(|c| c.text("plugindir", &c.facts.plugin_dir)),
    ),
    ("PlugStackConfig", Null),
    ("PowerParameters", Null),
    ("PowerPlugin", Or("")),
    ("PreemptMode", Spur(|c| preempt_mode(c.conf.preempt_mode))),
    ("PreemptType", Spur(|c| c.conf.preempt_type.clone())),
    ("PreemptExemptTime", Parsed(preempt_exempt_time)),
    ("PrEpParameters", Null),
    ("PrEpPlugins", Or("prep/script")),
    ("PriorityParameters", Null),
    // 22.05 does not send these two to clients: scontrol always shows null.
    ("PrioritySiteFactorParameters", Spur(|_| NULL.to_string())),
    ("PrioritySiteFactorPlugin", Spur(|_| NULL.to_string())),
    ("PriorityType", Listed(priority)),
    ("PrivateData", Parsed(private_data)),
    ("ProctrackType", Or("proctrack/cgroup")),
    ("Prolog", Null),
    ("PrologEpilogTimeout", Num(0xfffe)),
    ("PrologSlurmctld", Null),
    ("PrologFlags", Parsed(prolog_flags)),
    ("PropagatePrioProcess", Num(0)),
    ("PropagateResourceLimits", Spur(propagate_limits)),
    ("PropagateResourceLimitsExcept", Null),
    ("RebootProgram", Null),
    ("ReconfigFlags", Parsed(reconfig_flags)),
    ("RequeueExit", Null),
    ("RequeueExitHold", Null),
    ("ResumeFailProgram", Null),
    ("ResumeProgram", Null),
    ("ResumeRate", PerMin(300)),
    ("ResumeTimeout", Secs(60)),
    ("ResvEpilog", Null),
    ("ResvOverRun", Parsed(minutes_or_unlimited)),
    ("ResvProlog", Null),
    ("ReturnToService", Num(0)),
    ("RoutePlugin", Or("route/default")),
    ("SchedulerParameters", Spur(scheduler_parameters)),
    ("SchedulerTimeSlice", Spur(time_slice)),
    ("SchedulerType", Spur(|c| c.conf.scheduler_type.clone())),
    ("ScronParameters", Null),
    ("SelectType", Spur(|c| c.conf.select_type.clone())),
    ("SelectTypeParameters", Listed(select_type_parameters)),
    (
        "SlurmUser",
        Spur(|c| user(&c.conf.slurm_user, c.facts.slurm_user_uid)),
    ),
    ("SlurmctldAddr", Null),
    ("SlurmctldDebug", Parsed(|v| log_level(v, "info"))),
    ("SlurmctldHost", Listed(slurmctld_hosts)),
    ("SlurmctldLogFile", Null),
    ("SlurmctldPort", Spur(slurmctld_port)),
    ("SlurmctldSyslogDebug", Parsed(|v| log_level(v, NULL))),
    ("SlurmctldPrimaryOffProg", Null),
    ("SlurmctldPrimaryOnProg", Null),
    ("SlurmctldTimeout", Secs(120)),
    ("SlurmctldParameters", Null),
    ("SlurmdDebug", Parsed(|v| log_level(v, "info"))),
    ("SlurmdLogFile", Null),
    ("SlurmdParameters", Null),
    // Debian's build keeps pid files in /run.
    ("SlurmdPidFile", Or("/run/slurmd.pid")),
    ("SlurmdPort", Spur(|c| c.conf.slurmd_port.to_string())),
    ("SlurmdSpoolDir", Spur(|c| c.conf.slurmd_spool_dir.clone())),
    ("SlurmdSyslogDebug", Parsed(|v| log_level(v, NULL))),
    ("SlurmdTimeout", Spur(|c| secs(c.conf.slurmd_timeout_secs))),
    ("SlurmdUser", Spur(slurmd_user)),
    ("SlurmSchedLogFile", Null),
    ("SlurmSchedLogLevel", Num(0)),
    ("SlurmctldPidFile", Or("/run/slurmctld.pid")),
    ("SlurmctldPlugstack", Null),
    ("SLURM_CONF", Spur(|c| c.facts.conf_path.clone())),
    ("SLURM_VERSION", Spur(|_| crate::SLURM_VERSION.to_string())),
    ("SrunEpilog", Null),
    ("SrunPortRange", Parsed(srun_ports)),
    ("SrunProlog", Null),
    (
        "StateSaveLocation",
        Spur(|c| c.conf.state_save_location.clone()),
    ),
    ("SuspendExcNodes", Null),
    ("SuspendExcParts", Null),
    ("SuspendProgram", Null),
    ("SuspendRate", PerMin(60)),
    ("SuspendTime", Parsed(suspend_time)),
    ("SuspendTimeout", Spur(suspend_timeout)),
    ("SwitchParameters", Null),
    ("SwitchType", Or("switch/none")),
    ("TaskEpilog", Null),
    ("TaskPlugin", Or("task/none")),
    ("TaskPluginParam", Parsed(task_plugin_param)),
    ("TaskProlog", Null),
    ("TCPTimeout", Secs(2)),
    ("TmpFS", Or("/tmp")),
    (
        "TopologyParam",
        Spur(|c| list_or_null(&c.conf.topology_param)),
    ),
    ("TopologyPlugin", Spur(topology_plugin)),
    ("TrackWCKey", Spur(track_wckey)),
    ("TreeWidth", Spur(tree_width)),
    ("UsePam", YesNo),
    ("UnkillableStepProgram", Null),
    ("UnkillableStepTimeout", Secs(60)),
    (
        "VSizeFactor",
        Spur(|c| format!("{} percent", c.count("VSizeFactor", 0))),
    ),
    ("WaitTime", Secs(0)),
    ("X11Parameters", Null),
];

struct Pairs(Vec<(String, String)>);

impl Pairs {
    fn put(&mut self, key: &str, value: impl Into<String>) {
        self.0.push((key.to_string(), value.into()));
    }
}

/// The configuration and the host, with slurm.conf's raw keys at hand.
pub(super) struct Ctx<'a> {
    conf: &'a SlurmConf,
    facts: &'a HostFacts,
}

impl<'a> Ctx<'a> {
    /// The site's value of a key spur keeps raw (`key` in lower case).
    fn raw(&self, key: &str) -> Option<&'a str> {
        self.conf.other.get(key).map(String::as_str)
    }

    fn text(&self, key: &str, default: &str) -> String {
        self.raw(key).unwrap_or(default).to_string()
    }

    /// A number as `s_p_get_uint*` reads it; a value Slurm would refuse
    /// keeps the default.
    fn count(&self, key: &str, default: u64) -> u64 {
        match self.raw(&key.to_ascii_lowercase()).map(count) {
            Some(Some(Some(n))) => n,
            _ => default,
        }
    }

    fn is_slurmdbd(&self) -> bool {
        self.raw("accountingstoragetype") == Some("accounting_storage/slurmdbd")
    }

    fn is_basic_priority(&self) -> bool {
        self.conf.priority.priority_type == "priority/basic"
    }

    /// The node table's size: the nodes slurm.conf names, or MaxNodeCount
    /// when that is larger (slurmctld grows the table to it).
    fn node_records(&self) -> u64 {
        let named = self.conf.nodes.len() as u64;
        named.max(self.count("MaxNodeCount", 0))
    }

    /// MaxJobCount, cut to the ids MaxJobId and FirstJobId leave.
    fn max_job_count(&self) -> u64 {
        let ids = self
            .max_job_id()
            .saturating_sub(self.conf.first_job_id.into())
            + 1;
        u64::from(self.conf.max_job_count).min(ids)
    }

    fn max_job_id(&self) -> u64 {
        self.count("MaxJobId", 0x03ff_0000).min(0x03ff_ffff)
    }
}

fn secs(n: u32) -> String {
    format!("{n} sec")
}

/// A user and its uid, `name(uid)`.
fn user(name: &str, uid: Option<u32>) -> String {
    format!("{name}({})", uid.unwrap_or(0))
}

fn accounting_port(c: &Ctx<'_>) -> String {
    let port = match c.raw("accountingstoragetype") {
        Some("accounting_storage/slurmdbd") => 6819,
        Some("accounting_storage/mysql") => 3306,
        _ => 0,
    };
    c.count("AccountingStoragePort", port).to_string()
}

/// slurmdbd keeps the user to itself.
fn accounting_user(c: &Ctx<'_>) -> String {
    if c.is_slurmdbd() {
        "N/A".to_string()
    } else {
        c.text("accountingstorageuser", "root")
    }
}

fn energy_type(value: Option<&str>) -> String {
    value.map_or("acct_gather_energy/none".into(), |v| {
        v.replace("rsmi", "gpu")
    })
}

/// AcctGatherInterconnectType, or the older AcctGatherInfinibandType.
fn interconnect_type(c: &Ctx<'_>) -> String {
    let set = c.raw("acctgatherinterconnecttype");
    let set = set.or(c.raw("acctgatherinfinibandtype"));
    set.map_or("acct_gather_interconnect/none".into(), |v| {
        v.replace("infiniband", "interconnect")
    })
}

/// BcastParameters, or the older SbcastParameters.
fn bcast_parameters(c: &Ctx<'_>) -> String {
    let set = c.raw("bcastparameters").or(c.raw("sbcastparameters"));
    set.unwrap_or(NULL).to_string()
}

/// CredType, or the older CryptoType with `crypto/` read as `cred/`.
fn cred_type(c: &Ctx<'_>) -> String {
    match (c.raw("credtype"), c.raw("cryptotype")) {
        (Some(cred), _) => cred.to_string(),
        (None, Some(crypto)) => crypto.replacen("crypto", "cred", 1),
        (None, None) => "cred/munge".to_string(),
    }
}

/// DefMemPerNode wins over DefMemPerCPU; neither is DefMemPerNode =
/// UNLIMITED.
fn def_mem(c: &Ctx<'_>, p: &mut Pairs) {
    match (c.raw("defmempernode"), c.conf.def_mem_per_cpu_mb) {
        (Some(node), _) => p.put("DefMemPerNode", per_node(node)),
        (None, Some(mb)) => p.put("DefMemPerCPU", mb.to_string()),
        (None, None) => p.put("DefMemPerNode", "UNLIMITED"),
    }
}

/// MaxMemPerNode wins over MaxMemPerCPU, as for DefMem*.
fn max_mem(c: &Ctx<'_>, p: &mut Pairs) {
    match (c.raw("maxmempernode"), c.conf.max_mem_per_cpu_mb) {
        (Some(node), _) => p.put("MaxMemPerNode", per_node(node)),
        (None, Some(mb)) => p.put("MaxMemPerCPU", mb.to_string()),
        (None, None) => p.put("MaxMemPerNode", "UNLIMITED"),
    }
}

/// Listed unless PriorityType is priority/basic.
fn fair_share_dampening(c: &Ctx<'_>, p: &mut Pairs) {
    if !c.is_basic_priority() {
        let factor = c.count("FairShareDampeningFactor", 1);
        p.put("FairShareDampeningFactor", factor.to_string());
    }
}

fn job_comp_loc(c: &Ctx<'_>) -> String {
    let loc = if c.raw("jobcomptype") == Some("jobcomp/mysql") {
        "slurm_jobcomp_db"
    } else {
        "/var/log/slurm_jobcomp.log"
    };
    c.text("jobcomploc", loc)
}

fn job_comp_port(c: &Ctx<'_>) -> String {
    let port = if c.raw("jobcomptype") == Some("jobcomp/mysql") {
        3306
    } else {
        0
    };
    c.count("JobCompPort", port).to_string()
}

/// DefCPUPerGPU and DefMemPerGPU, as `job_defaults_str` lists them.
fn job_defaults(c: &Ctx<'_>) -> String {
    let mut defaults = Vec::new();
    if let Some(Some(Some(n))) = c.raw("defcpupergpu").map(count) {
        defaults.push(format!("DefCpuPerGPU={n}"));
    }
    if let Some(mb) = c.conf.def_mem_per_gpu_mb {
        defaults.push(format!("DefMemPerGPU={mb}"));
    }
    list_or_null(&defaults)
}

/// With slurmdbd, slurmctld sizes the queue to its jobs and nodes.
fn max_dbd_msgs(c: &Ctx<'_>) -> String {
    let derived = if c.is_slurmdbd() {
        10_000.max(c.max_job_count() * 2 + c.node_records() * 4)
    } else {
        0
    };
    c.count("MaxDBDMsgs", derived).to_string()
}

/// MpiDefault; the obsolete `openmpi` reads as `none`.
fn mpi_default(value: Option<&str>) -> String {
    match value {
        None | Some("openmpi") => "none".to_string(),
        Some(v) => v.to_string(),
    }
}

/// PreemptExemptTime, `time_str2secs` then `secs2time_str`.
fn preempt_exempt_time(value: Option<&str>) -> String {
    match value.and_then(|v| spur_conf::parse_time_limit(v).ok()) {
        Some(None) => "NONE".to_string(),
        Some(Some(secs)) => duration(secs),
        None => duration(0),
    }
}

/// PriorityType, and with any type but basic the keys multifactor adds.
fn priority(c: &Ctx<'_>, p: &mut Pairs) {
    let prio = &c.conf.priority;
    if c.is_basic_priority() {
        p.put("PriorityType", prio.priority_type.clone());
        return;
    }
    p.put("PriorityDecayHalfLife", duration(prio.decay_half_life_secs));
    let calc = c
        .raw("prioritycalcperiod")
        .and_then(|v| spur_conf::parse_time_minutes(v).ok().flatten())
        .map_or(300, |m| m * 60);
    p.put("PriorityCalcPeriod", duration(calc));
    p.put("PriorityFavorSmall", yes_no(prio.favor_small));
    p.put("PriorityFlags", priority_flags(c.raw("priorityflags")));
    p.put("PriorityMaxAge", duration(prio.max_age_secs));
    let reset = reset_period(c.raw("priorityusageresetperiod"));
    p.put("PriorityUsageResetPeriod", reset);
    p.put("PriorityType", prio.priority_type.clone());
    p.put("PriorityWeightAge", prio.weight_age.to_string());
    let assoc = c.count("PriorityWeightAssoc", 0);
    p.put("PriorityWeightAssoc", assoc.to_string());
    p.put("PriorityWeightFairShare", prio.weight_fairshare.to_string());
    p.put("PriorityWeightJobSize", prio.weight_job_size.to_string());
    p.put("PriorityWeightPartition", prio.weight_partition.to_string());
    p.put("PriorityWeightQOS", prio.weight_qos.to_string());
    let tres = c.text("priorityweighttres", NULL);
    p.put("PriorityWeightTRES", tres);
}

/// PropagateResourceLimits; unset (null) when ...Except is given.
fn propagate_limits(c: &Ctx<'_>) -> String {
    if c.raw("propagateresourcelimitsexcept").is_some() {
        NULL.to_string()
    } else {
        c.text("propagateresourcelimits", "ALL")
    }
}

/// SchedulerParameters as written (keys lower-cased by the conf crate).
fn scheduler_parameters(c: &Ctx<'_>) -> String {
    let params: Vec<String> = (c.conf.scheduler_parameters.raw.iter())
        .map(|e| match &e.value {
            Some(v) => format!("{}={v}", e.key),
            None => e.key.clone(),
        })
        .collect();
    list_or_null(&params)
}

/// SchedulerTimeSlice; under 5 seconds keeps the default.
fn time_slice(c: &Ctx<'_>) -> String {
    match c.count("SchedulerTimeSlice", 30) {
        n if n < 5 => "30 sec".to_string(),
        n => format!("{n} sec"),
    }
}

fn select_type_parameters(c: &Ctx<'_>, p: &mut Pairs) {
    if let Some(params) = select_type_params(c.conf) {
        p.put("SelectTypeParameters", params);
    }
}

/// `SlurmctldHost[i]`, `name(addr)` when they differ. read_config.c: the
/// address defaults to the name, then a name `localhost` becomes this
/// host's name.
fn slurmctld_hosts(c: &Ctx<'_>, p: &mut Pairs) {
    for (i, host) in c.conf.slurmctld_hosts.iter().enumerate() {
        let addr = host.addr.as_deref().unwrap_or(&host.name);
        let name = if host.name.eq_ignore_ascii_case("localhost") {
            &c.facts.hostname
        } else {
            &host.name
        };
        let value = if addr == name {
            name.clone()
        } else {
            format!("{name}({addr})")
        };
        p.put(&format!("SlurmctldHost[{i}]"), value);
    }
}

fn slurmctld_port(c: &Ctx<'_>) -> String {
    let ports = c.conf.slurmctld_port;
    if ports.last > ports.first {
        format!("{}-{}", ports.first, ports.last)
    } else {
        ports.first.to_string()
    }
}

fn slurmd_user(c: &Ctx<'_>) -> String {
    let name = c.raw("slurmduser").unwrap_or("root");
    user(name, c.facts.slurmd_user_uid)
}

fn suspend_timeout(c: &Ctx<'_>) -> String {
    match c.count("SuspendTimeout", 30) {
        0 => "NONE".to_string(),
        n => format!("{n} sec"),
    }
}

/// spur names 22.05's topology/none by its later name, topology/flat.
fn topology_plugin(c: &Ctx<'_>) -> String {
    match c.conf.topology_plugin.as_str() {
        "topology/flat" => "topology/none".to_string(),
        other => other.to_string(),
    }
}

/// TrackWCKey, also set by AccountingStorageEnforce=wckeys (or all).
fn track_wckey(c: &Ctx<'_>) -> String {
    let set = c.raw("trackwckey").and_then(boolean).unwrap_or(false);
    let enforced = enforce(c.raw("accountingstorageenforce")).1;
    yes_no(set || enforced).to_string()
}

/// TreeWidth; 0 keeps the default.
fn tree_width(c: &Ctx<'_>) -> String {
    match c.count("TreeWidth", 50) {
        0 => "50".to_string(),
        n => n.to_string(),
    }
}
