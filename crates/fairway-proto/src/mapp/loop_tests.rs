//! MApp sender and receiver in a closed loop through a tiny bottleneck model written here
//! (rate, propagation delay, drop-tail buffer, optional ECN marking above a threshold), and
//! garbage thrown at both ends.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use super::wire::{DataHeader, Feedback, Message};
use fairway_core::{Bytes, Dur, Rate, Rng, Time};

use super::{MappConfig, MappReceiver, MappSender, Pacing, ScaleTable};
use crate::endpoint::{Arrival, Endpoint};

/// A store-and-forward link behind a FIFO: serialisation at `rate`, then `delay`. The buffer
/// holds `limit` packets counting the one on the wire; ECN-capable arrivals are marked when
/// `mark_at` or more are queued.
struct Bottleneck {
    rate: Rate,
    delay: Dur,
    limit: usize,
    mark_at: Option<usize>,
    busy_until: Time,
    departures: VecDeque<Time>,
}

impl Bottleneck {
    fn new(rate: Rate, delay: Dur, limit: usize, mark_at: Option<usize>) -> Bottleneck {
        Bottleneck { rate, delay, limit, mark_at, busy_until: Time::ZERO, departures: VecDeque::new() }
    }

    /// When the packet reaches the far end and whether it is CE-marked; `None` if dropped.
    fn offer(&mut self, now: Time, size: Bytes, ect: bool) -> Option<(Time, bool)> {
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        let queued = self.departures.len();
        if queued >= self.limit {
            return None;
        }
        let ce = ect && self.mark_at.is_some_and(|k| queued >= k);
        let done = now.max(self.busy_until) + self.rate.tx_time(size);
        self.busy_until = done;
        self.departures.push_back(done);
        Some((done + self.delay, ce))
    }
}

enum Ev {
    Data(Vec<u8>, bool),
    Feedback(Vec<u8>),
}

#[derive(Default)]
struct Trace {
    /// (send time, header, len) of every datagram the sender emitted.
    sent: Vec<(Time, DataHeader, Bytes)>,
    /// Frames with at least one dropped datagram.
    dropped_frames: BTreeSet<u32>,
    drops: u64,
    /// Highest frame of which some datagram reached the receiver.
    highest_delivered_frame: Option<u32>,
    /// Every feedback message the receiver sent, with its time.
    feedback: Vec<(Time, Feedback)>,
}

struct Run {
    sender: MappSender,
    receiver: MappReceiver,
    link: Bottleneck,
    trace: Trace,
}

/// Runs the loop: the sender starts at 0, stops at `stop`, and the run ends at `end`.
fn run(cfg: MappConfig, mut link: Bottleneck, stop: Time, end: Time) -> Run {
    let mut sender = MappSender::new(cfg.clone(), Rng::from_seed(11)).unwrap();
    let mut receiver = MappReceiver::new(cfg).unwrap();
    let mut trace = Trace::default();
    let mut heap: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    let mut events: Vec<Option<Ev>> = vec![];
    let back_delay = link.delay;
    sender.start(Time::ZERO);
    let mut stopped = false;
    let mut clock = Time::ZERO;
    loop {
        let te = heap.peek().map(|Reverse((t, _))| *t);
        let ts = sender.poll_timeout();
        let tr = receiver.poll_timeout();
        let Some(next) = [te, ts, tr, (!stopped).then_some(stop)].into_iter().flatten().min() else { break };
        // A timeout can be in the past (the receiver's RTT shrank): handle it now.
        let now = next.max(clock);
        clock = now;
        if now > end {
            break;
        }
        if !stopped && next == stop {
            sender.stop(now);
            stopped = true;
        } else if te == Some(next) {
            let Reverse((_, id)) = heap.pop().unwrap();
            match events[id].take().unwrap() {
                Ev::Data(b, ce) => receiver
                    .handle_datagram(now, &b, Arrival { ce, size: Bytes(b.len() as u64), payload: Bytes(0) })
                    .unwrap(),
                Ev::Feedback(b) => sender.handle_datagram(now, &b, Arrival::default()).unwrap(),
            }
        } else if ts == Some(next) {
            sender.handle_timeout(now);
        } else {
            receiver.handle_timeout(now);
        }
        while let Some(d) = sender.poll_transmit(now) {
            trace.sent.push((now, d.msg, d.size));
            match link.offer(now, d.size, d.ect) {
                Some((at, ce)) => {
                    let mut b = vec![];
                    sender.encode(&d, &mut b);
                    assert_eq!(b.len() as u64, d.size.0);
                    let f = d.msg.frame;
                    trace.highest_delivered_frame = Some(trace.highest_delivered_frame.map_or(f, |h| h.max(f)));
                    heap.push(Reverse((at, events.len())));
                    events.push(Some(Ev::Data(b, ce)));
                }
                None => {
                    trace.drops += 1;
                    trace.dropped_frames.insert(d.msg.frame);
                }
            }
        }
        while let Some(f) = receiver.poll_transmit(now) {
            trace.feedback.push((now, f.msg));
            let mut b = vec![];
            receiver.encode(&f, &mut b);
            heap.push(Reverse((now + back_delay, events.len())));
            events.push(Some(Ev::Feedback(b)));
        }
    }
    Run { sender, receiver, link, trace }
}

