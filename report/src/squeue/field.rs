//! What each squeue field prints: its header, its %-code and -O names, and
//! the cell computed from a [`JobInfo`] the way Slurm 22.05's squeue
//! computes it (`src/squeue/print.c`), including `(null)` for values Slurm
//! holds as NULL. Fields spur has no data for print what Slurm prints for an
//! unset value. Layout (width, justification) is `render.rs`'s business.

use spur_proto::{ExclusiveMode, JobField, JobFields, JobInfo, JobStateName, MemSpec};
use spur_slurm::units::{self, convert_num_unit, Unit};
use std::borrow::Cow;

/// A squeue field, named after its -O field name (see `DEFS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Account,
    AccrueTime,
    AdminComment,
    AllocNodes,
    AllocSid,
    ArrayJobId,
    ArrayTaskId,
    AssocId,
    BatchFlag,
    BatchHost,
    BoardsPerNode,
    BurstBuffer,
    BurstBufferState,
    Cluster,
    ClusterFeature,
    Command,
    Comment,
    Container,
    Contiguous,
    Cores,
    CoreSpec,
    CpusPerTask,
    CpusPerTres,
    Deadline,
    DelayBoot,
    Dependency,
    DerivedEc,
    EligibleTime,
    EndTime,
    ExcNodes,
    ExitCode,
    Feature,
    GroupId,
    GroupName,
    HetJobId,
    HetJobIdSet,
    HetJobOffset,
    JobArrayId,
    JobId,
    LastSchedEval,
    Licenses,
    MaxCpus,
    MaxNodes,
    McsLabel,
    MemPerTres,
    MinCpus,
    MinMemory,
    MinTime,
    MinTmpDisk,
    Name,
    Network,
    Nice,
    NodeList,
    NtPerBoard,
    NtPerCore,
    NtPerNode,
    NtPerSocket,
    NumCpus,
    NumNodes,
    NumTasks,
    Origin,
    OriginRaw,
    OverSubscribe,
    Partition,
    PendingTime,
    PreemptTime,
    Prefer,
    Priority,
    PriorityLong,
    Profile,
    Qos,
    Reason,
    ReasonList,
    Reboot,
    ReqNodes,
    ReqSwitch,
    Requeue,
    Reservation,
    ResizeTime,
    RestartCnt,
    SchedNodes,
    Sct,
    SelectJobInfo,
    SiblingsActive,
    SiblingsActiveRaw,
    SiblingsViable,
    SiblingsViableRaw,
    Sockets,
    SPerBoard,
    StartTime,
    State,
    StateCompact,
    StdErr,
    StdIn,
    StdOut,
    SubmitTime,
    SystemComment,
    Threads,
    TimeLeft,
    TimeLimit,
    TimeUsed,
    TresAlloc,
    TresBind,
    TresFreq,
    TresPerJob,
    TresPerNode,
    TresPerSocket,
    TresPerTask,
    UserId,
    UserName,
    Wait4Switch,
    WcKey,
    WorkDir,
    /// An unknown code or name: prints its suffix only.
    Invalid,
}

/// One row of the field table.
struct Def {
    field: Field,
    code: Option<char>,
    names: &'static [&'static str],
    header: &'static str,
}

macro_rules! defs {
    ($( $f:ident $code:tt [$($n:literal),*] $h:literal; )*) => {
        const DEFS: &[Def] = &[$( Def {
            field: Field::$f, code: defs!(@code $code), names: &[$($n),*], header: $h,
        }, )*];
    };
    (@code -) => { None };
    (@code $c:literal) => { Some($c) };
}

