//! TCP's settings in a scenario: which ns-2 agent the sender is (its loss recovery) with its
//! parameters, and the sink's. The agents themselves are fairway-engine's `tcp` module.

use fairway_core::{Bytes, Dur};

/// Which loss recovery the sender runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TcpVariant {
    /// ns-2 `Agent/TCP`: fast retransmit without fast recovery (Jacobson 1988, RFC 5681 §3.2
    /// steps 1-2 only): on the third duplicate ACK ssthresh halves, cwnd returns to one packet
    /// and the sender goes back to the first unacknowledged packet, as after a timeout.
    Tahoe,
    /// ns-2 `Agent/TCP/Reno`: fast retransmit and fast recovery (RFC 5681 §3.2); any new ACK
    /// ends recovery.
    Reno,
    /// ns-2 `Agent/TCP/Newreno`: recovery lasts until everything sent before the loss is
    /// acknowledged; partial ACKs retransmit the next hole (RFC 6582 §3.2).
    #[default]
    NewReno,
}

impl TcpVariant {
    /// The name scenario files use: "tahoe", "reno" or "newreno".
    pub fn name(&self) -> &'static str {
        match self {
            TcpVariant::Tahoe => "tahoe",
            TcpVariant::Reno => "reno",
            TcpVariant::NewReno => "newreno",
        }
    }

    /// Every variant, as scenario files name them in this order.
    pub const ALL: [TcpVariant; 3] = [TcpVariant::NewReno, TcpVariant::Reno, TcpVariant::Tahoe];

    /// The variant a scenario's `transport` names.
    pub fn parse(name: &str) -> Option<TcpVariant> {
        TcpVariant::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// Sender parameters. `Default` gives ns-2 2.35's `Agent/TCP` defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    pub variant: TcpVariant,
    /// `packetSize_`: payload bytes per data packet (default 1000).
    pub packet_size: Bytes,
    /// `tcpip_base_hdr_size_`: a data packet on the wire is `packet_size + header_size` (40).
    pub header_size: Bytes,
    /// `window_`: the receiver's advertised window, in packets (20).
    pub window: u32,
    /// `windowInit_`: the initial window, in packets (2).
    pub window_init: u32,
    /// `maxcwnd_`: cap on cwnd in packets, 0 = none.
    pub max_cwnd: u32,
    /// `maxburst_`: most packets sent back to back per ACK, 0 = no limit.
    pub max_burst: u32,
    /// `numdupacks_`: duplicate ACKs that trigger fast retransmit (3).
    pub dupack_thresh: u32,
    /// `ecn_`: send ECT, react to ECN-Echo once per window without retransmitting (off).
    pub ecn: bool,
    /// `tcpTick_`: granularity of the RTT clock (10 ms).
    pub tick: Dur,
    /// `minrto_` (200 ms).
    pub min_rto: Dur,
    /// `maxrto_` (60 s).
    pub max_rto: Dur,
    /// `rtxcur_init_`: RTO before the first RTT sample (3 s).
    pub initial_rto: Dur,
    /// `syn_`: packet 0 models a SYN (header only), and cwnd is 1 until it is ACKed (true).
    pub syn: bool,
    /// `delay_growth_`: when the ACK for packet 0 arrives, cwnd is set to the initial window
    /// (true).
    pub delay_growth: bool,
    /// Initial `ssthresh_`. `None` = `window_`, which is what ns-2's `reset()` does at start
    /// (the Tcl default `ssthresh_ 0` is overwritten). So slow start ends at the receiver
    /// window or at the first loss.
    pub initial_ssthresh: Option<u32>,
    /// `increase_num_`: congestion avoidance adds `increase_num / cwnd` per new ACK (1.0).
    pub increase_num: f64,
    /// `decrease_num_`: multiplicative decrease after the first one (0.5).
    pub decrease_num: f64,
    /// `singledup_`: send one new packet on each of the first `dupack_thresh - 1` duplicate
    /// ACKs (RFC 3042 limited transmit) (true).
    pub limited_transmit: bool,
    /// ns-2 `boot_time_`: the phase of the sender's tick clock within a tick. ns-2 draws it
    /// uniformly in `[0, tcpTick_)` from the global RNG; the engine may do the same from the
    /// flow's rng stream. Default 0.
    pub tick_phase: Dur,
    /// ns-2 `overhead_`: when the window opens, new data waits a uniform random time in
    /// `[0, overhead)` before it is sent (everything the window allows by then goes together),
    /// which breaks the phase effects of deterministic drop-tail runs (Floyd & Jacobson 1992,
    /// "On traffic phase effects in packet-switched gateways"). Retransmissions on duplicate
    /// and partial ACKs are not delayed. 0 = off (ns-2's default).
    pub overhead: Dur,
    /// The seed of the sender's stream for the `overhead` draws (the engine derives it from the
    /// flow's stream, as it does `tick_phase`).
    pub overhead_seed: u64,
    /// NewReno `newreno_changes1_`: re-arm the retransmit timer only on the first partial ACK
    /// (RFC 6582 §4.1 "Impatient"); false re-arms it on every partial ACK (true).
    pub newreno_impatient: bool,
    /// NewReno `partial_window_deflation_`: on a partial ACK deflate the window by the amount
    /// acknowledged and add back one packet (RFC 6582 §3.2 step 5) (true).
    pub partial_window_deflation: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: TcpVariant::NewReno,
            packet_size: Bytes(1000),
            header_size: Bytes(40),
            window: 20,
            window_init: 2,
            max_cwnd: 0,
            max_burst: 0,
            dupack_thresh: 3,
            ecn: false,
            tick: Dur::from_millis(10),
            min_rto: Dur::from_millis(200),
            max_rto: Dur::from_secs(60),
            initial_rto: Dur::from_secs(3),
            syn: true,
            delay_growth: true,
            initial_ssthresh: None,
            increase_num: 1.0,
            decrease_num: 0.5,
            limited_transmit: true,
            tick_phase: Dur::ZERO,
            overhead: Dur::ZERO,
            overhead_seed: 0,
            newreno_impatient: true,
            partial_window_deflation: true,
        }
    }
}

impl TcpConfig {
    /// ns-2 defaults with the given variant.
    pub fn new(variant: TcpVariant) -> TcpConfig {
        TcpConfig { variant, ..TcpConfig::default() }
    }
}

/// Sink parameters. `Default` is ns-2's `Agent/TCPSink` (an ACK per packet).
#[derive(Debug, Clone, PartialEq)]
pub struct SinkConfig {
    /// Size of an ACK on the wire (40).
    pub ack_size: Bytes,
    /// `Some(interval_)` makes it `Agent/TCPSink/DelAck` (ns-2 default interval 100 ms).
    pub delayed_ack: Option<Dur>,
    /// DelAck `RFC2581_immediate_ack_`: ACK at once a packet that fills part of a gap (true).
    pub immediate_ack_on_gap_fill: bool,
    /// DelAck `SYN_immediate_ack_`: ACK packet 0 at once (true).
    pub immediate_ack_on_syn: bool,
}

impl Default for SinkConfig {
    fn default() -> Self {
        SinkConfig {
            ack_size: Bytes(40),
            delayed_ack: None,
            immediate_ack_on_gap_fill: true,
            immediate_ack_on_syn: true,
        }
    }
}

impl SinkConfig {
    /// ns-2 `Agent/TCPSink/DelAck` with its default `interval_` of 100 ms.
    pub fn delayed() -> SinkConfig {
        SinkConfig { delayed_ack: Some(Dur::from_millis(100)), ..SinkConfig::default() }
    }
}
