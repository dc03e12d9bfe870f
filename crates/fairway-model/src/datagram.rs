//! A datagram protocol's flow in the simulator: its two [`Endpoint`]s and the messages in flight
//! between them, behind the run loop's door to every flow ([`FlowDriver`]).
//!
//! A packet on a link carries a token (in its `seq`) for what its endpoint handed over, which
//! waits here until the packet arrives or is dropped: in struct mode the typed message, in wire
//! mode (the scenario's `wire = true`) the bytes [`Endpoint::encode`] wrote, which the other end
//! reads with [`Endpoint::handle_datagram`], as it would from a socket. The run loop keeps the
//! packet's size, payload and ECN bits; the endpoint never sees the simulator.

use std::any::Any;

use fairway_core::{Bytes, Time};
use fairway_proto::{AgentState, Arrival, Endpoint, Transmit, WireEnd};

use crate::driver::{FlowDriver, Header, Io, Outgoing, Side, TimerId, TimerSlot};
use crate::packet_trace::PktKind;
use crate::results::{BinSeries, SeriesInfo, MAX_SERIES};

/// Messages in flight, by token; a slot is reused once its packet arrives or is dropped.
struct Slab<M> {
    slots: Vec<Option<M>>,
    free: Vec<u32>,
}

impl<M> Slab<M> {
    fn new() -> Slab<M> {
        Slab { slots: vec![], free: vec![] }
    }

    fn put(&mut self, m: M) -> u64 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(m);
                i as u64
            }
            None => {
                self.slots.push(Some(m));
                self.slots.len() as u64 - 1
            }
        }
    }

    fn take(&mut self, token: u64) -> Option<M> {
        let m = self.slots.get_mut(token as usize)?.take()?;
        self.free.push(token as u32);
        Some(m)
    }
}

/// A quantity a protocol reports of each of its flows ([`SeriesInfo`]: its name in the outputs),
/// read from the flow's sender `S` and receiver `R`: its value at the end of every bin (flows.csv)
/// and, if the protocol keeps one, its log (`<name>.csv` and `<name>.svg`: every value with when
/// it took effect). A protocol declares its series as constants and gives them to its flows
/// ([`DatagramFlow::with_series`]); the scenario reader's registry lists them too, for
/// flows.csv's columns.
pub struct Series<S, R> {
    pub info: SeriesInfo,
    pub value: fn(&S, &R) -> f64,
    pub log: Option<LogOf<S, R>>,
}

/// How a series' log is read: each value with when it took effect, the first from the start.
pub type LogOf<S, R> = fn(&S, &R) -> Vec<(Time, f64)>;

/// What a packet carries: the message, or its bytes.
enum Carried<M> {
    Msg(M),
    Bytes(Vec<u8>),
}

impl<M> Carried<M> {
    fn into_bytes(self) -> Option<Vec<u8>> {
        match self {
            Carried::Msg(_) => None,
            Carried::Bytes(b) => Some(b),
        }
    }
}

/// One flow of a datagram protocol: the sender at the flow's source, the receiver at its sink.
pub struct DatagramFlow<S: Endpoint + 'static, R: Endpoint + 'static> {
    pub snd: S,
    pub rcv: R,
    /// The series its protocol reports (see [`with_series`](Self::with_series)).
    series: &'static [Series<S, R>],
    /// Data on its way to the receiver, and feedback on its way back.
    fwd: Slab<Carried<S::Out>>,
    rev: Slab<Carried<R::Out>>,
    wire: bool,
    /// Byte buffers of delivered datagrams, for the next ones (wire mode).
    spare: Vec<Vec<u8>>,
    malformed: u64,
    /// The sender's and the receiver's timers.
    timers: [TimerSlot; 2],
}

impl<S, R> DatagramFlow<S, R>
where
    S: Endpoint + 'static,
    R: Endpoint<In = S::Out, Out = S::In> + 'static,
{
    /// A flow in struct mode, or in wire mode if `wire`.
    pub fn new(snd: S, rcv: R, wire: bool) -> Self {
        DatagramFlow {
            snd,
            rcv,
            series: &[],
            fwd: Slab::new(),
            rev: Slab::new(),
            wire,
            spare: vec![],
            malformed: 0,
            timers: [TimerSlot::default(); 2],
        }
    }

    /// A flow that reports `series` (at most [`MAX_SERIES`]): each sampled into every bin, and
    /// logged where it has a log.
    pub fn with_series<const N: usize>(mut self, series: &'static [Series<S, R>; N]) -> Self {
        const { assert!(N <= MAX_SERIES, "more series than a bin's row holds (results::MAX_SERIES)") };
        self.series = series;
        self
    }
}

/// Encodes `t` into a buffer from `spare` if `wire`; otherwise keeps the message.
fn carry<E: Endpoint>(e: &E, t: Transmit<E::Out>, wire: bool, spare: &mut Vec<Vec<u8>>) -> Carried<E::Out> {
    if !wire {
        return Carried::Msg(t.msg);
    }
    let mut b = spare.pop().unwrap_or_default();
    b.clear();
    e.encode(&t, &mut b);
    Carried::Bytes(b)
}

