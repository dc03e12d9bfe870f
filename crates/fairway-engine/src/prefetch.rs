//! A hint to the processor's caches.

/// Asks the processor to bring the cache line holding the start of `x` closer, without waiting
/// for it. A hint only: it has no effect on results.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault; the address comes
    // from a live reference in any case. SSE, which provides it, is part of x86-64's baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// [`prefetch`] for the first `n` cache lines of `x`, as far as `x` reaches.
#[inline(always)]
pub(crate) fn prefetch_lines<T>(x: &T, n: usize) {
    let base = (x as *const T).cast::<u8>();
    for i in 0..n.min(std::mem::size_of::<T>().div_ceil(64)) {
        // SAFETY: `i * 64 < size_of::<T>()`: the address is within `x`.
        prefetch(unsafe { &*base.add(i * 64) });
    }
}
