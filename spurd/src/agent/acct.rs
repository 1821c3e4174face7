//! Job accounting on a node (Slurm's jobacct_gather/linux, with gpu/nvml's
//! per-process GPU use). Every JobAcctGatherFrequency the agent walks
//! /proc once, gives each process to the task whose process tree it is in
//! (a batch script, or a step's tasks as their step process lists them),
//! and keeps per task the peak and the latest of each reading: CPU time,
//! resident and virtual memory, major faults, bytes read and written, and,
//! where NVML is open, GPU memory and SM utilisation. When a step ends
//! here, what its tasks' reaper recorded (`wait4`'s totals) completes the
//! readings, and the tasks fold into one [`Usage`] for the node, as
//! slurmstepd folds its tasks before telling slurmctld.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use spur_conf::SlurmConf;
use spur_proto::{LiveUsage, TresUsage, Usage, UsageTres, BATCH_STEP};
use spur_supervise::rusage::TaskRusage;
use tracing::warn;

use super::nvml::GpuUsage;
use super::{launcher, stepd};

/// How usage is gathered on this node.
#[derive(Clone)]
pub struct AcctConf {
    /// How often running tasks are sampled (None: `task=0`, only when they
    /// end).
    pub frequency: Option<Duration>,
    /// GPU use per process, where NVML is open and GPU TRES are tracked.
    pub gpus: Option<Arc<dyn GpuUsage>>,
}

/// How long a step no longer running is kept for its end's record.
const FORGET_AFTER: Duration = Duration::from_secs(600);

/// Slurm's default JobAcctGatherFrequency for tasks, seconds.
const DEFAULT_FREQUENCY_SECS: u64 = 30;

impl AcctConf {
    /// The node's gathering per slurm.conf: None with
    /// `JobAcctGatherType=jobacct_gather/none` (Slurm's default), else
    /// sampling every `JobAcctGatherFrequency` task seconds.
    pub fn from_conf(conf: &SlurmConf) -> Option<AcctConf> {
        let kind = conf
            .other
            .get("jobacctgathertype")
            .map_or("jobacct_gather/none", String::as_str);
        match kind {
            "jobacct_gather/linux" | "jobacct_gather/cgroup" => {}
            "jobacct_gather/none" => return None,
            other => {
                warn!(
                    plugin = other,
                    "JobAcctGatherType names a plugin spur does not have; no usage is gathered"
                );
                return None;
            }
        }
        let secs = super::setting(
            conf,
            "jobacctgatherfrequency",
            DEFAULT_FREQUENCY_SECS,
            task_frequency,
            "JobAcctGatherFrequency has no task interval spur can read; sampling every 30 s",
        );
        Some(AcctConf {
            frequency: (secs > 0).then(|| Duration::from_secs(secs)),
            gpus: None,
        })
    }
}

/// Whether GPU use is gathered: when the accounting TRES name the GPUs
/// (Slurm adds gres/gpumem and gres/gpuutil beside gres/gpu) and
/// JobAcctGatherParams does not say `DisableGPUAcct`.
pub fn tracks_gpus(conf: &SlurmConf) -> bool {
    let named = conf.other.get("accountingstoragetres").is_some_and(|t| {
        spur_conf::comma_list(t).iter().any(|t| {
            ["gres/gpu", "gres/gpumem", "gres/gpuutil"]
                .iter()
                .any(|g| t.eq_ignore_ascii_case(g))
        })
    });
    let disabled = conf.other.get("jobacctgatherparams").is_some_and(|p| {
        spur_conf::comma_list(p)
            .iter()
            .any(|p| p.eq_ignore_ascii_case("DisableGPUAcct"))
    });
    named && !disabled
}

