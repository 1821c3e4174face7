//! Slurm's words for job states and reasons (`slurm_job_state_string`,
//! `slurm_job_state_string_compact`, `slurm_job_state_num`,
//! `slurm_job_reason_string`), from spur-slurm's recorded vocabulary.
//! Not in `slurm.h`; the Perl module and pyslurm call them.

use std::ffi::CStr;
use std::os::raw::c_char;

use spur_slurm::job_state::{reason_text, state_compact, state_name, state_number};

use crate::bindings::NO_VAL;
use crate::call::{c_scratch, c_static, guarded};

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