defs! {
    Account 'a' ["account"] "ACCOUNT";
    AccrueTime - ["accruetime"] "ACCRUE_TIME";
    AdminComment - ["admin_comment"] "ADMIN_COMMENT";
    AllocNodes - ["allocnodes"] "ALLOC_NODES";
    AllocSid - ["allocsid"] "ALLOC_SID";
    ArrayJobId 'F' ["arrayjobid"] "ARRAY_JOB_ID";
    ArrayTaskId 'K' ["arraytaskid"] "ARRAY_TASK_ID";
    AssocId - ["associd"] "ASSOC_ID";
    BatchFlag - ["batchflag"] "BATCH_FLAG";
    BatchHost 'B' ["batchhost"] "EXEC_HOST";
    BoardsPerNode - ["boardspernode"] "BOARDS_PER_NODE";
    BurstBuffer - ["burstbuffer"] "BURST_BUFFER";
    BurstBufferState - ["burstbufferstate"] "BURST_BUFFER_STATE";
    Cluster - ["cluster"] "CLUSTER";
    ClusterFeature - ["clusterfeature"] "CLUSTER_FEATURES";
    Command 'o' ["command"] "COMMAND";
    Comment 'k' ["comment"] "COMMENT";
    Container - ["container"] "CONTAINER";
    Contiguous 'O' ["contiguous"] "CONTIGUOUS";
    Cores 'I' ["cores"] "CORES_PER_SOCKET";
    CoreSpec 'X' ["corespec"] "CORE_SPEC";
    CpusPerTask - ["cpuspertask", "cpus-per-task"] "CPUS_PER_TASK";
    CpusPerTres - ["cpus-per-tres"] "CPUS_PER_TRES";
    Deadline - ["deadline"] "DEADLINE";
    DelayBoot - ["delayboot"] "DELAY_BOOT";
    Dependency 'E' ["dependency"] "DEPENDENCY";
    DerivedEc - ["derivedec"] "DERIVED_EC";
    EligibleTime - ["eligibletime"] "ELIGIBLE_TIME";
    EndTime 'e' ["endtime"] "END_TIME";
    ExcNodes 'x' ["excnodes"] "EXC_NODES";
    ExitCode - ["exit_code"] "EXIT_CODE";
    Feature 'f' ["feature"] "FEATURES";
    GroupId 'G' ["groupid"] "GROUP";
    GroupName 'g' ["groupname"] "GROUP";
    HetJobId - ["hetjobid", "packjobid"] "HET_JOB_ID";
    HetJobIdSet - ["hetjobidset", "packjobidset"] "HET_JOB_ID_SET";
    HetJobOffset - ["hetjoboffset", "packjoboffset"] "HET_JOB_OFFSET";
    JobArrayId 'i' ["jobarrayid"] "JOBID";
    JobId 'A' ["jobid"] "JOBID";
    LastSchedEval - ["lastschedeval"] "LAST_SCHED_EVAL";
    Licenses 'W' ["licenses"] "LICENSES";
    MaxCpus - ["maxcpus"] "MAX_CPUS";
    MaxNodes - ["maxnodes"] "MAX_NODES";
    McsLabel - ["mcslabel"] "MCSLABEL";
    MemPerTres - ["mem-per-tres"] "MEM_PER_TRES";
    MinCpus 'c' ["mincpus"] "MIN_CPUS";
    MinMemory 'm' ["minmemory"] "MIN_MEMORY";
    MinTime - ["mintime"] "TIME_MIN";
    MinTmpDisk 'd' ["mintmpdisk"] "MIN_TMP_DISK";
    Name 'j' ["name"] "NAME";
    Network - ["network"] "NETWORK";
    Nice 'y' ["nice"] "NICE";
    NodeList 'N' ["nodelist"] "NODELIST";
    NtPerBoard - ["ntperboard"] "NTASKS_PER_BOARD";
    NtPerCore - ["ntpercore"] "NTASKS_PER_CORE";
    NtPerNode - ["ntpernode"] "NTASKS_PER_NODE";
    NtPerSocket - ["ntpersocket"] "NTASKS_PER_SOCKET";
    NumCpus 'C' ["numcpus"] "CPUS";
    NumNodes 'D' ["numnodes"] "NODES";
    NumTasks - ["numtasks"] "TASKS";
    Origin - ["origin"] "ORIGIN";
    OriginRaw - ["originraw"] "ORIGIN_RAW";
    OverSubscribe 'h' ["oversubscribe", "shared"] "OVER_SUBSCRIBE";
    Partition 'P' ["partition"] "PARTITION";
    PendingTime - ["pendingtime"] "PENDING_TIME";
    PreemptTime - ["preempttime"] "PREEMPT_TIME";
    Prefer - ["prefer"] "PREFER";
    Priority 'p' ["priority"] "PRIORITY";
    PriorityLong 'Q' ["prioritylong"] "PRIORITY";
    Profile - ["profile"] "PROFILE";
    Qos 'q' ["qos"] "QOS";
    Reason 'r' ["reason"] "REASON";
    ReasonList 'R' ["reasonlist"] "NODELIST(REASON)";
    Reboot - ["reboot"] "REBOOT";
    ReqNodes 'n' ["reqnodes"] "REQ_NODES";
    ReqSwitch - ["reqswitch"] "REQ_SWITCH";
    Requeue - ["requeue"] "REQUEUE";
    Reservation 'v' ["reservation"] "RESERVATION";
    ResizeTime - ["resizetime"] "RESIZE_TIME";
    RestartCnt - ["restartcnt"] "RESTART_COUNT";
    SchedNodes 'Y' ["schednodes"] "SCHEDNODES";
    Sct 'z' ["sct"] "S:C:T";
    SelectJobInfo 's' ["selectjobinfo"] "";
    SiblingsActive - ["siblingsactive"] "ACTIVE_SIBLINGS";
    SiblingsActiveRaw - ["siblingsactiveraw"] "ACTIVE_SIBLINGS_RAW";
    SiblingsViable - ["siblingsviable"] "VIABLE_SIBLINGS";
    SiblingsViableRaw - ["siblingsviableraw"] "VIALBLE_SIBLINGS_RAW";
    Sockets 'H' ["sockets"] "SOCKETS_PER_NODE";
    SPerBoard - ["sperboard"] "SOCKETS_PER_BOARD";
    StartTime 'S' ["starttime"] "START_TIME";
    State 'T' ["state"] "STATE";
    StateCompact 't' ["statecompact"] "ST";
    StdErr - ["stderr"] "STDERR";
    StdIn - ["stdin"] "STDIN";
    StdOut - ["stdout"] "STDOUT";
    SubmitTime 'V' ["submittime"] "SUBMIT_TIME";
    SystemComment - ["system_comment"] "SYSTEM_COMMENT";
    Threads 'J' ["threads"] "THREADS_PER_CORE";
    TimeLeft 'L' ["timeleft"] "TIME_LEFT";
    TimeLimit 'l' ["timelimit"] "TIME_LIMIT";
    TimeUsed 'M' ["timeused"] "TIME";
    TresAlloc - ["tres", "tres-alloc"] "TRES_ALLOC";
    TresBind - ["tres-bind"] "TRES_BIND";
    TresFreq - ["tres-freq"] "TRES_FREQ";
    TresPerJob - ["tres-per-job"] "TRES_PER_JOB";
    TresPerNode 'b' ["tres-per-node", "gres"] "TRES_PER_NODE";
    TresPerSocket - ["tres-per-socket"] "TRES_PER_SOCKET";
    TresPerTask - ["tres-per-task"] "TRES_PER_TASK";
    UserId 'U' ["userid"] "UID";
    UserName 'u' ["username"] "USER";
    Wait4Switch - ["wait4switch"] "WAIT4SWITCH";
    WcKey 'w' ["wckey"] "WCKEY";
    WorkDir 'Z' ["workdir"] "WORK_DIR";
}

