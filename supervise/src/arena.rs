//! The supervisor binary's allocator: a bump arena in the binary's zeroed
//! data, in front of the C library's. A supervisor allocates a few hundred
//! small blocks to read its launch and start the script, then next to
//! nothing while it waits; musl's allocator maps and unmaps pages for them
//! one by one, and each mapping is one more area for the script's fork to
//! copy and its exec to tear down. The arena takes them with no system
//! call. Blocks freed last-in first-out (all the waiting loop frees) are
//! taken back; others stay until the process ends, and what does not fit
//! goes to the C library, so the arena never costs more than its size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The arena's size: several times what a job with a large environment
/// needs.
const ARENA_BYTES: usize = 1 << 20;

/// The arena's memory, in the zeroed data segment (pages are only
/// touched, and so only mapped, as they are used).
#[repr(C, align(4096))]
struct Memory(UnsafeCell<[u8; ARENA_BYTES]>);

/// A bump allocator over [`ARENA_BYTES`], the C library's beyond that.
pub struct Arena {
    memory: Memory,
    /// The offset of the first free byte.
    top: AtomicUsize,
}

// SAFETY: the memory is handed out in disjoint blocks, each claimed by a
// compare-and-swap of `top`.
unsafe impl Sync for Arena {}

impl Arena {
    /// An empty arena.
    pub const fn new() -> Arena {
        Arena {
            memory: Memory(UnsafeCell::new([0; ARENA_BYTES])),
            top: AtomicUsize::new(0),
        }
    }

    fn base(&self) -> *mut u8 {
        self.memory.0.get().cast()
    }

    /// The offset of `ptr` in the arena, if it is the arena's.
    fn offset(&self, ptr: *mut u8) -> Option<usize> {
        let offset = (ptr as usize).wrapping_sub(self.base() as usize);
        (offset < ARENA_BYTES).then_some(offset)
    }

    /// A block of `layout` from the arena, if it has room.
    fn bump(&self, layout: Layout) -> Option<*mut u8> {
        let mut top = self.top.load(Ordering::Relaxed);
        loop {
            let start = top.checked_next_multiple_of(layout.align())?;
            let end = start.checked_add(layout.size())?;
            if end > ARENA_BYTES {
                return None;
            }
            match self
                .top
                .compare_exchange_weak(top, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                // SAFETY: start < ARENA_BYTES, inside the arena's memory.
                Ok(_) => return Some(unsafe { self.base().add(start) }),
                Err(now) => top = now,
            }
        }
    }
}

impl Default for Arena {
    fn default() -> Arena {
        Arena::new()
    }
}

// SAFETY: blocks from the arena are disjoint, aligned as asked and inside
// its memory; every other block is the C library's and goes back to it.
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.bump(layout) {
            Some(ptr) => ptr,
            // SAFETY: the caller's layout, passed on.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match self.offset(ptr) {
            // The last block handed out is taken back; an older one stays.
            Some(start) => {
                let end = start + layout.size();
                let _ = self
                    .top
                    .compare_exchange(end, start, Ordering::Relaxed, Ordering::Relaxed);
            }
            // SAFETY: a block the C library gave, with its layout.
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if let Some(start) = self.offset(ptr) {
            // The last block grows or shrinks in place while it fits.
            let (end, new_end) = (start + layout.size(), start.saturating_add(new_size));
            if new_end <= ARENA_BYTES
                && self
                    .top
                    .compare_exchange(end, new_end, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                return ptr;
            }
            // An older block shrinks where it is (its tail stays taken).
            if new_size <= layout.size() {
                return ptr;
            }
        }
        // SAFETY: the caller's block and layout; a new block of the new
        // size, the old contents copied, the old block freed.
        unsafe {
            let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).expect("a layout")
    }

    #[test]
    fn blocks_are_aligned_disjoint_and_the_last_one_freed_is_reused() {
        static ARENA: Arena = Arena::new();
        let arena = &ARENA;
        // SAFETY: blocks of these layouts, freed with them.
        unsafe {
            let a = arena.alloc(layout(3, 1));
            let b = arena.alloc(layout(16, 16));
            assert_eq!(b as usize % 16, 0);
            assert!(b as usize >= a as usize + 3);
            arena.dealloc(b, layout(16, 16));
            let c = arena.alloc(layout(16, 16));
            assert_eq!(c, b, "the last block freed is handed out again");
            // An older block freed stays taken: the next comes after c.
            arena.dealloc(a, layout(3, 1));
            let d = arena.alloc(layout(1, 1));
            assert!(d as usize >= c as usize + 16);
        }
    }

    #[test]
    fn the_last_block_grows_in_place_others_move_to_grow_and_shrink_in_place() {
        static ARENA: Arena = Arena::new();
        let arena = &ARENA;
        // SAFETY: blocks of these layouts, written within their sizes.
        unsafe {
            let a = arena.alloc(layout(4, 1));
            a.copy_from(b"abcd".as_ptr(), 4);
            let grown = arena.realloc(a, layout(4, 1), 64);
            assert_eq!(grown, a, "the last block grows where it is");
            let b = arena.alloc(layout(8, 8));
            let moved = arena.realloc(a, layout(64, 1), 128);
            assert_ne!(moved, a);
            assert_eq!(std::slice::from_raw_parts(moved, 4), b"abcd");
            // An older block shrinks where it is.
            let shrunk = arena.realloc(b, layout(8, 8), 4);
            assert_eq!(shrunk, b, "an older block shrinks in place");
            arena.dealloc(b, layout(4, 8));
        }
    }

    #[test]
    fn what_does_not_fit_goes_to_the_c_library() {
        static ARENA: Arena = Arena::new();
        let arena = &ARENA;
        // SAFETY: blocks of these layouts, freed with them.
        unsafe {
            let big = arena.alloc(layout(ARENA_BYTES + 1, 8));
            assert!(!big.is_null());
            assert_eq!(arena.offset(big), None);
            big.write_bytes(7, ARENA_BYTES + 1);
            arena.dealloc(big, layout(ARENA_BYTES + 1, 8));
            let small = arena.alloc(layout(8, 8));
            assert_eq!(arena.offset(small), Some(0));
        }
    }
}
