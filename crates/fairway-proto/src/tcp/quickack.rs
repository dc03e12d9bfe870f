//! Linux's receiver, as far as it decides when a delayed-ACK receiver ACKs at once
//! (`quick_ack = true`): net/ipv4/tcp_input.c's quick-ACK mode and
//! receive-window growth. A Linux receiver does not ACK every second segment from the start:
//! - the first data segment puts it in quick-ACK mode for `TCP_MAX_QUICKACKS` (16) segments
//!   (`tcp_event_data_recv` -> `tcp_incr_quickack`);
//! - every in-order segment that opens its window further (`tcp_grow_window`: `rcv_ssthresh`
//!   grows by two segments while below the window its receive buffer allows) is ACKed at once
//!   (`icsk_ack.quick |= 1`);
//! - the buffer grows once per receiver RTT (dynamic right-sizing, `tcp_rcv_space_adjust`):
//!   when the data delivered in the last RTT exceeds the most delivered in any earlier one, the
//!   window allowed becomes 2 x copied + 16 segments, plus twice that times the relative
//!   growth (slow start's doubling).
//!
//! So in slow start, and whenever the data per RTT grows, almost every segment is ACKed alone
//! (measured on this kernel: 110 of the first 143 ACKs of a bulk flow at 10 Mb/s acknowledge one
//! segment, then 80-90% two). Which it is decides whether the sender's HyStart sees an ACK
//! train (ACKs under 2 ms apart, one 1500-byte segment at 10 Mb/s being 1.2 ms).
//!
//! Counted in segments; the choices Linux leaves to its memory accounting:
//! - the window starts at 45 segments and the buffer allows 45.26: Linux's initial window of
//!   65535 bytes rounded down to 1448-byte segments (65160), against 64 KiB from `tcp_rmem[1]`
//!   (128 KiB) at the default scaling ratio of one half; the allowance is capped at
//!   `tcp_rmem[2]` (6 MiB) at the same ratio;
//! - the receiver's RTT (Linux measures it from the timestamps its own ACKs had echoed) is the
//!   segment's one-way delay plus the smallest one-way delay seen, taken as the way back's, and
//!   smoothed as Linux's (`tcp_rcv_rtt_update`, gain 1/8);
//! - the application reads at once, so the buffer's free space is its whole allowance.

use fairway_core::{Dur, Time};

/// `TCP_MAX_QUICKACKS`.
const MAX_QUICKACKS: u32 = 16;
/// The initial window: 65535 bytes in whole 1448-byte segments (45 x 1448 = 65160).
const INITIAL_WINDOW: f64 = 45.0;
/// The initial allowance: `tcp_rmem[1]` (131072) at scaling ratio 1/2, in 1448-byte segments.
const INITIAL_ALLOWANCE: f64 = 65536.0 / 1448.0;
/// The largest allowance: `tcp_rmem[2]` (6 MiB) at scaling ratio 1/2.
const MAX_ALLOWANCE: f64 = 3_145_728.0 / 1448.0;
/// `tcp_rcv_space_adjust`'s cushion, segments.
const CUSHION: f64 = 16.0;
/// `rcvq_space.space` at the start: TCP_INIT_CWND segments.
const INITIAL_SPACE: f64 = 10.0;
/// `tcp_grow_window`: a segment opens the window by two (2 x advmss).
const GROW: f64 = 2.0;

/// The receiver's state that decides quick ACKs.
#[derive(Debug, Clone)]
pub(super) struct QuickAck {
    /// `icsk_ack.quick`: segments still to ACK at once.
    quick: u32,
    /// Data seen yet (`icsk_ack.ato` set).
    started: bool,
    /// `rcv_ssthresh`, segments.
    window: f64,
    /// The window the receive buffer allows (`tcp_space`), segments.
    allowance: f64,
    /// `rcvq_space.space`: the most segments delivered in one measured RTT.
    space: f64,
    /// `rcvq_space.seq` and `.time`: where and when the current measurement began.
    since_delivered: u64,
    since: Time,
    /// The smoothed receiver RTT, and the smallest one-way delay seen.
    rtt: Option<Dur>,
    min_owd: Option<Dur>,
}

impl Default for QuickAck {
    fn default() -> Self {
        QuickAck {
            quick: 0,
            started: false,
            window: INITIAL_WINDOW,
            allowance: INITIAL_ALLOWANCE,
            space: INITIAL_SPACE,
            since_delivered: 0,
            since: Time::ZERO,
            rtt: None,
            min_owd: None,
        }
    }
}

impl QuickAck {
    /// A segment arrived in order at `now`, sent at `sent_at`, the receiver having delivered
    /// `delivered` segments with it. True if it is to be ACKed at once.
    pub(super) fn on_in_order(&mut self, now: Time, sent_at: Time, delivered: u64) -> bool {
        if !self.started {
            // tcp_event_data_recv: the first data segment starts the delayed-ACK engine.
            self.started = true;
            self.quick = MAX_QUICKACKS;
            self.since = now;
            self.since_delivered = delivered.saturating_sub(1);
        }
        self.sample_rtt(now, sent_at);
        self.adjust_space(now, delivered);
        // tcp_grow_window: room left under the allowance opens the window and asks for an
        // ACK now.
        let room = self.allowance - self.window;
        if room > 0.0 {
            self.window += room.min(GROW);
            self.quick |= 1;
        }
        // tcp_dec_quickack_mode, as the ACK goes out.
        if self.quick > 0 {
            self.quick -= 1;
            return true;
        }
        false
    }

    /// tcp_rcv_rtt_update with timestamps: a smaller sample is taken at once, a larger one
    /// with gain 1/8 (Linux since 6.16, "tcp: always seek for minimal rtt").
    fn sample_rtt(&mut self, now: Time, sent_at: Time) {
        let owd = now - sent_at;
        let min_owd = *self.min_owd.insert(self.min_owd.map_or(owd, |m| m.min(owd)));
        let sample = owd + min_owd;
        self.rtt = Some(match self.rtt {
            Some(r) if sample >= r => Dur(r.0 - r.0 / 8 + sample.0 / 8),
            _ => sample,
        });
    }

    /// tcp_rcv_space_adjust, once a receiver RTT has passed since the measurement began.
    fn adjust_space(&mut self, now: Time, delivered: u64) {
        let Some(rtt) = self.rtt else { return };
        if now - self.since < rtt {
            return;
        }
        let copied = delivered.saturating_sub(self.since_delivered) as f64;
        if copied > self.space {
            // Enough for two RTTs' worth and a cushion, more by twice the growth (slow start).
            let mut win = 2.0 * copied + CUSHION;
            win += 2.0 * win * (copied - self.space) / self.space;
            self.allowance = self.allowance.max(win.min(MAX_ALLOWANCE));
            self.space = copied;
        }
        self.since_delivered = delivered;
        self.since = now;
    }
}
