//! Jobs on the wire: what a front end submits ([`JobDesc`], the same for
//! sbatch, srun, salloc, REST and libslurm) and what the controller reports
//! about a job ([`JobInfo`], everything squeue and scontrol print).

use serde::{Deserialize, Serialize};

/// How much memory a job asks for, in MiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MemSpec {
    /// Nothing given: the cluster's DefMemPerCPU/DefMemPerGPU applies.
    #[default]
    Default,
    /// `--mem`; 0 means all of each node's memory.
    PerNode(u64),
    /// `--mem-per-cpu`.
    PerCpu(u64),
    /// `--mem-per-gpu`.
    PerGpu(u64),
}

/// `--exclusive[=user|mcs|topo]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ExclusiveMode {
    /// Shared (OverSubscribe permitting).
    #[default]
    No,
    /// `--exclusive`.
    Node,
    /// `--exclusive=user`.
    User,
    /// `--exclusive=topo`.
    Topo,
}

/// `--spread-segments` / `--consolidate-segments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SegmentLayout {
    /// Best fit.
    #[default]
    Default,
    /// One base block per segment.
    Spread,
    /// As few base blocks as possible.
    Consolidate,
}

/// `--open-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OpenMode {
    /// Truncate the output files (Slurm's default).
    #[default]
    Truncate,
    /// Append to them.
    Append,
}

/// `--signal=[{R|B}:]num[@time]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSignal {
    /// The signal number.
    pub signal: i32,
    /// Seconds before the time limit (Slurm's default is 60).
    pub before: u64,
    /// `B:`: only the batch shell gets it.
    pub batch_only: bool,
}

/// A job as a front end submits it. Names are as given; the controller
/// resolves and validates them and fills in the submitting user from the
/// connection's credentials, never from the request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobDesc {
    /// `-J`; None: the script's file name, or `wrap`.
    pub name: Option<String>,
    /// `-A`.
    pub account: Option<String>,
    /// `-p`, split at commas.
    pub partitions: Vec<String>,
    /// `-q`.
    pub qos: Option<String>,
    /// `-N min[-max]`.
    pub min_nodes: Option<u32>,
    /// The max of `-N min-max`.
    pub max_nodes: Option<u32>,
    /// `-n`.
    pub ntasks: Option<u32>,
    /// `--ntasks-per-node`.
    pub ntasks_per_node: Option<u32>,
    /// `-c`.
    pub cpus_per_task: Option<u32>,
    /// `--mem`, `--mem-per-cpu`, `--mem-per-gpu`.
    pub mem: MemSpec,
    /// `--gpus`.
    pub gpus: Option<u32>,
    /// `--gpus-per-node`, `--gres=gpu[:type]:N`.
    pub gpus_per_node: Option<u32>,
    /// `--gpus-per-task`.
    pub gpus_per_task: Option<u32>,
    /// The GPU type of a typed request.
    pub gpu_type: Option<String>,
    /// `--cpus-per-gpu`.
    pub cpus_per_gpu: Option<u32>,
    /// `--exclusive`.
    pub exclusive: ExclusiveMode,
    /// `--segment`.
    pub segment: Option<u32>,
    /// `--spread-segments` / `--consolidate-segments`.
    pub segment_layout: SegmentLayout,
    /// `--switches=count[@max-time]`: the count and the wait in seconds.
    pub switches: Option<(u32, Option<u64>)>,
    /// `-w`, hostlists expanded.
    pub required_nodes: Vec<String>,
    /// `-x`, hostlists expanded.
    pub excluded_nodes: Vec<String>,
    /// `-C`.
    pub constraint: Option<String>,
    /// `-t` in seconds; None: the partition default.
    pub time_limit: Option<u64>,
    /// `-t UNLIMITED` / `-t 0`: up to the partition's MaxTime.
    pub time_unlimited: bool,
    /// `--time-min` in seconds.
    pub time_min: Option<u64>,
    /// `--nice`.
    pub nice: i32,
    /// `--priority`.
    pub priority: Option<u32>,
    /// `--begin`, Unix seconds.
    pub begin: Option<u64>,
    /// `--deadline`, Unix seconds.
    #[serde(default)]
    pub deadline: Option<u64>,
    /// `--hold`.
    pub hold: bool,
    /// `--requeue` / `--no-requeue`.
    pub requeue: Option<bool>,
    /// `--signal`.
    pub signal: Option<JobSignal>,
    /// `--comment`.
    pub comment: Option<String>,
    /// The batch script (None for an allocation without one).
    pub script: Option<String>,
    /// The script's path as given, made absolute (None for `--wrap` and
    /// stdin); `scontrol show job` prints it as Command.
    pub command: Option<String>,
    /// Arguments after the script.
    pub argv: Vec<String>,
    /// The environment the job runs with, as `--export` resolved it.
    pub env: Vec<(String, String)>,
    /// The working directory (`-D`, else where the command ran).
    pub work_dir: String,
    /// `-o`, as given (patterns expanded on the node).
    pub stdout: Option<String>,
    /// `-e`.
    pub stderr: Option<String>,
    /// `-i`.
    pub stdin: Option<String>,
    /// `--open-mode`.
    pub open_mode: OpenMode,
    /// The host the command ran on.
    pub submit_host: String,
    /// Options given that spur stores but does not act on yet, as
    /// `--name=value`, so that `scontrol show job` can report them.
    pub unacted: Vec<String>,
    /// `-M`: the clusters the job may go to (names separated by commas,
    /// or `all`). The controller refuses the job unless its ClusterName is
    /// among them.
    pub clusters: Option<String>,
    /// An allocation held by salloc or srun: no batch script runs, and
    /// the job ends when its holder releases it.
    pub interactive: bool,
    /// `--array`, as given (`0-15:4%2`); the controller parses it.
    pub array: Option<String>,
    /// `--dependency`, as given (`afterok:5,singleton`).
    pub dependency: Option<String>,
    /// `--kill-on-invalid-dep=yes|no`; None: the cluster's
    /// DependencyParameters decide.
    pub kill_on_invalid_dep: Option<bool>,
    /// The submission's idempotency key: a submission whose answer was
    /// lost may be sent again with the same key, and gets the job the
    /// first one made instead of a second job. Keys are the submitting
    /// user's own (another user's equal key names another submission);
    /// the controller remembers each while it knows the job. spur-client
    /// gives every submission one ([`SUBMIT_KEY_MAX`] bytes at most).
    pub submit_key: Option<String>,
}

