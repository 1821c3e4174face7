//! A `job_desc_msg` of the data_parser versions read into the fields of
//! Slurm's `job_desc_msg_t` ([`JobDescFields`]), from which spur-options
//! builds the same `JobDesc` the commands build. As slurmrestd's parser
//! does, a field of the wrong type is an error naming it, and an unknown
//! field is a warning ("Ignoring unknown field"); a field spur knows but
//! does not act on is a warning too, never dropped in silence.

use serde_json::Value;

use spur_options::fields::{
    JobDescFields, JOB_SHARED_MCS, JOB_SHARED_NONE, JOB_SHARED_OK, JOB_SHARED_TOPO,
    JOB_SHARED_USER, KILL_INV_DEP, KILL_JOB_BATCH, KILL_JOB_RESV, MEM_PER_CPU, NO_KILL_INV_DEP,
    OPEN_MODE_APPEND, OPEN_MODE_TRUNCATE,
};

use super::value::{self, kind, NoVal};
use crate::reply::{Version, Warning};

/// A field of the wrong type, with its path (`job/time_limit`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {why}")]
pub struct FieldError {
    /// Where the field is.
    pub path: String,
    /// What is wrong with it.
    pub why: String,
}

/// Fields of the schema spur stores without acting on: the option each
/// stands for (recorded as sbatch records them), or None for fields no
/// option gives.
const NOT_ACTED: &[(&str, Option<&str>)] = &[
    ("account_gather_frequency", Some("acctg-freq")),
    ("admin_comment", None),
    ("allocation_node_list", None),
    ("allocation_node_port", None),
    ("batch_features", Some("batch")),
    ("burst_buffer", Some("bb")),
    ("cluster_constraint", Some("cluster-constraint")),
    ("contiguous", Some("contiguous")),
    ("container", Some("container")),
    ("container_id", Some("container-id")),
    ("container_type", None),
    ("core_specification", Some("core-spec")),
    ("thread_specification", Some("thread-spec")),
    ("cpu_binding", Some("cpu-bind")),
    ("cpu_binding_flags", None),
    ("cpu_frequency", Some("cpu-freq")),
    ("crontab", None),
    ("delay_boot", Some("delay-boot")),
    ("end_time", None),
    ("rlimits", None),
    ("extra", None),
    ("hetjob_group", None),
    ("immediate", Some("immediate")),
    ("job_id", None),
    ("kill_on_node_fail", Some("no-kill")),
    ("licenses", Some("licenses")),
    ("mail_type", Some("mail-type")),
    ("mail_user", Some("mail-user")),
    ("mcs_label", Some("mcs-label")),
    ("memory_binding", Some("mem-bind")),
    ("memory_binding_type", None),
    ("memory_update_delay", None),
    ("memory_update_margin", None),
    ("network", Some("network")),
    ("oom_kill_step", None),
    ("reserve_ports", Some("resv-ports")),
    ("resv_mpi_ports", Some("resv-ports")),
    ("overcommit", Some("overcommit")),
    ("distribution_plane_size", None),
    ("power_flags", Some("power")),
    ("prefer", Some("prefer")),
    ("profile", Some("profile")),
    ("reboot", Some("reboot")),
    ("reservation", Some("reservation")),
    ("site_factor", None),
    ("spank_environment", None),
    ("step_id", None),
    ("distribution", Some("distribution")),
    ("tres_bind", Some("tres-bind")),
    ("tres_freq", None),
    ("tres_per_socket", Some("gpus-per-socket")),
    ("wait_all_nodes", Some("wait-all-nodes")),
    ("minimum_cpus", None),
    ("maximum_cpus", None),
    ("minimum_boards_per_node", None),
    ("minimum_sockets_per_board", None),
    ("sockets_per_node", Some("sockets-per-node")),
    ("cores_per_socket", Some("cores-per-socket")),
    ("threads_per_core", Some("threads-per-core")),
    ("tasks_per_socket", Some("ntasks-per-socket")),
    ("tasks_per_core", Some("ntasks-per-core")),
    ("tasks_per_board", None),
    ("ntasks_per_tres", Some("ntasks-per-gpu")),
    ("minimum_cpus_per_node", Some("mincpus")),
    ("temporary_disk_per_node", Some("tmp")),
    ("selinux_context", None),
    ("wckey", Some("wckey")),
    ("x11", None),
    ("x11_magic_cookie", None),
    ("x11_target_host", None),
    ("x11_target_port", None),
];

