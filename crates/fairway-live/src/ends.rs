//! Endpoints on sockets: fairway-proto's ends, driven through their bytes ([`WireEnd`]), each on
//! a UDP socket of its own, with the system clock. One thread runs any number of them (one end
//! of a flow between two hosts, or every end of a testbed), waiting in `ppoll` for a datagram
//! or the next timer.
//!
//! A sender's application starts and stops at the times its flow gives; when it stops, the end
//! tells its receiver its totals ([`framing::EndOfFlow`], sent [`END_COPIES`] times). A
//! receiver answers the first sender that reaches it with a datagram tagged by the flow's key,
//! and finishes [`LINGER`] after the end of flow, or after [`IDLE`] without a datagram.
//!
//! What a receiver takes in: only datagrams its key verifies, of its flow, from its sender; each
//! sequence number once (a copy is counted, not handed to the endpoint again); and a number at
//! least [`WINDOW`] ahead of the highest seen only when a second one near it confirms it (until
//! then it is held), so one datagram cannot make the receiver forget the window it tracks.

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fairway_core::{Bytes, Dur, Rng, Time};
use fairway_model::delay_hist::DelayHist;
use fairway_proto::{Arrival, Sent, WireEnd};

use crate::emulate::wait_readable;
use crate::framing::{self, Echo, EndOfFlow, Header, Kind, Refused};
use crate::key::Key;
use crate::sampler::Sampler;
use crate::socket::{tos, Port, CE};

/// Copies of the end of flow a sender sends, and the gap between them: one lost copy does not
/// leave its receiver waiting.
pub const END_COPIES: u32 = 3;
pub const END_GAP: Dur = Dur(20_000_000);
/// How long a receiver stays after the end of flow, for datagrams still on their way.
pub const LINGER: Dur = Dur(200_000_000);
/// A receiver that has heard from its sender finishes after this long without a datagram.
pub const IDLE: Dur = Dur(10_000_000_000);
/// The longest wait between looks at the stop flag.
const LOOK: Duration = Duration::from_millis(50);
/// Datagrams read from one socket before the others get a turn.
const BATCH: usize = 64;
/// A datagram's largest size on UDP.
const BUF: usize = 65_536;
/// Sequence numbers remembered behind the highest, to tell duplicates: a datagram further
/// behind counts as one.
pub const WINDOW: u32 = 4096;

/// Time for the endpoints (monotonic, from the clock's creation) and the wall clock that stamps
/// datagrams, so that two processes, or two hosts whose clocks agree, measure one-way delay.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    epoch: Instant,
    wall0_ns: u64,
}

impl Clock {
    pub fn new() -> Clock {
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        Clock { epoch: Instant::now(), wall0_ns: wall.as_nanos() as u64 }
    }

    pub fn now(&self) -> Time {
        Time(self.epoch.elapsed().as_nanos() as u64)
    }

    /// The moment `t` on this clock, for code that waits on `Instant`s (threads beside the
    /// endpoints' loop, such as Linux's TCP flows).
    pub fn at(&self, t: Time) -> Instant {
        self.epoch + Duration::from_nanos(t.0)
    }

    fn wall_ns(&self) -> u64 {
        self.wall0_ns + self.now().0
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

/// One-way delays of the datagrams an end received, as the simulator sums them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Delays {
    pub n: u64,
    pub sum_s: f64,
    pub sum_sq: f64,
    /// |D(i) - D(i-1)| summed over consecutive arrivals (RFC 3550 §6.4.1), and how many.
    pub jitter_sum_s: f64,
    pub jitter_n: u64,
    last_s: Option<f64>,
}

impl Delays {
    fn add(&mut self, d: f64) {
        self.n += 1;
        self.sum_s += d;
        self.sum_sq += d * d;
        if let Some(l) = self.last_s {
            self.jitter_sum_s += (d - l).abs();
            self.jitter_n += 1;
        }
        self.last_s = Some(d);
    }

    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_s / self.n as f64)
    }

    pub fn jitter_s(&self) -> Option<f64> {
        (self.jitter_n > 0).then(|| self.jitter_sum_s / self.jitter_n as f64)
    }

    pub fn sd_s(&self) -> Option<f64> {
        let m = self.mean_s()?;
        Some((self.sum_sq / self.n as f64 - m * m).max(0.0).sqrt())
    }
}

