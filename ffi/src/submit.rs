//! Jobs submitted and ended through libslurm: `slurm_init_job_desc_msg`
//! (every field unset, as Slurm's library leaves it), the description
//! read into spur-options' [`JobDescFields`] (the one reading of a
//! `job_desc_msg_t`, which the REST server's data_parser versions share)
//! and submitted as sbatch submits (`slurm_submit_batch_job`), its answer
//! freed by `slurm_free_submit_response_response_msg`; `slurm_kill_job`,
//! `slurm_signal_job` and the step forms (`slurm_kill_job_step`,
//! `slurm_signal_job_step`, `slurm_terminate_job_step`) as scancel
//! signals.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use spur_client::target::{first_failure, signal};
use spur_client::{Api, Process, RequestError};
use spur_options::fields::{JobDescFields, Request};

use crate::bindings::{
    job_desc_msg_t, submit_response_msg_t, ESLURM_INVALID_JOB_ID, ESLURM_NOT_SUPPORTED,
    NICE_OFFSET, NO_VAL, NO_VAL16, SLURM_BATCH_SCRIPT, SLURM_ERROR, SLURM_SUCCESS,
};
use crate::call::{guarded, refused, set_errno};
use crate::memory::c_string;

/// NO_VAL64: a 64-bit field left unset.
const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;
/// NO_VAL8.
const NO_VAL8: u8 = 0xfe;
/// `KILL_JOB_BATCH`: signal the batch shell only.
const KILL_JOB_BATCH: u16 = 1 << 0;
/// `KILL_FULL_JOB`: signal every step, the batch shell included.
const KILL_FULL_JOB: u16 = 1 << 3;

/// `slurm_init_job_desc_msg`: a description with every field unset.
///
/// # Safety
/// `desc` is NULL or points to a `job_desc_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_job_desc_msg(desc: *mut job_desc_msg_t) {
    if desc.is_null() {
        return;
    }
    let (v, v16) = (NO_VAL, NO_VAL16 as u16);
    // SAFETY: the caller's struct; every field is plain data.
    let d = unsafe {
        desc.write(job_desc_msg_t::default());
        &mut *desc
    };
    (d.alloc_sid, d.cpu_freq_min, d.cpu_freq_max, d.cpu_freq_gov) = (v, v, v, v);
    (d.delay_boot, d.group_id, d.job_id, d.max_cpus) = (v, v, v, v);
    (d.max_nodes, d.min_cpus, d.min_nodes, d.nice) = (v, v, v, v);
    (d.num_tasks, d.pn_min_tmp_disk, d.priority, d.req_switch) = (v, v, v, v);
    (d.site_factor, d.task_dist, d.time_limit, d.time_min) = (v, v, v, v);
    (d.user_id, d.wait4switch) = (v, v);
    (
        d.contiguous,
        d.core_spec,
        d.cores_per_socket,
        d.cpu_bind_type,
    ) = (v16, v16, v16, v16);
    (
        d.cpus_per_task,
        d.kill_on_node_fail,
        d.mem_bind_type,
        d.mail_type,
    ) = (v16, v16, v16, v16);
    (d.ntasks_per_core, d.ntasks_per_tres, d.ntasks_per_node) = (v16, v16, v16);
    (d.ntasks_per_socket, d.plane_size, d.pn_min_cpus, d.reboot) = (v16, v16, v16, v16);
    (d.requeue, d.shared, d.sockets_per_node, d.threads_per_core) = (v16, v16, v16, v16);
    d.wait_all_nodes = v16;
    d.overcommit = NO_VAL8;
    d.pn_min_memory = NO_VAL64;
}

/// A string field.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn text(s: *const c_char) -> Option<String> {
    // SAFETY: as the caller promises.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

/// A string array field of `count` entries.
///
/// # Safety
/// `a` is NULL or holds `count` strings (each NULL or NUL-terminated).
unsafe fn texts(a: *const *mut c_char, count: u32) -> Vec<String> {
    if a.is_null() {
        return Vec::new();
    }
    // SAFETY: as the caller promises.
    (0..count as usize)
        .filter_map(|i| unsafe { text(*a.add(i)) })
        .collect()
}

fn set32(n: u32) -> Option<u32> {
    (n != NO_VAL).then_some(n)
}

