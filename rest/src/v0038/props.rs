//! A v0.0.38 job's properties as options: slurmrestd 22.05 reads each key of
//! `job` by its table of names (`job_params` in openapi/v0.0.38's jobs.c),
//! hands the value to the option it names through slurm_opt.c, and builds
//! the job as sbatch does. spur does the same with its own option table and
//! builder ([`spur_options::desc::from_words`]), so a job submitted here is
//! the job the same options give sbatch. Keys slurmrestd disables are
//! refused as it refuses them; keys are matched without regard to case.

use serde_json::Value;

/// What a key's value becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `--long=value`, the value as text.
    Text(&'static str),
    /// `--long` when true.
    Flag(&'static str),
    /// `--long=yes|no`.
    YesNo(&'static str),
    /// `--long=1` when true.
    One(&'static str),
    /// `--nodes`: a count, `min-max`, or `[min, max]`.
    Nodes,
    /// `--begin`: Unix seconds or Slurm's time text.
    Begin,
    /// The job's environment (a dictionary).
    Environment,
    /// The script's arguments (a list).
    Argv,
    /// `--exclusive[=user|mcs|topo]`, or `oversubscribe`.
    Exclusive,
    /// The file mode creation mask the job runs with.
    Umask,
    /// A key slurmrestd refuses ("Disabled key").
    Disabled,
}

use Kind::{Argv, Begin, Disabled, Environment, Exclusive, Flag, Nodes, One, Text, Umask, YesNo};

/// slurmrestd 22.05's keys, each with what spur makes of it.
const KEYS: &[(&str, Kind)] = &[
    ("accelerator_binding", Disabled),
    ("account", Text("account")),
    ("account_gather_frequency", Text("acctg-freq")),
    ("allocation_node_list", Disabled),
    ("array", Text("array")),
    ("argv", Argv),
    ("batch_features", Text("batch")),
    ("begin_time", Begin),
    ("bell", Disabled),
    ("burst_buffer_file", Disabled),
    ("burst_buffer", Text("bb")),
    ("cluster_constraint", Text("cluster-constraint")),
    ("cluster", Disabled),
    ("clusters", Disabled),
    ("comment", Text("comment")),
    ("compress", Disabled),
    ("constraint", Text("constraint")),
    ("constraints", Text("constraint")),
    ("contiguous", Disabled),
    ("container", Text("container")),
    ("core_specification", Text("core-spec")),
    ("cores_per_socket", Text("cores-per-socket")),
    ("cpu_binding_hint", Text("hint")),
    ("cpu_binding", Disabled),
    ("cpu_frequency", Text("cpu-freq")),
    ("cpus_per_gpu", Text("cpus-per-gpu")),
    ("cpus_per_task", Text("cpus-per-task")),
    ("current_working_directory", Text("chdir")),
    ("cwd", Text("chdir")),
    ("deadline", Text("deadline")),
    ("debugger_test", Disabled),
    ("delay_boot", Text("delay-boot")),
    ("dependency", Text("dependency")),
    ("disable_status", Disabled),
    ("distribution", Text("distribution")),
    ("environment", Environment),
    ("epilog", Disabled),
    ("exclude_nodes", Text("exclude")),
    ("excluded_nodes", Disabled),
    ("exclusive", Exclusive),
    ("export_file", Disabled),
    ("export", Disabled),
    ("extra_node_info", Disabled),
    ("get_user_environment", Flag("get-user-env")),
    ("gpu_binding", Text("gpu-bind")),
    ("gpu_frequency", Text("gpu-freq")),
    ("gpus", Text("gpus")),
    ("gpus_per_node", Text("gpus-per-node")),
    ("gpus_per_socket", Text("gpus-per-socket")),
    ("gpus_per_task", Text("gpus-per-task")),
    ("gres_flags", Text("gres-flags")),
    ("gres", Text("gres")),
    ("group_id", Disabled),
    ("help", Disabled),
    ("hold", Flag("hold")),
    ("ignore_pbs", Disabled),
    ("immediate", Disabled),
    ("job_id", Disabled),
    ("job_name", Text("job-name")),
    ("kill_command", Disabled),
    ("kill_on_bad_exit", Disabled),
    ("kill_on_invalid_dependency", YesNo("kill-on-invalid-dep")),
    ("label", Disabled),
    ("license", Text("licenses")),
    ("licenses", Text("licenses")),
    ("mail_type", Text("mail-type")),
    ("mail_user", Text("mail-user")),
    ("max_threads", Disabled),
    ("mcs_label", Text("mcs-label")),
    ("memory_binding", Text("mem-bind")),
    ("memory_per_cpu", Text("mem-per-cpu")),
    ("memory_per_gpu", Text("mem-per-gpu")),
    ("memory_per_node", Text("mem")),
    ("message_timeout", Disabled),
    ("minimum_cpus_per_node", Text("mincpus")),
    ("minimum_nodes", Flag("use-min-nodes")),
    ("mpi", Disabled),
    ("multiple_program", Disabled),
    ("name", Text("job-name")),
    ("network", Disabled),
    ("nice", Text("nice")),
    ("no_allocation", Disabled),
    ("no_bell", Disabled),
    ("nodefile", Disabled),
    ("nodelist", Text("nodelist")),
    ("node_list", Text("nodelist")),
    ("nodes", Nodes),
    ("no_kill", Flag("no-kill")),
    ("no_requeue", Flag("no-requeue")),
    ("no_shell", Disabled),
    ("open_mode", Text("open-mode")),
    ("overcommit", Disabled),
    ("oversubscribe", Flag("oversubscribe")),
    ("hetjob_group", Disabled),
    ("parsable", Disabled),
    ("partition", Text("partition")),
    ("prefer", Text("prefer")),
    ("power_flags", Disabled),
    ("preserve_environment", Disabled),
    ("priority", Text("priority")),
    ("profile", Text("profile")),
    ("prolog", Disabled),
    ("propagate", Disabled),
    ("pty", Disabled),
    ("qos", Text("qos")),
    ("quiet", Disabled),
    ("quit_on_interrupt", Disabled),
    ("reboot", Disabled),
    ("relative", Disabled),
    ("requeue", Flag("requeue")),
    ("required_nodes", Disabled),
    ("required_switches", Disabled),
    ("reservation", Text("reservation")),
    ("reserve_port", Disabled),
    ("reserve_ports", Disabled),
    ("signal", Text("signal")),
    ("slurmd_debug", Disabled),
    ("sockets_per_node", Text("sockets-per-node")),
    ("spread_job", Flag("spread-job")),
    ("standard_error", Text("error")),
    ("standard_input", Text("input")),
    ("standard_output", Text("output")),
    ("task_epilog", Disabled),
    ("task_prolog", Disabled),
    ("tasks", Text("ntasks")),
    ("ntasks", Text("ntasks")),
    ("tasks_per_core", Text("ntasks-per-core")),
    ("ntasks_per_core", Text("ntasks-per-core")),
    ("ntasks_per_gpu", Text("ntasks-per-gpu")),
    ("tasks_per_node", Text("ntasks-per-node")),
    ("ntasks_per_node", Text("ntasks-per-node")),
    ("tasks_per_socket", Text("ntasks-per-socket")),
    ("ntasks_per_socket", Text("ntasks-per-socket")),
    ("ntasks_per_tres", Text("ntasks-per-tres")),
    ("temporary_disk_per_node", Text("tmp")),
    ("test_only", Disabled),
    ("thread_specification", Text("thread-spec")),
    ("threads_per_core", Text("threads-per-core")),
    ("threads", Disabled),
    ("time_limit", Text("time")),
    ("time_minimum", Text("time-min")),
    ("umask", Umask),
    ("unbuffered", Disabled),
    ("unknown", Disabled),
    ("usage", Disabled),
    ("user_id", Disabled),
    ("version", Disabled),
    ("verbose", Disabled),
    ("wait_all_nodes", One("wait-all-nodes")),
    ("wait_for_switch", Disabled),
    ("wait", Disabled),
    ("wckey", Text("wckey")),
    ("wrap", Disabled),
    ("x11", Disabled),
];

/// A job's properties, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Props {
    /// The option words (`--long=value`).
    pub words: Vec<String>,
    /// `environment`, when given.
    pub environment: Option<Vec<(String, String)>>,
    /// `argv`.
    pub argv: Vec<String>,
    /// `current_working_directory` (also among the words).
    pub cwd: Option<String>,
    /// `umask`: the job's SLURM_UMASK.
    pub umask: Option<String>,
}

/// Why a job's properties cannot be read; the text is what slurmrestd
/// puts in the error's description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PropError {
    /// A key slurmrestd does not know.
    #[error("Unknown key \"{0}\"")]
    Unknown(String),
    /// A key slurmrestd refuses.
    #[error("Disabled key: \"{0}\"")]
    Disabled(String),
    /// A value of the wrong type.
    #[error("Unable to process key \"{0}\"")]
    Value(String),
    /// `job` is not a dictionary.
    #[error("job description is not a dictionary")]
    NotDict,
}

/// The text of a scalar (numbers and booleans as slurm_opt.c converts them).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Booleans as data_get_bool_converted reads them.
fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => Some(n.as_f64().is_some_and(|f| f != 0.0)),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" | "" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Reads `job` as slurmrestd 22.05's `_parse_job_desc` does.
pub fn read(job: &Value) -> Result<Props, PropError> {
    let Value::Object(map) = job else {
        return Err(PropError::NotDict);
    };
    let mut props = Props::default();
    for (key, value) in map {
        let lower = key.to_ascii_lowercase();
        let Some(&(_, kind)) = KEYS.iter().find(|(k, _)| *k == lower) else {
            return Err(PropError::Unknown(lower));
        };
        let bad = || PropError::Value(lower.clone());
        match kind {
            Disabled => return Err(PropError::Disabled(lower)),
            Text(long) => {
                let text = scalar(value).ok_or_else(bad)?;
                if long == "chdir" {
                    props.cwd = Some(text.clone());
                }
                props.words.push(format!("--{long}={text}"));
            }
            Flag(long) => {
                if truth(value).ok_or_else(bad)? {
                    props.words.push(format!("--{long}"));
                }
            }
            YesNo(long) => {
                let yes = truth(value).ok_or_else(bad)?;
                props
                    .words
                    .push(format!("--{long}={}", if yes { "yes" } else { "no" }));
            }
            One(long) => {
                let on = truth(value).ok_or_else(bad)?;
                props.words.push(format!("--{long}={}", u8::from(on)));
            }
            Nodes => props
                .words
                .push(format!("--nodes={}", nodes(value).ok_or_else(bad)?)),
            Begin => props
                .words
                .push(format!("--begin={}", begin(value).ok_or_else(bad)?)),
            Environment => props.environment = Some(environment(value).ok_or_else(bad)?),
            Argv => props.argv = strings(value).ok_or_else(bad)?,
            Exclusive => props.words.push(exclusive(value).ok_or_else(bad)?),
            Umask => props.umask = Some(scalar(value).ok_or_else(bad)?),
        }
    }
    Ok(props)
}

fn nodes(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) => match items.as_slice() {
            [n] => scalar(n),
            [min, max] => Some(format!("{}-{}", scalar(min)?, scalar(max)?)),
            _ => None,
        },
        other => scalar(other),
    }
}