/// The task interval of a JobAcctGatherFrequency value: a bare number
/// (Slurm's older form) or `task=N` among other `type=N`s (absent: the
/// default).
fn task_frequency(value: &str) -> Option<u64> {
    let mut task = DEFAULT_FREQUENCY_SECS;
    for (i, item) in value.split(',').map(str::trim).enumerate() {
        let (key, n) = item.split_once('=').unwrap_or((item, ""));
        if key.eq_ignore_ascii_case("task") {
            task = n.parse().ok()?;
        } else if i == 0 && item.bytes().all(|b| b.is_ascii_digit()) && !item.is_empty() {
            task = item.parse().ok()?;
        } else if !item.contains('=') {
            return None;
        }
    }
    Some(task)
}

/// How often the gatherer looks for steps due a sample: a new step is
/// sampled within this of its start.
const TICK: Duration = Duration::from_secs(1);

/// How long the agent waits for a finished step's record before it
/// reports the end without one.
const FINISH_WAIT: Duration = Duration::from_secs(5);

/// A question for the gatherer's thread.
enum Ask {
    /// A step ended here: its record, with what its reaper recorded.
    Finish {
        key: StepKey,
        node: u32,
        rusage: Vec<(u32, TaskRusage)>,
        reply: tokio::sync::oneshot::Sender<Usage>,
    },
}

/// The node's gatherer on a thread of its own, so that a slow /proc walk
/// or an NVML call that hangs (a GPU fallen off the bus) never holds up the
/// agent's conversation with the controller.
#[derive(Clone)]
pub struct Acct {
    ask: std::sync::mpsc::Sender<Ask>,
}

impl Acct {
    /// Starts the thread: every [`TICK`] it samples the steps of `spool`
    /// that are due and sends their usage to `live` (dropping it when the
    /// agent is not keeping up), and it answers [`Acct::finish`].
    pub fn start(
        conf: AcctConf,
        spool: PathBuf,
        live: tokio::sync::mpsc::Sender<Vec<LiveUsage>>,
    ) -> std::io::Result<Acct> {
        let (ask, asked) = std::sync::mpsc::channel::<Ask>();
        std::thread::Builder::new()
            .name("acct".into())
            .spawn(move || {
                let mut g = Gatherer::new(conf);
                let mut next = Instant::now() + TICK;
                loop {
                    let wait = next.saturating_duration_since(Instant::now());
                    match asked.recv_timeout(wait) {
                        Ok(Ask::Finish {
                            key,
                            node,
                            rusage,
                            reply,
                        }) => {
                            let _ = reply.send(g.finish(key, node, &rusage));
                        }
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                    if Instant::now() >= next {
                        let sampled = g.sample(&running(&spool), Instant::now());
                        if !sampled.is_empty() {
                            let _ = live.try_send(sampled);
                        }
                        next = Instant::now() + TICK;
                    }
                }
            })?;
        Ok(Acct { ask })
    }

    /// The record of step `key` that ended on this node (its index `node`
    /// among the step's), with what its reaper recorded; None when the
    /// gatherer does not answer in time.
    pub async fn finish(
        &self,
        key: StepKey,
        node: u32,
        rusage: Vec<(u32, TaskRusage)>,
    ) -> Option<Usage> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.ask
            .send(Ask::Finish {
                key,
                node,
                rusage,
                reply,
            })
            .ok()?;
        match tokio::time::timeout(FINISH_WAIT, answer).await {
            Ok(Ok(usage)) => Some(usage),
            _ => {
                warn!(
                    job = key.job_id,
                    step = key.step_id,
                    "the usage gatherer did not answer; the step's end goes without its usage"
                );
                None
            }
        }
    }
}

/// A step on this node (its batch script is step [`BATCH_STEP`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StepKey {
    /// The job.
    pub job_id: u32,
    /// The step.
    pub step_id: u32,
}

/// A step's tasks here, to be sampled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// The step.
    pub key: StepKey,
    /// This node's index among the step's nodes (the launch's, which is
    /// the order of the step's hostlist, as sacct expands it).
    pub node: u32,
    /// The process group its tasks run in: a pid counts as a task's only
    /// while it is in it, so that a reused pid is never taken for one.
    pub pgid: i32,
    /// Its tasks: (global task id, the task's pid).
    pub tasks: Vec<(u32, i32)>,
}

