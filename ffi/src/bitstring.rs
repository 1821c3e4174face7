//! Slurm's bitstrings: the `slurm_bit_*` functions and `slurm_bitfmt2int`
//! of libslurm.so.38, on bitstrings laid out as Slurm 22.05 lays them out,
//! so that C code built on `slurm.h` may also read them in place.
//!
//! A `bitstr_t *` points to 64-bit words: [`MAGIC`], the number of bits,
//! then the bits, bit `i` at `1 << (i % 64)` of word `i / 64`. Bits of the
//! last word past the size are kept as Slurm keeps them: `bit_not` sets
//! them, and the word-wise functions (`bit_and`, `bit_or`, `bit_equal`,
//! `bit_copy`, `bit_realloc`) carry or compare them, so that answers match
//! Slurm's bit for bit. Bitstrings, strings and arrays made here are the C
//! allocator's: `free`, `slurm_xfree` or `slurm_bit_free` releases them.
//!
//! Where Slurm asserts (NULL or a pointer that is not a bitstring, a bit
//! out of range, sizes that differ where they must match) these functions
//! change nothing and answer "nothing": -1 for a position or a size, 0 for
//! a test or a count, -1 for a status, NULL for a new bitstring or string.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::ptr::null_mut;

use crate::bindings::{bitoff_t, bitstr_t};
use crate::call::guarded;
use crate::memory::c_string;

/// The first word of every bitstring (Slurm's `BITSTR_MAGIC`).
pub const MAGIC: bitstr_t = 0x4243_4445;
/// Words before the bits: the magic and the size.
const HEADER: usize = 2;
/// Bits in a word.
const WORD: i64 = 64;
/// The largest size Slurm allows a bitstring.
const MAX_BITS: i64 = 0x4000_0000;
/// The most integers `slurm_bitfmt2int` makes of a stepped range (1 GiB).
const MAX_INTS: i64 = 1 << 28;

/// Words holding `len` bits.
fn words_for(len: i64) -> usize {
    ((len + WORD - 1) / WORD) as usize
}

/// The bits of a word below bit `n % 64` (none when that is 0), as Slurm
/// masks a word's low bits.
fn low_bits(n: i64) -> u64 {
    (1u64 << (n & (WORD - 1))) - 1
}

/// A bitstring's size and words: read in place, or made here.
struct Bits<W> {
    len: i64,
    words: W,
}

/// A bitstring made here, not yet handed to C.
fn blank(len: i64) -> Bits<Vec<i64>> {
    Bits {
        len,
        words: vec![0; words_for(len)],
    }
}

impl<W: AsRef<[i64]>> Bits<W> {
    fn words(&self) -> &[i64] {
        self.words.as_ref()
    }

    /// Whether `bit` is inside the bitstring.
    fn has(&self, bit: i64) -> bool {
        (0..self.len).contains(&bit)
    }

    /// Whether `bit`, inside the bitstring, is set.
    fn test(&self, bit: i64) -> bool {
        (self.words()[(bit / WORD) as usize] as u64) >> (bit % WORD) & 1 == 1
    }

    /// The bits of word `i` inside the bitstring that are set (`set`) or
    /// clear (not `set`), as ones.
    fn inside(&self, i: usize, set: bool) -> u64 {
        let word = self.words()[i] as u64;
        let word = if set { word } else { !word };
        let rest = self.len - i as i64 * WORD;
        if rest >= WORD {
            word
        } else {
            word & low_bits(rest)
        }
    }

    /// The first bit at or after `from` that is set (`set`) or clear.
    fn find(&self, from: i64, set: bool) -> Option<i64> {
        let from = from.max(0);
        if from >= self.len {
            return None;
        }
        let first = (from / WORD) as usize;
        (first..self.words().len()).find_map(|i| {
            let mut word = self.inside(i, set);
            if i == first {
                word &= !low_bits(from);
            }
            (word != 0).then(|| i as i64 * WORD + i64::from(word.trailing_zeros()))
        })
    }

    /// The last bit set.
    fn last_set(&self) -> Option<i64> {
        (0..self.words().len()).rev().find_map(|i| {
            let word = self.inside(i, true);
            (word != 0).then(|| i as i64 * WORD + WORD - 1 - i64::from(word.leading_zeros()))
        })
    }

    /// The bits set, in order.
    fn ones(&self) -> impl Iterator<Item = i64> + '_ {
        std::iter::successors(self.find(0, true), move |&bit| self.find(bit + 1, true))
    }

    /// The runs of set bits, in order, as (first, last).
    fn runs(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        let run_from = move |from: i64| {
            let first = self.find(from, true)?;
            Some((first, self.find(first, false).unwrap_or(self.len) - 1))
        };
        std::iter::successors(run_from(0), move |&(_, last)| run_from(last + 1))
    }

    /// How many bits are set.
    fn count(&self) -> i64 {
        (0..self.words().len())
            .map(|i| i64::from(self.inside(i, true).count_ones()))
            .sum()
    }

    /// How many of bits `0..end` are set (`end` at most the size).
    fn count_below(&self, end: i64) -> i64 {
        let full = (end / WORD) as usize;
        let whole: i64 = self.words()[..full]
            .iter()
            .map(|w| i64::from(w.count_ones()))
            .sum();
        if end % WORD == 0 {
            whole
        } else {
            whole + i64::from((self.words()[full] as u64 & low_bits(end)).count_ones())
        }
    }

    /// Slurm's `bit_set_count_range`, word for word: the bits set from
    /// `start` (inside) to `end`, where an `end` before `start` still
    /// counts part of `start`'s word, as Slurm's does.
    fn count_range(&self, start: i64, end: i64) -> i64 {
        let end = end.min(self.len);
        let word = |bit: i64| self.words()[(bit / WORD) as usize] as u64;
        let boundary = (start + WORD - 1) / WORD * WORD;
        let mut count = 0;
        let mut bit = start;
        if start < boundary {
            let mut mask = !low_bits(start);
            if boundary > end {
                mask &= low_bits(end);
            }
            count += i64::from((word(bit) & mask).count_ones());
            bit = boundary;
        }
        while bit + WORD <= end {
            count += i64::from(word(bit).count_ones());
            bit += WORD;
        }
        if bit < end {
            count += i64::from((word(bit) & low_bits(end)).count_ones());
        }
        count
    }

    /// The ranges set, as `bit_fmt` writes them: "0-3,5".
    fn ranges(&self) -> String {
        let texts: Vec<String> = self
            .runs()
            .map(|(first, last)| match first == last {
                true => first.to_string(),
                false => format!("{first}-{last}"),
            })
            .collect();
        texts.join(",")
    }

    /// Bits `0..len` as `bit_fmt_hexmask` writes them: "0x" and a
    /// zero-padded upper-case hex number, a digit for each 4 bits.
    fn hexmask(&self, len: i64) -> String {
        if len == 0 {
            return "0x0".into();
        }
        let digits = (len + 3) / 4;
        let mut text = String::with_capacity(digits as usize + 2);
        text.push_str("0x");
        for digit in (0..digits).rev() {
            let bit = digit * 4;
            let mut nibble = (self.words()[(bit / WORD) as usize] as u64 >> (bit % WORD)) & 0xf;
            if bit + 4 > len {
                nibble &= low_bits(len - bit);
            }
            text.push(char::from(b"0123456789ABCDEF"[nibble as usize]));
        }
        text
    }

    /// The bits as `bit_fmt_binmask` writes them: a '0' or '1' for each,
    /// the last bit first.
    fn binmask(&self) -> String {
        (0..self.len)
            .rev()
            .map(|bit| if self.test(bit) { '1' } else { '0' })
            .collect()
    }

    /// Slurm's `bit_noc`: the first of `n` clear bits in a row, looked for
    /// from `seed` on (when `n` bits fit after it), then from the start up
    /// to the first set bit at or past `seed`.
    fn clear_run_near(&self, n: i64, seed: i64) -> Option<i64> {
        let seed = if seed.max(0) + n >= self.len {
            self.len
        } else {
            seed.max(0)
        };
        let mut run = 0;
        for bit in seed..self.len {
            run = if self.test(bit) { 0 } else { run + 1 };
            if run > 0 && run >= n {
                return Some(bit - (run - 1));
            }
        }
        run = 0;
        for bit in 0..self.len {
            if self.test(bit) {
                if bit >= seed {
                    return None;
                }
                run = 0;
            } else {
                run += 1;
                if run >= n {
                    return Some(bit - (run - 1));
                }
            }
        }
        None
    }

    /// A C bitstring with these words, or NULL.
    fn to_c(&self) -> *mut bitstr_t {
        let b = alloc(self.len);
        if !b.is_null() {
            // SAFETY: the new bitstring has room for exactly these words.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.words().as_ptr(),
                    b.add(HEADER),
                    self.words().len(),
                )
            }
        }
        b
    }
}