/// What an end did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EndCounts {
    /// Datagrams its endpoint handed over: their simulated sizes and application bytes.
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub sent_payload: u64,
    /// Of them, those the socket refused (its buffer full): lost at the host.
    pub send_errors: u64,
    /// Those with nobody to go to (a receiver's, before any sender reached it).
    pub unsent_pkts: u64,
    /// Its peer's datagrams received, and of them the first copies.
    pub recv_pkts: u64,
    pub recv_bytes: u64,
    pub recv_distinct_pkts: u64,
    pub recv_distinct_bytes: u64,
    pub recv_distinct_payload: u64,
    /// Received marked Congestion Experienced.
    pub ce_pkts: u64,
    /// Received but refused by the endpoint's decoder.
    pub refused_pkts: u64,
    /// Datagrams that were not its peer's: not fairway's, another flow's, from elsewhere.
    pub stranger_pkts: u64,
    /// fairway's datagrams whose tag the key does not verify, or whose lengths do not add up:
    /// forged, changed on the way, or another run's.
    pub forged_pkts: u64,
    /// Datagrams shorter than their sender wrote them.
    pub truncated_pkts: u64,
    /// Copies of a sequence number already received (counted in `recv_pkts`, not delivered).
    pub duplicate_pkts: u64,
    /// Datagrams its own socket dropped because its receive buffer was full (the end was kept
    /// off its core): lost at this host, not on the network (Linux's SO_RXQ_OVFL count, as of
    /// the last datagram read).
    pub host_drops_pkts: u64,
    /// A datagram far ahead of the others ([`WINDOW`] or more), held until another confirms it:
    /// how many are held at the moment (0 or 1), and how many were let go unconfirmed.
    pub held_pkts: u64,
    pub unconfirmed_pkts: u64,
    pub delays: Delays,
    /// What its sender said at the end (a receiver's).
    pub peer_end: Option<EndOfFlow>,
    /// A sender's checks of its receiver's echoes: passed, failed (the receiver claimed data
    /// arrived that it cannot have seen: it hides losses), and not checkable (it owned up to
    /// losses in the range, or the range is older than the sender remembers).
    pub nonce_passed: u64,
    pub nonce_failed: u64,
    pub nonce_unchecked: u64,
    /// When its application started and stopped (a sender's), and its first and last arrivals.
    pub started: Option<Time>,
    pub stopped: Option<Time>,
    pub first_recv: Option<Time>,
    pub last_recv: Option<Time>,
}

/// Which end, and for a sender where its receiver is and when its application runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Sender { to: SocketAddr, start: Time, stop: Time },
    Receiver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// A sender before its start.
    Waiting,
    Running,
    /// A sender telling its receiver it has stopped: copies left, when the next goes.
    Ending {
        left: u32,
        next: Time,
    },
    /// A receiver told the flow has ended, until it finishes.
    Lingering {
        until: Time,
    },
    Done,
}

/// A bit for each of the last [`WINDOW`] sequence numbers.
#[derive(Debug)]
struct Bits(Vec<u64>);

impl Bits {
    fn new() -> Bits {
        Bits(vec![0; WINDOW as usize / 64])
    }

    fn at(s: u32) -> (usize, u32) {
        ((s % WINDOW) as usize / 64, s % 64)
    }

    fn get(&self, s: u32) -> bool {
        let (w, b) = Bits::at(s);
        self.0[w] & (1 << b) != 0
    }

    fn set(&mut self, s: u32, v: bool) {
        let (w, b) = Bits::at(s);
        self.0[w] = (self.0[w] & !(1 << b)) | (v as u64) << b;
    }
}

