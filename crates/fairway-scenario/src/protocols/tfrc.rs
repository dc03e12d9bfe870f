//! `transport = "tfrc"` and `"tfrc-sp"`: TFRC (RFC 5348) and TFRC-SP (RFC 4828) carrying a
//! greedy application (`app = "ftp"`, ns-2's default infinite sender) or one that sets its own
//! pace (`cbr`, `voip`, `video`: the sender is application-limited, sending min(app rate,
//! allowed rate) and queueing the rest, as ns-2's SndrType_ 1). `flavor = "ns2"` gives ns-2 2.35's Agent/TFRC
//! and Agent/TFRCSink (docs/semantics.md, "TFRC"); the other keys override single settings.

use std::any::Any;
use std::sync::Arc;

use fairway_proto::tfrc::{Flavor, RtoRule, SpConfig, TfrcConfig, TfrcReceiver, TfrcSender};
use fairway_proto::Endpoint;
use serde::Serialize;

use super::sources::{parse_source, SourceSpec, SOURCE_KEYS};
use super::{packet_size, Build, DatagramSpec, FlowContext, Load, ProtocolReport, Registration, ReportContext};
use crate::reader::{Res, Tbl};
use fairway_model::datagram::DatagramFlow;
use fairway_model::driver::FlowDriver;

const APPS: &[&str] = &["ftp", "cbr", "voip", "video"];

pub(crate) const TFRC: Registration =
    Registration { transport: "tfrc", apps: APPS, keys: &[KEYS, RATE_KEYS, SOURCE_KEYS], series: &[], parse };
pub(crate) const TFRC_SP: Registration = Registration {
    transport: "tfrc-sp",
    apps: APPS,
    keys: &[KEYS, RATE_KEYS, SOURCE_KEYS],
    series: &[],
    parse: parse_sp,
};

const KEYS: &[&str] =
    &["flavor", "packet_size", "header_size", "feedback_size", "ecn", "nominal_size", "sp_header", "min_interval"];

/// The keys of TFRC's rate control and loss history, which CCID3 shares.
pub(super) const RATE_KEYS: &[&str] =
    &["q", "oscillation_reduction", "t_rto", "nofeedback_rtts", "loss_intervals", "ndupack", "discounting"];

#[derive(Debug, Clone)]
struct TfrcSpec {
    cfg: TfrcConfig,
    app: &'static str,
    source: SourceSpec,
    sp: bool,
}

type TfrcFlow = DatagramFlow<TfrcSender, TfrcReceiver>;

/// What TFRC's two ends did.
#[derive(Debug, Clone, Serialize)]
pub struct TfrcSummary {
    pub flavor: &'static str,
    /// The allowed rate X at the end, bits per second of application data.
    pub final_rate_bps: f64,
    /// The loss event rate the receiver last reported, and its own at the end.
    pub p_reported: f64,
    pub p_final: f64,
    pub rtt_s: Option<f64>,
    pub loss_events: u64,
    pub lost_or_marked_pkts: u64,
    pub feedback_sent: u64,
    pub feedback_received: u64,
    pub nofeedback_expiries: u64,
    /// Application packets still waiting at the end (application-limited senders).
    pub backlog_pkts: u64,
}

fn parse(t: &Tbl, app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    parse_any(t, app, ctx, false)
}

fn parse_sp(t: &Tbl, app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    parse_any(t, app, ctx, true)
}

fn parse_any(t: &Tbl, app: &str, _ctx: &FlowContext, sp: bool) -> Res<Arc<dyn DatagramSpec>> {
    let flavor = match t.get("flavor") {
        Some(v) => {
            let s = v.string()?;
            Flavor::parse(&s).ok_or_else(|| v.error(format!("unknown flavor `{s}`: expected rfc5348 or ns2")))?
        }
        None => Flavor::Rfc5348,
    };
    let mut cfg = TfrcConfig::for_flavor(flavor);
    let app = APPS.iter().copied().find(|a| *a == app).expect("a registered app");
    let source = parse_source(t, app)?;
    // s is the application's packet size.
    cfg.packet_size = source.packet_size();
    if let Some(v) = t.get("header_size") {
        cfg.header_size = super::header_bytes(&v)?;
    }
    if let Some(v) = t.get("feedback_size") {
        cfg.feedback_size = packet_size(&v)?;
    }
    if let Some(v) = t.get("ecn") {
        cfg.ecn = v.bool()?;
    }
    parse_rate_keys(t, &mut cfg)?;
    let sp_keys = ["nominal_size", "sp_header", "min_interval"];
    if sp {
        let mut c = SpConfig::default();
        if let Some(v) = t.get("nominal_size") {
            c.nominal_size = packet_size(&v)?;
        }
        if let Some(v) = t.get("sp_header") {
            c.header = super::header_bytes(&v)?;
        }
        if let Some(v) = t.get("min_interval") {
            c.min_interval = v.dur()?;
        }
        cfg.sp = Some(c);
        // RFC 4828 §3: short loss intervals count their losses.
        cfg.loss.count_losses_in_short_intervals = true;
    } else if let Some(k) = sp_keys.iter().find(|k| t.has(k)) {
        return Err(t.req(k)?.error(format!("`{k}` is a TFRC-SP setting: use transport = \"tfrc-sp\"")));
    }
    cfg.validate().map_err(|e| match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(e.to_string()),
    })?;
    Ok(Arc::new(TfrcSpec { cfg, app, source, sp }))
}

