//! Times as Slurm's `parse_time()` reads them (`--begin`, `--deadline`,
//! sacct's `-S`/`-E`, scontrol's StartTime): `now[+N[units]]`,
//! `HH:MM[:SS][AM|PM]`, `MMDD[YY]`, `MM/DD[/YY]`, `YYYY-MM-DD[THH:MM[:SS]]`,
//! `midnight`, `noon`, `elevenses`, `fika`, `teatime`, `today`, `tomorrow`,
//! `uts<seconds>`. Local time, like Slurm; the clock is an argument.

/// Broken-down time fields; -1 is "not given".
#[derive(Debug, Clone, Copy)]
struct Fields {
    hour: i32,
    minute: i32,
    second: i32,
    month: i32,
    mday: i32,
    year: i32,
}

/// The time units `now+N<unit>` takes, longest spelling first.
const UNITS: &[(&str, i64)] = &[
    ("seconds", 1),
    ("second", 1),
    ("minutes", 60),
    ("minute", 60),
    ("hours", 3600),
    ("hour", 3600),
    ("days", 86_400),
    ("day", 86_400),
    ("weeks", 604_800),
    ("week", 604_800),
];

/// The byte at `i`, or NUL past the end (the C code walks a C string).
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn starts_ci(s: &[u8], word: &str) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word.as_bytes())
}

/// A time as Slurm's `parse_time(text, past=1)` reads it (sacct's -S and
/// -E): a time of day or a date without a year is the latest one not in
/// the future. Ok(None) when the text names no time at all, Err(pos) where
/// it stopped making sense.
pub fn parse_past(text: &str, now: i64) -> Result<Option<i64>, usize> {
    parse_time(text.as_bytes(), now, true)
}

/// A time as Slurm's `parse_time(text, past=0)` reads it (`--begin`): a
/// time of day or a date without a year is the next one. Ok(None) when the
/// text names no time at all, Err(pos) where it stopped making sense.
pub fn parse_future(text: &str, now: i64) -> Result<Option<i64>, usize> {
    parse_time(text.as_bytes(), now, false)
}

/// Slurm's `_parse_time`: Ok(None) when the text names no time at all,
/// Err(pos) where it stopped making sense. `past` looks back for what is
/// left out, else ahead.
fn parse_time(s: &[u8], now: i64, past: bool) -> Result<Option<i64>, usize> {
    if starts_ci(s, "uts") {
        let digits = std::str::from_utf8(&s[3..]).map_err(|_| 3usize)?;
        return match digits.parse::<i64>() {
            Ok(uts) if uts >= 1_000_000 => Ok(Some(uts)),
            _ => Err(0),
        };
    }
    let now_tm = crate::time::local(now);
    let mut f = Fields {
        hour: -1,
        minute: -1,
        second: 0,
        month: -1,
        mday: -1,
        year: -1,
    };
    let mut pos = 0;
    while pos < s.len() && s[pos] != b'\n' {
        let c = s[pos];
        if matches!(c, b' ' | b'\t' | b'-' | b'T') {
            pos += 1;
        } else if let Some(len) = keyword(&s[pos..], now, &mut f) {
            pos += len;
        } else if starts_ci(&s[pos..], "now") {
            pos = now_offset(s, pos, now, &mut f)?;
        } else if !c.is_ascii_digit() {
            return Err(pos);
        } else if at(s, pos + 1) == b':' || at(s, pos + 2) == b':' {
            pos = get_time(s, pos, &mut f)?;
        } else {
            pos = get_date(s, pos, &mut f)?;
        }
    }
    Ok(resolve(f, &now_tm, now, past))
}

/// The named times and days; returns how many bytes the name took.
fn keyword(s: &[u8], now: i64, f: &mut Fields) -> Option<usize> {
    let mut clock = |h, len| {
        (f.hour, f.minute, f.second) = (h, 0, 0);
        Some(len)
    };
    if starts_ci(s, "midnight") {
        return clock(0, 8);
    }
    if starts_ci(s, "noon") {
        return clock(12, 4);
    }
    if starts_ci(s, "elevenses") {
        return clock(11, 9);
    }
    if starts_ci(s, "fika") {
        return clock(15, 4);
    }
    if starts_ci(s, "teatime") {
        return clock(16, 7);
    }
    let (day, len) = if starts_ci(s, "today") {
        (now, 5)
    } else if starts_ci(s, "tomorrow") {
        (now + 86_400, 8)
    } else {
        return None;
    };
    let tm = crate::time::local(day);
    (f.month, f.mday, f.year) = (tm.tm_mon, tm.tm_mday, tm.tm_year);
    Some(len)
}