/// The data sequence numbers a receiver has seen, [`WINDOW`] behind the highest, with their
/// nonces, and how far its echoes have covered them.
#[derive(Debug)]
struct Seen {
    top: Option<u32>,
    got: Bits,
    nonce: Bits,
    echoed_to: Option<u32>,
    /// A number [`WINDOW`] or more ahead of `top`, not believed yet, and its nonce.
    ahead: Option<(u32, bool)>,
}

/// What a sequence number is to the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    New,
    Copy,
    /// Far ahead: held until another confirms it.
    Held,
    /// New, and it confirms the one held, which is now new too.
    Confirms,
}

impl Seen {
    fn new() -> Seen {
        Seen { top: None, got: Bits::new(), nonce: Bits::new(), echoed_to: None, ahead: None }
    }

    /// What `s` is: seen for the first time (its nonce is kept), a copy, or far ahead. A number
    /// far ahead moves the window only when a second, different one within [`WINDOW`] of it
    /// comes: a real jump (a long outage) is followed by the rest of the flow, a lone datagram
    /// is not.
    fn insert(&mut self, s: u32, nonce: bool) -> Fate {
        if self.top.is_some_and(|t| s > t && s - t >= WINDOW) {
            return match self.ahead {
                Some((a, _)) if a == s => Fate::Copy,
                Some((a, an)) if a.abs_diff(s) < WINDOW => {
                    self.ahead = None;
                    let (lo, hi) = if a < s { ((a, an), (s, nonce)) } else { ((s, nonce), (a, an)) };
                    self.take(lo.0, lo.1);
                    self.take(hi.0, hi.1);
                    Fate::Confirms
                }
                _ => {
                    self.ahead = Some((s, nonce));
                    Fate::Held
                }
            };
        }
        if self.take(s, nonce) {
            Fate::New
        } else {
            Fate::Copy
        }
    }

    /// Whether `s` is seen for the first time (then its nonce is kept), moving the window.
    fn take(&mut self, s: u32, nonce: bool) -> bool {
        let new = match self.top {
            Some(t) if s > t => {
                if s - t >= WINDOW {
                    self.got.0.fill(0);
                } else {
                    // The slots passed over now stand for numbers not seen yet.
                    for k in t + 1..s {
                        self.got.set(k, false);
                    }
                }
                self.top = Some(s);
                true
            }
            Some(t) if t - s >= WINDOW => false,
            Some(_) => !self.got.get(s),
            None => {
                self.top = Some(s);
                true
            }
        };
        if new {
            self.got.set(s, true);
            self.nonce.set(s, nonce);
        }
        new
    }

    /// The account of the numbers since the last echo, up to the highest seen (at most
    /// [`WINDOW`] of them); `None` if none is new. A receiver that `lies` says none is missing.
    fn echo(&mut self, lies: bool) -> Option<Echo> {
        let top = self.top?;
        let from = match self.echoed_to {
            Some(t) if t >= top => return None,
            Some(t) => t + 1,
            None => 0,
        }
        .max(top.saturating_sub(WINDOW - 1));
        let (mut missing, mut sum) = (0, false);
        for s in from..=top {
            if self.got.get(s) {
                sum ^= self.nonce.get(s);
            } else {
                missing += 1;
            }
        }
        self.echoed_to = Some(top);
        Some(Echo { from, to: top, missing: if lies { 0 } else { missing }, sum })
    }
}

/// A seed no receiver can know: the nonces are secrets.
fn secret_seed() -> u64 {
    let mut b = [0u8; 8];
    if crate::key::random_bytes(&mut b).is_ok() {
        u64::from_le_bytes(b)
    } else {
        let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        t.as_nanos() as u64 ^ (std::process::id() as u64) << 32
    }
}

