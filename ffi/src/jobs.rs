//! Jobs as libslurm hands them out: `slurm_load_jobs`, `slurm_load_job`
//! and `slurm_load_job_user` fill a `job_info_msg_t` from the controller's
//! listing (the same one squeue and `scontrol show job` read), and
//! `slurm_free_job_info_msg` frees it. Every job is listed whatever
//! `update_time` says (spur keeps no time of each job's last change), and
//! with its details whatever `show_flags` says.

use std::collections::HashMap;
use std::os::raw::{c_char, c_int};

use spur_client::{Api, Process};
use spur_proto::history::Tres;
use spur_proto::{ExclusiveMode, JobFields, JobInfo, JobStateName, MemSpec};
use spur_slurm::job_state::{reason_number, reason_text, state_name, state_number};

use crate::bindings::{
    job_info, job_info_msg_t, time_t, ESLURM_INVALID_JOB_ID, INFINITE, JOB_COMPLETE, JOB_PENDING,
    JOB_SHARED_NONE, JOB_SHARED_USER, MEM_PER_CPU, NICE_OFFSET, NO_VAL, NO_VAL16, SLURM_ERROR,
};
use crate::call::{guarded, hand_out, refused, set_errno};
use crate::memory::{c_message, c_records, c_string, free_records};
use crate::nodes::{node_index, node_table, read, read_opt};

/// A string field: NULL for none.
fn text(s: Option<&str>) -> *mut c_char {
    s.map_or(std::ptr::null_mut(), c_string)
}

/// A string field that Slurm leaves NULL when empty.
fn nonempty(s: &str) -> *mut c_char {
    text(Some(s).filter(|s| !s.is_empty()))
}

/// Minutes as Slurm keeps a limit: INFINITE for none.
fn minutes(secs: Option<u64>) -> u32 {
    secs.map_or(INFINITE, |s| u32::try_from(s / 60).unwrap_or(INFINITE))
}

fn time(t: Option<u64>) -> time_t {
    t.map_or(0, |t| time_t::try_from(t).unwrap_or(time_t::MAX))
}

fn u16_or_no_val(n: u32) -> u16 {
    if n == 0 {
        NO_VAL16 as u16
    } else {
        u16::try_from(n).unwrap_or(NO_VAL16 as u16)
    }
}

/// The state's number: a base state and its flags.
fn state(s: JobStateName) -> u32 {
    match s {
        // spur does not keep the state a completing job ends in.
        JobStateName::Completing => JOB_COMPLETE | state_number("COMPLETING").unwrap_or(0),
        other => state_number(other.as_str()).unwrap_or(JOB_PENDING),
    }
}

