//! One datagram flow of a scenario between two hosts (`fairway send`, `fairway recv`), each end
//! on a UDP socket, built from the scenario as the simulator builds it; and the flow's key
//! (`fairway key`).

use std::net::SocketAddr;
use std::path::Path;

use fairway_core::{Dur, Time};
use fairway_model::delay_hist::DelayHist;
use fairway_model::driver::FlowDriver;
use fairway_model::protocol::{Build, RunShared};
use fairway_model::results::FlowSummary;
use fairway_model::scenario::{AppSpec, FlowSpec, Scenario};
use fairway_report::output;
use serde::Serialize;

use super::{write_json, Failure, Session};
use crate::ends::{self, Clock, EndCounts, LiveEnd, Role};
use crate::key::Key;
use crate::socket::Port;

/// The flow `name` of `sc` (a datagram flow), its index, and its two ends built for the wire.
fn flow<'a>(sc: &'a Scenario, name: &str) -> Result<(usize, &'a FlowSpec, Box<dyn FlowDriver>), Failure> {
    let i = match sc.flows_named(&[name.to_string()]) {
        Ok(v) if v.len() == 1 => v[0],
        Ok(v) => {
            return Err(Failure::Input(format!(
                "--flow {name}: the entry has {} flows; name one of them ({}, ...)",
                v.len(),
                sc.flows[v[0]].name
            )))
        }
        Err((n, e)) => return Err(Failure::Input(format!("--flow {n}: {e}"))),
    };
    let f = &sc.flows[i];
    let AppSpec::Datagram(d) = &f.app else {
        return Err(Failure::Input(format!(
            "--flow {name}: a {} flow; live mode runs datagram flows (TCP flows are the kernel's)",
            f.transport()
        )));
    };
    // RFC 8699 couples the flows of one sender through state they share; `fairway send` runs
    // one flow per process, with no other flow to share it with.
    if let Some(g) = d.spec.coupled_group() {
        return Err(Failure::Input(format!(
            "--flow {name}: coupled (couple = \"{g}\"); live mode runs one flow per process and cannot couple it with the others of its group (run the scenario in the simulator, or drop `couple`)"
        )));
    }
    let b = Build { flow: i as u32, name: &f.name, seed: sc.seed, wire: true, shared: &RunShared::new() };
    let drv = d.spec.build(&b).map_err(|e| Failure::Input(format!("--flow {name}: {e}")))?;
    Ok((i, f, drv))
}

/// Live mode runs on IPv4 (the emulator's namespaces, and the ToS byte it sets and reads).
fn ipv4(what: &str, a: Option<SocketAddr>) -> Result<(), Failure> {
    match a {
        Some(a) if !a.is_ipv4() => Err(Failure::Input(format!("{what} {a}: fairway's live mode is IPv4 only"))),
        _ => Ok(()),
    }
}

fn bind(addr: SocketAddr) -> Result<Port, Failure> {
    Port::bind(addr).map_err(|e| Failure::Other(format!("binding {addr}: {e}")))
}

fn fresh_key() -> Result<Key, Failure> {
    Key::fresh().map_err(|e| Failure::Other(format!("the kernel's random source: {e}")))
}

/// A fresh key, written to FILE (mode 0600) or printed (`fairway key [FILE]`).
/// `fairway key [FILE]`: a fresh key, written to FILE (mode 0600) or printed.
pub fn make_key(file: Option<&Path>) -> Result<(), Failure> {
    let key = fresh_key()?;
    let Some(file) = file else {
        println!("{}", key.hex());
        return Ok(());
    };
    if file.exists() && Key::read(file).is_err() {
        return Err(Failure::Input(format!(
            "{}: exists and does not hold a key; fairway replaces only a key file",
            file.display()
        )));
    }
    let io = |e: std::io::Error| Failure::Other(format!("{}: {e}", file.display()));
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    // Written beside it and renamed: the file is whole or absent, and never readable by others.
    let tmp = file.with_extension(format!("partial-{}", std::process::id()));
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp).map_err(io)?;
        f.write_all(format!("{}\n", key.hex()).as_bytes()).map_err(io)?;
    }
    std::fs::rename(&tmp, file).map_err(io)?;
    println!("wrote a key to {}", file.display());
    Ok(())
}

