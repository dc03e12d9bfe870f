//! Option sets: the defaults of every TCP key as one stack has them (a scenario's `options`):
//! ns-2 2.35's agents (the default), Linux's TCP, ns-3.37's `TcpSocketBase`. A key a scenario
//! gives overrides its set's value. docs/semantics.md, "TCP option sets", gives each value's
//! source.

use fairway_core::{Bytes, Dur};

use super::{PrrBound, RtoStyle, SackRecovery, SinkConfig, TcpConfig};

/// Bytes the timestamps option adds to every segment: 10 for the option, 2 of padding
/// (RFC 7323 §3; Linux and ns-3 align it to 12 with two NOPs).
pub const TIMESTAMPS_BYTES: u64 = 12;

/// One stack's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionSet {
    /// Its name in a scenario's `options`.
    pub name: &'static str,
    /// The sender's defaults; `variant`, `cc` and `cc_flavor` are not used (see `sack` and
    /// `cc`), and `header_size` is the header without options.
    pub sender: TcpConfig,
    /// The sink's defaults; `sack` follows the sender's recovery, and `ack_size` is without
    /// options.
    pub sink: SinkConfig,
    /// SACK on, unless the sender is Tahoe or the scenario says `sack = false`.
    pub sack: bool,
    /// The congestion control and flavour when the scenario names no `cc`.
    pub cc: Option<(&'static str, &'static str)>,
}

impl OptionSet {
    /// Header bytes of a data segment: the base header, plus the timestamps option when on.
    pub fn header_size(&self, timestamps: bool) -> Bytes {
        Bytes(self.sender.header_size.0 + if timestamps { TIMESTAMPS_BYTES } else { 0 })
    }

    /// Bytes of an ACK without SACK blocks.
    pub fn ack_size(&self, timestamps: bool) -> Bytes {
        Bytes(self.sink.ack_size.0 + if timestamps { TIMESTAMPS_BYTES } else { 0 })
    }
}

/// The names `options` accepts, the default first.
pub const OPTION_SETS: [&str; 3] = ["ns2", "linux", "ns3"];

/// The option set `name`.
pub fn option_set(name: &str) -> Option<OptionSet> {
    let ns2 = TcpConfig::default();
    Some(match name {
        // ns-2 2.35's Agent/TCP and Agent/TCPSink defaults (TcpConfig::default, SinkConfig).
        "ns2" => OptionSet { name: "ns2", sender: ns2, sink: SinkConfig::default(), sack: false, cc: None },
        "linux" => OptionSet {
            name: "linux",
            sender: TcpConfig {
                // 1500-byte Ethernet MTU less 20 (IPv4), 20 (TCP) and 12 (timestamps).
                packet_size: Bytes(1448),
                header_size: Bytes(40),
                // Receive-window autotuning (net.ipv4.tcp_rmem, up to 6 MiB) keeps a bulk
                // receiver from limiting the sender: a window that does not bind (a modelling
                // choice, not a Linux constant).
                window: 10_000,
                // RFC 6928 IW10 (Linux since 2.6.39), counted from the first data segment: the
                // SYN exchange is done with one (ns-2's syn_ and delay_growth_).
                window_init: 10,
                // TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s, TCP_TIMEOUT_INIT 1 s (RFC 6298 §2.1).
                min_rto: Dur::from_millis(200),
                max_rto: Dur::from_secs(120),
                initial_rto: Dur::from_secs(1),
                // RTT samples in microseconds: a fine clock (1 ms keeps the estimator's
                // fixed point well inside its range).
                tick: Dur::from_millis(1),
                rto_style: RtoStyle::Linux,
                timestamps: true,
                sack_recovery: SackRecovery::Rfc6675,
                prr: Some(PrrBound::Linux),
                // RFC 8985 RACK-TLP: net.ipv4.tcp_recovery 1 (RACK), tcp_early_retrans 3 (TLP).
                rack: true,
                tlp: true,
                ..ns2
            },
            // Delayed ACKs: every second full-sized segment, or after TCP_DELACK_MIN (40 ms).
            // Linux's quick ACKs (`quick_ack`) are not in the set yet: docs/semantics.md.
            sink: SinkConfig { delayed_ack: Some(Dur::from_millis(40)), ..SinkConfig::default() },
            sack: true,
            cc: Some(("cubic", "linux")),
        },
        // ns-3.37's attribute defaults, read from its libraries (TypeId attributes):
        // TcpSocket SegmentSize 536, InitialCwnd 10, DelAckCount 2, DelAckTimeout 200 ms,
        // RcvBufSize 131072, ConnTimeout 3 s; TcpSocketBase Sack true, Timestamp true,
        // MinRto 1 s, ClockGranularity 1 ms, ReTxThreshold 3, LimitedTransmit true, UseEcn
        // Off; TcpL4Protocol RecoveryType TcpPrrRecovery (ReductionBound SSRB), SocketType
        // TcpCubic; RttMeanDeviation alpha 1/8, beta 1/4 (RFC 6298's).
        "ns3" => OptionSet {
            name: "ns3",
            sender: TcpConfig {
                packet_size: Bytes(536),
                header_size: Bytes(40),
                // RcvBufSize / SegmentSize.
                window: 131_072 / 536,
                window_init: 10,
                min_rto: Dur::from_secs(1),
                tick: Dur::from_millis(1),
                // The SYN's timeout (ConnTimeout); data always follows an RTT sample.
                initial_rto: Dur::from_secs(3),
                timestamps: true,
                sack_recovery: SackRecovery::Rfc6675,
                prr: Some(PrrBound::Ssrb),
                // No RACK-TLP: ns-3.37's TcpSocketBase has neither RACK nor TLP (its loss
                // detection is RFC 6675's DupThresh count).
                ..ns2
            },
            sink: SinkConfig { delayed_ack: Some(Dur::from_millis(200)), ..SinkConfig::default() },
            sack: true,
            cc: Some(("cubic", "ns3")),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_is_the_default_and_every_set_is_named() {
        for name in OPTION_SETS {
            assert_eq!(option_set(name).unwrap().name, name);
        }
        let ns2 = option_set(OPTION_SETS[0]).unwrap();
        assert_eq!(ns2.sender, TcpConfig::default());
        assert_eq!(ns2.sink, SinkConfig::default());
        assert_eq!((ns2.header_size(false), ns2.ack_size(false)), (Bytes(40), Bytes(40)));
        assert!(option_set("bsd").is_none());
    }

    #[test]
    fn timestamps_add_twelve_bytes_to_every_segment() {
        // Linux's data packet is a full 1500-byte Ethernet frame's payload.
        let linux = option_set("linux").unwrap();
        let h = linux.header_size(linux.sender.timestamps);
        assert_eq!(linux.sender.packet_size.0 + h.0, 1500);
        assert_eq!(linux.ack_size(true), Bytes(52));
    }
}
