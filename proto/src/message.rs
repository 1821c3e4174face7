//! The messages: client <-> controller and agent <-> controller. Each
//! connection opens with a [`Hello`]; after it, a client sends requests and
//! reads one response per request, and an agent sends [`FromAgent`] and
//! receives [`ToAgent`] in both directions at any time. A client may send
//! its first request right behind its hello, before the other side's has
//! come: a side reads the hello, writes its own, and only then reads a
//! request, so a request is never acted on unless the hello was answered
//! (and one whose version is refused is never read).

use serde::{Deserialize, Serialize};

use crate::error::ProtoError;
use crate::job::JobDesc;
use crate::listing::{JobFields, JobList};
use crate::node::{ConfigInfo, NodeInfo, PartitionInfo};

/// Who is connecting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// A command or library acting for the user on the other end of a
    /// local socket (identified by its peer credentials). Over TCP it
    /// proves nothing, so each of its requests must be
    /// [`ClientRequest::Authenticated`] with a token.
    Client,
    /// A node agent, which then proves it holds the cluster key
    /// ([`KeyChallenge`]).
    Agent(AgentHello),
    /// A relay on a host that runs no agent (a login node), which then
    /// proves it holds the cluster key. It only relays commands.
    Relay(RelayHello),
    /// srun, at a node's agent, to run a step's tasks there (it proves
    /// nothing itself: the step grant it carries is signed).
    Launcher,
    /// A node's agent joining the WireGuard mesh, which then proves it
    /// holds the cluster key and is answered with a
    /// [`crate::MeshAnswer`].
    MeshJoin(crate::MeshJoinHello),
}

/// A relay's introduction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayHello {
    /// The host it runs on (for the controller's log).
    pub host: String,
    /// Fresh random bytes the controller's proof must cover.
    pub nonce: Nonce,
}

/// 32 random bytes, new for every connection.
pub type Nonce = [u8; 32];

/// An HMAC-SHA256 over a handshake's transcript under the cluster key.
pub type KeyProof = [u8; 32];

/// The controller's answer to an agent's or relay's hello, right after its
/// own: proof that it holds the cluster key (over the peer's nonce), and a
/// nonce of its own for the peer's proof. Neither side ever sends the key,
/// and a proof captured on one connection proves nothing on another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyChallenge {
    /// The controller's fresh random bytes.
    pub nonce: Nonce,
    /// The controller's proof.
    pub proof: KeyProof,
}

/// The first frame on every connection, both ways.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// [`crate::PROTOCOL_VERSION`] of the sender.
    pub version: u16,
    /// Who the sender is (the controller answers with `Role::Client`).
    pub role: Role,
}

/// An agent's introduction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentHello {
    /// The NodeName it serves.
    pub node: String,
    /// Fresh random bytes the controller's proof must cover.
    pub nonce: Nonce,
}

