//! Unit tests of the MApp receiver, driven with synthetic times.

use super::wire::{DataHeader, Feedback};
use fairway_core::{Dur, Time};

use super::{MappConfig, MappReceiver};
use crate::endpoint::{Arrival, Endpoint};

const MS: u64 = 1_000_000;

fn ms(t: u64) -> Time {
    Time(t * MS)
}

fn data(seq: u32, send_us: u32, rtt_us: u32) -> DataHeader {
    DataHeader {
        flow: 0,
        flags: 0,
        scale: 0,
        frag_index: 0,
        frag_count: 1,
        seq,
        frame: seq,
        send_time_us: send_us,
        rtt_us,
    }
}

fn receiver() -> MappReceiver {
    MappReceiver::new(MappConfig::default()).unwrap()
}

/// Runs the receiver's timers up to `until` (exclusive), collecting feedback.
fn timers_until(r: &mut MappReceiver, until: Time, out: &mut Vec<(Time, Feedback)>) {
    while let Some(t) = r.poll_timeout() {
        if t >= until {
            break;
        }
        r.handle_timeout(t);
        while let Some(f) = r.poll_transmit(t) {
            out.push((t, f.msg));
        }
    }
}

/// One datagram at `t` (after the timers due before it), collecting feedback.
fn arrive(r: &mut MappReceiver, t: Time, h: DataHeader, ce: bool, out: &mut Vec<(Time, Feedback)>) {
    timers_until(r, t, out);
    r.handle_data(t, &h, 972, ce);
    while let Some(f) = r.poll_transmit(t) {
        out.push((t, f.msg));
    }
}

/// A datagram every 10 ms from t = 0 with seq 0, 1, ..., carrying RTT 100 ms, until `end_ms`
/// (exclusive); returns the next seq.
fn steady(r: &mut MappReceiver, from_seq: u32, from_ms: u64, end_ms: u64, out: &mut Vec<(Time, Feedback)>) -> u32 {
    let mut seq = from_seq;
    let mut t = from_ms;
    while t < end_ms {
        arrive(r, ms(t), data(seq, (t * 1000) as u32, 100_000), false, out);
        seq += 1;
        t += 10;
    }
    seq
}

#[test]
fn first_datagram_gets_immediate_feedback_with_scale_0() {
    let mut r = receiver();
    assert_eq!(r.poll_timeout(), None);
    assert!(r.poll_transmit(ms(0)).is_none());
    r.handle_data(ms(1000), &data(0, 900_000, 0), 968, false);
    let t = r.poll_transmit(ms(1010)).unwrap();
    assert_eq!((t.size.0, t.payload.0, t.ect), (32, 0, false), "a 32-byte message, no application data");
    assert_eq!(
        t.msg,
        Feedback {
            flow: 0,
            scale: 0,
            flags: 0,
            echo_time_us: 900_000,
            hold_us: 10_000,
            highest_seq: 0,
            lost: 0,
            marked: 0
        }
    );
    assert!(r.poll_transmit(ms(1010)).is_none(), "once");
    // initial_rtt 100 ms > Max_Intrvl 50 ms: checkpoint and TOI both 100 ms on.
    assert_eq!(r.rtt(), Dur::from_millis(100));
    assert_eq!(r.poll_timeout(), Some(ms(1100)));
    let s = r.stats();
    assert_eq!((s.datagrams, s.bytes, s.feedback_sent), (1, 1000, 1));
}

#[test]
fn no_loss_adds_one_per_rtt_up_to_the_top_and_no_further() {
    let mut r = receiver();
    let mut fb = vec![];
    steady(&mut r, 0, 0, 1500, &mut fb);
    // Feedback at 0 (first datagram) and at every checkpoint, 100 ms apart.
    let times: Vec<u64> = fb.iter().map(|(t, _)| t.0 / MS).collect();
    assert_eq!(times, (0..15).map(|k| k * 100).collect::<Vec<_>>());
    let scales: Vec<u8> = fb.iter().map(|(_, f)| f.scale).collect();
    assert_eq!(scales, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9]);
    let s = r.stats();
    assert_eq!((s.increases, s.decreases, s.lost, s.timeouts), (9, 0, 0, 0));
    assert_eq!(s.frames_complete, 150);
}

