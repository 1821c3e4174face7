//! `squeue --steps`: the step report. Its fields (`-o` codes and `-O`
//! names, as squeue's step_format_add_* define them), the `-s` step list,
//! which steps a query keeps (Slurm's _filter_step) and their order (the
//! default `P,i`), and the rows laid out with squeue's padding. Pure: steps
//! in, text out.

use spur_proto::{StepId, StepInfo};

use super::field::{nodes_sorted, secs};
use super::filter::{JobSel, Query};
use super::format::{Column, Item, Spec};
use spur_slurm::print::print_str;

/// One column of the step report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepField {
    /// `%i`, `StepId`: `12.0`, `12.batch`, `12_3.0`.
    StepId,
    /// `%j`, `StepName`.
    Name,
    /// `%P`, `Partition`.
    Partition,
    /// `%u`, `UserName`.
    UserName,
    /// `%U`, `UserId`.
    UserId,
    /// `%M`, `TimeUsed`.
    TimeUsed,
    /// `%l`, `TimeLimit`.
    TimeLimit,
    /// `%S`, `StartTime`.
    StartTime,
    /// `%N`, `Nodes`.
    Nodes,
    /// `%A`, `NumTasks`.
    NumTasks,
    /// `%b`, `Gres`, `tres-per-node` (headed TRES_PER_JOB, as Slurm heads
    /// it).
    TresPerNode,
    /// `tres-per-step`, `tres-per-job`.
    TresPerStep,
    /// `tres-per-task`.
    TresPerTask,
    /// `NumCPUs`.
    NumCpus,
    /// `StepState`.
    State,
    /// `JobId`.
    JobId,
    /// `ArrayJobId`.
    ArrayJobId,
    /// `ArrayTaskId`.
    ArrayTaskId,
    /// `Cluster`.
    Cluster,
    /// Fields of things spur does not have: `Network`, `ResvPorts`,
    /// `Container`, `cpus-per-tres`, `mem-per-tres`, `tres-bind`,
    /// `tres-freq`, `tres-per-socket` (each `(null)`, as Slurm prints an
    /// unset one) and `CpuFreq`.
    Unset(&'static str),
    /// `CpuFreq`: Slurm's unset frequencies.
    CpuFreq,
    /// An unknown code or name: nothing but its suffix.
    Invalid,
}

impl Column for StepField {
    fn from_code(code: char) -> Option<StepField> {
        Some(match code {
            'A' => StepField::NumTasks,
            'b' => StepField::TresPerNode,
            'i' => StepField::StepId,
            'j' => StepField::Name,
            'l' => StepField::TimeLimit,
            'M' => StepField::TimeUsed,
            'N' => StepField::Nodes,
            'P' => StepField::Partition,
            'S' => StepField::StartTime,
            'U' => StepField::UserId,
            'u' => StepField::UserName,
            _ => return None,
        })
    }

    fn from_name(name: &str) -> Option<StepField> {
        let n = name.to_ascii_lowercase();
        // squeue matches these two by prefix.
        if n.starts_with("container") {
            return Some(StepField::Unset("CONTAINER"));
        }
        if n.starts_with("numtask") {
            return Some(StepField::NumTasks);
        }
        Some(match n.as_str() {
            "cluster" => StepField::Cluster,
            "gres" | "tres-per-node" => StepField::TresPerNode,
            "stepid" => StepField::StepId,
            "stepname" => StepField::Name,
            "timelimit" => StepField::TimeLimit,
            "timeused" => StepField::TimeUsed,
            "nodes" => StepField::Nodes,
            "partition" => StepField::Partition,
            "starttime" => StepField::StartTime,
            "userid" => StepField::UserId,
            "username" => StepField::UserName,
            "arrayjobid" => StepField::ArrayJobId,
            "arraytaskid" => StepField::ArrayTaskId,
            "jobid" => StepField::JobId,
            "network" => StepField::Unset("NETWORK"),
            "numcpus" => StepField::NumCpus,
            "cpufreq" => StepField::CpuFreq,
            "resvports" => StepField::Unset("RESERVED_PORTS"),
            "stepstate" => StepField::State,
            "cpus-per-tres" => StepField::Unset("CPUS_PER_TRES"),
            "mem-per-tres" => StepField::Unset("MEM_PER_TRES"),
            "tres-bind" => StepField::Unset("TRES_BIND"),
            "tres-freq" => StepField::Unset("TRES_FREQ"),
            "tres-per-job" | "tres-per-step" => StepField::TresPerStep,
            "tres-per-socket" => StepField::Unset("TRES_PER_SOCKET"),
            "tres-per-task" => StepField::TresPerTask,
            _ => return None,
        })
    }