/// A request from a command to the controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ClientRequest {
    /// `scontrol ping`.
    Ping,
    /// Submit a batch job.
    Submit(Box<JobDesc>),
    /// The running steps (`squeue --steps`, `scontrol show step`), batch
    /// steps included; `jobs` narrows the answer (the id of an array names
    /// its tasks).
    Steps {
        /// Only the steps of these jobs (empty: all).
        jobs: Vec<u32>,
    },
    /// `sbatch --test-only`: when and where the job would start.
    WillRun(Box<JobDesc>),
    /// Jobs known to the controller (pending, running, and ended within
    /// MinJobAge); `ids` narrows the answer.
    Jobs {
        /// Only these jobs (empty: all).
        ids: Vec<u32>,
        /// The fields the caller reads; the others arrive default, and
        /// the controller neither computes nor sends them.
        fields: JobFields,
        /// Only jobs that are pending, running or completing (squeue's
        /// default selection), leaving out those kept for MinJobAge.
        active_only: bool,
    },
    /// Every node.
    Nodes,
    /// Every partition.
    Partitions,
    /// The running configuration.
    Config,
    /// `scancel`: cancel, or signal, jobs.
    Signal(SignalTarget),
    /// `scontrol hold` (user hold unless the caller is an operator and
    /// `admin` is set).
    Hold {
        /// The jobs.
        jobs: Vec<u32>,
        /// `scontrol hold` by an operator holds as admin; `uhold` as user.
        admin: bool,
    },
    /// `scontrol release`.
    Release {
        /// The jobs.
        jobs: Vec<u32>,
    },
    /// `scontrol requeue` and `requeuehold`.
    Requeue {
        /// The jobs.
        jobs: Vec<u32>,
        /// Whether and how the jobs are held once requeued.
        hold: RequeueHold,
        /// `Incomplete`: only running jobs are requeued; others are left
        /// alone without an error.
        incomplete: bool,
    },
    /// `scontrol update JobId=...`.
    UpdateJob(JobUpdate),
    /// `scontrol update NodeName=...`.
    UpdateNode(NodeUpdate),
    /// `scontrol reconfigure`.
    Reconfigure,
    /// `sacct`: jobs of the history, answered from the controller's store
    /// without holding up scheduling.
    History(crate::history::HistoryQuery),
    /// salloc or srun: still here, holding this allocation (InactiveLimit).
    AllocationAlive {
        /// The job.
        job_id: u32,
    },
    /// salloc or srun: the allocation it holds is done with.
    ReleaseAllocation {
        /// The job.
        job_id: u32,
        /// The exit code of the command that held it.
        exit_code: i32,
        /// The signal that ended that command (0: none).
        signal: i32,
    },
    /// srun: create a step in a running job.
    StepCreate(crate::step::StepRequest),
    /// srun: a step ended with these results.
    StepComplete {
        /// The job.
        job_id: u32,
        /// The step.
        step_id: u32,
        /// The highest exit code of its tasks.
        exit_code: i32,
        /// The signal that ended a task, if one did.
        signal: i32,
    },
    /// `scontrol hold|release|update N_i`: the job ids of these tasks,
    /// taking each task still pending in the array's record out into a
    /// job of its own first, as slurmctld does before it acts on one task.
    SplitArrayTasks(ArrayTasks),
    /// A request made with a credential (a REST server passing a caller's
    /// token on), answered as the request inside it is.
    Authenticated(Box<crate::auth::Authenticated>),
    /// `scontrol token`: a JSON Web Token signed with the cluster's
    /// AuthAltParameters key.
    Token(crate::auth::TokenRequest),
    /// `sdiag`: the controller's counters.
    Diag,
    /// `sshare`: every user's fair-share.
    Shares,
    /// `spurd controller --backup FILE` (operators only): a consistent
    /// copy of the state database, written by the controller to `path`
    /// (absolute, on the controller's host, a new file).
    Backup {
        /// Where.
        path: String,
    },
    /// Signals one step of a running job (`scancel N.S`, libslurm's
    /// `slurm_kill_job_step` and `slurm_signal_job_step`); the batch step
    /// (`SLURM_BATCH_SCRIPT`) is the batch shell.
    SignalStep {
        /// The job.
        job_id: u32,
        /// The step.
        step_id: u32,
        /// The signal.
        signal: i32,
    },
    /// `sdiag -r` (operators only): the counters start again from now;
    /// answered with Ok.
    ResetDiag,
    /// `sprio`: pending jobs' priority terms.
    Priorities(crate::priority::PriorityQuery),
    /// The NVLink domains with their nodes and GPUs (the cluster map).
    Domains,
    /// The WireGuard mesh's members as the controller sees them.
    Mesh,
    /// `spurd mesh rotate` (root or SlurmUser): a new key pair for this
    /// host's mesh interface. On a node its agent answers (it is never
    /// relayed) and joins again with the new key; on the controller's
    /// host the controller answers and tells every agent. Answered with
    /// Done.
    MeshRotate,
}

impl ClientRequest {
    /// Whether the request may be sent again when its answer was lost (the
    /// connection broke after it left): it changes nothing; it reports an
    /// end, which a repeat finds already recorded (an allocation released,
    /// a step completed, a holder still alive); or it is a submission with
    /// an idempotency key, whose repeat gets the job the first one made.
    pub fn may_repeat(&self) -> bool {
        match self {
            ClientRequest::AllocationAlive { .. }
            | ClientRequest::ReleaseAllocation { .. }
            | ClientRequest::StepComplete { .. } => true,
            ClientRequest::Submit(desc) => desc.submit_key.is_some(),
            ClientRequest::StepCreate(req) => req.key.is_some(),
            ClientRequest::Authenticated(a) => a.request.may_repeat(),
            // A second copy would find the first's file there.
            ClientRequest::Backup { .. } => false,
            other => other.only_reads(),
        }
    }

