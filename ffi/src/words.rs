//! Slurm's words for job and node states, job reasons, preemption modes
//! and flag sets (`slurm_job_state_string`, `slurm_node_state_string`,
//! `slurm_preempt_mode_string`, `slurm_private_data_string`, ...), from
//! spur-slurm's vocabulary. Not in `slurm.h`; the Perl module and pyslurm
//! call them.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use spur_slurm::job_state::{reason_text, state_compact, state_name, state_number};
use spur_slurm::{flags, node_state};

use crate::bindings::{reserve_info_t, NO_VAL};
use crate::call::{c_scratch, c_static, guarded};
use crate::memory::{c_string, snprintf};

/// `slurm_job_state_string`: a state's name with its flags.
#[no_mangle]
pub extern "C" fn slurm_job_state_string(state: u32) -> *mut c_char {
    guarded(|| c_static(state_name(state)))
}

/// `slurm_job_state_string_compact`.
#[no_mangle]
pub extern "C" fn slurm_job_state_string_compact(state: u32) -> *mut c_char {
    guarded(|| c_static(state_compact(state)))
}

/// `slurm_job_state_num`: the state a name names, NO_VAL for none.
///
/// # Safety
/// `name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_state_num(name: *const c_char) -> u32 {
    if name.is_null() {
        return NO_VAL;
    }
    // SAFETY: as the caller promises.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    guarded(|| state_number(&name).unwrap_or(NO_VAL))
}

/// `slurm_job_reason_string`: a reason's word; a number Slurm 22.05 does
/// not know is written as the number, in this thread's buffer.
#[no_mangle]
pub extern "C" fn slurm_job_reason_string(reason: u32) -> *mut c_char {
    guarded(|| match reason_text(reason) {
        Some(word) => c_static(word),
        None => c_scratch(reason.to_string()),
    })
}

/// `slurm_node_state_string`: `IDLE`, `DRAINING`, `ALLOCATED+`, `DOWN*`.
#[no_mangle]
pub extern "C" fn slurm_node_state_string(state: u32) -> *mut c_char {
    guarded(|| c_static(&node_state::long_name(state)))
}

/// `slurm_node_state_string_compact`: `IDLE`, `DRNG`, `ALLOC+`, `DOWN*`.
#[no_mangle]
pub extern "C" fn slurm_node_state_string_compact(state: u32) -> *mut c_char {
    guarded(|| c_static(&node_state::compact_name(state)))
}

/// `slurm_node_state_string_complete`: `MIXED+DRAIN`, the caller's to free.
#[no_mangle]
pub extern "C" fn slurm_node_state_string_complete(state: u32) -> *mut c_char {
    guarded(|| c_string(&node_state::complete_name(state)))
}

/// `slurm_preempt_mode_string`: `OFF`, `GANG,SUSPEND`, ...
#[no_mangle]
pub extern "C" fn slurm_preempt_mode_string(mode: u16) -> *const c_char {
    guarded(|| c_static(flags::preempt_mode_string(mode)).cast_const())
}

/// `slurm_preempt_mode_num`: the mode a comma list names, NO_VAL16 if it
/// names none.
///
/// # Safety
/// `text` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_preempt_mode_num(text: *const c_char) -> u16 {
    // SAFETY: as the caller promises.
    let text = (!text.is_null()).then(|| unsafe { CStr::from_ptr(text) }.to_string_lossy());
    guarded(|| flags::preempt_mode_num(text.as_deref()))
}

/// Writes `text` into the caller's buffer of `len` bytes, as Slurm's
/// functions that take one do: an empty string when `len` is below
/// `needed`.
///
/// # Safety
/// `buf` is NULL or holds `len` bytes.
unsafe fn into_buffer(text: &str, buf: *mut c_char, len: c_int, needed: c_int) {
    let text = if len < needed { "" } else { text };
    // SAFETY: as the caller promises.
    unsafe { snprintf(text, buf, len) }
}

/// `slurm_private_data_string`: PrivateData's words into `buf` (at least
/// 69 bytes, as Slurm asks).
///
/// # Safety
/// `buf` is NULL or holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_private_data_string(bits: u16, buf: *mut c_char, len: c_int) {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { into_buffer(&flags::private_data_string(bits), buf, len, 69) })
}

/// `slurm_accounting_enforce_string`: AccountingStorageEnforce's words
/// into `buf` (at least 50 bytes, as Slurm asks).
///
/// # Safety
/// `buf` is NULL or holds `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_accounting_enforce_string(bits: u16, buf: *mut c_char, len: c_int) {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { into_buffer(&flags::accounting_enforce_string(bits), buf, len, 50) })
}

/// `slurm_reservation_flags_string`: a reservation's flags, the caller's
/// to free.
///
/// # Safety
/// `resv` is NULL or a reservation record.
#[no_mangle]
pub unsafe extern "C" fn slurm_reservation_flags_string(
    resv: *const reserve_info_t,
) -> *mut c_char {
    // SAFETY: as the caller promises.
    let Some(resv) = (unsafe { resv.as_ref() }) else {
        return c_string("");
    };
    guarded(|| {
        c_string(&flags::reservation_flags_string(
            resv.flags,
            resv.purge_comp_time,
        ))
    })
}

/// `slurm_job_share_string`: a job's `shared` value (`NO`, `YES`, `USER`,
/// `MCS`, `OK`).
#[no_mangle]
pub extern "C" fn slurm_job_share_string(shared: u16) -> *mut c_char {
    guarded(|| c_static(flags::job_share_string(shared)))
}

/// `slurm_sprint_cpu_bind_type`: the CPU binding's words into `buf`,
/// which (as Slurm's) must hold them all (at most 170 bytes).
///
/// # Safety
/// `buf` is NULL or holds the text.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_cpu_bind_type(buf: *mut c_char, bits: u32) {
    let text = guarded(|| flags::cpu_bind_string(bits));
    // SAFETY: as the caller promises: the buffer holds the words.
    unsafe {
        snprintf(
            &text,
            buf,
            c_int::try_from(text.len() + 1).unwrap_or(c_int::MAX),
        )
    }
}

/// `slurm_step_layout_type_name`: a task distribution's name, the
/// caller's to free.
#[no_mangle]
pub extern "C" fn slurm_step_layout_type_name(dist: u32) -> *mut c_char {
    guarded(|| c_string(&flags::task_dist_name(dist)))
}