/// The longest idempotency key the controller takes.
pub const SUBMIT_KEY_MAX: usize = 255;

/// Slurm's job states, as the wire carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum JobStateName {
    /// PENDING.
    #[default]
    Pending,
    /// RUNNING.
    Running,
    /// COMPLETING: the processes are being ended.
    Completing,
    /// COMPLETED.
    Completed,
    /// FAILED.
    Failed,
    /// CANCELLED.
    Cancelled,
    /// TIMEOUT.
    Timeout,
    /// NODE_FAIL.
    NodeFail,
    /// PREEMPTED.
    Preempted,
    /// DEADLINE.
    Deadline,
    /// OUT_OF_MEMORY.
    OutOfMemory,
    /// SPECIAL_EXIT: requeued with `State=SpecialExit`, held until
    /// released.
    SpecialExit,
}

impl JobStateName {
    /// The full name (`%T`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobStateName::Pending => "PENDING",
            JobStateName::Running => "RUNNING",
            JobStateName::Completing => "COMPLETING",
            JobStateName::Completed => "COMPLETED",
            JobStateName::Failed => "FAILED",
            JobStateName::Cancelled => "CANCELLED",
            JobStateName::Timeout => "TIMEOUT",
            JobStateName::NodeFail => "NODE_FAIL",
            JobStateName::Preempted => "PREEMPTED",
            JobStateName::Deadline => "DEADLINE",
            JobStateName::OutOfMemory => "OUT_OF_MEMORY",
            JobStateName::SpecialExit => "SPECIAL_EXIT",
        }
    }

    /// The compact code (`%t`).
    pub fn short(self) -> &'static str {
        match self {
            JobStateName::Pending => "PD",
            JobStateName::Running => "R",
            JobStateName::Completing => "CG",
            JobStateName::Completed => "CD",
            JobStateName::Failed => "F",
            JobStateName::Cancelled => "CA",
            JobStateName::Timeout => "TO",
            JobStateName::NodeFail => "NF",
            JobStateName::Preempted => "PR",
            JobStateName::Deadline => "DL",
            JobStateName::OutOfMemory => "OOM",
            JobStateName::SpecialExit => "SE",
        }
    }

    /// Parses a full name or compact code, any case (`squeue -t`).
    pub fn parse(text: &str) -> Option<JobStateName> {
        const ALL: [JobStateName; 12] = [
            JobStateName::Pending,
            JobStateName::Running,
            JobStateName::Completing,
            JobStateName::Completed,
            JobStateName::Failed,
            JobStateName::Cancelled,
            JobStateName::Timeout,
            JobStateName::NodeFail,
            JobStateName::Preempted,
            JobStateName::Deadline,
            JobStateName::OutOfMemory,
            JobStateName::SpecialExit,
        ];
        ALL.into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text) || s.short().eq_ignore_ascii_case(text))
    }

    /// Whether the job has ended.
    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            JobStateName::Pending
                | JobStateName::Running
                | JobStateName::Completing
                | JobStateName::SpecialExit
        )
    }
}

