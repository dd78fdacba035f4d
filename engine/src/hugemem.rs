//! Zeroed memory for the large tables (transposition table, continuation history, mate table):
//! aligned to 2 MiB and, on Linux, advised for transparent huge pages.
//!
//! Why: a table bucket is one 64-byte cache line only if the buckets start on a line, and a
//! probe lands on a random page, so with 4 KiB pages nearly every probe also misses the TLB
//! (as do lookups in a thread's 13 MB of continuation history). Huge pages cut the page walks;
//! the alignment makes each probe one line. Fresh pages from the OS are zero, so the memory
//! costs nothing until it is used.

use std::ptr::NonNull;

/// Alignment of the buffer: one huge page (which is also a multiple of every cache line).
const ALIGN: usize = 2 << 20;

/// A zeroed, 2 MiB-aligned array of `len` values of `T`, freed on drop.
pub struct ZeroedArray<T> {
    ptr: NonNull<T>,
    len: usize,
    bytes: usize,
}

// SAFETY: the array owns its memory exclusively, like a `Box<[T]>`, so it may move to and be
// shared between threads exactly when `T` may.
unsafe impl<T: Send> Send for ZeroedArray<T> {}
// SAFETY: as above: `&ZeroedArray<T>` only hands out `&[T]`.
unsafe impl<T: Sync> Sync for ZeroedArray<T> {}

impl<T> ZeroedArray<T> {
    /// Allocates `len` zeroed values (at least one), or `None` when the OS refuses the
    /// memory (a hash size larger than the machine can map).
    ///
    /// # Safety
    /// The all-zero byte pattern must be a valid `T` (atomics and integers only).
    pub unsafe fn try_new(len: usize) -> Option<ZeroedArray<T>> {
        let len = len.max(1);
        assert!(std::mem::align_of::<T>() <= ALIGN && std::mem::size_of::<T>() > 0);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.checked_next_multiple_of(ALIGN)?;
        let ptr = NonNull::new(alloc(bytes)? as *mut T)?;
        Some(ZeroedArray { ptr, len, bytes })
    }

    /// The longest of `len`, `len / 2`, `len / 4`, ... values (not below `min`) that the
    /// machine can map: a table asked to be larger than memory allows gets smaller, not fatal.
    ///
    /// # Safety
    /// The all-zero byte pattern must be a valid `T` (atomics and integers only).
    pub unsafe fn largest_up_to(len: usize, min: usize) -> ZeroedArray<T> {
        let mut len = len.max(min);
        loop {
            match Self::try_new(len) {
                Some(a) => return a,
                None if len / 2 >= min => len /= 2,
                None => return Self::new(min),
            }
        }
    }

    /// As `try_new`, aborting like any failed allocation when the memory is refused.
    ///
    /// # Safety
    /// The all-zero byte pattern must be a valid `T` (atomics and integers only).
    pub unsafe fn new(len: usize) -> ZeroedArray<T> {
        match Self::try_new(len) {
            Some(a) => a,
            None => std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(len.saturating_mul(std::mem::size_of::<T>()), ALIGN)
                    .unwrap_or(std::alloc::Layout::new::<T>()),
            ),
        }
    }
}

impl<T> Default for ZeroedArray<T> {
    /// An empty array, owning no memory.
    fn default() -> Self {
        ZeroedArray { ptr: NonNull::dangling(), len: 0, bytes: 0 }
    }
}

impl<T> std::ops::Deref for ZeroedArray<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `bytes >= len * size_of::<T>()` zero-initialised bytes that
        // this value owns until drop (or is dangling with `len` 0, which a slice allows); the
        // caller of `new` vouched that zero is a valid `T`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> std::ops::DerefMut for ZeroedArray<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroedArray<T> {
    fn drop(&mut self) {
        if self.bytes > 0 {
            // SAFETY: the pointer and size are those `alloc` returned, freed once.
            unsafe { free(self.ptr.as_ptr() as *mut u8, self.bytes) }
        }
    }
}