fn set16(n: u16) -> Option<u32> {
    (u32::from(n) != NO_VAL16).then_some(u32::from(n))
}

fn when(t: i64) -> Option<u64> {
    u64::try_from(t).ok().filter(|&t| t > 0)
}

/// What `d` asks for, as spur reads a `job_desc_msg_t`; fields it sets
/// that spur does not act on are kept as the options they stand for.
///
/// # Safety
/// `d`'s pointers are NULL or valid, as the header documents them.
pub(crate) unsafe fn read_desc(d: &job_desc_msg_t) -> JobDescFields {
    // SAFETY: the pointers are the caller's, valid as documented.
    unsafe {
        let mut unacted = Vec::new();
        let v16 = |n: u16| u32::from(n) != NO_VAL16 && n != 0;
        let numbers = [
            (v16(d.mail_type), "--mail-type"),
            (v16(d.sockets_per_node), "--sockets-per-node"),
            (v16(d.cores_per_socket), "--cores-per-socket"),
            (v16(d.threads_per_core), "--threads-per-core"),
            (v16(d.ntasks_per_socket), "--ntasks-per-socket"),
            (v16(d.ntasks_per_core), "--ntasks-per-core"),
            (v16(d.core_spec), "--core-spec"),
            (v16(d.contiguous), "--contiguous"),
            (v16(d.reboot), "--reboot"),
            (v16(d.kill_on_node_fail), "--no-kill"),
            (d.overcommit != NO_VAL8 && d.overcommit != 0, "--overcommit"),
            (set32(d.pn_min_tmp_disk).is_some_and(|n| n != 0), "--tmp"),
        ];
        unacted.extend(
            numbers
                .iter()
                .filter(|(set, _)| *set)
                .map(|(_, o)| o.to_string()),
        );
        let others = [
            (d.mail_user, "--mail-user"),
            (d.licenses, "--licenses"),
            (d.reservation, "--reservation"),
            (d.wckey, "--wckey"),
        ];
        for (field, option) in others {
            if let Some(value) = text(field) {
                unacted.push(format!("{option}={value}"));
            }
        }
        JobDescFields {
            name: text(d.name),
            account: text(d.account),
            partition: text(d.partition),
            qos: text(d.qos),
            clusters: text(d.clusters),
            comment: text(d.comment),
            min_nodes: set32(d.min_nodes),
            max_nodes: set32(d.max_nodes).filter(|&n| n != 0),
            num_tasks: set32(d.num_tasks),
            ntasks_per_node: set16(d.ntasks_per_node),
            cpus_per_task: set16(d.cpus_per_task),
            pn_min_memory: (d.pn_min_memory != NO_VAL64).then_some(d.pn_min_memory),
            mem_per_tres: text(d.mem_per_tres),
            cpus_per_tres: text(d.cpus_per_tres),
            tres_per_job: text(d.tres_per_job),
            tres_per_node: text(d.tres_per_node),
            tres_per_task: text(d.tres_per_task),
            shared: set16(d.shared).map(|s| s as u16),
            req_switch: set32(d.req_switch).filter(|&n| n != 0),
            wait4switch: set32(d.wait4switch).filter(|_| set32(d.req_switch).is_some()),
            req_nodes: text(d.req_nodes),
            exc_nodes: text(d.exc_nodes),
            features: text(d.features),
            time_limit: set32(d.time_limit),
            time_min: set32(d.time_min).filter(|&n| n != 0),
            nice: set32(d.nice).map(|n| (i64::from(n) - i64::from(NICE_OFFSET)) as i32),
            priority: set32(d.priority),
            begin_time: when(d.begin_time),
            deadline: when(d.deadline),
            requeue: set16(d.requeue).map(|r| r != 0),
            warn_signal: (d.warn_signal != 0).then_some(d.warn_signal),
            warn_time: (d.warn_time != 0).then_some(d.warn_time),
            warn_flags: d.warn_flags,
            bitflags: d.bitflags,
            array_inx: text(d.array_inx),
            dependency: text(d.dependency),
            script: text(d.script),
            argv: texts(d.argv, d.argc),
            environment: texts(d.environment, d.env_size),
            work_dir: text(d.work_dir),
            std_out: text(d.std_out),
            std_err: text(d.std_err),
            std_in: text(d.std_in),
            open_mode: (d.open_mode != 0).then_some(d.open_mode),
            alloc_node: text(d.alloc_node),
            unacted,
            ..JobDescFields::default()
        }
    }
}

