//! Allocations through libslurm, as salloc holds them:
//! `slurm_allocate_resources` (ask, answer at once: the nodes if granted,
//! else the pending job's id), `slurm_allocate_resources_blocking` (ask
//! and wait for the grant), `slurm_allocation_lookup` (a granted
//! allocation's nodes), `slurm_complete_job` (give it back) and
//! `slurm_free_resource_allocation_response_msg`. The description is read
//! as at submission. Where Slurm's library listens on a port for the
//! controller's word that the allocation was granted, this one asks the
//! controller every 100 ms.

use std::os::raw::{c_char, c_int};
use std::time::{Duration, Instant};

use spur_client::{Api, Process, RequestError};
use spur_options::fields::Request;
use spur_proto::{ErrorCode, JobFields, JobInfo, JobStateName, MemSpec};

use crate::bindings::{
    job_desc_msg_t, resource_allocation_response_msg_t, time_t, ESLURM_ALREADY_DONE,
    ESLURM_INVALID_JOB_ID, MEM_PER_CPU, NO_VAL16, SLURM_ERROR, SLURM_SUCCESS,
};
use crate::call::{guarded, refused, set_errno};
use crate::memory::c_string;
use crate::submit::read_request;

/// How often a blocking allocation asks whether it was granted.
const POLL: Duration = Duration::from_millis(100);

fn text(s: Option<&str>) -> *mut c_char {
    s.filter(|s| !s.is_empty())
        .map_or(std::ptr::null_mut(), c_string)
}

/// `values` run-length coded, as `cpus_per_node` and `cpu_count_reps`.
fn groups(values: &[u32]) -> Vec<(u16, u32)> {
    let mut out: Vec<(u16, u32)> = Vec::new();
    for &v in values {
        let v = u16::try_from(v).unwrap_or(u16::MAX);
        match out.last_mut() {
            Some((last, reps)) if *last == v => *reps += 1,
            _ => out.push((v, 1)),
        }
    }
    out
}

/// A C array of `values` (NULL for none).
fn c_values<T: Copy>(values: &[T]) -> *mut T {
    if values.is_empty() {
        return std::ptr::null_mut();
    }
    // SAFETY: a checked allocation of values.len() elements, each written.
    unsafe {
        let a = libc::malloc(std::mem::size_of_val(values)).cast::<T>();
        if !a.is_null() {
            std::ptr::copy_nonoverlapping(values.as_ptr(), a, values.len());
        }
        a
    }
}

/// The answer for `job`: its nodes and CPUs once granted, only its id
/// while pending.
fn response(job: &JobInfo) -> *mut resource_allocation_response_msg_t {
    let granted = job.state == JobStateName::Running;
    let cpus = groups(if granted { &job.cpus_per_node } else { &[] });
    let mem = match job.mem {
        MemSpec::PerNode(mb) => mb,
        MemSpec::PerCpu(mb) => mb | MEM_PER_CPU as u64,
        MemSpec::Default | MemSpec::PerGpu(_) => 0,
    };
    let record = resource_allocation_response_msg_t {
        account: text(job.account.as_deref()),
        job_id: job.job_id,
        batch_host: text(job.batch_host.as_deref().filter(|_| granted)),
        cpus_per_node: c_values(&cpus.iter().map(|g| g.0).collect::<Vec<_>>()),
        cpu_count_reps: c_values(&cpus.iter().map(|g| g.1).collect::<Vec<_>>()),
        num_cpu_groups: u32::try_from(cpus.len()).unwrap_or(0),
        node_cnt: if granted { job.num_nodes } else { 0 },
        node_list: text(Some(job.nodes.as_str()).filter(|_| granted)),
        ntasks_per_board: NO_VAL16 as u16,
        ntasks_per_core: NO_VAL16 as u16,
        ntasks_per_tres: NO_VAL16 as u16,
        ntasks_per_socket: NO_VAL16 as u16,
        partition: text(Some(&job.partition)),
        pn_min_memory: mem,
        qos: text(Some(&job.qos)),
        ..resource_allocation_response_msg_t::default()
    };
    // SAFETY: a checked allocation of one answer, written whole.
    unsafe {
        let out = libc::malloc(size_of::<resource_allocation_response_msg_t>())
            .cast::<resource_allocation_response_msg_t>();
        if out.is_null() {
            let mut r = record;
            free_members(&mut r);
        } else {
            out.write(record);
        }
        out
    }
}

/// Frees what an answer holds.
///
/// # Safety
/// Its pointers are NULL or the C allocator's.
unsafe fn free_members(r: &mut resource_allocation_response_msg_t) {
    // SAFETY: as the caller promises.
    unsafe {
        for s in [
            r.account,
            r.alias_list,
            r.batch_host,
            r.job_submit_user_msg,
            r.node_list,
            r.partition,
            r.qos,
            r.resv_name,
        ] {
            libc::free(s.cast());
        }
        libc::free(r.cpus_per_node.cast());
        libc::free(r.cpu_count_reps.cast());
        libc::free(r.node_addr.cast());
        if !r.environment.is_null() {
            for i in 0..r.env_size as usize {
                libc::free((*r.environment.add(i)).cast());
            }
            libc::free(r.environment.cast());
        }
    }
}

/// The job `id`, as the controller lists it.
fn job(id: u32) -> Result<JobInfo, RequestError> {
    Process
        .jobs(vec![id], JobFields::ALL, false)?
        .items
        .into_iter()
        .find(|j| j.job_id == id)
        .ok_or_else(|| RequestError::Refused(ErrorCode::InvalidJobId.into()))
}