/// Hands what arrived to `e`: the message, or the bytes to decode (counting a refusal).
fn take_in<E: Endpoint>(
    e: &mut E,
    now: Time,
    c: Carried<E::In>,
    arrival: Arrival,
    spare: &mut Vec<Vec<u8>>,
    malformed: &mut u64,
) {
    match c {
        Carried::Msg(m) => e.handle(now, &m, arrival),
        Carried::Bytes(b) => {
            if e.handle_datagram(now, &b, arrival).is_err() {
                *malformed += 1;
            }
            spare.push(b);
        }
    }
}

impl<S, R> DatagramFlow<S, R>
where
    S: Endpoint + 'static,
    R: Endpoint<In = S::Out, Out = S::In> + 'static,
{
    /// Drains end `side` into `io`: its wake-up first, then what it sends, then (the sender's,
    /// if traced) its state.
    fn drain(&mut self, now: Time, side: Side, io: &mut Io) {
        let deadline = match side {
            Side::Sender => {
                while let Some(t) = self.snd.poll_transmit(now) {
                    let (size, payload, ect, tagged) = (t.size, t.payload, t.ect, t.tagged);
                    let wire_type = self.snd.wire_type(&t.msg);
                    let token = self.fwd.put(carry(&self.snd, t, self.wire, &mut self.spare));
                    let o = Outgoing::new(PktKind::Datagram, size.0 as u32, payload.0 as u32, token, now);
                    io.out.push(Outgoing { ect, tagged, wire_type, ..o });
                }
                self.snd.poll_timeout()
            }
            Side::Sink => {
                while let Some(t) = self.rcv.poll_transmit(now) {
                    let (size, payload, ect, tagged) = (t.size, t.payload, t.ect, t.tagged);
                    let wire_type = self.rcv.wire_type(&t.msg);
                    let token = self.rev.put(carry(&self.rcv, t, self.wire, &mut self.spare));
                    let o = Outgoing::new(PktKind::Feedback, size.0 as u32, payload.0 as u32, token, now);
                    io.out.push(Outgoing { ect, tagged, wire_type, ..o });
                }
                self.rcv.poll_timeout()
            }
        };
        io.arm(&mut self.timers[side as usize], TimerId { conn: 0, side }, deadline);
        if side == Side::Sender && io.traced {
            io.states.push((0, self.snd.state()));
        }
    }
}