/// The steps running on this node, from its spool: each batch script the
/// supervisors recorded and each step whose step process listed its tasks.
pub fn running(spool: &Path) -> Vec<Running> {
    let mut found = Vec::new();
    for job_id in super::fence::jobs_in(spool) {
        let job_dir = super::job_dir(spool, job_id);
        // A script forked and not yet ended leads a process group of its
        // own.
        if let Some(spur_supervise::Record {
            pid: Some(pid),
            end: None,
            ..
        }) = spur_supervise::read_record(&job_dir)
        {
            found.push(Running {
                key: StepKey {
                    job_id,
                    step_id: BATCH_STEP,
                },
                node: 0,
                pgid: pid,
                tasks: vec![(0, pid)],
            });
        }
        for step_id in launcher::step_ids(spool, job_id) {
            let dir = launcher::step_dir(spool, job_id, step_id);
            let pgid = std::fs::read_to_string(dir.join(stepd::PGID_FILE))
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
                .filter(|&p| p > 1);
            if let (Some((node, tasks)), Some(pgid)) = (read_tasks(&dir), pgid) {
                found.push(Running {
                    key: StepKey { job_id, step_id },
                    node,
                    pgid,
                    tasks,
                });
            }
        }
    }
    found.sort_by_key(|r| r.key);
    found
}

/// The step process's list of its tasks in step folder `dir`: its node
/// index and (task id, pid) pairs; None until it has written it.
fn read_tasks(dir: &Path) -> Option<(u32, Vec<(u32, i32)>)> {
    let text = std::fs::read_to_string(dir.join(stepd::TASKS_FILE)).ok()?;
    // Only whole lines: the step process may be writing it.
    let whole = &text[..text.rfind('\n')? + 1];
    let mut lines = whole.lines();
    let node = lines.next()?.strip_prefix("node ")?.parse().ok()?;
    let tasks: Vec<(u32, i32)> = lines
        .filter_map(|l| {
            let (task, pid) = l.split_once(' ')?;
            Some((task.parse().ok()?, pid.parse().ok()?))
        })
        .collect();
    (!tasks.is_empty()).then_some((node, tasks))
}

/// What the step process recorded its tasks used, in step folder `dir`.
pub fn read_step_rusage(dir: &Path) -> Vec<(u32, TaskRusage)> {
    let Ok(text) = std::fs::read_to_string(dir.join(stepd::USAGE_FILE)) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let task = words.next()?.parse().ok()?;
            Some((task, TaskRusage::parse(&mut words)?))
        })
        .collect()
}

/// A reading kept per task: (resource, output side).
type Reading = (UsageTres, bool);

/// One task's readings: the peak and the latest of each.
#[derive(Debug, Clone, Default)]
struct TaskAcct {
    pid: i32,
    readings: BTreeMap<Reading, (u64, u64)>,
}

impl TaskAcct {
    fn note(&mut self, what: Reading, value: u64) {
        let r = self.readings.entry(what).or_insert((value, value));
        r.0 = r.0.max(value);
        r.1 = value;
    }
}

/// A step's tasks on this node.
#[derive(Debug, Clone)]
struct StepAcct {
    node: u32,
    /// Its tasks' process group.
    pgid: i32,
    tasks: BTreeMap<u32, TaskAcct>,
    /// When it was last sampled.
    sampled: Option<Instant>,
    /// When it was last seen running.
    seen: Instant,
}

/// What one process showed in /proc.
#[derive(Debug, Clone, Copy, Default)]
struct ProcReading {
    ppid: i32,
    pgrp: i32,
    /// utime + stime + cutime + cstime: its own and its reaped
    /// descendants' CPU, clock ticks.
    cpu_ticks: u64,
    rss_pages: u64,
    vsize: u64,
    /// Its and its reaped descendants' major faults.
    major_faults: u64,
}