impl<W: AsRef<[i64]> + AsMut<[i64]>> Bits<W> {
    /// Sets (`on`) or clears bits `first..=last`, all inside.
    fn fill(&mut self, first: i64, last: i64, on: bool) {
        let mut bit = first;
        while bit <= last {
            let i = (bit / WORD) as usize;
            let end = last.min(i as i64 * WORD + WORD - 1);
            let mask = (u64::MAX << (bit % WORD)) & (u64::MAX >> (WORD - 1 - end % WORD));
            let word = &mut self.words.as_mut()[i];
            *word = if on {
                (*word as u64 | mask) as i64
            } else {
                (*word as u64 & !mask) as i64
            };
            bit = end + 1;
        }
    }

    /// Sets or clears every bit.
    fn fill_all(&mut self, on: bool) {
        if self.len > 0 {
            self.fill(0, self.len - 1, on);
        }
    }

    /// Sets `bit`, inside.
    fn set(&mut self, bit: i64) {
        self.fill(bit, bit, true);
    }

    /// Slurm's `inx2bitstr`: clears the bits, then sets each (first, last)
    /// range of `pairs` up to a -1, failing (-1) at the first range with
    /// an end outside.
    fn set_ranges(&mut self, pairs: &[i32]) -> c_int {
        self.fill_all(false);
        for pair in pairs.chunks(2) {
            let (first, last) = (i64::from(pair[0]), i64::from(pair[1]));
            if first == -1 {
                break;
            }
            if !self.has(first) || !self.has(last) {
                return -1;
            }
            if first <= last {
                self.fill(first, last, true);
            }
        }
        0
    }
}

/// A bitstring's size, if `b` is one.
///
/// # Safety
/// `b` is NULL or points to at least two readable words.
unsafe fn len_of(b: *const bitstr_t) -> Option<i64> {
    if b.is_null() || !b.is_aligned() {
        return None;
    }
    // SAFETY: two readable words, as the caller promises.
    let (magic, len) = unsafe { (*b, *b.add(1)) };
    (magic == MAGIC && (0..=MAX_BITS).contains(&len)).then_some(len)
}

/// The bitstring at `b`, if it is one.
///
/// # Safety
/// `b` is NULL, a bitstring no one is writing, or at least two readable
/// words that do not start with [`MAGIC`].
unsafe fn open<'a>(b: *const bitstr_t) -> Option<Bits<&'a [i64]>> {
    // SAFETY: as the caller promises.
    let len = unsafe { len_of(b) }?;
    // SAFETY: a bitstring's words follow its header.
    let words = unsafe { std::slice::from_raw_parts(b.add(HEADER), words_for(len)) };
    Some(Bits { len, words })
}

/// The bitstring at `b`, to change, if it is one.
///
/// # Safety
/// As [`open`], and no one else reads the bitstring meanwhile.
unsafe fn open_mut<'a>(b: *mut bitstr_t) -> Option<Bits<&'a mut [i64]>> {
    // SAFETY: as the caller promises.
    let len = unsafe { len_of(b) }?;
    // SAFETY: a bitstring's words follow its header.
    let words = unsafe { std::slice::from_raw_parts_mut(b.add(HEADER), words_for(len)) };
    Some(Bits { len, words })
}

/// The size and words of bitstring `b`, copied (for an operand that may
/// be the bitstring being changed).
///
/// # Safety
/// As [`open`].
unsafe fn snapshot(b: *const bitstr_t) -> Option<Bits<Vec<i64>>> {
    // SAFETY: as the caller promises.
    unsafe { open(b) }.map(|b| Bits {
        len: b.len,
        words: b.words.to_vec(),
    })
}

/// A C string argument's bytes, if it is one.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
unsafe fn text<'a>(s: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: as the caller promises.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_bytes())
}

/// A new zeroed bitstring of `len` bits, or NULL.
fn alloc(len: i64) -> *mut bitstr_t {
    if !(0..=MAX_BITS).contains(&len) {
        return null_mut();
    }
    // SAFETY: calloc of a counted array of words.
    let b = unsafe { libc::calloc(HEADER + words_for(len), std::mem::size_of::<bitstr_t>()) }
        .cast::<bitstr_t>();
    if !b.is_null() {
        // SAFETY: the header words of the allocation just made.
        unsafe {
            b.write(MAGIC);
            b.add(1).write(len);
        }
    }
    b
}

/// `values` and a closing -1, in memory `free` releases; NULL if none is
/// left.
fn c_ints(values: &[i32]) -> *mut i32 {
    let count = values.len() + 1;
    // SAFETY: malloc of a counted array.
    let p = unsafe { libc::malloc(count * std::mem::size_of::<i32>()) }.cast::<i32>();
    if !p.is_null() {
        // SAFETY: the array just made has room for the values and the -1.
        unsafe {
            std::ptr::copy_nonoverlapping(values.as_ptr(), p, values.len());
            p.add(values.len()).write(-1);
        }
    }
    p
}

/// C's `strtol` in base 10 as Slurm stores it in an `int32_t`: the number
/// (0 if none) and the text after it (all of `s` if none).
fn strtol(s: &[u8]) -> (i32, &[u8]) {
    let mut at = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t'..=b'\r'))
        .unwrap_or(s.len());
    let negative = match s.get(at) {
        Some(b'-') => {
            at += 1;
            true
        }
        Some(b'+') => {
            at += 1;
            false
        }
        _ => false,
    };
    let digits = s[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return (0, s);
    }
    let magnitude = s[at..at + digits]
        .iter()
        .fold(0i128, |n, d| (n * 10 + i128::from(d - b'0')).min(1 << 64));
    let value = if negative { -magnitude } else { magnitude };
    let value = value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    (value as i32, &s[at + digits..])
}

/// Slurm's `bitfmt2int`: the (first, last) pairs of "0-3,5" (characters
/// other than digits, '-' and ',' are skipped), or of a stepped range
/// "first-end:step", each bit a pair, `end` itself left out. None for a
/// stepped range that is not one.
fn range_pairs(text: &[u8]) -> Option<Vec<i32>> {
    if text.contains(&b':') {
        return stepped_pairs(text);
    }
    let mut pairs = Vec::new();
    let (mut sum, mut first) = (0i32, -1i32);
    for (i, &c) in text.iter().chain([&0]).enumerate() {
        match c {
            b'0'..=b'9' => sum = sum.wrapping_mul(10).wrapping_add(i32::from(c - b'0')),
            b'-' => {
                first = sum;
                sum = 0;
            }
            b',' | 0 => {
                if i == 0 {
                    break;
                }
                pairs.extend([if first == -1 { sum } else { first }, sum]);
                (first, sum) = (-1, 0);
            }
            _ => {}
        }
    }
    Some(pairs)
}

/// The pairs of a stepped range "first-end:step" (see [`range_pairs`]).
fn stepped_pairs(text: &[u8]) -> Option<Vec<i32>> {
    let (first, rest) = strtol(text);
    let (end, rest) = strtol(rest.strip_prefix(b"-")?);
    let (step, rest) = strtol(rest.strip_prefix(b":")?);
    if !rest.is_empty() || end < first || step <= 0 {
        return None;
    }
    let (first, end, step) = (i64::from(first), i64::from(end), i64::from(step));
    let count = (end - first + step - 1) / step;
    if count * 2 > MAX_INTS {
        return None;
    }
    Some(
        (0..count)
            .flat_map(|k| [(first + k * step) as i32; 2])
            .collect(),
    )
}

/// A new bitstring of `nbits` clear bits (0 to 2^30), or NULL.
#[no_mangle]
pub extern "C" fn slurm_bit_alloc(nbits: bitoff_t) -> *mut bitstr_t {
    guarded(|| alloc(nbits))
}

/// Resizes `*b` to `nbits` bits (new words clear, bits of the old last
/// word kept) and answers it, updating `*b`; NULL (and `*b` as it was)
/// when it cannot.
///
/// # Safety
/// `b` is NULL or points to NULL or to a bitstring made by this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_realloc(
    b: *mut *mut bitstr_t,
    nbits: bitoff_t,
) -> *mut bitstr_t {
    guarded(|| {
        if b.is_null() || !(0..=MAX_BITS).contains(&nbits) {
            return null_mut();
        }
        // SAFETY: the caller's pointer to a bitstring pointer.
        let old = unsafe { *b };
        // SAFETY: NULL or a bitstring, as the caller promises.
        let Some(len) = (unsafe { len_of(old) }) else {
            return null_mut();
        };
        let (before, after) = (HEADER + words_for(len), HEADER + words_for(nbits));
        let word = std::mem::size_of::<bitstr_t>();
        // SAFETY: the bitstring is the C allocator's (alloc).
        let new = unsafe { libc::realloc(old.cast(), after * word) }.cast::<bitstr_t>();
        if new.is_null() {
            return null_mut();
        }
        // SAFETY: the resized bitstring has `after` words.
        unsafe {
            if after > before {
                std::ptr::write_bytes(new.add(before), 0, after - before);
            }
            new.add(1).write(nbits);
            *b = new;
        }
        new
    })
}