/// The sawtooth: every change of the announced scale is +1 or a halving; increases are at least
/// `min_gap` apart; there are many of both. Returns (decreases, increases) seen in feedback.
fn check_sawtooth(fb: &[(Time, Feedback)], top: u8, min_gap: Dur) -> (usize, usize) {
    let (mut dec, mut inc) = (0, 0);
    let mut last_inc: Option<Time> = None;
    for w in fb.windows(2) {
        let ((_, a), (t, b)) = (w[0], w[1]);
        if b.scale > a.scale {
            assert_eq!(b.scale, a.scale + 1, "increase by one at {t}");
            if let Some(p) = last_inc {
                assert!(t - p >= min_gap, "increases {p} and {t} closer than {min_gap}");
            }
            last_inc = Some(t);
            inc += 1;
        } else if b.scale < a.scale {
            assert_eq!(b.scale, a.scale / 2, "decrease is a halving at {t}");
            dec += 1;
        }
        assert!(b.scale <= top);
    }
    (dec, inc)
}

fn sending_rate_bps(sent: &[(Time, DataHeader, Bytes)], from: Time, to: Time) -> f64 {
    let bits: u64 = sent.iter().filter(|(t, _, _)| *t >= from && *t < to).map(|(_, _, l)| l.bits()).sum();
    bits as f64 / (to - from).as_secs_f64()
}

#[test]
fn closed_loop_constant_size_rises_then_saws_around_the_bottleneck() {
    let capacity = Rate(1_000_000);
    let link = Bottleneck::new(capacity, Dur::from_millis(20), 10, None);
    let r = run(MappConfig::default(), link, Time::from_secs_f64(100.0), Time::from_secs_f64(110.0));
    let table = ScaleTable::kadhum2015();
    // The scale climbs past the first level whose rate exceeds the bottleneck (scale 6, 1.12 Mb/s).
    let first_above = table.rates().iter().position(|&x| x > capacity).unwrap() as u8;
    let peak = r.trace.sent.iter().map(|(_, h, _)| h.scale).max().unwrap();
    assert!(peak >= first_above, "peak scale {peak}");
    // The climb from scale 0 is one step per RTT (about 48 ms here, at least 40 ms of propagation).
    let (dec, inc) = check_sawtooth(&r.trace.feedback, table.top(), Dur::from_millis(40));
    assert!(dec >= 20 && inc >= dec, "decreases {dec}, increases {inc}");
    // Long-run sending rate: a band below/around the capacity (halving a linear scale keeps the
    // mean between half the peak and the peak).
    let rate = sending_rate_bps(&r.trace.sent, Time::from_secs_f64(20.0), Time::from_secs_f64(100.0));
    assert!(rate > 0.55 * capacity.as_bps_f64() && rate < 1.1 * capacity.as_bps_f64(), "sending rate {rate}");
    // The receiver's counts match the link's: every drop is a gap, every dropped datagram a lost
    // frame (one datagram per frame), and at the end (idle after the stop) every frame is decided.
    let s = r.receiver.stats();
    assert!(r.trace.drops > 0);
    assert_eq!(s.lost, r.trace.drops);
    assert_eq!((s.marked, s.late), (0, 0));
    assert_eq!(s.datagrams + r.trace.drops, r.trace.sent.len() as u64);
    assert!(r.receiver.is_idle(), "the receiver goes quiet after the sender stops");
    let frames = r.trace.highest_delivered_frame.unwrap() as u64 + 1;
    assert_eq!(s.frames_lost, r.trace.dropped_frames.iter().filter(|&&f| (f as u64) < frames).count() as u64);
    assert_eq!(s.frames_complete + s.frames_lost, frames);
    // The sender's RTT is the path's: 40 ms propagation, 8 ms serialisation, plus queueing.
    let srtt = r.sender.srtt().unwrap();
    assert!(srtt >= Dur::from_millis(48) && srtt < Dur::from_millis(48 + 90), "srtt {srtt}");
    assert!(r.link.departures.len() <= 10);
}

