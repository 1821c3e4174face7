//! Job history, as `sacct` asks for it and the controller answers: the
//! selection ([`HistoryQuery`], Slurm's job condition after sacct has filled
//! in its defaults) and one record per job with its steps ([`HistoryJob`],
//! [`HistoryStep`]). The controller reads these from its own store; no
//! database server is involved. Nothing here formats output.

use serde::{Deserialize, Serialize};

use crate::job::JobStateName;

pub use spur_slurm::step_ref::{JobSelector, StepId};

/// The job states sacct can select on (`-s`), as slurmdbd accounts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AcctState {
    /// PENDING (PD).
    Pending,
    /// RUNNING (R).
    Running,
    /// SUSPENDED (S).
    Suspended,
    /// COMPLETED (CD).
    Completed,
    /// CANCELLED (CA).
    Cancelled,
    /// FAILED (F).
    Failed,
    /// TIMEOUT (TO).
    Timeout,
    /// NODE_FAIL (NF).
    NodeFail,
    /// PREEMPTED (PR).
    Preempted,
    /// BOOT_FAIL (BF).
    BootFail,
    /// DEADLINE (DL).
    Deadline,
    /// OUT_OF_MEMORY (OOM).
    OutOfMemory,
    /// REQUEUED (RQ).
    Requeued,
    /// RESIZING (RS).
    Resizing,
    /// REVOKED (RV).
    Revoked,
}

impl AcctState {
    /// Every accounted state, in Slurm's order.
    pub const ALL: [AcctState; 15] = [
        AcctState::Pending,
        AcctState::Running,
        AcctState::Suspended,
        AcctState::Completed,
        AcctState::Cancelled,
        AcctState::Failed,
        AcctState::Timeout,
        AcctState::NodeFail,
        AcctState::Preempted,
        AcctState::BootFail,
        AcctState::Deadline,
        AcctState::OutOfMemory,
        AcctState::Requeued,
        AcctState::Resizing,
        AcctState::Revoked,
    ];

    /// The full name.
    pub fn as_str(self) -> &'static str {
        match self {
            AcctState::Pending => "PENDING",
            AcctState::Running => "RUNNING",
            AcctState::Suspended => "SUSPENDED",
            AcctState::Completed => "COMPLETED",
            AcctState::Cancelled => "CANCELLED",
            AcctState::Failed => "FAILED",
            AcctState::Timeout => "TIMEOUT",
            AcctState::NodeFail => "NODE_FAIL",
            AcctState::Preempted => "PREEMPTED",
            AcctState::BootFail => "BOOT_FAIL",
            AcctState::Deadline => "DEADLINE",
            AcctState::OutOfMemory => "OUT_OF_MEMORY",
            AcctState::Requeued => "REQUEUED",
            AcctState::Resizing => "RESIZING",
            AcctState::Revoked => "REVOKED",
        }
    }

    /// The compact code.
    pub fn short(self) -> &'static str {
        match self {
            AcctState::Pending => "PD",
            AcctState::Running => "R",
            AcctState::Suspended => "S",
            AcctState::Completed => "CD",
            AcctState::Cancelled => "CA",
            AcctState::Failed => "F",
            AcctState::Timeout => "TO",
            AcctState::NodeFail => "NF",
            AcctState::Preempted => "PR",
            AcctState::BootFail => "BF",
            AcctState::Deadline => "DL",
            AcctState::OutOfMemory => "OOM",
            AcctState::Requeued => "RQ",
            AcctState::Resizing => "RS",
            AcctState::Revoked => "RV",
        }
    }

    /// Parses a full name or compact code, any case.
    pub fn parse(text: &str) -> Option<AcctState> {
        AcctState::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text) || s.short().eq_ignore_ascii_case(text))
    }
}

/// What sacct asks for: Slurm's job condition, with sacct's defaults for
/// the time window already applied. Empty lists select everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryQuery {
    /// `-j`.
    pub jobs: Vec<JobSelector>,
    /// `-u` (empty: every user).
    pub uids: Vec<u32>,
    /// `-s`: jobs that were in one of these states during the window.
    pub states: Vec<AcctState>,
    /// `-S`, Unix seconds (None: Epoch 0).
    pub start: Option<u64>,
    /// `-E`, Unix seconds, exclusive (None: no end).
    pub end: Option<u64>,
    /// `--name`.
    pub names: Vec<String>,
    /// `-r`: the partitions the jobs ran in.
    pub partitions: Vec<String>,
    /// Whether steps are wanted (false for `-X`).
    pub steps: bool,
}

