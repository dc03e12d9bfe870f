//! The IFTP sender driven with synthetic times: window growth and gaps (eqs. (2), (4)), loss
//! reaction (eq. (6)), the timer (eqs. (7)-(9)), extended mode (§3.2), and garbage ACK streams.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use fairway_core::{Dur, Rate, Rng, Time};

use super::model;
use super::wire::{whole_micros, AckHeader, Message};
use super::{BackoffReset, IftpAck, IftpConfig, IftpData, IftpSender, Reading};
use crate::endpoint::{Arrival, Endpoint};

const MS: u64 = 1_000_000;
const R: Dur = Dur::from_millis(100);
/// 1000 B at 10 Mb/s.
const TAU: Dur = Dur::from_micros(800);

fn cfg() -> IftpConfig {
    IftpConfig { link_rate: Rate(10_000_000), ..Default::default() }
}

/// R/n - tau rounded to the nearest ns, clamped at 0 (the test's own arithmetic).
fn gap_for(r: Dur, n: u64) -> Dur {
    Dur((r.0 + n / 2) / n) - TAU
}

#[derive(Debug, Clone, Copy)]
struct Sent {
    at: Time,
    d: IftpData,
    /// `stats().windows` when it left: which Transmit_Window call it belongs to.
    window: u64,
    n: u32,
    gap: Dur,
}

/// A path whose ACKs come back `rtt(seq)` after the send (never when `None`), plus ACKs the test
/// hands in itself.
struct Driver {
    s: IftpSender,
    now: Time,
    sent: Vec<Sent>,
    acks: BinaryHeap<Reverse<(Time, u64, Time)>>,
    rtt: Box<dyn Fn(u64) -> Option<Dur>>,
    timeouts_at: Vec<Time>,
}

impl Driver {
    fn new(cfg: IftpConfig, rtt: impl Fn(u64) -> Option<Dur> + 'static) -> Driver {
        let mut s = IftpSender::new(cfg).unwrap();
        s.start(Time::ZERO);
        let mut d = Driver {
            s,
            now: Time::ZERO,
            sent: vec![],
            acks: BinaryHeap::new(),
            rtt: Box::new(rtt),
            timeouts_at: vec![],
        };
        d.drain();
        d
    }

    fn drain(&mut self) {
        while let Some(d) = self.s.poll_transmit(self.now).map(|t| t.msg) {
            let st = &self.s;
            self.sent.push(Sent { at: self.now, d, window: st.stats().windows, n: st.window(), gap: st.gap() });
            if let Some(r) = (self.rtt)(d.seq) {
                // Back r after the packet's stamp (its send time in whole microseconds), so that
                // every RTT sample is exactly r.
                self.acks.push(Reverse((d.sent_at + r, d.seq, d.sent_at)));
            }
        }
    }

    /// Runs ACK arrivals, sends and timer expiries up to `end`.
    fn run_until(&mut self, end: Time) {
        loop {
            let ta = self.acks.peek().map(|Reverse((t, _, _))| *t);
            let ts = self.s.poll_timeout();
            let Some(t) = [ta, ts].into_iter().flatten().min() else { break };
            if t > end {
                break;
            }
            self.now = t.max(self.now);
            if ta == Some(t) {
                let Reverse((_, seq, echo)) = self.acks.pop().unwrap();
                self.s.handle_ack(self.now, &IftpAck { flow: self.s.config().flow, seq, echo });
            } else {
                let before = self.s.stats().timeouts;
                self.s.handle_timeout(self.now);
                if self.s.stats().timeouts > before {
                    self.timeouts_at.push(self.now);
                }
            }
            self.drain();
        }
        self.now = self.now.max(end);
    }

    /// Hands in the ACK of `seq` (echoing its send time) R after the send, or now if that is
    /// past; what is due before then happens first.
    fn ack(&mut self, seq: u64) {
        let echo = self.sent.iter().find(|x| x.d.seq == seq).unwrap().at;
        self.run_until(echo + R);
        self.s.handle_ack(self.now, &IftpAck { flow: 0, seq, echo });
        self.drain();
    }

    /// The windows as (packets, n, gap, spacing of send starts if uniform).
    fn windows(&self) -> Vec<(usize, u32, Dur, Option<Dur>)> {
        let mut out = vec![];
        let mut i = 0;
        while i < self.sent.len() {
            let w = self.sent[i].window;
            let run: Vec<&Sent> = self.sent[i..].iter().take_while(|x| x.window == w).collect();
            let spacing: BTreeSet<Dur> = run.windows(2).map(|p| p[1].at - p[0].at).collect();
            let uniform = (spacing.len() == 1).then(|| *spacing.first().unwrap());
            out.push((run.len(), run[0].n, run[0].gap, uniform));
            i += run.len();
        }
        out
    }

    /// When each window's first packet left (its start_k), in window order.
    fn starts(&self) -> Vec<Time> {
        let mut out: Vec<Time> = vec![];
        let mut last = 0;
        for x in &self.sent {
            if x.window != last {
                out.push(x.at);
                last = x.window;
            }
        }
        out
    }

    /// The window of a packet, as counted by `stats().windows` when it left.
    fn window_of(&self, seq: u64) -> u64 {
        self.sent.iter().find(|x| x.d.seq == seq).unwrap().window
    }

    fn seqs_strictly_increase(&self) {
        for (k, x) in self.sent.iter().enumerate() {
            assert_eq!(x.d.seq, k as u64, "every sequence number once, in order");
        }
    }
}

