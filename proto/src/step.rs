//! Job steps: what srun asks the controller for ([`StepRequest`]), the
//! step the controller grants ([`StepGrant`], signed with the cluster key so
//! that a node agent can trust a grant srun carries to it), and the
//! messages between srun and the step on each node ([`ToStep`],
//! [`FromStep`]). srun talks to each node of the step directly, on the
//! node's slurm.conf address and Port; the controller is not in the path of
//! a task's output.

use serde::{Deserialize, Serialize};

/// The step id Slurm gives the batch script (`N.batch`).
pub const BATCH_STEP: u32 = 0xFFFF_FFFB;

/// srun's request for a step inside a running job.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRequest {
    /// The job.
    pub job_id: u32,
    /// The step's name (`-J`, else the program's).
    pub name: String,
    /// `-n` (None: one task per node of the step).
    pub ntasks: Option<u32>,
    /// `-N` (None: as many of the job's nodes as the tasks need, up to all).
    pub nodes: Option<u32>,
    /// `--ntasks-per-node`.
    pub ntasks_per_node: Option<u32>,
    /// `-c`.
    pub cpus_per_task: Option<u32>,
    /// `--gpus-per-task`.
    pub gpus_per_task: Option<u32>,
    /// `--gpus-per-node` / `--gres=gpu:N`.
    pub gpus_per_node: Option<u32>,
    /// `--gpus` (for the whole step).
    pub gpus: Option<u32>,
    /// `-t`, seconds (None: the job's limit).
    pub time_limit: Option<u64>,
    /// `-w`: these nodes of the job.
    pub nodelist: Vec<String>,
    /// `--exact`: only the CPUs the tasks need (else every free CPU of
    /// the job on the step's nodes).
    pub exact: bool,
    /// `--overlap`: share resources with the job's other steps.
    pub overlap: bool,
    /// The host srun runs on (`SrunHost`).
    pub srun_host: String,
    /// srun's pid.
    pub srun_pid: u32,
    /// The request's idempotency key: a creation whose answer was lost is
    /// sent again with it and gets the step the first one made, while the
    /// controller that made it runs (spur-client gives every creation
    /// one).
    pub key: Option<String>,
}

/// One node's part of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepNode {
    /// NodeName.
    pub name: String,
    /// NodeHostname (NodeName unless slurm.conf says otherwise): what
    /// `%N` names in srun's file name patterns.
    pub hostname: String,
    /// Where its agent listens for srun (NodeAddr, Port).
    pub addr: String,
    /// The port.
    pub port: u16,
    /// The global task ids (SLURM_PROCID) it runs, ascending.
    pub tasks: Vec<u32>,
    /// The GPU indices the step may use there.
    pub gpus: Vec<u32>,
    /// CPUs of the job on the node (SLURM_CPUS_ON_NODE).
    pub cpus: u32,
    /// The job's memory on the node in MiB (0: none counted), what cgroup
    /// confinement holds the job's processes there to.
    pub memory_mib: u64,
    /// Variables only this node's tasks get (SLURM_TOPOLOGY_ADDR, ...).
    pub env: Vec<(String, String)>,
}

/// A step the controller created: everything a node needs to run its part,
/// vouched for by the controller's signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepGrant {
    /// The job.
    pub job_id: u32,
    /// The step (0, 1, ...).
    pub step_id: u32,
    /// Run as this uid.
    pub uid: u32,
    /// With this gid.
    pub gid: u32,
    /// The user's name (initgroups).
    pub user_name: String,
    /// The nodes, in step order (SLURM_NODEID).
    pub nodes: Vec<StepNode>,
    /// The step's time limit in seconds (None: the job's).
    pub time_limit: Option<u64>,
    /// Environment every task gets from the controller's side: the job's
    /// SLURM_JOB_* facts and the step's layout.
    pub env: Vec<(String, String)>,
    /// Random and never reused: a node runs a grant's tasks at most once.
    pub nonce: u64,
    /// When a node stops taking the grant, in seconds since the epoch on
    /// the controller's clock.
    pub expires: u64,
}

impl StepGrant {
    /// The number of tasks.
    pub fn ntasks(&self) -> u32 {
        self.nodes.iter().map(|n| n.tasks.len() as u32).sum()
    }

