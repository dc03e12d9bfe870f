//! TFRC, TCP-Friendly Rate Control (RFC 5348), and its small-packet variant TFRC-SP (RFC 4828):
//! a sender that paces datagrams at the rate the TCP throughput equation allows for the loss
//! event rate and round-trip time its receiver reports.
//!
//! Two flavours ([`Flavor`]): RFC 5348 as written, and the behaviour of ns-2 2.35's Agent/TFRC
//! and Agent/TFRCSink at their defaults, which dccp-ns2 and janani-tfrc ran and against which fairway
//! is checked (every deviation is named in docs/semantics.md, "TFRC").
//!
//! - [`equation`]: the throughput equation (§3.1) and its inverse.
//! - [`loss`]: the receiver's loss history and loss event rate (§5).
//! - [`TfrcSender`], [`TfrcReceiver`]: the two ends (§4, §6), each an [`Endpoint`](crate::Endpoint).
//! - [`wire`]: their byte format.

pub mod equation;
pub mod loss;
mod receiver;
mod sender;
pub mod wire;

pub use fairway_core::ParamError;
use fairway_core::{Bytes, Dur, Time};

pub use loss::{IntervalReport, LossConfig};

pub use receiver::{Observed, TfrcReceiver, TfrcReceiverStats};
pub use sender::{TfrcSender, TfrcSenderStats};

/// Which TFRC: the RFC's, or ns-2 2.35's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    /// RFC 5348 (with RFC 4828 for TFRC-SP).
    #[default]
    Rfc5348,
    /// ns-2 2.35's Agent/TFRC and Agent/TFRCSink at their defaults: 300 B/s before the first
    /// feedback, then an RFC 3390 window per RTT; slow start toward twice the latest receive rate
    /// with its per-packet ramp; additive increase in congestion avoidance; a TCP-style t_RTO in
    /// 0.1 s ticks; q = 0.95; a nofeedback timer of max(2R, 2s/X); losses declared after one later
    /// packet and timed by interpolated send times; the first loss interval from the current
    /// receive rate; feedback once per RTT on arrival, on every new loss event, and at 1.5 RTT.
    Ns2,
}

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Rfc5348 => "rfc5348",
            Flavor::Ns2 => "ns2",
        }
    }

    pub fn parse(s: &str) -> Option<Flavor> {
        [Flavor::Rfc5348, Flavor::Ns2].into_iter().find(|f| f.name() == s)
    }
}

/// How t_RTO in the throughput equation is set (RFC 5348 §3.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RtoRule {
    /// t_RTO = 4R (SHOULD).
    FourR,
    /// t_RTO = max(4R, 1 s) (MAY), RFC 2988's minimum.
    FourRAtLeastOneSecond,
    /// TCP's estimator in whole ticks: srtt + 4 rttvar (ns-2's TFRC, tick 0.1 s).
    Tcp { tick: Dur },
}

/// The allowed rate the first feedback sets (RFC 5348 §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InitialWindow {
    /// RFC 3390's window per RTT: min(4s, max(2s, 4380 B)) (RFC 5348 §4.2; RFC 4342 §5).
    #[default]
    Rfc3390,
    /// One packet per RTT (RFC 3448 §4.2; ns-2 2.35's Agent/DCCP/TFRC).
    OnePacket,
}

/// TFRC-SP's settings (RFC 4828 §3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpConfig {
    /// The nominal segment size in the equation (1460 B).
    pub nominal_size: Bytes,
    /// H, the header bytes the allowed rate accounts for (40 B).
    pub header: Bytes,
    /// The Min Interval between packets (10 ms).
    pub min_interval: Dur,
}

impl Default for SpConfig {
    fn default() -> Self {
        SpConfig { nominal_size: Bytes(1460), header: Bytes(40), min_interval: Dur::from_millis(10) }
    }
}

/// Both ends' settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TfrcConfig {
    /// The flow's id in its packets.
    pub flow: u32,
    pub flavor: Flavor,
    /// s: the application's bytes per packet, headers excluded (RFC 5348 §4.1).
    pub packet_size: Bytes,
    /// Bytes a data packet adds on the wire beyond s (ns-2 adds headersize_, 32).
    pub header_size: Bytes,
    /// A feedback packet's size on the wire (ns-2's TFRCSink: 40).
    pub feedback_size: Bytes,
    /// b, packets acknowledged per ACK in the equation (1 RECOMMENDED).
    pub b: f64,
    /// q, the weight of the old RTT estimate (and q2 of the sqrt-RTT mean): 0.9 RECOMMENDED;
    /// ns-2's df_ is 0.95.
    pub q: f64,
    /// §4.5's oscillation reduction (RECOMMENDED; ns-2's ca_, on).
    pub oscillation_reduction: bool,
    pub t_rto: RtoRule,
    /// The nofeedback timer in RTTs: max(k R, 2s/X); 4 in RFC 5348, 2 in ns-2.
    pub nofeedback_rtts: f64,
    /// Send ECN-capable (ECT(0)); marks count as losses at the receiver.
    pub ecn: bool,
    /// The receiver's loss history.
    pub loss: LossConfig,
    /// TFRC-SP (RFC 4828) instead of standard TFRC.
    pub sp: Option<SpConfig>,
    /// The rate the first RTT measurement sets (RFC 5348 flavour).
    pub initial_window: InitialWindow,
    /// The receiver's feedback timer (RFC 5348 §6.2); off, reports go when p rises and when its
    /// owner asks (CCID3's window counter rule, RFC 4342 §10.3).
    pub feedback_timer: bool,
    /// The sender of ns-2 2.35's Agent/DCCP/TFRC (dccp_tfrc.cc) in place of RFC 5348's rate
    /// rules (CCID3's `ns2` flavour): X limited by twice the latest X_recv alone, X_inst = X
    /// until the first loss and X's oscillation-reduced value after it (no floor), and its
    /// nofeedback timer's variant of RFC 3448 §4.4. The receiver seeds its first loss interval
    /// by ns-2's bisection. The rest (pacing included) as RFC 5348.
    pub dccp_ns2: bool,
}

