//! How an exported function answers C: through errno (the calling
//! thread's, which `slurm_get_errno` reads), with its type's failure value
//! when it fails, and never with a panic.

use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use spur_client::RequestError;

use crate::bindings::{ESLURM_NOT_SUPPORTED, SLURM_ERROR};

/// Sets the calling thread's errno.
pub fn set_errno(number: c_int) {
    // SAFETY: __errno_location is the calling thread's errno, always valid.
    unsafe { *libc::__errno_location() = number }
}

/// The calling thread's errno.
pub fn errno() -> c_int {
    // SAFETY: as in set_errno.
    unsafe { *libc::__errno_location() }
}

/// What a function of this return type answers when it fails: Slurm's
/// `SLURM_ERROR` for a signed number, 0 for an unsigned one, NULL for a
/// pointer.
pub trait Failure {
    /// The failure value.
    fn failure() -> Self;
}

macro_rules! failure {
    ($value:expr => $($t:ty),*) => { $(impl Failure for $t { fn failure() -> Self { $value } })* };
}
failure!(SLURM_ERROR as _ => i8, i16, i32, i64, isize);
failure!(0 => u8, u16, u32, u64, usize);
failure!(0.0 => f32, f64);
failure!(false => bool);
failure!(() => ());

/// A text the function writes into the caller's buffer: empty.
impl Failure for String {
    fn failure() -> Self {
        String::new()
    }
}

impl<T> Failure for *mut T {
    fn failure() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> Failure for *const T {
    fn failure() -> Self {
        std::ptr::null()
    }
}

/// Runs `f`; a panic inside it (a bug) ends the call with the failure
/// value and errno SLURM_ERROR instead of unwinding into C.
pub fn guarded<T: Failure>(f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        set_errno(SLURM_ERROR);
        T::failure()
    })
}

/// A function spur does not serve: errno ESLURM_NOT_SUPPORTED and the
/// failure value.
pub fn unsupported<T: Failure>() -> T {
    set_errno(ESLURM_NOT_SUPPORTED as c_int);
    T::failure()
}

/// A request the controller refused or could not take: errno is its
/// Slurm error number, and the answer `SLURM_ERROR`.
pub fn refused(e: &RequestError) -> c_int {
    set_errno(e.errno());
    SLURM_ERROR
}

/// The clock the library's answers read: Unix seconds.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Gives a message the library made to the caller through `out`; errno
/// ENOMEM and SLURM_ERROR if it could not be made (NULL).
///
/// # Safety
/// `out` is writable.
pub unsafe fn hand_out<T>(out: *mut *mut T, msg: *mut T) -> c_int {
    if msg.is_null() {
        set_errno(libc::ENOMEM);
        return SLURM_ERROR;
    }
    // SAFETY: as the caller promises.
    unsafe { *out = msg };
    crate::bindings::SLURM_SUCCESS as c_int
}

/// A word of Slurm's vocabulary as a C string that lives as long as the
/// library (the vocabulary is finite: each word, state names with their
/// flags included, is made once).
pub fn c_static(word: &str) -> *mut std::os::raw::c_char {
    use std::collections::HashMap;
    use std::ffi::CString;
    use std::sync::Mutex;
    static WORDS: Mutex<Option<HashMap<String, CString>>> = Mutex::new(None);
    let mut words = WORDS.lock().unwrap_or_else(|e| e.into_inner());
    let words = words.get_or_insert_with(HashMap::new);
    let made = words
        .entry(word.to_string())
        .or_insert_with(|| CString::new(word).unwrap_or_default());
    // The map only grows and a CString's bytes do not move with it.
    made.as_ptr().cast_mut()
}

/// `text` in this thread's buffer, valid until the thread's next call
/// that writes it (as Slurm's functions that answer from a static buffer).
pub fn c_scratch(text: String) -> *mut std::os::raw::c_char {
    use std::cell::RefCell;
    use std::ffi::CString;
    thread_local! {
        static SCRATCH: RefCell<CString> = RefCell::new(CString::default());
    }
    SCRATCH.with(|s| {
        *s.borrow_mut() = CString::new(text).unwrap_or_default();
        s.borrow().as_ptr().cast_mut()
    })
}
