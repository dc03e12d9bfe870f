//! A scenario's link, live, between two network namespaces (`fairway emulate FILE`). Host a's
//! packets to host b cross the link as the scenario gives it (rate, delay, loss, discipline);
//! b's packets back cross the link the other way (the scenario's, or a DropTail of 1000
//! packets at the same rate and delay when it has none). With `--out DIR`, the links' counters
//! go into DIR/summary.json and the forward link's queue samples into DIR/queue.csv, in the
//! simulator's fields and columns.

use std::path::Path;
use std::time::Duration;

use fairway_core::{Dur, Rng};
use fairway_model::results::{LinkMeasures, LinkSummary, QueueRow};
use fairway_model::scenario::{LinkSpec, LossModel, Scenario};
use fairway_report::output;
use serde::Serialize;

use super::{Failure, Session};
use crate::{emulate, Link, LinkConfig, Monitor, Pair, Sample};

/// The link `name` (`from->to`), or the first monitored one.
pub fn pick(sc: &Scenario, name: Option<&str>) -> Result<usize, Failure> {
    let names = || (0..sc.links.len()).map(|i| sc.link_name(i)).collect::<Vec<_>>().join(", ");
    match name {
        Some(n) => (0..sc.links.len())
            .find(|&i| sc.link_name(i) == n)
            .ok_or_else(|| Failure::Input(format!("--link {n}: no such link (links: {})", names()))),
        None => sc.monitor.links.first().copied().ok_or_else(|| {
            Failure::Input(format!(
                "the scenario monitors no link; name the one to emulate with --link (links: {})",
                names()
            ))
        }),
    }
}

/// Refuses a link the emulator cannot run as the simulator would: one with a device queue
/// (`device_queue`), which the emulated link does not have (its transmitter asks the discipline
/// when it is free, as a link without one does).
pub fn emulable(spec: &LinkSpec, what: &str) -> Result<(), Failure> {
    if spec.device_queue > 0 {
        return Err(Failure::Input(format!(
            "{what}: `device_queue = {}` is simulated only: the emulated link has no device queue (its transmitter asks the \
             discipline for a packet when it is free, as with `device_queue = 0`); remove the key to run this link live",
            spec.device_queue
        )));
    }
    Ok(())
}

fn build(spec: &LinkSpec, what: &str, seed: u64) -> Result<Link, Failure> {
    emulable(spec, what)?;
    let queue = spec.queue.build(spec.rate, spec.delay).map_err(|e| Failure::Input(format!("{what}: {e}")))?;
    let cfg = LinkConfig { rate: spec.rate, delay: spec.delay, loss: spec.loss, schedule: spec.schedule.clone() };
    Ok(Link::new(cfg, queue, Rng::stream(seed, what)))
}

/// A live link's summary: the simulated summary's fields, then what only a live link has.
#[derive(Serialize)]
pub struct LiveLink {
    #[serde(flatten)]
    pub summary: LinkSummary,
    /// Past the queue, delivered to the far host.
    pub delivered_pkts: u64,
    /// In the queue, and past it but not delivered, when the run ended.
    pub queue_pkts_end: u64,
    pub in_flight_pkts_end: u64,
    /// Dropped by the sending host's device before the emulator read them (its ring was full):
    /// not the link's doing, and `null` where `ip` could not tell.
    pub device_drops_pkts: Option<u64>,
}

/// A live link's summary, in the simulated summary's fields: its discipline's and its own
/// counters, and its mean queue from the samples the emulator took at equal intervals.
fn link_summary(name: String, spec: &LinkSpec, delay: Dur, l: &Link, samples: &[Sample], duration: Dur) -> LinkSummary {
    let s = l.stats();
    let c = l.counts();
    let mean = |v: &mut dyn Iterator<Item = f64>| {
        let (sum, n) = v.fold((0.0, 0u64), |(a, n), x| (a + x, n + 1));
        (n > 0).then(|| sum / n as f64)
    };
    let measured = LinkMeasures {
        mean_sojourn_s: (c.waited_pkts > 0).then(|| c.wait_sum.as_secs_f64() / c.waited_pkts as f64),
        max_sojourn_s: c.wait_max.as_secs_f64(),
        lost_pkts: c.lost_pkts,
        mean_queue_pkts: mean(&mut samples.iter().map(|m| m.queue_pkts as f64)).unwrap_or(0.0),
        // None where the discipline keeps no average (no sample has one).
        mean_avg_queue_pkts: mean(&mut samples.iter().filter_map(|m| m.avg_queue_pkts)),
        utilization: (c.busy.as_secs_f64() / duration.as_secs_f64()).min(1.0),
    };
    LinkSummary::new(name, spec, delay, !samples.is_empty(), s, measured)
}