    fn invalid() -> StepField {
        StepField::Invalid
    }

    const KIND: &'static str = "job step";
}

impl StepField {
    fn header(self) -> &'static str {
        match self {
            StepField::StepId => "STEPID",
            StepField::Name => "NAME",
            StepField::Partition => "PARTITION",
            StepField::UserName => "USER",
            StepField::UserId => "UID",
            StepField::TimeUsed => "TIME",
            StepField::TimeLimit => "TIME_LIMIT",
            StepField::StartTime => "START_TIME",
            StepField::Nodes => "NODELIST",
            StepField::NumTasks => "TASKS",
            StepField::TresPerNode => "TRES_PER_JOB",
            StepField::TresPerStep => "TRES_PER_STEP",
            StepField::TresPerTask => "TRES_PER_TASK",
            StepField::NumCpus => "NUM_CPUS",
            StepField::State => "STATE",
            StepField::JobId => "JOB_ID",
            StepField::ArrayJobId => "ARRAY_JOB_ID",
            StepField::ArrayTaskId => "ARRAY_TASK_ID",
            StepField::Cluster => "CLUSTER",
            StepField::Unset(h) => h,
            StepField::CpuFreq => "CPU_FREQ",
            StepField::Invalid => "",
        }
    }

    /// The cell, and whether a right-justified one is cut to the width.
    fn cell(self, s: &StepInfo, now: u64, cluster: Option<&str>) -> (Option<String>, bool) {
        let text = match self {
            StepField::StepId => step_id_text(s),
            StepField::Name => s.name.clone(),
            StepField::Partition => s.partition.clone(),
            StepField::UserName => s.user_name.clone(),
            StepField::UserId => s.user_id.to_string(),
            StepField::TimeUsed => {
                let used = now.saturating_sub(s.start_time) as i64;
                return (Some(secs(used)), false);
            }
            StepField::TimeLimit => match s.time_limit {
                None => "UNLIMITED".to_string(),
                Some(l) => return (Some(secs(l as i64)), false),
            },
            StepField::StartTime => {
                spur_slurm::time::timestamp_or_na(Some(s.start_time).filter(|&t| t > 0))
            }
            StepField::Nodes => return (Some(nodes_sorted(&s.nodes)), false),
            StepField::NumTasks => s.num_tasks.to_string(),
            StepField::TresPerNode => return (s.tres_per_node.clone(), true),
            StepField::TresPerStep => return (s.tres_per_step.clone(), true),
            StepField::TresPerTask => return (s.tres_per_task.clone(), true),
            StepField::NumCpus => s.num_cpus.to_string(),
            StepField::State => "RUNNING".to_string(),
            StepField::JobId => s.job_id.to_string(),
            // An unset array id is 0 in Slurm's step record.
            StepField::ArrayJobId => s.array.map_or(0, |a| a.0).to_string(),
            StepField::ArrayTaskId => s.array.map_or_else(|| "N/A".into(), |a| a.1.to_string()),
            StepField::Cluster => return (cluster.map(str::to_string), true),
            StepField::Unset(_) | StepField::Invalid => return (None, true),
            StepField::CpuFreq => match s.step {
                StepId::Numbered(_) => "Unknown-Unknown:Unknown".to_string(),
                _ => "0-0:0".to_string(),
            },
        };
        (Some(text), true)
    }
}