/// `now`, `now+N[unit]`, `now-N[unit]`, starting at `pos`.
fn now_offset(s: &[u8], pos: usize, now: i64, f: &mut Fields) -> Result<usize, usize> {
    let mut i = pos + 3;
    let (next, delta) = loop {
        match at(s, i) {
            b'+' => break get_delta(s, i)?,
            b'-' => {
                let (next, d) = get_delta(s, i)?;
                break (next, -d);
            }
            b' ' | b'\t' => i += 1,
            0 | b'\n' => break (i, 0),
            _ => return Err(i),
        }
    };
    let then = now.checked_add(delta).ok_or(pos)?;
    let tm = crate::time::local(then);
    (f.month, f.mday, f.year) = (tm.tm_mon, tm.tm_mday, tm.tm_year);
    (f.hour, f.minute, f.second) = (tm.tm_hour, tm.tm_min, tm.tm_sec);
    Ok(next)
}

/// The count and unit after the sign at `sign`: (next position, seconds).
fn get_delta(s: &[u8], sign: usize) -> Result<(usize, i64), usize> {
    let mut count: i64 = 0;
    let mut digits = 0;
    let mut o = sign + 1;
    while !matches!(at(s, o), 0 | b'\n') {
        let c = at(s, o);
        if c.is_ascii_whitespace() {
            o += 1;
            continue;
        }
        if let Some(&(name, mult)) = UNITS.iter().find(|(n, _)| starts_ci(&s[o..], n)) {
            o += name.len();
            count = count.checked_mul(mult).ok_or(sign)?;
            break;
        }
        if !c.is_ascii_digit() {
            return Err(o.saturating_sub(1));
        }
        count = count
            .checked_mul(10)
            .and_then(|n| n.checked_add(i64::from(c - b'0')))
            .ok_or(sign)?;
        digits += 1;
        o += 1;
    }
    if digits == 0 {
        return Err(sign);
    }
    Ok((o, count))
}

/// Reads one digit at `*o` and moves past it.
fn digit(s: &[u8], o: &mut usize) -> Result<i32, usize> {
    let c = at(s, *o);
    if !c.is_ascii_digit() {
        return Err(*o);
    }
    *o += 1;
    Ok(i32::from(c - b'0'))
}

/// Reads one or two digits at `*o`.
fn one_or_two(s: &[u8], o: &mut usize) -> Result<i32, usize> {
    let mut n = digit(s, o)?;
    if at(s, *o).is_ascii_digit() {
        n = n * 10 + digit(s, o)?;
    }
    Ok(n)
}

/// `HH:MM[:SS] [AM|PM]` at `pos`.
fn get_time(s: &[u8], pos: usize, f: &mut Fields) -> Result<usize, usize> {
    let mut o = pos;
    let mut hour = digit(s, &mut o)?;
    if at(s, o) != b':' {
        hour = hour * 10 + digit(s, &mut o)?;
    }
    if hour > 23 || at(s, o) != b':' {
        return Err(o);
    }
    o += 1;
    let minute = digit(s, &mut o)? * 10 + digit(s, &mut o)?;
    if minute > 59 {
        return Err(o - 2);
    }
    let mut second = 0;
    if at(s, o) == b':' {
        o += 1;
        second = digit(s, &mut o)? * 10 + digit(s, &mut o)?;
        if second > 59 {
            return Err(o - 2);
        }
    }
    while at(s, o).is_ascii_whitespace() {
        o += 1;
    }
    if starts_ci(&s[o.min(s.len())..], "pm") {
        hour += 12;
        if hour == 24 {
            hour = 12;
        } else if hour > 23 {
            return Err(o);
        }
        o += 2;
    } else if starts_ci(&s[o.min(s.len())..], "am") {
        if hour == 12 {
            hour = 0;
        } else if hour > 11 {
            return Err(o);
        }
        o += 2;
    }
    (f.hour, f.minute, f.second) = (hour, minute, second);
    Ok(o)
}

