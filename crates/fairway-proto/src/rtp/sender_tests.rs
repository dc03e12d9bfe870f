//! The RTP sender and receiver together over a path of fixed delay: packetisation, pacing, the
//! window, and how reports turn into per-packet results.

use std::sync::{Arc, Mutex};

use fairway_core::{Bytes, Dur, Time};

use super::*;
use crate::rtp::receiver::{FeedbackInterval, RtpReceiver, RtpReceiverConfig};
use crate::rtp::sender::RECEIVER_EPOCH;

const MS: u64 = 1_000_000;

/// Frames of a fixed size at a fixed interval.
struct Frames {
    size: u64,
    every: Dur,
    next: Option<Time>,
}

impl MediaSource for Frames {
    fn start(&mut self, now: Time, _target: f64) {
        self.next = Some(now);
    }
    fn next_frame_at(&self) -> Option<Time> {
        self.next
    }
    fn frame(&mut self, _now: Time) -> Bytes {
        self.next = self.next.map(|t| t + self.every);
        Bytes(self.size)
    }
    fn skip_to(&mut self, now: Time) {
        self.next = self.next.map(|t| t.max(now));
    }
    fn set_target(&mut self, _now: Time, _target: f64) {}
    fn rate(&self) -> f64 {
        self.size as f64 * 8.0 / self.every.as_secs_f64()
    }
    fn fps(&self) -> f64 {
        1.0 / self.every.as_secs_f64()
    }
}

/// What a test controller saw.
#[derive(Default)]
struct Seen {
    results: Vec<PacketResult>,
    views: Vec<SenderView>,
}

/// A constant rate, an optional window and queue discard, recording what it is told.
struct Fixed {
    rate: f64,
    window: Option<u64>,
    discard_over: Option<u64>,
    seen: Arc<Mutex<Seen>>,
}

impl RateController for Fixed {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn on_feedback(&mut self, _now: Time, packets: &[PacketResult], view: &SenderView) {
        let mut s = self.seen.lock().unwrap();
        s.results.extend_from_slice(packets);
        s.views.push(*view);
    }
    fn target_rate(&self, _view: &SenderView) -> f64 {
        self.rate
    }
    fn pacing_rate(&self, _view: &SenderView) -> f64 {
        self.rate
    }
    fn window(&self, _view: &SenderView) -> Option<u64> {
        self.window
    }
    fn discard_queue(&self, view: &SenderView) -> bool {
        self.discard_over.is_some_and(|b| view.queue_bytes > b)
    }
    fn state(&self, _view: &SenderView) -> AgentState {
        AgentState::default()
    }
}

fn sender(size: u64, every_ms: u64, cc: Fixed) -> RtpSender {
    let src = Frames { size, every: Dur(every_ms * MS), next: None };
    RtpSender::new(
        RtpSenderConfig { max_payload: Bytes(1000), ..RtpSenderConfig::default() },
        Box::new(src),
        Box::new(cc),
    )
    .unwrap()
}

fn receiver(interval_ms: u64) -> RtpReceiver {
    RtpReceiver::new(RtpReceiverConfig {
        ssrc: 1,
        own_ssrc: 2,
        interval: FeedbackInterval::Fixed(Dur(interval_ms * MS)),
        ecn: false,
    })
    .unwrap()
}

/// The packets sent, as (time, transmit).
type Sent = Vec<(Time, Transmit<RtpPacket>)>;