#[test]
fn first_packet_then_waits_for_its_ack() {
    let mut d = Driver::new(cfg(), |_| None);
    assert_eq!(d.sent.len(), 1);
    assert_eq!((d.sent[0].d.seq, d.sent[0].d.sent_at, d.s.window()), (0, Time::ZERO, 1));
    assert_eq!((d.s.srtt(), d.s.gap(), d.s.sweep_left()), (None, Dur::ZERO, 0));
    assert_eq!(d.s.poll_timeout(), Some(Time(3_000 * MS)), "only the initial 3 s timer runs");
    d.run_until(Time(2_999 * MS));
    assert_eq!(d.sent.len(), 1, "nothing more before an ACK");
    // Its ACK 100 ms later sets R and starts the window of two.
    d.now = Time(100 * MS);
    d.ack(0);
    assert_eq!((d.s.srtt(), d.s.window(), d.s.window_packets()), (Some(R), 2, 2));
    assert_eq!(d.s.gap(), Dur(49_200_000), "eq. (2): R/(2 x 1) - tau");
    assert_eq!(d.sent.len(), 2, "the first packet of the window leaves at once");
    assert_eq!(d.s.poll_timeout(), Some(Time(150 * MS)), "the second one R/2 later");
    assert_eq!(d.s.rto_deadline(), Some(Time(401 * MS)), "eq. (9): 100 + 4 x 50 + 1 ms after the ACK");
    // The period of the window of two ends R after its start; poll_timeout names that boundary.
    assert_eq!(d.s.period_end(), Some(Time(200 * MS)));
    d.run_until(Time(199 * MS));
    assert_eq!((d.sent.len(), d.s.poll_timeout()), (3, Some(Time(200 * MS))));
    // At the boundary the window before (the first packet) is fully ACKed: the window of four
    // starts although no ACK of the window of two came back (pipelining).
    d.run_until(Time(200 * MS));
    assert_eq!((d.sent.len(), d.s.window(), d.sent[3].at), (4, 4, Time(200 * MS)));
    // At the next boundary the window of two is still unanswered: nothing starts, and the sender
    // waits for an ACK (or the timer), not for a time.
    d.run_until(Time(300 * MS));
    assert_eq!(d.sent.len(), 7);
    assert_eq!(d.s.poll_timeout(), Some(Time(401 * MS)), "the timer, not the passed boundary");
    d.run_until(Time(400 * MS));
    assert_eq!((d.sent.len(), d.s.window()), (7, 4));
}

#[test]
fn slow_start_doubles_with_the_gap_of_eq_2_then_grows_by_one() {
    let mut d = Driver::new(cfg(), |_| Some(R));
    d.run_until(Time(2_000 * MS));
    d.seqs_strictly_increase();
    let w = d.windows();
    let sizes: Vec<usize> = w.iter().map(|x| x.0).collect();
    assert_eq!(&sizes[..9], [1, 2, 4, 8, 16, 32, 33, 34, 35]);
    for &(k, n, gap, spacing) in &w[1..9] {
        assert_eq!(k, n as usize);
        // Eqs. (2) and (4): G = R/n_new - tau, so the starts are R/n apart.
        assert_eq!(gap, gap_for(R, n as u64), "n {n}");
        assert_eq!(spacing, Some(gap + TAU), "n {n}");
    }
    // Exact values for the doublings: R/n is a whole number of ns.
    let gaps: Vec<u64> = w[1..6].iter().map(|x| x.2 .0).collect();
    assert_eq!(gaps, [49_200_000, 24_200_000, 11_700_000, 5_450_000, 2_325_000]);
    // One window per adjustment period of length R (elaarag2002 §3.1): the first packet at 0, its
    // ACK at R starts window 1, and every later window starts exactly R after the one before
    // (also where R/n is not a whole number of ns: the boundary is start + R, not n rounded gaps).
    let starts = d.starts();
    assert_eq!(starts.len(), 21, "windows 0 to 20, the last at 2 s");
    for (k, &t) in starts.iter().enumerate() {
        assert_eq!(t, Time(k as u64 * R.0), "window {k}");
    }
    assert_eq!(d.s.stats().timeouts, 0);
}

#[test]
fn congestion_avoidance_follows_eq_4_and_stops_at_w_max() {
    let mut d = Driver::new(IftpConfig { ssthresh: 4, w_max: 7, ..cfg() }, |_| Some(R));
    d.run_until(Time(3_000 * MS));
    let w = d.windows();
    let sizes: Vec<usize> = w.iter().map(|x| x.0).take(10).collect();
    assert_eq!(sizes, [1, 2, 4, 5, 6, 7, 7, 7, 7, 7]);
    for &(_, n, gap, spacing) in &w[1..w.len() - 1] {
        assert_eq!((gap, spacing), (gap_for(R, n as u64), Some(gap_for(R, n as u64) + TAU)), "n {n}");
    }
    assert_eq!(w[3].2, Dur(19_200_000), "eq. (4): R/(4 + 1) - tau");
    assert_eq!(d.s.window(), 7);
    assert_eq!(d.s.stats().max_window, 7);
    // At W_max, G is recomputed every period with the current R: here R does not change.
    let log = d.s.gap_log();
    assert!(log.len() >= 9 && log[5..].iter().all(|&(_, g)| g == gap_for(R, 7)));
}

#[test]
fn slow_start_stops_at_an_ssthresh_that_is_not_a_power_of_two() {
    let mut d = Driver::new(IftpConfig { ssthresh: 20, w_max: 24, ..cfg() }, |_| Some(R));
    d.run_until(Time(2_000 * MS));
    let sizes: Vec<usize> = d.windows().iter().map(|x| x.0).take(9).collect();
    assert_eq!(sizes, [1, 2, 4, 8, 16, 20, 21, 22, 23]);
    let mut d = Driver::new(IftpConfig { ssthresh: 64, w_max: 40, ..cfg() }, |_| Some(R));
    d.run_until(Time(2_000 * MS));
    let sizes: Vec<usize> = d.windows().iter().map(|x| x.0).take(8).collect();
    assert_eq!(sizes, [1, 2, 4, 8, 16, 32, 40, 40], "W_max caps slow start too");
}

/// Grows to a window of 16 on a 100 ms path (ssthresh 16): windows 1, 2, 4, 8 start at 0, 100,
/// 200, 300 ms and window 4 (16 packets, seqs 15..=30) at 400 ms, R/16 = 6.25 ms apart. Its ACKs
/// are withheld for the test to hand in (`Driver::ack`: R after each send). Returns the driver at
/// 495 ms, every packet of window 4 sent, and its first sequence number. At 500 ms (its boundary)
/// window 5 starts with n = 17, R/17 apart, since window 3 is fully ACKed by then.
fn window_of_16() -> (Driver, u64) {
    let mut d = Driver::new(IftpConfig { ssthresh: 16, ..cfg() }, |seq| (seq < 15).then_some(R));
    d.run_until(Time(495 * MS));
    assert_eq!((d.s.window(), d.s.window_packets(), d.s.sweep_left()), (16, 16, 0));
    assert_eq!((d.sent.len(), d.s.period_end()), (31, Some(Time(500 * MS))));
    (d, 15)
}

