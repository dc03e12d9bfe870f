//! Fairness measures over a run's flows, beyond each class's own Jain index (docs/scenarios.md,
//! "Fairness"): Jain's index over every flow and over the classes, and two TCP-friendliness
//! ratios per flow, one against the TCP flows that share its bottleneck, one against the rate
//! RFC 5348 §3.1's equation gives for its own round trip and loss.

use fairway_proto::tfrc::equation;

use crate::metrics::jain;
use crate::results::{ClassSummary, FlowSummary};

/// What the measures need of one flow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowView<'a> {
    pub class: &'a str,
    /// Is it a TCP flow (the yardstick of the first ratio)?
    pub tcp: bool,
    pub throughput_bps: f64,
    /// Its bottleneck: the slowest link its data crosses (an index into the scenario's links),
    /// `None` across a wireless network.
    pub bottleneck: Option<usize>,
    /// Its propagation round trip, seconds.
    pub base_rtt_s: Option<f64>,
    /// Its own mean RTT measurement, seconds, and its loss event rate (or, for a flow that does
    /// not estimate one, its loss ratio), and its packets' size on the wire.
    pub mean_rtt_s: Option<f64>,
    pub loss: Option<f64>,
    pub packet_bytes: Option<f64>,
}

/// Two round trips are alike within this fraction of the flow's own (docs/scenarios.md, "Fairness").
pub const RTT_LIKE: f64 = 0.10;

/// Jain's index over the classes: of each class's mean per-flow throughput, so that a class of
/// ten flows and a class of one compare per flow. `None` with fewer than two classes.
pub fn jain_over_classes(flows: &[FlowView]) -> Option<f64> {
    let mut classes: Vec<&str> = vec![];
    for f in flows {
        if !classes.contains(&f.class) {
            classes.push(f.class);
        }
    }
    if classes.len() < 2 {
        return None;
    }
    let means: Vec<f64> = classes
        .iter()
        .map(|c| {
            let v: Vec<f64> = flows.iter().filter(|f| f.class == *c).map(|f| f.throughput_bps).collect();
            v.iter().sum::<f64>() / v.len() as f64
        })
        .collect();
    jain(&means)
}

/// Jain's index over every flow's throughput.
pub fn jain_over_flows(flows: &[FlowView]) -> Option<f64> {
    jain(&flows.iter().map(|f| f.throughput_bps).collect::<Vec<_>>())
}

/// A flow's bottleneck: the slowest link of its data path `route` (link indices into `sc`),
/// the first of equals; `None` for an empty path.
pub fn bottleneck(sc: &crate::scenario::Scenario, route: &[usize]) -> Option<usize> {
    route.iter().copied().min_by_key(|&l| sc.links[l].rate.0)
}

/// Each flow's throughput over the mean throughput of the TCP flows other than itself that share
/// its bottleneck and whose base round trip is within [`RTT_LIKE`] of its own; `None` where there
/// are none (or its bottleneck or round trip is unknown). O(n log n): the TCP flows of each
/// bottleneck sorted by round trip, with running sums of their throughputs.
pub fn tcp_friendliness(flows: &[FlowView]) -> Vec<Option<f64>> {
    /// One bottleneck's TCP flows as (base RTT, throughput) by RTT, and the running sums of
    /// their throughputs.
    type Group = (Vec<(f64, f64)>, Vec<f64>);
    let mut groups: std::collections::HashMap<usize, Group> = Default::default();
    for f in flows.iter().filter(|f| f.tcp) {
        if let (Some(b), Some(r)) = (f.bottleneck, f.base_rtt_s) {
            groups.entry(b).or_default().0.push((r, f.throughput_bps));
        }
    }
    for (v, sums) in groups.values_mut() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        sums.push(0.0);
        for &(_, x) in v.iter() {
            sums.push(sums.last().unwrap() + x);
        }
    }
    flows
        .iter()
        .map(|me| {
            let (b, rtt) = (me.bottleneck?, me.base_rtt_s?);
            let (v, sums) = groups.get(&b)?;
            let near = RTT_LIKE * rtt;
            // |r - rtt| <= near, as two bounds on the sorted round trips.
            let lo = v.partition_point(|e| rtt - e.0 > near);
            let hi = v.partition_point(|e| e.0 - rtt <= near);
            let (mut sum, mut n) = (sums[hi] - sums[lo], hi.saturating_sub(lo));
            if me.tcp {
                // Itself is among them: not its own peer.
                sum -= me.throughput_bps;
                n -= 1;
            }
            if n == 0 {
                return None;
            }
            let mean = sum / n as f64;
            (mean > 0.0).then(|| me.throughput_bps / mean)
        })
        .collect()
}

/// Flow `i`'s throughput over the rate of RFC 5348 §3.1's equation for its own mean RTT, loss and
/// packet size (b = 1, t_RTO = 4 R as §3.1 suggests); `None` without an RTT, a loss above zero or a
/// packet size (the equation sets no limit at zero loss).
pub fn equation_ratio(f: &FlowView) -> Option<f64> {
    let (r, p, s) = (f.mean_rtt_s?, f.loss?, f.packet_bytes?);
    if !(r > 0.0 && p > 0.0 && s > 0.0) {
        return None;
    }
    let x_bytes = equation::throughput(s, r, p, 4.0 * r, 1.0);
    x_bytes.is_finite().then(|| f.throughput_bps / (8.0 * x_bytes))
}