#[test]
fn closed_loop_constant_rate_fragments_and_counts_lost_frames() {
    let cfg = MappConfig {
        table: ScaleTable::chung_mm_app(),
        pacing: Pacing::ConstantRate { interval: Dur::from_millis(20), max_datagram: Bytes(500) },
        ..Default::default()
    };
    let capacity = Rate(700_000);
    let link = Bottleneck::new(capacity, Dur::from_millis(15), 15, None);
    let r = run(cfg, link, Time::from_secs_f64(100.0), Time::from_secs_f64(110.0));
    // Frames of 2 (750 B) to 6 (2750 B) datagrams.
    let counts: BTreeSet<u16> = r.trace.sent.iter().map(|(_, h, _)| h.frag_count).collect();
    assert!(counts.contains(&2) && counts.contains(&6), "{counts:?}");
    assert!(r.trace.sent.iter().all(|(_, h, l)| l.0 <= 500 && h.frag_index < h.frag_count));
    let (dec, inc) = check_sawtooth(&r.trace.feedback, 4, Dur::from_millis(30));
    assert!(dec >= 20 && inc >= dec, "decreases {dec}, increases {inc}");
    let peak = r.trace.sent.iter().map(|(_, h, _)| h.scale).max().unwrap();
    assert!(peak >= 3, "peak scale {peak}");
    let rate = sending_rate_bps(&r.trace.sent, Time::from_secs_f64(20.0), Time::from_secs_f64(100.0));
    assert!(rate > 0.55 * capacity.as_bps_f64() && rate < 1.15 * capacity.as_bps_f64(), "sending rate {rate}");
    // A frame with a dropped fragment is a lost frame; all others complete.
    let s = r.receiver.stats();
    assert_eq!(s.lost, r.trace.drops);
    let frames = r.trace.highest_delivered_frame.unwrap() as u64 + 1;
    let lost_frames = r.trace.dropped_frames.iter().filter(|&&f| (f as u64) < frames).count() as u64;
    assert!(lost_frames > 0 && lost_frames < r.trace.drops, "drops come in bursts within frames");
    assert_eq!(s.frames_lost, lost_frames);
    assert_eq!(s.frames_complete + s.frames_lost, frames);
}

#[test]
fn closed_loop_with_ecn_marks_saws_without_loss() {
    let cfg = MappConfig { ect: true, jitter: true, ..Default::default() };
    let capacity = Rate(1_000_000);
    let link = Bottleneck::new(capacity, Dur::from_millis(20), 100, Some(5));
    let r = run(cfg, link, Time::from_secs_f64(60.0), Time::from_secs_f64(70.0));
    let s = r.receiver.stats();
    assert_eq!((r.trace.drops, s.lost), (0, 0));
    assert!(s.marked > 0);
    let (dec, _) = check_sawtooth(&r.trace.feedback, 9, Dur::from_millis(40));
    assert!(dec >= 10, "decreases {dec}");
    let rate = sending_rate_bps(&r.trace.sent, Time::from_secs_f64(10.0), Time::from_secs_f64(60.0));
    assert!(rate > 0.55 * capacity.as_bps_f64() && rate < 1.1 * capacity.as_bps_f64(), "sending rate {rate}");
    assert_eq!(s.frames_complete, r.trace.sent.len() as u64);
}

