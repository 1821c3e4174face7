//! Slurm's `List`: the locked list of untyped items that `slurm.h`'s
//! `slurm_list_*` functions manage, and that libslurm's messages carry
//! (key pairs of the configuration, and the lists the Perl module and
//! pyslurm make themselves). A list owns its items when it was made with
//! a destructor: `slurm_list_destroy` calls it on each. Iterators walk a
//! list by position; each list locks itself, so several threads may use
//! one. Also Slurm's fillers of lists from command-line text:
//! `slurm_addto_char_list_with_case` (names, with hostlist brackets) and
//! `slurm_addto_step_list` (`job[_task][+het][.step]` entries).

use std::collections::VecDeque;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::{Mutex, MutexGuard};

use crate::bindings::{
    listIterator, slurm_selected_step_t, xlist, List, ListCmpF, ListDelF, ListFindF, ListIterator,
    NO_VAL, SLURM_BATCH_SCRIPT, SLURM_ERROR, SLURM_EXTERN_CONT, SLURM_INTERACTIVE_STEP,
};
use crate::call::{guarded, set_errno};
use crate::memory::c_string;

/// An item: the caller's pointer, moved between threads only under the
/// list's lock.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Item(*mut c_void);

// SAFETY: the list never dereferences an item; it only hands it back.
unsafe impl Send for Item {}

/// What a `List` points to.
struct SlurmList {
    items: Mutex<VecDeque<Item>>,
    destroy: ListDelF,
}

impl SlurmList {
    fn items(&self) -> MutexGuard<'_, VecDeque<Item>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a `ListIterator` points to: its list and the position of the next
/// item.
struct Cursor {
    list: *const SlurmList,
    next: usize,
}

/// Makes a list that frees its items with `destroy` (None: the caller
/// keeps them).
pub fn new_list(destroy: ListDelF) -> List {
    Box::into_raw(Box::new(SlurmList {
        items: Mutex::new(VecDeque::new()),
        destroy,
    }))
    .cast::<xlist>()
}

/// The list behind `l`.
///
/// # Safety
/// `l` is NULL or a list from this library, not yet destroyed.
unsafe fn list<'a>(l: List) -> Option<&'a SlurmList> {
    // SAFETY: as the caller promises.
    unsafe { l.cast::<SlurmList>().as_ref() }
}

/// The cursor behind `i`.
///
/// # Safety
/// `i` is NULL or an iterator from this library, not yet destroyed.
unsafe fn cursor<'a>(i: ListIterator) -> Option<&'a mut Cursor> {
    // SAFETY: as the caller promises.
    unsafe { i.cast::<Cursor>().as_mut() }
}

/// `slurm_list_create`: an empty list whose items `f` frees (NULL: none).
#[no_mangle]
pub extern "C" fn slurm_list_create(f: ListDelF) -> List {
    guarded(|| new_list(f))
}

/// `slurm_list_destroy`: frees each item with the list's destructor, then
/// the list.
///
/// # Safety
/// `l` is NULL or a list from this library, not used again, with no
/// iterator left on it.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_destroy(l: List) {
    if l.is_null() {
        return;
    }
    // SAFETY: the caller gives the list up.
    let owned = unsafe { Box::from_raw(l.cast::<SlurmList>()) };
    let items = std::mem::take(&mut *owned.items());
    if let Some(destroy) = owned.destroy {
        for item in items {
            // SAFETY: the destructor the list was made with, on its item.
            unsafe { destroy(item.0) };
        }
    }
}

/// `slurm_list_append`: adds `x` at the end; answers `x`.
///
/// # Safety
/// `l` is NULL or a live list from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_append(l: List, x: *mut c_void) -> *mut c_void {
    // SAFETY: as the caller promises.
    match unsafe { list(l) } {
        Some(list) => {
            list.items().push_back(Item(x));
            x
        }
        None => std::ptr::null_mut(),
    }
}

