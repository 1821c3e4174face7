//! Slurm's `List`: the locked list of untyped items that `slurm.h`'s
//! `slurm_list_*` functions manage, and that libslurm's messages carry
//! (key pairs of the configuration, and the lists the Perl module and
//! pyslurm make themselves). A list owns its items when it was made with
//! a destructor: `slurm_list_destroy` calls it on each. Iterators walk a
//! list by position; each list locks itself, so several threads may use
//! one.

use std::collections::VecDeque;
use std::os::raw::{c_int, c_void};
use std::sync::{Mutex, MutexGuard};

use crate::bindings::{listIterator, xlist, List, ListCmpF, ListDelF, ListFindF, ListIterator};
use crate::call::guarded;

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
