//! sacct's fields: the table Slurm's sacct prints from (names, default
//! widths and print routines, in Slurm's order, which `--helpformat` lists
//! and `-o` prefixes match against), and the value of each field for a job
//! or a step line. Fields spur keeps no data for print what Slurm prints
//! for a record without that data. Pure.

use spur_proto::{HistoryJob, HistoryStep, JobStateName, StepId, UsageTres};

use crate::usage::{DiskUnit, Figure, Part, Pick, View};

/// How a field prints (Slurm's print_fields_* routine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text, cut with `+` when wider than the column.
    Str,
    /// A number; blank when unset.
    Num,
    /// A timestamp, `Unknown` or `None`.
    Date,
    /// A duration in seconds, as `[D-]HH:MM:SS`.
    Secs,
}

/// Which field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F {
    /// Account.
    Account,
    /// AdminComment.
    AdminComment,
    /// AllocCPUS.
    AllocCpus,
    /// AllocNodes.
    AllocNodes,
    /// AllocTRES.
    AllocTres,
    /// AssocID.
    AssocId,
    /// AveCPUFreq.
    AveCpuFreq,
    /// BlockID.
    BlockId,
    /// Cluster.
    Cluster,
    /// Comment.
    Comment,
    /// Constraints.
    Constraints,
    /// ConsumedEnergy.
    ConsumedEnergy,
    /// ConsumedEnergyRaw.
    ConsumedEnergyRaw,
    /// Container.
    Container,
    /// CPUTime.
    CpuTime,
    /// CPUTimeRAW.
    CpuTimeRaw,
    /// DBIndex.
    DbIndex,
    /// DerivedExitCode.
    DerivedExitCode,
    /// Elapsed.
    Elapsed,
    /// ElapsedRaw.
    ElapsedRaw,
    /// Eligible.
    Eligible,
    /// End.
    End,
    /// ExitCode.
    ExitCode,
    /// Flags.
    Flags,
    /// GID.
    Gid,
    /// Group.
    Group,
    /// JobID.
    JobId,
    /// JobIDRaw.
    JobIdRaw,
    /// JobName.
    JobName,
    /// Layout.
    Layout,
    /// One figure of a step's usage (MaxRSS, MaxRSSNode, AveCPU, ...).
    Figure(Figure),
    /// McsLabel.
    McsLabel,
    /// NCPUS.
    Ncpus,
    /// NNodes.
    NNodes,
    /// NodeList.
    NodeList,
    /// NTasks.
    NTasks,
    /// Partition.
    Partition,
    /// Priority.
    Priority,
    /// QOS.
    Qos,
    /// QOSRAW.
    QosRaw,
    /// Reason.
    Reason,
    /// ReqCPUFreq, ReqCPUFreqGov, ReqCPUFreqMax, ReqCPUFreqMin.
    ReqCpuFreq,
    /// ReqCPUS.
    ReqCpus,
    /// ReqMem.
    ReqMem,
    /// ReqNodes.
    ReqNodes,
    /// ReqTRES.
    ReqTres,
    /// Reservation.
    Reservation,
    /// ReservationId.
    ReservationId,
    /// Reserved.
    Reserved,
    /// ResvCPU.
    ResvCpu,
    /// ResvCPURAW.
    ResvCpuRaw,
    /// Start.
    Start,
    /// State.
    State,
    /// Submit.
    Submit,
    /// SubmitLine.
    SubmitLine,
    /// Suspended.
    Suspended,
    /// SystemComment.
    SystemComment,
    /// SystemCPU.
    SystemCpu,
    /// Timelimit.
    Timelimit,
    /// TimelimitRaw.
    TimelimitRaw,
    /// TotalCPU.
    TotalCpu,
    /// A TRES usage string: TRESUsageInMax (`output` false, Max, Value),
    /// TRESUsageOutMinNode, ...
    TresUsage {
        /// Written rather than read.
        output: bool,
        /// Which figure.
        pick: Pick,
        /// Which part of it.
        part: Part,
    },
    /// UID.
    Uid,
    /// User.
    User,
    /// UserCPU.
    UserCpu,
    /// WCKey.
    WcKey,
    /// WCKeyID.
    WcKeyId,
    /// WorkDir.
    WorkDir,
}

