//! `transport = "ccid2"` and `"ccid3"`: DCCP (RFC 4340) with CCID2, TCP-like congestion control
//! (RFC 4341), or CCID3, TFRC (RFC 4342), carrying a greedy application (`app = "ftp"`) or one
//! that sets its own pace (`cbr`, `voip`, `video`: CCID2's client holds what the window does not
//! let out, up to `send_buffer` packets; CCID3's sends min(application rate, allowed rate) and
//! queues the rest, as TFRC does). For CCID2, `flavor = "ns2"` gives ns-2 2.35's
//! Agent/DCCP/TCPlike (docs/semantics.md, "DCCP"); the other keys override single settings.

use std::any::Any;
use std::sync::Arc;

use fairway_core::{Bytes, Rng};
use fairway_proto::dccp::{Ccid, Ccid2Config, DccpConfig, DccpReceiver, DccpSender, Flavor};
use fairway_proto::tcp::cc;
use fairway_proto::Endpoint;
use serde::Serialize;

use super::sources::{parse_source, SourceSpec, SOURCE_KEYS};
use super::tfrc::{parse_rate_keys, RATE_KEYS};
use super::{Build, DatagramSpec, FlowContext, Load, ProtocolReport, Registration, ReportContext};
use crate::reader::{Res, Tbl};
use fairway_model::datagram::DatagramFlow;
use fairway_model::driver::FlowDriver;

const APPS: &[&str] = &["ftp", "cbr", "voip", "video"];
pub(crate) const CCID2: Registration =
    Registration { transport: "ccid2", apps: APPS, keys: &[DCCP_KEYS, KEYS, SOURCE_KEYS], series: &[], parse };
pub(crate) const CCID3: Registration = Registration {
    transport: "ccid3",
    apps: APPS,
    keys: &[DCCP_KEYS, RATE_KEYS, SOURCE_KEYS],
    series: &[],
    parse: parse_ccid3,
};

/// The connection's keys, whichever CCID.
const DCCP_KEYS: &[&str] = &["flavor", "ecn", "request_rto", "ip_header"];

/// CCID2's.
const KEYS: &[&str] = &[
    "ack_ratio",
    "ack_ratio_control",
    "initial_cwnd",
    "initial_ssthresh",
    "numdupack",
    "initial_rto",
    "min_rto",
    "max_rto",
    "ack_delay",
    "send_buffer",
    "cc",
];

#[derive(Debug, Clone)]
struct DccpSpec {
    cfg: DccpConfig,
    app: &'static str,
    source: SourceSpec,
}

type DccpFlow = DatagramFlow<DccpSender, DccpReceiver>;

/// What CCID3's two ends did.
#[derive(Debug, Clone, Serialize)]
pub struct Ccid3Summary {
    /// `rfc4342` or `ns2`.
    pub flavor: &'static str,
    /// The allowed rate X at the end, bits per second of application data.
    pub final_rate_bps: f64,
    /// p as the sender last computed it from the Loss Intervals, and the receiver's at the end.
    pub p_reported: f64,
    pub p_final: f64,
    /// The sender's RTT (from Acknowledgement Numbers and Elapsed Time) and the receiver's
    /// estimate from window counters.
    pub rtt_s: Option<f64>,
    pub receiver_rtt_s: f64,
    pub loss_events: u64,
    pub lost_or_marked_pkts: u64,
    pub feedback_sent: u64,
    pub feedback_received: u64,
    pub nofeedback_expiries: u64,
    pub requests_sent: u64,
}

/// What CCID2's two ends did.
#[derive(Debug, Clone, Serialize)]
pub struct Ccid2Summary {
    pub flavor: &'static str,
    pub cwnd_pkts: u32,
    pub ssthresh_pkts: u32,
    pub ack_ratio: u32,
    pub srtt_s: Option<f64>,
    pub rto_s: f64,
    pub congestion_events: u64,
    pub lost_pkts: u64,
    pub marked_pkts: u64,
    pub timeouts: u64,
    pub acks_sent: u64,
    pub acks_lost: u64,
    pub requests_sent: u64,
    /// Application packets dropped at a full send buffer, and those still in it at the end.
    pub buffer_drops_pkts: u64,
    pub backlog_pkts: u64,
    /// Ack Vectors whose ECN Nonce Echo the client checked (with `ecn`), and those that failed.
    pub nonce_checks: u64,
    pub nonce_failures: u64,
}