/// A value as Slurm hands it to printf: `None` is a NULL string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell<'a> {
    /// The text (None: NULL, printed as `(null)` where glibc would);
    /// borrowed from the row where it can be.
    pub text: Option<Cow<'a, str>>,
    /// Whether a right-justified value is cut to the column width (Slurm's
    /// `cut_output`; node lists and times are not).
    pub cut: bool,
}

impl<'a> Cell<'a> {
    fn text(s: impl Into<Cow<'a, str>>) -> Cell<'a> {
        Cell {
            text: Some(s.into()),
            cut: true,
        }
    }

    fn uncut(s: impl Into<Cow<'a, str>>) -> Cell<'a> {
        Cell {
            text: Some(s.into()),
            cut: false,
        }
    }

    fn opt(s: Option<&'a str>) -> Cell<'a> {
        Cell {
            text: s.map(Cow::Borrowed),
            cut: true,
        }
    }

    fn null() -> Cell<'a> {
        Cell {
            text: None,
            cut: true,
        }
    }
}

/// What the cells need besides the job.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The controller's clock.
    pub now: u64,
    /// `--noconvert`.
    pub no_convert: bool,
    /// The cluster's name.
    pub cluster: Option<&'a str>,
}

impl Field {
    /// The fields of a job the cell reads: a listing for this column asks
    /// the controller for these and no others.
    pub fn reads(self) -> JobFields {
        use JobField as J;
        let used = [J::StartTime, J::State, J::EndTime];
        let files = [J::Batch, J::StdOut, J::StdErr, J::WorkDir, J::JobId];
        let ids = [J::JobId, J::ArrayJobId, J::ArrayTaskId, J::ArrayTaskStr];
        JobFields::of(match self {
            Field::JobArrayId | Field::ArrayJobId => &ids,
            Field::JobId => &[J::JobId],
            Field::ArrayTaskId => &[J::ArrayTaskId, J::ArrayTaskStr],
            Field::Name => &[J::Name],
            Field::UserId => &[J::UserId],
            Field::UserName => &[J::UserName, J::UserId],
            Field::GroupId => &[J::GroupId],
            Field::GroupName => &[J::GroupName, J::GroupId],
            Field::State | Field::StateCompact => &[J::State],
            Field::Partition => &[J::Partition],
            Field::Qos => &[J::Qos],
            Field::Account => &[J::Account],
            Field::Priority | Field::PriorityLong => &[J::Priority],
            Field::Nice => &[J::Nice],
            Field::Reason => &[J::Reason],
            Field::ReasonList => &[J::State, J::Reason, J::Nodes],
            Field::NodeList => &[J::Nodes],
            Field::TimeUsed => &used,
            Field::TimeLimit => &[J::TimeLimit],
            Field::TimeLeft => &[J::TimeLimit, J::StartTime, J::State, J::EndTime],
            Field::MinTime => &[J::TimeMin],
            Field::StartTime => &[J::StartTime],
            Field::SubmitTime => &[J::SubmitTime],
            Field::EligibleTime | Field::AccrueTime => &[J::EligibleTime],
            Field::LastSchedEval => &[J::LastSchedEval],
            Field::EndTime => &[J::State, J::TimeLimit, J::EndTime],
            Field::PendingTime => &[J::StartTime, J::SubmitTime],
            Field::NumCpus | Field::MaxCpus => &[J::NumCpus],
            Field::NumNodes | Field::MaxNodes => &[J::NumNodes],
            Field::NumTasks => &[J::NumTasks],
            Field::CpusPerTask => &[J::CpusPerTask],
            Field::NtPerNode => &[J::NtasksPerNode],
            Field::MinCpus => &[J::CpusPerTask, J::NtasksPerNode],
            Field::MinMemory => &[J::Mem],
            Field::Contiguous => &[J::Contiguous],
            Field::Requeue => &[J::Requeue],
            Field::BatchFlag => &[J::Batch],
            Field::RestartCnt => &[J::Restarts],
            Field::ExitCode => &[J::ExitCode, J::ExitSignal],
            Field::OverSubscribe => &[J::Exclusive],
            Field::TresPerNode => &[J::TresPerNode],
            Field::TresPerJob => &[J::TresPerJob],
            Field::TresPerTask => &[J::TresPerTask],
            Field::TresAlloc => &[J::Tres],
            Field::Command => &[J::Command],
            Field::Comment => &[J::Comment],
            Field::Dependency => &[J::Dependency],
            Field::Feature => &[J::Features],
            Field::WorkDir => &[J::WorkDir],
            Field::ReqNodes => &[J::ReqNodes],
            Field::ExcNodes => &[J::ExcNodes],
            Field::SchedNodes => &[J::SchedNodes],
            Field::BatchHost => &[J::Batch, J::BatchHost, J::SubmitHost],
            Field::AllocNodes => &[J::SubmitHost],
            Field::StdOut | Field::StdErr => &files,
            Field::StdIn => &[J::StdIn],
            _ => &[],
        })
    }

