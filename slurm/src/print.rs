//! How Slurm's listing commands (squeue, sinfo) lay out a line: the
//! pieces of a `-o` format (`%[.][width]code[suffix]`) and of a `-O`
//! format (`name[:[.][width][suffix]]`), and `_print_str`'s padding and
//! cutting of each cell. Which codes and names exist is each command's.

/// One `%`-code of a `-o` format, without its `%`: `.10i|` is right
/// justified, 10 wide, code `i`, suffix `|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeSpec<'a> {
    /// `.`: right justified.
    pub right: bool,
    /// The width (0: as wide as the value).
    pub width: usize,
    /// The code letter (None: the token ended first).
    pub code: Option<char>,
    /// What follows the code, printed after the cell.
    pub suffix: &'a str,
}

impl<'a> CodeSpec<'a> {
    /// Reads one token of a `-o` format.
    pub fn parse(token: &'a str) -> CodeSpec<'a> {
        let right = token.starts_with('.');
        let rest = if right { &token[1..] } else { token };
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let width = rest[..digits].parse().unwrap_or(0);
        let mut chars = rest[digits..].chars();
        let code = chars.next();
        CodeSpec {
            right,
            width,
            code,
            suffix: chars.as_str(),
        }
    }
}

/// A `-o` format's text before its first `%` (printed as it is), and its
/// `%` tokens without their `%`; empty tokens between consecutive `%` are
/// skipped, as strtok skips them.
pub fn code_tokens(format: &str) -> (&str, impl Iterator<Item = &str>) {
    let (prefix, rest) = format.split_at(format.find('%').unwrap_or(format.len()));
    (prefix, rest.split('%').filter(|t| !t.is_empty()))
}

/// One field of a `-O` format: `name`, `name:10`, `name:.10|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameSpec<'a> {
    /// The field's name as written.
    pub name: &'a str,
    /// `.`: right justified.
    pub right: bool,
    /// The width: 20 when none is given, 0 for a negative one.
    pub width: usize,
    /// What follows the width, printed after the cell.
    pub suffix: &'a str,
}

impl<'a> NameSpec<'a> {
    /// The width of a field written without one.
    pub const DEFAULT_WIDTH: usize = 20;

    /// Reads one comma-separated item of a `-O` format.
    pub fn parse(token: &'a str) -> NameSpec<'a> {
        let Some((name, spec)) = token.split_once(':') else {
            return NameSpec {
                name: token,
                right: false,
                width: NameSpec::DEFAULT_WIDTH,
                suffix: "",
            };
        };
        let right = spec.starts_with('.');
        let spec = if right { &spec[1..] } else { spec };
        let (width, suffix) = match crate::number::strtol(spec) {
            Some((w, rest)) => (usize::try_from(w).unwrap_or(0), rest),
            None => (0, spec),
        };
        NameSpec {
            name,
            right,
            width,
            suffix,
        }
    }
}

/// Slurm's `_print_str` of `text` into `out`: right justified (cut to the
/// width when `cut`), left justified (always cut, then padded), or as it
/// is (width 0). A NULL prints as glibc prints it: `(null)`, or nothing
/// under a precision below 6.
pub fn print_str(out: &mut String, text: Option<&str>, width: usize, right: bool, cut: bool) {
    let text = match text {
        Some(t) => t,
        None if !right && width > 0 && width < 6 => "",
        None => "(null)",
    };
    if width == 0 {
        out.push_str(text);
        return;
    }
    // Pad and cut without building intermediate strings: squeue prints
    // tens of thousands of cells.
    let len = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    let pad = |out: &mut String, mut n: usize| {
        const SPACES: &str = "                                                                ";
        while n > 0 {
            let chunk = n.min(SPACES.len());
            out.push_str(&SPACES[..chunk]);
            n -= chunk;
        }
    };
    let cut_to = |out: &mut String| match text.char_indices().nth(width) {
        Some((end, _)) => out.push_str(&text[..end]),
        None => out.push_str(text),
    };
    match (right, len >= width) {
        (true, false) => {
            pad(out, width - len);
            out.push_str(text);
        }
        (true, true) if !cut => out.push_str(text),
        (true, true) | (false, true) => cut_to(out),
        (false, false) => {
            out.push_str(text);
            pad(out, width - len);
        }
    }
}

/// [`print_str`] of a value into a string of its own.
pub fn padded(text: &str, width: usize, right: bool, cut: bool) -> String {
    let mut out = String::with_capacity(width.max(text.len()));
    print_str(&mut out, Some(text), width, right, cut);
    out
}

/// Ids as Slurm's `bit_fmt` writes a bitmap: sorted, runs as ranges,
/// `0-3,6`.
pub fn bit_fmt(ids: &[u32]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_fmt_writes_runs_as_ranges() {
        assert_eq!(bit_fmt(&[6, 0, 1, 2, 3]), "0-3,6");
        assert_eq!(bit_fmt(&[5, 5, 7]), "5,7");
        assert_eq!(bit_fmt(&[]), "");
    }

    #[test]
    fn cells_are_padded_and_cut_as_print_str_does() {
        assert_eq!(padded("abc", 5, false, true), "abc  ");
        assert_eq!(padded("abc", 5, true, true), "  abc");
        assert_eq!(padded("abcdefgh", 5, true, true), "abcde");
        assert_eq!(padded("abcdefgh", 5, true, false), "abcdefgh");
        assert_eq!(padded("abcdefgh", 5, false, false), "abcde");
        assert_eq!(padded("abc", 0, true, true), "abc");
        assert_eq!(padded("äöü", 4, true, true), " äöü");
        let mut out = String::new();
        print_str(&mut out, None, 4, false, true);
        print_str(&mut out, None, 8, true, true);
        assert_eq!(out, "      (null)");
    }

    #[test]
    fn format_pieces_are_read_as_slurm_reads_them() {
        let (prefix, tokens) = code_tokens("ID %.10i|%%x%5j");
        assert_eq!(prefix, "ID ");
        let specs: Vec<CodeSpec> = tokens.map(CodeSpec::parse).collect();
        assert_eq!(
            specs,
            [
                CodeSpec {
                    right: true,
                    width: 10,
                    code: Some('i'),
                    suffix: "|"
                },
                CodeSpec {
                    right: false,
                    width: 0,
                    code: Some('x'),
                    suffix: ""
                },
                CodeSpec {
                    right: false,
                    width: 5,
                    code: Some('j'),
                    suffix: ""
                },
            ]
        );
        assert_eq!(code_tokens("plain").0, "plain");
        let n = |t| NameSpec::parse(t);
        assert_eq!(
            (
                n("jobid").width,
                n("jobid:.8|").width,
                n("jobid:.8|").suffix
            ),
            (20, 8, "|")
        );
        assert!(n("jobid:.8").right && !n("jobid:8").right);
        assert_eq!(
            (n("name:").width, n("name:-3x").width, n("name:-3x").suffix),
            (0, 0, "x")
        );
    }
}