/// The live link `l` (its one-way delay `delay`, its queue sampled in `samples`) after a run of
/// `duration`, with its sending host's device's drops.
pub fn live_link(
    name: String,
    spec: &LinkSpec,
    delay: Dur,
    l: &Link,
    samples: &[Sample],
    duration: Dur,
    device_drops: Option<u64>,
) -> LiveLink {
    LiveLink {
        summary: link_summary(name, spec, delay, l, samples, duration),
        delivered_pkts: l.counts().delivered_pkts,
        queue_pkts_end: l.queue_len() as u64,
        in_flight_pkts_end: l.in_flight() as u64,
        device_drops_pkts: device_drops,
    }
}

fn describe(spec: &LinkSpec) -> String {
    let loss = if spec.loss.can_lose() { format!(", {}", spec.loss.describe()) } else { String::new() };
    let steps = spec
        .schedule
        .as_deref()
        .map_or(String::new(), |s| format!(" at first ({} rate steps, {} delay steps)", s.rate.len(), s.delay.len()));
    format!(
        "{} Mb/s, {} ms{steps}, {}{loss}",
        spec.rate.as_bps_f64() / 1e6,
        spec.delay.as_secs_f64() * 1e3,
        spec.queue.kind()
    )
}

fn report(what: &str, link: &Link, carried: &crate::Carried, device_drops: Option<u64>) -> String {
    let s = link.stats();
    let c = link.counts();
    format!(
        "{what}: {} packets in, {} delivered; dropped {} (early {}, forced {}, overflow {}, other {}), marked {}, lost {}, {} waiting; \
{} not IPv4 ignored, {} writes refused; {} dropped by the sender's device before the emulator",
        s.arrivals_pkts,
        c.delivered_pkts,
        s.drops(),
        s.early_drops,
        s.forced_drops,
        s.overflow_drops,
        s.drops() - s.early_drops - s.forced_drops - s.overflow_drops,
        s.marks,
        c.lost_pkts,
        link.queue_len(),
        carried.other_pkts,
        carried.write_errors,
        device_drops.map_or("?".to_string(), |d| d.to_string()),
    )
}

/// `--name`: what namespaces and devices may be named after.
pub fn check_name(name: &str) -> Result<(), Failure> {
    if name.is_empty() || name.len() > 10 || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        return Err(Failure::Input(format!("--name {name}: 1 to 10 lowercase letters or digits")));
    }
    Ok(())
}

/// The link `i` and the one back: the scenario's, or a DropTail of 1000 packets at the same
/// rate and delay when it has none.
pub fn directions(sc: &Scenario, i: usize) -> (LinkSpec, LinkSpec) {
    let spec = &sc.links[i];
    let back = sc.links.iter().find(|l| l.from == spec.to && l.to == spec.from).cloned().unwrap_or_else(|| LinkSpec {
        queue: fairway_aqm::QueueSpec::DropTail(fairway_aqm::DropTailParams {
            limit: fairway_aqm::Limit::Packets(1000),
        }),
        loss: LossModel::NONE,
        device_queue: 0,
        schedule: None,
        from: spec.to,
        to: spec.from,
        ..spec.clone()
    });
    (spec.clone(), back)
}

/// Hosts a and b as namespaces fw-NAME-a and fw-NAME-b, gone when the [`Pair`] is dropped: the
/// caller should have every signal that would end the process ask it to stop instead (the
/// CLI's `interrupt::install_for_cleanup`), so that they go with it.
pub fn namespaces(name: &str) -> Result<Pair, Failure> {
    let pair = Pair::create(name).map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::PermissionDenied => " (root is needed)",
            std::io::ErrorKind::NotFound => " (iproute2's `ip` and /dev/net/tun are needed)",
            _ => "",
        };
        Failure::Other(format!("creating the namespaces: {e}{hint}"))
    })?;
    if let Some(pid) = pair.reclaimed_from {
        println!("removed namespaces fw-{name}-a and fw-{name}-b left by process {pid}, which is no longer running");
    }
    Ok(pair)
}

