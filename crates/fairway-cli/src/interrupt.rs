//! Ctrl-C and SIGTERM: the first one asks the run to stop where it is, so that what it has is
//! written. A second one within a second of the first is the same request arriving twice (as
//! `timeout` sends it to the command and then to its process group, or a group kill reaches every
//! process) and is ignored; a later one ends the process at once, without writing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Set by the first SIGINT or SIGTERM.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// When the first signal came, in ns of the monotonic clock.
static FIRST_AT_NS: AtomicU64 = AtomicU64::new(0);

/// A second signal sooner than this after the first is taken for the same request.
const SAME_REQUEST_NS: u64 = 1_000_000_000;

/// The exit code of a command interrupted by a signal (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

#[cfg(target_os = "linux")]
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the struct it is given; it is async-signal-safe (POSIX).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}

#[cfg(target_os = "linux")]
extern "C" fn on_signal(_: libc::c_int) {
    // Atomics, clock_gettime and _exit only: nothing else is safe in a signal handler.
    let now = monotonic_ns();
    if !INTERRUPTED.swap(true, Ordering::SeqCst) {
        FIRST_AT_NS.store(now, Ordering::SeqCst);
        return;
    }
    if now.saturating_sub(FIRST_AT_NS.load(Ordering::SeqCst)) >= SAME_REQUEST_NS {
        // SAFETY: _exit is async-signal-safe; the results folder being written is left as a
        // hidden .partial folder, which the next run into that parent removes (output::folder).
        unsafe { libc::_exit(i32::from(EXIT_INTERRUPTED)) };
    }
}

/// The action that runs [`on_signal`].
#[cfg(target_os = "linux")]
fn action() -> libc::sigaction {
    // SAFETY: a zeroed sigaction, then filled, as POSIX asks; the handler only uses
    // async-signal-safe calls.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        sa
    }
}

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    #[cfg(target_os = "linux")]
    {
        let sa = action();
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: a filled action for a catchable signal.
            unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) };
        }
    }
}

/// For a command that holds the system's state (network namespaces): the other signals whose
/// default action ends the process (SIGHUP from a closed terminal, SIGQUIT, SIGUSR1, SIGUSR2,
/// SIGALRM) are taken as SIGINT, so that it ends by cleaning up. A signal ignored when the
/// process started stays ignored (as `nohup` ignores SIGHUP; Rust's runtime ignores SIGPIPE, so
/// a closed pipe ends a write with an error, not the process).
pub fn install_for_cleanup() {
    #[cfg(target_os = "linux")]
    {
        let sa = action();
        for sig in [libc::SIGHUP, libc::SIGQUIT, libc::SIGUSR1, libc::SIGUSR2, libc::SIGALRM] {
            // SAFETY: the old action is read into a zeroed struct; a filled action replaces it.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction != libc::SIG_IGN {
                    libc::sigaction(sig, &sa, std::ptr::null_mut());
                }
            }
        }
    }
}

/// Whether a signal came.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