/// One entry of the field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// The name, in Slurm's case.
    pub name: &'static str,
    /// The default width; negative is left-aligned.
    pub width: i32,
    /// How it prints.
    pub kind: Kind,
    /// Which field.
    pub id: F,
}

const fn f(width: i32, name: &'static str, kind: Kind, id: F) -> FieldDef {
    FieldDef {
        name,
        width,
        kind,
        id,
    }
}

use Kind::{Date, Num, Secs, Str};

/// Slurm 22.05's sacct field table, in its order.
pub const FIELDS: &[FieldDef] = &[
    f(10, "Account", Str, F::Account),
    f(15, "AdminComment", Str, F::AdminComment),
    f(10, "AllocCPUS", Num, F::AllocCpus),
    f(10, "AllocNodes", Str, F::AllocNodes),
    f(10, "AllocTRES", Str, F::AllocTres),
    f(7, "AssocID", Num, F::AssocId),
    f(
        10,
        "AveCPU",
        Str,
        F::Figure(Figure::input(UsageTres::Cpu, Pick::Ave, Part::Value)),
    ),
    f(10, "AveCPUFreq", Str, F::AveCpuFreq),
    f(
        14,
        "AveDiskRead",
        Str,
        F::Figure(Figure::input(UsageTres::FsDisk, Pick::Ave, Part::Value)),
    ),
    f(
        14,
        "AveDiskWrite",
        Str,
        F::Figure(Figure::output(UsageTres::FsDisk, Pick::Ave, Part::Value)),
    ),
    f(
        10,
        "AvePages",
        Str,
        F::Figure(Figure::input(UsageTres::Pages, Pick::Ave, Part::Value)),
    ),
    f(
        10,
        "AveRSS",
        Str,
        F::Figure(Figure::input(UsageTres::Mem, Pick::Ave, Part::Value)),
    ),
    f(
        10,
        "AveVMSize",
        Str,
        F::Figure(Figure::input(UsageTres::Vmem, Pick::Ave, Part::Value)),
    ),
    f(16, "BlockID", Str, F::BlockId),
    f(10, "Cluster", Str, F::Cluster),
    f(14, "Comment", Str, F::Comment),
    f(19, "Constraints", Str, F::Constraints),
    f(14, "ConsumedEnergy", Str, F::ConsumedEnergy),
    f(17, "ConsumedEnergyRaw", Num, F::ConsumedEnergyRaw),
    f(19, "Container", Str, F::Container),
    f(10, "CPUTime", Secs, F::CpuTime),
    f(10, "CPUTimeRAW", Num, F::CpuTimeRaw),
    f(-10, "DBIndex", Num, F::DbIndex),
    f(15, "DerivedExitCode", Str, F::DerivedExitCode),
    f(10, "Elapsed", Secs, F::Elapsed),
    f(10, "ElapsedRaw", Num, F::ElapsedRaw),
    f(19, "Eligible", Date, F::Eligible),
    f(19, "End", Date, F::End),
    f(8, "ExitCode", Str, F::ExitCode),
    f(19, "Flags", Str, F::Flags),
    f(6, "GID", Num, F::Gid),
    f(9, "Group", Str, F::Group),
    f(-12, "JobID", Str, F::JobId),
    f(-12, "JobIDRaw", Str, F::JobIdRaw),
    f(10, "JobName", Str, F::JobName),
    f(9, "Layout", Str, F::Layout),
    f(
        12,
        "MaxDiskRead",
        Str,
        F::Figure(Figure::input(UsageTres::FsDisk, Pick::Max, Part::Value)),
    ),
    f(
        15,
        "MaxDiskReadNode",
        Str,
        F::Figure(Figure::input(UsageTres::FsDisk, Pick::Max, Part::Node)),
    ),
    f(
        15,
        "MaxDiskReadTask",
        Num,
        F::Figure(Figure::input(UsageTres::FsDisk, Pick::Max, Part::Task)),
    ),
    f(
        12,
        "MaxDiskWrite",
        Str,
        F::Figure(Figure::output(UsageTres::FsDisk, Pick::Max, Part::Value)),
    ),
    f(
        16,
        "MaxDiskWriteNode",
        Str,
        F::Figure(Figure::output(UsageTres::FsDisk, Pick::Max, Part::Node)),
    ),
    f(
        16,
        "MaxDiskWriteTask",
        Num,
        F::Figure(Figure::output(UsageTres::FsDisk, Pick::Max, Part::Task)),
    ),
    f(
        8,
        "MaxPages",
        Str,
        F::Figure(Figure::input(UsageTres::Pages, Pick::Max, Part::Value)),
    ),
    f(
        12,
        "MaxPagesNode",
        Str,
        F::Figure(Figure::input(UsageTres::Pages, Pick::Max, Part::Node)),
    ),
    f(
        14,
        "MaxPagesTask",
        Num,
        F::Figure(Figure::input(UsageTres::Pages, Pick::Max, Part::Task)),
    ),
    f(
        10,
        "MaxRSS",
        Str,
        F::Figure(Figure::input(UsageTres::Mem, Pick::Max, Part::Value)),
    ),
    f(
        10,
        "MaxRSSNode",
        Str,
        F::Figure(Figure::input(UsageTres::Mem, Pick::Max, Part::Node)),
    ),
    f(
        10,
        "MaxRSSTask",
        Num,
        F::Figure(Figure::input(UsageTres::Mem, Pick::Max, Part::Task)),
    ),
    f(
        10,
        "MaxVMSize",
        Str,
        F::Figure(Figure::input(UsageTres::Vmem, Pick::Max, Part::Value)),
    ),
    f(
        14,
        "MaxVMSizeNode",
        Str,
        F::Figure(Figure::input(UsageTres::Vmem, Pick::Max, Part::Node)),
    ),
    f(
        14,
        "MaxVMSizeTask",
        Num,
        F::Figure(Figure::input(UsageTres::Vmem, Pick::Max, Part::Task)),
    ),
    f(12, "McsLabel", Str, F::McsLabel),
    f(
        10,
        "MinCPU",
        Str,
        F::Figure(Figure::input(UsageTres::Cpu, Pick::Min, Part::Value)),
    ),
    f(
        10,
        "MinCPUNode",
        Str,
        F::Figure(Figure::input(UsageTres::Cpu, Pick::Min, Part::Node)),
    ),
    f(
        10,
        "MinCPUTask",
        Num,
        F::Figure(Figure::input(UsageTres::Cpu, Pick::Min, Part::Task)),
    ),
    f(10, "NCPUS", Num, F::Ncpus),
    f(8, "NNodes", Num, F::NNodes),
    f(15, "NodeList", Str, F::NodeList),
    f(8, "NTasks", Num, F::NTasks),
    f(10, "Partition", Str, F::Partition),
    f(10, "Priority", Num, F::Priority),
    f(10, "QOS", Str, F::Qos),
    f(6, "QOSRAW", Num, F::QosRaw),
    f(22, "Reason", Str, F::Reason),
    f(10, "ReqCPUFreq", Str, F::ReqCpuFreq),
    f(13, "ReqCPUFreqGov", Str, F::ReqCpuFreq),
    f(13, "ReqCPUFreqMax", Str, F::ReqCpuFreq),
    f(13, "ReqCPUFreqMin", Str, F::ReqCpuFreq),
    f(8, "ReqCPUS", Num, F::ReqCpus),
    f(10, "ReqMem", Str, F::ReqMem),
    f(8, "ReqNodes", Str, F::ReqNodes),
    f(10, "ReqTRES", Str, F::ReqTres),
    f(20, "Reservation", Str, F::Reservation),
    f(8, "ReservationId", Num, F::ReservationId),
    f(10, "Reserved", Secs, F::Reserved),
    f(10, "ResvCPU", Secs, F::ResvCpu),
    f(10, "ResvCPURAW", Num, F::ResvCpuRaw),
    f(19, "Start", Date, F::Start),
    f(10, "State", Str, F::State),
    f(19, "Submit", Date, F::Submit),
    f(20, "SubmitLine", Str, F::SubmitLine),
    f(10, "Suspended", Secs, F::Suspended),
    f(15, "SystemComment", Str, F::SystemComment),
    f(10, "SystemCPU", Str, F::SystemCpu),
    f(10, "Timelimit", Str, F::Timelimit),
    f(10, "TimelimitRaw", Str, F::TimelimitRaw),
    f(10, "TotalCPU", Str, F::TotalCpu),
    f(
        14,
        "TRESUsageInAve",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Ave,
            part: Part::Value,
        },
    ),
    f(
        14,
        "TRESUsageInMax",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Max,
            part: Part::Value,
        },
    ),
    f(
        18,
        "TRESUsageInMaxNode",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Max,
            part: Part::Node,
        },
    ),
    f(
        18,
        "TRESUsageInMaxTask",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Max,
            part: Part::Task,
        },
    ),
    f(
        14,
        "TRESUsageInMin",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Min,
            part: Part::Value,
        },
    ),
    f(
        18,
        "TRESUsageInMinNode",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Min,
            part: Part::Node,
        },
    ),
    f(
        18,
        "TRESUsageInMinTask",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Min,
            part: Part::Task,
        },
    ),
    f(
        14,
        "TRESUsageInTot",
        Str,
        F::TresUsage {
            output: false,
            pick: Pick::Tot,
            part: Part::Value,
        },
    ),
    f(
        15,
        "TRESUsageOutAve",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Ave,
            part: Part::Value,
        },
    ),
    f(
        15,
        "TRESUsageOutMax",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Max,
            part: Part::Value,
        },
    ),
    f(
        19,
        "TRESUsageOutMaxNode",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Max,
            part: Part::Node,
        },
    ),
    f(
        19,
        "TRESUsageOutMaxTask",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Max,
            part: Part::Task,
        },
    ),
    f(
        15,
        "TRESUsageOutMin",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Min,
            part: Part::Value,
        },
    ),
    f(
        19,
        "TRESUsageOutMinNode",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Min,
            part: Part::Node,
        },
    ),
    f(
        19,
        "TRESUsageOutMinTask",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Min,
            part: Part::Task,
        },
    ),
    f(
        15,
        "TRESUsageOutTot",
        Str,
        F::TresUsage {
            output: true,
            pick: Pick::Tot,
            part: Part::Value,
        },
    ),
    f(6, "UID", Num, F::Uid),
    f(9, "User", Str, F::User),
    f(10, "UserCPU", Str, F::UserCpu),
    f(10, "WCKey", Str, F::WcKey),
    f(10, "WCKeyID", Num, F::WcKeyId),
    f(20, "WorkDir", Str, F::WorkDir),
];