    /// Whether the request reports an end the controller must record (an
    /// allocation released, a step completed): its sender tries again
    /// while the controller cannot save state, for as long as it would
    /// wait out a restart, or the allocation would run on.
    pub fn reports_end(&self) -> bool {
        match self {
            ClientRequest::ReleaseAllocation { .. } | ClientRequest::StepComplete { .. } => true,
            ClientRequest::Authenticated(a) => a.request.reports_end(),
            _ => false,
        }
    }

    /// Whether the request only reads the controller's state (it is
    /// answered while the controller cannot save changes).
    pub fn only_reads(&self) -> bool {
        match self {
            ClientRequest::Ping
            | ClientRequest::Steps { .. }
            | ClientRequest::WillRun(_)
            | ClientRequest::Jobs { .. }
            | ClientRequest::Nodes
            | ClientRequest::Partitions
            | ClientRequest::Config
            | ClientRequest::History(_)
            | ClientRequest::Diag
            | ClientRequest::Shares
            | ClientRequest::Priorities(_)
            | ClientRequest::Domains
            | ClientRequest::Mesh
            | ClientRequest::Token(_)
            | ClientRequest::Backup { .. } => true,
            ClientRequest::Authenticated(a) => a.request.only_reads(),
            _ => false,
        }
    }
}

/// What `scancel` asks for one or more jobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalTarget {
    /// The jobs. The id of an array (`scancel N`) names every job of it.
    pub jobs: Vec<u32>,
    /// Tasks of arrays (`scancel N_3`, `N_[1-5]`), answered after `jobs`,
    /// in order, each under its array's id.
    pub array_tasks: Vec<ArrayTasks>,
    /// The signal; None cancels.
    pub signal: Option<i32>,
    /// `-b`: the batch shell only.
    pub batch_only: bool,
    /// `-f`: every process of the job, batch shell included.
    pub full: bool,
}

impl SignalTarget {
    /// Which processes the signal reaches.
    pub fn scope(&self) -> SignalScope {
        SignalScope::of(self.batch_only, self.full)
    }
}

/// Some tasks of one job array, wherever they are: still pending in the
/// array's record, or jobs of their own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayTasks {
    /// The array (its own job id).
    pub array_job_id: u32,
    /// The task ids, as `1-3,7`.
    pub tasks: String,
}

/// `scontrol update` for one job: only the fields given change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobUpdate {
    /// The job.
    pub job_id: u32,
    /// TimeLimit in seconds; `Some(None)` is UNLIMITED.
    pub time_limit: Option<Option<u64>>,
    /// Partition.
    pub partition: Option<String>,
    /// JobName.
    pub name: Option<String>,
    /// Nice.
    pub nice: Option<i32>,
    /// Priority (operators only).
    pub priority: Option<u32>,
    /// Comment.
    pub comment: Option<String>,
    /// ArrayTaskThrottle (0 lifts it); ignored for a job that is not an
    /// array, as Slurm does.
    pub array_task_throttle: Option<u32>,
    /// Dependency, in `--dependency` syntax (empty clears it).
    pub dependency: Option<String>,
}

/// A state change an operator asks for (`scontrol update State=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeStateRequest {
    /// DRAIN (needs a reason).
    Drain,
    /// RESUME / IDLE: clears DRAIN and DOWN.
    Resume,
    /// DOWN (needs a reason): running jobs end as NODE_FAIL.
    Down,
    /// UNDRAIN: clears DRAIN only.
    Undrain,
}

/// `scontrol update NodeName=...`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeUpdate {
    /// The nodes, hostlists expanded.
    pub nodes: Vec<String>,
    /// The new state.
    pub state: Option<NodeStateRequest>,
    /// Reason=.
    pub reason: Option<String>,
}

