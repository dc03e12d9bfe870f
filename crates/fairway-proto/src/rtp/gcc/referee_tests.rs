//! The referee: the `goog_cc` crate (a Rust port of WebRTC's GoogCC, a dev-dependency only) and
//! [`Gcc`] are fed the same feedback traces, and their targets must agree within 10 % RMS (the
//! root mean square of (ours - theirs) / theirs over every report of the trace).
//!
//! Each trace is made here by a deterministic model: a 30 fps encoder at the referee's target,
//! each frame cut into packets of at most 1200 bytes and paced at 2.5 x the target; a FIFO
//! bottleneck of a given capacity (tail drop past 300 ms of queue), optional random loss (a fixed
//! xorshift generator), 25 ms each way; a receiver that reports every 50 ms all packets up to
//! the newest arrived (RFC 8888 style: arrival offsets in 1/1024 s, on a clock 7 s ahead of the
//! sender's). The referee's target drives the encoder; ours only listens, so both see exactly
//! the same packets and reports.
//!
//! goog_cc runs with `feedback_only` (per-packet feedback, no RTCP receiver reports) and two
//! field trials set to WebRTC's own defaults, where the port's differ: LossBasedBweV2 off (so it
//! runs the classic loss rule that [`super::loss`] implements; WebRTC enables V2 by default, see
//! there) and the robust throughput estimator off (WebRTC's default: its acknowledged bitrate
//! comes from the Bayesian `BitrateEstimator`, as [`super::acked_rate`]'s does).
//!
//! Probing: in the traces without it the referee is never told the network is available, so it
//! asks for no probe, and the clusters ours asks for are not sent (ours waits for their results
//! a second, then gives up: its estimates are those of a GCC without probing). In the traces with
//! it the referee is told the network is available before its first process interval, and the
//! model's pacer sends the clusters the referee asks for as fairway's sender does (WebRTC's
//! prober): each packet its cluster's bytes so far at the cluster's rate after the cluster's
//! first, the queue's media first and then padding packets of 244 bytes, until the cluster's
//! minimum packets (the referee's target probe count) and bytes (its rate over its target
//! duration) have gone; each packet carries its cluster to both controllers, and ours must have
//! asked for the same clusters. The goog_cc crate keeps its `ProbeBitrateEstimator` private, so
//! the estimator is checked through the whole controller's target, not on its own.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};
use goog_cc::experiments::FieldTrials;
use goog_cc::network_control::{NetworkControllerConfig, NetworkControllerInterface};
use goog_cc::transport::{
    NetworkAvailability, NetworkControlUpdate, PacedPacketInfo, PacketResult as GPacket, ProbeClusterConfig,
    ProcessInterval, SentPacket, StreamsConfig, TargetRateConstraints, TransportPacketsFeedback,
};
use goog_cc::units::{DataRate, DataSize, Timestamp};
use goog_cc::{GoogCcConfig, GoogCcNetworkController, LossBasedBweV2Config, RobustThroughputEstimatorSettings};

use super::*;
use crate::rtp::controller::{PacketResult, RateController, SenderView};
use crate::rtp::rfc8888::{Ato, Ecn};

const FPS: u64 = 30;
const MTU: u64 = 1200;
const ONE_WAY: Dur = Dur::from_millis(25);
const MAX_QUEUE: Dur = Dur::from_millis(300);
const REPORT_EVERY: Dur = Dur::from_millis(50);
/// A padding packet on the wire (fairway's sender's: 20 bytes of header, 224 of padding).
const PADDING: u64 = 244;
/// The receiver's clock is this far ahead of the sender's.
const RECEIVER_OFFSET: Dur = Dur::from_secs(7);

/// A trace: capacity over time, random loss, start rate, length.
struct Trace {
    name: &'static str,
    /// (from, bits per second), in time order, the first from zero.
    capacity: Vec<(Dur, f64)>,
    loss: f64,
    start_bps: f64,
    length: Dur,
    /// The referee probes (and the model sends its clusters).
    probing: bool,
}

impl Trace {
    fn capacity_at(&self, t: Time) -> f64 {
        self.capacity.iter().rev().find(|(from, _)| t.0 >= from.0).map_or(self.capacity[0].1, |c| c.1)
    }
}

struct Xorshift(u64);