/// Runs the two ends over a path of one-way delay `delay_ms` that loses the packets `lost`
/// picks, until `until_ms`; in wire mode each message goes through its bytes. Returns the
/// packets sent as (time, transmit) and when each arrived, by sequence number.
fn run(
    snd: &mut RtpSender,
    rcv: &mut RtpReceiver,
    delay_ms: u64,
    lost: impl Fn(u16) -> bool,
    until_ms: u64,
    wire: bool,
) -> (Sent, Vec<(u16, Time)>) {
    let delay = Dur(delay_ms * MS);
    let until = Time(until_ms * MS);
    let mut fwd: Vec<(Time, Transmit<RtpPacket>)> = vec![];
    let mut rev: Vec<(Time, Transmit<Feedback>)> = vec![];
    let (mut sent, mut arrived) = (vec![], vec![]);
    let mut now = Time::ZERO;
    snd.start(now);
    loop {
        // Deliver what is due, in order of arrival.
        fwd.sort_by_key(|x| x.0);
        while fwd.first().is_some_and(|x| x.0 <= now) {
            let (at, t) = fwd.remove(0);
            arrived.push((t.msg.header.seq, at));
            let a = Arrival { ce: false, size: t.size, payload: t.payload };
            if wire {
                let mut b = vec![];
                snd.encode(&t, &mut b);
                assert_eq!(b.len() as u64, t.size.0);
                rcv.handle_datagram(at, &b, a).unwrap();
            } else {
                rcv.handle(at, &t.msg, a);
            }
        }
        rev.sort_by_key(|x| x.0);
        while rev.first().is_some_and(|x| x.0 <= now) {
            let (at, t) = rev.remove(0);
            let a = Arrival { ce: false, size: t.size, payload: t.payload };
            if wire {
                let mut b = vec![];
                rcv.encode(&t, &mut b);
                assert_eq!(b.len() as u64, t.size.0);
                snd.handle_datagram(at, &b, a).unwrap();
            } else {
                snd.handle(at, &t.msg, a);
            }
        }
        snd.handle_timeout(now);
        while let Some(t) = snd.poll_transmit(now) {
            if !lost(t.msg.header.seq) {
                fwd.push((now + delay, t));
            }
            sent.push((now, t));
        }
        rcv.handle_timeout(now);
        while let Some(t) = rcv.poll_transmit(now) {
            rev.push((now + delay, t));
        }
        let next =
            [snd.poll_timeout(), rcv.poll_timeout(), fwd.iter().map(|x| x.0).min(), rev.iter().map(|x| x.0).min()]
                .into_iter()
                .flatten()
                .min();
        match next {
            Some(t) if t <= until => now = t.max(now),
            _ => break,
        }
    }
    (sent, arrived)
}

fn fixed(rate: f64, seen: &Arc<Mutex<Seen>>) -> Fixed {
    Fixed { rate, window: None, discard_over: None, seen: seen.clone() }
}

#[test]
fn a_frame_becomes_equal_packets_paced_at_the_rate_with_the_marker_on_the_last() {
    // 2500 bytes every 100 ms with 1000-byte packets: three packets of 833, 833, 834 bytes of
    // payload (plus 20 of header), 8 x 853 / 1 Mb/s = 6.824 ms apart.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut s = sender(2500, 100, fixed(1e6, &seen));
    let mut r = receiver(50);
    let (sent, _) = run(&mut s, &mut r, 10, |_| false, 250, false);
    let first: Vec<_> = sent.iter().take(3).collect();
    let payloads: Vec<u64> = first.iter().map(|x| x.1.payload.0).collect();
    assert_eq!(payloads, [833, 833, 834]);
    assert!(first.iter().all(|x| x.1.size.0 == x.1.payload.0 + 20));
    let markers: Vec<bool> = first.iter().map(|x| x.1.msg.header.marker).collect();
    assert_eq!(markers, [false, false, true]);
    assert_eq!(first[0].0, Time::ZERO);
    assert_eq!(first[1].0 - first[0].0, Dur::from_secs_f64(853.0 * 8.0 / 1e6));
    // Frames at 0, 100 and 200 ms: timestamps 0, 9000, 18000 ticks of 90 kHz.
    let ts: Vec<u32> = sent.iter().filter(|x| x.1.msg.header.marker).map(|x| x.1.msg.header.timestamp).collect();
    assert_eq!(ts, [0, 9000, 18000]);
    let seqs: Vec<u16> = sent.iter().map(|x| x.1.msg.header.seq).collect();
    assert_eq!(seqs, (0..9).collect::<Vec<u16>>());
    assert!(sent.iter().all(|x| x.1.msg.header.transport_seq == Some(x.1.msg.header.seq)));
}

