//! slurmdbd's openapi/dbv0.0.38 documents: `/jobs/` (`sacct --json`).

use serde::Serialize;

use super::Meta;

/// The slurmdbd `/jobs/` document (and `sacct --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Jobs {
    /// `meta`.
    pub meta: Meta,
    /// `errors`.
    pub errors: Vec<String>,
    /// `jobs`.
    pub jobs: Vec<Job>,
}

/// One job of the accounting, as dbv0.0.38's `_dump_job` writes it; each
/// field is the key of the same name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    pub account: Option<String>,
    pub comment: Comment,
    pub allocation_nodes: i64,
    pub array: JobArray,
    pub association: Association,
    pub cluster: String,
    pub constraints: String,
    pub container: Option<String>,
    pub derived_exit_code: ExitStatus,
    pub time: JobTime,
    pub exit_code: ExitStatus,
    pub flags: Vec<String>,
    pub group: String,
    pub het: Het,
    pub job_id: i64,
    pub name: String,
    pub mcs: Mcs,
    pub nodes: String,
    pub partition: String,
    pub priority: i64,
    pub qos: String,
    pub required: Required,
    pub kill_request_user: Option<String>,
    pub reservation: Reservation,
    pub state: JobState,
    pub steps: Vec<Step>,
    pub tres: JobTres,
    pub user: String,
    pub wckey: Wckey,
    pub working_directory: String,
}

/// `comment`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comment {
    pub administrator: Option<String>,
    pub job: Option<String>,
    pub system: Option<String>,
}

/// `array`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobArray {
    pub job_id: i64,
    pub limits: ArrayLimits,
    pub task: Option<String>,
    pub task_id: Option<i64>,
}

/// `array.limits`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArrayLimits {
    pub max: ArrayMax,
}

/// `array.limits.max`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArrayMax {
    pub running: RunningTasks,
}

/// `array.limits.max.running`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunningTasks {
    pub tasks: i64,
}

/// `association`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Association {
    pub account: Option<String>,
    pub cluster: String,
    pub partition: Option<String>,
    pub user: String,
}

/// An exit status as dbv0.0.38 writes it: `SUCCESS` with a return code,
/// or `SIGNALED` with the signal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExitStatus {
    pub status: String,
    pub return_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<Signal>,
}

/// `exit_code.signal`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Signal {
    pub signal_id: i64,
    pub name: String,
}

/// A job's `time`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobTime {
    pub elapsed: i64,
    pub eligible: i64,
    pub end: i64,
    pub start: Option<i64>,
    pub submission: i64,
    pub suspended: i64,
    pub system: CpuTime,
    pub limit: Option<i64>,
    pub total: CpuTime,
    pub user: CpuTime,
}

/// CPU time in seconds and microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CpuTime {
    pub seconds: i64,
    pub microseconds: i64,
}

impl CpuTime {
    /// `micros` microseconds.
    pub fn from_micros(micros: u64) -> CpuTime {
        CpuTime {
            seconds: (micros / 1_000_000) as i64,
            microseconds: (micros % 1_000_000) as i64,
        }
    }
}

/// `het`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Het {
    pub job_id: i64,
    pub job_offset: Option<i64>,
}

/// `mcs`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mcs {
    pub label: String,
}

/// `required`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Required {
    #[serde(rename = "CPUs")]
    pub cpus: i64,
    pub memory: i64,
}

/// `reservation` (Slurm writes the name as a number).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reservation {
    pub id: i64,
    pub name: i64,
}

/// A job's `state`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobState {
    pub current: String,
    pub reason: String,
}

/// A job's `tres`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobTres {
    pub allocated: Vec<TresItem>,
    pub requested: Vec<TresItem>,
}

/// One TRES count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TresItem {
    #[serde(rename = "type")]
    pub kind: String,
    pub name: Option<String>,
    pub id: i64,
    pub count: i64,
}

/// `wckey`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wckey {
    pub wckey: String,
    pub flags: Vec<String>,
}

/// One step of a job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub nodes: StepNodes,
    pub tres: StepTres,
    pub time: StepTime,
    pub exit_code: ExitStatus,
    pub tasks: TaskCount,
    pub pid: Option<String>,
    #[serde(rename = "CPU")]
    pub cpu: StepCpu,
    pub kill_request_user: Option<String>,
    pub state: String,
    pub statistics: Statistics,
    pub step: StepName,
    pub task: StepTask,
}

/// A step's `tasks`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskCount {
    pub count: i64,
}

/// A step's `nodes` (no `list` for a step on no node).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepNodes {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub list: Vec<String>,
    pub count: i64,
    pub range: String,
}

/// A step's `tres`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTres {
    pub requested: Usage,
    pub consumed: Usage,
    pub allocated: Vec<TresItem>,
}

/// Requested or consumed TRES of a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    pub max: Vec<TresItem>,
    pub min: Vec<TresItem>,
    pub average: Vec<TresItem>,
    pub total: Vec<TresItem>,
}

/// A step's `time`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTime {
    pub elapsed: i64,
    pub end: i64,
    pub start: i64,
    pub suspended: i64,
    pub system: CpuTime,
    pub total: CpuTime,
    pub user: CpuTime,
}

/// A step's `CPU`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepCpu {
    pub requested_frequency: Frequency,
    pub governor: Vec<String>,
}

/// `CPU.requested_frequency`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frequency {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// A step's `statistics`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statistics {
    #[serde(rename = "CPU")]
    pub cpu: ActualFrequency,
    pub energy: Consumed,
}

/// `statistics.CPU`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActualFrequency {
    pub actual_frequency: i64,
}

/// `statistics.energy`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Consumed {
    pub consumed: i64,
}

/// A step's `step`: whose it is and its id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepName {
    pub job_id: i64,
    pub het: HetComponent,
    pub id: StepIdValue,
    pub name: String,
}

/// `step.het`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HetComponent {
    pub component: Option<i64>,
}

/// A step id: a number, or `batch`, `extern`, `interactive`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StepIdValue {
    /// `3`.
    Number(i64),
    /// `batch`.
    Name(String),
}

/// A step's `task`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTask {
    pub distribution: String,
}
