//! `NodeName` lines: one [`NodeConf`] per node of the line's hostlist, with
//! `NodeName=DEFAULT` values inherited, per-node NodeAddr/NodeHostname/Port
//! matched by position, and the CPU/socket arithmetic of Slurm's
//! `_parse_nodename` (including its resets, reported as warnings).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::keys::{is_known, untyped, NODE_KEYS};
use super::record::{comma_list, Record};
use crate::error::{ConfError, ErrorKind, Origin, Warning};
use crate::hostlist;
use crate::value;

/// One node as slurm.conf defines it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeConf {
    /// `NodeName`: the name Slurm knows the node by.
    pub name: String,
    /// `NodeHostname` (defaults to the name).
    pub hostname: String,
    /// `NodeAddr` (defaults to the hostname).
    pub addr: String,
    /// `Port` of its slurmd (defaults to `SlurmdPort`).
    pub port: u16,
    /// `CPUs` (defaults to Sockets x CoresPerSocket x ThreadsPerCore).
    pub cpus: u32,
    /// `Boards`.
    pub boards: u32,
    /// Total sockets (`Sockets`, or Boards x `SocketsPerBoard`).
    pub sockets: u32,
    /// `CoresPerSocket`.
    pub cores_per_socket: u32,
    /// `ThreadsPerCore`.
    pub threads_per_core: u32,
    /// `RealMemory` in MB (default 1).
    pub real_memory_mb: u64,
    /// `TmpDisk` in MB.
    pub tmp_disk_mb: u64,
    /// `Gres`.
    pub gres: Vec<GresSpec>,
    /// `Features` / `Feature`.
    pub features: Vec<String>,
    /// `Weight` (default 1).
    pub weight: u32,
    /// `State` (default UNKNOWN).
    pub state: NodeConfState,
    /// `Reason`.
    pub reason: Option<String>,
    /// Other NodeName keys spur keeps raw, by lowercased key.
    pub other: BTreeMap<String, String>,
    /// The line that defined the node.
    pub origin: Origin,
}

impl NodeConf {
    /// The count of GRES `name` (any type), e.g. `gpus = node.gres_count("gpu")`.
    pub fn gres_count(&self, name: &str) -> u64 {
        self.gres
            .iter()
            .filter(|g| g.name.eq_ignore_ascii_case(name))
            .map(|g| g.count)
            .sum()
    }

    /// A path setting of this node's slurmd (`SlurmdSpoolDir`,
    /// `SlurmdPidFile`, `SlurmdLogFile`) with `%n` replaced by the
    /// NodeName and `%h` by the NodeHostname, as Slurm expands them: several
    /// slurmd on one host each get their own file.
    pub fn slurmd_path(&self, template: &str) -> String {
        template
            .replace("%n", &self.name)
            .replace("%h", &self.hostname)
    }
}

/// One entry of a node's `Gres=` list: `name[:type][:count][(S:sockets)]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresSpec {
    /// `gpu`, `mps`, `shard`, `nic`, ...
    pub name: String,
    /// The type (model), e.g. `h100`.
    pub type_name: Option<String>,
    /// How many (K/M/G/T/P suffixes multiply by 1024).
    pub count: u64,
    /// The `no_consume` flag.
    pub no_consume: bool,
    /// The socket binding, e.g. `S:0-1`.
    pub sockets: Option<String>,
}

impl GresSpec {
    /// Parses one entry such as `gpu:h100:4(S:0-1)`.
    pub fn parse(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        let (body, sockets) = match entry.split_once('(') {
            Some((body, rest)) => (body, Some(rest.strip_suffix(')')?.to_string())),
            None => (entry, None),
        };
        let mut parts: Vec<&str> = body.split(':').collect();
        let name = parts.remove(0);
        if name.is_empty() || name.contains(char::is_whitespace) {
            return None;
        }
        let no_consume = parts
            .iter()
            .position(|p| p.eq_ignore_ascii_case("no_consume"))
            .map(|i| parts.remove(i))
            .is_some();
        let count = match parts.last().and_then(|p| value::parse_suffixed_count(p)) {
            Some(n) => {
                parts.pop();
                n
            }
            None => 1,
        };
        let type_name = match parts.as_slice() {
            [] => None,
            [t] if !t.is_empty() => Some(t.to_string()),
            _ => return None,
        };
        Some(Self {
            name: name.to_string(),
            type_name,
            count,
            no_consume,
            sockets,
        })
    }

