//! slurm.conf read into [`SlurmConf`]: the cluster-wide keys spur acts on,
//! `NodeName` lines (one [`NodeConf`] per node), `PartitionName` and
//! `NodeSet` lines. Keys follow slurm.conf(5): real keys spur does not use
//! are kept raw in [`SlurmConf::other`], unknown keys become warnings.
//! Only [`SlurmConf::load`], [`SlurmConf::parse`] and [`slurm_conf_path`]
//! touch the file system or the environment.

mod keys;
mod node;
mod partition;
mod private;
mod record;
mod sched;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use self::node::{GresSpec, NodeConf, NodeConfState};
pub use self::partition::{OverSubscribe, PartitionConf, PartitionState};
pub use self::private::PrivateData;
pub use self::sched::{
    PreemptMode, PreemptModeBase, PriorityConf, SchedulerParam, SchedulerParameters,
};
pub use crate::value::{
    parse_memory_mb, parse_time_limit, parse_time_minutes, MemoryFormatError, TimeFormatError,
};

use self::keys::{is_known, SLURM_CONF_KEYS};
use self::record::{comma_list, Record};
use crate::error::{ConfError, ErrorKind, Origin, Parsed, Warning};
use crate::file::ConfFile;
use crate::hostlist;
use crate::line::{self, Line, Loader, Pair};
use crate::value;

/// Where Slurm looks for slurm.conf when `SLURM_CONF` is not set.
pub const DEFAULT_SLURM_CONF: &str = "/etc/slurm/slurm.conf";

/// The slurm.conf to read: `$SLURM_CONF` if set and not empty, else
/// `$SPUR_CONF` (which spur sets in every job beside SLURM_CONF, so that a
/// command in a job whose tool cleared the SLURM_* variables still finds
/// its cluster, as snakemake's job steps do), else `/etc/slurm/slurm.conf`.
pub fn slurm_conf_path() -> PathBuf {
    ["SLURM_CONF", "SPUR_CONF"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()))
        .map_or_else(|| PathBuf::from(DEFAULT_SLURM_CONF), PathBuf::from)
}

/// A controller host: `SlurmctldHost=name` or `SlurmctldHost=name(addr)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmctldHost {
    /// The host name (what `hostname -s` says on it).
    pub name: String,
    /// The address to reach it at, when it differs from the name.
    pub addr: Option<String>,
}

/// `SlurmctldPort`: one port, or a range `6817-6818`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortRange {
    /// The first port.
    pub first: u16,
    /// The last port (equal to `first` for a single port).
    pub last: u16,
}

impl PortRange {
    /// How many ports the range holds.
    pub fn count(&self) -> u32 {
        u32::from(self.last) - u32::from(self.first) + 1
    }
}

/// A `NodeSet=name Nodes=... Feature=...` line, resolved to node names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSetConf {
    /// The set's name, usable in a partition's `Nodes`.
    pub name: String,
    /// Its nodes in node-table order: those named plus those with `feature`.
    pub nodes: Vec<String>,
    /// `Feature`: every node with this feature belongs to the set.
    pub feature: Option<String>,
    /// The line.
    pub origin: Origin,
}

/// A record line spur keeps as written (`DownNodes`, `FrontendName`,
/// `PowerAction`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawRecord {
    /// The record key, e.g. `DownNodes`.
    pub key: String,
    /// Every `(key, value)` pair of the line, the record key first.
    pub pairs: Vec<(String, String)>,
    /// The line.
    pub origin: Origin,
}