#[test]
fn a_gap_halves_at_once_but_only_once_per_rtt_and_blocks_the_next_increase() {
    let mut r = receiver();
    let mut fb = vec![];
    let seq = steady(&mut r, 0, 0, 605, &mut fb);
    assert_eq!(r.scale(), 6);
    let n = fb.len();
    // seq 61 lost: 62 arrives at 610 ms.
    arrive(&mut r, ms(610), data(seq + 1, 610_000, 100_000), false, &mut fb);
    assert_eq!(fb.len(), n + 1, "feedback at once");
    assert_eq!((fb[n].0, fb[n].1.scale, fb[n].1.lost), (ms(610), 3, 1));
    // A second gap 30 ms later: no second halving, no feedback.
    arrive(&mut r, ms(620), data(seq + 2, 620_000, 100_000), false, &mut fb);
    arrive(&mut r, ms(640), data(seq + 4, 640_000, 100_000), false, &mut fb);
    assert_eq!((fb.len(), r.scale(), r.stats().lost, r.stats().decreases), (n + 1, 3, 2, 1));
    // Checkpoint at 710 ms (one RTT after the decrease): congested RTT, no increase.
    steady(&mut r, seq + 5, 650, 815, &mut fb);
    let after: Vec<(u64, u8)> = fb[n + 1..].iter().map(|(t, f)| (t.0 / MS, f.scale)).collect();
    assert_eq!(after, [(710, 3), (810, 4)]);
    assert_eq!(r.stats().increases, 7);
}

#[test]
fn a_ce_mark_is_congestion_like_a_gap() {
    let mut r = receiver();
    let mut fb = vec![];
    let seq = steady(&mut r, 0, 0, 605, &mut fb);
    let n = fb.len();
    arrive(&mut r, ms(610), data(seq, 610_000, 100_000), true, &mut fb);
    assert_eq!((fb.len(), fb[n].1.scale, fb[n].1.marked, fb[n].1.lost), (n + 1, 3, 1, 0));
    arrive(&mut r, ms(620), data(seq + 1, 620_000, 100_000), true, &mut fb);
    assert_eq!((fb.len(), r.scale(), r.stats().marked, r.stats().decreases), (n + 1, 3, 2, 1));
    steady(&mut r, seq + 2, 630, 815, &mut fb);
    let after: Vec<(u64, u8)> = fb[n + 1..].iter().map(|(t, f)| (t.0 / MS, f.scale)).collect();
    assert_eq!(after, [(710, 3), (810, 4)]);
}

/// Feeds one datagram at 1 s carrying `rtt_us`, then returns when the first TOI fires.
fn first_timeout(cfg: MappConfig, rtt_us: u32) -> Time {
    let mut r = MappReceiver::new(cfg).unwrap();
    r.handle_data(ms(1000), &data(0, 0, rtt_us), 972, false);
    let mut t = ms(1000);
    loop {
        let next = r.poll_timeout().unwrap();
        assert!(next > t);
        // One nanosecond early changes nothing.
        r.handle_timeout(Time(next.0 - 1));
        assert_eq!(r.stats().timeouts, 0);
        r.handle_timeout(next);
        if r.stats().timeouts == 1 {
            return next;
        }
        t = next;
    }
}

#[test]
fn a_shorter_rtt_that_makes_the_checkpoint_past_moves_it_to_now() {
    let mut r = receiver(); // initial_rtt 100 ms
    r.handle_data(ms(0), &data(0, 0, 0), 972, false);
    assert!(r.poll_transmit(ms(0)).is_some());
    assert_eq!(r.poll_timeout(), Some(ms(100)));
    // At 50 ms the sender's first estimate, 30 ms, arrives: the checkpoint (0 + 30 ms) is past,
    // so it falls at 50 ms, and the next one an RTT later.
    r.handle_data(ms(50), &data(1, 0, 30_000), 972, false);
    assert_eq!(r.poll_timeout(), Some(ms(50)));
    r.handle_timeout(ms(50));
    assert_eq!((r.scale(), r.poll_transmit(ms(50)).map(|f| f.msg.scale)), (1, Some(1)));
    assert_eq!(r.poll_timeout(), Some(ms(80)));
}

#[test]
fn toi_is_the_rtt_when_the_rtt_exceeds_the_longest_interval() {
    // Max_Intrvl = 50 ms (1000 B at 160 kb/s); RTT 80 ms > 50 ms: TOI = RTT.
    assert_eq!(first_timeout(MappConfig::default(), 80_000), ms(1080));
    assert_eq!(first_timeout(MappConfig::default(), 200_000), ms(1200));
}