impl Xorshift {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Clone, Copy)]
struct Sent {
    seq: u64,
    size: u64,
    at: Time,
    /// On the receiver's clock.
    arrived: Option<Time>,
    /// Its probe cluster: (id, min packets, min bytes).
    cluster: Option<(i32, i64, i64)>,
}

/// A cluster the referee asked for, as the model's pacer sends it.
struct Cluster {
    id: i32,
    rate_bps: f64,
    min_packets: i64,
    min_bytes: i64,
    started: Option<Time>,
    packets: i64,
    bytes: i64,
}

impl Cluster {
    fn new(c: &ProbeClusterConfig) -> Cluster {
        // WebRTC's BitrateProber: the minimum bytes are the rate over the target duration,
        // rounded as WebRTC's rate x duration is.
        let min_bytes = (c.target_data_rate.bps() * c.target_duration.us() + 4_000_000) / 8_000_000;
        Cluster {
            id: c.id,
            rate_bps: c.target_data_rate.bps() as f64,
            min_packets: c.target_probe_count as i64,
            min_bytes,
            started: None,
            packets: 0,
            bytes: 0,
        }
    }

    fn next_at(&self, free_at: Time) -> Time {
        match self.started {
            Some(t) => t + Dur::from_secs_f64(self.bytes as f64 * 8.0 / self.rate_bps),
            None => free_at,
        }
    }
}
fn ts(t: Time) -> Timestamp {
    Timestamp::from_micros((t.0 / 1000) as i64)
}

