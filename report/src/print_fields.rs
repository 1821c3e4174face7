//! Slurm's print_fields routines (`src/common/print_fields.c`), which
//! sacct and sshare print their tables with: a header and a dashed line,
//! then fields in columns (a positive width right-aligns, a negative one
//! left-aligns; text too wide loses its end to a `+`), or `-p`/`-P`
//! delimited fields. Each field is followed by a space, the last one too.

use std::fmt::Write as _;

/// `-p`, `-P` or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parsable {
    /// Fixed-width columns.
    #[default]
    No,
    /// `-p`: a delimiter after every field.
    Ending,
    /// `-P`: a delimiter between fields.
    NoEnding,
}

/// How fields are written: parsable or not, and the delimiter (`|` when
/// None).
#[derive(Debug, Clone, Copy, Default)]
pub struct Style<'a> {
    /// `-p`/`-P`.
    pub parsable: Parsable,
    /// `--delimiter`.
    pub delimiter: Option<&'a str>,
}

impl Style<'_> {
    /// The delimiter after a parsable field (None: nothing, the last of
    /// -P).
    pub fn delimiter(&self, last: bool) -> Option<&str> {
        match self.parsable {
            Parsable::NoEnding if last => None,
            _ => Some(self.delimiter.unwrap_or("|")),
        }
    }

    /// The header (and, for columns, its dashed line) of fields named and
    /// sized as `columns`.
    pub fn header<'n>(
        &self,
        out: &mut String,
        columns: impl Iterator<Item = (&'n str, i32)> + Clone,
    ) {
        let count = columns.clone().count();
        if self.parsable != Parsable::No {
            for (i, (name, _)) in columns.enumerate() {
                out.push_str(name);
                if let Some(d) = self.delimiter(i + 1 == count) {
                    out.push_str(d);
                }
            }
            out.push('\n');
            return;
        }
        for (name, width) in columns.clone() {
            let cut: String = name.chars().take(width.unsigned_abs() as usize).collect();
            aligned(out, width, &cut);
            out.push(' ');
        }
        out.push('\n');
        for (_, width) in columns {
            out.extend(std::iter::repeat_n('-', width.unsigned_abs() as usize));
            out.push(' ');
        }
        out.push('\n');
    }

    /// A field already in its final text: delimited, or aligned in its
    /// column.
    fn put(&self, out: &mut String, width: i32, text: &str, last: bool) {
        if self.parsable != Parsable::No {
            out.push_str(text);
            if let Some(d) = self.delimiter(last) {
                out.push_str(d);
            }
            return;
        }
        aligned(out, width, text);
        out.push(' ');
    }

    /// print_fields_str: None is a blank column (an empty field when
    /// parsable); text wider than the column loses its end to a `+`.
    pub fn text(&self, out: &mut String, width: i32, value: Option<&str>, last: bool) {
        let abs = width.unsigned_abs() as usize;
        let text = match value {
            None => String::new(),
            Some(v) if self.parsable == Parsable::No && v.chars().count() > abs => {
                let mut cut: String = v.chars().take(abs.saturating_sub(1)).collect();
                if abs > 0 {
                    cut.push('+');
                }
                cut
            }
            Some(v) => v.to_string(),
        };
        self.put(out, width, &text, last);
    }

    /// print_fields_uint32 and _uint64: None (unset) is blank.
    pub fn uint(&self, out: &mut String, width: i32, value: Option<u64>, last: bool) {
        let text = value.map(|v| v.to_string()).unwrap_or_default();
        self.put(out, width, &text, last);
    }

    /// print_fields_double: `%f`, or in a column too narrow for it `%e`
    /// with as many digits as fit; None (unset) is blank.
    pub fn double(&self, out: &mut String, width: i32, value: Option<f64>, last: bool) {
        let Some(v) = value else {
            return self.put(out, width, "", last);
        };
        if self.parsable != Parsable::No {
            return self.put(out, width, &format!("{v:.6}"), last);
        }
        let abs = width.unsigned_abs() as usize;
        let fixed = format!("{v:.6}");
        let text = if fixed.len() > abs {
            let long = c_exp(v, abs);
            let precision = if long.len() > abs {
                abs.saturating_sub(long.len() - abs)
            } else {
                abs
            };
            c_exp(v, precision)
        } else {
            fixed
        };
        aligned(out, width, &text);
        out.push(' ');
    }
}

/// C's `%.{precision}e`: a mantissa and a signed exponent of at least two
/// digits.
fn c_exp(v: f64, precision: usize) -> String {
    let rust = format!("{v:.precision$e}");
    let (mantissa, exp) = rust.split_once('e').unwrap_or((&rust, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// One item of a `-o` list (`name%width`) as sshare and sstat read it: the
/// first entry of `table` whose name (`name_of`) starts with `name`, any
/// case, and the width `%` gives (C's atoi; 0 or none: the entry's
/// default, `default_of`). None: no such field, with the name asked for.
pub fn format_item<'t, 'i, T>(
    item: &'i str,
    table: &'t [T],
    name_of: impl Fn(&T) -> &str,
    default_of: impl Fn(&T) -> i32,
) -> Result<(&'t T, i32), &'i str> {
    let (name, width) = match item.split_once('%') {
        Some((n, w)) => (n, atoi(w)),
        None => (item, 0),
    };
    let entry = table
        .iter()
        .find(|e| {
            let full = name_of(e);
            full.len() >= name.len() && full[..name.len()].eq_ignore_ascii_case(name)
        })
        .ok_or(name)?;
    Ok((entry, if width == 0 { default_of(entry) } else { width }))
}

/// `--helpformat` of sacct, sstat and sshare: the field names, four to a
/// line, each padded to `width`, one space between them.
pub fn help_format<'n>(names: impl Iterator<Item = &'n str>, width: usize) -> String {
    let mut out = String::new();
    for (i, name) in names.enumerate() {
        if i % 4 != 0 {
            out.push(' ');
        } else if i != 0 {
            out.push('\n');
        }
        out.push_str(&format!("{name:<width$}"));
    }
    out.push('\n');
    out
}

/// C's atoi: leading digits (with a sign), 0 when there are none.
pub fn atoi(text: &str) -> i32 {
    let t = text.trim_start();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    sign * digits[..end].parse::<i32>().unwrap_or(0)
}

/// `text` padded to the column: right-aligned for a positive width.
pub fn aligned(out: &mut String, width: i32, text: &str) {
    let w = width.unsigned_abs() as usize;
    if width >= 0 {
        let _ = write!(out, "{text:>w$}");
    } else {
        let _ = write!(out, "{text:<w$}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_c_does_in_their_columns() {
        let style = Style::default();
        let mut out = String::new();
        style.double(&mut out, 11, Some(0.5), false);
        style.double(&mut out, 11, Some(1_234_567.0), false);
        style.double(&mut out, -13, Some(1.0), false);
        style.double(&mut out, 10, None, true);
        assert_eq!(out, "   0.500000 1.23457e+06 1.000000                 ");
        let mut out = String::new();
        let p = Style {
            parsable: Parsable::NoEnding,
            delimiter: None,
        };
        p.double(&mut out, 11, Some(0.25), false);
        p.uint(&mut out, 10, None, false);
        p.text(&mut out, 10, Some("root"), true);
        assert_eq!(out, "0.250000||root");
    }

    #[test]
    fn headers_are_cut_to_their_columns_and_underlined() {
        let mut out = String::new();
        Style::default().header(&mut out, [("Account", -20), ("RawShares", 5)].into_iter());
        assert_eq!(
            out,
            "Account              RawSh \n-------------------- ----- \n"
        );
    }
}