/// `sacct --helpformat`: the names, four to a line, 19 wide.
pub fn help_format() -> String {
    crate::print_fields::help_format(FIELDS.iter().map(|f| f.name), 19)
}

/// Finds a field as sacct does: the first in table order whose name
/// starts with `given`, any case.
pub fn lookup(given: &str) -> Option<&'static FieldDef> {
    FIELDS
        .iter()
        .find(|f| f.name.len() >= given.len() && f.name[..given.len()].eq_ignore_ascii_case(given))
}

/// A timestamp cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stamp {
    /// 0: `Unknown`.
    Unknown,
    /// Slurm's NO_VAL (a job that ended without starting): `None`.
    Never,
    /// A time.
    At(u64),
}

/// What one field holds for one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Text (None: unset).
    Str(Option<String>),
    /// A number (None: unset).
    Num(Option<u64>),
    /// A timestamp.
    Date(Stamp),
    /// A duration (None: unset).
    Secs(Option<u64>),
}

/// A line of the report: a job, one pending task of an array's record, or
/// a step.
#[derive(Debug, Clone, Copy)]
pub enum Line<'a> {
    /// The job's own line.
    Job(&'a HistoryJob),
    /// Task `1` of the pending tasks in the array's record `0`
    /// (`--array`): the record's values under the task's JobID.
    Task(&'a HistoryJob, u32),
    /// A step of it.
    Step(&'a HistoryJob, &'a HistoryStep),
}

/// What the values depend on besides the line.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// The controller's clock, for the elapsed time of running jobs.
    pub now: u64,
    /// ClusterName.
    pub cluster: String,
    /// `--noconvert`: memory stays in MiB.
    pub noconvert: bool,
}

