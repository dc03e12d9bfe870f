//! End-to-end tests: a sender and a sink through a toy network (a rate limit, a fixed delay,
//! an optional DropTail limit, a drop list) built inside the test.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use fairway_core::{Dur, Rate, Time};

use super::tests::{big_window, t};
use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Data(u64, usize),
    Ack(usize),
    SenderTimer,
    SinkTimer,
}

/// Sender -> (optional DropTail queue, rate-limited link, fixed delay) -> sink, and ACKs
/// back over a fixed delay. `drops` lists sequence numbers lost on their first transmission.
struct Net {
    sender: TcpSender,
    sink: TcpSink,
    rate: Rate,
    delay: Dur,
    queue_limit: Option<usize>,
    drops: BTreeSet<u64>,
    /// Sequence numbers whose first retransmission is lost too.
    drops_rexmit: BTreeSet<u64>,
    link_free: Time,
    departures: Vec<Time>,
    segs: Vec<TcpSegment>,
    acks: Vec<TcpAck>,
    events: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    order: u64,
    delivered_new: u64,
    dropped: u64,
    sender_timer: Option<Time>,
    sink_timer: Option<Time>,
    log: Vec<AckLog>,
}

/// What one ACK did to the sender.
#[derive(Debug, Clone)]
struct AckLog {
    cwnd_before: f64,
    cwnd_after: f64,
    ssthresh_after: f64,
    new_ack: bool,
    in_recovery_before: bool,
    fast_retransmit: bool,
    highest_ack_after: i64,
    retransmitted: Vec<u64>,
}

impl Net {
    fn new(cfg: TcpConfig, sink: SinkConfig, drops: &[u64]) -> Net {
        Net {
            sender: TcpSender::new(cfg),
            sink: TcpSink::new(sink),
            rate: Rate(10_000_000),
            delay: Dur::from_millis(50),
            queue_limit: None,
            drops: drops.iter().copied().collect(),
            drops_rexmit: BTreeSet::new(),
            link_free: Time::ZERO,
            departures: Vec::new(),
            segs: Vec::new(),
            acks: Vec::new(),
            events: BinaryHeap::new(),
            order: 0,
            delivered_new: 0,
            dropped: 0,
            sender_timer: None,
            sink_timer: None,
            log: Vec::new(),
        }
    }

    fn push(&mut self, at: Time, ev: Ev) {
        self.order += 1;
        self.events.push(Reverse((at, self.order, ev)));
    }

    fn flush(&mut self, now: Time) -> Vec<u64> {
        let mut retransmitted = Vec::new();
        while let Some(seg) = self.sender.poll_transmit(now) {
            if seg.retransmit {
                retransmitted.push(seg.seq);
            }
            self.departures.retain(|&d| d > now);
            let queued = self.departures.len().saturating_sub(1);
            let rexmit_lost = seg.retransmit && self.drops_rexmit.remove(&seg.seq);
            if rexmit_lost || self.drops.remove(&seg.seq) || self.queue_limit.is_some_and(|q| queued >= q) {
                self.dropped += 1;
                continue;
            }
            let start = self.link_free.max(now);
            self.link_free = start + self.rate.tx_time(seg.size);
            self.departures.push(self.link_free);
            self.segs.push(seg);
            let at = self.link_free + self.delay;
            self.push(at, Ev::Data(seg.seq, self.segs.len() - 1));
        }
        // Schedule a wake-up only when a deadline moves; stale ones are ignored.
        let d = self.sender.poll_timeout();
        if d != self.sender_timer {
            self.sender_timer = d;
            if let Some(d) = d {
                self.push(d, Ev::SenderTimer);
            }
        }
        while let Some(a) = self.sink.poll_transmit(now) {
            self.acks.push(a);
            self.push(now + self.delay, Ev::Ack(self.acks.len() - 1));
        }
        let d = self.sink.poll_timeout();
        if d != self.sink_timer {
            self.sink_timer = d;
            if let Some(d) = d {
                self.push(d, Ev::SinkTimer);
            }
        }
        retransmitted
    }