/// Frees `*b` and sets it to NULL (Slurm's `bit_free(b)` passes `&b`);
/// a pointer that is not a bitstring is left alone.
///
/// # Safety
/// `b` is NULL or points to NULL or to a bitstring made by this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_free(b: *mut *mut bitstr_t) {
    guarded(|| {
        if b.is_null() {
            return;
        }
        // SAFETY: the caller's pointer to a bitstring pointer.
        let p = unsafe { *b };
        // SAFETY: NULL or a bitstring, as the caller promises.
        if unsafe { len_of(p) }.is_none() {
            return;
        }
        // SAFETY: a bitstring of the C allocator's, freed once: its magic
        // is cleared first so that a second free finds none.
        unsafe {
            p.write(0);
            libc::free(p.cast());
            *b = null_mut();
        }
    })
}

/// A copy of `b` (NULL if `b` is not a bitstring).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_copy(b: *mut bitstr_t) -> *mut bitstr_t {
    guarded(|| {
        // SAFETY: NULL or a bitstring, as the caller promises.
        unsafe { open(b) }.map_or(null_mut(), |b| b.to_c())
    })
}

/// Copies the bits of `src` into `dest`, of the same size.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_copybits(dest: *mut bitstr_t, src: *mut bitstr_t) {
    guarded(|| {
        // SAFETY: NULL or bitstrings, as the caller promises; the source
        // is copied before the destination is opened.
        let (Some(src), Some(dest)) = (unsafe { snapshot(src) }, unsafe { open_mut(dest) }) else {
            return;
        };
        if src.len == dest.len {
            dest.words.copy_from_slice(&src.words);
        }
    })
}

/// 1 if `bit` of `b` is set, else 0.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_test(b: *mut bitstr_t, bit: bitoff_t) -> c_int {
    guarded(|| {
        // SAFETY: NULL or a bitstring, as the caller promises.
        unsafe { open(b) }.is_some_and(|b| b.has(bit) && b.test(bit)) as c_int
    })
}

/// Sets or clears bits `start..=stop` of `b`, both inside.
///
/// # Safety
/// `b` is NULL or a bitstring.
unsafe fn fill(b: *mut bitstr_t, start: bitoff_t, stop: bitoff_t, on: bool) {
    // SAFETY: as the caller promises.
    if let Some(mut b) = unsafe { open_mut(b) } {
        if b.has(start) && b.has(stop) && start <= stop {
            b.fill(start, stop, on);
        }
    }
}

/// Sets `bit` of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set(b: *mut bitstr_t, bit: bitoff_t) {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { fill(b, bit, bit, true) })
}

/// Clears `bit` of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear(b: *mut bitstr_t, bit: bitoff_t) {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { fill(b, bit, bit, false) })
}

/// Sets bits `start..=stop` of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nset(b: *mut bitstr_t, start: bitoff_t, stop: bitoff_t) {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { fill(b, start, stop, true) })
}

/// Clears bits `start..=stop` of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nclear(b: *mut bitstr_t, start: bitoff_t, stop: bitoff_t) {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { fill(b, start, stop, false) })
}

/// Sets every bit of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set_all(b: *mut bitstr_t) {
    // SAFETY: NULL or a bitstring, as the caller promises.
    guarded(|| unsafe { open_mut(b) }.map_or((), |mut b| b.fill_all(true)))
}

/// Clears every bit of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear_all(b: *mut bitstr_t) {
    // SAFETY: NULL or a bitstring, as the caller promises.
    guarded(|| unsafe { open_mut(b) }.map_or((), |mut b| b.fill_all(false)))
}

/// Answers `f` of bitstring `b`, or `none` if `b` is not one.
///
/// # Safety
/// `b` is NULL or a bitstring.
unsafe fn read<T: crate::call::Failure>(
    b: *mut bitstr_t,
    none: T,
    f: impl FnOnce(Bits<&[i64]>) -> T,
) -> T {
    // SAFETY: as the caller promises.
    guarded(|| unsafe { open(b) }.map_or(none, f))
}

/// The first clear bit of `b`, or -1.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_ffc(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: as the caller promises.
    unsafe { read(b, -1, |b| b.find(0, false).unwrap_or(-1)) }
}

/// The first set bit of `b`, or -1.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_ffs(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: as the caller promises.
    unsafe { read(b, -1, |b| b.find(0, true).unwrap_or(-1)) }
}

/// The last set bit of `b`, or -1.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fls(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: as the caller promises.
    unsafe { read(b, -1, |b| b.last_set().unwrap_or(-1)) }
}

/// The first of the first `n` clear bits in a row in `b`, or -1 (as
/// Slurm's with assertions off, `n` of 0 or less answers the first clear
/// bit).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nffc(b: *mut bitstr_t, n: i32) -> bitoff_t {
    let n = i64::from(n);
    // SAFETY: as the caller promises.
    unsafe {
        read(b, -1, |b| {
            let mut run = 0;
            for bit in 0..b.len {
                run = if b.test(bit) { 0 } else { run + 1 };
                if run > 0 && run >= n {
                    return bit - (run - 1);
                }
            }
            -1
        })
    }
}

/// The first of the first `n` set bits in a row in `b`, or -1. As
/// Slurm's, only runs that end by bit `size - n` are found.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nffs(b: *mut bitstr_t, n: i32) -> bitoff_t {
    let n = i64::from(n);
    // SAFETY: as the caller promises.
    unsafe {
        read(b, -1, |b| {
            let mut run = 0;
            for bit in 0..=(b.len - n).min(b.len - 1) {
                run = if b.test(bit) { run + 1 } else { 0 };
                if run > 0 && run >= n {
                    return bit - (run - 1);
                }
            }
            -1
        })
    }
}

/// The first of `n` clear bits in a row in `b`, looked for from `seed` on
/// and then from the start, or -1 (a negative `seed` is 0).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_noc(b: *mut bitstr_t, n: i32, seed: i32) -> bitoff_t {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, -1, |b| {
            b.clear_run_near(i64::from(n), i64::from(seed))
                .unwrap_or(-1)
        })
    }
}

/// The number of bits of `b`, or -1.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_size(b: *mut bitstr_t) -> bitoff_t {
    // SAFETY: as the caller promises.
    unsafe { read(b, -1, |b| b.len) }
}

/// Applies `op` to each word of `b1` with the word of `b2`, over the
/// words holding the smaller size (so bits of `b1` past `b2`'s size in
/// that last word change too, as in Slurm).
///
/// # Safety
/// Each is NULL or a bitstring.
unsafe fn combine(b1: *mut bitstr_t, b2: *mut bitstr_t, op: fn(i64, i64) -> i64) {
    guarded(|| {
        // SAFETY: NULL or bitstrings, as the caller promises; the operand
        // is copied before the bitstring changed is opened.
        let (Some(b2), Some(b1)) = (unsafe { snapshot(b2) }, unsafe { open_mut(b1) }) else {
            return;
        };
        let words = words_for(b1.len.min(b2.len));
        for (w1, w2) in b1.words[..words].iter_mut().zip(&b2.words) {
            *w1 = op(*w1, *w2);
        }
    })
}

/// `b1 &= b2`, over the smaller size.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_and(b1: *mut bitstr_t, b2: *mut bitstr_t) {
    // SAFETY: as the caller promises.
    unsafe { combine(b1, b2, |a, b| a & b) }
}

/// `b1 &= !b2`, over the smaller size.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_and_not(b1: *mut bitstr_t, b2: *mut bitstr_t) {
    // SAFETY: as the caller promises.
    unsafe { combine(b1, b2, |a, b| a & !b) }
}

/// `b1 |= b2`, over the smaller size.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_or(b1: *mut bitstr_t, b2: *mut bitstr_t) {
    // SAFETY: as the caller promises.
    unsafe { combine(b1, b2, |a, b| a | b) }
}

/// Flips every bit of `b` (with the last word's bits past the size).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_not(b: *mut bitstr_t) {
    guarded(|| {
        // SAFETY: NULL or a bitstring, as the caller promises.
        if let Some(b) = unsafe { open_mut(b) } {
            b.words.iter_mut().for_each(|w| *w = !*w);
        }
    })
}

/// The number of bits set in `b` (0 if it is not a bitstring).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set_count(b: *mut bitstr_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe { read(b, 0, |b| b.count() as i32) }
}

/// The number of bits set in `start..end` of `b`, `start` inside and
/// `end` past the size counting as the size (0 if `start` is outside).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_set_count_range(b: *mut bitstr_t, start: i32, end: i32) -> i32 {
    let (start, end) = (i64::from(start), i64::from(end));
    // SAFETY: as the caller promises.
    unsafe {
        read(b, 0, |b| match b.has(start) {
            true => b.count_range(start, end) as i32,
            false => 0,
        })
    }
}

/// The number of bits clear in `b` (0 if it is not a bitstring).
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear_count(b: *mut bitstr_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe { read(b, 0, |b| (b.len - b.count()) as i32) }
}

/// `end - start` less the bits set in `start..end` of `b`, 0 when `end`
/// is not past `start`. As Slurm's, `end` is not cut to the size here,
/// so bits past it count as clear.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_clear_count_range(
    b: *mut bitstr_t,
    start: i32,
    end: i32,
) -> i32 {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, 0, |bits| {
            let span = end.wrapping_sub(start);
            if span < 1 {
                return 0;
            }
            let (start, end) = (i64::from(start), i64::from(end));
            let set = if bits.has(start) {
                bits.count_range(start, end)
            } else {
                0
            };
            span.wrapping_sub(set as i32)
        })
    }
}

