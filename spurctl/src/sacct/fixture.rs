//! The jobs of the recording in ../shared/slurm-reference/90-97 (sacct on
//! real Slurm 22.05.8, 72 GB200-like nodes, user anchor 2001, account
//! research), as the controller would answer them. Test data only.

use spur_proto::{HistoryJob, HistoryStep, JobStateName, StepId, Tres};

/// Submit time of job 0 of the recording; job 31 was submitted at
/// 1795993519 (95-sacct-json.txt).
const BASE: u64 = 1_795_993_488;

fn tres(cpus: u32, gpus: u32, mem_gb: u64, nodes: u32, billing: bool) -> Tres {
    Tres {
        cpus,
        mem_mb: mem_gb * 1024,
        nodes,
        billing: if billing { cpus } else { 0 },
        gpus,
    }
}

/// A job of the recording: ran from `start` for `ran` seconds on `nodes`
/// (never when `start` is None).
struct Spec {
    id: u32,
    name: &'static str,
    partition: &'static str,
    state: JobStateName,
    by: Option<u32>,
    exit: (i32, i32),
    tres: Tres,
    nodes: &'static str,
    ran: Option<u64>,
    submit: u64,
    array: Option<(u32, u32)>,
}

fn spec(id: u32, name: &'static str, state: JobStateName) -> Spec {
    Spec {
        id,
        name,
        partition: "batch",
        state,
        by: None,
        exit: (0, 0),
        tres: tres(1, 0, 4, 1, true),
        nodes: "gb001",
        ran: Some(0),
        submit: BASE + u64::from(id),
        array: None,
    }
}

fn batch(job: &HistoryJob, state: JobStateName, exit: (i32, i32), t: Tres) -> HistoryStep {
    HistoryStep {
        step: StepId::Batch,
        name: "batch".into(),
        state,
        cancelled_by: None,
        exit_code: exit.0,
        exit_signal: exit.1,
        start_time: job.start_time.unwrap_or(0),
        end_time: job.end_time,
        nodes: spur_conf::hostlist::expand(&job.nodes)
            .ok()
            .and_then(|n| n.into_iter().next())
            .unwrap_or_default(),
        node_count: 1,
        ntasks: 1,
        allocated: t,
        layout: None,
        user_cpu_us: 0,
        system_cpu_us: 0,
        usage: None,
    }
}

fn job(s: Spec) -> HistoryJob {
    let start = s.ran.map(|_| s.submit + 1);
    HistoryJob {
        job_id: s.id,
        array_job_id: s.array.map(|a| a.0),
        array_task_id: s.array.map(|a| a.1),
        array_task_str: None,
        name: s.name.into(),
        user_id: 2001,
        user_name: "anchor".into(),
        group_id: 2001,
        group_name: "anchor".into(),
        account: Some("research".into()),
        partition: s.partition.into(),
        qos: "normal".into(),
        state: s.state,
        cancelled_by: s.by,
        reason: "None".into(),
        exit_code: s.exit.0,
        exit_signal: s.exit.1,
        derived_exit_code: 0,
        derived_exit_signal: 0,
        submit_time: s.submit,
        eligible_time: Some(s.submit),
        start_time: start,
        end_time: Some(start.unwrap_or(s.submit) + s.ran.unwrap_or(0)),
        time_limit: None,
        priority: 4_294_901_735,
        nodes: if s.ran.is_some() {
            s.nodes.into()
        } else {
            String::new()
        },
        requested: s.tres,
        req_mem_mb: 4096,
        req_mem_per_cpu: true,
        allocated: s.ran.map(|_| s.tres),
        work_dir: "/var/tmp/slurm-anchor".into(),
        comment: None,
        constraints: None,
        steps: Vec::new(),
    }
}

/// A job cancelled while it ran: its batch script got SIGTERM.
fn cancelled(mut s: Spec, by: u32, ran: u64) -> HistoryJob {
    s.state = JobStateName::Cancelled;
    s.by = Some(by);
    s.ran = Some(ran);
    let batch_tres = Tres {
        cpus: 1,
        mem_mb: 4096,
        nodes: 1,
        billing: 0,
        gpus: s.tres.gpus / s.tres.nodes,
    };
    let mut j = job(s);
    let b = batch(&j, JobStateName::Cancelled, (0, 15), batch_tres);
    j.steps.push(b);
    j
}

/// A job that ran to its end with exit 0.
fn completed(s: Spec, ran: u64) -> HistoryJob {
    let mut j = job(Spec {
        ran: Some(ran),
        ..s
    });
    let b = batch(&j, JobStateName::Completed, (0, 0), tres(1, 0, 4, 1, false));
    j.steps.push(b);
    j
}

/// A job that never started.
fn never(mut s: Spec, state: JobStateName, by: Option<u32>) -> HistoryJob {
    s.state = state;
    s.by = by;
    s.ran = None;
    if state == JobStateName::Failed {
        s.exit = (1, 0);
    }
    job(s)
}

fn array(s: Spec, array: u32, task: u32, submit: u64) -> Spec {
    Spec {
        array: Some((array, task)),
        submit,
        ..s
    }
}

