//! DCCP, the Datagram Congestion Control Protocol (RFC 4340), with CCID2, TCP-like congestion
//! control (RFC 4341), or CCID3, TFRC (RFC 4342): a connection whose client sends an
//! application's packets and whose server acknowledges them (CCID2: Ack Vectors; CCID3: TFRC's
//! feedback as options).
//!
//! - [`packet`]: packets as values (types, header fields, options); [`wire`]: their bytes.
//! - [`ackvec`]: the server's record of what arrived, and the Ack Vectors made from it.
//! - [`ccid2`]: CCID2's pipe, loss inference, timeouts and Ack Ratio control, with its window a
//!   TCP congestion control's (tcp/cc, by default RFC 4341 §5's tcplike.rs).
//! - [`ccid3`]: CCID3 on fairway's TFRC ends: window counters, feedback options, p from the
//!   reported loss intervals.
//! - [`DccpSender`], [`DccpReceiver`]: the client and server ends, each an
//!   [`Endpoint`](crate::Endpoint): handshake with feature negotiation (§8.1, §6), sequence and
//!   acknowledgement numbers (§7), acknowledgements paced by the Ack Ratio (§11.3).
//!
//! Connections are one-way, as the seeds use them: the server sends no data. A stopped client
//! sends nothing more and does not close the connection (no Close/Reset exchange).

pub mod ackvec;
pub mod ccid2;
pub mod ccid3;
pub mod packet;
mod receiver;
mod sender;
pub mod wire;

pub use fairway_core::ParamError;
use fairway_core::{Bytes, Dur};

pub use ccid2::{Ccid2, Ccid2Config, Ccid2Stats};
pub use ccid3::{Ccid3Receiver, Ccid3Sender, Ccid3SenderStats};

use crate::tfrc::TfrcConfig;

/// The congestion control a connection negotiates (RFC 4340 §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ccid {
    /// TCP-like (RFC 4341).
    #[default]
    Two,
    /// TFRC (RFC 4342).
    Three,
}

impl Ccid {
    /// Its number in the CCID feature.
    pub fn number(self) -> u8 {
        match self {
            Ccid::Two => 2,
            Ccid::Three => 3,
        }
    }
}
pub use packet::{Packet, PacketType};
pub use receiver::{DccpReceiver, DccpReceiverStats};
pub use sender::{DccpSender, DccpSenderStats};

/// Which DCCP: the RFCs', or ns-2 2.35's Agent/DCCP/TCPlike at its defaults, which dccp-ns2 ran
/// (docs/semantics.md, "DCCP", names every difference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    /// RFC 4340 and RFC 4341.
    #[default]
    Rfc4341,
    /// ns-2 2.35: short sequence numbers in its header sizes (20 B of IP included: Data 32 B,
    /// the others 36 B, Reset 40 B); Requests resent after 3 s and doubling; the client acknowledges the
    /// Response with an Ack and goes straight to OPEN; it acknowledges the server's
    /// acknowledgements once per window; and [`Ccid2Config::ns2`]'s congestion control.
    Ns2,
}

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Rfc4341 => "rfc4341",
            Flavor::Ns2 => "ns2",
        }
    }

    pub fn parse(s: &str) -> Option<Flavor> {
        [Flavor::Rfc4341, Flavor::Ns2].into_iter().find(|f| f.name() == s)
    }
}

/// The Service Code fairway's connections use (§8.1.2: "FWAY" in ASCII).
pub const SERVICE_CODE: u32 = u32::from_be_bytes(*b"FWAY");

/// Both ends' settings.
#[derive(Debug, Clone, PartialEq)]
pub struct DccpConfig {
    /// The connection's id (in the port pair).
    pub flow: u32,
    pub flavor: Flavor,
    /// Bytes every packet adds below DCCP (IPv4's 20).
    pub ip_header: Bytes,
    /// The congestion control, and each one's settings.
    pub ccid: Ccid,
    pub ccid2: Ccid2Config,
    /// CCID3's TFRC (its flow, packet size and ECN are taken from the connection's).
    pub ccid3: TfrcConfig,
    /// Send data ECN-capable (§12); marks then come back in the Ack Vector as State 1.
    pub ecn: bool,
    /// The first Request retransmission, doubled each time (§8.1.1: about one second).
    pub request_rto: Dur,
    /// The server acknowledges unacknowledged data at the latest this long after it arrived,
    /// when fewer than Ack Ratio packets came (RFC 4341 §6.2.1's 0.2 s).
    pub ack_delay: Dur,
    /// Application packets the client holds while the window is full (the send buffer); more
    /// are dropped at the sender and counted.
    pub send_buffer: u64,
}

impl Default for DccpConfig {
    fn default() -> Self {
        DccpConfig {
            flow: 0,
            flavor: Flavor::Rfc4341,
            ip_header: Bytes(20),
            ccid: Ccid::Two,
            ccid2: Ccid2Config::default(),
            ccid3: ccid3::rfc4342_tfrc(),
            ecn: false,
            request_rto: Dur::from_secs(1),
            ack_delay: Dur::from_millis(200),
            send_buffer: 1000,
        }
    }
}