fn parse(t: &Tbl, app: &str, _ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    let (mut cfg, app, source) = parse_flavor_and_source(t, app, "rfc4341")?;
    let flavor = cfg.flavor;
    if flavor == Flavor::Rfc4341 {
        // RFC 4341 §5: RFC 3390's first window for the application's packet size.
        cfg.ccid2.initial_cwnd = Ccid2Config::rfc3390_window(source.packet_size().0);
    }
    let c = &mut cfg.ccid2;
    if let Some(v) = t.get("ecn") {
        cfg.ecn = v.bool()?;
    }
    if let Some(v) = t.get("ack_ratio") {
        c.ack_ratio = v.int_in(1, 65535)? as u32;
    }
    if let Some(v) = t.get("ack_ratio_control") {
        c.ack_ratio_control = v.bool()?;
    }
    if let Some(v) = t.get("initial_cwnd") {
        c.initial_cwnd = super::window_pkts(&v, 1)?;
    }
    if let Some(v) = t.get("initial_ssthresh") {
        c.initial_ssthresh = v.u32_min(2)?;
    }
    if let Some(v) = t.get("numdupack") {
        c.numdupack = v.u32_min(1)?;
    }
    if let Some(v) = t.get("initial_rto") {
        c.initial_rto = v.dur_pos()?;
    }
    if let Some(v) = t.get("min_rto") {
        c.min_rto = v.dur()?;
    }
    if let Some(v) = t.get("max_rto") {
        c.max_rto = v.dur_pos()?;
    }
    if let Some(v) = t.get("ack_delay") {
        cfg.ack_delay = v.dur_pos()?;
    }
    if let Some(v) = t.get("send_buffer") {
        cfg.send_buffer = v.int_in(1, i64::MAX)? as u64;
    }
    if let Some(v) = t.get("cc") {
        // The window's congestion control (docs/scenarios.md): RFC 4341 §5's by default.
        let name = v.string()?;
        let ccs = ccid2_ccs();
        let Some(known) = ccs.iter().find(|a| **a == name) else {
            return Err(v.error(format!("unknown cc `{name}` for ccid2: expected {}", ccs.join(", "))));
        };
        cfg.ccid2.cc = known;
    }
    parse_connection_keys(t, &mut cfg)?;
    Ok(Arc::new(DccpSpec { cfg, app, source }))
}

/// The TCP congestion controls CCID2's window can run, in their default flavour: those that need
/// no delivery-rate samples (CCID2 takes none, so BBR is not among them).
fn ccid2_ccs() -> Vec<&'static str> {
    let tcp = fairway_proto::tcp::TcpConfig::default();
    cc::ALGORITHMS.iter().filter(|a| !(a.build)(&tcp).wants_rate_samples()).map(|a| a.name).collect()
}

/// `transport = "ccid3"`: RFC 4342's CCID3 on RFC 5348's TFRC, s the application's packet size.
fn parse_ccid3(t: &Tbl, app: &str, _ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    let (cfg, app, source) = parse_flavor_and_source(t, app, "rfc4342")?;
    let mut cfg = DccpConfig { ccid: Ccid::Three, ..cfg };
    cfg.ccid3.packet_size = source.packet_size();
    parse_rate_keys(t, &mut cfg.ccid3)?;
    if let Some(v) = t.get("ecn") {
        cfg.ecn = v.bool()?;
    }
    parse_connection_keys(t, &mut cfg)?;
    Ok(Arc::new(DccpSpec { cfg, app, source }))
}

/// `flavor` (`rfc_name`, the default, or `ns2`), its settings, and the application (ns-2's FTP
/// sends its agents' 500 B packets).
fn parse_flavor_and_source(t: &Tbl, app: &str, rfc_name: &str) -> Res<(DccpConfig, &'static str, SourceSpec)> {
    let flavor = match t.get("flavor") {
        Some(v) => {
            let s = v.string()?;
            match s.as_str() {
                "ns2" => Flavor::Ns2,
                s if s == rfc_name => Flavor::Rfc4341,
                _ => return Err(v.error(format!("unknown flavor `{s}`: expected {rfc_name} or ns2"))),
            }
        }
        None => Flavor::Rfc4341,
    };
    let cfg = DccpConfig::for_flavor(flavor);
    let app = APPS.iter().copied().find(|a| *a == app).expect("a registered app");
    let mut source = parse_source(t, app)?;
    if let (Flavor::Ns2, SourceSpec::Greedy { packet_size, .. }) = (flavor, &mut source) {
        if !t.has("packet_size") {
            // ns-2's Agent/DCCP packetSize_.
            *packet_size = Bytes(500);
        }
    }
    Ok((cfg, app, source))
}