#[test]
fn toi_is_the_longest_interval_plus_alpha_otherwise() {
    // RTT 40 ms <= 50 ms: TOI = 50 + 0.5 x 40 = 70 ms.
    assert_eq!(first_timeout(MappConfig::default(), 40_000), ms(1070));
    // RTT = Max_Intrvl exactly: 50 + 25.
    assert_eq!(first_timeout(MappConfig::default(), 50_000), ms(1075));
    assert_eq!(first_timeout(MappConfig { toi_alpha: 0.25, ..Default::default() }, 40_000), ms(1060));
    // With jitter the longest interval is 75 ms: 75 + 20.
    assert_eq!(first_timeout(MappConfig { jitter: true, ..Default::default() }, 40_000), ms(1095));
}

#[test]
fn goes_idle_after_idle_limit_timeouts_and_wakes_up_on_data() {
    let mut r = receiver();
    let mut fb = vec![];
    let seq = steady(&mut r, 0, 0, 705, &mut fb); // scale 7, last arrival at 700 ms
    assert_eq!(r.scale(), 7);
    let n = fb.len();
    timers_until(&mut r, ms(10_000), &mut fb);
    assert!(r.is_idle());
    assert_eq!(r.poll_timeout(), None);
    let s = r.stats();
    assert_eq!(s.timeouts, 8);
    // TOI = RTT = 100 ms: expiries at 800, 900, ..., 1500 ms, each a halving: 7 3 1 0 0 0 0 0.
    // The first falls with the checkpoint at 800 ms: the TOI goes first, so that RTT counts as
    // congested and there is no increase.
    let after: Vec<(u64, u8)> = fb[n..].iter().map(|(t, f)| (t.0 / MS, f.scale)).collect();
    assert_eq!(after, (0..8).map(|k| (800 + 100 * k, [3, 1, 0, 0, 0, 0, 0, 0][k as usize])).collect::<Vec<_>>());
    assert_eq!((s.increases, s.decreases), (7, 8));
    // Quiet from then on.
    r.handle_timeout(ms(60_000));
    assert!(r.poll_transmit(ms(60_000)).is_none());
    // Data again: immediate feedback, timers back.
    arrive(&mut r, ms(60_000), data(seq, 0, 100_000), false, &mut fb);
    assert_eq!(fb.last().unwrap().0, ms(60_000));
    assert!(!r.is_idle());
    assert_eq!(r.poll_timeout(), Some(ms(60_100)));
    steady(&mut r, seq + 1, 60_010, 60_305, &mut fb);
    assert_eq!(r.scale(), 3);
    assert_eq!(r.stats().timeouts, 8);
}

#[test]
fn late_and_duplicate_datagrams_are_not_losses() {
    let mut r = receiver();
    let mut fb = vec![];
    for (i, seq) in [0, 1, 3, 2, 3, 1].into_iter().enumerate() {
        arrive(&mut r, ms(10 * i as u64), data(seq, 0, 100_000), false, &mut fb);
    }
    let s = r.stats();
    assert_eq!((s.lost, s.late, s.decreases, s.datagrams), (1, 3, 1, 6));
    assert_eq!(s.frames_complete, 4, "duplicates complete nothing twice");
    // Wrapped sequence numbers are in order.
    let mut r = receiver();
    for (i, seq) in [u32::MAX - 1, u32::MAX, 0, 1].into_iter().enumerate() {
        arrive(&mut r, ms(10 * i as u64), data(seq, 0, 100_000), false, &mut fb);
    }
    let s = r.stats();
    assert_eq!((s.lost, s.late, s.decreases, s.frames_complete), (0, 0, 0, 4));
    // Late and duplicate datagrams far from any decrease change nothing either.
    let mut r = receiver();
    for k in 0..60u32 {
        arrive(&mut r, ms(10 * k as u64), data(k, 0, 100_000), false, &mut fb);
        if k % 20 == 10 {
            arrive(&mut r, ms(10 * k as u64), data(k - 3, 0, 100_000), false, &mut fb);
        }
    }
    let s = r.stats();
    assert_eq!((s.lost, s.late, s.decreases, r.scale()), (0, 3, 0, 5));
}