/// The length of the longest run of set bits in `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_nset_max_count(b: *mut bitstr_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, 0, |b| {
            b.runs()
                .map(|(first, last)| last - first + 1)
                .max()
                .unwrap_or(0) as i32
        })
    }
}

/// `b`'s bits moved up by `n` (down if negative) in a bitstring of
/// `nbits` bits (at least `b`'s), those past the top wrapping round to
/// the bottom; None if `nbits` is too small.
fn rotated<W: AsRef<[i64]>>(b: &Bits<W>, n: i32, nbits: i64) -> Option<Bits<Vec<i64>>> {
    if nbits < b.len || nbits <= 0 || nbits > MAX_BITS {
        return None;
    }
    let mut shift = i64::from(n) % nbits;
    if shift < 0 {
        shift += nbits;
    }
    let wrapped = (shift - (nbits - b.len)).max(0);
    let mut new = blank(nbits);
    for bit in b.ones() {
        if bit < b.len - wrapped {
            new.set(bit + shift);
        } else {
            new.set(bit - (b.len - wrapped));
        }
    }
    Some(new)
}

/// A new bitstring of `nbits` bits (at least `b1`'s size) holding `b1`
/// rotated by `n`, or NULL.
///
/// # Safety
/// `b1` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_rotate_copy(
    b1: *mut bitstr_t,
    n: i32,
    nbits: bitoff_t,
) -> *mut bitstr_t {
    // SAFETY: as the caller promises.
    unsafe {
        read(b1, null_mut(), |b| {
            rotated(&b, n, nbits).map_or(null_mut(), |new| new.to_c())
        })
    }
}

/// Rotates `b1` by `n` bits in place.
///
/// # Safety
/// `b1` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_rotate(b1: *mut bitstr_t, n: i32) {
    guarded(|| {
        if n == 0 {
            return;
        }
        // SAFETY: NULL or a bitstring, as the caller promises.
        let Some(b) = (unsafe { open_mut(b1) }) else {
            return;
        };
        if let Some(new) = rotated(&b, n, b.len) {
            b.words.copy_from_slice(&new.words);
        }
    })
}

/// Writes `b`'s ranges ("0-3,5") into `str`, at most `len - 1` bytes and
/// a NUL, and answers `str` (empty when `b` is not a bitstring).
///
/// # Safety
/// `str` is NULL or has room for `len` bytes; `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt(
    str: *mut c_char,
    len: i32,
    b: *mut bitstr_t,
) -> *mut c_char {
    guarded(|| {
        if str.is_null() || len <= 0 {
            return str;
        }
        // SAFETY: NULL or a bitstring, as the caller promises.
        let ranges = unsafe { open(b) }.map(|b| b.ranges()).unwrap_or_default();
        let n = ranges.len().min(len as usize - 1);
        // SAFETY: `str` has room for `len` bytes, as the caller promises.
        unsafe {
            std::ptr::copy_nonoverlapping(ranges.as_ptr(), str.cast::<u8>(), n);
            str.add(n).write(0);
        }
        str
    })
}

/// `b`'s ranges ("0-3,5") as a new string, NULL when none is set.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_full(b: *mut bitstr_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, null_mut(), |b| match b.ranges() {
            ranges if ranges.is_empty() => null_mut(),
            ranges => c_string(&ranges),
        })
    }
}

/// Clears `b` and sets the ranges of `str` ("0-3,5" or "1-17:4"): 0, or
/// -1 for a text that is not ranges or a range outside (those before it
/// stay set). An empty or NULL `str` leaves `b` as it was.
///
/// # Safety
/// `b` is NULL or a bitstring; `str` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_unfmt(b: *mut bitstr_t, str: *mut c_char) -> c_int {
    guarded(|| {
        // SAFETY: NULL or a bitstring, as the caller promises.
        let Some(mut b) = (unsafe { open_mut(b) }) else {
            return -1;
        };
        // SAFETY: NULL or NUL-terminated, as the caller promises.
        match unsafe { text(str) } {
            None | Some([]) => 0,
            Some(text) => range_pairs(text).map_or(-1, |pairs| b.set_ranges(&pairs)),
        }
    })
}

/// The (first, last) pairs of ranges `str` ("0-30,45" gives 0, 30, 45,
/// 45; "1-17:4" gives 1, 1, 5, 5, 9, 9, 13, 13, leaving out 17 as Slurm
/// does) and a closing -1, in memory `free` releases; NULL for NULL or a
/// stepped range that is not one or that would make more than 2^28
/// integers.
///
/// # Safety
/// `str` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bitfmt2int(str: *mut c_char) -> *mut i32 {
    guarded(|| {
        // SAFETY: NULL or NUL-terminated, as the caller promises.
        let pairs = unsafe { text(str) }.and_then(range_pairs);
        pairs.map_or(null_mut(), |pairs| c_ints(&pairs))
    })
}

/// `b` as a new hex string, "0x" and a digit for each 4 bits ("0x0" for
/// no bits), or NULL.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_hexmask(b: *mut bitstr_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe { read(b, null_mut(), |b| c_string(&b.hexmask(b.len))) }
}

/// As [`slurm_bit_fmt_hexmask`], with digits only up to the last set bit.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_hexmask_trim(b: *mut bitstr_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, null_mut(), |b| {
            c_string(&b.hexmask(b.last_set().map_or(0, |last| last + 1)))
        })
    }
}

/// Clears `bitmap` and sets the bits of hex string `str` ("0x" optional):
/// 0, or -1 at a character that is not a hex digit or a set bit past the
/// size (the bits read before it stay set).
///
/// # Safety
/// `bitmap` is NULL or a bitstring; `str` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_unfmt_hexmask(
    bitmap: *mut bitstr_t,
    str: *const c_char,
) -> c_int {
    guarded(|| {
        // SAFETY: NULL or a bitstring and a C string, as the caller
        // promises.
        let (Some(mut b), Some(text)) = (unsafe { open_mut(bitmap) }, unsafe { text(str) }) else {
            return -1;
        };
        b.fill_all(false);
        let digits = text.strip_prefix(b"0x").unwrap_or(text);
        for (at, c) in digits.iter().rev().enumerate() {
            let Some(nibble) = char::from(*c).to_digit(16) else {
                return -1;
            };
            let base = at as i64 * 4;
            for k in (0..4).filter(|k| nibble >> k & 1 == 1) {
                if !b.has(base + k) {
                    return -1;
                }
                b.set(base + k);
            }
        }
        0
    })
}

/// `b` as a new string of '0' and '1', the last bit first, or NULL.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt_binmask(b: *mut bitstr_t) -> *mut c_char {
    // SAFETY: as the caller promises.
    unsafe { read(b, null_mut(), |b| c_string(&b.binmask())) }
}

/// Clears `bitmap` and sets the bits of binary string `str`, its last
/// character bit 0. As Slurm's, a character is a one when its code is
/// odd, and characters past the size are ignored.
///
/// # Safety
/// `bitmap` is NULL or a bitstring; `str` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_unfmt_binmask(bitmap: *mut bitstr_t, str: *const c_char) {
    guarded(|| {
        // SAFETY: NULL or a bitstring and a C string, as the caller
        // promises.
        let (Some(mut b), Some(text)) = (unsafe { open_mut(bitmap) }, unsafe { text(str) }) else {
            return;
        };
        b.fill_all(false);
        for (bit, c) in text.iter().rev().enumerate() {
            if c & 1 == 1 && b.has(bit as i64) {
                b.set(bit as i64);
            }
        }
    })
}

/// Sets every bit between the first and last set bits of `b`.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fill_gaps(b: *mut bitstr_t) {
    guarded(|| {
        // SAFETY: NULL or a bitstring, as the caller promises.
        let Some(mut b) = (unsafe { open_mut(b) }) else {
            return;
        };
        if let (Some(first), Some(last)) = (b.find(0, true), b.last_set()) {
            b.fill(first, last, true);
        }
    })
}

/// Answers `f` of bitstrings `b1` and `b2`, or 0 if either is not one.
///
/// # Safety
/// Each is NULL or a bitstring.
unsafe fn read2(
    b1: *mut bitstr_t,
    b2: *mut bitstr_t,
    f: impl FnOnce(Bits<&[i64]>, Bits<&[i64]>) -> i32,
) -> i32 {
    guarded(|| {
        // SAFETY: NULL or bitstrings, as the caller promises.
        match unsafe { (open(b1), open(b2)) } {
            (Some(b1), Some(b2)) => f(b1, b2),
            _ => 0,
        }
    })
}

/// The bits set in both of word `i` of `b1` and `b2` (none past either's
/// size).
fn common(b1: &Bits<&[i64]>, b2: &Bits<&[i64]>, i: usize) -> u64 {
    match i < b2.words.len() {
        true => b1.inside(i, true) & b2.inside(i, true),
        false => 0,
    }
}

