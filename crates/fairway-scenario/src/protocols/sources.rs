//! The applications a datagram transport carries, as a scenario names them: `cbr` (ns-2's
//! CBR), `voip` (janani-tfrc's voice: 84 kb/s of 160 B packets, optionally in talk spurts) and
//! `video` (a rate and packet size, optionally in frames), plus `ftp` (greedy) for transports
//! that pace themselves.

use fairway_core::{Bytes, Dur, Rate, Rng};
use fairway_model::protocol::Load;
use fairway_proto::source::{Cbr, CbrConfig, Greedy, OnOff, Source};

use super::packet_size;
use crate::reader::{Res, Tbl};

/// Every key a source may read (each app rejects the others').
pub(crate) const SOURCE_KEYS: &[&str] = &[
    "packet_size",
    "interval",
    "rate",
    "jitter",
    "max_packets",
    "frame_interval",
    "frame_rate",
    "talk_spurts",
    "on_mean",
    "off_mean",
];

/// An application's settings.
#[derive(Debug, Clone)]
pub(crate) enum SourceSpec {
    Greedy {
        packet_size: Bytes,
        max_packets: Option<u64>,
    },
    Cbr(CbrConfig),
    /// A CBR on and off for exponential times of these means (talk spurts).
    OnOff {
        cbr: CbrConfig,
        on_mean: Dur,
        off_mean: Dur,
    },
}

impl SourceSpec {
    /// Its packets' size.
    pub fn packet_size(&self) -> Bytes {
        match self {
            SourceSpec::Greedy { packet_size, .. } => *packet_size,
            SourceSpec::Cbr(c) | SourceSpec::OnOff { cbr: c, .. } => c.packet_size,
        }
    }

    /// What it offers ([`Load`]): a CBR one packet per interval (a talk spurt's CBR as if it
    /// never paused, and two switches per spurt), frames beside; a greedy source as much as the
    /// transport sends.
    pub fn load(&self) -> Load {
        let per_s = |d: Dur| 1e9 / d.0.max(1) as f64;
        match self {
            SourceSpec::Greedy { packet_size, max_packets } => Load {
                packets_per_s: None,
                timers_per_s: 0.0,
                packet_size: *packet_size,
                window: None,
                total: *max_packets,
                timers_per_rtt: 0.0,
                feedback_per_rtt: 0.0,
                rtt_floor: Dur::ZERO,
            },
            SourceSpec::Cbr(c) | SourceSpec::OnOff { cbr: c, .. } => {
                let frames = c.frame_interval.map_or(0.0, per_s);
                // Each talk spurt starts with a packet (a CBR's first goes at its start), so
                // spurts shorter than the interval still send one each.
                let spurts = match self {
                    SourceSpec::OnOff { on_mean, off_mean, .. } => per_s(*on_mean + *off_mean),
                    _ => 0.0,
                };
                Load {
                    packets_per_s: Some(per_s(c.interval) + spurts),
                    timers_per_s: frames + 2.0 * spurts,
                    packet_size: c.packet_size,
                    window: None,
                    total: c.max_packets,
                    timers_per_rtt: 0.0,
                    feedback_per_rtt: 0.0,
                    rtt_floor: Dur::ZERO,
                }
            }
        }
    }

    /// Its [`Load`] under a transport that paces what it sends (TFRC, DCCP): the source's own
    /// timer ticks once per packet it makes, beside the transport's send, and the transport's
    /// timers `per_rtt`.
    pub fn load_under_transport(&self, per_rtt: f64) -> Load {
        let l = self.load();
        Load { timers_per_s: l.timers_per_s + l.packets_per_s.unwrap_or(0.0), timers_per_rtt: per_rtt, ..l }
    }

    /// The CBR inside, if any.
    pub fn cbr(&self) -> Option<&CbrConfig> {
        match self {
            SourceSpec::Greedy { .. } => None,
            SourceSpec::Cbr(c) | SourceSpec::OnOff { cbr: c, .. } => Some(c),
        }
    }

    /// The source of flow `name`, its random streams named after the flow.
    pub fn build(&self, seed: u64, name: &str) -> Box<dyn Source> {
        match self {
            SourceSpec::Greedy { packet_size, max_packets } => Box::new(Greedy::new(*packet_size, *max_packets)),
            SourceSpec::Cbr(c) => Box::new(Cbr::new(c.clone(), Rng::stream(seed, &format!("cbr:{name}")))),
            SourceSpec::OnOff { cbr, on_mean, off_mean } => Box::new(OnOff::new(
                Cbr::new(cbr.clone(), Rng::stream(seed, &format!("cbr:{name}"))),
                *on_mean,
                *off_mean,
                Rng::stream(seed, &format!("spurts:{name}")),
            )),
        }
    }
}

/// Rejects `keys` for `app`.
fn not_for(t: &Tbl, app: &str, keys: &[&str]) -> Res<()> {
    for k in keys {
        if let Some(v) = t.get(k) {
            return Err(v.error(format!("`{k}` does not apply to app = \"{app}\"")));
        }
    }
    Ok(())
}

