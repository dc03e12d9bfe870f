//! Unit tests for the TCP sender, driven with synthetic times. The sink's tests are in
//! `sink_tests.rs`, the end-to-end ones through a toy network in `net_tests.rs`.

use fairway_core::{Bytes, Dur, Time};

use super::*;

pub(super) const MS: u64 = 1_000_000;

pub(super) fn t(ms: u64) -> Time {
    Time(ms * MS)
}

pub(super) fn ack(n: i64) -> TcpAck {
    TcpAck { ackno: n, ece: false, ts_echo: Time::ZERO, size: Bytes(40), sack: Default::default() }
}

pub(super) fn ece_ack(n: i64) -> TcpAck {
    TcpAck { ece: true, ..ack(n) }
}

pub(super) fn drain(s: &mut TcpSender, now: Time) -> Vec<TcpSegment> {
    let mut v = Vec::new();
    while let Some(seg) = s.poll_transmit(now) {
        v.push(seg);
    }
    v
}

pub(super) fn seqs(v: &[TcpSegment]) -> Vec<u64> {
    v.iter().map(|s| s.seq).collect()
}

/// An unlimited sender past the SYN exchange (RTT 100 ms): returns it, the time, and the
/// first data segments (1 and 2).
pub(super) fn established(cfg: TcpConfig) -> (TcpSender, Time, Vec<TcpSegment>) {
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    let syn = drain(&mut s, t(0));
    assert_eq!(seqs(&syn), vec![0]);
    assert!(syn[0].syn && syn[0].size == Bytes(40));
    s.on_ack(t(100), &ack(0));
    let first = drain(&mut s, t(100));
    (s, t(100), first)
}

/// A lossless pipe: one RTT later every segment of `round` is acked, one ACK each, in order.
pub(super) fn next_round(s: &mut TcpSender, now: &mut Time, round: &[TcpSegment]) -> Vec<TcpSegment> {
    *now += Dur::from_millis(100);
    let mut out = Vec::new();
    for seg in round {
        s.on_ack(*now, &ack(seg.seq as i64));
        out.extend(drain(s, *now));
    }
    out
}

pub(super) fn big_window() -> TcpConfig {
    TcpConfig { window: 1000, ..TcpConfig::default() }
}

#[test]
fn syn_then_slow_start_doubles_per_rtt_from_window_init() {
    let (mut s, mut now, mut round) = established(big_window());
    // ns-2 delay_growth_: cwnd = windowInit_ once the SYN is acked.
    assert_eq!(s.cwnd(), 2.0);
    assert_eq!(seqs(&round), vec![1, 2]);
    for k in 2..=7u32 {
        round = next_round(&mut s, &mut now, &round);
        // +1 per ACK: cwnd and the packets sent per RTT double.
        assert_eq!(round.len(), 1 << k, "round {k}");
        assert_eq!(s.cwnd(), (1u64 << k) as f64);
    }
    assert_eq!(s.stats().retransmits, 0);
}

#[test]
fn congestion_avoidance_adds_about_one_packet_per_rtt() {
    let cfg = TcpConfig { initial_ssthresh: Some(8), ..big_window() };
    let (mut s, mut now, mut round) = established(cfg);
    round = next_round(&mut s, &mut now, &round); // cwnd 4
    round = next_round(&mut s, &mut now, &round); // cwnd 8 = ssthresh: avoidance from here
    assert_eq!(s.cwnd(), 8.0);
    for _ in 0..20 {
        let before = s.cwnd();
        round = next_round(&mut s, &mut now, &round);
        let grew = s.cwnd() - before;
        // int(cwnd) ACKs of 1/cwnd each: a little under one packet per RTT.
        assert!(grew > 0.8 && grew <= 1.0, "grew {grew} from {before}");
    }
    assert!(s.cwnd() > 8.0 + 17.0 && s.cwnd() < 8.0 + 20.0, "{}", s.cwnd());
}

#[test]
fn window_never_exceeds_receiver_window() {
    let cfg = TcpConfig { window: 8, ..TcpConfig::default() };
    let (mut s, mut now, mut round) = established(cfg);
    for _ in 0..12 {
        round = next_round(&mut s, &mut now, &round);
        assert!(round.len() <= 8);
        assert!(s.outstanding() <= 8);
        assert!(s.window() <= 8);
    }
    assert_eq!(round.len(), 8);
    // ns-2: cwnd keeps growing while the receiver window limits sending.
    assert!(s.cwnd() > 8.0);
}