/// A job as squeue and scontrol see it. Times are Unix seconds; durations
/// are seconds; `None` limits are UNLIMITED.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    /// JobId.
    pub job_id: u32,
    /// JobName.
    pub name: String,
    /// The owner's uid.
    pub user_id: u32,
    /// The owner's name (the uid as text if it has none).
    pub user_name: String,
    /// The owner's primary gid.
    pub group_id: u32,
    /// The group's name.
    pub group_name: String,
    /// JobState.
    pub state: JobStateName,
    /// Reason: `None`, `Resources`, `Priority`, ...
    pub reason: String,
    /// Priority.
    pub priority: u32,
    /// Nice.
    pub nice: i32,
    /// Account (None: none given).
    pub account: Option<String>,
    /// QOS.
    pub qos: String,
    /// Partition.
    pub partition: String,
    /// TimeLimit in seconds (None: UNLIMITED).
    pub time_limit: Option<u64>,
    /// TimeMin in seconds.
    pub time_min: Option<u64>,
    /// SubmitTime.
    pub submit_time: u64,
    /// EligibleTime.
    pub eligible_time: u64,
    /// StartTime (for a pending job, the expected start if known).
    pub start_time: Option<u64>,
    /// EndTime (for a running job, start plus the limit).
    pub end_time: Option<u64>,
    /// The nodes allocated, as a hostlist ("" when pending).
    pub nodes: String,
    /// Nodes the scheduler plans for a pending job (`squeue --start`).
    pub sched_nodes: Option<String>,
    /// NumNodes (the minimum while pending).
    pub num_nodes: u32,
    /// NumCPUs.
    pub num_cpus: u32,
    /// NumTasks.
    pub num_tasks: u32,
    /// CPUs/Task.
    pub cpus_per_task: u32,
    /// `--ntasks-per-node` (0: not given).
    pub ntasks_per_node: u32,
    /// CPUs allocated per node, in node order.
    pub cpus_per_node: Vec<u32>,
    /// BatchHost.
    pub batch_host: Option<String>,
    /// ReqNodeList as given.
    pub req_nodes: Option<String>,
    /// ExcNodeList as given.
    pub exc_nodes: Option<String>,
    /// Features (`-C`).
    pub features: Option<String>,
    /// The memory request.
    pub mem: MemSpec,
    /// TRES (asked with `detail`; `Tres::job_text` prints
    /// `cpu=2,mem=8G,node=2,billing=2,gres/gpu=8`).
    pub tres: Option<crate::history::Tres>,
    /// TresPerNode, e.g. `gres:gpu:4`.
    pub tres_per_node: Option<String>,
    /// TresPerJob, e.g. `gres:gpu:8`.
    pub tres_per_job: Option<String>,
    /// TresPerTask, e.g. `gres:gpu:1`.
    pub tres_per_task: Option<String>,
    /// GPU indices held on each allocated node, in node order.
    pub gpus_per_node_idx: Vec<Vec<u32>>,
    /// WorkDir.
    pub work_dir: String,
    /// StdOut, patterns expanded as far as the controller can.
    pub stdout: String,
    /// StdErr.
    pub stderr: String,
    /// StdIn.
    pub stdin: String,
    /// Command (the script's path, or None for `--wrap`).
    pub command: Option<String>,
    /// Comment.
    pub comment: Option<String>,
    /// The exit code of the batch script.
    pub exit_code: i32,
    /// The signal that ended it.
    pub exit_signal: i32,
    /// Restarts.
    pub restarts: u32,
    /// Requeue allowed.
    pub requeue: bool,
    /// BatchFlag.
    pub batch: bool,
    /// Deadline (`--deadline`).
    pub deadline: Option<u64>,
    /// Whether `--exclusive` in any form was asked for.
    pub exclusive: ExclusiveMode,
    /// Contiguous.
    pub contiguous: bool,
    /// The host the job was submitted from.
    pub submit_host: String,
    /// Dependency (None: none).
    pub dependency: Option<String>,
    /// ArrayJobId of an array task.
    pub array_job_id: Option<u32>,
    /// ArrayTaskId of an array task.
    pub array_task_id: Option<u32>,
    /// The pending tasks of an array, e.g. `2-9%2`.
    pub array_task_str: Option<String>,
    /// ArrayTaskThrottle: the array's `%N` limit, on every job of the
    /// array (0: none).
    pub array_task_throttle: u32,
    /// When the job was last looked at by the scheduler.
    pub last_sched_eval: Option<u64>,
    /// Options stored but not acted on.
    pub unacted: Vec<String>,
}

impl JobInfo {
    /// The job as squeue's JOBID names it (`_print_job_job_id`): `123`,
    /// `123_4`, or `123_[5-9%2]` for an array's pending tasks.
    pub fn id_text(&self) -> String {
        let array_job = self.array_job_id.unwrap_or(self.job_id);
        match (&self.array_task_str, self.array_task_id) {
            (Some(tasks), _) => format!("{array_job}_[{tasks}]"),
            (None, Some(task)) => format!("{array_job}_{task}"),
            (None, None) => self.job_id.to_string(),
        }
    }
}