    /// Parses a `Gres=` list; commas inside parentheses do not split.
    pub fn parse_list(value: &str) -> Option<Vec<Self>> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (i, c) in value.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    out.push(&value[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(&value[start..]);
        out.into_iter()
            .filter(|e| !e.trim().is_empty() && !e.trim().eq_ignore_ascii_case("(null)"))
            .map(Self::parse)
            .collect()
    }
}

/// The `State=` of a `NodeName` line (Slurm's `state_str2int`).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum NodeConfState {
    /// `UNKNOWN` (the default): the node's slurmd decides.
    #[default]
    Unknown,
    /// `DOWN`.
    Down,
    /// `IDLE`.
    Idle,
    /// `ALLOCATED`.
    Allocated,
    /// `ERROR`.
    Error,
    /// `MIXED`.
    Mixed,
    /// `FUTURE`: defined but not yet in service.
    Future,
    /// `CLOUD...`: powered down, brought up on demand.
    Cloud,
    /// `EXTERNAL...`.
    External,
    /// `DRAIN...`: no new jobs.
    Drain,
    /// `FAIL...`.
    Fail,
}

impl NodeConfState {
    /// Parses a state word; the last four match by prefix, as in Slurm.
    pub fn parse(value: &str) -> Option<Self> {
        let is = |w: &str| value.eq_ignore_ascii_case(w);
        let starts = |w: &str| {
            value
                .get(..w.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(w))
        };
        Some(if is("UNKNOWN") {
            Self::Unknown
        } else if is("DOWN") {
            Self::Down
        } else if is("IDLE") {
            Self::Idle
        } else if is("ALLOCATED") {
            Self::Allocated
        } else if is("ERROR") {
            Self::Error
        } else if is("MIXED") {
            Self::Mixed
        } else if is("FUTURE") {
            Self::Future
        } else if starts("CLOUD") {
            Self::Cloud
        } else if starts("EXTERNAL") {
            Self::External
        } else if starts("DRAIN") {
            Self::Drain
        } else if starts("FAIL") {
            Self::Fail
        } else {
            return None;
        })
    }
}

/// Keys that [`NodeConf`] holds typed; other known keys go to `other`.
const TYPED: &[&str] = &[
    "NodeName",
    "NodeAddr",
    "NodeHostname",
    "Port",
    "CPUs",
    "Procs",
    "Boards",
    "Sockets",
    "SocketsPerBoard",
    "CoresPerSocket",
    "ThreadsPerCore",
    "RealMemory",
    "TmpDisk",
    "Gres",
    "Feature",
    "Features",
    "Weight",
    "State",
    "Reason",
];

/// A node built from a line; `port` is `None` until `SlurmdPort` is known.
pub(crate) struct PendingNode {
    pub node: NodeConf,
    pub port: Option<u16>,
}

/// Warns about keys a `NodeName` line should not hold.
pub(crate) fn check_keys(rec: &Record<'_>, warnings: &mut Vec<Warning>) {
    for p in rec.pairs.iter().skip(1) {
        if !is_known(NODE_KEYS, &p.key) {
            warnings.push(Warning::at(
                rec.origin,
                format!("unknown NodeName key {}, ignored", p.key),
            ));
        }
    }
}

