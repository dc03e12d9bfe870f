//! `transport = "iftp"`, `app = "iftp"`: elaarag2002's IFTP, TCP emulated by the gap between
//! unreliable datagrams. Keys are named after the paper's symbols; defaults are its §6.1 values.

use std::any::Any;
use std::sync::Arc;

use fairway_proto::iftp::{BackoffReset, IftpConfig, IftpReceiver, IftpSender, Reading};
use fairway_proto::Endpoint;
use serde::Serialize;

use super::{packet_size, Build, DatagramSpec, FlowContext, Load, ProtocolReport, Registration, ReportContext};
use crate::reader::{Res, Tbl};
use fairway_model::datagram::DatagramFlow;
use fairway_model::driver::FlowDriver;

pub(crate) const REGISTRATION: Registration =
    Registration { transport: "iftp", apps: &["iftp"], keys: &[IFTP_KEYS], series: &[], parse };

const IFTP_KEYS: &[&str] = &[
    "packet_size",
    "access_rate",
    "tau",
    "backoff_reset",
    "min_rto",
    "reading",
    "ssthresh",
    "w_max",
    "after_missing_thresh",
    "scale",
    "initial_rto",
    "max_backoff",
    "packets",
];

#[derive(Debug, Clone)]
struct IftpSpec {
    cfg: IftpConfig,
}

type IftpFlow = DatagramFlow<IftpSender, IftpReceiver>;

/// What IFTP's sender did (elaarag2002).
#[derive(Debug, Clone, Serialize)]
pub struct IftpSummary {
    /// The inter-packet gap G (G_m in extended mode), weighted by how long each value was in
    /// force, and its standard deviation (elaarag2002 Table I).
    pub mean_gap_s: Option<f64>,
    pub gap_sd_s: Option<f64>,
    /// The same, each packet counted once with the gap in force when it left.
    pub per_packet_mean_gap_s: Option<f64>,
    pub per_packet_gap_sd_s: Option<f64>,
    /// n, the window of standard-mode bookkeeping: at the end and at its largest.
    pub final_window: u32,
    pub max_window: u32,
    pub losses_detected: u64,
    pub timeouts: u64,
    /// Finite transfers: when the last packet was sent, and when its ACK came back.
    pub last_sent_s: Option<f64>,
    pub last_ack_s: Option<f64>,
}

fn parse(t: &Tbl, _app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    let mut cfg = parse_iftp(t)?;
    // tau, "the transmission time of a single packet" (elaarag2002 §3.1), is P x 8 over the rate of
    // the sender's access link (the first link of the route) unless the file says otherwise:
    // `access_rate` names the rate, `tau = "bottleneck"` takes the slowest link of the route.
    let which = match (t.get("tau"), t.get("access_rate")) {
        (Some(v), Some(_)) => {
            return Err(v.error("give `tau` or `access_rate`, not both (both set tau)"));
        }
        (Some(v), None) => match v.string()?.as_str() {
            "access" => Some(false),
            "bottleneck" => Some(true),
            other => {
                return Err(v.error(format!(
                    "unknown tau `{other}`: expected \"access\" or \"bottleneck\" (or give `access_rate`)"
                )))
            }
        },
        (None, Some(_)) => None,
        (None, None) => Some(false),
    };
    if let Some(bottleneck) = which {
        let rates = ctx.route_rates.iter().copied();
        let rate = if bottleneck { rates.min() } else { rates.into_iter().next() };
        if let Some(r) = rate {
            cfg.link_rate = r;
        }
    }
    Ok(Arc::new(IftpSpec { cfg }))
}