/// Maps `bytes` (a multiple of `ALIGN`) of fresh zero pages at an `ALIGN` boundary: a larger
/// anonymous mapping trimmed at both ends, then advised for huge pages (only advice: without
/// transparent huge pages the memory is ordinary pages). `None` if the OS refuses.
#[cfg(target_os = "linux")]
fn alloc(bytes: usize) -> Option<*mut u8> {
    let span = bytes.checked_add(ALIGN)?;
    // SAFETY: an anonymous private mapping has no preconditions; failure is checked.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    let start = raw as usize;
    let aligned = start.next_multiple_of(ALIGN);
    // SAFETY: both ranges lie inside the mapping just made and outside the part kept; a
    // failed trim or advice leaves memory mapped or unadvised, never unsound.
    unsafe {
        if aligned > start {
            libc::munmap(raw, aligned - start);
        }
        let tail = aligned + bytes;
        if start + span > tail {
            libc::munmap(tail as *mut libc::c_void, start + span - tail);
        }
        libc::madvise(aligned as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
    Some(aligned as *mut u8)
}

/// Unmaps memory from `alloc`.
///
/// # Safety
/// `ptr` and `bytes` must come from one call of `alloc`, and be freed once.
#[cfg(target_os = "linux")]
unsafe fn free(ptr: *mut u8, bytes: usize) {
    libc::munmap(ptr as *mut libc::c_void, bytes);
}

/// Zeroed memory from the global allocator, aligned (no huge-page advice off Linux). `None`
/// if the allocator refuses.
#[cfg(not(target_os = "linux"))]
fn alloc(bytes: usize) -> Option<*mut u8> {
    let layout = std::alloc::Layout::from_size_align(bytes, ALIGN).ok()?;
    // SAFETY: the layout is not zero-sized (bytes is a positive multiple of ALIGN).
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    (!p.is_null()).then_some(p)
}

/// Frees memory from `alloc`.
///
/// # Safety
/// `ptr` and `bytes` must come from one call of `alloc`, and be freed once.
#[cfg(not(target_os = "linux"))]
unsafe fn free(ptr: *mut u8, bytes: usize) {
    std::alloc::dealloc(ptr, std::alloc::Layout::from_size_align(bytes, ALIGN).expect("valid layout"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    #[test]
    fn memory_is_zeroed_aligned_writable_and_sized() {
        for len in [1, 3, 100_000, 300_000] {
            // SAFETY: zero is a valid AtomicU64.
            let a = unsafe { ZeroedArray::<AtomicU64>::new(len) };
            let s = &a[..];
            assert_eq!(s.len(), len);
            assert_eq!(s.as_ptr() as usize % ALIGN, 0);
            assert!(s.iter().all(|x| x.load(Relaxed) == 0));
            for (i, x) in s.iter().enumerate() {
                x.store(i as u64 ^ 0x5555, Relaxed);
            }
            assert!(s.iter().enumerate().all(|(i, x)| x.load(Relaxed) == i as u64 ^ 0x5555));
        }
    }

    #[test]
    fn memory_no_machine_can_map_is_refused_not_fatal() {
        // SAFETY: zero is a valid AtomicU64.
        unsafe {
            assert!(ZeroedArray::<AtomicU64>::try_new(usize::MAX / 8).is_none());
            assert!(ZeroedArray::<AtomicU64>::try_new(1 << 60).is_none());
            assert!(ZeroedArray::<AtomicU64>::try_new(10).is_some());
        }
        assert!(ZeroedArray::<AtomicU64>::default().is_empty());
        // SAFETY: as above.
        let a = unsafe { ZeroedArray::<AtomicU64>::largest_up_to(1 << 60, 8) };
        assert!(a.len() >= 8 && a.len() < 1 << 60 && a.len().is_power_of_two());
    }
}