    /// The field of a %-code.
    pub fn from_code(code: char) -> Option<Field> {
        DEFS.iter().find(|d| d.code == Some(code)).map(|d| d.field)
    }

    /// The field of an -O name (any case; `numtask*` as Slurm matches it).
    pub fn from_name(name: &str) -> Option<Field> {
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("numtask") {
            return Some(Field::NumTasks);
        }
        DEFS.iter()
            .find(|d| d.names.contains(&lower.as_str()))
            .map(|d| d.field)
    }

    /// Every %-code with its first -O name, in code order.
    pub fn codes() -> Vec<(char, &'static str)> {
        let mut v: Vec<(char, &'static str)> = DEFS
            .iter()
            .filter_map(|d| d.code.map(|c| (c, d.names[0])))
            .collect();
        v.sort_by_key(|(c, _)| (c.to_ascii_lowercase(), c.is_ascii_uppercase()));
        v
    }

    /// Every -O name.
    pub fn names() -> Vec<&'static str> {
        DEFS.iter().flat_map(|d| d.names.iter().copied()).collect()
    }

    /// The header text.
    pub fn header(self) -> &'static str {
        DEFS.iter()
            .find(|d| d.field == self)
            .map_or("", |d| d.header)
    }

    /// Whether the header is cut to the width (not for node lists).
    pub fn header_cut(self) -> bool {
        !matches!(
            self,
            Field::NodeList | Field::SchedNodes | Field::ReasonList
        )
    }

