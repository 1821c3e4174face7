//! Slurm's memory helpers that programs built on libslurm call
//! (`slurm_xcalloc`, `slurm_xfree`, `slurm_xfree_ptr`) and its NULL-safe
//! `slurm_xstrcmp`. They are not in `slurm.h` (xmalloc.h and xstring.h
//! are not installed) but the Perl module and pyslurm use them. The
//! library's memory is the C allocator's: what it hands out, `free` and
//! `slurm_xfree` both release.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

use crate::bindings::stats_info_response_msg_t;
use crate::call::set_errno;

/// Allocates `count * size` bytes, zeroed when `clear`. Where Slurm's
/// xmalloc would end the process for want of memory, this returns NULL
/// with errno ENOMEM.
#[no_mangle]
pub extern "C" fn slurm_xcalloc(
    count: usize,
    size: usize,
    clear: bool,
    _try: bool,
    _file: *const c_char,
    _line: c_int,
    _func: *const c_char,
) -> *mut c_void {
    let Some(bytes) = count.checked_mul(size) else {
        set_errno(libc::ENOMEM);
        return std::ptr::null_mut();
    };
    // Slurm's xmalloc(0) is a valid, freeable allocation.
    let bytes = bytes.max(1);
    // SAFETY: plain C allocations of a checked size.
    let p = unsafe {
        if clear {
            libc::calloc(1, bytes)
        } else {
            libc::malloc(bytes)
        }
    };
    if p.is_null() {
        set_errno(libc::ENOMEM);
    }
    p
}

/// Frees `*p` and sets it to NULL (Slurm's `xfree(p)` macro passes `&p`).
///
/// # Safety
/// `p` is NULL or points to NULL or to memory from this library or the C
/// allocator.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree(p: *mut *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: the caller's pointer to a pointer this library allocated.
    unsafe {
        libc::free(*p);
        *p = std::ptr::null_mut();
    }
}

/// Frees `p`.
///
/// # Safety
/// `p` is NULL or memory from this library or the C allocator.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_ptr(p: *mut c_void) {
    // SAFETY: as the caller promises.
    unsafe { libc::free(p) }
}

/// `strcmp` where NULL sorts before any string.
///
/// # Safety
/// Each argument is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcmp(a: *const c_char, b: *const c_char) -> c_int {
    match (a.is_null(), b.is_null()) {
        (true, true) => 0,
        (true, false) => -1,
        (false, true) => 1,
        // SAFETY: both are NUL-terminated strings.
        (false, false) => unsafe { CStr::from_ptr(a) }.cmp(unsafe { CStr::from_ptr(b) }) as c_int,
    }
}

/// `slurm_free_return_code_msg`: frees a return-code message (it holds
/// no pointers).
///
/// # Safety
/// `msg` is NULL or a C allocation, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_return_code_msg(msg: *mut c_void) {
    // SAFETY: as the caller promises.
    unsafe { libc::free(msg) }
}

/// `slurm_free_stats_response_msg`: frees a statistics answer (as
/// `slurm_get_statistics` makes them) and its arrays; NULL is nothing to
/// free.
///
/// # Safety
/// `msg` is NULL or an answer whose arrays are the C allocator's.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_stats_response_msg(msg: *mut stats_info_response_msg_t) {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { msg.as_ref() }) else {
        return;
    };
    // SAFETY: each array is NULL or the C allocator's, as is the answer.
    unsafe {
        libc::free(m.rpc_type_id.cast());
        libc::free(m.rpc_type_cnt.cast());
        libc::free(m.rpc_type_time.cast());
        libc::free(m.rpc_user_id.cast());
        libc::free(m.rpc_user_cnt.cast());
        libc::free(m.rpc_user_time.cast());
        libc::free(m.rpc_queue_type_id.cast());
        libc::free(m.rpc_queue_count.cast());
        libc::free(m.rpc_dump_types.cast());
        if !m.rpc_dump_hostlist.is_null() {
            for i in 0..m.rpc_dump_count as usize {
                libc::free((*m.rpc_dump_hostlist.add(i)).cast());
            }
            libc::free(m.rpc_dump_hostlist.cast());
        }
        libc::free(msg.cast());
    }
}

/// A C string the caller frees with `free` (or `slurm_xfree`); NULL if
/// `text` holds a NUL or memory ran out. One allocation and one copy: the
/// loads make hundreds of thousands of these.
pub fn c_string(text: &str) -> *mut c_char {
    let bytes = text.as_bytes();
    if bytes.contains(&0) {
        return std::ptr::null_mut();
    }
    // SAFETY: a checked allocation of len + 1 bytes, filled and terminated.
    unsafe {
        let p = libc::malloc(bytes.len() + 1).cast::<c_char>();
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), p, bytes.len());
            *p.add(bytes.len()) = 0;
        }
        p
    }
}

/// Writes `text` into the caller's buffer of `size` bytes as `snprintf`
/// would: cut to fit, always terminated.
///
/// # Safety
/// `buf` is NULL or holds `size` bytes.
pub unsafe fn snprintf(text: &str, buf: *mut c_char, size: c_int) {
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if buf.is_null() || size == 0 {
        return;
    }
    let count = text.len().min(size - 1);
    // SAFETY: count + 1 <= size bytes of the caller's buffer.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, count);
        *buf.add(count) = 0;
    }
}

/// `items` as a C array of records (at least one element, so that an
/// empty message still has a freeable array); NULL if memory ran out.
pub fn c_records<T, R>(items: &[T], record: impl Fn(&T) -> R) -> *mut R {
    // SAFETY: a checked allocation of items.len() records, each written.
    unsafe {
        let array = libc::calloc(items.len().max(1), size_of::<R>()).cast::<R>();
        if !array.is_null() {
            for (i, item) in items.iter().enumerate() {
                array.add(i).write(record(item));
            }
        }
        array
    }
}

/// Frees `count` records of a C array with `free_record`, then the array.
///
/// # Safety
/// `array` is NULL or holds `count` records of this library's, not used
/// again.
pub unsafe fn free_records<R>(array: *mut R, count: u32, free_record: unsafe fn(&mut R)) {
    if array.is_null() {
        return;
    }
    // SAFETY: as the caller promises.
    unsafe {
        for i in 0..count as usize {
            free_record(&mut *array.add(i));
        }
        libc::free(array.cast());
    }
}

/// A message of the C allocator's holding `array` (`count` records),
/// its other fields set by `fill`; NULL, with the records freed, when
/// memory ran out (a NULL `array` included).
///
/// # Safety
/// `array` is NULL or holds `count` records of this library's.
pub unsafe fn c_message<M, R>(
    array: *mut R,
    count: u32,
    free_record: unsafe fn(&mut R),
    fill: impl FnOnce(&mut M),
) -> *mut M {
    // SAFETY: a checked, zeroed allocation of one message (the bindings'
    // messages are plain data, valid zeroed).
    unsafe {
        let msg = libc::calloc(1, size_of::<M>()).cast::<M>();
        if msg.is_null() || array.is_null() {
            libc::free(msg.cast());
            free_records(array, count, free_record);
            return std::ptr::null_mut();
        }
        fill(&mut *msg);
        msg
    }
}
