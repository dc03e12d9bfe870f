//! The device queue (`device_queue`, [`crate::link::DeviceQueue`]): a FIFO between a link's
//! discipline and its transmitter, fed by the discipline whenever it has room, as ns-3.37's
//! point-to-point device queue under a queue disc.
//!
//! What is checked: when packets leave the discipline (at the start of the previous packet's
//! serialisation, or on arrival when the device queue has room), the idle link (discipline,
//! device queue and wire at once), that CoDel then measures a sojourn one serialisation shorter
//! than the wait before serialisation, and that a FIFO discipline with a device queue of N is the
//! same FIFO as one with N more places and no device queue: every output identical.

use std::any::Any;
use std::sync::Arc;

use fairway_aqm::{CodelParams, DropTailParams, Limit, QueueDiscipline, QueueSpec};
use fairway_core::{Bytes, Dur, NodeId, Rate, Rng, Time};
use fairway_model::datagram::DatagramFlow;
use fairway_model::driver::FlowDriver;
use fairway_model::packet_trace::{PacketOp, PacketTraceSpec};
use fairway_model::protocol::{Build, DatagramSpec, Load};
use fairway_model::results::Collector;
use fairway_model::scenario::{
    AppSpec, DatagramApp, FlowSpec, LinkSpec, LossModel, MonitorSpec, Scenario, TcpSpec, TcpVariant,
};
use fairway_proto::source::{Cbr, CbrConfig};
use fairway_proto::udp::{UdpReceiver, UdpSender};

use crate::sim::Sim;
use crate::{run, RunOptions, RunResult};

/// CBR over UDP, as the scenario reader's `cbr` builds it.
#[derive(Debug)]
struct CbrSpec(CbrConfig);

impl DatagramSpec for CbrSpec {
    fn app(&self) -> &'static str {
        "cbr"
    }

    fn transport(&self) -> &'static str {
        "udp"
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let snd = UdpSender::new(b.flow, Box::new(Cbr::new(self.0.clone(), Rng::stream(b.seed, b.name))));
        Ok(Box::new(DatagramFlow::new(snd, UdpReceiver::new(b.flow), b.wire)))
    }

    fn config(&self) -> &dyn Any {
        &self.0
    }

    fn load(&self) -> Load {
        Load {
            packets_per_s: Some(1.0 / self.0.interval.as_secs_f64()),
            timers_per_s: 0.0,
            packet_size: self.0.packet_size,
            window: None,
            total: self.0.max_packets,
            timers_per_rtt: 0.0,
            feedback_per_rtt: 0.0,
            rtt_floor: Dur::ZERO,
        }
    }
}

fn ms(x: u64) -> Dur {
    Dur::from_millis(x)
}

fn us(x: u64) -> Dur {
    Dur::from_micros(x)
}

fn droptail(limit: u32) -> QueueSpec {
    QueueSpec::DropTail(DropTailParams { limit: Limit::Packets(limit) })
}

fn link(from: u32, to: u32, rate: Rate, delay: Dur, queue: QueueSpec, device_queue: u32) -> LinkSpec {
    LinkSpec {
        from: NodeId(from),
        to: NodeId(to),
        rate,
        delay,
        queue,
        loss: LossModel::NONE,
        device_queue,
        schedule: None,
    }
}

fn flow(name: &str, from: u32, to: u32, start: Dur, stop: Option<Dur>, app: AppSpec) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        group: name.into(),
        from: NodeId(from),
        to: NodeId(to),
        start: Time::ZERO + start,
        start_spread: Dur::ZERO,
        stop: stop.map(|s| Time::ZERO + s),
        send_jitter: Dur::ZERO,
        pauses: vec![],
        app,
    }
}

/// `n` packets of 1000 B (`None`: no end), one every `interval`, jittered by ns-2's `random_`
/// if `jitter`.
fn cbr(interval: Dur, n: Option<u64>, jitter: bool) -> AppSpec {
    AppSpec::Datagram(DatagramApp {
        spec: Arc::new(CbrSpec(CbrConfig {
            packet_size: Bytes(1000),
            interval,
            jitter,
            max_packets: n,
            frame_interval: None,
        })),
    })
}

