//! `transport = "rtp"`: RTP media with RFC 8888 feedback and an RMCAT congestion controller
//! (`cc = "nada"`, `"scream"` or `"gcc"`), carrying RFC 8593 §5's synthetic video encoder or its §6
//! trace-driven one (`app = "video"`).
//!
//! Keys beside the common ones:
//! - `cc`: the controller, required;
//! - `min_rate`, `max_rate`: the content's range (RFC 8593's R_min and R_max, NADA's RMIN and
//!   RMAX, GCC's minimum and maximum bitrate): the encoder clips its media rate to it and the
//!   controller its wire rate, the RTP header's 1.7% of a full packet aside (150 kb/s and
//!   1.5 Mb/s, RFC 8698 Table 2 and RFC 8593 Figure 2);
//! - `start_rate`: where the controller starts (RFC 8867 §4.3: 150 kb/s), `min_rate` by default;
//!   NADA always starts at RMIN (RFC 8698 §4.3) and takes no `start_rate`;
//! - `fps`, `tau_v`, `burst_frames`, `burst_size`, `scale_t`, `scale_b`: the rest of RFC 8593
//!   Figure 2 (its example values by default);
//! - `trace`: a trace file ([`crate::video_trace`]'s CSV), its path relative to the scenario
//!   file's folder: the flow carries RFC 8593 §6's trace-driven encoder instead, its frames of
//!   the sizes the trace gives at the target rate. The file is read once, as the scenario is;
//!   a built-in scenario has no folder and is refused (run it from a file). `skip_frames`
//!   (20, §6.2.1's SkipFrames) goes with it; `fps` (30) stays, `tau_v` too but 0 by default
//!   (§6.2.1 has no reaction latency: [`fairway_proto::rtp::trace`]), `min_rate` and
//!   `max_rate` still clip the target; the synthetic encoder's `burst_*` and `scale_*` are
//!   refused;
//! - `packet_size`: the largest media payload per packet (1200 bytes);
//! - `feedback_interval`: a duration, or `"media-rate"` for RFC 8298 §4.2.2's rule; by default
//!   the controller's (NADA: DELTA, 100 ms; SCReAM: RFC 8298 §4.2.2's media-rate rule; GCC:
//!   100 ms, WebRTC's transport-feedback interval);
//! - `couple`: a name; the flows that give the same one are a coupled group (RFC 8699's flow
//!   group): their controllers share their rates through one flow state exchange
//!   ([`fairway_proto::rtp::fse`]), by priority. All of a group's flows start at one node (the
//!   RFC couples the flows of one sender: the parser refuses others);
//! - `prio`: the flow's weight: in a coupled group its FSE priority P(f) (RFC 8699 §5.2), any
//!   controller; uncoupled, NADA's PRIO (RFC 8698 §4.3), NADA only (RFC 8867 §6.1 asks for
//!   either);
//! - `ecn`, `class`.

use std::any::Any;
use std::path::Path;
use std::sync::{Arc, Mutex};

use fairway_core::{Bytes, Dur, Rng, Time};
use fairway_proto::rtp::fse::{Fse, FseMember};
use fairway_proto::rtp::gcc::{Gcc, GccConfig};
use fairway_proto::rtp::media::MediaSource;
use fairway_proto::rtp::nada::{Nada, NadaConfig};
use fairway_proto::rtp::scream::{Scream, ScreamConfig};
use fairway_proto::rtp::synthetic::{SyntheticCodec, SyntheticCodecConfig};
use fairway_proto::rtp::trace::{TraceCodec, TraceCodecConfig, Traces};
use fairway_proto::rtp::{
    FeedbackInterval, RateController, RtpReceiver, RtpReceiverConfig, RtpSender, RtpSenderConfig,
};
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
    Registration { transport: "rtp", apps: &["video"], keys: &[KEYS, CLASS_KEYS], series: &[TARGET.info], parse };

/// The controller's target rate (RFC 8868 §3's sending rate as the controller sets it): at the
/// end of each bin (flows.csv's `target_bps`) and at every change (target_bps.csv and .svg).
const TARGET: Series<RtpSender, RtpReceiver> = Series {
    info: SeriesInfo { name: "target_bps", title: "RTP media target rate (b/s)", decimals: 0 },
    value: |s, _| s.target(),
    log: Some(|s, _| s.target_log().to_vec()),
};

