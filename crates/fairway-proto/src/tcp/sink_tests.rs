//! Unit tests for the TCP sink (ns-2 `Agent/TCPSink` and `Agent/TCPSink/DelAck`).

use fairway_core::{Bytes, Dur, Time};

use super::tests::t;
use super::*;

fn acks_of(k: &mut TcpSink, now: Time) -> Vec<i64> {
    let mut v = Vec::new();
    while let Some(a) = k.poll_transmit(now) {
        assert_eq!(a.size, Bytes(40));
        v.push(a.ackno);
    }
    v
}

#[test]
fn sink_cumulative_ack_with_reordering_and_duplicates() {
    let mut k = TcpSink::new(SinkConfig::default());
    let mut got = Vec::new();
    for seq in [0, 1, 3, 4, 2] {
        assert!(k.on_data(t(seq), seq, false, Time::ZERO), "{seq} is new");
        got.extend(acks_of(&mut k, t(seq)));
        if seq == 4 {
            assert_eq!(k.out_of_order(), 2);
        }
    }
    assert_eq!(got, vec![0, 1, 1, 1, 4]);
    assert_eq!(k.out_of_order(), 0);
    assert_eq!(k.delivered_in_order(), 5);
    // Duplicates, old or above the cumulative point, are reported as not new, and acked.
    assert!(!k.on_data(t(9), 3, false, Time::ZERO));
    assert!(k.on_data(t(9), 7, false, Time::ZERO));
    assert!(!k.on_data(t(9), 7, false, Time::ZERO));
    assert_eq!(acks_of(&mut k, t(9)), vec![4, 4, 4]);
    assert_eq!(k.stats().duplicates, 2);
    // Memory holds only the out-of-order packets.
    assert_eq!(k.out_of_order(), 1);
    assert!(k.on_data(t(9), u64::MAX, false, Time::ZERO));
    assert_eq!(k.out_of_order(), 2);
}

#[test]
fn delayed_ack_every_second_packet_or_at_the_interval() {
    let mut k = TcpSink::new(SinkConfig::delayed());
    // Packet 0 (the SYN) is acked at once (ns-2 SYN_immediate_ack_).
    k.on_data(t(0), 0, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(0)), vec![0]);
    k.on_data(t(10), 1, false, Time::ZERO);
    assert!(acks_of(&mut k, t(10)).is_empty());
    assert_eq!(k.poll_timeout(), Some(t(110)));
    // The second packet is acked at once and the timer cancelled.
    k.on_data(t(20), 2, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(20)), vec![2]);
    assert_eq!(k.poll_timeout(), None);
    // A lone packet waits for the interval; an early wake-up does nothing.
    k.on_data(t(30), 3, false, Time::ZERO);
    k.on_timeout(t(129));
    assert!(acks_of(&mut k, t(129)).is_empty());
    k.on_timeout(t(130));
    assert_eq!(acks_of(&mut k, t(130)), vec![3]);
    assert_eq!(k.poll_timeout(), None);
}

#[test]
fn delayed_ack_is_immediate_for_out_of_order_and_gap_fills() {
    let mut k = TcpSink::new(SinkConfig::delayed());
    for seq in 0..4 {
        k.on_data(t(seq), seq, false, Time::ZERO);
    }
    assert_eq!(acks_of(&mut k, t(3)), vec![0, 2]);
    assert!(k.poll_timeout().is_some()); // 3 is being held
                                         // Out of order (4 missing): immediate duplicate ACK, which also covers the held packet.
    k.on_data(t(40), 5, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(40)), vec![3]);
    assert_eq!(k.poll_timeout(), None);
    k.on_data(t(41), 7, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(41)), vec![3]);
    // 4 fills the first hole only: cumulative 5 != 4, immediate.
    k.on_data(t(42), 4, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(42)), vec![5]);
    // 6 fills the last hole (cumulative jumps to 7): immediate too.
    k.on_data(t(43), 6, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(43)), vec![7]);
    // RFC2581_immediate_ack_: 8 arrives after 10, so 8 == cumulative but below maxseen.
    k.on_data(t(44), 10, false, Time::ZERO);
    k.on_data(t(45), 8, false, Time::ZERO);
    assert_eq!(acks_of(&mut k, t(45)), vec![7, 8]);
    assert_eq!(k.poll_timeout(), None);
}