    fn run(&mut self, until: Time) {
        self.flush(Time::ZERO);
        while let Some(Reverse((now, _, ev))) = self.events.pop() {
            if now > until || self.sender.is_done() {
                break;
            }
            match ev {
                Ev::Data(_, i) => {
                    let seg = self.segs[i];
                    if self.sink.on_segment(now, &seg, false) {
                        self.delivered_new += 1;
                    }
                }
                Ev::Ack(i) => {
                    let a = self.acks[i];
                    let (cwnd_before, high, rec, fr) = (
                        self.sender.cwnd(),
                        self.sender.highest_ack(),
                        self.sender.in_recovery(),
                        self.sender.stats().fast_retransmits,
                    );
                    self.sender.on_ack(now, &a);
                    let retransmitted = self.flush(now);
                    self.log.push(AckLog {
                        cwnd_before,
                        cwnd_after: self.sender.cwnd(),
                        ssthresh_after: self.sender.ssthresh(),
                        new_ack: a.ackno > high,
                        in_recovery_before: rec,
                        fast_retransmit: self.sender.stats().fast_retransmits > fr,
                        highest_ack_after: self.sender.highest_ack(),
                        retransmitted,
                    });
                    continue;
                }
                Ev::SenderTimer => {
                    self.sender_timer = None;
                    self.sender.on_timeout(now);
                }
                Ev::SinkTimer => {
                    self.sink_timer = None;
                    self.sink.on_timeout(now);
                }
            }
            self.flush(now);
        }
    }
}

#[test]
fn end_to_end_finite_transfer_survives_losses() {
    let drops = [0, 1, 5, 17, 18, 19, 60, 61, 62, 63, 150, 299, 300];
    for variant in [TcpVariant::Reno, TcpVariant::NewReno] {
        for sink in [SinkConfig::default(), SinkConfig::delayed()] {
            let cfg = TcpConfig { variant, window: 30, ..TcpConfig::default() };
            let mut net = Net::new(cfg, sink.clone(), &drops);
            net.sender.send(Time::ZERO, Some(300));
            net.run(t(600_000));
            let what = format!("{variant:?} delack={:?}", sink.delayed_ack);
            assert!(net.sender.is_done(), "{what}: {:?}", net.sender.stats());
            // SYN + 300 data packets, each delivered once.
            assert_eq!(net.sink.delivered_in_order(), 301, "{what}");
            assert_eq!(net.delivered_new, 301, "{what}");
            let st = net.sender.stats();
            assert_eq!(net.dropped, drops.len() as u64, "{what}");
            assert!(st.retransmits >= drops.len() as u64, "{what}: {st:?}");
            assert_eq!(st.segments_sent, 301 + st.retransmits, "{what}");
        }
    }
}

#[test]
fn dumbbell_slow_start_overshoot_then_first_recovery() {
    // What the ns-2 cross-check showed, as rules: one flow into a 10-packet DropTail queue at
    // 1 Mb/s, RTT ~100 ms, window_ 100. Slow start adds exactly 1 per new ACK until the
    // overshoot; the third duplicate ACK halves from min(cwnd, window_) (ssthresh truncated,
    // cwnd not) and retransmits the first hole; in recovery every partial ACK retransmits
    // the next hole and nothing else is resent.
    let cfg = TcpConfig { window: 100, ..TcpConfig::default() };
    let mut net = Net::new(cfg, SinkConfig::default(), &[]);
    net.rate = Rate(1_000_000);
    net.queue_limit = Some(10);
    net.sender.send(Time::ZERO, Some(400));
    net.run(t(600_000));
    assert!(net.sender.is_done());
    assert_eq!(net.sink.delivered_in_order(), 401);
    assert!(net.dropped >= 2, "the overshoot loses packets: {}", net.dropped);
    let fr = net.log.iter().position(|l| l.fast_retransmit).expect("a fast retransmit");
    // The SYN-ACK sets cwnd to windowInit_; after it, +1 per new ACK.
    assert_eq!(net.log[0].cwnd_after, 2.0);
    for l in &net.log[1..fr] {
        if l.new_ack {
            assert_eq!(l.cwnd_after, l.cwnd_before + 1.0, "{l:?}");
        } else {
            assert_eq!(l.cwnd_after, l.cwnd_before, "{l:?}");
        }
    }
    let l = &net.log[fr];
    let w = l.cwnd_before.min(100.0);
    assert!(w > 10.0, "{l:?}");
    assert_eq!(l.ssthresh_after, (w / 2.0).floor());
    assert_eq!(l.cwnd_after, w / 2.0);
    assert_eq!(l.retransmitted, vec![(l.highest_ack_after + 1) as u64]);
    for l in net.log[fr + 1..].iter().take_while(|l| l.in_recovery_before) {
        if l.new_ack && !l.retransmitted.is_empty() {
            // A partial ACK: exactly the next hole.
            assert_eq!(l.retransmitted, vec![(l.highest_ack_after + 1) as u64], "{l:?}");
        } else {
            assert!(l.retransmitted.is_empty(), "{l:?}");
        }
    }
}