fn parse_iftp(t: &Tbl) -> Res<IftpConfig> {
    let mut c = IftpConfig::default();
    if let Some(v) = t.get("packet_size") {
        c.packet_size = packet_size(&v)?;
    }
    if let Some(v) = t.get("access_rate") {
        c.link_rate = v.rate_pos()?;
    }
    if let Some(v) = t.get("ssthresh") {
        c.ssthresh = v.u32_min(1)?;
    }
    if let Some(v) = t.get("w_max") {
        c.w_max = v.u32_min(1)?;
    }
    if let Some(v) = t.get("after_missing_thresh") {
        c.after_missing_thresh = v.u32_min(1)?;
    }
    if let Some(v) = t.get("scale") {
        c.scale = v.f64()?;
    }
    if let Some(v) = t.get("initial_rto") {
        c.initial_rto = v.dur_pos()?;
    }
    if let Some(v) = t.get("max_backoff") {
        c.max_backoff = v.u32_min(1)?;
    }
    if let Some(v) = t.get("backoff_reset") {
        let s = v.string()?;
        c.backoff_reset = BackoffReset::parse(&s)
            .ok_or_else(|| v.error(format!("unknown backoff_reset `{s}`: expected after_probe, ack or never")))?;
    }
    if let Some(v) = t.get("reading") {
        let s = v.string()?;
        c.reading = Reading::parse(&s).ok_or_else(|| {
            v.error(format!("unknown reading `{s}`: expected prose or figure1 (elaarag2002's Fig. 1 as written)"))
        })?;
    }
    if let Some(v) = t.get("min_rto") {
        c.min_rto = v.dur()?;
    }
    if let Some(v) = t.get("packets") {
        c.packets = Some(v.int_in(1, i64::MAX)? as u64);
    }
    c.validate().map_err(|e| match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(e.to_string()),
    })?;
    Ok(c)
}

impl DatagramSpec for IftpSpec {
    fn app(&self) -> &'static str {
        "iftp"
    }

    fn transport(&self) -> &'static str {
        "iftp"
    }

    /// tau comes from the route, which differs from flow to flow.
    fn per_route(&self) -> bool {
        true
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let cfg = IftpConfig { flow: b.flow, ..self.cfg.clone() };
        let snd = IftpSender::new(cfg).map_err(|e| e.to_string())?;
        Ok(Box::new(IftpFlow::new(snd, IftpReceiver::new(b.flow), b.wire)))
    }

    fn report(&self, drv: &dyn FlowDriver, ctx: &ReportContext) -> Option<ProtocolReport> {
        let x = drv.as_any().downcast_ref::<IftpFlow>()?;
        let g = x.snd.gap_summary(ctx.end);
        let st = x.snd.stats();
        Some(ProtocolReport::new(
            "iftp",
            IftpSummary {
                mean_gap_s: g.map(|g| g.mean.as_secs_f64()),
                gap_sd_s: g.map(|g| g.stdev.as_secs_f64()),
                per_packet_mean_gap_s: g.map(|g| g.per_packet_mean.as_secs_f64()),
                per_packet_gap_sd_s: g.map(|g| g.per_packet_stdev.as_secs_f64()),
                final_window: x.snd.window(),
                max_window: st.max_window,
                losses_detected: st.losses_detected,
                timeouts: st.timeouts,
                last_sent_s: x.snd.finished_at().map(|t| t.as_secs_f64()),
                last_ack_s: x.snd.last_ack_at().map(|t| t.as_secs_f64()),
            },
        ))
    }

    fn config(&self) -> &dyn Any {
        &self.cfg
    }

    /// A file transfer: as much as its pacing lets through.
    fn load(&self) -> Load {
        Load {
            packets_per_s: None,
            timers_per_s: 0.0,
            packet_size: self.cfg.packet_size,
            window: Some(self.cfg.w_max),
            total: self.cfg.packets,
            // A timeout and its retransmission at most every timer interval, which is at least
            // a round trip (elaarag2002 eq. (9)) and `min_rto`.
            timers_per_rtt: 2.0,
            feedback_per_rtt: 0.0,
            rtt_floor: self.cfg.min_rto,
        }
    }
}