fn begin(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => n.as_u64().map(spur_slurm::time::timestamp),
        other => scalar(other),
    }
}

fn environment(v: &Value) -> Option<Vec<(String, String)>> {
    match v {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| Some((k.clone(), scalar(v)?)))
            .collect(),
        // A list of NAME=value, as later versions take it.
        Value::Array(items) => items
            .iter()
            .map(|i| {
                let text = i.as_str()?;
                let (k, v) = text.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect(),
        _ => None,
    }
}

fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Array(items) => items.iter().map(scalar).collect(),
        other => scalar(other).map(|s| vec![s]),
    }
}

fn exclusive(v: &Value) -> Option<String> {
    let text = match v {
        Value::Bool(true) => return Some("--exclusive".into()),
        Value::Bool(false) => return Some("--oversubscribe".into()),
        other => scalar(other)?,
    };
    Some(match text.to_ascii_lowercase().as_str() {
        "" | "exclusive" | "true" => "--exclusive".into(),
        "oversubscribe" | "false" => "--oversubscribe".into(),
        "user" | "mcs" | "topo" => format!("--exclusive={}", text.to_ascii_lowercase()),
        _ => return None,
    })
}

/// Whether `key` is a switch (true sets it, false asks for nothing).
pub fn is_switch(key: &str) -> bool {
    KEYS.iter()
        .any(|(k, kind)| *k == key && matches!(kind, Flag(_)))
}

