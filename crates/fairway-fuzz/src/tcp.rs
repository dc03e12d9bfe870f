//! The `tcp` target: a TCP sender and its sink joined by a path that the bytes make hostile,
//! then kind. TCP is not an [`Endpoint`](fairway_proto::Endpoint) (the simulator drives it, and
//! the live testbed uses the kernel's), so it has a loop of its own, shaped as the simulator's
//! (fairway-model's tcp_flow.rs): each timer fires only when due, and each input is followed by
//! polling until nothing more is sent.
//!
//! The first bytes choose a configuration that a scenario file could give (the checks of
//! fairway-scenario's TCP reader: RFC 6675 recovery only for the SACK sender, PRR and RACK only
//! in it, TLP only with RACK, HyStart only where the algorithm has one, `min_rto` not above
//! `max_rto`, the tick's phase under the tick) and the path: its one-way delay, its jitter
//! (which reorders), its loss and its ECN marks. Then every packet either way takes one byte,
//! which decides whether the path drops it, marks it, or holds it back. When the bytes run out
//! the path turns lossless, in order and unmarked, and must stay so until the transfer ends.
//!
//! What must hold, besides no panic and no endless burst:
//! - the sender never sends a sequence number beyond what it was offered;
//! - its cumulative ACK never goes back, and its window stays a finite number, not negative;
//! - the sink never acknowledges what was not sent, and its SACK blocks lie above its
//!   cumulative ACK and within what arrived;
//! - once the path is kind, the transfer finishes: every offered packet acknowledged within
//!   [`KIND_FOR`] of simulated time (the longest backed-off timeout is `max_rto`, at most 64 s
//!   here, and the largest transfer takes a few hundred round trips of at most 0.5 s).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fairway_core::{Bytes, Dur, Time};
use fairway_proto::tcp::{
    cc, PrrBound, RtoStyle, SackRecovery, SinkConfig, TcpAck, TcpConfig, TcpSegment, TcpSender, TcpSink, TcpVariant,
};

use crate::pair::InFlight;
use crate::{Reader, MAX_BURST};

/// How long the path stays kind before an unfinished transfer counts as stalled.
pub const KIND_FOR: Dur = Dur::from_secs(3600);
/// Steps (an arrival or a timer each) on the hostile path, at most.
const HOSTILE_STEPS: usize = 20_000;
/// Events on the kind path, at most: far more than the largest transfer needs.
const KIND_EVENTS: usize = 2_000_000;

/// What the path carries: a segment (and whether it was marked CE) or an ACK.
enum Carried {
    Data(TcpSegment, bool),
    Ack(TcpAck),
}

/// The path's settings, from the first bytes.
struct Path {
    delay: Dur,
    jitter: Dur,
    /// A packet whose byte is below this is lost.
    loss: u8,
    /// Marks CE on ECN-capable packets whose byte has its top bit.
    marks: bool,
}

/// A configuration a scenario could give, from the first bytes.
fn config(r: &mut Reader) -> (TcpConfig, SinkConfig, u64) {
    let mut c = TcpConfig::new(TcpVariant::ALL[r.u8() as usize % TcpVariant::ALL.len()]);
    let a = &cc::ALGORITHMS[r.u8() as usize % cc::ALGORITHMS.len()];
    c.cc = a.name;
    let f = r.u8() as usize;
    if !a.flavors.is_empty() && !f.is_multiple_of(4) {
        c.cc_flavor = a.flavors[f % a.flavors.len()];
    }
    let bits = r.u16();
    let bit = |i: u32| bits & (1 << i) != 0;
    if c.variant == TcpVariant::Sack && bit(0) {
        c.sack_recovery = SackRecovery::Rfc6675;
        c.prr = [None, Some(PrrBound::Ssrb), Some(PrrBound::Crb), Some(PrrBound::Linux)][(bits >> 1) as usize & 3];
        c.rack = bit(3);
        c.tlp = c.rack && bit(4);
    }
    c.timestamps = bit(5);
    c.rto_style = if bit(6) { RtoStyle::Linux } else { RtoStyle::Rfc6298 };
    c.ecn = bit(7);
    c.syn = !bit(8);
    c.delay_growth = !bit(9);
    c.limited_transmit = !bit(10);
    c.newreno_impatient = !bit(11);
    c.partial_window_deflation = !bit(12);
    match r.u8() % 3 {
        0 => {}
        1 => c.hystart = Some(false),
        _ => c.hystart = (a.build)(&c).has_hystart().then_some(true),
    }
    c.packet_size = Bytes(1 + u64::from(r.u16()));
    c.header_size = Bytes(u64::from(r.u8()));
    // Mostly the windows of real runs; sometimes the largest a scenario allows.
    c.window = match r.u8() {
        0 => 1 << 20,
        w => u32::from(w),
    };
    c.window_init = 1 + u32::from(r.u8() % 64);
    c.max_cwnd = u32::from(r.u8());
    c.max_burst = u32::from(r.u8() % 8);
    c.dupack_thresh = 1 + u32::from(r.u8() % 8);
    c.tick = Dur::from_micros(1 + u64::from(r.u16()) * 8);
    c.tick_phase = Dur(u64::from(r.u32()) % c.tick.0);
    c.min_rto = Dur::from_millis(u64::from(r.u16()) % 1000);
    c.max_rto = c.min_rto.max(Dur::from_millis(1 + u64::from(r.u16())));
    c.initial_rto = Dur::from_millis(1 + u64::from(r.u16()) % 10_000);
    c.initial_ssthresh = match r.u8() {
        0 => None,
        s => Some(u32::from(s)),
    };
    let o = r.u8();
    c.overhead = if o < 128 { Dur::ZERO } else { Dur::from_micros(u64::from(o) * 100) };
    c.overhead_seed = u64::from(r.u8());
    let d = r.u8();
    let sink = SinkConfig {
        ack_size: Bytes(1 + u64::from(r.u8())),
        delayed_ack: (d & 1 == 1).then(|| Dur::from_millis(1 + u64::from(d >> 1) * 4)),
        immediate_ack_on_gap_fill: d & 2 == 0,
        immediate_ack_on_syn: d & 4 == 0,
        sack: c.variant == TcpVariant::Sack,
        quick_ack: d & 1 == 1 && d & 8 != 0,
    };
    let packets = 1 + u64::from(r.u16() % 600);
    (c, sink, packets)
}