/// When and where a job would start (`sbatch --test-only`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WillRun {
    /// The id the job would get.
    pub job_id: u32,
    /// The start, Unix seconds.
    pub start: u64,
    /// The nodes, as a hostlist.
    pub nodes: String,
    /// The CPUs it would get.
    pub cpus: u32,
    /// The partition.
    pub partition: String,
}

/// The controller's answer to one [`ClientRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ClientResponse {
    /// Answer to Ping: the controller's host name.
    Pong {
        /// SlurmctldHost's name.
        host: String,
    },
    /// The job is committed under this id.
    Submitted {
        /// The id.
        job_id: u32,
        /// The controller's ClusterName (`sbatch -M` prints it).
        cluster: String,
    },
    /// Answer to WillRun.
    WillRun(WillRun),
    /// Jobs, by id, with the controller's clock for run times.
    Jobs {
        /// The controller's time.
        now: u64,
        /// The jobs, with the fields asked for.
        jobs: JobList,
    },
    /// Running steps, ordered by job and step, with the controller's
    /// clock for run times.
    Steps {
        /// The controller's time.
        now: u64,
        /// The steps.
        steps: Vec<crate::step::StepInfo>,
    },
    /// Nodes, in configuration order.
    Nodes {
        /// The controller's time.
        now: u64,
        /// The nodes.
        nodes: Vec<NodeInfo>,
    },
    /// Partitions, in configuration order.
    Partitions(Vec<PartitionInfo>),
    /// The configuration.
    Config(ConfigInfo),
    /// Per-job results of a request naming several jobs, in request order.
    PerJob(Vec<(u32, Result<(), ProtoError>)>),
    /// Answer to History: the matching jobs with their steps, and the
    /// controller's clock for the elapsed time of running ones.
    History {
        /// The controller's time.
        now: u64,
        /// The jobs, by id.
        jobs: Vec<crate::history::HistoryJob>,
    },
    /// Done.
    Done,
    /// Answer to Backup: what the copy holds.
    BackedUp {
        /// Jobs in it.
        jobs: u64,
        /// Its size in bytes.
        bytes: u64,
    },
    /// Answer to StepCreate.
    StepCreated {
        /// The step.
        grant: crate::step::StepGrant,
        /// The controller's signature over it.
        signature: Vec<u8>,
    },
    /// Answer to SplitArrayTasks: `(task, job id)` for each task found,
    /// by task id.
    ArrayTaskJobs(Vec<(u32, u32)>),
    /// Results of a request naming a whole array, one per outcome, lowest
    /// task first, as slurmctld's job_array_resp_msg groups them: the
    /// tasks as `8_0,2-9`, and what came of them.
    PerTasks(Vec<(String, Result<(), ProtoError>)>),
    /// Answer to Token: the token.
    Token(String),
    /// Answer to Diag.
    Diag(Box<crate::stats::Stats>),
    /// Refused.
    Error(ProtoError),
    /// Answer to Shares (after Error: variants are only ever appended, so
    /// that what a peer of this protocol version sends keeps its meaning).
    Shares(crate::shares::Shares),
    /// Answer to Priorities.
    Priorities(crate::priority::Priorities),
    /// The NVLink domains, in topology.conf order.
    Domains(Vec<crate::node::DomainInfo>),
    /// Answer to Mesh: None where the mesh is off.
    Mesh(Option<Box<crate::MeshStatus>>),
}

/// How a job's batch script ended, as its node reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEnd {
    /// The job.
    pub job_id: u32,
    /// The exit code (0..=255).
    pub code: i32,
    /// The signal that ended it (0: none).
    pub signal: i32,
    /// When, Unix seconds.
    pub at: u64,
    /// The script never started: its working directory, output files or
    /// user could not be set up (the agent's log says which).
    pub launch_failed: bool,
    /// What the batch script's processes used (None: usage is not
    /// gathered).
    pub usage: Option<Box<crate::usage::Usage>>,
}