/// One end on its socket.
pub struct LiveEnd<'a> {
    end: &'a mut dyn WireEnd,
    port: Port,
    flow: u32,
    role: Role,
    peer: Option<SocketAddr>,
    phase: Phase,
    timer: Option<Time>,
    next_seq: u32,
    seen: Seen,
    /// A sender's nonces for its last [`WINDOW`] data datagrams, and where they come from.
    nonces: Bits,
    nonce_rng: Rng,
    /// A receiver that hides losses in its echoes (to study the nonce check).
    lies: bool,
    /// The flow's key: it tags what this end sends and verifies what it takes.
    key: Key,
    /// The datagram held far ahead ([`Fate::Held`]): its header, its encoding, whether it was
    /// marked, its one-way delay.
    held: Option<(Header, Vec<u8>, bool, f64)>,
    /// The flow's pauses (its `pause` spells), in time order: a sender stops its endpoint at
    /// each start and starts it again at each end; a receiver does not count a pause as idle.
    pauses: Vec<(Time, Time)>,
    /// The pauses a sender has entered, and whether it is in one now.
    pauses_done: usize,
    paused: bool,
    pub counts: EndCounts,
    /// The one-way delays of the datagrams it received, for their percentiles and CDF (kept
    /// out of `counts`, which is copied at every snapshot).
    pub delays: DelayHist,
}

impl<'a> LiveEnd<'a> {
    /// `end` of flow `flow` on `port`, its datagrams tagged with `key` (its peer's too).
    pub fn new(end: &'a mut dyn WireEnd, port: Port, flow: u32, role: Role, key: Key) -> LiveEnd<'a> {
        let (peer, phase) = match role {
            Role::Sender { to, .. } => (Some(to), Phase::Waiting),
            Role::Receiver => (None, Phase::Running),
        };
        LiveEnd {
            end,
            port,
            flow,
            role,
            peer,
            phase,
            timer: None,
            next_seq: 0,
            seen: Seen::new(),
            nonces: Bits::new(),
            nonce_rng: Rng::from_seed(secret_seed()),
            lies: false,
            key,
            held: None,
            pauses: vec![],
            pauses_done: 0,
            paused: false,
            counts: EndCounts::default(),
            delays: DelayHist::new(),
        }
    }

    /// The flow pauses in these spells ([`fairway_model::scenario::FlowSpec::pauses`]).
    pub fn with_pauses(mut self, pauses: &[(Time, Time)]) -> Self {
        self.pauses = pauses.to_vec();
        self
    }

    /// When a receiver that last heard from its sender at `last` gives up: [`IDLE`] later, or,
    /// if a pause begins before then, [`IDLE`] after that pause ends.
    fn idle_deadline(&self, last: Time) -> Time {
        let mut d = last + IDLE;
        for &(at, until) in &self.pauses {
            if at <= d && until + IDLE > d {
                d = until + IDLE;
            }
        }
        d
    }

    /// The next pause edge of a running sender: where its pause starts, or, in one, where it
    /// ends.
    fn pause_edge(&self) -> Option<Time> {
        let &(at, until) = self.pauses.get(self.pauses_done)?;
        Some(if self.paused { until } else { at })
    }

    /// A receiver that hides losses: its echoes say every datagram arrived, as a receiver
    /// falsifying its feedback would (elaarag2002 §7); its sender's nonce check catches it.
    pub fn hiding_losses(mut self) -> Self {
        self.lies = true;
        self
    }

    /// A sender checks an echo against the nonces it sent.
    fn check(&mut self, e: &Echo) {
        let next = self.next_seq;
        let c = &mut self.counts;
        if e.from > e.to || e.to >= next || next - e.from > WINDOW || e.missing > 0 {
            // Losses owned up to, or a range no longer remembered: nothing to check.
            c.nonce_unchecked += 1;
            return;
        }
        let expected = (e.from..=e.to).fold(false, |a, s| a ^ self.nonces.get(s));
        if expected == e.sum {
            c.nonce_passed += 1;
        } else {
            c.nonce_failed += 1;
        }
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.port.local_addr()
    }

    /// The peer it sends to: a sender's receiver, or the sender that reached a receiver.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    pub fn done(&self) -> bool {
        self.phase == Phase::Done
    }

