//! `transport = "udpm"`, `app = "mapp"`: kadhum2015's media-scaling application over UDPm, with
//! chung-dcbt §5's receiver rule. `scales` is a preset ("kadhum2015": ten levels, "chung": seed
//! 003's five) or a list of rates; `pacing` is "constant_size" (one `packet_size` datagram per
//! frame, the interval changing with the scale) or "constant_rate" (one frame per `interval`, its
//! size changing, split into datagrams of at most `packet_size`).

use std::any::Any;
use std::sync::Arc;

use fairway_core::{Bytes, Rate, Rng, Time};
use fairway_proto::mapp::{MappConfig, MappReceiver, MappSender, Pacing, ScaleTable};
use fairway_proto::Endpoint;
use serde::Serialize;

use super::{
    packet_size, parse_class, Build, DatagramSpec, FlowContext, Load, ProtocolReport, Registration, ReportContext,
    CLASS_KEYS,
};
use crate::reader::{Res, Tbl};
use fairway_model::datagram::{DatagramFlow, Series};
use fairway_model::driver::FlowDriver;
use fairway_model::results::SeriesInfo;

pub(crate) const REGISTRATION: Registration =
    Registration { transport: "udpm", apps: &["mapp"], keys: &[MAPP_KEYS, CLASS_KEYS], series: &[SCALE.info], parse };

/// The sender's media scale, reported by every app on MApp's endpoints: at the end of each bin
/// (flows.csv's `scale`) and at every change (scale.csv, scale.svg).
pub(super) const SCALE: Series<MappSender, MappReceiver> = Series {
    info: SeriesInfo { name: "scale", title: "MApp media scale", decimals: 0 },
    value: |s, _| f64::from(s.scale()),
    log: Some(|s, _| s.scale_log().iter().map(|&(t, v)| (t, f64::from(v))).collect()),
};

const MAPP_KEYS: &[&str] = &[
    "scales",
    "pacing",
    "packet_size",
    "interval",
    "jitter",
    "ecn",
    "initial_rtt",
    "toi_alpha",
    "idle_limit",
    "reassembly_window",
    "flow_control",
];

/// A flow of MApp's endpoints, under the name the scenario gave its app (kadhum2015's `mapp`,
/// chung-dcbt's `mm_app` and `mpeg_app`).
#[derive(Debug, Clone)]
pub(super) struct MappSpec {
    pub cfg: MappConfig,
    pub app: &'static str,
    pub transport: &'static str,
}

type MappFlow = DatagramFlow<MappSender, MappReceiver>;

/// What MApp's two ends saw.
#[derive(Debug, Clone, Serialize)]
pub struct MappSummary {
    pub final_scale: u8,
    /// The sender's scale averaged over the flow's active time.
    pub mean_scale: f64,
    /// Scale changes as the sender applied them.
    pub scale_decreases: u64,
    pub scale_increases: u64,
    /// Receive timeouts (chung-dcbt §5's TOI) at the receiver.
    pub receiver_timeouts: u64,
    /// Datagrams the receiver found missing (sequence gaps) and found CE-marked.
    pub lost_pkts_seen: u64,
    pub marked_pkts_seen: u64,
    pub frames_complete: u64,
    pub frames_lost: u64,
    pub feedback_sent: u64,
}

fn parse(t: &Tbl, _app: &str, _ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    let table = match t.get("scales") {
        None => ScaleTable::kadhum2015(),
        Some(v) if v.is_str() => match v.string()?.as_str() {
            "kadhum2015" => ScaleTable::kadhum2015(),
            "chung" => ScaleTable::chung_mm_app(),
            other => {
                return Err(
                    v.error(format!("unknown scale table `{other}`: expected kadhum2015, chung or a list of rates"))
                )
            }
        },
        Some(v) => {
            let rates = v
                .strings()?
                .iter()
                .map(|r| Rate::parse(r).map_err(|e| v.error(e.to_string())))
                .collect::<Res<Vec<Rate>>>()?;
            ScaleTable::new(rates).map_err(|e| v.error(e.to_string()))?
        }
    };
    let packet_size = match t.get("packet_size") {
        Some(v) => packet_size(&v)?,
        None => Bytes(1000), // kadhum2015 Table 1: "FTP/MApp packet size 1000 bytes"
    };
    let pacing = match t.get("pacing") {
        None => Pacing::ConstantSize { packet_size },
        Some(v) => match v.string()?.as_str() {
            "constant_size" => Pacing::ConstantSize { packet_size },
            "constant_rate" => {
                let interval = t.req("interval")?.dur_pos()?;
                Pacing::ConstantRate { interval, max_datagram: packet_size }
            }
            other => return Err(v.error(format!("unknown pacing `{other}`: expected constant_size or constant_rate"))),
        },
    };
    if matches!(pacing, Pacing::ConstantSize { .. }) {
        if let Some(v) = t.get("interval") {
            return Err(v.error("`interval` applies to pacing = \"constant_rate\" only"));
        }
    }
    let mut cfg = MappConfig { table, pacing, ..MappConfig::default() };
    if let Some(v) = t.get("jitter") {
        cfg.jitter = v.bool()?;
    }
    parse_receiver_keys(t, &mut cfg)?;
    Ok(Arc::new(MappSpec { cfg, app: "mapp", transport: "udpm" }))
}

