//! The MApp receiver (kadhum2015 Fig. 3) with the congestion rule of chung-dcbt §5 (MM_APP).
//!
//! Congestion indicators: a gap in the datagram sequence, a CE mark (kadhum2015 §2.2: "packet
//! loss and marked packet monitoring are used to detect congestion"), and no data for the
//! timeout TOI (chung-dcbt §5: "when the receiver does not receive any frames within a timeout
//! interval"). On congestion the scale is halved (integer division) and the sender told at once,
//! at most once per RTT; after an RTT without congestion (a checkpoint) the scale goes up by one.
//! Feedback goes out at once on the first datagram and at every checkpoint.

use super::wire::{DataHeader, Feedback, Message, DATA_HEADER_LEN, FEEDBACK_LEN};
use fairway_core::wire_clock::extend_seq;
use fairway_core::{Bytes, Dur, Time};

use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

use super::{MappConfig, ParamError, Reassembly};

/// Counters of a receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReceiverStats {
    /// Data datagrams of this flow received (late and duplicate ones included).
    pub datagrams: u64,
    /// Their bytes on the wire (UDPm header + payload).
    pub bytes: u64,
    /// Datagrams missing from sequence gaps.
    pub lost: u64,
    /// Datagrams that arrived with ECN Congestion Experienced.
    pub marked: u64,
    /// Datagrams at or below the highest sequence number already seen (late or duplicate).
    pub late: u64,
    pub frames_complete: u64,
    /// Frames given up (incomplete when overtaken or at idle, or never seen).
    pub frames_lost: u64,
    /// Congestion responses (halvings, a halving of scale 0 included).
    pub decreases: u64,
    pub increases: u64,
    /// TOI expiries.
    pub timeouts: u64,
    pub feedback_sent: u64,
    /// Datagrams of other flows, or with an impossible fragment index.
    pub ignored: u64,
}

/// The receiving end of one MApp flow.
#[derive(Debug, Clone)]
pub struct MappReceiver {
    cfg: MappConfig,
    /// chung-dcbt §5's Max_Intrvl.
    max_interval: Dur,
    scale: u8,
    /// The RTT the decisions are paced with: the sender's estimate from the latest data header.
    rtt: Dur,
    /// The latest `now` seen: time that goes backwards is treated as no time passing.
    clock: Time,
    /// Highest datagram sequence number seen (extended); `None` before the first datagram.
    highest: Option<u64>,
    /// Timers run: data has arrived and the receiver has not gone idle.
    active: bool,
    /// The TOI counts from here: the last arrival, or the last TOI expiry.
    toi_base: Time,
    consecutive_timeouts: u32,
    /// The current RTT began here: the last checkpoint, decrease or (re)start.
    epoch_start: Time,
    last_decrease: Option<Time>,
    /// Congestion seen in the current RTT.
    congested: bool,
    /// Datagrams arrived in the current RTT.
    arrivals: u64,
    /// `send_time_us` of the latest in-order datagram, and when it arrived.
    echo_us: u32,
    echo_arrival: Time,
    feedback_due: bool,
    reassembly: Reassembly,
    stats: ReceiverStats,
}

/// The most due timer events handled in one call; a driver far behind skips the rest.
const MAX_TIMER_STEPS: u32 = 1024;

impl MappReceiver {
    pub fn new(cfg: MappConfig) -> Result<MappReceiver, ParamError> {
        cfg.validate()?;
        Ok(MappReceiver {
            max_interval: cfg.pacing.max_interval(&cfg.table, cfg.jitter),
            scale: 0,
            rtt: cfg.initial_rtt,
            clock: Time::ZERO,
            highest: None,
            active: false,
            toi_base: Time::ZERO,
            consecutive_timeouts: 0,
            epoch_start: Time::ZERO,
            last_decrease: None,
            congested: false,
            arrivals: 0,
            echo_us: 0,
            echo_arrival: Time::ZERO,
            feedback_due: false,
            reassembly: Reassembly::new(cfg.reassembly_window),
            stats: ReceiverStats::default(),
            cfg,
        })
    }

    fn tick(&mut self, now: Time) -> Time {
        self.clock = self.clock.max(now);
        self.clock
    }

    /// The receive timeout of chung-dcbt §5.
    pub fn toi(&self) -> Dur {
        if self.rtt > self.max_interval {
            // chung-dcbt §5: RTT > Max_Intrvl: TOI = RTT
            self.rtt
        } else {
            // chung-dcbt §5: RTT <= Max_Intrvl: TOI = Max_Intrvl + alpha, 0 < alpha < RTT;
            // here alpha = toi_alpha x RTT.
            let alpha = (self.rtt.0 as f64 * self.cfg.toi_alpha).round() as u64;
            self.max_interval + Dur(alpha)
        }
    }