/// `code:signal`, Slurm's way (an exit code of 128 or more loses 128).
fn exit_text(code: i32, signal: i32) -> String {
    if signal != 0 {
        format!("0:{signal}")
    } else {
        let code = if code >= 128 { code - 128 } else { code };
        format!("{code}:0")
    }
}

fn state_text(state: JobStateName, by: Option<u32>) -> String {
    match (state, by) {
        (JobStateName::Cancelled, Some(uid)) => format!("CANCELLED by {uid}"),
        _ => state.as_str().to_string(),
    }
}

/// How long a job ran (0 if it never started).
pub fn job_elapsed(job: &HistoryJob, now: u64) -> u64 {
    match job.start_time {
        None => 0,
        Some(start) => job.end_time.unwrap_or(now).saturating_sub(start),
    }
}

/// How long a step ran.
pub fn step_elapsed(step: &HistoryStep, now: u64) -> u64 {
    step.end_time.unwrap_or(now).saturating_sub(step.start_time)
}

/// CPUs of a job: allocated, else asked for.
pub fn job_cpus(job: &HistoryJob) -> u32 {
    job.allocated.map_or(job.requested.cpus, |a| a.cpus)
}

/// Nodes of a job: allocated, else asked for.
pub fn job_nodes(job: &HistoryJob) -> u32 {
    job.allocated.map_or(job.requested.nodes, |a| a.nodes)
}

