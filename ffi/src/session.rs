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
/// /etc/slurm/slurm.conf) for the calls that follow, and fills the
/// library's `slurm_conf` from it. A file that cannot be read leaves the
/// default in place; the calls then fail with the controller unreachable,
/// where Slurm's library would have exited the process.
///
/// # Safety
/// `conf` is NULL or a NUL-terminated path.
#[no_mangle]
pub unsafe extern "C" fn slurm_init(conf: *const c_char) {
    // SAFETY: the caller passes NULL or a NUL-terminated path.
    let path = (!conf.is_null()).then(|| {
        unsafe { CStr::from_ptr(conf) }
            .to_string_lossy()
            .into_owned()
    });
    guarded(|| {
        if let Some(path) = path {
            let _ = spur_client::use_conf(Path::new(&path));
        }
        crate::conf::fill_global();
    })
}

/// `slurm_fini`: closes the connection and empties `slurm_conf`; the next
/// call reads slurm.conf again.
#[no_mangle]
pub extern "C" fn slurm_fini() {
    guarded(|| {
        crate::conf::clear_global();
        spur_client::close();
    })
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

/// `slurm_msg_t_init`: Slurm's RPC message is not spur's protocol; the
/// message is left as it is, and `slurm_send_recv_controller_msg`
/// answers that it is not supported.
#[no_mangle]
pub extern "C" fn slurm_msg_t_init(_msg: *mut std::os::raw::c_void) {}

/// `slurm_send_recv_controller_msg`: Slurm's RPCs are not spur's
/// protocol (SLURM_ERROR, errno ESLURM_NOT_SUPPORTED).
#[no_mangle]
pub extern "C" fn slurm_send_recv_controller_msg(
    _request: *mut std::os::raw::c_void,
    _response: *mut std::os::raw::c_void,
    _comm_cluster: *mut std::os::raw::c_void,
) -> c_int {
    crate::call::unsupported()
}

/// `slurm_reconfigure`: the controller reads slurm.conf again (as
/// `scontrol reconfigure`; operators only).
#[no_mangle]
pub extern "C" fn slurm_reconfigure() -> c_int {
    guarded(|| match Process.reconfigure() {
        Ok(()) => SLURM_SUCCESS as c_int,
        Err(e) => refused(&e),
    })
}
