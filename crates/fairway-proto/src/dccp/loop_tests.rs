//! A client and a server over a bottleneck (a rate, a DropTail buffer, a delay each way),
//! driven through the endpoint contract: the handshake, and CCID2 filling and sharing a link.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fairway_core::{Bytes, Dur, Rng, Time};

use super::packet::PacketType;
use super::*;
use crate::endpoint::{Arrival, Endpoint};
use crate::source::Greedy;
use crate::tfrc::TfrcConfig;

const MS: u64 = 1_000_000;

struct Path {
    /// Bits per second of the forward bottleneck; the reverse path is not a bottleneck.
    rate: u64,
    delay: Dur,
    /// Packets the forward buffer holds, the one being sent included.
    buffer: usize,
    /// The server lies: its Ack Vectors report lost packets as received (RFC 3540 §3's
    /// misbehaving receiver).
    liar: bool,
}

struct Outcome {
    snd: DccpSenderStats,
    rcv: DccpReceiverStats,
    /// The first packets each way, by type.
    first_kinds: Vec<(bool, PacketType)>,
    drops: u64,
    /// Application bytes delivered from `from` on.
    bytes_after: u64,
    /// CCID3's receiver's loss event rate at the end.
    rcv_p: f64,
}

fn run(cfg: DccpConfig, path: Path, end: Time, from: Time) -> Outcome {
    let mut s = DccpSender::new(cfg.clone(), Box::new(Greedy::new(Bytes(1000), None)), Rng::from_seed(1)).unwrap();
    let mut r = DccpReceiver::new(cfg).unwrap();
    // (arrival time, order, forward?, packet, payload)
    let mut heap: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
    let mut flying: Vec<Option<(bool, Packet, Bytes)>> = vec![];
    // When the forward link is free, and the departure times of what is queued on it.
    let mut link_free = Time::ZERO;
    let mut queued: std::collections::VecDeque<Time> = Default::default();
    let mut first_kinds = vec![];
    let mut drops = 0;
    let mut bytes_after = 0;
    let mut now = Time::ZERO;
    s.start(now);
    loop {
        while let Some(t) = s.poll_transmit(now) {
            if first_kinds.len() < 6 {
                first_kinds.push((true, t.msg.kind));
            }
            while queued.front().is_some_and(|&d| d <= now) {
                queued.pop_front();
            }
            if queued.len() >= path.buffer {
                drops += 1;
                continue;
            }
            let start = link_free.max(now);
            let done = start + Dur(t.size.0 * 8 * 1_000_000_000 / path.rate);
            link_free = done;
            queued.push_back(done);
            heap.push(Reverse((done + path.delay, flying.len() as u64)));
            flying.push(Some((true, t.msg, t.payload)));
        }
        while let Some(mut t) = r.poll_transmit(now) {
            if first_kinds.len() < 6 {
                first_kinds.push((false, t.msg.kind));
            }
            if let (true, Some(v)) = (path.liar, t.msg.options.ack_vector.as_mut()) {
                // State 3 (not received) becomes State 0; the echo stays what it was.
                for c in v.cells.iter_mut() {
                    if *c >> 6 == 3 {
                        *c &= 0x3f;
                    }
                }
            }
            if let (true, Some(li)) = (path.liar, t.msg.options.loss_intervals.as_mut()) {
                // CCID3: the two newest intervals reported as one without loss between them,
                // the older one's lossy part moved into its lossless part.
                if li.intervals.len() > 2 {
                    let (a, b) = (li.intervals[0], li.intervals[1]);
                    li.intervals[1].lossless_length = b.lossless_length + b.loss_length + a.lossless_length;
                    li.intervals[1].loss_length = a.loss_length;
                    li.intervals[1].data_length = a.data_length + b.data_length;
                    li.intervals.remove(0);
                }
            }
            heap.push(Reverse((now + path.delay, flying.len() as u64)));
            flying.push(Some((false, t.msg, t.payload)));
        }
        let arrival = heap.peek().map(|Reverse((t, _))| *t);
        let Some(next) = [arrival, s.poll_timeout(), r.poll_timeout()].into_iter().flatten().min() else { break };
        if next >= end {
            break;
        }
        now = next.max(now);
        if arrival == Some(now) {
            let Reverse((_, i)) = heap.pop().unwrap();
            let (fwd, p, payload) = flying[i as usize].take().unwrap();
            let a = Arrival { ce: false, size: Bytes(0), payload };
            if fwd {
                if now >= from {
                    bytes_after += payload.0;
                }
                r.handle(now, &p, a);
            } else {
                s.handle(now, &p, a);
            }
        } else {
            s.handle_timeout(now);
            r.handle_timeout(now);
        }
    }
    Outcome { snd: s.stats(), rcv: r.stats(), first_kinds, drops, bytes_after, rcv_p: r.ccid3_p(now) }
}

