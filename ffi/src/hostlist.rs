//! Slurm's hostlist functions (`slurm_hostlist_*`): a list of host names
//! read from and written as hostlist expressions, with spur's one reader
//! and writer of them ([`spur_conf::hostlist`]).

use std::collections::VecDeque;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use spur_conf::hostlist::{compress, expand, unique};

use crate::bindings::hostlist_t;
use crate::call::{guarded, set_errno};
use crate::memory::c_string;

/// What a `hostlist_t` points to.
struct Hosts(VecDeque<String>);

/// The hosts behind a handle, if it is one.
///
/// # Safety
/// `hl` is NULL or a handle from `slurm_hostlist_create`, not destroyed.
unsafe fn hosts<'a>(hl: hostlist_t) -> Option<&'a mut Hosts> {
    // SAFETY: handles are Box<Hosts> pointers (slurm_hostlist_create).
    unsafe { hl.cast::<Hosts>().as_mut() }
}

/// A C string argument, if it is one.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn arg<'a>(s: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    // SAFETY: as the caller promises.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy())
}

/// The names of an expression (none for an empty one), or None with
/// errno EINVAL for one that is not a hostlist.
fn names(expr: &str) -> Option<Vec<String>> {
    if expr.trim().is_empty() {
        return Some(Vec::new());
    }
    match expand(expr) {
        Ok(names) => Some(names),
        Err(_) => {
            set_errno(libc::EINVAL);
            None
        }
    }
}

/// `slurm_hostlist_create`: the hosts of `hostlist` (NULL: none).
///
/// # Safety
/// `hostlist` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_create(hostlist: *const c_char) -> hostlist_t {
    // SAFETY: as the caller promises.
    let expr = unsafe { arg(hostlist) }.unwrap_or_default();
    guarded(|| match names(&expr) {
        Some(names) => Box::into_raw(Box::new(Hosts(names.into()))).cast(),
        None => std::ptr::null_mut(),
    })
}

/// `slurm_hostlist_destroy`.
///
/// # Safety
/// `hl` is NULL or a live handle; it is not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_destroy(hl: hostlist_t) {
    if !hl.is_null() {
        // SAFETY: a handle made by Box::into_raw in slurm_hostlist_create.
        drop(unsafe { Box::from_raw(hl.cast::<Hosts>()) });
    }
}

/// `slurm_hostlist_count`: how many hosts (-1 for no list).
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_count(hl: hostlist_t) -> c_int {
    // SAFETY: as the caller promises.
    unsafe { hosts(hl) }.map_or(-1, |h| c_int::try_from(h.0.len()).unwrap_or(c_int::MAX))
}

/// `slurm_hostlist_find`: the index of `hostname`, or -1.
///
/// # Safety
/// `hl` is NULL or a live handle; `hostname` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_find(hl: hostlist_t, hostname: *const c_char) -> c_int {
    // SAFETY: as the caller promises.
    let (Some(h), Some(name)) = (unsafe { hosts(hl) }, unsafe { arg(hostname) }) else {
        return -1;
    };
    let at = h.0.iter().position(|n| *n == name);
    at.and_then(|i| c_int::try_from(i).ok()).unwrap_or(-1)
}

/// `slurm_hostlist_push`: appends the hosts of an expression; how many.
///
/// # Safety
/// `hl` is NULL or a live handle; `hosts` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_push(hl: hostlist_t, hosts_expr: *const c_char) -> c_int {
    // SAFETY: as the caller promises.
    let (Some(h), Some(expr)) = (unsafe { hosts(hl) }, unsafe { arg(hosts_expr) }) else {
        return 0;
    };
    guarded(|| {
        let added = names(&expr).unwrap_or_default();
        let n = c_int::try_from(added.len()).unwrap_or(c_int::MAX);
        h.0.extend(added);
        n
    })
}

/// `slurm_hostlist_push_host`: appends one host, as written; 1, or 0.
///
/// # Safety
/// `hl` is NULL or a live handle; `host` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_push_host(hl: hostlist_t, host: *const c_char) -> c_int {
    // SAFETY: as the caller promises.
    let (Some(h), Some(name)) = (unsafe { hosts(hl) }, unsafe { arg(host) }) else {
        return 0;
    };
    h.0.push_back(name.into_owned());
    1
}

impl Hosts {
    fn names(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }
}

/// The list as one ranged expression, in its order.
fn ranged(h: &Hosts) -> String {
    compress(&h.names())
}

/// `slurm_hostlist_ranged_string`: the expression in `buf` (at most `n`
/// bytes with its NUL); its length, or -1 when it did not fit (`buf`
/// then holds as much as fits).
///
/// # Safety
/// `hl` is NULL or a live handle; `buf` NULL or `n` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string(
    hl: hostlist_t,
    n: usize,
    buf: *mut c_char,
) -> isize {
    // SAFETY: as the caller promises.
    let Some(h) = (unsafe { hosts(hl) }) else {
        return -1;
    };
    if buf.is_null() || n == 0 {
        return -1;
    }
    guarded(|| {
        let text = ranged(h);
        let fits = text.len() < n;
        let copy = if fits { text.len() } else { n - 1 };
        // SAFETY: buf has n writable bytes and copy < n.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, copy);
            *buf.add(copy) = 0;
        }
        if fits {
            isize::try_from(text.len()).unwrap_or(-1)
        } else {
            -1
        }
    })
}

/// `slurm_hostlist_ranged_string_malloc`: the expression, to be freed
/// with `free`.
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string_malloc(hl: hostlist_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    match unsafe { hosts(hl) } {
        Some(h) => guarded(|| c_string(&ranged(h))),
        None => std::ptr::null_mut(),
    }
}

/// `slurm_hostlist_ranged_string_xmalloc`: the same, to be freed with
/// `xfree` (the library's memory is the C allocator's).
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string_xmalloc(hl: hostlist_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe { slurm_hostlist_ranged_string_malloc(hl) }
}

/// `slurm_hostlist_deranged_string_malloc`: every host by name, joined
/// by commas (`n1,n2,n3`), to be freed with `free`.
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string_malloc(hl: hostlist_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    match unsafe { hosts(hl) } {
        Some(h) => guarded(|| c_string(&h.0.iter().cloned().collect::<Vec<_>>().join(","))),
        None => std::ptr::null_mut(),
    }
}

/// `slurm_hostlist_shift`: takes the first host off the list; the name is
/// the caller's to `free` (NULL when the list is empty).
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_shift(hl: hostlist_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    match unsafe { hosts(hl) }.and_then(|h| h.0.pop_front()) {
        Some(name) => c_string(&name),
        None => std::ptr::null_mut(),
    }
}

/// `slurm_hostlist_uniq`: sorts the hosts in Slurm's order and drops
/// repeats.
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_uniq(hl: hostlist_t) {
    // SAFETY: as the caller promises.
    if let Some(h) = unsafe { hosts(hl) } {
        guarded(|| {
            h.0 = unique(&h.names()).into();
        })
    }
}