/// One job's record, its strings the C allocator's; `table` is the node
/// table.
fn record(j: &JobInfo, table: &HashMap<String, usize>) -> job_info {
    let mem = match j.mem {
        MemSpec::Default | MemSpec::PerGpu(_) => 0,
        MemSpec::PerNode(mb) => mb,
        MemSpec::PerCpu(mb) => mb | MEM_PER_CPU as u64,
    };
    let tres = j.tres.map(|t| t.job_text());
    job_info {
        account: text(j.account.as_deref()),
        accrue_time: time(Some(j.eligible_time)),
        alloc_node: nonempty(&j.submit_host),
        array_job_id: j.array_job_id.unwrap_or(0),
        array_task_id: j.array_task_id.unwrap_or(NO_VAL),
        array_max_tasks: j.array_task_throttle,
        array_task_str: text(j.array_task_str.as_deref()),
        batch_flag: u16::from(j.batch),
        batch_host: text(j.batch_host.as_deref()),
        boards_per_node: NO_VAL16 as u16,
        command: text(j.command.as_deref()),
        comment: text(j.comment.as_deref()),
        contiguous: u16::from(j.contiguous),
        core_spec: NO_VAL16 as u16,
        cores_per_socket: NO_VAL16 as u16,
        cpus_per_task: u16_or_no_val(j.cpus_per_task),
        cpu_freq_min: NO_VAL,
        cpu_freq_max: NO_VAL,
        cpu_freq_gov: NO_VAL,
        deadline: time(j.deadline),
        dependency: text(j.dependency.as_deref()),
        eligible_time: time(Some(j.eligible_time)),
        end_time: time(j.end_time),
        exc_nodes: text(j.exc_nodes.as_deref()),
        exc_node_inx: node_index(j.exc_nodes.as_deref(), table),
        node_inx: node_index(Some(&j.nodes), table),
        req_node_inx: node_index(j.req_nodes.as_deref(), table),
        // A wait status: the exit code above the signal.
        exit_code: ((j.exit_code as u32 & 0xff) << 8) | (j.exit_signal as u32 & 0x7f),
        features: text(j.features.as_deref()),
        group_id: j.group_id,
        job_id: j.job_id,
        job_state: state(j.state),
        last_sched_eval: time(j.last_sched_eval),
        name: nonempty(&j.name),
        nice: (i64::from(NICE_OFFSET) + i64::from(j.nice)) as u32,
        nodes: nonempty(&j.nodes),
        ntasks_per_board: NO_VAL16 as u16,
        ntasks_per_core: NO_VAL16 as u16,
        ntasks_per_node: u16_or_no_val(j.ntasks_per_node),
        ntasks_per_socket: NO_VAL16 as u16,
        ntasks_per_tres: NO_VAL16 as u16,
        num_cpus: j.num_cpus,
        num_nodes: j.num_nodes,
        num_tasks: j.num_tasks,
        partition: nonempty(&j.partition),
        pn_min_memory: mem,
        priority: j.priority,
        qos: nonempty(&j.qos),
        req_nodes: text(j.req_nodes.as_deref()),
        requeue: u16::from(j.requeue),
        restart_cnt: u16::try_from(j.restarts).unwrap_or(u16::MAX),
        sched_nodes: text(j.sched_nodes.as_deref()),
        shared: match j.exclusive {
            ExclusiveMode::No => NO_VAL16 as u16,
            ExclusiveMode::Node | ExclusiveMode::Topo => JOB_SHARED_NONE as u16,
            ExclusiveMode::User => JOB_SHARED_USER as u16,
        },
        site_factor: NICE_OFFSET,
        sockets_per_board: NO_VAL16 as u16,
        sockets_per_node: NO_VAL16 as u16,
        start_time: time(j.start_time),
        state_reason: reason_number(&j.reason).unwrap_or(0) as u16,
        std_err: nonempty(&j.stderr),
        std_in: nonempty(&j.stdin),
        std_out: nonempty(&j.stdout),
        submit_time: time(Some(j.submit_time)),
        threads_per_core: NO_VAL16 as u16,
        time_limit: minutes(j.time_limit),
        time_min: j.time_min.map_or(0, |s| u32::try_from(s / 60).unwrap_or(0)),
        tres_alloc_str: text(tres.as_deref().filter(|_| j.start_time.is_some())),
        tres_req_str: text(tres.as_deref()),
        mem_per_tres: match j.mem {
            MemSpec::PerGpu(mb) => c_string(&format!("gres:gpu:{mb}")),
            _ => std::ptr::null_mut(),
        },
        tres_per_job: text(j.tres_per_job.as_deref()),
        tres_per_node: text(j.tres_per_node.as_deref()),
        tres_per_task: text(j.tres_per_task.as_deref()),
        user_id: j.user_id,
        user_name: nonempty(&j.user_name),
        work_dir: nonempty(&j.work_dir),
        ..job_info::default()
    }
}

