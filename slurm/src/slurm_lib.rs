//! Debian's libslurm.so.38, opened for the tests that compare spur's
//! vocabulary with Slurm's own (they skip where it is not installed).

use std::ffi::{c_void, CStr};
use std::os::raw::c_char;

/// The library, opened with `RTLD_LOCAL` so that its symbols stay its own.
pub struct SlurmLib(*mut c_void);

impl SlurmLib {
    /// The installed library; None (and a line saying the test skips) if
    /// there is none.
    pub fn open() -> Option<SlurmLib> {
        let path = c"/usr/lib/x86_64-linux-gnu/libslurm.so.38";
        // SAFETY: dlopen of a C library; its constructors are Slurm's.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            eprintln!("skipped: Slurm's libslurm.so.38 is not installed");
            return None;
        }
        Some(SlurmLib(lib))
    }

    /// The function `name`, as `F` (a C function pointer type).
    ///
    /// # Safety
    /// `F` is the function's type as Slurm's header declares it.
    pub unsafe fn get<F: Copy>(&self, name: &CStr) -> F {
        assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
        // SAFETY: a symbol lookup in an open library.
        let f = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        assert!(!f.is_null(), "{name:?}");
        // SAFETY: F is a function pointer of the symbol's type.
        unsafe { std::mem::transmute_copy(&f) }
    }
}

/// A C string the library returned, as text.
///
/// # Safety
/// `p` is a NUL-terminated string.
pub unsafe fn text(p: *const c_char) -> String {
    // SAFETY: as the caller promises.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}