#[test]
fn the_handshake_negotiates_before_data_flows() {
    let o = run(
        DccpConfig::default(),
        Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 100, liar: false },
        Time(200 * MS),
        Time::ZERO,
    );
    use PacketType::*;
    // Request; Response; then the client in PARTOPEN acknowledges with its first data (§8.1.5).
    assert_eq!(&o.first_kinds[..3], &[(true, Request), (false, Response), (true, DataAck)]);
    assert_eq!(o.snd.requests_sent, 1);
    assert!(o.rcv.data_received > 0);
}

#[test]
fn a_lost_request_is_sent_again_after_a_second() {
    // A buffer of nothing: every forward packet is lost, so the client keeps asking, backing off
    // 1, 2, 4 s (§8.1.1).
    let o = run(
        DccpConfig::default(),
        Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 0, liar: false },
        Time(7_500 * MS),
        Time::ZERO,
    );
    assert_eq!(o.snd.requests_sent, 4, "at 0, 1, 3 and 7 s");
    assert_eq!(o.rcv.data_received, 0);
}

#[test]
fn ccid2_fills_a_bottleneck_and_halves_on_its_losses() {
    // 10 Mb/s, 20 ms RTT (25 packets of 1044 B in flight fill it), a 20-packet buffer.
    let o = run(
        DccpConfig::default(),
        Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 20, liar: false },
        Time(20_000 * MS),
        Time(5_000 * MS),
    );
    let goodput = o.bytes_after as f64 * 8.0 / 15.0;
    // Payload is 1000 of every 1044 bytes (20 IP + 24 DCCP, the DataAcks' header): at most
    // 9.58 Mb/s. A window that halves from at most 45 packets (the pipe plus the buffer) never
    // falls below the 25 that fill the link... so the link stays busy but for the timeouts.
    assert!(goodput > 0.9 * 9.58e6, "goodput {goodput}");
    assert!(goodput <= 9.58e6 * 1.0001, "goodput {goodput}");
    let c = o.snd.ccid2;
    assert!(c.congestion_events > 10, "{c:?}");
    assert!(c.lost >= c.congestion_events, "each event has at least one loss");
    assert_eq!(c.timeouts, 0, "{c:?}");
    eprintln!("{:?} {:?} drops {} goodput {goodput}", o.snd, o.rcv, o.drops);
    // Every drop is seen as a loss, but those of the last window, still in the pipe at the end.
    assert!(c.lost <= o.drops && o.drops - c.lost <= u64::from(c.pipe), "drops {} lost {}", o.drops, c.lost);
    assert!(c.cwnd <= 46, "cwnd {} above pipe + buffer", c.cwnd);
}

#[test]
fn ccid2_runs_cubic_as_its_window_and_still_fills_the_bottleneck() {
    // The same path with CUBIC (RFC 9438) growing and cutting CCID2's window: a cut to 0.7 of
    // at most 45 packets keeps more than the 25 that fill the link.
    let mut cfg = DccpConfig::default();
    cfg.ccid2.cc = "cubic";
    let o = run(
        cfg,
        Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 20, liar: false },
        Time(20_000 * MS),
        Time(5_000 * MS),
    );
    let goodput = o.bytes_after as f64 * 8.0 / 15.0;
    // At most 1000 of every 1036 bytes (a Data packet's headers) are payload: 9.65 Mb/s.
    assert!(goodput > 0.95 * 9.58e6 && goodput <= 9.66e6, "goodput {goodput}");
    let c = o.snd.ccid2;
    assert!(c.congestion_events > 5 && c.timeouts == 0, "{c:?}");
    assert!(c.cwnd <= 46, "cwnd {} above pipe + buffer", c.cwnd);
}

fn ccid3() -> DccpConfig {
    DccpConfig {
        ccid: Ccid::Three,
        ccid3: TfrcConfig { packet_size: Bytes(1000), ..ccid3::rfc4342_tfrc() },
        ..DccpConfig::default()
    }
}

