//! A global allocator that counts: the bytes live now and the most since a mark.
//! The smoke run and the ratio report measure each run's peak with it; the
//! libFuzzer targets, built without a sanitizer, abort past a limit, which
//! libFuzzer then reports as a crash with its input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Forwards to the system allocator, counting sizes; `limit` bytes live at most.
pub struct Counting {
    limit: usize,
}

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    /// Counts without a limit.
    pub const fn new() -> Counting {
        Counting { limit: usize::MAX }
    }

    /// Aborts the process when more than `limit` bytes would be live.
    pub const fn with_limit(limit: usize) -> Counting {
        Counting { limit }
    }

    fn grew(&self, size: usize) {
        let now = CURRENT.fetch_add(size, Ordering::Relaxed).saturating_add(size);
        PEAK.fetch_max(now, Ordering::Relaxed);
        if now > self.limit {
            // No allocation here: stderr is unbuffered.
            let _ = std::io::stderr().write_all(b"pgolens-fuzz: allocation limit exceeded\n");
            std::process::abort();
        }
    }
}

impl Default for Counting {
    fn default() -> Self {
        Counting::new()
    }
}

/// Starts a measure: the peak is reset to what is live now, which is returned.
pub fn mark() -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    base
}

/// The most bytes live since [`mark`] returned `base`, beyond `base`.
pub fn peak_since(base: usize) -> usize {
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters
// only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
            self.grew(new_size);
        }
        p
    }
}