#[test]
fn loss_after_exactly_thresh_acks_halves_once_per_episode() {
    let (mut d, a) = window_of_16();
    for k in [0, 1, 3, 4] {
        d.ack(a + k); // a + 2 is missing
    }
    assert_eq!(d.s.stats().losses_detected, 0, "two ACKs after the missing one are not enough");
    assert_eq!(d.s.window(), 17, "window 5 began at 500 ms");
    d.ack(a + 5); // at 531.25 ms
                  // elaarag2002 §4: ssthresh = max(16/2, 2), n = 17/2 (window 5's n), eq. (6)'s G taken as R/8 - tau.
    let s = &d.s;
    assert_eq!(s.stats().losses_detected, 1);
    assert_eq!((s.ssthresh(), s.window(), s.gap()), (8, 8, Dur(11_700_000)));
    // prev_last: the last packet sent before the phase, window 5's sixth (500 + 5 x R/17 ms).
    assert_eq!(s.loss_phase(), Some(a + 21));
    assert_eq!(d.sent.len(), 38, "the new window starts at once, with new numbers");
    let b = a + 22;
    assert_eq!((d.sent[37].d.seq, d.sent[37].at), (b, Time(531_250_000)));
    // More gaps among the packets sent before the reaction are the same episode.
    for k in [6, 8, 9, 10, 11, 13] {
        d.ack(a + k); // a + 7 and a + 12 are missing too
    }
    assert_eq!((d.s.stats().losses_detected, d.s.window()), (1, 8));
    // Windows 4 and 5 were dropped by the reaction: their ACKs are late (RTT samples only).
    assert_eq!(d.s.stats().acks_late, 6);
    // The phase ends with the ACK of prev_last itself.
    d.ack(a + 21);
    assert_eq!((d.s.loss_phase(), d.s.stats().loss_phase_exits), (None, 1));
    // A gap in the new window is a new episode.
    for k in [0, 2, 3] {
        d.ack(b + k); // b + 1 is missing
    }
    assert_eq!(d.s.stats().losses_detected, 1);
    // The window after the reaction window began R after it (nothing to wait for), with n = 9.
    let next = d.window_of(b) + 1;
    let first = d.sent.iter().find(|x| x.window == next).unwrap();
    assert_eq!((first.at, first.n, first.d.seq), (Time(631_250_000), 9, b + 8));
    d.ack(b + 4); // at 681.25 ms
    let s = &d.s;
    assert_eq!((s.stats().losses_detected, s.ssthresh(), s.window(), s.gap()), (2, 4, 4, gap_for(R, 4)));
    // prev_last: the fifth packet of the window of 9 (631.25 + 4 x R/9 ms).
    assert_eq!(s.loss_phase(), Some(b + 12));
    assert_eq!(s.stats().timeouts, 0);
    d.seqs_strictly_increase();
}

#[test]
fn loss_phase_also_ends_with_a_later_ack_and_thresh_is_configurable() {
    let (mut d, a) = window_of_16();
    for k in [0, 2, 3, 4] {
        d.ack(a + k); // a + 1 is missing; the reaction comes at 525 ms
    }
    // Window 5 had sent 5 packets (500 + k x R/17 ms for k < 5).
    assert_eq!(d.s.loss_phase(), Some(a + 20));
    d.run_until(d.now + Dur::from_millis(5));
    let b = a + 21;
    assert_eq!(d.window_of(b), d.s.stats().windows, "the reaction's window");
    // prev_last's ACK never comes; the first ACK of the new window ends the phase.
    d.ack(b);
    assert_eq!((d.s.loss_phase(), d.s.stats().loss_phase_exits), (None, 1));
    // after_missing_thresh = 1: the first ACK after the missing one is enough. Windows 0 and 1
    // are answered; window 3 (n = 5, congestion avoidance) started at 300 ms since window 1 was
    // complete, then the sender waits for window 2.
    let mut d = Driver::new(IftpConfig { ssthresh: 4, after_missing_thresh: 1, ..cfg() }, |seq| (seq < 3).then_some(R));
    d.run_until(Time(400 * MS));
    assert_eq!((d.s.window(), d.s.window_packets(), d.sent.len()), (5, 5, 12));
    d.ack(4);
    assert_eq!((d.s.stats().losses_detected, d.s.window(), d.s.ssthresh()), (1, 2, 2));
}

#[test]
fn reordered_acks_are_not_a_loss_and_the_window_still_completes() {
    let (mut d, a) = window_of_16();
    for k in [0, 2, 3, 1, 4, 5, 7, 8, 6, 9, 10, 11, 12, 15, 14] {
        d.ack(a + k);
        d.ack(a + k); // and every one twice
    }
    // Window 5 (n = 17) began at 500 ms; at its boundary, 600 ms, window 4 still lacks a + 13:
    // window 6 waits, for an ACK rather than a time.
    d.run_until(Time(610 * MS));
    assert_eq!((d.s.stats().windows, d.s.window()), (6, 17));
    assert_eq!(d.s.period_end(), Some(Time(600 * MS)));
    assert_eq!(d.s.poll_timeout(), d.s.rto_deadline());
    d.ack(a + 13); // now, at 610 ms: window 4 is complete and window 6 starts at once
    assert_eq!((d.s.stats().windows, d.s.window()), (7, 18));
    assert_eq!(d.sent.last().unwrap().at, Time(610 * MS));
    assert_eq!(d.s.gap(), gap_for(d.s.srtt().unwrap(), 18));
    d.ack(a + 13);
    let s = d.s.stats();
    // The second ACK of a + 13 comes after its window left the bookkeeping (windows 5 and 6 are
    // tracked now): a late ACK (an RTT sample), not a known duplicate.
    assert_eq!((s.losses_detected, s.acks_duplicate, s.acks_late, s.timeouts), (0, 15, 1, 0));
}

#[test]
fn an_ack_later_than_r_holds_the_next_window_until_it_arrives() {
    // Every RTT is R except that of seq 14, the last packet of window 3 (sent at 387.5 ms): 122.5
    // ms, so its ACK arrives at 510 ms, after window 4's boundary (500 ms) but before the third
    // ACK after it (seq 17 at 512.5 ms), which would make it a loss.
    let mut d = Driver::new(cfg(), |seq| Some(if seq == 14 { Dur::from_micros(122_500) } else { R }));
    d.run_until(Time(505 * MS));
    // Window 4 (16 packets) started on time at 400 ms (window 2 was complete); at its boundary
    // window 3 is not: the sender waits, and its next wake-up is the timer.
    assert_eq!(d.starts()[4], Time(400 * MS));
    assert_eq!((d.starts().len(), d.s.window()), (5, 16));
    assert_eq!(d.s.poll_timeout(), d.s.rto_deadline());
    d.run_until(Time(700 * MS));
    let starts = d.starts();
    // Window 5 (n = 32) starts the moment the late ACK arrives; its period is the R of that
    // moment, srtt = (7 x 100 + 122.5)/8 = 102.8125 ms (the ACKs of window 4 at 500 and 506.25 ms
    // were 100 ms samples); window 4 is complete by then, so window 6 follows on time.
    assert_eq!(starts[5], Time(510 * MS));
    assert_eq!(starts[6], Time(510 * MS) + Dur(102_812_500));
    let ns: Vec<u32> = d.windows().iter().map(|x| x.1).take(7).collect();
    assert_eq!(ns, [1, 2, 4, 8, 16, 32, 33]);
    assert_eq!((d.s.stats().timeouts, d.s.stats().losses_detected), (0, 0));

    // The path's delay grows by 30 ms from seq 14 on: the windows slow down with it (self-
    // clocking). Window 5 waits for seq 14's ACK (517.5 ms); its period is srtt = (7 x 100 +
    // 130)/8 = 103.75 ms, but at that boundary (621.25 ms) window 4's last ACK (sent at 493.75 ms)
    // is still out: window 6 starts when it arrives, at 623.75 ms.
    let mut d = Driver::new(cfg(), |seq| Some(if seq >= 14 { Dur::from_millis(130) } else { R }));
    d.run_until(Time(700 * MS));
    let starts = d.starts();
    assert_eq!(starts[4..7], [Time(400 * MS), Time(517_500_000), Time(623_750_000)]);
    assert_eq!((d.s.stats().timeouts, d.s.stats().losses_detected), (0, 0));
}