/// The keys every app on MApp's endpoints reads beside its stream's, then the whole
/// configuration's check (an error names its key).
pub(super) fn parse_receiver_keys(t: &Tbl, cfg: &mut MappConfig) -> Res<()> {
    if let Some(v) = t.get("flow_control") {
        cfg.flow_control = v.bool()?;
    }
    if let Some(v) = t.get("ecn") {
        cfg.ect = v.bool()?;
    }
    cfg.multimedia_tag = parse_class(t, cfg.multimedia_tag)?;
    if let Some(v) = t.get("initial_rtt") {
        cfg.initial_rtt = v.dur_pos()?;
    }
    if let Some(v) = t.get("toi_alpha") {
        cfg.toi_alpha = v.f64()?;
    }
    if let Some(v) = t.get("idle_limit") {
        cfg.idle_limit = v.u32_min(1)?;
    }
    if let Some(v) = t.get("reassembly_window") {
        cfg.reassembly_window = v.u32_min(1)?;
    }
    cfg.validate().map_err(|e| match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(e.to_string()),
    })
}

impl DatagramSpec for MappSpec {
    fn app(&self) -> &'static str {
        self.app
    }

    fn transport(&self) -> &'static str {
        self.transport
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let cfg = MappConfig { flow: b.flow, ..self.cfg.clone() };
        let rng = Rng::stream(b.seed, &format!("{}:{}", self.app, b.name));
        let snd = MappSender::new(cfg.clone(), rng).map_err(|e| e.to_string())?;
        let rcv = MappReceiver::new(cfg).map_err(|e| e.to_string())?;
        Ok(Box::new(MappFlow::new(snd, rcv, b.wire).with_series(&[SCALE])))
    }

    fn report(&self, drv: &dyn FlowDriver, ctx: &ReportContext) -> Option<ProtocolReport> {
        let m = drv.as_any().downcast_ref::<MappFlow>()?;
        let (log, rcv) = (m.snd.scale_log(), m.rcv.stats());
        Some(ProtocolReport::new(
            self.app,
            MappSummary {
                final_scale: log.last().map_or(0, |(_, s)| *s),
                mean_scale: time_weighted_mean(log, ctx.start, ctx.stop),
                scale_decreases: log.windows(2).filter(|w| w[1].1 < w[0].1).count() as u64,
                scale_increases: log.windows(2).filter(|w| w[1].1 > w[0].1).count() as u64,
                receiver_timeouts: rcv.timeouts,
                lost_pkts_seen: rcv.lost,
                marked_pkts_seen: rcv.marked,
                frames_complete: rcv.frames_complete,
                frames_lost: rcv.frames_lost,
                feedback_sent: rcv.feedback_sent,
            },
        ))
    }

    fn config(&self) -> &dyn Any {
        &self.cfg
    }

    /// At the top scale: one packet per frame of constant size, a frame's datagrams every
    /// interval, or an MPEG slot's largest frame in datagrams every slot; the receiver's
    /// report every round trip (kadhum2015 §2.2), its timer with it.
    fn load(&self) -> Load {
        let top = self.cfg.table.rate(self.cfg.table.top()).0 as f64;
        let per_s = |d: fairway_core::Dur| 1e9 / d.0.max(1) as f64;
        let datagrams = |bytes: f64, max: Bytes| (bytes / max.0.max(1) as f64).ceil() + 1.0;
        match &self.cfg.pacing {
            Pacing::ConstantSize { packet_size } => Load {
                packets_per_s: Some(top / (8.0 * packet_size.0.max(1) as f64)),
                timers_per_s: 0.0,
                packet_size: *packet_size,
                window: None,
                total: None,
                timers_per_rtt: 1.0,
                feedback_per_rtt: 1.0,
                rtt_floor: fairway_core::Dur::ZERO,
            },
            Pacing::ConstantRate { interval, max_datagram } => {
                let frame = top * interval.as_secs_f64() / 8.0;
                Load {
                    packets_per_s: Some(per_s(*interval) * datagrams(frame, *max_datagram)),
                    timers_per_s: per_s(*interval),
                    packet_size: *max_datagram,
                    window: None,
                    total: None,
                    timers_per_rtt: 1.0,
                    feedback_per_rtt: 1.0,
                    rtt_floor: fairway_core::Dur::ZERO,
                }
            }
            Pacing::Mpeg(gop) => {
                let largest = gop.sizes.iter().map(|b| b.0).max().unwrap_or(0) as f64;
                Load {
                    packets_per_s: Some(per_s(gop.slot) * datagrams(largest, gop.max_datagram)),
                    timers_per_s: per_s(gop.slot),
                    packet_size: gop.max_datagram,
                    window: None,
                    total: None,
                    timers_per_rtt: 1.0,
                    feedback_per_rtt: 1.0,
                    rtt_floor: fairway_core::Dur::ZERO,
                }
            }
        }
    }
}

/// The mean of a step function given by (time, value) changes, over [from, to].
fn time_weighted_mean(log: &[(Time, u8)], from: Time, to: Time) -> f64 {
    let span = (to - from).as_secs_f64();
    if span <= 0.0 || log.is_empty() {
        return log.last().map_or(0.0, |(_, s)| *s as f64);
    }
    let mut area = 0.0;
    for (i, (t, v)) in log.iter().enumerate() {
        let a = (*t).max(from);
        let b = log.get(i + 1).map_or(to, |(n, _)| *n).min(to);
        if b > a {
            area += *v as f64 * (b - a).as_secs_f64();
        }
    }
    area / span
}
