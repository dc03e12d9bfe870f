//! Endpoints on sockets (fairway_live::ends) over loopback, through a relay that duplicates,
//! reorders, cuts and adds garbage and forgeries: a flow delivers every datagram once, counts the
//! copies, the strangers, the forged and the cut, and its protocol sees none of them.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use fairway_core::{Bytes, Dur, Rng, Time};
use fairway_live::ends::{self, Clock, LiveEnd, Role};
use fairway_live::framing::{self, Header, Kind};
use fairway_live::key::Key;
use fairway_live::socket::Port;
use fairway_proto::source::{Cbr, CbrConfig};
use fairway_proto::tfrc::{TfrcConfig, TfrcReceiver, TfrcSender};
use fairway_proto::Endpoint;

/// What the relay did to the data on its way.
#[derive(Debug, Default)]
struct Mangled {
    forwarded: u64,
    duplicates: u64,
    swaps: u64,
    /// Not the flow's (not fairway's, another flow's, feedback sent to a receiver).
    garbage: u64,
    /// The flow's data as one without the key would write it, far ahead of the flow.
    forged: u64,
    /// A copy of a data datagram, cut short.
    cut: u64,
}

/// The key of the tests' flows.
fn key() -> Key {
    Key::from_bytes([42; 32])
}

/// Every datagram after the first from `sender` goes on to `receiver`; the others back to
/// `sender`. Data: every 7th is sent twice, every other pair swapped (unless the second is
/// more than 2 ms late), and after each, a datagram of one of five sorts goes to the receiver:
/// three of garbage, a forgery, a cut copy.
fn relay(sock: UdpSocket, receiver: SocketAddr, flow: u32, stop: Arc<AtomicBool>) -> Mangled {
    sock.set_read_timeout(Some(Duration::from_millis(2))).unwrap();
    let (mut m, mut sender, mut held) = (Mangled::default(), None::<SocketAddr>, None::<Vec<u8>>);
    let mut buf = vec![0u8; 65536];
    let mut junk = vec![];
    while !stop.load(Ordering::Relaxed) {
        let Ok((n, from)) = sock.recv_from(&mut buf) else {
            // Nothing more within 2 ms: what is held goes unswapped (a sender waiting for
            // feedback would otherwise wait for ever).
            if let Some(h) = held.take() {
                sock.send_to(&h, receiver).unwrap();
            }
            continue;
        };
        if from == receiver {
            sock.send_to(&buf[..n], sender.unwrap()).unwrap();
            continue;
        }
        sender = Some(from);
        let d = buf[..n].to_vec();
        if d[3] == 2 {
            // The end of flow: whatever is held goes first.
            if let Some(h) = held.take() {
                sock.send_to(&h, receiver).unwrap();
            }
            sock.send_to(&d, receiver).unwrap();
            continue;
        }
        m.forwarded += 1;
        if m.forwarded % 4 == 1 && held.is_none() {
            held = Some(d.clone());
        } else {
            let copies = if m.forwarded % 7 == 0 { 2 } else { 1 };
            m.duplicates += copies - 1;
            for _ in 0..copies {
                sock.send_to(&d, receiver).unwrap();
            }
            if let Some(h) = held.take() {
                sock.send_to(&h, receiver).unwrap();
                m.swaps += 1;
            }
        }
        // Garbage: bytes that are not fairway's, another flow's datagram, and feedback sent
        // to a receiver.
        let mut hdr = Header {
            kind: Kind::Data,
            flow: flow + 1,
            seq: m.forwarded as u32 + 5000,
            size: Bytes(100),
            payload: Bytes(60),
            len: 10,
            sent_ns: 0,
            nonce: false,
            echo: None,
        };
        match m.forwarded % 5 {
            0 => {
                junk.clear();
                junk.extend((0..50).map(|i| (i * 37 + m.forwarded) as u8));
                m.garbage += 1;
            }
            1 => {
                framing::write(&hdr, &[7; 10], &key(), &mut junk);
                m.garbage += 1;
            }
            2 => {
                hdr.flow = flow;
                hdr.kind = Kind::Feedback;
                framing::write(&hdr, &[7; 10], &key(), &mut junk);
                m.garbage += 1;
            }
            3 => {
                // Who guesses the flow's number but not its key: 5000 ahead, it would have
                // cleared the receiver's window.
                hdr.flow = flow;
                framing::write(&hdr, &[7; 10], &Key::from_bytes([1; 32]), &mut junk);
                m.forged += 1;
            }
            _ => {
                junk.clear();
                junk.extend_from_slice(&d[..d.len() / 2]);
                m.cut += 1;
            }
        }
        sock.send_to(&junk, receiver).unwrap();
    }
    m
}

