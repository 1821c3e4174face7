//! `sacct --json`: the jobs in the shape Slurm 22.05 prints (the
//! slurmdbd v0.0.38 job dump: `meta`, `errors`, `jobs`, each key in
//! Slurm's order and the values Slurm gives a record with no data for
//! them), pretty-printed as Slurm's serializer does. Pure: jobs in, text
//! out.

use spur_proto::{HistoryJob, HistoryStep, StepId, Tres};

use super::field::{job_elapsed, step_elapsed};

/// A JSON value that keeps its keys in order.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// null.
    Null,
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// A list.
    Arr(Vec<J>),
    /// An object, keys in order.
    Obj(Vec<(&'static str, J)>),
}

impl J {
    /// Writes the value with two-space indentation.
    pub fn pretty(&self, out: &mut String, indent: usize) {
        match self {
            J::Null => out.push_str("null"),
            J::Int(n) => out.push_str(&n.to_string()),
            J::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
            J::Arr(items) if items.is_empty() => out.push_str("[]"),
            J::Obj(items) if items.is_empty() => out.push_str("{}"),
            J::Arr(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    pad(out, indent + 2);
                    item.pretty(out, indent + 2);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push(']');
            }
            J::Obj(items) => {
                out.push_str("{\n");
                for (i, (key, value)) in items.iter().enumerate() {
                    pad(out, indent + 2);
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    out.push_str(": ");
                    value.pretty(out, indent + 2);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push('}');
            }
        }
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn s(text: impl Into<String>) -> J {
    J::Str(text.into())
}

fn int(n: impl Into<i64>) -> J {
    J::Int(n.into())
}

fn opt_str(v: &Option<String>) -> J {
    v.as_ref().map_or(J::Null, |v| s(v.clone()))
}

fn secs_usecs(micros: u64) -> J {
    J::Obj(vec![
        ("seconds", int((micros / 1_000_000) as i64)),
        ("microseconds", int((micros % 1_000_000) as i64)),
    ])
}

/// An exit status as the v0.0.38 dumper writes it: it tests the wait
/// status with WIFEXITED and reports every normal exit, whatever its code,
/// as SUCCESS with return code 0; a signal as SIGNALED with the signal.
fn exit_code(signal: i32) -> J {
    if signal == 0 {
        J::Obj(vec![("status", s("SUCCESS")), ("return_code", int(0))])
    } else {
        J::Obj(vec![
            ("status", s("SIGNALED")),
            ("return_code", J::Null),
            (
                "signal",
                J::Obj(vec![
                    ("signal_id", int(signal)),
                    ("name", s(spur_slurm::signal::description(signal))),
                ]),
            ),
        ])
    }
}

fn tres_item(kind: &str, name: Option<&str>, id: i64, count: u64) -> J {
    J::Obj(vec![
        ("type", s(kind)),
        ("name", name.map_or(J::Null, s)),
        ("id", int(id)),
        ("count", int(count as i64)),
    ])
}

/// TRES counts by TRES id: cpu 1, mem 2, node 4, billing 5, gres/gpu 1001.
fn tres_list(t: &Tres) -> J {
    let mut items = Vec::new();
    if t.cpus > 0 {
        items.push(tres_item("cpu", None, 1, u64::from(t.cpus)));
    }
    if t.mem_mb > 0 {
        items.push(tres_item("mem", None, 2, t.mem_mb));
    }
    if t.nodes > 0 {
        items.push(tres_item("node", None, 4, u64::from(t.nodes)));
    }
    if t.billing > 0 {
        items.push(tres_item("billing", None, 5, u64::from(t.billing)));
    }
    if t.gpus > 0 {
        items.push(tres_item("gres", Some("gpu"), 1001, u64::from(t.gpus)));
    }
    J::Arr(items)
}

/// Zero energy: the only usage a step records when none is gathered.
fn energy() -> J {
    J::Arr(vec![tres_item("energy", None, 3, 0)])
}

fn usage() -> J {
    J::Obj(vec![
        ("max", J::Arr(vec![])),
        ("min", J::Arr(vec![])),
        ("average", energy()),
        ("total", energy()),
    ])
}

fn user_or_null(uid: Option<u32>) -> J {
    uid.map_or(J::Null, |u| s(spur_sys::users::name_of(u)))
}

fn step(job: &HistoryJob, st: &HistoryStep, now: u64) -> J {
    let batch = st.step == StepId::Batch;
    let names = spur_conf::hostlist::expand(&st.nodes).unwrap_or_default();
    let mut nodes = Vec::new();
    if !names.is_empty() {
        nodes.push(("list", J::Arr(names.into_iter().map(J::Str).collect())));
    }
    nodes.push(("count", int(st.node_count)));
    nodes.push(("range", s(st.nodes.clone())));
    let (freq, governor) = if batch {
        (int(0), J::Arr(vec![]))
    } else {
        // An srun step without --cpu-freq holds NO_VAL, whose bits read
        // as every governor.
        let all = [
            "Conservative",
            "Performance",
            "PowerSave",
            "OnDemand",
            "UserSpace",
        ];
        (J::Null, J::Arr(all.into_iter().map(s).collect()))
    };
    J::Obj(vec![
        ("nodes", J::Obj(nodes)),
        (
            "tres",
            J::Obj(vec![
                ("requested", usage()),
                ("consumed", usage()),
                ("allocated", tres_list(&st.allocated)),
            ]),
        ),
        (
            "time",
            J::Obj(vec![
                ("elapsed", int(step_elapsed(st, now) as i64)),
                ("end", int(st.end_time.unwrap_or(0) as i64)),
                ("start", int(st.start_time as i64)),
                ("suspended", int(0)),
                ("system", secs_usecs(st.system_cpu_us)),
                ("total", secs_usecs(st.user_cpu_us + st.system_cpu_us)),
                ("user", secs_usecs(st.user_cpu_us)),
            ]),
        ),
        ("exit_code", exit_code(st.exit_signal)),
        ("tasks", J::Obj(vec![("count", int(st.ntasks))])),
        ("pid", J::Null),
        (
            "CPU",
            J::Obj(vec![
                (
                    "requested_frequency",
                    J::Obj(vec![("min", freq.clone()), ("max", freq)]),
                ),
                ("governor", governor),
            ]),
        ),
        ("kill_request_user", user_or_null(st.cancelled_by)),
        ("state", s(st.state.as_str())),
        (
            "statistics",
            J::Obj(vec![
                ("CPU", J::Obj(vec![("actual_frequency", int(0))])),
                ("energy", J::Obj(vec![("consumed", int(0))])),
            ]),
        ),
        (
            "step",
            J::Obj(vec![
                ("job_id", int(job.job_id)),
                ("het", J::Obj(vec![("component", J::Null)])),
                (
                    "id",
                    match st.step {
                        StepId::Numbered(n) => int(n),
                        other => s(other.to_string()),
                    },
                ),
                ("name", s(st.name.clone())),
            ]),
        ),
        (
            "task",
            J::Obj(vec![(
                "distribution",
                s(st.layout.clone().unwrap_or_else(|| "Unknown".into())),
            )]),
        ),
    ])
}

fn job(j: &HistoryJob, steps: &[&HistoryStep], cluster: &str, now: u64) -> J {
    let zero_cpu = || secs_usecs(0);
    let started = j.start_time.is_some();
    let flags = if started {
        vec![s("CLEAR_SCHEDULING"), s("STARTED_ON_SCHEDULE")]
    } else {
        Vec::new()
    };
    let start = match (j.start_time, j.end_time) {
        (Some(t), _) => int(t as i64),
        (None, Some(_)) => J::Null,
        (None, None) => int(0),
    };
    J::Obj(vec![
        ("account", opt_str(&j.account)),
        (
            "comment",
            J::Obj(vec![
                ("administrator", J::Null),
                ("job", opt_str(&j.comment)),
                ("system", J::Null),
            ]),
        ),
        ("allocation_nodes", int(j.allocated.map_or(0, |a| a.nodes))),
        (
            "array",
            J::Obj(vec![
                ("job_id", int(j.array_job_id.unwrap_or(0))),
                (
                    "limits",
                    J::Obj(vec![(
                        "max",
                        J::Obj(vec![("running", J::Obj(vec![("tasks", int(0))]))]),
                    )]),
                ),
                ("task", opt_str(&j.array_task_str)),
                ("task_id", j.array_task_id.map_or(J::Null, int)),
            ]),
        ),
        (
            "association",
            J::Obj(vec![
                ("account", opt_str(&j.account)),
                ("cluster", s(cluster)),
                ("partition", J::Null),
                ("user", s(j.user_name.clone())),
            ]),
        ),
        ("cluster", s(cluster)),
        ("constraints", s(j.constraints.clone().unwrap_or_default())),
        ("container", J::Null),
        ("derived_exit_code", exit_code(j.derived_exit_signal)),
        (
            "time",
            J::Obj(vec![
                ("elapsed", int(job_elapsed(j, now) as i64)),
                ("eligible", int(j.eligible_time.unwrap_or(0) as i64)),
                ("end", int(j.end_time.unwrap_or(0) as i64)),
                ("start", start),
                ("submission", int(j.submit_time as i64)),
                ("suspended", int(0)),
                ("system", zero_cpu()),
                (
                    "limit",
                    j.time_limit.map_or(J::Null, |t| int(t.div_ceil(60) as i64)),
                ),
                ("total", zero_cpu()),
                ("user", zero_cpu()),
            ]),
        ),
        ("exit_code", exit_code(j.exit_signal)),
        ("flags", J::Arr(flags)),
        ("group", s(j.group_name.clone())),
        (
            "het",
            J::Obj(vec![("job_id", int(0)), ("job_offset", J::Null)]),
        ),
        ("job_id", int(j.job_id)),
        ("name", s(j.name.clone())),
        ("mcs", J::Obj(vec![("label", s(""))])),
        (
            "nodes",
            s(if j.nodes.is_empty() {
                "None assigned".to_string()
            } else {
                j.nodes.clone()
            }),
        ),
        ("partition", s(j.partition.clone())),
        ("priority", int(j.priority)),
        ("qos", s(j.qos.clone())),
        (
            "required",
            J::Obj(vec![
                ("CPUs", int(j.requested.cpus)),
                ("memory", int(j.req_mem_mb as i64)),
            ]),
        ),
        ("kill_request_user", user_or_null(j.cancelled_by)),
        (
            "reservation",
            J::Obj(vec![("id", int(0)), ("name", int(0))]),
        ),
        (
            "state",
            J::Obj(vec![
                ("current", s(j.state.as_str())),
                ("reason", s(j.reason.clone())),
            ]),
        ),
        (
            "steps",
            J::Arr(steps.iter().map(|st| step(j, st, now)).collect()),
        ),
        (
            "tres",
            J::Obj(vec![
                (
                    "allocated",
                    j.allocated.map_or(J::Arr(vec![]), |a| tres_list(&a)),
                ),
                ("requested", tres_list(&j.requested)),
            ]),
        ),
        ("user", s(j.user_name.clone())),
        (
            "wckey",
            J::Obj(vec![("wckey", s("")), ("flags", J::Arr(vec![]))]),
        ),
        ("working_directory", s(j.work_dir.clone())),
    ])
}

/// The document for `jobs`, each with the steps given for it.
pub fn document(jobs: &[(&HistoryJob, Vec<&HistoryStep>)], cluster: &str, now: u64) -> J {
    let version = J::Obj(vec![
        (
            "version",
            J::Obj(vec![
                ("major", int(22)),
                ("micro", int(8)),
                ("minor", int(5)),
            ]),
        ),
        ("release", s(spur_proto::SLURM_COMPAT_VERSION)),
    ]);
    J::Obj(vec![
        (
            "meta",
            J::Obj(vec![
                (
                    "plugin",
                    J::Obj(vec![
                        ("type", s("openapi/dbv0.0.38")),
                        ("name", s("Slurm OpenAPI DB v0.0.38")),
                    ]),
                ),
                ("Slurm", version),
            ]),
        ),
        ("errors", J::Arr(vec![])),
        (
            "jobs",
            J::Arr(
                jobs.iter()
                    .map(|(j, steps)| job(j, steps, cluster, now))
                    .collect(),
            ),
        ),
    ])
}

/// `sacct --json` for `jobs`.
pub fn render_json(jobs: &[(&HistoryJob, Vec<&HistoryStep>)], cluster: &str, now: u64) -> String {
    let mut out = String::new();
    document(jobs, cluster, now).pretty(&mut out, 0);
    out.push('\n');
    out
}
