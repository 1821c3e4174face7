//! `scontrol show job`: one job as Slurm 22.05's `slurm_sprint_job_info`
//! (`src/api/job_info.c`) lays it out, from the controller's `JobInfo`.
//! Pure: a job and the time in, text out.

use spur_slurm::locale::Locale;

use super::ShowOpts;
use spur_proto::{ExclusiveMode, JobInfo, JobStateName, MemSpec};

/// Collects `key=value` lines joined by the line end.
struct Lines {
    out: String,
    end: &'static str,
}

impl Lines {
    fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str(text.as_ref());
        self.out.push_str(self.end);
    }
}

fn or_null(v: Option<&String>) -> &str {
    v.map_or("(null)", String::as_str)
}

/// A job's record; `task` shows one task of a pending array record (for
/// `show job 8_3`).
pub fn render_job(
    job: &JobInfo,
    now: u64,
    opts: ShowOpts,
    task: Option<u32>,
    locale: &Locale,
) -> String {
    let mut l = Lines {
        out: String::new(),
        end: opts.line_end(),
    };
    l.line(format!(
        "JobId={} {}JobName={}",
        job.job_id,
        array_ids(job, task),
        job.name
    ));
    l.line(format!(
        "UserId={}({}) GroupId={}({}) MCS_label=N/A",
        job.user_name, job.user_id, job.group_name, job.group_id
    ));
    l.line(format!(
        "Priority={} Nice={} Account={} QOS={}",
        job.priority,
        job.nice,
        or_null(job.account.as_ref()),
        job.qos
    ));
    l.line(format!(
        "JobState={} Reason={} Dependency={}",
        job.state.as_str(),
        job.reason.replace(char::is_whitespace, "_"),
        or_null(job.dependency.as_ref())
    ));
    let exit = format!("{}:{}", job.exit_code, job.exit_signal);
    l.line(format!(
        "Requeue={} Restarts={} BatchFlag={} Reboot=0 ExitCode={exit}",
        u8::from(job.requeue),
        job.restarts,
        u8::from(job.batch)
    ));
    if opts.details {
        l.line(format!("DerivedExitCode={exit}"));
    }
    times(&mut l, job, now, locale);
    placement(&mut l, job);
    if opts.details {
        details(&mut l, job);
    }
    requirements(&mut l, job);
    files(&mut l, job);
    tres_lines(&mut l, job);
    let mut out = l.out;
    out.push_str(opts.record_end());
    out
}

/// `ArrayJobId=8 ArrayTaskId=0 ArrayTaskThrottle=2 `, or nothing.
fn array_ids(job: &JobInfo, task: Option<u32>) -> String {
    let Some(array) = job.array_job_id else {
        return String::new();
    };
    let pending = job.array_task_str.as_deref().filter(|_| task.is_none());
    let tasks = match pending {
        Some(s) => s.to_string(),
        None => task.or(job.array_task_id).unwrap_or(0).to_string(),
    };
    let throttle = match job.array_task_throttle {
        0 => String::new(),
        n => format!("ArrayTaskThrottle={n} "),
    };
    format!("ArrayJobId={array} ArrayTaskId={tasks} {throttle}")
}