    fn kinds(&self) -> (Kind, Kind) {
        match self.role {
            Role::Sender { .. } => (Kind::Data, Kind::Feedback),
            Role::Receiver => (Kind::Feedback, Kind::Data),
        }
    }

    /// Frames `bytes` as `kind` and sends them to the peer; false if there is none or the
    /// socket refused.
    fn send(&mut self, clock: &Clock, kind: Kind, s: Sent, bytes: &[u8], out: &mut Vec<u8>) -> bool {
        let Some(peer) = self.peer else { return false };
        let nonce = kind == Kind::Data && self.nonce_rng.next_u64() & 1 == 1;
        if kind == Kind::Data {
            self.nonces.set(self.next_seq, nonce);
        }
        let h = Header {
            kind,
            flow: self.flow,
            seq: self.next_seq,
            size: s.size,
            payload: s.payload,
            len: bytes.len() as u32,
            sent_ns: clock.wall_ns(),
            nonce,
            echo: if kind == Kind::Feedback { self.seen.echo(self.lies) } else { None },
        };
        if kind != Kind::End {
            self.next_seq = self.next_seq.wrapping_add(1);
        }
        framing::write(&h, bytes, &self.key, out);
        self.port.send_to(out, peer, tos(s.ect, s.tagged)).is_ok()
    }

    /// Sends what the endpoint has due, then notes its timer.
    fn drain(&mut self, now: Time, clock: &Clock, enc: &mut Vec<u8>, out: &mut Vec<u8>) {
        let kind = self.kinds().0;
        while let Some(s) = self.end.poll_datagram(now, enc) {
            self.counts.sent_pkts += 1;
            self.counts.sent_bytes += s.size.0;
            self.counts.sent_payload += s.payload.0;
            if self.peer.is_none() {
                self.counts.unsent_pkts += 1;
            } else if !self.send(clock, kind, s, enc, out) {
                self.counts.send_errors += 1;
            }
        }
        self.timer = self.end.poll_timeout();
    }

    fn send_end(&mut self, clock: &Clock, out: &mut Vec<u8>) {
        let e = EndOfFlow {
            sent_pkts: self.counts.sent_pkts,
            sent_bytes: self.counts.sent_bytes,
            sent_payload: self.counts.sent_payload,
            active_ns: match (self.counts.started, self.counts.stopped) {
                (Some(a), Some(b)) => b.0.saturating_sub(a.0),
                _ => 0,
            },
        };
        // Lost like any datagram if the socket refuses it; the copies are for that.
        let s = Sent { size: Bytes(0), payload: Bytes(0), ect: false, tagged: false };
        self.send(clock, Kind::End, s, &e.encode(), out);
    }

    /// The application stops: the sender starts telling its receiver.
    fn stop_app(&mut self, now: Time) {
        self.end.stop(now);
        self.counts.stopped = Some(now);
        self.timer = None;
        self.phase = Phase::Ending { left: END_COPIES, next: now };
    }

    /// Does what is due at `now`: the application's start and stop, the endpoint's timer, the
    /// end-of-flow copies, a receiver's finish.
    fn on_time(&mut self, now: Time, clock: &Clock, enc: &mut Vec<u8>, out: &mut Vec<u8>) {
        if let Role::Sender { start, stop, .. } = self.role {
            if self.phase == Phase::Waiting && now >= start {
                self.phase = Phase::Running;
                self.counts.started = Some(now);
                self.end.start(now);
                self.drain(now, clock, enc, out);
            }
            while self.phase == Phase::Running && self.pause_edge().is_some_and(|t| t <= now && t < stop) {
                if self.paused {
                    self.paused = false;
                    self.pauses_done += 1;
                    self.end.start(now);
                    self.drain(now, clock, enc, out);
                } else {
                    self.paused = true;
                    self.end.stop(now);
                    self.timer = None;
                }
            }
            if self.phase == Phase::Running && now >= stop {
                self.stop_app(now);
            }
        }
        if self.phase == Phase::Running && self.timer.is_some_and(|t| t <= now) {
            self.end.handle_timeout(now);
            self.drain(now, clock, enc, out);
        }
        match self.phase {
            Phase::Ending { left, next } if now >= next => {
                self.send_end(clock, out);
                self.phase = if left > 1 { Phase::Ending { left: left - 1, next: now + END_GAP } } else { Phase::Done };
            }
            Phase::Lingering { until } if now >= until => self.phase = Phase::Done,
            Phase::Running
                if self.role == Role::Receiver
                    && self.counts.last_recv.is_some_and(|l| now >= self.idle_deadline(l)) =>
            {
                self.phase = Phase::Done
            }
            _ => {}
        }
    }

