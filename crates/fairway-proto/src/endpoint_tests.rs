//! Checks every protocol's pair of endpoints must pass, driven only through [`Endpoint`]: run
//! over a lossless path in struct mode and in wire mode they do the same; bytes that are not
//! theirs are refused without a panic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fairway_core::{Bytes, Dur, Rate, Rng, Time};

use crate::dccp::{Ccid, DccpConfig, DccpReceiver, DccpSender};
use crate::endpoint::{Arrival, Endpoint, Transmit};
use crate::iftp::{IftpConfig, IftpReceiver, IftpSender};
use crate::mapp::{MappConfig, MappReceiver, MappSender};
use crate::source::{Cbr, CbrConfig, Greedy};
use crate::tfrc::{TfrcConfig, TfrcReceiver, TfrcSender};
use crate::udp::{UdpReceiver, UdpSender};

/// What crossed the path: (when sent, from the sender, size on the wire).
type Trace = Vec<(Time, bool, Bytes)>;

/// In flight: a typed message or its bytes, to one end.
enum Carried<A, B> {
    Fwd(A, Arrival),
    Rev(B, Arrival),
}

/// Runs a sender and a receiver over a path with a fixed one-way `delay` until `end`, carrying
/// typed messages (`wire` false) or their encoded bytes. The driver does what the contract asks
/// of one: after every call, drain `poll_transmit`, then wait for the earliest `poll_timeout`
/// or arrival.
fn run<S, R>(mut s: S, mut r: R, delay: Dur, end: Time, wire: bool) -> Trace
where
    S: Endpoint,
    R: Endpoint<In = S::Out, Out = S::In>,
{
    type Msg<S, R> = Carried<Result<<S as Endpoint>::Out, Vec<u8>>, Result<<R as Endpoint>::Out, Vec<u8>>>;
    let mut trace = vec![];
    let mut heap: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    let mut flying: Vec<Option<Msg<S, R>>> = vec![];
    let mut now = Time::ZERO;
    s.start(now);
    loop {
        while let Some(t) = s.poll_transmit(now) {
            trace.push((now, true, t.size));
            let a = Arrival { ce: false, size: t.size, payload: t.payload };
            let m = if wire { Err(bytes_of(&s, &t)) } else { Ok(t.msg) };
            heap.push(Reverse((now + delay, flying.len())));
            flying.push(Some(Carried::Fwd(m, a)));
        }
        while let Some(t) = r.poll_transmit(now) {
            trace.push((now, false, t.size));
            let a = Arrival { ce: false, size: t.size, payload: t.payload };
            let m = if wire { Err(bytes_of(&r, &t)) } else { Ok(t.msg) };
            heap.push(Reverse((now + delay, flying.len())));
            flying.push(Some(Carried::Rev(m, a)));
        }
        let arrival = heap.peek().map(|Reverse((t, _))| *t);
        let Some(next) = [arrival, s.poll_timeout(), r.poll_timeout()].into_iter().flatten().min() else { break };
        if next >= end {
            break;
        }
        assert!(next >= now, "a deadline in the past that the endpoint does not act on: {next} at {now}");
        now = next;
        if arrival == Some(now) {
            let Reverse((_, i)) = heap.pop().expect("peeked");
            match flying[i].take().expect("delivered once") {
                Carried::Fwd(Ok(m), a) => r.handle(now, &m, a),
                Carried::Fwd(Err(b), a) => r.handle_datagram(now, &b, a).expect("its own sender's bytes"),
                Carried::Rev(Ok(m), a) => s.handle(now, &m, a),
                Carried::Rev(Err(b), a) => s.handle_datagram(now, &b, a).expect("its own receiver's bytes"),
            }
        } else {
            s.handle_timeout(now);
            r.handle_timeout(now);
        }
    }
    trace
}

fn bytes_of<E: Endpoint>(e: &E, t: &Transmit<E::Out>) -> Vec<u8> {
    let mut b = vec![];
    e.encode(t, &mut b);
    assert_eq!(b.len() as u64, t.size.0, "encode writes the datagram's size");
    b
}