/// What an agent tells the controller when it connects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Registration {
    /// CPUs found (or configured, for emulated nodes).
    pub cpus: u32,
    /// Boards.
    pub boards: u32,
    /// Sockets.
    pub sockets: u32,
    /// CoresPerSocket.
    pub cores_per_socket: u32,
    /// ThreadsPerCore.
    pub threads_per_core: u32,
    /// RealMemory in MiB.
    pub real_memory: u64,
    /// GPU indices found, and their type if known.
    pub gpus: Vec<(u32, Option<String>)>,
    /// `uname -m`.
    pub arch: String,
    /// `uname -s -r -v`.
    pub os: String,
    /// The agent's version.
    pub version: String,
    /// The host's boot time, Unix seconds.
    pub boot_time: u64,
    /// Jobs whose batch script still runs here.
    pub running: Vec<u32>,
    /// Jobs with steps running here (their batch scripts here or on
    /// another node).
    pub steps: Vec<u32>,
    /// Jobs that ended here and are not yet acknowledged.
    pub ended: Vec<JobEnd>,
}

/// Agent -> controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum FromAgent {
    /// Sent once after the hello.
    Register(Box<Registration>),
    /// Sent every few seconds.
    Heartbeat {
        /// The one-minute load average.
        cpu_load: f64,
        /// Free memory in MiB.
        free_mem: u64,
    },
    /// A batch script ended.
    JobEnded(JobEnd),
    /// A command on the agent's host asks the controller something. The
    /// agent read `uid` from its local socket's peer credentials and
    /// vouches for it: the connection is authenticated by the cluster key.
    Relay {
        /// Matches the answer to the question.
        tag: u64,
        /// The caller, as the agent's socket saw it.
        uid: u32,
        /// The request.
        req: Box<ClientRequest>,
    },
    /// A batch script's launch reached the node's disk and its supervisor
    /// started: from now on the node answers for it. Sent up to a tenth
    /// of a second after the start, together with the others due then; a
    /// script whose end comes first is reported by its end alone.
    Launched {
        /// The job.
        job_id: u32,
    },
    /// A step's tasks on this node have all ended (its `spurd step`
    /// process is gone), whatever srun reports.
    StepEnded {
        /// The job.
        job_id: u32,
        /// The step.
        step_id: u32,
        /// What its tasks here used (None: usage is not gathered).
        usage: Option<Box<crate::usage::Usage>>,
    },
    /// The running steps' usage on this node so far, sampled every
    /// JobAcctGatherFrequency (for sstat and the metrics).
    Usage(Vec<crate::usage::LiveUsage>),
}

/// Why a job or step is being ended, as slurmstepd's
/// `*** JOB 7 ON n01 CANCELLED AT <time> DUE TO TIME LIMIT ***` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KillNotice {
    /// Cancelled (no cause is named).
    Cancelled,
    /// `DUE TO TIME LIMIT`.
    TimeLimit,
    /// `DUE TO PREEMPTION`.
    Preemption,
    /// `DUE TO JOB REQUEUE`.
    Requeue,
    /// `DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS`.
    NodeFailure,
}

impl KillNotice {
    /// slurmstepd's line for `entity` (`JOB 7`, `STEP 7.0`) on `node` at
    /// `at` (Unix seconds), without its newline.
    pub fn line(self, entity: &str, node: &str, at: u64) -> String {
        let due = match self {
            KillNotice::Cancelled => "",
            KillNotice::TimeLimit => " DUE TO TIME LIMIT",
            KillNotice::Preemption => " DUE TO PREEMPTION",
            KillNotice::Requeue => " DUE TO JOB REQUEUE",
            KillNotice::NodeFailure => " DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS",
        };
        format!(
            "slurmstepd: error: *** {entity} ON {node} CANCELLED AT {}{due} ***",
            spur_slurm::time::timestamp(at)
        )
    }
}

/// How `scontrol requeue` leaves a job in the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RequeueHold {
    /// `requeuehold`: held until released.
    pub hold: bool,
    /// `State=SpecialExit`: held in the SPECIAL_EXIT state until released.
    pub special_exit: bool,
}

/// Which processes of a job a signal reaches (Slurm's rules for
/// `scancel -s` and `--signal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignalScope {
    /// Every step, not the batch script (the default).
    Steps,
    /// The batch shell alone, not its children (`scancel -b`, `B:`).
    BatchShell,
    /// The batch script with all its children, and every step
    /// (`scancel -f`).
    Full,
}

