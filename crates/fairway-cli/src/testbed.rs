//! `fairway testbed FILE`: a dumbbell scenario run live and simulated, side by side.
//!
//! The scenario's bottleneck (its first monitored link, or `--link`) is emulated between two
//! network namespaces: the hosts on its near side are namespace a, those beyond it namespace b.
//! Each flow runs as the real thing: a TCP flow is Linux's TCP (Reno, the scenario's segment
//! size and window), a datagram flow fairway's own endpoints on UDP sockets. The access links
//! are not emulated; their delay is added to the bottleneck's, each way.

use std::collections::VecDeque;
use std::net::{SocketAddr, SocketAddrV4, TcpListener};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fairway_core::{Dur, Rng, Time};
use fairway_engine::RunOptions;
use fairway_live::ends::{self, Clock, EndCounts, LiveEnd, Role};
use fairway_live::session::{flow, link as emulated, results};
use fairway_live::socket::Port;
use fairway_live::tcp::{self, TcpCounts, TcpReceived, TcpSettings};
use fairway_live::web::{self, WebCounts};
use fairway_live::{emulate, in_netns, Link, LinkConfig, Monitor, Sampler};
use fairway_model::apps::WebSessions;
use fairway_model::delay_hist::DelayHist;
use fairway_model::driver::FlowDriver;
use fairway_model::protocol::{Build, ReportContext, RunShared};
use fairway_model::results::{FlowSummary, SeriesLog};
use fairway_model::scenario::{AppSpec, FlowSpec, LinkSpec, Scenario};
use fairway_report::output;
use serde::Serialize;

use crate::scenario_file::load;
use crate::{interrupt, testbed_report, Failure, BUILD};

/// Flow i's receiver listens on port FIRST_PORT + i of its host.
const FIRST_PORT: u16 = 6000;
const MAX_FLOWS: usize = (u16::MAX - FIRST_PORT) as usize;

/// Which side of the bottleneck a flow's data starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    A,
    B,
}

/// The nodes and links of the path from `from` to `to` (fewest hops), if there is one.
fn route(sc: &Scenario, from: usize, to: usize) -> Option<Vec<usize>> {
    let mut prev: Vec<Option<usize>> = vec![None; sc.nodes.len()];
    let mut seen = vec![false; sc.nodes.len()];
    let mut q = VecDeque::from([from]);
    seen[from] = true;
    while let Some(n) = q.pop_front() {
        if n == to {
            let mut links = vec![];
            let mut at = to;
            while let Some(l) = prev[at] {
                links.push(l);
                at = sc.links[l].from.0 as usize;
            }
            links.reverse();
            return Some(links);
        }
        for (i, l) in sc.links.iter().enumerate() {
            let (a, b) = (l.from.0 as usize, l.to.0 as usize);
            if a == n && !seen[b] {
                seen[b] = true;
                prev[b] = Some(i);
                q.push_back(b);
            }
        }
    }
    None
}

/// A flow as the testbed runs it.
struct Planned<'a> {
    f: &'a FlowSpec,
    index: usize,
    side: Side,
    /// One-way delay of its path beside the bottleneck's.
    extra: Dur,
    path: Vec<String>,
}

/// Which side each flow starts on, and its access delay; refuses flows that do not cross the
/// bottleneck `bl`.
fn plan<'a>(sc: &'a Scenario, bl: usize) -> Result<Vec<Planned<'a>>, Failure> {
    let b = &sc.links[bl];
    if sc.flows.len() > MAX_FLOWS {
        return Err(Failure::Input(format!(
            "{} flows: the testbed gives each a port from {FIRST_PORT}, so it runs at most {MAX_FLOWS}",
            sc.flows.len()
        )));
    }
    let mut v = vec![];
    for (i, f) in sc.flows.iter().enumerate() {
        let r = route(sc, f.from.0 as usize, f.to.0 as usize)
            .ok_or_else(|| Failure::Input(format!("flow {}: no route", f.name)))?;
        let side = if r.iter().any(|&l| sc.links[l].from == b.from && sc.links[l].to == b.to) {
            Side::A
        } else if r.iter().any(|&l| sc.links[l].from == b.to && sc.links[l].to == b.from) {
            Side::B
        } else {
            return Err(Failure::Input(format!(
                "flow {} does not cross the bottleneck {}: the testbed runs dumbbells",
                f.name,
                sc.link_name(bl)
            )));
        };
        let extra = r.iter().map(|&l| sc.links[l].delay).fold(Dur::ZERO, |a, d| a + d) - b.delay;
        let mut path = vec![sc.node_name(f.from).to_string()];
        path.extend(r.iter().map(|&l| sc.node_name(sc.links[l].to).to_string()));
        v.push(Planned { f, index: i, side, extra, path });
    }
    Ok(v)
}