/// slurm.conf as spur uses it. Unset keys hold Slurm's defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmConf {
    /// `ClusterName`, lowercased as Slurm does.
    pub cluster_name: Option<String>,
    /// `SlurmctldHost` lines in order (primary first), or the old
    /// `ControlMachine`/`ControlAddr`/`BackupController`/`BackupAddr`.
    pub slurmctld_hosts: Vec<SlurmctldHost>,
    /// `SlurmctldPort` (6817).
    pub slurmctld_port: PortRange,
    /// `SlurmdPort` (6818): the default `Port` of every node.
    pub slurmd_port: u16,
    /// `SlurmUser` ("root").
    pub slurm_user: String,
    /// `StateSaveLocation` ("/var/spool").
    pub state_save_location: String,
    /// `SlurmdSpoolDir` ("/var/spool/slurmd"; `%n`/`%h` unexpanded: see
    /// [`NodeConf::slurmd_path`]).
    pub slurmd_spool_dir: String,
    /// `SlurmdTimeout` in seconds (300).
    pub slurmd_timeout_secs: u32,
    /// `MinJobAge` in seconds (300).
    pub min_job_age_secs: u32,
    /// `InactiveLimit` in seconds (0: none): how long an salloc or srun
    /// holding an allocation may stay silent before the job is ended.
    pub inactive_limit_secs: u32,
    /// `KillWait` in seconds (30).
    pub kill_wait_secs: u32,
    /// `ReturnToService` (0): which DOWN nodes become available again when
    /// their agent registers: 0 none (an admin resumes them), 1 those set
    /// DOWN for not responding, 2 all.
    pub return_to_service: u8,
    /// `JobRequeue` (1): whether batch jobs may be requeued unless they say
    /// `--requeue` or `--no-requeue`.
    pub job_requeue: bool,
    /// `AuthInfo`'s `cred_expire=` in seconds (120): how long a job
    /// credential lives; a requeued job waits one second longer before it
    /// runs again.
    pub cred_expire_secs: u32,
    /// `PrivateData`: what users see only of their own.
    pub private_data: PrivateData,
    /// `MaxArraySize` (1001).
    pub max_array_size: u32,
    /// `MaxJobCount` (10000).
    pub max_job_count: u32,
    /// `FirstJobId` (1).
    pub first_job_id: u32,
    /// `GresTypes`.
    pub gres_types: Vec<String>,
    /// `TopologyPlugin` ("topology/flat").
    pub topology_plugin: String,
    /// `TopologyParam`, split at commas.
    pub topology_param: Vec<String>,
    /// `SelectType` ("select/cons_tres").
    pub select_type: String,
    /// `SelectTypeParameters`, split at commas.
    pub select_type_parameters: Vec<String>,
    /// `SchedulerType` ("sched/backfill").
    pub scheduler_type: String,
    /// `SchedulerParameters`.
    pub scheduler_parameters: SchedulerParameters,
    /// `PriorityType` and the `PriorityWeight*`/`Priority*` keys.
    pub priority: PriorityConf,
    /// `PreemptType` ("preempt/none").
    pub preempt_type: String,
    /// `PreemptMode` (OFF).
    pub preempt_mode: PreemptMode,
    /// `DefMemPerCPU` in MB.
    pub def_mem_per_cpu_mb: Option<u64>,
    /// `DefMemPerGPU` in MB.
    pub def_mem_per_gpu_mb: Option<u64>,
    /// `MaxMemPerCPU` in MB; `None` is unlimited.
    pub max_mem_per_cpu_mb: Option<u64>,
    /// Every node, in file order.
    pub nodes: Vec<NodeConf>,
    /// Every partition, in file order.
    pub partitions: Vec<PartitionConf>,
    /// `NodeSet` lines.
    pub node_sets: Vec<NodeSetConf>,
    /// Real slurm.conf keys spur does not act on, lowercased key -> value.
    pub other: BTreeMap<String, String>,
    /// `DownNodes`, `FrontendName` and `PowerAction` lines, as written.
    pub other_records: Vec<RawRecord>,
}

impl Default for SlurmConf {
    fn default() -> Self {
        Self {
            cluster_name: None,
            slurmctld_hosts: Vec::new(),
            slurmctld_port: PortRange {
                first: 6817,
                last: 6817,
            },
            slurmd_port: 6818,
            slurm_user: "root".into(),
            state_save_location: "/var/spool".into(),
            slurmd_spool_dir: "/var/spool/slurmd".into(),
            slurmd_timeout_secs: 300,
            return_to_service: 0,
            min_job_age_secs: 300,
            inactive_limit_secs: 0,
            kill_wait_secs: 30,
            job_requeue: true,
            cred_expire_secs: 120,
            private_data: PrivateData::default(),
            max_array_size: 1001,
            max_job_count: 10_000,
            first_job_id: 1,
            gres_types: Vec::new(),
            topology_plugin: "topology/flat".into(),
            topology_param: Vec::new(),
            select_type: "select/cons_tres".into(),
            select_type_parameters: Vec::new(),
            scheduler_type: "sched/backfill".into(),
            scheduler_parameters: SchedulerParameters::default(),
            priority: PriorityConf::default(),
            preempt_type: "preempt/none".into(),
            preempt_mode: PreemptMode::default(),
            def_mem_per_cpu_mb: None,
            def_mem_per_gpu_mb: None,
            max_mem_per_cpu_mb: None,
            nodes: Vec::new(),
            partitions: Vec::new(),
            node_sets: Vec::new(),
            other: BTreeMap::new(),
            other_records: Vec::new(),
        }
    }
}

