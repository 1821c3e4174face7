//! The records as text: `slurm_sprint_job_info`, `slurm_sprint_node_table`,
//! `slurm_sprint_partition_info` and their `slurm_print_*` forms, with the
//! text `scontrol show` prints (spur-report's renderers, the ones scontrol
//! uses). A record is read back from its C struct, so what is printed is
//! what the record says, whether this library loaded it or the caller
//! filled it (the Perl module rebuilds records from its hashes).

use std::ffi::CString;
use std::os::raw::{c_char, c_int};

use spur_report::show::job::render_job;
use spur_report::show::node::{render_node, render_partition_with_tres, NodeView};
use spur_report::show::ShowOpts;
use spur_slurm::locale::Locale;

use crate::bindings::{
    job_info, job_info_msg_t, node_info, node_info_msg_t, partition_info, partition_info_msg_t,
    time_t, FILE,
};
use crate::call::{guarded, now};
use crate::jobs::job_of;
use crate::memory::c_string;
use crate::nodes::{node_of, partition_of};

fn locale() -> Locale {
    Locale::local(spur_sys::users::name_of)
}

fn opts(one_liner: c_int) -> ShowOpts {
    ShowOpts {
        one_liner: one_liner != 0,
        details: false,
    }
}

/// Writes `text` to the caller's stream.
///
/// # Safety
/// `out` is NULL or an open stream.
pub(crate) unsafe fn write(out: *mut FILE, text: &str) {
    if out.is_null() {
        return;
    }
    let Ok(text) = CString::new(text) else {
        return;
    };
    // SAFETY: an open stream and a NUL-terminated string.
    unsafe { libc::fputs(text.as_ptr(), out.cast::<libc::FILE>()) };
}

/// `<What> data as of <time>, record count <n>`, as the `*_msg` print
/// functions begin.
pub(crate) fn header(what: &str, last_update: time_t, count: u32) -> String {
    let when = locale().time_or_unknown(u64::try_from(last_update).unwrap_or(0));
    format!("{what} data as of {when}, record count {count}\n")
}

/// The records of a message, as a slice.
///
/// # Safety
/// `array` is NULL or holds `count` records.
unsafe fn records<'a, T>(array: *const T, count: u32) -> &'a [T] {
    if array.is_null() {
        &[]
    } else {
        // SAFETY: as the caller promises.
        unsafe { std::slice::from_raw_parts(array, count as usize) }
    }
}

// ---- jobs ----

/// A job record's text.
///
/// # Safety
/// `job` is a record whose strings are NULL or NUL-terminated.
unsafe fn job_text(job: &job_info, one_liner: c_int) -> String {
    // SAFETY: as the caller promises.
    let job = unsafe { job_of(job) };
    render_job(&job, now(), opts(one_liner), None, &locale())
}

/// `slurm_sprint_job_info`: the record as `scontrol show job` prints it,
/// the caller's to free.
///
/// # Safety
/// `job` is NULL or a job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_job_info(
    job: *mut job_info,
    one_liner: c_int,
) -> *mut c_char {
    // SAFETY: as the caller promises.
    let Some(job) = (unsafe { job.as_ref() }) else {
        return std::ptr::null_mut();
    };
    // SAFETY: as the caller promises.
    guarded(|| c_string(&unsafe { job_text(job, one_liner) }))
}

/// `slurm_print_job_info`: the record's text on `out`.
///
/// # Safety
/// `out` is NULL or an open stream; `job` is NULL or a job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_info(
    out: *mut FILE,
    job: *mut job_info,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    if let Some(job) = unsafe { job.as_ref() } {
        // SAFETY: as the caller promises.
        guarded(|| unsafe { write(out, &job_text(job, one_liner)) });
    }
}

/// `slurm_print_job_info_msg`: a header line, then each record.
///
/// # Safety
/// `out` is NULL or an open stream; `msg` is NULL or a loaded message.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_info_msg(
    out: *mut FILE,
    msg: *mut job_info_msg_t,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    let Some(msg) = (unsafe { msg.as_ref() }) else {
        return;
    };
    guarded(|| {
        let mut text = header("Job", msg.last_update, msg.record_count);
        // SAFETY: a message's records.
        for job in unsafe { records(msg.job_array, msg.record_count) } {
            // SAFETY: as above.
            text.push_str(&unsafe { job_text(job, one_liner) });
        }
        // SAFETY: as the caller promises.
        unsafe { write(out, &text) }
    })
}

