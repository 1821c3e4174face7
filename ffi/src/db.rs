//! The accounting database's client side (`slurmdb.h`). spur keeps its
//! accounting in its own history (what sacct reads), not in slurmdbd, so
//! the calls that would reach a database answer "not supported"
//! ([`crate::absent`]); the helpers around them that pyslurm imports
//! (not declared in the installed headers) work as Slurm's: a new job
//! record, a TRES count from a TRES string, and the default time window
//! of a query or report; and the exported `working_cluster_rec`.

use std::cell::UnsafeCell;
use std::os::raw::{c_char, c_int};

use crate::bindings::{
    slurmdb_cluster_rec_t, slurmdb_job_cond_t, slurmdb_job_rec_t, time_t, JOB_PENDING, NO_VAL,
    SLURM_ERROR, SLURM_SUCCESS,
};
use crate::call::guarded;
use crate::nodes::read_opt;

/// `working_cluster_rec`: the cluster a command was pointed at with
/// `-M`, which libslurm exports for its callers to read and set. spur
/// runs one cluster: it stays NULL unless a caller sets it.
#[repr(transparent)]
pub struct WorkingCluster(UnsafeCell<*mut slurmdb_cluster_rec_t>);

// SAFETY: as Slurm's own global: the library never writes it, callers
// that set it do so before the calls that read it.
unsafe impl Sync for WorkingCluster {}

/// `working_cluster_rec`.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static working_cluster_rec: WorkingCluster =
    WorkingCluster(UnsafeCell::new(std::ptr::null_mut()));

/// JOBCOND_FLAG_RUNAWAY.
const JOBCOND_FLAG_RUNAWAY: u32 = 1 << 3;
/// JOBCOND_FLAG_NO_DEFAULT_USAGE.
const JOBCOND_FLAG_NO_DEFAULT_USAGE: u32 = 1 << 7;
/// INFINITE64.
const INFINITE64: u64 = u64::MAX;

/// `slurmdb_create_job_rec`: a job record as Slurm starts one (pending,
/// ids unset, an empty list of steps), the C allocator's.
#[no_mangle]
pub extern "C" fn slurmdb_create_job_rec() -> *mut slurmdb_job_rec_t {
    guarded(|| {
        // SAFETY: a zeroed, checked allocation of one record.
        unsafe {
            let job = libc::calloc(1, size_of::<slurmdb_job_rec_t>()).cast::<slurmdb_job_rec_t>();
            if let Some(j) = job.as_mut() {
                j.array_task_id = NO_VAL;
                j.derived_ec = NO_VAL;
                j.state = JOB_PENDING;
                j.steps = crate::list::new_list(None);
                j.requid = u32::MAX;
                j.lft = NO_VAL;
                j.resvid = NO_VAL;
            }
            job
        }
    })
}

/// The count of TRES `id` in a `1=4,2=8000` string; INFINITE64 if absent.
pub fn tres_count(tres: &str, id: i64) -> u64 {
    tres.split(',')
        .filter_map(|item| item.split_once('='))
        .find(|(key, _)| spur_conf::number::strtol_or_zero(key).0 == id)
        .map_or(INFINITE64, |(_, count)| {
            let digits = count.len() - count.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            count[..digits].parse().unwrap_or(0)
        })
}

/// `slurmdb_find_tres_count_in_string`.
///
/// # Safety
/// `tres` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_find_tres_count_in_string(tres: *mut c_char, id: c_int) -> u64 {
    // SAFETY: as the caller promises.
    let tres = unsafe { read_opt(tres) }.unwrap_or_default();
    guarded(|| tres_count(&tres, id.into()))
}

fn now() -> time_t {
    time_t::try_from(crate::call::now()).unwrap_or(0)
}

fn local(t: time_t) -> libc::tm {
    spur_slurm::time::local(t)
}

fn mktime(mut tm: libc::tm) -> time_t {
    tm.tm_isdst = -1;
    // SAFETY: a valid broken-down time.
    unsafe { libc::mktime(&mut tm) }
}

/// `slurmdb_job_cond_def_start_end`: a job query's default window, as
/// sacct's: since midnight (or since now for a state query) until now.
///
/// # Safety
/// `cond` is NULL or a job query whose lists are NULL or this library's.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_job_cond_def_start_end(cond: *mut slurmdb_job_cond_t) {
    // SAFETY: as the caller promises.
    let Some(c) = (unsafe { cond.as_mut() }) else {
        return;
    };
    if c.flags & (JOBCOND_FLAG_RUNAWAY | JOBCOND_FLAG_NO_DEFAULT_USAGE) != 0 {
        return;
    }
    // SAFETY: the lists are NULL or this library's.
    let count = |l| unsafe { crate::list::slurm_list_count(l) };
    let now = now();
    let steps = count(c.step_list) > 0;
    if count(c.state_list) > 0 {
        if c.usage_start == 0 && !steps {
            c.usage_start = now;
        }
        if c.usage_start != 0 && c.usage_end == 0 {
            c.usage_end = c.usage_start;
        }
    } else if !steps && c.usage_start == 0 {
        let mut tm = local(now);
        (tm.tm_sec, tm.tm_min, tm.tm_hour) = (0, 0, 0);
        c.usage_start = mktime(tm);
    }
    if c.usage_end == 0 {
        c.usage_end = now;
    }
}

/// Rounds a broken-down time to its nearest hour, as sreport does.
fn nearest_hour(mut tm: libc::tm) -> libc::tm {
    if tm.tm_sec >= 30 {
        tm.tm_min += 1;
    }
    if tm.tm_min >= 30 {
        tm.tm_hour += 1;
    }
    tm
}

/// `slurmdb_report_set_start_end_time`: a report's window on whole hours,
/// yesterday by default, at least an hour long.
///
/// # Safety
/// `start` and `end` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_set_start_end_time(
    start: *mut time_t,
    end: *mut time_t,
) -> c_int {
    // SAFETY: as the caller promises.
    let (Some(start), Some(end)) = (unsafe { start.as_mut() }, unsafe { end.as_mut() }) else {
        return SLURM_ERROR;
    };
    let now = now();
    let mut end_tm = if *end == 0 {
        let mut tm = local(now);
        tm.tm_hour = 0;
        tm
    } else {
        nearest_hour(local(*end))
    };
    (end_tm.tm_sec, end_tm.tm_min) = (0, 0);
    *end = mktime(end_tm);
    let mut start_tm = if *start == 0 {
        let mut tm = local(now);
        tm.tm_hour = 0;
        tm.tm_mday -= 1;
        tm
    } else {
        nearest_hour(local(*start))
    };
    (start_tm.tm_sec, start_tm.tm_min) = (0, 0);
    *start = mktime(start_tm);
    if *end - *start < 3600 {
        *end = *start + 3600;
    }
    SLURM_SUCCESS as c_int
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_counts_are_found_by_id() {
        assert_eq!(tres_count("1=4,2=8000,1001=2", 2), 8000);
        assert_eq!(tres_count("1=4,2=8000,1001=2", 1001), 2);
        assert_eq!(tres_count("1=4", 5), INFINITE64);
        assert_eq!(tres_count("", 1), INFINITE64);
    }

    #[test]
    fn a_report_window_is_whole_hours_and_at_least_one() {
        let (mut start, mut end): (time_t, time_t) = (1_800_000_000, 1_800_000_100);
        // SAFETY: two writable times.
        assert_eq!(
            unsafe { slurmdb_report_set_start_end_time(&mut start, &mut end) },
            SLURM_SUCCESS as c_int
        );
        assert_eq!(start % 60, 0);
        assert_eq!(end - start, 3600);
    }
}