#[test]
fn lost_acks_give_one_packet_per_timeout_not_blind_doubling() {
    // No ACK ever: one packet per timeout from the start (elaarag2002 §5.3), the timer backing off
    // from the initial 3 s: timeouts at 3, 9, 21, 45, 93, 189, 381 s, then every 192 s.
    let mut d = Driver::new(cfg(), |_| None);
    d.run_until(Time::from_secs_f64(1_000.0));
    let secs: Vec<u64> = d.timeouts_at.iter().map(|t| t.0 / (1_000 * MS)).collect();
    assert_eq!(secs, [3, 9, 21, 45, 93, 189, 381, 573, 765, 957]);
    let sends: Vec<Time> = d.sent.iter().map(|x| x.at).collect();
    assert_eq!(sends[0], Time::ZERO);
    assert_eq!(&sends[1..], &d.timeouts_at[..], "one packet at each timeout, none between");
    assert_eq!((d.s.window(), d.s.stats().max_window), (1, 1));
    // The ACKs stop after windows 0 and 1. Windows 2 (3..=6) and 3 (7..=14) start at 200 and 300
    // ms (each while the window two before was complete); at 400 ms window 2 is not, so nothing
    // more until the timer: eq. (9) after 3 samples of 100 ms, 100 + 4 x 28.125 = 212.5 -> 213,
    // + 1 = 214 ms from the last ACK (250 ms). Then one packet per timeout, the timer doubling to
    // 64 x 214 ms, and n never grows: each lone packet waits for its own ACK before a next window.
    let mut d = Driver::new(cfg(), |seq| (seq < 3).then_some(R));
    d.run_until(Time::from_secs_f64(60.0));
    assert_eq!(d.starts()[..4], [Time::ZERO, Time(100 * MS), Time(200 * MS), Time(300 * MS)]);
    let t = &d.timeouts_at;
    assert_eq!(t[0], Time(464 * MS));
    for (i, w) in t.windows(2).enumerate() {
        assert_eq!(w[1] - w[0], Dur::from_millis(214 << (i + 1).min(6)), "timeout {i}");
    }
    let late: Vec<Time> = d.sent.iter().filter(|x| x.at > Time(400 * MS)).map(|x| x.at).collect();
    assert_eq!(&late[..], &t[..], "exactly one packet per timeout");
    assert!(d.sent.iter().filter(|x| x.at > Time(400 * MS)).all(|x| x.n == 1));
    assert_eq!((d.s.stats().max_window, d.sent.len()), (8, 15 + t.len()));
}

#[test]
fn after_a_loss_reaction_windows_go_on_every_r() {
    // Seq 9 (window 3, sent at 325 ms) is lost; the ACKs of 10, 11, 12 (437.5, 450, 462.5 ms)
    // trigger the reaction at 462.5 ms, while window 4 (16 packets from 400 ms) is being sent.
    let mut d = Driver::new(IftpConfig { ssthresh: 16, ..cfg() }, |seq| (seq != 9).then_some(R));
    d.run_until(Time(800 * MS));
    let st = d.s.stats();
    assert_eq!((st.losses_detected, st.timeouts), (1, 0));
    let starts = d.starts();
    let sizes: Vec<usize> = d.windows().iter().map(|x| x.0).collect();
    // Window 4 is cut after 10 packets (400 + k x 6.25 ms, k < 10); the reaction's window of
    // 16/2 = 8 starts at once, and the next windows follow every R without waiting for its ACKs
    // (its last ACK arrives at 650 ms), growing by one (ssthresh = 8).
    assert_eq!(&sizes[..8], [1, 2, 4, 8, 10, 8, 9, 10]);
    assert_eq!(starts[5..8], [Time(462_500_000), Time(562_500_000), Time(662_500_000)]);
    assert_eq!(d.s.loss_phase(), None, "ended by the ACK of prev_last (seq 24) at 556.25 ms");
    d.seqs_strictly_increase();
}

#[test]
fn the_window_does_not_grow_while_the_loss_phase_lasts() {
    // As in the test above (seq 9 lost, reaction at 462.5 ms with prev_last = 24), but prev_last
    // is lost too and the queue has grown: packets from 25 on take 150 ms. The phase ends with
    // the first ACK at or above 24, that of 25 (sent at 462.5 ms) at 612.5 ms, after the boundary
    // of 562.5 ms: that window keeps n = 8 (Fig. 1 counts no ACK of the loss phase towards
    // growth; TCP does not open cwnd in fast recovery).
    let mut d = Driver::new(IftpConfig { ssthresh: 16, ..cfg() }, |seq| match seq {
        9 | 24 => None,
        s if s >= 25 => Some(Dur::from_millis(150)),
        _ => Some(R),
    });
    d.run_until(Time(800 * MS));
    let w = d.windows();
    let sizes: Vec<usize> = w.iter().map(|x| x.0).take(7).collect();
    assert_eq!(sizes, [1, 2, 4, 8, 10, 8, 8]);
    let ns: Vec<u32> = w.iter().map(|x| x.1).take(8).collect();
    assert_eq!(ns, [1, 2, 4, 8, 16, 8, 8, 9]);
    // The window after grows: it waits for the last ACK of the reaction's window (seq 32, sent
    // at 550 ms, back at 700 ms), the longer round trip slowing the windows down.
    assert_eq!(d.starts()[6..8], [Time(562_500_000), Time(700 * MS)]);
    assert_eq!((d.s.stats().losses_detected, d.s.stats().loss_phase_exits), (1, 1));
    d.seqs_strictly_increase();
}