// ---- nodes ----

/// A node record's text.
///
/// # Safety
/// `node` is a node record.
unsafe fn node_text(node: &node_info, one_liner: c_int) -> String {
    // SAFETY: as the caller promises.
    let node = unsafe { node_of(node) };
    let slurmd_port = spur_client::with_conf(|c, _| c.slurmd_port).unwrap_or(6818);
    let locale = locale();
    let view = NodeView {
        slurmd_port,
        locale: &locale,
    };
    render_node(&node, opts(one_liner), view)
}

/// `slurm_sprint_node_table`: the record as `scontrol show node` prints
/// it, the caller's to free.
///
/// # Safety
/// `node` is NULL or a node record.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_node_table(
    node: *mut node_info,
    one_liner: c_int,
) -> *mut c_char {
    // SAFETY: as the caller promises.
    let Some(node) = (unsafe { node.as_ref() }) else {
        return std::ptr::null_mut();
    };
    // SAFETY: as the caller promises.
    guarded(|| c_string(&unsafe { node_text(node, one_liner) }))
}

/// `slurm_print_node_table`: the record's text on `out`.
///
/// # Safety
/// `out` is NULL or an open stream; `node` is NULL or a node record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_node_table(
    out: *mut FILE,
    node: *mut node_info,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    if let Some(node) = unsafe { node.as_ref() } {
        // SAFETY: as the caller promises.
        guarded(|| unsafe { write(out, &node_text(node, one_liner)) });
    }
}

/// `slurm_print_node_info_msg`: a header line, then each named record.
///
/// # Safety
/// `out` is NULL or an open stream; `msg` is NULL or a loaded message.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_node_info_msg(
    out: *mut FILE,
    msg: *mut node_info_msg_t,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    let Some(msg) = (unsafe { msg.as_ref() }) else {
        return;
    };
    guarded(|| {
        let mut text = header("Node", msg.last_update, msg.record_count);
        // SAFETY: a message's records.
        for node in unsafe { records(msg.node_array, msg.record_count) } {
            if !node.name.is_null() {
                // SAFETY: as above.
                text.push_str(&unsafe { node_text(node, one_liner) });
            }
        }
        // SAFETY: as the caller promises.
        unsafe { write(out, &text) }
    })
}

// ---- partitions ----

/// A partition record's text.
///
/// # Safety
/// `part` is a partition record.
unsafe fn partition_text(part: &partition_info, one_liner: c_int) -> String {
    // SAFETY: as the caller promises.
    let (part, tres) = unsafe { partition_of(part) };
    render_partition_with_tres(&part, &tres, opts(one_liner))
}

/// `slurm_sprint_partition_info`: the record as `scontrol show
/// partition` prints it, the caller's to free.
///
/// # Safety
/// `part` is NULL or a partition record.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_partition_info(
    part: *mut partition_info,
    one_liner: c_int,
) -> *mut c_char {
    // SAFETY: as the caller promises.
    let Some(part) = (unsafe { part.as_ref() }) else {
        return std::ptr::null_mut();
    };
    // SAFETY: as the caller promises.
    guarded(|| c_string(&unsafe { partition_text(part, one_liner) }))
}

/// `slurm_print_partition_info`: the record's text on `out`.
///
/// # Safety
/// `out` is NULL or an open stream; `part` is NULL or a partition record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_partition_info(
    out: *mut FILE,
    part: *mut partition_info,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    if let Some(part) = unsafe { part.as_ref() } {
        // SAFETY: as the caller promises.
        guarded(|| unsafe { write(out, &partition_text(part, one_liner)) });
    }
}

/// `slurm_print_partition_info_msg`: a header line, then each record.
///
/// # Safety
/// `out` is NULL or an open stream; `msg` is NULL or a loaded message.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_partition_info_msg(
    out: *mut FILE,
    msg: *mut partition_info_msg_t,
    one_liner: c_int,
) {
    // SAFETY: as the caller promises.
    let Some(msg) = (unsafe { msg.as_ref() }) else {
        return;
    };
    guarded(|| {
        let mut text = header("Partition", msg.last_update, msg.record_count);
        // SAFETY: a message's records.
        for part in unsafe { records(msg.partition_array, msg.record_count) } {
            // SAFETY: as above.
            text.push_str(&unsafe { partition_text(part, one_liner) });
        }
        // SAFETY: as the caller promises.
        unsafe { write(out, &text) }
    })
}