fn scenario(nodes: &[&str], links: Vec<LinkSpec>, flows: Vec<FlowSpec>, duration: Dur, monitored: usize) -> Scenario {
    Scenario {
        name: "device-queue".into(),
        description: String::new(),
        duration,
        measure_from: Dur::ZERO,
        seed: 7,
        wire: false,
        clock: Default::default(),
        nodes: nodes.iter().map(|n| n.to_string()).collect(),
        links,
        flows,
        monitor: MonitorSpec { bin: ms(100), queue_interval: ms(10), links: vec![monitored], series: vec![] },
        wireless: None,
    }
}

/// A 1 Mb/s link a -> b (1000 B take 8 ms) with a FIFO of 100 and a device queue of `dq`, and
/// four packets of 1000 B offered at 0, 1, 2 and 3 ms.
fn four_packets(dq: u32) -> Scenario {
    let l = link(0, 1, Rate(1_000_000), ms(1), droptail(100), dq);
    scenario(&["a", "b"], vec![l], vec![flow("cbr", 0, 1, Dur::ZERO, None, cbr(ms(1), Some(4), false))], ms(40), 0)
}

/// Link 0 of `sc` run up to `at`: (packets in the discipline, the discipline's own departures,
/// packets in the device queue, departures as the link reports them, packets waiting in all).
fn state_at(sc: &Scenario, at: Dur) -> (usize, u64, usize, u64, usize) {
    let sc = Scenario { duration: at, ..sc.clone() };
    let mut sim = Sim::new(&sc, sc.seed).unwrap();
    let mut sink = Collector::new(sc.flows.len(), &sc.monitor.links);
    assert!(sim.run(&mut |_| {}, None, &mut sink));
    let link = &sim.links[0];
    let dev = link.dev.as_ref().map_or(0, |d| d.len());
    let s = link.stats();
    // Cut anywhere, the run's conservation checks hold (a violation is an error).
    let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("cut at {at:?}: {e}"));
    assert_eq!(res.all_links[0].departures_pkts, s.departures_pkts);
    (link.qdisc.len(), link.qdisc.stats().departures_pkts, dev, s.departures_pkts, link.queue_len())
}

/// With a device queue of one packet, a packet leaves the discipline when the packet ahead of it
/// starts its serialisation (or on arrival, if the device queue is empty then): p1 at 1 ms, as it
/// arrives behind p0 on the wire; p2 at 8 ms, when p1 starts; p3 at 16 ms. Without one, each
/// leaves when it starts its own serialisation (8, 16, 24 ms). The link's own view is the same
/// either way: as many packets waiting, as many departed (serialisations started).
#[test]
fn a_packet_leaves_the_discipline_when_the_one_ahead_starts_its_serialisation() {
    let cuts = [us(500), us(1500), us(3500), us(8500), us(16500), us(24500), us(32500)];
    let with = four_packets(1);
    let without = four_packets(0);
    let got: Vec<_> = cuts.iter().map(|&t| state_at(&with, t)).collect();
    let base: Vec<_> = cuts.iter().map(|&t| state_at(&without, t)).collect();
    // (in the discipline, its departures, in the device queue)
    let in_disc: Vec<_> = got.iter().map(|g| (g.0, g.1, g.2)).collect();
    assert_eq!(in_disc, [(0, 1, 0), (0, 2, 1), (2, 2, 1), (1, 3, 1), (0, 4, 1), (0, 4, 0), (0, 4, 0)]);
    let in_disc0: Vec<_> = base.iter().map(|g| (g.0, g.1, g.2)).collect();
    assert_eq!(in_disc0, [(0, 1, 0), (1, 1, 0), (3, 1, 0), (2, 2, 0), (1, 3, 0), (0, 4, 0), (0, 4, 0)]);
    // Departures (serialisations started) and packets waiting, as the link reports them.
    let link_view = |v: &[(usize, u64, usize, u64, usize)]| v.iter().map(|g| (g.3, g.4)).collect::<Vec<_>>();
    assert_eq!(link_view(&got), [(1, 0), (1, 1), (1, 3), (2, 2), (3, 1), (4, 0), (4, 0)]);
    assert_eq!(link_view(&got), link_view(&base));
}

