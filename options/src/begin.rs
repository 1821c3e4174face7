//! `--begin` and `--deadline` times: Slurm's `parse_time()`
//! ([`spur_slurm::parse_time`]) with sbatch's messages.

use crate::error::ValueError;

/// `--begin=text` as Unix seconds, `now` being the current time.
pub fn parse_begin(text: &str, now: i64) -> Result<u64, ValueError> {
    parse_option_time("--begin", text, now)
}

/// `--deadline=text` as Unix seconds, read as `--begin` is.
pub fn parse_deadline(text: &str, now: i64) -> Result<u64, ValueError> {
    parse_option_time("--deadline", text, now)
}

fn parse_option_time(option: &'static str, text: &str, now: i64) -> Result<u64, ValueError> {
    let bad = |pos| ValueError::Time {
        option,
        pos,
        text: text.to_string(),
    };
    match spur_slurm::parse_time::parse_future(text, now) {
        Ok(Some(t)) if t > 0 => u64::try_from(t).map_err(|_| bad(None)),
        Ok(_) => Err(bad(None)),
        Err(pos) => Err(bad(Some(pos))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unix seconds of a local date and time.
    fn at_local(year: i32, month: i32, mday: i32, h: i32, m: i32, s: i32) -> i64 {
        spur_slurm::parse_time::local_to_unix(year, month, mday, h, m, s).expect("a valid date")
    }

    #[test]
    fn now_and_offsets() {
        let now = at_local(2026, 3, 10, 12, 0, 0);
        assert_eq!(parse_begin("now", now), Ok(now as u64));
        assert_eq!(parse_begin("now+60", now), Ok(now as u64 + 60));
        assert_eq!(parse_begin("now+1hour", now), Ok(now as u64 + 3600));
        assert_eq!(parse_begin("now+2days", now), Ok(now as u64 + 2 * 86_400));
        assert_eq!(parse_begin("NOW + 3 minutes", now), Ok(now as u64 + 180));
        assert_eq!(parse_begin("now+1week", now), Ok(now as u64 + 604_800));
    }

    #[test]
    fn dates_and_times_of_day() {
        let now = at_local(2026, 3, 10, 12, 0, 0);
        let t = |y, mo, d, h, mi, s| Ok(at_local(y, mo, d, h, mi, s) as u64);
        assert_eq!(
            parse_begin("2029-04-10T23:40:57", now),
            t(2029, 4, 10, 23, 40, 57)
        );
        assert_eq!(parse_begin("2029-04-10", now), t(2029, 4, 10, 0, 0, 0));
        assert_eq!(
            parse_begin("2029-04-10T08:30", now),
            t(2029, 4, 10, 8, 30, 0)
        );
        // A time of day already past today means tomorrow.
        assert_eq!(parse_begin("16:00", now), t(2026, 3, 10, 16, 0, 0));
        assert_eq!(parse_begin("11:00", now), t(2026, 3, 11, 11, 0, 0));
        assert_eq!(parse_begin("4:30pm", now), t(2026, 3, 10, 16, 30, 0));
        assert_eq!(parse_begin("teatime", now), t(2026, 3, 10, 16, 0, 0));
        assert_eq!(parse_begin("noon", now), t(2026, 3, 11, 12, 0, 0));
        assert_eq!(parse_begin("midnight", now), t(2026, 3, 11, 0, 0, 0));
        assert_eq!(parse_begin("tomorrow", now), t(2026, 3, 11, 0, 0, 0));
        assert_eq!(parse_begin("today", now), t(2026, 3, 10, 0, 0, 0));
        // MM/DD without a year: this year if still ahead, else next.
        assert_eq!(parse_begin("12/25", now), t(2026, 12, 25, 0, 0, 0));
        assert_eq!(parse_begin("01/02", now), t(2027, 1, 2, 0, 0, 0));
        assert_eq!(parse_begin("041029", now), t(2029, 4, 10, 0, 0, 0));
        assert_eq!(parse_begin("uts2000000000", now), Ok(2_000_000_000));
    }

    #[test]
    fn malformed_times_say_where_they_stopped() {
        let now = at_local(2026, 3, 10, 12, 0, 0);
        let err = parse_begin("bogus", now).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid time specification (pos=0): bogus\nsbatch: error: Invalid --begin specification"
        );
        for bad in ["25:00", "12:61", "now+", "now+5x", "13/40", "2029-13-01"] {
            assert!(
                matches!(
                    parse_begin(bad, now),
                    Err(ValueError::Time { pos: Some(_), .. })
                ),
                "{bad}"
            );
        }
        assert_eq!(
            parse_begin("  ", now).unwrap_err().to_string(),
            "sbatch: error: Invalid --begin specification"
        );
    }
}