#[test]
fn reno_times_out_where_newreno_recovers_two_losses_in_one_window() {
    let mut results = Vec::new();
    for variant in [TcpVariant::Reno, TcpVariant::NewReno] {
        let cfg = TcpConfig { variant, ..big_window() };
        let mut net = Net::new(cfg, SinkConfig::default(), &[40, 43]);
        net.sender.send(Time::ZERO, Some(120));
        net.run(t(60_000));
        assert!(net.sender.is_done(), "{variant:?}");
        results.push(net.sender.stats());
    }
    let (reno, newreno) = (results[0], results[1]);
    // Reno: the first new ACK ends recovery; the duplicates for packet 43 then fall inside
    // `recover` (ns-2 bugFix_), so only the timer recovers it.
    assert_eq!(reno.fast_retransmits, 1);
    assert_eq!(reno.timeouts, 1);
    // NewReno: the partial ACK retransmits 43 at once; the full ACK ends recovery.
    assert_eq!(newreno.fast_retransmits, 1);
    assert_eq!(newreno.partial_ack_retransmits, 1);
    assert_eq!(newreno.timeouts, 0);
    assert_eq!(newreno.retransmits, 2);
}

fn sack_sink() -> SinkConfig {
    SinkConfig { sack: true, ..SinkConfig::default() }
}

#[test]
fn sack_recovers_many_losses_in_one_window_without_a_timeout() {
    // Four losses in one window: NewReno resends one hole per round trip, SACK all of them in
    // the first, each once, and neither waits for the timer.
    let drops = [40, 43, 47, 52];
    let cfg = TcpConfig { variant: TcpVariant::Sack, ..big_window() };
    let mut net = Net::new(cfg, sack_sink(), &drops);
    net.sender.send(Time::ZERO, Some(120));
    net.run(t(60_000));
    assert!(net.sender.is_done());
    assert_eq!(net.sink.delivered_in_order(), 121);
    let st = net.sender.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0), "{st:?}");
    assert_eq!(st.retransmits, drops.len() as u64, "each hole resent once: {st:?}");
    // Every hole went out before the first partial ACK could come back: within one round
    // trip of the fast retransmit.
    let fr = net.log.iter().position(|l| l.fast_retransmit).unwrap();
    let resent: Vec<u64> = net.log[fr..].iter().flat_map(|l| l.retransmitted.clone()).collect();
    assert_eq!(resent, drops.to_vec());
    let newreno = {
        let cfg = TcpConfig { variant: TcpVariant::NewReno, ..big_window() };
        let mut n = Net::new(cfg, SinkConfig::default(), &drops);
        n.sender.send(Time::ZERO, Some(120));
        n.run(t(60_000));
        n.sender.stats()
    };
    // NewReno resends one hole per partial ACK, a round trip each, unless the timer fires
    // first.
    assert!(newreno.timeouts >= 1 || newreno.partial_ack_retransmits == drops.len() as u64 - 1, "{newreno:?}");
}

#[test]
fn sack_survives_losses_of_retransmissions_and_of_everything_in_flight() {
    // Losses spread over the transfer, bursts included; the timer recovers what SACK cannot
    // (the SYN, a whole window), and every packet arrives exactly once.
    let drops = [0, 1, 5, 17, 18, 19, 60, 61, 62, 63, 150, 299, 300];
    for sink in [sack_sink(), SinkConfig { sack: true, ..SinkConfig::delayed() }] {
        let cfg = TcpConfig { variant: TcpVariant::Sack, window: 30, ..TcpConfig::default() };
        let mut net = Net::new(cfg, sink.clone(), &drops);
        net.sender.send(Time::ZERO, Some(300));
        net.run(t(600_000));
        let what = format!("delack={:?}", sink.delayed_ack);
        assert!(net.sender.is_done(), "{what}: {:?}", net.sender.stats());
        assert_eq!(net.sink.delivered_in_order(), 301, "{what}");
        assert_eq!(net.delivered_new, 301, "{what}");
        let st = net.sender.stats();
        assert_eq!(st.segments_sent, 301 + st.retransmits, "{what}");
    }
}