#[test]
fn timer_follows_eq_9_on_the_ms_grid_and_is_rearmed_by_each_ack() {
    // RTTs of 100, then 60 ms, then 100 ms: srtt 100 -> 95, rttvar 50 -> 47.5 (as in rto.rs).
    let mut d = Driver::new(cfg(), |seq| Some(if seq == 1 { Dur::from_millis(60) } else { R }));
    assert_eq!(d.s.rto_deadline(), Some(Time(3_000 * MS)), "armed by the first send: initial_rto");
    d.run_until(Time(100 * MS));
    assert_eq!(d.s.rto_deadline(), Some(Time(401 * MS)));
    d.run_until(Time(160 * MS)); // seq 1 sent at 100 ms, ACKed at 160 ms
    assert_eq!(d.s.srtt(), Some(Dur::from_millis(95)));
    assert_eq!(d.s.rttvar(), Dur(47_500_000));
    assert_eq!(d.s.rto_deadline(), Some(Time((160 + 286) * MS)), "95 + 4 x 47.5 + 1 ms");
    assert_eq!(d.s.rto(), Dur::from_millis(286));
}

#[test]
fn backoff_doubles_to_64_then_resets_and_settles_at_section_5_3s_64_ms() {
    // A 0.1 ms path: srtt + 4 rttvar = 0.3 ms rounds to 0, so the timer is backoff x 1 ms.
    let mut d = Driver::new(cfg(), |seq| (seq == 0).then_some(Dur::from_micros(100)));
    d.run_until(Time(1_000 * MS));
    let t = &d.timeouts_at;
    assert!(t.len() > 16);
    assert_eq!(t[0], Time(100_000 + MS), "1 ms after the only ACK");
    let gaps: Vec<u64> = t.windows(2).map(|w| (w[1] - w[0]).0 / MS).take(9).collect();
    assert_eq!(gaps, [2, 4, 8, 16, 32, 64, 64, 64, 64]);
    assert!(t.windows(2).all(|w| (w[1] - w[0]).0 % MS == 0));
    assert_eq!(d.s.backoff(), 64);
    // One packet per timeout (§5.3): the rate settles at P / 64 ms; eq. (27) also counts tau
    // (its timer starts after the packet's last bit).
    let late: Vec<&Time> = t.iter().filter(|&&x| x > Time(200 * MS)).collect();
    let sends = d.sent.iter().filter(|x| x.at > Time(200 * MS)).count();
    assert_eq!(sends, late.len(), "exactly one packet per timeout");
    let rate = 8000.0 / 0.064;
    assert!(model::worst_case(8000.0, TAU.as_secs_f64()) < rate && rate < model::worst_case(8000.0, 0.0) * 1.0001);
    assert_eq!((d.s.window(), d.s.ssthresh()), (1, 2));
    // When the backoff ends (`BackoffReset`): the ACK of the packet sent at the last timeout
    // ends it only under `Ack`; the ACK of a packet sent after it, under `AfterProbe` too.
    for (rule, after_probe_ack, after_next_ack) in
        [(BackoffReset::AfterProbe, 64, 1), (BackoffReset::Ack, 1, 1), (BackoffReset::Never, 64, 64)]
    {
        let mut d =
            Driver::new(IftpConfig { backoff_reset: rule, ..cfg() }, |seq| (seq == 0).then_some(Dur::from_micros(100)));
        d.run_until(Time(1_000 * MS));
        assert_eq!(d.s.backoff(), 64);
        let probe = d.sent.last().unwrap().d;
        d.now += Dur::from_micros(100);
        d.s.handle_ack(d.now, &IftpAck { flow: 0, seq: probe.seq, echo: probe.sent_at });
        assert_eq!(d.s.backoff(), after_probe_ack, "{rule:?}: the probe's ACK");
        // Its ACK lets the window of two go (slow start): ACK the first of them.
        d.drain();
        let next = d.sent.last().unwrap().d;
        assert!(next.seq > probe.seq);
        d.now += Dur::from_micros(100);
        d.s.handle_ack(d.now, &IftpAck { flow: 0, seq: next.seq, echo: next.sent_at });
        assert_eq!(d.s.backoff(), after_next_ack, "{rule:?}: a later packet's ACK");
    }
}

#[test]
fn timeout_sets_n_to_1_ssthresh_to_half_and_g_to_r_minus_tau() {
    // Windows 1, 2, 4 answered (seqs 0..=6); windows of 8 and 16 start at 300 and 400 ms (the
    // window two before each was complete); at 500 ms the window of 8 is not, and nothing else
    // comes back.
    let mut d = Driver::new(cfg(), |seq| (seq < 7).then_some(R));
    d.run_until(Time(505 * MS));
    assert_eq!((d.s.window(), d.s.window_packets(), d.sent.len()), (16, 16, 31));
    let deadline = d.s.rto_deadline().unwrap();
    assert_eq!(deadline, Time(375 * MS) + d.s.rto(), "counted from the last ACK");
    d.run_until(deadline);
    assert_eq!(d.timeouts_at, [deadline]);
    let s = &d.s;
    // Fig. 1 / §4: ssthresh = max(n/2, 2) = 8, n = 1, G = R - tau; a window of one packet.
    assert_eq!((s.ssthresh(), s.window(), s.window_packets(), s.gap()), (8, 1, 1, R - TAU));
    assert_eq!((d.sent.len(), d.sent[31].at, d.sent[31].d.seq), (32, deadline, 31));
    assert_eq!(s.rto_deadline(), Some(deadline + s.rto()));
    assert_eq!(s.backoff(), 2);
    // After a timeout the next window waits for this packet's ACK, even past R: here it takes
    // 130 ms, and nothing is sent at deadline + R.
    d.run_until(deadline + Dur::from_millis(129));
    assert_eq!(d.sent.len(), 32);
    d.now = deadline + Dur::from_millis(130);
    d.s.handle_ack(d.now, &IftpAck { flow: 0, seq: 31, echo: deadline });
    d.drain();
    // Its ACK: slow start again (1 < 8), the window of two at once. The backoff outlives the
    // ACK of the packet sent at the timeout (`BackoffReset::AfterProbe`, as TCP's outlives its
    // retransmission's) and ends with the next packet's.
    assert_eq!((d.s.window(), d.s.backoff()), (2, 2));
    assert_eq!((d.sent.len(), d.sent[32].at), (33, d.now));
    d.now += Dur::from_millis(100);
    d.s.handle_ack(d.now, &IftpAck { flow: 0, seq: 32, echo: d.sent[32].at });
    assert_eq!(d.s.backoff(), 1);
    d.seqs_strictly_increase();
}