/// A job record read back (for the print functions, which print what a
/// record says wherever it came from). What the record has no field for
/// (per-node CPUs and GPU indices, options spur keeps but does not act
/// on) is left empty.
///
/// # Safety
/// `r`'s strings are NULL or NUL-terminated.
pub unsafe fn job_of(r: &job_info) -> JobInfo {
    let no_val16 = |n: u16| {
        if n == NO_VAL16 as u16 {
            0
        } else {
            u32::from(n)
        }
    };
    // SAFETY: as the caller promises, for every string read below.
    unsafe {
        let tres = read_opt(r.tres_alloc_str)
            .or_else(|| read_opt(r.tres_req_str))
            .and_then(|t| Tres::parse(&t));
        let per_gpu = read_opt(r.mem_per_tres)
            .and_then(|m| m.strip_prefix("gres:gpu:").and_then(|n| n.parse().ok()));
        JobInfo {
            job_id: r.job_id,
            name: read(r.name),
            user_id: r.user_id,
            user_name: read_opt(r.user_name).unwrap_or_else(|| spur_sys::users::name_of(r.user_id)),
            group_id: r.group_id,
            group_name: spur_sys::users::group_name(r.group_id),
            state: JobStateName::parse(state_name(r.job_state)).unwrap_or(JobStateName::Pending),
            reason: reason_text(r.state_reason.into())
                .unwrap_or("None")
                .to_string(),
            priority: r.priority,
            nice: (i64::from(r.nice) - i64::from(NICE_OFFSET)) as i32,
            account: read_opt(r.account),
            qos: read(r.qos),
            partition: read(r.partition),
            time_limit: (r.time_limit != INFINITE && r.time_limit != NO_VAL)
                .then(|| u64::from(r.time_limit) * 60),
            time_min: (r.time_min != 0).then(|| u64::from(r.time_min) * 60),
            submit_time: u64::try_from(r.submit_time).unwrap_or(0),
            eligible_time: u64::try_from(r.eligible_time).unwrap_or(0),
            start_time: u64::try_from(r.start_time).ok().filter(|&t| t > 0),
            end_time: u64::try_from(r.end_time).ok().filter(|&t| t > 0),
            nodes: read(r.nodes),
            sched_nodes: read_opt(r.sched_nodes),
            num_nodes: r.num_nodes,
            num_cpus: r.num_cpus,
            num_tasks: r.num_tasks,
            cpus_per_task: no_val16(r.cpus_per_task),
            ntasks_per_node: no_val16(r.ntasks_per_node),
            cpus_per_node: Vec::new(),
            batch_host: read_opt(r.batch_host),
            req_nodes: read_opt(r.req_nodes),
            exc_nodes: read_opt(r.exc_nodes),
            features: read_opt(r.features),
            mem: match (per_gpu, r.pn_min_memory) {
                (Some(mb), _) => MemSpec::PerGpu(mb),
                (None, 0) => MemSpec::Default,
                (None, m) if m & MEM_PER_CPU as u64 != 0 => {
                    MemSpec::PerCpu(m & !(MEM_PER_CPU as u64))
                }
                (None, m) => MemSpec::PerNode(m),
            },
            tres,
            tres_per_node: read_opt(r.tres_per_node),
            tres_per_job: read_opt(r.tres_per_job),
            tres_per_task: read_opt(r.tres_per_task),
            gpus_per_node_idx: Vec::new(),
            work_dir: read(r.work_dir),
            stdout: read(r.std_out),
            stderr: read(r.std_err),
            stdin: read(r.std_in),
            command: read_opt(r.command),
            comment: read_opt(r.comment),
            exit_code: ((r.exit_code >> 8) & 0xff) as i32,
            exit_signal: (r.exit_code & 0x7f) as i32,
            restarts: r.restart_cnt.into(),
            requeue: r.requeue != 0,
            batch: r.batch_flag != 0,
            deadline: u64::try_from(r.deadline).ok().filter(|&t| t > 0),
            exclusive: match u32::from(r.shared) {
                JOB_SHARED_NONE => ExclusiveMode::Node,
                JOB_SHARED_USER => ExclusiveMode::User,
                _ => ExclusiveMode::No,
            },
            contiguous: r.contiguous != 0,
            submit_host: read(r.alloc_node),
            dependency: read_opt(r.dependency),
            array_job_id: (r.array_job_id != 0).then_some(r.array_job_id),
            array_task_id: (r.array_task_id != NO_VAL).then_some(r.array_task_id),
            array_task_str: read_opt(r.array_task_str),
            array_task_throttle: r.array_max_tasks,
            last_sched_eval: u64::try_from(r.last_sched_eval).ok().filter(|&t| t > 0),
            unacted: Vec::new(),
        }
    }
}