impl TfrcConfig {
    /// RFC 5348's recommended settings.
    pub fn rfc5348() -> TfrcConfig {
        TfrcConfig {
            flow: 0,
            flavor: Flavor::Rfc5348,
            packet_size: Bytes(1000),
            header_size: Bytes(32),
            feedback_size: Bytes(40),
            b: 1.0,
            q: 0.9,
            oscillation_reduction: true,
            t_rto: RtoRule::FourR,
            nofeedback_rtts: 4.0,
            ecn: false,
            loss: LossConfig::default(),
            sp: None,
            initial_window: InitialWindow::Rfc3390,
            feedback_timer: true,
            dccp_ns2: false,
        }
    }

    /// ns-2 2.35's defaults (Agent/TFRC and Agent/TFRCSink in ns-default.tcl).
    pub fn ns2() -> TfrcConfig {
        TfrcConfig {
            flavor: Flavor::Ns2,
            q: 0.95,
            t_rto: RtoRule::Tcp { tick: Dur::from_millis(100) },
            nofeedback_rtts: 2.0,
            loss: LossConfig {
                ndupack: 1,
                discounting: true,
                discount_floor: 0.5,
                send_time_events: true,
                ns2_average: true,
                round_check: true,
                holes_before_first: false,
                ..LossConfig::default()
            },
            ..TfrcConfig::rfc5348()
        }
    }

    /// The defaults of `flavor`.
    pub fn for_flavor(flavor: Flavor) -> TfrcConfig {
        match flavor {
            Flavor::Rfc5348 => TfrcConfig::rfc5348(),
            Flavor::Ns2 => TfrcConfig::ns2(),
        }
    }

    /// Checks that the settings can work; names the field that cannot.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.packet_size.0 == 0 {
            return Err(ParamError::of("TFRC", "packet_size", "must be positive"));
        }
        if !(self.b >= 1.0 && self.b.is_finite()) {
            return Err(ParamError::of(
                "TFRC",
                "b",
                format!("{} is not a number of packets per ACK of at least 1", self.b),
            ));
        }
        if !(0.0..1.0).contains(&self.q) {
            return Err(ParamError::of("TFRC", "q", format!("{} is outside [0, 1)", self.q)));
        }
        if !(self.nofeedback_rtts >= 1.0 && self.nofeedback_rtts.is_finite()) {
            return Err(ParamError::of(
                "TFRC",
                "nofeedback_rtts",
                format!("{} is below one RTT", self.nofeedback_rtts),
            ));
        }
        if let RtoRule::Tcp { tick } = self.t_rto {
            if tick.is_zero() {
                return Err(ParamError::of("TFRC", "t_rto", "a TCP-style t_RTO needs a positive tick"));
            }
        }
        if self.loss.intervals == 0 || self.loss.intervals > 64 {
            return Err(ParamError::of("TFRC", "loss_intervals", format!("{} is outside 1..=64", self.loss.intervals)));
        }
        if self.loss.ndupack == 0 {
            return Err(ParamError::of("TFRC", "ndupack", "must be at least 1"));
        }
        if let Some(sp) = self.sp {
            if sp.nominal_size.0 == 0 {
                return Err(ParamError::of("TFRC", "nominal_size", "must be positive"));
            }
        }
        Ok(())
    }
}

/// A data packet (RFC 5348 §3.2.1), with what ns-2's header adds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TfrcData {
    pub flow: u32,
    pub seq: u64,
    /// ts_i: when it was sent, in whole microseconds as the wire carries it.
    pub ts: Time,
    /// R_i: the sender's RTT estimate (whole microseconds; zero before the first sample).
    pub rtt: Dur,
    /// The sender's t_RTO (ns-2's tzero, which its receiver inverts the equation with).
    pub t_rto: Dur,
    /// Feedback reports received plus nofeedback expiries (ns-2's round_id).
    pub round: u32,
    /// The sender has had no feedback since it started or since its nofeedback timer expired
    /// (ns-2's UrgentFlag: its receiver reports at once).
    pub urgent: bool,
}

/// A feedback packet (RFC 5348 §3.2.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TfrcFeedback {
    pub flow: u32,
    /// t_recvdata: the timestamp of the last data packet received.
    pub echo: Time,
    /// t_delay: from that packet's arrival to this report (whole microseconds).
    pub t_delay: Dur,
    /// X_recv, application bytes per second received over the last RTT.
    pub x_recv: f64,
    /// p, the loss event rate.
    pub p: f64,
    /// Loss events detected so far (lets the sender see a new event even when p did not rise).
    pub loss_events: u32,
}