fn referee(start_bps: f64) -> GoogCcNetworkController {
    let field_trials = FieldTrials {
        loss_based_bwe_v2: LossBasedBweV2Config { enabled: false, ..Default::default() },
        robust_throughput_estimator_settings: RobustThroughputEstimatorSettings {
            enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let cfg = GccConfig::default();
    let config = NetworkControllerConfig {
        field_trials,
        constraints: TargetRateConstraints {
            at_time: ts(Time::ZERO),
            min_data_rate: Some(DataRate::from_bits_per_sec(cfg.min_rate_bps as i64)),
            max_data_rate: Some(DataRate::from_bits_per_sec(cfg.max_rate_bps as i64)),
            starting_rate: Some(DataRate::from_bits_per_sec(start_bps as i64)),
        },
        stream_based_config: StreamsConfig::default(),
    };
    GoogCcNetworkController::new(config, GoogCcConfig { feedback_only: true })
}

/// The referee's side of the model: its target, the clusters it asked for still to be sent,
/// and all it asked for.
struct Theirs {
    target: f64,
    clusters: VecDeque<Cluster>,
    asked: Vec<(u32, f64)>,
}

impl Theirs {
    fn take(&mut self, update: &NetworkControlUpdate) {
        if let Some(t) = &update.target_rate {
            self.target = t.target_rate.bps() as f64;
        }
        for c in &update.probe_cluster_configs {
            self.asked.push((c.id as u32, c.target_data_rate.bps() as f64));
            self.clusters.push_back(Cluster::new(c));
        }
    }
}

/// The outcome of one trace: (time, ours, theirs) after every report; the clusters each asked
/// for, (id, rate).
struct Run {
    samples: Vec<(f64, f64, f64)>,
    ours_asked: Vec<(u32, f64)>,
    theirs_asked: Vec<(u32, f64)>,
}

impl Run {
    fn rms(&self) -> f64 {
        let n = self.samples.len() as f64;
        (self.samples.iter().map(|&(_, a, b)| ((a - b) / b).powi(2)).sum::<f64>() / n).sqrt()
    }
}

fn run(trace: &Trace, acked_initial_window: Dur) -> Run {
    let cfg = GccConfig { start_rate_bps: trace.start_bps, acked_initial_window, ..GccConfig::default() };
    let mut ours = Gcc::new(cfg).unwrap();
    let mut theirs = referee(trace.start_bps);
    let view = SenderView::default();
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);

    let mut log: Vec<Sent> = Vec::new();
    let mut pending: VecDeque<(Time, u64)> = VecDeque::new();
    let mut reports: VecDeque<(Time, Vec<PacketResult>)> = VecDeque::new();
    let mut busy_until = Time::ZERO;
    let mut next_report_seq = 0u64;
    let mut acked_bytes = 0u64;
    let mut sent_bytes = 0u64;

    let frame_gap = Dur(1_000_000_000 / FPS);
    let mut next_frame = Time::ZERO;
    let mut next_process = Time::ZERO;
    let mut next_report = Time::ZERO + REPORT_EVERY;
    let end = Time::ZERO + trace.length;
    let mut th = Theirs { target: trace.start_bps, clusters: VecDeque::new(), asked: Vec::new() };
    let mut ours_asked = Vec::new();
    // When the next cluster may start: when the packet after the last one's last would have
    // been due.
    let mut probe_free_at = Time::ZERO;
    if trace.probing {
        let u =
            theirs.on_network_availability(NetworkAvailability { at_time: ts(Time::ZERO), network_available: true });
        th.take(&u);
    }
    ours.start(Time::ZERO);
    while let Some(c) = ours.take_probe(Time::ZERO) {
        ours_asked.push((c.id, c.rate_bps));
    }
    let mut samples = Vec::new();

    loop {
        // While a cluster runs, the pacer sends on its schedule only.
        let next_send = match th.clusters.front() {
            Some(_) => Time::MAX,
            None => pending.front().map_or(Time::MAX, |p| p.0),
        };
        let next_delivery = reports.front().map_or(Time::MAX, |r| r.0);
        let next_probe = th.clusters.front().map_or(Time::MAX, |c| c.next_at(probe_free_at));
        let t = next_frame.min(next_process).min(next_report).min(next_send).min(next_delivery).min(next_probe);
        if t > end {
            break;
        }
        if t == next_process {
            let u = theirs.on_process_interval(ProcessInterval { at_time: ts(t), pacer_queue: None });
            th.take(&u);
            while ours.next_timer().is_some_and(|n| n <= t) {
                ours.on_timer(t, &view);
            }
            next_process = t + PROCESS_INTERVAL;
        } else if t == next_delivery {
            let (_, packets) = reports.pop_front().unwrap();
            for p in &packets {
                acked_bytes += p.size.0;
            }
            ours.on_feedback(t, &packets, &view);
            let fb = TransportPacketsFeedback {
                feedback_time: ts(t),
                data_in_flight: DataSize::from_bytes((sent_bytes - acked_bytes) as i64),
                packet_feedbacks: packets
                    .iter()
                    .map(|p| GPacket {
                        sent_packet: SentPacket {
                            send_time: ts(p.sent_at),
                            size: DataSize::from_bytes(p.size.0 as i64),
                            sequence_number: p.seq as i64,
                            pacing_info: log[p.seq as usize]
                                .cluster
                                .map_or_else(PacedPacketInfo::default, |(id, n, b)| PacedPacketInfo::new(id, n, b)),
                            ..Default::default()
                        },
                        receive_time: p.arrived_at.map_or(Timestamp::plus_infinity(), ts),
                        ..Default::default()
                    })
                    .collect(),
                sendless_arrival_times: Vec::new(),
            };
            let u = theirs.on_transport_packets_feedback(fb);
            th.take(&u);
            samples.push((t.as_secs_f64(), ours.target_rate(&view), th.target));
        } else if t == next_send || t == next_probe {
            // A probe's packet is the queue's first media packet, else padding.
            let probing = t == next_probe;
            let size = match pending.pop_front() {
                Some((_, size)) => size,
                None if probing => PADDING,
                None => unreachable!("a send with nothing queued"),
            };
            let mut cluster = None;
            if probing {
                let c = th.clusters.front_mut().unwrap();
                c.started.get_or_insert(t);
                c.packets += 1;
                c.bytes += size as i64;
                cluster = Some((c.id, c.min_packets, c.min_bytes));
                if c.packets >= c.min_packets && c.bytes >= c.min_bytes {
                    probe_free_at = c.next_at(t);
                    th.clusters.pop_front();
                }
            }
            let pacing_info = match cluster {
                Some((id, n, b)) => PacedPacketInfo::new(id, n, b),
                None => PacedPacketInfo::default(),
            };
            let seq = log.len() as u64;
            sent_bytes += size;
            let u = theirs.on_sent_packet(SentPacket {
                send_time: ts(t),
                size: DataSize::from_bytes(size as i64),
                sequence_number: seq as i64,
                data_in_flight: DataSize::from_bytes((sent_bytes - acked_bytes) as i64),
                pacing_info,
                ..Default::default()
            });
            th.take(&u);
            ours.on_sent(t, seq, Bytes(size), &view);
            // The bottleneck: random loss on entry, then a FIFO with tail drop.
            let arrived = if rng.unit() < trace.loss {
                None
            } else {
                let begin = t.max(busy_until);
                if begin.saturating_since(t) > MAX_QUEUE {
                    None
                } else {
                    let ser = Dur::from_secs_f64(size as f64 * 8.0 / trace.capacity_at(begin));
                    busy_until = begin + ser;
                    Some(busy_until + ONE_WAY + RECEIVER_OFFSET)
                }
            };
            log.push(Sent { seq, size, at: t, arrived, cluster });
        } else if t == next_report {
            // The receiver (its clock ahead by RECEIVER_OFFSET) reports up to the newest arrival.
            let now_rx = t + RECEIVER_OFFSET;
            let newest = log[next_report_seq as usize..]
                .iter()
                .take_while(|s| s.at <= t)
                .filter(|s| s.arrived.is_some_and(|a| a <= now_rx))
                .map(|s| s.seq)
                .last();
            if let Some(hi) = newest {
                let packets: Vec<PacketResult> = log[next_report_seq as usize..=hi as usize]
                    .iter()
                    .map(|s| {
                        // Arrival times travel as RFC 8888 offsets before the report, 1/1024 s.
                        let arrived_at =
                            s.arrived.and_then(|a| Ato::between(a, now_rx).offset().map(|o| Time(now_rx.0 - o.0)));
                        PacketResult {
                            seq: s.seq,
                            size: Bytes(s.size),
                            sent_at: s.at,
                            arrived_at,
                            ecn: Ecn::NotEct,
                            cluster: s.cluster.map(|c| c.0 as u32),
                        }
                    })
                    .collect();
                next_report_seq = hi + 1;
                reports.push_back((t + ONE_WAY, packets));
            }
            next_report = t + REPORT_EVERY;
        } else {
            // A frame of target / FPS bits, paced at 2.5 x target.
            let bytes = (th.target / FPS as f64 / 8.0).round() as u64;
            let n = bytes.div_ceil(MTU).max(1);
            let gap = Dur::from_secs_f64(MTU as f64 * 8.0 / (PACING_FACTOR * th.target));
            let mut at = pending.back().map_or(t, |p| p.0.max(t));
            for i in 0..n {
                let size = if i + 1 < n { MTU } else { bytes - MTU * (n - 1) };
                pending.push_back((at, size.max(1)));
                at += gap;
            }
            next_frame = t + frame_gap;
        }
        while let Some(c) = ours.take_probe(t) {
            ours_asked.push((c.id, c.rate_bps));
        }
    }
    Run { samples, ours_asked, theirs_asked: th.asked }
}

fn report(name: &str, window: Dur, r: &Run) -> f64 {
    let rms = r.rms();
    let (_, a, b) = *r.samples.last().unwrap();
    println!(
        "referee {name} (first acked-rate window {} ms): {} reports, RMS relative difference {:.6}; \
         final ours {:.0} b/s, goog_cc {:.0} b/s",
        window.0 / 1_000_000,
        r.samples.len(),
        rms,
        a,
        b
    );
    if let Some(s) = r.samples.iter().find(|s| ((s.1 - s.2) / s.2).abs() > 0.001) {
        println!("  first difference over 0.1 %: t={:.3}s ours={:.0} goog_cc={:.0}", s.0, s.1, s.2);
    }
    for s in r.samples.iter().step_by(80) {
        println!("  t={:6.2}s ours={:9.0} goog_cc={:9.0}", s.0, s.1, s.2);
    }
    println!("  clusters asked for, ours: {:?}", r.ours_asked);
    println!("  clusters asked for, goog_cc's: {:?}", r.theirs_asked);
    rms
}

/// Where the referee probed, ours asked for the same clusters: the same ids, rates within
/// 1 % (a further cluster's rate is twice an estimate, and the two estimates differ a little).
fn same_clusters(name: &str, r: &Run) {
    let ids = |v: &[(u32, f64)]| v.iter().map(|c| c.0).collect::<Vec<_>>();
    assert_eq!(ids(&r.ours_asked), ids(&r.theirs_asked), "{name}: clusters asked for");
    for (a, b) in r.ours_asked.iter().zip(&r.theirs_asked) {
        assert!((a.1 - b.1).abs() <= 0.01 * b.1, "{name}: cluster {} at {} and {}", a.0, a.1, b.1);
    }
}

/// Runs `trace` twice: with WebRTC's first acknowledged-rate window (500 ms, fairway's default),
/// which must agree within [`BAND`]; and with the 1000 ms that goog_cc 0.1.4 actually uses (its
/// `BitrateEstimatorConfig::validate` clamps the first window to [1000, 1000] ms where WebRTC
/// bounds it to [150, 1000] ms), which isolates the rest of the algorithm and must agree within
/// [`BAND_SAME_WINDOW`]. Returns both RMS values.
fn check(trace: Trace) -> (f64, f64) {
    let webrtc = GccConfig::default().acked_initial_window;
    let port = Dur::from_millis(1000);
    let (ra, rb) = (run(&trace, webrtc), run(&trace, port));
    let a = report(trace.name, webrtc, &ra);
    let b = report(trace.name, port, &rb);
    if trace.probing {
        assert!(!ra.theirs_asked.is_empty(), "{}: the referee probed", trace.name);
        same_clusters(trace.name, &ra);
        same_clusters(trace.name, &rb);
    }
    assert!(a <= BAND, "{}: RMS {a} with WebRTC's window", trace.name);
    assert!(b <= BAND_SAME_WINDOW, "{}: RMS {b} with the port's window", trace.name);
    (a, b)
}

/// The band: 10 % RMS.
const BAND: f64 = 0.10;
/// With the same first window the two agree far closer; what remains is the referee publishing
/// its target only on some updates (a loss-based change waits for its next process interval
/// when the delay-based estimate did not move), measured at most 0.6 %.
const BAND_SAME_WINDOW: f64 = 0.02;

/// A 1 Mb/s bottleneck that the sender overshoots as it ramps from 800 kb/s: a queue builds,
/// the detector signals over-use, both decrease and ramp again.
#[test]
fn referee_overshoot_constant_capacity() {
    check(Trace {
        name: "overshoot",
        capacity: vec![(Dur::ZERO, 1_000_000.0)],
        loss: 0.0,
        start_bps: 800_000.0,
        length: Dur::from_secs(40),
        probing: false,
    });
}

/// 2 Mb/s for 20 s, then 0.8 Mb/s.
#[test]
fn referee_capacity_drop() {
    check(Trace {
        name: "capacity drop",
        capacity: vec![(Dur::ZERO, 2_000_000.0), (Dur::from_secs(20), 800_000.0)],
        loss: 0.0,
        start_bps: 1_500_000.0,
        length: Dur::from_secs(40),
        probing: false,
    });
}

/// 5 % random loss on a 1.2 Mb/s link: between the rule's 2 % and 10 %, so loss holds the rate
/// (and raises it in the seconds the random draw stays under 2 %) up to where the delay-based
/// side takes over.
#[test]
fn referee_random_loss_5() {
    check(Trace {
        name: "loss 5%",
        capacity: vec![(Dur::ZERO, 1_200_000.0)],
        loss: 0.05,
        start_bps: 1_000_000.0,
        length: Dur::from_secs(40),
        probing: false,
    });
}

/// 15 % random loss on a 1.2 Mb/s link: above 10 %, so loss decreases the rate.
#[test]
fn referee_random_loss_15() {
    check(Trace {
        name: "loss 15%",
        capacity: vec![(Dur::ZERO, 1_200_000.0)],
        loss: 0.15,
        start_bps: 1_000_000.0,
        length: Dur::from_secs(40),
        probing: false,
    });
}

/// Probing from 300 kb/s on a 4 Mb/s link: the initial clusters at 0.9 and 1.8 Mb/s pass whole,
/// so further ones follow at twice each result until one finds the bottleneck.
#[test]
fn referee_probing_start_4mbps() {
    check(Trace {
        name: "probing 4 Mb/s",
        capacity: vec![(Dur::ZERO, 4_000_000.0)],
        loss: 0.0,
        start_bps: 300_000.0,
        length: Dur::from_secs(30),
        probing: true,
    });
}

/// Probing from 300 kb/s on a 1 Mb/s link: the 1.8 Mb/s cluster arrives at the capacity, whose
/// result (0.95 x the receive rate) is under 0.7 x 1.8 Mb/s, so probing stops there.
#[test]
fn referee_probing_start_1mbps() {
    check(Trace {
        name: "probing 1 Mb/s",
        capacity: vec![(Dur::ZERO, 1_000_000.0)],
        loss: 0.0,
        start_bps: 300_000.0,
        length: Dur::from_secs(30),
        probing: true,
    });
}
