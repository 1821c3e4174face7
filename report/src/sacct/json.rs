//! `sacct --json`: the jobs in the shape Slurm 22.05 prints, the slurmdbd
//! v0.0.38 job dump (`spur_slurm::openapi::dbv0038::Jobs`), with the values Slurm
//! gives a record that has no data for them, written by serde's pretty
//! printer. Pure: jobs in, text out.

use spur_proto::{HistoryJob, HistoryStep, StepId, Tres};
use spur_slurm::openapi::dbv0038::{
    self as api, ActualFrequency, ArrayLimits, ArrayMax, Association, Comment, Consumed, CpuTime,
    ExitStatus, Frequency, Het, HetComponent, JobArray, JobState, JobTime, JobTres, Mcs, Required,
    Reservation, RunningTasks, Statistics, StepCpu, StepIdValue, StepName, StepNodes, StepTask,
    StepTime, StepTres, TaskCount, TresItem, Usage, Wckey,
};

use super::field::{job_elapsed, step_elapsed};

/// An exit status as the v0.0.38 dumper writes it: it tests the wait
/// status with WIFEXITED and reports every normal exit, whatever its code,
/// as SUCCESS with return code 0; a signal as SIGNALED with the signal.
fn exit_code(signal: i32) -> ExitStatus {
    if signal == 0 {
        ExitStatus {
            status: "SUCCESS".into(),
            return_code: Some(0),
            signal: None,
        }
    } else {
        ExitStatus {
            status: "SIGNALED".into(),
            return_code: None,
            signal: Some(api::Signal {
                signal_id: signal.into(),
                name: spur_slurm::signal::description(signal).to_string(),
            }),
        }
    }
}

fn tres_item(kind: &str, name: Option<&str>, id: i64, count: u64) -> TresItem {
    TresItem {
        kind: kind.into(),
        name: name.map(str::to_string),
        id,
        count: count as i64,
    }
}

/// TRES counts as accounting lists them, by TRES id: (type, name, id,
/// count) for cpu 1, mem 2, node 4, billing 5 and gres/gpu 1001, zero
/// counts left out. Every JSON shape of a TRES list is written from these.
pub fn tres_counts(t: &Tres) -> Vec<(&'static str, Option<&'static str>, i64, u64)> {
    let counts = [
        ("cpu", None, 1, u64::from(t.cpus)),
        ("mem", None, 2, t.mem_mb),
        ("node", None, 4, u64::from(t.nodes)),
        ("billing", None, 5, u64::from(t.billing)),
        ("gres", Some("gpu"), 1001, u64::from(t.gpus)),
    ];
    counts.into_iter().filter(|c| c.3 > 0).collect()
}

fn tres_list(t: &Tres) -> Vec<TresItem> {
    tres_counts(t)
        .into_iter()
        .map(|(kind, name, id, count)| tres_item(kind, name, id, count))
        .collect()
}

/// What a step's tasks took in (`output` false) or put out, by figure;
/// with nothing sampled, zero energy, the only usage such a step records.
fn usage(st: &HistoryStep, output: bool) -> Usage {
    let Some(u) = st.usage.as_ref().filter(|u| u.measured()) else {
        let energy = || vec![tres_item("energy", None, 3, 0)];
        return Usage {
            max: Vec::new(),
            min: Vec::new(),
            average: energy(),
            total: energy(),
        };
    };
    let list = |pick| {
        crate::usage::tres_items(u, output, pick)
            .into_iter()
            .map(|(kind, name, id, count)| tres_item(kind, name, id, count))
            .collect()
    };
    use crate::usage::Pick;
    Usage {
        max: list(Pick::Max),
        min: list(Pick::Min),
        average: list(Pick::Ave),
        total: list(Pick::Tot),
    }
}

fn step(job: &HistoryJob, st: &HistoryStep, ctx: &Ctx) -> api::Step {
    let batch = st.step == StepId::Batch;
    let (freq, governor) = if batch {
        (Some(0), Vec::new())
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
        (None, all.into_iter().map(str::to_string).collect())
    };
    api::Step {
        nodes: StepNodes {
            list: spur_conf::hostlist::expand(&st.nodes).unwrap_or_default(),
            count: st.node_count.into(),
            range: st.nodes.clone(),
        },
        tres: StepTres {
            requested: usage(st, false),
            consumed: usage(st, true),
            allocated: tres_list(&st.allocated),
        },
        time: StepTime {
            elapsed: step_elapsed(st, ctx.now) as i64,
            end: st.end_time.unwrap_or(0) as i64,
            start: st.start_time as i64,
            suspended: 0,
            system: CpuTime::from_micros(st.system_cpu_us),
            total: CpuTime::from_micros(st.user_cpu_us + st.system_cpu_us),
            user: CpuTime::from_micros(st.user_cpu_us),
        },
        exit_code: exit_code(st.exit_signal),
        tasks: TaskCount {
            count: st.ntasks.into(),
        },
        pid: None,
        cpu: StepCpu {
            requested_frequency: Frequency {
                min: freq,
                max: freq,
            },
            governor,
        },
        kill_request_user: st.cancelled_by.map(ctx.user_name),
        state: st.state.as_str().to_string(),
        statistics: Statistics {
            cpu: ActualFrequency {
                actual_frequency: 0,
            },
            energy: Consumed { consumed: 0 },
        },
        step: StepName {
            job_id: job.job_id.into(),
            het: HetComponent { component: None },
            id: match st.step {
                StepId::Numbered(n) => StepIdValue::Number(n.into()),
                other => StepIdValue::Name(other.to_string()),
            },
            name: st.name.clone(),
        },
        task: StepTask {
            distribution: st.layout.clone().unwrap_or_else(|| "Unknown".into()),
        },
    }
}