/// The keys slurmrestd 22.05 takes (disabled ones left out), each with
/// the JSON type its value has where it has one type (spur's OpenAPI
/// document describes v0.0.38's job properties from these).
pub fn taken() -> impl Iterator<Item = (&'static str, Option<&'static str>)> {
    KEYS.iter().filter_map(|(k, kind)| {
        let json = match kind {
            Disabled => return None,
            Text(_) => Some("string"),
            Flag(_) | YesNo(_) | One(_) => Some("boolean"),
            Environment => Some("object"),
            Argv => Some("array"),
            Nodes | Begin | Exclusive | Umask => None,
        };
        Some((*k, json))
    })
}

/// The keys' names (for the document and the tests).
pub fn keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter().map(|(k, _)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_option_a_key_names_is_one_sbatch_takes() {
        let cmd = spur_options::args::command();
        for (key, kind) in KEYS {
            let long = match kind {
                Text(l) | Flag(l) | YesNo(l) | One(l) => *l,
                _ => continue,
            };
            assert!(
                cmd.get_arguments().any(|a| a.get_long() == Some(long)),
                "{key}: sbatch has no --{long}"
            );
        }
    }

    #[test]
    fn properties_become_the_options_slurmrestd_hands_them_to() {
        let p = read(&json!({
            "name": "rest-job", "Partition": "batch", "gpus_per_node": "1",
            "time_limit": 10, "nodes": [2, 4], "hold": true, "requeue": false,
            "current_working_directory": "/tmp", "environment": {"PATH": "/bin"},
            "exclusive": "user", "kill_on_invalid_dependency": true,
            "argv": ["a", 2], "begin_time": 0,
        }))
        .expect("reads");
        for w in [
            "--job-name=rest-job",
            "--partition=batch",
            "--gpus-per-node=1",
            "--time=10",
            "--nodes=2-4",
            "--hold",
            "--chdir=/tmp",
            "--exclusive=user",
            "--kill-on-invalid-dep=yes",
        ] {
            assert!(p.words.iter().any(|x| x == w), "{w} in {:?}", p.words);
        }
        assert!(!p.words.iter().any(|x| x.starts_with("--requeue")));
        assert_eq!(p.environment, Some(vec![("PATH".into(), "/bin".into())]));
        assert_eq!(p.argv, ["a", "2"]);
        assert_eq!(p.cwd.as_deref(), Some("/tmp"));
    }

    #[test]
    fn unknown_disabled_and_mistyped_keys_are_refused_as_slurmrestd_does() {
        assert_eq!(
            read(&json!({"bogus": 1})),
            Err(PropError::Unknown("bogus".into()))
        );
        assert_eq!(
            read(&json!({"wrap": "true"})),
            Err(PropError::Disabled("wrap".into()))
        );
        assert_eq!(
            read(&json!({"partition": ["a"]})),
            Err(PropError::Value("partition".into()))
        );
        assert_eq!(read(&json!([1])), Err(PropError::NotDict));
        assert_eq!(
            PropError::Disabled("wrap".into()).to_string(),
            "Disabled key: \"wrap\""
        );
    }
}
