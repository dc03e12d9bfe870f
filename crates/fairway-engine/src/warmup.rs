//! The warm-up a scenario leaves out of its figures (`measure_from`): the counters as they
//! stood when it ended. The summary subtracts them from the counters at the end, so that its
//! figures cover the measured part alone; the conservation checks still hold the whole run's
//! counters to account, and the time series (flows.csv, queue.csv) still cover the whole run.

use fairway_aqm::QueueStats;
use fairway_core::{Dur, Time};

use crate::driver::TransportCounters;
use crate::monitor::FlowCounters;

/// Every flow's and link's counters at the end of the warm-up.
#[derive(Debug, Clone)]
pub(crate) struct Baseline {
    pub at: Time,
    pub flows: Vec<FlowBase>,
    pub links: Vec<LinkBase>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct FlowBase {
    pub counters: FlowCounters,
    pub transport: TransportCounters,
    /// Data packets in the network then: the measured part has these to deliver as well as the
    /// ones it sends.
    pub inflight: u64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct LinkBase {
    pub stats: QueueStats,
    pub lost: u64,
    /// Serialisation time up to the warm-up's end (not the rest of a packet being sent then).
    pub busy: Dur,
    /// The queue's and the discipline's average's time integrals up to then
    /// (`QueueIntegral`'s units).
    pub len_area: u128,
    pub avg_area: f64,
    /// Summed waits before serialisation (`LinkState::wait_sum`).
    pub wait_sum: u128,
}

/// A flow's counters over the measured part: `now` less `then`. The last delay seen is kept
/// as it is now (it only pairs the next arrival's delay with its predecessor's).
pub(crate) fn counters_since(now: &FlowCounters, then: &FlowCounters) -> FlowCounters {
    FlowCounters {
        data_sent: now.data_sent - then.data_sent,
        data_sent_bytes: now.data_sent_bytes - then.data_sent_bytes,
        acks_recv: now.acks_recv - then.acks_recv,
        data_dropped: now.data_dropped - then.data_dropped,
        acks_dropped: now.acks_dropped - then.acks_dropped,
        data_recv: now.data_recv - then.data_recv,
        data_recv_bytes: now.data_recv_bytes - then.data_recv_bytes,
        distinct: now.distinct - then.distinct,
        distinct_bytes: now.distinct_bytes - then.distinct_bytes,
        goodput_bytes: now.goodput_bytes - then.goodput_bytes,
        acks_sent: now.acks_sent - then.acks_sent,
        delay_sum_s: now.delay_sum_s - then.delay_sum_s,
        delay_sq_sum_s2: now.delay_sq_sum_s2 - then.delay_sq_sum_s2,
        delay_n: now.delay_n - then.delay_n,
        jitter_sum_s: now.jitter_sum_s - then.jitter_sum_s,
        jitter_n: now.jitter_n - then.jitter_n,
        last_delay_s: now.last_delay_s,
        delays: now.delays.since(&then.delays),
    }
}

pub(crate) fn queue_since(now: &QueueStats, then: &QueueStats) -> QueueStats {
    QueueStats {
        arrivals_pkts: now.arrivals_pkts - then.arrivals_pkts,
        arrivals_bytes: now.arrivals_bytes - then.arrivals_bytes,
        departures_pkts: now.departures_pkts - then.departures_pkts,
        departures_bytes: now.departures_bytes - then.departures_bytes,
        early_drops: now.early_drops - then.early_drops,
        forced_drops: now.forced_drops - then.forced_drops,
        overflow_drops: now.overflow_drops - then.overflow_drops,
        marks: now.marks - then.marks,
        threshold_drops: now.threshold_drops - then.threshold_drops,
        sojourn_drops: now.sojourn_drops - then.sojourn_drops,
        flow_drops: now.flow_drops - then.flow_drops,
    }
}