/// Checks the results against what happened: each packet once, in order, lost ones lost,
/// arrival times within RFC 8888's resolution (half an ATO unit of rounding plus the report
/// timestamp's 2^-16 s).
fn check_results(seen: &Seen, sent: &[(Time, Transmit<RtpPacket>)], arrived: &[(u16, Time)], lost: &[u16]) {
    let tol = Dur::from_secs_f64(0.5 / 1024.0 + 1.0 / 65536.0);
    assert!(!seen.results.is_empty());
    for (i, p) in seen.results.iter().enumerate() {
        assert_eq!(p.seq, i as u64, "each packet once, in order");
        assert_eq!(p.sent_at, sent[i].0);
        assert_eq!(p.size, sent[i].1.size);
        match arrived.iter().find(|a| a.0 as u64 == p.seq) {
            Some(&(_, at)) => {
                // The sender reads the receiver's clock (here the same one) RECEIVER_EPOCH on.
                let got = Time(p.arrived_at.expect("arrived").0 - RECEIVER_EPOCH.0);
                assert!(got.0.abs_diff(at.0) <= tol.0, "seq {}: {got:?} vs {at:?}", p.seq);
            }
            None => {
                assert!(lost.contains(&(p.seq as u16)));
                assert_eq!(p.arrived_at, None, "seq {} reported lost", p.seq);
            }
        }
    }
}

#[test]
fn reports_become_per_packet_results_with_arrival_times_losses_and_the_round_trip() {
    for wire in [false, true] {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let mut s = sender(2500, 100, fixed(1e6, &seen));
        let mut r = receiver(50);
        let lost = [4u16, 5, 11];
        let (sent, arrived) = run(&mut s, &mut r, 30, |q| lost.contains(&q), 1000, wire);
        let seen = seen.lock().unwrap();
        check_results(&seen, &sent, &arrived, &lost);
        // Every packet sent by 900 ms is reported by 1000 ms (a report each 50 ms, 30 ms back).
        let reported = seen.results.len();
        assert!(sent.iter().filter(|x| x.0 <= Time(900 * MS)).count() <= reported, "wire {wire}");
        let st = s.stats();
        assert_eq!(st.reported_lost, 3);
        assert_eq!(st.reported_received as usize + 3, reported);
        // The round trip: 60 ms of path, to the resolution.
        let rtt = st.rtt.unwrap().as_secs_f64();
        assert!((rtt - 0.060).abs() <= 0.5 / 1024.0 + 1.0 / 65536.0, "rtt {rtt}");
        let unreported: u64 = sent[reported..].iter().map(|x| x.1.size.0).sum();
        assert_eq!(s.view(Time(1000 * MS)).in_flight, unreported);
    }
}

#[test]
fn a_window_holds_packets_until_reports_free_it() {
    // A window of 2000 bytes: two 853-byte packets (1706), not a third (2559), until a report.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let cc = Fixed { rate: 1e9, window: Some(2000), discard_over: None, seen: seen.clone() };
    let mut s = sender(2500, 1000, cc);
    let mut r = receiver(20);
    let (sent, _) = run(&mut s, &mut r, 30, |_| false, 500, false);
    assert_eq!(sent.len(), 3);
    assert!(sent[1].0 < Time(MS), "two back to back at the pacing rate");
    // The first report leaves 20 ms after the first arrival (30 ms) and takes 30 ms back.
    assert_eq!(sent[2].0, Time(80 * MS));
}

#[test]
fn a_controller_may_empty_the_queue() {
    // 5000-byte frames at 100 kb/s: a frame takes 400 ms to send, so the queue grows past 3000
    // bytes at the second frame, and the controller discards it.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let cc = Fixed { rate: 100e3, window: None, discard_over: Some(3000), seen: seen.clone() };
    let mut s = sender(5000, 100, cc);
    let mut r = receiver(50);
    let (sent, _) = run(&mut s, &mut r, 10, |_| false, 350, false);
    let st = s.stats();
    assert!(st.packets_discarded > 0);
    assert_eq!(st.packets_sent as usize, sent.len());
    assert!(st.queue_bytes <= 3000 + 1020);
}