/// Builds the nodes of one `NodeName` line (not `DEFAULT`).
pub(crate) fn build(
    rec: &Record<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<PendingNode>, ConfError> {
    let name_pair = &rec.pairs[0];
    let names = rec.hostlist(name_pair)?;
    if let Some(all) = names.iter().find(|n| n.eq_ignore_ascii_case("ALL")) {
        return Err(ConfError::at(
            rec.origin,
            ErrorKind::ReservedName {
                key: name_pair.key.clone(),
                name: all.clone(),
            },
        ));
    }
    let hostnames = match rec.own("NodeHostname") {
        Some(p) => rec.hostlist(p)?,
        None => names.clone(),
    };
    let addrs = match rec.own("NodeAddr") {
        Some(p) => rec.hostlist(p)?,
        None => hostnames.clone(),
    };
    let ports = ports(rec)?;
    for (key, count, allow_none) in [
        ("NodeHostname", hostnames.len(), false),
        ("NodeAddr", addrs.len(), false),
        ("Port", ports.len(), true),
    ] {
        let ok = count == names.len() || count == 1 || (allow_none && count == 0);
        if !ok {
            return Err(ConfError::at(
                rec.origin,
                ErrorKind::CountMismatch {
                    key: key.into(),
                    count,
                    nodes: names.len(),
                },
            ));
        }
    }
    let template = template(rec, warnings)?;
    let pick = |list: &[String], i: usize| list.get(i).or(list.last()).cloned();
    Ok(names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut node = template.clone();
            node.name = name.clone();
            node.hostname = pick(&hostnames, i).unwrap_or_else(|| name.clone());
            node.addr = pick(&addrs, i).unwrap_or_else(|| node.hostname.clone());
            PendingNode {
                node,
                port: ports.get(i).or(ports.last()).copied(),
            }
        })
        .collect())
}

/// `Port=17001-17018` (brackets optional), matched to nodes by position.
fn ports(rec: &Record<'_>) -> Result<Vec<u16>, ConfError> {
    let Some(pair) = rec.get("Port") else {
        return Ok(Vec::new());
    };
    let v = pair.value.as_str();
    let expr = if !v.starts_with('[') && (v.contains('-') || v.contains(',')) {
        format!("[{v}]")
    } else {
        v.to_string()
    };
    hostlist::expand(&expr)
        .map_err(|_| rec.invalid(pair))?
        .iter()
        .map(|p| match p.parse::<u16>() {
            Ok(port) if port > 0 => Ok(port),
            _ => Err(rec.invalid(pair)),
        })
        .collect()
}

