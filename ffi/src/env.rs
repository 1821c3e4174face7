//! Slurm's environment arrays (`char **`, NULL-terminated, of
//! `NAME=value` strings) that pyslurm builds a job's environment with:
//! `slurm_env_array_create`, `_overwrite`, `_merge` and `_free`. The
//! arrays and their strings are the C allocator's.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use crate::call::guarded;
use crate::memory::c_string;

/// The entries of an array, up to its NULL.
///
/// # Safety
/// `array` is NULL or a NULL-terminated array of C strings.
unsafe fn entries<'a>(array: *const *mut c_char) -> &'a [*mut c_char] {
    if array.is_null() {
        return &[];
    }
    let mut n = 0;
    // SAFETY: as the caller promises: the array ends with NULL.
    unsafe {
        while !(*array.add(n)).is_null() {
            n += 1;
        }
        std::slice::from_raw_parts(array, n)
    }
}

/// `slurm_env_array_create`: an empty array.
#[no_mangle]
pub extern "C" fn slurm_env_array_create() -> *mut *mut c_char {
    // SAFETY: one zeroed pointer: the terminating NULL.
    guarded(|| unsafe { libc::calloc(1, size_of::<*mut c_char>()) }.cast())
}

/// `slurm_env_array_free`: frees an array and its strings.
///
/// # Safety
/// `array` is NULL or an array of this library's, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_free(array: *mut *mut c_char) {
    // SAFETY: as the caller promises.
    unsafe {
        for &entry in entries(array) {
            libc::free(entry.cast());
        }
        libc::free(array.cast());
    }
}

/// The name of an entry: what is before its `=`.
fn name_of(entry: &[u8]) -> &[u8] {
    entry.split(|&b| b == b'=').next().unwrap_or(entry)
}

/// Sets `name=value` in `*array` (made if NULL), replacing an entry of
/// that name; 1 on success, 0 if memory ran out.
///
/// # Safety
/// `array` points to NULL or to an array of this library's.
unsafe fn overwrite(array: *mut *mut *mut c_char, entry: &str) -> c_int {
    let made = c_string(entry);
    if made.is_null() {
        return 0;
    }
    let name = name_of(entry.as_bytes());
    // SAFETY: as the caller promises; the array grows by realloc and
    // stays NULL-terminated.
    unsafe {
        if (*array).is_null() {
            *array = slurm_env_array_create();
            if (*array).is_null() {
                libc::free(made.cast());
                return 0;
            }
        }
        let have = entries(*array);
        for (i, &old) in have.iter().enumerate() {
            if name_of(CStr::from_ptr(old).to_bytes()) == name {
                libc::free(old.cast());
                *(*array).add(i) = made;
                return 1;
            }
        }
        let n = have.len();
        let grown = libc::realloc((*array).cast(), (n + 2) * size_of::<*mut c_char>())
            .cast::<*mut c_char>();
        if grown.is_null() {
            libc::free(made.cast());
            return 0;
        }
        *grown.add(n) = made;
        *grown.add(n + 1) = std::ptr::null_mut();
        *array = grown;
    }
    1
}

/// `slurm_env_array_overwrite`: sets `name` to `value`; 1 on success.
///
/// # Safety
/// `array` points to NULL or to an array of this library's; `name` and
/// `value` are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_overwrite(
    array: *mut *mut *mut c_char,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    if array.is_null() || name.is_null() || value.is_null() {
        return 0;
    }
    // SAFETY: as the caller promises.
    let entry = unsafe {
        format!(
            "{}={}",
            CStr::from_ptr(name).to_string_lossy(),
            CStr::from_ptr(value).to_string_lossy()
        )
    };
    // SAFETY: as the caller promises.
    guarded(|| unsafe { overwrite(array, &entry) })
}

/// `slurm_env_array_merge`: sets every `NAME=value` of `src` in `*dest`.
///
/// # Safety
/// `dest` points to NULL or to an array of this library's; `src` is NULL
/// or a NULL-terminated array of C strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_merge(
    dest: *mut *mut *mut c_char,
    src: *const *const c_char,
) {
    if dest.is_null() {
        return;
    }
    // SAFETY: as the caller promises.
    for &entry in unsafe { entries(src.cast()) } {
        // SAFETY: each entry is a C string.
        let text = unsafe { CStr::from_ptr(entry) }
            .to_string_lossy()
            .into_owned();
        if text.contains('=') {
            // SAFETY: as the caller promises.
            guarded(|| unsafe { overwrite(dest, &text) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(array: *mut *mut c_char) -> Vec<String> {
        // SAFETY: an array this module made.
        unsafe { entries(array) }
            .iter()
            // SAFETY: its entries are C strings.
            .map(|&e| unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn arrays_set_replace_and_merge_by_name() {
        // SAFETY: arrays made and freed here, NUL-terminated inputs.
        unsafe {
            let mut env = std::ptr::null_mut();
            assert_eq!(
                slurm_env_array_overwrite(&mut env, c"A".as_ptr(), c"1".as_ptr()),
                1
            );
            assert_eq!(
                slurm_env_array_overwrite(&mut env, c"B".as_ptr(), c"2".as_ptr()),
                1
            );
            assert_eq!(
                slurm_env_array_overwrite(&mut env, c"A".as_ptr(), c"3".as_ptr()),
                1
            );
            let src = [
                c"C=4".as_ptr(),
                c"B=5".as_ptr(),
                c"junk".as_ptr(),
                std::ptr::null(),
            ];
            slurm_env_array_merge(&mut env, src.as_ptr());
            assert_eq!(texts(env), ["A=3", "B=5", "C=4"]);
            slurm_env_array_free(env);
            let empty = slurm_env_array_create();
            assert!(texts(empty).is_empty());
            slurm_env_array_free(empty);
        }
    }
}