/// TFRC carrying 1000-byte CBR packets every 4 ms (2 Mb/s): its sender and receiver.
fn tfrc_over_cbr() -> (TfrcSender, TfrcReceiver) {
    let cfg = TfrcConfig { packet_size: Bytes(1000), ..TfrcConfig::rfc5348() };
    let cbr = CbrConfig {
        packet_size: Bytes(1000),
        interval: Dur::from_millis(4),
        jitter: false,
        max_packets: None,
        frame_interval: None,
    };
    let snd = TfrcSender::new(cfg.clone(), Box::new(Cbr::new(cbr, Rng::from_seed(1)))).unwrap();
    (snd, TfrcReceiver::new(cfg).unwrap())
}

fn port() -> Port {
    Port::bind("127.0.0.1:0".parse().unwrap()).unwrap()
}

#[test]
fn a_flow_survives_duplicates_reordering_and_garbage() {
    let flow = 3;
    let (mut snd, mut rcv) = tfrc_over_cbr();
    let (sp, rp, relay_sock) = (port(), port(), UdpSocket::bind("127.0.0.1:0").unwrap());
    let (raddr, via) = (rp.local_addr().unwrap(), relay_sock.local_addr().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let r = {
        let stop = stop.clone();
        thread::spawn(move || relay(relay_sock, raddr, flow, stop))
    };
    let clock = Clock::new();
    let (start, end) = (Time::ZERO + Dur::from_millis(100), Time::ZERO + Dur::from_millis(1100));
    let (s, rc, peer, delays) = {
        let mut e = [
            LiveEnd::new(&mut snd, sp, flow, Role::Sender { to: via, start, stop: end }, key()),
            LiveEnd::new(&mut rcv, rp, flow, Role::Receiver, key()),
        ];
        ends::run(&mut e, &clock, Some(Time::ZERO + Dur::from_secs(10)), &AtomicBool::new(false), None).unwrap();
        (e[0].counts, e[1].counts, e[1].peer(), e[1].delays.clone())
    };
    let took = clock.now();
    stop.store(true, Ordering::Relaxed);
    let m = r.join().unwrap();

    // The run ends by itself: the receiver finishes soon after the sender's end of flow.
    assert!(took < end + Dur::from_secs(1), "finished at {took}");
    assert_eq!(peer, Some(via), "the receiver answers the relay it heard the sender through");
    // The source offers at most 251 datagrams (one at the start, one every 4 ms); TFRC, from
    // its initial rate, sends most of them. Every one is delivered once, the copies apart.
    assert!((200..=251).contains(&s.sent_pkts), "{s:?}");
    assert_eq!(m.forwarded, s.sent_pkts);
    assert!(m.duplicates > 20 && m.swaps > 50 && m.forged > 30 && m.cut > 30, "{m:?}");
    assert_eq!(rc.recv_distinct_pkts, s.sent_pkts);
    assert_eq!(rc.recv_pkts, s.sent_pkts + m.duplicates);
    assert_eq!(rc.duplicate_pkts, m.duplicates);
    assert_eq!(rc.recv_distinct_bytes, s.sent_bytes);
    // Each delivered datagram's one-way delay is in the receiver's histogram, once.
    assert_eq!((delays.count(), rc.delays.n), (rc.recv_distinct_pkts, rc.recv_distinct_pkts));
    let (p50, p99) = (delays.quantile_s(0.5).unwrap(), delays.quantile_s(0.99).unwrap());
    assert!(0.0 <= p50 && p50 <= p99 && p99 < 1.0, "{p50} {p99}");
    assert_eq!(rc.stranger_pkts, m.garbage, "every piece of garbage is counted, and nothing else");
    assert_eq!((rc.forged_pkts, rc.truncated_pkts), (m.forged, m.cut));
    assert_eq!((rc.held_pkts, rc.unconfirmed_pkts), (0, 0), "no forgery got as far as the window");
    assert_eq!((rc.refused_pkts, s.refused_pkts, s.stranger_pkts, s.forged_pkts), (0, 0, 0, 0));
    let e = rc.peer_end.expect("the sender's totals");
    assert_eq!((e.sent_pkts, e.sent_bytes), (s.sent_pkts, s.sent_bytes));
    // The sender heard the receiver's feedback.
    assert_eq!(s.recv_pkts, rc.sent_pkts);
    assert!(s.recv_pkts > 10);
    // TFRC's receiver saw no loss: a pair swapped is not three later arrivals (RFC 5348
    // §5.1); the late half of each swapped pair is passed over. It never saw a copy: each
    // datagram is delivered once.
    let st = rcv.stats();
    assert_eq!((st.lost_or_marked, st.loss_events), (0, 0), "{st:?}");
    assert_eq!(st.received, s.sent_pkts);
    assert_eq!(st.ignored, m.swaps);
    assert!(snd.stats().feedback_received > 10);
}

/// Forwards as [`relay`] does, but drops every 10th data datagram and nothing else.
fn lossy_relay(sock: UdpSocket, receiver: SocketAddr, stop: Arc<AtomicBool>) -> u64 {
    sock.set_read_timeout(Some(Duration::from_millis(2))).unwrap();
    let (mut sender, mut data, mut dropped) = (None::<SocketAddr>, 0u64, 0u64);
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let Ok((n, from)) = sock.recv_from(&mut buf) else { continue };
        if from == receiver {
            sock.send_to(&buf[..n], sender.unwrap()).unwrap();
            continue;
        }
        sender = Some(from);
        if buf[3] == 0 {
            data += 1;
            if data % 10 == 0 {
                dropped += 1;
                continue;
            }
        }
        sock.send_to(&buf[..n], receiver).unwrap();
    }
    dropped
}

