//! A flow over a stream transport in the simulator: its application (an unlimited transfer, one
//! of a fixed size, or web-like sessions, each a connection of its own) and its connections,
//! behind the run loop's door to every flow ([`FlowDriver`]). The application and the
//! bookkeeping of connections are here, the same for any stream transport; what a connection is
//! (its sender and receiver, how their segments and acknowledgements ride in a packet's
//! header) is the transport's ([`StreamConn`]; TCP's in tcp_flow.rs).

use std::any::Any;

use fairway_core::{Bytes, Dur, Rng, Time};
use fairway_proto::AgentState;

use crate::apps::WebSessions;
use crate::driver::{FlowDriver, Header, Io, Side, TimerId, TimerSlot, TransportCounters, Wake, APP};
use crate::protocol::{Build, ProtocolReport};
use crate::results::{BinSeries, SeriesInfo};

/// What a flow's application does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StreamApp {
    /// An unlimited transfer (ns-2 Application/FTP).
    Ftp,
    /// A transfer of this many bytes, then the flow is done.
    Transfer(Bytes),
    /// Web-like sessions (kadhum2015 §4.2): Poisson arrivals with this mean gap, each a
    /// transfer of a Pareto-distributed size with this mean and shape.
    Web { interarrival: Dur, mean_size: Bytes, shape: f64 },
}

/// One connection of a stream transport: a sender at the flow's source and a receiver at its
/// destination. Each call that can make an end send ends by draining that end into `io`, with
/// its packets marked as connection `conn`'s.
pub trait StreamConn {
    /// Its data packets' payload (a transfer's size is counted in these).
    fn packet_size(&self) -> Bytes;
    /// The application offers `packets` more (all it can, for `None`); drains the sender.
    fn offer(&mut self, now: Time, packets: Option<u64>, conn: u32, io: &mut Io);
    /// The application stops: it offers nothing more; what the sender took is still sent.
    fn stop(&mut self, now: Time);
    /// A packet of this connection arrived at the end its kind travels to; drains that end.
    /// Returns whether it brought the receiver data it did not have.
    fn deliver(&mut self, now: Time, pkt: &Header, io: &mut Io) -> bool;
    /// A packet of this connection was dropped.
    fn forget(&mut self, pkt: &Header);
    /// The timer of end `side` is due; drains that end.
    fn timeout(&mut self, now: Time, side: Side, conn: u32, io: &mut Io);
    /// When end `side` next wants its timer.
    fn poll_timeout(&self, side: Side) -> Option<Time>;
    /// Everything offered was acknowledged.
    fn is_done(&self) -> bool;
    /// The sender's congestion window, packets.
    fn window(&self) -> f64;
    fn state(&self) -> AgentState;
    fn counters(&self) -> TransportCounters;
}

/// How a stream transport opens a flow's connections.
pub trait StreamTransport {
    type Conn: StreamConn;
    /// Its name, which names each flow's random stream for its connections' draws
    /// (`<name>:<flow>`).
    const NAME: &'static str;
    /// A new connection, drawing what it draws (ns-2's random tick phase) from the flow's
    /// stream `rng`.
    fn open(&self, rng: &mut Rng) -> Self::Conn;
    /// Its data packets' payload.
    fn packet_size(&self) -> Bytes;
    /// What it adds to a flow's summary, under its own name, given the flow's last connection
    /// still open at the end (none when all have finished).
    fn report(&self, _open: Option<&Self::Conn>) -> Option<ProtocolReport> {
        None
    }
}

/// A connection and its ends' timers.
struct Slot<C> {
    conn: C,
    timers: [TimerSlot; 2],
    started: Time,
}

/// What the flow's application is doing.
enum App {
    Ftp,
    Transfer(u64),
    Web(WebSessions),
}

/// A flow over stream transport `T`: its application and its connections.
pub struct StreamFlow<T: StreamTransport> {
    transport: T,
    app: App,
    /// The first connection (the only one unless it is a web flow), inline: every segment and
    /// acknowledgement of most flows needs it.
    conn0: Option<Slot<T::Conn>>,
    /// The connections after the first (web sessions), in order; `None` once finished.
    more: Vec<Option<Box<Slot<T::Conn>>>>,
    opened: u32,
    /// What the connections already finished counted.
    closed: TransportCounters,
    /// The flow's stream for per-connection draws.
    rng: Rng,
    done_at: Option<Time>,
}

impl<T: StreamTransport> StreamFlow<T> {
    /// Flow `b` running `app` over `transport`. Its random streams are named after the flow:
    /// `<transport>:<flow>` for its connections' draws, `web:<flow>` for its sessions.
    pub fn new(transport: T, app: StreamApp, b: &Build) -> StreamFlow<T> {
        let app = match app {
            StreamApp::Ftp => App::Ftp,
            StreamApp::Transfer(size) => App::Transfer(size.0.div_ceil(transport.packet_size().0).max(1)),
            StreamApp::Web { interarrival, mean_size, shape } => {
                App::Web(WebSessions::new(interarrival, mean_size, shape, WebSessions::stream(b.seed, b.name)))
            }
        };
        StreamFlow {
            transport,
            app,
            conn0: None,
            more: vec![],
            opened: 0,
            closed: TransportCounters::default(),
            rng: Rng::stream(b.seed, &format!("{}:{}", T::NAME, b.name)),
            done_at: None,
        }
    }

    fn slot(&mut self, ci: u32) -> Option<&mut Slot<T::Conn>> {
        if ci == 0 {
            return self.conn0.as_mut();
        }
        self.more.get_mut(ci as usize - 1).and_then(|c| c.as_deref_mut())
    }