/// What a TCP flow did live, and its sender's counts and its receiver's bytes at the bins'
/// edges.
#[derive(Debug, Default, Clone)]
struct TcpRun {
    counts: TcpCounts,
    received: TcpReceived,
    error: Option<std::io::ErrorKind>,
    sent_at_edges: Vec<TcpCounts>,
    received_at_edges: Vec<u64>,
    /// A web flow's sessions: started, completed, and the completed ones' summed durations.
    sessions: Option<(u64, u64, Duration)>,
}

/// A sender's checks of its receiver's echoes: passed, failed (the receiver hides losses), and
/// not checkable (it owned up to losses).
#[derive(Serialize)]
struct NonceChecks {
    flow: String,
    passed: u64,
    failed: u64,
    unchecked: u64,
}

/// A TCP flow's summary. Linux counts bytes; packets are bytes over the segment, each
/// `packet_size + header_size` on the wire as the simulator counts them; drops are taken as
/// the retransmissions Linux made.
fn tcp_summary(mut s: FlowSummary, t: &TcpRun, mss: u64, wire: u64, active_s: f64) -> FlowSummary {
    let pkts = |b: u64| b.div_ceil(mss);
    let rate = |b: u64| if active_s > 0.0 { b as f64 * 8.0 / active_s } else { 0.0 };
    s.sent_pkts = t.counts.segs_out;
    s.sent_bytes = t.counts.segs_out * wire;
    s.recv_pkts = pkts(t.received.bytes);
    s.recv_bytes = pkts(t.received.bytes) * wire;
    s.recv_distinct_pkts = s.recv_pkts;
    s.recv_distinct_bytes = s.recv_bytes;
    s.dropped_pkts = t.counts.retransmits;
    s.retransmits_pkts = t.counts.retransmits;
    s.throughput_bps = rate(t.received.bytes * wire / mss);
    s.goodput_bps = rate(t.received.bytes);
    s
}

