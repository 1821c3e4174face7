//! Slurm's value formats shared by every config file and front end: time
//! limits (`1-12:00:00`, `UNLIMITED`), memory sizes (`880G`), counts and
//! yes/no flags, read as Slurm's parse_time.c / parse_value.c read them.
//! Pure functions; callers add the file, line and key to errors.

use thiserror::Error;

/// A time string that is not one of Slurm's time formats.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid time \"{value}\"")]
pub struct TimeFormatError {
    /// The text as given.
    pub value: String,
}

/// A memory size that is not a number with an optional K/M/G/T unit.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid memory size \"{value}\"")]
pub struct MemoryFormatError {
    /// The text as given.
    pub value: String,
}

/// The longest time limit Slurm can store: its limits are 32-bit minutes
/// below NO_VAL and INFINITE. A longer one is refused rather than wrapped.
pub const MAX_TIME_LIMIT_SECS: u64 = 0xffff_fffd * 60;

/// Parses a Slurm time limit into seconds; `None` means unlimited.
///
/// Accepts `minutes`, `minutes:seconds`, `hours:minutes:seconds`,
/// `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`, and
/// `UNLIMITED`, `INFINITE` or `-1` (Slurm's `time_str2secs`). Limits over
/// [`MAX_TIME_LIMIT_SECS`] are errors.
pub fn parse_time_limit(value: &str) -> Result<Option<u64>, TimeFormatError> {
    let err = || TimeFormatError {
        value: value.to_string(),
    };
    let s = value.trim();
    if s == "-1" || s.eq_ignore_ascii_case("INFINITE") || s.eq_ignore_ascii_case("UNLIMITED") {
        return Ok(None);
    }
    if !is_valid_timespec(s) {
        return Err(err());
    }
    let num = |t: &str| t.parse::<u64>().map_err(|_| err());
    let secs = if let Some((days, rest)) = s.split_once('-') {
        // days-[hours[:minutes[:seconds]]]; "-5" (no days) is negative.
        let mut total = num(days)?.checked_mul(86_400).ok_or_else(err)?;
        let scale = [3_600u64, 60, 1];
        for (part, unit) in rest.split(':').zip(scale) {
            if part.is_empty() {
                break;
            }
            total = num(part)?
                .checked_mul(unit)
                .and_then(|p| total.checked_add(p))
                .ok_or_else(err)?;
        }
        total
    } else {
        let parts: Vec<&str> = s.split(':').collect();
        let units: &[u64] = match parts.len() {
            1 => &[60],
            2 => &[60, 1],
            _ => &[3_600, 60, 1],
        };
        let mut total = 0u64;
        for (part, unit) in parts.iter().zip(units) {
            total = num(part)?
                .checked_mul(*unit)
                .and_then(|p| total.checked_add(p))
                .ok_or_else(err)?;
        }
        total
    };
    if secs > MAX_TIME_LIMIT_SECS {
        return Err(err());
    }
    Ok(Some(secs))
}

/// Parses a Slurm time limit into whole minutes, rounding seconds up, as
/// Slurm stores partition and job limits (`time_str2mins`); `None` means
/// unlimited.
pub fn parse_time_minutes(value: &str) -> Result<Option<u64>, TimeFormatError> {
    Ok(parse_time_limit(value)?.map(|s| s.div_ceil(60)))
}

/// Slurm's `_is_valid_timespec`: digits, at most one `-` (before any `:`)
/// and at most two `:`, with enough numbers for the separators.
fn is_valid_timespec(s: &str) -> bool {
    let (mut digit, mut dash, mut colon) = (0, 0, 0);
    let mut in_digits = false;
    for b in s.bytes() {
        match b {
            b'0'..=b'9' => {
                if !in_digits {
                    digit += 1;
                    in_digits = true;
                }
            }
            b'-' => {
                in_digits = false;
                dash += 1;
                if colon > 0 {
                    return false;
                }
            }
            b':' => {
                in_digits = false;
                colon += 1;
            }
            _ => return false,
        }
    }
    let needed = match (dash > 0, colon) {
        (true, 1) => 3,
        (true, 2) => 4,
        (false, 1) => 2,
        (false, 2) => 3,
        _ => 1,
    };
    digit >= needed && dash <= 1 && colon <= 2
}

/// Parses a memory size into megabytes: a number with an optional unit
/// `K`, `M` (the default), `G` or `T`, optionally followed by `B`
/// (Slurm's `str_to_mbytes`; kilobytes round up).
pub fn parse_memory_mb(value: &str) -> Result<u64, MemoryFormatError> {
    let err = || MemoryFormatError {
        value: value.to_string(),
    };
    let s = value.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(err());
    }
    let n: u64 = s[..digits].parse().map_err(|_| err())?;
    let unit = &s[digits..];
    let unit = unit
        .strip_suffix(['B', 'b'])
        .filter(|u| !u.is_empty())
        .unwrap_or(unit);
    let mb = match unit {
        "" | "M" | "m" => Some(n),
        "K" | "k" => Some(n.div_ceil(1024)),
        "G" | "g" => n.checked_mul(1024),
        "T" | "t" => n.checked_mul(1024 * 1024),
        _ => None,
    };
    mb.ok_or_else(err)
}

