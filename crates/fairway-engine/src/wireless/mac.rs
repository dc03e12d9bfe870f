//! The IEEE 802.11 DCF MAC as ns-2's Mac/802_11 models it (mac/mac-802_11.cc, ns-2.35): carrier
//! sense with a NAV, DIFS/SIFS/EIFS, binary exponential backoff, RTS/CTS for frames at or above
//! the RTS threshold, ACKs, short and long retry limits, duplicate filtering, and its interface
//! queue. Sans-IO: every entry point takes `now` and pushes what must happen onto `out`
//! (transmit a frame, arm a timer, hand a frame up, give a payload back); the event loop in
//! `net.rs` does it.
//!
//! Where ns-2 departs from the standard, this follows ns-2, the referee of the seeds' results:
//! a backoff is drawn in [0, CW) rather than [0, CW]; a frame arriving at an idle medium still
//! waits DIFS plus a backoff (ns-2's `bugFix_timer_`, on by default); capture is decided against
//! the one frame being received, by a power ratio; a frame that cannot be decoded still makes
//! the medium busy and costs an EIFS.

use fairway_core::{Dur, Rng, Time};

pub use fairway_model::wireless::mac::{MacParams, MacStats};

use super::ifq::{Ifq, IfqItem};
use super::timer::{Backoff, Timer};

/// The MAC broadcast address.
pub const BROADCAST: u32 = u32::MAX;

/// ns-2's allowance for propagation in the MAC's timeouts (DSSS_MaxPropagationDelay, 2 µs).
const MAX_PROPAGATION: Dur = Dur::from_micros(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Ack,
    Data,
}

/// A frame on the air. Receivers keep copies; a data frame's payload stays with its sender
/// until it is acknowledged or given up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter and receiver (a node's index among the wireless nodes, or [`BROADCAST`]).
    pub ta: u32,
    pub ra: u32,
    /// The Duration field: how long the medium stays reserved after this frame (NAV), whole µs.
    pub duration: Dur,
    /// On the air, PLCP and MAC headers included, bytes.
    pub size: u32,
    pub txtime: Dur,
    /// Sequence number (data frames), for duplicate filtering.
    pub seqno: u16,
    /// The engine's handle of a data frame's payload.
    pub payload: u32,
    /// The engine's handle of this transmission (set when it goes on the air).
    pub tx: u32,
}

fn minus(a: Dur, b: Dur) -> Dur {
    Dur(a.0.saturating_sub(b.0))
}

/// ns-2 keeps Duration fields in whole microseconds (`usec()` rounds to the nearest).
fn whole_us(d: Dur) -> Dur {
    Dur((d.0 + 500) / 1000 * 1000)
}

/// The NAV a frame heard in passing sets at its end at least: an EIFS if it cannot be decoded
/// or is lost in a collision (a capture sets as much), else its Duration field; nothing while
/// the station sends (`tx_active`).
fn nav_floor(tx_active: bool, eifs: Dur, duration: Dur, decodable: bool) -> Dur {
    if tx_active {
        Dur::ZERO
    } else if decodable {
        whole_us(duration).min(whole_us(eifs))
    } else {
        whole_us(eifs)
    }
}

/// A paused backoff's earliest expiry as the frames heard in passing push it back
/// ([`Mac::paused_backoff`]): the medium stays busy until `busy` at least, and then the count
/// needs a DIFS and the `left` it kept, idle.
#[derive(Debug, Clone, Copy)]
pub struct PausedBackoff {
    busy: Time,
    difs: Dur,
    left: Dur,
    /// What a frame's NAV floor reads of the station ([`nav_floor`]).
    tx_active: bool,
    eifs: Dur,
}

impl PausedBackoff {
    pub fn earliest_expiry(&self) -> Time {
        self.busy + self.difs + self.left
    }

    /// A frame heard in passing whose first bit comes at `start`, after the station's last own
    /// event. If it comes before the DIFS after `busy` is over, no slot was counted before it (a
    /// count that resumes in a shorter gap keeps every slot when it pauses again, as
    /// [`Backoff::pause`] keeps only whole slots counted after the DIFS), and the medium stays
    /// busy through it and the NAV it sets. A frame that comes later is left out: the count may
    /// have moved before it, and the bound stays where it was, still a bound, since a busier
    /// medium only delays the expiry. The station's own events since would change what the
    /// bound reads (`tx_active`, the slots left), so it holds only until the next of them, which
    /// works out a new one.
    pub fn hear(&mut self, start: Time, txtime: Dur, duration: Dur, decodable: bool) {
        if start < self.busy + self.difs {
            let end = start + txtime + nav_floor(self.tx_active, self.eifs, duration, decodable);
            self.busy = self.busy.max(end);
        }
    }
}

