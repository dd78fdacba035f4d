//! Zeroed memory for the large tables (transposition table, continuation history, mate table):
//! aligned to 2 MiB and, on Linux, advised for transparent huge pages; on Windows in large
//! pages when the user may lock pages in memory (`SeLockMemoryPrivilege`), else ordinary ones.
//!
//! Why: a table bucket is one 64-byte cache line only if the buckets start on a line, and a
//! probe lands on a random page, so with 4 KiB pages nearly every probe also misses the TLB
//! (as do lookups in a thread's 13 MB of continuation history). Huge pages cut the page walks;
//! the alignment makes each probe one line. Fresh pages from the OS are zero, so the memory
//! costs nothing until it is used (Windows' large pages excepted: they are locked in at once).
//!
//! No array is larger than the machine's physical memory (`physical_memory`): a larger one is
//! refused before the OS is asked. The OS's own answer is no limit: Linux with overcommit and
//! Wine map nearly any size and fail only when the pages are touched, by killing the process.

use std::ptr::NonNull;
use std::sync::OnceLock;

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
    /// Allocates `len` zeroed values (at least one), or `None` when that is more than the
    /// machine's physical memory (`physical_memory`) or the OS refuses the memory (a hash size
    /// larger than the machine can map).
    ///
    /// # Safety
    /// The all-zero byte pattern must be a valid `T` (atomics and integers only).
    pub unsafe fn try_new(len: usize) -> Option<ZeroedArray<T>> {
        let len = len.max(1);
        assert!(std::mem::align_of::<T>() <= ALIGN && std::mem::size_of::<T>() > 0);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.checked_next_multiple_of(ALIGN)?;
        if bytes as u64 > physical_memory().unwrap_or(u64::MAX) {
            return None;
        }
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

/// The machine's physical memory in bytes, as the OS reports it (asked once; `None` where
/// Kaname cannot ask: then only the OS limits an array). Total, not available, memory: what is
/// free changes from one moment to the next, and a table's size should not.
pub fn physical_memory() -> Option<u64> {
    static BYTES: OnceLock<Option<u64>> = OnceLock::new();
    *BYTES.get_or_init(os_physical_memory)
}

/// Puts the calling thread at the lowest priority (Linux: nice 19 for this thread alone;
/// Windows: `THREAD_PRIORITY_IDLE`), for background work such as mapping a table's pages that
/// must yield to the search. Best effort: a refusal changes nothing else.
pub fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's id (gettid) has no memory effects; failure ignored.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
    #[cfg(windows)]
    // SAFETY: the pseudo-handle of the calling thread is always valid; failure ignored.
    unsafe {
        use windows_sys::Win32::System::Threading::{GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_IDLE};
        SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_IDLE);
    }
}

/// Memory the machine can give this process now, in bytes: the least of what the OS counts as
/// available (Linux's `MemAvailable`, Windows' available physical memory), what the process's
/// control groups still allow (`linux_cgroup_room`) and what its address-space limit
/// (`ulimit -v`, Windows' available virtual memory) leaves. `None` where none can be read.
/// Asked afresh each time: it changes from one moment to the next.
pub fn available_memory() -> Option<u64> {
    os_available_memory()
}

/// The most memory one large table may take now (`available_memory` halved): a GUI user's
/// `USI_Hash 65536` on a 24 GiB machine gets half of what is free, and the other half stays for
/// the OS, the GUI and the second engine of a match (which, asking the same, gets half of what
/// is left). `None`: nothing is known, only the mapping itself limits a table.
pub fn table_cap() -> Option<u64> {
    available_memory().map(|b| b / 2)
}

#[cfg(target_os = "linux")]
fn os_available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let os = meminfo.as_deref().and_then(|m| proc_kib(m, "MemAvailable:"));
    [os, linux_cgroup_room(), linux_address_space_room()].into_iter().flatten().min()
}