const KEYS: &[&str] = &[
    "cc",
    "start_rate",
    "min_rate",
    "max_rate",
    "fps",
    "tau_v",
    "burst_frames",
    "burst_size",
    "scale_t",
    "scale_b",
    "trace",
    "skip_frames",
    "packet_size",
    "feedback_interval",
    "couple",
    "prio",
    "ecn",
];

/// The controllers `cc` names.
const CONTROLLERS: &[&str] = &["nada", "scream", "gcc"];

/// A controller's settings, checked.
#[derive(Debug, Clone)]
enum CcSpec {
    Nada(NadaConfig),
    Scream(ScreamConfig),
    Gcc(GccConfig),
}

impl CcSpec {
    fn name(&self) -> &'static str {
        match self {
            CcSpec::Nada(_) => "nada",
            CcSpec::Scream(_) => "scream",
            CcSpec::Gcc(_) => "gcc",
        }
    }

    fn build(&self) -> Result<Box<dyn RateController>, String> {
        Ok(match self {
            CcSpec::Nada(c) => Box::new(Nada::new(c.clone())?),
            CcSpec::Scream(c) => Box::new(Scream::new(c.clone())?),
            CcSpec::Gcc(c) => Box::new(Gcc::new(*c)?),
        })
    }

    /// The feedback interval the controller's document recommends.
    fn default_interval(&self) -> FeedbackInterval {
        match self {
            // RFC 8698 §5.3: DELTA = 100 ms.
            CcSpec::Nada(c) => FeedbackInterval::Fixed(Dur::from_secs_f64(c.delta / 1e3)),
            CcSpec::Scream(_) => FeedbackInterval::MediaRate,
            // WebRTC sends transport feedback every 100 ms by default.
            CcSpec::Gcc(_) => FeedbackInterval::Fixed(Dur::from_millis(100)),
        }
    }
}

/// The keys of RFC 8593 §5's statistical model that a trace replaces (§6 takes frame sizes, and
/// so their fluctuation and any burst, from the encoder that made the trace).
const SYNTHETIC_ONLY: &[&str] = &["burst_frames", "burst_size", "scale_t", "scale_b"];

/// The encoder a flow carries.
#[derive(Debug, Clone)]
enum Codec {
    /// RFC 8593 §5.
    Synthetic(SyntheticCodecConfig),
    /// RFC 8593 §6, with the map its file gave.
    Trace(TraceCodecConfig, Arc<Traces>),
}

#[derive(Debug, Clone)]
struct RtpSpec {
    cc: CcSpec,
    /// The synthetic encoder's settings, whichever encoder: its fps and rate range are both's.
    codec: SyntheticCodecConfig,
    encoder: Codec,
    sender: RtpSenderConfig,
    interval: FeedbackInterval,
    /// Its coupled group (`couple`) and its priority there.
    coupling: Option<Coupling>,
}

/// A flow's place in a coupled group.
#[derive(Debug, Clone)]
struct Coupling {
    group: String,
    prio: f64,
}

type RtpFlow = DatagramFlow<RtpSender, RtpReceiver>;

/// What an RTP flow's two ends did.
#[derive(Debug, Clone, Serialize)]
pub struct RtpSummary {
    pub cc: &'static str,
    /// The controller's target at the end (wire bits per second) and the encoder's media rate.
    pub target_bps: f64,
    pub encoder_bps: f64,
    pub frames: u64,
    pub packets_sent: u64,
    /// Packets the controller discarded from the sender's queue unsent.
    pub packets_discarded: u64,
    /// Packets reports said were lost, and packets no report covered.
    pub reported_lost: u64,
    pub unreported: u64,
    pub rtt_s: Option<f64>,
    pub min_rtt_s: Option<f64>,
    pub feedback_sent: u64,
    pub feedback_received: u64,
    /// Feedback bytes over media bytes received (RFC 8868 §2's feedback overhead).
    pub feedback_overhead: f64,
    pub frames_completed: u64,
    pub ce_marked: u64,
    /// Bandwidth probing (GCC's; zero for the others): probe clusters sent whole, and the
    /// padding-only packets and their wire bytes sent for them (in `packets_sent` and in the
    /// flow's throughput, not in its media).
    pub probe_clusters: u64,
    pub padding_packets_sent: u64,
    pub padding_bytes_sent: u64,
}

