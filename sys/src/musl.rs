//! What a static musl program takes in place of two of musl's slow paths:
//! its allocator, which maps and unmaps pages for the small blocks a
//! command makes by the thousand, and its `memcpy` and `memmove`, which
//! start a string instruction even for a copy of a dozen bytes. A command
//! is started once per line of a shell loop, and musl starts it in a
//! fraction of glibc's time (glibc probes the CPU at each start, and a
//! virtual machine traps every probe); these two keep the work after the
//! start as fast as with glibc.
//!
//! Both are built on every target (the copy on every x86-64 one), so that
//! their tests run everywhere; only a musl program allocates with
//! [`SmallBlocks`] (see [`crate::LargePages`]) and exports [`move_bytes`]
//! as `memcpy` and `memmove`.

pub use small_blocks::SmallBlocks;

mod small_blocks {
    use std::alloc::{GlobalAlloc, Layout};
    use std::cell::{Cell, UnsafeCell};
    use std::ptr;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Blocks up to this size, aligned to at most [`GRAIN`], are kept for
    /// reuse by the thread that freed them.
    const SMALL: usize = 256;
    /// The step between the sizes of kept blocks.
    const GRAIN: usize = 16;
    /// Size classes of kept blocks.
    const CLASSES: usize = SMALL / GRAIN;
    /// Blocks kept per class and thread: at most 16 x 64 blocks, 136 KiB,
    /// which stay unused when the thread ends.
    const KEPT: u16 = 64;

    /// dlmalloc behind a lock that spins, with each thread's freed small
    /// blocks kept for its next allocations of their size, as glibc's
    /// per-thread cache keeps them: a command's threads (squeue renders
    /// on two) then seldom meet at the lock. musl's own mutex would put a
    /// contending thread to sleep in the kernel. Every value of this type
    /// is the one process-wide heap, as the threads' kept blocks are.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct SmallBlocks;

    /// What the heap takes from the kernel at a time, at least. dlmalloc
    /// maps 64 KiB by default, and the kernel places each new mapping
    /// below the last, apart from the heap's top block: sbatch's heap,
    /// some 250 KiB of clap arguments and matches, took a mapping per
    /// step and moved its growing vectors across them. A larger mapping
    /// costs nothing until its pages are touched (sbatch: 7 mappings and
    /// 133 page faults a run, now 5 and 127).
    const GRANULARITY: usize = 1 << 20;

    /// The process's heap.
    static HEAP: Heap = Heap {
        locked: AtomicBool::new(false),
        heap: UnsafeCell::new({
            let mut heap = dlmalloc::Dlmalloc::new();
            assert!(heap.set_granularity(GRANULARITY), "a power of two");
            heap
        }),
    };

    /// dlmalloc and its lock.
    struct Heap {
        locked: AtomicBool,
        heap: UnsafeCell<dlmalloc::Dlmalloc>,
    }

    // SAFETY: the heap is only reached with the lock held.
    unsafe impl Sync for Heap {}

    /// A thread's kept blocks: per class, a list threaded through the
    /// blocks themselves (each holds the next one's address), and its
    /// length.
    struct Kept {
        heads: [Cell<*mut u8>; CLASSES],
        counts: [Cell<u16>; CLASSES],
    }

    thread_local! {
        // Nothing to drop: the thread's blocks are not given back when it
        // ends, so no destructor (which could allocate) is registered.
        static KEPT_BLOCKS: Kept = const {
            Kept {
                heads: [const { Cell::new(ptr::null_mut()) }; CLASSES],
                counts: [const { Cell::new(0) }; CLASSES],
            }
        };
    }

    /// The class of a block of `layout`, if it is small.
    #[inline]
    fn class(layout: Layout) -> Option<usize> {
        (layout.size() <= SMALL && layout.align() <= GRAIN)
            .then(|| layout.size().saturating_sub(1) / GRAIN)
    }