impl ConfFile for SlurmConf {
    /// Parses `text`, the contents of `file`, reading `Include`d files
    /// through `loader` (tests pass in-memory files).
    fn parse_with(
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<Self>, ConfError> {
        Builder::default().read(text, file, loader)
    }
}

impl SlurmConf {
    /// slurm.conf's settings alone: its records (nodes, partitions, node
    /// sets) are skipped, so `nodes`, `partitions` and `node_sets` are
    /// empty. What a command needs to reach the controller, read in time
    /// that does not grow with the cluster.
    pub fn load_settings(path: &Path) -> Result<Parsed<SlurmConf>, ConfError> {
        let text = crate::file::read(path)?;
        let builder = Builder {
            settings_only: true,
            ..Builder::default()
        };
        builder.read(&text, path, &mut |p: &Path| std::fs::read_to_string(p))
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<&NodeConf> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The partition named `name`.
    pub fn partition(&self, name: &str) -> Option<&PartitionConf> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The default partition: the last one with `Default=YES`, as in Slurm.
    pub fn default_partition(&self) -> Option<&PartitionConf> {
        self.partitions.iter().rev().find(|p| p.default)
    }
}

/// Record keys: the rest of their line belongs to the record.
const RECORD_KEYS: &[&str] = &[
    "NodeName",
    "PartitionName",
    "NodeSet",
    "DownNodes",
    "FrontendName",
    "PowerAction",
];

/// `ControlMachine`-era keys, turned into `SlurmctldHost`s at the end.
#[derive(Default)]
struct Legacy {
    control_machine: Option<(String, Origin)>,
    control_addr: Option<String>,
    backup_controller: Option<String>,
    backup_addr: Option<String>,
}

#[derive(Default)]
struct Builder {
    conf: SlurmConf,
    warnings: Vec<Warning>,
    node_defaults: Vec<Pair>,
    partition_defaults: Vec<Pair>,
    /// The explicit `Port` of each node in `conf.nodes`.
    node_ports: Vec<Option<u16>>,
    /// Raw `NodeSet` lines: (name, Nodes, Feature, origin).
    node_sets: Vec<(String, Option<Pair>, Option<String>, Origin)>,
    /// The first line of each top-level key, to warn about repeats.
    seen: BTreeMap<String, Origin>,
    /// Whether records are skipped ([`SlurmConf::load_settings`]).
    settings_only: bool,
    first_slurmctld_host: Option<Origin>,
    legacy: Legacy,
}

impl Builder {
    /// Parses `text`, the contents of `file`, reading `Include`d files
    /// through `loader`.
    fn read(
        mut self,
        text: &str,
        file: &Path,
        loader: &mut dyn FnMut(&Path) -> io::Result<String>,
    ) -> Result<Parsed<SlurmConf>, ConfError> {
        let loader: &mut Loader<'_> = loader;
        let skip = if self.settings_only { RECORD_KEYS } else { &[] };
        let lines = line::read_lines_skipping(text, file, loader, &mut self.warnings, skip)?;
        for line in &lines {
            self.on_line(line)?;
        }
        self.finish()
    }

    fn on_line(&mut self, line: &Line) -> Result<(), ConfError> {
        for (i, pair) in line.pairs.iter().enumerate() {
            if is_known(RECORD_KEYS, &pair.key) {
                if self.settings_only {
                    return Ok(());
                }
                return self.on_record(&line.pairs[i..], &line.origin);
            }
            self.on_key(pair, &line.origin)?;
        }
        Ok(())
    }