/// The MAC's timers, as the event loop names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TimerKind {
    /// The transmitter is busy until the frame is out.
    If = 0,
    Nav = 1,
    /// The frame being received ends.
    Rx = 2,
    /// The response (CTS, ACK) did not come.
    Send = 3,
    Defer = 4,
    Backoff = 5,
}

impl TimerKind {
    pub fn from_u8(k: u8) -> Option<TimerKind> {
        Some(match k {
            0 => TimerKind::If,
            1 => TimerKind::Nav,
            2 => TimerKind::Rx,
            3 => TimerKind::Send,
            4 => TimerKind::Defer,
            5 => TimerKind::Backoff,
            _ => return None,
        })
    }
}

/// Why a payload left the MAC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Acknowledged, or a broadcast sent.
    Sent,
    /// The retry limit was reached (ns-2's RET).
    RetryLimit,
    /// The interface queue was full (IFQ).
    QueueFull,
}

/// What the event loop must do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MacOut {
    /// Expiry of a timer, valid while its generation matches.
    Arm { timer: TimerKind, at: Time, gen: u32 },
    /// Put a frame on the air now.
    Transmit(Frame),
    /// A data frame for this node (or broadcast) was received: hand its payload up.
    Up(Frame),
    /// A payload leaves the MAC (or its queue) for good. `ra` is where it was going.
    Done { payload: u32, ra: u32, outcome: Outcome },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RxState {
    Idle,
    Recv,
    Coll,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxState {
    Idle,
    Rts,
    Cts,
    Send,
    Ack,
}

#[derive(Debug, Clone, Copy)]
struct RxSlot {
    frame: Frame,
    power: f64,
    error: bool,
}

/// One station: its MAC and its interface queue.
#[repr(C, align(64))]
pub struct Mac {
    // First and together (`repr(C)`), what every frame a station hears reads and writes: its
    // MAC is mostly out of the cache when a frame reaches it.
    rx_state: RxState,
    tx_state: TxState,
    tx_active: bool,
    me: u32,
    nav: Time,
    /// `p.eifs()`, worked out once: every frame heard but not decoded costs one.
    eifs: Dur,
    capture_ratio: f64,
    backoff: Backoff,
    timers: [Timer; 5],
    pkt_rx: Option<RxSlot>,
    p: MacParams,
    rng: Rng,
    pkt_ctrl: Option<Frame>,
    pkt_rts: Option<Frame>,
    pkt_tx: Option<Frame>,
    cw: u32,
    ssrc: u32,
    slrc: u32,
    next_seqno: u16,
    /// Per source station, the last sequence number received (0: none).
    last_seqno: Vec<u16>,
    /// The interface queue waits to be told that the MAC can take the next packet.
    callback: bool,
    /// A payload was given up and its sender's routing agent has not been told yet: the
    /// queue waits, so that what the agent takes out of it (ns-2's AODV empties it of packets
    /// for the lost neighbour) is gone before the MAC asks for the next packet.
    failure_pending: bool,
    ifq: Ifq,
    /// A packet of the queue is at the MAC.
    blocked: bool,
    pub stats: MacStats,
}

impl Mac {
    /// Station `me` of `stations`, drawing its backoffs from `rng`.
    pub fn new(me: u32, stations: usize, p: MacParams, capture_ratio: f64, rng: Rng) -> Mac {
        Mac {
            me,
            p,
            capture_ratio,
            eifs: p.eifs(),
            rng,
            rx_state: RxState::Idle,
            tx_state: TxState::Idle,
            tx_active: false,
            nav: Time::ZERO,
            pkt_rx: None,
            pkt_ctrl: None,
            pkt_rts: None,
            pkt_tx: None,
            cw: p.cw_min,
            ssrc: 0,
            slrc: 0,
            next_seqno: 1,
            last_seqno: vec![0; stations],
            callback: false,
            failure_pending: false,
            ifq: Ifq::new(p.ifq_limit),
            blocked: false,
            timers: [Timer::default(); 5],
            backoff: Backoff::default(),
            stats: MacStats::default(),
        }
    }

    /// The data frame the MAC is trying to send.
    pub fn pending(&self) -> Option<&Frame> {
        self.pkt_tx.as_ref()
    }

    /// Forgets the payload of the pending data frame (its receiver has taken it); the frame
    /// itself is still acknowledged or retried as before.
    pub fn hand_over(&mut self, payload: u32, ghost: u32) {
        if let Some(f) = &mut self.pkt_tx {
            if f.payload == payload {
                f.payload = ghost;
            }
        }
    }

    pub fn queue(&self) -> &Ifq {
        &self.ifq
    }

    pub fn queue_mut(&mut self) -> &mut Ifq {
        &mut self.ifq
    }

    /// Whether a frame heard in passing (a unicast frame for another station, or one too weak
    /// to decode) may be heard whole at once ([`Self::hear_whole`]): the receiver is idle and no
    /// backoff counts (one may wait paused: the frame's first bit changes nothing for it).
    pub fn hears_whole(&self) -> bool {
        self.rx_state == RxState::Idle && (!self.backoff.busy() || self.backoff.paused())
    }

    /// The whole reception of a frame heard in passing by an idle receiver
    /// ([`Self::hears_whole`]), with nothing else heard and no event of this station's before
    /// its end: what `rx_start` at `start` and the Rx timer's event at its end do, at once. The
    /// Rx timer starts and fires; at the end the NAV is set, for the frame's duration or an EIFS
    /// if it could not be decoded (nothing if this station was sending), and a paused backoff
    /// waits on the NAV's timer or, with the medium idle, resumes: at most one timer, in `out`.
    pub fn hear_whole(&mut self, start: Time, f: Frame, decodable: bool, out: &mut Vec<MacOut>) {
        debug_assert!(self.hears_whole());
        let error = !decodable || self.tx_active;
        let end = self.timers[TimerKind::Rx as usize].run(start, f.txtime);
        if !self.tx_active {
            // `received`: a decodable frame kept is a unicast frame for another station.
            debug_assert!(error || (f.ra != self.me && f.ra != BROADCAST));
            self.set_nav(end, if error { self.eifs } else { f.duration }, out);
        }
        // The receiver idle again (`rx_end`'s `set_rx_state`).
        self.check_backoff(end, out);
    }

    /// Whether a frame heard whole changes nothing here but the NAV and the Rx timer, with no
    /// output ([`Self::hear_whole`] with no backoff to pause or resume): the receiver idle and
    /// no backoff at all. A station with nothing to send mostly is, and stays so through
    /// [`Self::hear_whole_quiet`].
    pub fn quiet(&self) -> bool {
        self.rx_state == RxState::Idle && !self.backoff.busy()
    }

    /// [`Self::hear_whole`] at a [`quiet`](Self::quiet) station, which it leaves quiet: the Rx
    /// timer runs from `start` for `txtime` and fires; the NAV grows to the frame's Duration
    /// after its end (an EIFS if it could not be decoded; nothing while this station sends).
    #[inline(always)]
    pub fn hear_whole_quiet(&mut self, start: Time, txtime: Dur, duration: Dur, decodable: bool) {
        debug_assert!(self.quiet());
        let end = self.timers[TimerKind::Rx as usize].run(start, txtime);
        if !self.tx_active {
            // `set_nav` without `arm_nav`, which does nothing with no backoff paused.
            self.extend_nav(end, if decodable { duration } else { self.eifs });
        }
    }

    /// Whether the end of the reception under way starts one timer at most (the NAV's, or the
    /// backoff's resumed count), as the end of a frame heard in passing does: anything but a
    /// frame for this station (or a broadcast) received whole, whose end may start an
    /// exchange.
    pub fn rx_end_starts_one_timer(&self) -> bool {
        match self.pkt_rx {
            Some(r) => {
                self.tx_active
                    || self.rx_state == RxState::Coll
                    || r.error
                    || (r.frame.ra != self.me && r.frame.ra != BROADCAST)
            }
            None => true,
        }
    }

    /// Whether the backoff's event of generation `gen` would run it out (it is counting, under
    /// that generation).
    pub fn backoff_runs_out(&self, gen: u32) -> bool {
        self.backoff.live(gen)
    }

    /// The NAV that frame `f`, heard in passing and not yet received, sets at its end at least:
    /// an EIFS if it cannot be decoded or is lost in a collision, else its Duration field;
    /// nothing while this station sends.
    pub fn nav_floor(&self, f: &Frame, decodable: bool) -> Dur {
        nav_floor(self.tx_active, self.eifs, f.duration, decodable)
    }

    /// With the backoff paused, the earliest it could run out if nothing but frames heard in
    /// passing happens before ([`PausedBackoff`]): the medium stays busy until the reception
    /// under way ends, the NAV ends and `busy_until` (the end of frames on their way here) at
    /// least, and then the count resumes after a DIFS with the slots it kept. `None` if no
    /// backoff waits paused.
    pub fn paused_backoff(&self, now: Time, busy_until: Time) -> Option<PausedBackoff> {
        if !self.backoff.paused() {
            return None;
        }
        let mut busy = now.max(self.nav).max(busy_until);
        if self.rx_state != RxState::Idle {
            busy = busy.max(now + self.timers[TimerKind::Rx as usize].remaining(now));
        }
        let (difs, left) = (self.p.difs(), self.backoff.left());
        Some(PausedBackoff { busy, difs, left, tx_active: self.tx_active, eifs: self.eifs })
    }

    /// Whether a backoff waits paused.
    pub fn backoff_paused(&self) -> bool {
        self.backoff.paused()
    }

    fn is_idle(&self, now: Time) -> bool {
        self.rx_state == RxState::Idle && self.tx_state == TxState::Idle && self.nav <= now
    }

    // ---- timers ----------------------------------------------------------------------------

    fn start(&mut self, now: Time, kind: TimerKind, len: Dur, out: &mut Vec<MacOut>) {
        let (at, gen) = self.timers[kind as usize].start(now, len);
        out.push(MacOut::Arm { timer: kind, at, gen });
    }

    fn stop(&mut self, kind: TimerKind) {
        self.timers[kind as usize].stop();
    }

    fn busy(&self, kind: TimerKind) -> bool {
        self.timers[kind as usize].busy()
    }

    fn start_backoff(&mut self, now: Time, difs: Dur, out: &mut Vec<MacOut>) {
        let slots = self.rng.below(self.cw as u64);
        let idle = self.is_idle(now);
        if let Some((at, gen)) = self.backoff.start(now, slots, self.p.slot, idle, difs) {
            out.push(MacOut::Arm { timer: TimerKind::Backoff, at, gen });
        }
        self.arm_nav(now, out);
    }

    /// The backoff counts only while the medium is idle (ns-2 checkBackoffTimer). It runs at
    /// every change of state, twice per frame heard, and mostly finds no backoff running: that
    /// test is inlined (a paused backoff is a running one, so there is nothing else to do).
    #[inline(always)]
    fn check_backoff(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if self.backoff.busy() {
            self.check_running_backoff(now, out);
        }
    }

    fn check_running_backoff(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if self.is_idle(now) && self.backoff.paused() {
            let (at, gen) = self.backoff.resume(now, self.p.difs());
            out.push(MacOut::Arm { timer: TimerKind::Backoff, at, gen });
        }
        if !self.is_idle(now) && self.backoff.busy() && !self.backoff.paused() {
            self.backoff.pause(now, self.p.slot);
            self.arm_nav(now, out);
        }
    }

    fn set_rx_state(&mut self, now: Time, s: RxState, out: &mut Vec<MacOut>) {
        self.rx_state = s;
        self.check_backoff(now, out);
    }

    fn set_tx_state(&mut self, now: Time, s: TxState, out: &mut Vec<MacOut>) {
        self.tx_state = s;
        self.check_backoff(now, out);
    }

    /// IEEE 802.11 §9.2.5.4: the NAV only grows.
    fn set_nav(&mut self, now: Time, d: Dur, out: &mut Vec<MacOut>) {
        if self.extend_nav(now, d) {
            self.arm_nav(now, out);
        }
    }

    /// The NAV to `now + d` (whole µs) if that is later; whether it was.
    fn extend_nav(&mut self, now: Time, d: Dur) -> bool {
        let until = now + whole_us(d);
        let later = until > self.nav;
        if later {
            self.nav = until;
        }
        later
    }

    /// The NAV's expiry matters only to a paused backoff, which it may resume (ns-2's
    /// navHandler does nothing else), so its event is armed only while one waits on it: most
    /// stations overhear most frames with nothing to send.
    fn arm_nav(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if !self.backoff.paused() || self.nav <= now {
            return;
        }
        let t = &self.timers[TimerKind::Nav as usize];
        if t.busy() && now + t.remaining(now) == self.nav {
            return;
        }
        self.stop(TimerKind::Nav);
        self.start(now, TimerKind::Nav, self.nav - now, out);
    }

    fn inc_cw(&mut self) {
        self.cw = ((self.cw << 1) + 1).min(self.p.cw_max);
    }

    fn reset_cw(&mut self) {
        self.cw = self.p.cw_min;
    }

    /// Whether the timer event of `kind` and generation `gen` is the timer's live expiry: if
    /// not, [`Self::on_timer`] does nothing with it. A stale event stays stale whatever comes
    /// before it (a later start or stop only moves the generation on).
    pub fn live(&self, kind: TimerKind, gen: u32) -> bool {
        match kind {
            TimerKind::Backoff => self.backoff.live(gen),
            _ => self.timers[kind as usize].live(gen),
        }
    }

    /// The event loop's timer event of `kind` and generation `gen`.
    pub fn on_timer(&mut self, now: Time, kind: TimerKind, gen: u32, out: &mut Vec<MacOut>) {
        if kind == TimerKind::Backoff {
            if self.backoff.fire(gen) {
                self.backoff_expired(now, out);
            }
            return;
        }
        if !self.timers[kind as usize].fire(gen) {
            return;
        }
        match kind {
            TimerKind::If => self.tx_active = false,
            TimerKind::Nav => {
                if self.is_idle(now) && self.backoff.paused() {
                    let (at, gen) = self.backoff.resume(now, self.p.difs());
                    out.push(MacOut::Arm { timer: TimerKind::Backoff, at, gen });
                }
            }
            TimerKind::Rx => self.rx_end(now, out),
            TimerKind::Send => self.send_timeout(now, out),
            TimerKind::Defer => self.defer_expired(now, out),
            TimerKind::Backoff => unreachable!(),
        }
    }

    // ---- from the link layer -----------------------------------------------------------------

    /// A packet from the link layer (ns-2 Queue::recv in front of the MAC). `it.size` is the
    /// packet's network-layer size; the MAC adds its headers.
    pub fn enqueue(&mut self, now: Time, it: IfqItem, out: &mut Vec<MacOut>) {
        if let Some(d) = self.ifq.enqueue(it) {
            self.stats.ifq_drops += 1;
            out.push(MacOut::Done { payload: d.payload, ra: d.ra, outcome: Outcome::QueueFull });
        }
        if !self.blocked {
            if let Some(next) = self.ifq.dequeue() {
                self.blocked = true;
                self.send(now, next, out);
            }
        }
    }

    /// The queue hands its next packet to the MAC, or unblocks (ns-2 Queue::resume).
    fn queue_resume(&mut self, now: Time, out: &mut Vec<MacOut>) {
        match self.ifq.dequeue() {
            Some(next) => self.send(now, next, out),
            None => self.blocked = false,
        }
    }

    fn send(&mut self, now: Time, it: IfqItem, out: &mut Vec<MacOut>) {
        self.callback = true;
        let size = it.size + self.p.header_len();
        let seqno = self.next_seqno;
        self.next_seqno = self.next_seqno.wrapping_add(1);
        let (txtime, duration) = if it.ra == BROADCAST {
            (self.p.txtime(size, self.p.basic_rate), Dur::ZERO)
        } else {
            (self.p.txtime(size, self.p.data_rate), whole_us(self.p.ack_time() + self.p.sifs))
        };
        debug_assert!(self.pkt_tx.is_none());
        self.pkt_tx = Some(Frame {
            kind: FrameKind::Data,
            ta: self.me,
            ra: it.ra,
            duration,
            size,
            txtime,
            seqno,
            payload: it.payload,
            tx: 0,
        });
        self.make_rts();
        // An idle medium is still waited on for DIFS plus a backoff (ns-2 with bugFix_timer_).
        if !self.backoff.busy() {
            if self.is_idle(now) {
                if !self.busy(TimerKind::Defer) {
                    self.start_backoff(now, self.p.difs(), out);
                }
            } else {
                self.start_backoff(now, Dur::ZERO, out);
            }
        }
    }

    /// An RTS for the pending data frame, if it is unicast and at least the threshold.
    fn make_rts(&mut self) {
        let Some(d) = self.pkt_tx else { return };
        if d.size < self.p.rts_threshold || d.ra == BROADCAST {
            return;
        }
        let p = &self.p;
        let duration = whole_us(p.sifs + p.cts_time() + p.sifs + d.txtime + p.sifs + p.ack_time());
        self.pkt_rts = Some(Frame {
            kind: FrameKind::Rts,
            ta: self.me,
            ra: d.ra,
            duration,
            size: p.rts_len(),
            txtime: p.rts_time(),
            seqno: 0,
            payload: 0,
            tx: 0,
        });
    }

    fn control(&self, kind: FrameKind, ra: u32, duration: Dur) -> Frame {
        let size = if kind == FrameKind::Cts { self.p.cts_len() } else { self.p.ack_len() };
        Frame {
            kind,
            ta: self.me,
            ra,
            duration,
            size,
            txtime: self.p.txtime(size, self.p.basic_rate),
            seqno: 0,
            payload: 0,
            tx: 0,
        }
    }

    // ---- sending -----------------------------------------------------------------------------

    fn transmit(&mut self, now: Time, f: Frame, timeout: Dur, out: &mut Vec<MacOut>) {
        self.tx_active = true;
        // Sending without carrier sense (an ACK): whatever was being received is lost.
        if self.rx_state != RxState::Idle {
            if let Some(r) = &mut self.pkt_rx {
                r.error = true;
            }
        }
        match f.kind {
            FrameKind::Rts => self.stats.rts_frames += 1,
            FrameKind::Cts => self.stats.cts_frames += 1,
            FrameKind::Ack => self.stats.ack_frames += 1,
            FrameKind::Data => self.stats.data_frames += 1,
        }
        out.push(MacOut::Transmit(f));
        self.start(now, TimerKind::Send, timeout, out);
        self.start(now, TimerKind::If, f.txtime, out);
    }

    /// After an exchange step: what to send next, or ask the queue for more (ns-2 tx_resume).
    fn tx_resume(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if self.pkt_ctrl.is_some() {
            self.start(now, TimerKind::Defer, self.p.sifs, out);
        } else if self.pkt_rts.is_some() {
            if !self.backoff.busy() {
                self.start_backoff(now, self.p.difs(), out);
            }
        } else if let Some(d) = self.pkt_tx {
            if !self.backoff.busy() {
                if d.size < self.p.rts_threshold || d.ra == BROADCAST {
                    self.start_backoff(now, self.p.difs(), out);
                } else {
                    // The data frame a SIFS after its CTS.
                    self.start(now, TimerKind::Defer, self.p.sifs, out);
                }
            }
        } else if self.callback && !self.failure_pending {
            self.callback = false;
            self.queue_resume(now, out);
        }
        self.set_tx_state(now, TxState::Idle, out);
    }

    /// The routing agent has been told of the payload given up (its `Done` with
    /// [`Outcome::RetryLimit`]): the queue may hand over its next packet. ns-2 calls the
    /// agent's failure handler inside RetransmitRTS / RetransmitDATA, before the MAC resumes
    /// and asks the queue for more, so a packet for the lost neighbour that the agent purges
    /// from the queue is never sent.
    pub fn failure_handled(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if !self.failure_pending {
            return;
        }
        self.failure_pending = false;
        let idle = self.pkt_ctrl.is_none() && self.pkt_rts.is_none() && self.pkt_tx.is_none();
        if idle && self.callback && self.tx_state == TxState::Idle {
            self.callback = false;
            self.queue_resume(now, out);
        }
    }

    /// CTS or ACK waiting to go. Returns whether it acted.
    fn check_ctrl(&mut self, now: Time, out: &mut Vec<MacOut>) -> bool {
        let Some(c) = self.pkt_ctrl else { return false };
        if matches!(self.tx_state, TxState::Cts | TxState::Ack) {
            return false;
        }
        let timeout = match c.kind {
            FrameKind::Cts => {
                // No CTS into a busy medium (the NAV included).
                if !self.is_idle(now) {
                    self.discard(&c, false, Drop::Busy);
                    self.pkt_ctrl = None;
                    return true;
                }
                self.set_tx_state(now, TxState::Cts, out);
                // ns-2's guess at how long the data takes to start arriving.
                minus(c.txtime + MAX_PROPAGATION + c.duration + MAX_PROPAGATION, self.p.sifs + self.p.ack_time())
            }
            // IEEE 802.11 §9.2.8: an ACK goes a SIFS after the data, busy medium or not.
            FrameKind::Ack => {
                self.set_tx_state(now, TxState::Ack, out);
                c.txtime
            }
            _ => unreachable!("control frames are CTS and ACK"),
        };
        self.transmit(now, c, timeout, out);
        true
    }

    fn check_rts(&mut self, now: Time, out: &mut Vec<MacOut>) -> bool {
        let Some(r) = self.pkt_rts else { return false };
        if !self.is_idle(now) {
            self.inc_cw();
            self.start_backoff(now, Dur::ZERO, out);
            return true;
        }
        self.set_tx_state(now, TxState::Rts, out);
        let p = &self.p;
        let timeout = r.txtime + MAX_PROPAGATION + p.sifs + p.cts_time() + MAX_PROPAGATION;
        self.transmit(now, r, timeout, out);
        true
    }

    fn check_tx(&mut self, now: Time, out: &mut Vec<MacOut>) -> bool {
        let Some(d) = self.pkt_tx else { return false };
        if !self.is_idle(now) {
            // Busy when the data was due (after its CTS, or its backoff): start over.
            self.make_rts();
            self.inc_cw();
            self.start_backoff(now, Dur::ZERO, out);
            return true;
        }
        self.set_tx_state(now, TxState::Send, out);
        let timeout = if d.ra == BROADCAST {
            d.txtime
        } else {
            d.txtime + MAX_PROPAGATION + self.p.sifs + self.p.ack_time() + MAX_PROPAGATION
        };
        self.transmit(now, d, timeout, out);
        true
    }

    fn backoff_expired(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if self.pkt_ctrl.is_some() {
            // A CTS or ACK is on its way; the pending frame waits for the next backoff.
            return;
        }
        if self.check_rts(now, out) {
            return;
        }
        self.check_tx(now, out);
    }

    fn defer_expired(&mut self, now: Time, out: &mut Vec<MacOut>) {
        if self.check_ctrl(now, out) {
            return;
        }
        if self.check_rts(now, out) {
            return;
        }
        self.check_tx(now, out);
    }

    /// No CTS or ACK came back (or our own CTS or ACK is out).
    fn send_timeout(&mut self, now: Time, out: &mut Vec<MacOut>) {
        match self.tx_state {
            TxState::Rts => self.retransmit_rts(now, out),
            TxState::Send => self.retransmit_data(now, out),
            // A CTS without data following, or an ACK sent: done with it.
            TxState::Cts | TxState::Ack => self.pkt_ctrl = None,
            TxState::Idle => {}
        }
        self.tx_resume(now, out);
    }

    fn retransmit_rts(&mut self, now: Time, out: &mut Vec<MacOut>) {
        self.stats.rts_failures += 1;
        self.ssrc += 1;
        if self.ssrc >= self.p.short_retry {
            if let Some(r) = self.pkt_rts.take() {
                self.discard(&r, false, Drop::Retry);
            }
            self.give_up(out);
            self.ssrc = 0;
            self.reset_cw();
        } else {
            self.inc_cw();
            self.start_backoff(now, Dur::ZERO, out);
        }
    }

    fn retransmit_data(&mut self, now: Time, out: &mut Vec<MacOut>) {
        let d = self.pkt_tx.expect("a data frame is out");
        if d.ra == BROADCAST {
            // Broadcasts are never acknowledged, so never retried.
            self.pkt_tx = None;
            out.push(MacOut::Done { payload: d.payload, ra: d.ra, outcome: Outcome::Sent });
            self.reset_cw();
            self.start_backoff(now, Dur::ZERO, out);
            return;
        }
        self.stats.ack_failures += 1;
        // IEEE 802.11 §9.2.5.3: frames up to the RTS threshold count against the short limit.
        let short = d.size <= self.p.rts_threshold;
        let (count, limit) = if short {
            self.ssrc += 1;
            (self.ssrc, self.p.short_retry)
        } else {
            self.slrc += 1;
            (self.slrc, self.p.long_retry)
        };
        if count >= limit {
            self.give_up(out);
            if short {
                self.ssrc = 0;
            } else {
                self.slrc = 0;
            }
            self.reset_cw();
        } else {
            self.stats.data_retries += 1;
            self.make_rts();
            self.inc_cw();
            self.start_backoff(now, Dur::ZERO, out);
        }
    }

    /// The retry limit is reached: the pending data frame is dropped.
    fn give_up(&mut self, out: &mut Vec<MacOut>) {
        if let Some(d) = self.pkt_tx.take() {
            self.failure_pending = true;
            self.discard(&d, false, Drop::Retry);
            out.push(MacOut::Done { payload: d.payload, ra: d.ra, outcome: Outcome::RetryLimit });
        }
    }

    // ---- receiving ---------------------------------------------------------------------------

    /// The first bit of `f` arrives at `power` W; `decodable` is false below the receive
    /// threshold (it still occupies the medium).
    pub fn rx_start(&mut self, now: Time, f: Frame, power: f64, decodable: bool, out: &mut Vec<MacOut>) {
        // A transmitting station does not hear it, but the air is busy all the same.
        let error = !decodable || self.tx_active;
        if self.rx_state == RxState::Idle {
            self.set_rx_state(now, RxState::Recv, out);
            self.pkt_rx = Some(RxSlot { frame: f, power, error });
            self.start(now, TimerKind::Rx, f.txtime, out);
            return;
        }
        let cur = self.pkt_rx.expect("receiving");
        if cur.power / power >= self.capture_ratio {
            // Captured: the weaker frame is lost, but it keeps the medium busy.
            self.set_nav(now, self.eifs + f.txtime, out);
            return;
        }
        // Collision: whichever frame lasts longer is the one the receiver waits out.
        if self.rx_state == RxState::Recv {
            self.set_rx_state(now, RxState::Coll, out);
        }
        if f.txtime > self.timers[TimerKind::Rx as usize].remaining(now) {
            self.stop(TimerKind::Rx);
            self.discard(&cur.frame, cur.error, Drop::Collision);
            self.pkt_rx = Some(RxSlot { frame: f, power, error });
            self.start(now, TimerKind::Rx, f.txtime, out);
        } else {
            self.discard(&f, error, Drop::Collision);
        }
    }

    fn rx_end(&mut self, now: Time, out: &mut Vec<MacOut>) {
        let slot = self.pkt_rx.expect("a frame is being received");
        if !self.tx_active {
            if self.rx_state == RxState::Coll {
                self.discard(&slot.frame, slot.error, Drop::Collision);
                self.set_nav(now, self.eifs, out);
            } else if slot.error {
                self.set_nav(now, self.eifs, out);
            } else {
                self.received(now, &slot.frame, out);
            }
        }
        self.pkt_rx = None;
        self.set_rx_state(now, RxState::Idle, out);
    }

    fn received(&mut self, now: Time, f: &Frame, out: &mut Vec<MacOut>) {
        // IEEE 802.11 §9.2.5.6: frames for others set the NAV.
        if f.ra != self.me {
            self.set_nav(now, f.duration, out);
        }
        if f.ra != self.me && f.ra != BROADCAST {
            return;
        }
        match f.kind {
            FrameKind::Rts => self.recv_rts(now, f, out),
            FrameKind::Cts => self.recv_cts(now, f, out),
            FrameKind::Ack => self.recv_ack(now, f, out),
            FrameKind::Data => self.recv_data(now, f, out),
        }
    }

    fn recv_rts(&mut self, now: Time, f: &Frame, out: &mut Vec<MacOut>) {
        if self.tx_state != TxState::Idle || self.pkt_ctrl.is_some() {
            self.discard(f, false, Drop::Busy);
            return;
        }
        let p = &self.p;
        let duration = whole_us(minus(f.duration, p.sifs + p.cts_time()));
        self.pkt_ctrl = Some(self.control(FrameKind::Cts, f.ta, duration));
        if self.busy(TimerKind::Defer) {
            self.stop(TimerKind::Defer);
        }
        self.tx_resume(now, out);
    }

    fn recv_cts(&mut self, now: Time, f: &Frame, out: &mut Vec<MacOut>) {
        if self.tx_state != TxState::Rts {
            self.discard(f, false, Drop::Invalid);
            return;
        }
        self.pkt_rts = None;
        self.stop(TimerKind::Send);
        // IEEE 802.11 §9.2.5.3: the RTS got through; the contention window stays.
        self.ssrc = 0;
        self.tx_resume(now, out);
    }

    fn recv_data(&mut self, now: Time, f: &Frame, out: &mut Vec<MacOut>) {
        if f.ra != BROADCAST {
            if f.size >= self.p.rts_threshold {
                // The exchange began with our CTS: it is done.
                if self.tx_state != TxState::Cts {
                    self.discard(f, false, Drop::Busy);
                    return;
                }
                self.pkt_ctrl = None;
                self.stop(TimerKind::Send);
                self.pkt_ctrl = Some(self.control(FrameKind::Ack, f.ta, Dur::ZERO));
                self.tx_resume(now, out);
            } else {
                // No room for a second control frame.
                if self.pkt_ctrl.is_some() {
                    self.discard(f, false, Drop::Busy);
                    return;
                }
                self.pkt_ctrl = Some(self.control(FrameKind::Ack, f.ta, Dur::ZERO));
                if !self.busy(TimerKind::Send) {
                    self.tx_resume(now, out);
                }
            }
            // A retransmission whose first copy got through but whose ACK was lost.
            let last = &mut self.last_seqno[f.ta as usize];
            if *last != 0 && *last == f.seqno {
                self.discard(f, false, Drop::Duplicate);
                return;
            }
            *last = f.seqno;
        }
        out.push(MacOut::Up(*f));
    }

    fn recv_ack(&mut self, now: Time, f: &Frame, out: &mut Vec<MacOut>) {
        if self.tx_state != TxState::Send {
            self.discard(f, false, Drop::Invalid);
            return;
        }
        let d = self.pkt_tx.take().expect("a data frame is out");
        self.stop(TimerKind::Send);
        if d.size <= self.p.rts_threshold {
            self.ssrc = 0;
        } else {
            self.slrc = 0;
        }
        self.reset_cw();
        out.push(MacOut::Done { payload: d.payload, ra: d.ra, outcome: Outcome::Sent });
        // A backoff after every successful exchange.
        self.start_backoff(now, Dur::ZERO, out);
        self.tx_resume(now, out);
    }

    /// Counts a frame thrown away, as ns-2's trace would show it: only decodable frames this
    /// station sent or was sent, and broadcast data.
    fn discard(&mut self, f: &Frame, error: bool, why: Drop) {
        if error {
            return;
        }
        let mine = match f.kind {
            FrameKind::Rts => f.ta == self.me || f.ra == self.me,
            FrameKind::Cts | FrameKind::Ack => f.ra == self.me,
            FrameKind::Data => f.ra == self.me || f.ta == self.me || f.ra == BROADCAST,
        };
        if !mine {
            return;
        }
        match why {
            Drop::Collision => self.stats.collisions += 1,
            Drop::Retry => self.stats.retry_drops += 1,
            Drop::Busy => self.stats.busy_drops += 1,
            Drop::Duplicate => self.stats.duplicates += 1,
            Drop::Invalid => {}
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drop {
    Collision,
    Retry,
    Busy,
    Duplicate,
    /// A response that was not expected (ns-2's "INVALID STATE"), not counted.
    Invalid,
}

#[cfg(test)]
#[path = "mac_tests.rs"]
mod tests;