    /// Takes one data datagram: `h` its header, `payload_len` the bytes after the header, `ce`
    /// whether the IP ECN field says Congestion Experienced.
    pub fn handle_data(&mut self, now: Time, h: &DataHeader, payload_len: usize, ce: bool) {
        let now = self.tick(now);
        if h.flow != self.cfg.flow || h.frag_count == 0 || h.frag_index >= h.frag_count {
            self.stats.ignored += 1;
            return;
        }
        // What fell due before this arrival happens first.
        self.run_timers(now);
        self.stats.datagrams += 1;
        self.stats.bytes += (DATA_HEADER_LEN + payload_len) as u64;
        if h.rtt_us != 0 {
            // The sender's smoothed RTT (wire.rs: the receiver cannot measure it alone).
            self.rtt = Dur::from_micros(u64::from(h.rtt_us));
            if self.active && self.checkpoint_due() < now {
                // A shorter RTT made the checkpoint due in the past: it falls now, when that
                // became known, so checkpoints stay at least one RTT apart.
                self.epoch_start = Time(now.0 - self.rtt.0);
            }
        }

        let mut congestion = false;
        let in_order = match self.highest {
            None => {
                // Numbering starts at the first datagram seen.
                self.highest = Some(u64::from(h.seq));
                true
            }
            Some(hi) => {
                let seq = extend_seq(hi, h.seq);
                if seq > hi {
                    // chung-dcbt §5: "the receiver gets a frame whose sequence number is greater
                    // than the expected sequence number" is a loss.
                    let gap = seq - hi - 1;
                    if gap > 0 {
                        self.stats.lost += gap;
                        congestion = true;
                    }
                    self.highest = Some(seq);
                    true
                } else {
                    // Late or duplicate: counted, not a gap (its loss was counted when the gap
                    // was seen).
                    self.stats.late += 1;
                    false
                }
            }
        };
        if ce {
            // kadhum2015 §2.2: "When the loss or receiving of a marked packet happens, the receiver
            // decreases the value of the transmission rate used recently to half."
            self.stats.marked += 1;
            congestion = true;
        }
        // kadhum2015 §3.2: re-assembly.
        self.reassembly.on_fragment(h.frame, h.frag_index, h.frag_count);

        if in_order {
            // Echo the newest datagram (as TCP timestamps echo the latest in-order segment).
            self.echo_us = h.send_time_us;
            self.echo_arrival = now;
        }
        self.toi_base = now;
        self.consecutive_timeouts = 0;
        if !self.active {
            // kadhum2015 §2.2: "When data packets are first received at the receiver end, it
            // should notify the sender of the transmission rate that the receiver is expecting
            // to receive the next data packet" (scale 0 at first; ns-2 mm-app.cc acks seq 0 at
            // once). The same after an idle period. The checkpoint clock starts here.
            self.active = true;
            self.feedback_due = true;
            self.epoch_start = now;
            self.congested = false;
            self.arrivals = 0;
        }
        if congestion {
            self.on_congestion(now);
        }
        self.arrivals += 1;
    }

    fn checkpoint_due(&self) -> Time {
        self.epoch_start + self.rtt
    }

    fn toi_deadline(&self) -> Time {
        self.toi_base + self.toi()
    }

    /// Handles the due events in time order, each at its own time, so that a late call does
    /// what punctual calls would have done (a TOI first when both fall at the same time).
    fn run_timers(&mut self, now: Time) {
        let mut steps = 0;
        while self.active {
            let (cp, toi) = (self.checkpoint_due(), self.toi_deadline());
            if cp.min(toi) > now {
                return;
            }
            steps += 1;
            if steps > MAX_TIMER_STEPS {
                // Far behind: skip the rest and restart both clocks now.
                self.epoch_start = now;
                self.toi_base = now;
                return;
            }
            if toi <= cp {
                self.on_toi(toi);
            } else {
                self.on_checkpoint(cp);
            }
        }
    }

    fn on_toi(&mut self, t: Time) {
        self.stats.timeouts += 1;
        self.consecutive_timeouts += 1;
        self.toi_base = t;
        // chung-dcbt §5: no frame within TOI is a frame loss, hence congestion.
        self.on_congestion(t);
        if self.consecutive_timeouts >= self.cfg.idle_limit {
            // Idle: stop the timers until data arrives again; frames still waiting for
            // fragments can no longer complete.
            self.active = false;
            self.reassembly.flush();
        }
    }