/// A `<key> <n> kB` line of a /proc file, in bytes.
#[cfg(target_os = "linux")]
fn proc_kib(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// What the memory limits of this process's control group and of every group above it still
/// allow: cgroup v2 (`memory.max` less `memory.current`) or v1's memory controller
/// (`memory.limit_in_bytes` less `memory.usage_in_bytes`), as containers and `systemd-run -p
/// MemoryMax=` set them.
#[cfg(target_os = "linux")]
fn linux_cgroup_room() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut room: Option<u64> = None;
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (root, max, current) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max", "memory.current"),
            c if c.split(',').any(|c| c == "memory") => {
                ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
            }
            _ => continue,
        };
        let dir = std::path::Path::new(root).join(path.trim_start_matches('/'));
        let read = |d: &std::path::Path, f: &str| std::fs::read_to_string(d.join(f)).ok()?.trim().parse::<u64>().ok();
        for d in dir.ancestors().take_while(|d| d.starts_with(root)) {
            if let (Some(limit), Some(used)) = (read(d, max), read(d, current)) {
                let here = limit.saturating_sub(used);
                room = Some(room.map_or(here, |r| r.min(here)));
            }
        }
    }
    room
}

/// What `ulimit -v` (RLIMIT_AS) leaves beside the address space already mapped.
#[cfg(target_os = "linux")]
fn linux_address_space_room() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given; failure is checked.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped = proc_kib(&status, "VmSize:")?;
    Some(limit.rlim_cur.saturating_sub(mapped))
}

#[cfg(windows)]
fn os_available_memory() -> Option<u64> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    // SAFETY: as in `os_physical_memory`.
    unsafe {
        let mut status: MEMORYSTATUSEX = std::mem::zeroed();
        status.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
        (GlobalMemoryStatusEx(&mut status) != 0).then(|| status.ullAvailPhys.min(status.ullAvailVirtual))
    }
}

#[cfg(not(any(target_os = "linux", windows)))]
fn os_available_memory() -> Option<u64> {
    None
}

#[cfg(target_os = "linux")]
fn os_physical_memory() -> Option<u64> {
    // SAFETY: sysconf has no preconditions; -1 (unknown) is checked.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

#[cfg(windows)]
fn os_physical_memory() -> Option<u64> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    // SAFETY: a zeroed MEMORYSTATUSEX with its length set is what the call expects; failure
    // (0) is checked.
    unsafe {
        let mut status: MEMORYSTATUSEX = std::mem::zeroed();
        status.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
        (GlobalMemoryStatusEx(&mut status) != 0 && status.ullTotalPhys > 0).then_some(status.ullTotalPhys)
    }
}

#[cfg(not(any(target_os = "linux", windows)))]
fn os_physical_memory() -> Option<u64> {
    None
}