/// `YYYY-MM-DD`, `MMDD[YY]`, `MM/DD[/YY]` or `MM.DD[.YY]` at `pos`.
fn get_date(s: &[u8], pos: usize, f: &mut Fields) -> Result<usize, usize> {
    let mut o = pos;
    let iso = at(s, pos + 4) == b'-' && at(s, pos + 7) == b'-';
    let year = if iso {
        let mut y = 0;
        for _ in 0..4 {
            y = y * 10 + digit(s, &mut o)?;
        }
        o += 1;
        Some(y - 1900)
    } else {
        None
    };
    let month = one_or_two(s, &mut o)?;
    if !(1..=12).contains(&month) {
        return Err(o.saturating_sub(2));
    }
    if iso || matches!(at(s, o), b'.' | b'/') {
        o += 1;
    }
    let mday = one_or_two(s, &mut o)?;
    if !(1..=31).contains(&mday) {
        return Err(o.saturating_sub(2));
    }
    let year = match year {
        Some(y) => Some(y),
        None => {
            if matches!(at(s, o), b'.' | b'/') {
                o += 1;
            }
            if at(s, o).is_ascii_digit() {
                Some(digit(s, &mut o)? * 10 + digit(s, &mut o)? + 100)
            } else {
                None
            }
        }
    };
    (f.month, f.mday) = (month - 1, mday);
    if let Some(y) = year {
        f.year = y;
    }
    Ok(o)
}

/// Fills in what was left out as Slurm does (the next such time of day,
/// this year or the next; with `past`, today and this year or the last)
/// and converts to Unix seconds.
fn resolve(mut f: Fields, now: &libc::tm, now_secs: i64, past: bool) -> Option<i64> {
    match (f.hour == -1, f.month == -1) {
        (true, true) => return None,
        (true, false) => (f.hour, f.minute) = (0, 0),
        (false, true) => {
            let later_today =
                past || f.hour > now.tm_hour || (f.hour == now.tm_hour && f.minute > now.tm_min);
            let day = if later_today {
                *now
            } else {
                crate::time::local(now_secs + 86_400)
            };
            (f.month, f.mday, f.year) = (day.tm_mon, day.tm_mday, day.tm_year);
        }
        (false, false) => {}
    }
    if f.year == -1 && past {
        f.year = now.tm_year - i32::from(f.month > now.tm_mon);
    }
    if f.year == -1 {
        let this_year = (f.month, f.mday, f.hour, f.minute)
            > (now.tm_mon, now.tm_mday, now.tm_hour, now.tm_min);
        f.year = now.tm_year + i32::from(!this_year);
    }
    mktime(&f)
}

/// Local broken-down time to Unix seconds, daylight saving decided by the
/// date (Slurm's slurm_mktime).
fn mktime(f: &Fields) -> Option<i64> {
    // SAFETY: an all-zero tm is a valid starting value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    (tm.tm_sec, tm.tm_min, tm.tm_hour) = (f.second, f.minute, f.hour);
    (tm.tm_mday, tm.tm_mon, tm.tm_year) = (f.mday, f.month, f.year);
    tm.tm_isdst = -1;
    // SAFETY: tm is a valid, initialised struct that mktime may normalise.
    let t = unsafe { libc::mktime(&mut tm) };
    // time_t is narrower than i64 on some targets.
    #[allow(clippy::useless_conversion)]
    let t = i64::from(t);
    (t != -1).then_some(t)
}

/// Unix seconds of a local date and time (month 1 to 12), as mktime
/// gives them; None for a time that does not exist.
pub fn local_to_unix(
    year: i32,
    month: i32,
    mday: i32,
    hour: i32,
    min: i32,
    sec: i32,
) -> Option<i64> {
    mktime(&Fields {
        hour,
        minute: min,
        second: sec,
        month: month - 1,
        mday,
        year: year - 1900,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_ahead_or_back_from_now() {
        let now = local_to_unix(2026, 3, 10, 12, 0, 0).expect("a date");
        assert_eq!(parse_future("now+1hour", now), Ok(Some(now + 3600)));
        assert_eq!(
            parse_future("11:00", now),
            Ok(local_to_unix(2026, 3, 11, 11, 0, 0))
        );
        assert_eq!(
            parse_past("11:00", now),
            Ok(local_to_unix(2026, 3, 10, 11, 0, 0))
        );
        // Looking back, a time of day is today's, and a date without a
        // year this year's unless its month is still ahead.
        assert_eq!(
            parse_past("13:00", now),
            Ok(local_to_unix(2026, 3, 10, 13, 0, 0))
        );
        assert_eq!(
            parse_past("04/01", now),
            Ok(local_to_unix(2025, 4, 1, 0, 0, 0))
        );
        assert_eq!(parse_future("  ", now), Ok(None));
        assert_eq!(parse_future("bogus", now), Err(0));
    }

    #[test]
    fn offsets_past_what_a_time_holds_are_errors_not_wrapped() {
        let now = local_to_unix(2026, 3, 10, 12, 0, 0).expect("a date");
        assert_eq!(parse_future("now+99999999999999999999", now), Err(3));
        assert_eq!(parse_future("now+9999999999999999weeks", now), Err(3));
    }
}