/// The sender of flow `name` of `sc` (`fairway send FILE --flow NAME --to ADDR`), from its
/// start to its stop (the scenario's times, counted from now); with `out`, its sender.json
/// (and scale.csv) there.
pub fn send(
    sc: &Scenario,
    name: &str,
    to: SocketAddr,
    bind_to: Option<SocketAddr>,
    out: Option<&Path>,
    key: Option<Key>,
    ses: Session,
) -> Result<(), Failure> {
    ipv4("--to", Some(to))?;
    ipv4("--bind", bind_to)?;
    let (i, f, mut drv) = flow(sc, name)?;
    let key = key.ok_or_else(|| {
        Failure::Input(
            "the sender needs the flow's key: --key-file FILE or --key HEX, as the receiver has it \
             (`fairway key FILE` makes one; `fairway recv` without one prints the key it made)"
                .into(),
        )
    })?;
    if let Some(out) = out {
        std::fs::create_dir_all(out).map_err(|e| Failure::Input(format!("{}: {e}", out.display())))?;
    }
    let port = bind(bind_to.unwrap_or_else(|| "0.0.0.0:0".parse().unwrap()))?;
    let start = f.start_with(sc.seed);
    let stop = f.stop.unwrap_or(Time::ZERO + sc.duration).min(Time::ZERO + sc.duration);
    println!(
        "sending {} ({} over {}) to {to}, from {:.1} s to {:.1} s",
        f.name,
        f.app.name(),
        f.transport(),
        start.as_secs_f64(),
        stop.as_secs_f64()
    );
    let clock = Clock::new();
    let counts = {
        let (snd, _) = drv.ends().expect("a datagram flow (see `flow`) has its two ends");
        let mut e = [LiveEnd::new(snd, port, i as u32, Role::Sender { to, start, stop }, key).with_pauses(&f.pauses)];
        // Past its stop, a sender only sends its end of flow; this is a bound, not a wait.
        let until = stop + Dur(ends::END_GAP.0 * (ends::END_COPIES as u64 + 1));
        ends::run(&mut e, &clock, Some(until), ses.stop, None).map_err(|e| Failure::Other(e.to_string()))?;
        e[0].counts
    };
    println!(
        "sent {} datagrams ({} bytes as the simulator counts them, {} refused by the socket); {} came back ({} marked CE, {} refused by the endpoint, {} strangers, {} forged)",
        counts.sent_pkts,
        counts.sent_bytes,
        counts.send_errors,
        counts.recv_pkts,
        counts.ce_pkts,
        counts.refused_pkts,
        counts.stranger_pkts,
        counts.forged_pkts
    );
    if counts.nonce_failed > 0 {
        println!(
            "the receiver hides losses: {} of its echoes claimed data it cannot have seen ({} passed)",
            counts.nonce_failed, counts.nonce_passed
        );
    }
    // Each series the protocol logs: where it ended, and its steps.
    let logs = drv.logs();
    for (x, log) in &logs {
        let down = log.windows(2).filter(|w| w[1].1 < w[0].1).count();
        let up = log.windows(2).filter(|w| w[1].1 > w[0].1).count();
        println!("{}: {} at the end; {down} steps down, {up} up", x.name, log.last().map_or(0.0, |s| s.1));
    }
    let s = drv.state();
    if let Some(r) = s.rate_bps {
        println!("rate at the end: {:.0} b/s", r);
    }
    if let Some(out) = out {
        let json = SenderSummary {
            fairway: ses.build,
            mode: "live",
            side: "sender",
            scenario: &sc.name,
            flow: &f.name,
            to: to.to_string(),
            sent_pkts: counts.sent_pkts,
            sent_bytes: counts.sent_bytes,
            sent_payload_bytes: counts.sent_payload,
            send_errors: counts.send_errors,
            active_s: match (counts.started, counts.stopped) {
                (Some(a), Some(b)) => (b - a).as_secs_f64(),
                _ => 0.0,
            },
            feedback_pkts: counts.recv_pkts,
            feedback_ce_pkts: counts.ce_pkts,
            refused_pkts: counts.refused_pkts,
            stranger_pkts: counts.stranger_pkts,
            forged_pkts: counts.forged_pkts,
            truncated_pkts: counts.truncated_pkts,
            duplicate_pkts: counts.duplicate_pkts,
            host_drops_pkts: counts.host_drops_pkts,
            nonce_passed: counts.nonce_passed,
            nonce_failed: counts.nonce_failed,
            nonce_unchecked: counts.nonce_unchecked,
            rate_bps: s.rate_bps,
            cwnd_pkts: s.cwnd_pkts,
            srtt_s: s.srtt.map(|d| d.as_secs_f64()),
            loss_event_rate: s.loss_event_rate,
        };
        write_json(&out.join("sender.json"), &json)?;
        for (x, log) in &logs {
            let mut csv = output::csv::series_log_header(x);
            let log: Vec<(f64, f64)> = log.iter().map(|&(t, v)| (t.as_secs_f64(), v)).collect();
            output::csv::series_log_rows(&mut csv, x, &f.name, &log);
            let p = out.join(output::csv::series_log_file(x));
            std::fs::write(&p, csv).map_err(|e| Failure::Other(format!("{}: {e}", p.display())))?;
        }
    }
    if ses.stopped() {
        return Err(Failure::Interrupted("sending stopped".into()));
    }
    Ok(())
}