/// Everything but the per-node names, shared by all nodes of the line.
fn template(rec: &Record<'_>, warnings: &mut Vec<Warning>) -> Result<NodeConf, ConfError> {
    const U16: u64 = u16::MAX as u64;
    let cpus = match rec.get("CPUs") {
        Some(p) => Some(rec.count_of(p, U16)?),
        None => rec.count("Procs", U16)?,
    };
    let topo = Topology {
        boards: rec.count("Boards", U16)?.unwrap_or(1),
        sockets: rec.count("Sockets", U16)?,
        sockets_per_board: rec.count("SocketsPerBoard", U16)?,
        cores: rec.count("CoresPerSocket", U16)?.unwrap_or(1),
        threads: rec.count("ThreadsPerCore", U16)?.unwrap_or(1),
        cpus,
    }
    .resolve(&mut |msg| {
        warnings.push(Warning::at(
            rec.origin,
            format!("NodeName={}: {msg}", rec.name()),
        ))
    });
    let memory = |key: &str| -> Result<Option<u64>, ConfError> {
        rec.get(key)
            .map(|p| value::parse_memory_mb(&p.value).map_err(|_| rec.invalid(p)))
            .transpose()
    };
    let gres = match rec.get("Gres") {
        Some(p) => GresSpec::parse_list(&p.value).ok_or_else(|| rec.invalid(p))?,
        None => Vec::new(),
    };
    let features = rec
        .own("Feature")
        .or_else(|| rec.own("Features"))
        .or_else(|| rec.get("Feature"))
        .or_else(|| rec.get("Features"))
        .map(|p| comma_list(&p.value))
        .unwrap_or_default();
    let weight = match rec.get("Weight") {
        // Slurm keeps INFINITE weights one below INFINITE.
        Some(p) => match value::parse_count(&p.value) {
            Some(Some(n)) if n < u64::from(u32::MAX) => n as u32,
            Some(_) => u32::MAX - 1,
            None => return Err(rec.invalid(p)),
        },
        None => 1,
    };
    let state = match rec.get("State") {
        Some(p) => NodeConfState::parse(&p.value).ok_or_else(|| rec.invalid(p))?,
        None => NodeConfState::Unknown,
    };
    let mut other = BTreeMap::new();
    static UNTYPED: std::sync::OnceLock<Vec<&str>> = std::sync::OnceLock::new();
    for key in untyped(&UNTYPED, NODE_KEYS, TYPED) {
        if let Some(p) = rec.get(key) {
            other.insert(key.to_ascii_lowercase(), p.value.clone());
        }
    }
    Ok(NodeConf {
        name: String::new(),
        hostname: String::new(),
        addr: String::new(),
        port: 0,
        cpus: topo.cpus,
        boards: topo.boards,
        sockets: topo.sockets,
        cores_per_socket: topo.cores,
        threads_per_core: topo.threads,
        real_memory_mb: memory("RealMemory")?.unwrap_or(1),
        tmp_disk_mb: memory("TmpDisk")?.unwrap_or(0),
        gres,
        features,
        weight,
        state,
        reason: rec.get("Reason").map(|p| p.value.clone()),
        other,
        origin: rec.origin.clone(),
    })
}

/// The socket/core/thread counts as written, before Slurm's defaults.
struct Topology {
    boards: u64,
    sockets: Option<u64>,
    sockets_per_board: Option<u64>,
    cores: u64,
    threads: u64,
    cpus: Option<u64>,
}