    fn on_record(&mut self, pairs: &[Pair], origin: &Origin) -> Result<(), ConfError> {
        let head = &pairs[0];
        if head.value.trim().is_empty() {
            return Err(ConfError::at(
                origin,
                ErrorKind::MissingName {
                    key: head.key.clone(),
                },
            ));
        }
        let is_default = head.value.eq_ignore_ascii_case("DEFAULT");
        if head.is("NodeName") {
            let rec = Record {
                pairs,
                defaults: &self.node_defaults,
                origin,
            };
            node::check_keys(&rec, &mut self.warnings);
            if is_default {
                for key in ["NodeHostname", "NodeAddr", "BcastAddr"] {
                    if let Some(p) = rec.own(key) {
                        return Err(ConfError::at(
                            origin,
                            ErrorKind::NotAllowed {
                                key: p.key.clone(),
                                context: "NodeName=DEFAULT".into(),
                            },
                        ));
                    }
                }
                self.node_defaults.extend_from_slice(&pairs[1..]);
            } else {
                for pending in node::build(&rec, &mut self.warnings)? {
                    self.conf.nodes.push(pending.node);
                    self.node_ports.push(pending.port);
                }
            }
        } else if head.is("PartitionName") {
            let rec = Record {
                pairs,
                defaults: &self.partition_defaults,
                origin,
            };
            partition::check_keys(&rec, &mut self.warnings);
            if is_default {
                self.partition_defaults.extend_from_slice(&pairs[1..]);
            } else {
                let part = partition::build(&rec, &mut self.warnings)?;
                self.conf.partitions.push(part);
            }
        } else if head.is("NodeSet") {
            let find = |key: &str| pairs.iter().skip(1).rev().find(|p| p.is(key));
            for p in pairs.iter().skip(1) {
                if !p.is("Nodes") && !p.is("Feature") {
                    self.warnings.push(Warning::at(
                        origin,
                        format!("unknown NodeSet key {}, ignored", p.key),
                    ));
                }
            }
            self.node_sets.push((
                head.value.clone(),
                find("Nodes").cloned(),
                find("Feature").map(|p| p.value.clone()),
                origin.clone(),
            ));
        } else {
            self.conf.other_records.push(RawRecord {
                key: head.key.clone(),
                pairs: pairs
                    .iter()
                    .map(|p| (p.key.clone(), p.value.clone()))
                    .collect(),
                origin: origin.clone(),
            });
        }
        Ok(())
    }

    fn on_key(&mut self, pair: &Pair, origin: &Origin) -> Result<(), ConfError> {
        let key = pair.key.to_ascii_lowercase();
        if !is_known(SLURM_CONF_KEYS, &key) {
            self.warnings.push(Warning::at(
                origin,
                format!("unknown key {}, ignored", pair.key),
            ));
            return Ok(());
        }
        if key != "slurmctldhost" {
            if let Some(first) = self.seen.get(&key) {
                let message = format!(
                    "{} specified more than once (first at {first}), latest value used",
                    pair.key
                );
                self.warnings.push(Warning::at(origin, message));
            } else {
                self.seen.insert(key.clone(), origin.clone());
            }
        }
        if !self.on_typed_key(&key, pair, origin)? {
            self.conf.other.insert(key, pair.value.clone());
        }
        Ok(())
    }