#[test]
fn extended_mode_sends_s_times_n_packets_with_g_m() {
    for s in [2.0, 1.5, 0.5] {
        let mut d = Driver::new(IftpConfig { scale: s, w_max: 8, ..cfg() }, |_| Some(R));
        d.run_until(Time(2_000 * MS));
        let w = d.windows();
        assert_eq!(w[0].0, 1, "the first window is one packet: there is no R yet");
        for &(k, n, gm, spacing) in &w[1..6] {
            assert_eq!(k as f64, (s * n as f64).round().max(1.0), "S {s}, n {n}");
            // §3.2: G_m = [G - tau (S - 1)] / S with G = R/n - tau, i.e. R/(S n) - tau.
            let g = R.0 as f64 / n as f64 - TAU.0 as f64;
            let want = (g - TAU.0 as f64 * (s - 1.0)) / s;
            assert!((gm.0 as f64 - want).abs() <= 0.5, "S {s}, n {n}: {gm} vs {want}");
            if k > 1 {
                assert_eq!(spacing, Some(gm + TAU));
            }
        }
        let sizes: Vec<usize> = w.iter().map(|x| x.0).take(6).collect();
        let want: &[usize] = match s {
            2.0 => &[1, 4, 8, 16, 16, 16],
            1.5 => &[1, 3, 6, 12, 12, 12],
            _ => &[1, 1, 2, 4, 4, 4], // round(0.5 x 2) = 1
        };
        assert_eq!(sizes, want, "S {s}: round(S n), n = 1, 2, 4, 8 (W_max)");
        assert_eq!(d.s.stats().timeouts, 0, "ack_count counts round(S n) ACKs, so windows complete");
        // round(S n) packets G_m + tau = R/(S n) apart span R here (S n is whole): one per R.
        let starts = d.starts();
        assert!(starts[1..8].windows(2).all(|p| p[1] - p[0] == R), "S {s}: {starts:?}");
    }
    // Exact G_m: S = 2, n = 2: (49.2 - 0.8) / 2 = 24.2 ms; the standard G is kept beside it.
    let mut d = Driver::new(IftpConfig { scale: 2.0, ..cfg() }, |_| Some(R));
    d.run_until(Time(100 * MS));
    assert_eq!((d.s.gap(), d.s.gap_standard()), (Dur(24_200_000), Dur(49_200_000)));
    // After a timeout: n = 1, a window of round(1.5) = 2 packets.
    let mut d = Driver::new(IftpConfig { scale: 1.5, ..cfg() }, |seq| (seq == 0).then_some(R));
    d.run_until(Time(1_000 * MS));
    assert_eq!((d.s.stats().timeouts, d.s.window(), d.s.window_packets()), (1, 1, 2));
}

#[test]
fn a_negative_gap_is_clamped_to_zero_and_the_link_rate_paces() {
    let r = Dur::from_millis(10);
    let mut d = Driver::new(IftpConfig { ssthresh: 64, w_max: 64, ..cfg() }, move |_| Some(r));
    d.run_until(Time(200 * MS));
    let w = d.windows();
    // n = 16: R/n = 0.625 ms < tau = 0.8 ms.
    let big = w.iter().find(|x| x.1 == 16).unwrap();
    assert_eq!((big.2, big.3), (Dur::ZERO, Some(TAU)));
    assert!(d.s.gap_log().iter().all(|&(_, g)| g <= r));
}

#[test]
fn finite_transfer_is_done_when_the_last_packet_is_sent() {
    let mut d = Driver::new(IftpConfig { packets: Some(10), ..cfg() }, |_| Some(R));
    d.run_until(Time(5_000 * MS));
    let sizes: Vec<usize> = d.windows().iter().map(|x| x.0).collect();
    assert_eq!(sizes, [1, 2, 4, 3], "the last window holds what is left");
    assert_eq!(model::ideal_rounds(10, 32, 50), Some(4));
    assert!(d.s.is_done());
    let last = d.sent.last().unwrap();
    assert_eq!((last.d.seq, d.s.finished_at()), (9, Some(last.at)));
    assert_eq!(d.s.last_ack_at(), Some(last.at + R));
    assert_eq!((d.s.poll_timeout(), d.s.rto_deadline()), (None, None), "nothing owed: no timers");
    // The last packet lost: done all the same, no last ACK.
    let mut d = Driver::new(IftpConfig { packets: Some(10), ..cfg() }, |seq| (seq != 9).then_some(R));
    d.run_until(Time(5_000 * MS));
    assert!(d.s.is_done() && d.s.last_ack_at().is_none() && d.s.finished_at().is_some());
    assert_eq!(d.s.stats().timeouts, 0);
}

#[test]
fn lossless_transfers_take_the_ideal_models_rounds_and_time() {
    // The packets per adjustment period of a lossless sender are §5.1's windows, so its number of
    // windows for N packets is eqs. (17)-(19)'s denominator k. And with one window per R the time
    // matches too: the first packet goes at 0, its ACK at R sets R and starts window 1, and window
    // i starts at exactly i x R, so the last packet leaves in [(k - 1) R, k R), within one R
    // before the model's T = k x R (eqs. (11)-(14)), and its ACK arrives in [k R, (k + 1) R).
    for n in [1u64, 2, 7, 63, 64, 200, 810, 811, 3000] {
        let mut d = Driver::new(IftpConfig { packets: Some(n), ..cfg() }, |_| Some(R));
        d.run_until(Time::from_secs_f64(1_000.0));
        let k = model::ideal_rounds(n, 32, 50).unwrap();
        assert_eq!(d.s.stats().windows, k, "N {n}");
        for (i, &t) in d.starts().iter().enumerate() {
            assert_eq!(t, Time(i as u64 * R.0), "N {n}, window {i}");
        }
        let (done, ack) = (d.s.finished_at().unwrap(), d.s.last_ack_at().unwrap());
        assert!(done >= Time((k - 1) * R.0) && done < Time(k * R.0), "N {n}: last send at {done}, k = {k}");
        assert_eq!(ack, whole_micros(done) + R, "R after the stamp");
        assert_eq!(d.s.stats().timeouts, 0);
    }
}