/// The counts after Slurm's defaults and resets.
struct Resolved {
    boards: u32,
    sockets: u32,
    cores: u32,
    threads: u32,
    cpus: u32,
}

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Topology {
    /// Slurm's `_parse_nodename` arithmetic; `warn` gets each reset.
    fn resolve(mut self, warn: &mut dyn FnMut(String)) -> Resolved {
        let mut nonzero = |value: &mut u64, key: &str| {
            if *value == 0 {
                warn(format!("{key}=0 is invalid, reset to 1"));
                *value = 1;
            }
        };
        nonzero(&mut self.cores, "CoresPerSocket");
        if let Some(c) = self.cpus.as_mut() {
            nonzero(c, "CPUs");
        }
        nonzero(&mut self.threads, "ThreadsPerCore");
        if let Some(s) = self.sockets_per_board.as_mut() {
            nonzero(s, "SocketsPerBoard");
        }
        if let Some(s) = self.sockets.as_mut() {
            nonzero(s, "Sockets");
        }
        nonzero(&mut self.boards, "Boards");
        if self.sockets.is_some() && self.sockets_per_board.is_some() {
            warn("Sockets=# and SocketsPerBoard=# is invalid, using SocketsPerBoard".into());
            self.sockets = None;
        }
        let per_socket = self.cores * self.threads;
        let sockets = match (self.sockets, self.sockets_per_board, self.cpus) {
            (Some(s), _, _) => s,
            (None, Some(spb), _) => self.boards * spb,
            (None, None, Some(c)) if c / per_socket > 0 && c % per_socket == 0 => c / per_socket,
            (None, None, _) => self.boards,
        };
        let full = sockets * per_socket;
        let mut cpus = self.cpus.unwrap_or(full);
        if sockets < self.boards {
            warn(format!(
                "Sockets({sockets}) < Boards({}), resetting Boards=1",
                self.boards
            ));
            self.boards = 1;
        }
        if cpus != sockets && cpus != sockets * self.cores && cpus != full {
            warn(format!(
                "CPUs={cpus} match no Sockets, Sockets*CoresPerSocket or Sockets*CoresPerSocket*ThreadsPerCore, reset to {full}"
            ));
            cpus = full;
        }
        Resolved {
            boards: clamp(self.boards),
            sockets: clamp(sockets),
            cores: clamp(self.cores),
            threads: clamp(self.threads),
            cpus: clamp(cpus),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gres_entries() {
        let g = GresSpec::parse("gpu:4").unwrap();
        assert_eq!((g.name.as_str(), g.type_name, g.count), ("gpu", None, 4));
        let g = GresSpec::parse("gpu:h100:4(S:0-1)").unwrap();
        assert_eq!(g.type_name.as_deref(), Some("h100"));
        assert_eq!(g.count, 4);
        assert_eq!(g.sockets.as_deref(), Some("S:0-1"));
        let g = GresSpec::parse("gpu:a100").unwrap();
        assert_eq!((g.type_name.as_deref(), g.count), (Some("a100"), 1));
        let g = GresSpec::parse("bandwidth:lustre:no_consume:4G").unwrap();
        assert!(g.no_consume);
        assert_eq!(g.count, 4 << 30);
        assert_eq!(GresSpec::parse("gpu").unwrap().count, 1);
        assert!(GresSpec::parse(":4").is_none());
        assert!(GresSpec::parse("gpu:a:b:4").is_none());
        let list = GresSpec::parse_list("gpu:h100:4(S:0,1),nic:2").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].sockets.as_deref(), Some("S:0,1"));
    }

    #[test]
    fn node_states() {
        assert_eq!(NodeConfState::parse("idle"), Some(NodeConfState::Idle));
        assert_eq!(NodeConfState::parse("FUTURE"), Some(NodeConfState::Future));
        assert_eq!(NodeConfState::parse("CLOUD"), Some(NodeConfState::Cloud));
        assert_eq!(NodeConfState::parse("DRAINED"), Some(NodeConfState::Drain));
        assert_eq!(NodeConfState::parse("sleepy"), None);
    }

    fn resolve(t: Topology) -> (Resolved, Vec<String>) {
        let mut warnings = Vec::new();
        let r = t.resolve(&mut |m| warnings.push(m));
        (r, warnings)
    }

    fn topo(
        boards: u64,
        sockets: Option<u64>,
        spb: Option<u64>,
        cores: u64,
        threads: u64,
        cpus: Option<u64>,
    ) -> Topology {
        Topology {
            boards,
            sockets,
            sockets_per_board: spb,
            cores,
            threads,
            cpus,
        }
    }

    #[test]
    fn cpus_default_to_sockets_cores_threads() {
        let (r, w) = resolve(topo(1, None, Some(2), 72, 1, None));
        assert_eq!((r.sockets, r.cpus), (2, 144));
        assert!(w.is_empty());
        let (r, _) = resolve(topo(2, None, Some(2), 8, 2, None));
        assert_eq!((r.sockets, r.cpus), (4, 64));
    }

    #[test]
    fn sockets_are_inferred_from_cpus() {
        let (r, w) = resolve(topo(1, None, None, 4, 2, Some(16)));
        assert_eq!((r.sockets, r.cpus), (2, 16));
        assert!(w.is_empty());
        // Bare CPUs=N: one socket, one core, one thread -> N sockets.
        let (r, _) = resolve(topo(1, None, None, 1, 1, Some(8)));
        assert_eq!((r.sockets, r.cpus), (8, 8));
    }

    #[test]
    fn inconsistent_cpus_are_reset_with_a_warning() {
        let (r, w) = resolve(topo(1, Some(2), None, 4, 1, Some(7)));
        assert_eq!(r.cpus, 8);
        assert_eq!(w.len(), 1);
        let (r, w) = resolve(topo(1, Some(2), None, 0, 1, None));
        assert_eq!(r.cores, 1);
        assert_eq!(w, ["CoresPerSocket=0 is invalid, reset to 1"]);
    }
}