#[test]
fn garbage_datagrams_never_panic_either_end() {
    let mut rng = Rng::from_seed(2024);
    let cfgs = [
        MappConfig::default(),
        MappConfig {
            pacing: Pacing::ConstantRate { interval: Dur::from_millis(20), max_datagram: Bytes(300) },
            reassembly_window: 2,
            idle_limit: 2,
            ..Default::default()
        },
    ];
    for cfg in cfgs {
        let mut s = MappSender::new(cfg.clone(), Rng::from_seed(1)).unwrap();
        let mut r = MappReceiver::new(cfg).unwrap();
        let mut now = Time(1 << 40);
        s.start(now);
        for i in 0..200_000u32 {
            // Mostly forward, sometimes a little backwards.
            now =
                if rng.bernoulli(0.1) { Time(now.0 - rng.below(1_000_000)) } else { now + Dur(rng.below(20_000_000)) };
            let mut b: Vec<u8> = match rng.below(3) {
                // Pure noise.
                0 => (0..rng.below(40)).map(|_| rng.next_u64() as u8).collect(),
                // A valid header with random fields, then some bytes changed.
                1 => {
                    let mut b = vec![];
                    DataHeader {
                        flow: rng.below(2) as u32,
                        flags: rng.below(2) as u8,
                        scale: rng.next_u64() as u8,
                        frag_index: rng.below(4) as u16,
                        frag_count: 1 + rng.below(4) as u16,
                        seq: if rng.bernoulli(0.5) { i } else { rng.next_u64() as u32 },
                        frame: if rng.bernoulli(0.5) { i / 2 } else { rng.next_u64() as u32 },
                        send_time_us: rng.next_u64() as u32,
                        rtt_us: if rng.bernoulli(0.5) { rng.below(300_000) as u32 } else { rng.next_u64() as u32 },
                    }
                    .encode(&mut b);
                    b.resize(b.len() + rng.below(100) as usize, 0);
                    b
                }
                _ => {
                    let mut b = vec![];
                    Feedback {
                        flow: rng.below(2) as u32,
                        scale: rng.next_u64() as u8,
                        flags: 0,
                        echo_time_us: rng.next_u64() as u32,
                        hold_us: rng.next_u64() as u32,
                        highest_seq: if rng.bernoulli(0.5) { i } else { rng.next_u64() as u32 },
                        lost: rng.next_u64() as u32,
                        marked: rng.next_u64() as u32,
                    }
                    .encode(&mut b);
                    b
                }
            };
            if !b.is_empty() && rng.bernoulli(0.3) {
                let k = rng.below(b.len() as u64) as usize;
                b[k] = rng.next_u64() as u8;
            }
            let _ = s.handle_datagram(now, &b, Arrival::default());
            let _ = r.handle_datagram(
                now,
                &b,
                Arrival { ce: rng.bernoulli(0.1), size: Bytes(b.len() as u64), payload: Bytes(0) },
            );
            if let Ok((Message::Data(h), p)) = Message::decode(&b) {
                r.handle_data(now, &h, p.len(), false);
            }
            s.handle_timeout(now);
            r.handle_timeout(now);
            for _ in 0..100 {
                if s.poll_transmit(now).is_none() {
                    break;
                }
            }
            while r.poll_transmit(now).is_some() {}
            let _ = (s.poll_timeout(), r.poll_timeout(), s.scale(), r.scale(), s.stats(), r.stats());
            assert!(s.scale() <= s.config().table.top() && r.scale() <= r.config().table.top());
        }
        assert!(r.stats().datagrams > 10_000);
    }
}