fn times(l: &mut Lines, job: &JobInfo, now: u64, locale: &Locale) {
    let run = match (job.state, job.start_time) {
        (JobStateName::Pending | JobStateName::SpecialExit, _) | (_, None) => 0,
        (JobStateName::Running | JobStateName::Completing, Some(s)) => now.saturating_sub(s),
        (_, Some(s)) => job.end_time.unwrap_or(now).saturating_sub(s),
    };
    let min = job
        .time_min
        .map_or_else(|| "N/A".to_string(), spur_slurm::time::duration_full);
    l.line(format!(
        "RunTime={} TimeLimit={} TimeMin={min}",
        spur_slurm::time::duration_full(run),
        spur_slurm::time::limit_full(job.time_limit)
    ));
    let t = |v: Option<u64>| locale.time_or_unknown(v.unwrap_or(0));
    l.line(format!(
        "SubmitTime={} EligibleTime={}",
        t(Some(job.submit_time)),
        t(Some(job.eligible_time))
    ));
    l.line(format!("AccrueTime={}", t(accrue_time(job))));
    let end = match job.end_time {
        Some(e) if job.time_limit.is_none() && e > now => "Unknown".to_string(),
        other => t(other),
    };
    let deadline = job
        .deadline
        .map_or_else(|| "N/A".to_string(), |d| t(Some(d)));
    l.line(format!(
        "StartTime={} EndTime={end} Deadline={deadline}",
        t(job.start_time)
    ));
    l.line(format!(
        "SuspendTime=None SecsPreSuspend=0 LastSchedEval={} Scheduler=Main",
        t(job.last_sched_eval)
    ));
}

/// When the job began to accrue age priority: its eligible time, unless a
/// hold or an unmet dependency keeps it from accruing. (JobInfo carries no
/// accrue time of its own.)
fn accrue_time(job: &JobInfo) -> Option<u64> {
    let waiting = job.state == JobStateName::Pending
        && ["JobHeld", "Dependency", "BeginTime"]
            .iter()
            .any(|r| job.reason.starts_with(r));
    (!waiting).then_some(job.eligible_time)
}

fn placement(l: &mut Lines, job: &JobInfo) {
    l.line(format!(
        "Partition={} AllocNode:Sid={}:0",
        job.partition, job.submit_host
    ));
    l.line(format!(
        "ReqNodeList={} ExcNodeList={}",
        or_null(job.req_nodes.as_ref()),
        or_null(job.exc_nodes.as_ref())
    ));
    let mut nodes = format!("NodeList={}", sorted_hostlist(&job.nodes));
    if let Some(s) = &job.sched_nodes {
        nodes.push_str(&format!(" SchedNodeList={s}"));
    }
    l.line(nodes);
    if let Some(host) = &job.batch_host {
        l.line(format!("BatchHost={host}"));
    }
    l.line(format!(
        "NumNodes={} NumCPUs={} NumTasks={} CPUs/Task={} ReqB:S:C:T=0:0:*:*",
        job.num_nodes, job.num_cpus, job.num_tasks, job.cpus_per_task
    ));
    l.line(format!(
        "TRES={}",
        job.tres.map(|t| t.job_text()).unwrap_or_default()
    ));
    l.line(format!(
        "Socks/Node=* NtasksPerN:B:S:C={}:0:*:* CoreSpec=*",
        job.ntasks_per_node
    ));
}

/// A hostlist re-sorted as slurmctld prints NodeList.
fn sorted_hostlist(nodes: &str) -> String {
    match spur_conf::hostlist::expand(nodes) {
        Ok(names) => spur_conf::hostlist::compress_sorted(&names),
        Err(_) => nodes.to_string(),
    }
}

/// `-d`: the GRES total and each group of nodes with the same allocation.
fn details(l: &mut Lines, job: &JobInfo) {
    let names = spur_conf::hostlist::expand(&job.nodes).unwrap_or_default();
    if names.is_empty() || job.cpus_per_node.is_empty() {
        return;
    }
    let gpus: usize = job.gpus_per_node_idx.iter().map(Vec::len).sum();
    let total = if gpus > 0 {
        format!("gpu:{gpus}")
    } else {
        "(null)".to_string()
    };
    l.line(format!("JOB_GRES={total}"));
    let mut groups: Vec<(Vec<&str>, String)> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let alloc = node_alloc(job, i);
        match groups.last_mut() {
            Some((hosts, last)) if *last == alloc => hosts.push(name),
            _ => groups.push((vec![name], alloc)),
        }
    }
    for (hosts, alloc) in groups {
        l.line(format!(
            "  Nodes={} {alloc}",
            spur_conf::hostlist::compress(&hosts)
        ));
    }
}