#[test]
fn the_receivers_interval_follows_the_media_rate_under_rfc_8298() {
    // §4.2.2: 1 / min(50, max(2.5, rate / 10000)): 20 ms at 1 Mb/s and above 500 kb/s, 400 ms
    // at 25 kb/s and below, 100 ms at 100 kb/s.
    let f = FeedbackInterval::MediaRate;
    assert_eq!(f.at(1e6), Dur(20 * MS));
    assert_eq!(f.at(10e3), Dur(400 * MS));
    assert_eq!(f.at(100e3), Dur(100 * MS));
}

#[test]
fn report_timestamps_unwrap_continuously_whatever_the_receivers_clock_reads() {
    // The middle 32 bits wrap every 65536 s. Receiver clocks 0.5 s ahead of the sender's, and
    // 30 000 s behind it: reports 100 ms apart across the wrap keep their spacing, and every
    // arrival time (report time less up to 8 s) stays positive.
    use crate::rtp::rfc8888::ntp_middle;
    let secs = |s: f64| Time::from_secs_f64(s);
    for (sender_start, receiver_start) in [(0.1, 0.6), (40_000.0, 10_000.0), (10.0, 65_530.0)] {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let mut s = sender(1000, 100, fixed(1e6, &seen));
        let mut prev: Option<Time> = None;
        for k in 0..200 {
            let dt = 0.1 * k as f64;
            let got = s.unwrap_report_time(secs(sender_start + dt), ntp_middle(secs(receiver_start + dt)));
            assert!(got.0 > 8_000_000_000, "{got:?}");
            if let Some(p) = prev {
                let step = (got - p).as_secs_f64();
                assert!((step - 0.1).abs() < 2.0 / 65536.0, "step {step} at {k}");
            }
            prev = Some(got);
        }
    }
}

#[test]
fn under_rfc_8298_a_gap_between_frames_does_not_stretch_the_next_interval() {
    // 1 Mb/s as frames of 5 packets of 1250 bytes every 50 ms, each frame's packets 1 ms
    // apart: a 20 ms report often finds nothing new and the timer rests. The next report is
    // due one interval at the rate of the last second (20 ms) after the next packet, never 400
    // ms (the interval at no rate), which made SCReAM's feedback sparse through the full stack:
    // here at most 50 ms (a 20 ms report, the rest, 30 ms to the next frame, 20 ms after it).
    let mut r =
        RtpReceiver::new(RtpReceiverConfig { ssrc: 1, own_ssrc: 2, interval: FeedbackInterval::MediaRate, ecn: false })
            .unwrap();
    let mut arrivals: Vec<Time> = (0..200u64).flat_map(|f| (0..5u64).map(move |k| Time((f * 50 + k) * MS))).collect();
    arrivals.reverse();
    let mut reports = vec![];
    let mut seq = 0u16;
    let end = Time(10_000 * MS);
    loop {
        let next_arrival = arrivals.last().copied();
        let next = [next_arrival, r.poll_timeout()].into_iter().flatten().min();
        let Some(now) = next.filter(|&t| t < end) else { break };
        if next_arrival == Some(now) {
            arrivals.pop();
            let header = RtpHeader {
                padding: false,
                marker: false,
                payload_type: 96,
                seq,
                timestamp: 0,
                ssrc: 1,
                transport_seq: Some(seq),
            };
            seq = seq.wrapping_add(1);
            r.handle(now, &RtpPacket { header }, Arrival { ce: false, size: Bytes(1250), payload: Bytes(1230) });
        } else {
            r.handle_timeout(now);
        }
        while r.poll_transmit(now).is_some() {
            reports.push(now);
        }
    }
    let late: Vec<f64> =
        reports.windows(2).filter(|w| w[0] > Time(2_000 * MS)).map(|w| (w[1] - w[0]).as_secs_f64()).collect();
    let worst = late.iter().copied().fold(0.0, f64::max);
    assert!(worst < 0.06, "reports up to {worst:.3} s apart");
    assert!(late.len() >= 150, "{} reports in 8 s", late.len());
}

