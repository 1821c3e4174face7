//! Numbers as Slurm's C code reads them: `strtol` and its leniency
//! (leading blanks, a sign, digits, and whatever follows left to the
//! caller).

/// C's `strtol(text, &end, 10)`: the value and the text after its digits;
/// None when there are no digits (C's `end == text`). Skips C's white
/// space (`isspace`) only, and saturates on overflow, as strtol does.
pub fn strtol(text: &str) -> Option<(i64, &str)> {
    let s = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let n = body.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let value = match body[..n].parse::<i64>() {
        Ok(v) if neg => -v,
        Ok(v) => v,
        Err(_) if neg => i64::MIN,
        Err(_) => i64::MAX,
    };
    Some((value, &body[n..]))
}

/// [`strtol`] as C callers use it without checking `end`: 0 and the whole
/// text when there is no number.
pub fn strtol_or_zero(text: &str) -> (i64, &str) {
    strtol(text).unwrap_or((0, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_reads_as_c_does() {
        assert_eq!(strtol("12"), Some((12, "")));
        assert_eq!(strtol("  -7x"), Some((-7, "x")));
        assert_eq!(strtol("+3_1"), Some((3, "_1")));
        assert_eq!(strtol("x1"), None);
        assert_eq!(strtol("-"), None);
        assert_eq!(strtol(""), None);
        assert_eq!(strtol("99999999999999999999"), Some((i64::MAX, "")));
        assert_eq!(strtol("-99999999999999999999"), Some((i64::MIN, "")));
        assert_eq!(strtol_or_zero("abc"), (0, "abc"));
        assert_eq!(strtol_or_zero(" 5 "), (5, " "));
        // isspace is C's six, not Unicode's.
        assert_eq!(strtol("\u{a0}5"), None);
        assert_eq!(strtol("\x0b\t5"), Some((5, "")));
    }
}