/// Brings an unlimited sender to cwnd 16 with packets 15..=30 in flight.
fn sixteen_in_flight(cfg: TcpConfig) -> (TcpSender, Time, Vec<TcpSegment>) {
    let (mut s, mut now, mut round) = established(cfg);
    for _ in 0..3 {
        round = next_round(&mut s, &mut now, &round);
    }
    assert_eq!(s.cwnd(), 16.0);
    assert_eq!(seqs(&round), (15..=30).collect::<Vec<_>>());
    (s, now, round)
}

#[test]
fn three_dupacks_trigger_one_fast_retransmit_and_halve() {
    for variant in [TcpVariant::Reno, TcpVariant::NewReno] {
        let (mut s, now, _) = sixteen_in_flight(TcpConfig { variant, ..big_window() });
        let now = now + Dur::from_millis(100);
        // Packet 15 lost: 16..=30 each bring a duplicate ACK for 14.
        let mut sent = Vec::new();
        for i in 1..=2 {
            s.on_ack(now, &ack(14));
            let out = drain(&mut s, now);
            // RFC 3042 limited transmit: one new packet per early duplicate.
            assert_eq!(seqs(&out), vec![30 + i]);
        }
        s.on_ack(now, &ack(14));
        let out = drain(&mut s, now);
        assert_eq!(seqs(&out), vec![15]);
        assert!(out[0].retransmit);
        assert_eq!(s.ssthresh(), 8.0);
        assert_eq!(s.cwnd(), 8.0);
        assert!(s.in_recovery());
        for _ in 4..=15 {
            s.on_ack(now, &ack(14));
            sent.extend(drain(&mut s, now));
        }
        // No second retransmission; inflation (8 + dupacks) lets new data out once it
        // exceeds the 18 packets in flight.
        assert!(sent.iter().all(|x| !x.retransmit && x.seq > 32), "{variant:?} {sent:?}");
        assert_eq!(sent.len(), 5, "{variant:?}");
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.stats().retransmits, 1);
        assert_eq!(s.cwnd(), 8.0);
        // The retransmission fills the hole: a full ACK ends recovery at cwnd = ssthresh,
        // then congestion avoidance.
        s.on_ack(now + Dur::from_millis(100), &ack(32));
        assert!(!s.in_recovery());
        assert_eq!(s.window(), 8);
        assert_eq!(s.cwnd(), 8.0 + 1.0 / 8.0);
    }
}

#[test]
fn timeout_sets_cwnd_to_one_and_goes_back_n() {
    let (mut s, _, _) = sixteen_in_flight(big_window());
    let deadline = s.poll_timeout().expect("timer armed");
    // A stale wake-up does nothing.
    s.on_timeout(Time(deadline.0 - MS));
    assert!(drain(&mut s, deadline).is_empty());
    s.on_timeout(deadline);
    let out = drain(&mut s, deadline);
    assert_eq!(seqs(&out), vec![15]);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 8.0);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(s.backoff(), 2);
    // Slow start again from the first unacknowledged packet, resending what follows it.
    let later = deadline + Dur::from_millis(100);
    s.on_ack(later, &ack(15));
    let out = drain(&mut s, later);
    assert_eq!(seqs(&out), vec![16, 17]);
    assert!(out.iter().all(|x| x.retransmit));
    assert_eq!(s.cwnd(), 2.0);
}

#[test]
fn rto_backoff_doubles_to_its_cap() {
    let (mut s, _, first) = established(big_window());
    assert_eq!(first.len(), 2);
    // One sample of 100 ms (10 ticks): srtt 100, rttvar 50, RTO 300 ms, armed at 100 ms.
    assert_eq!(s.srtt(), Some(Dur::from_millis(100)));
    assert_eq!(s.rto(), Dur::from_millis(300));
    let mut at = s.poll_timeout().unwrap();
    assert_eq!(at, t(400));
    let mut gaps = Vec::new();
    for _ in 0..11 {
        s.on_timeout(at);
        let next = s.poll_timeout().unwrap();
        gaps.push((next - at).as_nanos() / MS);
        at = next;
    }
    // RFC 6298 §5.5 doubling; ns-2 keeps doubling past 64 while under maxrto_, then caps.
    assert_eq!(gaps, vec![600, 1200, 2400, 4800, 9600, 19200, 38400, 60000, 60000, 60000, 60000]);
    assert_eq!(s.backoff(), 256);
    assert_eq!(s.stats().timeouts, 11);
}