/// The node's gatherer: the steps it follows and their tasks' readings.
pub struct Gatherer {
    conf: AcctConf,
    steps: HashMap<StepKey, StepAcct>,
    ticks_per_sec: u64,
    page_size: u64,
}

impl Gatherer {
    /// A gatherer with nothing to follow yet.
    pub fn new(conf: AcctConf) -> Gatherer {
        // SAFETY: sysconf has no preconditions.
        let (ticks, page) = unsafe {
            (
                libc::sysconf(libc::_SC_CLK_TCK),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        Gatherer {
            conf,
            steps: HashMap::new(),
            ticks_per_sec: u64::try_from(ticks).unwrap_or(100).max(1),
            page_size: u64::try_from(page).unwrap_or(4096).max(1),
        }
    }

    /// Follows `running` (new steps and new tasks join; the rest stay as
    /// they are until they finish), then samples the steps due: those never
    /// sampled and those last sampled a frequency ago (none with `task=0`).
    /// Their usage so far.
    pub fn sample(&mut self, running: &[Running], now: Instant) -> Vec<LiveUsage> {
        for r in running {
            let step = self.steps.entry(r.key).or_insert_with(|| StepAcct {
                node: r.node,
                pgid: r.pgid,
                tasks: BTreeMap::new(),
                sampled: None,
                seen: now,
            });
            step.seen = now;
            for &(task, pid) in &r.tasks {
                step.tasks.entry(task).or_insert_with(|| TaskAcct {
                    pid,
                    readings: BTreeMap::new(),
                });
            }
        }
        let live: std::collections::HashSet<StepKey> = running.iter().map(|r| r.key).collect();
        // A step whose end never came (its process vanished with no word)
        // is forgotten a while after it was last seen running.
        self.steps
            .retain(|key, s| live.contains(key) || now.duration_since(s.seen) < FORGET_AFTER);
        let Some(every) = self.conf.frequency else {
            return Vec::new();
        };
        let due: Vec<StepKey> = self
            .steps
            .iter()
            .filter(|(key, s)| {
                live.contains(key) && s.sampled.is_none_or(|at| now.duration_since(at) >= every)
            })
            .map(|(k, _)| *k)
            .collect();
        if due.is_empty() {
            return Vec::new();
        }
        self.read(&due);
        let mut out: Vec<LiveUsage> = due
            .iter()
            .filter_map(|key| {
                let step = self.steps.get_mut(key)?;
                step.sampled = Some(now);
                Some(LiveUsage {
                    job_id: key.job_id,
                    step_id: key.step_id,
                    usage: fold(step, |_, (_, last)| last),
                })
            })
            .collect();
        out.sort_by_key(|l| (l.job_id, l.step_id));
        out
    }

    /// Reads /proc once for the steps `due`.
    fn read(&mut self, due: &[StepKey]) {
        let procs = read_procs();
        // Each process's task: the first tracked task pid on its way up.
        let mut roots: HashMap<i32, (StepKey, u32)> = HashMap::new();
        // A task's pid counts while it is in its step's process group: one
        // that ended and was reused is someone else's.
        for key in due {
            if let Some(step) = self.steps.get(key) {
                for (&task, t) in &step.tasks {
                    if procs.get(&t.pid).is_some_and(|p| p.pgrp == step.pgid) {
                        roots.insert(t.pid, (*key, task));
                    }
                }
            }
        }
        let mut owner: HashMap<i32, Option<(StepKey, u32)>> = HashMap::new();
        let mut sums: HashMap<(StepKey, u32), BTreeMap<Reading, u64>> = HashMap::new();
        let gpu = self.conf.gpus.as_ref().map(|g| g.per_process());
        for (&pid, p) in &procs {
            let Some(task) = find_owner(pid, &procs, &roots, &mut owner) else {
                continue;
            };
            let sum = sums.entry(task).or_default();
            let mut add = |what: Reading, v: u64| {
                let s = sum.entry(what).or_insert(0);
                *s = s.saturating_add(v);
            };
            add(
                (UsageTres::Cpu, false),
                p.cpu_ticks * 1000 / self.ticks_per_sec,
            );
            add((UsageTres::Mem, false), p.rss_pages * self.page_size);
            add((UsageTres::Vmem, false), p.vsize);
            add((UsageTres::Pages, false), p.major_faults);
            if let Some((read, written)) = read_io(pid) {
                add((UsageTres::FsDisk, false), read);
                add((UsageTres::FsDisk, true), written);
            }
            if let Some(gpu) = &gpu {
                let (mem, util) = gpu.get(&(pid as u32)).copied().unwrap_or_default();
                add((UsageTres::GpuMem, false), mem);
                add((UsageTres::GpuUtil, false), util);
            }
        }
        for ((key, task), readings) in sums {
            if let Some(t) = self
                .steps
                .get_mut(&key)
                .and_then(|s| s.tasks.get_mut(&task))
            {
                for (what, v) in readings {
                    t.note(what, v);
                }
            }
        }
    }

    /// The step ended here: its tasks' usage folded for the node, with what
    /// their reaper recorded (`ended`, by task id) completing the last
    /// readings. Memory and GPU totals are each task's peak, as slurmstepd
    /// leaves them when a task ends.
    pub fn finish(&mut self, key: StepKey, node: u32, ended: &[(u32, TaskRusage)]) -> Usage {
        let mut step = self.steps.remove(&key).unwrap_or(StepAcct {
            node,
            pgid: 0,
            tasks: BTreeMap::new(),
            sampled: None,
            seen: Instant::now(),
        });
        for &(task, r) in ended {
            let t = step.tasks.entry(task).or_default();
            let cpu_ms = (r.user_us + r.system_us) / 1000;
            for (what, value) in [
                ((UsageTres::Cpu, false), cpu_ms),
                ((UsageTres::Mem, false), r.max_rss_kib * 1024),
                ((UsageTres::Pages, false), r.major_faults),
            ] {
                let reading = t.readings.entry(what).or_insert((value, value));
                reading.0 = reading.0.max(value);
                reading.1 = reading.1.max(value);
            }
        }
        let mut usage = fold(&step, |what, (peak, last)| match what.0 {
            UsageTres::Mem | UsageTres::Vmem | UsageTres::GpuMem | UsageTres::GpuUtil => peak,
            _ => last,
        });
        for (_, r) in ended {
            usage.user_cpu_us += r.user_us;
            usage.system_cpu_us += r.system_us;
        }
        usage
    }
}

/// A step's tasks here as one [`Usage`], each task's total taken by
/// `total` from its (peak, latest) reading. The first task with readings
/// carries the node's energy (0: spur measures none), on the node only.
fn fold(step: &StepAcct, total: impl Fn(Reading, (u64, u64)) -> u64) -> Usage {
    let mut usage = Usage::default();
    let first = step
        .tasks
        .iter()
        .find(|(_, t)| !t.readings.is_empty())
        .map(|(&task, _)| task);
    for (&task, t) in &step.tasks {
        let mut one = Usage {
            tasks: 1,
            ..Usage::default()
        };
        for (&what, &reading) in &t.readings {
            let side = if what.1 {
                &mut one.output
            } else {
                &mut one.input
            };
            let mut u = TresUsage::one(reading.0, step.node, Some(task));
            u.tot = total(what, reading);
            side.insert(what.0, u);
        }
        if Some(task) == first {
            one.input
                .insert(UsageTres::Energy, TresUsage::one(0, step.node, None));
            one.output
                .insert(UsageTres::Energy, TresUsage::one(0, step.node, None));
        }
        usage.merge(&one);
    }
    usage
}

/// The task `pid` belongs to: itself if it is a task's, else its parent's,
/// remembered in `owner` for the next process on the same way up.
fn find_owner(
    pid: i32,
    procs: &HashMap<i32, ProcReading>,
    roots: &HashMap<i32, (StepKey, u32)>,
    owner: &mut HashMap<i32, Option<(StepKey, u32)>>,
) -> Option<(StepKey, u32)> {
    let mut path = Vec::new();
    let mut at = pid;
    let found = loop {
        if let Some(&known) = owner.get(&at) {
            break known;
        }
        if let Some(&task) = roots.get(&at) {
            break Some(task);
        }
        path.push(at);
        match procs.get(&at) {
            Some(p) if p.ppid > 1 && path.len() < 4096 => at = p.ppid,
            _ => break None,
        }
    };
    for p in path {
        owner.insert(p, found);
    }
    found
}

/// Every process's /proc/PID/stat.
fn read_procs() -> HashMap<i32, ProcReading> {
    let mut procs = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return procs;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some(p) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| parse_stat(&s))
        {
            procs.insert(pid, p);
        }
    }
    procs
}

