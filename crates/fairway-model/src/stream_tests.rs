//! A stream flow driven as the run loop drives it, over a path of fixed delay that loses what a
//! test says: its application, its connections and their timers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fairway_core::{Bytes, Dur, Time};
use fairway_proto::tcp::TcpVariant;

use crate::driver::{FlowDriver, Header, Io, Side, TimerId, APP};
use crate::packet_trace::PktKind;
use crate::protocol::{Build, RunShared};
use crate::scenario::TcpSpec;
use crate::stream::StreamApp;
use crate::tcp_flow::TcpFlow;

/// What is pending on the path: a packet arriving, or a wake-up.
#[derive(Clone, Copy)]
enum Ev {
    Arrive(Header),
    Wake(TimerId, u32),
}

/// The run loop in miniature: one-way delay `delay`, packets dropped when `lose` says so.
struct Path {
    q: BinaryHeap<Reverse<(Time, u64, usize)>>,
    evs: Vec<Ev>,
    delay: Dur,
    now: Time,
    /// Every packet sent: (when, its header).
    sent: Vec<(Time, Header)>,
    /// Wake-ups of the application's timer asked for.
    app_wakes: Vec<Time>,
}

impl Path {
    fn new(delay: Dur) -> Path {
        Path { q: BinaryHeap::new(), evs: vec![], delay, now: Time::ZERO, sent: vec![], app_wakes: vec![] }
    }

    fn push(&mut self, at: Time, ev: Ev) {
        self.evs.push(ev);
        self.q.push(Reverse((at, self.evs.len() as u64, self.evs.len() - 1)));
    }

    /// Acts on what a call handed back, as the loop does: wake-ups, then packets.
    fn take(&mut self, io: &mut Io, lose: &mut dyn FnMut(&Header) -> bool, f: &mut dyn FlowDriver) {
        for w in io.wakes.drain(..) {
            if w.timer.conn == APP {
                self.app_wakes.push(w.at);
            }
            self.push(w.at, Ev::Wake(w.timer, w.gen));
        }
        for o in io.out.drain(..) {
            let h = o.header();
            self.sent.push((self.now, h));
            if lose(&h) {
                f.forget(&h);
            } else {
                self.push(self.now + self.delay, Ev::Arrive(h));
            }
        }
    }

    /// Runs `f` from its start until `end`; returns how many data packets were new to the sink.
    fn run(
        &mut self,
        f: &mut dyn FlowDriver,
        end: Time,
        stop: Option<Time>,
        lose: &mut dyn FnMut(&Header) -> bool,
    ) -> u64 {
        let mut io = Io::default();
        f.start(self.now, &mut io);
        self.take(&mut io, lose, f);
        let mut new = 0;
        let mut stopped = false;
        while let Some(Reverse((t, _, i))) = self.q.pop() {
            if stop.is_some_and(|s| s <= t) && !stopped {
                f.stop(t);
                stopped = true;
            }
            if t > end {
                break;
            }
            self.now = t;
            match self.evs[i] {
                Ev::Arrive(h) => {
                    if f.deliver(t, &h, &mut io) && h.kind.is_data() {
                        new += 1;
                    }
                }
                Ev::Wake(timer, gen) => f.timeout(t, timer, gen, &mut io),
            }
            self.take(&mut io, lose, f);
        }
        new
    }
}

fn secs(s: u64) -> Time {
    Time::ZERO + Dur::from_secs(s)
}

fn build(name: &str) -> Build<'_> {
    // A run's shared objects: stream flows ask for none, so one for all tests will do.
    static SHARED: std::sync::LazyLock<RunShared> = std::sync::LazyLock::new(RunShared::new);
    Build { flow: 0, name, seed: 1, wire: false, shared: &SHARED }
}

fn tcp() -> TcpSpec {
    TcpSpec::ns2_default(TcpVariant::NewReno)
}

