//! IFTP sender and receiver in a closed loop through a tiny path model written here: the
//! sender's access link (tau), a store-and-forward bottleneck (rate, propagation delay, drop-tail
//! buffer, optional Bernoulli loss), and a return path of constant delay for the ACKs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use fairway_core::{Dur, Rate, Rng, Time};

use super::model;
use super::{IftpAck, IftpConfig, IftpData, IftpReceiver, IftpSender};
use crate::endpoint::Endpoint;

/// A FIFO link: serialisation at `rate`, then `delay`. The buffer holds `limit` packets counting
/// the one on the wire; before that, each packet is lost with probability `loss`.
struct Bottleneck {
    rate: Rate,
    delay: Dur,
    limit: usize,
    loss: f64,
    rng: Rng,
    busy_until: Time,
    departures: VecDeque<Time>,
}

impl Bottleneck {
    fn new(rate: Rate, delay: Dur, limit: usize, loss: f64) -> Bottleneck {
        Bottleneck {
            rate,
            delay,
            limit,
            loss,
            rng: Rng::from_seed(77),
            busy_until: Time::ZERO,
            departures: VecDeque::new(),
        }
    }

    /// When a packet offered at `now` reaches the far end; `None` if lost or dropped.
    fn offer(&mut self, now: Time, size: fairway_core::Bytes) -> Option<Time> {
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        if self.rng.bernoulli(self.loss) || self.departures.len() >= self.limit {
            return None;
        }
        let done = now.max(self.busy_until) + self.rate.tx_time(size);
        self.busy_until = done;
        self.departures.push_back(done);
        Some(done + self.delay)
    }
}

enum Ev {
    Data(IftpData),
    Ack(IftpAck),
}

/// What happened to one flow.
#[derive(Default)]
struct Trace {
    sent: u64,
    dropped: u64,
    /// Arrival times at the receiver.
    delivered: Vec<Time>,
    /// n after every change, with its time.
    windows: Vec<(Time, u32)>,
}

struct Flow {
    sender: IftpSender,
    receiver: IftpReceiver,
    trace: Trace,
}

/// Runs one IFTP flow per config (flow ids 0, 1, ...) through `link`, all starting at 0.
fn run(cfgs: &[IftpConfig], mut link: Bottleneck, ack_delay: Dur, end: Time) -> Vec<Flow> {
    let mut flows: Vec<Flow> = cfgs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let cfg = IftpConfig { flow: i as u32, ..c.clone() };
            let mut sender = IftpSender::new(cfg).unwrap();
            sender.start(Time::ZERO);
            let trace = Trace { windows: vec![(Time::ZERO, 1)], ..Default::default() };
            Flow { sender, receiver: IftpReceiver::new(i as u32), trace }
        })
        .collect();
    let mut heap: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    let mut events: Vec<Option<Ev>> = vec![];
    let mut clock = Time::ZERO;
    loop {
        let te = heap.peek().map(|Reverse((t, _))| *t);
        let ts = flows.iter().filter_map(|f| f.sender.poll_timeout()).min();
        let Some(next) = [te, ts].into_iter().flatten().min() else { break };
        let now = next.max(clock);
        clock = now;
        if now > end {
            break;
        }
        if te == Some(next) {
            let Reverse((_, id)) = heap.pop().unwrap();
            match events[id].take().unwrap() {
                Ev::Data(d) => {
                    let f = &mut flows[d.flow as usize];
                    f.trace.delivered.push(now);
                    f.receiver.handle_data(now, &d);
                }
                Ev::Ack(a) => flows[a.flow as usize].sender.handle_ack(now, &a),
            }
        } else {
            for f in flows.iter_mut().filter(|f| f.sender.poll_timeout().is_some_and(|t| t <= now)) {
                f.sender.handle_timeout(now);
            }
        }
        for f in &mut flows {
            let (tau, size) = (f.sender.tau(), f.sender.config().packet_size);
            while let Some(d) = f.sender.poll_transmit(now).map(|t| t.msg) {
                assert_eq!(d.seq, f.trace.sent, "each sequence number once");
                f.trace.sent += 1;
                // The access link: the last bit leaves tau after the first (the sender paces at
                // least tau apart, so it never queues).
                match link.offer(now + tau, size) {
                    Some(at) => {
                        heap.push(Reverse((at, events.len())));
                        events.push(Some(Ev::Data(d)));
                    }
                    None => f.trace.dropped += 1,
                }
            }
            while let Some(a) = f.receiver.poll_transmit(now).map(|t| t.msg) {
                heap.push(Reverse((now + ack_delay, events.len())));
                events.push(Some(Ev::Ack(a)));
            }
            if f.trace.windows.last().unwrap().1 != f.sender.window() {
                f.trace.windows.push((now, f.sender.window()));
            }
        }
    }
    for (i, f) in flows.iter().enumerate() {
        // Conservation: every packet sent was delivered, dropped or is still in flight.
        let in_flight = events.iter().filter(|e| matches!(e, Some(Ev::Data(d)) if d.flow == i as u32)).count();
        assert_eq!(f.trace.sent, f.trace.delivered.len() as u64 + f.trace.dropped + in_flight as u64);
        assert_eq!(f.receiver.stats().received, f.trace.delivered.len() as u64);
    }
    flows
}

