//! What a probe cluster measured (WebRTC's `ProbeBitrateEstimator`): per cluster, from the
//! reported arrivals of its packets,
//!
//! - the send rate: its bytes less its last-sent packet's over the time from its first send to
//!   its last (the last packet's bytes leave after that span);
//! - the receive rate: its bytes less its first-received packet's over the time from its first
//!   arrival to its last;
//!
//! valid once at least 80 % of the cluster's minimum packets and of its minimum bytes have been
//! reported received, with both spans over zero and at most 1 s, and the receive rate at most
//! twice the send rate. The estimate is min(send, receive); where the receive rate is under
//! 0.9 x the send rate (the probe found the bottleneck), 0.95 x the receive rate instead, so as
//! not to start at once above the capacity. A cluster's packets count toward it while its last
//! arrival is under 1 s before the newest packet's.

use std::collections::BTreeMap;

use fairway_core::{Dur, Time};

use super::arrival::diff_ns;
use crate::rtp::controller::ProbeCluster;

#[cfg(test)]
#[path = "probe_estimator_tests.rs"]
mod tests;

/// The share of a cluster's minimum packets that must have been received (WebRTC's
/// `kMinReceivedProbesRatio`: 0.8)...
pub const MIN_RECEIVED_PACKETS_RATIO: f64 = 0.8;
/// ...and of its minimum bytes (WebRTC's `kMinReceivedBytesRatio`: 0.8).
pub const MIN_RECEIVED_BYTES_RATIO: f64 = 0.8;
/// A receive rate above this multiple of the send rate is no measurement (WebRTC's
/// `kMaxValidRatio`: 2).
pub const MAX_VALID_RATIO: f64 = 2.0;
/// Under this ratio of receive to send rate the link is taken as saturated (WebRTC's
/// `kMinRatioForUnsaturatedLink`: 0.9)...
pub const MIN_RATIO_FOR_UNSATURATED_LINK: f64 = 0.9;
/// ...and the estimate is this share of the receive rate (WebRTC's
/// `kTargetUtilizationFraction`: 0.95).
pub const TARGET_UTILIZATION_FRACTION: f64 = 0.95;
/// A cluster whose last arrival is this long before a new packet's is forgotten (WebRTC's
/// `kMaxClusterHistory`: 1 s).
pub const MAX_CLUSTER_HISTORY: Dur = Dur::from_secs(1);
/// The longest send or receive span of a valid cluster (WebRTC's `kMaxProbeInterval`: 1 s).
pub const MAX_PROBE_INTERVAL: Dur = Dur::from_secs(1);
/// Clusters asked for that the estimator remembers (a bound of fairway's: WebRTC's packets
/// carry their cluster's minimums, fairway's results only the id; probing asks for a few
/// clusters at the start, never this many).
const REMEMBERED_CLUSTERS: usize = 64;

/// One cluster's reported packets.
#[derive(Debug, Clone, Copy)]
struct Aggregate {
    packets: u64,
    first_send: Time,
    last_send: Time,
    first_arrival: Time,
    last_arrival: Time,
    size_last_send: u64,
    size_first_arrival: u64,
    bytes: u64,
}

/// The estimator.
#[derive(Debug, Clone, Default)]
pub struct ProbeEstimator {
    /// The clusters asked for: id -> (min packets, min bytes).
    asked: BTreeMap<u32, (u32, u64)>,
    clusters: BTreeMap<u32, Aggregate>,
    estimate: Option<f64>,
}

impl ProbeEstimator {
    /// A cluster the controller asked for: its packets will be reported with its id.
    pub fn expect(&mut self, c: &ProbeCluster) {
        self.asked.insert(c.id, (c.min_packets, c.min_bytes));
        while self.asked.len() > REMEMBERED_CLUSTERS {
            self.asked.pop_first();
        }
    }

    /// A received packet of cluster `id` (fed in arrival order): the cluster's estimate, bits
    /// per second, if the packet completes a valid one.
    pub fn on_packet(&mut self, id: u32, sent_at: Time, arrived_at: Time, size: u64) -> Option<f64> {
        let &(min_packets, min_bytes) = self.asked.get(&id)?;
        self.clusters.retain(|_, c| diff_ns(arrived_at, c.last_arrival) <= MAX_CLUSTER_HISTORY.0 as i64);
        let c = self.clusters.entry(id).or_insert(Aggregate {
            packets: 0,
            first_send: sent_at,
            last_send: sent_at,
            first_arrival: arrived_at,
            last_arrival: arrived_at,
            size_last_send: size,
            size_first_arrival: size,
            bytes: 0,
        });
        if sent_at < c.first_send {
            c.first_send = sent_at;
        }
        if sent_at > c.last_send {
            c.last_send = sent_at;
            c.size_last_send = size;
        }
        if arrived_at < c.first_arrival {
            c.first_arrival = arrived_at;
            c.size_first_arrival = size;
        }
        if arrived_at > c.last_arrival {
            c.last_arrival = arrived_at;
        }
        c.bytes += size;
        c.packets += 1;

        // WebRTC truncates the packet count's share to a whole number.
        let need_packets = (min_packets as f64 * MIN_RECEIVED_PACKETS_RATIO) as u64;
        if c.packets < need_packets || (c.bytes as f64) < min_bytes as f64 * MIN_RECEIVED_BYTES_RATIO {
            return None;
        }
        let send_span = diff_ns(c.last_send, c.first_send);
        let receive_span = diff_ns(c.last_arrival, c.first_arrival);
        let max = MAX_PROBE_INTERVAL.0 as i64;
        if send_span <= 0 || send_span > max || receive_span <= 0 || receive_span > max {
            return None;
        }
        // The last packet sent leaves after the send span, the first received arrives before
        // the receive span: neither's bytes belong to its span.
        let send_bps = c.bytes.saturating_sub(c.size_last_send) as f64 * 8.0 / (send_span as f64 / 1e9);
        let receive_bps = c.bytes.saturating_sub(c.size_first_arrival) as f64 * 8.0 / (receive_span as f64 / 1e9);
        if receive_bps > MAX_VALID_RATIO * send_bps {
            return None;
        }
        let mut est = send_bps.min(receive_bps);
        if receive_bps < MIN_RATIO_FOR_UNSATURATED_LINK * send_bps {
            est = TARGET_UTILIZATION_FRACTION * receive_bps;
        }
        self.estimate = Some(est);
        Some(est)
    }

    /// The latest estimate since the last call, taken (WebRTC's
    /// `FetchAndResetLastEstimatedBitrate`).
    pub fn take_estimate(&mut self) -> Option<f64> {
        self.estimate.take()
    }
}
