//! Changes to jobs and nodes through libslurm: `slurm_update_job` (the
//! fields spur changes, read as at submission; priority 0 holds and
//! INFINITE releases, as scontrol's hold and release send them),
//! `slurm_requeue` (with scontrol's hold and special-exit flags),
//! `slurm_init_update_node_msg` and `slurm_update_node` (drain, resume,
//! down, undrain, with a reason).

use std::os::raw::{c_char, c_int};

use spur_client::target::first_failure;
use spur_client::{Api, PerTarget, Process, RequestError};
use spur_proto::{ErrorCode, JobUpdate, NodeStateRequest, NodeUpdate, RequeueHold};

use crate::bindings::{
    job_array_resp_msg_t, job_desc_msg_t, step_update_request_msg_t, update_node_msg_t,
    ESLURM_INVALID_JOB_ID, ESLURM_INVALID_NODE_NAME, ESLURM_INVALID_NODE_STATE,
    ESLURM_NOT_SUPPORTED, INFINITE, JOB_RUNNING, NODE_STATE_DOWN, NO_VAL, SLURM_ERROR,
    SLURM_SUCCESS,
};

// slurm.h's flags that bindgen cannot read (`SLURM_BIT(n)`).
/// JOB_RECONFIG_FAIL.
const JOB_RECONFIG_FAIL: u32 = 1 << 17;
/// JOB_REQUEUE_HOLD.
const JOB_REQUEUE_HOLD: u32 = 1 << 11;
/// JOB_SPECIAL_EXIT.
const JOB_SPECIAL_EXIT: u32 = 1 << 12;
/// NODE_STATE_UNDRAIN.
const NODE_STATE_UNDRAIN: u32 = 1 << 6;
/// NODE_RESUME.
const NODE_RESUME: u32 = 1 << 8;
/// NODE_STATE_DRAIN.
const NODE_STATE_DRAIN: u32 = 1 << 9;
use crate::call::{guarded, refused, set_errno};
use crate::nodes::read_opt;
use crate::submit::read_desc;

/// The answer of a request that acted on jobs.
fn answer(result: Result<PerTarget, RequestError>) -> c_int {
    match first_failure(result) {
        None => SLURM_SUCCESS as c_int,
        Some(e) => refused(&e),
    }
}

fn not_supported() -> c_int {
    set_errno(ESLURM_NOT_SUPPORTED as c_int);
    SLURM_ERROR
}

/// `slurm_update_job`: changes the job `job_id` names: its time limit,
/// partition, name, nice, priority (0 holds it, INFINITE releases it),
/// comment or dependency. A description that sets any other field is
/// refused with ESLURM_NOT_SUPPORTED, and nothing changes.
///
/// # Safety
/// `desc` is NULL or a description as `slurm.h` documents it.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_job(desc: *mut job_desc_msg_t) -> c_int {
    // SAFETY: as the caller promises.
    let Some(desc) = (unsafe { desc.as_ref() }) else {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    };
    let job_id = desc.job_id;
    // SAFETY: the caller's description.
    let fields = unsafe { read_desc(desc) };
    guarded(|| {
        if job_id == NO_VAL || job_id == 0 {
            return refused(&RequestError::Refused(ErrorCode::InvalidJobId.into()));
        }
        if !fields.only_updatable() || !fields.unacted.is_empty() {
            return not_supported();
        }
        let mut update = fields.job_update(job_id);
        // scontrol release sends INFINITE; scontrol hold sends 0, which
        // the controller's update takes as slurmctld does.
        if update.priority == Some(INFINITE) {
            update.priority = None;
            if let Some(e) = first_failure(Process.release(vec![job_id])) {
                return refused(&e);
            }
            let nothing_else = JobUpdate {
                job_id,
                ..JobUpdate::default()
            };
            if update == nothing_else {
                return SLURM_SUCCESS as c_int;
            }
        }
        answer(Process.update_job(update))
    })
}