    impl Heap {
        /// Runs `f` on the heap with the lock held.
        #[inline]
        fn with<T>(&self, f: impl FnOnce(&mut dlmalloc::Dlmalloc) -> T) -> T {
            let mut spins = 0u32;
            while self
                .locked
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                while self.locked.load(Ordering::Relaxed) {
                    spins += 1;
                    if spins < 100 {
                        std::hint::spin_loop();
                    } else {
                        // The holder may have been preempted: let it run.
                        std::thread::yield_now();
                    }
                }
            }
            // SAFETY: the lock is held until the store below.
            let r = f(unsafe { &mut *self.heap.get() });
            self.locked.store(false, Ordering::Release);
            r
        }
    }

    impl SmallBlocks {
        /// Runs `f` on the heap with the lock held.
        #[inline]
        fn with<T>(self, f: impl FnOnce(&mut dlmalloc::Dlmalloc) -> T) -> T {
            HEAP.with(f)
        }

        /// A block of class `c`: one this thread kept, else a new one of
        /// the class's whole size.
        #[inline]
        fn take(self, c: usize) -> *mut u8 {
            let kept = KEPT_BLOCKS.try_with(|k| {
                let head = k.heads[c].get();
                if !head.is_null() {
                    // SAFETY: a kept block holds the next one's address.
                    k.heads[c].set(unsafe { head.cast::<*mut u8>().read() });
                    k.counts[c].set(k.counts[c].get() - 1);
                }
                head
            });
            match kept {
                Ok(block) if !block.is_null() => block,
                // SAFETY: a non-zero size and a valid alignment.
                _ => self.with(|h| unsafe { h.malloc((c + 1) * GRAIN, GRAIN) }),
            }
        }

        /// Gives back `block`, of class `c`: kept by this thread, unless
        /// it keeps enough of the class.
        #[inline]
        fn give(self, block: *mut u8, c: usize) {
            let kept = KEPT_BLOCKS.try_with(|k| {
                if k.counts[c].get() >= KEPT {
                    return false;
                }
                // SAFETY: the block is free and holds at least GRAIN bytes,
                // aligned for an address.
                unsafe { block.cast::<*mut u8>().write(k.heads[c].get()) };
                k.heads[c].set(block);
                k.counts[c].set(k.counts[c].get() + 1);
                true
            });
            if kept != Ok(true) {
                // SAFETY: the block came from the heap with this size.
                self.with(|h| unsafe { h.free(block, (c + 1) * GRAIN, GRAIN) });
            }
        }
    }

    // SAFETY: a small block is always a heap block of its class's whole
    // size, aligned to GRAIN, and is kept or freed as such; every other
    // block is dlmalloc's, with the caller's size and alignment.
    unsafe impl GlobalAlloc for SmallBlocks {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            match class(layout) {
                Some(c) => self.take(c),
                // SAFETY: the caller's contract, passed on.
                None => self.with(|h| unsafe { h.malloc(layout.size(), layout.align()) }),
            }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            match class(layout) {
                Some(c) => {
                    let block = self.take(c);
                    if !block.is_null() {
                        // SAFETY: the block holds at least layout.size() bytes.
                        unsafe { block.write_bytes(0, layout.size()) };
                    }
                    block
                }
                // SAFETY: the caller's contract, passed on.
                None => self.with(|h| unsafe { h.calloc(layout.size(), layout.align()) }),
            }
        }

        #[inline]
        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            match class(layout) {
                Some(c) => self.give(block, c),
                // SAFETY: the caller's contract, passed on.
                None => self.with(|h| unsafe { h.free(block, layout.size(), layout.align()) }),
            }
        }

        #[inline]
        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller's contract: new_size is valid with this
            // alignment.
            let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            match (class(layout), class(new_layout)) {
                (None, None) => self.with(|h| {
                    // SAFETY: the caller's contract, passed on.
                    unsafe { h.realloc(block, layout.size(), layout.align(), new_size) }
                }),
                (Some(old), Some(new)) if old == new => block,
                _ => {
                    // SAFETY: as alloc and dealloc; both blocks hold the
                    // bytes copied, and they are distinct.
                    unsafe {
                        let moved = self.alloc(new_layout);
                        if !moved.is_null() {
                            ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                            self.dealloc(block, layout);
                        }
                        moved
                    }
                }
            }
        }
    }
}