impl<S, R> FlowDriver for DatagramFlow<S, R>
where
    S: Endpoint + 'static,
    R: Endpoint<In = S::Out, Out = S::In> + 'static,
{
    fn start(&mut self, now: Time, io: &mut Io) {
        self.snd.start(now);
        self.drain(now, Side::Sender, io);
    }

    fn stop(&mut self, now: Time) {
        self.snd.stop(now);
    }

    fn deliver(&mut self, now: Time, pkt: &Header, io: &mut Io) -> bool {
        let arrival = Arrival { ce: pkt.ce, size: Bytes(pkt.size as u64), payload: Bytes(pkt.payload as u64) };
        let to = if pkt.kind.is_data() { Side::Sink } else { Side::Sender };
        match to {
            Side::Sink => {
                if let Some(c) = self.fwd.take(pkt.seq) {
                    take_in(&mut self.rcv, now, c, arrival, &mut self.spare, &mut self.malformed);
                }
            }
            Side::Sender => {
                if let Some(c) = self.rev.take(pkt.seq) {
                    take_in(&mut self.snd, now, c, arrival, &mut self.spare, &mut self.malformed);
                }
            }
        }
        self.drain(now, to, io);
        true
    }

    fn forget(&mut self, pkt: &Header) {
        let bytes = if pkt.kind.is_data() {
            self.fwd.take(pkt.seq).and_then(Carried::into_bytes)
        } else {
            self.rev.take(pkt.seq).and_then(Carried::into_bytes)
        };
        self.spare.extend(bytes);
    }

    fn timeout(&mut self, now: Time, timer: TimerId, gen: u32, io: &mut Io) {
        let side = timer.side;
        if !self.timers[side as usize].fire(gen) {
            return; // superseded
        }
        match side {
            Side::Sender => {
                if self.snd.poll_timeout().is_some_and(|d| d <= now) {
                    self.snd.handle_timeout(now);
                }
            }
            Side::Sink => {
                if self.rcv.poll_timeout().is_some_and(|d| d <= now) {
                    self.rcv.handle_timeout(now);
                }
            }
        }
        self.drain(now, side, io);
    }

    fn sample(&self) -> Option<Box<BinSeries>> {
        if self.series.is_empty() {
            return None;
        }
        let mut b = BinSeries::default();
        for (i, s) in self.series.iter().enumerate() {
            b.set(i, &s.info, (s.value)(&self.snd, &self.rcv));
        }
        Some(Box::new(b))
    }

    fn logs(&self) -> Vec<(&'static SeriesInfo, Vec<(Time, f64)>)> {
        self.series.iter().filter_map(|s| Some((&s.info, (s.log?)(&self.snd, &self.rcv)))).collect()
    }

    fn malformed(&self) -> u64 {
        self.malformed
    }

    fn state(&self) -> AgentState {
        self.snd.state()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn ends(&mut self) -> Option<(&mut dyn WireEnd, &mut dyn WireEnd)> {
        Some((&mut self.snd, &mut self.rcv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::{Dur, Rng};
    use fairway_proto::source::{Cbr, CbrConfig};
    use fairway_proto::udp::{UdpReceiver, UdpSender};

    #[test]
    fn a_message_waits_for_its_packet_and_a_dropped_one_is_forgotten() {
        let cfg = CbrConfig {
            packet_size: Bytes(100),
            interval: Dur::from_millis(1),
            jitter: false,
            max_packets: None,
            frame_interval: None,
        };
        let snd = UdpSender::new(0, Box::new(Cbr::new(cfg, Rng::from_seed(1))));
        let mut f = DatagramFlow::new(snd, UdpReceiver::new(0), false);
        let mut io = Io::default();
        f.start(Time::ZERO, &mut io);
        let w = io.wakes.pop().expect("the sender's timer");
        assert!(io.wakes.is_empty());
        assert_eq!((w.at, w.timer), (Time(1_000_000), TimerId { conn: 0, side: Side::Sender }));
        f.timeout(w.at, w.timer, w.gen, &mut io);
        assert_eq!(
            io.out.iter().map(|o| (o.kind, o.size, o.payload, o.seq)).collect::<Vec<_>>(),
            [(PktKind::Datagram, 100, 100, 0), (PktKind::Datagram, 100, 100, 1)]
        );
        // A wake-up that came again (superseded) does nothing.
        let sent = io.out.len();
        f.timeout(w.at, w.timer, w.gen, &mut io);
        assert_eq!(io.out.len(), sent);
        let (p0, p1) = (io.out[0].header(), io.out[1].header());
        f.forget(&p0);
        let mut none = Io::default();
        assert!(f.deliver(Time(2_000_000), &p1, &mut none));
        // A token delivered or forgotten names nothing any more.
        f.deliver(Time(2_000_000), &p0, &mut none);
        f.deliver(Time(2_000_000), &p1, &mut none);
        assert!(none.out.is_empty(), "a UDP receiver sends nothing");
        let s = f.rcv.stats();
        assert_eq!((s.received, s.skipped, s.highest_seq), (1, 1, Some(1)));
        // Both slots are free again: the next two messages reuse them.
        let mut next = *io.wakes.last().expect("re-armed");
        let mut io = Io::default();
        for _ in 0..2 {
            f.timeout(next.at, next.timer, next.gen, &mut io);
            next = io.wakes.pop().expect("re-armed");
        }
        let mut tokens: Vec<u64> = io.out.iter().map(|o| o.seq).collect();
        tokens.sort();
        assert_eq!(tokens, [0, 1]);
    }

    #[test]
    fn a_traced_sender_hands_its_state_back_and_a_sink_does_not() {
        let cfg = CbrConfig {
            packet_size: Bytes(100),
            interval: Dur::from_millis(1),
            jitter: false,
            max_packets: None,
            frame_interval: None,
        };
        let snd = UdpSender::new(0, Box::new(Cbr::new(cfg, Rng::from_seed(1))));
        let mut f = DatagramFlow::new(snd, UdpReceiver::new(0), false);
        let mut io = Io { traced: true, ..Io::default() };
        f.start(Time::ZERO, &mut io);
        assert_eq!(io.states, [(0, AgentState::default())]);
        let p = io.out[0].header();
        let mut io = Io { traced: true, ..Io::default() };
        f.deliver(Time(1), &p, &mut io);
        assert!(io.states.is_empty());
    }

    #[test]
    fn a_flows_declared_series_are_sampled_into_a_row_by_name_and_logged() {
        use crate::results::SeriesInfo;
        const SENT: Series<UdpSender, UdpReceiver> = Series {
            info: SeriesInfo { name: "sent", title: "datagrams sent", decimals: 0 },
            value: |s, _| s.stats().sent as f64,
            log: Some(|s, _| vec![(Time::ZERO, 0.0), (Time(1), s.stats().sent as f64)]),
        };
        let cfg = CbrConfig {
            packet_size: Bytes(100),
            interval: Dur::from_millis(1),
            jitter: false,
            max_packets: None,
            frame_interval: None,
        };
        let snd = || UdpSender::new(0, Box::new(Cbr::new(cfg.clone(), Rng::from_seed(1))));
        let mut f = DatagramFlow::new(snd(), UdpReceiver::new(0), false).with_series(&[SENT]);
        f.start(Time::ZERO, &mut Io::default());
        let row = f.sample().unwrap();
        assert_eq!((row.get("sent"), row.get("other")), (Some(1.0), None));
        assert_eq!(f.logs(), [(&SENT.info, vec![(Time::ZERO, 0.0), (Time(1), 1.0)])]);
        // A flow that declares none has nothing for the row and logs nothing.
        let plain = DatagramFlow::new(snd(), UdpReceiver::new(0), false);
        assert_eq!((plain.sample(), plain.logs().len()), (None, 0));
    }
}
