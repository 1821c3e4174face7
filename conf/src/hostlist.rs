//! Slurm hostlist expressions (`gb[001-018,020]`) read and written exactly as
//! Slurm's `src/common/hostlist.c` does on one-dimensional clusters: `expand`
//! is `scontrol show hostnames`, `compress` is `scontrol show hostlist`,
//! `compress_sorted` is `scontrol show hostlistsorted` (and the node lists
//! slurmctld prints). Pure string work: no I/O, no node table.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::fmt;

use thiserror::Error;

/// Most hosts one numeric range may hold (Slurm's `MAX_RANGE`, 64K hosts).
pub const MAX_RANGE_HOSTS: u64 = 65_536;

/// Most names one expression may expand to (a guard against memory blow-ups).
pub const MAX_EXPANDED_HOSTS: usize = 1 << 20;

/// Most bytes the expanded names of one expression may take together.
const MAX_EXPANDED_BYTES: usize = 64 << 20;

/// Widest zero-padded number accepted inside brackets.
const MAX_NUMBER_WIDTH: usize = 64;

/// Separators between hostlist tokens, as in Slurm's `hostlist_create`.
const SEPARATORS: &[u8] = b"\t, \n";

/// A hostlist expression that cannot be expanded.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HostlistError {
    /// The expression names no host at all.
    #[error("empty hostlist expression")]
    Empty,
    /// The expression is malformed.
    #[error("invalid hostlist \"{expr}\": {problem}")]
    Invalid {
        /// The whole expression as given.
        expr: String,
        /// What is wrong with it.
        problem: HostlistProblem,
    },
    /// The expression expands to more names than spur accepts.
    #[error("hostlist \"{expr}\" expands to more than {limit} hosts")]
    TooManyHosts {
        /// The whole expression as given.
        expr: String,
        /// The limit that was passed.
        limit: usize,
    },
}

/// What is wrong with a malformed hostlist expression.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostlistProblem {
    /// A `[` has no matching `]`.
    MissingCloseBracket,
    /// A `]` has no matching `[`, or brackets are nested.
    UnexpectedBracket,
    /// `[]` or an empty element such as `[1,,3]`.
    EmptyRange,
    /// A range element is not a number or `lo-hi`.
    NotANumber(String),
    /// `lo-` with no upper bound.
    MissingUpperBound(String),
    /// `hi < lo`.
    Descending {
        /// The lower bound as written.
        lo: String,
        /// The upper bound as written.
        hi: String,
    },
    /// A number does not fit in 64 bits or is absurdly wide.
    NumberTooLarge(String),
    /// One range holds more than [`MAX_RANGE_HOSTS`] hosts.
    RangeTooLarge(String),
}

impl fmt::Display for HostlistProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingCloseBracket => write!(f, "missing ']'"),
            Self::UnexpectedBracket => write!(f, "unexpected bracket"),
            Self::EmptyRange => write!(f, "empty range"),
            Self::NotANumber(s) => write!(f, "\"{s}\" is not a number or range"),
            Self::MissingUpperBound(s) => write!(f, "range \"{s}\" has no upper bound"),
            Self::Descending { lo, hi } => write!(f, "range \"{lo}-{hi}\" is descending"),
            Self::NumberTooLarge(s) => write!(f, "number \"{s}\" is too large"),
            Self::RangeTooLarge(s) => {
                write!(f, "range \"{s}\" holds more than {MAX_RANGE_HOSTS} hosts")
            }
        }
    }
}