    fn on_checkpoint(&mut self, t: Time) {
        // chung-dcbt §5: "When the receiver detects no network congestion within a RTT from the
        // last checkpoint, it increases the scale value by one and notifies the sender" (capped
        // at the top scale); ns-2 mm-app.cc adjust_scale also needs a packet in that RTT.
        if !self.congested && self.arrivals > 0 && self.scale < self.cfg.table.top() {
            self.scale += 1;
            self.stats.increases += 1;
        }
        // Feedback at every checkpoint (ns-2 mm-app.cc: send_ack_pkt every RTT): it carries the
        // echo the sender's RTT estimate needs.
        self.feedback_due = true;
        self.epoch_start = t;
        self.congested = false;
        self.arrivals = 0;
    }

    fn on_congestion(&mut self, t: Time) {
        if self.last_decrease.is_some_and(|d| t - d < self.rtt) {
            // At most one decrease per RTT (Reno's fast recovery, which chung-dcbt §5 follows):
            // remember the congestion, so the next checkpoint does not increase.
            self.congested = true;
            return;
        }
        // chung-dcbt §5: "reduces its scale value to half (integer division) and notifies the
        // sender of this value"; kadhum2015 §2.2 likewise. The decrease restarts the checkpoint
        // clock.
        self.scale /= 2;
        self.stats.decreases += 1;
        self.last_decrease = Some(t);
        self.epoch_start = t;
        self.congested = false;
        self.arrivals = 0;
        self.feedback_due = true;
    }

    /// The scale the receiver expects next.
    pub fn scale(&self) -> u8 {
        self.scale
    }

    /// The RTT decisions are paced with.
    pub fn rtt(&self) -> Dur {
        self.rtt
    }

    /// Timers stopped after `idle_limit` timeouts (or no data yet).
    pub fn is_idle(&self) -> bool {
        !self.active
    }

    pub fn config(&self) -> &MappConfig {
        &self.cfg
    }
}

impl Endpoint for MappReceiver {
    type In = DataHeader;
    type Out = Feedback;
    type Stats = ReceiverStats;

    /// A data datagram: [`handle_data`](MappReceiver::handle_data).
    fn handle(&mut self, now: Time, h: &DataHeader, arrival: Arrival) {
        self.handle_data(now, h, arrival.payload.0 as usize, arrival.ce);
    }

    /// Decodes one datagram and takes it.
    /// Feedback sent to a receiver is ignored.
    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        match Message::decode(bytes).map_err(Malformed::from)? {
            (Message::Data(h), payload) => self.handle_data(now, &h, payload.len(), arrival.ce),
            (Message::Feedback(_), _) => {
                self.tick(now);
                self.stats.ignored += 1;
            }
        }
        Ok(())
    }

    /// Runs the checkpoint and TOI timers that are due.
    fn handle_timeout(&mut self, now: Time) {
        let now = self.tick(now);
        self.run_timers(now);
    }

    /// The feedback message to send, if one is due.
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<Feedback>> {
        if !self.feedback_due {
            return None;
        }
        let now = self.tick(now);
        self.feedback_due = false;
        self.stats.feedback_sent += 1;
        let hold_us = ((now - self.echo_arrival).0 / 1_000).min(u32::MAX as u64) as u32;
        let fb = Feedback {
            flow: self.cfg.flow,
            scale: self.scale,
            flags: 0,
            echo_time_us: self.echo_us,
            hold_us,
            highest_seq: self.highest.unwrap_or(0) as u32,
            // Cumulative, modulo 2^32 on the wire.
            lost: self.stats.lost as u32,
            marked: self.stats.marked as u32,
        };
        Some(Transmit { size: Bytes(FEEDBACK_LEN as u64), payload: Bytes(0), ect: false, tagged: false, msg: fb })
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next; `None` before the first
    /// datagram and while idle.
    fn poll_timeout(&self) -> Option<Time> {
        self.active.then(|| self.checkpoint_due().min(self.toi_deadline()))
    }

    /// Writes feedback as it goes on the wire ([`FEEDBACK_LEN`] bytes).
    fn stats(&self) -> ReceiverStats {
        ReceiverStats { frames_complete: self.reassembly.complete(), frames_lost: self.reassembly.lost(), ..self.stats }
    }

    fn encode(&self, t: &Transmit<Feedback>, out: &mut Vec<u8>) {
        t.msg.encode(out);
    }
}