    /// The cell of `job`.
    pub fn cell<'a>(self, job: &'a JobInfo, ctx: &Ctx) -> Cell<'a> {
        id_cell(self, job)
            .or_else(|| time_cell(self, job, ctx))
            .or_else(|| resource_cell(self, job, ctx))
            .or_else(|| text_cell(self, job, ctx))
            .or_else(|| unset_cell(self))
            .unwrap_or_else(Cell::null)
    }
}

/// Ids, names, states and priorities.
fn id_cell(field: Field, job: &JobInfo) -> Option<Cell<'_>> {
    let array_job = job.array_job_id.unwrap_or(job.job_id);
    Some(match field {
        Field::JobArrayId => Cell::text(job.id_text()),
        Field::JobId => Cell::text(job.job_id.to_string()),
        Field::ArrayJobId if job.array_task_str.is_some() || job.array_task_id.is_some() => {
            Cell::text(array_job.to_string())
        }
        Field::ArrayJobId => Cell::text(job.job_id.to_string()),
        Field::ArrayTaskId => match (&job.array_task_str, job.array_task_id) {
            (Some(s), _) => Cell::text(s.clone()),
            (None, Some(t)) => Cell::text(t.to_string()),
            (None, None) => Cell::text("N/A"),
        },
        Field::Name => Cell::text(job.name.as_str()),
        Field::UserId => Cell::text(job.user_id.to_string()),
        Field::UserName => Cell::text(name_or_id(&job.user_name, job.user_id)),
        Field::GroupId => Cell::text(job.group_id.to_string()),
        Field::GroupName => Cell::text(name_or_id(&job.group_name, job.group_id)),
        Field::State => Cell::text(job.state.as_str()),
        Field::StateCompact => Cell::text(job.state.short()),
        Field::Partition => Cell::text(job.partition.as_str()),
        Field::Qos => Cell::text(job.qos.as_str()),
        Field::Account => Cell::opt(job.account.as_deref()),
        Field::Priority => Cell::text(format!(
            "{:16.14}",
            f64::from(job.priority) / f64::from(u32::MAX)
        )),
        Field::PriorityLong => Cell::text(job.priority.to_string()),
        Field::Nice => Cell::text(job.nice.to_string()),
        Field::Reason => Cell::text(job.reason.as_str()),
        Field::ReasonList if shows_reason(job.state) => {
            let mut text = String::with_capacity(job.reason.len() + 2);
            text.push('(');
            text.push_str(&job.reason);
            text.push(')');
            Cell::text(text)
        }
        Field::ReasonList | Field::NodeList => Cell::uncut(nodes_sorted(&job.nodes)),
        _ => return None,
    })
}

fn name_or_id(name: &str, id: u32) -> Cow<'_, str> {
    if name.is_empty() {
        Cow::Owned(id.to_string())
    } else {
        Cow::Borrowed(name)
    }
}

/// NODELIST(REASON) shows the reason for these states, the nodes otherwise.
fn shows_reason(state: JobStateName) -> bool {
    matches!(
        state,
        JobStateName::Pending
            | JobStateName::SpecialExit
            | JobStateName::Timeout
            | JobStateName::OutOfMemory
            | JobStateName::Deadline
            | JobStateName::Failed
    )
}

/// A node list as Slurm prints it: sorted, each node once, ranged.
pub fn nodes_sorted(nodes: &str) -> String {
    if !nodes.contains([',', '[']) {
        // One node (or none): already as Slurm prints it.
        return nodes.to_string();
    }
    match spur_conf::hostlist::expand(nodes) {
        Ok(names) => spur_conf::hostlist::compress_unique(&names),
        Err(_) => nodes.to_string(),
    }
}

/// Times and durations.
fn time_cell<'a>(field: Field, job: &'a JobInfo, ctx: &Ctx) -> Option<Cell<'a>> {
    let used = time_used(job, ctx.now);
    Some(match field {
        Field::TimeUsed => Cell::uncut(secs(used)),
        Field::TimeLimit => Cell::uncut(limit(job.time_limit)),
        Field::TimeLeft => match job.time_limit {
            None => Cell::text("UNLIMITED"),
            Some(l) => Cell::uncut(secs(l as i64 - used)),
        },
        Field::MinTime => Cell::text(secs(job.time_min.unwrap_or(0) as i64)),
        Field::StartTime => Cell::text(time(job.start_time)),
        Field::SubmitTime => Cell::text(time(Some(job.submit_time))),
        Field::EligibleTime | Field::AccrueTime => Cell::text(time(Some(job.eligible_time))),
        Field::LastSchedEval => Cell::text(time(job.last_sched_eval)),
        Field::EndTime => Cell::text(end_time(job, ctx.now)),
        Field::PendingTime => {
            let start = job.start_time.filter(|&s| s > 0 && s < ctx.now);
            let until = start.unwrap_or(ctx.now);
            Cell::text((until as i64 - job.submit_time as i64).to_string())
        }
        Field::Deadline | Field::PreemptTime => Cell::text("N/A"),
        Field::ResizeTime => Cell::uncut("N/A"),
        Field::DelayBoot | Field::Wait4Switch => Cell::text(secs(0)),
        _ => return None,
    })
}

