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