#[test]
fn ccid3_negotiates_and_feeds_back_with_its_options() {
    let o = run(
        ccid3(),
        Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 100, liar: false },
        Time(3_000 * MS),
        Time::ZERO,
    );
    use PacketType::*;
    // Request, Response, the first data acknowledging it, then the first data's feedback.
    assert_eq!(&o.first_kinds[..4], &[(true, Request), (false, Response), (true, DataAck), (false, Ack)]);
    let c = o.snd.ccid3;
    assert_eq!(c.not_feedback, 0, "every Ack carried Elapsed Time, Receive Rate and Loss Intervals");
    assert!(c.feedback_received > 10, "{c:?}");
    // The 20 ms RTT, measured through Ack numbers and Elapsed Time (§10.1), plus at most the
    // 100-packet buffer's 84 ms of queueing (1044 B at 10 Mb/s: 0.835 ms each).
    let rtt = c.rtt.unwrap();
    assert!(rtt >= Dur(20 * MS) && rtt < Dur(104 * MS), "{rtt}");
}

#[test]
fn ccid3_fills_a_bottleneck_at_the_equations_rate() {
    let o = run(
        ccid3(),
        Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 20, liar: false },
        Time(60_000 * MS),
        Time(10_000 * MS),
    );
    let goodput = o.bytes_after as f64 * 8.0 / 50.0;
    // A Data packet is 1000 B of payload in 1036 (20 IP + 16 DCCP): at most 9.65 Mb/s. A
    // smooth rate with a buffer near the 25-packet pipe keeps the link busy.
    let most = 10e6 * 1000.0 / 1036.0;
    assert!(goodput > 0.9 * most && goodput <= most * 1.0001, "goodput {goodput}");
    let c = o.snd.ccid3;
    // The sender's p, from the reported Loss Intervals, is the receiver's own (§5), but for the
    // intervals' whole packets (the first one is synthetic, §6.3.1).
    assert!(c.p > 0.0 && (c.p / o.rcv_p - 1.0).abs() < 0.01, "{} vs {}", c.p, o.rcv_p);
    assert!(c.loss_events >= 10 && u64::from(c.loss_events) <= o.drops, "{c:?}, drops {}", o.drops);
    assert_eq!(c.nofeedback_expiries, 0);
    // The RTT: 20 ms plus at most the 20-packet buffer's 17 ms.
    let rtt = c.rtt.unwrap();
    assert!(rtt >= Dur(20 * MS) && rtt <= Dur(37 * MS), "{rtt}");
    // Feedback about once per RTT (§6): between one per 2 RTTs and two per RTT over the run.
    let per_rtt = c.feedback_received as f64 / (60.0 / rtt.as_secs_f64());
    assert!((0.5..=2.0).contains(&per_rtt), "{per_rtt} reports per RTT");
}

/// RFC 3540 §3 / RFC 4340 §12.2: an honest server's nonce echoes all check out through losses;
/// one that reports its losses as received is caught, a hidden packet's nonce being a coin the
/// server cannot call.
#[test]
fn the_ecn_nonce_echo_catches_a_server_that_hides_losses() {
    let cfg = DccpConfig { ecn: true, ..DccpConfig::default() };
    let path = |liar| Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 20, liar };
    let honest = run(cfg.clone(), path(false), Time(10_000 * MS), Time::ZERO);
    assert!(honest.drops > 10 && honest.snd.nonce_checks > 1000, "{:?}", honest.snd);
    assert_eq!(honest.snd.nonce_failures, 0);
    let liar = run(cfg, path(true), Time(10_000 * MS), Time::ZERO);
    // Each vector that hides a loss fails with probability 1/2 per hidden packet.
    assert!(liar.snd.nonce_failures > 10, "{:?}", liar.snd);
}

/// RFC 4342 §9.1: CCID3's loss intervals carry the nonce echo of their lossless parts; an
/// honest server's check out through losses, and one that hides a loss event (merging two
/// intervals, the lost packets counted as received) is caught.
#[test]
fn ccid3s_interval_echoes_catch_a_server_that_hides_a_loss_event() {
    let cfg = DccpConfig { ecn: true, ..ccid3() };
    let path = |liar| Path { rate: 10_000_000, delay: Dur(10 * MS), buffer: 20, liar };
    let honest = run(cfg.clone(), path(false), Time(20_000 * MS), Time::ZERO);
    assert!(honest.drops > 10 && honest.snd.nonce_checks > 1000, "{:?} drops {}", honest.snd, honest.drops);
    assert_eq!(honest.snd.nonce_failures, 0, "{:?}", honest.snd);
    let liar = run(cfg, path(true), Time(20_000 * MS), Time::ZERO);
    assert!(liar.snd.nonce_failures > 10, "{:?}", liar.snd);
}