/// `12.0`, `12.batch`, or `12_3.0` for a task of an array.
pub fn step_id_text(s: &StepInfo) -> String {
    match s.array {
        Some((array, task)) => format!("{array}_{task}.{}", s.step),
        None => format!("{}.{}", s.job_id, s.step),
    }
}

pub use spur_slurm::step_ref::{squeue_steps as parse_steps, StepSel};

/// What a step report keeps: the query's jobs, partitions, nodes and users
/// (Slurm's _filter_step), and the `-s` list.
pub fn keep(step: &StepInfo, q: &Query, list: Option<&[StepSel]>) -> bool {
    let names = |job: u32, task: Option<u32>| match task {
        None => job == step.job_id || step.array.is_some_and(|a| a.0 == job),
        Some(t) => step.array == Some((job, t)),
    };
    let jobs_ok = q
        .jobs
        .as_ref()
        .is_none_or(|sels| sels.iter().any(|&JobSel { job, task }| names(job, task)));
    let number = match step.step {
        StepId::Numbered(n) => n,
        // slurm_step_id's batch value, as slurmctld numbers it.
        _ => 0xffff_fffb,
    };
    let list_ok = list.is_none_or(|sels| {
        sels.iter()
            .any(|s| s.step == number && names(s.job, s.task))
    });
    let part_ok = q
        .partitions
        .as_ref()
        .is_none_or(|p| p.contains(&step.partition));
    let nodes_ok = q.nodes.as_ref().is_none_or(|wanted| {
        spur_conf::hostlist::expand(&step.nodes)
            .is_ok_and(|have| have.iter().any(|n| wanted.contains(n)))
    });
    let user_ok = q.users.as_ref().is_none_or(|u| u.contains(&step.user_id));
    jobs_ok && list_ok && part_ok && nodes_ok && user_ok
}

/// Renders `steps` as `squeue --steps` prints them: kept by the query,
/// ordered by partition, then job and step (batch steps last), as the
/// default sort `P,i` orders them.
pub fn render(
    steps: &[StepInfo],
    q: &Query,
    list: Option<&[StepSel]>,
    format: &StepFormat,
    now: u64,
) -> String {
    let mut rows: Vec<&StepInfo> = steps.iter().filter(|s| keep(s, q, list)).collect();
    let number = |s: &StepInfo| match s.step {
        StepId::Numbered(n) => n,
        _ => u32::MAX,
    };
    rows.sort_by(|a, b| {
        (&a.partition, a.job_id, number(a)).cmp(&(&b.partition, b.job_id, number(b)))
    });
    let mut out = String::new();
    if !format.no_header {
        line(
            &mut out,
            &format.items,
            None,
            now,
            format.cluster.as_deref(),
        );
    }
    for s in rows {
        line(
            &mut out,
            &format.items,
            Some(s),
            now,
            format.cluster.as_deref(),
        );
    }
    out
}

/// A step report's layout.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StepFormat {
    /// The columns.
    pub items: Vec<Item<StepField>>,
    /// `-h`.
    pub no_header: bool,
    /// The cluster's name, for `Cluster`.
    pub cluster: Option<String>,
}

fn line(
    out: &mut String,
    items: &[Item<StepField>],
    step: Option<&StepInfo>,
    now: u64,
    cluster: Option<&str>,
) {
    for item in items {
        let spec: &Spec<StepField> = match item {
            Item::Text(text) => {
                out.push_str(text);
                continue;
            }
            Item::Field(spec) => spec,
        };
        if spec.field != StepField::Invalid {
            match step {
                // START_TIME's header is left-justified whatever the
                // column, and NODELIST's is never cut (print.c).
                None => {
                    let right = spec.right && spec.field != StepField::StartTime;
                    let cut = spec.field != StepField::Nodes;
                    print_str(out, Some(spec.field.header()), spec.width, right, cut);
                }
                Some(s) => {
                    let (text, cut) = spec.field.cell(s, now, cluster);
                    print_str(out, text.as_deref(), spec.width, spec.right, cut);
                }
            }
        }
        out.push_str(&spec.suffix);
    }
    out.push('\n');
}
