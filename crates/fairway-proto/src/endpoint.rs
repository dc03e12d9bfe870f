//! The one door every datagram protocol goes through (docs/architecture.md, "The sans-IO shape").
//!
//! An [`Endpoint`] is one end of one flow. Its driver (the simulator's engine, or live mode on a
//! socket) feeds it what arrives, typed ([`Endpoint::handle`]) or as bytes
//! ([`Endpoint::handle_datagram`]), and the expiry of its timer ([`Endpoint::handle_timeout`]);
//! after each such call it drains [`Endpoint::poll_transmit`] until it returns `None`, then
//! sleeps until [`Endpoint::poll_timeout`]. Rate-based senders pace themselves through
//! `poll_timeout`; window-based ones through what `poll_transmit` allows. An endpoint never reads
//! a clock, opens a socket or draws from an unseeded source.
//!
//! A protocol is a pair of endpoints whose messages match: the sender's `Out` is the receiver's
//! `In` and the other way round. [`Endpoint::encode`] writes a message in the protocol's wire
//! format and `handle_datagram` reads it, so a driver may carry typed messages (struct mode) or
//! bytes (wire mode, the code live mode runs).

use fairway_core::{Bytes, Dur, Time};

/// How a datagram arrived, beside its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Arrival {
    /// Congestion Experienced: a queue marked it (RFC 3168).
    pub ce: bool,
    /// Its size on the wire (what the sender's [`Transmit`] said).
    pub size: Bytes,
    /// The application bytes it carries (in struct mode what the sender's [`Transmit`] said; in
    /// wire mode the endpoint reads it from the bytes).
    pub payload: Bytes,
}

/// A datagram an endpoint wants sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transmit<M> {
    /// Its size on the wire, which queues and links see.
    pub size: Bytes,
    /// The application bytes in it (goodput counts these).
    pub payload: Bytes,
    /// ECN-capable transport (ECT(0)).
    pub ect: bool,
    /// Tagged as multimedia: the ToS bit of chung-dcbt §2 that a class-based queue (CBT)
    /// classifies on.
    pub tagged: bool,
    /// The message: what the wire format encodes.
    pub msg: M,
}

/// What a sender's congestion control holds at a moment, for a trace of its changes: the fields
/// its protocol has, the others `None`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AgentState {
    /// The congestion window and slow-start threshold, packets.
    pub cwnd_pkts: Option<f64>,
    pub ssthresh_pkts: Option<f64>,
    pub srtt: Option<Dur>,
    pub rttvar: Option<Dur>,
    /// The retransmission (or no-feedback) timeout's length.
    pub rto: Option<Dur>,
    /// A rate-based sender's allowed rate, bits per second.
    pub rate_bps: Option<f64>,
    /// The loss event rate it computes its rate from.
    pub loss_event_rate: Option<f64>,
}

/// A datagram that does not decode as the protocol's, or is not for this end; the endpoint
/// ignores it (and counts it, where it keeps counts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed datagram: {0}")]
pub struct Malformed(pub String);

/// One end of one flow of a datagram protocol.
pub trait Endpoint {
    /// What it receives from its peer.
    type In;
    /// What it sends to its peer.
    type Out;
    /// Its counters and state for a run's summary.
    type Stats;

    /// The application starts (a sender's first packet, at once or at its first timer).
    fn start(&mut self, _now: Time) {}

    /// The application stops: a sender sends nothing more; its timers stop.
    fn stop(&mut self, _now: Time) {}

    /// A message from the peer, typed.
    fn handle(&mut self, now: Time, msg: &Self::In, arrival: Arrival);

    /// A message from the peer as bytes in the protocol's wire format.
    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed>;

    /// The timer of [`poll_timeout`](Self::poll_timeout) is due (a call before it is harmless).
    fn handle_timeout(&mut self, now: Time);

    /// The next datagram to send, if one is due now.
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<Self::Out>>;

    /// When to call [`handle_timeout`](Self::handle_timeout) or poll again; `None` while there is
    /// nothing to wait for. A stopped endpoint returns `None`.
    fn poll_timeout(&self) -> Option<Time>;

    /// Its counters and state now.
    fn stats(&self) -> Self::Stats;

    /// Its congestion control's state now, for traces; a receiver, or a sender with none (a
    /// constant-rate source), has nothing to show.
    fn state(&self) -> AgentState {
        AgentState::default()
    }

    /// Writes a message as it goes on the wire, `t.size` bytes in all.
    fn encode(&self, t: &Transmit<Self::Out>, out: &mut Vec<u8>);

    /// The message's packet type, where the protocol's header has one that traces name: DCCP's
    /// (RFC 4340 §5.1: Request 0, Response 1, Data 2, Ack 3, DataAck 4, ...). `None`: the
    /// protocol's one kind of packet for its direction.
    fn wire_type(&self, _msg: &Self::Out) -> Option<u8> {
        None
    }
}