#[test]
fn karn_skips_samples_from_retransmitted_segments() {
    let mut s = TcpSender::new(TcpConfig::default());
    s.send(t(0), None);
    drain(&mut s, t(0));
    // The SYN is lost: the initial RTO of 3 s fires.
    assert_eq!(s.poll_timeout(), Some(t(3000)));
    s.on_timeout(t(3000));
    let out = drain(&mut s, t(3000));
    assert!(out[0].syn && out[0].retransmit);
    // Its ACK comes 100 ms later: no sample from a retransmission, backoff kept.
    s.on_ack(t(3100), &ack(0));
    assert_eq!(s.srtt(), None);
    assert_eq!(s.backoff(), 2);
    // ns-2 bugfix_ss_: a lost first packet means an initial window of 1.
    assert_eq!(s.cwnd(), 1.0);
    let out = drain(&mut s, t(3100));
    assert_eq!(seqs(&out), vec![1]);
    // The next new packet is timed: a sample, and the backoff ends.
    s.on_ack(t(3180), &ack(1));
    assert_eq!(s.srtt(), Some(Dur::from_millis(80)));
    assert_eq!(s.backoff(), 1);
}

#[test]
fn rto_honours_min_rto_and_tick() {
    let rto_after = |cfg: TcpConfig, rtt_ms: u64| {
        let mut s = TcpSender::new(cfg);
        s.send(t(0), None);
        drain(&mut s, t(0));
        s.on_ack(t(rtt_ms), &ack(0));
        (s.srtt(), s.rto())
    };
    // 40 ms: srtt 40, rttvar 20, srtt + 4 rttvar = 120 ms, below minrto_ 200 ms.
    assert_eq!(rto_after(TcpConfig::default(), 40), (Some(Dur::from_millis(40)), Dur::from_millis(200)));
    let no_min = TcpConfig { min_rto: Dur::ZERO, ..TcpConfig::default() };
    assert_eq!(rto_after(no_min.clone(), 40).1, Dur::from_millis(120));
    // Samples are whole ticks of the sender's clock: 45 ms is 4 ticks at phase 0...
    assert_eq!(rto_after(no_min.clone(), 45).0, Some(Dur::from_millis(40)));
    // ...and 5 ticks if the sender's clock runs 6 ms ahead (ns-2 boot_time_).
    let phased = TcpConfig { tick_phase: Dur::from_millis(6), ..no_min.clone() };
    assert_eq!(rto_after(phased, 45).0, Some(Dur::from_millis(50)));
    // Never below two ticks.
    let tiny = TcpConfig { initial_rto: Dur::from_millis(1), ..no_min };
    let mut s = TcpSender::new(tiny);
    s.send(t(0), None);
    assert_eq!(s.poll_timeout(), Some(t(20)));
}

#[test]
fn ecn_echo_halves_once_per_window_without_retransmitting() {
    let cfg = TcpConfig { ecn: true, ..big_window() };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    let syn = drain(&mut s, t(0));
    assert!(syn[0].ece && !syn[0].ect);
    // The SYN-ACK echoes ECN (negotiation): no reaction.
    s.on_ack(t(100), &ece_ack(0));
    assert_eq!(s.stats().ecn_reductions, 0);
    let mut now = t(100);
    let mut round = drain(&mut s, now);
    assert!(round.iter().all(|x| x.ect));
    for _ in 0..3 {
        round = next_round(&mut s, &mut now, &round);
    }
    assert_eq!(s.cwnd(), 16.0);
    assert_eq!(seqs(&round), (15..=30).collect::<Vec<_>>());
    now += Dur::from_millis(100);
    // First ECN-Echo: halve cwnd and ssthresh, retransmit nothing.
    s.on_ack(now, &ece_ack(15));
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(s.ssthresh(), 8.0);
    assert!(drain(&mut s, now).is_empty());
    // More echoes for the same window: no further cut, and an ECN-Echo ACK opens nothing.
    for n in 16..=30 {
        s.on_ack(now, &ece_ack(n));
        assert_eq!(s.cwnd(), 8.0);
        let out = drain(&mut s, now);
        assert!(out.iter().all(|x| !x.retransmit && x.seq > 30));
    }
    assert_eq!(s.stats().ecn_reductions, 1);
    assert_eq!(s.stats().retransmits, 0);
    // The first packet after the cut carried CWR.
    // (It went out on the ACK for 23: 15 + 8 = 23 is the new right edge.)
    let mut s2 = s.clone();
    s2.on_ack(now, &ack(31));
    assert_eq!(s2.cwnd(), 8.0 + 1.0 / 8.0);
    // An echo beyond the reduced window cuts again.
    let later = now + Dur::from_millis(100);
    let top = s.max_seq_sent();
    s.on_ack(later, &ece_ack(top));
    assert_eq!(s.stats().ecn_reductions, 2);
    assert_eq!(s.cwnd(), 4.0);
}