/// A packet that finds the link idle goes through the discipline and the device queue onto the
/// wire at once, whatever the device queue's size, and leaves both empty.
#[test]
fn an_idle_link_puts_an_arrival_on_the_wire_at_once() {
    for dq in [1, 2, 5] {
        let l = link(0, 1, Rate(1_000_000), ms(1), droptail(100), dq);
        let sc =
            scenario(&["a", "b"], vec![l], vec![flow("cbr", 0, 1, ms(3), None, cbr(ms(1), Some(1), false))], ms(20), 0);
        assert_eq!(state_at(&sc, us(3500)), (0, 1, 0, 1, 0), "device queue {dq}");
        let spec = PacketTraceSpec { links: vec![0], flows: vec![0], ops: vec![] };
        let res = run(&sc, &RunOptions { trace_packets: Some(spec), ..Default::default() }, &mut |_| {}).unwrap();
        let ev: Vec<(PacketOp, Time)> = res.packet_trace.iter().map(|e| (e.op, e.t)).collect();
        let t0 = Time::ZERO + ms(3);
        assert_eq!(
            ev,
            [(PacketOp::Enqueue, t0), (PacketOp::Dequeue, t0), (PacketOp::Receive, t0 + ms(8) + ms(1))],
            "device queue {dq}"
        );
        let l = &res.all_links[0];
        assert_eq!((l.arrivals_pkts, l.departures_pkts, l.max_sojourn_s), (1, 1, 0.0));
        assert_eq!(res.summary.flows[0].recv_pkts, 1);
    }
}

/// A standing queue of three packets on a 1 Mb/s link (one packet every 8 ms, the link's rate,
/// after a burst of three): every packet waits 24 ms before its serialisation. CoDel sees all of
/// it without a device queue; with a one-packet device queue, 24 - 8 = 16 ms (the packet in the
/// device queue has left it), so a target between the two drops in the first case only.
#[test]
fn codel_above_a_device_queue_measures_one_serialisation_less() {
    let run_with = |dq: u32, target: Dur| {
        // A MAXPACKET below one packet: CoDel may drop with one packet left behind the leaving
        // one, as it must with a one-packet device queue holding the other.
        let q = QueueSpec::Codel(Box::new(CodelParams { target, max_packet: Bytes(500), ..Default::default() }));
        let l = link(0, 1, Rate(1_000_000), ms(1), q, dq);
        let flows = vec![
            flow("steady", 0, 1, Dur::ZERO, None, cbr(ms(8), None, false)),
            flow("burst", 0, 1, Dur::ZERO, None, cbr(us(1), Some(3), false)),
        ];
        let sc = scenario(&["a", "b"], vec![l], flows, Dur::from_secs(2), 0);
        let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
        res.all_links[0].clone()
    };
    for dq in [0, 1] {
        let l = run_with(dq, ms(30));
        assert_eq!(l.drops_pkts, 0);
        // The wait before serialisation, the device queue's included: 24 ms either way.
        assert_eq!(l.max_sojourn_s, 0.024, "device queue {dq}");
        assert!((0.0235..=0.024).contains(&l.mean_sojourn_s.unwrap()), "device queue {dq}: {l:?}");
        assert!((2.99..3.01).contains(&l.mean_queue_pkts), "three packets wait in all: {l:?}");
    }
    assert!(run_with(0, ms(20)).sojourn_drops_pkts > 0, "CoDel sees 24 ms, above a 20 ms target");
    assert_eq!(run_with(1, ms(20)).sojourn_drops_pkts, 0, "CoDel sees 16 ms, below a 20 ms target");
    assert!(run_with(1, ms(15)).sojourn_drops_pkts > 0, "16 ms is above a 15 ms target");
}