/// Reads the keys of `app` (one of ftp, cbr, voip, video).
pub(crate) fn parse_source(t: &Tbl, app: &str) -> Res<SourceSpec> {
    match app {
        "ftp" => {
            not_for(
                t,
                app,
                &["interval", "rate", "jitter", "frame_interval", "frame_rate", "talk_spurts", "on_mean", "off_mean"],
            )?;
            let packet_size = match t.get("packet_size") {
                Some(v) => packet_size(&v)?,
                None => Bytes(1000),
            };
            let max_packets = match t.get("max_packets") {
                Some(v) => Some(v.int_in(1, i64::MAX)? as u64),
                None => None,
            };
            Ok(SourceSpec::Greedy { packet_size, max_packets })
        }
        "cbr" => {
            not_for(t, app, &["frame_rate", "talk_spurts", "on_mean", "off_mean"])?;
            // ns-2 defaults: packetSize_ 210, rate_ 448Kb, random_ 0.
            Ok(SourceSpec::Cbr(parse_cbr(t, Bytes(210), Rate(448_000))?))
        }
        "voip" => {
            not_for(t, app, &["frame_interval", "frame_rate"])?;
            // janani-tfrc §5: VoIP at 84 kb/s in 160-byte packets.
            let cbr = parse_cbr(t, Bytes(160), Rate(84_000))?;
            let spurts = match t.get("talk_spurts") {
                Some(v) => v.bool()?,
                None => false,
            };
            if !spurts {
                not_for(t, "voip without talk_spurts", &["on_mean", "off_mean"])?;
                return Ok(SourceSpec::Cbr(cbr));
            }
            // Brady's on and off means for conversational speech (1.0 s and 1.35 s).
            let on_mean = match t.get("on_mean") {
                Some(v) => v.dur_pos()?,
                None => Dur::from_millis(1000),
            };
            let off_mean = match t.get("off_mean") {
                Some(v) => v.dur_pos()?,
                None => Dur::from_millis(1350),
            };
            Ok(SourceSpec::OnOff { cbr, on_mean, off_mean })
        }
        "video" => {
            not_for(t, app, &["talk_spurts", "on_mean", "off_mean"])?;
            if !t.has("rate") && !t.has("interval") {
                return Err(t.error("app = \"video\" needs its `rate`"));
            }
            let mut cbr = parse_cbr(t, Bytes(1000), Rate(0))?;
            // Frames: every 1/frame_rate, the packets the rate accumulated (`frame_interval`
            // names the interval directly).
            if let Some(v) = t.get("frame_rate") {
                if t.has("frame_interval") {
                    return Err(v.error("give `frame_rate` or `frame_interval`, not both"));
                }
                let fps = v.f64()?;
                if !(fps > 0.0 && fps.is_finite()) {
                    return Err(v.error(format!("{fps} frames a second")));
                }
                let fi = Dur::from_secs_f64(1.0 / fps);
                if fi.is_zero() {
                    return Err(v.error(format!(
                        "{fps} frames a second leaves less than 1 ns between frames, below the simulator's clock; \
at most 1e9"
                    )));
                }
                cbr.frame_interval = Some(fi);
            }
            Ok(SourceSpec::Cbr(cbr))
        }
        other => unreachable!("the registry lists no app `{other}` for datagram transports"),
    }
}

/// ns-2's CBR keys: packetSize_, interval_ or rate_, random_, maxpkts_ (and fairway's frames),
/// with the given defaults.
pub(crate) fn parse_cbr(t: &Tbl, default_size: Bytes, default_rate: Rate) -> Res<CbrConfig> {
    let packet_size = match t.get("packet_size") {
        Some(v) => packet_size(&v)?,
        None => default_size,
    };
    let interval = match (t.get("interval"), t.get("rate")) {
        (Some(_), Some(r)) => return Err(r.error("give `interval` or `rate`, not both")),
        (Some(i), None) => i.dur_pos()?,
        (None, Some(r)) => {
            let rate = r.rate_pos()?;
            let iv = interval_for(packet_size, rate);
            // The simulator's clock counts whole nanoseconds: a gap that rounds to none would
            // send every packet at one instant, for ever.
            if iv.is_zero() {
                return Err(r.error(format!(
                    "{rate} in packets of {packet_size} leaves less than 1 ns between packets, below the \
simulator's clock; at most {} for these packets",
                    Rate((packet_size.bits() as f64 * 1e9).min(u64::MAX as f64) as u64)
                )));
            }
            iv
        }
        (None, None) => interval_for(packet_size, default_rate),
    };
    let jitter = match t.get("jitter") {
        Some(v) => v.bool()?,
        None => false,
    };
    // A source of no packets would wait for its first for ever; at least one.
    let max_packets = match t.get("max_packets") {
        Some(v) => Some(v.int_in(1, i64::MAX)? as u64),
        None => None,
    };
    let frame_interval = match t.get("frame_interval") {
        Some(v) => Some(v.dur_pos()?),
        None => None,
    };
    Ok(CbrConfig { packet_size, interval, jitter, max_packets, frame_interval })
}

/// ns-2 CBR_Traffic: interval_ = packetSize_ x 8 / rate_ (cbr_traffic.cc `init`).
fn interval_for(size: Bytes, rate: Rate) -> Dur {
    Dur::from_secs_f64(size.bits() as f64 / rate.as_bps_f64())
}