#[test]
fn cwr_is_set_on_the_first_packet_after_an_ecn_cut() {
    let (mut s, mut now, mut round) = established(TcpConfig { ecn: true, ..big_window() });
    round = next_round(&mut s, &mut now, &round);
    assert_eq!(seqs(&round), vec![3, 4, 5, 6]);
    now += Dur::from_millis(100);
    s.on_ack(now, &ece_ack(3)); // cwnd 4 -> 2: nothing may be sent
    assert!(drain(&mut s, now).is_empty());
    for n in 4..=6 {
        s.on_ack(now, &ack(n));
    }
    let out = drain(&mut s, now);
    assert!(!out.is_empty());
    assert!(out[0].cwr && out[0].ect);
    assert!(out[1..].iter().all(|x| !x.cwr));
}

#[test]
fn finite_transfer_is_done_only_when_all_acked() {
    let mut s = TcpSender::new(TcpConfig::default());
    assert!(s.is_done(), "nothing to send yet");
    s.send(t(0), Some(5));
    assert!(!s.is_done());
    drain(&mut s, t(0));
    s.on_ack(t(100), &ack(0));
    assert_eq!(seqs(&drain(&mut s, t(100))), vec![1, 2]);
    s.on_ack(t(200), &ack(1));
    s.on_ack(t(200), &ack(2));
    assert_eq!(seqs(&drain(&mut s, t(200))), vec![3, 4, 5]);
    s.on_ack(t(300), &ack(4));
    assert!(!s.is_done());
    s.on_ack(t(300), &ack(5));
    assert!(s.is_done());
    assert!(drain(&mut s, t(300)).is_empty());
    // The timer still fires once (ns-2 slow-start restart: cwnd back to 1), then stops.
    let d = s.poll_timeout().unwrap();
    s.on_timeout(d);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(s.stats().timeouts, 0);
    // More data later re-arms it.
    s.send(d, Some(1));
    assert_eq!(seqs(&drain(&mut s, d)), vec![6]);
    assert!(s.poll_timeout().is_some() && !s.is_done());
}

/// ns-2's timer goes on firing every RTO while the sender is idle; fairway turns it off until an
/// input could make a firing matter. An ECN-Echo that comes while it is off takes cwnd below one
/// packet (ns-2's `slowdown` has no floor), so data offered later cannot go until a firing
/// restores cwnd: the timer must be back, at the firing ns-2's series has next. (Found by the
/// `tcp` fuzz target: a transfer that stalled for good.)
#[test]
fn an_ecn_echo_while_idle_brings_back_the_idle_timer() {
    let mut s = TcpSender::new(TcpConfig { ecn: true, ..TcpConfig::default() });
    s.send(t(0), Some(1));
    drain(&mut s, t(0));
    s.on_ack(t(100), &ack(0));
    assert_eq!(seqs(&drain(&mut s, t(100))), vec![1]);
    s.on_ack(t(200), &ack(1));
    assert!(s.is_done());
    // The idle firing (slow-start restart), after which the timer is off.
    let first = s.poll_timeout().unwrap();
    s.on_timeout(first);
    assert_eq!((s.cwnd(), s.poll_timeout()), (1.0, None));
    let every = s.rto();
    // Two and a half RTOs on, a duplicate ACK with ECN-Echo: cwnd halves, below one packet.
    let late = first + Dur(every.0 * 5 / 2);
    s.on_ack(late, &ece_ack(1));
    assert_eq!(s.cwnd(), 0.5);
    assert_eq!(s.stats().ecn_reductions, 1);
    // ns-2's timer would fire next at first + 3 RTO.
    let next = first + Dur(every.0 * 3);
    assert_eq!(s.poll_timeout(), Some(next));
    // New data waits for it: no window until the firing sets cwnd back to one packet.
    s.send(late, Some(1));
    assert!(drain(&mut s, late).is_empty());
    assert_eq!(s.poll_timeout(), Some(next));
    s.on_timeout(next);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(seqs(&drain(&mut s, next)), vec![2]);
    s.on_ack(next + Dur::from_millis(100), &ack(2));
    assert!(s.is_done());
}