/// What `d` asks for a new job: as [`read_desc`], with what a library
/// caller may leave out filled in as the commands fill it: the submitting
/// host, and the process's working directory.
///
/// # Safety
/// As [`read_desc`].
pub(crate) unsafe fn read_request(d: &job_desc_msg_t) -> JobDescFields {
    // SAFETY: as the caller promises.
    let mut fields = unsafe { read_desc(d) };
    if fields.alloc_node.is_none() {
        fields.alloc_node = Some(spur_sys::short_hostname());
    }
    if fields.work_dir.is_none() {
        fields.work_dir = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
    }
    fields
}

/// `slurm_submit_batch_job`: submits the described batch job; its id is
/// in `*resp` (freed by `slurm_free_submit_response_response_msg`).
///
/// # Safety
/// `desc` is NULL or a description as `slurm.h` documents it; `resp` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_submit_batch_job(
    desc: *mut job_desc_msg_t,
    resp: *mut *mut submit_response_msg_t,
) -> c_int {
    if desc.is_null() || resp.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    // SAFETY: the caller's description.
    let fields = unsafe { read_request(&*desc) };
    guarded(|| {
        let job = match fields.job_desc(Request::Batch) {
            Ok(job) => job,
            Err(e) => return refused(&RequestError::Refused(e)),
        };
        match Process.submit(job) {
            Ok(s) => {
                let answer = submit_response_msg_t {
                    job_id: s.job_id,
                    step_id: SLURM_BATCH_SCRIPT,
                    error_code: 0,
                    job_submit_user_msg: c_string(""),
                };
                // SAFETY: a plain allocation of the answer, checked.
                unsafe {
                    let out = libc::malloc(size_of::<submit_response_msg_t>())
                        .cast::<submit_response_msg_t>();
                    if out.is_null() {
                        libc::free(answer.job_submit_user_msg.cast());
                        set_errno(libc::ENOMEM);
                        return SLURM_ERROR;
                    }
                    out.write(answer);
                    *resp = out;
                }
                SLURM_SUCCESS as c_int
            }
            Err(e) => refused(&e),
        }
    })
}

/// `slurm_free_submit_response_response_msg`.
///
/// # Safety
/// `msg` is NULL or an answer of `slurm_submit_batch_job`, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_submit_response_response_msg(msg: *mut submit_response_msg_t) {
    if msg.is_null() {
        return;
    }
    // SAFETY: an answer made by slurm_submit_batch_job.
    unsafe {
        libc::free((*msg).job_submit_user_msg.cast());
        libc::free(msg.cast());
    }
}

/// Signals a job (or one task of an array) as scancel does; SIGKILL
/// without flags cancels it.
fn kill(job_id: u32, task: Option<u32>, signal_number: u16, flags: u16) -> c_int {
    let target = signal(
        job_id,
        task,
        i32::from(signal_number),
        flags & KILL_JOB_BATCH != 0,
        flags & KILL_FULL_JOB != 0,
    );
    match first_failure(Process.signal(target)) {
        None => SLURM_SUCCESS as c_int,
        Some(e) => refused(&e),
    }
}

/// `slurm_kill_job`: signals (SIGKILL: cancels) a job.
#[no_mangle]
pub extern "C" fn slurm_kill_job(job_id: u32, signal: u16, flags: u16) -> c_int {
    guarded(|| kill(job_id, None, signal, flags))
}

/// `slurm_kill_job2`: as `slurm_kill_job`, the job named as text (`N`,
/// or an array task `N_T`). A `sibling` cluster (federations) is not
/// spur's: ESLURM_NOT_SUPPORTED, nothing signalled.
///
/// # Safety
/// `job_id` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_kill_job2(
    job_id: *const c_char,
    signal_number: u16,
    flags: u16,
    sibling: *const c_char,
) -> c_int {
    // SAFETY: as the caller promises.
    let (text, sibling) = unsafe { (text(job_id).unwrap_or_default(), text(sibling)) };
    if sibling.is_some_and(|s| !s.is_empty()) {
        set_errno(ESLURM_NOT_SUPPORTED as c_int);
        return SLURM_ERROR;
    }
    guarded(|| match spur_client::target::job_ref(&text) {
        Some((job, task)) => kill(job, task, signal_number, flags),
        None => {
            set_errno(ESLURM_INVALID_JOB_ID as c_int);
            SLURM_ERROR
        }
    })
}

