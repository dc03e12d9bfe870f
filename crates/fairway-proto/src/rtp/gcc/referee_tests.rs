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
//! comes from the Bayesian `BitrateEstimator`, as [`super::acked_rate`]'s does). Its probes are
//! requested but never sent, as fairway's seam has no probing.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};
use goog_cc::experiments::FieldTrials;
use goog_cc::network_control::{NetworkControllerConfig, NetworkControllerInterface};
use goog_cc::transport::{
    NetworkControlUpdate, PacketResult as GPacket, ProcessInterval, SentPacket, StreamsConfig, TargetRateConstraints,
    TransportPacketsFeedback,
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

fn take_target(update: &NetworkControlUpdate, target: &mut f64) {
    if let Some(t) = &update.target_rate {
        *target = t.target_rate.bps() as f64;
    }
}

/// The outcome of one trace: (time, ours, theirs) after every report.
struct Run {
    samples: Vec<(f64, f64, f64)>,
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
    let mut target = trace.start_bps;
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
    ours.start(Time::ZERO);
    let mut samples = Vec::new();

    loop {
        let next_send = pending.front().map_or(Time::MAX, |p| p.0);
        let next_delivery = reports.front().map_or(Time::MAX, |r| r.0);
        let t = next_frame.min(next_process).min(next_report).min(next_send).min(next_delivery);
        if t > end {
            break;
        }
        if t == next_process {
            let u = theirs.on_process_interval(ProcessInterval { at_time: ts(t), pacer_queue: None });
            take_target(&u, &mut target);
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
                            ..Default::default()
                        },
                        receive_time: p.arrived_at.map_or(Timestamp::plus_infinity(), ts),
                        ..Default::default()
                    })
                    .collect(),
                sendless_arrival_times: Vec::new(),
            };
            let u = theirs.on_transport_packets_feedback(fb);
            take_target(&u, &mut target);
            samples.push((t.as_secs_f64(), ours.target_rate(&view), target));
        } else if t == next_send {
            let (_, size) = pending.pop_front().unwrap();
            let seq = log.len() as u64;
            sent_bytes += size;
            let u = theirs.on_sent_packet(SentPacket {
                send_time: ts(t),
                size: DataSize::from_bytes(size as i64),
                sequence_number: seq as i64,
                data_in_flight: DataSize::from_bytes((sent_bytes - acked_bytes) as i64),
                ..Default::default()
            });
            take_target(&u, &mut target);
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
            log.push(Sent { seq, size, at: t, arrived });
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
                        PacketResult { seq: s.seq, size: Bytes(s.size), sent_at: s.at, arrived_at, ecn: Ecn::NotEct }
                    })
                    .collect();
                next_report_seq = hi + 1;
                reports.push_back((t + ONE_WAY, packets));
            }
            next_report = t + REPORT_EVERY;
        } else {
            // A frame of target / FPS bits, paced at 2.5 x target.
            let bytes = (target / FPS as f64 / 8.0).round() as u64;
            let n = bytes.div_ceil(MTU).max(1);
            let gap = Dur::from_secs_f64(MTU as f64 * 8.0 / (PACING_FACTOR * target));
            let mut at = pending.back().map_or(t, |p| p.0.max(t));
            for i in 0..n {
                let size = if i + 1 < n { MTU } else { bytes - MTU * (n - 1) };
                pending.push_back((at, size.max(1)));
                at += gap;
            }
            next_frame = t + frame_gap;
        }
    }
    Run { samples }
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
    rms
}

/// Runs `trace` twice: with WebRTC's first acknowledged-rate window (500 ms, fairway's default),
/// which must agree within [`BAND`]; and with the 1000 ms that goog_cc 0.1.4 actually uses (its
/// `BitrateEstimatorConfig::validate` clamps the first window to [1000, 1000] ms where WebRTC
/// bounds it to [150, 1000] ms), which isolates the rest of the algorithm and must agree within
/// [`BAND_SAME_WINDOW`]. Returns both RMS values.
fn check(trace: Trace) -> (f64, f64) {
    let webrtc = GccConfig::default().acked_initial_window;
    let port = Dur::from_millis(1000);
    let a = report(trace.name, webrtc, &run(&trace, webrtc));
    let b = report(trace.name, port, &run(&trace, port));
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
    });
}