#[test]
fn without_syn_packet_zero_is_data() {
    let cfg = TcpConfig { syn: false, delay_growth: false, ..TcpConfig::default() };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), Some(3));
    let out = drain(&mut s, t(0));
    assert_eq!(seqs(&out), vec![0, 1]);
    // ns-2 quirk: packet 0 never gets the header added.
    assert_eq!(out[0].size, Bytes(1000));
    assert_eq!(out[1].size, Bytes(1040));
    s.on_ack(t(100), &ack(0));
    s.on_ack(t(100), &ack(1));
    s.on_ack(t(200), &ack(2));
    assert!(s.is_done());
}

#[test]
fn ack_for_never_sent_data_is_ignored() {
    let mut fresh = TcpSender::new(TcpConfig::default());
    fresh.on_ack(t(1), &ack(7));
    fresh.on_ack(t(1), &ack(-9));
    assert_eq!(fresh.stats().acks_ignored, 2);
    assert!(drain(&mut fresh, t(1)).is_empty());
    assert_eq!(fresh.poll_timeout(), None);

    let (mut s, now, _) = established(big_window());
    let (cwnd, high) = (s.cwnd(), s.highest_ack());
    s.on_ack(now, &ack(1_000_000));
    s.on_ack(now, &ece_ack(i64::MAX));
    s.on_ack(now, &ack(i64::MIN));
    assert_eq!((s.cwnd(), s.highest_ack()), (cwnd, high));
    assert!(drain(&mut s, now).is_empty());
    assert_eq!(s.stats().acks_ignored, 3);
    // Old ACKs and odd calls are harmless too.
    s.on_ack(now, &ack(-1));
    s.on_timeout(Time::ZERO);
    s.send(now, Some(u64::MAX));
    s.send(now, None);
    drain(&mut s, now);
    assert_eq!(s.highest_ack(), high);
}