/// Struct mode and wire mode send the same datagrams, of the same sizes, at the same times to
/// within `slack` (the wire's clocks count microseconds, so RTT samples differ below that).
fn modes_agree<S, R>(make: impl Fn() -> (S, R), delay: Dur, end: Time, slack: Dur) -> usize
where
    S: Endpoint,
    R: Endpoint<In = S::Out, Out = S::In>,
{
    let (s, r) = make();
    let typed = run(s, r, delay, end, false);
    let (s, r) = make();
    let bytes = run(s, r, delay, end, true);
    assert_eq!(typed.len(), bytes.len(), "as many datagrams either way");
    for (a, b) in typed.iter().zip(&bytes) {
        assert_eq!((a.1, a.2), (b.1, b.2), "the same datagram");
        let off = if a.0 > b.0 { a.0 - b.0 } else { b.0 - a.0 };
        assert!(off <= slack, "sent {off} apart: {:?} vs {:?}", a, b);
    }
    typed.len()
}

/// Bytes that are not the protocol's: refused, or at worst ignored, never a panic; an empty
/// datagram is always refused.
fn refuses_garbage<E: Endpoint>(mut e: E, seed: u64) {
    let mut rng = Rng::from_seed(seed);
    e.start(Time::ZERO);
    assert!(e.handle_datagram(Time::ZERO, &[], Arrival::default()).is_err());
    for k in 0..2_000u64 {
        let now = Time(k * 1_000_000);
        let len = rng.below(64) as usize;
        let mut b: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if len > 1 && rng.bernoulli(0.5) {
            // Past the version check, into the body.
            b[0] = 1;
        }
        let _ = e.handle_datagram(now, &b, Arrival::default());
        e.handle_timeout(now);
        for _ in 0..1_000 {
            if e.poll_transmit(now).is_none() {
                break;
            }
        }
    }
}

const MS: u64 = 1_000_000;

fn iftp_pair() -> (IftpSender, IftpReceiver) {
    let cfg = IftpConfig { link_rate: Rate(10_000_000), ..IftpConfig::default() };
    (IftpSender::new(cfg).unwrap(), IftpReceiver::new(0))
}

fn mapp_pair() -> (MappSender, MappReceiver) {
    let cfg = MappConfig::default();
    (MappSender::new(cfg.clone(), Rng::from_seed(4)).unwrap(), MappReceiver::new(cfg).unwrap())
}

fn cbr_pair() -> (UdpSender, UdpReceiver) {
    let cfg = CbrConfig {
        packet_size: Bytes(500),
        interval: Dur::from_millis(7),
        jitter: true,
        max_packets: None,
        frame_interval: Some(Dur::from_millis(40)),
    };
    (UdpSender::new(0, Box::new(Cbr::new(cfg, Rng::from_seed(5)))), UdpReceiver::new(0))
}

fn tfrc_pair(cfg: TfrcConfig) -> (TfrcSender, TfrcReceiver) {
    let snd = TfrcSender::new(cfg.clone(), Box::new(Greedy::new(cfg.packet_size, Some(3_000)))).unwrap();
    (snd, TfrcReceiver::new(cfg).unwrap())
}

fn tfrc_cbr_pair() -> (TfrcSender, TfrcReceiver) {
    let cfg = TfrcConfig::rfc5348();
    let cbr = CbrConfig {
        packet_size: cfg.packet_size,
        interval: Dur::from_millis(4),
        jitter: true,
        max_packets: None,
        frame_interval: None,
    };
    let snd = TfrcSender::new(cfg.clone(), Box::new(Cbr::new(cbr, Rng::from_seed(6)))).unwrap();
    (snd, TfrcReceiver::new(cfg).unwrap())
}

fn dccp_pair() -> (DccpSender, DccpReceiver) {
    dccp_pair_with(DccpConfig::default())
}

fn ccid3_config() -> DccpConfig {
    let tfrc = TfrcConfig { packet_size: Bytes(500), ..crate::dccp::ccid3::rfc4342_tfrc() };
    DccpConfig { ccid: Ccid::Three, ccid3: tfrc, ..DccpConfig::default() }
}

fn dccp_pair_with(cfg: DccpConfig) -> (DccpSender, DccpReceiver) {
    let snd = DccpSender::new(cfg.clone(), Box::new(Greedy::new(Bytes(500), Some(3_000))), Rng::from_seed(8)).unwrap();
    (snd, DccpReceiver::new(cfg).unwrap())
}