    /// Stores a key spur acts on; returns false for keys it keeps raw.
    fn on_typed_key(&mut self, key: &str, pair: &Pair, origin: &Origin) -> Result<bool, ConfError> {
        let invalid = || {
            ConfError::at(
                origin,
                ErrorKind::InvalidValue {
                    key: pair.key.clone(),
                    value: pair.value.clone(),
                },
            )
        };
        let count = |max: u64| match value::parse_count(&pair.value) {
            Some(Some(n)) if n <= max => Ok(n),
            _ => Err(invalid()),
        };
        let u32_of = |max: u64| count(max).map(|n| n as u32);
        let time_secs = || match value::parse_time_minutes(&pair.value) {
            Ok(Some(m)) => Ok(m * 60),
            _ => Err(invalid()),
        };
        let memory = || value::parse_memory_mb(&pair.value).map_err(|_| invalid());
        let v = pair.value.clone();
        let c = &mut self.conf;
        match key {
            "clustername" => c.cluster_name = Some(v.to_ascii_lowercase()),
            "slurmctldhost" => {
                self.first_slurmctld_host
                    .get_or_insert_with(|| origin.clone());
                c.slurmctld_hosts
                    .push(parse_slurmctld_host(&v).ok_or_else(invalid)?);
            }
            "controlmachine" => self.legacy.control_machine = Some((v, origin.clone())),
            "controladdr" => self.legacy.control_addr = Some(v),
            "backupcontroller" => self.legacy.backup_controller = Some(v),
            "backupaddr" => self.legacy.backup_addr = Some(v),
            "slurmctldport" => c.slurmctld_port = parse_port_range(&v).ok_or_else(invalid)?,
            "slurmdport" => {
                c.slurmd_port = u16::try_from(count(65_535)?)
                    .ok()
                    .filter(|&p| p > 0)
                    .ok_or_else(invalid)?;
            }
            "slurmuser" => c.slurm_user = v,
            "statesavelocation" => c.state_save_location = v,
            "slurmdspooldir" => c.slurmd_spool_dir = v,
            "slurmdtimeout" => c.slurmd_timeout_secs = u32_of(u16::MAX.into())?,
            "minjobage" => c.min_job_age_secs = u32_of(u32::MAX.into())?,
            "inactivelimit" => c.inactive_limit_secs = u32_of(u16::MAX.into())?,
            "killwait" => c.kill_wait_secs = u32_of(u16::MAX.into())?,
            "returntoservice" => {
                c.return_to_service = count(2)? as u8;
                return Ok(false);
            }
            "jobrequeue" => c.job_requeue = count(u16::MAX.into())? != 0,
            "authinfo" => {
                c.cred_expire_secs = cred_expire(&v, origin, &mut self.warnings);
                return Ok(false);
            }
            "privatedata" => {
                c.private_data = PrivateData::parse(&v);
                return Ok(false);
            }
            "maxarraysize" => c.max_array_size = u32_of(u32::MAX.into())?,
            "maxjobcount" => c.max_job_count = u32_of(u32::MAX.into())?,
            "firstjobid" => c.first_job_id = u32_of(u32::MAX.into())?,
            "grestypes" => c.gres_types = comma_list(&v),
            "topologyplugin" => c.topology_plugin = v,
            "topologyparam" => c.topology_param = comma_list(&v),
            "selecttype" => c.select_type = v,
            "selecttypeparameters" => c.select_type_parameters = comma_list(&v),
            "schedulertype" => c.scheduler_type = v,
            "schedulerparameters" => {
                let (params, problems) = SchedulerParameters::parse(&v);
                c.scheduler_parameters = params;
                for p in problems {
                    self.warnings.push(Warning::at(origin, p));
                }
            }
            "prioritytype" => c.priority.priority_type = v,
            "priorityweightage" => c.priority.weight_age = u32_of(u32::MAX.into())?,
            "priorityweightfairshare" => c.priority.weight_fairshare = u32_of(u32::MAX.into())?,
            "priorityweightjobsize" => c.priority.weight_job_size = u32_of(u32::MAX.into())?,
            "priorityweightpartition" => c.priority.weight_partition = u32_of(u32::MAX.into())?,
            "priorityweightqos" => c.priority.weight_qos = u32_of(u32::MAX.into())?,
            "prioritymaxage" => c.priority.max_age_secs = time_secs()?,
            "prioritydecayhalflife" => c.priority.decay_half_life_secs = time_secs()?,
            "priorityfavorsmall" => {
                c.priority.favor_small = value::parse_bool(&v).ok_or_else(invalid)?;
            }
            "preempttype" => c.preempt_type = v,
            "preemptmode" => c.preempt_mode = PreemptMode::parse(&v).ok_or_else(invalid)?,
            "defmempercpu" => c.def_mem_per_cpu_mb = Some(memory()?),
            "defmempergpu" => c.def_mem_per_gpu_mb = Some(memory()?),
            "maxmempercpu" => {
                c.max_mem_per_cpu_mb = match value::parse_count(&v) {
                    Some(None) => None,
                    _ => Some(memory()?),
                };
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn finish(mut self) -> Result<Parsed<SlurmConf>, ConfError> {
        self.apply_legacy_hosts()?;
        let slurmd_port = self.conf.slurmd_port;
        for (node, port) in self.conf.nodes.iter_mut().zip(&self.node_ports) {
            node.port = port.unwrap_or(slurmd_port);
        }
        let mut errors = Vec::new();
        let index = node_index(&self.conf.nodes, &mut errors);
        self.conf.node_sets =
            resolve_node_sets(&self.node_sets, &self.conf.nodes, &index, &mut errors);
        resolve_partitions(&mut self.conf, &index, &mut errors);
        let defaults: Vec<&PartitionConf> =
            self.conf.partitions.iter().filter(|p| p.default).collect();
        if let [.., last] = defaults.as_slice() {
            if defaults.len() > 1 {
                let message = format!(
                    "more than one partition has Default=YES; {} is the default",
                    last.name
                );
                self.warnings.push(Warning::at(&last.origin, message));
            }
        }
        ConfError::from_list(errors)?;
        Ok(Parsed {
            value: self.conf,
            warnings: self.warnings,
        })
    }

    fn apply_legacy_hosts(&mut self) -> Result<(), ConfError> {
        let legacy = std::mem::take(&mut self.legacy);
        let Some((machine, origin)) = legacy.control_machine else {
            return Ok(());
        };
        if !self.conf.slurmctld_hosts.is_empty() {
            return Err(ConfError::at(
                &origin,
                ErrorKind::Conflict {
                    first: "SlurmctldHost".into(),
                    second: "ControlMachine".into(),
                },
            ));
        }
        self.conf.slurmctld_hosts.push(SlurmctldHost {
            name: machine,
            addr: legacy.control_addr,
        });
        if let Some(backup) = legacy.backup_controller {
            self.conf.slurmctld_hosts.push(SlurmctldHost {
                name: backup,
                addr: legacy.backup_addr,
            });
        }
        Ok(())
    }
}

/// `name` or `name(addr)`.
/// `cred_expire=N` of AuthInfo as slurm_cred.c reads it (the key in any
/// case, the number with atoi): at least 5; less warns and keeps the
/// default (120).
fn cred_expire(auth_info: &str, origin: &Origin, warnings: &mut Vec<Warning>) -> u32 {
    const DEFAULT: u32 = 120;
    const KEY: &str = "cred_expire=";
    let Some(at) = auth_info.to_ascii_lowercase().find(KEY) else {
        return DEFAULT;
    };
    let n = crate::number::strtol_or_zero(&auth_info[at + KEY.len()..]).0;
    match u32::try_from(n) {
        Ok(n) if n >= 5 => n,
        _ => {
            let message = format!("AuthInfo=cred_expire={n} invalid; 120 applies");
            warnings.push(Warning::at(origin, message));
            DEFAULT
        }
    }
}

fn parse_slurmctld_host(value: &str) -> Option<SlurmctldHost> {
    let (name, addr) = match value.split_once('(') {
        Some((name, rest)) => (name, Some(rest.strip_suffix(')')?.to_string())),
        None => (value, None),
    };
    let ok = !name.is_empty() && !name.contains(')') && addr.as_ref().is_none_or(|a| !a.is_empty());
    ok.then(|| SlurmctldHost {
        name: name.to_string(),
        addr,
    })
}

/// `6817` or `6817-6818` (the second port must be larger).
fn parse_port_range(value: &str) -> Option<PortRange> {
    let port = |s: &str| s.parse::<u16>().ok().filter(|&p| p > 0);
    match value.split_once('-') {
        Some((a, b)) => {
            let (first, last) = (port(a)?, port(b)?);
            (last > first).then_some(PortRange { first, last })
        }
        None => port(value).map(|p| PortRange { first: p, last: p }),
    }
}

/// Node name -> index of its first definition; reports redefinitions.
fn node_index(nodes: &[NodeConf], errors: &mut Vec<ConfError>) -> BTreeMap<String, usize> {
    let mut index = BTreeMap::new();
    for (i, node) in nodes.iter().enumerate() {
        if let Some(&first) = index.get(node.name.as_str()) {
            let first: &NodeConf = &nodes[first];
            errors.push(ConfError::at(
                &node.origin,
                ErrorKind::DuplicateNode {
                    node: node.name.clone(),
                    first: first.origin.clone(),
                },
            ));
        } else {
            index.insert(node.name.clone(), i);
        }
    }
    index
}

type RawNodeSet = (String, Option<Pair>, Option<String>, Origin);

fn resolve_node_sets(
    raw: &[RawNodeSet],
    nodes: &[NodeConf],
    index: &BTreeMap<String, usize>,
    errors: &mut Vec<ConfError>,
) -> Vec<NodeSetConf> {
    let mut out: Vec<NodeSetConf> = Vec::new();
    for (name, nodes_pair, feature, origin) in raw {
        if let Some(first) = out.iter().find(|s| &s.name == name) {
            errors.push(ConfError::at(
                origin,
                ErrorKind::DuplicateName {
                    what: "node set",
                    name: name.clone(),
                    first: first.origin.clone(),
                },
            ));
            continue;
        }
        let mut members = Vec::new();
        if let Some(pair) = nodes_pair {
            match expand_at(pair, origin) {
                Ok(names) => {
                    for n in names {
                        match index.get(&n) {
                            Some(&i) => members.push(i),
                            None => errors.push(unknown_node("node set", name, &n, origin)),
                        }
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        if let Some(f) = feature {
            members.extend(
                nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.features.iter().any(|x| x == f))
                    .map(|(i, _)| i),
            );
        }
        out.push(NodeSetConf {
            name: name.clone(),
            nodes: in_table_order(members, nodes),
            feature: feature.clone(),
            origin: origin.clone(),
        });
    }
    out
}

fn resolve_partitions(
    conf: &mut SlurmConf,
    index: &BTreeMap<String, usize>,
    errors: &mut Vec<ConfError>,
) {
    let mut resolved = Vec::with_capacity(conf.partitions.len());
    for (pi, part) in conf.partitions.iter().enumerate() {
        if let Some(first) = conf.partitions[..pi].iter().find(|p| p.name == part.name) {
            errors.push(ConfError::at(
                &part.origin,
                ErrorKind::DuplicateName {
                    what: "partition",
                    name: part.name.clone(),
                    first: first.origin.clone(),
                },
            ));
        }
        let mut members = Vec::new();
        if let Some(expr) = part.nodes_expr.as_deref().filter(|e| !e.trim().is_empty()) {
            let pair = Pair {
                key: "Nodes".into(),
                value: expr.to_string(),
            };
            match expand_at(&pair, &part.origin) {
                Ok(names) => {
                    for n in names {
                        if n.eq_ignore_ascii_case("ALL") {
                            members.extend(0..conf.nodes.len());
                        } else if let Some(set) = conf.node_sets.iter().find(|s| s.name == n) {
                            members.extend(set.nodes.iter().filter_map(|m| index.get(m)));
                        } else if let Some(&i) = index.get(&n) {
                            members.push(i);
                        } else {
                            errors.push(unknown_node("partition", &part.name, &n, &part.origin));
                        }
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        resolved.push(in_table_order(members, &conf.nodes));
    }
    for (part, nodes) in conf.partitions.iter_mut().zip(resolved) {
        part.nodes = nodes;
    }
}

fn expand_at(pair: &Pair, origin: &Origin) -> Result<Vec<String>, ConfError> {
    hostlist::expand(&pair.value).map_err(|error| {
        ConfError::at(
            origin,
            ErrorKind::InvalidHostlist {
                key: pair.key.clone(),
                error,
            },
        )
    })
}

fn unknown_node(what: &'static str, name: &str, node: &str, origin: &Origin) -> ConfError {
    ConfError::at(
        origin,
        ErrorKind::UnknownNode {
            what,
            name: name.to_string(),
            node: node.to_string(),
        },
    )
}

/// Node indexes -> names in node-table order, each once (Slurm keeps
/// partition nodes as a bitmap over the node table).
fn in_table_order(mut members: Vec<usize>, nodes: &[NodeConf]) -> Vec<String> {
    members.sort_unstable();
    members.dedup();
    members.into_iter().map(|i| nodes[i].name.clone()).collect()
}