/// RFC 8699: a coupled sender registers with its group at its start, leaves it when it stops
/// and joins again when it resumes; the group's redistribution reaches its controller before
/// its next packet; a controller with no coupled rate cannot be coupled.
#[test]
fn a_coupled_sender_joins_its_group_while_it_sends_and_runs_on_the_group_s_rate() {
    use crate::rtp::fse::{Fse, FseMember, SharedFse};
    use crate::rtp::nada::{Nada, NadaConfig};
    let fse: SharedFse = Arc::new(Mutex::new(Fse::new()));
    let fixed = Fixed { rate: 1e6, window: None, discard_over: None, seen: Default::default() };
    let e = sender(1000, 40, fixed).with_coupling(FseMember::new(fse.clone(), 1.0).unwrap()).err().unwrap();
    assert!(e.contains("cannot be coupled"), "{e}");

    let nada = |prio| {
        let src = Frames { size: 1000, every: Dur(40 * MS), next: None };
        RtpSender::new(RtpSenderConfig::default(), Box::new(src), Box::new(Nada::new(NadaConfig::default()).unwrap()))
            .unwrap()
            .with_coupling(FseMember::new(fse.clone(), prio).unwrap())
            .unwrap()
    };
    let (mut a, mut b) = (nada(2.0), nada(1.0));
    a.start(Time::ZERO);
    b.start(Time::ZERO);
    // Both at RMIN, 150 kb/s: S_CR 300 kb/s.
    assert_eq!(fse.lock().unwrap().len(), 2);
    assert_eq!(fse.lock().unwrap().sum(), 300e3);
    // Another member's update (S_CR to 330 kb/s, shared 2:1) reaches a at its next event.
    let mut other = FseMember::new(fse.clone(), 1.0).unwrap();
    other.join(0.0, 1.5e6);
    other.update(30e3, 1.5e6);
    let _ = a.poll_transmit(Time(MS));
    assert_eq!(a.controller().coupled_rate(), Some(165e3));
    b.stop(Time(MS));
    assert_eq!(fse.lock().unwrap().len(), 2);
    b.start(Time(2 * MS));
    assert_eq!(fse.lock().unwrap().len(), 3);
}

/// [`Fixed`] that asks for probe clusters: `at_start` when it starts, `on_report` at its first
/// report.
struct Prober {
    inner: Fixed,
    at_start: Vec<ProbeCluster>,
    on_report: Vec<ProbeCluster>,
    ready: Vec<ProbeCluster>,
}

impl RateController for Prober {
    fn name(&self) -> &'static str {
        "prober"
    }
    fn start(&mut self, _now: Time) {
        self.ready.append(&mut self.at_start);
    }
    fn on_feedback(&mut self, now: Time, packets: &[PacketResult], view: &SenderView) {
        self.ready.append(&mut self.on_report);
        self.inner.on_feedback(now, packets, view);
    }
    fn take_probe(&mut self, _now: Time) -> Option<ProbeCluster> {
        (!self.ready.is_empty()).then(|| self.ready.remove(0))
    }
    fn target_rate(&self, view: &SenderView) -> f64 {
        self.inner.target_rate(view)
    }
    fn pacing_rate(&self, view: &SenderView) -> f64 {
        self.inner.pacing_rate(view)
    }
    fn state(&self, view: &SenderView) -> AgentState {
        self.inner.state(view)
    }
}

fn prober(rate: f64, seen: &Arc<Mutex<Seen>>, at_start: Vec<ProbeCluster>, on_report: Vec<ProbeCluster>) -> Prober {
    Prober { inner: fixed(rate, seen), at_start, on_report, ready: vec![] }
}

fn sender_with(size: u64, every_ms: u64, cc: impl RateController + 'static) -> RtpSender {
    let src = Frames { size, every: Dur(every_ms * MS), next: None };
    RtpSender::new(
        RtpSenderConfig { max_payload: Bytes(1000), ..RtpSenderConfig::default() },
        Box::new(src),
        Box::new(cc),
    )
    .unwrap()
}