/// A CBR flow over TFRC through [`lossy_relay`]; the receiver hides its losses if `lies`.
fn through_loss(lies: bool) -> (fairway_live::EndCounts, u64) {
    let (mut snd, mut rcv) = tfrc_over_cbr();
    let (sp, rp, relay_sock) = (port(), port(), UdpSocket::bind("127.0.0.1:0").unwrap());
    let (raddr, via) = (rp.local_addr().unwrap(), relay_sock.local_addr().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let r = {
        let stop = stop.clone();
        thread::spawn(move || lossy_relay(relay_sock, raddr, stop))
    };
    let (start, end) = (Time::ZERO + Dur::from_millis(50), Time::ZERO + Dur::from_millis(1050));
    let counts = {
        let receiver = LiveEnd::new(&mut rcv, rp, 0, Role::Receiver, key());
        let receiver = if lies { receiver.hiding_losses() } else { receiver };
        let mut e = [LiveEnd::new(&mut snd, sp, 0, Role::Sender { to: via, start, stop: end }, key()), receiver];
        ends::run(&mut e, &Clock::new(), Some(Time::ZERO + Dur::from_secs(10)), &AtomicBool::new(false), None).unwrap();
        e[0].counts
    };
    stop.store(true, Ordering::Relaxed);
    (counts, r.join().unwrap())
}

#[test]
fn the_nonce_echo_catches_a_receiver_that_hides_losses() {
    // An honest receiver: the echoes that own up to a loss go unchecked, the others pass.
    let (honest, dropped) = through_loss(false);
    assert!(dropped >= 15, "{dropped} dropped");
    assert_eq!(honest.nonce_failed, 0, "{honest:?}");
    assert!(honest.nonce_unchecked >= 1 && honest.nonce_passed > 10, "{honest:?}");
    // A receiver that claims every datagram arrived must guess each lost one's nonce, and is
    // wrong half the time: with 15 or more losses, caught but for a chance below 2^-15 (when
    // no two losses share an echo).
    let (liar, dropped) = through_loss(true);
    assert!(dropped >= 15, "{dropped} dropped");
    assert!(liar.nonce_failed > 0, "{liar:?}");
    assert_eq!(liar.nonce_unchecked, 0, "a liar owns up to nothing: {liar:?}");
}

/// Resident memory of this process, kB.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Sends `n` datagrams to `to` from a socket of its own, 100 at a time with a pause of 1 ms:
/// bytes that are not fairway's, and fairway data of the flow itself (an impersonator: it
/// claims the flow's sequence numbers from another address, without the key), 1000 bytes each.
/// Returns how many it sent.
fn flood(to: SocketAddr, flow: u32, n: u64) -> u64 {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut d = Vec::with_capacity(1100);
    let mut sent = 0;
    for k in 0..n {
        if k % 2 == 0 {
            d.clear();
            d.extend((0..1000).map(|i| (i as u64 * 31 + k) as u8));
        } else {
            let h = Header {
                kind: Kind::Data,
                flow,
                seq: k as u32,
                size: Bytes(1000),
                payload: Bytes(960),
                len: 900,
                sent_ns: 0,
                nonce: false,
                echo: None,
            };
            framing::write(&h, &[9; 900], &Key::from_bytes([0; 32]), &mut d);
        }
        sent += sock.send_to(&d, to).is_ok() as u64;
        if k % 100 == 99 {
            thread::sleep(Duration::from_millis(1));
        }
    }
    sent
}

#[test]
fn a_flood_of_strangers_costs_the_receiver_no_memory_and_the_flow_nothing() {
    let flow = 5;
    let (mut snd, mut rcv) = tfrc_over_cbr();
    let (sp, rp) = (port(), port());
    let raddr = rp.local_addr().unwrap();
    let sender_at = sp.local_addr().unwrap();
    // The flood starts once the receiver has heard the real sender (it answers the first
    // sender that reaches it), and lasts about the flow's second: 60 000 datagrams, 60 MB.
    const FLOOD: u64 = 60_000;
    let flooder = thread::spawn(move || {
        thread::sleep(Duration::from_millis(300));
        flood(raddr, flow, FLOOD)
    });
    let before = rss_kb();
    let clock = Clock::new();
    let (start, end) = (Time::ZERO + Dur::from_millis(100), Time::ZERO + Dur::from_millis(1100));
    let (s, rc, peer) = {
        let mut e = [
            LiveEnd::new(&mut snd, sp, flow, Role::Sender { to: raddr, start, stop: end }, key()),
            LiveEnd::new(&mut rcv, rp, flow, Role::Receiver, key()),
        ];
        ends::run(&mut e, &clock, Some(Time::ZERO + Dur::from_secs(10)), &AtomicBool::new(false), None).unwrap();
        (e[0].counts, e[1].counts, e[1].peer())
    };
    let flooded = flooder.join().unwrap();
    let grew = rss_kb().saturating_sub(before);

    assert_eq!(peer, Some(sender_at), "the receiver kept to the real sender");
    // The flood was seen and refused: the kernel may drop some of it at the socket, but what
    // the receiver read of it is strangers, and none of it counts as the flow's data.
    let refused = rc.stranger_pkts + rc.forged_pkts;
    assert!(refused as f64 > 0.5 * flooded as f64, "{refused} of {flooded}");
    assert!(rc.stranger_pkts > 0 && rc.forged_pkts > 0, "{rc:?}");
    assert!(rc.recv_pkts <= s.sent_pkts && rc.recv_distinct_bytes <= s.sent_bytes, "{rc:?}\n{s:?}");
    assert_eq!(rc.refused_pkts, 0);
    // The flow's own datagrams got through: at most the few the kernel dropped at a socket
    // buffer the flood filled (a 1% band: the flood is paced to leave room).
    assert!(rc.recv_distinct_pkts as f64 >= 0.99 * s.sent_pkts as f64, "{rc:?}\n{s:?}");
    // Nothing of the flood was kept: 60 MB passed, the process grew by less than 4 MB (the
    // duplicate window and buffers are fixed in size).
    assert!(grew < 4096, "grew by {grew} kB");
}

/// Forwards as [`lossy_relay`] does, dropping nothing, but moves the flow's data sequence
/// numbers from the 50th on 10 000 ahead (it has the key): what a real jump looks like, as after
/// a long outage at a high rate.
fn jumping_relay(sock: UdpSocket, receiver: SocketAddr, stop: Arc<AtomicBool>) {
    sock.set_read_timeout(Some(Duration::from_millis(2))).unwrap();
    let mut sender = None::<SocketAddr>;
    let (mut buf, mut enc, mut out) = (vec![0u8; 65536], vec![], vec![]);
    while !stop.load(Ordering::Relaxed) {
        let Ok((n, from)) = sock.recv_from(&mut buf) else { continue };
        if from == receiver {
            sock.send_to(&buf[..n], sender.unwrap()).unwrap();
            continue;
        }
        sender = Some(from);
        let mut h = framing::read(&buf[..n], &key(), &mut enc).unwrap();
        if h.kind == Kind::Data && h.seq >= 50 {
            h.seq += 10_000;
        }
        framing::write(&h, &enc, &key(), &mut out);
        sock.send_to(&out, receiver).unwrap();
    }
}

#[test]
fn a_real_jump_ahead_is_held_for_one_datagram_and_then_believed() {
    let (mut snd, mut rcv) = tfrc_over_cbr();
    let (sp, rp, relay_sock) = (port(), port(), UdpSocket::bind("127.0.0.1:0").unwrap());
    let (raddr, via) = (rp.local_addr().unwrap(), relay_sock.local_addr().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let r = {
        let stop = stop.clone();
        thread::spawn(move || jumping_relay(relay_sock, raddr, stop))
    };
    let (start, end) = (Time::ZERO + Dur::from_millis(50), Time::ZERO + Dur::from_millis(650));
    let (s, rc) = {
        let mut e = [
            LiveEnd::new(&mut snd, sp, 0, Role::Sender { to: via, start, stop: end }, key()),
            LiveEnd::new(&mut rcv, rp, 0, Role::Receiver, key()),
        ];
        ends::run(&mut e, &Clock::new(), Some(Time::ZERO + Dur::from_secs(10)), &AtomicBool::new(false), None).unwrap();
        (e[0].counts, e[1].counts)
    };
    stop.store(true, Ordering::Relaxed);
    r.join().unwrap();
    // Datagram 50 (10 050) waited for 51 (10 051), which confirmed it: both delivered, and
    // every one after; TFRC, whose own numbers did not jump, lost nothing.
    assert!(s.sent_pkts > 100, "{s:?}");
    assert_eq!((rc.recv_distinct_pkts, rc.duplicate_pkts), (s.sent_pkts, 0), "{rc:?}");
    assert_eq!((rc.held_pkts, rc.unconfirmed_pkts, rc.forged_pkts), (0, 0, 0));
    assert_eq!(rcv.stats().lost_or_marked, 0);
}