/// (user, system) CPU microseconds of a job: its ended steps together.
pub fn job_cpu(job: &HistoryJob) -> (u64, u64) {
    job.steps
        .iter()
        .filter(|s| s.state.is_finished())
        .fold((0, 0), |(u, s), st| {
            (u + st.user_cpu_us, s + st.system_cpu_us)
        })
}

/// `Unknown` for 0 or unset, else the time.
fn stamp(t: Option<u64>) -> Stamp {
    match t {
        Some(t) if t > 0 => Stamp::At(t),
        _ => Stamp::Unknown,
    }
}

fn text(s: impl Into<String>) -> Cell {
    Cell::Str(Some(s.into()))
}

/// The value of field `id` on `line`.
pub fn cell(id: F, line: Line<'_>, ctx: &Ctx) -> Cell {
    match line {
        Line::Job(job) => job_cell(id, job, ctx),
        Line::Task(job, task) if id == F::JobId => {
            text(format!("{}_{task}", job.array_job_id.unwrap_or(job.job_id)))
        }
        Line::Task(job, _) => job_cell(id, job, ctx),
        Line::Step(job, step) => step_cell(id, job, step, ctx),
    }
}

/// An unset value of the field's kind.
fn blank(id: F) -> Cell {
    match FIELDS.iter().find(|f| f.id == id).map(|f| f.kind) {
        Some(Kind::Num) => Cell::Num(None),
        Some(Kind::Secs) => Cell::Secs(None),
        Some(Kind::Date) => Cell::Date(Stamp::Unknown),
        _ => Cell::Str(None),
    }
}

fn limit_text(limit: Option<u64>, raw: bool) -> Option<String> {
    match limit {
        None => Some("UNLIMITED".into()),
        Some(0) => None,
        Some(secs) if raw => Some(secs.div_ceil(60).to_string()),
        Some(secs) => Some(spur_slurm::time::duration_full(secs.div_ceil(60) * 60)),
    }
}