/// How the reader takes a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// A string (a number or boolean is taken as its text).
    Text,
    /// A list of strings, or one comma-separated string.
    List,
    /// A boolean (or `true`/`false`/`yes`/`no`/`1`/`0`).
    Flag,
    /// A number, plain or as a NO_VAL wrapper (`set`/`infinite`/`number`).
    Number,
    /// Anything: the field is recorded or warned about, never read.
    Any,
}

/// Every field the reader acts on, with what it accepts; the fields it
/// stores without acting on are [`NOT_ACTED`]. spur's OpenAPI document
/// describes `job_desc_msg` from these two tables.
pub const ACTED: &[(&str, Accepts)] = &[
    ("account", Accepts::Text),
    ("argv", Accepts::List),
    ("array", Accepts::Text),
    ("begin_time", Accepts::Number),
    ("flags", Accepts::List),
    ("clusters", Accepts::Text),
    ("comment", Accepts::Text),
    ("constraints", Accepts::Text),
    ("cpus_per_task", Accepts::Number),
    ("cpus_per_tres", Accepts::Text),
    ("current_working_directory", Accepts::Text),
    ("deadline", Accepts::Number),
    ("dependency", Accepts::Text),
    ("environment", Accepts::List),
    ("excluded_nodes", Accepts::List),
    ("group_id", Accepts::Any),
    ("hold", Accepts::Flag),
    ("kill_warning_delay", Accepts::Number),
    ("kill_warning_flags", Accepts::List),
    ("kill_warning_signal", Accepts::Text),
    ("maximum_nodes", Accepts::Number),
    ("memory_per_cpu", Accepts::Number),
    ("memory_per_node", Accepts::Number),
    ("memory_per_tres", Accepts::Text),
    ("minimum_nodes", Accepts::Number),
    ("name", Accepts::Text),
    ("nice", Accepts::Number),
    ("nodes", Accepts::Text),
    ("open_mode", Accepts::List),
    ("partition", Accepts::Text),
    ("priority", Accepts::Number),
    ("qos", Accepts::Text),
    ("requeue", Accepts::Flag),
    ("required_nodes", Accepts::List),
    ("required_switches", Accepts::Number),
    ("script", Accepts::Text),
    ("segment_size", Accepts::Number),
    ("shared", Accepts::List),
    ("standard_error", Accepts::Text),
    ("standard_input", Accepts::Text),
    ("standard_output", Accepts::Text),
    ("tasks", Accepts::Number),
    ("tasks_per_node", Accepts::Number),
    ("time_limit", Accepts::Number),
    ("time_minimum", Accepts::Number),
    ("tres_per_job", Accepts::Text),
    ("tres_per_node", Accepts::Text),
    ("tres_per_task", Accepts::Text),
    ("user_id", Accepts::Any),
    ("wait_for_switch", Accepts::Number),
];

/// v0.0.41's fields, read in every version but described in its only.
pub const V0041_ONLY: &[(&str, Accepts)] = &[
    ("exclusive", Accepts::List),
    ("oversubscribe", Accepts::Flag),
];

/// Which versions describe a field.
type Describes = fn(Version) -> bool;

/// Fields some versions' `job_desc_msg` lacks (read in every version),
/// with the versions that describe them.
const SOME_VERSIONS: &[(&str, Describes)] = &[
    ("resv_mpi_ports", |v| v <= Version::V0043),
    ("power_flags", |v| v <= Version::V0044),
    ("cores_per_socket", |v| v != Version::V0044),
    ("container_type", |v| v >= Version::V0045),
    ("memory_update_delay", |v| v >= Version::V0045),
    ("memory_update_margin", |v| v >= Version::V0045),
];