fn parse(t: &Tbl, _app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    let cc_val = t.req("cc")?;
    let cc_name = cc_val.string()?;
    let mut codec = SyntheticCodecConfig::default();
    if let Some(v) = t.get("min_rate") {
        codec.r_min = v.rate()?;
    }
    if let Some(v) = t.get("max_rate") {
        codec.r_max = v.rate_pos()?;
    }
    if let Some(v) = t.get("fps") {
        codec.fps = v.f64()?;
    }
    if let Some(v) = t.get("tau_v") {
        codec.tau_v = v.dur()?;
    }
    if let Some(v) = t.get("burst_frames") {
        codec.burst_frames = v.int_in(0, 1000)? as u32;
    }
    if let Some(v) = t.get("burst_size") {
        codec.burst_size = v.bytes()?;
    }
    if let Some(v) = t.get("scale_t") {
        codec.scale_t = v.f64()?;
    }
    if let Some(v) = t.get("scale_b") {
        codec.scale_b = v.f64()?;
    }
    codec.check().map_err(|e| {
        // SyntheticCodecConfig::check names the field first: the key that set it.
        let key = [("fps", "fps"), ("scale_t", "scale_t"), ("scale_b", "scale_b"), ("r_min", "min_rate")]
            .into_iter()
            .find(|(field, _)| e.starts_with(field))
            .map(|(_, key)| key);
        match key.and_then(|k| t.get(k)) {
            Some(v) => v.error(e),
            None => t.error(e),
        }
    })?;
    let encoder = match t.get("trace") {
        Some(v) => {
            for k in SYNTHETIC_ONLY {
                if let Some(kv) = t.get(k) {
                    return Err(kv.error(format!(
                        "`{k}` is RFC 8593 §5's synthetic encoder's; with `trace` (§6) the frame sizes come from the trace"
                    )));
                }
            }
            let mut cfg =
                TraceCodecConfig { fps: codec.fps, r_min: codec.r_min, r_max: codec.r_max, ..Default::default() };
            if let Some(v) = t.get("tau_v") {
                cfg.tau_v = v.dur()?;
            }
            if let Some(v) = t.get("skip_frames") {
                cfg.skip_frames = v.int_in(0, i64::from(u32::MAX))? as usize;
            }
            let traces = read_trace(&v, ctx.dir.as_deref())?;
            if traces.frames() <= cfg.skip_frames {
                let at = t.get("skip_frames").unwrap_or(v);
                return Err(at.error(format!(
                    "skip_frames {} leaves nothing to loop over in a trace of {} frames",
                    cfg.skip_frames,
                    traces.frames()
                )));
            }
            Codec::Trace(cfg, traces)
        }
        None => {
            if let Some(v) = t.get("skip_frames") {
                return Err(v.error("`skip_frames` is the trace's (RFC 8593 §6.2.1): give `trace`"));
            }
            Codec::Synthetic(codec.clone())
        }
    };
    let max_payload = match t.get("packet_size") {
        Some(v) => packet_size(&v)?,
        None => RtpSenderConfig::default().max_payload,
    };
    let coupling = match t.get("couple") {
        Some(v) => {
            let group = v.string()?;
            if group.is_empty() {
                return Err(v.error("`couple` names a group of flows: give a name"));
            }
            let prio = match t.get("prio") {
                Some(p) => {
                    let x = p.f64()?;
                    if !(x.is_finite() && x > 0.0) {
                        return Err(p.error(format!("prio = {x}: a priority is a number above 0 (RFC 8699 §5.2)")));
                    }
                    x
                }
                None => 1.0,
            };
            Some(Coupling { group, prio })
        }
        None => None,
    };
    let cc = match cc_name.as_str() {
        "nada" => {
            let mut c =
                NadaConfig { rmin: codec.r_min.as_bps_f64(), rmax: codec.r_max.as_bps_f64(), ..NadaConfig::default() };
            // Coupled, the priority is the FSE's and NADA's own PRIO stays 1: both would weight
            // the flow twice.
            if let Some(v) = t.get("prio").filter(|_| coupling.is_none()) {
                c.prio = v.f64()?;
            }
            c.check().map_err(|e| match t.get("prio").filter(|_| e.starts_with("prio")) {
                Some(v) => v.error(e),
                None => t.error(e),
            })?;
            CcSpec::Nada(c)
        }
        "scream" => {
            let c = ScreamConfig {
                start_bitrate: start_rate(t, &codec)?,
                min_bitrate: codec.r_min.as_bps_f64(),
                max_bitrate: codec.r_max.as_bps_f64(),
                // The largest packet the sender makes (RFC 8298's MSS).
                mss: max_payload.0 + fairway_proto::rtp::sender::HEADER_LEN,
                ..ScreamConfig::default()
            };
            c.check().map_err(|e| match t.get("start_rate").filter(|_| e.contains("start")) {
                Some(v) => v.error(e),
                None => t.error(e),
            })?;
            CcSpec::Scream(c)
        }
        "gcc" => {
            let start = start_rate(t, &codec)?;
            let c = GccConfig {
                start_rate_bps: start,
                min_rate_bps: codec.r_min.as_bps_f64(),
                max_rate_bps: codec.r_max.as_bps_f64(),
                ..GccConfig::default()
            };
            c.check().map_err(|e| match t.get("start_rate").filter(|_| e.contains("start")) {
                Some(v) => v.error(e),
                None => t.error(e),
            })?;
            CcSpec::Gcc(c)
        }
        other => {
            return Err(cc_val.error(format!("unknown cc `{other}`: expected {}", CONTROLLERS.join(", "))));
        }
    };
    if t.has("start_rate") && matches!(cc, CcSpec::Nada(_)) {
        return Err(t.req("start_rate")?.error("NADA starts at min_rate, its RMIN (RFC 8698 §4.3)"));
    }
    if t.has("prio") && coupling.is_none() && !matches!(cc, CcSpec::Nada(_)) {
        return Err(t.req("prio")?.error(
            "`prio` is NADA's weight (RFC 8698 §4.3), or with `couple` the flow's priority in its coupled group (RFC 8699)",
        ));
    }
    let mut sender = RtpSenderConfig { max_payload, ..RtpSenderConfig::default() };
    if let Some(v) = t.get("ecn") {
        sender.ecn = v.bool()?;
    }
    sender.tagged = parse_class(t, false)?;
    let interval = match t.get("feedback_interval") {
        Some(v) if v.is_str() && v.raw_string()? == "media-rate" => FeedbackInterval::MediaRate,
        Some(v) => FeedbackInterval::Fixed(v.dur_pos()?),
        None => cc.default_interval(),
    };
    Ok(Arc::new(RtpSpec { cc, codec, encoder, sender, interval, coupling }))
}