#[test]
fn sack_blocks_report_the_newest_range_first_and_repeat_older_ones() {
    // RFC 2018 §4: the first block holds the packet that triggered the ACK; earlier blocks
    // follow, most recent first. Packets 0-2 arrive, 3 is lost, 4-5 arrive, 6 is lost, 7
    // arrives, then 9.
    let mut sink = TcpSink::new(sack_sink());
    for s in [0, 1, 2, 4, 5, 7, 9] {
        sink.on_data(Time::ZERO, s, false, Time::ZERO);
    }
    let acks: Vec<TcpAck> = std::iter::from_fn(|| sink.poll_transmit(Time::ZERO)).collect();
    let blocks: Vec<Vec<(i64, i64)>> = acks.iter().map(|a| a.sack.iter().collect()).collect();
    assert_eq!(blocks[2], vec![]);
    assert_eq!(blocks[3], vec![(4, 5)]);
    assert_eq!(blocks[4], vec![(4, 6)]);
    assert_eq!(blocks[5], vec![(7, 8), (4, 6)]);
    assert_eq!(blocks[6], vec![(9, 10), (7, 8), (4, 6)]);
    // Each block is 8 bytes more on the wire.
    assert_eq!(acks[6].size, Bytes(40 + 3 * 8));
    // The hole at 3 filled: the blocks above the cumulative ACK remain.
    sink.on_data(Time::ZERO, 3, false, Time::ZERO);
    let a = sink.poll_transmit(Time::ZERO).unwrap();
    assert_eq!(a.ackno, 5);
    assert_eq!(a.sack.iter().collect::<Vec<_>>(), vec![(9, 10), (7, 8)]);
}

fn rfc6675(prr: Option<PrrBound>, timestamps: bool) -> TcpConfig {
    TcpConfig { variant: TcpVariant::Sack, sack_recovery: SackRecovery::Rfc6675, prr, timestamps, ..big_window() }
}

#[test]
fn rfc6675_recovers_many_losses_in_one_window_and_prr_ends_at_ssthresh() {
    // The four losses of sack_recovers_many_losses_in_one_window_without_a_timeout: RFC 6675
    // finds each lost once three packets above it are SACKed and resends each once, with or
    // without PRR, in one recovery.
    let drops = [40, 43, 47, 52];
    for prr in [None, Some(PrrBound::Ssrb), Some(PrrBound::Crb), Some(PrrBound::Linux)] {
        for timestamps in [false, true] {
            let mut net = Net::new(rfc6675(prr, timestamps), sack_sink(), &drops);
            net.sender.send(Time::ZERO, Some(120));
            net.run(t(60_000));
            let what = format!("prr {prr:?} timestamps {timestamps}");
            assert!(net.sender.is_done(), "{what}");
            assert_eq!(net.sink.delivered_in_order(), 121, "{what}");
            let st = net.sender.stats();
            assert_eq!((st.fast_retransmits, st.timeouts), (1, 0), "{what}: {st:?}");
            let fr = net.log.iter().position(|l| l.fast_retransmit).unwrap();
            let resent: Vec<u64> = net.log[fr..].iter().flat_map(|l| l.retransmitted.clone()).collect();
            assert_eq!(resent, drops.to_vec(), "{what}");
            // The ACK that ends recovery: with PRR cwnd is then ssthresh (RFC 6937 §3);
            // without, what the congestion control's cut left (ns-2's AIMD: half the window,
            // unrounded, over a whole-packet ssthresh).
            let end = net.log.windows(2).find(|w| w[0].in_recovery_before && !w[1].in_recovery_before).unwrap();
            if prr.is_some() {
                assert_eq!(end[0].cwnd_after, end[0].ssthresh_after, "{what}: {:?}", end[0]);
            }
            assert!(end[0].highest_ack_after >= 52, "{what}");
            // With timestamps every ACK of new data is an RTT sample, not one per round trip.
            let acks_new = net.log.iter().filter(|l| l.new_ack).count() as u64;
            if timestamps {
                assert_eq!(st.rtt_samples, acks_new, "{what}");
            } else {
                assert!(st.rtt_samples < acks_new / 4, "{what}: {st:?}");
            }
        }
    }
}