/// Every field the reader knows, in `v`'s description of
/// `job_desc_msg`.
pub fn known(v: Version) -> impl Iterator<Item = (&'static str, Accepts)> {
    let old = if v == Version::V0041 { V0041_ONLY } else { &[] };
    let described = move |(k, _): &(&str, Accepts)| {
        SOME_VERSIONS
            .iter()
            .find(|(name, _)| name == k)
            .is_none_or(|(_, has)| has(v))
    };
    ACTED
        .iter()
        .chain(old)
        .copied()
        .chain(NOT_ACTED.iter().map(|(k, _)| (*k, Accepts::Any)))
        .filter(described)
}

/// What a job description gave.
#[derive(Debug, Default)]
pub struct Read {
    /// The fields.
    pub fields: JobDescFields,
    /// Warnings for the answer.
    pub warnings: Vec<Warning>,
    /// The fields no version of the schema has (each warned about).
    pub unknown: Vec<String>,
}

struct Reader<'a> {
    path: &'a str,
    warnings: Vec<Warning>,
    unknown: Vec<String>,
    /// `hold`: the job is submitted held, whatever `priority` says.
    hold: bool,
}

impl Reader<'_> {
    fn bad(&self, key: &str, why: impl Into<String>) -> FieldError {
        FieldError {
            path: format!("{}/{key}", self.path),
            why: why.into(),
        }
    }

    fn text(&self, key: &str, v: &Value) -> Result<String, FieldError> {
        match v {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(self.bad(key, format!("expected a string but got {}", kind(other)))),
        }
    }

    fn list(&self, key: &str, v: &Value) -> Result<Vec<String>, FieldError> {
        match v {
            Value::Array(items) => items.iter().map(|i| self.text(key, i)).collect(),
            // A comma list given as one string.
            Value::String(s) => Ok(s
                .split(',')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect()),
            other => Err(self.bad(key, format!("expected a list but got {}", kind(other)))),
        }
    }

    fn flag(&self, key: &str, v: &Value) -> Result<bool, FieldError> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Number(n) => Ok(n.as_f64().is_some_and(|f| f != 0.0)),
            Value::String(s) => match s.to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" => Ok(true),
                "false" | "no" | "0" => Ok(false),
                _ => Err(self.bad(key, format!("expected a boolean but got string \"{s}\""))),
            },
            other => Err(self.bad(key, format!("expected a boolean but got {}", kind(other)))),
        }
    }

    fn number(&self, key: &str, v: &Value) -> Result<NoVal, FieldError> {
        value::read(v).map_err(|e| self.bad(key, e.to_string()))
    }

    /// An unsigned count (None when unset).
    fn count<T: TryFrom<u64>>(&self, key: &str, v: &Value) -> Result<Option<T>, FieldError> {
        match self.number(key, v)? {
            NoVal::Unset => Ok(None),
            NoVal::Infinite => Err(self.bad(key, "INFINITE is not a count")),
            n => {
                let n = n
                    .as_u64()
                    .ok_or_else(|| self.bad(key, "expected a whole number of at least 0"))?;
                T::try_from(n)
                    .map(Some)
                    .map_err(|_| self.bad(key, format!("{n} is too large")))
            }
        }
    }

    /// Minutes, where INFINITE is Slurm's INFINITE.
    fn minutes(&self, key: &str, v: &Value) -> Result<Option<u32>, FieldError> {
        match self.number(key, v)? {
            NoVal::Infinite => Ok(Some(spur_options::fields::INFINITE)),
            _ => self.count(key, v),
        }
    }

    /// One of `allowed` (a string, or a list of one).
    fn one_of(&self, key: &str, v: &Value, allowed: &[&str]) -> Result<Vec<String>, FieldError> {
        let items = self.list(key, v)?;
        for item in &items {
            if !allowed.iter().any(|a| a.eq_ignore_ascii_case(item)) {
                return Err(self.bad(key, format!("unknown value \"{item}\"")));
            }
        }
        Ok(items)
    }

    fn not_acted(&mut self, key: &str, v: &Value, f: &mut JobDescFields, option: Option<&str>) {
        if matches!(v, Value::Null) {
            return;
        }
        if let Some(option) = option {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(","),
                other => other.to_string(),
            };
            f.unacted.push(format!("--{option}={text}"));
        }
        self.warnings.push(Warning {
            description: format!("{key} is accepted for compatibility; spur does not act on it"),
            source: self.path.to_string(),
        });
    }
}

