//! A hint to the processor's caches.

/// Asks the processor to bring the cache line holding the start of `x` closer, without waiting
/// for it. A hint only: it has no effect on results.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    prefetch_ptr(x as *const T);
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

/// [`prefetch`] for the line at `p`, which need not point to a live value (the slot after a
/// vector's end, say): a prefetch of any address is a hint only and cannot fault.
#[inline(always)]
pub(crate) fn prefetch_ptr<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