/// The trace file `v` names, relative to `dir`, the scenario file's folder (`None`: a built-in
/// scenario, which has none), read and checked.
fn read_trace(v: &crate::reader::Val, dir: Option<&Path>) -> Res<Arc<Traces>> {
    let name = v.string()?;
    let Some(dir) = dir else {
        return Err(v.error(format!(
            "a built-in scenario has no folder to find the trace `{name}` in: run the scenario from its file"
        )));
    };
    let path = dir.join(&name);
    // A regular file only: a device or a pipe could be endless.
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(v.error(format!("trace {} is not a regular file", path.display()))),
        Err(e) => return Err(v.error(format!("cannot read trace {}: {e}", path.display()))),
    }
    let text = crate::text_file::read(&path, crate::video_trace::MAX_TRACE_BYTES, "a trace file")
        .map_err(|e| v.error(format!("trace {}: {e}", path.display())))?;
    let traces = crate::video_trace::parse(&text).map_err(|(line, e)| match line {
        0 => v.error(format!("trace {}: {e}", path.display())),
        _ => v.error(format!("trace {}:{line}: {e}", path.display())),
    })?;
    Ok(Arc::new(traces))
}

/// `start_rate`, or `min_rate` (RFC 8867 §4.3's start at the bottom of the range).
fn start_rate(t: &Tbl, codec: &SyntheticCodecConfig) -> Res<f64> {
    Ok(match t.get("start_rate") {
        Some(v) => v.rate_pos()?.as_bps_f64(),
        None => codec.r_min.as_bps_f64(),
    })
}