/// A dumbbell whose bottleneck r -> b has `queue` and a device queue of `dq`: two NewReno
/// flows until 10 s, then two jittered CBR flows alone below the link's rate (so that the link
/// goes idle now and then); 20 s.
fn dumbbell(queue: QueueSpec, dq: u32) -> Scenario {
    let fast = Rate(100_000_000);
    let slow = Rate(2_000_000);
    let links = vec![
        link(0, 1, fast, ms(1), droptail(100_000), 0),
        link(1, 0, fast, ms(1), droptail(100_000), 0),
        link(1, 2, slow, ms(10), queue, dq),
        link(2, 1, slow, ms(10), droptail(100_000), 0),
    ];
    let tcp = || AppSpec::Ftp { tcp: TcpSpec::ns2_default(TcpVariant::NewReno) };
    let flows = vec![
        flow("tcp0", 0, 2, Dur::ZERO, Some(Dur::from_secs(10)), tcp()),
        flow("tcp1", 0, 2, ms(300), Some(Dur::from_secs(10)), tcp()),
        flow("cbr0", 0, 2, ms(100), None, cbr(us(12_500), None, true)),
        flow("cbr1", 0, 2, ms(700), None, cbr(us(14_000), None, true)),
    ];
    scenario(&["a", "r", "b"], links, flows, Dur::from_secs(20), 2)
}

fn general_traced(sc: &Scenario) -> RunResult {
    let spec =
        PacketTraceSpec { links: (0..sc.links.len()).collect(), flows: (0..sc.flows.len()).collect(), ops: vec![] };
    let opts = RunOptions { general_path: true, trace_packets: Some(spec), ..Default::default() };
    run(sc, &opts, &mut |_| {}).unwrap()
}

/// A FIFO discipline above a FIFO device queue is one FIFO. Write W for the packets waiting
/// before serialisation, D for those in the discipline: the discipline hands a packet on
/// whenever the device queue has room, and an idle transmitter takes the device queue's head at
/// once, so a non-empty discipline means a full device queue, and D = max(W - N, 0) with a device
/// queue of N. DropTail with limit L refuses an arrival when D + 1 >= L; fairway's (ns-2's)
/// DropTail with limit L + N and no device queue when W + 1 >= L + N. For W >= N these are the
/// same test; for W < N (D = 0) the first admits when L >= 2 and so does the second. The packets
/// leave in arrival order in both, each when the transmitter is free: the same packets wait the
/// same times. So every output is the same: flows, bins, queue samples, the links' counts and
/// waits, the packet trace. (Both runs on the general path, which a device queue takes: its
/// event count, and its mean wait over departures.)
#[test]
fn droptail_above_a_device_queue_is_droptail_with_its_places_added() {
    // Part by part, so that a difference says where it is.
    let same = |a: &RunResult, b: &RunResult, what: &str| {
        let parts = |r: &RunResult| {
            [
                format!("{:?}", r.summary),
                format!("{:?}", r.all_links),
                format!("{:?}", r.flow_bins),
                format!("{:?}", r.queue_samples),
                format!("{:?}", r.agent_trace),
            ]
        };
        for (i, (x, y)) in parts(a).iter().zip(parts(b).iter()).enumerate() {
            assert!(x == y, "{what}: part {i} differs:\n{x}\n{y}");
        }
        assert_eq!(a.packet_trace.len(), b.packet_trace.len(), "{what}: trace lengths");
        if let Some(i) = (0..a.packet_trace.len()).find(|&i| a.packet_trace[i] != b.packet_trace[i]) {
            panic!("{what}: trace event {i} differs: {:?} against {:?}", a.packet_trace[i], b.packet_trace[i]);
        }
    };
    for (limit, dq) in [(2, 1), (5, 1), (5, 2), (5, 3), (12, 4)] {
        let with = general_traced(&dumbbell(droptail(limit), dq));
        let plain = general_traced(&dumbbell(droptail(limit + dq), 0));
        let l = &plain.all_links[2];
        assert!(l.drops_pkts > 50 && l.departures_pkts > 2000, "limit {limit} + {dq}: the test needs drops: {l:?}");
        assert!(with.packet_trace.len() > 10_000);
        same(&with, &plain, &format!("DropTail {limit} with a device queue of {dq} against DropTail {}", limit + dq));
        // Not by chance: with the same limit, the device queue's places are more room.
        let same_limit = general_traced(&dumbbell(droptail(limit + dq), dq));
        assert_ne!(format!("{:?}", same_limit.all_links[2]), format!("{:?}", l));
    }
}

