//! Ctrl-C and SIGTERM: the first one asks the run to stop where it is, so that what it has is
//! written; a second one ends the process at once (the handler is reset after the first).

use std::sync::atomic::AtomicBool;

/// Set by the first SIGINT or SIGTERM.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The exit code of a command interrupted by a signal (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

#[cfg(target_os = "linux")]
extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: nothing else is safe in a signal handler.
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    #[cfg(target_os = "linux")]
    // SAFETY: the handler only stores to an atomic; sigaction is given a zeroed, then filled,
    // struct as POSIX asks.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        for sig in [libc::SIGINT, libc::SIGTERM] {
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Whether a signal came.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}