/// Submits the allocation `desc` describes; its id.
///
/// # Safety
/// `desc` is a description as `slurm.h` documents it.
unsafe fn ask(desc: &job_desc_msg_t) -> Result<u32, RequestError> {
    // SAFETY: as the caller promises.
    let fields = unsafe { read_request(desc) };
    let job = fields
        .job_desc(Request::Allocation)
        .map_err(RequestError::Refused)?;
    Ok(Process.submit(job)?.job_id)
}

/// `slurm_allocate_resources`: asks for an allocation; `*resp` holds its
/// id, and its nodes if it was granted at once (`node_cnt` 0 if not).
///
/// # Safety
/// `desc` is NULL or a description; `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_resources(
    desc: *mut job_desc_msg_t,
    resp: *mut *mut resource_allocation_response_msg_t,
) -> c_int {
    // SAFETY: as the caller promises.
    let Some(desc) = (unsafe { desc.as_ref() }) else {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    };
    if resp.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    guarded(|| {
        // SAFETY: the caller's description.
        let answer = unsafe { ask(desc) }.and_then(job);
        match answer {
            Ok(j) => {
                // SAFETY: the caller's pointer.
                unsafe { *resp = response(&j) };
                SLURM_SUCCESS as c_int
            }
            Err(e) => refused(&e),
        }
    })
}

/// `slurm_allocate_resources_blocking`: asks for an allocation and waits
/// until it is granted (calling `pending_callback` once with its id if it
/// has to wait), at most `timeout` seconds (0: as long as it takes). On
/// timeout the request is withdrawn (NULL, errno ETIMEDOUT); if the job
/// ends before it is granted, NULL with errno ESLURM_ALREADY_DONE.
///
/// # Safety
/// `desc` is NULL or a description.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_resources_blocking(
    desc: *const job_desc_msg_t,
    timeout: time_t,
    pending_callback: Option<unsafe extern "C" fn(job_id: u32)>,
) -> *mut resource_allocation_response_msg_t {
    // SAFETY: as the caller promises.
    let Some(desc) = (unsafe { desc.as_ref() }) else {
        set_errno(libc::EINVAL);
        return std::ptr::null_mut();
    };
    // SAFETY: the caller's description.
    guarded(|| unsafe { wait_for_grant(desc, timeout, pending_callback) })
}

/// What `slurm_allocate_resources_blocking` does.
///
/// # Safety
/// `desc` is a description.
unsafe fn wait_for_grant(
    desc: &job_desc_msg_t,
    timeout: time_t,
    pending_callback: Option<unsafe extern "C" fn(job_id: u32)>,
) -> *mut resource_allocation_response_msg_t {
    // SAFETY: as the caller promises.
    let id = match unsafe { ask(desc) } {
        Ok(id) => id,
        Err(e) => {
            refused(&e);
            return std::ptr::null_mut();
        }
    };
    let deadline = u64::try_from(timeout)
        .ok()
        .filter(|&t| t > 0)
        .map(|t| Instant::now() + Duration::from_secs(t));
    let mut told = false;
    loop {
        match job(id) {
            Ok(j) if j.state == JobStateName::Running => return response(&j),
            Ok(j) if j.state == JobStateName::Pending => {}
            Ok(_) => {
                set_errno(ESLURM_ALREADY_DONE as c_int);
                return std::ptr::null_mut();
            }
            Err(RequestError::Refused(e)) if e.code == ErrorCode::InvalidJobId => {
                set_errno(ESLURM_ALREADY_DONE as c_int);
                return std::ptr::null_mut();
            }
            // The controller out of reach for a moment: ask again.
            Err(_) => {}
        }
        if !told {
            told = true;
            if let Some(callback) = pending_callback {
                // SAFETY: the caller's callback, with the job's id.
                unsafe { callback(id) };
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            let _ = Process.release_allocation(id, 1, 0);
            set_errno(libc::ETIMEDOUT);
            return std::ptr::null_mut();
        }
        std::thread::sleep(POLL);
    }
}

/// `slurm_allocation_lookup`: a granted allocation's nodes and CPUs
/// (ESLURM_INVALID_JOB_ID for a job that does not run).
///
/// # Safety
/// `resp` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocation_lookup(
    job_id: u32,
    resp: *mut *mut resource_allocation_response_msg_t,
) -> c_int {
    if resp.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    guarded(|| match job(job_id) {
        Ok(j) if j.state == JobStateName::Running => {
            // SAFETY: the caller's pointer.
            unsafe { *resp = response(&j) };
            SLURM_SUCCESS as c_int
        }
        Ok(_) => {
            set_errno(ESLURM_INVALID_JOB_ID as c_int);
            SLURM_ERROR
        }
        Err(e) => refused(&e),
    })
}

/// `slurm_complete_job`: gives an allocation back (or withdraws a pending
/// request), ended with wait status `job_rc`.
#[no_mangle]
pub extern "C" fn slurm_complete_job(job_id: u32, job_rc: u32) -> c_int {
    guarded(|| {
        let (code, signal) = ((job_rc >> 8) & 0xff, job_rc & 0x7f);
        match Process.release_allocation(job_id, code as i32, signal as i32) {
            Ok(()) => SLURM_SUCCESS as c_int,
            Err(e) => refused(&e),
        }
    })
}

/// `slurm_free_resource_allocation_response_msg`.
///
/// # Safety
/// `msg` is NULL or an answer of this library's, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_resource_allocation_response_msg(
    msg: *mut resource_allocation_response_msg_t,
) {
    // SAFETY: as the caller promises.
    if let Some(r) = unsafe { msg.as_mut() } {
        // SAFETY: an answer made by `response`.
        unsafe {
            free_members(r);
            libc::free(msg.cast());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_per_node_are_run_length_coded() {
        assert_eq!(groups(&[4, 4, 8, 4]), [(4, 2), (8, 1), (4, 1)]);
        assert!(groups(&[]).is_empty());
    }
}