/// A cluster of at least 5 packets and 3000 bytes at 2 Mb/s, asked for at the start, with the
/// first frame (packets of 853, 853 and 854 bytes) queued and the pacing rate at 1 Mb/s: the
/// three media packets go at the cluster's rate, not the pacing rate, each its predecessors'
/// bytes at 2 Mb/s after the first (0, 3.412, 6.824 ms), then, the queue empty, two padding
/// packets of 244 bytes (10.24 and 11.216 ms: 2560 + 244 = 2804 bytes is under 3000). Then the
/// pacing rate again: the next frame's packets 853 x 8 / 1 Mb/s = 6.824 ms apart. The receiver
/// reports the padding like any packet, as no media and no frame; the results carry the
/// cluster's id.
#[test]
fn a_probe_cluster_goes_at_its_rate_from_the_queue_then_padding() {
    for wire in [false, true] {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let c = ProbeCluster { id: 7, rate_bps: 2e6, min_packets: 5, min_bytes: 3000 };
        let mut s = sender_with(2500, 100, prober(1e6, &seen, vec![c], vec![]));
        let mut r = receiver(50);
        let (sent, _) = run(&mut s, &mut r, 10, |_| false, 250, wire);
        let at = |us: u64| Time(us * 1000);
        let times: Vec<Time> = sent.iter().take(5).map(|x| x.0).collect();
        assert_eq!(times, [at(0), at(3_412), at(6_824), at(10_240), at(11_216)], "wire {wire}");
        let sizes: Vec<u64> = sent.iter().take(5).map(|x| x.1.size.0).collect();
        assert_eq!(sizes, [853, 853, 854, 244, 244]);
        for (i, (_, t)) in sent.iter().enumerate() {
            let h = t.msg.header;
            assert_eq!(h.padding, i == 3 || i == 4, "packet {i}");
            if h.padding {
                assert_eq!((t.payload, h.marker, h.timestamp, h.ssrc), (Bytes(0), false, 0, 1));
                assert_eq!(h.seq as usize, i);
            }
        }
        // The next frame at 100 ms, paced at 1 Mb/s again.
        assert_eq!(sent[5].0, Time(100 * MS));
        assert_eq!(sent[6].0 - sent[5].0, Dur::from_secs_f64(853.0 * 8.0 / 1e6));
        assert_eq!(sent.len(), 5 + 3 + 3);
        let seen = seen.lock().unwrap();
        let clusters: Vec<Option<u32>> = seen.results.iter().take(7).map(|p| p.cluster).collect();
        assert_eq!(clusters, [Some(7u32), Some(7), Some(7), Some(7), Some(7), None, None]);
        assert!(seen.results[3].received() && seen.results[4].received());
        let st = s.stats();
        assert_eq!((st.probe_packets_sent, st.padding_packets_sent, st.padding_bytes_sent), (5, 2, 488));
        assert_eq!((st.probe_clusters_sent, st.probe_clusters_dropped), (1, 0));
        assert_eq!(st.media_bytes_sent, 3 * 2500);
        let rs = r.stats();
        assert_eq!(rs.packets_received, sent.len() as u64);
        assert_eq!(rs.media_bytes_received, 3 * 2500, "padding is no media");
        assert_eq!(rs.frames_completed, 3);
    }
}