/// Every string a record may hold, freed.
///
/// # Safety
/// `r`'s strings are NULL or the C allocator's, not used again.
unsafe fn free_record(r: &mut job_info) {
    let strings = [
        &mut r.account,
        &mut r.admin_comment,
        &mut r.alloc_node,
        &mut r.array_task_str,
        &mut r.batch_features,
        &mut r.batch_host,
        &mut r.burst_buffer,
        &mut r.burst_buffer_state,
        &mut r.cluster,
        &mut r.cluster_features,
        &mut r.command,
        &mut r.comment,
        &mut r.container,
        &mut r.cpus_per_tres,
        &mut r.cronspec,
        &mut r.dependency,
        &mut r.exc_nodes,
        &mut r.features,
        &mut r.fed_origin_str,
        &mut r.fed_siblings_active_str,
        &mut r.fed_siblings_viable_str,
        &mut r.gres_total,
        &mut r.het_job_id_set,
        &mut r.licenses,
        &mut r.mail_user,
        &mut r.mcs_label,
        &mut r.mem_per_tres,
        &mut r.name,
        &mut r.network,
        &mut r.nodes,
        &mut r.partition,
        &mut r.prefer,
        &mut r.qos,
        &mut r.req_nodes,
        &mut r.resv_name,
        &mut r.sched_nodes,
        &mut r.selinux_context,
        &mut r.state_desc,
        &mut r.std_err,
        &mut r.std_in,
        &mut r.std_out,
        &mut r.system_comment,
        &mut r.tres_bind,
        &mut r.tres_freq,
        &mut r.tres_per_job,
        &mut r.tres_per_node,
        &mut r.tres_per_socket,
        &mut r.tres_per_task,
        &mut r.tres_req_str,
        &mut r.tres_alloc_str,
        &mut r.user_name,
        &mut r.wckey,
        &mut r.work_dir,
    ];
    for s in strings {
        // SAFETY: each is NULL or from strdup (record).
        unsafe { libc::free(s.cast()) };
        *s = std::ptr::null_mut();
    }
    for inx in [&mut r.exc_node_inx, &mut r.node_inx, &mut r.req_node_inx] {
        // SAFETY: each is NULL or from node_index.
        unsafe { libc::free(inx.cast()) };
        *inx = std::ptr::null_mut();
    }
}

/// `slurm_free_job_info`: frees one record this library filled and the
/// record itself (pyslurm's copies).
///
/// # Safety
/// `job` is NULL or a C allocation holding such a record, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info(job: *mut job_info) {
    // SAFETY: as the caller promises.
    if let Some(r) = unsafe { job.as_mut() } {
        // SAFETY: its members are this library's; then the record.
        unsafe {
            free_record(r);
            libc::free(job.cast());
        }
    }
}

/// A message of `jobs`, the C allocator's (freed by
/// slurm_free_job_info_msg); NULL if memory ran out.
fn message(jobs: &[&JobInfo], now: u64) -> *mut job_info_msg_t {
    let table = node_table();
    let array = c_records(jobs, |j| record(j, &table));
    let count = u32::try_from(jobs.len()).unwrap_or(u32::MAX);
    // SAFETY: count records of ours.
    unsafe {
        c_message(array, count, free_record, |m: &mut job_info_msg_t| {
            m.last_update = time(Some(now));
            m.record_count = count;
            m.job_array = array;
        })
    }
}

/// Answers a load: the message in `*out`, or errno and SLURM_ERROR.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn load(
    out: *mut *mut job_info_msg_t,
    ids: Vec<u32>,
    keep: impl Fn(&JobInfo) -> bool,
) -> c_int {
    if out.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    let asked_for_one = !ids.is_empty();
    match Process.jobs(ids, JobFields::ALL, false) {
        Ok(listing) => {
            // References: moving 10,000 records would cost more than reading them.
            let jobs: Vec<&JobInfo> = listing.items.iter().filter(|j| keep(j)).collect();
            if asked_for_one && jobs.is_empty() {
                set_errno(ESLURM_INVALID_JOB_ID as c_int);
                return SLURM_ERROR;
            }
            // SAFETY: the caller's pointer.
            unsafe { hand_out(out, message(&jobs, listing.now)) }
        }
        Err(e) => refused(&e),
    }
}

/// `slurm_load_jobs`: every job.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_jobs(
    _update_time: time_t,
    resp: *mut *mut job_info_msg_t,
    _show_flags: u16,
) -> c_int {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { load(resp, Vec::new(), |_| true) })
}

/// `slurm_load_job`: one job, or each task of an array job.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job(
    resp: *mut *mut job_info_msg_t,
    job_id: u32,
    _show_flags: u16,
) -> c_int {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { load(resp, vec![job_id], |_| true) })
}

/// `slurm_load_job_user`: the jobs of one user.
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job_user(
    resp: *mut *mut job_info_msg_t,
    user_id: u32,
    _show_flags: u16,
) -> c_int {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { load(resp, Vec::new(), |j| j.user_id == user_id) })
}

/// `slurm_free_job_info_msg`: frees a loaded message and its records.
///
/// # Safety
/// `msg` is NULL or a message this library loaded, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info_msg(msg: *mut job_info_msg_t) {
    if msg.is_null() {
        return;
    }
    // SAFETY: a message from `message`: record_count records in job_array.
    unsafe {
        free_records((*msg).job_array, (*msg).record_count, free_record);
        libc::free(msg.cast());
    }
}
