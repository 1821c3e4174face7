//! Jobs as libslurm hands them out: `slurm_load_jobs`, `slurm_load_job`
//! and `slurm_load_job_user` fill a `job_info_msg_t` from the controller's
//! listing (the same one squeue and `scontrol show job` read), and
//! `slurm_free_job_info_msg` frees it. Every job is listed whatever
//! `update_time` says (spur keeps no time of each job's last change), and
//! with its details whatever `show_flags` says.

use std::os::raw::{c_char, c_int};

use spur_client::{Api, Process};
use spur_proto::{ExclusiveMode, JobInfo, JobStateName, MemSpec};
use spur_slurm::job_state::{reason_number, state_number};

use crate::bindings::{
    job_info, job_info_msg_t, time_t, ESLURM_INVALID_JOB_ID, INFINITE, JOB_COMPLETE, JOB_PENDING,
    JOB_SHARED_NONE, JOB_SHARED_USER, MEM_PER_CPU, NICE_OFFSET, NO_VAL, NO_VAL16, SLURM_ERROR,
    SLURM_SUCCESS,
};
use crate::call::{guarded, refused, set_errno};
use crate::memory::c_string;

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

/// One job's record, its strings the C allocator's.
fn record(j: &JobInfo) -> job_info {
    let mem = match j.mem {
        MemSpec::Default | MemSpec::PerGpu(_) => 0,
        MemSpec::PerNode(mb) => mb,
        MemSpec::PerCpu(mb) => mb | MEM_PER_CPU as u64,
    };
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
        tres_per_job: text(j.tres_per_job.as_deref()),
        tres_per_node: text(j.tres_per_node.as_deref()),
        tres_per_task: text(j.tres_per_task.as_deref()),
        user_id: j.user_id,
        user_name: nonempty(&j.user_name),
        work_dir: nonempty(&j.work_dir),
        ..job_info::default()
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
}

/// A message of `jobs`, the C allocator's (freed by
/// slurm_free_job_info_msg).
fn message(jobs: &[JobInfo], now: u64) -> *mut job_info_msg_t {
    // SAFETY: plain allocations, each checked; the records are written
    // before the message is handed out.
    unsafe {
        let msg = libc::calloc(1, size_of::<job_info_msg_t>()).cast::<job_info_msg_t>();
        if msg.is_null() {
            return msg;
        }
        let array = libc::calloc(jobs.len().max(1), size_of::<job_info>()).cast::<job_info>();
        if array.is_null() {
            libc::free(msg.cast());
            return std::ptr::null_mut();
        }
        for (i, j) in jobs.iter().enumerate() {
            array.add(i).write(record(j));
        }
        (*msg).last_update = time(Some(now));
        (*msg).record_count = u32::try_from(jobs.len()).unwrap_or(u32::MAX);
        (*msg).job_array = array;
        msg
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
    match Process.jobs(ids, true, false) {
        Ok(listing) => {
            let jobs: Vec<JobInfo> = listing.items.into_iter().filter(|j| keep(j)).collect();
            if asked_for_one && jobs.is_empty() {
                set_errno(ESLURM_INVALID_JOB_ID as c_int);
                return SLURM_ERROR;
            }
            let msg = message(&jobs, listing.now);
            if msg.is_null() {
                set_errno(libc::ENOMEM);
                return SLURM_ERROR;
            }
            // SAFETY: the caller's pointer.
            unsafe { *out = msg };
            SLURM_SUCCESS as c_int
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
        let array = (*msg).job_array;
        if !array.is_null() {
            for i in 0..(*msg).record_count as usize {
                free_record(&mut *array.add(i));
            }
            libc::free(array.cast());
        }
        libc::free(msg.cast());
    }
}
