//! The process's memory allocator: the system's, asking Linux to back large blocks with
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`; the kernel's default here, "madvise",
//! gives them only to memory that asks).
//!
//! A run with thousands of flows keeps tens of megabytes of link, flow and packet state in a
//! few large arrays and visits them all over: with 4 KB pages, every few visits miss the TLB,
//! and the first touch of each page is a fault. With 2 MB pages there are hundreds of times
//! fewer of both. At 10 000 flows (`scenarios/bench/series-10000.toml`) the run went from
//! ~26 000 page faults to ~16 000 and took ~3% fewer cycles, for ~4 MB more peak memory; small
//! runs barely reach the threshold. (The many small blocks come from the allocator's heap,
//! which this leaves alone; glibc's `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` covers those too,
//! for ~2% more.) Results do not depend on it: where the kernel has no huge page free, it
//! gives small ones.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct HugePageAlloc;

// SAFETY: every call is forwarded to `System` with the same arguments; `advise` only adds a hint
// about memory the block owns, which changes neither its contents nor its validity.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller's contract for `GlobalAlloc::alloc`.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller's contract for `GlobalAlloc::alloc_zeroed`.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller's contract for `GlobalAlloc::dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as the caller's contract for `GlobalAlloc::realloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }
}

/// Advises the whole pages of the block `[p, p + size)`, if it is large.
#[cfg(target_os = "linux")]
fn advise(p: *mut u8, size: usize) {
    /// A huge page is 2 MB, and aligned: a block needs twice that to be sure to hold one.
    const ADVISE_FROM: usize = 4 << 20;
    const PAGE: usize = 4096;
    if p.is_null() || size < ADVISE_FROM {
        return;
    }
    let start = (p as usize).next_multiple_of(PAGE);
    let end = (p as usize + size) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies within a block this process owns; MADV_HUGEPAGE is a hint that
        // leaves the memory's contents and mapping as they are. A failure (an old kernel, THP
        // off) is harmless and ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_p: *mut u8, _size: usize) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The mapping that holds `addr`, as /proc/self/smaps describes it: its VmFlags.
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            if let Some((a, b)) =
                range.and_then(|(a, b)| Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?)))
            {
                inside = (a..b).contains(&addr);
            } else if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.to_string());
                }
            }
        }
        None
    }

    /// A large block (this test binary uses the allocator too) is advised: the kernel marks
    /// its mapping `hg` (VM_HUGEPAGE). Skipped on a kernel without transparent huge pages.
    #[test]
    fn a_large_block_is_advised_for_huge_pages() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            eprintln!("no transparent huge pages in this kernel: nothing to check");
            return;
        }
        let big = vec![1u8; 16 << 20];
        let mid = big.as_ptr() as usize + big.len() / 2;
        let flags = vm_flags(mid).expect("the block's mapping is in /proc/self/smaps");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "VmFlags:{flags}");
    }
}