#[test]
fn rfc6675_survives_losses_of_retransmissions_and_of_everything_in_flight() {
    // The losses of sack_survives_losses_of_retransmissions_and_of_everything_in_flight, with
    // RFC 6675 (and PRR) keeping the scoreboard across timeouts: every packet arrives once.
    let drops = [0, 1, 5, 17, 18, 19, 60, 61, 62, 63, 150, 299, 300];
    for prr in [None, Some(PrrBound::Ssrb), Some(PrrBound::Linux)] {
        for sink in
            [sack_sink(), SinkConfig { sack: true, delayed_ack: Some(Dur::from_millis(40)), ..SinkConfig::default() }]
        {
            let cfg = TcpConfig { window: 30, ..rfc6675(prr, true) };
            let mut net = Net::new(cfg, sink.clone(), &drops);
            net.sender.send(Time::ZERO, Some(300));
            net.run(t(600_000));
            let what = format!("prr {prr:?} delack={:?}", sink.delayed_ack);
            assert!(net.sender.is_done(), "{what}: {:?}", net.sender.stats());
            assert_eq!(net.sink.delivered_in_order(), 301, "{what}");
            assert_eq!(net.delivered_new, 301, "{what}");
            let st = net.sender.stats();
            assert_eq!(st.segments_sent, 301 + st.retransmits, "{what}");
        }
    }
}

#[test]
fn linux_cubic_hystart_leaves_slow_start_before_the_queue_overflows() {
    // One flow, 10 Mb/s (1040-byte packets 0.83 ms apart), 100 ms base RTT, 80 packets of queue.
    // In slow start each ACK releases two packets, so a round's queue grows by one per ACK. The
    // round that starts at cwnd 64 brings 64 ACKs 0.83 ms apart: Linux's HyStart sees that train
    // outlast half the minimum RTT (about 50 ms) after 61 of them and sets ssthresh = cwnd, about
    // 64 + 61 = 125, with the queue near 61 packets, under the limit. Without HyStart the round
    // at 128 overflows the queue.
    let run = |hystart: bool| {
        let cfg = TcpConfig {
            cc: "cubic",
            cc_flavor: "linux",
            hystart: Some(hystart),
            timestamps: true,
            window: 1000,
            ..TcpConfig::default()
        };
        let mut net = Net::new(cfg, SinkConfig::default(), &[]);
        net.queue_limit = Some(80);
        net.sender.send(Time::ZERO, Some(1000));
        net.run(t(60_000));
        assert!(net.sender.is_done());
        let exit = net.log.iter().find(|l| l.ssthresh_after < 1000.0).map(|l| l.cwnd_before);
        (net.dropped, exit)
    };
    let (dropped, exit) = run(true);
    assert_eq!(dropped, 0);
    let exit = exit.expect("HyStart ended slow start");
    assert!((120.0..=130.0).contains(&exit), "{exit}");
    let (dropped, _) = run(false);
    assert!(dropped > 0);
}

// ---- RACK-TLP (RFC 8985) ---------------------------------------------------------------------

fn rack(tlp: bool) -> TcpConfig {
    TcpConfig { window: 1000, ..super::rack_tests::rack_cfg(tlp) }
}

#[test]
fn rack_resends_a_lost_retransmission_without_a_timeout() {
    // 40 and 43 lost, and 40's retransmission too. RACK finds the lost retransmission when a
    // packet sent after it is delivered and its deadline passes; RFC 6675 alone has already
    // moved HighRxt past it and waits for the RTO.
    let run = |cfg: TcpConfig| {
        let mut net = Net::new(cfg, sack_sink(), &[40, 43]);
        net.drops_rexmit.insert(40);
        net.sender.send(Time::ZERO, Some(200));
        net.run(t(60_000));
        assert!(net.sender.is_done());
        assert_eq!(net.sink.delivered_in_order(), 201);
        let resent40 = net.log.iter().flat_map(|l| l.retransmitted.iter()).filter(|&&s| s == 40).count();
        (net.sender.stats(), resent40)
    };
    let (st, resent40) = run(rack(true));
    assert_eq!((st.timeouts, resent40), (0, 2), "{st:?}");
    assert_eq!(st.fast_retransmits, 1, "one recovery: {st:?}");
    let (st, _) = run(rack(false));
    assert_eq!(st.timeouts, 0, "RACK without TLP: {st:?}");
    let (st, _) = run(TcpConfig { rack: false, tlp: false, ..rack(false) });
    assert!(st.timeouts >= 1, "RFC 6675 without RACK: {st:?}");
}

