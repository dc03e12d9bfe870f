//! The emulator: one thread that moves every packet between two TUN devices through a
//! [`Link`] each way: host `a` to host `b` through the bottleneck, `b` to `a` through the
//! return link. It waits in `ppoll` until a device has a packet or a link's next packet is due.

use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fairway_core::{Dur, Time};

use crate::bottleneck::{Link, Packet, Sample};
use crate::ipv4::{mark_ce, Header};
use crate::tun::Tun;

/// The longest wait between looks at the stop flag.
const LOOK: Duration = Duration::from_millis(50);
/// Packets read from one device before the links' due packets go out again: under overload
/// the reads would otherwise never end, and nothing would leave.
const BATCH: usize = 64;
/// Bytes of the largest packet a device hands over (its MTU is 1500; GSO is off without
/// IFF_VNET_HDR, so the kernel segments before the device).
const BUF: usize = 65_536;
/// Buffers of packets written out, kept for the packets read next, so that a steady flow
/// allocates nothing per packet; more than this many spare ones are freed.
const POOL: usize = 4096;

/// Spare packet buffers.
struct Pool(Vec<Vec<u8>>);

impl Pool {
    /// A buffer holding `bytes`.
    fn copy(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut v = self.0.pop().unwrap_or_default();
        v.clear();
        v.extend_from_slice(bytes);
        v
    }

    fn give(&mut self, v: Vec<u8>) {
        if self.0.len() < POOL {
            self.0.push(v);
        }
    }
}

/// What one direction carried.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Carried {
    /// Packets read from the device, and those of them that were not IPv4 and went no further
    /// (the bottleneck carries IPv4; a TUN device has no ARP, and IPv6 is off on it).
    pub read_pkts: u64,
    pub other_pkts: u64,
    /// Packets written to the far device, and writes the kernel refused.
    pub written_pkts: u64,
    pub write_errors: u64,
}

/// Samples of the forward link's queue every `every` from the run's start, as the simulator's
/// queue monitor takes them. A sample is taken when the emulator wakes for it, within a
/// fraction of a millisecond of its time, which it is labelled with.
#[derive(Debug, Clone, PartialEq)]
pub struct Monitor {
    pub every: Dur,
    pub samples: Vec<Sample>,
}

/// Runs until `stop` is set or `until` passes: `fwd` carries `a`'s packets to `b`, `rev`
/// `b`'s to `a`. Times on the links count from the call.
pub fn run(
    a: &mut Tun,
    b: &mut Tun,
    fwd: &mut Link,
    rev: &mut Link,
    until: Option<Duration>,
    stop: &AtomicBool,
    mut monitor: Option<&mut Monitor>,
) -> io::Result<(Carried, Carried)> {
    let epoch = Instant::now();
    let clock = || Time(epoch.elapsed().as_nanos() as u64);
    let mut buf = vec![0u8; BUF];
    let mut pool = Pool(Vec::new());
    let (mut ca, mut cb) = (Carried::default(), Carried::default());
    let mut next_sample = Time::ZERO;
    let mut busy = false;
    loop {
        let now = clock();
        if stop.load(Ordering::Relaxed) || until.is_some_and(|u| now.0 >= u.as_nanos() as u64) {
            return Ok((ca, cb));
        }
        forward(fwd, now, b, &mut ca, &mut pool);
        forward(rev, now, a, &mut cb, &mut pool);
        if let Some(m) = monitor.as_deref_mut() {
            while next_sample <= now {
                m.samples.push(Sample { t: next_sample, ..fwd.sample(now) });
                next_sample += m.every;
            }
        }
        // A device that filled the last batch has more waiting: no need to ask the kernel.
        if !busy {
            let sample = monitor.as_ref().map(|_| next_sample);
            let wake = [fwd.next_wake(), rev.next_wake(), sample].into_iter().flatten().min();
            let wait = wake.map_or(LOOK, |w| Duration::from_nanos(w.0.saturating_sub(clock().0)).min(LOOK));
            wait_readable(&[a.as_raw_fd(), b.as_raw_fd()], wait)?;
        }
        let now = clock();
        let full_a = take_in(a, fwd, now, &mut buf, &mut ca, &mut pool)?;
        let full_b = take_in(b, rev, now, &mut buf, &mut cb, &mut pool)?;
        busy = full_a || full_b;
    }
}

/// Writes the packets `link` has delivered by `now` to `to`.
fn forward(link: &mut Link, now: Time, to: &mut Tun, c: &mut Carried, pool: &mut Pool) {
    while let Some(mut p) = link.release(now) {
        if p.ce {
            mark_ce(&mut p.bytes);
        }
        match to.send(&p.bytes) {
            Ok(()) => c.written_pkts += 1,
            Err(_) => c.write_errors += 1,
        }
        pool.give(p.bytes);
    }
}

/// Reads the packets waiting on `from` into `link`, at most [`BATCH`] of them; whether it read
/// that many.
fn take_in(
    from: &mut Tun,
    link: &mut Link,
    now: Time,
    buf: &mut [u8],
    c: &mut Carried,
    pool: &mut Pool,
) -> io::Result<bool> {
    for _ in 0..BATCH {
        let n = match from.recv(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        c.read_pkts += 1;
        let Some(h) = Header::parse(&buf[..n]) else {
            c.other_pkts += 1;
            continue;
        };
        // A refused packet is counted by the link's discipline and goes no further.
        link.arrive(now, Packet { bytes: pool.copy(&buf[..n]), meta: h.meta(n), ce: false });
    }
    Ok(true)
}

/// Waits until one of `fds` is readable or `wait` has passed.
pub(crate) fn wait_readable(fds: &[i32], wait: Duration) -> io::Result<()> {
    let mut polls: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    let ts = libc::timespec { tv_sec: wait.as_secs() as libc::time_t, tv_nsec: wait.subsec_nanos() as libc::c_long };
    // SAFETY: `polls` is a valid array of pollfd for its length; `ts` outlives the call; no
    // signal mask is given.
    let r = unsafe { libc::ppoll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, &ts, std::ptr::null()) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}