/// `slurm_list_count`: the number of items (0 for NULL).
///
/// # Safety
/// `l` is NULL or a live list from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_count(l: List) -> c_int {
    // SAFETY: as the caller promises.
    unsafe { list(l) }.map_or(0, |list| {
        c_int::try_from(list.items().len()).unwrap_or(c_int::MAX)
    })
}

/// `slurm_list_is_empty`: 1 when the list has no items (or is NULL).
///
/// # Safety
/// `l` is NULL or a live list from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_is_empty(l: List) -> c_int {
    // SAFETY: as the caller promises.
    c_int::from(unsafe { slurm_list_count(l) } == 0)
}

/// `slurm_list_pop`: removes the first item and answers it (the caller
/// now owns it), NULL when empty.
///
/// # Safety
/// `l` is NULL or a live list from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_pop(l: List) -> *mut c_void {
    // SAFETY: as the caller promises.
    unsafe { list(l) }
        .and_then(|list| list.items().pop_front())
        .map_or(std::ptr::null_mut(), |item| item.0)
}

/// `slurm_list_sort`: sorts the items with `f`, which (as qsort's
/// comparator in Slurm's) is given pointers to two items. Stable.
///
/// # Safety
/// `l` is NULL or a live list from this library; `f` compares its items.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_sort(l: List, f: ListCmpF) {
    // SAFETY: as the caller promises.
    let (Some(list), Some(cmp)) = (unsafe { list(l) }, f) else {
        return;
    };
    let mut items = list.items();
    items.make_contiguous().sort_by(|a, b| {
        let (mut a, mut b) = (a.0, b.0);
        // SAFETY: the comparator reads the two items through the pointers.
        let order = unsafe { cmp((&raw mut a).cast::<c_void>(), (&raw mut b).cast::<c_void>()) };
        order.cmp(&0)
    });
}

/// `slurm_list_iterator_create`: an iterator at the list's start.
///
/// # Safety
/// `l` is NULL or a live list from this library, which outlives the
/// iterator.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_create(l: List) -> ListIterator {
    if l.is_null() {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(Cursor {
        list: l.cast::<SlurmList>(),
        next: 0,
    }))
    .cast::<listIterator>()
}

/// `slurm_list_iterator_reset`: back to the list's start.
///
/// # Safety
/// `i` is NULL or a live iterator from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_reset(i: ListIterator) {
    // SAFETY: as the caller promises.
    if let Some(c) = unsafe { cursor(i) } {
        c.next = 0;
    }
}

/// `slurm_list_iterator_destroy`.
///
/// # Safety
/// `i` is NULL or an iterator from this library, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_destroy(i: ListIterator) {
    if !i.is_null() {
        // SAFETY: the caller gives the iterator up.
        drop(unsafe { Box::from_raw(i.cast::<Cursor>()) });
    }
}

/// `slurm_list_next`: the next item, NULL at the end.
///
/// # Safety
/// `i` is NULL or a live iterator from this library on a live list.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_next(i: ListIterator) -> *mut c_void {
    // SAFETY: as the caller promises.
    let Some(c) = (unsafe { cursor(i) }) else {
        return std::ptr::null_mut();
    };
    // SAFETY: the iterator's list outlives it.
    let list = unsafe { &*c.list };
    let item = list.items().get(c.next).copied();
    match item {
        Some(item) => {
            c.next += 1;
            item.0
        }
        None => std::ptr::null_mut(),
    }
}

/// `slurm_list_find`: from the iterator's position, the next item for
/// which `f(item, key)` is non-zero, NULL if none.
///
/// # Safety
/// `i` is NULL or a live iterator on a live list; `f` reads its items.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_find(
    i: ListIterator,
    f: ListFindF,
    key: *mut c_void,
) -> *mut c_void {
    let Some(f) = f else {
        return std::ptr::null_mut();
    };
    loop {
        // SAFETY: as the caller promises.
        let item = unsafe { slurm_list_next(i) };
        // SAFETY: the caller's predicate on one of its items.
        if item.is_null() || unsafe { f(item, key) } != 0 {
            return item;
        }
    }
}