/// 1 if every bit set in `b1` is set in `b2`, else 0.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_super_set(b1: *mut bitstr_t, b2: *mut bitstr_t) -> c_int {
    // SAFETY: as the caller promises.
    unsafe {
        read2(b1, b2, |b1, b2| {
            (0..b1.words.len()).all(|i| b1.inside(i, true) == common(&b1, &b2, i)) as i32
        })
    }
}

/// The number of bits set in both `b1` and `b2`.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_overlap(b1: *mut bitstr_t, b2: *mut bitstr_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe {
        read2(b1, b2, |b1, b2| {
            (0..b1.words.len())
                .map(|i| common(&b1, &b2, i).count_ones() as i32)
                .sum()
        })
    }
}

/// 1 if some bit is set in both `b1` and `b2`, else 0.
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_overlap_any(b1: *mut bitstr_t, b2: *mut bitstr_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe {
        read2(b1, b2, |b1, b2| {
            (0..b1.words.len()).any(|i| common(&b1, &b2, i) != 0) as i32
        })
    }
}

/// 1 if `b1` and `b2` have the same size and words, else 0 (as Slurm's,
/// bits of the last word past the size count).
///
/// # Safety
/// Each is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_equal(b1: *mut bitstr_t, b2: *mut bitstr_t) -> c_int {
    // SAFETY: as the caller promises.
    unsafe {
        read2(b1, b2, |b1, b2| {
            (b1.len == b2.len && b1.words == b2.words) as i32
        })
    }
}

/// A new bitstring of `b`'s size holding the first `nbits` bits set in
/// `b`, or NULL if `b` has fewer.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_pick_cnt(b: *mut bitstr_t, nbits: bitoff_t) -> *mut bitstr_t {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, null_mut(), |b| {
            if b.len < nbits || b.count() < nbits {
                return null_mut();
            }
            let mut new = blank(b.len);
            for bit in b.ones().take(nbits.max(0) as usize) {
                new.set(bit);
            }
            new.to_c()
        })
    }
}

/// The bit that is the `pos`th set one (from 0) of `b`, or -1.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_get_bit_num(b: *mut bitstr_t, pos: i32) -> bitoff_t {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, -1, |b| match usize::try_from(pos) {
            Ok(pos) => b.ones().nth(pos).unwrap_or(-1),
            Err(_) => -1,
        })
    }
}