/// Seconds the job has run (Slurm's `job_time_used`).
pub fn time_used(job: &JobInfo, now: u64) -> i64 {
    let start = match job.start_time {
        Some(s) if s > 0 && job.state != JobStateName::Pending => s,
        _ => return 0,
    };
    // A planned end (start plus the limit) may still stand while the job
    // completes: time used never runs past now.
    let end = match (job.state, job.end_time) {
        (JobStateName::Running, _) | (_, None) | (_, Some(0)) => now,
        (_, Some(e)) => e.min(now),
    };
    end as i64 - start as i64
}

/// squeue's `_print_secs`: `M:SS`, `H:MM:SS`, `D-HH:MM:SS`, and `INVALID`
/// below zero or beyond a year.
pub fn secs(t: i64) -> String {
    const YEAR_SECONDS: i64 = 365 * 24 * 3600;
    if !(0..=YEAR_SECONDS).contains(&t) {
        return "INVALID".to_string();
    }
    spur_slurm::time::duration_compact(t.unsigned_abs())
}

fn limit(l: Option<u64>) -> String {
    match l {
        Some(s) => secs(s as i64),
        None => spur_slurm::time::limit_compact(None),
    }
}

/// A point in time, or `N/A` when unset.
fn time(t: Option<u64>) -> String {
    spur_slurm::time::timestamp_or_na(t.filter(|&t| t > 0))
}

fn end_time(job: &JobInfo, now: u64) -> String {
    let active = matches!(job.state, JobStateName::Running | JobStateName::Completing);
    match (job.time_limit, job.end_time) {
        (None, Some(e)) if e > now => "NONE".to_string(),
        (None, None) if active => "NONE".to_string(),
        (_, e) => time(e),
    }
}

/// Counts, sizes and the resources asked for.
fn resource_cell<'a>(field: Field, job: &'a JobInfo, ctx: &Ctx) -> Option<Cell<'a>> {
    Some(match field {
        Field::NumCpus | Field::MaxCpus => Cell::text(job.num_cpus.to_string()),
        Field::NumNodes | Field::MaxNodes => Cell::text(job.num_nodes.to_string()),
        Field::NumTasks => Cell::text(job.num_tasks.to_string()),
        Field::CpusPerTask => Cell::text(job.cpus_per_task.to_string()),
        Field::NtPerNode => Cell::text(job.ntasks_per_node.to_string()),
        Field::MinCpus => {
            let per_node = job.cpus_per_task.max(1) * job.ntasks_per_node.max(1);
            Cell::text(convert_num_unit(
                u64::from(per_node),
                Unit::None,
                ctx.no_convert,
            ))
        }
        Field::MinMemory => Cell::text(units::memory(min_memory(job.mem), ctx.no_convert)),
        Field::MinTmpDisk => Cell::text("0"),
        Field::Contiguous => Cell::text(u8::from(job.contiguous).to_string()),
        Field::Requeue => Cell::text(u8::from(job.requeue).to_string()),
        Field::BatchFlag => Cell::text(u8::from(job.batch).to_string()),
        Field::RestartCnt => Cell::text(job.restarts.to_string()),
        Field::ExitCode => {
            let status = (job.exit_code << 8) | (job.exit_signal & 0x7f);
            Cell::text(status.to_string())
        }
        Field::OverSubscribe => Cell::text(match job.exclusive {
            ExclusiveMode::No => "OK",
            ExclusiveMode::Node => "NO",
            ExclusiveMode::User => "USER",
            ExclusiveMode::Topo => "TOPO",
        }),
        Field::TresPerNode => Cell::text(job.tres_per_node.as_deref().unwrap_or("N/A")),
        Field::TresPerJob => Cell::text(job.tres_per_job.as_deref().unwrap_or("N/A")),
        Field::TresPerTask => Cell::text(job.tres_per_task.as_deref().unwrap_or("N/A")),
        Field::TresAlloc => match &job.tres {
            Some(t) => Cell::text(t.job_text()),
            None => Cell::text("N/A"),
        },
        Field::Sct => Cell::text("*:*:*"),
        Field::Sockets | Field::Cores | Field::Threads => Cell::text("*"),
        _ => return None,
    })
}