/// Removes the first item `matches` picks, freeing it with the list's
/// destructor; whether there was one.
///
/// # Safety
/// The destructor, if any, frees the list's items.
unsafe fn remove_first(list: &SlurmList, matches: impl Fn(*mut c_void) -> bool) -> bool {
    let removed = {
        let mut items = list.items();
        let at = items.iter().position(|i| matches(i.0));
        at.and_then(|at| items.remove(at))
    };
    match (removed, list.destroy) {
        (Some(item), Some(destroy)) => {
            // SAFETY: the list's destructor on its own item.
            unsafe { destroy(item.0) };
            true
        }
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// The list and the text of a list filler's arguments; None if either
/// is NULL.
///
/// # Safety
/// `l` is NULL or a live list of this library's; `names` is NULL or
/// NUL-terminated.
unsafe fn list_and_names<'a>(l: List, names: *const c_char) -> Option<(&'a SlurmList, String)> {
    // SAFETY: as the caller promises.
    let list = unsafe { self::list(l) }?;
    // SAFETY: as the caller promises.
    let text = (!names.is_null()).then(|| unsafe { CStr::from_ptr(names) })?;
    Some((list, text.to_string_lossy().into_owned()))
}

/// The names a `slurm_addto_char_list` text holds, as Slurm splits it:
/// at commas outside brackets, a bracketed hostlist expanded, a leading
/// quote ending the text where it closes and other quotes read as `` ` ``,
/// an empty text (or one with nothing else) as one empty name.
pub fn char_list_names(text: &str) -> Vec<String> {
    let mut chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let quote = match chars.first() {
        Some(&q @ ('"' | '\'')) => {
            i = 1;
            Some(q)
        }
        _ => None,
    };
    let mut start = i;
    let mut names = Vec::new();
    let (mut in_bracket, mut after_bracket) = (false, false);
    while i < chars.len() {
        let c = chars[i];
        if Some(c) == quote {
            break;
        }
        match c {
            '"' | '\'' => chars[i] = '`',
            '[' => in_bracket = true,
            ',' if !in_bracket => {
                if after_bracket {
                    after_bracket = false;
                } else {
                    if i + 1 == chars.len() {
                        break;
                    }
                    if i != start {
                        names.push(chars[start..i].iter().collect());
                    }
                }
                start = i + 1;
            }
            ']' => {
                after_bracket = true;
                in_bracket = false;
                let expr: String = chars[start..=i].iter().collect();
                if let Ok(hosts) = spur_conf::hostlist::expand(&expr) {
                    names.extend(hosts);
                    start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if names.is_empty() || i > start {
        names.push(chars[start.min(i)..i].iter().collect());
    }
    names
}

/// `slurm_addto_char_list_with_case`: adds each name of `names` (see
/// [`char_list_names`]) to a list of C strings, lower-cased when asked; a
/// name already there (in any case) moves to the end. Answers how many
/// names were new.
///
/// # Safety
/// `l` is NULL or a live list of C strings whose destructor frees them;
/// `names` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_char_list_with_case(
    l: List,
    names: *mut c_char,
    lower_case: bool,
) -> c_int {
    // SAFETY: as the caller promises.
    let Some((list, text)) = (unsafe { list_and_names(l, names) }) else {
        return 0;
    };
    guarded(|| {
        let mut added = 0;
        for name in char_list_names(&text) {
            let same = |item: *mut c_void| {
                // SAFETY: the list holds C strings.
                let have = unsafe { CStr::from_ptr(item.cast::<c_char>()) };
                have.to_string_lossy().eq_ignore_ascii_case(&name)
            };
            // SAFETY: the list's destructor frees its strings.
            if !unsafe { remove_first(list, same) } {
                added += 1;
            }
            let name = if lower_case {
                name.to_ascii_lowercase()
            } else {
                name
            };
            list.items().push_back(Item(c_string(&name).cast()));
        }
        added
    })
}

/// One `job[_task][+het][.step]` entry as Slurm's `slurm_parse_step_str`
/// reads it (`batch`, `extern` and `interactive` steps by name); None
/// where Slurm would stop the program.
pub fn selected_step(text: &str) -> Option<slurm_selected_step_t> {
    let number = |t: &str| -> Option<u32> {
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (digits > 0).then(|| t[..digits].parse().unwrap_or(u32::MAX))
    };
    let mut step = slurm_selected_step_t::default();
    step.step_id.step_het_comp = NO_VAL;
    let (job, het_step) = match text.split_once('.') {
        Some((job, dot)) => {
            step.step_id.step_id = match dot {
                "batch" => SLURM_BATCH_SCRIPT,
                "extern" => SLURM_EXTERN_CONT,
                "interactive" => SLURM_INTERACTIVE_STEP,
                d => number(d)?,
            };
            let plus = dot.split_once('+').map(|(_, p)| p);
            if let Some(p) = plus {
                step.step_id.step_het_comp = number(p).unwrap_or(0);
            }
            (job, plus.is_some())
        }
        None => {
            step.step_id.step_id = NO_VAL;
            (text, false)
        }
    };
    let job = if let Some((job, task)) = job.split_once('_') {
        step.array_task_id = number(task)?;
        step.het_job_offset = NO_VAL;
        job
    } else if let Some((job, offset)) = job.split_once('+').filter(|_| !het_step) {
        step.array_task_id = NO_VAL;
        step.het_job_offset = number(offset)?;
        job
    } else {
        step.array_task_id = NO_VAL;
        step.het_job_offset = NO_VAL;
        job
    };
    step.step_id.job_id = number(job)?;
    Some(step)
}

fn same_step(a: &slurm_selected_step_t, b: &slurm_selected_step_t) -> bool {
    a.step_id.job_id == b.step_id.job_id
        && a.step_id.step_id == b.step_id.step_id
        && a.step_id.step_het_comp == b.step_id.step_het_comp
        && a.array_task_id == b.array_task_id
        && a.het_job_offset == b.het_job_offset
}

/// `slurm_addto_step_list`: adds each step of a comma list to a list of
/// `slurm_selected_step_t` (freed by `slurm_destroy_selected_step`),
/// leaving out those already there. Answers how many were added, or
/// SLURM_ERROR (errno EINVAL) for an entry Slurm cannot read, where
/// Slurm's own library would end the program.
///
/// # Safety
/// `l` is NULL or a live list of `slurm_selected_step_t`; `names` is NULL
/// or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_step_list(l: List, names: *mut c_char) -> c_int {
    // SAFETY: as the caller promises.
    let Some((list, text)) = (unsafe { list_and_names(l, names) }) else {
        return 0;
    };
    guarded(|| {
        let mut added = 0;
        for name in char_list_names(&text) {
            let step =
                selected_step(&name).filter(|_| name.starts_with(|c: char| c.is_ascii_digit()));
            let Some(step) = step else {
                set_errno(libc::EINVAL);
                return SLURM_ERROR;
            };
            let mut items = list.items();
            // SAFETY: the list holds selected steps.
            let known = items
                .iter()
                .any(|i| same_step(unsafe { &*i.0.cast::<slurm_selected_step_t>() }, &step));
            if !known {
                items.push_back(Item(Box::into_raw(Box::new(step)).cast()));
                added += 1;
            }
        }
        added
    })
}

/// `slurm_destroy_selected_step`: frees a step `slurm_addto_step_list`
/// made.
///
/// # Safety
/// `object` is NULL or such a step, not used again.
#[no_mangle]
pub unsafe extern "C" fn slurm_destroy_selected_step(object: *mut c_void) {
    if !object.is_null() {
        // SAFETY: a Box made by slurm_addto_step_list.
        drop(unsafe { Box::from_raw(object.cast::<slurm_selected_step_t>()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static FREED: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "C" fn count_free(x: *mut c_void) {
        FREED.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the test's items are Box<u32>.
        drop(unsafe { Box::from_raw(x.cast::<u32>()) });
    }

    unsafe extern "C" fn by_value(a: *mut c_void, b: *mut c_void) -> c_int {
        // SAFETY: pointers to items that are Box<u32> pointers.
        let (a, b) = unsafe { (**a.cast::<*const u32>(), **b.cast::<*const u32>()) };
        a.cmp(&b) as c_int
    }

    unsafe extern "C" fn equals(x: *mut c_void, key: *mut c_void) -> c_int {
        // SAFETY: items and key are u32 pointers.
        c_int::from(unsafe { *x.cast::<u32>() == *key.cast::<u32>() })
    }

    fn item(n: u32) -> *mut c_void {
        Box::into_raw(Box::new(n)).cast()
    }

    fn value(p: *mut c_void) -> u32 {
        // SAFETY: the test's items are u32.
        unsafe { *p.cast::<u32>() }
    }

    #[test]
    fn a_list_keeps_order_sorts_finds_pops_and_frees_its_items() {
        // SAFETY: one list, used as the API says.
        unsafe {
            let l = slurm_list_create(Some(count_free));
            assert_eq!(slurm_list_is_empty(l), 1);
            for n in [3, 1, 2] {
                slurm_list_append(l, item(n));
            }
            assert_eq!(slurm_list_count(l), 3);
            let it = slurm_list_iterator_create(l);
            let mut seen = Vec::new();
            loop {
                let x = slurm_list_next(it);
                if x.is_null() {
                    break;
                }
                seen.push(value(x));
            }
            assert_eq!(seen, [3, 1, 2]);

            slurm_list_sort(l, Some(by_value));
            slurm_list_iterator_reset(it);
            assert_eq!(value(slurm_list_next(it)), 1);
            let mut key = 3u32;
            slurm_list_iterator_reset(it);
            let found = slurm_list_find(it, Some(equals), (&raw mut key).cast());
            assert_eq!(value(found), 3);
            assert!(slurm_list_find(it, Some(equals), (&raw mut key).cast()).is_null());
            slurm_list_iterator_destroy(it);

            let first = slurm_list_pop(l);
            assert_eq!(value(first), 1);
            count_free(first);
            let before = FREED.load(Ordering::SeqCst);
            slurm_list_destroy(l);
            assert_eq!(FREED.load(Ordering::SeqCst) - before, 2);
        }
    }

    #[test]
    fn char_lists_split_as_slurms() {
        assert_eq!(char_list_names("a,b,,c"), ["a", "b", "c"]);
        assert_eq!(char_list_names("n[1-2],x"), ["n1", "n2", "x"]);
        assert_eq!(char_list_names("'q,r'tail"), ["q", "r"]);
        assert_eq!(char_list_names(""), [""]);
        assert_eq!(char_list_names("a,"), ["a"]);
    }

    #[test]
    fn steps_read_as_slurms() {
        let s = selected_step("12_3.batch").expect("step");
        assert_eq!(
            (
                s.step_id.job_id,
                s.array_task_id,
                s.step_id.step_id,
                s.het_job_offset
            ),
            (12, 3, SLURM_BATCH_SCRIPT, NO_VAL)
        );
        let s = selected_step("7+1").expect("het");
        assert_eq!(
            (s.step_id.job_id, s.het_job_offset, s.step_id.step_id),
            (7, 1, NO_VAL)
        );
        assert!(selected_step("7.x").is_none());
    }

    #[test]
    fn null_lists_answer_empty() {
        // SAFETY: NULL is allowed everywhere.
        unsafe {
            assert_eq!(slurm_list_count(std::ptr::null_mut()), 0);
            assert!(slurm_list_pop(std::ptr::null_mut()).is_null());
            assert!(slurm_list_iterator_create(std::ptr::null_mut()).is_null());
            assert!(slurm_list_next(std::ptr::null_mut()).is_null());
            slurm_list_destroy(std::ptr::null_mut());
        }
    }
}