#[test]
fn a_tail_loss_probe_recovers_the_last_packet_without_a_timeout() {
    // The last packet of a transfer is lost: no packet after it can be SACKed, so only the
    // timer or a probe finds it. The probe (nothing new to send: the last packet again) is
    // acknowledged with everything, and the transfer ends without an RTO.
    let run = |cfg: TcpConfig| {
        let mut net = Net::new(cfg, sack_sink(), &[60]);
        net.sender.send(Time::ZERO, Some(60));
        net.run(t(60_000));
        assert!(net.sender.is_done());
        assert_eq!(net.sink.delivered_in_order(), 61);
        (net.sender.stats(), net.sender.tlp_probes(), net.log.last().map(|l| l.retransmitted.clone()))
    };
    let (st, (probes, _), _) = run(rack(true));
    assert_eq!((st.timeouts, st.retransmits, probes), (0, 1, 1), "{st:?}");
    let (st, (probes, _), _) = run(rack(false));
    assert_eq!((st.timeouts, probes), (1, 0), "without TLP the RTO recovers it: {st:?}");
}

#[test]
fn a_probe_that_repaired_a_loss_cuts_the_window_once_more_data_is_acknowledged() {
    // RFC 8985 §7.4: the probe resent the lost last packet; when an ACK goes beyond the
    // episode (new data sent later), the loss is counted and the window cut, as a loss.
    let mut net = Net::new(rack(true), sack_sink(), &[60]);
    net.sender.send(Time::ZERO, Some(60));
    net.run(t(60_000));
    assert_eq!(net.sender.tlp_probes(), (1, 0));
    let cwnd = net.sender.cwnd();
    let now = t(60_000);
    net.sender.send(now, Some(5));
    net.flush(now);
    net.run(t(120_000));
    assert!(net.sender.is_done());
    assert_eq!(net.sender.tlp_probes(), (1, 1));
    assert!(net.sender.ssthresh() < cwnd, "{} {}", net.sender.ssthresh(), cwnd);
    assert_eq!(net.sender.stats().timeouts, 0);
}

#[test]
fn rack_survives_losses_of_retransmissions_and_of_everything_in_flight() {
    // rfc6675_survives_losses_of_retransmissions_and_of_everything_in_flight with RACK-TLP:
    // every packet arrives, each once.
    let drops = [0, 1, 5, 17, 18, 19, 60, 61, 62, 63, 150, 299, 300];
    for tlp in [false, true] {
        for sink in
            [sack_sink(), SinkConfig { sack: true, delayed_ack: Some(Dur::from_millis(40)), ..SinkConfig::default() }]
        {
            let cfg = TcpConfig { window: 30, ..rack(tlp) };
            let mut net = Net::new(cfg, sink.clone(), &drops);
            for s in [5, 18, 61, 150] {
                net.drops_rexmit.insert(s);
            }
            net.sender.send(Time::ZERO, Some(300));
            net.run(t(600_000));
            let what = format!("tlp {tlp} delack={:?}", sink.delayed_ack);
            assert!(net.sender.is_done(), "{what}: {:?}", net.sender.stats());
            assert_eq!(net.sink.delivered_in_order(), 301, "{what}");
            assert_eq!(net.delivered_new, 301, "{what}");
        }
    }
}

#[test]
fn bbr_keeps_its_own_window_through_prr_recovery() {
    // BBR's ssthresh stays at 2^31 - 1 (Linux's TCP_INFINITE_SSTHRESH). With RFC 6675 recovery
    // and PRR, the end of recovery's cwnd = ssthresh (RFC 6937 §3) would make its window
    // unbounded; as Linux does for a `cong_control` algorithm, the sender leaves BBR's window to
    // BBR: it never exceeds what BBR's model allows (a few BDPs here, far under 10 000).
    let drops = [40, 43, 47, 52];
    for prr in [Some(PrrBound::Ssrb), Some(PrrBound::Linux)] {
        let cfg = TcpConfig { cc: "bbr", ..rfc6675(prr, true) };
        let mut net = Net::new(cfg, sack_sink(), &drops);
        net.sender.send(Time::ZERO, Some(300));
        net.run(t(600_000));
        assert!(net.sender.is_done(), "prr {prr:?}");
        assert_eq!(net.sender.stats().fast_retransmits, 1, "prr {prr:?}");
        let end = net.log.windows(2).find(|w| w[0].in_recovery_before && !w[1].in_recovery_before).unwrap();
        assert!(end[0].ssthresh_after > 1e9, "BBR's ssthresh stays unbounded: {:?}", end[0]);
        let most = net.log.iter().map(|l| l.cwnd_after).fold(0.0, f64::max);
        assert!(most < 10_000.0, "prr {prr:?}: cwnd reached {most}");
    }
}