/// Reads `job` (a dictionary), at `path` for messages.
pub fn read(job: &Value, path: &str) -> Result<Read, FieldError> {
    let mut r = Reader {
        path,
        warnings: Vec::new(),
        unknown: Vec::new(),
        hold: false,
    };
    let Value::Object(map) = job else {
        return Err(FieldError {
            path: path.to_string(),
            why: format!("expected a dictionary but got {}", kind(job)),
        });
    };
    let mut f = JobDescFields::default();
    for (key, v) in map {
        field(&mut r, &mut f, key, v)?;
    }
    if r.hold {
        f.priority = Some(0);
    }
    Ok(Read {
        fields: f,
        warnings: r.warnings,
        unknown: r.unknown,
    })
}

fn field(
    r: &mut Reader<'_>,
    f: &mut JobDescFields,
    key: &str,
    v: &Value,
) -> Result<(), FieldError> {
    let text = |r: &Reader<'_>| r.text(key, v).map(Some);
    match key {
        "account" => f.account = text(r)?,
        "argv" => f.argv = r.list(key, v)?,
        "array" => f.array_inx = text(r)?,
        "begin_time" => f.begin_time = r.count(key, v)?,
        "flags" => {
            for flag in r.list(key, v)? {
                match flag.as_str() {
                    "KILL_INVALID_DEPENDENCY" => f.bitflags |= KILL_INV_DEP,
                    "NO_KILL_INVALID_DEPENDENCY" => f.bitflags |= NO_KILL_INV_DEP,
                    "SPREAD_JOB" => f.unacted.push("--spread-job".into()),
                    "PREFER_MINIMUM_NODE_COUNT" => f.unacted.push("--use-min-nodes".into()),
                    other => r.warnings.push(Warning {
                        description: format!(
                            "flag {other} is accepted for compatibility; spur does not act on it"
                        ),
                        source: format!("{}/flags", r.path),
                    }),
                }
            }
        }
        "clusters" => f.clusters = text(r)?,
        "comment" => f.comment = text(r)?,
        "constraints" => f.features = text(r)?,
        "cpus_per_tres" => f.cpus_per_tres = text(r)?,
        "current_working_directory" => f.work_dir = text(r)?,
        "deadline" => f.deadline = r.count(key, v)?,
        "dependency" => f.dependency = text(r)?,
        "environment" => f.environment = r.list(key, v)?,
        "excluded_nodes" => f.exc_nodes = Some(r.list(key, v)?.join(",")),
        "required_nodes" => f.req_nodes = Some(r.list(key, v)?.join(",")),
        "hold" => r.hold = r.flag(key, v)?,
        "memory_per_tres" => f.mem_per_tres = text(r)?,
        "name" => f.name = text(r)?,
        "nice" => {
            f.nice = match r.number(key, v)? {
                NoVal::Number(n) if n.fract() == 0.0 && n.abs() <= f64::from(i32::MAX) => {
                    Some(n as i32)
                }
                NoVal::Unset => None,
                _ => return Err(r.bad(key, "expected a whole number")),
            }
        }
        "tasks" => f.num_tasks = r.count(key, v)?,
        "open_mode" => {
            for mode in r.one_of(key, v, &["APPEND", "TRUNCATE"])? {
                f.open_mode = Some(if mode.eq_ignore_ascii_case("APPEND") {
                    OPEN_MODE_APPEND
                } else {
                    OPEN_MODE_TRUNCATE
                });
            }
        }
        "partition" => f.partition = text(r)?,
        "priority" => f.priority = r.count(key, v)?,
        "qos" => f.qos = text(r)?,
        "requeue" => f.requeue = Some(r.flag(key, v)?),
        "script" => f.script = text(r)?,
        "shared" => {
            for mode in r.one_of(key, v, &["none", "oversubscribe", "user", "mcs", "topo"])? {
                f.shared = Some(match mode.to_ascii_lowercase().as_str() {
                    "none" => JOB_SHARED_NONE,
                    "oversubscribe" => JOB_SHARED_OK,
                    "user" => JOB_SHARED_USER,
                    "mcs" => JOB_SHARED_MCS,
                    _ => JOB_SHARED_TOPO,
                });
            }
        }
        // v0.0.41's spelling of `shared`.
        "exclusive" => {
            for mode in r.one_of(key, v, &["true", "false", "user", "mcs", "topo"])? {
                f.shared = Some(match mode.to_ascii_lowercase().as_str() {
                    "true" => JOB_SHARED_NONE,
                    "false" => JOB_SHARED_OK,
                    "user" => JOB_SHARED_USER,
                    "mcs" => JOB_SHARED_MCS,
                    _ => JOB_SHARED_TOPO,
                });
            }
        }
        "oversubscribe" => {
            if r.flag(key, v)? {
                f.shared = Some(JOB_SHARED_OK);
            }
        }
        "time_limit" => f.time_limit = r.minutes(key, v)?,
        "time_minimum" => f.time_min = r.minutes(key, v)?,
        "tres_per_job" => f.tres_per_job = text(r)?,
        "tres_per_node" => f.tres_per_node = text(r)?,
        "tres_per_task" => f.tres_per_task = text(r)?,
        "kill_warning_flags" => {
            for flag in r.list(key, v)? {
                match flag.as_str() {
                    "BATCH_JOB" => f.warn_flags |= KILL_JOB_BATCH,
                    "RESERVATION_JOB" => f.warn_flags |= KILL_JOB_RESV,
                    _ => {}
                }
            }
        }
        "kill_warning_signal" => {
            let name = r.text(key, v)?;
            let n = spur_slurm::signal::name2num(&name)
                .ok_or_else(|| r.bad(key, format!("unknown signal \"{name}\"")))?;
            f.warn_signal = Some(
                u16::try_from(n).map_err(|_| r.bad(key, format!("unknown signal \"{name}\"")))?,
            );
        }
        "kill_warning_delay" => f.warn_time = r.count(key, v)?,
        "cpus_per_task" => f.cpus_per_task = r.count(key, v)?,
        "nodes" => {
            let text = r.text(key, v)?;
            let (min, max) = text.split_once('-').unwrap_or((&text, &text));
            let read = |n: &str| {
                n.split(':')
                    .next()
                    .unwrap_or(n)
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| r.bad(key, format!("invalid node count \"{text}\"")))
            };
            f.min_nodes = Some(read(min)?);
            if max != min || text.contains('-') {
                f.max_nodes = Some(read(max)?);
            }
        }
        "minimum_nodes" => f.min_nodes = r.count(key, v)?,
        "maximum_nodes" => f.max_nodes = r.count(key, v)?,
        "tasks_per_node" => f.ntasks_per_node = r.count(key, v)?,
        "memory_per_cpu" => {
            if let Some(m) = r.count::<u64>(key, v)? {
                f.pn_min_memory = Some(m | MEM_PER_CPU);
            }
        }
        "memory_per_node" => {
            if let Some(m) = r.count::<u64>(key, v)? {
                if f.pn_min_memory.is_some() {
                    return Err(r.bad(
                        key,
                        "memory_per_cpu and memory_per_node are mutually exclusive",
                    ));
                }
                f.pn_min_memory = Some(m);
            }
        }
        "required_switches" => f.req_switch = r.count(key, v)?,
        "wait_for_switch" => f.wait4switch = r.count(key, v)?,
        "segment_size" => f.segment_size = r.count(key, v)?,
        "standard_error" => f.std_err = text(r)?,
        "standard_input" => f.std_in = text(r)?,
        "standard_output" => f.std_out = text(r)?,
        "user_id" | "group_id" => r.warnings.push(Warning {
            description: format!(
                "{key} is taken from the request's authentication, not the job description"
            ),
            source: r.path.to_string(),
        }),
        other => match NOT_ACTED.iter().find(|(k, _)| *k == other) {
            Some((_, option)) => r.not_acted(other, v, f, *option),
            None => {
                r.unknown.push(other.to_string());
                r.warnings.push(Warning {
                    description: format!(
                        "Ignoring unknown field \"{other}\" of type {} in job_desc_msg",
                        kind(v)
                    ),
                    source: format!("{}/{other}", r.path),
                });
            }
        },
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_job_description_gives_the_fields_slurm_would_fill() {
        let got = read(
            &json!({
                "name": "dp", "partition": "batch", "tasks": 4, "cpus_per_task": 2,
                "time_limit": {"set": true, "infinite": false, "number": 30},
                "memory_per_cpu": {"set": true, "number": 1000},
                "environment": ["PATH=/bin", "A=1"], "current_working_directory": "/tmp",
                "shared": ["user"], "hold": true, "nodes": "2-4",
                "tres_per_node": "gres/gpu:2", "kill_warning_signal": "USR1",
                "kill_warning_flags": ["BATCH_JOB"], "kill_warning_delay": 90,
                "flags": ["KILL_INVALID_DEPENDENCY"], "mail_type": ["END"], "bogus": 1,
            }),
            "job",
        )
        .expect("reads");
        let f = &got.fields;
        assert_eq!(f.name.as_deref(), Some("dp"));
        assert_eq!(f.num_tasks, Some(4));
        assert_eq!(f.time_limit, Some(30));
        assert_eq!(f.pn_min_memory, Some(1000 | MEM_PER_CPU));
        assert_eq!(f.environment, ["PATH=/bin", "A=1"]);
        assert_eq!(f.shared, Some(JOB_SHARED_USER));
        assert_eq!(f.priority, Some(0));
        assert_eq!((f.min_nodes, f.max_nodes), (Some(2), Some(4)));
        assert_eq!(f.warn_signal, Some(10));
        assert_eq!(f.warn_flags, KILL_JOB_BATCH);
        assert_eq!(f.warn_time, Some(90));
        assert_eq!(f.bitflags, KILL_INV_DEP);
        assert_eq!(f.unacted, ["--mail-type=END"]);
        let said: Vec<&str> = got
            .warnings
            .iter()
            .map(|w| w.description.as_str())
            .collect();
        assert!(
            said.contains(&"Ignoring unknown field \"bogus\" of type number in job_desc_msg"),
            "{said:?}"
        );
        assert!(
            said.iter().any(|w| w.starts_with("mail_type is accepted")),
            "{said:?}"
        );
        let time = read(&json!({"time_limit": "INFINITE"}), "job").expect("reads");
        assert_eq!(time.fields.time_limit, Some(spur_options::fields::INFINITE));
    }

    #[test]
    fn every_known_field_is_read_as_its_table_says() {
        let sample = |a: Accepts| match a {
            Accepts::Text | Accepts::Any => json!("1"),
            Accepts::List => json!([]),
            Accepts::Flag => json!(false),
            Accepts::Number => json!({"set": false, "infinite": false, "number": 0}),
        };
        for v in Version::PARSERS {
            for (key, accepts) in known(v) {
                let got = read(&json!({ key: sample(accepts) }), "job")
                    .unwrap_or_else(|e| panic!("{key}: {e}"));
                assert!(got.unknown.is_empty(), "{key} is read as unknown");
                let refused = read(&json!({ key: [{"a": 1}] }), "job").is_err();
                assert_eq!(refused, accepts != Accepts::Any, "{key}");
            }
        }
    }

    #[test]
    fn wrong_types_are_errors_naming_the_field() {
        let e = read(&json!({"time_limit": "soon"}), "job").expect_err("refused");
        assert_eq!(e.path, "job/time_limit");
        let e = read(&json!({"tasks": -1}), "job").expect_err("refused");
        assert_eq!(e.path, "job/tasks");
        let e = read(&json!({"name": {"a": 1}}), "job").expect_err("refused");
        assert!(e.why.contains("dictionary"), "{e}");
        let e = read(&json!({"shared": ["sometimes"]}), "job").expect_err("refused");
        assert!(e.why.contains("sometimes"), "{e}");
        assert!(read(&json!([]), "job").is_err());
        let e = read(&json!({"tasks": 1e300}), "job").expect_err("refused");
        assert_eq!(e.path, "job/tasks");
    }
}