#[test]
fn gap_summary_weights_by_time_and_by_packet() {
    let mut d = Driver::new(cfg(), |_| Some(R));
    d.run_until(Time(280 * MS));
    // G = 49.2 ms from 100 to 200 ms, 24.2 ms from 200 to 280 ms; packets: 2 then 4.
    assert_eq!(d.s.gap_log(), [(Time(100 * MS), Dur(49_200_000)), (Time(200 * MS), Dur(24_200_000))]);
    let g = d.s.gap_summary(Time(280 * MS)).unwrap();
    let (a, b) = (0.0492f64, 0.0242f64);
    let mean = (a * 0.1 + b * 0.08) / 0.18;
    let sd = ((a * a * 0.1 + b * b * 0.08) / 0.18 - mean * mean).sqrt();
    assert!((g.mean.as_secs_f64() - mean).abs() < 1e-9 && (g.stdev.as_secs_f64() - sd).abs() < 1e-9);
    let pm = (2.0 * a + 4.0 * b) / 6.0;
    let psd = ((2.0 * a * a + 4.0 * b * b) / 6.0 - pm * pm).sqrt();
    assert_eq!(g.packets, 6);
    assert!((g.per_packet_mean.as_secs_f64() - pm).abs() < 1e-9);
    assert!((g.per_packet_stdev.as_secs_f64() - psd).abs() < 1e-9);
    assert!(IftpSender::new(cfg()).unwrap().gap_summary(Time(MS)).is_none());
}

#[test]
fn stop_restart_and_datagrams() {
    let mut d = Driver::new(cfg(), |_| Some(R));
    d.run_until(Time(300 * MS));
    let sent = d.sent.len() as u64;
    d.s.stop(d.now);
    assert_eq!(d.s.poll_timeout(), None);
    d.run_until(Time(1_000 * MS));
    assert!(d.s.poll_transmit(Time(1_000 * MS)).is_none());
    assert_eq!(d.sent.len() as u64, sent);
    d.s.start(Time(2_000 * MS));
    assert_eq!((d.s.window(), d.s.srtt(), d.s.ssthresh()), (1, None, 32), "a fresh start");
    let t = d.s.poll_transmit(Time(2_000 * MS)).unwrap();
    let p = t.msg;
    assert_eq!(p.seq, sent, "numbering goes on");
    assert_eq!((t.size.0, t.payload.0), (1000, 1000 - 18), "the header is not the application's");
    // Bytes: the packet is the configured size and decodes; an ACK datagram is handled.
    let mut b = vec![];
    d.s.encode(&t, &mut b);
    assert_eq!(b.len(), 1000);
    let Message::Data(h) = Message::decode(&b).unwrap().0 else { panic!("not data") };
    assert_eq!((h.seq as u64, h.send_time_us), (p.seq, 2_000_000));
    d.s.handle_datagram(Time(2_100 * MS), &b, Arrival::default()).unwrap();
    assert_eq!(d.s.stats().data_ignored, 1);
    let mut a = vec![];
    AckHeader { flow: 0, seq: p.seq as u32, echo_time_us: h.send_time_us }.encode(&mut a);
    d.s.handle_datagram(Time(2_100 * MS), &a, Arrival::default()).unwrap();
    assert_eq!((d.s.srtt(), d.s.window()), (Some(R), 2));
    assert!(d.s.handle_datagram(Time(2_100 * MS), &a[..3], Arrival::default()).is_err());
}

#[test]
fn random_ack_streams_never_break_the_sender() {
    for seed in 0..40u64 {
        let mut rng = Rng::from_seed(seed);
        let cfg = IftpConfig {
            scale: [1.0, 1.5, 0.7, 3.0][seed as usize % 4],
            w_max: 1 + rng.below(60) as u32,
            ssthresh: 1 + rng.below(40) as u32,
            after_missing_thresh: 1 + rng.below(5) as u32,
            packets: (seed % 3 == 0).then(|| 1 + rng.below(3000)),
            link_rate: Rate(1_000_000 + rng.below(100_000_000)),
            ..Default::default()
        };
        let mut s = IftpSender::new(cfg.clone()).unwrap();
        let mut now = Time(rng.below(1_000) * MS);
        s.start(now);
        let mut sent: Vec<IftpData> = vec![];
        let mut max_srtt = Dur::ZERO;
        for _ in 0..6_000 {
            now += Dur(rng.below(20 * MS));
            match rng.below(10) {
                // A real ACK of some packet sent (reordered, duplicated, late), with a random delay.
                0..=4 if !sent.is_empty() => {
                    let p = sent[sent.len() - 1 - rng.below(sent.len().min(80) as u64) as usize];
                    s.handle_ack(now, &IftpAck { flow: p.flow, seq: p.seq, echo: p.sent_at });
                }
                // Garbage: unsent sequence numbers, impossible echoes, other flows.
                5 => {
                    let seq = s.next_seq() + rng.below(50);
                    let before = s.stats().acks_ignored;
                    s.handle_ack(now, &IftpAck { flow: 0, seq, echo: now });
                    assert_eq!(s.stats().acks_ignored, before + 1, "an ACK for an unsent packet is ignored");
                }
                6 => {
                    let seq = rng.below(s.next_seq() + 2);
                    let echo = Time(rng.next_u64() >> rng.below(64));
                    s.handle_ack(now, &IftpAck { flow: rng.below(2) as u32, seq, echo });
                }
                7 => {
                    let mut b: Vec<u8> = (0..rng.below(20)).map(|_| rng.next_u64() as u8).collect();
                    if b.len() >= 2 {
                        b[0] = 1;
                        b[1] = 1;
                    }
                    let _ = s.handle_datagram(now, &b, Arrival::default());
                }
                // Time going backwards.
                8 => s.handle_timeout(Time(now.0.saturating_sub(rng.below(100 * MS)))),
                // Wake when asked, but never more than 5 s on (ACKs echoing long-gone sends make
                // huge samples, and the backoff multiplies them).
                _ => {
                    if let Some(t) = s.poll_timeout() {
                        now = now.max(t.min(now + Dur::from_secs(5)));
                    }
                    s.handle_timeout(now);
                }
            }
            while let Some(p) = s.poll_transmit(now).map(|t| t.msg) {
                assert_eq!(p.seq, sent.len() as u64, "seed {seed}: no number twice, none skipped");
                assert!(p.sent_at <= now);
                sent.push(p);
            }
            assert!(s.window() >= 1 && s.window() <= cfg.w_max, "seed {seed}");
            assert!(s.ssthresh() >= 1 && s.backoff() <= 64);
            assert!(s.window_packets() as f64 <= (cfg.scale * cfg.w_max as f64).round().max(1.0));
            max_srtt = max_srtt.max(s.srtt().unwrap_or(Dur::ZERO));
            // G = R/n - tau <= R and G_m = R/(S n) - tau <= R/S, for the R it was set with.
            assert!(s.gap_standard() <= max_srtt);
            assert!(s.gap().as_secs_f64() <= max_srtt.as_secs_f64() / cfg.scale + 1e-9);
            assert_eq!(s.poll_timeout().is_some(), !s.is_done(), "seed {seed}: a live sender always has a timer");
            assert_eq!(s.stats().sent, sent.len() as u64);
        }
        assert!(sent.len() > 10 || s.is_done(), "seed {seed}: {}", sent.len());
        assert!(now < Time::from_secs_f64(1e5), "seed {seed}: the test's clock ran away");
        if let Some(n) = cfg.packets {
            assert!(sent.len() as u64 <= n);
        }
    }
}

