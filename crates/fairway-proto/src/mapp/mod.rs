//! MApp: the congestion-aware media-scaling endpoints of kadhum2015 (Kadhum & Hassanein 2015,
//! §2.2-§3.2, Figs 2-3), with the receiver rule of chung-dcbt §5 (Chung & Claypool's MM_APP).
//!
//! The sender ([`MappSender`], kadhum2015 Fig. 2) starts at scale 0, sends frames at the rate its
//! current scale stands for ([`ScaleTable`], [`Pacing`]) and switches to whatever scale the
//! receiver names. The receiver ([`MappReceiver`], kadhum2015 Fig. 3) watches for congestion (a
//! sequence gap, an ECN CE mark, or no data for the timeout TOI), halves the scale at most once
//! per RTT when it sees some, adds one after every RTT without, and tells the sender. Frames
//! split into several datagrams are put back together by [`Reassembly`] (kadhum2015 §3.2).
//! Messages use the UDPm wire format ([`wire`]).
//!
//! Both ends are sans-IO state machines (docs/architecture.md): they never read a clock, open a socket or
//! draw unseeded randomness. A driver calls `handle_*`, then drains `poll_transmit` until it
//! returns `None`, then sleeps until `poll_timeout`.
//!
//! Where the papers are silent (each is repeated at the line that implements it):
//! - The receiver learns the RTT from the sender's smoothed estimate in every data header
//!   (`rtt_us`), and uses `initial_rtt` until one arrives. The sender measures RTT from the echo
//!   and hold time in feedback and smooths it as RFC 6298 §2 does (alpha = 1/8). The receiver
//!   echoes the newest in-order datagram, not a late one (as TCP timestamps do).
//! - A decrease restarts the checkpoint clock; congestion less than an RTT after the last
//!   decrease is remembered (no increase at the next checkpoint) but does not halve again, as
//!   TCP reduces once per window. A TOI that falls with a checkpoint is handled first.
//! - The receiver sends feedback at every checkpoint, whatever it decided, as ns-2's MmApp
//!   sends one ACK per RTT: it carries the echo the sender's RTT estimate needs. A checkpoint
//!   increases only if a datagram arrived in that RTT (MmApp's `recv_pkts > 0`).
//! - When a shorter RTT in a header makes the checkpoint due in the past, it falls at that
//!   arrival, so checkpoints (and increases) stay at least one RTT apart.
//! - Max_Intrvl is stretched by half when the sender jitters its intervals (the longest
//!   possible interval is then 1.5 x the nominal one).
//! - After `idle_limit` consecutive TOI expiries the receiver goes quiet until data returns, so
//!   a stopped sender does not leave it sending feedback forever; the halvings of those expiries
//!   have by then brought any scale of a 255-level table down to 0 (with the default 8).
//! - Losses before the first datagram a receiver sees are not counted: its sequence and frame
//!   numbering start at that datagram.
//! - Late or duplicate datagrams are counted as `late`; a gap already counted as lost stays
//!   counted when its datagram turns up late.
//! - The receiver's first feedback names scale 0 (MmApp's first ACK already adds one). A scale
//!   switch applies from the next frame's scheduling (as in MmApp). A frame due while the driver
//!   was late is sent at once and the schedule kept; frames missed by more than an interval are
//!   not made up. A restart begins at scale 0 while sequence and frame numbers continue.
//!   Feedback acknowledging a datagram never sent, or older than feedback already acted on, is
//!   ignored.
//! - With a constant packet rate a frame is floor(rate x interval / 8) bytes, split into
//!   near-equal datagrams (sizes differ by at most one byte).
//! - Time that goes backwards is treated as no time passing.

mod mpeg;
mod reassembly;
mod receiver;
mod scale;
mod sender;
pub mod wire;

#[cfg(test)]
mod loop_tests;
#[cfg(test)]
mod receiver_tests;

pub use mpeg::{FrameKind, Gop, MAX_GOP, MPEG_SCALES};
pub use reassembly::{FragmentOutcome, Reassembly};
pub use receiver::{MappReceiver, ReceiverStats};
pub use scale::{FrameLayout, Pacing, ScaleTable, MAX_DATAGRAM};
pub use sender::{MappSender, SenderStats};

use fairway_core::Dur;
pub use fairway_core::ParamError;