/// queue.csv, in the simulator's columns, of the live link `name` from its samples.
pub fn queue_csv(name: &str, samples: &[Sample]) -> String {
    let mut s = String::from(output::csv::QUEUE_HEADER);
    for m in samples {
        let row = QueueRow::new(m.t.as_secs_f64(), m.queue_pkts as u32, m.queue_bytes, m.avg_queue_pkts, &m.stats);
        output::csv::queue_row(&mut s, name, &row);
    }
    s
}

/// What `fairway emulate --out` writes into summary.json.
#[derive(Serialize)]
struct EmulateSummary<'a> {
    fairway: &'a str,
    mode: &'static str,
    scenario: &'a str,
    duration_s: f64,
    links: Vec<LiveLink>,
}

/// Link `link` of `sc` (or its first monitored one) between namespaces fw-NAME-a and
/// fw-NAME-b, for `duration` or until a stop (`fairway emulate FILE`, `file` naming the
/// scenario in what it prints); with `out`, the links' summary.json and the forward link's
/// queue.csv there.
pub fn emulate(
    sc: &Scenario,
    file: &Path,
    link: Option<&str>,
    duration: Option<Dur>,
    name: &str,
    out: Option<&Path>,
    ses: Session,
) -> Result<(), Failure> {
    check_name(name)?;
    let until = duration.map(|d| Duration::from_nanos(d.0));
    let i = pick(sc, link)?;
    let (spec, back_spec) = directions(sc, i);
    let (spec, back_spec) = (&spec, &back_spec);
    let fwd_name = sc.link_name(i);
    let back_name = match sc.links.iter().position(|l| l.from == spec.to && l.to == spec.from) {
        Some(j) => sc.link_name(j),
        None => "back (none in the scenario)".to_string(),
    };
    let mut fwd = build(spec, &fwd_name, sc.seed)?;
    let mut rev = build(back_spec, &back_name, sc.seed)?;
    let mut pair = namespaces(name)?;
    println!("a -> b: {fwd_name} of {}: {}", file.display(), describe(spec));
    println!("b -> a: {back_name}: {}", describe(back_spec));
    println!("host a: {} (ip netns exec {} COMMAND)", pair.a.addr, pair.a.netns);
    println!("host b: {} (ip netns exec {} COMMAND)", pair.b.addr, pair.b.netns);
    match until {
        Some(d) => println!("running for {:.1} s (Ctrl-C ends it sooner)", d.as_secs_f64()),
        None => println!("running until Ctrl-C"),
    }
    if let Some(out) = out {
        std::fs::create_dir_all(out).map_err(|e| Failure::Input(format!("{}: {e}", out.display())))?;
    }
    let mut monitor = Monitor { every: sc.monitor.queue_interval, samples: vec![] };
    let (a, b) = (&mut pair.a.tun, &mut pair.b.tun);
    let t0 = std::time::Instant::now();
    let mon = out.is_some().then_some(&mut monitor);
    let (ca, cb) = emulate::run(a, b, &mut fwd, &mut rev, until, ses.stop, mon)
        .map_err(|e| Failure::Other(format!("the emulator: {e}")))?;
    let (drops_a, drops_b) = (pair.a.device_drops(), pair.b.device_drops());
    println!("{}", report(&format!("a -> b ({fwd_name})"), &fwd, &ca, drops_a));
    println!("{}", report(&format!("b -> a ({back_name})"), &rev, &cb, drops_b));
    if let Some(out) = out {
        let ran = Dur::from_nanos(t0.elapsed().as_nanos() as u64);
        let summary = EmulateSummary {
            fairway: ses.build,
            mode: "live",
            scenario: &sc.name,
            duration_s: ran.as_secs_f64(),
            links: vec![
                live_link(fwd_name.clone(), spec, spec.delay, &fwd, &monitor.samples, ran, drops_a),
                live_link(back_name.clone(), back_spec, back_spec.delay, &rev, &[], ran, drops_b),
            ],
        };
        super::write_json(&out.join("summary.json"), &summary)?;
        let q = out.join("queue.csv");
        std::fs::write(&q, queue_csv(&fwd_name, &monitor.samples))
            .map_err(|e| Failure::Other(format!("{}: {e}", q.display())))?;
        println!("wrote {}", q.display());
    }
    // The namespaces go with `pair`.
    Ok(())
}