fn delivered_bps(trace: &Trace, from: Time, to: Time, packet_bits: f64) -> f64 {
    let k = trace.delivered.iter().filter(|&&t| t >= from && t < to).count();
    k as f64 * packet_bits / (to - from).as_secs_f64()
}

/// Every change of n is a slow-start doubling (capped at ssthresh), a congestion-avoidance +1, a
/// loss halving or a timeout's reset to 1. Returns (halvings, resets to 1, increases by one).
fn check_sawtooth(w: &[(Time, u32)]) -> (usize, usize, usize) {
    let (mut halvings, mut resets, mut plus_one) = (0, 0, 0);
    for p in w.windows(2) {
        let ((_, a), (t, b)) = (p[0], p[1]);
        if b == a + 1 {
            plus_one += 1;
        } else if b == 1 {
            resets += 1;
        } else if b == a / 2 {
            halvings += 1;
        } else {
            assert!(b > a && b <= 2 * a, "n {a} -> {b} at {t}");
        }
    }
    (halvings, resets, plus_one)
}

/// The largest n before each congestion event, the first (the end of slow start) left out. A
/// decrease within `merge` of the previous one belongs to the same event: a second halving when
/// the window sent right after a loss reaction meets the queue the first one left full.
fn event_peaks(w: &[(Time, u32)], merge: Dur) -> Vec<u32> {
    let mut peaks = vec![];
    let mut top = 0;
    let mut last: Option<Time> = None;
    for p in w.windows(2) {
        top = top.max(p[0].1);
        if p[1].1 < p[0].1 {
            if last.is_none_or(|l| p[1].0 > l + merge) {
                peaks.push(top);
            }
            last = Some(p[1].0);
            top = 0;
        }
    }
    peaks.into_iter().skip(1).collect()
}