/// The per-node (or per-CPU) memory request in MiB, 0 when not given.
fn min_memory(mem: MemSpec) -> u64 {
    match mem {
        MemSpec::PerNode(m) | MemSpec::PerCpu(m) => m,
        MemSpec::PerGpu(_) | MemSpec::Default => 0,
    }
}

/// Strings the job carries.
fn text_cell<'a>(field: Field, job: &'a JobInfo, ctx: &Ctx) -> Option<Cell<'a>> {
    let default_out = || format!("{}/slurm-{}.out", job.work_dir, job.job_id);
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Some(match field {
        Field::Command => Cell::opt(job.command.as_deref()),
        Field::Comment => Cell::opt(job.comment.as_deref()),
        Field::Dependency => Cell::opt(job.dependency.as_deref()),
        Field::Feature => Cell::opt(job.features.as_deref()),
        Field::WorkDir => Cell::text(job.work_dir.as_str()),
        Field::ReqNodes => Cell::uncut(nodes_sorted(job.req_nodes.as_deref().unwrap_or(""))),
        Field::ExcNodes => Cell::uncut(nodes_sorted(job.exc_nodes.as_deref().unwrap_or(""))),
        Field::SchedNodes => Cell {
            text: job.sched_nodes.as_deref().map(Cow::Borrowed),
            cut: false,
        },
        Field::BatchHost if job.batch => Cell::text(job.batch_host.as_deref().unwrap_or("n/a")),
        Field::BatchHost => Cell::text(non_empty(&job.submit_host).unwrap_or("n/a".into())),
        Field::AllocNodes => Cell::opt(Some(&job.submit_host)),
        Field::StdOut => Cell::text(non_empty(&job.stdout).unwrap_or_else(default_out)),
        Field::StdErr if !job.batch => Cell::text("N/A"),
        Field::StdErr => Cell::text(
            non_empty(&job.stderr)
                .or_else(|| non_empty(&job.stdout))
                .unwrap_or_else(default_out),
        ),
        Field::StdIn => Cell::opt(Some(job.stdin.as_str()).filter(|s| !s.is_empty())),
        Field::Cluster => match ctx.cluster {
            Some(c) => Cell::text(c.to_string()),
            None => Cell::null(),
        },
        _ => return None,
    })
}

