//! An allocator for commands that build large, short-lived values (a
//! listing of 100,000 jobs): a block of 128 KiB or more gets an anonymous
//! mapping of its own, which grows by moving its pages (mremap) rather
//! than by copying its bytes into pages faulted in anew; from 2 MiB on
//! the mapping is advised for transparent huge pages, so that filling it
//! costs a page fault per 2 MiB instead of one per 4 KiB (each a trap into
//! the kernel, dearer still in a virtual machine). Everything smaller goes
//! to the system allocator.

use std::alloc::{GlobalAlloc, Layout};
use std::ptr;

/// The allocator of small blocks: the C library's, except musl's, which
/// maps and unmaps pages for them as they come and go.
#[cfg(not(target_env = "musl"))]
static SMALL: std::alloc::System = std::alloc::System;
#[cfg(target_env = "musl")]
static SMALL: crate::musl::SmallBlocks = crate::musl::SmallBlocks;

/// The global allocator of the commands: `#[global_allocator] static A:
/// LargePages = LargePages;`.
#[derive(Debug, Clone, Copy, Default)]
pub struct LargePages;

/// The smallest block given a mapping of its own (glibc's default bound
/// for the same).
const LARGE: usize = 128 << 10;
/// The shortest mapping advised for huge pages: one huge page.
const HUGE: usize = 2 << 20;
/// The alignment a mapping has.
const PAGE: usize = 4096;

/// Whether a block of `size` bytes aligned as `layout` asks has a mapping of
/// its own.
fn is_large(size: usize, layout: Layout) -> bool {
    size >= LARGE && layout.align() <= PAGE
}

/// The length of the mapping of a block of `size` bytes.
fn mapped(size: usize) -> usize {
    size.next_multiple_of(PAGE)
}

/// Advises the mapping at `p`, `len` bytes long, for huge pages if it can
/// hold one. Advice only: without transparent huge pages the block still
/// works.
unsafe fn advise(p: *mut libc::c_void, len: usize) {
    if len >= HUGE {
        // SAFETY: the caller's p..p+len is a mapping of its own.
        unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
    }
}

/// A new mapping of at least `size` bytes, zeroed, advised for huge
/// pages when it can hold one; null when the kernel refuses.
unsafe fn map(size: usize) -> *mut u8 {
    let len = mapped(size);
    // SAFETY: an anonymous private mapping at an address of the kernel's
    // choosing touches no existing memory.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    // SAFETY: p..p+len is the mapping just made.
    unsafe { advise(p, len) };
    p.cast()
}

// SAFETY: large blocks are whole mappings, created, resized and removed
// only here, with the lengths their layouts give; the rest is SMALL's.
unsafe impl GlobalAlloc for LargePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size(), layout) {
            // SAFETY: see map.
            unsafe { map(layout.size()) }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { SMALL.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size(), layout) {
            // A new mapping is zeroed already.
            // SAFETY: see map.
            unsafe { map(layout.size()) }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { SMALL.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if is_large(layout.size(), layout) {
            // SAFETY: a large block is a mapping of exactly this length.
            unsafe { libc::munmap(block.cast(), mapped(layout.size())) };
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { SMALL.dealloc(block, layout) }
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (is_large(layout.size(), layout), is_large(new_size, layout)) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { SMALL.realloc(block, layout, new_size) },
            (true, true) => {
                // The kernel moves the pages (and their advice), copying
                // nothing.
                // SAFETY: a large block is a mapping of exactly this length.
                let moved = unsafe {
                    libc::mremap(
                        block.cast(),
                        mapped(layout.size()),
                        mapped(new_size),
                        libc::MREMAP_MAYMOVE,
                    )
                };
                if moved == libc::MAP_FAILED {
                    return ptr::null_mut();
                }
                // Grown past a huge page's length, it takes the advice
                // (which covered only what it was).
                if mapped(layout.size()) < HUGE {
                    // SAFETY: the mapping just moved, of this length.
                    unsafe { advise(moved, mapped(new_size)) };
                }
                moved.cast()
            }
            _ => {
                // From one kind to the other: a new block, the bytes
                // copied, the old one freed.
                // SAFETY: the new layout is valid (the caller's contract).
                let new_layout =
                    unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                // SAFETY: a non-zero size (the caller's contract).
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    // SAFETY: both blocks hold at least this many bytes
                    // and do not overlap.
                    unsafe {
                        ptr::copy_nonoverlapping(block, new, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_every_size_keep_their_bytes_through_growth_and_shrinking() {
        let a = LargePages;
        let layout = Layout::from_size_align(1000, 8).expect("layout");
        // SAFETY: each block is used within its size and freed once, with
        // the layout it has at that point.
        unsafe {
            let mut block = a.alloc(layout);
            assert!(!block.is_null());
            ptr::write_bytes(block, 7, 1000);
            let mut size = 1000;
            // Small to large, large to past a huge page and larger, back
            // to small.
            for new_size in [200 << 10, 3 << 20, 9 << 20, 500] {
                let old = Layout::from_size_align(size, 8).expect("layout");
                block = a.realloc(block, old, new_size);
                assert!(!block.is_null());
                let kept = size.min(new_size).min(1000);
                assert!((0..kept).all(|i| *block.add(i) == 7));
                size = new_size;
            }
            a.dealloc(block, Layout::from_size_align(size, 8).expect("layout"));
            let zeroed = Layout::from_size_align(4 << 20, 64).expect("layout");
            let z = a.alloc_zeroed(zeroed);
            assert!((0..(4 << 20)).step_by(4099).all(|i| *z.add(i) == 0));
            a.dealloc(z, zeroed);
        }
    }
}