/// `slurm_update_job2`: as `slurm_update_job`; no answers per array
/// task (`*resp` NULL).
///
/// # Safety
/// As `slurm_update_job`; `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_job2(
    desc: *mut job_desc_msg_t,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    // SAFETY: as the caller promises.
    if let Some(resp) = unsafe { resp.as_mut() } {
        *resp = std::ptr::null_mut();
    }
    // SAFETY: as the caller promises.
    unsafe { slurm_update_job(desc) }
}

/// `slurm_requeue2`: as `slurm_requeue`, the job named as text (`N`, or
/// an array task `N_T`); no answers per array task (`*resp` NULL).
///
/// # Safety
/// `job_id` is NULL or NUL-terminated; `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_requeue2(
    job_id: *mut c_char,
    flags: u32,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    // SAFETY: as the caller promises.
    if let Some(resp) = unsafe { resp.as_mut() } {
        *resp = std::ptr::null_mut();
    }
    // SAFETY: as the caller promises.
    let text = unsafe { read_opt(job_id) }.unwrap_or_default();
    let id = guarded(|| match spur_client::target::job_ref(&text) {
        Some((job, None)) => job,
        Some((array, Some(task))) => Process.task_job_id(array, task).unwrap_or(0),
        None => 0,
    });
    if id == 0 {
        set_errno(ESLURM_INVALID_JOB_ID as c_int);
        return SLURM_ERROR;
    }
    slurm_requeue(id, flags)
}

/// `slurm_free_job_array_resp`: frees per-task answers (this library
/// makes none; a caller's own are freed as Slurm's would be).
///
/// # Safety
/// `resp` is NULL or an answer whose arrays are the C allocator's.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_array_resp(resp: *mut job_array_resp_msg_t) {
    // SAFETY: as the caller promises.
    let Some(r) = (unsafe { resp.as_ref() }) else {
        return;
    };
    // SAFETY: job_array_count strings, the arrays and the answer.
    unsafe {
        if !r.job_array_id.is_null() {
            for i in 0..r.job_array_count as usize {
                libc::free((*r.job_array_id.add(i)).cast());
            }
        }
        libc::free(r.job_array_id.cast());
        libc::free(r.error_code.cast());
        libc::free(resp.cast());
    }
}

/// `slurm_requeue`: puts a job back in the queue; JOB_REQUEUE_HOLD holds
/// it there, JOB_SPECIAL_EXIT holds it in SPECIAL_EXIT, and JOB_RUNNING
/// (scontrol's `Incomplete`) requeues it only if it has not completed.
#[no_mangle]
pub extern "C" fn slurm_requeue(job_id: u32, flags: u32) -> c_int {
    guarded(|| {
        let known = JOB_REQUEUE_HOLD | JOB_SPECIAL_EXIT | JOB_RUNNING | JOB_RECONFIG_FAIL;
        if flags & !known != 0 {
            return not_supported();
        }
        let hold = RequeueHold {
            hold: flags & JOB_REQUEUE_HOLD != 0,
            special_exit: flags & JOB_SPECIAL_EXIT != 0,
        };
        answer(Process.requeue(vec![job_id], hold, flags & JOB_RUNNING != 0))
    })
}

/// `slurm_init_update_node_msg`: a node update with nothing set.
///
/// # Safety
/// `msg` is NULL or points to an `update_node_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_node_msg(msg: *mut update_node_msg_t) {
    // SAFETY: as the caller promises.
    if let Some(msg) = unsafe { msg.as_mut() } {
        *msg = update_node_msg_t {
            node_state: NO_VAL,
            weight: NO_VAL,
            ..update_node_msg_t::default()
        };
    }
}