/// The options of ns-2 2.35's Request and Response, padded to 32 bits: the Request asks to
/// change, at both ends, the CCID, ECN, the Ack Ratio, the Ack Vector, the quiescence scheme and
/// Q (dccp.cc, buildInitialFeatureList), and with CCID3 also the Loss Event Rate and the RTT
/// scheme (dccp_tfrc.cc); the Response confirms each. An option is its type, length and feature
/// number and the value (DCCPOptions::addFeatureOption): 4 bytes for a one-byte value, 5 for
/// the two-byte Ack Ratio. 52 bytes with CCID2 (an 88-byte Request), 68 with CCID3 (104).
fn ns2_handshake_options(ccid: Ccid) -> usize {
    let common: usize = 2 * (5 * 4 + 5);
    let tfrc = match ccid {
        Ccid::Two => 0,
        Ccid::Three => 2 * 2 * 4,
    };
    (common + tfrc).div_ceil(4) * 4
}

impl DccpConfig {
    /// ns-2 2.35's Agent/DCCP/TCPlike and Agent/DCCP/TFRC (ns-default.tcl): ECN on, Requests
    /// after 3 s.
    pub fn ns2() -> DccpConfig {
        DccpConfig {
            flavor: Flavor::Ns2,
            ccid2: Ccid2Config::ns2(),
            ccid3: ccid3::ns2_tfrc(),
            ecn: true,
            request_rto: Dur::from_secs(3),
            ..DccpConfig::default()
        }
    }

    pub fn for_flavor(flavor: Flavor) -> DccpConfig {
        match flavor {
            Flavor::Rfc4341 => DccpConfig::default(),
            Flavor::Ns2 => DccpConfig::ns2(),
        }
    }

    /// A packet's size on the wire: its application bytes, the DCCP header and, below it,
    /// `ip_header` (RFC 4340's layout), or ns-2's header sizes.
    pub fn wire_size(&self, p: &Packet, payload: Bytes) -> Bytes {
        let header = match self.flavor {
            Flavor::Rfc4341 => wire::dccp_header_len(p) as u64 + self.ip_header.0,
            Flavor::Ns2 => {
                // 20 B of IP and a 12-byte generic header; 4 more with an acknowledgement
                // (Request and Response too), 8 for a Reset; options padded to 32 bits.
                let fixed = match p.kind {
                    PacketType::Data => 32,
                    PacketType::Reset => 40,
                    _ => 36,
                };
                let opts = match p.kind {
                    PacketType::Request | PacketType::Response => ns2_handshake_options(self.ccid),
                    _ => wire::dccp_header_len(p) - wire::fixed_len(p.kind),
                };
                fixed + opts as u64
            }
        };
        Bytes(payload.0 + header)
    }
    /// CCID3's TFRC settings for this connection.
    pub fn tfrc(&self) -> TfrcConfig {
        TfrcConfig { flow: self.flow, ecn: self.ecn, ..self.ccid3.clone() }
    }

    /// Checks that the settings can work; names the field that cannot.
    pub fn validate(&self) -> Result<(), ParamError> {
        let c = &self.ccid2;
        if c.initial_cwnd == 0 {
            return Err(ParamError::of("DCCP", "initial_cwnd", "must be at least 1"));
        }
        if c.initial_ssthresh < 2 {
            return Err(ParamError::of("DCCP", "initial_ssthresh", "must be at least 2 (RFC 4341 §5)"));
        }
        if c.numdupack == 0 {
            return Err(ParamError::of("DCCP", "numdupack", "must be at least 1"));
        }
        if c.ack_ratio == 0 || c.ack_ratio > u32::from(u16::MAX) {
            return Err(ParamError::of(
                "DCCP",
                "ack_ratio",
                format!("{} is outside 1..=65535 (RFC 4340 §11.3)", c.ack_ratio),
            ));
        }
        if c.initial_rto.is_zero() {
            return Err(ParamError::of("DCCP", "initial_rto", "must be positive"));
        }
        if c.min_rto > c.max_rto {
            return Err(ParamError::of("DCCP", "min_rto", format!("{} is above max_rto {}", c.min_rto, c.max_rto)));
        }
        if c.max_rto.is_zero() {
            return Err(ParamError::of("DCCP", "max_rto", "must be positive"));
        }
        if self.request_rto.is_zero() {
            return Err(ParamError::of("DCCP", "request_rto", "must be positive"));
        }
        if self.ack_delay.is_zero() {
            return Err(ParamError::of("DCCP", "ack_delay", "must be positive"));
        }
        if self.send_buffer == 0 {
            return Err(ParamError::of("DCCP", "send_buffer", "must hold at least one packet"));
        }
        if self.ccid == Ccid::Three {
            self.tfrc().validate().map_err(|e| ParamError::of("DCCP", e.field, e.reason))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod loop_tests;
