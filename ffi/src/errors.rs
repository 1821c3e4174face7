//! Slurm's error functions: the calling thread's errno (`slurm_get_errno`,
//! `slurm_seterrno`) and its texts (`slurm_strerror`, `slurm_perror`), with
//! the texts Slurm 22.05 gives ([`spur_slurm::errno`]).

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use spur_slurm::errno::text;

use crate::call::{c_static, errno, guarded, set_errno};

/// The text of `number`, as `slurm_strerror` gives it: Slurm's own, else
/// the C library's.
fn c_text(number: c_int) -> *const c_char {
    match text(number) {
        Some(t) => c_static(t),
        // SAFETY: strerror returns a string valid until the next call in
        // this thread, as Slurm's slurm_strerror passes it on.
        None => unsafe { libc::strerror(number) },
    }
}

/// `slurm_strerror`: the text of an error number. The string belongs to
/// the library.
#[no_mangle]
pub extern "C" fn slurm_strerror(errnum: c_int) -> *mut c_char {
    guarded(|| c_text(errnum).cast_mut())
}

/// `slurm_get_errno`: the calling thread's last error.
#[no_mangle]
pub extern "C" fn slurm_get_errno() -> c_int {
    errno()
}

/// `slurm_seterrno`: sets the calling thread's error.
#[no_mangle]
pub extern "C" fn slurm_seterrno(errnum: c_int) {
    set_errno(errnum)
}

/// `slurm_perror`: `msg: <text of errno>` on standard error.
///
/// # Safety
/// `msg` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_perror(msg: *const c_char) {
    let number = errno();
    guarded(|| {
        // SAFETY: c_text gives a NUL-terminated string.
        let text = unsafe { CStr::from_ptr(c_text(number)) }.to_string_lossy();
        let line = if msg.is_null() {
            format!("{text}\n")
        } else {
            // SAFETY: the caller passes a NUL-terminated string.
            let msg = unsafe { CStr::from_ptr(msg) }.to_string_lossy();
            format!("{msg}: {text}\n")
        };
        use std::io::Write as _;
        let _ = std::io::stderr().write_all(line.as_bytes());
    });
    set_errno(number);
}