/// Issue 12: a forged acknowledgement of packet 0, sent again and again once the window has moved
/// on, must never grow the window. (It is still taken as a late ACK: its echo gives an RTT
/// sample. The sender keeps no per-packet send times to tell a forged echo from a real one.)
#[test]
fn a_replayed_or_forged_ack_of_packet_0_never_grows_the_window() {
    let mut d = Driver::new(cfg(), |_| Some(R));
    d.run_until(Time(2_000 * MS));
    let first = d.sent[0];
    let w = d.s.window();
    assert!(w > 1 && d.sent.len() > 20, "the window grew on real ACKs ({w})");
    let now = d.now;
    for echo in [first.d.sent_at, first.at, now, Time::ZERO, Time::MAX] {
        for _ in 0..100 {
            d.s.handle_ack(now, &IftpAck { flow: first.d.flow, seq: 0, echo });
            while d.s.poll_transmit(now).is_some() {}
        }
    }
    assert_eq!(d.s.window(), w, "500 copies of an ACK of packet 0");
    // An ACK of a packet beyond what was sent, or of another flow, is not taken at all.
    let (next, acks) = (d.s.next_seq(), d.s.stats().acks);
    d.s.handle_ack(now, &IftpAck { flow: first.d.flow, seq: next, echo: now });
    d.s.handle_ack(now, &IftpAck { flow: first.d.flow + 1, seq: next - 1, echo: now });
    assert_eq!((d.s.window(), d.s.stats().acks), (w, acks));
}

fn figure1() -> IftpConfig {
    IftpConfig { reading: Reading::Figure1, ..cfg() }
}

#[test]
fn figure1_sends_a_window_only_when_every_ack_of_the_last_is_in() {
    let mut d = Driver::new(figure1(), |_| Some(R));
    d.run_until(Time(4_000 * MS));
    d.seqs_strictly_increase();
    let w = d.windows();
    let sizes: Vec<usize> = w.iter().map(|x| x.0).collect();
    assert_eq!(&sizes[..8], [1, 2, 4, 8, 16, 32, 33, 34], "the same growth as the prose's");
    for &(k, n, gap, spacing) in &w[1..8] {
        assert_eq!(k, n as usize);
        assert_eq!(gap, gap_for(R, n as u64), "G = srtt/n - tau, n {n}");
        assert_eq!(spacing, Some(gap + TAU), "n {n}");
    }
    // `ack_count == n`: window k + 1 leaves when the ACK of window k's last packet arrives (R
    // after its stamp), so a window of n packets spread over R takes (n - 1) R/n + R.
    let starts = d.starts();
    for k in 0..7 {
        let last = d.sent.iter().rfind(|x| x.window == w_index(&d, k)).unwrap();
        assert_eq!(starts[k + 1], last.d.sent_at + R, "window {k}");
    }
    for k in 4..7 {
        let n = w[k].1 as f64;
        let period = (starts[k + 1] - starts[k]).as_secs_f64() / R.as_secs_f64();
        assert!((period - (2.0 - 1.0 / n)).abs() < 1e-3, "window {k} of {n}: {period} R");
    }
    assert_eq!(d.s.period_end(), None, "no adjustment period");
    assert_eq!(d.s.stats().timeouts, 0);
}

/// The `stats().windows` count of the k-th window sent.
fn w_index(d: &Driver, k: usize) -> u64 {
    let mut ids: Vec<u64> = d.sent.iter().map(|x| x.window).collect();
    ids.dedup();
    ids[k]
}

#[test]
fn figure1_stalls_until_the_timer_when_a_window_ends_in_a_loss() {
    // Windows of 1, 2, 4 and 8 packets: seq 0, 1-2, 3-6, 7-14. The last packet of the window of
    // eight is lost: no ACK follows it, so Fig. 1 never sees a gap and `ack_count` stops at 7.
    let lost = |seq: u64| (seq != 14).then_some(R);
    let mut d = Driver::new(IftpConfig { ssthresh: 8, ..figure1() }, lost);
    d.run_until(Time(2_000 * MS));
    let st = d.s.stats();
    assert_eq!((st.losses_detected, st.timeouts), (0, 1), "{st:?}");
    let stalled = d.sent.iter().find(|x| x.d.seq == 14).unwrap().at;
    assert_eq!(d.sent[15].d.seq, 15);
    assert!(d.sent[15].at >= d.timeouts_at[0] && d.timeouts_at[0] > stalled + R, "nothing until the timer");
    assert_eq!((d.sent[15].n, d.s.ssthresh()), (1, 4), "one packet after the timeout; ssthresh n/2");
    // The prose's sender sends its next window at the period's end, and its ACKs reveal the loss.
    let mut p = Driver::new(IftpConfig { ssthresh: 8, ..cfg() }, lost);
    p.run_until(Time(2_000 * MS));
    let st = p.s.stats();
    assert_eq!((st.losses_detected, st.timeouts), (1, 0), "{st:?}");
}

#[test]
fn figure1_halves_on_three_acks_after_a_loss_and_exits_at_prev_last() {
    // The window of eight is seq 7-14; seq 9 is lost. ACKs 10, 11 and 12 are above `una` = 9:
    // the third halves n (eq. (6)) and sends the window of four (15-18) with prev_last = 14.
    let mut d = Driver::new(IftpConfig { ssthresh: 8, ..figure1() }, |seq| (seq != 9).then_some(R));
    d.run_until(Time(2_000 * MS));
    let st = d.s.stats();
    assert_eq!((st.losses_detected, st.loss_phase_exits, st.timeouts), (1, 1, 0), "{st:?}");
    let w = d.windows();
    let sizes: Vec<usize> = w.iter().map(|x| x.0).take(7).collect();
    // After the ACK of 14 ends the loss phase, the four ACKs of 15-18 complete the window of
    // four and congestion avoidance (n = ssthresh = 4) sends five.
    assert_eq!(sizes, [1, 2, 4, 8, 4, 5, 6]);
    assert_eq!(w[4].2, gap_for(R, 4), "G = srtt/n - tau with n = 4");
    let reaction = d.sent.iter().find(|x| x.d.seq == 15).unwrap().at;
    let third = d.sent.iter().find(|x| x.d.seq == 12).unwrap().d.sent_at + R;
    assert_eq!(reaction, third, "at the third ACK after the missing one");
}