/// Job 31: two nodes, 8 CPUs and GPUs, a batch step and three srun steps.
fn envjob() -> HistoryJob {
    use JobStateName::Completed;
    let mut j = job(Spec {
        tres: tres(8, 8, 32, 2, true),
        nodes: "gb[001-002]",
        ran: Some(1),
        ..spec(31, "envjob", Completed)
    });
    j.time_limit = Some(300);
    let mut b = batch(&j, Completed, (0, 0), tres(4, 4, 16, 1, false));
    (b.user_cpu_us, b.system_cpu_us) = (5_605, 41_763);
    let srun = |id, ntasks, t: Tres, nodes: &str, start, end, cpu: (u64, u64)| HistoryStep {
        step: StepId::Numbered(id),
        name: "bash".into(),
        state: Completed,
        cancelled_by: None,
        exit_code: 0,
        exit_signal: 0,
        start_time: start,
        end_time: Some(end),
        nodes: nodes.into(),
        node_count: t.nodes,
        ntasks,
        allocated: t,
        layout: Some("Block".into()),
        user_cpu_us: cpu.0,
        system_cpu_us: cpu.1,
        usage: None,
    };
    let (start, end) = (j.start_time.unwrap_or(0), j.end_time.unwrap_or(0));
    let two = tres(8, 8, 32, 2, false);
    let one = tres(4, 4, 16, 1, false);
    j.steps = vec![
        b,
        srun(0, 8, two, "gb[001-002]", start, end, (11_390, 9_499)),
        srun(1, 8, two, "gb[001-002]", end, end, (10_000, 8_000)),
        srun(2, 1, one, "gb001", end, end, (1_000, 2_000)),
    ];
    j
}

/// Every job of the recording, 1 to 36, in id order.
pub fn jobs() -> Vec<HistoryJob> {
    use JobStateName::{Cancelled, Completed, Failed};
    let same_second = BASE + 25;
    let mut out = vec![
        cancelled(spec(1, "wrap", Cancelled), 0, 17),
        cancelled(spec(2, "wrap", Cancelled), 0, 17),
        completed(spec(3, "wrap", Completed), 0),
        cancelled(
            Spec {
                tres: tres(2, 8, 8, 2, true),
                nodes: "gb[001-002]",
                ..spec(5, "big2x4", Cancelled)
            },
            2001,
            5,
        ),
    ];
    let mut one_gpu = job(Spec {
        tres: tres(1, 1, 4, 1, true),
        nodes: "gb003",
        ran: Some(10),
        exit: (0, 10),
        ..spec(6, "one-gpu", Failed)
    });
    let b = batch(
        &one_gpu,
        Cancelled,
        (0, 10),
        Tres {
            billing: 0,
            ..tres(1, 1, 4, 1, false)
        },
    );
    one_gpu.steps.push(b);
    out.push(one_gpu);
    out.push(cancelled(
        Spec {
            partition: "debug",
            tres: tres(1, 2, 4, 1, true),
            nodes: "gb003",
            ..spec(7, "dbg", Cancelled)
        },
        0,
        17,
    ));
    out.push(cancelled(
        array(spec(9, "arr", Cancelled), 8, 0, BASE + 8),
        0,
        17,
    ));
    out.push(cancelled(
        array(spec(10, "arr", Cancelled), 8, 1, BASE + 8),
        0,
        17,
    ));
    out.push(never(
        Spec {
            tres: tres(72, 0, 288, 72, true),
            ..spec(11, "whole-cluster", Cancelled)
        },
        Cancelled,
        Some(2001),
    ));
    out.push(completed(spec(14, "ok", Completed), 2));
    out.push(completed(spec(15, "after-ok", Completed), 0));
    out.push(never(spec(16, "wrap", Failed), Failed, None));
    out.push(never(spec(17, "wrap", Failed), Failed, None));
    out.push(never(
        Spec {
            tres: tres(100, 0, 400, 2, true),
            ..spec(18, "wrap", Cancelled)
        },
        Cancelled,
        Some(0),
    ));
    out.push(never(spec(19, "wrap", Failed), Failed, None));
    out.push(never(
        Spec {
            partition: "debug",
            ..spec(20, "wrap", Cancelled)
        },
        Cancelled,
        Some(0),
    ));
    out.push(completed(spec(21, "wrap", Completed), 0));
    out.push(completed(spec(23, "defname", Completed), 1));
    for (id, task) in [(28, 0), (29, 1), (24, 2)] {
        out.push(completed(
            array(spec(id, "defarr", Completed), 24, task, same_second),
            1,
        ));
    }
    out.push(completed(
        Spec {
            submit: same_second,
            ..spec(25, "patname", Completed)
        },
        1,
    ));
    for (id, task) in [(30, 3), (26, 4)] {
        out.push(completed(
            array(spec(id, "patarr", Completed), 26, task, same_second),
            1,
        ));
    }
    out.push(completed(
        Spec {
            submit: same_second,
            ..spec(27, "errsplit", Completed)
        },
        1,
    ));
    out.push(envjob());
    out.push(completed(
        Spec {
            tres: tres(2, 0, 8, 2, true),
            nodes: "gb[001-002]",
            ..spec(32, "gpu2", Completed)
        },
        0,
    ));
    out.push(completed(spec(33, "ok", Completed), 0));
    out.push(completed(spec(34, "ok", Completed), 0));
    let mut fails = job(Spec {
        ran: Some(0),
        exit: (3, 0),
        ..spec(35, "fails", Failed)
    });
    let b = batch(&fails, Failed, (3, 0), tres(1, 0, 4, 1, false));
    fails.steps.push(b);
    out.push(fails);
    out.push(cancelled(spec(36, "cancelled", Cancelled), 2001, 3));
    out.sort_by_key(|j| j.job_id);
    out
}