/// What `fairway send --out` writes (sender.json): what the sender did, and its congestion
/// control at the end.
#[derive(Serialize)]
struct SenderSummary<'a> {
    fairway: &'a str,
    mode: &'static str,
    side: &'static str,
    scenario: &'a str,
    flow: &'a str,
    to: String,
    sent_pkts: u64,
    /// As the simulator counts them (IP header included), and the application bytes in them.
    sent_bytes: u64,
    sent_payload_bytes: u64,
    /// Datagrams the socket refused (its buffer full): lost at the host.
    send_errors: u64,
    /// How long its application ran.
    active_s: f64,
    /// Feedback received from the receiver, and of it marked CE.
    feedback_pkts: u64,
    feedback_ce_pkts: u64,
    refused_pkts: u64,
    /// Datagrams that were not the receiver's: not fairway's, another flow's, from elsewhere.
    stranger_pkts: u64,
    /// fairway's datagrams whose tag the flow's key does not verify, and those cut on the way.
    forged_pkts: u64,
    truncated_pkts: u64,
    /// Copies of feedback already received (not handed to the endpoint again).
    duplicate_pkts: u64,
    /// Feedback this host's socket dropped, its buffer full.
    host_drops_pkts: u64,
    /// Checks of the receiver's nonce echoes: passed, failed (it hides losses), and not
    /// checkable (it owned up to losses).
    nonce_passed: u64,
    nonce_failed: u64,
    nonce_unchecked: u64,
    rate_bps: Option<f64>,
    cwnd_pkts: Option<f64>,
    srtt_s: Option<f64>,
    loss_event_rate: Option<f64>,
}

/// What `fairway recv` writes: the flow's results as a simulated run gives them, and what
/// only live mode has.
#[derive(Serialize)]
struct LiveSummary<'a> {
    fairway: &'a str,
    mode: &'static str,
    side: &'static str,
    scenario: &'a str,
    flows: Vec<FlowSummary>,
    live: LiveCounts,
}

/// Live mode's own counters of the receiving end.
#[derive(Serialize)]
struct LiveCounts {
    /// Where the sender was.
    sender: Option<String>,
    /// Whether the sender's end of flow arrived; if not, its totals are the highest sequence
    /// number seen plus one.
    sender_totals_received: bool,
    ce_pkts: u64,
    refused_pkts: u64,
    /// Datagrams that were not the flow's: not fairway's, another flow's, from elsewhere.
    stranger_pkts: u64,
    /// fairway's datagrams whose tag the flow's key does not verify (forged, changed on the
    /// way, another run's), and those cut short on the way.
    forged_pkts: u64,
    truncated_pkts: u64,
    /// Copies of datagrams already received: counted in recv_pkts, not delivered again.
    duplicate_pkts: u64,
    /// Datagrams far ahead of the flow that nothing confirmed (ends.rs, `Seen`), not delivered.
    unconfirmed_pkts: u64,
    /// Datagrams this host's socket dropped, its buffer full (the receiver kept off its core):
    /// lost here, not on the network, though counted in the flow's drops.
    host_drops_pkts: u64,
    feedback_sent_pkts: u64,
    feedback_send_errors: u64,
}

/// The flow's results from what its receiver saw and its sender said at the end.
fn summary(sc: &Scenario, f: &FlowSpec, c: &EndCounts, delays: &DelayHist, start: Time, stop: Time) -> FlowSummary {
    let end = c.peer_end;
    let sent_pkts = end.map_or(c.recv_distinct_pkts, |e| e.sent_pkts);
    let sent_bytes = end.map_or(c.recv_distinct_bytes, |e| e.sent_bytes);
    // Active: as the sender's application ran; without its word, first to last arrival.
    let active_s = match (end, c.first_recv, c.last_recv) {
        (Some(e), _, _) if e.active_ns > 0 => e.active_ns as f64 * 1e-9,
        (_, Some(a), Some(b)) => (b - a).as_secs_f64(),
        _ => 0.0,
    };
    datagram_summary(FlowSummary::named(sc, f, vec![], start, stop), (sent_pkts, sent_bytes), c, delays, active_s)
}

