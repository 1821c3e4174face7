//! spur's v0.0.38 answers beside real slurmrestd 22.05.8's, recorded in
//! `../shared/slurm-reference/rest/`: each recorded request is replayed
//! against a spur cluster (its job ids mapped to the jobs spur gave the
//! same submissions) and the answers compared field by field. Every key
//! must be there, in the recorded order, with the recorded JSON type; every
//! value must be the recorded one, apart from what names this cluster
//! rather than Slurm's behaviour: ids, times, hosts, users, paths, sizes.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::harness::{Cluster, Options};
use crate::http::{request, Target};

/// One recorded exchange.
#[derive(Debug)]
pub(crate) struct Recording {
    pub name: String,
    pub method: String,
    /// The path and query.
    pub path: String,
    pub body: Option<String>,
    pub status: u16,
    /// The answer (None: plain text).
    pub answer: Option<Value>,
}

pub(crate) fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/slurm-reference/rest")
}

/// Reads a recording: `$ curl ... -X METHOD ... http://host:port/PATH`,
/// an optional `# body.json:` block, `# HTTP status`, then the answer.
pub(crate) fn read(name: &str) -> Option<Recording> {
    let text = std::fs::read_to_string(folder().join(name)).ok()?;
    let mut lines = text.lines();
    let command = lines.next()?;
    let method = command
        .split_once("-X ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap_or("GET")
        .to_string();
    let url = command
        .split_whitespace()
        .find(|w| w.starts_with("http://"))?;
    let path = url.splitn(4, '/').nth(3).map(|p| format!("/{p}"))?;
    let mut body = None;
    let mut status = 0;
    let mut rest = String::new();
    for line in lines.by_ref() {
        if let Some(b) = line.strip_prefix("#   ") {
            body.get_or_insert_with(String::new).push_str(b);
        } else if let Some(s) = line.strip_prefix("# HTTP ") {
            status = s.split_whitespace().next()?.parse().ok()?;
            break;
        }
    }
    for line in lines {
        rest.push_str(line);
        rest.push('\n');
    }
    Some(Recording {
        name: name.to_string(),
        method,
        path,
        body,
        status,
        answer: serde_json::from_str(&rest).ok(),
    })
}

/// Keys whose values name this cluster, its users, hosts and clocks, or
/// count what it holds: compared by type only.
const VARIES: &[&str] = &[
    // Ids and times.
    "job_id",
    "array_job_id",
    "association_id",
    "accrue_time",
    "eligible_time",
    "end_time",
    "start_time",
    "submit_time",
    "last_sched_evaluation",
    "preempt_time",
    "resize_time",
    "suspend_time",
    "pre_sus_time",
    "boot_time",
    "slurmd_start_time",
    "last_busy",
    "time_start",
    "req_time",
    "req_time_start",
    "server_thread_count",
    "elapsed",
    "eligible",
    "end",
    "start",
    "submission",
    "microseconds",
    "seconds",
    // Who and where.
    "user_id",
    "user_name",
    "group_id",
    "group",
    "group_name",
    "user",
    "account",
    "hostname",
    "name",
    "nodes",
    "batch_host",
    "allocating_node",
    "cluster",
    "command",
    "current_working_directory",
    "standard_error",
    "standard_output",
    "standard_input",
    "working_directory",
    "address",
    "architecture",
    "operating_system",
    "version",
    "reason_set_by_user",
    "reason_changed_at",
    "range",
    "list",
    // Sizes of this cluster's nodes and of the jobs on them.
    "cpus",
    "sockets",
    "cores",
    "threads",
    "boards",
    "real_memory",
    "free_memory",
    "alloc_memory",
    "alloc_cpus",
    "alloc_idle_cpus",
    "idle_cpus",
    "cpu_load",
    "tres",
    "tres_used",
    "tres_weighted",
    "gres",
    "gres_used",
    "node_count",
    "total_cpus",
    "total_nodes",
    "memory_per_node",
    "memory_per_cpu",
    "minimum_memory_per_node",
    "minimum_cpus_per_node",
    "node_count",
    "tres_req_str",
    "tres_alloc_str",
    "tres_per_node",
    "job_resources",
    "allocated_nodes",
    "allocated_hosts",
    "billable_tres",
    "priority",
    "count",
    "CPUs",
    "memory",
    "id",
    // Counters of what this cluster has done.
    "parts_packed",
    "jobs_submitted",
    "jobs_started",
    "jobs_completed",
    "jobs_canceled",
    "jobs_failed",
    "jobs_pending",
    "jobs_running",
    "job_states_ts",
    "schedule_cycle_max",
    "schedule_cycle_last",
    "schedule_cycle_total",
    "schedule_cycle_mean",
    "schedule_cycle_mean_depth",
    "schedule_cycle_per_minute",
    "schedule_queue_length",
    "dbd_agent_queue_size",
    "agent_queue_size",
    "agent_count",
    "agent_thread_count",
    "rpcs_by_message_type",
    "rpcs_by_user",
    "average_time",
    "total_time",
    "type_id",
    "message_type",
    "gettimeofday_latency",
    "bf_when_last_cycle",
    "bf_active",
    "bf_backfilled_jobs",
    "bf_last_backfilled_jobs",
    "bf_cycle_counter",
    "bf_cycle_mean",
    "bf_cycle_last",
    "bf_cycle_max",
    "bf_depth_mean",
    "bf_depth_mean_try",
    "bf_queue_len",
    "bf_queue_len_mean",
    "bf_table_size",
    "bf_table_size_mean",
    "time",
    "limit",
    "req_switch",
    "nodes_online",
    "nodes_total",
];

/// Keys whose values come from slurm.conf (unset there is null): the
/// recorded cluster's and the test cluster's differ.
const CONFIGURED: &[&str] = &["default_memory_per_cpu", "default_memory_per_node"];

/// Recordings whose lists hold other records than spur's: their shape is
/// compared, not their values.
const SHAPE_ONLY: &[&str] = &["10-jobs"];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The list marker the recordings put where they cut a list short.
fn trimmed(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.starts_with("... [trimmed"))
}