/// The run: the hostile path while the bytes last, then the kind one until the transfer ends.
pub fn pair(b: &[u8]) {
    let mut r = Reader::new(b);
    let (cfg, sink_cfg, packets) = config(&mut r);
    let path = Path {
        delay: Dur::from_micros(100 + u64::from(r.u8()) * 1000),
        jitter: Dur::from_micros(u64::from(r.u8()) * 50),
        loss: r.u8() / 2,
        marks: r.u8() & 1 == 1,
    };
    let stop_after = match r.u8() {
        s if s < 200 => None,
        s => Some(u64::from(s - 200) * 4),
    };
    let mut snd = TcpSender::new(cfg);
    let mut sink = TcpSink::new(sink_cfg);
    let mut net: BinaryHeap<Reverse<InFlight<Carried>>> = BinaryHeap::new();
    let mut order = 0u64;
    let mut now = Time::ZERO;
    let mut sent_packets = 0u64;
    let mut steps = 0usize;
    // The highest sequence number that arrived at the sink.
    let mut top_arrived = -1i64;
    let mut last_ack = snd.highest_ack();
    let mut kind_since: Option<Time> = None;
    let mut events = 0usize;
    snd.send(now, Some(packets));
    loop {
        // What the two ends have to send goes onto the path, each packet as its byte says.
        let hostile = kind_since.is_none();
        let mut put = |c: Carried, now: Time, r: &mut Reader| {
            let x = if hostile { r.u8() } else { u8::MAX };
            if x < path.loss {
                return;
            }
            let extra = if hostile { Dur(path.jitter.0 * u64::from(x & 15) / 15) } else { Dur::ZERO };
            let what = match c {
                Carried::Data(s, _) => Carried::Data(s, hostile && path.marks && s.ect && x & 0x80 != 0),
                ack => ack,
            };
            net.push(Reverse(InFlight { at: now + path.delay + extra, order, what }));
            order += 1;
        };
        for n in 0.. {
            let Some(s) = snd.poll_transmit(now) else { break };
            assert!(n < MAX_BURST, "the sender still sending after {MAX_BURST} segments at {now:?}");
            assert!(s.seq <= packets, "segment {} sent of {packets} offered", s.seq);
            sent_packets += 1;
            put(Carried::Data(s, false), now, &mut r);
        }
        for n in 0.. {
            let Some(a) = sink.poll_transmit(now) else { break };
            assert!(n < MAX_BURST, "the sink still sending after {MAX_BURST} ACKs at {now:?}");
            assert!(a.ackno <= top_arrived, "ACK {} with nothing above {top_arrived} arrived", a.ackno);
            for (left, right) in a.sack.iter() {
                assert!(
                    a.ackno < left && left < right && right <= top_arrived + 1,
                    "SACK block [{left}, {right}) beside ACK {} (arrived up to {top_arrived})",
                    a.ackno
                );
            }
            put(Carried::Ack(a), now, &mut r);
        }
        let cwnd = snd.cwnd();
        assert!(cwnd.is_finite() && cwnd >= 0.0, "cwnd {cwnd}");
        assert!(snd.highest_ack() >= last_ack, "the cumulative ACK went back from {last_ack} to {}", snd.highest_ack());
        last_ack = snd.highest_ack();
        if snd.is_done() {
            return;
        }
        steps += 1;
        if kind_since.is_none() && (r.done() || steps > HOSTILE_STEPS) {
            kind_since = Some(now);
        }
        if let Some(since) = kind_since {
            events += 1;
            assert!(
                now < since + KIND_FOR && events < KIND_EVENTS,
                "the transfer stalled on a kind path: {} of {packets} acknowledged after {:?} ({events} events)",
                snd.highest_ack(),
                now - since
            );
        }
        if stop_after.is_some_and(|k| sent_packets >= k) {
            snd.stop(now);
        }
        // The next event: an arrival or a timer.
        let next = [net.peek().map(|e| e.0.at), snd.poll_timeout(), sink.poll_timeout()].into_iter().flatten().min();
        let Some(t) = next else {
            panic!("nothing pending with {} of {packets} acknowledged", snd.highest_ack());
        };
        now = now.max(t);
        if net.peek().is_some_and(|e| e.0.at <= now) {
            match net.pop().expect("peeked").0.what {
                Carried::Data(s, ce) => {
                    top_arrived = top_arrived.max(s.seq as i64);
                    sink.on_segment(now, &s, ce);
                }
                Carried::Ack(a) => snd.on_ack(now, &a),
            }
        } else if snd.poll_timeout().is_some_and(|d| d <= now) {
            snd.on_timeout(now);
        } else if sink.poll_timeout().is_some_and(|d| d <= now) {
            sink.on_timeout(now);
        }
    }
}