fn dccp_cbr_pair() -> (DccpSender, DccpReceiver) {
    dccp_cbr_pair_with(DccpConfig::default())
}

fn dccp_cbr_pair_with(cfg: DccpConfig) -> (DccpSender, DccpReceiver) {
    let cbr = CbrConfig {
        packet_size: Bytes(500),
        interval: Dur::from_millis(3),
        jitter: true,
        max_packets: None,
        frame_interval: None,
    };
    let snd = DccpSender::new(cfg.clone(), Box::new(Cbr::new(cbr, Rng::from_seed(7))), Rng::from_seed(9)).unwrap();
    (snd, DccpReceiver::new(cfg).unwrap())
}

/// DCCP's packets carry no times (CCID2 times its packets itself; CCID3's options are whole
/// numbers when made): the modes agree exactly.
#[test]
fn dccp_is_the_same_in_struct_and_wire_mode() {
    let n = modes_agree(dccp_pair, Dur(30 * MS), Time(3_000 * MS), Dur::ZERO);
    assert!(n > 1_000, "{n} datagrams");
    let n = modes_agree(dccp_cbr_pair, Dur(30 * MS), Time(3_000 * MS), Dur::ZERO);
    assert!(n > 1_000, "{n} datagrams");
    let n = modes_agree(|| dccp_pair_with(ccid3_config()), Dur(30 * MS), Time(3_000 * MS), Dur::ZERO);
    assert!(n > 500, "{n} datagrams");
    let n = modes_agree(|| dccp_cbr_pair_with(ccid3_config()), Dur(30 * MS), Time(3_000 * MS), Dur::ZERO);
    assert!(n > 500, "{n} datagrams");
}

/// TFRC carries its times in whole microseconds and its rates as doubles: the two modes are
/// the same to the nanosecond.
#[test]
fn tfrc_is_the_same_in_struct_and_wire_mode() {
    for cfg in [TfrcConfig::rfc5348(), TfrcConfig::ns2()] {
        let n = modes_agree(|| tfrc_pair(cfg.clone()), Dur(30 * MS), Time(3_000 * MS), Dur::ZERO);
        assert!(n > 1_000, "{n} datagrams");
    }
    let n = modes_agree(tfrc_cbr_pair, Dur(30 * MS), Time(3_000 * MS), Dur::ZERO);
    assert!(n > 500, "{n} datagrams");
}

#[test]
fn iftp_is_the_same_in_struct_and_wire_mode() {
    // 2 s at a 60 ms RTT: slow start and beyond.
    let n = modes_agree(iftp_pair, Dur(30 * MS), Time(2_000 * MS), Dur::from_micros(50));
    assert!(n > 100, "{n} datagrams");
}

#[test]
fn mapp_is_the_same_in_struct_and_wire_mode() {
    let n = modes_agree(mapp_pair, Dur(30 * MS), Time(5_000 * MS), Dur::from_micros(50));
    assert!(n > 100, "{n} datagrams");
}

#[test]
fn cbr_is_the_same_in_struct_and_wire_mode() {
    let n = modes_agree(cbr_pair, Dur(30 * MS), Time(2_000 * MS), Dur::ZERO);
    assert!(n > 250, "{n} datagrams");
}

#[test]
fn every_end_refuses_garbage() {
    for seed in 0..4 {
        let (s, r) = iftp_pair();
        refuses_garbage(s, seed);
        refuses_garbage(r, seed);
        let (s, r) = mapp_pair();
        refuses_garbage(s, seed);
        refuses_garbage(r, seed);
        let (s, r) = cbr_pair();
        refuses_garbage(s, seed);
        refuses_garbage(r, seed);
        let (s, r) = dccp_pair();
        refuses_garbage(s, seed);
        refuses_garbage(r, seed);
        let (s, r) = dccp_pair_with(ccid3_config());
        refuses_garbage(s, seed);
        refuses_garbage(r, seed);
        for cfg in [TfrcConfig::rfc5348(), TfrcConfig::ns2()] {
            let (s, r) = tfrc_pair(cfg);
            refuses_garbage(s, seed);
            refuses_garbage(r, seed);
        }
    }
}