/// The parameters both ends of one MApp flow agree on (kadhum2015 §2.2: "the sender and the
/// receiver should agree on different sets of transmission strategies").
#[derive(Debug, Clone, PartialEq)]
pub struct MappConfig {
    /// The UDPm flow id; messages of other flows are ignored.
    pub flow: u32,
    /// The rate of each scale value.
    pub table: ScaleTable,
    /// How a rate becomes frames and datagrams.
    pub pacing: Pacing,
    /// ns-2 mm-app.cc `random_`: each interval is multiplied by 1 + U(-0.5, 0.5).
    pub jitter: bool,
    /// chung-dcbt §5's "flow control": the sender follows the scale the receiver names. Without it
    /// the sender sends at its top scale throughout, as §5's run (a) does, still measuring RTT.
    pub flow_control: bool,
    /// Datagrams are ECN-capable (ECT), so an AQM may mark instead of drop (RFC 3168).
    pub ect: bool,
    /// Set [`wire::FLAG_MULTIMEDIA`] in data headers (kadhum2015 §5: "multimedia
    /// packets can be identified (or labeled) by transport layer").
    pub multimedia_tag: bool,
    /// The RTT the receiver assumes until the sender reports one.
    pub initial_rtt: Dur,
    /// chung-dcbt §5: TOI = Max_Intrvl + alpha when RTT <= Max_Intrvl, with 0 < alpha < RTT;
    /// alpha = `toi_alpha` x RTT, so `toi_alpha` lies strictly between 0 and 1.
    pub toi_alpha: f64,
    /// Consecutive TOI expiries without data after which the receiver stops its timers.
    pub idle_limit: u32,
    /// A frame that is still incomplete when a fragment of a frame more than this many frames
    /// newer arrives is given up as lost.
    pub reassembly_window: u32,
}

impl Default for MappConfig {
    /// kadhum2015's MApp: ten scales, 1000-byte packets (appendix: `pktsize_ 1000`,
    /// `random_ false`), multimedia-tagged.
    fn default() -> Self {
        MappConfig {
            flow: 0,
            table: ScaleTable::kadhum2015(),
            pacing: Pacing::default(),
            jitter: false,
            flow_control: true,
            ect: false,
            multimedia_tag: true,
            initial_rtt: Dur::from_millis(100),
            toi_alpha: 0.5,
            idle_limit: 8,
            reassembly_window: 4,
        }
    }
}

/// The largest `reassembly_window`: it bounds the receiver's memory (each frame slot can hold a
/// bitmap of up to 65 535 fragments, 8 KiB).
pub const MAX_REASSEMBLY_WINDOW: u32 = 1024;

impl MappConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.pacing.validate(&self.table)?;
        if self.jitter && matches!(self.pacing, Pacing::Mpeg(_)) {
            return Err(ParamError::of("MApp", "jitter", "an MPEG stream keeps its frame rate: no jitter"));
        }
        if self.initial_rtt.is_zero() {
            return Err(ParamError::of("MApp", "initial_rtt", "must be above zero"));
        }
        if !(self.toi_alpha > 0.0 && self.toi_alpha < 1.0) {
            return Err(ParamError::of(
                "MApp",
                "toi_alpha",
                format!("{} is not strictly between 0 and 1 (chung-dcbt §5: 0 < alpha < RTT)", self.toi_alpha),
            ));
        }
        if self.idle_limit == 0 {
            return Err(ParamError::of("MApp", "idle_limit", "must be at least 1"));
        }
        if self.reassembly_window == 0 || self.reassembly_window > MAX_REASSEMBLY_WINDOW {
            return Err(ParamError::of(
                "MApp",
                "reassembly_window",
                format!("{} is outside 1..={MAX_REASSEMBLY_WINDOW} frames", self.reassembly_window),
            ));
        }
        Ok(())
    }
}

impl From<wire::UdpmError> for crate::endpoint::Malformed {
    fn from(e: wire::UdpmError) -> Self {
        crate::endpoint::Malformed(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::Bytes;

    #[test]
    fn default_config_is_valid_and_bad_fields_are_named() {
        assert!(MappConfig::default().validate().is_ok());
        let bad = |f: fn(&mut MappConfig)| {
            let mut c = MappConfig::default();
            f(&mut c);
            c.validate().unwrap_err().field
        };
        assert_eq!(bad(|c| c.initial_rtt = Dur::ZERO), "initial_rtt");
        assert_eq!(bad(|c| c.toi_alpha = 0.0), "toi_alpha");
        assert_eq!(bad(|c| c.toi_alpha = 1.0), "toi_alpha");
        assert_eq!(bad(|c| c.toi_alpha = f64::NAN), "toi_alpha");
        assert_eq!(bad(|c| c.idle_limit = 0), "idle_limit");
        assert_eq!(bad(|c| c.reassembly_window = 0), "reassembly_window");
        assert_eq!(bad(|c| c.reassembly_window = 5000), "reassembly_window");
        assert_eq!(bad(|c| c.pacing = Pacing::ConstantSize { packet_size: Bytes(10) }), "pacing.packet_size");
        let msg = MappConfig { toi_alpha: 2.0, ..Default::default() }.validate().unwrap_err().to_string();
        assert!(msg.contains("toi_alpha") && msg.contains('2'), "{msg}");
    }
}