/// Trackable resources, as accounting counts them (TRES).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tres {
    /// `cpu`.
    pub cpus: u32,
    /// `mem`, MiB.
    pub mem_mb: u64,
    /// `node`.
    pub nodes: u32,
    /// `billing` (0: not counted, as for steps).
    pub billing: u32,
    /// `gres/gpu`.
    pub gpus: u32,
}

impl Tres {
    /// A job's TRES as slurmctld writes it, by TRES id:
    /// `cpu=2,mem=8G,node=2,billing=2,gres/gpu=8` (no GPUs, no `gres/gpu`).
    pub fn job_text(&self) -> String {
        let mut text = format!(
            "cpu={},mem={},node={},billing={}",
            self.cpus,
            spur_slurm::units::tres_memory(self.mem_mb),
            self.nodes,
            self.billing
        );
        if self.gpus > 0 {
            text.push_str(&format!(",gres/gpu={}", self.gpus));
        }
        text
    }

    /// A step's TRES as slurmctld writes it, names in order:
    /// `cpu=2,gres/gpu=1,mem=8G,node=1` (no `gres/gpu` without GPUs, no
    /// `mem` without memory).
    pub fn step_text(&self) -> String {
        let mut text = format!("cpu={}", self.cpus);
        if self.gpus > 0 {
            text.push_str(&format!(",gres/gpu={}", self.gpus));
        }
        if self.mem_mb > 0 {
            text.push_str(&format!(
                ",mem={}",
                spur_slurm::units::tres_memory(self.mem_mb)
            ));
        }
        text.push_str(&format!(",node={}", self.nodes));
        text
    }

    /// Reads back any of the texts above (`cpu=8,gres/gpu=8,mem=32G,node=2`);
    /// None for a name or number it does not know.
    pub fn parse(text: &str) -> Option<Tres> {
        let mut t = Tres::default();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let (name, value) = part.split_once('=')?;
            match name {
                "cpu" => t.cpus = value.parse().ok()?,
                "node" => t.nodes = value.parse().ok()?,
                "billing" => t.billing = value.parse().ok()?,
                "gres/gpu" => t.gpus = value.parse().ok()?,
                "mem" => t.mem_mb = spur_conf::parse_memory_mb(value).ok()?,
                _ => return None,
            }
        }
        Some(t)
    }

    /// The TRES as sacct prints it, names in order and zero counts left
    /// out: `billing=8,cpu=8,gres/gpu=8,mem=32G,node=2`.
    pub fn sorted_text(&self, no_convert: bool) -> String {
        let mut parts = Vec::with_capacity(5);
        if self.billing > 0 {
            parts.push(format!("billing={}", self.billing));
        }
        if self.cpus > 0 {
            parts.push(format!("cpu={}", self.cpus));
        }
        if self.gpus > 0 {
            parts.push(format!("gres/gpu={}", self.gpus));
        }
        if self.mem_mb > 0 {
            parts.push(format!(
                "mem={}",
                spur_slurm::units::memory(self.mem_mb, no_convert)
            ));
        }
        if self.nodes > 0 {
            parts.push(format!("node={}", self.nodes));
        }
        parts.join(",")
    }
}