impl SignalScope {
    /// The scope `scancel` asks for with `-b` / `-f`.
    pub fn of(batch: bool, full: bool) -> SignalScope {
        match (batch, full) {
            (_, true) => SignalScope::Full,
            (true, false) => SignalScope::BatchShell,
            (false, false) => SignalScope::Steps,
        }
    }
}

/// Everything a node needs to start a batch script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchLaunch {
    /// The job.
    pub job_id: u32,
    /// The job name (for `%x`).
    pub name: String,
    /// Run as this uid.
    pub uid: u32,
    /// With this primary gid.
    pub gid: u32,
    /// The user's name (for initgroups and `%u`).
    pub user_name: String,
    /// The script.
    pub script: String,
    /// Its arguments.
    pub argv: Vec<String>,
    /// The environment, SLURM_* included.
    pub env: Vec<(String, String)>,
    /// The working directory.
    pub work_dir: String,
    /// Output file pattern (relative to the working directory).
    pub stdout: String,
    /// Error file pattern (None: with stdout).
    pub stderr: Option<String>,
    /// Input file.
    pub stdin: String,
    /// `--open-mode`.
    pub open_mode: crate::job::OpenMode,
    /// GPU indices allocated on this node.
    pub gpus: Vec<u32>,
    /// The job's memory on this node in MiB (0: none counted), what
    /// cgroup confinement holds it to.
    pub memory_mib: u64,
    /// The array master id and task id (`%A`, `%a`).
    pub array: Option<(u32, u32)>,
}

/// Controller -> agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ToAgent {
    /// The registration was accepted. `now` is the controller's clock,
    /// by which the agent judges when step grants expire.
    Registered {
        /// Seconds since the epoch, on the controller.
        now: u64,
    },
    /// The mesh's members changed: the agent's interface gets these peers
    /// in place of its own.
    MeshPeers(Vec<crate::MeshPeer>),
    /// The answer to a heartbeat: the controller hears the agent. An agent
    /// that gets none for a while takes its connection for dead (a
    /// partition leaves TCP connections open) and connects anew.
    Alive,
    /// Start a batch script.
    LaunchBatch(Box<BatchLaunch>),
    /// Send a signal to a job's processes.
    Signal {
        /// The job.
        job_id: u32,
        /// The signal.
        signal: i32,
        /// Which of them.
        scope: SignalScope,
    },
    /// End a job: SIGTERM (after SIGCONT), then SIGKILL after `grace`
    /// seconds.
    Kill {
        /// The job.
        job_id: u32,
        /// Seconds between SIGTERM and SIGKILL.
        grace: u64,
        /// The line the batch script's output gets, on its node.
        notice: Option<KillNotice>,
    },
    /// The answer to a relayed request: one encoded `ClientResponse`
    /// frame, passed to the command as it is.
    RelayReply {
        /// The request's tag.
        tag: u64,
        /// The frame (length prefix included).
        frame: Vec<u8>,
    },
    /// The controller has committed the job's end; the agent may forget it.
    EndAcknowledged {
        /// The job.
        job_id: u32,
    },
    /// Send a signal to the processes of one step of a job.
    SignalStep {
        /// The job.
        job_id: u32,
        /// The step.
        step_id: u32,
        /// The signal.
        signal: i32,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_notices_read_as_slurmstepd_writes_them() {
        let at = 1_700_000_000;
        let time = spur_slurm::time::timestamp(at);
        let line = |n: KillNotice| n.line("JOB 7", "n01", at);
        assert_eq!(
            line(KillNotice::Cancelled),
            format!("slurmstepd: error: *** JOB 7 ON n01 CANCELLED AT {time} ***")
        );
        assert_eq!(
            line(KillNotice::Preemption),
            format!(
                "slurmstepd: error: *** JOB 7 ON n01 CANCELLED AT {time} DUE TO PREEMPTION ***"
            )
        );
        assert_eq!(
            KillNotice::NodeFailure.line("STEP 7.0", "n02", at),
            format!(
                "slurmstepd: error: *** STEP 7.0 ON n02 CANCELLED AT {time} DUE TO NODE FAILURE, \
                 SEE SLURMCTLD LOG FOR DETAILS ***"
            )
        );
    }
}
