//! `fairway emulate FILE`: a scenario's link, live, between two network namespaces. Host a's
//! packets to host b cross the link as the scenario gives it (rate, delay, loss, discipline);
//! b's packets back cross the link the other way (the scenario's, or a DropTail of 1000
//! packets at the same rate and delay when it has none).

use std::path::Path;
use std::time::Duration;

use fairway_core::{Dur, Rng};
use fairway_engine::scenario::{LinkSpec, Scenario};
use fairway_live::{emulate, Link, LinkConfig, Pair};

use crate::{interrupt, load, Failure};

/// The link `name` (`from->to`), or the first monitored one.
pub(crate) fn pick(sc: &Scenario, name: Option<&str>) -> Result<usize, Failure> {
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

fn build(spec: &LinkSpec, what: &str, seed: u64) -> Result<Link, Failure> {
    let queue = spec.queue.build(spec.rate, spec.delay).map_err(|e| Failure::Input(format!("{what}: {e}")))?;
    let cfg = LinkConfig { rate: spec.rate, delay: spec.delay, loss: spec.loss };
    Ok(Link::new(cfg, queue, Rng::stream(seed, what)))
}

fn describe(spec: &LinkSpec) -> String {
    let loss = if spec.loss > 0.0 { format!(", loss {}", spec.loss) } else { String::new() };
    format!("{} Mb/s, {} ms, {}{loss}", spec.rate.as_bps_f64() / 1e6, spec.delay.as_secs_f64() * 1e3, spec.queue.kind())
}

fn report(what: &str, link: &Link, carried: &fairway_live::Carried) -> String {
    let s = link.stats();
    let c = link.counts();
    format!(
        "{what}: {} packets in, {} delivered; dropped {} (early {}, forced {}, overflow {}, other {}), marked {}, lost {}, {} waiting; \
{} not IPv4 ignored, {} writes refused",
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
    )
}

/// `--name`: what namespaces and devices may be named after.
pub(crate) fn check_name(name: &str) -> Result<(), Failure> {
    if name.is_empty() || name.len() > 10 || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        return Err(Failure::Input(format!("--name {name}: 1 to 10 lowercase letters or digits")));
    }
    Ok(())
}

/// The link `i` and the one back: the scenario's, or a DropTail of 1000 packets at the same
/// rate and delay when it has none.
pub(crate) fn directions(sc: &Scenario, i: usize) -> (LinkSpec, LinkSpec) {
    let spec = &sc.links[i];
    let back = sc.links.iter().find(|l| l.from == spec.to && l.to == spec.from).cloned().unwrap_or_else(|| LinkSpec {
        queue: fairway_aqm::QueueSpec::DropTail(fairway_aqm::DropTailParams {
            limit: fairway_aqm::Limit::Packets(1000),
        }),
        loss: 0.0,
        from: spec.to,
        to: spec.from,
        ..spec.clone()
    });
    (spec.clone(), back)
}

/// Hosts a and b as namespaces fw-NAME-a and fw-NAME-b.
pub(crate) fn namespaces(name: &str) -> Result<Pair, Failure> {
    Pair::create(name).map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::PermissionDenied => " (root is needed)",
            std::io::ErrorKind::NotFound => " (iproute2's `ip` and /dev/net/tun are needed)",
            _ => "",
        };
        Failure::Other(anyhow::anyhow!("creating the namespaces: {e}{hint}"))
    })
}

pub fn emulate(file: &Path, link: Option<&str>, duration: Option<&str>, name: &str) -> Result<(), Failure> {
    check_name(name)?;
    let until = duration
        .map(|d| Dur::parse(d).map_err(|e| Failure::Input(format!("--duration {d}: {e}"))))
        .transpose()?
        .map(|d| Duration::from_nanos(d.0));
    let sc = load(file)?;
    let i = pick(&sc, link)?;
    let (spec, back_spec) = directions(&sc, i);
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
    let (a, b) = (&mut pair.a.tun, &mut pair.b.tun);
    let (ca, cb) = emulate::run(a, b, &mut fwd, &mut rev, until, &interrupt::INTERRUPTED)
        .map_err(|e| Failure::Other(anyhow::anyhow!("the emulator: {e}")))?;
    println!("{}", report(&format!("a -> b ({fwd_name})"), &fwd, &ca));
    println!("{}", report(&format!("b -> a ({back_name})"), &rev, &cb));
    // The namespaces go with `pair`.
    Ok(())
}
