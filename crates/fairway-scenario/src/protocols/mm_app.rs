//! `app = "mm_app"` and `app = "mpeg_app"` over `transport = "udp"`: chung-dcbt §5's media
//! applications, on MApp's endpoints (fairway-proto `mapp`), whose receiver rule is chung-dcbt's.
//! Their feedback and sequence numbers travel in the UDP payload, in the UDPm layout.
//!
//! - `mm_app`: "CBR traffic of a fixed frame size and various transmission intervals"; five
//!   scales, 300 to 1100 kb/s (Table 1, `scales = "chung"`), frames of `packet_size` (1000 B,
//!   §6's "1 KB"), one datagram each.
//! - `mpeg_app`: Figure 7's GOP (`gop`, `i_size`, `p_size`, `b_size`, `fps`) with Figure 7(b)'s
//!   policies, frames split into datagrams of at most `packet_size` (1500 B, §5's UDP maximum).
//!
//! Both tag their packets as multimedia (the flow-controlled class D-CBT calls tagged) and
//! follow the receiver's scale unless `flow_control = false` (§5's run (a): the top scale
//! throughout).

use std::sync::Arc;

use fairway_core::{Bytes, Dur, Rate};
use fairway_proto::mapp::{Gop, MappConfig, Pacing, ScaleTable};

use super::mapp::{parse_receiver_keys, MappSpec, SCALE};
use super::{packet_size, DatagramSpec, FlowContext, Registration, CLASS_KEYS};
use crate::reader::{Res, Tbl};

pub(crate) const REGISTRATION: Registration = Registration {
    transport: "udp",
    apps: &["mm_app", "mpeg_app"],
    keys: &[COMMON_KEYS, CLASS_KEYS, MM_KEYS, MPEG_KEYS],
    series: &[SCALE.info],
    parse,
};

const COMMON_KEYS: &[&str] =
    &["packet_size", "flow_control", "ecn", "initial_rtt", "toi_alpha", "idle_limit", "reassembly_window"];
const MM_KEYS: &[&str] = &["scales", "jitter"];
const MPEG_KEYS: &[&str] = &["gop", "i_size", "p_size", "b_size", "fps"];

fn parse(t: &Tbl, app: &str, _ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    // The other app's keys are not this one's.
    let foreign = if app == "mm_app" { MPEG_KEYS } else { MM_KEYS };
    for k in foreign {
        if let Some(v) = t.get(k) {
            return Err(v.error(format!("`{k}` is not a key of app `{app}`")));
        }
    }
    let (cfg, app) = if app == "mm_app" { (mm_app(t)?, "mm_app") } else { (mpeg_app(t)?, "mpeg_app") };
    Ok(Arc::new(MappSpec { cfg, app, transport: "udp" }))
}

fn mm_app(t: &Tbl) -> Res<MappConfig> {
    let table = match t.get("scales") {
        // chung-dcbt Table 1 and §6: 300, 500, 700, 900 and 1100 kb/s for scales 0 to 4.
        None => ScaleTable::chung_mm_app(),
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
        None => Bytes(1000), // chung-dcbt §6: "1 KB" frames
    };
    let mut cfg = MappConfig { table, pacing: Pacing::ConstantSize { packet_size }, ..MappConfig::default() };
    if let Some(v) = t.get("jitter") {
        cfg.jitter = v.bool()?;
    }
    parse_receiver_keys(t, &mut cfg)?;
    Ok(cfg)
}

fn mpeg_app(t: &Tbl) -> Res<MappConfig> {
    let fig7 = Gop::chung_figure7();
    let pattern = match t.get("gop") {
        Some(v) => v.string()?,
        None => "IBBPBBPBB".to_string(),
    };
    let size = |key: &str, default: Bytes| -> Res<Bytes> {
        match t.get(key) {
            Some(v) => packet_size(&v),
            None => Ok(default),
        }
    };
    let sizes = [size("i_size", fig7.sizes[0])?, size("p_size", fig7.sizes[1])?, size("b_size", fig7.sizes[2])?];
    let slot = match t.get("fps") {
        Some(v) => {
            let fps = v.f64()?;
            if !(fps > 0.0 && fps <= 1e6) {
                return Err(v.error(format!("{fps} frames per second: expected above 0 and at most 10^6")));
            }
            Dur((1e9 / fps).round() as u64)
        }
        None => fig7.slot,
    };
    let max_datagram = size("packet_size", fig7.max_datagram)?;
    let gop = Gop::new(&pattern, sizes, slot, max_datagram).map_err(|e| match t.get(e.field) {
        Some(v) => v.error(e.reason),
        None => t.error(e.to_string()),
    })?;
    let mut cfg = MappConfig { table: gop.table(), pacing: Pacing::Mpeg(gop), ..MappConfig::default() };
    parse_receiver_keys(t, &mut cfg)?;
    Ok(cfg)
}