/// The state change an update asks for: DRAIN, RESUME, DOWN or UNDRAIN;
/// Err for a state spur does not set.
fn state_request(state: u32) -> Result<Option<NodeStateRequest>, c_int> {
    if state == NO_VAL {
        return Ok(None);
    }
    let request = match state {
        NODE_STATE_DRAIN => NodeStateRequest::Drain,
        NODE_RESUME => NodeStateRequest::Resume,
        NODE_STATE_DOWN => NodeStateRequest::Down,
        NODE_STATE_UNDRAIN => NodeStateRequest::Undrain,
        _ => return Err(ESLURM_INVALID_NODE_STATE as c_int),
    };
    Ok(Some(request))
}

/// The strings of a node update that spur does not act on.
fn unacted_strings(m: &update_node_msg_t) -> [*mut c_char; 7] {
    [
        m.comment,
        m.extra,
        m.features,
        m.features_act,
        m.gres,
        m.node_addr,
        m.node_hostname,
    ]
}

/// `slurm_update_node`: drains, resumes, downs or undrains the nodes of
/// `node_names` (a hostlist), with `reason`. Any other field set is
/// refused with ESLURM_NOT_SUPPORTED, and nothing changes.
///
/// # Safety
/// `msg` is NULL or an update as `slurm.h` documents it.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_node(msg: *mut update_node_msg_t) -> c_int {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { msg.as_ref() }) else {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    };
    // SAFETY: the caller's strings.
    let (names, reason, others) = unsafe {
        let others = unacted_strings(m);
        (
            read_opt(m.node_names),
            read_opt(m.reason),
            others.iter().any(|p| !p.is_null()),
        )
    };
    guarded(|| {
        if others || m.weight != NO_VAL || m.cpu_bind != 0 {
            return not_supported();
        }
        let Some(nodes) = names.and_then(|n| spur_conf::hostlist::expand(&n).ok()) else {
            set_errno(ESLURM_INVALID_NODE_NAME as c_int);
            return SLURM_ERROR;
        };
        let state = match state_request(m.node_state) {
            Ok(s) => s,
            Err(errno) => {
                set_errno(errno);
                return SLURM_ERROR;
            }
        };
        let update = NodeUpdate {
            nodes,
            state,
            reason,
        };
        match Process.update_node(update) {
            Ok(()) => SLURM_SUCCESS as c_int,
            Err(e) => refused(&e),
        }
    })
}

/// `slurm_init_update_step_msg`: a step update with nothing set.
///
/// # Safety
/// `msg` is NULL or points to a `step_update_request_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_step_msg(msg: *mut step_update_request_msg_t) {
    // SAFETY: as the caller promises.
    if let Some(m) = unsafe { msg.as_mut() } {
        *m = step_update_request_msg_t {
            job_id: NO_VAL,
            step_id: NO_VAL,
            time_limit: NO_VAL,
        };
    }
}

/// `slurm_free_update_node_msg`: frees a node update a caller built with
/// this library's allocator, and its strings.
///
/// # Safety
/// `msg` is NULL or such an update, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_update_node_msg(msg: *mut update_node_msg_t) {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { msg.as_ref() }) else {
        return;
    };
    let strings = unacted_strings(m)
        .into_iter()
        .chain([m.node_names, m.reason]);
    // SAFETY: each is NULL or the C allocator's, as is the update.
    unsafe {
        for s in strings {
            libc::free(s.cast());
        }
        libc::free(msg.cast());
    }
}

/// `slurm_free_update_step_msg`: frees a step update (it holds no
/// pointers).
///
/// # Safety
/// `msg` is NULL or a C allocation, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_update_step_msg(msg: *mut step_update_request_msg_t) {
    // SAFETY: as the caller promises.
    unsafe { libc::free(msg.cast()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_states_map_to_requests() {
        assert_eq!(state_request(NO_VAL), Ok(None));
        assert_eq!(
            state_request(NODE_STATE_DRAIN),
            Ok(Some(NodeStateRequest::Drain))
        );
        assert_eq!(
            state_request(NODE_STATE_DRAIN | NODE_RESUME),
            Err(ESLURM_INVALID_NODE_STATE as c_int)
        );
    }
}