/// Expands a hostlist expression into host names, in Slurm's order, keeping
/// duplicates (`scontrol show hostnames`).
///
/// Handles comma/space separated tokens, bracketed ranges with zero padding
/// (`n[08-10]` gives n08 n09 n10), several bracket groups (`r[1-2]n[01-03]`,
/// ordered as Slurm orders them) and text after the brackets (`n[1-2]-ib`).
pub fn expand(expr: &str) -> Result<Vec<String>, HostlistError> {
    let invalid = |problem| HostlistError::Invalid {
        expr: expr.to_string(),
        problem,
    };
    let mut out = Budget::default();
    for token in tokens(expr) {
        expand_token(token, &mut out).map_err(invalid)?;
        if out.exceeded {
            return Err(HostlistError::TooManyHosts {
                expr: expr.to_string(),
                limit: MAX_EXPANDED_HOSTS,
            });
        }
    }
    if out.names.is_empty() {
        return Err(HostlistError::Empty);
    }
    Ok(out.names)
}

/// Writes names as a ranged hostlist exactly as `scontrol show hostlist`
/// does: input order kept, duplicates kept, consecutive numbers of one
/// prefix and compatible zero padding merged (`n1,n2,n3,n5` -> `n[1-3,5]`).
///
/// `expand(&compress(x)) == x` for names without separators or brackets.
pub fn compress<S: AsRef<str>>(names: &[S]) -> String {
    ranged_string(&push_all(names))
}

/// Writes names sorted as `scontrol show hostlistsorted` does (Slurm's
/// `hostlist_sort`): natural order of prefixes, then numbers; duplicates are
/// kept. This is the form slurmctld uses for node lists.
pub fn compress_sorted<S: AsRef<str>>(names: &[S]) -> String {
    let mut ranges = msort(push_all(names));
    coalesce(&mut ranges);
    ranged_string(&ranges)
}

/// The names sorted in Slurm's order with repeats dropped, each as given
/// (what `hostlist_uniq` leaves in a list of single hosts).
pub fn unique<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let hosts = names.iter().map(|n| HostRange::from_name(n.as_ref()));
    let mut out: Vec<String> = msort(hosts.collect())
        .iter()
        .map(|h| {
            if h.single {
                h.prefix.clone()
            } else {
                format!("{}{:0width$}", h.prefix, h.lo, width = h.width)
            }
        })
        .collect();
    out.dedup();
    out
}

/// Writes names sorted with duplicates removed (Slurm's `hostlist_uniq`).
///
/// `expand(&compress_unique(x))` is `x` sorted in Slurm's order, each name once.
pub fn compress_unique<S: AsRef<str>>(names: &[S]) -> String {
    let mut ranges = msort(push_all(names));
    let mut i = 1;
    while i < ranges.len() {
        let (head, tail) = ranges.split_at_mut(i);
        let joined = match (head.last_mut(), tail.first_mut()) {
            (Some(h1), Some(h2)) => join(h1, h2),
            _ => false,
        };
        if joined {
            ranges.remove(i);
        } else {
            i += 1;
        }
    }
    ranged_string(&ranges)
}

// ---------------------------------------------------------------------------
// Expansion

#[derive(Default)]
struct Budget {
    names: Vec<String>,
    bytes: usize,
    exceeded: bool,
}

impl Budget {
    fn over(&self) -> bool {
        self.names.len() >= MAX_EXPANDED_HOSTS || self.bytes > MAX_EXPANDED_BYTES
    }

    fn push(&mut self, name: String) -> bool {
        self.bytes = self.bytes.saturating_add(name.len());
        if self.over() {
            self.exceeded = true;
            return false;
        }
        self.names.push(name);
        true
    }
}