    /// The bytes the signature covers.
    pub fn signed_bytes(&self) -> Vec<u8> {
        bincode::serialize(self).unwrap_or_default()
    }
}

/// A running step as `squeue --steps` and `scontrol show step` see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepInfo {
    /// The job.
    pub job_id: u32,
    /// The step (`batch` or a number).
    pub step: crate::history::StepId,
    /// The array and task of a job of an array.
    pub array: Option<(u32, u32)>,
    /// The step's name.
    pub name: String,
    /// The job's owner.
    pub user_id: u32,
    /// Their name.
    pub user_name: String,
    /// The job's partition.
    pub partition: String,
    /// When it started.
    pub start_time: u64,
    /// Its time limit in seconds (None: UNLIMITED).
    pub time_limit: Option<u64>,
    /// Its nodes, as a hostlist.
    pub nodes: String,
    /// How many.
    pub node_count: u32,
    /// Its tasks.
    pub num_tasks: u32,
    /// Its CPUs (0 for a batch step).
    pub num_cpus: u32,
    /// What it was given (None for a batch step); printed as
    /// [`crate::Tres::step_text`].
    pub tres: Option<crate::Tres>,
    /// srun's `--gpus` as `gres:gpu:N`.
    pub tres_per_step: Option<String>,
    /// srun's `--gpus-per-node`.
    pub tres_per_node: Option<String>,
    /// srun's `--gpus-per-task`.
    pub tres_per_task: Option<String>,
    /// The task layout (`Block`, `Cyclic`; None for a batch step).
    pub dist: Option<String>,
    /// The host and pid of its srun (None for a batch step, or one taken
    /// over by a restarted controller).
    pub srun: Option<(String, u32)>,
    /// What its tasks have used so far, over the nodes whose agents have
    /// sampled them (None: none has yet, or usage is not gathered).
    pub usage: Option<crate::usage::Usage>,
}

/// Where a step's tasks read stdin from (srun's `-i`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepStdin {
    /// srun's own stdin, to every task (`-i all`, the default) or to one
    /// task (`-i N`); [`ToStep::Stdin`] carries it to every node.
    Srun(Option<u32>),
    /// Nothing: /dev/null (`-i none`).
    Null,
    /// Each task reads a file of its own, opened on the node: the paths in
    /// the order of the node's tasks (`-i name`, patterns expanded).
    Files(Vec<String>),
}

/// srun's request to a node: run these tasks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskLaunch {
    /// The step, as the controller granted it.
    pub grant: StepGrant,
    /// HMAC-SHA256 of [`StepGrant::signed_bytes`] with the cluster key.
    pub signature: Vec<u8>,
    /// Which node of the grant this is (its index).
    pub node_index: u32,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The working directory.
    pub cwd: String,
    /// The environment from srun's side (the user's, per `--export`).
    pub env: Vec<(String, String)>,
    /// Where the node's tasks read their stdin from.
    pub stdin: StepStdin,
    /// `--multi-prog`: per task, the program and arguments (empty: `argv`).
    pub multi_prog: Vec<(u32, Vec<String>)>,
}

/// srun -> a node's step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ToStep {
    /// The first message: start the tasks.
    Launch(Box<TaskLaunch>),
    /// Bytes of srun's stdin, for the tasks that read it.
    Stdin(Vec<u8>),
    /// srun's stdin ended.
    StdinEof,
    /// Signal every task of the step on this node.
    Signal(i32),
}

/// A node's step -> srun.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum FromStep {
    /// The tasks started (their pids, in task order).
    Started {
        /// Pids of the node's tasks.
        pids: Vec<u32>,
    },
    /// The node refused or could not start the tasks.
    Failed {
        /// Why, as srun prints it.
        message: String,
    },
    /// Output of a task.
    Output {
        /// Global task id.
        task: u32,
        /// From stderr (else stdout).
        stderr: bool,
        /// The bytes.
        data: Vec<u8>,
    },
    /// A line the node's step process has for srun's stderr, as
    /// slurmstepd's own error messages reach it.
    Notice {
        /// The line, without its newline.
        text: String,
    },
    /// A task ended; its output has all been sent.
    Exited {
        /// Global task id.
        task: u32,
        /// Exit code.
        code: i32,
        /// The signal that ended it (0: none).
        signal: i32,
    },
}