/// A class's ratio: the mean of its flows' ratios where they have one.
pub fn class_mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = values.flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Fills the flows' and classes' ratios from the flows' summaries and each flow's bottleneck
/// (`bottlenecks[i]`, the slowest link of flow i's data path); returns Jain's index over the flows
/// and over the classes.
pub fn annotate(
    flows: &mut [FlowSummary],
    bottlenecks: &[Option<usize>],
    classes: &mut [ClassSummary],
) -> (Option<f64>, Option<f64>) {
    let views: Vec<FlowView> = flows
        .iter()
        .zip(bottlenecks)
        .map(|(f, &b)| FlowView {
            class: f.class,
            tcp: f.class == "tcp",
            throughput_bps: f.throughput_bps,
            bottleneck: b,
            base_rtt_s: f.base_rtt_s,
            mean_rtt_s: f.mean_rtt_s,
            loss: f.loss_event_rate.or(f.plr),
            packet_bytes: (f.sent_pkts > 0).then(|| f.sent_bytes as f64 / f.sent_pkts as f64),
        })
        .collect();
    let friendly = tcp_friendliness(&views);
    let ratios: Vec<(Option<f64>, Option<f64>)> =
        views.iter().zip(friendly).map(|(v, t)| (t, equation_ratio(v))).collect();
    for (f, r) in flows.iter_mut().zip(&ratios) {
        (f.tcp_friendliness, f.equation_ratio) = *r;
    }
    for c in classes.iter_mut() {
        let of = || flows.iter().zip(&ratios).filter(|(f, _)| f.class == c.class).map(|(_, r)| *r);
        c.tcp_friendliness = class_mean(of().map(|r| r.0));
        c.equation_ratio = class_mean(of().map(|r| r.1));
    }
    (jain_over_flows(&views), jain_over_classes(&views))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(class: &'static str, tcp: bool, bps: f64, rtt: f64) -> FlowView<'static> {
        FlowView {
            class,
            tcp,
            throughput_bps: bps,
            bottleneck: Some(0),
            base_rtt_s: Some(rtt),
            mean_rtt_s: None,
            loss: None,
            packet_bytes: None,
        }
    }

    #[test]
    fn jain_over_classes_compares_per_flow_means() {
        // Ten TCP flows at 1 Mb/s and one UDP flow at 1 Mb/s: fair per flow, index 1.
        let mut v: Vec<FlowView> = (0..10).map(|_| flow("tcp", true, 1e6, 0.1)).collect();
        v.push(flow("udp", false, 1e6, 0.1));
        assert!((jain_over_classes(&v).unwrap() - 1.0).abs() < 1e-12);
        // The UDP flow at 3 Mb/s: means 1 and 3, (1 + 3)^2 / (2 (1 + 9)) = 0.8.
        v[10].throughput_bps = 3e6;
        assert!((jain_over_classes(&v).unwrap() - 0.8).abs() < 1e-12);
        // Over flows: (10 + 3)^2 / (11 (10 + 9)) = 169 / 209.
        assert!((jain_over_flows(&v).unwrap() - 169.0 / 209.0).abs() < 1e-12);
        assert_eq!(jain_over_classes(&v[..10]), None);
    }

    #[test]
    fn tcp_friendliness_takes_tcp_peers_on_the_same_bottleneck_with_a_like_round_trip() {
        let mut v = vec![
            flow("udp", false, 2e6, 0.100),
            flow("tcp", true, 1e6, 0.105),
            flow("tcp", true, 3e6, 0.095),
            // Too far in round trip (20% longer), and another bottleneck: not peers.
            flow("tcp", true, 9e6, 0.120),
            FlowView { bottleneck: Some(1), ..flow("tcp", true, 9e6, 0.100) },
        ];
        // Peers of the UDP flow: 1 and 3 Mb/s, mean 2: ratio 1.
        assert_eq!(tcp_friendliness(&v)[0], Some(1.0));
        // A TCP flow is compared with the others, not itself: flow 1 against flow 2 only.
        assert_eq!(tcp_friendliness(&v)[1], Some(1.0 / 3.0));
        // Flow 4 is alone on its bottleneck.
        assert_eq!(tcp_friendliness(&v)[4], None);
        v[0].base_rtt_s = Some(0.5);
        assert_eq!(tcp_friendliness(&v)[0], None);
    }

    #[test]
    fn the_equation_ratio_follows_rfc_5348() {
        // s = 1000 B, R = 0.1 s, p = 0.01: sqrt(2p/3) = 0.08165, 12 sqrt(3p/8) p (1 + 32 p^2)
        // = 12 x 0.06124 x 0.01 x 1.0032 = 0.007372; X = 1000 / (0.1 x 0.08902) = 112 330 B/s,
        // 898.6 kb/s. A flow at exactly that rate has ratio 1.
        let mut f = flow("tcp", true, 0.0, 0.1);
        f.mean_rtt_s = Some(0.1);
        f.loss = Some(0.01);
        f.packet_bytes = Some(1000.0);
        let x_bps = 8.0 * 1000.0
            / (0.1 * ((2.0 * 0.01 / 3.0f64).sqrt() + 12.0 * (3.0 * 0.01 / 8.0f64).sqrt() * 0.01 * (1.0 + 32.0 * 1e-4)));
        assert!((x_bps - 898_600.0).abs() < 100.0, "{x_bps}");
        f.throughput_bps = x_bps;
        assert!((equation_ratio(&f).unwrap() - 1.0).abs() < 1e-9);
        f.loss = Some(0.0);
        assert_eq!(equation_ratio(&f), None);
    }
}
