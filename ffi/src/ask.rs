//! Questions about one job that programs ask libslurm, answered from the
//! controller's listing: `slurm_xlate_job_id` (`N`, `N_i`, `N+o` to a job
//! id), `slurm_get_end_time`, `slurm_get_rem_time`,
//! `slurm_job_node_ready`, and, of a job record, `slurm_get_job_stdout` /
//! `_stderr` / `_stdin` (its file names).

use std::os::raw::{c_char, c_int, c_long};

use spur_client::{Api, Process};
use spur_proto::{JobFields, JobInfo, JobStateName};

use crate::bindings::{job_info, time_t, ESLURM_INVALID_JOB_ID, SLURM_ERROR, SLURM_SUCCESS};
use crate::call::{guarded, now, set_errno};
use crate::memory::snprintf;
use crate::nodes::{read, read_opt};

/// READY_NODE_STATE | READY_JOB_STATE | READY_PROLOG_STATE: a running
/// job whose nodes are up and whose prolog (spur runs none in the
/// controller) is done.
const READY: c_int = 0b111;
/// READY_JOB_ERROR.
const READY_JOB_ERROR: c_int = -1;
/// READY_JOB_FATAL.
const READY_JOB_FATAL: c_int = -2;

/// The job `id` (0: `SLURM_JOB_ID`'s, as Slurm's library reads it).
fn job(id: u32) -> Result<JobInfo, c_int> {
    let id = if id == 0 {
        std::env::var("SLURM_JOB_ID")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    } else {
        id
    };
    match Process.jobs(vec![id], JobFields::ALL, false) {
        Ok(listing) => listing
            .items
            .into_iter()
            .find(|j| j.job_id == id)
            .ok_or(ESLURM_INVALID_JOB_ID as c_int),
        Err(e) => Err(e.errno()),
    }
}

/// `slurm_xlate_job_id`: the job id `N`, `N_i` (the array task's own
/// id) or `N+o` names; 0 if none.
///
/// # Safety
/// `text` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_xlate_job_id(text: *mut c_char) -> u32 {
    // SAFETY: as the caller promises.
    let Some(text) = (unsafe { read_opt(text) }) else {
        return 0;
    };
    guarded(|| Process.xlate_job_id(&text).unwrap_or(0))
}

/// `slurm_get_end_time`: when job `id` (0: `SLURM_JOB_ID`'s) ends or
/// ended, into `*end`.
///
/// # Safety
/// `end` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_end_time(id: u32, end: *mut time_t) -> c_int {
    if end.is_null() {
        set_errno(libc::EINVAL);
        return SLURM_ERROR;
    }
    guarded(|| match job(id) {
        Ok(j) => {
            // SAFETY: the caller's pointer.
            unsafe { *end = j.end_time.map_or(0, |t| time_t::try_from(t).unwrap_or(0)) };
            SLURM_SUCCESS as c_int
        }
        Err(errno) => {
            set_errno(errno);
            SLURM_ERROR
        }
    })
}

/// `slurm_get_rem_time`: seconds until job `id` ends (0 once past), -1 on
/// error.
#[no_mangle]
pub extern "C" fn slurm_get_rem_time(id: u32) -> c_long {
    let mut end: time_t = 0;
    // SAFETY: a local time to write.
    if unsafe { slurm_get_end_time(id, &mut end) } != SLURM_SUCCESS as c_int {
        return -1;
    }
    let now = time_t::try_from(now()).unwrap_or(0);
    (end - now).max(0)
}

/// `slurm_job_node_ready`: READY_NODE_STATE | READY_JOB_STATE |
/// READY_PROLOG_STATE for a running job, 0 for one not running yet (or no
/// more), READY_JOB_FATAL for a job spur does not know.
#[no_mangle]
pub extern "C" fn slurm_job_node_ready(id: u32) -> c_int {
    guarded(|| match job(id) {
        Ok(j) if j.state == JobStateName::Running => READY,
        Ok(_) => 0,
        Err(errno) if errno == ESLURM_INVALID_JOB_ID as c_int => READY_JOB_FATAL,
        Err(_) => READY_JOB_ERROR,
    })
}

/// Which file of a job.
#[derive(Clone, Copy, PartialEq, Eq)]
enum File {
    Out,
    Err,
    In,
}

/// A job record's file, as Slurm's library works it out: the record's
/// name (under the working directory when relative), else what Slurm
/// uses when none was given.
///
/// # Safety
/// `r`'s strings are NULL or NUL-terminated.
unsafe fn file_name(r: &job_info, file: File) -> String {
    // SAFETY: as the caller promises.
    let (out, err, input, work_dir) = unsafe {
        (
            read_opt(r.std_out),
            read_opt(r.std_err),
            read_opt(r.std_in),
            read(r.work_dir),
        )
    };
    let given = match file {
        File::Out => out,
        File::Err => err.or(out),
        File::In => input,
    };
    match given {
        Some(p) if p.starts_with('/') => p,
        Some(p) => format!("{work_dir}/{p}"),
        None if r.batch_flag == 0 => String::new(),
        None if file == File::In => "/dev/null".to_string(),
        None if r.array_job_id != 0 => {
            format!(
                "{work_dir}/slurm-{}_{}.out",
                r.array_job_id, r.array_task_id
            )
        }
        None => format!("{work_dir}/slurm-{}.out", r.job_id),
    }
}

/// Writes a job record's file name into the caller's buffer.
///
/// # Safety
/// `buf` is NULL or holds `size` bytes; `job` is NULL or a job record.
unsafe fn write_file_name(buf: *mut c_char, size: c_int, job: *const job_info, file: File) {
    // SAFETY: as the caller promises.
    let text = match unsafe { job.as_ref() } {
        // SAFETY: a job record.
        Some(r) => guarded(|| unsafe { file_name(r, file) }),
        None => "job pointer is NULL".to_string(),
    };
    // SAFETY: as the caller promises.
    unsafe { snprintf(&text, buf, size) }
}

/// `slurm_get_job_stdout`: where the job writes its output.
///
/// # Safety
/// `buf` is NULL or holds `size` bytes; `job` is NULL or a job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stdout(buf: *mut c_char, size: c_int, job: *mut job_info) {
    // SAFETY: as the caller promises.
    unsafe { write_file_name(buf, size, job, File::Out) }
}

/// `slurm_get_job_stderr`: where the job writes its errors (its output's
/// file unless it has its own).
///
/// # Safety
/// `buf` is NULL or holds `size` bytes; `job` is NULL or a job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stderr(buf: *mut c_char, size: c_int, job: *mut job_info) {
    // SAFETY: as the caller promises.
    unsafe { write_file_name(buf, size, job, File::Err) }
}

/// `slurm_get_job_stdin`: what the job reads as its input.
///
/// # Safety
/// `buf` is NULL or holds `size` bytes; `job` is NULL or a job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stdin(buf: *mut c_char, size: c_int, job: *mut job_info) {
    // SAFETY: as the caller promises.
    unsafe { write_file_name(buf, size, job, File::In) }
}