/// The Linux congestion controls the TCP flows run, each once, in flow order ("reno, cubic").
fn linux_ccs(flows: &[Planned]) -> String {
    let mut names: Vec<&str> = vec![];
    for t in flows.iter().filter_map(|p| p.f.tcp()) {
        if let Some(c) = TcpSettings::linux_cc(t.sender.cc).filter(|c| !names.contains(c)) {
            names.push(c);
        }
    }
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn sysctl(netns: &str, setting: &str) -> Result<(), Failure> {
    let ok = Command::new("ip").args(["netns", "exec", netns, "sysctl", "-q", "-w", setting]).status();
    match ok {
        Ok(s) if s.success() => Ok(()),
        _ => Err(Failure::Other(anyhow::anyhow!("setting {setting} in {netns} failed"))),
    }
}

fn other(e: impl std::fmt::Display) -> Failure {
    Failure::Other(anyhow::anyhow!("{e}"))
}

/// `fairway testbed FILE --out DIR`.
pub fn testbed(
    file: &Path,
    out: Option<&Path>,
    duration: Option<&str>,
    link: Option<&str>,
    name: &str,
    seed: Option<u64>,
) -> Result<(), Failure> {
    emulated::check_name(name)?;
    let mut sc = load(file)?;
    if let Some(s) = seed {
        sc.seed = s;
    }
    let out = &out.map_or_else(|| Path::new("out").join(format!("{}-testbed", sc.name)), Path::to_path_buf);
    if let Some(d) = duration {
        sc.duration = Dur::parse(d).map_err(|e| Failure::Input(format!("--duration {d}: {e}")))?;
    }
    let bl = emulated::pick(&sc, link)?;
    let (fwd_spec, rev_spec) = emulated::directions(&sc, bl);
    emulated::emulable(&fwd_spec, &sc.link_name(bl))?;
    if let Some(j) = sc.links.iter().position(|l| l.from == fwd_spec.to && l.to == fwd_spec.from) {
        emulated::emulable(&rev_spec, &sc.link_name(j))?;
    }
    let flows = plan(&sc, bl)?;
    // The access links' one-way delay, added to the bottleneck's: one value for all flows.
    let extra = flows.iter().map(|p| p.extra).max().unwrap_or(Dur::ZERO);
    if let Some(p) = flows.iter().find(|p| p.extra != extra) {
        eprintln!(
            "warning: flow {}'s access links delay {} ms, others' {} ms; the testbed adds {} ms to every flow",
            p.f.name,
            p.extra.as_secs_f64() * 1e3,
            extra.as_secs_f64() * 1e3,
            extra.as_secs_f64() * 1e3
        );
    }
    std::fs::create_dir_all(out).map_err(|e| Failure::Input(format!("{}: {e}", out.display())))?;

    // The simulation first: quick, and a scenario it refuses goes no further.
    println!("simulating {} ({} s)", sc.name, sc.duration.as_secs_f64());
    let res = fairway_engine::run(&sc, &RunOptions::default(), &mut |_| {})
        .map_err(|e| other(format!("the simulation: {e}")))?;
    output::write_all(&res, &sc, &out.join("simulated")).map_err(other)?;

    let bspec = &sc.links[bl];
    let delay = bspec.delay + extra;
    let build = |spec: &LinkSpec, what: &str| -> Result<Link, Failure> {
        let q = spec.queue.build(spec.rate, spec.delay).map_err(|e| Failure::Input(format!("{what}: {e}")))?;
        // The access legs' delay folds into the bottleneck's, each step of a schedule too.
        let schedule = spec.schedule.clone().map(|mut s| {
            s.delay.iter_mut().for_each(|(_, d)| *d += extra);
            s
        });
        let cfg = LinkConfig { rate: spec.rate, delay: spec.delay + extra, loss: spec.loss, schedule };
        Ok(Link::new(cfg, q, Rng::stream(sc.seed, what)))
    };
    let mut fwd = build(&fwd_spec, &sc.link_name(bl))?;
    let mut rev = build(&rev_spec, "back")?;
    // From here on, every signal that would end the process asks it to stop instead, so that
    // the namespaces go with it.
    interrupt::install_for_cleanup();
    let mut pair = emulated::namespaces(name)?;
    let (na, nb) = (pair.a.netns.clone(), pair.b.netns.clone());
    let (aa, ab) = (pair.a.addr, pair.b.addr);
    // SACK is a namespace's setting, not a socket's: on if any TCP flow asks for it.
    let sack = flows.iter().any(|p| p.f.tcp().is_some_and(|t| t.sink.sack));
    if sack && flows.iter().any(|p| p.f.tcp().is_some_and(|t| !t.sink.sack)) {
        eprintln!("warning: some TCP flows have SACK and some not; on Linux all have it (a namespace's setting)");
    }
    // Timestamps too (RFC 7323: 12 bytes of option in every segment): on if any TCP flow has them
    // (`timestamps`, or `options = "linux"`), off as in ns-2's agents otherwise.
    let timestamps = flows.iter().any(|p| p.f.tcp().is_some_and(|t| t.sender.timestamps));
    if timestamps && flows.iter().any(|p| p.f.tcp().is_some_and(|t| !t.sender.timestamps)) {
        eprintln!(
            "warning: some TCP flows have timestamps and some not; on Linux all have them (a namespace's setting)"
        );
    }
    for ns in [&na, &nb] {
        sysctl(ns, if timestamps { "net.ipv4.tcp_timestamps=1" } else { "net.ipv4.tcp_timestamps=0" })?;
        sysctl(ns, if sack { "net.ipv4.tcp_sack=1" } else { "net.ipv4.tcp_sack=0" })?;
    }
    let ns_of = |s: Side| if s == Side::A { (&na, aa, &nb, ab) } else { (&nb, ab, &na, aa) };

    // Datagram flows: their ends, and sockets in their hosts' namespaces.
    let mut drivers: Vec<(usize, Box<dyn FlowDriver>)> = vec![];
    // One process runs every flow: a coupled group's senders share their state exchange.
    let shared = RunShared::new();
    let mut tcp_plans = vec![];
    for p in &flows {
        let port = FIRST_PORT + p.index as u16;
        match &p.f.app {
            AppSpec::Datagram(d) => {
                let b = Build { flow: p.index as u32, name: &p.f.name, seed: sc.seed, wire: true, shared: &shared };
                drivers
                    .push((p.index, d.spec.build(&b).map_err(|e| Failure::Input(format!("flow {}: {e}", p.f.name)))?));
            }
            _ => {
                let tcp = p.f.tcp().expect("a TCP flow");
                let cc = TcpSettings::linux_cc(tcp.sender.cc).ok_or_else(|| {
                    Failure::Input(format!("flow {}: cc {} has no Linux counterpart", p.f.name, tcp.sender.cc))
                })?;
                let settings = TcpSettings {
                    mss: TcpSettings::mss_for(tcp.sender.packet_size.0 as u32, timestamps),
                    window: Some(tcp.sender.window * tcp.sender.packet_size.0 as u32),
                    cc,
                };
                let (_, _, dst_ns, dst) = ns_of(p.side);
                let at = SocketAddr::V4(SocketAddrV4::new(dst, port));
                let l: TcpListener = in_netns(dst_ns, || tcp::listen(at, settings)).map_err(other)?.map_err(other)?;
                tcp_plans.push((p, settings, at, l));
            }
        }
    }
    let mut live_ends = vec![];
    let mut which = vec![];
    for (i, drv) in drivers.iter_mut() {
        let p = flows.iter().find(|p| p.index == *i).unwrap();
        let (src_ns, src, dst_ns, dst) = ns_of(p.side);
        let to = SocketAddr::V4(SocketAddrV4::new(dst, FIRST_PORT + *i as u16));
        let sp = in_netns(src_ns, || Port::bind(SocketAddr::V4(SocketAddrV4::new(src, 0))))
            .map_err(other)?
            .map_err(other)?;
        let rp = in_netns(dst_ns, || Port::bind(to)).map_err(other)?.map_err(other)?;
        let start = p.f.start_with(sc.seed);
        let stop = p.f.stop.unwrap_or(Time::ZERO + sc.duration).min(Time::ZERO + sc.duration);
        let (snd, rcv) = drv.ends().expect("a datagram flow has its two ends");
        // Both ends are this process's: a fresh key binds them, as `fairway key` would.
        let key = fairway_live::Key::fresh().map_err(other)?;
        live_ends.push(
            LiveEnd::new(snd, sp, *i as u32, Role::Sender { to, start, stop }, key.clone()).with_pauses(&p.f.pauses),
        );
        live_ends.push(LiveEnd::new(rcv, rp, *i as u32, Role::Receiver, key).with_pauses(&p.f.pauses));
        which.push(*i);
    }

    println!(
        "running it live for {} s: {} between {na} ({aa}) and {nb} ({ab}), {} ms each way",
        sc.duration.as_secs_f64(),
        sc.link_name(bl),
        delay.as_secs_f64() * 1e3
    );
    let clock = Clock::new();
    let at = |t: Time| clock.at(t);
    let end = Time::ZERO + sc.duration;
    let edges = results::edges(&sc);
    let mut snapshots = ends::Snapshots::new(edges.clone());
    let stop_emu = AtomicBool::new(false);
    let mut monitor = Monitor { every: sc.monitor.queue_interval, samples: vec![] };
    let (a_tun, b_tun) = (&mut pair.a.tun, &mut pair.b.tun);
    let web_counts: Vec<WebCounts> = tcp_plans.iter().map(|_| WebCounts::default()).collect();
    let (tcp_runs, emu) = std::thread::scope(|s| -> Result<_, Failure> {
        let emu = s.spawn(|| emulate::run(a_tun, b_tun, &mut fwd, &mut rev, None, &stop_emu, Some(&mut monitor)));
        let mut tcp_threads = vec![];
        let mut web_threads = vec![];
        for (k, (p, settings, to, l)) in tcp_plans.iter().enumerate() {
            let (src_ns, ..) = ns_of(p.side);
            let start = at(p.f.start_with(sc.seed));
            let stop = at(p.f.stop.unwrap_or(end).min(end));
            let limit = match &p.f.app {
                AppSpec::Transfer { size, .. } => Some(size.0),
                _ => None,
            };
            let (to, settings, src_ns) = (*to, *settings, src_ns.clone());
            let moments: Vec<Instant> = edges.iter().map(|&t| at(t)).collect();
            if let AppSpec::Web { interarrival, mean_size, shape, .. } = &p.f.app {
                // The simulator's sessions, each as many whole segments as it sends.
                let mut w =
                    WebSessions::new(*interarrival, *mean_size, *shape, WebSessions::stream(sc.seed, &p.f.name));
                let mss = settings.mss as u64;
                let schedule: Vec<(Instant, u64)> = w
                    .schedule(p.f.start_with(sc.seed), p.f.stop.unwrap_or(end).min(end))
                    .into_iter()
                    .map(|(t, b)| (at(t), b.0.div_ceil(mss).max(1) * mss))
                    .collect();
                let counts = &web_counts[k];
                let mut snaps = Sampler::new(moments);
                let recv = s.spawn(move || (web::receive_sessions(l, at(end), counts, &mut snaps), snaps));
                let send =
                    s.spawn(move || in_netns(&src_ns, || web::send_sessions(&schedule, to, settings, stop, counts)));
                web_threads.push((k, send, recv));
                continue;
            }
            let mut got_at = tcp::ReceiverSamples::new(moments.clone());
            let recv = s.spawn(move || (tcp::receive(l, at(end), &mut got_at), got_at));
            let mut sent_at = tcp::SenderSamples::new(moments);
            let send = s.spawn(move || {
                std::thread::sleep(start.saturating_duration_since(Instant::now()));
                let r = in_netns(&src_ns, || tcp::connect(to, settings, Duration::from_secs(5)))
                    .and_then(|c| c)
                    .and_then(|mut c| tcp::send_bulk(&mut c, stop, limit, &mut sent_at));
                (r, sent_at)
            });
            tcp_threads.push((k, send, recv));
        }
        let r = ends::run(
            &mut live_ends,
            &clock,
            Some(end + Dur::from_secs(2)),
            &interrupt::INTERRUPTED,
            Some(&mut snapshots),
        );
        let mut runs = vec![TcpRun::default(); tcp_plans.len()];
        for (k, send, recv) in web_threads {
            let t = &mut runs[k];
            if let Err(e) = send.join().expect("a web flow's sender") {
                t.error = Some(e.kind());
            }
            let (got, snaps) = recv.join().expect("a web flow's receiver");
            if let Err(e) = got {
                t.error = Some(e.kind());
            }
            let c = &web_counts[k];
            let last = c.snapshot();
            t.counts = TcpCounts { segs_out: last.segs_out, retransmits: last.retransmits, ..TcpCounts::default() };
            t.received.bytes = last.received;
            t.sent_at_edges = snaps
                .taken()
                .iter()
                .map(|w| TcpCounts { segs_out: w.segs_out, retransmits: w.retransmits, ..TcpCounts::default() })
                .collect();
            t.received_at_edges = snaps.taken().iter().map(|w| w.received).collect();
            let n = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
            t.sessions = Some((n(&c.started), n(&c.completed), Duration::from_nanos(n(&c.completion_ns))));
        }
        for (k, send, recv) in tcp_threads {
            let t = &mut runs[k];
            let (sent, mut sent_at) = send.join().expect("a TCP sender");
            match sent {
                Ok((_, c)) => t.counts = c,
                Err(e) => t.error = Some(e.kind()),
            }
            // A sender that failed before it sent anything counted nothing.
            sent_at.finish(t.counts);
            t.sent_at_edges = sent_at.taken().to_vec();
            let (got, got_at) = recv.join().expect("a TCP receiver");
            match got {
                Ok(r) => t.received = r,
                Err(e) => t.error = Some(e.kind()),
            }
            t.received_at_edges = got_at.taken().to_vec();
        }
        stop_emu.store(true, Ordering::Relaxed);
        let emu = emu.join().expect("the emulator");
        r.map_err(other)?;
        Ok((runs, emu))
    })?;
    emu.map_err(|e| other(format!("the emulator: {e}")))?;

    // The live run's summary.
    let mut live_flows = vec![];
    let mut nonce_checks = vec![];
    let counts: Vec<EndCounts> = live_ends.iter().map(|e| e.counts).collect();
    let mut end_delays: Vec<DelayHist> = live_ends.iter_mut().map(|e| std::mem::take(&mut e.delays)).collect();
    drop(live_ends);
    // Per flow, its receiver's delays (none measured for a TCP flow).
    let mut delay_hists = vec![];
    let mut bins = vec![];
    let mut series_logs = vec![];
    for p in &flows {
        let start = p.f.start_with(sc.seed);
        let stop = p.f.stop.unwrap_or(end).min(end);
        let mut s = FlowSummary::named(&sc, p.f, p.path.clone(), start, stop);
        s.base_rtt_s = Some(2.0 * delay.as_secs_f64());
        let active_s = (stop - start).as_secs_f64();
        if let Some(k) = which.iter().position(|&i| i == p.index) {
            let (snd, rcv) = (&counts[2 * k], &counts[2 * k + 1]);
            let active = match (snd.started, snd.stopped) {
                (Some(a), Some(b)) => (b - a).as_secs_f64(),
                _ => active_s,
            };
            let delays = std::mem::take(&mut end_delays[2 * k + 1]);
            s = flow::datagram_summary(s, (snd.sent_pkts, snd.sent_bytes), rcv, &delays, active);
            delay_hists.push(delays);
            nonce_checks.push(NonceChecks {
                flow: p.f.name.clone(),
                passed: snd.nonce_passed,
                failed: snd.nonce_failed,
                unchecked: snd.nonce_unchecked,
            });
            let AppSpec::Datagram(d) = &p.f.app else { unreachable!() };
            let drv = &drivers.iter().find(|(i, _)| *i == p.index).unwrap().1;
            s.protocol = d.spec.report(drv.as_ref(), &ReportContext { start, stop, end });
            let at_edges = |j: usize| snapshots.taken().iter().map(|v| v[j]).collect::<Vec<_>>();
            let logs = drv.logs();
            series_logs.extend(logs.iter().map(|(x, log)| SeriesLog {
                flow: p.index,
                series: **x,
                points: log.iter().map(|&(t, v)| (t.as_secs_f64(), v)).collect(),
            }));
            bins.push(results::datagram_bins(&at_edges(2 * k), &at_edges(2 * k + 1), &edges, &logs));
        } else {
            let k = tcp_plans.iter().position(|(q, ..)| q.index == p.index).unwrap();
            let t = &tcp_runs[k];
            delay_hists.push(DelayHist::new());
            if let Some(e) = t.error {
                eprintln!("warning: TCP flow {}: {e}", p.f.name);
            }
            let tcp = p.f.tcp().unwrap();
            let mss = tcp.sender.packet_size.0;
            s = tcp_summary(s, t, mss, mss + tcp.sender.header_size.0, active_s);
            let mut b = results::tcp_bins(&t.sent_at_edges, &t.received_at_edges, mss, mss + tcp.sender.header_size.0);
            if let Some((started, completed, took)) = t.sessions {
                (s.sessions_started, s.sessions_completed) = (started, completed);
                s.mean_session_s = (completed > 0).then(|| took.as_secs_f64() / completed as f64);
                // A web flow's sessions have windows of their own; the simulator draws none.
                b.iter_mut().for_each(|r| r.cwnd_pkts = f32::NAN);
            }
            bins.push(b);
        }
        live_flows.push(s);
    }
    // The live results folder: the simulated one's files, from what the live run counted.
    let back_name = match sc.links.iter().position(|l| l.from == bspec.to && l.to == bspec.from) {
        Some(j) => sc.link_name(j),
        None => format!("{} (back)", sc.link_name(bl)),
    };
    let live_links = [
        emulated::live_link(
            sc.link_name(bl),
            &fwd_spec,
            delay,
            &fwd,
            &monitor.samples,
            sc.duration,
            pair.a.device_drops(),
        ),
        emulated::live_link(back_name, &rev_spec, delay, &rev, &[], sc.duration, pair.b.device_drops()),
    ];
    let run = results::LiveRun {
        flows: live_flows,
        links: live_links.iter().map(|l| l.summary.clone()).collect(),
        samples: &monitor.samples,
        bins,
        series_logs,
        delay_hists,
        complete: !interrupt::INTERRUPTED.load(Ordering::Relaxed),
    };
    let live = results::run_result(&sc, bl, run);
    let mut more = serde_json::Map::new();
    // One-way delay added to the bottleneck's for the access links, and each datagram flow's
    // sender's checks of its receiver's nonce echoes.
    more.insert("access_delay_s".into(), serde_json::json!(extra.as_secs_f64()));
    more.insert("nonce_checks".into(), serde_json::to_value(&nonce_checks).map_err(other)?);
    results::write_folder(&out.join("live"), &sc, &live, more, &live_links)?;

    // Side by side.
    let sim_link = res.summary.links.iter().find(|l| l.name == sc.link_name(bl));
    let (csv, md) =
        testbed_report::comparison(&sc, &res.summary.flows, &live.summary.flows, sim_link, &live.summary.links[0]);
    std::fs::write(out.join("comparison.csv"), csv).map_err(other)?;
    std::fs::write(out.join("comparison.md"), &md).map_err(other)?;
    let facts = vec![
        ("scenario".to_string(), format!("{} ({})", sc.name, file.display())),
        ("seed".to_string(), sc.seed.to_string()),
        ("duration".to_string(), format!("{} s, each run", sc.duration.as_secs_f64())),
        (
            "bottleneck".to_string(),
            format!(
                "{}: {} Mb/s, {}; live, {} ms each way (the access links' {} ms added)",
                sc.link_name(bl),
                bspec.rate.as_bps_f64() / 1e6,
                bspec.queue.kind(),
                delay.as_secs_f64() * 1e3,
                extra.as_secs_f64() * 1e3
            ),
        ),
        (
            "live".to_string(),
            format!(
                "TCP flows on Linux's TCP ({}, {}, SACK {}); datagram flows on fairway's endpoints over UDP",
                linux_ccs(&flows),
                if timestamps { "timestamps" } else { "no timestamps" },
                if sack { "on" } else { "off" }
            ),
        ),
        ("fairway".to_string(), BUILD.to_string()),
    ];
    testbed_report::write_page(
        out,
        &sc,
        &sc.link_name(bl),
        &facts,
        (&res.summary.flows, &live.summary.flows),
        (sim_link, &live.summary.links[0]),
    )?;
    println!("{md}");
    println!("wrote {}", out.display());
    if interrupt::INTERRUPTED.load(Ordering::Relaxed) {
        return Err(Failure::Interrupted("the live run was stopped; its results cover what ran".into()));
    }
    Ok(())
}