    /// When [`on_time`](Self::on_time) next has something to do.
    fn next_wake(&self) -> Option<Time> {
        match (self.phase, self.role) {
            (Phase::Waiting, Role::Sender { start, .. }) => Some(start),
            (Phase::Running, Role::Sender { stop, .. }) => {
                [self.timer, self.pause_edge(), Some(stop)].into_iter().flatten().min()
            }
            (Phase::Running, Role::Receiver) => {
                let idle = self.counts.last_recv.map(|l| self.idle_deadline(l));
                [self.timer, idle].into_iter().flatten().min()
            }
            (Phase::Ending { next, .. }, _) => Some(next),
            (Phase::Lingering { until }, _) => Some(until),
            _ => None,
        }
    }

    /// Reads what waits on the socket (at most [`BATCH`] datagrams), hands it to the endpoint
    /// and sends what that makes due.
    fn take_in(
        &mut self,
        now: Time,
        clock: &Clock,
        buf: &mut [u8],
        enc: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        for _ in 0..BATCH {
            if self.phase == Phase::Done {
                return Ok(());
            }
            let r = match self.port.recv(buf) {
                Ok(r) => r,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // An ICMP error from a peer not (or no longer) listening, reported on a later
                // call: not this datagram's.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) => return Err(e),
            };
            if let Some(n) = r.overflow {
                self.counts.host_drops_pkts = self.counts.host_drops_pkts.max(n as u64);
            }
            let h = match framing::read(&buf[..r.len], &self.key, enc) {
                Ok(h) => h,
                Err(Refused::NotFairway) => {
                    self.counts.stranger_pkts += 1;
                    continue;
                }
                Err(Refused::Truncated) => {
                    self.counts.truncated_pkts += 1;
                    continue;
                }
                Err(Refused::BadLength | Refused::Forged) => {
                    self.counts.forged_pkts += 1;
                    continue;
                }
            };
            let expected = self.kinds().1;
            let from_peer = self.peer.is_none_or(|p| p == r.from);
            let for_me = h.flow == self.flow
                && from_peer
                && (h.kind == expected || (h.kind == Kind::End && self.role == Role::Receiver));
            if !for_me {
                self.counts.stranger_pkts += 1;
                continue;
            }
            self.peer = Some(r.from);
            if h.kind == Kind::End {
                if let Some(e) = EndOfFlow::decode(enc) {
                    self.counts.peer_end = Some(e);
                    if self.phase == Phase::Running {
                        self.phase = Phase::Lingering { until: now + LINGER };
                    }
                } else {
                    self.counts.stranger_pkts += 1;
                }
                continue;
            }
            let ce = r.tos & CE == CE;
            let delay_s = clock.wall_ns().saturating_sub(h.sent_ns) as f64 * 1e-9;
            match self.seen.insert(h.seq, h.nonce) {
                Fate::New => self.deliver(now, clock, &h, ce, delay_s, enc, out),
                Fate::Copy => {
                    let c = &mut self.counts;
                    c.recv_pkts += 1;
                    c.recv_bytes += h.size.0;
                    c.duplicate_pkts += 1;
                }
                Fate::Held => {
                    if self.held.replace((h, enc.clone(), ce, delay_s)).is_some() {
                        self.counts.unconfirmed_pkts += 1;
                    } else {
                        self.counts.held_pkts += 1;
                    }
                }
                Fate::Confirms => {
                    let mut bytes = enc.clone();
                    if let Some((hh, hb, hce, hd)) = self.held.take() {
                        self.counts.held_pkts -= 1;
                        enc.clone_from(&hb);
                        self.deliver(now, clock, &hh, hce, hd, enc, out);
                    }
                    std::mem::swap(enc, &mut bytes);
                    self.deliver(now, clock, &h, ce, delay_s, enc, out);
                }
            }
        }
        Ok(())
    }