/// Which set bit (from 0) bit `pos` of `b` is, or -1 if it is not set.
///
/// # Safety
/// `b` is NULL or a bitstring.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_get_pos_num(b: *mut bitstr_t, pos: bitoff_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe {
        read(b, -1, |b| match b.has(pos) && b.test(pos) {
            true => b.count_below(pos) as i32,
            false => -1,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::{CStr, CString};
    use std::os::raw::c_void;

    use super::*;
    use crate::memory::slurm_xfree;

    type B = *mut bitstr_t;

    /// A bitstring of `len` bits with `ones` set.
    fn made(len: i64, ones: &[i64]) -> B {
        let b = slurm_bit_alloc(len);
        assert!(!b.is_null());
        for &bit in ones {
            // SAFETY: a bitstring just made.
            unsafe { slurm_bit_set(b, bit) };
        }
        b
    }

    /// A string this library made, freed.
    fn taken(p: *mut c_char) -> Option<String> {
        if p.is_null() {
            return None;
        }
        // SAFETY: a NUL-terminated string from malloc.
        unsafe {
            let text = CStr::from_ptr(p).to_string_lossy().into_owned();
            libc::free(p.cast());
            Some(text)
        }
    }

    /// An integer array this library made, up to its -1, freed.
    fn taken_ints(p: *mut i32) -> Option<Vec<i32>> {
        if p.is_null() {
            return None;
        }
        // SAFETY: an array closed by -1, from malloc.
        unsafe {
            let n = (0..).take_while(|&i| *p.add(i) != -1).count();
            let values = std::slice::from_raw_parts(p, n).to_vec();
            libc::free(p.cast());
            Some(values)
        }
    }

    fn ranges(b: B) -> String {
        // SAFETY: a bitstring of this library's.
        taken(unsafe { slurm_bit_fmt_full(b) }).unwrap_or_default()
    }

    fn free(mut b: B) {
        // SAFETY: a bitstring of this library's.
        unsafe { slurm_bit_free(&mut b) };
        assert!(b.is_null());
    }

    #[test]
    fn layout_is_slurms() {
        let b = made(130, &[0, 63, 64, 129]);
        // SAFETY: a bitstring of 130 bits: header and 3 words.
        let words = unsafe { std::slice::from_raw_parts(b, 5) };
        assert_eq!(words, &[0x4243_4445, 130, 1 | i64::MIN, 1, 2]);
        free(b);
        assert!(slurm_bit_alloc(-1).is_null());
        assert!(slurm_bit_alloc(MAX_BITS + 1).is_null());
        let empty = slurm_bit_alloc(0);
        // SAFETY: a bitstring of this library's.
        unsafe {
            assert_eq!(slurm_bit_size(empty), 0);
            assert_eq!(slurm_bit_ffs(empty), -1);
            assert_eq!(slurm_bit_ffc(empty), -1);
            assert_eq!(slurm_bit_fls(empty), -1);
            assert_eq!(taken(slurm_bit_fmt_hexmask(empty)).as_deref(), Some("0x0"));
            assert_eq!(taken(slurm_bit_fmt_binmask(empty)).as_deref(), Some(""));
        }
        free(empty);
    }

    #[test]
    fn bits_set_clear_and_test() {
        let b = made(100, &[]);
        // SAFETY: a bitstring of this library's.
        unsafe {
            slurm_bit_nset(b, 3, 70);
            slurm_bit_clear(b, 10);
            slurm_bit_nclear(b, 60, 65);
            slurm_bit_set(b, 100); // outside: no change
            slurm_bit_nset(b, 90, 100); // outside: no change
            slurm_bit_nset(b, 95, 90); // backwards: no change
            assert_eq!(ranges(b), "3-9,11-59,66-70");
            assert_eq!(slurm_bit_test(b, 3), 1);
            assert_eq!(slurm_bit_test(b, 10), 0);
            assert_eq!(slurm_bit_test(b, -1), 0);
            assert_eq!(slurm_bit_test(b, 100), 0);
            assert_eq!(slurm_bit_set_count(b), 7 + 49 + 5);
            assert_eq!(slurm_bit_clear_count(b), 100 - 61);
            assert_eq!(slurm_bit_nset_max_count(b), 49);
            slurm_bit_set_all(b);
            assert_eq!(slurm_bit_set_count(b), 100);
            slurm_bit_clear_all(b);
            assert_eq!(slurm_bit_set_count(b), 0);
        }
        free(b);
    }

    #[test]
    fn finds_first_and_last() {
        let b = made(200, &[5, 6, 7, 100, 150, 151, 152, 153]);
        // SAFETY: a bitstring of this library's.
        unsafe {
            assert_eq!(slurm_bit_ffs(b), 5);
            assert_eq!(slurm_bit_fls(b), 153);
            assert_eq!(slurm_bit_ffc(b), 0);
            assert_eq!(slurm_bit_nffs(b, 3), 5);
            assert_eq!(slurm_bit_nffs(b, 4), 150);
            assert_eq!(slurm_bit_nffs(b, 5), -1);
            assert_eq!(slurm_bit_nffc(b, 5), 0);
            assert_eq!(slurm_bit_nffc(b, 6), 8);
            assert_eq!(slurm_bit_nffc(b, 92), 8);
            assert_eq!(slurm_bit_nffc(b, 93), -1);
            assert_eq!(slurm_bit_noc(b, 3, 6), 8);
            assert_eq!(slurm_bit_noc(b, 3, 152), 154);
            assert_eq!(slurm_bit_noc(b, 10, 195), 8); // no room after seed
            assert_eq!(slurm_bit_get_bit_num(b, 0), 5);
            assert_eq!(slurm_bit_get_bit_num(b, 3), 100);
            assert_eq!(slurm_bit_get_bit_num(b, 8), -1);
            assert_eq!(slurm_bit_get_bit_num(b, -1), -1);
            assert_eq!(slurm_bit_get_pos_num(b, 100), 3);
            assert_eq!(slurm_bit_get_pos_num(b, 101), -1);
            assert_eq!(slurm_bit_set_count_range(b, 6, 151), 4);
            assert_eq!(slurm_bit_set_count_range(b, 0, 1000), 8);
            assert_eq!(slurm_bit_clear_count_range(b, 6, 151), 145 - 4);
            assert_eq!(slurm_bit_clear_count_range(b, 6, 6), 0);
        }
        free(b);
        // Slurm's bit_nffs looks only at bits up to size - n.
        let tail = made(10, &[7, 8, 9]);
        // SAFETY: a bitstring of this library's.
        assert_eq!(unsafe { slurm_bit_nffs(tail, 3) }, -1);
        free(tail);
    }

    #[test]
    fn ranges_text() {
        let b = made(64, &[0, 1, 2, 3, 5, 63]);
        let mut buf = [0 as c_char; 8];
        // SAFETY: a bitstring of this library's and a buffer of 8 bytes.
        unsafe {
            assert_eq!(ranges(b), "0-3,5,63");
            let p = slurm_bit_fmt(buf.as_mut_ptr(), 8, b);
            assert_eq!(p, buf.as_mut_ptr());
            assert_eq!(CStr::from_ptr(p).to_str(), Ok("0-3,5,6"));
            slurm_bit_fmt(buf.as_mut_ptr(), 8, null_mut());
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok(""));
            let text = CString::new("1-3,7,60-62").unwrap_or_default();
            assert_eq!(slurm_bit_unfmt(b, text.as_ptr().cast_mut()), 0);
            assert_eq!(ranges(b), "1-3,7,60-62");
            let outside = CString::new("1,70").unwrap_or_default();
            assert_eq!(slurm_bit_unfmt(b, outside.as_ptr().cast_mut()), -1);
            assert_eq!(ranges(b), "1");
            let stepped = CString::new("2-20:6").unwrap_or_default();
            assert_eq!(slurm_bit_unfmt(b, stepped.as_ptr().cast_mut()), 0);
            assert_eq!(ranges(b), "2,8,14");
            assert_eq!(slurm_bit_unfmt(b, null_mut()), 0);
            assert_eq!(ranges(b), "2,8,14");
            slurm_bit_clear_all(b);
            assert!(slurm_bit_fmt_full(b).is_null());
        }
        free(b);
    }

    #[test]
    fn ranges_as_integers() {
        let ints = |text: &str| {
            let text = CString::new(text).unwrap_or_default();
            // SAFETY: a C string.
            taken_ints(unsafe { slurm_bitfmt2int(text.as_ptr().cast_mut()) })
        };
        assert_eq!(ints("0-30,45,50-60"), Some(vec![0, 30, 45, 45, 50, 60]));
        assert_eq!(ints("[1-2]"), Some(vec![1, 2]));
        assert_eq!(ints(""), Some(vec![]));
        assert_eq!(ints(",5"), Some(vec![]));
        assert_eq!(ints("1-17:4"), Some(vec![1, 1, 5, 5, 9, 9, 13, 13]));
        assert_eq!(
            ints(" 1-18:4"),
            Some(vec![1, 1, 5, 5, 9, 9, 13, 13, 17, 17])
        );
        assert_eq!(ints("5-5:1"), Some(vec![]));
        assert_eq!(ints("5-1:1"), None);
        assert_eq!(ints("1-5:0"), None);
        assert_eq!(ints("1-5:2x"), None);
        assert_eq!(ints("1:5"), None);
        assert_eq!(ints("0-2000000000:1"), None);
        // SAFETY: NULL is allowed.
        assert!(unsafe { slurm_bitfmt2int(null_mut()) }.is_null());
    }

    #[test]
    fn hex_and_binary_masks() {
        let b = made(10, &[0, 1, 2, 3, 5, 9]);
        // SAFETY: a bitstring of this library's; C strings.
        unsafe {
            assert_eq!(taken(slurm_bit_fmt_hexmask(b)).as_deref(), Some("0x22F"));
            assert_eq!(
                taken(slurm_bit_fmt_binmask(b)).as_deref(),
                Some("1000101111")
            );
            slurm_bit_clear(b, 9);
            assert_eq!(
                taken(slurm_bit_fmt_hexmask_trim(b)).as_deref(),
                Some("0x2F")
            );
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"0x3a".as_ptr()), 0);
            assert_eq!(ranges(b), "1,3-5");
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"201".as_ptr()), 0);
            assert_eq!(ranges(b), "0,9");
            // Bit 10 is past the size: bits read before it stay set.
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"401".as_ptr()), -1);
            assert_eq!(ranges(b), "0");
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"0x4g1".as_ptr()), -1);
            assert_eq!(ranges(b), "0");
            assert_eq!(slurm_bit_unfmt_hexmask(b, c"0x7ff".as_ptr()), -1);
            assert_eq!(slurm_bit_unfmt_hexmask(b, null_mut()), -1);
            slurm_bit_unfmt_binmask(b, c"101000000011".as_ptr());
            assert_eq!(ranges(b), "0-1,9");
        }
        free(b);
        let long = made(200, &[0, 64, 199]);
        // SAFETY: a bitstring of this library's.
        let hex = taken(unsafe { slurm_bit_fmt_hexmask(long) }).unwrap_or_default();
        assert_eq!(hex, format!("0x8{}1{}1", "0".repeat(32), "0".repeat(15)));
        free(long);
    }

    #[test]
    fn word_wise_operations() {
        let a = made(70, &[1, 2, 65]);
        let b = made(70, &[2, 3, 65, 69]);
        // SAFETY: bitstrings of this library's.
        unsafe {
            let x = slurm_bit_copy(a);
            slurm_bit_and(x, b);
            assert_eq!(ranges(x), "2,65");
            slurm_bit_or(x, b);
            assert_eq!(ranges(x), "2-3,65,69");
            slurm_bit_and_not(x, a);
            assert_eq!(ranges(x), "3,69");
            assert_eq!(slurm_bit_overlap(a, b), 2);
            assert_eq!(slurm_bit_overlap_any(a, x), 0);
            assert_eq!(slurm_bit_super_set(x, b), 1);
            assert_eq!(slurm_bit_super_set(b, x), 0);
            slurm_bit_copybits(x, b);
            assert_eq!(slurm_bit_equal(x, b), 1);
            slurm_bit_or(x, x);
            assert_eq!(slurm_bit_equal(x, b), 1);
            // bit_not flips the bits past the size too, and bit_equal sees them.
            slurm_bit_not(x);
            assert_eq!(ranges(x), "0-1,4-64,66-68");
            assert_eq!(slurm_bit_set_count(x), 66);
            let y = slurm_bit_alloc(70);
            let text = CString::new(ranges(x)).unwrap_or_default();
            assert_eq!(slurm_bit_unfmt(y, text.as_ptr().cast_mut()), 0);
            assert_eq!(slurm_bit_equal(x, y), 0);
            assert_eq!(slurm_bit_super_set(x, y), 1);
            free(y);
            slurm_bit_fill_gaps(a);
            assert_eq!(ranges(a), "1-65");
            free(x);
        }
        free(a);
        free(b);
    }

    #[test]
    fn rotation_and_picking() {
        let a = made(10, &[0, 1, 8]);
        // SAFETY: bitstrings of this library's.
        unsafe {
            let r = slurm_bit_rotate_copy(a, 3, 12);
            assert_eq!((slurm_bit_size(r), ranges(r)), (12, "3-4,11".to_string()));
            free(r);
            let r = slurm_bit_rotate_copy(a, 5, 12);
            assert_eq!(ranges(r), "1,5-6");
            free(r);
            assert!(slurm_bit_rotate_copy(a, 1, 9).is_null());
            slurm_bit_rotate(a, -1);
            assert_eq!(ranges(a), "0,7,9");
            let p = slurm_bit_pick_cnt(a, 2);
            assert_eq!(ranges(p), "0,7");
            free(p);
            assert!(slurm_bit_pick_cnt(a, 4).is_null());
            let p = slurm_bit_pick_cnt(a, 0);
            assert_eq!((slurm_bit_size(p), ranges(p)), (10, String::new()));
            free(p);
        }
        free(a);
    }

    #[test]
    fn realloc_keeps_and_clears() {
        let mut b = made(70, &[1, 69]);
        // SAFETY: a bitstring of this library's.
        unsafe {
            assert_eq!(slurm_bit_realloc(&mut b, 200), b);
            assert_eq!((slurm_bit_size(b), ranges(b)), (200, "1,69".to_string()));
            slurm_bit_realloc(&mut b, 65);
            assert_eq!(ranges(b), "1");
            // Bits of the last word past the size come back, as in Slurm.
            slurm_bit_realloc(&mut b, 70);
            assert_eq!(ranges(b), "1,69");
            assert!(slurm_bit_realloc(&mut b, -1).is_null());
            assert_eq!(slurm_bit_size(b), 70);
        }
        free(b);
    }

    #[test]
    fn what_is_not_a_bitstring_answers_nothing() {
        let words = [0i64; 4];
        let fake = words.as_ptr().cast_mut();
        // SAFETY: NULL and a readable array that is not a bitstring.
        unsafe {
            for b in [null_mut(), fake] {
                assert_eq!(slurm_bit_size(b), -1);
                assert_eq!(slurm_bit_ffs(b), -1);
                assert_eq!(slurm_bit_test(b, 0), 0);
                assert_eq!(slurm_bit_set_count(b), 0);
                assert_eq!(slurm_bit_unfmt(b, null_mut()), -1);
                assert!(slurm_bit_copy(b).is_null());
                assert!(slurm_bit_fmt_hexmask(b).is_null());
                assert!(slurm_bit_pick_cnt(b, 0).is_null());
                slurm_bit_set(b, 0);
                slurm_bit_not(b);
                slurm_bit_and(b, b);
                let mut p = b;
                slurm_bit_free(&mut p);
                assert_eq!(p, b);
            }
            slurm_bit_free(null_mut());
        }
        assert_eq!(words, [0; 4]);
    }

    /// A seeded linear congruential generator.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        /// A number in `lo..=hi`.
        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + (self.next() % (hi - lo + 1) as u64) as i64
        }

        /// A string of `alphabet`'s characters, up to `max` of them.
        fn text(&mut self, alphabet: &[u8], max: i64) -> CString {
            let len = self.range(0, max);
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[self.range(0, alphabet.len() as i64 - 1) as usize])
                .collect();
            CString::new(bytes).unwrap_or_default()
        }
    }

    macro_rules! api {
        ($($field:ident = $sym:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
            /// One library's bitstring functions.
            struct Api {
                $($field: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
            }

            impl Api {
                fn ours() -> Self {
                    Self { $($field: $sym,)* }
                }

                /// # Safety
                /// `lib` is a handle of Slurm 22.05's libslurm.
                unsafe fn theirs(lib: *mut c_void) -> Self {
                    Self {
                        $($field: {
                            let name = concat!(stringify!($sym), "\0");
                            // SAFETY: a handle and a NUL-terminated name.
                            let f = unsafe { libc::dlsym(lib, name.as_ptr().cast()) };
                            assert!(!f.is_null(), "{name}");
                            // SAFETY: Slurm's function of that name has
                            // this signature.
                            unsafe {
                                std::mem::transmute::<
                                    *mut c_void,
                                    unsafe extern "C" fn($($arg),*) $(-> $ret)?,
                                >(f)
                            }
                        },)*
                    }
                }
            }
        };
    }

    api! {
        alloc = slurm_bit_alloc: fn(bitoff_t) -> B;
        realloc = slurm_bit_realloc: fn(*mut B, bitoff_t) -> B;
        free = slurm_bit_free: fn(*mut B);
        copy = slurm_bit_copy: fn(B) -> B;
        copybits = slurm_bit_copybits: fn(B, B);
        test = slurm_bit_test: fn(B, bitoff_t) -> c_int;
        set = slurm_bit_set: fn(B, bitoff_t);
        clear = slurm_bit_clear: fn(B, bitoff_t);
        nset = slurm_bit_nset: fn(B, bitoff_t, bitoff_t);
        nclear = slurm_bit_nclear: fn(B, bitoff_t, bitoff_t);
        set_all = slurm_bit_set_all: fn(B);
        clear_all = slurm_bit_clear_all: fn(B);
        ffc = slurm_bit_ffc: fn(B) -> bitoff_t;
        ffs = slurm_bit_ffs: fn(B) -> bitoff_t;
        fls = slurm_bit_fls: fn(B) -> bitoff_t;
        nffc = slurm_bit_nffc: fn(B, i32) -> bitoff_t;
        nffs = slurm_bit_nffs: fn(B, i32) -> bitoff_t;
        noc = slurm_bit_noc: fn(B, i32, i32) -> bitoff_t;
        size = slurm_bit_size: fn(B) -> bitoff_t;
        and = slurm_bit_and: fn(B, B);
        or = slurm_bit_or: fn(B, B);
        not = slurm_bit_not: fn(B);
        set_count = slurm_bit_set_count: fn(B) -> i32;
        set_count_range = slurm_bit_set_count_range: fn(B, i32, i32) -> i32;
        clear_count = slurm_bit_clear_count: fn(B) -> i32;
        clear_count_range = slurm_bit_clear_count_range: fn(B, i32, i32) -> i32;
        nset_max_count = slurm_bit_nset_max_count: fn(B) -> i32;
        rotate_copy = slurm_bit_rotate_copy: fn(B, i32, bitoff_t) -> B;
        rotate = slurm_bit_rotate: fn(B, i32);
        fmt = slurm_bit_fmt: fn(*mut c_char, i32, B) -> *mut c_char;
        fmt_full = slurm_bit_fmt_full: fn(B) -> *mut c_char;
        unfmt = slurm_bit_unfmt: fn(B, *mut c_char) -> c_int;
        bitfmt2int = slurm_bitfmt2int: fn(*mut c_char) -> *mut i32;
        hexmask = slurm_bit_fmt_hexmask: fn(B) -> *mut c_char;
        hexmask_trim = slurm_bit_fmt_hexmask_trim: fn(B) -> *mut c_char;
        unfmt_hexmask = slurm_bit_unfmt_hexmask: fn(B, *const c_char) -> c_int;
        binmask = slurm_bit_fmt_binmask: fn(B) -> *mut c_char;
        unfmt_binmask = slurm_bit_unfmt_binmask: fn(B, *const c_char);
        fill_gaps = slurm_bit_fill_gaps: fn(B);
        super_set = slurm_bit_super_set: fn(B, B) -> c_int;
        overlap = slurm_bit_overlap: fn(B, B) -> i32;
        overlap_any = slurm_bit_overlap_any: fn(B, B) -> i32;
        equal = slurm_bit_equal: fn(B, B) -> c_int;
        pick_cnt = slurm_bit_pick_cnt: fn(B, bitoff_t) -> B;
        get_bit_num = slurm_bit_get_bit_num: fn(B, i32) -> bitoff_t;
        get_pos_num = slurm_bit_get_pos_num: fn(B, bitoff_t) -> i32;
        xfree = slurm_xfree: fn(*mut *mut c_void);
    }

    /// What one library answers to a run of calls, as lines of text.
    struct Run<'a> {
        api: &'a Api,
        rng: Lcg,
        log: Vec<String>,
    }

    // SAFETY (for every unsafe block below): each bitstring given to the
    // api's functions was made by the same api's functions and not yet
    // freed; each string is NUL-terminated; the arguments stay within
    // what Slurm asserts, so that its library's answers are defined.
    impl Run<'_> {
        fn say(&mut self, line: String) {
            self.log.push(line);
        }

        /// A string the library made, freed with its own xfree.
        fn string(&self, mut p: *mut c_char) -> Option<String> {
            if p.is_null() {
                return None;
            }
            // SAFETY: see above.
            unsafe {
                let text = CStr::from_ptr(p).to_string_lossy().into_owned();
                (self.api.xfree)((&mut p as *mut *mut c_char).cast());
                Some(text)
            }
        }

        fn ints(&self, mut p: *mut i32) -> Option<Vec<i32>> {
            if p.is_null() {
                return None;
            }
            // SAFETY: see above; the array ends with -1.
            unsafe {
                let n = (0..).take_while(|&i| *p.add(i) != -1).count();
                let values = std::slice::from_raw_parts(p, n).to_vec();
                (self.api.xfree)((&mut p as *mut *mut i32).cast());
                Some(values)
            }
        }

        fn fmt(&self, b: B, len: i32) -> String {
            let mut buf = vec![1 as c_char; len as usize];
            // SAFETY: see above; the buffer holds `len` bytes.
            unsafe {
                let p = (self.api.fmt)(buf.as_mut_ptr(), len, b);
                assert_eq!(p, buf.as_mut_ptr());
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        }

        fn full(&self, b: B) -> String {
            self.fmt(b, 1 << 16)
        }

        fn free(&self, mut b: B) {
            // SAFETY: see above.
            unsafe { (self.api.free)(&mut b) };
        }

        /// A bitstring of `len` bits, some set at random.
        fn random(&mut self, len: i64) -> B {
            let api = self.api;
            // SAFETY: see above.
            unsafe {
                let b = (api.alloc)(len);
                match self.rng.range(0, 3) {
                    0 => {}
                    1 => (api.set_all)(b),
                    _ => {
                        for _ in 0..self.rng.range(0, 6) {
                            let first = self.rng.range(0, len - 1);
                            let last = self.rng.range(first, (first + 70).min(len - 1));
                            (api.nset)(b, first, last);
                        }
                    }
                }
                let percent = self.rng.range(0, 100);
                for bit in 0..len {
                    if self.rng.range(1, 100) <= percent / 4 {
                        if self.rng.range(0, 1) == 0 {
                            (api.set)(b, bit);
                        } else {
                            (api.clear)(b, bit);
                        }
                    }
                }
                b
            }
        }

        /// Every question about one bitstring.
        fn describe(&mut self, what: &str, b: B) {
            let api = self.api;
            // SAFETY: see above.
            unsafe {
                let len = (api.size)(b);
                let count = (api.set_count)(b);
                self.say(format!(
                    "{what}: size {len} set {count} clear {} longest {} first {} last {} first clear {}",
                    (api.clear_count)(b),
                    (api.nset_max_count)(b),
                    (api.ffs)(b),
                    (api.fls)(b),
                    (api.ffc)(b),
                ));
                let full = self.full(b);
                let short = self.rng.range(1, 24) as i32;
                let cut = self.fmt(b, short);
                self.say(format!("{what}: fmt {full} fmt[{short}] {cut}"));
                let texts = [
                    self.string((api.fmt_full)(b)),
                    self.string((api.hexmask)(b)),
                    self.string((api.hexmask_trim)(b)),
                    self.string((api.binmask)(b)),
                ];
                self.say(format!("{what}: full, hex, trimmed, binary {texts:?}"));
                let tests: String = (0..len)
                    .map(|bit| char::from(b'0' + (api.test)(b, bit) as u8))
                    .collect();
                self.say(format!("{what}: tests {tests}"));
                for n in 0..=6 {
                    let seed = self.rng.range(-2, len + 2).max(0) as i32;
                    let nffs = if n > 0 { (api.nffs)(b, n) } else { -9 };
                    self.say(format!(
                        "{what}: n {n} nffs {nffs} nffc {} noc(seed {seed}) {}",
                        (api.nffc)(b, n),
                        (api.noc)(b, n, seed),
                    ));
                }
                for _ in 0..5 {
                    let start = self.rng.range(0, len - 1) as i32;
                    let end = self.rng.range(-3, len + 70) as i32;
                    self.say(format!(
                        "{what}: range {start}..{end} set {} clear {}",
                        (api.set_count_range)(b, start, end),
                        (api.clear_count_range)(b, start, end),
                    ));
                }
                let nums: Vec<bitoff_t> = (-1..=count.min(40) + 1)
                    .map(|pos| (api.get_bit_num)(b, pos))
                    .collect();
                let positions: Vec<i32> = nums
                    .iter()
                    .filter(|&&bit| bit >= 0)
                    .map(|&bit| (api.get_pos_num)(b, bit))
                    .collect();
                self.say(format!("{what}: bit nums {nums:?} pos nums {positions:?}"));
            }
        }

        /// Reads `text` into `into` every way there is.
        fn read_back(&mut self, into: B, text: &CString) {
            let api = self.api;
            // SAFETY: see above.
            unsafe {
                let rc = (api.unfmt)(into, text.as_ptr().cast_mut());
                let ranges = self.full(into);
                let ints = self.ints((api.bitfmt2int)(text.as_ptr().cast_mut()));
                self.say(format!("unfmt {text:?}: {rc} {ranges} ints {ints:?}"));
                let rc = (api.unfmt_hexmask)(into, text.as_ptr());
                let ranges = self.full(into);
                self.say(format!("unfmt_hexmask {text:?}: {rc} {ranges}"));
                (api.unfmt_binmask)(into, text.as_ptr());
                let ranges = self.full(into);
                self.say(format!("unfmt_binmask {text:?}: {ranges}"));
            }
        }

        fn exercise(&mut self) {
            let api = self.api;
            let len = match self.rng.range(0, 3) {
                0 => 64 * self.rng.range(1, 3),
                1 => 64 * self.rng.range(1, 3) + self.rng.range(-1, 1),
                _ => self.rng.range(1, 300),
            };
            let (a, b) = (self.random(len), self.random(len));
            let other_len = self.rng.range(1, 300);
            let d = self.random(other_len);
            self.describe("a", a);
            self.describe("b", b);
            self.describe("d", d);
            // SAFETY: see above.
            unsafe {
                // Texts written and read back, and texts at random.
                let c = (api.alloc)(len);
                let mut texts: Vec<CString> = [
                    self.string((api.fmt_full)(a)),
                    self.string((api.hexmask)(a)),
                    self.string((api.hexmask_trim)(b)),
                    self.string((api.binmask)(a)),
                ]
                .into_iter()
                .map(|t| CString::new(t.unwrap_or_default()).unwrap_or_default())
                .collect();
                for _ in 0..4 {
                    let hi = len + 20;
                    let (x, y, z) = (
                        self.rng.range(-2, hi),
                        self.rng.range(-2, hi),
                        self.rng.range(-1, 9),
                    );
                    texts.push(CString::new(format!("{x}-{y}:{z}")).unwrap_or_default());
                    texts.push(CString::new(format!("{x}-{y},{z}")).unwrap_or_default());
                    texts.push(self.rng.text(b"0123456789-,:x []", 8));
                    texts.push(self.rng.text(b"0123456789abcdefABCDEFxg", len / 4 + 3));
                    let digits = self.rng.text(b"0123456789abcdef", len / 4 + 1);
                    let hex = [b"0x".as_slice(), digits.as_bytes()].concat();
                    texts.push(CString::new(hex).unwrap_or_default());
                    texts.push(self.rng.text(b"0101019a ", len + 5));
                }
                for text in &texts {
                    self.read_back(c, text);
                }
                let equal = (api.equal)(a, c);
                self.say(format!("equal a c {equal}"));
                self.free(c);

                // Rotation and picking.
                for _ in 0..3 {
                    let n = self.rng.range(-400, 400) as i32;
                    let bigger = len + self.rng.range(0, 80);
                    let r = (api.rotate_copy)(a, n, bigger);
                    self.say(format!(
                        "rotate_copy {n} {bigger}: {} {}",
                        (api.size)(r),
                        self.full(r)
                    ));
                    self.free(r);
                    let r = (api.copy)(a);
                    (api.rotate)(r, n);
                    self.say(format!("rotate {n}: {}", self.full(r)));
                    self.free(r);
                }
                let count = i64::from((api.set_count)(a));
                for k in [0, 1, count, count + 1, self.rng.range(0, count), len + 1] {
                    let p = (api.pick_cnt)(a, k);
                    let picked = (!p.is_null()).then(|| self.full(p));
                    self.say(format!("pick_cnt {k}: {picked:?}"));
                    if !p.is_null() {
                        self.free(p);
                    }
                }

                // Word-wise operations, with bits past the size set.
                let x = (api.copy)(a);
                (api.and)(x, b);
                let and = self.full(x);
                (api.or)(x, a);
                let or = self.full(x);
                (api.not)(x);
                self.say(format!("and {and} or {or} not {}", self.full(x)));
                self.describe("not", x);
                let y = (api.copy)(x);
                let z = (api.alloc)(len);
                let text = CString::new(self.full(x)).unwrap_or_default();
                (api.unfmt)(z, text.as_ptr().cast_mut());
                self.say(format!(
                    "equal copy {} equal unfmt {} super sets {} {} overlap {} {}",
                    (api.equal)(x, y),
                    (api.equal)(x, z),
                    (api.super_set)(x, z),
                    (api.super_set)(z, x),
                    (api.overlap)(x, z),
                    (api.overlap_any)(x, b),
                ));
                for (p, q) in [(a, b), (b, a), (a, a), (x, a), (a, x)] {
                    self.say(format!(
                        "super_set {} overlap {} any {} equal {}",
                        (api.super_set)(p, q),
                        (api.overlap)(p, q),
                        (api.overlap_any)(p, q),
                        (api.equal)(p, q),
                    ));
                }
                // Sizes that differ: over the smaller.
                let e = (api.copy)(d);
                (api.or)(e, x);
                let or = self.full(e);
                (api.and)(y, d);
                let and = self.full(y);
                let hex = self.string((api.hexmask)(y));
                self.say(format!(
                    "d or x {or} x and d {and} {hex:?} {}",
                    (api.equal)(x, y)
                ));
                (api.copybits)(y, b);
                self.say(format!("copybits {}", (api.equal)(y, b)));
                for p in [x, y, z, e] {
                    self.free(p);
                }

                // Filling and clearing.
                let f = (api.copy)(a);
                (api.fill_gaps)(f);
                let gaps = self.full(f);
                for _ in 0..3 {
                    let first = self.rng.range(0, len - 1);
                    let last = self.rng.range(first, len - 1);
                    (api.nclear)(f, first, last);
                    let first = self.rng.range(0, len - 1);
                    let last = self.rng.range(first, len - 1);
                    (api.nset)(f, first, last);
                }
                self.say(format!("fill_gaps {gaps} nset/nclear {}", self.full(f)));
                (api.set_all)(f);
                let all = self.full(f);
                (api.clear_all)(f);
                self.say(format!("set_all {all} clear_all {}", self.full(f)));
                self.free(f);

                // Resizing keeps the last word's bits past the size.
                let mut g = (api.copy)(a);
                (api.not)(g);
                let smaller = self.rng.range(0, len);
                (api.realloc)(&mut g, smaller);
                let shrunk = self.string((api.hexmask)(g));
                let bigger = self.rng.range(smaller, smaller + 150);
                (api.realloc)(&mut g, bigger);
                self.say(format!(
                    "realloc {smaller} {shrunk:?} {bigger} {} {}",
                    (api.size)(g),
                    self.full(g),
                ));
                self.free(g);
            }
            for p in [a, b, d] {
                self.free(p);
            }
        }
    }

    #[test]
    fn answers_are_those_of_slurms_own_library() {
        let path = c"/usr/lib/x86_64-linux-gnu/libslurm.so.38";
        // SAFETY: dlopen of Slurm's library.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            eprintln!("skipped: Slurm's libslurm.so.38 is not installed");
            return;
        }
        // SAFETY: a handle of Slurm 22.05's libslurm.
        let (theirs, ours) = (unsafe { Api::theirs(lib) }, Api::ours());
        for seed in 0..300 {
            let mut runs = [&theirs, &ours].map(|api| Run {
                api,
                rng: Lcg(seed),
                log: Vec::new(),
            });
            runs.iter_mut().for_each(Run::exercise);
            let [slurm, spur] = runs;
            assert_eq!(slurm.log.len(), spur.log.len(), "seed {seed}");
            for (theirs, ours) in slurm.log.iter().zip(&spur.log) {
                assert_eq!(theirs, ours, "seed {seed}");
            }
        }
    }
}
