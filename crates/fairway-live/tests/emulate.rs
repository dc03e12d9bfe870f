//! The emulator between two network namespaces, with Linux's TCP sending through it. Root is
//! needed (namespaces, TUN devices); without it the tests say so and pass, unless
//! FAIRWAY_REQUIRE_NETNS is set (CI sets it), when a missing capability fails them.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fairway_aqm::{DropTail, DropTailParams, Limit, Qdisc, QueueStats, Red, RedParams};
use fairway_core::{Dur, Rate, Rng};
use fairway_live::{emulate, in_netns, Link, LinkConfig, Pair};

#[path = "../../fairway-cli/tests/referee/mod.rs"]
mod referee;

fn can_run() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let missing = if !root {
        Some("network namespaces need root".to_string())
    } else if !std::path::Path::new("/dev/net/tun").exists() {
        Some("no /dev/net/tun".to_string())
    } else if !std::process::Command::new("ip").arg("-V").output().is_ok_and(|o| o.status.success()) {
        Some("iproute2's `ip` does not run".to_string())
    } else {
        None
    };
    referee::available("netns", "FAIRWAY_REQUIRE_NETNS", missing)
}

const RATE: u64 = 10_000_000;
const DELAY_MS: u64 = 10;
/// How long the sender sends.
const SEND: Duration = Duration::from_secs(4);

/// What a TCP transfer from host a to host b through the emulator gave.
struct Transfer {
    /// The time `connect` took: a SYN there and a SYN-ACK back.
    connect: Duration,
    /// Bytes the receiver read, and the time from its first byte to its last.
    bytes: u64,
    span: Duration,
    /// The bottleneck's discipline's counters and packets left in it, and the bytes it carried
    /// over the time it ran.
    stats: QueueStats,
    waiting: usize,
    carried_bits: f64,
    ran: Duration,
}

fn link(queue: Qdisc, seed: &str) -> Link {
    let cfg = LinkConfig {
        rate: Rate::from_bps(RATE),
        delay: Dur::from_millis(DELAY_MS),
        loss: fairway_model::scenario::LossModel::NONE,
        schedule: None,
    };
    Link::new(cfg, queue, Rng::stream(1, seed))
}

fn droptail(limit: u32) -> Qdisc {
    Qdisc::DropTail(DropTail::new(DropTailParams { limit: Limit::Packets(limit) }).unwrap())
}

/// Host a sends to host b as fast as TCP lets it for [`SEND`], through `queue` at 10 Mb/s with
/// 10 ms each way (the return link a DropTail of 1000).
fn transfer(tag: &str, queue: Qdisc) -> Transfer {
    let mut pair = Pair::create(&format!("{tag}{}", std::process::id())).expect("namespaces");
    let mut fwd = link(queue, "fwd");
    let mut rev = link(droptail(1000), "rev");
    let stop = AtomicBool::new(false);
    let to: SocketAddr = (pair.b.addr, 5001).into();
    let (a_ns, b_ns) = (pair.a.netns.clone(), pair.b.netns.clone());
    let (bytes, span, connect, ran) = std::thread::scope(|s| {
        let (a, b) = (&mut pair.a.tun, &mut pair.b.tun);
        let (fwd, rev, stop) = (&mut fwd, &mut rev, &stop);
        let emulator = s.spawn(move || {
            let started = Instant::now();
            emulate::run(a, b, fwd, rev, Some(Duration::from_secs(30)), stop, None).expect("the emulator");
            started.elapsed()
        });
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let server = s.spawn(move || {
            in_netns(&b_ns, || {
                let l = TcpListener::bind(to).expect("bind in b");
                ready_tx.send(()).unwrap();
                let (mut c, _) = l.accept().expect("accept");
                let mut buf = vec![0u8; 1 << 16];
                let (mut total, mut first, mut last) = (0u64, None, Instant::now());
                loop {
                    match c.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            first.get_or_insert_with(Instant::now);
                            last = Instant::now();
                            total += n as u64;
                        }
                        Err(e) => panic!("read: {e}"),
                    }
                }
                (total, last - first.expect("bytes came"))
            })
            .expect("enter b")
        });
        ready_rx.recv().unwrap();
        let connect = in_netns(&a_ns, || {
            let t0 = Instant::now();
            let mut c = TcpStream::connect_timeout(&to, Duration::from_secs(5)).expect("connect from a");
            let connect = t0.elapsed();
            let chunk = vec![7u8; 1 << 16];
            while t0.elapsed() < SEND {
                c.write_all(&chunk).expect("write");
            }
            c.shutdown(std::net::Shutdown::Write).unwrap();
            connect
        })
        .expect("enter a");
        let (bytes, span) = server.join().unwrap();
        stop.store(true, Ordering::Relaxed);
        (bytes, span, connect, emulator.join().unwrap())
    });
    Transfer {
        connect,
        bytes,
        span,
        stats: *fwd.stats(),
        waiting: fwd.queue_len(),
        carried_bits: fwd.counts().delivered_bytes as f64 * 8.0,
        ran,
    }
}