#[test]
fn closed_loop_through_a_drop_tail_bottleneck_saws_at_capacity() {
    // elaarag2002 §6's kind of path: 1000-byte packets, a 1 Mb/s bottleneck, 10 ms each way, a
    // 25-packet buffer; W_max out of reach so that losses bound the window.
    let capacity = Rate(1_000_000);
    let cfg = IftpConfig { w_max: 1000, ..Default::default() };
    let link = Bottleneck::new(capacity, Dur::from_millis(10), 25, 0.0);
    let end = Time::from_secs_f64(120.0);
    let f = run(&[cfg], link, Dur::from_millis(10), end).pop().unwrap();
    let st = f.sender.stats();
    assert!(f.trace.dropped > 0);
    // Reasoned before the run. With one window per R, the sender's rate is n/R with R the smoothed
    // RTT, which includes the queue: like a TCP window, n packets are in flight, the bandwidth-
    // delay product (125 packets/s x 28.8 ms = 3.6) and the rest queued. The queue grows by one
    // packet per period in congestion avoidance and overflows when n passes about 25 + 3.6; the
    // following windows keep the ACKs flowing, so the ACK gap catches the drop (Reno's halving,
    // not the timer: the old 2R-period sender lost its tail drops to the timer, 13 timeouts and
    // no halving in 120 s). A cycle is n = ~15 -> ~30 at +1 per period of n/125 s, ~3 s, so some
    // 30-40 halvings in 120 s; timeouts only in the start-up (slow start overshoots while R is
    // still the empty path's).
    let (halvings, resets, plus_one) = check_sawtooth(&f.trace.windows);
    assert_eq!((halvings + resets) as u64, st.losses_detected + st.timeouts);
    assert!(halvings >= 20 && resets <= 3 && st.timeouts <= 3, "{halvings} {resets} {st:?}");
    assert!(plus_one >= 8 * (halvings + resets), "{halvings} {resets} {plus_one}");
    // Converges: every congestion event comes at about the same n, the buffer plus the bandwidth-
    // delay product (25 + 3.6 = 28.6) plus about one period of growth while the drop is detected,
    // or somewhat earlier: R is the smoothed RTT, which lags the queue, so the rate n/R
    // oscillates around the capacity (it overshoots after the queue has drained) and can
    // overflow the buffer with n in the low 20s. Some events halve twice (the window sent right
    // after a reaction meets the full queue: a new episode, as it would be for TCP), hence the
    // merging of decreases less than 0.5 s (about two RTTs) apart.
    let peaks = event_peaks(&f.trace.windows, Dur::from_millis(500));
    let (lo, hi) = (*peaks.iter().min().unwrap(), *peaks.iter().max().unwrap());
    assert!(peaks.len() >= 15 && lo >= 20 && hi <= 32, "event peaks {peaks:?}");
    // Long run: halving n from ~30 leaves ~15 packets in flight, over four times the bandwidth-
    // delay product, so the queue never empties and the bottleneck stays busy; only the start-up
    // is excluded. The old 2R-period sender delivered 0.87 C here; it cannot exceed C.
    let rate = delivered_bps(&f.trace, Time::from_secs_f64(20.0), end, 8000.0);
    let c = capacity.as_bps_f64();
    assert!(rate > 0.95 * c && rate <= c * 1.0001, "delivered {rate} b/s");
    // The RTT the sender sees is the path's: 20 ms propagation, 8.8 ms serialisation, plus at most
    // 25 x 8 ms of queue.
    let srtt = f.sender.srtt().unwrap();
    assert!(srtt >= Dur::from_micros(28_800) && srtt <= Dur::from_micros(228_800 + 10_000), "srtt {srtt}");
    let g = f.sender.gap_summary(end).unwrap();
    assert!(g.mean > Dur::ZERO && g.stdev > Dur::ZERO, "{g:?}");
    assert_eq!(f.receiver.stats().out_of_order, 0, "a FIFO path does not reorder");
}

#[test]
fn two_flows_share_a_drop_tail_bottleneck_and_halve_on_mid_window_drops() {
    // Two IFTP flows as in elaarag2002 §6.1 (there with two TCP flows too). Each halves on the drops
    // it sees (caught by the ACK gap: its pipelined windows keep ACKs flowing after a drop). Even
    // a synchronised halving of both leaves ~15 packets in flight against a bandwidth-delay
    // product of 3.6, so the bottleneck stays busy (the old 2R-period senders carried 0.97 C
    // together, with 24 timeouts).
    let capacity = Rate(1_000_000);
    let cfg = IftpConfig { w_max: 1000, ..Default::default() };
    let link = Bottleneck::new(capacity, Dur::from_millis(10), 25, 0.0);
    let end = Time::from_secs_f64(120.0);
    let flows = run(&[cfg.clone(), cfg], link, Dur::from_millis(10), end);
    let from = Time::from_secs_f64(20.0);
    let rates: Vec<f64> = flows.iter().map(|f| delivered_bps(&f.trace, from, end, 8000.0)).collect();
    let total: f64 = rates.iter().sum();
    let c = capacity.as_bps_f64();
    assert!(total > 0.95 * c && total <= c * 1.0001, "total {total} b/s");
    // Same protocol, same path: neither gets less than a quarter of what they carry together.
    assert!(rates.iter().all(|&r| r > 0.25 * total), "rates {rates:?}");
    for f in &flows {
        let (h, resets, plus_one) = check_sawtooth(&f.trace.windows);
        assert!(h >= 4 && resets <= 3 && plus_one >= 3 * (h + resets), "{h} {resets} {plus_one}");
    }
}

