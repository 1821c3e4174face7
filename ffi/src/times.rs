//! Slurm's time helpers that pyslurm calls: times and durations as text
//! (`slurm_make_time_str`, `slurm_secs2time_str`, `slurm_mins2time_str`)
//! and read back (`slurm_parse_time`, `slurm_time_str2secs`,
//! `slurm_time_str2mins`), on spur-slurm's and spur-conf's readings.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use crate::bindings::{time_t, INFINITE, NO_VAL};
use crate::call::{guarded, now};
use crate::memory::snprintf;
use spur_slurm::flags::secs2time_str;

/// `slurm_make_time_str`: a time as Slurm's commands print it
/// (`2026-12-03T06:31:02`), `Unknown` for 0 or INFINITE, `None` for NO_VAL.
///
/// # Safety
/// `time` is NULL or a time; `buf` is NULL or holds `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_make_time_str(time: *mut time_t, buf: *mut c_char, size: c_int) {
    // SAFETY: as the caller promises.
    let Some(&t) = (unsafe { time.as_ref() }) else {
        return;
    };
    let text = guarded(|| match t {
        0 => "Unknown".to_string(),
        t if t == time_t::from(INFINITE) => "Unknown".to_string(),
        t if t == time_t::from(NO_VAL) => "None".to_string(),
        t => spur_slurm::time::timestamp(u64::try_from(t).unwrap_or(0)),
    });
    // SAFETY: as the caller promises.
    unsafe { snprintf(&text, buf, size) }
}

/// `slurm_secs2time_str`: `HH:MM:SS` or `D-HH:MM:SS`.
///
/// # Safety
/// `buf` is NULL or holds `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_secs2time_str(secs: time_t, buf: *mut c_char, size: c_int) {
    let text = guarded(|| secs2time_str(secs));
    // SAFETY: as the caller promises.
    unsafe { snprintf(&text, buf, size) }
}

/// `slurm_mins2time_str`: minutes as `HH:MM:SS` or `D-HH:MM:SS`.
///
/// # Safety
/// `buf` is NULL or holds `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_mins2time_str(mins: u32, buf: *mut c_char, size: c_int) {
    let text = guarded(|| {
        if mins == INFINITE {
            secs2time_str(i64::from(INFINITE))
        } else {
            secs2time_str(i64::from(mins) * 60)
        }
    });
    // SAFETY: as the caller promises.
    unsafe { snprintf(&text, buf, size) }
}

/// The caller's string, None for NULL.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn text(s: *const c_char) -> Option<String> {
    // SAFETY: as the caller promises.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

/// `slurm_time_str2secs`: a time limit's seconds (`[D-]HH:MM:SS`,
/// `MM:SS`, `MM`), INFINITE for `UNLIMITED`, `INFINITE` or `-1`, NO_VAL
/// for anything else.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_time_str2secs(s: *const c_char) -> c_int {
    // SAFETY: as the caller promises.
    let s = unsafe { text(s) }.unwrap_or_default();
    guarded(|| match spur_conf::parse_time_limit(&s) {
        Ok(None) => INFINITE as c_int,
        Ok(Some(secs)) => c_int::try_from(secs).unwrap_or(NO_VAL as c_int),
        Err(_) => NO_VAL as c_int,
    })
}

/// `slurm_time_str2mins`: as `slurm_time_str2secs`, in minutes rounded up.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_time_str2mins(s: *const c_char) -> c_int {
    // SAFETY: as the caller promises.
    let secs = unsafe { slurm_time_str2secs(s) };
    if secs == INFINITE as c_int || secs == NO_VAL as c_int {
        secs
    } else {
        (secs + 59) / 60
    }
}

/// `slurm_parse_time`: a time as `--begin` (`past` 0) or sacct's `-S`
/// (`past` 1) read it; 0 when it names no time.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_parse_time(s: *const c_char, past: c_int) -> time_t {
    // SAFETY: as the caller promises.
    let Some(s) = (unsafe { text(s) }) else {
        return 0;
    };
    guarded(|| {
        let now = i64::try_from(now()).unwrap_or(0);
        let read = if past != 0 {
            spur_slurm::parse_time::parse_past(&s, now)
        } else {
            spur_slurm::parse_time::parse_future(&s, now)
        };
        read.ok().flatten().unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: impl FnOnce(*mut c_char, c_int)) -> String {
        let mut buf = [0 as c_char; 64];
        f(buf.as_mut_ptr(), 64);
        // SAFETY: the functions terminate what they write.
        unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn durations_and_limits_read_and_print_as_slurms() {
        // SAFETY: buffers of the size given, NUL-terminated inputs.
        unsafe {
            assert_eq!(call(|b, n| slurm_secs2time_str(90_061, b, n)), "1-01:01:01");
            assert_eq!(call(|b, n| slurm_mins2time_str(90, b, n)), "01:30:00");
            assert_eq!(
                call(|b, n| slurm_mins2time_str(INFINITE, b, n)),
                "UNLIMITED"
            );
            assert_eq!(call(|b, n| slurm_secs2time_str(-5, b, n)), "INVALID");
            assert_eq!(slurm_time_str2secs(c"1-00:00:01".as_ptr()), 86_401);
            assert_eq!(slurm_time_str2mins(c"90:30".as_ptr()), 91);
            assert_eq!(
                slurm_time_str2mins(c"UNLIMITED".as_ptr()),
                INFINITE as c_int
            );
            assert_eq!(slurm_time_str2mins(c"abc".as_ptr()), NO_VAL as c_int);
            let mut t: time_t = 0;
            assert_eq!(call(|b, n| slurm_make_time_str(&mut t, b, n)), "Unknown");
            assert_eq!(
                slurm_parse_time(c"uts1700000000".as_ptr(), 0),
                1_700_000_000
            );
            assert_eq!(slurm_parse_time(c"bogus".as_ptr(), 1), 0);
        }
    }
}
