//! libslurm's statistics calls, `slurm_get_statistics` and
//! `slurm_reset_statistics`: the controller's counters (what sdiag prints)
//! in slurmctld's `stats_info_response_msg_t`, its arrays the C
//! allocator's, for `slurm_free_stats_response_msg` to free.

use std::os::raw::c_int;

use spur_client::{Api, Process};
use spur_proto::Stats;

use crate::bindings::{
    stats_info_request_msg_t, stats_info_response_msg_t, time_t, SLURM_ERROR, SLURM_SUCCESS,
    STAT_COMMAND_RESET,
};
use crate::call::{guarded, hand_out, refused, set_errno};
use crate::memory::{c_records, slurm_free_stats_response_msg};

/// `slurm_get_statistics`: the counters into `*buf`; with `req`'s command
/// STAT_COMMAND_RESET, begun again first (operators only). slurmctld
/// answers a reset with an empty message; this gives the counters as they
/// stand after it.
///
/// # Safety
/// `buf` is writable; `req` is NULL (a plain get) or readable.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_statistics(
    buf: *mut *mut stats_info_response_msg_t,
    req: *mut stats_info_request_msg_t,
) -> c_int {
    guarded(|| {
        if buf.is_null() {
            set_errno(libc::EINVAL);
            return SLURM_ERROR;
        }
        // SAFETY: as the caller promises.
        if unsafe { is_reset(req) } {
            if let Err(e) = Process.reset_diag() {
                return refused(&e);
            }
        }
        match Process.diag() {
            // SAFETY: `buf` is writable, as the caller promises.
            Ok(stats) => unsafe { hand_out(buf, c_stats(&stats)) },
            Err(e) => refused(&e),
        }
    })
}

/// `slurm_reset_statistics`: with `req`'s command STAT_COMMAND_RESET (as
/// sdiag -r sends it), the counters begin again (operators only; others
/// get ESLURM_ACCESS_DENIED); any other command is a read that changes
/// nothing, as slurmctld answers it.
///
/// # Safety
/// `req` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn slurm_reset_statistics(req: *mut stats_info_request_msg_t) -> c_int {
    guarded(|| {
        // SAFETY: as the caller promises.
        let reset = unsafe { is_reset(req) };
        let done = if reset {
            Process.reset_diag()
        } else {
            Process.diag().map(drop)
        };
        match done {
            Ok(()) => SLURM_SUCCESS as c_int,
            Err(e) => refused(&e),
        }
    })
}

/// Whether `req` asks for a reset.
///
/// # Safety
/// `req` is NULL or readable.
unsafe fn is_reset(req: *const stats_info_request_msg_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { req.as_ref() }.is_some_and(|r| u32::from(r.command_id) == STAT_COMMAND_RESET)
}

/// A 64-bit counter in one of the answer's 32-bit fields, held at the
/// largest where it would not fit.
fn narrow(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn time(t: u64) -> time_t {
    time_t::try_from(t).unwrap_or(time_t::MAX)
}

/// `stats` as a message of the C allocator's; NULL if memory ran out.
fn c_stats(stats: &Stats) -> *mut stats_info_response_msg_t {
    // SAFETY: a zeroed message (plain data, valid zeroed) of the C
    // allocator's, filled in here and handed out whole or freed whole.
    unsafe {
        let msg = libc::calloc(1, size_of::<stats_info_response_msg_t>())
            .cast::<stats_info_response_msg_t>();
        if msg.is_null() {
            return msg;
        }
        let m = &mut *msg;
        let (s, sched, bf) = (stats, &stats.sched, &stats.backfill);
        m.parts_packed = 1;
        m.req_time = time(s.now);
        m.req_time_start = time(s.since);
        m.server_thread_count = s.server_threads;
        m.agent_queue_size = s.agent_queue;
        m.agent_count = s.agents;
        m.gettimeofday_latency = narrow(s.clock_latency_us);
        m.schedule_cycle_max = narrow(sched.max_us);
        m.schedule_cycle_last = narrow(sched.last_us);
        m.schedule_cycle_sum = narrow(sched.sum_us);
        m.schedule_cycle_counter = sched.cycles;
        m.schedule_cycle_depth = narrow(sched.depth_sum);
        m.schedule_queue_len = sched.last_queue_len;
        m.jobs_submitted = s.jobs_submitted;
        m.jobs_started = s.jobs_started;
        m.jobs_completed = s.jobs_completed;
        m.jobs_canceled = s.jobs_canceled;
        m.jobs_failed = s.jobs_failed;
        m.jobs_pending = s.jobs_pending;
        m.jobs_running = s.jobs_running;
        m.job_states_ts = time(s.now);
        m.bf_backfilled_jobs = bf.jobs_total;
        m.bf_last_backfilled_jobs = bf.jobs;
        m.bf_cycle_counter = bf.cycles;
        m.bf_cycle_sum = bf.sum_us;
        m.bf_cycle_last = narrow(bf.last_us);
        m.bf_cycle_max = narrow(bf.max_us);
        m.bf_last_depth = bf.last_depth;
        m.bf_last_depth_try = bf.last_depth_try;
        m.bf_depth_sum = narrow(bf.depth_sum);
        m.bf_depth_try_sum = narrow(bf.depth_try_sum);
        m.bf_queue_len = bf.queue_len;
        m.bf_queue_len_sum = narrow(bf.queue_len_sum);
        m.bf_table_size = bf.table_size;
        m.bf_table_size_sum = narrow(bf.table_size_sum);
        m.bf_when_last_cycle = time(bf.last_when);
        m.rpc_type_size = narrow(s.by_type.len() as u64);
        m.rpc_type_id = c_records(&s.by_type, |r| r.type_id);
        m.rpc_type_cnt = c_records(&s.by_type, |r| r.count);
        m.rpc_type_time = c_records(&s.by_type, |r| r.total_us);
        m.rpc_user_size = narrow(s.by_user.len() as u64);
        m.rpc_user_id = c_records(&s.by_user, |u| u.uid);
        m.rpc_user_cnt = c_records(&s.by_user, |u| u.count);
        m.rpc_user_time = c_records(&s.by_user, |u| u.total_us);
        let arrays = [
            m.rpc_type_id.is_null(),
            m.rpc_type_cnt.is_null(),
            m.rpc_type_time.is_null(),
            m.rpc_user_id.is_null(),
            m.rpc_user_cnt.is_null(),
            m.rpc_user_time.is_null(),
        ];
        if arrays.contains(&true) {
            slurm_free_stats_response_msg(msg);
            return std::ptr::null_mut();
        }
        msg
    }
}