/// Fields spur holds no data for: what Slurm prints when they are unset.
fn unset_cell(field: Field) -> Option<Cell<'static>> {
    Some(match field {
        Field::AllocSid | Field::AssocId | Field::DerivedEc | Field::Reboot => Cell::text("0"),
        Field::ReqSwitch | Field::SPerBoard | Field::NtPerBoard => Cell::text("0"),
        Field::BoardsPerNode | Field::NtPerCore | Field::NtPerSocket => Cell::text("N/A"),
        Field::CoreSpec | Field::CpusPerTres | Field::MemPerTres => Cell::text("N/A"),
        Field::TresBind | Field::TresFreq | Field::TresPerSocket => Cell::text("N/A"),
        Field::HetJobId | Field::HetJobIdSet | Field::HetJobOffset => Cell::text("N/A"),
        Field::Origin | Field::OriginRaw | Field::SiblingsActive => Cell::text("NA"),
        Field::SiblingsActiveRaw | Field::SiblingsViable => Cell::text("NA"),
        Field::SiblingsViableRaw => Cell::text("NA"),
        Field::Profile => Cell::text("NotSet"),
        Field::SelectJobInfo => Cell::text(""),
        _ => return None,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Jobs whose fields are all set, in the states and shapes whose cells
    /// take different paths: what a column reads must be in its `reads`.
    pub(crate) fn rich_jobs() -> Vec<JobInfo> {
        let running = JobInfo {
            job_id: 7,
            name: "train".into(),
            user_id: 1000,
            user_name: "alice".into(),
            group_id: 100,
            group_name: "users".into(),
            state: JobStateName::Running,
            reason: "None".into(),
            priority: 4_294_901_000,
            nice: -5,
            account: Some("ml".into()),
            qos: "high".into(),
            partition: "gpu".into(),
            time_limit: Some(7200),
            time_min: Some(60),
            submit_time: 1_700_000_000,
            eligible_time: 1_700_000_001,
            start_time: Some(1_700_000_100),
            end_time: Some(1_700_007_300),
            nodes: "gb[002,001]".into(),
            sched_nodes: Some("gb003".into()),
            num_nodes: 2,
            num_cpus: 288,
            num_tasks: 8,
            cpus_per_task: 36,
            ntasks_per_node: 4,
            cpus_per_node: vec![144, 144],
            batch_host: Some("gb001".into()),
            req_nodes: Some("gb[002,001]".into()),
            exc_nodes: Some("gb009".into()),
            features: Some("nvl72".into()),
            mem: MemSpec::PerCpu(2048),
            tres: Some(spur_proto::Tres {
                cpus: 288,
                mem_mb: 1 << 20,
                nodes: 2,
                billing: 288,
                gpus: 8,
            }),
            tres_per_node: Some("gres:gpu:4".into()),
            tres_per_job: Some("gres:gpu:8".into()),
            tres_per_task: Some("gres:gpu:1".into()),
            gpus_per_node_idx: vec![vec![0, 1, 2, 3], vec![0, 1, 2, 3]],
            work_dir: "/home/alice".into(),
            stdout: "/home/alice/out".into(),
            stderr: "/home/alice/err".into(),
            stdin: "/home/alice/in".into(),
            command: Some("/home/alice/run.sh".into()),
            comment: Some("first try".into()),
            exit_code: 3,
            exit_signal: 9,
            restarts: 1,
            requeue: true,
            batch: true,
            deadline: Some(1_800_000_000),
            exclusive: ExclusiveMode::User,
            contiguous: true,
            submit_host: "login1".into(),
            dependency: Some("afterok:6".into()),
            array_job_id: Some(5),
            array_task_id: Some(2),
            array_task_str: None,
            array_task_throttle: 2,
            last_sched_eval: Some(1_700_000_003),
            unacted: vec!["--mail-type=END".into()],
        };
        let pending_array = JobInfo {
            job_id: 5,
            state: JobStateName::Pending,
            reason: "Priority".into(),
            start_time: Some(1_600_000_000),
            end_time: None,
            nodes: String::new(),
            array_task_id: None,
            array_task_str: Some("3-9%2".into()),
            time_limit: None,
            stdout: String::new(),
            stderr: String::new(),
            ..running.clone()
        };
        let ended = JobInfo {
            job_id: 9,
            state: JobStateName::Failed,
            reason: "NonZeroExitCode".into(),
            end_time: Some(1_700_000_200),
            array_job_id: None,
            array_task_id: None,
            batch: false,
            batch_host: None,
            user_name: String::new(),
            group_name: String::new(),
            ..running.clone()
        };
        let interactive = JobInfo {
            batch: false,
            stdout: String::new(),
            ..running.clone()
        };
        vec![running, pending_array, ended, interactive]
    }

    #[test]
    fn each_column_reads_only_what_it_asks_for() {
        let ctx = Ctx {
            now: 1_700_000_500,
            no_convert: false,
            cluster: Some("c"),
        };
        for def in DEFS {
            let reads = def.field.reads();
            for job in rich_jobs() {
                let kept = reads.project(&job);
                assert_eq!(
                    def.field.cell(&kept, &ctx),
                    def.field.cell(&job, &ctx),
                    "{:?} of job {} reads more than {reads:?}",
                    def.field,
                    job.job_id
                );
            }
        }
    }

    #[test]
    fn every_letter_is_a_code() {
        for c in ('a'..='z').chain('A'..='Z') {
            assert!(Field::from_code(c).is_some(), "%{c}");
        }
    }

    #[test]
    fn names_match_in_any_case() {
        assert_eq!(Field::from_name("JobID"), Some(Field::JobId));
        assert_eq!(Field::from_name("ReasonList"), Some(Field::ReasonList));
        assert_eq!(Field::from_name("tres-per-node"), Some(Field::TresPerNode));
        assert_eq!(Field::from_name("TresPerNode"), None);
    }

    #[test]
    fn seconds_print_as_slurm_prints_them() {
        assert_eq!(secs(5), "0:05");
        assert_eq!(secs(3600), "1:00:00");
        assert_eq!(secs(90_061), "1-01:01:01");
        assert_eq!(secs(-1), "INVALID");
        assert_eq!(secs(366 * 86_400), "INVALID");
    }

    #[test]
    fn numbers_take_the_largest_exact_unit() {
        assert_eq!(units::memory(4096, false), "4G");
        assert_eq!(units::memory(880_000, false), "880000M");
        assert_eq!(units::memory(1536, false), "1.50G");
        assert_eq!(units::memory(4096, true), "4096M");
        assert_eq!(units::memory(0, false), "0");
        assert_eq!(convert_num_unit(144, Unit::None, false), "144");
    }
}