#[test]
fn zero_sized_configs_do_not_panic() {
    let cfg = TcpConfig {
        window: 0,
        window_init: 0,
        dupack_thresh: 0,
        tick: Dur::ZERO,
        packet_size: Bytes(0),
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    for i in 0..5 {
        s.on_ack(t(i), &ack(0));
        if let Some(d) = s.poll_timeout() {
            s.on_timeout(d);
        }
        drain(&mut s, t(i));
    }
}

#[test]
fn overhead_delays_new_data_by_a_random_wait_below_it_and_sends_it_together() {
    // ns-2 `overhead_` (tcp.cc send_much and timeout_nonrtx): an open window arms the delayed
    // send at Random::uniform(overhead_); when it fires, everything the window allows goes.
    let overhead = Dur::from_millis(8);
    let mut waits = vec![];
    for seed in 0..40u64 {
        let mut s = TcpSender::new(TcpConfig { overhead, overhead_seed: seed, ..big_window() });
        s.send(t(0), None);
        assert!(drain(&mut s, t(0)).is_empty(), "the SYN waits too");
        let d = s.poll_timeout().expect("the delayed send is armed");
        assert!(d < t(0) + overhead, "{d}");
        waits.push(d.0);
        // An unforced call while it is pending sends nothing and keeps the same deadline.
        s.send(t(0), None);
        assert_eq!(s.poll_timeout(), Some(d));
        s.on_timeout(d);
        assert_eq!(seqs(&drain(&mut s, d)), vec![0]);
        // The retransmission timer is what is armed now.
        assert_eq!(s.poll_timeout(), Some(d + Dur::from_secs(3)));
        // The SYN's ACK opens cwnd to 2: both segments wait for one delayed send.
        let now = d + Dur::from_millis(100);
        s.on_ack(now, &ack(0));
        assert!(drain(&mut s, now).is_empty());
        let d2 = s.poll_timeout().unwrap();
        assert!(d2 >= now && d2 < now + overhead);
        s.on_timeout(d2);
        assert_eq!(seqs(&drain(&mut s, d2)), vec![1, 2]);
    }
    // The waits spread over [0, overhead): not one value, not all in one half.
    let lo = waits.iter().filter(|&&w| w < overhead.0 / 2).count();
    assert!((10..=30).contains(&lo), "{lo} of 40 in the lower half");
    // The same seed gives the same waits.
    let again = TcpSender::new(TcpConfig { overhead, overhead_seed: 3, ..big_window() });
    let mut again = again;
    again.send(t(0), None);
    assert_eq!(again.poll_timeout(), Some(Time(waits[3])));
}

#[test]
fn overhead_does_not_delay_a_fast_retransmit() {
    // ns-2's dupack path calls output() directly: the retransmission leaves at once.
    let cfg = TcpConfig { overhead: Dur::from_millis(5), overhead_seed: 7, ..big_window() };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    let mut now = s.poll_timeout().unwrap();
    s.on_timeout(now);
    drain(&mut s, now);
    // Ack the SYN and let slow start run a few lossless rounds, firing each delayed send.
    let mut highest = 0i64;
    for _ in 0..4 {
        now += Dur::from_millis(100);
        s.on_ack(now, &ack(highest));
        let d = s.poll_timeout().unwrap();
        s.on_timeout(d);
        let out = drain(&mut s, d);
        assert!(!out.is_empty());
        highest = out.last().unwrap().seq as i64 - 1;
    }
    // `highest` is acknowledged (the window opens: a delayed send), then three duplicates of
    // it: the third retransmits highest + 1 in the same call.
    now += Dur::from_millis(100);
    s.on_ack(now, &ack(highest));
    let d = s.poll_timeout().unwrap();
    s.on_timeout(d);
    assert!(!drain(&mut s, d).is_empty());
    now = d + Dur::from_millis(100);
    for _ in 0..2 {
        s.on_ack(now, &ack(highest));
        drain(&mut s, now);
    }
    s.on_ack(now, &ack(highest));
    let out = drain(&mut s, now);
    assert!(out.iter().any(|x| x.retransmit && x.seq as i64 == highest + 1), "{out:?}");
}

#[test]
fn tahoe_retransmits_on_three_dupacks_from_a_window_of_one_and_goes_back() {
    // ns-2 Agent/TCP (tcp.cc dupack_action, tahoe_action): ssthresh = 16/2, cwnd = 1, back to the
    // first unacknowledged packet; no window inflation on further duplicates.
    let (mut s, now, _) = sixteen_in_flight(TcpConfig { variant: TcpVariant::Tahoe, ..big_window() });
    let now = now + Dur::from_millis(100);
    // Packet 15 lost: 16..=30 each bring a duplicate ACK for 14; the first two release one new
    // packet each (limited transmit, ns-2 singledup_), as for Reno.
    for i in 1..=2 {
        s.on_ack(now, &ack(14));
        assert_eq!(seqs(&drain(&mut s, now)), vec![30 + i]);
    }
    s.on_ack(now, &ack(14));
    let out = drain(&mut s, now);
    assert_eq!(seqs(&out), vec![15]);
    assert!(out[0].retransmit);
    assert_eq!((s.ssthresh(), s.cwnd()), (8.0, 1.0));
    assert_eq!(s.stats().fast_retransmits, 1);
    // The other duplicates change nothing and send nothing (a window of one is out).
    for _ in 4..=15 {
        s.on_ack(now, &ack(14));
        assert!(drain(&mut s, now).is_empty());
    }
    assert_eq!(s.cwnd(), 1.0);
    // The retransmission fills the hole: 16..=32 had arrived, so the ACK is for 32. Slow start
    // again from one (1 < 8): cwnd 2, and the next packets are new (t_seqno moves past the ACK).
    let later = now + Dur::from_millis(100);
    s.on_ack(later, &ack(32));
    assert_eq!(s.cwnd(), 2.0);
    assert_eq!(seqs(&drain(&mut s, later)), vec![33, 34]);
    // A second loss in the same window would not halve again (bugFix_): recover = 32.
    assert_eq!(s.stats().retransmits, 1);
}

#[test]
fn tahoe_goes_back_n_when_several_packets_of_a_window_were_lost() {
    // Packets 15 and 16 lost: after the fast retransmit of 15, its ACK (for 15, 16 still missing)
    // is new, cwnd 2 from slow start, and the sender resends from 16 on: 16 and 17, the latter
    // a retransmission of data that had arrived (Tahoe's go-back-N).
    let (mut s, now, _) = sixteen_in_flight(TcpConfig { variant: TcpVariant::Tahoe, ..big_window() });
    let now = now + Dur::from_millis(100);
    for _ in 0..3 {
        s.on_ack(now, &ack(14));
        drain(&mut s, now);
    }
    let later = now + Dur::from_millis(100);
    s.on_ack(later, &ack(15));
    let out = drain(&mut s, later);
    assert_eq!(seqs(&out), vec![16, 17]);
    assert!(out.iter().all(|x| x.retransmit));
    assert_eq!(s.stats().fast_retransmits, 1, "the hole at 16 is in the window already reduced");
}