/// Copies `n` bytes from `src` to `dst`, which may overlap, as `memmove`
/// does; returns `dst`. Up to 128 bytes it loads every byte into
/// registers before it stores any (straight code: overlap needs no care,
/// and the compiler finds no loop to turn back into a call to `memcpy`);
/// above that it uses `rep movsb`, fast on every x86-64 of the last
/// decade, backwards where the destination overlaps the source's end.
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `n` bytes.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(target_env = "musl", export_name = "memmove")]
pub unsafe extern "C" fn move_bytes(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
    use std::ptr::{read_unaligned as get, write_unaligned as put};

    /// The 16 bytes at `p + at`.
    #[inline(always)]
    unsafe fn load(p: *const u8, at: usize) -> __m128i {
        // SAFETY: the caller keeps p + at .. p + at + 16 inside the source.
        unsafe { _mm_loadu_si128(p.add(at).cast()) }
    }
    /// `v` stored at `p + at`.
    #[inline(always)]
    unsafe fn store(p: *mut u8, at: usize, v: __m128i) {
        // SAFETY: the caller keeps p + at .. p + at + 16 inside the
        // destination.
        unsafe { _mm_storeu_si128(p.add(at).cast(), v) }
    }

    // SAFETY (the whole body): each access lies within src..src+n or
    // dst..dst+n, by the size that chose its arm.
    unsafe {
        match n {
            0 => {}
            1 => *dst = *src,
            2..=3 => {
                let (a, b) = (get(src.cast::<u16>()), get(src.add(n - 2).cast::<u16>()));
                put(dst.cast::<u16>(), a);
                put(dst.add(n - 2).cast::<u16>(), b);
            }
            4..=7 => {
                let (a, b) = (get(src.cast::<u32>()), get(src.add(n - 4).cast::<u32>()));
                put(dst.cast::<u32>(), a);
                put(dst.add(n - 4).cast::<u32>(), b);
            }
            8..=16 => {
                let (a, b) = (get(src.cast::<u64>()), get(src.add(n - 8).cast::<u64>()));
                put(dst.cast::<u64>(), a);
                put(dst.add(n - 8).cast::<u64>(), b);
            }
            17..=32 => {
                let (a, b) = (load(src, 0), load(src, n - 16));
                store(dst, 0, a);
                store(dst, n - 16, b);
            }
            33..=64 => {
                let (a, b) = (load(src, 0), load(src, 16));
                let (c, d) = (load(src, n - 32), load(src, n - 16));
                store(dst, 0, a);
                store(dst, 16, b);
                store(dst, n - 32, c);
                store(dst, n - 16, d);
            }
            65..=128 => {
                let (a, b) = (load(src, 0), load(src, 16));
                let (c, d) = (load(src, 32), load(src, 48));
                let (e, f) = (load(src, n - 64), load(src, n - 48));
                let (g, h) = (load(src, n - 32), load(src, n - 16));
                store(dst, 0, a);
                store(dst, 16, b);
                store(dst, 32, c);
                store(dst, 48, d);
                store(dst, n - 64, e);
                store(dst, n - 48, f);
                store(dst, n - 32, g);
                store(dst, n - 16, h);
            }
            _ if (dst as usize).wrapping_sub(src as usize) >= n => {
                // The destination starts before the source or past its
                // end: a forward copy reads each byte before it is
                // overwritten.
                std::arch::asm!(
                    "rep movsb",
                    inout("rcx") n => _,
                    inout("rdi") dst => _,
                    inout("rsi") src => _,
                    options(nostack, preserves_flags)
                );
            }
            _ => {
                // The destination overlaps the source's end: backwards,
                // from the last byte.
                std::arch::asm!(
                    "std",
                    "rep movsb",
                    "cld",
                    inout("rcx") n => _,
                    inout("rdi") dst.add(n - 1) => _,
                    inout("rsi") src.add(n - 1) => _,
                    options(nostack)
                );
            }
        }
    }
    dst
}

/// `memcpy` of a musl program: [`move_bytes`], which also allows overlap.
///
/// # Safety
///
/// As [`move_bytes`].
#[cfg(all(target_arch = "x86_64", target_env = "musl"))]
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract, passed on.
    unsafe { move_bytes(dst, src, n) }
}

#[cfg(test)]
mod allocator_tests {
    use super::SmallBlocks;
    use std::alloc::{GlobalAlloc, Layout};

    /// A block of `size` bytes aligned to `align` from `heap`, filled with
    /// `mark`.
    fn block(heap: &SmallBlocks, size: usize, align: usize, mark: u8) -> (*mut u8, Layout) {
        let layout = Layout::from_size_align(size, align).expect("layout");
        // SAFETY: a non-zero size; the block is filled within its size.
        unsafe {
            let p = heap.alloc(layout);
            assert!(!p.is_null());
            assert_eq!(p as usize % align, 0, "size {size} align {align}");
            p.write_bytes(mark, size);
            (p, layout)
        }
    }

    /// Whether the `size` bytes at `p` are all `mark`.
    fn holds(p: *const u8, size: usize, mark: u8) -> bool {
        // SAFETY: the caller's block holds `size` bytes.
        unsafe { std::slice::from_raw_parts(p, size) }
            .iter()
            .all(|&b| b == mark)
    }

