//! One-way TCP, as in ns-2 2.35: the Tahoe, Reno and NewReno senders (`Agent/TCP`,
//! `Agent/TCP/Reno`, `Agent/TCP/Newreno`) and the sink (`Agent/TCPSink`,
//! `Agent/TCPSink/DelAck`), written as sans-IO state machines the simulator drives.
//!
//! Sequence numbers count packets, as in ns-2's one-way agents; an ACK carries the highest
//! in-order sequence number received (`-1` before any). The sender follows ns-2 where ns-2
//! and the RFCs differ, because the point of these agents is to agree with ns-2 results:
//!
//! - the usable window is an integer, `min(int(cwnd) + dupwnd, int(window_))` (RFC 5681 counts
//!   bytes);
//! - on loss, ssthresh is `int(min(cwnd + dupwnd, window_) / 2)` (RFC 5681 eq. (4) uses
//!   FlightSize), and cwnd becomes that half without the `+ 3` of RFC 5681 §3.2 step 2;
//!   the window is then inflated by a separate dupack count instead;
//! - cwnd grows even when the receiver window caps sending (no "cwnd validation");
//! - the RTO is computed on a 10 ms tick clock, in ns-2's fixed point (RFC 6298 §2 with
//!   granularity G = tick), and the timer is re-armed on every new ACK, even with nothing
//!   outstanding; an idle timeout then resets cwnd to 1 (slow-start restart);
//! - with `syn` (ns-2 `syn_`, on by default) packet 0 is a 40-byte SYN and cwnd starts at 1,
//!   becoming `window_init` when the SYN is acknowledged (`delay_growth_`);
//! - ECN: ECT is set on retransmissions too, an ECN-Echo ACK never opens cwnd once the peer
//!   has echoed ECN, and the reduction may take cwnd below one packet (ns-2 `ecn()`; RFC 3168
//!   §6.1.2 keeps at least 1).
//!
//! The sink should be fed [`TcpSink::on_segment`] with the segment as the sender emitted it (it
//! carries ECT and CWR), so ECN-Echo persists from a CE mark until CWR as in ns-2;
//! [`TcpSink::on_data`] is the flag-less form.
//!
//! The engine calls `poll_transmit` until `None` after every input, then schedules a wake-up at
//! `poll_timeout()`. A stale wake-up (the timer moved) is ignored by `on_timeout`.
//!
//! Checked against ns-2 2.35 (`/usr/bin/ns`): replaying the ACK arrival times of ns-2 runs
//! (Reno and NewReno, TCPSink and DelAck, DropTail and RED/ECN, finite and unlimited, link
//! outages up to the 60 s RTO cap) into [`TcpSender`] reproduces every packet ns-2's agent sent,
//! at the same time, and replaying data arrivals into [`TcpSink`] reproduces every ACK.

#[cfg(test)]
mod net_tests;
mod recovery;
mod rtt;
mod sender;
mod sink;
#[cfg(test)]
mod sink_tests;
#[cfg(test)]
mod tests;

use fairway_core::{Bytes, Time};

pub use sender::{TcpSender, TcpSenderStats};
pub use sink::{TcpSink, TcpSinkStats};

pub use fairway_model::tcp::{SinkConfig, TcpConfig, TcpVariant};

/// A packet the sender hands to the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpSegment {
    /// Sequence number, in packets.
    pub seq: u64,
    /// Size on the wire: payload + header, or the header alone for a SYN.
    pub size: Bytes,
    /// ECN-capable transport: a queue may mark it CE instead of dropping it.
    pub ect: bool,
    /// Congestion Window Reduced: the sender has reacted to congestion (ns-2 `cong_action`).
    /// The sink stops echoing ECN when it sees this.
    pub cwr: bool,
    /// ECN-Echo on an ECN-setup SYN (ns-2 sets it on packet 0 when `ecn_` is on).
    pub ece: bool,
    /// Packet 0 sent as a SYN (header only, no payload).
    pub syn: bool,
    /// A sequence number sent before.
    pub retransmit: bool,
    /// When the sender sent it (ns-2 `ts_`).
    pub sent_at: Time,
}

/// A cumulative ACK from the sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpAck {
    /// Highest in-order sequence number received, ns-2 style; -1 before any.
    pub ackno: i64,
    /// ECN-Echo.
    pub ece: bool,
    /// The `sent_at` echoed back (ns-2 `ts_echo_`, with `ts_echo_bugfix_`).
    pub ts_echo: Time,
    /// Size on the wire (`Agent/TCPSink packetSize_`, 40).
    pub size: Bytes,
}