impl DatagramSpec for RtpSpec {
    fn app(&self) -> &'static str {
        "video"
    }

    fn transport(&self) -> &'static str {
        "rtp"
    }

    /// Its own class: RMCAT's results compare media flows with TCP and with one another.
    fn class(&self) -> &'static str {
        "rtp"
    }

    fn coupled_group(&self) -> Option<&str> {
        self.coupling.as_ref().map(|c| c.group.as_str())
    }

    /// RtpSender::start after a stop resumes the session (RFC 8867 §5.8).
    fn pausable(&self) -> bool {
        true
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let rng = Rng::stream(b.seed, &format!("codec:{}", b.name));
        let codec: Box<dyn MediaSource> = match &self.encoder {
            Codec::Synthetic(c) => Box::new(SyntheticCodec::new(c.clone(), rng, Time::ZERO, c.r_min)?),
            Codec::Trace(c, traces) => Box::new(TraceCodec::new(c.clone(), traces.clone(), Time::ZERO, c.r_min)?),
        };
        // One stream per flow: its SSRC from the flow's index, the receiver's one above it.
        let ssrc = 2 * b.flow + 1;
        let sender = RtpSenderConfig { ssrc, ..self.sender.clone() };
        let mut snd = RtpSender::new(sender, codec, self.cc.build()?)?;
        if let Some(c) = &self.coupling {
            // One state exchange per group and run, made by the group's first flow.
            let fse = b.shared.get_or_make(&format!("rtp-fse:{}", c.group), || Mutex::new(Fse::new()))?;
            snd = snd.with_coupling(FseMember::new(fse, c.prio)?)?;
        }
        let rcv = RtpReceiver::new(RtpReceiverConfig {
            ssrc,
            own_ssrc: ssrc + 1,
            interval: self.interval,
            ecn: self.sender.ecn,
        })?;
        Ok(Box::new(RtpFlow::new(snd, rcv, b.wire).with_series(&[TARGET])))
    }

    fn report(&self, drv: &dyn FlowDriver, _ctx: &ReportContext) -> Option<ProtocolReport> {
        let f = drv.as_any().downcast_ref::<RtpFlow>()?;
        let (s, r) = (f.snd.stats(), f.rcv.stats());
        Some(ProtocolReport::new(
            "rtp",
            RtpSummary {
                cc: self.cc.name(),
                target_bps: s.target_bps,
                encoder_bps: s.encoder_bps,
                frames: s.frames,
                packets_sent: s.packets_sent,
                packets_discarded: s.packets_discarded,
                reported_lost: s.reported_lost,
                unreported: s.unreported,
                rtt_s: s.rtt.map(|d| d.as_secs_f64()),
                min_rtt_s: s.min_rtt.map(|d| d.as_secs_f64()),
                feedback_sent: r.feedback_sent,
                feedback_received: s.feedback_received,
                feedback_overhead: if r.media_bytes_received > 0 {
                    r.feedback_bytes as f64 / r.media_bytes_received as f64
                } else {
                    0.0
                },
                frames_completed: r.frames_completed,
                ce_marked: r.ce_marked,
                probe_clusters: s.probe_clusters_sent,
                padding_packets_sent: s.padding_packets_sent,
                padding_bytes_sent: s.padding_bytes_sent,
            },
        ))
    }

    /// The encoder's settings: a [`SyntheticCodecConfig`] or a [`TraceCodecConfig`].
    fn config(&self) -> &dyn Any {
        match &self.encoder {
            Codec::Synthetic(c) => c,
            Codec::Trace(c, _) => c,
        }
    }

    /// At most the content's top rate in full packets, a timer per frame, and feedback at its
    /// interval (at the media-rate rule's shortest, 20 ms).
    fn load(&self) -> Load {
        let full = self.sender.max_payload.0 + fairway_proto::rtp::sender::HEADER_LEN;
        let top = self.codec.r_max.as_bps_f64() / self.sender_share();
        let feedback_per_s = 1.0 / self.interval.at(f64::INFINITY).as_secs_f64();
        Load {
            packets_per_s: Some(top / (8.0 * full as f64) + self.codec.fps),
            timers_per_s: self.codec.fps + 2.0 * feedback_per_s,
            packet_size: Bytes(full),
            window: None,
            total: None,
            timers_per_rtt: 0.0,
            feedback_per_rtt: 0.0,
            rtt_floor: Dur::ZERO,
        }
    }
}

impl RtpSpec {
    /// The media share of a full packet.
    fn sender_share(&self) -> f64 {
        let p = self.sender.max_payload.0 as f64;
        p / (p + fairway_proto::rtp::sender::HEADER_LEN as f64)
    }
}