/// [`DCCP_KEYS`] but `ecn`, then the whole configuration's check (an error names its key).
fn parse_connection_keys(t: &Tbl, cfg: &mut DccpConfig) -> Res<()> {
    if let Some(v) = t.get("request_rto") {
        cfg.request_rto = v.dur_pos()?;
    }
    if let Some(v) = t.get("ip_header") {
        if cfg.flavor == Flavor::Ns2 {
            return Err(
                v.error("ns-2's header sizes already hold its 20 bytes of IP: `ip_header` is for flavor rfc4341")
            );
        }
        cfg.ip_header = super::header_bytes(&v)?;
    }
    cfg.validate().map_err(|e| match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(e.to_string()),
    })
}

impl DatagramSpec for DccpSpec {
    fn app(&self) -> &'static str {
        self.app
    }

    /// Its own class: dccp-ns2 compares TCP, CCID2 and CCID3.
    fn class(&self) -> &'static str {
        self.transport()
    }

    fn transport(&self) -> &'static str {
        match self.cfg.ccid {
            Ccid::Two => "ccid2",
            Ccid::Three => "ccid3",
        }
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let cfg = DccpConfig { flow: b.flow, ..self.cfg.clone() };
        let source = self.source.build(b.seed, b.name);
        let rng = Rng::stream(b.seed, &format!("{}:{}", self.transport(), b.name));
        let snd = DccpSender::new(cfg.clone(), source, rng).map_err(|e| e.to_string())?;
        let rcv = DccpReceiver::new(cfg).map_err(|e| e.to_string())?;
        Ok(Box::new(DccpFlow::new(snd, rcv, b.wire)))
    }

    fn report(&self, drv: &dyn FlowDriver, ctx: &ReportContext) -> Option<ProtocolReport> {
        let f = drv.as_any().downcast_ref::<DccpFlow>()?;
        let (s, r) = (f.snd.stats(), f.rcv.stats());
        if self.cfg.ccid == Ccid::Three {
            let c = s.ccid3;
            let t = f.rcv.ccid3_stats().unwrap_or_default();
            return Some(ProtocolReport::new(
                "ccid3",
                Ccid3Summary {
                    flavor: if self.cfg.flavor == Flavor::Ns2 { "ns2" } else { "rfc4342" },
                    final_rate_bps: c.rate * 8.0,
                    p_reported: c.p,
                    p_final: f.rcv.ccid3_p(ctx.end),
                    rtt_s: c.rtt.map(|d| d.as_secs_f64()),
                    receiver_rtt_s: f.rcv.ccid3_rtt().as_secs_f64(),
                    loss_events: t.loss_events,
                    lost_or_marked_pkts: t.lost_or_marked,
                    feedback_sent: r.acks_sent,
                    feedback_received: c.feedback_received,
                    nofeedback_expiries: c.nofeedback_expiries,
                    requests_sent: s.requests_sent,
                },
            ));
        }
        let c = s.ccid2;
        Some(ProtocolReport::new(
            "ccid2",
            Ccid2Summary {
                flavor: self.cfg.flavor.name(),
                cwnd_pkts: c.cwnd,
                ssthresh_pkts: c.ssthresh,
                ack_ratio: c.ack_ratio,
                srtt_s: c.srtt.map(|d| d.as_secs_f64()),
                rto_s: c.rto.as_secs_f64(),
                congestion_events: c.congestion_events,
                lost_pkts: c.lost,
                marked_pkts: c.marked,
                timeouts: c.timeouts,
                acks_sent: r.acks_sent,
                acks_lost: c.acks_lost,
                requests_sent: s.requests_sent,
                buffer_drops_pkts: s.buffer_drops,
                backlog_pkts: s.backlog,
                nonce_checks: s.nonce_checks,
                nonce_failures: s.nonce_failures,
            },
        ))
    }

    fn config(&self) -> &dyn Any {
        &self.cfg
    }

    /// The source's, and per round trip CCID3's feedback and no-feedback timers (RFC 4342
    /// §6, §5), or CCID2's acknowledgement timer.
    fn load(&self) -> Load {
        self.source.load_under_transport(2.0)
    }
}