fn job(j: &HistoryJob, steps: &[&HistoryStep], ctx: &Ctx) -> api::Job {
    let zero_cpu = || CpuTime::from_micros(0);
    let flags = if j.start_time.is_some() {
        vec!["CLEAR_SCHEDULING".into(), "STARTED_ON_SCHEDULE".into()]
    } else {
        Vec::new()
    };
    let start = match (j.start_time, j.end_time) {
        (Some(t), _) => Some(t as i64),
        (None, Some(_)) => None,
        (None, None) => Some(0),
    };
    api::Job {
        account: j.account.clone(),
        comment: Comment {
            administrator: None,
            job: j.comment.clone(),
            system: None,
        },
        allocation_nodes: j.allocated.map_or(0, |a| a.nodes).into(),
        array: JobArray {
            job_id: j.array_job_id.unwrap_or(0).into(),
            limits: ArrayLimits {
                max: ArrayMax {
                    running: RunningTasks { tasks: 0 },
                },
            },
            task: j.array_task_str.clone(),
            task_id: j.array_task_id.map(i64::from),
        },
        association: Association {
            account: j.account.clone(),
            cluster: ctx.cluster.into(),
            partition: None,
            user: j.user_name.clone(),
        },
        cluster: ctx.cluster.into(),
        constraints: j.constraints.clone().unwrap_or_default(),
        container: None,
        derived_exit_code: exit_code(j.derived_exit_signal),
        time: JobTime {
            elapsed: job_elapsed(j, ctx.now) as i64,
            eligible: j.eligible_time.unwrap_or(0) as i64,
            end: j.end_time.unwrap_or(0) as i64,
            start,
            submission: j.submit_time as i64,
            suspended: 0,
            system: zero_cpu(),
            limit: j.time_limit.map(|t| t.div_ceil(60) as i64),
            total: zero_cpu(),
            user: zero_cpu(),
        },
        exit_code: exit_code(j.exit_signal),
        flags,
        group: j.group_name.clone(),
        het: Het {
            job_id: 0,
            job_offset: None,
        },
        job_id: j.job_id.into(),
        name: j.name.clone(),
        mcs: Mcs {
            label: String::new(),
        },
        nodes: if j.nodes.is_empty() {
            "None assigned".to_string()
        } else {
            j.nodes.clone()
        },
        partition: j.partition.clone(),
        priority: j.priority.into(),
        qos: j.qos.clone(),
        required: Required {
            cpus: j.requested.cpus.into(),
            memory: j.req_mem_mb as i64,
        },
        kill_request_user: j.cancelled_by.map(ctx.user_name),
        reservation: Reservation { id: 0, name: 0 },
        state: JobState {
            current: j.state.as_str().to_string(),
            reason: j.reason.clone(),
        },
        steps: steps.iter().map(|st| step(j, st, ctx)).collect(),
        tres: JobTres {
            allocated: j.allocated.map_or_else(Vec::new, |a| tres_list(&a)),
            requested: tres_list(&j.requested),
        },
        user: j.user_name.clone(),
        wckey: Wckey {
            wckey: String::new(),
            flags: Vec::new(),
        },
        working_directory: j.work_dir.clone(),
    }
}

/// What the document needs besides the records.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The cluster's name.
    pub cluster: &'a str,
    /// The controller's clock, for the elapsed time of running jobs.
    pub now: u64,
    /// The name of a uid (`spur_sys::users::name_of` where a command runs).
    pub user_name: fn(u32) -> String,
}

/// The document for `jobs`, each with the steps given for it.
pub fn document(jobs: &[(&HistoryJob, Vec<&HistoryStep>)], ctx: &Ctx) -> api::Jobs {
    api::Jobs {
        meta: spur_slurm::openapi::Meta::dbv0038(spur_proto::SLURM_COMPAT_VERSION),
        errors: Vec::new(),
        jobs: jobs.iter().map(|(j, steps)| job(j, steps, ctx)).collect(),
    }
}

/// `sacct --json` for `jobs`.
pub fn render_json(jobs: &[(&HistoryJob, Vec<&HistoryStep>)], ctx: &Ctx) -> String {
    spur_slurm::openapi::document_text(&document(jobs, ctx))
}