/// `s` with a datagram flow's counts: `sent` (packets, bytes) by its sender, what its receiver
/// `rcv` got and the one-way `delays` it saw, rates over the `active_s` seconds its sender's application ran. What left and did
/// not arrive counts as dropped (the run ends after the sender's last datagram could arrive).
pub fn datagram_summary(
    mut s: FlowSummary,
    sent: (u64, u64),
    rcv: &EndCounts,
    delays: &DelayHist,
    active_s: f64,
) -> FlowSummary {
    let rate = |b: u64| if active_s > 0.0 { b as f64 * 8.0 / active_s } else { 0.0 };
    let dropped = sent.0.saturating_sub(rcv.recv_distinct_pkts);
    (s.sent_pkts, s.sent_bytes) = sent;
    s.recv_pkts = rcv.recv_pkts;
    s.recv_bytes = rcv.recv_bytes;
    s.recv_distinct_pkts = rcv.recv_distinct_pkts;
    s.recv_distinct_bytes = rcv.recv_distinct_bytes;
    s.dropped_pkts = dropped;
    // A datagram flow sends each datagram once: a second copy is the network's (a relay's),
    // not a delivery, so the ratios count distinct datagrams.
    let got = rcv.recv_distinct_pkts;
    s.pdr = (sent.0 > 0).then(|| got as f64 / sent.0 as f64);
    s.plr = (got + dropped > 0).then(|| dropped as f64 / (got + dropped) as f64);
    s.throughput_bps = rate(rcv.recv_distinct_bytes);
    s.goodput_bps = rate(rcv.recv_distinct_payload);
    s.mean_delay_s = rcv.delays.mean_s();
    s.jitter_s = rcv.delays.jitter_s();
    s.delay_sd_s = rcv.delays.sd_s();
    s.set_delay_percentiles(delays);
    s
}

/// The receiver of flow `name` of `sc` (`fairway recv FILE --flow NAME --listen ADDR --out
/// DIR`), until its sender's end of flow (or `limit`, or a stop); writes `out`/summary.json.
/// Without a key it makes one and prints it for the sender.
#[allow(clippy::too_many_arguments)]
pub fn recv(
    sc: &Scenario,
    name: &str,
    listen: SocketAddr,
    out: &Path,
    limit: Option<Dur>,
    hide_losses: bool,
    given: Option<Key>,
    ses: Session,
) -> Result<(), Failure> {
    ipv4("--listen", Some(listen))?;
    let (i, f, mut drv) = flow(sc, name)?;
    let port = bind(listen)?;
    let at = port.local_addr().map_err(|e| Failure::Other(e.to_string()))?;
    std::fs::create_dir_all(out).map_err(|e| Failure::Input(format!("{}: {e}", out.display())))?;
    let key = match given {
        Some(k) => k,
        None => {
            let k = fresh_key()?;
            println!("key {} (give it to the sender: --key {})", k.hex(), k.hex());
            k
        }
    };
    // The line a script waits for (with port 0, it names the port chosen).
    println!("receiving {} on {at}", f.name);
    let clock = Clock::new();
    let (counts, peer, delays) = {
        let (_, rcv) = drv.ends().expect("a datagram flow (see `flow`) has its two ends");
        // The pauses in the receiver's own time, which began before the sender's: a pause ends
        // a little later than it says here, well within IDLE after it.
        let e = LiveEnd::new(rcv, port, i as u32, Role::Receiver, key).with_pauses(&f.pauses);
        let mut e = [if hide_losses { e.hiding_losses() } else { e }];
        ends::run(&mut e, &clock, limit.map(|d| Time::ZERO + d), ses.stop, None)
            .map_err(|e| Failure::Other(e.to_string()))?;
        (e[0].counts, e[0].peer(), std::mem::take(&mut e[0].delays))
    };
    let start = f.start_with(sc.seed);
    let stop = f.stop.unwrap_or(Time::ZERO + sc.duration).min(Time::ZERO + sc.duration);
    let flow = summary(sc, f, &counts, &delays, start, stop);
    println!(
        "received {} of {} datagrams ({} distinct); {:.0} b/s, mean one-way delay {}",
        flow.recv_pkts,
        flow.sent_pkts,
        flow.recv_distinct_pkts,
        flow.throughput_bps,
        flow.mean_delay_s.map_or("-".into(), |d| format!("{:.2} ms", d * 1e3))
    );
    let s = LiveSummary {
        fairway: ses.build,
        mode: "live",
        side: "receiver",
        scenario: &sc.name,
        flows: vec![flow],
        live: LiveCounts {
            sender: peer.map(|p| p.to_string()),
            sender_totals_received: counts.peer_end.is_some(),
            ce_pkts: counts.ce_pkts,
            refused_pkts: counts.refused_pkts,
            stranger_pkts: counts.stranger_pkts,
            forged_pkts: counts.forged_pkts,
            truncated_pkts: counts.truncated_pkts,
            duplicate_pkts: counts.duplicate_pkts,
            unconfirmed_pkts: counts.unconfirmed_pkts + counts.held_pkts,
            host_drops_pkts: counts.host_drops_pkts,
            feedback_sent_pkts: counts.sent_pkts,
            feedback_send_errors: counts.send_errors,
        },
    };
    write_json(&out.join("summary.json"), &s)?;
    if ses.stopped() {
        return Err(Failure::Interrupted("receiving stopped; what arrived is in summary.json".into()));
    }
    Ok(())
}