#[test]
fn sink_echoes_ce_until_cwr() {
    let seg = |seq: u64, cwr: bool| TcpSegment {
        seq,
        size: Bytes(1040),
        ect: true,
        cwr,
        ece: false,
        syn: false,
        retransmit: false,
        sent_at: Time::ZERO,
    };
    let mut k = TcpSink::new(SinkConfig::default());
    let mut eces = Vec::new();
    for (seq, ce, cwr) in [(0, false, false), (1, true, false), (2, false, false), (3, false, true)] {
        k.on_segment(t(seq), &seg(seq, cwr), ce);
        eces.push(k.poll_transmit(t(seq)).unwrap().ece);
    }
    // RFC 3168 §6.1.3: echo from the CE packet until the CWR packet.
    assert_eq!(eces, vec![false, true, true, false]);
    // The simple entry point echoes on the CE packet only.
    let mut k = TcpSink::new(SinkConfig::default());
    let e: Vec<bool> = [(0, false), (1, true), (2, false)]
        .iter()
        .map(|&(seq, ce)| {
            k.on_data(t(seq), seq, ce, Time::ZERO);
            k.poll_transmit(t(seq)).unwrap().ece
        })
        .collect();
    assert_eq!(e, vec![false, true, false]);
    // An ECN-setup SYN is answered with ECN-Echo.
    let mut k = TcpSink::new(SinkConfig::default());
    let syn = TcpSegment { ect: false, ece: true, syn: true, size: Bytes(40), ..seg(0, false) };
    k.on_segment(t(0), &syn, false);
    assert!(k.poll_transmit(t(0)).unwrap().ece);
}

/// Feeds segments 0..n to `k` back to back, one every `gap` after `start`, each sent one-way
/// delay `owd` earlier; returns the packets each ACK acknowledged.
fn acks_per_ack(k: &mut TcpSink, from: u64, n: u64, start: Time, gap: Dur, owd: Dur) -> Vec<i64> {
    let mut out = vec![];
    let mut last = from as i64 - 1;
    for s in from..from + n {
        let t = start + Dur(gap.0 * (s - from));
        k.on_data(t, s, false, Time(t.0 - owd.0));
        while let Some(a) = k.poll_transmit(t) {
            out.push(a.ackno - last);
            last = a.ackno;
        }
    }
    out
}

#[test]
fn linux_receiver_acks_each_segment_while_its_window_opens() {
    let mut cfg = super::options::option_set("linux").unwrap().sink;
    cfg.quick_ack = true;
    let gap = Dur::from_micros(1200);
    let owd = Dur::from_millis(20);
    let mut k = TcpSink::new(cfg);
    // The SYN (packet 0, which also takes the window's last fraction of a segment of room) and
    // then 16 segments in quick-ACK mode (TCP_MAX_QUICKACKS): an ACK each.
    let first = acks_per_ack(&mut k, 0, 17, Time::ZERO + owd, gap, owd);
    assert_eq!(first, vec![1; 17]);
    // The next 10, in the same receiver RTT: the window may not open yet, so every second.
    let second = acks_per_ack(&mut k, 17, 10, Time::ZERO + owd + Dur(gap.0 * 17), gap, owd);
    assert_eq!(second, vec![2; 5]);
    // A round trip (40 ms) later, 40 segments: the 28 delivered since the first exceed the
    // initial 10, so the allowance grows to 2 x 28 + 16 = 72, plus 2 x 72 x (28 - 10) / 10 =
    // 331 segments, far past the window of 45, which opens by 2 per segment: each is ACKed alone.
    let third = acks_per_ack(&mut k, 27, 40, Time::ZERO + owd + Dur::from_millis(60), gap, owd);
    assert_eq!(third, vec![1; 40]);
}

#[test]
fn without_quick_ack_a_delayed_ack_sink_acks_every_second_segment() {
    let mut cfg = super::options::option_set("linux").unwrap().sink;
    cfg.quick_ack = false;
    let mut k = TcpSink::new(cfg);
    let owd = Dur::from_millis(20);
    // The SYN is ACKed at once; then pairs.
    let acks = acks_per_ack(&mut k, 0, 17, Time::ZERO + owd, Dur::from_micros(1200), owd);
    assert_eq!(acks, [vec![1], vec![2; 8]].concat());
}