/// Two clusters asked for together run one after the other: the second starts when the
/// packet after the first's last would have been due at the first's rate. With the queue
/// empty (the frame's packets already sent at a fast pacing rate), both are padding.
#[test]
fn clusters_run_one_after_another_and_a_later_one_waits_for_a_report() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let a = ProbeCluster { id: 1, rate_bps: 1e6, min_packets: 5, min_bytes: 0 };
    let b = ProbeCluster { id: 2, rate_bps: 2e6, min_packets: 5, min_bytes: 0 };
    let later = ProbeCluster { id: 3, rate_bps: 4e6, min_packets: 3, min_bytes: 2000 };
    // Frames of 100 bytes (one packet of 120) every 1000 ms; the first frame is the first
    // cluster's first packet.
    let mut s = sender_with(100, 1000, prober(1e6, &seen, vec![a, b], vec![later]));
    let mut r = receiver(50);
    let (sent, _) = run(&mut s, &mut r, 10, |_| false, 500, false);
    let probe: Vec<(Time, u64)> = sent.iter().take(13).map(|x| (x.0, x.1.size.0)).collect();
    // Cluster 1 at 1 Mb/s: 120 bytes, then padding of 244 every 1.952 ms.
    let after = |start: Time, bytes: u64, rate: f64| start + Dur::from_secs_f64(bytes as f64 * 8.0 / rate);
    let mut want = vec![(Time::ZERO, 120)];
    for k in 0..4 {
        want.push((after(Time::ZERO, 120 + 244 * k, 1e6), 244));
    }
    // Cluster 2 at 2 Mb/s, from when cluster 1's sixth packet would have gone (8.768 ms).
    let start2 = after(Time::ZERO, 120 + 244 * 4, 1e6);
    assert_eq!(start2, Time(8_768_000));
    for k in 0..5 {
        want.push((after(start2, 244 * k, 2e6), 244));
    }
    assert_eq!(&probe[..10], &want[..]);
    // Cluster 3, asked for at the first report (one 50 ms interval after the first arrival at
    // 10 ms, back at 70 ms), goes at once: 9 padding packets make its 2000 bytes.
    assert_eq!(probe[10].0, Time(70 * MS));
    let c3 = sent.iter().filter(|x| x.1.msg.header.padding && x.0 >= Time(70 * MS)).count();
    assert_eq!(c3, 9);
    let seen = seen.lock().unwrap();
    let ids: Vec<Option<u32>> = seen.results.iter().map(|p| p.cluster).collect();
    assert_eq!(&ids[..10], &[[Some(1u32); 5], [Some(2u32); 5]].concat()[..]);
    assert_eq!(s.stats().probe_clusters_sent, 3);
}

/// A controller that never asks for a cluster (NADA's and SCReAM's default) never gets padding.
#[test]
fn without_probes_no_padding_is_sent() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut s = sender(2500, 100, fixed(1e6, &seen));
    let mut r = receiver(50);
    let (sent, _) = run(&mut s, &mut r, 10, |_| false, 1000, true);
    assert!(sent.iter().all(|x| !x.1.msg.header.padding && x.1.payload.0 > 0));
    assert!(seen.lock().unwrap().results.iter().all(|p| p.cluster.is_none()));
    assert_eq!(s.stats().padding_packets_sent, 0);
}

/// SCReAM's window full of packets that are all lost: no report ever comes, and without a stall
/// timeout the sender would never send again. With it (0.5 s, the reference implementation's),
/// the packets in flight are forgotten half a second after the last packet went, and sending
/// resumes. (Found by the `rtp-pair-scream` fuzz target: a flow silent for good once the path
/// had lost a window's worth.)
#[test]
fn scream_forgets_a_window_no_report_will_free_and_sends_again() {
    use crate::rtp::scream::{Scream, ScreamConfig};
    // The queue kept however long it waits, so that each stall ends with a packet to send.
    let cfg = ScreamConfig { max_rtp_queue_delay: Dur::from_secs(10), ..ScreamConfig::default() };
    let mut s = sender_with(2500, 100, Scream::new(cfg).unwrap());
    let mut r = receiver(20);
    let (sent, arrived) = run(&mut s, &mut r, 30, |_| true, 3000, false);
    assert!(arrived.is_empty());
    let gaps: Vec<Dur> = sent.windows(2).map(|w| w[1].0 - w[0].0).filter(|&g| g > Dur(100 * MS)).collect();
    assert!(!gaps.is_empty(), "the window fills");
    assert!(gaps.iter().all(|&g| g == Dur(500 * MS + 1)), "each stall lasts 0.5 s and a nanosecond: {gaps:?}");
    assert!(sent.last().unwrap().0 > Time(2_400 * MS), "still sending at the end");
    assert_eq!(s.stats().stall_resets, gaps.len() as u64);
}