#[test]
fn a_checkpoint_after_an_rtt_without_data_does_not_increase() {
    // ns-2 mm-app.cc adjust_scale: only if recv_pkts > 0. Data every 50 ms, RTT 30 ms: the RTTs
    // [0, 30), [30, 60) and [90, 120) hold a datagram, [60, 90) and [120, 150) none.
    let mut r = receiver();
    let mut fb = vec![];
    for k in 0..4u64 {
        arrive(&mut r, ms(50 * k), data(k as u32, 0, 30_000), false, &mut fb);
    }
    let got: Vec<(u64, u8)> = fb.iter().map(|(t, f)| (t.0 / MS, f.scale)).collect();
    assert_eq!(got, [(0, 0), (30, 1), (60, 2), (90, 2), (120, 3), (150, 3)]);
    assert_eq!(r.stats().timeouts, 0);
}

#[test]
fn feedback_fields_echo_hold_highest_lost_marked() {
    let mut r = receiver();
    let mut fb = vec![];
    arrive(&mut r, ms(0), data(0, 5_000, 100_000), false, &mut fb);
    arrive(&mut r, ms(10), data(3, 15_000, 100_000), false, &mut fb); // 1 and 2 lost
    arrive(&mut r, ms(20), data(4, 25_000, 100_000), true, &mut fb);
    arrive(&mut r, ms(30), data(2, 7_000, 100_000), false, &mut fb); // late: not echoed
                                                                     // The gap at 10 ms decreased; the checkpoint at 110 ms reports it all.
    timers_until(&mut r, ms(111), &mut fb);
    let (t, f) = *fb.last().unwrap();
    assert_eq!(t, ms(110));
    assert_eq!((f.echo_time_us, f.hold_us, f.highest_seq, f.lost, f.marked, f.scale), (25_000, 90_000, 4, 2, 1, 0));
}

#[test]
fn timers_called_late_do_what_was_due_and_early_calls_nothing() {
    let feed = |r: &mut MappReceiver| {
        for k in 0..20u32 {
            r.handle_data(ms(10 * k as u64), &data(k, 0, 100_000), 972, false);
        }
    };
    let mut punctual = receiver();
    let mut fb = vec![];
    feed(&mut punctual);
    timers_until(&mut punctual, ms(350), &mut fb);
    let mut late = receiver();
    feed(&mut late);
    // Feeding ran the checkpoint at 100 ms; the next (200 ms) is not due at 199 ms.
    assert_eq!(late.scale(), 1);
    late.handle_timeout(ms(199));
    assert_eq!((late.scale(), late.stats().increases), (1, 1), "early: nothing");
    late.handle_timeout(ms(349));
    assert_eq!(late.scale(), punctual.scale());
    let (a, b) = (punctual.stats(), late.stats());
    assert_eq!((a.increases, a.decreases, a.timeouts), (b.increases, b.decreases, b.timeouts));
    assert_eq!(late.poll_timeout(), punctual.poll_timeout());
    // A very late call (hours) finishes quickly and leaves the receiver idle.
    late.handle_timeout(Time(1 << 50));
    assert!(late.is_idle());
}

#[test]
fn other_flows_bad_fragments_and_backward_time_are_harmless() {
    let mut r = receiver();
    r.handle_data(ms(100), &DataHeader { flow: 7, ..data(0, 0, 0) }, 10, false);
    r.handle_data(ms(100), &DataHeader { frag_count: 0, ..data(0, 0, 0) }, 10, false);
    r.handle_data(ms(100), &DataHeader { frag_index: 3, frag_count: 2, ..data(0, 0, 0) }, 10, false);
    assert_eq!((r.stats().ignored, r.stats().datagrams), (3, 0));
    assert!(r.is_idle());
    r.handle_data(ms(100), &data(0, 0, 0), 10, false);
    r.handle_data(ms(90), &data(1, 0, 0), 10, false);
    let f = r.poll_transmit(ms(80)).unwrap();
    assert_eq!((f.msg.hold_us, f.msg.highest_seq), (0, 1));
    r.handle_timeout(ms(50));
    assert_eq!(r.stats().timeouts, 0);
    let mut b = vec![];
    r.encode(&f, &mut b);
    r.handle_datagram(ms(100), &b, Arrival::default()).unwrap();
    assert_eq!(r.stats().ignored, 4, "feedback sent to a receiver is ignored");
}
