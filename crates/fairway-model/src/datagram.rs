//! A datagram protocol's flow in the simulator: its two [`Endpoint`]s and the messages in flight
//! between them, behind one object-safe door ([`FlowDriver`]) that the run loop uses for every
//! such protocol alike.
//!
//! A packet on a link carries a token (in its `seq`) for what its endpoint handed over, which
//! waits here until the packet arrives or is dropped: in struct mode the typed message, in wire
//! mode (the scenario's `wire = true`) the bytes [`Endpoint::encode`] wrote, which the other end
//! reads with [`Endpoint::handle_datagram`], as it would from a socket. The run loop keeps the
//! packet's size, payload and ECN bits; the endpoint never sees the simulator.

use std::any::Any;

use fairway_core::{Bytes, Time};
use fairway_proto::{AgentState, Arrival, Endpoint, Transmit, WireEnd};

use crate::results::{BinSeries, SeriesInfo, MAX_SERIES};

/// Which end of a flow: the source (data) or the sink (feedback, acknowledgements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Sender,
    Sink,
}

/// A datagram an endpoint handed over, for the run loop to put on the wire.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing {
    pub size: u32,
    pub payload: u32,
    pub ect: bool,
    /// Tagged as multimedia (the ToS bit CBT classifies on).
    pub tagged: bool,
    /// Names the message until the packet arrives or is dropped.
    pub token: u64,
}

/// What the run loop needs of a datagram flow. Each call that can make an end send ends by
/// draining it, as the contract asks: what it sends goes into `out`, and the call returns when
/// that end next wants its timer.
pub trait FlowDriver {
    /// The application starts (the sender's [`Endpoint::start`]); drains the sender.
    fn start(&mut self, now: Time, out: &mut Vec<Outgoing>) -> Option<Time>;
    /// The application stops: the sender sends nothing more.
    fn stop(&mut self, now: Time);
    /// The packet with `token` reached the end `to` (data the sink, feedback the sender);
    /// drains that end.
    fn deliver(&mut self, now: Time, to: Side, token: u64, arrival: Arrival, out: &mut Vec<Outgoing>) -> Option<Time>;
    /// The packet with `token`, sent by `from`, was dropped: its message goes.
    fn forget(&mut self, from: Side, token: u64);
    /// The timer of `side` fired: the endpoint's timeout runs if it is due; drains that end.
    fn timeout(&mut self, now: Time, side: Side, out: &mut Vec<Outgoing>) -> Option<Time>;
    /// The series its protocol reports ([`DatagramFlow::with_series`]), as they are now, for a
    /// bin's row; `None` (and no allocation) for a protocol that reports none.
    fn sample(&self) -> Option<Box<BinSeries>>;
    /// The change log of each series its protocol logs: (which, [(when it took effect, value)]).
    fn logs(&self) -> Vec<(&'static SeriesInfo, Vec<(Time, f64)>)>;
    /// Wire mode: datagrams the receiving end refused (its own peer's bytes: a fairway bug).
    fn malformed(&self) -> u64;
    /// The sender's congestion control now, for traces.
    fn state(&self) -> AgentState;
    /// For the results: the concrete flow, to read its endpoints' statistics.
    fn as_any(&self) -> &dyn Any;
    /// Its two ends (sender, receiver) for a driver that carries their bytes itself (live
    /// mode); the run loop above is then not used.
    fn ends(&mut self) -> (&mut dyn WireEnd, &mut dyn WireEnd);
}

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
}