/// `slurm_signal_job`: signals every step of a job.
#[no_mangle]
pub extern "C" fn slurm_signal_job(job_id: u32, signal: u16) -> c_int {
    guarded(|| kill(job_id, None, signal, 0))
}

/// `slurm_free_job_desc_msg`: frees a description a caller built with
/// this library's allocator (pyslurm's `JobSubmitDescription`): its
/// strings, its argument, environment and spank environment arrays, its
/// array bitmap, and the description itself.
///
/// # Safety
/// `msg` is NULL or a description whose pointers are NULL or the C
/// allocator's, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_desc_msg(msg: *mut job_desc_msg_t) {
    // SAFETY: as the caller promises.
    let Some(d) = (unsafe { msg.as_mut() }) else {
        return;
    };
    let strings = [
        d.account,
        d.acctg_freq,
        d.admin_comment,
        d.alloc_node,
        d.array_inx,
        d.batch_features,
        d.burst_buffer,
        d.clusters,
        d.cluster_features,
        d.comment,
        d.container,
        d.cpu_bind,
        d.cpus_per_tres,
        d.dependency,
        d.extra,
        d.exc_nodes,
        d.features,
        d.job_id_str,
        d.licenses,
        d.mail_user,
        d.mcs_label,
        d.mem_bind,
        d.mem_per_tres,
        d.name,
        d.network,
        d.origin_cluster,
        d.partition,
        d.prefer,
        d.qos,
        d.resp_host,
        d.req_nodes,
        d.reservation,
        d.script,
        d.submit_line,
        d.tres_bind,
        d.tres_freq,
        d.tres_per_job,
        d.tres_per_node,
        d.tres_per_socket,
        d.tres_per_task,
        d.work_dir,
        d.req_context,
        d.selinux_context,
        d.std_err,
        d.std_in,
        d.std_out,
        d.wckey,
        d.x11_magic_cookie,
        d.x11_target,
    ];
    // SAFETY: as the caller promises: each is NULL or the C allocator's.
    unsafe {
        for s in strings {
            libc::free(s.cast());
        }
        for (array, count) in [(d.argv, d.argc), (d.spank_job_env, d.spank_job_env_size)] {
            if !array.is_null() {
                for i in 0..count as usize {
                    libc::free((*array.add(i)).cast());
                }
                libc::free(array.cast());
            }
        }
        crate::env::slurm_env_array_free(d.environment);
        let mut bitmap = d.array_bitmap;
        crate::bitstring::slurm_bit_free(&mut bitmap);
        libc::free(msg.cast());
    }
}

/// Signals one step (the batch step, `SLURM_BATCH_SCRIPT`: the batch
/// shell).
fn signal_step(job_id: u32, step_id: u32, signal: i32) -> c_int {
    match Process.signal_step(job_id, step_id, signal) {
        Ok(()) => SLURM_SUCCESS as c_int,
        Err(e) => refused(&e),
    }
}

/// `slurm_kill_job_step`: signals one step (SIGKILL ends it).
#[no_mangle]
pub extern "C" fn slurm_kill_job_step(job_id: u32, step_id: u32, signal: u16) -> c_int {
    guarded(|| signal_step(job_id, step_id, i32::from(signal)))
}

/// `slurm_signal_job_step`: signals one step's tasks.
#[no_mangle]
pub extern "C" fn slurm_signal_job_step(job_id: u32, step_id: u32, signal: u32) -> c_int {
    guarded(|| signal_step(job_id, step_id, i32::try_from(signal).unwrap_or(i32::MAX)))
}

/// `slurm_terminate_job_step`: ends one step's tasks (SIGKILL).
#[no_mangle]
pub extern "C" fn slurm_terminate_job_step(job_id: u32, step_id: u32) -> c_int {
    guarded(|| signal_step(job_id, step_id, libc::SIGKILL))
}