/// Whether the large tables are in large pages on Windows: the user holds the right to lock
/// pages in memory (`SeLockMemoryPrivilege`, "Lock pages in memory" in the local security
/// policy), which Kaname then enables for itself, as YaneuraOu and Stockfish do. Without it
/// (Windows' default), or elsewhere, false. (Linux's transparent huge pages need no right and
/// are only advised, see `alloc`.)
pub fn large_pages() -> bool {
    #[cfg(windows)]
    {
        windows::large_page_size().is_some()
    }
    #[cfg(not(windows))]
    {
        false
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

/// Windows: fresh zero pages from `VirtualAlloc`, in large pages when the process may lock
/// pages (`large_pages`) and Windows has that many free, else in ordinary pages committed at
/// an `ALIGN` boundary inside a reservation `ALIGN` larger. `None` if Windows refuses.
#[cfg(windows)]
fn alloc(bytes: usize) -> Option<*mut u8> {
    windows::alloc(bytes)
}

/// Frees memory from `alloc`: the whole allocation `ptr` lies in.
///
/// # Safety
/// `ptr` must come from one call of `alloc`, and be freed once.
#[cfg(windows)]
unsafe fn free(ptr: *mut u8, _bytes: usize) {
    // SAFETY: passed on from the caller.
    unsafe { windows::free(ptr) }
}

#[cfg(windows)]
mod windows {
    use super::{OnceLock, ALIGN};
    use std::ffi::c_void;
    use windows_sys::Win32::Foundation::{CloseHandle, GetLastError, ERROR_SUCCESS, HANDLE, LUID};
    use windows_sys::Win32::Security::{
        AdjustTokenPrivileges, LookupPrivilegeValueW, LUID_AND_ATTRIBUTES, SE_LOCK_MEMORY_NAME, SE_PRIVILEGE_ENABLED,
        TOKEN_ADJUST_PRIVILEGES, TOKEN_PRIVILEGES, TOKEN_QUERY,
    };
    use windows_sys::Win32::System::Memory::{
        GetLargePageMinimum, VirtualAlloc, VirtualFree, VirtualQuery, MEMORY_BASIC_INFORMATION, MEM_COMMIT,
        MEM_LARGE_PAGES, MEM_RELEASE, MEM_RESERVE, PAGE_READWRITE,
    };
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

    /// The large-page size when this process could enable `SeLockMemoryPrivilege` (asked once).
    pub(super) fn large_page_size() -> Option<usize> {
        static SIZE: OnceLock<Option<usize>> = OnceLock::new();
        // SAFETY: GetLargePageMinimum has no preconditions.
        *SIZE.get_or_init(|| enable_lock_memory().then(|| unsafe { GetLargePageMinimum() }).filter(|&s| s > 0))
    }

    /// Enables `SeLockMemoryPrivilege` in the process's token: true only when the user holds
    /// it (AdjustTokenPrivileges succeeds but sets ERROR_NOT_ALL_ASSIGNED when not).
    fn enable_lock_memory() -> bool {
        // SAFETY: plain Win32 calls on this process's token with valid out-pointers; the
        // token handle is closed once.
        unsafe {
            let mut token: HANDLE = std::ptr::null_mut();
            if OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &mut token) == 0 {
                return false;
            }
            let mut luid = LUID { LowPart: 0, HighPart: 0 };
            let enabled = LookupPrivilegeValueW(std::ptr::null(), SE_LOCK_MEMORY_NAME, &mut luid) != 0 && {
                let privileges = TOKEN_PRIVILEGES {
                    PrivilegeCount: 1,
                    Privileges: [LUID_AND_ATTRIBUTES { Luid: luid, Attributes: SE_PRIVILEGE_ENABLED }],
                };
                let ok =
                    AdjustTokenPrivileges(token, 0, &privileges, 0, std::ptr::null_mut(), std::ptr::null_mut()) != 0;
                ok && GetLastError() == ERROR_SUCCESS
            };
            CloseHandle(token);
            enabled
        }
    }

    pub(super) fn alloc(bytes: usize) -> Option<*mut u8> {
        if let Some(size) = large_page_size().and_then(|lp| bytes.checked_next_multiple_of(lp)) {
            // SAFETY: a fresh allocation at an address of Windows' choosing; failure is null.
            let p = unsafe {
                VirtualAlloc(std::ptr::null(), size, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE)
            };
            if !p.is_null() {
                if (p as usize).is_multiple_of(ALIGN) {
                    return Some(p as *mut u8);
                }
                // SAFETY: the allocation just made, released whole.
                unsafe { VirtualFree(p, 0, MEM_RELEASE) };
            }
        }
        let span = bytes.checked_add(ALIGN)?;
        // SAFETY: a reservation at an address of Windows' choosing, then a commit inside it;
        // failures are null, and a failed commit releases the reservation.
        unsafe {
            let base = VirtualAlloc(std::ptr::null(), span, MEM_RESERVE, PAGE_READWRITE);
            if base.is_null() {
                return None;
            }
            let aligned = (base as usize).next_multiple_of(ALIGN) as *const c_void;
            let p = VirtualAlloc(aligned, bytes, MEM_COMMIT, PAGE_READWRITE);
            if p.is_null() {
                VirtualFree(base, 0, MEM_RELEASE);
                return None;
            }
            Some(p as *mut u8)
        }
    }

    /// # Safety
    /// `ptr` must come from one call of `alloc`, and be freed once.
    pub(super) unsafe fn free(ptr: *mut u8) {
        // SAFETY: `ptr` lies in an allocation `alloc` made, whose base VirtualQuery gives;
        // releasing the base frees the whole reservation (large pages or ordinary).
        unsafe {
            let mut info: MEMORY_BASIC_INFORMATION = std::mem::zeroed();
            if VirtualQuery(ptr as *const c_void, &mut info, std::mem::size_of::<MEMORY_BASIC_INFORMATION>()) != 0 {
                VirtualFree(info.AllocationBase, 0, MEM_RELEASE);
            }
        }
    }
}

/// Zeroed memory from the global allocator, aligned (no huge-page advice off Linux). `None`
/// if the allocator refuses.
#[cfg(not(any(target_os = "linux", windows)))]
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
#[cfg(not(any(target_os = "linux", windows)))]
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
        let bytes = std::mem::size_of_val(&a[..]) as u64;
        assert!(bytes <= physical_memory().expect("Linux and Windows tell their memory"), "{bytes}");
    }

    /// Large pages are Windows' only, and only with the right to lock pages; whichever path
    /// `alloc` takes, its memory is zeroed and aligned (`memory_is_zeroed_aligned...`).
    #[test]
    fn large_pages_only_on_windows_with_the_right() {
        let large = large_pages();
        eprintln!("large pages: {large}");
        if !cfg!(windows) {
            assert!(!large);
        }
    }

    /// What is available is read on both systems, is at most the machine's memory and changes
    /// with what the process holds; a table may take half of it.
    #[test]
    fn available_memory_is_read_and_bounded_by_the_machine() {
        let phys = physical_memory().expect("Linux and Windows tell their memory");
        let avail = available_memory().expect("Linux and Windows tell what is available");
        assert!(avail > 0 && avail <= phys, "{avail} of {phys}");
        let cap = table_cap().expect("a cap");
        assert!(cap <= avail / 2 + (64 << 20), "{cap} of {avail}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_lines_are_read_in_bytes() {
        let text = "MemTotal:       24577460 kB\nMemAvailable:   23000000 kB\nVmSize:\t  123 kB\n";
        assert_eq!(proc_kib(text, "MemAvailable:"), Some(23_000_000 * 1024));
        assert_eq!(proc_kib(text, "VmSize:"), Some(123 * 1024));
        assert_eq!(proc_kib(text, "SwapFree:"), None);
    }

    /// The cap comes from the OS's count of the machine's memory (sysconf on Linux,
    /// GlobalMemoryStatusEx on Windows): every size above it is refused before the OS is asked
    /// for a page, so a test can ask for it even where the OS maps anything (Wine, overcommit),
    /// and a table of half of it is mapped (not touched).
    #[test]
    fn memory_beyond_the_physical_is_refused_before_mapping() {
        let phys = physical_memory().expect("Linux and Windows tell their memory");
        assert!((64 << 20..1 << 50).contains(&phys), "{phys} bytes of memory?");
        let phys = phys as usize;
        // SAFETY: zero is a valid u8 and AtomicU64.
        unsafe {
            for len in [phys + 1, phys + ALIGN, 2 * phys, phys.next_power_of_two() * 2] {
                assert!(ZeroedArray::<u8>::try_new(len).is_none(), "{len} bytes on a {phys}-byte machine");
            }
            assert!(ZeroedArray::<AtomicU64>::try_new(phys / 8 + 1).is_none());
            let half = ZeroedArray::<u8>::try_new(phys / 2).expect("half the machine's memory, untouched");
            assert_eq!(half.len(), phys / 2);
            assert_eq!(half.as_ptr() as usize % ALIGN, 0);
            drop(half);
            let a = ZeroedArray::<u8>::largest_up_to(2 * phys, 1 << 20);
            assert!(a.len() <= phys && a.len() > phys / 4, "{} of {phys}", a.len());
        }
    }
}