/// A device queue loses and duplicates nothing, under CoDel, which drops at dequeue (while the
/// device queue is fed), and DropTail: the run's conservation checks pass (a violation is an
/// error), each packet's events at the bottleneck come in the order `+`, `-`, `r` (or `+`, `d`)
/// with `r` a serialisation and the delay after `-`, and every `-` starts when the transmitter is
/// free (never two serialisations at once).
#[test]
fn a_device_queue_conserves_packets_and_serialises_one_at_a_time() {
    let codel = QueueSpec::Codel(Box::new(CodelParams { target: ms(2), interval: ms(20), ..Default::default() }));
    for (q, dq) in [(codel.clone(), 1), (codel, 3), (droptail(4), 1)] {
        let sc = dumbbell(q.clone(), dq);
        let res = general_traced(&sc);
        let l = &res.all_links[2];
        let ev: Vec<_> = res.packet_trace.iter().filter(|e| e.link == 2).collect();
        let mut free = Time::ZERO;
        let mut open: std::collections::HashMap<u64, PacketOp> = Default::default();
        let (mut plus, mut minus, mut r, mut d) = (0u64, 0u64, 0u64, 0u64);
        let mut started: std::collections::HashMap<u64, Time> = Default::default();
        for e in &ev {
            let before = open.insert(e.uid, e.op);
            match e.op {
                PacketOp::Enqueue => {
                    assert_eq!(before, None, "a packet offered twice");
                    plus += 1;
                }
                PacketOp::Dequeue => {
                    assert_eq!(before, Some(PacketOp::Enqueue));
                    assert!(e.t >= free, "a serialisation at {:?} before the last ended at {free:?}", e.t);
                    let tx = Rate(2_000_000).tx_time(Bytes(e.size as u64));
                    free = e.t + tx;
                    started.insert(e.uid, e.t + tx + ms(10));
                    minus += 1;
                }
                PacketOp::Receive => {
                    assert_eq!(before, Some(PacketOp::Dequeue));
                    assert_eq!(Some(e.t), started.remove(&e.uid));
                    open.remove(&e.uid);
                    r += 1;
                }
                PacketOp::Drop => {
                    assert_eq!(before, Some(PacketOp::Enqueue), "dropped by the queue, never on the wire");
                    open.remove(&e.uid);
                    d += 1;
                }
            }
        }
        assert_eq!((plus, minus, d), (l.arrivals_pkts, l.departures_pkts, l.drops_pkts));
        let waiting = open.values().filter(|&&op| op == PacketOp::Enqueue).count() as u64;
        assert_eq!(plus, minus + d + waiting, "what came is gone, dropped or waiting");
        assert_eq!(minus, r + started.len() as u64, "what left the queue arrived or is on its way");
        assert!(d > 0 && r > 2000, "{q:?}: {l:?}");
    }
}

/// A device queue's link takes the general path, and one without keeps the fast path.
#[test]
fn a_device_queue_takes_the_general_path() {
    let sc = four_packets(1);
    let sim = Sim::new(&sc, 1).unwrap();
    assert!(sim.links[0].general && sim.links[0].dev.is_some());
    let sc = four_packets(0);
    let sim = Sim::new(&sc, 1).unwrap();
    assert!(!sim.links[0].general && sim.links[0].dev.is_none());
}