    /// Hands the peer's datagram `h`, seen for the first time, to the endpoint (its encoding in
    /// `enc`, which then serves as scratch) and sends what that makes due.
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        now: Time,
        clock: &Clock,
        h: &Header,
        ce: bool,
        delay_s: f64,
        enc: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) {
        if let (Kind::Feedback, Some(e)) = (h.kind, h.echo) {
            self.check(&e);
        }
        let c = &mut self.counts;
        c.recv_pkts += 1;
        c.recv_bytes += h.size.0;
        c.first_recv.get_or_insert(now);
        c.last_recv = Some(now);
        c.ce_pkts += ce as u64;
        c.recv_distinct_pkts += 1;
        c.recv_distinct_bytes += h.size.0;
        c.recv_distinct_payload += h.payload.0;
        c.delays.add(delay_s);
        self.delays.record_s(delay_s);
        let arrival = Arrival { ce, size: h.size, payload: h.payload };
        // A sender that has stopped hears no more (as in the simulator, where its endpoint's
        // stop ends its part).
        if matches!(self.phase, Phase::Running | Phase::Lingering { .. }) {
            if self.end.handle_datagram(now, enc, arrival).is_err() {
                self.counts.refused_pkts += 1;
            }
            self.drain(now, clock, enc, out);
        }
    }

    /// Ends early (the run was stopped or ran out of time): a running sender stops its
    /// application and sends one end of flow.
    fn cut(&mut self, now: Time, clock: &Clock, out: &mut Vec<u8>) {
        if matches!(self.phase, Phase::Running | Phase::Ending { .. }) && matches!(self.role, Role::Sender { .. }) {
            if self.phase == Phase::Running {
                self.stop_app(now);
            }
            self.send_end(clock, out);
        }
        self.phase = Phase::Done;
    }
}

/// Every end's counts at a moment.
pub type Snapshots = Sampler<Time, Vec<EndCounts>>;