fn job_cell(id: F, job: &HistoryJob, ctx: &Ctx) -> Cell {
    let elapsed = job_elapsed(job, ctx.now);
    let cpus = u64::from(job_cpus(job));
    let reserved = || -> u64 {
        match job.eligible_time {
            None | Some(0) => 0,
            Some(e) => job.start_time.unwrap_or(ctx.now).saturating_sub(e),
        }
    };
    let req_cpus = u64::from(job.requested.cpus);
    match id {
        F::Account => Cell::Str(job.account.clone()),
        F::AllocCpus | F::Ncpus => Cell::Num(Some(cpus)),
        F::AllocNodes => text(job.allocated.map_or(0, |a| a.nodes).to_string()),
        F::AllocTres => Cell::Str(job.allocated.map(|a| a.sorted_text(ctx.noconvert))),
        F::Cluster => text(ctx.cluster.clone()),
        F::Comment => Cell::Str(job.comment.clone()),
        F::Constraints => Cell::Str(job.constraints.clone()),
        // spur measures no energy: zero, as Slurm records it without an
        // energy plugin.
        F::ConsumedEnergy => text("0"),
        F::ConsumedEnergyRaw => Cell::Num(Some(0)),
        F::CpuTime => Cell::Secs(Some(elapsed * cpus)),
        F::CpuTimeRaw => Cell::Num(Some(elapsed * cpus)),
        F::DerivedExitCode => text(format!(
            "{}:{}",
            job.derived_exit_code, job.derived_exit_signal
        )),
        F::Elapsed => Cell::Secs(Some(elapsed)),
        F::ElapsedRaw => Cell::Num(Some(elapsed)),
        F::Eligible => Cell::Date(stamp(job.eligible_time)),
        F::End => Cell::Date(stamp(job.end_time)),
        F::ExitCode => text(exit_text(job.exit_code, job.exit_signal)),
        F::Flags => Cell::Str(job.start_time.map(|_| "SchedMain".to_string())),
        F::Gid => Cell::Num(Some(u64::from(job.group_id))),
        F::Group => text(job.group_name.clone()),
        F::JobId => text(job.id_text()),
        F::JobIdRaw => text(job.job_id.to_string()),
        F::JobName => text(job.name.clone()),
        F::NNodes => Cell::Num(Some(u64::from(job_nodes(job)))),
        F::NodeList if job.nodes.is_empty() => text("None assigned"),
        F::NodeList => text(job.nodes.clone()),
        F::Partition => text(job.partition.clone()),
        F::Priority => Cell::Num(Some(u64::from(job.priority))),
        F::Qos => text(job.qos.clone()),
        F::Reason => text(job.reason.clone()),
        F::ReqCpuFreq => text("Unknown"),
        F::ReqCpus => Cell::Num(Some(req_cpus)),
        F::ReqMem => text(spur_slurm::units::memory(
            job.requested.mem_mb,
            ctx.noconvert,
        )),
        F::ReqNodes => text(job.requested.nodes.to_string()),
        F::ReqTres => text(job.requested.sorted_text(ctx.noconvert)),
        F::Reserved => Cell::Secs(Some(reserved())),
        F::ResvCpu => Cell::Secs(Some(reserved() * req_cpus)),
        F::ResvCpuRaw => Cell::Num(Some(reserved() * req_cpus)),
        F::Start => Cell::Date(match (job.start_time, job.end_time) {
            (None, Some(_)) => Stamp::Never,
            (start, _) => stamp(start),
        }),
        F::State => text(state_text(job.state, job.cancelled_by)),
        F::Submit => Cell::Date(stamp(Some(job.submit_time))),
        F::Suspended => Cell::Secs(Some(0)),
        F::SystemCpu => text(spur_slurm::time::cpu_time(job_cpu(job).1)),
        F::Timelimit => Cell::Str(limit_text(job.time_limit, false)),
        F::TimelimitRaw => Cell::Str(limit_text(job.time_limit, true)),
        F::TotalCpu => {
            let (u, s) = job_cpu(job);
            text(spur_slurm::time::cpu_time(u + s))
        }
        F::Uid => Cell::Num(Some(u64::from(job.user_id))),
        F::User => text(job.user_name.clone()),
        F::UserCpu => text(spur_slurm::time::cpu_time(job_cpu(job).0)),
        F::WorkDir => text(job.work_dir.clone()),
        _ => blank(id),
    }
}