/// A count as Slurm's `s_p_handle_uint*` reads it: decimal, optional `K`
/// suffix (x1024), or `UNLIMITED`/`INFINITE` (returned as `None`).
pub fn parse_count(value: &str) -> Option<Option<u64>> {
    let s = value.trim();
    if s.eq_ignore_ascii_case("UNLIMITED") || s.eq_ignore_ascii_case("INFINITE") {
        return Some(None);
    }
    let (num, mult) = match s.strip_suffix(['k', 'K']) {
        Some(n) => (n, 1024),
        None => (s, 1),
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    num.parse::<u64>().ok()?.checked_mul(mult).map(Some)
}

/// A number with an optional K/M/G/T/P suffix, each a factor of 1024, as
/// gres counts are written (`Count=10G`).
pub(crate) fn parse_suffixed_count(value: &str) -> Option<u64> {
    let s = value.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let power = match &s[digits..] {
        "" => 0,
        "k" | "K" => 1,
        "m" | "M" => 2,
        "g" | "G" => 3,
        "t" | "T" => 4,
        "p" | "P" => 5,
        _ => return None,
    };
    n.checked_mul(1024u64.checked_pow(power)?)
}

/// Slurm's boolean values: YES/UP/TRUE/1 and NO/DOWN/FALSE/0.
pub fn parse_bool(value: &str) -> Option<bool> {
    let s = value.trim();
    let is = |w: &str| s.eq_ignore_ascii_case(w);
    if is("yes") || is("up") || is("true") || is("1") {
        Some(true)
    } else if is("no") || is("down") || is("false") || is("0") {
        Some(false)
    } else {
        None
    }
}

/// A comma list (`a,b,,c`), each item trimmed, empty ones dropped: how
/// slurm.conf's lists and the commands' `-u`, `-p`, `-A` lists read.
pub fn comma_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn every_slurm_time_format() {
        let cases = [
            ("30", 30 * 60),
            ("0", 0),
            ("30:15", 30 * 60 + 15),
            ("1:30:15", 3600 + 30 * 60 + 15),
            ("00:30:00", 30 * 60),
            ("7-0", 7 * 86_400),
            ("2-12", 2 * 86_400 + 12 * 3600),
            ("2-12:30", 2 * 86_400 + 12 * 3600 + 30 * 60),
            ("2-12:30:15", 2 * 86_400 + 12 * 3600 + 30 * 60 + 15),
            ("1-", 86_400),
        ];
        for (text, secs) in cases {
            assert_eq!(parse_time_limit(text), Ok(Some(secs)), "{text}");
        }
        for text in ["UNLIMITED", "infinite", "-1"] {
            assert_eq!(parse_time_limit(text), Ok(None), "{text}");
        }
    }

    #[test]
    fn malformed_times_are_rejected() {
        for text in [
            "",
            "abc",
            "1h",
            "5:",
            ":5",
            "1::3",
            "1-2:",
            "1-2-3",
            "-5",
            "1:2:3:4",
            "12:-3",
            "1-:30",
            "99999999999999999999",
            // Past what 32-bit minutes hold: 4294967294 minutes and up.
            "4294967294",
            "9999999999-00:00:00",
        ] {
            assert_eq!(
                parse_time_limit(text),
                Err(TimeFormatError { value: text.into() }),
                "{text}"
            );
        }
    }

    #[test]
    fn the_longest_storable_limit_is_accepted() {
        assert_eq!(
            parse_time_minutes("4294967293"),
            Ok(Some(0xffff_fffd)),
            "the last minute below NO_VAL"
        );
    }

    #[test]
    fn minutes_round_up_like_time_str2mins() {
        assert_eq!(parse_time_minutes("1:30"), Ok(Some(2)));
        assert_eq!(parse_time_minutes("00:30:00"), Ok(Some(30)));
        assert_eq!(parse_time_minutes("UNLIMITED"), Ok(None));
    }

    #[test]
    fn memory_units() {
        assert_eq!(parse_memory_mb("880000"), Ok(880_000));
        assert_eq!(parse_memory_mb("4096M"), Ok(4096));
        assert_eq!(parse_memory_mb("2G"), Ok(2048));
        assert_eq!(parse_memory_mb("2gb"), Ok(2048));
        assert_eq!(parse_memory_mb("1T"), Ok(1024 * 1024));
        assert_eq!(parse_memory_mb("1500K"), Ok(2));
        for bad in ["", "G", "-5", "5X", "5GBB", "1.5G"] {
            assert!(parse_memory_mb(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_and_flags() {
        assert_eq!(parse_count("12"), Some(Some(12)));
        assert_eq!(parse_count("2k"), Some(Some(2048)));
        assert_eq!(parse_count("UNLIMITED"), Some(None));
        assert_eq!(parse_count("-1"), None);
        assert_eq!(parse_suffixed_count("10G"), Some(10 << 30));
        assert_eq!(parse_bool("Yes"), Some(true));
        assert_eq!(parse_bool("DOWN"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }

    proptest! {
        #[test]
        fn time_parsing_never_panics(s in "\\PC{0,20}") {
            let _ = parse_time_limit(&s);
            let _ = parse_memory_mb(&s);
        }

        #[test]
        fn d_h_m_s_round_trips(d in 0u64..400, h in 0u64..24, m in 0u64..60, s in 0u64..60) {
            let text = format!("{d}-{h:02}:{m:02}:{s:02}");
            prop_assert_eq!(parse_time_limit(&text), Ok(Some(((d * 24 + h) * 60 + m) * 60 + s)));
        }
    }
}