#[test]
fn bernoulli_loss_on_a_fat_path_lands_near_the_eq_26_bound() {
    // A 100 Mb/s path, 50 ms each way, never congested; each data packet lost with p = 0.01.
    // Eq. (26): theta <= sqrt(3/(2p)) P/R = 12.2 packets per R, about 978 kb/s.
    //
    // Where the rate should land, reasoned before the run (the band was set then). Windows are
    // pipelined, one per R, and follow the AIMD of Floyd and Fall's cycle, so the bound's 0.75 n
    // per R applies, with these departures from its periodic loss:
    // - Random rather than periodic loss: estimated at +7% (Mathis et al.'s 1.31 against 1.22).
    // - Reacting once per episode: losses among the ~n + 3 packets sent between a loss and its
    //   detection are ignored, so congestion events come at p/(1 + p(n + 3)), about 0.86 p with n
    //   around 13: +8% on the rate.
    // - The detection takes about one R, during which n grows once more: a few % more.
    // - Costs: integer halving, 1% of the packets not delivered, and short stalls (a tail loss
    //   of one window is caught by the next window's ACKs, 2-3 gaps later, not by the timer). A
    //   timeout needs three losses in a row or a window under after_missing_thresh: rare.
    // So about 1.1-1.2 x the bound, timeouts a small fraction of the reactions. Band [0.9, 1.3]:
    // a sender that lost ~20% to timeouts and stalls would fall under it (the old 2R-period
    // sender delivered 0.49 x the bound, with 111 timeouts against 231 loss reactions), one that
    // halved only every other episode would exceed it.
    // After the run (about 1.06, no timeout, 0.85 reactions per loss): the first two items
    // overlap. An AIMD that halves once per round with any loss already has 1.27/sqrt(p) (1.25
    // with integer windows), the 7% and most of the 8% together; a packet-level idealisation of
    // this sender (fixed RTT, detection at the third later ACK, no stalls) gives 1.07 x the bound
    // and 0.84 reactions per loss. The rest is the stalls.
    let p = 0.01;
    let cfg = IftpConfig { link_rate: Rate(100_000_000), w_max: 100_000, ..Default::default() };
    let link = Bottleneck::new(Rate(100_000_000), Dur::from_millis(50), 10_000, p);
    let end = Time::from_secs_f64(600.0);
    let r = run(&[cfg], link, Dur::from_millis(50), end).pop().unwrap();
    // R: 100 ms of propagation and two serialisations of 80 us.
    let rtt = 0.100_16;
    let srtt = r.sender.srtt().unwrap().as_secs_f64();
    assert!((srtt - rtt).abs() < 1e-6, "srtt {srtt}");
    let bound = model::nonideal_bound(p, 8000.0, rtt);
    let rate = delivered_bps(&r.trace, Time::from_secs_f64(50.0), end, 8000.0);
    let ratio = rate / bound;
    assert!((0.9..=1.3).contains(&ratio), "rate {rate} b/s = {ratio} x the eq. (26) bound {bound}");
    let st = r.sender.stats();
    // Every loss shows as a loss reaction or a timeout, at most once per episode; about 0.86 of
    // the losses start an episode (above).
    assert!(st.losses_detected + st.timeouts <= r.trace.dropped);
    assert!((st.losses_detected + st.timeouts) as f64 >= 0.7 * r.trace.dropped as f64, "{st:?}");
    assert!(st.timeouts * 20 <= st.losses_detected, "the ACK gap catches nearly every loss: {st:?}");
}