/// One job of the history, as the accounting record holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryJob {
    /// JobIDRaw.
    pub job_id: u32,
    /// The array's id, for an array task.
    pub array_job_id: Option<u32>,
    /// The task id, for an array task.
    pub array_task_id: Option<u32>,
    /// The tasks still pending in an array's own record (`2-9`).
    pub array_task_str: Option<String>,
    /// JobName.
    pub name: String,
    /// UID.
    pub user_id: u32,
    /// User.
    pub user_name: String,
    /// GID.
    pub group_id: u32,
    /// Group.
    pub group_name: String,
    /// Account (None: none given).
    pub account: Option<String>,
    /// The partition it ran in (or was queued in).
    pub partition: String,
    /// QOS.
    pub qos: String,
    /// The state now.
    pub state: JobStateName,
    /// Who cancelled it (`CANCELLED by N`).
    pub cancelled_by: Option<u32>,
    /// Why it waited before its last state change (`None` if it did not).
    pub reason: String,
    /// The job's exit code, as recorded when it ended.
    pub exit_code: i32,
    /// The signal of the job's exit status.
    pub exit_signal: i32,
    /// The highest exit code of its srun steps.
    pub derived_exit_code: i32,
    /// The signal that ended one of its srun steps.
    pub derived_exit_signal: i32,
    /// Submit.
    pub submit_time: u64,
    /// Eligible (None: never eligible, e.g. held).
    pub eligible_time: Option<u64>,
    /// Start (None: it never started).
    pub start_time: Option<u64>,
    /// End (None: it has not ended).
    pub end_time: Option<u64>,
    /// The time limit in seconds (None: UNLIMITED).
    pub time_limit: Option<u64>,
    /// Priority.
    pub priority: u32,
    /// NodeList ("" when none was assigned).
    pub nodes: String,
    /// ReqTRES.
    pub requested: Tres,
    /// The memory asked for as given: per node, or per CPU with
    /// `req_mem_per_cpu` (MiB).
    pub req_mem_mb: u64,
    /// Whether `req_mem_mb` is per CPU.
    pub req_mem_per_cpu: bool,
    /// AllocTRES (None: it never got resources).
    pub allocated: Option<Tres>,
    /// WorkDir.
    pub work_dir: String,
    /// Comment.
    pub comment: Option<String>,
    /// Constraints (`-C`).
    pub constraints: Option<String>,
    /// Its steps that match the query, batch step first.
    pub steps: Vec<HistoryStep>,
}

impl HistoryJob {
    /// The job as sacct's JobID names it: `8_0` for an array task,
    /// `8_[2-9]` for an array's pending tasks, else the id.
    pub fn id_text(&self) -> String {
        match (self.array_job_id, self.array_task_id, &self.array_task_str) {
            (Some(array), Some(task), _) => format!("{array}_{task}"),
            (Some(array), None, Some(pending)) => format!("{array}_[{pending}]"),
            _ => self.job_id.to_string(),
        }
    }
}

/// One step of a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryStep {
    /// The id.
    pub step: StepId,
    /// Its name (`batch` for the batch step).
    pub name: String,
    /// The state now.
    pub state: JobStateName,
    /// Who cancelled it.
    pub cancelled_by: Option<u32>,
    /// The exit code.
    pub exit_code: i32,
    /// The signal that ended it (0: none).
    pub exit_signal: i32,
    /// Start.
    pub start_time: u64,
    /// End (None: still running).
    pub end_time: Option<u64>,
    /// NodeList.
    pub nodes: String,
    /// NNodes.
    pub node_count: u32,
    /// NTasks.
    pub ntasks: u32,
    /// AllocTRES.
    pub allocated: Tres,
    /// Layout (`Block`, `Cyclic`, ...; None: unknown).
    pub layout: Option<String>,
    /// User CPU time of its tasks, microseconds (0: not measured).
    pub user_cpu_us: u64,
    /// System CPU time of its tasks, microseconds (0: not measured).
    pub system_cpu_us: u64,
    /// What its tasks used, as their nodes measured it (None: nothing
    /// was gathered).
    pub usage: Option<crate::usage::Usage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_texts_read_back_into_counts() {
        assert_eq!(
            Tres::parse("cpu=8,gres/gpu=8,mem=32G,node=2"),
            Some(Tres {
                cpus: 8,
                mem_mb: 32_768,
                nodes: 2,
                billing: 0,
                gpus: 8
            })
        );
        assert_eq!(
            Tres::parse("cpu=1,mem=1000M,node=1").map(|t| t.mem_mb),
            Some(1000)
        );
        assert_eq!(Tres::parse("cpu=x"), None);
        assert_eq!(Tres::parse("energy=0"), None);
    }

    #[test]
    fn step_ids_and_states_parse_as_slurm_writes_them() {
        assert_eq!(StepId::parse("batch"), Some(StepId::Batch));
        assert_eq!(StepId::parse("3"), Some(StepId::Numbered(3)));
        assert_eq!(StepId::parse("12x"), Some(StepId::Numbered(12)));
        assert_eq!(StepId::parse("x"), None);
        assert_eq!(StepId::Numbered(7).to_string(), "7");
        assert_eq!(AcctState::parse("cd"), Some(AcctState::Completed));
        assert_eq!(AcctState::parse("Node_Fail"), Some(AcctState::NodeFail));
        assert_eq!(AcctState::parse("oom"), Some(AcctState::OutOfMemory));
        assert_eq!(AcctState::parse("completing"), None);
    }
}
