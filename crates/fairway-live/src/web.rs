//! Web-like sessions on Linux's TCP (kadhum2015 §4.2): each session of a flow's schedule (the
//! simulator's, `WebSessions::schedule`) is a connection of its own, opened at its moment,
//! carrying its transfer; one listener takes them all. A session is complete when the receiver
//! has acknowledged all of its bytes, as the simulator's is when its last packet is
//! acknowledged; Linux's handshake adds a round trip the simulator's TCP does not make.

use std::io::{self, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::sampler::Sampler;
use crate::tcp::{self, TcpSettings};

/// A web flow's counts, kept by its sessions' threads.
#[derive(Debug, Default)]
pub struct WebCounts {
    /// Bytes the receiver read before the run's end.
    pub received: AtomicU64,
    /// Segments sent and retransmitted, of the sessions that ended (added as each ends).
    pub segs_out: AtomicU64,
    pub retransmits: AtomicU64,
    /// Sessions opened, those whose bytes were all acknowledged, and their summed durations.
    pub started: AtomicU64,
    pub completed: AtomicU64,
    pub completion_ns: AtomicU64,
}

/// A web flow's counts at a moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebSnapshot {
    pub received: u64,
    pub segs_out: u64,
    pub retransmits: u64,
}

impl WebCounts {
    pub fn snapshot(&self) -> WebSnapshot {
        WebSnapshot {
            received: self.received.load(Ordering::Relaxed),
            segs_out: self.segs_out.load(Ordering::Relaxed),
            retransmits: self.retransmits.load(Ordering::Relaxed),
        }
    }
}

/// How often a finished sender looks whether its bytes are acknowledged, and how often the
/// listener looks for a connection.
const POLL: Duration = Duration::from_millis(1);

/// Opens each session of `schedule` (when, bytes) at its moment to `to`, each on a thread of
/// its own, in the calling thread's network namespace (its threads inherit it); none writes
/// after `stop`. Returns when every session has ended.
pub fn send_sessions(schedule: &[(Instant, u64)], to: SocketAddr, s: TcpSettings, stop: Instant, counts: &WebCounts) {
    std::thread::scope(|scope| {
        for &(at, bytes) in schedule {
            // A session due before the stop starts, even if this thread woke after it (a loaded
            // machine oversleeps): the schedule, the simulator's, says it started; it then has
            // no time to send.
            if at >= stop {
                break;
            }
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            counts.started.fetch_add(1, Ordering::Relaxed);
            scope.spawn(move || {
                // A session that cannot connect before the end sends nothing; one that fails
                // later keeps what it sent.
                let wait = stop.saturating_duration_since(Instant::now()).max(POLL);
                let Ok(mut c) = tcp::connect(to, s, wait) else { return };
                let mut none = Sampler::new(vec![]);
                let sent = tcp::send_bulk(&mut c, stop, Some(bytes), &mut none);
                let mut last = sent.as_ref().ok().map(|r| r.1);
                if let Ok((written, _)) = sent {
                    while written == bytes && Instant::now() < stop {
                        let Ok(k) = tcp::counts(&c) else { break };
                        last = Some(k);
                        if k.bytes_acked >= bytes {
                            counts.completed.fetch_add(1, Ordering::Relaxed);
                            counts.completion_ns.fetch_add(at.elapsed().as_nanos() as u64, Ordering::Relaxed);
                            break;
                        }
                        std::thread::sleep(POLL);
                    }
                }
                if let Some(k) = last {
                    counts.segs_out.fetch_add(k.segs_out, Ordering::Relaxed);
                    counts.retransmits.fetch_add(k.retransmits, Ordering::Relaxed);
                }
            });
        }
    });
}

/// Accepts the sessions' connections on `l` until `end`, each read on a thread of its own
/// (bytes after `end` are not counted), and takes the flow's counts at `samples`' moments.
pub fn receive_sessions(
    l: &TcpListener,
    end: Instant,
    counts: &WebCounts,
    samples: &mut Sampler<Instant, WebSnapshot>,
) -> io::Result<()> {
    l.set_nonblocking(true)?;
    std::thread::scope(|scope| loop {
        let now = Instant::now();
        samples.record(now, || counts.snapshot());
        if now >= end {
            break Ok(());
        }
        match l.accept() {
            Ok((c, _)) => {
                scope.spawn(move || read_until(c, end, &counts.received));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(e) => break Err(e),
        }
    })?;
    // Sessions still sending at the end add their counts as they stop: the last moments take
    // what they all sent.
    samples.finish(counts.snapshot());
    Ok(())
}

/// Reads `c` until its sender closes or `end` passes, adding what arrives before `end` to `got`.
fn read_until(mut c: TcpStream, end: Instant, got: &AtomicU64) {
    let mut buf = vec![0u8; 65536];
    if c.set_nonblocking(false).is_err() {
        return;
    }
    loop {
        let now = Instant::now();
        if now >= end || c.set_read_timeout(Some((end - now).max(POLL))).is_err() {
            return;
        }
        match c.read(&mut buf) {
            Ok(0) => return,
            Ok(n) if Instant::now() <= end => {
                got.fetch_add(n as u64, Ordering::Relaxed);
            }
            Ok(_) => return,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return,
        }
    }
}