/// Runs `ends` until every one is done, `until` passes, or `stop` is set; with `samples`, takes
/// every end's counts at its moments (those left when it returns take the final counts).
pub fn run(
    ends: &mut [LiveEnd],
    clock: &Clock,
    until: Option<Time>,
    stop: &AtomicBool,
    mut samples: Option<&mut Snapshots>,
) -> io::Result<()> {
    let (mut enc, mut out, mut buf) = (Vec::with_capacity(2048), Vec::with_capacity(2048), vec![0u8; BUF]);
    let fds: Vec<i32> = ends.iter().map(|e| e.port.as_raw_fd()).collect();
    let counts = |ends: &[LiveEnd]| ends.iter().map(|e| e.counts).collect::<Vec<_>>();
    loop {
        let now = clock.now();
        if let Some(s) = samples.as_deref_mut() {
            s.record(now, || counts(ends));
        }
        if stop.load(Ordering::Relaxed) || until.is_some_and(|u| now >= u) {
            for e in ends.iter_mut() {
                e.cut(now, clock, &mut out);
            }
            if let Some(s) = samples {
                s.finish(counts(ends));
            }
            return Ok(());
        }
        for e in ends.iter_mut() {
            e.on_time(now, clock, &mut enc, &mut out);
        }
        if ends.iter().all(LiveEnd::done) {
            if let Some(s) = samples {
                s.finish(counts(ends));
            }
            return Ok(());
        }
        let next_sample = samples.as_ref().and_then(|s| s.next());
        let wake = ends.iter().filter_map(LiveEnd::next_wake).chain(until).chain(next_sample).min();
        let wait = wake.map_or(LOOK, |w| Duration::from_nanos(w.0.saturating_sub(clock.now().0)).min(LOOK));
        wait_readable(&fds, wait)?;
        let now = clock.now();
        for e in ends.iter_mut() {
            e.take_in(now, clock, &mut buf, &mut enc, &mut out)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_told_from_first_copies_within_the_window() {
        let mut s = Seen::new();
        assert_eq!(s.insert(5, false), Fate::New);
        assert_eq!(s.insert(5, false), Fate::Copy);
        assert_eq!(s.insert(3, false), Fate::New, "late, not seen");
        assert_eq!(s.insert(3, false), Fate::Copy);
        assert_eq!(s.insert(4000, false), Fate::New);
        assert_eq!(s.insert(5000, false), Fate::New);
        assert_eq!(s.insert(5000 - WINDOW, false), Fate::Copy, "too far behind: counted as a copy");
        assert_eq!(s.insert(5000 - WINDOW + 1, false), Fate::New);
        // Up to the window's width ahead, the window moves and forgets the slots it passes,
        // which now name newer numbers.
        assert_eq!(s.insert(5000 + WINDOW - 1, false), Fate::New);
        assert_eq!(s.insert(5003 + WINDOW, false), Fate::New, "the slot of 5003, reused");
    }

    #[test]
    fn a_number_far_ahead_waits_for_another_near_it() {
        let mut s = Seen::new();
        for k in 0..100 {
            s.insert(k, false);
        }
        // One datagram 5000 ahead (a forged one would be) does not move the window: 50 is still
        // known as received, and new numbers near the top are still new.
        assert_eq!(s.insert(5099, false), Fate::Held);
        assert_eq!(s.insert(5099, false), Fate::Copy, "a copy of the one held");
        assert_eq!(s.insert(50, false), Fate::Copy);
        assert_eq!(s.insert(100, false), Fate::New);
        // Another far ahead but not near it replaces it.
        assert_eq!(s.insert(20_000, false), Fate::Held);
        // The flow after a real jump: the next number confirms the held one; both are new and
        // the window has moved.
        assert_eq!(s.insert(20_001, false), Fate::Confirms);
        assert_eq!((s.insert(20_000, false), s.insert(20_001, false)), (Fate::Copy, Fate::Copy));
        assert_eq!(s.insert(19_999, false), Fate::New, "just behind the jump");
        assert_eq!(s.insert(100, false), Fate::Copy, "far behind now");
        // Confirmed from below: the held one is the higher.
        assert_eq!(s.insert(30_000, false), Fate::Held);
        assert_eq!(s.insert(29_000, false), Fate::Confirms);
        assert_eq!(s.top, Some(30_000));
    }

    #[test]
    fn an_echo_counts_what_is_missing_and_sums_the_nonces_of_the_rest() {
        let mut s = Seen::new();
        let nonce = |k: u32| k % 3 == 1;
        for k in (0..10).filter(|&k| k != 4) {
            s.insert(k, nonce(k));
        }
        // 1 and 7 carried a nonce of 1 (4, lost, did too): the sum is 0.
        assert_eq!(s.echo(false), Some(Echo { from: 0, to: 9, missing: 1, sum: false }));
        assert_eq!(s.echo(false), None, "nothing new");
        s.insert(4, nonce(4));
        s.insert(10, nonce(10));
        assert_eq!(s.echo(false), Some(Echo { from: 10, to: 10, missing: 0, sum: true }), "4 came late");
        // A liar hides 11's loss; its sum leaves 11's nonce out.
        s.insert(12, nonce(12));
        assert_eq!(s.echo(true), Some(Echo { from: 11, to: 12, missing: 0, sum: false }));
    }
}