    fn slots(&self) -> impl Iterator<Item = &Slot<T::Conn>> {
        self.conn0.iter().chain(self.more.iter().flatten().map(|c| &**c))
    }

    /// Opens a connection that sends `packets` (all it can for `None`).
    fn open(&mut self, now: Time, packets: Option<u64>, io: &mut Io) {
        let slot = Slot { conn: self.transport.open(&mut self.rng), timers: [TimerSlot::default(); 2], started: now };
        let ci = self.opened;
        self.opened += 1;
        if ci == 0 {
            self.conn0 = Some(slot);
        } else {
            self.more.push(Some(Box::new(slot)));
        }
        let Some(s) = self.slot(ci) else { return };
        s.conn.offer(now, packets, ci, io);
        self.after(now, ci, Side::Sender, io);
    }

    /// End `side` of connection `ci` was drained: its timer re-armed, and a finished transfer
    /// closed.
    #[inline]
    fn after(&mut self, now: Time, ci: u32, side: Side, io: &mut Io) {
        let Some(s) = self.slot(ci) else { return };
        io.arm(&mut s.timers[side as usize], TimerId { conn: ci, side }, s.conn.poll_timeout(side));
        if side == Side::Sender && s.conn.is_done() {
            self.close(now, ci);
        }
    }

    /// Out of line: a connection closes once, and moving it out inline made every call of
    /// [`after`](Self::after) pay for the room its copy takes.
    #[cold]
    #[inline(never)]
    fn close(&mut self, now: Time, ci: u32) {
        let s = if ci == 0 {
            self.conn0.take()
        } else {
            self.more.get_mut(ci as usize - 1).and_then(|c| c.take()).map(|c| *c)
        };
        let Some(s) = s else { return };
        self.closed.add(&s.conn.counters());
        match &mut self.app {
            App::Web(w) => w.completed(now - s.started),
            _ => self.done_at = Some(now),
        }
    }

    /// A web flow's next session is due: it opens, and the one after is drawn.
    fn session(&mut self, now: Time, io: &mut Io) {
        let App::Web(w) = &mut self.app else { return };
        if !w.running {
            return;
        }
        let bytes = w.next_size();
        let gap = w.next_gap();
        w.started += 1;
        io.wakes.push(Wake { at: now + gap, timer: TimerId { conn: APP, side: Side::Sender }, gen: 0 });
        let pkts = bytes.0.div_ceil(self.transport.packet_size().0).max(1);
        self.open(now, Some(pkts), io);
    }
}

impl<T: StreamTransport + 'static> FlowDriver for StreamFlow<T> {
    fn start(&mut self, now: Time, io: &mut Io) {
        match &mut self.app {
            App::Ftp => self.open(now, None, io),
            App::Transfer(pkts) => {
                let pkts = *pkts;
                self.open(now, Some(pkts), io);
            }
            App::Web(w) => {
                w.running = true;
                let at = now + w.next_gap();
                io.wakes.push(Wake { at, timer: TimerId { conn: APP, side: Side::Sender }, gen: 0 });
            }
        }
    }

    fn stop(&mut self, now: Time) {
        if let App::Web(w) = &mut self.app {
            w.running = false;
        }
        // The application stops offering data; what was handed to the transport is still sent.
        for s in self.conn0.iter_mut().chain(self.more.iter_mut().flatten().map(|c| &mut **c)) {
            s.conn.stop(now);
        }
    }

    fn deliver(&mut self, now: Time, pkt: &Header, io: &mut Io) -> bool {
        // A finished session's late packet still counts as an arrival, of nothing new.
        let Some(s) = self.slot(pkt.conn) else { return false };
        let new = s.conn.deliver(now, pkt, io);
        let to = if pkt.kind.is_data() { Side::Sink } else { Side::Sender };
        self.after(now, pkt.conn, to, io);
        new
    }

    fn forget(&mut self, pkt: &Header) {
        if let Some(s) = self.slot(pkt.conn) {
            s.conn.forget(pkt);
        }
    }

    fn timeout(&mut self, now: Time, timer: TimerId, gen: u32, io: &mut Io) {
        if timer.conn == APP {
            return self.session(now, io);
        }
        let Some(s) = self.slot(timer.conn) else { return };
        if !s.timers[timer.side as usize].fire(gen) {
            return; // superseded
        }
        s.conn.timeout(now, timer.side, timer.conn, io);
        self.after(now, timer.conn, timer.side, io);
    }

    fn sample(&self) -> Option<Box<BinSeries>> {
        None
    }

    /// The first connection's window, for flows with one connection.
    fn window(&self) -> Option<f64> {
        match self.app {
            App::Web(_) => None,
            _ => self.conn0.as_ref().map(|s| s.conn.window()),
        }
    }

    fn logs(&self) -> Vec<(&'static SeriesInfo, Vec<(Time, f64)>)> {
        vec![]
    }

    fn state(&self) -> AgentState {
        self.conn0.as_ref().map(|s| s.conn.state()).unwrap_or_default()
    }

    /// The summary's RTT is the mean of the senders' samples.
    fn summary_state(&self) -> Option<AgentState> {
        None
    }

    fn counters(&self) -> TransportCounters {
        let mut c = self.closed;
        for s in self.slots() {
            c.add(&s.conn.counters());
        }
        if let App::Web(w) = &self.app {
            c.sessions_started = w.started;
            c.sessions_completed = w.completed;
            c.session_time_sum = w.completion_time_sum;
        }
        c
    }

    fn done_at(&self) -> Option<Time> {
        self.done_at
    }

    fn report(&self) -> Option<ProtocolReport> {
        self.transport.report(self.slots().last().map(|s| &s.conn))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