fn step_cell(id: F, job: &HistoryJob, step: &HistoryStep, ctx: &Ctx) -> Cell {
    let elapsed = step_elapsed(step, ctx.now);
    let cpus = u64::from(step.allocated.cpus);
    let batch = step.step == StepId::Batch;
    match id {
        F::Account => Cell::Str(job.account.clone()),
        F::AllocCpus | F::Ncpus | F::ReqCpus => Cell::Num(Some(cpus)),
        F::AllocNodes | F::ReqNodes => text(step.node_count.to_string()),
        F::AllocTres => text(step.allocated.sorted_text(ctx.noconvert)),
        F::AveCpuFreq | F::ConsumedEnergy => text("0"),
        F::Cluster => text(ctx.cluster.clone()),
        F::ConsumedEnergyRaw => Cell::Num(Some(0)),
        F::CpuTime => Cell::Secs(Some(elapsed * cpus)),
        F::CpuTimeRaw => Cell::Num(Some(elapsed * cpus)),
        F::DerivedExitCode => text(""),
        F::Elapsed => Cell::Secs(Some(elapsed)),
        F::ElapsedRaw => Cell::Num(Some(elapsed)),
        F::Eligible | F::Submit | F::Start => Cell::Date(stamp(Some(step.start_time))),
        // A step with no end of its own ends with its job.
        F::End => Cell::Date(stamp(step.end_time.or(job.end_time))),
        F::ExitCode => text(exit_text(step.exit_code, step.exit_signal)),
        F::JobId => text(format!("{}.{}", job.id_text(), step.step)),
        F::JobIdRaw => text(format!("{}.{}", job.job_id, step.step)),
        F::JobName => text(step.name.clone()),
        F::Layout => text(step.layout.clone().unwrap_or_else(|| "Unknown".into())),
        F::NNodes => Cell::Num(Some(u64::from(step.node_count))),
        F::NodeList => text(step.nodes.clone()),
        F::NTasks => Cell::Num(Some(u64::from(step.ntasks))),
        // The batch step asks for no frequency (0); srun steps leave it
        // unset.
        F::ReqCpuFreq => text(if batch { "0" } else { "Unknown" }),
        F::State => text(state_text(step.state, step.cancelled_by)),
        F::Suspended => Cell::Secs(Some(0)),
        F::SystemCpu => text(spur_slurm::time::cpu_time(step.system_cpu_us)),
        F::TotalCpu => text(spur_slurm::time::cpu_time(
            step.user_cpu_us + step.system_cpu_us,
        )),
        F::UserCpu => text(spur_slurm::time::cpu_time(step.user_cpu_us)),
        F::TresUsage { output, pick, part } => match step.usage.as_ref().filter(|u| u.measured()) {
            Some(usage) => {
                let view = View::of_step(usage, &step.nodes, ctx.noconvert);
                Cell::Str(Some(view.tres(output, pick, part)).filter(|t| !t.is_empty()))
            }
            // Nothing was sampled: the record holds only its energy, zero,
            // in its totals and means.
            None if part == Part::Value && matches!(pick, Pick::Ave | Pick::Tot) => {
                text("energy=0")
            }
            None => Cell::Str(None),
        },
        F::Figure(figure) => {
            let Some(usage) = step.usage.as_ref() else {
                return blank(id);
            };
            let view = View::of_step(usage, &step.nodes, ctx.noconvert);
            let value = view.figure(figure, DiskUnit::Mebi);
            match figure.part {
                Part::Task => Cell::Num(value.and_then(|v| v.parse().ok())),
                _ => Cell::Str(value),
            }
        }
        _ => blank(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_in_slurms_units() {
        assert_eq!(spur_slurm::units::memory(32_768, false), "32G");
        assert_eq!(spur_slurm::units::memory(4096, false), "4G");
        assert_eq!(spur_slurm::units::memory(1000, false), "1000M");
        assert_eq!(spur_slurm::units::memory(1536, false), "1.50G");
        assert_eq!(spur_slurm::units::memory(1_048_576, false), "1T");
        assert_eq!(spur_slurm::units::memory(4096, true), "4096M");
        assert_eq!(spur_slurm::time::duration_full(1), "00:00:01");
        assert_eq!(spur_slurm::time::duration_full(90_061), "1-01:01:01");
        assert_eq!(spur_slurm::time::cpu_time(47_368), "00:00.047");
        assert_eq!(spur_slurm::time::cpu_time(0), "00:00:00");
        assert_eq!(spur_slurm::time::cpu_time(61_000_000), "00:01:01");
        assert_eq!(spur_slurm::time::cpu_time(3_700_000_000), "01:01:40");
        assert_eq!(exit_text(3, 0), "3:0");
        assert_eq!(exit_text(0, 15), "0:15");
        assert_eq!(exit_text(137, 0), "9:0");
    }

    #[test]
    fn fields_are_found_by_prefix_in_table_order() {
        assert_eq!(lookup("jobid").map(|f| f.name), Some("JobID"));
        assert_eq!(lookup("JobIDRaw").map(|f| f.name), Some("JobIDRaw"));
        assert_eq!(lookup("job").map(|f| f.name), Some("JobID"));
        assert_eq!(lookup("e").map(|f| f.name), Some("Elapsed"));
        assert_eq!(lookup("ncpus").map(|f| f.name), Some("NCPUS"));
        assert_eq!(lookup("bogus"), None);
    }

    #[test]
    fn helpformat_lists_four_names_a_line() {
        let text = help_format();
        let first = text.lines().next().expect("a line");
        assert_eq!(
            first,
            "Account             AdminComment        AllocCPUS           AllocNodes         "
        );
        assert_eq!(text.lines().count(), FIELDS.len().div_ceil(4));
    }
}
