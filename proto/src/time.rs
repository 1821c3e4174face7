//! Times as Slurm's commands and daemons print them: local time,
//! `2026-11-29T23:04:57`.

/// `unix` in local time, broken down.
pub fn local(unix: u64) -> libc::tm {
    let t = unix as libc::time_t;
    // SAFETY: an all-zero tm is a valid value for localtime_r to overwrite.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; localtime_r is the
    // thread-safe form and keeps no reference to them.
    unsafe {
        libc::localtime_r(&t, &mut tm);
    }
    tm
}

/// `2026-11-29T23:04:57` in local time.
pub fn timestamp(unix: u64) -> String {
    let tm = local(unix);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}