/// `CPU_IDs=0-3 Mem=4096 GRES=gpu:4(IDX:0-3)` for the i-th node. JobInfo
/// has CPU counts, not CPU ids, so the ids shown are the first ones.
fn node_alloc(job: &JobInfo, i: usize) -> String {
    let cpus = job.cpus_per_node.get(i).copied().unwrap_or(0);
    let ids = if cpus > 1 {
        format!("0-{}", cpus - 1)
    } else {
        "0".to_string()
    };
    let idx = job.gpus_per_node_idx.get(i).cloned().unwrap_or_default();
    let mem = match job.mem {
        MemSpec::PerCpu(m) => m * u64::from(cpus),
        MemSpec::PerNode(m) => m,
        MemSpec::PerGpu(m) => m * idx.len() as u64,
        MemSpec::Default => tres_mem(job) / u64::from(job.num_nodes.max(1)),
    };
    let gres = if idx.is_empty() {
        String::new()
    } else {
        format!(
            "gpu:{}(IDX:{})",
            idx.len(),
            spur_slurm::print::bit_fmt(&idx)
        )
    };
    format!("CPU_IDs={ids} Mem={mem} GRES={gres}")
}

/// The memory of a job's TRES, in MiB.
fn tres_mem(job: &JobInfo) -> u64 {
    job.tres.map_or(0, |t| t.mem_mb)
}

fn requirements(l: &mut Lines, job: &JobInfo) {
    let min_cpus = job.cpus_per_task * job.ntasks_per_node.max(1);
    let (kind, mem) = match job.mem {
        MemSpec::PerCpu(m) => ("CPU", m),
        MemSpec::PerNode(m) => ("Node", m),
        MemSpec::PerGpu(_) => ("Node", 0),
        MemSpec::Default => {
            let total = tres_mem(job);
            match u64::from(job.num_cpus) {
                0 => ("Node", 0),
                n => ("CPU", total / n),
            }
        }
    };
    l.line(format!(
        "MinCPUsNode={min_cpus} MinMemory{kind}={} MinTmpDiskNode=0",
        spur_slurm::units::memory(mem, false)
    ));
    l.line(format!(
        "Features={} DelayBoot=00:00:00",
        or_null(job.features.as_ref())
    ));
    let share = match job.exclusive {
        ExclusiveMode::No => "OK",
        ExclusiveMode::Node => "NO",
        ExclusiveMode::User => "USER",
        ExclusiveMode::Topo => "TOPO",
    };
    l.line(format!(
        "OverSubscribe={share} Contiguous={} Licenses=(null) Network=(null)",
        u8::from(job.contiguous)
    ));
    l.line(format!("Command={}", or_null(job.command.as_ref())));
}

fn files(l: &mut Lines, job: &JobInfo) {
    let mut last = format!("WorkDir={}", job.work_dir);
    if let Some(c) = &job.comment {
        l.line(last);
        last = format!("Comment={c} ");
    }
    if job.batch {
        for (key, path) in [
            ("StdErr", &job.stderr),
            ("StdIn", &job.stdin),
            ("StdOut", &job.stdout),
        ] {
            l.line(last);
            last = format!("{key}={path}");
        }
    }
    l.line(last);
    l.out.push_str("Power=");
}

fn tres_lines(l: &mut Lines, job: &JobInfo) {
    let mut extra: Vec<String> = Vec::new();
    if let MemSpec::PerGpu(m) = job.mem {
        extra.push(format!("MemPerTres=gres:gpu:{m}"));
    }
    for (key, v) in [
        ("TresPerJob", &job.tres_per_job),
        ("TresPerNode", &job.tres_per_node),
        ("TresPerTask", &job.tres_per_task),
    ] {
        if let Some(v) = v {
            extra.push(format!("{key}={v}"));
        }
    }
    for line in extra {
        l.out.push_str(l.end);
        l.out.push_str(&line);
    }
    l.out.push_str(l.end);
}
