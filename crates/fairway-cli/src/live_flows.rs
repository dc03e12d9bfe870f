//! A live run's flows.csv: each flow's counts, taken at the simulator's bin edges while it ran,
//! turned into the simulated flows.csv's rows (the same columns, the same bins), so that the
//! two open side by side.
//!
//! Live counts differ from simulated ones where the live ends cannot see what the simulator
//! sees: `dropped_pkts` is, for a datagram flow, what its sender sent in the bin less what its
//! receiver got (at least 0; a packet in flight across an edge counts in the bin it left), and
//! for a TCP flow the retransmissions Linux made in it; a TCP flow has no delay column.

use fairway_core::Time;
use fairway_engine::results::BinRow;
use fairway_engine::scenario::Scenario;
use fairway_live::ends::EndCounts;
use fairway_live::tcp::TcpCounts;
use fairway_report::output;

/// The bins' ends, as the simulator cuts them: every `bin` from the start, the last at the
/// run's end.
pub(crate) fn edges(sc: &Scenario) -> Vec<Time> {
    let end = Time::ZERO + sc.duration;
    let n = sc.duration.0.div_ceil(sc.monitor.bin.0).max(1);
    (1..=n).map(|k| (Time::ZERO + sc.monitor.bin.saturating_mul(k)).min(end)).collect()
}

/// A datagram flow's bins from its sender's and receiver's counts at the edges, and its
/// scale over time (MApp's: from when each scale took effect).
pub(crate) fn datagram_bins(
    snd: &[EndCounts],
    rcv: &[EndCounts],
    edges: &[Time],
    scale_log: Option<&[(Time, u8)]>,
) -> Vec<BinRow> {
    let zero = EndCounts::default();
    (0..edges.len())
        .map(|k| {
            let (s0, r0) = if k == 0 { (&zero, &zero) } else { (&snd[k - 1], &rcv[k - 1]) };
            let (s1, r1) = (&snd[k], &rcv[k]);
            let sent = s1.sent_pkts - s0.sent_pkts;
            let recv = r1.recv_pkts - r0.recv_pkts;
            BinRow {
                sent_pkts: sent,
                recv_pkts: recv,
                dropped_pkts: sent.saturating_sub(r1.recv_distinct_pkts - r0.recv_distinct_pkts),
                distinct_bytes: r1.recv_distinct_bytes - r0.recv_distinct_bytes,
                goodput_bytes: r1.recv_distinct_payload - r0.recv_distinct_payload,
                delay_sum_s: r1.delays.sum_s - r0.delays.sum_s,
                delay_n: r1.delays.n - r0.delays.n,
                scale: scale_log.map_or(f32::NAN, |log| scale_at(log, edges[k])),
                ..BinRow::default()
            }
        })
        .collect()
}

/// The scale in effect at `t`: the last to take effect by then, or the first (the scale the
/// sender starts with) before any did.
fn scale_at(log: &[(Time, u8)], t: Time) -> f32 {
    let i = log.partition_point(|&(at, _)| at <= t);
    log.get(i.saturating_sub(1)).map_or(f32::NAN, |&(_, s)| s as f32)
}

/// A TCP flow's bins from Linux's counts at the edges: the sender's (segments, retransmissions,
/// window) and the bytes its receiver read. Packets are bytes over the segment `mss`, each
/// `wire` bytes as the simulator counts them.
pub(crate) fn tcp_bins(sent: &[TcpCounts], received: &[u64], mss: u64, wire: u64) -> Vec<BinRow> {
    let zero = TcpCounts::default();
    (0..sent.len().min(received.len()))
        .map(|k| {
            let (s0, b0) = if k == 0 { (&zero, 0) } else { (&sent[k - 1], received[k - 1]) };
            let (s1, b1) = (&sent[k], received[k]);
            let pkts = |b: u64| b.div_ceil(mss);
            BinRow {
                sent_pkts: s1.segs_out - s0.segs_out,
                recv_pkts: pkts(b1) - pkts(b0),
                dropped_pkts: s1.retransmits - s0.retransmits,
                distinct_bytes: (b1 - b0) * wire / mss,
                goodput_bytes: b1 - b0,
                cwnd_pkts: s1.cwnd as f32,
                ..BinRow::default()
            }
        })
        .collect()
}

/// flows.csv from every flow's bins (scenario order).
pub(crate) fn flows_csv(sc: &Scenario, edges: &[Time], flows: &[Vec<BinRow>]) -> String {
    let mut s = String::from(output::csv::FLOWS_HEADER);
    let labels = output::csv::flow_labels(sc);
    let mut rows = Vec::with_capacity(flows.len());
    for (k, &t1) in edges.iter().enumerate() {
        let t0 = if k == 0 { Time::ZERO } else { edges[k - 1] };
        rows.clear();
        rows.extend(flows.iter().map(|f| f.get(k).copied().unwrap_or_default()));
        output::csv::flows_bin(&mut s, &labels, t0.0, t1.0, &rows);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_the_differences_of_the_counts_at_their_edges() {
        let at = |sent, recv, bytes, payload| EndCounts {
            sent_pkts: sent,
            recv_pkts: recv,
            recv_distinct_pkts: recv,
            recv_distinct_bytes: bytes,
            recv_distinct_payload: payload,
            ..EndCounts::default()
        };
        let snd = [at(10, 0, 0, 0), at(25, 0, 0, 0)];
        let rcv = [at(0, 8, 8000, 7000), at(0, 20, 20000, 17500)];
        let edges = [Time(1_000_000_000), Time(2_000_000_000)];
        let log = [(Time(500_000_000), 7u8), (Time(1_500_000_000), 6)];
        let b = datagram_bins(&snd, &rcv, &edges, Some(&log));
        assert_eq!((b[0].sent_pkts, b[0].recv_pkts, b[0].dropped_pkts, b[0].distinct_bytes), (10, 8, 2, 8000));
        assert_eq!((b[1].sent_pkts, b[1].recv_pkts, b[1].dropped_pkts, b[1].goodput_bytes), (15, 12, 3, 10500));
        assert_eq!((b[0].scale, b[1].scale), (7.0, 6.0));
        assert_eq!(scale_at(&log, Time(0)), 7.0, "before the first entry: the scale it starts with");

        let c = |segs, retrans, cwnd| TcpCounts { segs_out: segs, retransmits: retrans, cwnd, ..TcpCounts::default() };
        let t = tcp_bins(&[c(10, 0, 4), c(30, 2, 8)], &[10_000, 25_000], 1000, 1040);
        assert_eq!((t[0].recv_pkts, t[0].distinct_bytes, t[0].cwnd_pkts), (10, 10_400, 4.0));
        assert_eq!((t[1].sent_pkts, t[1].recv_pkts, t[1].dropped_pkts, t[1].goodput_bytes), (20, 15, 2, 15_000));
    }
}