    #[test]
    fn blocks_of_every_size_keep_their_bytes_and_kept_blocks_are_reused() {
        let heap = SmallBlocks;
        let mut live = Vec::new();
        for (i, size) in (1..600).chain([4096, 100_000]).enumerate() {
            for align in [1, 8, 16, 64] {
                live.push((block(&heap, size, align, i as u8), i as u8));
            }
        }
        // Every block still holds its own mark: none overlaps another.
        for &((p, layout), mark) in &live {
            assert!(holds(p, layout.size(), mark), "{layout:?}");
        }
        // A small block freed is the next one of its class this thread
        // gets.
        let (p, layout) = block(&heap, 40, 8, 1);
        // SAFETY: p came from heap with this layout.
        unsafe { heap.dealloc(p, layout) };
        let (again, _) = block(&heap, 33, 8, 2);
        assert_eq!(again, p, "a 33-byte block takes the kept 40-byte one");
        live.push(((again, Layout::from_size_align(33, 8).expect("layout")), 2));
        for ((p, layout), _) in live {
            // SAFETY: each block came from heap with this layout.
            unsafe { heap.dealloc(p, layout) };
        }
    }

    #[test]
    fn growing_and_shrinking_keep_the_bytes_across_classes_and_sizes() {
        let heap = SmallBlocks;
        let (mut p, mut layout) = block(&heap, 10, 8, 9);
        let mut kept = 10;
        for new_size in [12, 16, 17, 200, 256, 257, 5000, 300, 100, 3] {
            // SAFETY: p came from heap with `layout`; the new size is
            // non-zero.
            p = unsafe { heap.realloc(p, layout, new_size) };
            assert!(!p.is_null());
            kept = kept.min(new_size);
            assert!(holds(p, kept, 9), "to {new_size}");
            layout = Layout::from_size_align(new_size, 8).expect("layout");
        }
        // SAFETY: as above.
        unsafe { heap.dealloc(p, layout) };
        let zeroed = Layout::from_size_align(100, 16).expect("layout");
        // A kept block comes back zeroed when asked so.
        let (q, _) = block(&heap, 100, 16, 0xff);
        // SAFETY: q came from heap with this layout.
        unsafe { heap.dealloc(q, zeroed) };
        // SAFETY: a non-zero size.
        let z = unsafe { heap.alloc_zeroed(zeroed) };
        assert_eq!(z, q);
        assert!(holds(z, 100, 0));
        // SAFETY: z came from heap with this layout.
        unsafe { heap.dealloc(z, zeroed) };
    }

    #[test]
    fn threads_that_free_each_others_blocks_lose_none() {
        static HEAP: SmallBlocks = SmallBlocks;
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Layout, u8)>();
        let maker = std::thread::spawn(move || {
            for i in 0..20_000usize {
                let (p, layout) = block(&HEAP, 1 + i % 300, 8, i as u8);
                tx.send((p as usize, layout, i as u8)).expect("sends");
            }
        });
        let freer = std::thread::spawn(move || {
            let mut mine = Vec::new();
            for (p, layout, mark) in rx {
                assert!(holds(p as *const u8, layout.size(), mark));
                // SAFETY: the block came from HEAP with this layout.
                unsafe { HEAP.dealloc(p as *mut u8, layout) };
                // And this thread allocates from what it freed.
                mine.push(block(&HEAP, layout.size(), 8, mark));
                if mine.len() > 100 {
                    for (q, l) in mine.drain(..) {
                        // SAFETY: as above.
                        unsafe { HEAP.dealloc(q, l) };
                    }
                }
            }
            for (q, l) in mine {
                // SAFETY: as above.
                unsafe { HEAP.dealloc(q, l) };
            }
        });
        maker.join().expect("maker");
        freer.join().expect("freer");
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::move_bytes;

    /// `buf` after moving `n` bytes from `from` to `to` one by one, in the
    /// order that keeps overlapping bytes right.
    fn moved(buf: &[u8], from: usize, to: usize, n: usize) -> Vec<u8> {
        let mut out = buf.to_vec();
        let copy: Vec<u8> = buf[from..from + n].to_vec();
        out[to..to + n].copy_from_slice(&copy);
        out
    }

    #[test]
    fn every_size_and_offset_moves_as_memmove_does_overlapping_or_not() {
        let pattern: Vec<u8> = (0..4096u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let sizes = (0..=300).chain([511, 512, 513, 1000, 1024, 1500]);
        for n in sizes {
            // Apart, and overlapping by a little and a lot either way.
            let shifts: [isize; 9] = [-700, -65, -17, -3, -1, 1, 5, 33, 700];
            for shift in shifts {
                let from = 1000usize;
                let to = (from as isize + shift) as usize;
                let want = moved(&pattern, from, to, n);
                let mut got = pattern.clone();
                let base = got.as_mut_ptr();
                // SAFETY: both ranges lie inside `got`.
                let r = unsafe { move_bytes(base.add(to), base.add(from), n) };
                assert_eq!(r, base.wrapping_add(to));
                assert!(got == want, "n {n}, from {from} to {to}");
            }
        }
    }
}