#[test]
fn a_transfer_sends_its_size_in_packets_and_finishes_when_all_is_acknowledged() {
    // 10 500 bytes in 1000-byte packets: 11 data packets, after the SYN.
    let mut f = TcpFlow::new(tcp(), StreamApp::Transfer(Bytes(10_500)), &build("t"));
    let mut path = Path::new(Dur::from_millis(10));
    let new = path.run(&mut f, secs(10), None, &mut |_| false);
    let data: Vec<&Header> = path.sent.iter().map(|(_, h)| h).filter(|h| h.kind == PktKind::TcpData).collect();
    assert_eq!(data.len(), 12, "the SYN and 11 data packets, none resent");
    assert!(data[0].syn && data[0].payload == 0 && data[1..].iter().all(|h| !h.syn && h.payload == 1000));
    assert_eq!(new, 12);
    // Done when the last ACK came back: one round trip after the last packet left.
    let last_sent = path.sent.iter().filter(|(_, h)| h.kind == PktKind::TcpData).map(|(t, _)| *t).max().unwrap();
    assert_eq!(f.done_at(), Some(last_sent + Dur::from_millis(20)));
    // The connection closed: no window to show, its counts kept.
    assert_eq!(f.window(), None);
    assert_eq!(f.counters().retransmits, 0);
    assert!(f.counters().rtt_samples > 0);
}

#[test]
fn a_lost_packet_is_resent_and_counted_with_the_closed_connection() {
    let mut f = TcpFlow::new(tcp(), StreamApp::Transfer(Bytes(20_000)), &build("t"));
    let mut path = Path::new(Dur::from_millis(10));
    let mut dropped = false;
    // Data packet 5, once.
    let mut lose = |h: &Header| {
        let hit = h.kind == PktKind::TcpData && h.seq == 5 && !dropped;
        dropped |= hit;
        hit
    };
    path.run(&mut f, secs(30), None, &mut lose);
    assert!(f.done_at().is_some());
    let c = f.counters();
    assert_eq!(c.retransmits, 1, "packet 5 again");
    assert_eq!(c.timeouts + c.fast_retransmits, 1);
}

#[test]
fn web_sessions_open_a_connection_each_and_stop_with_the_application() {
    let app = StreamApp::Web { interarrival: Dur::from_millis(200), mean_size: Bytes(3000), shape: 1.5 };
    let mut f = TcpFlow::new(tcp(), app, &build("w"));
    let mut path = Path::new(Dur::from_millis(5));
    path.run(&mut f, secs(20), Some(secs(10)), &mut |_| false);
    let c = f.counters();
    // A session every 200 ms on average for 10 s; each asked for the next one's wake-up.
    assert!((30..=80).contains(&c.sessions_started), "{}", c.sessions_started);
    assert_eq!(path.app_wakes.len() as u64, c.sessions_started + 1, "the first wake-up, then one per session");
    assert_eq!(c.sessions_completed, c.sessions_started, "short transfers on a lossless path all finish");
    let conns: std::collections::BTreeSet<u32> = path.sent.iter().map(|(_, h)| h.conn).collect();
    assert_eq!(conns.len() as u64, c.sessions_started, "a connection per session");
    assert!(path.sent.iter().all(|(t, _)| *t < secs(11)), "nothing opens after the stop");
    // A web flow shows no window.
    assert_eq!(f.window(), None);
}

#[test]
fn a_superseded_wake_up_does_nothing() {
    let mut f = TcpFlow::new(tcp(), StreamApp::Ftp, &build("f"));
    let mut io = Io::default();
    f.start(Time::ZERO, &mut io);
    let w = io.wakes.pop().expect("the retransmission timer");
    assert_eq!(w.timer, TimerId { conn: 0, side: Side::Sender });
    let sent = io.out.len();
    // Of an older generation: ignored, even when due.
    f.timeout(w.at, w.timer, w.gen.wrapping_sub(1), &mut io);
    assert_eq!((io.out.len(), io.wakes.len()), (sent, 0));
    // The live one fires: the SYN times out and goes again.
    f.timeout(w.at, w.timer, w.gen, &mut io);
    assert_eq!(io.out.len(), sent + 1);
    assert!(io.out[sent].syn);
}