/// Reads [`RATE_KEYS`] into `cfg`.
pub(super) fn parse_rate_keys(t: &Tbl, cfg: &mut TfrcConfig) -> Res<()> {
    if let Some(v) = t.get("q") {
        cfg.q = v.f64()?;
    }
    if let Some(v) = t.get("oscillation_reduction") {
        cfg.oscillation_reduction = v.bool()?;
    }
    if let Some(v) = t.get("t_rto") {
        cfg.t_rto = match v.string()?.as_str() {
            "4r" => RtoRule::FourR,
            "4r_min_1s" => RtoRule::FourRAtLeastOneSecond,
            "tcp" => RtoRule::Tcp { tick: fairway_core::Dur::from_millis(100) },
            other => return Err(v.error(format!("unknown t_rto `{other}`: expected 4r, 4r_min_1s or tcp"))),
        };
    }
    if let Some(v) = t.get("nofeedback_rtts") {
        cfg.nofeedback_rtts = v.f64()?;
    }
    if let Some(v) = t.get("loss_intervals") {
        cfg.loss.intervals = v.int_in(1, 64)? as usize;
    }
    if let Some(v) = t.get("ndupack") {
        cfg.loss.ndupack = v.u32_min(1)?;
    }
    if let Some(v) = t.get("discounting") {
        cfg.loss.discounting = v.bool()?;
    }
    Ok(())
}

impl DatagramSpec for TfrcSpec {
    fn app(&self) -> &'static str {
        self.app
    }

    /// Its own class: janani-tfrc compares TFRC with TCP and with UDP.
    fn class(&self) -> &'static str {
        "tfrc"
    }

    fn transport(&self) -> &'static str {
        if self.sp {
            "tfrc-sp"
        } else {
            "tfrc"
        }
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let cfg = TfrcConfig { flow: b.flow, ..self.cfg.clone() };
        let source = self.source.build(b.seed, b.name);
        let snd = TfrcSender::new(cfg.clone(), source).map_err(|e| e.to_string())?;
        let rcv = TfrcReceiver::new(cfg).map_err(|e| e.to_string())?;
        Ok(Box::new(TfrcFlow::new(snd, rcv, b.wire)))
    }

    fn report(&self, drv: &dyn FlowDriver, ctx: &ReportContext) -> Option<ProtocolReport> {
        let f = drv.as_any().downcast_ref::<TfrcFlow>()?;
        let (s, r) = (f.snd.stats(), f.rcv.stats());
        Some(ProtocolReport::new(
            if self.sp { "tfrc_sp" } else { "tfrc" },
            TfrcSummary {
                flavor: self.cfg.flavor.name(),
                final_rate_bps: s.rate * 8.0,
                p_reported: s.p,
                p_final: f.rcv.loss_event_rate(ctx.end),
                rtt_s: s.rtt.map(|d| d.as_secs_f64()),
                loss_events: r.loss_events,
                lost_or_marked_pkts: r.lost_or_marked,
                feedback_sent: r.feedback_sent,
                feedback_received: s.feedback_received,
                nofeedback_expiries: s.nofeedback_expiries,
                backlog_pkts: s.backlog,
            },
        ))
    }

    fn config(&self) -> &dyn Any {
        &self.cfg
    }

    /// The source's, and per round trip the receiver's feedback timer and the sender's
    /// no-feedback timer (RFC 5348 §6.2, §4.4).
    fn load(&self) -> Load {
        self.source.load_under_transport(2.0)
    }
}
