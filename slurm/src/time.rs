//! Times and durations as Slurm prints them: local timestamps
//! (`2026-11-29T23:04:57`), the `squeue -l` header's date, squeue's compact
//! `M:SS` and scontrol's `HH:MM:SS` durations (slurm_time.c's
//! `secs2time_str`), and limits that may be UNLIMITED. Local time comes
//! from the C library's `localtime_r`, which honours TZ.

/// `unix` in local time, broken down.
pub fn local(unix: i64) -> libc::tm {
    // The libc crate deprecates musl's time_t ahead of widening it on
    // 32-bit targets; it is 64 bits wide wherever spur builds.
    #[allow(deprecated)]
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
    let tm = local(i64::try_from(unix).unwrap_or(i64::MAX));
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

/// squeue's TIME and TIME_LIMIT: `M:SS`, `H:MM:SS`, `D-HH:MM:SS`.
pub fn duration_compact(secs: u64) -> String {
    // Written digit by digit: squeue prints one per job.
    let (d, h, m, s) = split(secs);
    let mut out = String::with_capacity(16);
    let two = |out: &mut String, n: u64| {
        out.push(char::from(b'0' + (n / 10 % 10) as u8));
        out.push(char::from(b'0' + (n % 10) as u8));
    };
    if d > 0 {
        out.push_str(&d.to_string());
        out.push('-');
        two(&mut out, h);
        out.push(':');
        two(&mut out, m);
    } else if h > 0 {
        out.push_str(&h.to_string());
        out.push(':');
        two(&mut out, m);
    } else {
        out.push_str(&m.to_string());
    }
    out.push(':');
    two(&mut out, s);
    out
}

/// scontrol's RunTime and TimeLimit: `HH:MM:SS`, `D-HH:MM:SS`.
pub fn duration_full(secs: u64) -> String {
    let (d, h, m, s) = split(secs);
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

/// A time limit for squeue: None is `UNLIMITED`.
pub fn limit_compact(limit: Option<u64>) -> String {
    limit.map_or_else(|| "UNLIMITED".to_string(), duration_compact)
}

/// A time limit for scontrol: None is `UNLIMITED`.
pub fn limit_full(limit: Option<u64>) -> String {
    limit.map_or_else(|| "UNLIMITED".to_string(), duration_full)
}

fn split(secs: u64) -> (u64, u64, u64, u64) {
    (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60)
}

/// A time that may be unknown: `N/A` when None (squeue `--start`).
pub fn timestamp_or_na(unix: Option<u64>) -> String {
    unix.map_or_else(|| "N/A".to_string(), timestamp)
}

/// `Sun Nov 29 23:05:03 2026`, the header `squeue -l` and `sinfo -l` print
/// (Slurm's strftime `%a %b %d %T %Y`: the day is zero-padded, unlike C's
/// ctime).
pub fn ctime(unix: u64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let tm = local(i64::try_from(unix).unwrap_or(i64::MAX));
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} {}",
        DAYS[tm.tm_wday.rem_euclid(7) as usize],
        MONTHS[tm.tm_mon.rem_euclid(12) as usize],
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        tm.tm_year + 1900
    )
}

/// sacct's CPU times: `MM:SS.mmm` under an hour when there are
/// milliseconds, else `[D-]HH:MM:SS` / `00:MM:SS`.
pub fn cpu_time(micros: u64) -> String {
    let (secs, usecs) = (micros / 1_000_000, micros % 1_000_000);
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    let milli = usecs / 1000;
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else if h > 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else if milli > 0 {
        format!("{m:02}:{s:02}.{milli:03}")
    } else {
        format!("00:{m:02}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_slurm_prints_them() {
        assert_eq!(duration_compact(5), "0:05");
        assert_eq!(duration_compact(300), "5:00");
        assert_eq!(duration_compact(3600), "1:00:00");
        assert_eq!(duration_compact(7200), "2:00:00");
        assert_eq!(duration_compact(90_061), "1-01:01:01");
        assert_eq!(duration_full(5), "00:00:05");
        assert_eq!(duration_full(7200), "02:00:00");
        assert_eq!(limit_compact(None), "UNLIMITED");
        assert_eq!(limit_full(Some(600)), "00:10:00");
    }
}