/// /proc/PID/stat's fields after the command name, which may hold spaces
/// and parentheses: the last `)` ends it.
fn parse_stat(text: &str) -> Option<ProcReading> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state) of proc(5).
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
    Some(ProcReading {
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        major_faults: n(9)? + n(10)?,
        cpu_ticks: n(11)? + n(12)? + n(13)? + n(14)?,
        vsize: n(20)?,
        rss_pages: n(21)?,
    })
}

/// /proc/PID/io's bytes read and written through system calls.
fn read_io(pid: i32) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
    };
    Some((field("rchar:")?, field("wchar:")?))
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;

    use super::*;

    #[test]
    fn the_task_interval_reads_as_slurm_reads_it() {
        assert_eq!(task_frequency("30"), Some(30));
        assert_eq!(task_frequency("task=5,energy=0"), Some(5));
        assert_eq!(task_frequency("Task=7"), Some(7));
        assert_eq!(task_frequency("energy=10,task=0"), Some(0));
        assert_eq!(task_frequency("energy=10"), Some(DEFAULT_FREQUENCY_SECS));
        assert_eq!(task_frequency("task=x"), None);
        assert_eq!(task_frequency("often"), None);
    }

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 120 0 3 2 \
                    250 50 10 5 20 0 1 0 100 123456789 300 18446744073709551615";
        let p = parse_stat(line).expect("parses");
        assert_eq!((p.ppid, p.pgrp), (17, 4242));
        assert_eq!(p.major_faults, 5);
        assert_eq!(p.cpu_ticks, 315);
        assert_eq!(p.vsize, 123_456_789);
        assert_eq!(p.rss_pages, 300);
        assert!(parse_stat("garbage").is_none());
    }

    /// A fake NVML: `pid` uses 1 GiB and 40 % of each of two GPUs.
    struct TwoGpus(i32);

    impl GpuUsage for TwoGpus {
        fn per_process(&self) -> HashMap<u32, (u64, u64)> {
            HashMap::from([(self.0 as u32, (2 << 30, 80))])
        }
    }

    #[test]
    fn a_running_task_and_its_children_are_sampled_then_finished() {
        // A task whose child holds 40 MiB and spins a little.
        let mut task = std::process::Command::new("sh")
            .args([
                "-c",
                "perl -e '$x = \"a\" x (40 << 20); for ($i = 0; $i < 1e7; $i++) {} sleep 30' & wait",
            ])
            .process_group(0)
            .spawn()
            .expect("sh runs");
        let pid = task.id() as i32;
        let key = StepKey {
            job_id: 7,
            step_id: 0,
        };
        let mut g = Gatherer::new(AcctConf {
            frequency: Some(Duration::from_secs(30)),
            gpus: None,
        });
        let running = [Running {
            key,
            node: 1,
            pgid: pid,
            tasks: vec![(3, pid)],
        }];
        let start = Instant::now();
        // Sampled at once, then not again within the frequency.
        let mut live = Vec::new();
        for _ in 0..400 {
            g.steps.clear();
            live = g.sample(&running, start);
            let mem = live[0]
                .usage
                .input
                .get(&UsageTres::Mem)
                .map(|m| m.max.value);
            let cpu = live[0].usage.input[&UsageTres::Cpu].tot;
            if mem.is_some_and(|m| m > 40 << 20) && cpu >= 100 {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(live.len(), 1);
        let u = &live[0].usage;
        let mem = u.input[&UsageTres::Mem];
        assert!(mem.max.value > 40 << 20, "{mem:?}");
        assert_eq!((mem.max.node, mem.max.task), (1, Some(3)));
        assert!(u.input[&UsageTres::Cpu].tot >= 100, "{u:?}");
        assert!(u.input[&UsageTres::Vmem].max.value > mem.max.value);
        assert!(u.output.contains_key(&UsageTres::FsDisk));
        assert_eq!(u.input[&UsageTres::Energy].max.task, None);
        assert!(!u.input.contains_key(&UsageTres::GpuMem), "no NVML");
        assert!(g
            .sample(&running, start + Duration::from_secs(29))
            .is_empty());
        assert_eq!(g.sample(&running, start + Duration::from_secs(30)).len(), 1);

        let _ = task.kill();
        let _ = task.wait();
        // The reaper's record completes it: its CPU counts where larger.
        let reaped = TaskRusage {
            user_us: 9_000_000,
            system_us: 1_000_000,
            max_rss_kib: 1024,
            major_faults: 0,
        };
        let done = g.finish(key, 1, &[(3, reaped)]);
        assert_eq!(done.tasks, 1);
        assert_eq!(done.input[&UsageTres::Cpu].tot, 10_000);
        assert_eq!(done.input[&UsageTres::Mem].tot, mem.max.value, "the peak");
        assert_eq!(
            (done.user_cpu_us, done.system_cpu_us),
            (9_000_000, 1_000_000)
        );
        assert!(g.steps.is_empty());
    }

    #[test]
    fn gpu_use_is_given_to_the_task_whose_process_holds_it() {
        let mut task = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep runs");
        let pid = task.id() as i32;
        let mut g = Gatherer::new(AcctConf {
            frequency: Some(Duration::from_secs(1)),
            gpus: Some(Arc::new(TwoGpus(pid))),
        });
        let key = StepKey {
            job_id: 9,
            step_id: BATCH_STEP,
        };
        let live = g.sample(
            &[Running {
                key,
                node: 0,
                pgid: pid,
                tasks: vec![(0, pid)],
            }],
            Instant::now(),
        );
        let _ = task.kill();
        let _ = task.wait();
        let u = &live[0].usage;
        assert_eq!(u.input[&UsageTres::GpuMem].max.value, 2 << 30);
        assert_eq!(u.input[&UsageTres::GpuUtil].tot, 80);
        let done = g.finish(key, 0, &[]);
        assert_eq!(done.input[&UsageTres::GpuMem].tot, 2 << 30);
    }

    #[test]
    fn a_task_that_ended_before_any_sample_has_its_reapers_totals() {
        let mut g = Gatherer::new(AcctConf {
            frequency: None,
            gpus: None,
        });
        let key = StepKey {
            job_id: 1,
            step_id: 2,
        };
        let r = TaskRusage {
            user_us: 1500,
            system_us: 500,
            max_rss_kib: 2048,
            major_faults: 4,
        };
        let done = g.finish(key, 0, &[(0, r), (1, r)]);
        assert_eq!(done.tasks, 2);
        assert_eq!(done.input[&UsageTres::Cpu].tot, 4);
        assert_eq!(done.input[&UsageTres::Mem].max.value, 2 << 20);
        assert_eq!(done.input[&UsageTres::Mem].tot, 4 << 20);
        assert_eq!(done.input[&UsageTres::Pages].tot, 8);
        assert!(!done.input.contains_key(&UsageTres::Vmem));
    }
}