/// The physics every transfer obeys: the link carries no more than its rate, keeps every packet
/// it took accounted for, and the handshake takes at least the round trip's delays.
fn obeys_the_link(t: &Transfer) {
    // SYN (60 B) and SYN-ACK (60 B): 10 ms of delay and 48 us of serialisation each way.
    assert!(t.connect >= Duration::from_millis(2 * DELAY_MS), "connect took {:?}", t.connect);
    // One packet of slack: the one whose serialisation the stop cut short is counted whole.
    let most = RATE as f64 * t.ran.as_secs_f64() + 1500.0 * 8.0;
    assert!(t.carried_bits <= most, "{} bits carried in {:?}", t.carried_bits, t.ran);
    let s = &t.stats;
    assert_eq!(s.arrivals_pkts, s.departures_pkts + s.drops() + t.waiting as u64, "{s:?}");
}

#[test]
fn tcp_through_a_droptail_bottleneck_fills_its_rate_and_pays_its_delay() {
    if !can_run() {
        return;
    }
    // 100 packets of buffer, five times the path's bandwidth-delay product (10 Mb/s x 20 ms
    // = 25 kB, 17 packets): after a loss TCP's window stays above the product (CUBIC keeps
    // 0.7 of it), so the queue never empties and the link stays busy but for slow start.
    let t = transfer("dt", droptail(100));
    obeys_the_link(&t);
    // Each 1500 B packet carries 1448 B of data (IP, TCP and its timestamp option take 52).
    let ceiling = RATE as f64 * 1448.0 / 1500.0;
    let goodput = t.bytes as f64 * 8.0 / t.span.as_secs_f64();
    assert!(goodput <= ceiling * 1.01, "{goodput} b/s above the link's {ceiling}");
    // Slow start's first round trips and the recovery from its overshoot: 15% of 4 s is
    // 600 ms, thirty round trips.
    assert!(goodput >= 0.85 * ceiling, "{goodput} b/s of {ceiling}");
    eprintln!("goodput {goodput:.0} b/s of {ceiling:.0}; connect {:?}; {:?}", t.connect, t.stats);
}

#[test]
fn tcp_through_red_meets_early_drops() {
    if !can_run() {
        return;
    }
    // RED as the seeds set it (thresholds 5 and 15): TCP's window grows past the product plus
    // 5 packets within a second, so RED's average crosses its lower threshold and it drops early.
    let p = RedParams { thresh: 5.0, maxthresh: 15.0, ..Default::default() };
    let red = Red::new(p, Rate::from_bps(RATE), Dur::from_millis(DELAY_MS)).unwrap();
    let t = transfer("red", Qdisc::Red(Box::new(red)));
    obeys_the_link(&t);
    assert!(t.stats.early_drops > 0, "{:?}", t.stats);
}