/// Splits at separators that are not inside brackets (Slurm's `_next_tok`).
fn tokens(expr: &str) -> Vec<&str> {
    let bytes = expr.as_bytes();
    let mut depth = 0usize;
    let mut start = 0usize;
    let mut out = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            _ if depth == 0 && SEPARATORS.contains(&b) => {
                if start < i {
                    out.push(&expr[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < bytes.len() {
        out.push(&expr[start..]);
    }
    out
}

/// One numeric range as written inside brackets.
#[derive(Debug, Clone, Copy)]
struct NumRange {
    lo: u64,
    hi: u64,
    width: usize,
}

fn expand_token(token: &str, out: &mut Budget) -> Result<(), HostlistProblem> {
    let Some(open) = token.rfind('[') else {
        if token.contains(']') {
            return Err(HostlistProblem::UnexpectedBracket);
        }
        out.push(token.to_string());
        return Ok(());
    };
    let close = token[open..]
        .find(']')
        .map(|c| open + c)
        .ok_or(HostlistProblem::MissingCloseBracket)?;
    let suffix = &token[close + 1..];
    if suffix.contains('[') || suffix.contains(']') {
        return Err(HostlistProblem::UnexpectedBracket);
    }
    let ranges = parse_range_list(&token[open + 1..close])?;
    let mut prefix_bytes = 0usize;
    for prefix in prefixes(&token[..open], &mut prefix_bytes)? {
        for r in &ranges {
            for n in r.lo..=r.hi {
                if !out.push(format!("{prefix}{n:0w$}{suffix}", w = r.width)) {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// Expands the bracket groups left of the last one, in the order of Slurm's
/// `_push_range_list`: the last remaining group is the outer loop and the
/// ones before it are expanded recursively inside it.
///
/// `bytes` counts what has been built; past the expansion budget the list is
/// cut short, and the caller's [`Budget`] then reports the overflow.
fn prefixes(prefix: &str, bytes: &mut usize) -> Result<Vec<String>, HostlistProblem> {
    let Some(open) = prefix.rfind('[') else {
        if prefix.contains(']') {
            return Err(HostlistProblem::UnexpectedBracket);
        }
        return Ok(vec![prefix.to_string()]);
    };
    let close = prefix[open..]
        .find(']')
        .map(|c| open + c)
        .ok_or(HostlistProblem::MissingCloseBracket)?;
    let (before, after) = (&prefix[..open], &prefix[close + 1..]);
    if after.contains('[') || after.contains(']') {
        return Err(HostlistProblem::UnexpectedBracket);
    }
    let ranges = parse_range_list(&prefix[open + 1..close])?;
    let mut out = Vec::new();
    for r in &ranges {
        for n in r.lo..=r.hi {
            let joined = format!("{before}{n:0w$}{after}", w = r.width);
            let inner = prefixes(&joined, bytes)?;
            *bytes = bytes.saturating_add(inner.iter().map(String::len).sum());
            out.extend(inner);
            if out.len() > MAX_EXPANDED_HOSTS || *bytes > MAX_EXPANDED_BYTES {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// Parses `1-3,5,08-10` (Slurm's `_parse_range_list`).
fn parse_range_list(list: &str) -> Result<Vec<NumRange>, HostlistProblem> {
    list.split(',').map(parse_single_range).collect()
}

fn parse_single_range(element: &str) -> Result<NumRange, HostlistProblem> {
    let element = element.trim_matches(|c: char| c.is_ascii_whitespace());
    if element.is_empty() {
        return Err(HostlistProblem::EmptyRange);
    }
    let (lo_s, hi_s) = match element.split_once('-') {
        Some((lo, hi)) => (lo, Some(hi)),
        None => (element, None),
    };
    let lo = parse_number(lo_s, element)?;
    let hi = match hi_s {
        None => lo,
        Some("") => return Err(HostlistProblem::MissingUpperBound(element.to_string())),
        Some(h) => parse_number(h, element)?,
    };
    if hi < lo {
        return Err(HostlistProblem::Descending {
            lo: lo_s.to_string(),
            hi: hi_s.unwrap_or_default().to_string(),
        });
    }
    if hi - lo >= MAX_RANGE_HOSTS {
        return Err(HostlistProblem::RangeTooLarge(element.to_string()));
    }
    Ok(NumRange {
        lo,
        hi,
        width: lo_s.len(),
    })
}

fn parse_number(s: &str, element: &str) -> Result<u64, HostlistProblem> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HostlistProblem::NotANumber(element.to_string()));
    }
    if s.len() > MAX_NUMBER_WIDTH {
        return Err(HostlistProblem::NumberTooLarge(s.to_string()));
    }
    s.parse()
        .map_err(|_| HostlistProblem::NumberTooLarge(s.to_string()))
}

// ---------------------------------------------------------------------------
// Compression: a port of Slurm's hostrange_t logic.

/// Slurm's `hostrange_t`: `prefix` + numbers `lo..=hi` printed with
/// `width` digits, or a `single` host whose name is all in `prefix`.
#[derive(Debug, Clone)]
struct HostRange {
    prefix: String,
    lo: u64,
    hi: u64,
    width: usize,
    single: bool,
}

impl HostRange {
    fn from_name(name: &str) -> Self {
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        let split = name.len() - digits;
        // A suffix too long for u64 is kept whole (Slurm would saturate it).
        match name[split..].parse::<u64>() {
            Ok(num) if digits > 0 => Self {
                prefix: name[..split].to_string(),
                lo: num,
                hi: num,
                width: digits,
                single: false,
            },
            _ => Self {
                prefix: name.to_string(),
                lo: 0,
                hi: 0,
                width: 0,
                single: true,
            },
        }
    }

    fn count(&self) -> u64 {
        if self.single {
            1
        } else {
            self.hi - self.lo + 1
        }
    }
}

fn push_all<S: AsRef<str>>(names: &[S]) -> Vec<HostRange> {
    let mut ranges: Vec<HostRange> = Vec::new();
    for name in names {
        let mut hr = HostRange::from_name(name.as_ref());
        // hostlist_push_range: extend the tail when hr continues it.
        if let Some(tail) = ranges.last_mut() {
            if hr.lo.checked_sub(1) == Some(tail.hi)
                && prefix_cmp(tail, &hr) == Ordering::Equal
                && width_combine(tail, &mut hr)
            {
                tail.hi = hr.hi;
                continue;
            }
        }
        ranges.push(hr);
    }
    ranges
}

fn digits(mut num: u64) -> usize {
    let mut n = 1;
    while num >= 10 {
        num /= 10;
        n += 1;
    }
    n
}

/// The number of zeros needed to pad `num` to `width` (`_zero_padded`).
fn zero_padded(num: u64, width: usize) -> usize {
    width.saturating_sub(digits(num))
}

/// Slurm's `_width_equiv`: whether one width can print both numbers without
/// changing the zero padding of either; adjusts one width when it can.
fn width_equiv(n: u64, wn: &mut usize, m: u64, wm: &mut usize) -> bool {
    if *wn == *wm {
        return true;
    }
    let npad = zero_padded(n, *wn);
    let nmpad = zero_padded(n, *wm);
    let mpad = zero_padded(m, *wm);
    let mnpad = zero_padded(m, *wn);
    if npad != nmpad && mpad != mnpad {
        false
    } else {
        if npad != nmpad {
            *wm = *wn;
        } else {
            *wn = *wm;
        }
        true
    }
}

fn width_combine(h0: &mut HostRange, h1: &mut HostRange) -> bool {
    width_equiv(h0.lo, &mut h0.width, h1.lo, &mut h1.width)
}

/// Slurm's `hostrange_prefix_cmp`: natural order of prefixes, and a single
/// host before a numbered range with the same prefix.
///
/// Unlike Slurm, prefixes that `strnatcmp` calls equal but that differ in
/// whitespace or NUL bytes are told apart byte by byte, so that `compress`
/// never merges two different prefixes.
fn prefix_cmp(h1: &HostRange, h2: &HostRange) -> Ordering {
    let (a, b) = (h1.prefix.as_bytes(), h2.prefix.as_bytes());
    strnatcmp(a, b)
        .then_with(|| a.cmp(b))
        .then_with(|| h2.single.cmp(&h1.single))
}

/// Slurm's `hostrange_within_range`: same bracket group when printed.
fn within_range(h1: &HostRange, h2: &HostRange) -> bool {
    prefix_cmp(h1, h2) == Ordering::Equal && !h1.single && !h2.single
}

/// Slurm's `hostrange_cmp`, including its truncation of `lo - lo` to `int`.
fn hostrange_cmp(h1: &mut HostRange, h2: &mut HostRange) -> i64 {
    match prefix_cmp(h1, h2) {
        Ordering::Less => -1,
        Ordering::Greater => 1,
        Ordering::Equal => {
            if width_combine(h1, h2) {
                // C: `h1->lo - h2->lo` (unsigned long) returned as int.
                i64::from(h1.lo.wrapping_sub(h2.lo) as i32)
            } else {
                h1.width as i64 - h2.width as i64
            }
        }
    }
}

/// glibc's merge sort (`msort`), which Debian's `qsort` uses: stable, and
/// never panics whatever the comparator does.
fn msort(mut v: Vec<HostRange>) -> Vec<HostRange> {
    if v.len() <= 1 {
        return v;
    }
    let right = v.split_off(v.len() / 2);
    let mut a: VecDeque<HostRange> = msort(v).into();
    let mut b: VecDeque<HostRange> = msort(right).into();
    let mut out = Vec::with_capacity(a.len() + b.len());
    while let (Some(x), Some(y)) = (a.front_mut(), b.front_mut()) {
        let take_a = hostrange_cmp(x, y) <= 0;
        let next = if take_a { a.pop_front() } else { b.pop_front() };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
}

/// Slurm's `hostrange_intersect` (h1 sorts before h2).
fn intersect(h1: &mut HostRange, h2: &mut HostRange) -> Option<HostRange> {
    if h1.single || h2.single {
        return None;
    }
    if h1.hi > h2.lo && prefix_cmp(h1, h2) == Ordering::Equal && width_combine(h1, h2) {
        let mut new = h1.clone();
        new.lo = h2.lo;
        new.hi = h2.hi.min(h1.hi);
        return Some(new);
    }
    None
}

/// Slurm's `hostlist_coalesce`: splits overlapping sorted ranges so that
/// every duplicate is kept, then `hostlist_collapse` joins neighbours.
fn coalesce(hr: &mut Vec<HostRange>) {
    let mut i = hr.len().saturating_sub(1);
    while i > 0 {
        let (head, tail) = hr.split_at_mut(i);
        let found = match (head.last_mut(), tail.first_mut()) {
            (Some(prev), Some(next)) => intersect(prev, next).inspect(|new| {
                if new.hi < prev.hi {
                    next.hi = prev.hi;
                }
                prev.hi = new.lo;
                next.lo = new.hi;
            }),
            _ => None,
        };
        if let Some(new) = found {
            // prev.hi == new.lo and next.lo == new.hi now; prev is never
            // empty because sorting put new.lo >= prev.lo.
            let mut j = i;
            for n in new.lo..=new.hi {
                let single = HostRange {
                    lo: n,
                    hi: n,
                    ..new.clone()
                };
                if n > new.lo {
                    hr.insert(j, single.clone());
                    j += 1;
                }
                if n < new.hi {
                    hr.insert(j, single);
                    j += 1;
                }
            }
            i = hr.len();
        }
        i -= 1;
    }
    collapse(hr);
}

/// Slurm's `hostlist_collapse`: joins neighbouring ranges that continue
/// each other.
fn collapse(hr: &mut Vec<HostRange>) {
    let mut i = hr.len().saturating_sub(1);
    while i > 0 {
        let (head, tail) = hr.split_at_mut(i);
        if let (Some(prev), Some(next)) = (head.last_mut(), tail.first_mut()) {
            if next.lo.checked_sub(1) == Some(prev.hi)
                && prefix_cmp(prev, next) == Ordering::Equal
                && width_combine(prev, next)
            {
                prev.hi = next.hi;
                hr.remove(i);
            }
        }
        i -= 1;
    }
}

/// Slurm's `hostrange_join` as used by `hostlist_uniq`: merges h2 into h1
/// when they touch or overlap; returns whether it did.
fn join(h1: &mut HostRange, h2: &mut HostRange) -> bool {
    if prefix_cmp(h1, h2) != Ordering::Equal || !width_combine(h1, h2) {
        return false;
    }
    if h1.single && h2.single {
        true
    } else if h2.lo.checked_sub(1) == Some(h1.hi) {
        h1.hi = h2.hi;
        true
    } else if h1.hi >= h2.lo {
        h1.hi = h1.hi.max(h2.hi);
        true
    } else {
        false
    }
}

fn numstr(hr: &HostRange, out: &mut String) {
    use fmt::Write as _;
    if hr.single {
        return;
    }
    let w = hr.width;
    // Writing into a String cannot fail.
    let _ = write!(out, "{:0w$}", hr.lo);
    if hr.lo < hr.hi {
        let _ = write!(out, "-{:0w$}", hr.hi);
    }
}

/// Slurm's `hostlist_ranged_string` / `_get_bracketed_list`.
fn ranged_string(hr: &[HostRange]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < hr.len() {
        if i > 0 {
            out.push(',');
        }
        let start = i;
        let bracket =
            hr[i].count() > 1 || hr.get(i + 1).is_some_and(|next| within_range(&hr[i], next));
        out.push_str(&hr[i].prefix);
        if bracket {
            out.push('[');
        }
        loop {
            if i > start {
                out.push(',');
            }
            numstr(&hr[i], &mut out);
            i += 1;
            if i >= hr.len() || !within_range(&hr[i], &hr[i - 1]) {
                break;
            }
        }
        if bracket {
            out.push(']');
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Slurm's strnatcmp (Martin Pool's natural order), ported byte for byte.

fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn compare_right(a: &[u8], b: &[u8]) -> Ordering {
    let mut bias = Ordering::Equal;
    let mut i = 0;
    loop {
        let (ca, cb) = (at(a, i), at(b, i));
        match (ca.is_ascii_digit(), cb.is_ascii_digit()) {
            (false, false) => return bias,
            (false, true) => return Ordering::Less,
            (true, false) => return Ordering::Greater,
            (true, true) => {
                if bias == Ordering::Equal {
                    bias = ca.cmp(&cb);
                }
            }
        }
        i += 1;
    }
}

fn compare_left(a: &[u8], b: &[u8]) -> Ordering {
    let mut i = 0;
    loop {
        let (ca, cb) = (at(a, i), at(b, i));
        match (ca.is_ascii_digit(), cb.is_ascii_digit()) {
            (false, false) => return Ordering::Equal,
            (false, true) => return Ordering::Less,
            (true, false) => return Ordering::Greater,
            (true, true) => match ca.cmp(&cb) {
                Ordering::Equal => {}
                other => return other,
            },
        }
        i += 1;
    }
}

fn strnatcmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut ai, mut bi) = (0usize, 0usize);
    loop {
        while is_c_space(at(a, ai)) {
            ai += 1;
        }
        while is_c_space(at(b, bi)) {
            bi += 1;
        }
        let (ca, cb) = (at(a, ai), at(b, bi));
        if ca.is_ascii_digit() && cb.is_ascii_digit() {
            let result = if ca == b'0' || cb == b'0' {
                compare_left(&a[ai..], &b[bi..])
            } else {
                compare_right(&a[ai..], &b[bi..])
            };
            if result != Ordering::Equal {
                return result;
            }
        }
        if ca == 0 && cb == 0 {
            return Ordering::Equal;
        }
        // C compares plain (signed on x86) chars.
        match (ca as i8).cmp(&(cb as i8)) {
            Ordering::Equal => {}
            other => return other,
        }
        ai += 1;
        bi += 1;
    }
}

#[cfg(test)]
mod tests;