impl<S, R> DatagramFlow<S, R>
where
    S: Endpoint + 'static,
    R: Endpoint<In = S::Out, Out = S::In> + 'static,
{
    /// A flow in struct mode, or in wire mode if `wire`.
    pub fn new(snd: S, rcv: R, wire: bool) -> Self {
        DatagramFlow { snd, rcv, series: &[], fwd: Slab::new(), rev: Slab::new(), wire, spare: vec![], malformed: 0 }
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
    fn drain(&mut self, now: Time, side: Side, out: &mut Vec<Outgoing>) -> Option<Time> {
        let packet = |size: Bytes, payload: Bytes, ect, tagged, token| Outgoing {
            size: size.0 as u32,
            payload: payload.0 as u32,
            ect,
            tagged,
            token,
        };
        match side {
            Side::Sender => {
                while let Some(t) = self.snd.poll_transmit(now) {
                    let (size, payload, ect, tagged) = (t.size, t.payload, t.ect, t.tagged);
                    let token = self.fwd.put(carry(&self.snd, t, self.wire, &mut self.spare));
                    out.push(packet(size, payload, ect, tagged, token));
                }
                self.snd.poll_timeout()
            }
            Side::Sink => {
                while let Some(t) = self.rcv.poll_transmit(now) {
                    let (size, payload, ect, tagged) = (t.size, t.payload, t.ect, t.tagged);
                    let token = self.rev.put(carry(&self.rcv, t, self.wire, &mut self.spare));
                    out.push(packet(size, payload, ect, tagged, token));
                }
                self.rcv.poll_timeout()
            }
        }
    }
}

impl<S, R> FlowDriver for DatagramFlow<S, R>
where
    S: Endpoint + 'static,
    R: Endpoint<In = S::Out, Out = S::In> + 'static,
{
    fn start(&mut self, now: Time, out: &mut Vec<Outgoing>) -> Option<Time> {
        self.snd.start(now);
        self.drain(now, Side::Sender, out)
    }

    fn stop(&mut self, now: Time) {
        self.snd.stop(now);
    }

    fn deliver(&mut self, now: Time, to: Side, token: u64, arrival: Arrival, out: &mut Vec<Outgoing>) -> Option<Time> {
        match to {
            Side::Sink => {
                if let Some(c) = self.fwd.take(token) {
                    take_in(&mut self.rcv, now, c, arrival, &mut self.spare, &mut self.malformed);
                }
            }
            Side::Sender => {
                if let Some(c) = self.rev.take(token) {
                    take_in(&mut self.snd, now, c, arrival, &mut self.spare, &mut self.malformed);
                }
            }
        }
        self.drain(now, to, out)
    }

    fn forget(&mut self, from: Side, token: u64) {
        let bytes = match from {
            Side::Sender => self.fwd.take(token).and_then(Carried::into_bytes),
            Side::Sink => self.rev.take(token).and_then(Carried::into_bytes),
        };
        self.spare.extend(bytes);
    }

    fn timeout(&mut self, now: Time, side: Side, out: &mut Vec<Outgoing>) -> Option<Time> {
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
        self.drain(now, side, out)
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

    fn ends(&mut self) -> (&mut dyn WireEnd, &mut dyn WireEnd) {
        (&mut self.snd, &mut self.rcv)
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
        let mut out = vec![];
        assert_eq!(f.start(Time::ZERO, &mut out), Some(Time(1_000_000)));
        f.timeout(Time(1_000_000), Side::Sender, &mut out);
        assert_eq!(
            out.iter().map(|o| (o.size, o.payload, o.token)).collect::<Vec<_>>(),
            [(100, 100, 0), (100, 100, 1)]
        );
        f.forget(Side::Sender, 0);
        let mut none = vec![];
        f.deliver(Time(2_000_000), Side::Sink, 1, Arrival::default(), &mut none);
        // A token delivered or forgotten names nothing any more.
        f.deliver(Time(2_000_000), Side::Sink, 0, Arrival::default(), &mut none);
        f.deliver(Time(2_000_000), Side::Sink, 1, Arrival::default(), &mut none);
        assert!(none.is_empty(), "a UDP receiver sends nothing");
        let s = f.rcv.stats();
        assert_eq!((s.received, s.skipped, s.highest_seq), (1, 1, Some(1)));
        // Both slots are free again: the next two messages reuse them.
        out.clear();
        f.timeout(Time(2_000_000), Side::Sender, &mut out);
        f.timeout(Time(3_000_000), Side::Sender, &mut out);
        let mut tokens: Vec<u64> = out.iter().map(|o| o.token).collect();
        tokens.sort();
        assert_eq!(tokens, [0, 1]);
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
        f.start(Time::ZERO, &mut vec![]);
        let row = f.sample().unwrap();
        assert_eq!((row.get("sent"), row.get("other")), (Some(1.0), None));
        assert_eq!(f.logs(), [(&SENT.info, vec![(Time::ZERO, 0.0), (Time(1), 1.0)])]);
        // A flow that declares none has nothing for the row and logs nothing.
        let plain = DatagramFlow::new(snd(), UdpReceiver::new(0), false);
        assert_eq!((plain.sample(), plain.logs().len()), (None, 0));
    }
}