/// A text with the client ports of `[host]:port` taken out (each
/// connection has its own).
fn without_ports(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("]:") {
        out.push_str(&rest[..i + 2]);
        rest = rest[i + 2..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Adds each difference between `recorded` and `spur` under `at` to `out`
/// (values too unless `shape_only`).
fn compare(
    recorded: &Value,
    spur: &Value,
    key: &str,
    at: &str,
    shape_only: bool,
    out: &mut Vec<String>,
) {
    if CONFIGURED.contains(&key) {
        return;
    }
    // Where only the shape counts, null is any unset value.
    let unset = recorded.is_null() || spur.is_null();
    if kind(recorded) != kind(spur) && !(shape_only && unset) {
        out.push(format!(
            "{at}: Slurm has {} {recorded}, spur {} {spur}",
            kind(recorded),
            kind(spur)
        ));
        return;
    }
    match (recorded, spur) {
        _ if kind(recorded) != kind(spur) => {}
        (Value::Object(r), Value::Object(s)) => {
            let rk: Vec<&String> = r.keys().collect();
            let sk: Vec<&String> = s.keys().collect();
            if rk != sk {
                let missing: Vec<&&String> = rk.iter().filter(|k| !s.contains_key(**k)).collect();
                let extra: Vec<&&String> = sk.iter().filter(|k| !r.contains_key(**k)).collect();
                out.push(format!(
                    "{at}: keys differ (missing {missing:?}, extra {extra:?}{})",
                    if missing.is_empty() && extra.is_empty() {
                        ", order"
                    } else {
                        ""
                    }
                ));
            }
            for (k, rv) in r {
                if let Some(sv) = s.get(k) {
                    compare(rv, sv, k, &format!("{at}/{k}"), shape_only, out);
                }
            }
        }
        (Value::Array(r), Value::Array(s)) => {
            let r: Vec<&Value> = r.iter().filter(|v| !trimmed(v)).collect();
            if VARIES.contains(&key) || r.is_empty() || s.is_empty() {
                return;
            }
            // Lists hold this cluster's records: their first items show
            // the shape; short lists of words are compared whole.
            if r.iter().all(|v| v.is_string()) && r.len() == s.len() {
                for (i, (rv, sv)) in r.iter().zip(s).enumerate() {
                    compare(rv, sv, key, &format!("{at}[{i}]"), shape_only, out);
                }
            } else {
                compare(r[0], &s[0], key, &format!("{at}[0]"), shape_only, out);
            }
        }
        _ => {
            let same = recorded == spur
                || matches!((recorded, spur), (Value::String(r), Value::String(s))
                    if without_ports(r) == without_ports(s));
            if !shape_only && !VARIES.contains(&key) && !same {
                out.push(format!("{at}: Slurm has {recorded}, spur {spur}"));
            }
        }
    }
}

/// Differences spur keeps on purpose (compat/DEVIATIONS.md), each with
/// why; a recorded difference that is not here fails the test.
const EXPECTED: &[(&str, &str)] = &[
    (
        "40-slurmdb-jobs: keys differ (missing [], extra [\"jobs\"])",
        "22.05.8 refuses every query key of /slurmdb/v0.0.38/jobs with \"Unknown \
         Query field\"; spur reads the keys and lists the jobs",
    ),
    (
        "40-slurmdb-jobs: Slurm answered 500, spur 200",
        "where this host knows the user `anchor`, spur lists its jobs",
    ),
    (
        "40-slurmdb-jobs/errors[0]: keys differ (missing [], extra [\"source\"])",
        "spur's refusal of the unknown user names its source",
    ),
    (
        "40-slurmdb-jobs/errors[0]/description: Slurm has \"Unknown Query field\"",
        "spur's refusal is of the user this host does not know",
    ),
    (
        "42-slurmdb-diag: Slurm answered 500, spur 200",
        "slurmdbd refuses its statistics to users who are not operators; spur's \
         history counters hold nothing private",
    ),
    (
        "43-slurmdb-associations: Slurm answered 200, spur 404",
        "spur keeps no accounting database: its objects' paths answer 404 saying so",
    ),
];

#[test]
fn v0038_answers_match_slurmrestd_2205s_field_by_field() {
    let names: Vec<String> = match std::fs::read_dir(folder()) {
        Ok(dir) => {
            let mut names: Vec<String> = dir
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".txt"))
                .collect();
            names.sort();
            names
        }
        Err(_) => {
            eprintln!("skipped: no recordings found (../shared/slurm-reference/rest)");
            return;
        }
    };
    let mut c = Cluster::start(Options {
        nodes: 2,
        jwt: true,
        ..Options::default()
    });
    let t: Target = c.start_rest(&[]);
    // The recordings were made by a user who is no administrator.
    let token = c.token(&["username=nobody"]);
    let cwd = c.dir.path().join("rest-jobs");
    std::fs::create_dir(&cwd).expect("a folder for the jobs");
    let open = |p: &std::path::Path, mode| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    };
    open(c.dir.path(), 0o711);
    open(&cwd, 0o777);
    let cwd = cwd.display().to_string();
    // A finished job with a step on two nodes, as the recordings' job 31.
    let finished = c.submit(
        &[
            "-N",
            "2",
            "-J",
            "envjob",
            "-A",
            "research",
            "-t",
            "5",
            "--wrap",
            "srun true",
        ],
        "",
    );
    c.wait_state(finished, "COMPLETED");
    let mut ids: HashMap<String, String> = HashMap::new();
    ids.insert("31".into(), finished.to_string());
    let mut problems = Vec::new();
    let mut compared = 0;
    for name in &names {
        let Some(rec) = read(name) else { continue };
        let Some(recorded) = &rec.answer else {
            continue;
        };
        if !rec.path.contains("v0.0.38") {
            continue;
        }
        let mut path = rec.path.clone();
        for (from, to) in &ids {
            path = path.replace(&format!("/job/{from}"), &format!("/job/{to}"));
        }
        path = path.replace("/node/gb001", "/node/n01");
        let body = rec
            .body
            .as_ref()
            .map(|b| b.replace("/var/tmp/slurm-anchor", &cwd));
        let auth = [("X-SLURM-USER-TOKEN", token.as_str())];
        let a = request(&t, &rec.method, &path, &auth, body.as_deref());
        let at = rec.name.trim_end_matches(".txt");
        if a.status != rec.status {
            problems.push(format!(
                "{at}: Slurm answered {}, spur {}: {}",
                rec.status, a.status, a.body
            ));
            continue;
        }
        let Ok(spur) = serde_json::from_str::<Value>(&a.body) else {
            problems.push(format!("{at}: not JSON: {}", a.body));
            continue;
        };
        if let (Some(old), Some(new)) = (recorded["job_id"].as_u64(), spur["job_id"].as_u64()) {
            ids.insert(old.to_string(), new.to_string());
        }
        compare(
            recorded,
            &spur,
            "",
            at,
            SHAPE_ONLY.contains(&at),
            &mut problems,
        );
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} recordings were compared");
    let unexpected: Vec<&String> = problems
        .iter()
        .filter(|p| !EXPECTED.iter().any(|(what, _)| p.starts_with(what)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} differences:\n{}",
        unexpected.len(),
        unexpected
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
