//! How times and user ids become text in Slurm's records: local
//! timestamps and the host's user names where a command runs, fixed ones in
//! golden tests (the reference outputs were recorded in UTC on a host with
//! its own passwd file).

/// The formatters a render function uses for times and users.
#[derive(Debug, Clone, Copy)]
pub struct Locale {
    /// `2026-11-29T23:04:57`.
    pub timestamp: fn(u64) -> String,
    /// `Sun Nov 29 23:05:03 2026`.
    pub ctime: fn(u64) -> String,
    /// The name of a uid (the number as text if it has none).
    pub user_name: fn(u32) -> String,
}

impl Locale {
    /// Local time, and users named by `user_name` (the host's passwd
    /// database: `spur_sys::users::name_of`).
    pub fn local(user_name: fn(u32) -> String) -> Locale {
        Locale {
            timestamp: crate::time::timestamp,
            ctime: crate::time::ctime,
            user_name,
        }
    }

    /// Slurm's `slurm_make_time_str`: 0 is `Unknown`.
    pub fn time_or_unknown(&self, unix: u64) -> String {
        if unix == 0 {
            "Unknown".to_string()
        } else {
            (self.timestamp)(unix)
        }
    }
}

pub mod utc {
    //! UTC formatters and the recording host's users, for golden tests.

    /// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's
    /// `civil_from_days`).
    fn civil(days: i64) -> (i64, u32, u32) {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        (year, month, day)
    }

    /// `2026-11-29T23:04:57` in UTC.
    pub fn timestamp(unix: u64) -> String {
        let (y, mo, d) = civil((unix / 86_400) as i64);
        let s = unix % 86_400;
        format!(
            "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
            s / 3600,
            s / 60 % 60,
            s % 60
        )
    }

    /// `Sun Nov 29 23:05:03 2026` in UTC.
    pub fn ctime(unix: u64) -> String {
        const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let days = (unix / 86_400) as i64;
        let (y, mo, d) = civil(days);
        let s = unix % 86_400;
        format!(
            "{} {} {d:02} {:02}:{:02}:{:02} {y}",
            DAYS[(days % 7) as usize],
            MONTHS[(mo - 1) as usize],
            s / 3600,
            s / 60 % 60,
            s % 60
        )
    }

    /// The recording host's users: anchor is 2001, slurm 64030.
    pub fn user_name(uid: u32) -> String {
        match uid {
            0 => "root".to_string(),
            2001 => "anchor".to_string(),
            64030 => "slurm".to_string(),
            other => other.to_string(),
        }
    }

    /// A locale that prints UTC times and the recording host's users.
    pub fn locale() -> super::Locale {
        super::Locale {
            timestamp,
            ctime,
            user_name,
        }
    }
}
