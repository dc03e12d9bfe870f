//! The short table `fairway run` prints: one row per flow (or per group of flows declared with
//! `count`), one per monitored link.

use std::fmt::Write;

use fairway_engine::results::{FlowSummary, RunResult};

fn mbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e6)
}

fn ms(s: Option<f64>) -> String {
    s.map_or("-".to_string(), |v| format!("{:.2}", v * 1e3))
}

/// Flows grouped by their `[[flow]]` entry: a group of one prints as the flow itself.
fn groups(flows: &[FlowSummary]) -> Vec<(String, Vec<&FlowSummary>)> {
    let mut out: Vec<(String, Vec<&FlowSummary>)> = vec![];
    for f in flows {
        match out.iter_mut().find(|(g, _)| *g == f.group) {
            Some((_, v)) => v.push(f),
            None => out.push((f.group.clone(), vec![f])),
        }
    }
    out
}

pub fn render(res: &RunResult) -> String {
    let s = &res.summary;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<18} {:>5} {:>9} {:>10} {:>10} {:>8} {:>9} {:>12} {:>9} {:>9}",
        "flow", "n", "transport", "sent", "received", "dropped", "wire Mb/s", "goodput Mb/s", "delay ms", "jitter ms"
    );
    for (g, fl) in groups(&s.flows) {
        let n = fl.len();
        let name = if n == 1 { fl[0].name.clone() } else { format!("{g}*") };
        let sum = |f: fn(&FlowSummary) -> u64| fl.iter().map(|x| f(x)).sum::<u64>();
        // Throughput counts the bytes on the wire, headers included; goodput the application's.
        let thru: f64 = fl.iter().map(|x| x.throughput_bps).sum();
        let good: f64 = fl.iter().map(|x| x.goodput_bps).sum();
        // Delay and jitter: the mean over the group's flows that received anything.
        let mean = |f: fn(&FlowSummary) -> Option<f64>| {
            let v: Vec<f64> = fl.iter().filter_map(|x| f(x)).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        let _ = writeln!(
            t,
            "{:<18} {:>5} {:>9} {:>10} {:>10} {:>8} {:>9} {:>12} {:>9} {:>9}",
            truncate(&name, 18),
            n,
            fl[0].transport,
            sum(|x| x.sent_pkts),
            sum(|x| x.recv_distinct_pkts),
            sum(|x| x.dropped_pkts),
            mbps(thru),
            mbps(good),
            ms(mean(|x| x.mean_delay_s)),
            ms(mean(|x| x.jitter_s)),
        );
    }
    if let Some(w) = &s.wireless {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<18} {:>9} {:>8} {:>6} {:>9} {:>8} {:>6} {:>6} {:>6}",
            "wireless node", "data tx", "retries", "rts", "collided", "ret drop", "ifq", "arp", "noroute"
        );
        for n in &w.nodes {
            let _ = writeln!(
                t,
                "{:<18} {:>9} {:>8} {:>6} {:>9} {:>8} {:>6} {:>6} {:>6}",
                truncate(&n.name, 18),
                n.mac.data_frames,
                n.mac.data_retries,
                n.mac.rts_frames,
                n.mac.collisions,
                n.mac.retry_drops,
                n.mac.ifq_drops,
                n.net.arp_drops,
                n.net.no_route_drops,
            );
        }
    }
    if !s.links.iter().any(|l| l.monitored) {
        return t;
    }
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "{:<18} {:>8} {:>10} {:>8} {:>7} {:>7} {:>9} {:>9} {:>6}",
        "link", "queue", "arrivals", "drops", "early", "marks", "mean q", "mean avg", "util"
    );
    for l in s.links.iter().filter(|l| l.monitored) {
        let _ = writeln!(
            t,
            "{:<18} {:>8} {:>10} {:>8} {:>7} {:>7} {:>9.2} {:>9} {:>5.1}%",
            truncate(&l.name, 18),
            l.queue,
            l.arrivals_pkts,
            l.drops_pkts,
            l.early_drops_pkts,
            l.marks_pkts,
            l.mean_queue_pkts,
            l.mean_avg_queue_pkts.map_or("-".to_string(), |a| format!("{a:.2}")),
            l.utilization * 100.0
        );
    }
    t
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('~');
        t
    }
}
