//! The library's life and its controller: `slurm_init` and `slurm_fini`
//! (the slurm.conf the process's session reads), `slurm_api_version` and
//! `slurm_ping`.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_long};
use std::path::Path;

use spur_client::{Api, Process};

use crate::bindings::{SLURM_COMMUNICATIONS_CONNECTION_ERROR, SLURM_ERROR, SLURM_SUCCESS};
use crate::call::{guarded, refused, set_errno};

/// libslurm.so.38's API version: current 38, revision 0, age 0, as
/// `SLURM_VERSION_NUM(38, 0, 0)`.
const API_VERSION: c_long = 38 << 16;

/// `slurm_api_version`.
#[no_mangle]
pub extern "C" fn slurm_api_version() -> c_long {
    API_VERSION
}

/// `slurm_init`: reads `conf` (NULL: SLURM_CONF, else
/// /etc/slurm/slurm.conf) for the calls that follow. A file that cannot
/// be read leaves the default in place; the calls then fail with the
/// controller unreachable, where Slurm's library would have exited the
/// process.
///
/// # Safety
/// `conf` is NULL or a NUL-terminated path.
#[no_mangle]
pub unsafe extern "C" fn slurm_init(conf: *const c_char) {
    if conf.is_null() {
        return;
    }
    // SAFETY: the caller passes a NUL-terminated path.
    let path = unsafe { CStr::from_ptr(conf) }
        .to_string_lossy()
        .into_owned();
    guarded(|| {
        let _ = spur_client::use_conf(Path::new(&path));
    })
}

/// `slurm_fini`: closes the connection; the next call reads slurm.conf
/// again.
#[no_mangle]
pub extern "C" fn slurm_fini() {
    guarded(spur_client::close)
}

/// `slurm_ping`: whether controller `dest` (0: the primary) answers.
/// spur runs one controller, so there is no backup to answer.
#[no_mangle]
pub extern "C" fn slurm_ping(dest: c_int) -> c_int {
    guarded(|| {
        if dest != 0 {
            set_errno(SLURM_COMMUNICATIONS_CONNECTION_ERROR as c_int);
            return SLURM_ERROR;
        }
        match Process.ping() {
            Ok(_) => SLURM_SUCCESS as c_int,
            Err(e) => refused(&e),
        }
    })
}
