//! `transport = "udp"`: plain UDP (ns-2's Agent/UDP) carrying an application that sets its own
//! pace: `app = "cbr"`, ns-2's Application/Traffic/CBR.

use std::any::Any;
use std::sync::Arc;

use fairway_core::{Bytes, Dur, Rate, Rng};
use fairway_proto::source::{Cbr, CbrConfig};
use fairway_proto::udp::{UdpReceiver, UdpSender};

use super::{packet_size, Build, DatagramSpec, FlowContext, Registration};
use crate::datagram::{DatagramFlow, FlowDriver, Probe};
use crate::scenario::reader::{Res, Tbl};

pub(crate) const REGISTRATION: Registration = Registration { transport: "udp", apps: &["cbr"], keys: CBR_KEYS, parse };

const CBR_KEYS: &[&str] = &["packet_size", "interval", "rate", "jitter", "max_packets", "frame_interval"];

/// A CBR flow over UDP.
#[derive(Debug, Clone)]
struct UdpSpec {
    cbr: CbrConfig,
}

fn parse(t: &Tbl, _app: &str, _ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    Ok(Arc::new(UdpSpec { cbr: parse_cbr(t)? }))
}

/// ns-2's CBR keys: packetSize_, interval_ or rate_, random_, maxpkts_ (and fairway's frames).
pub(crate) fn parse_cbr(t: &Tbl) -> Res<CbrConfig> {
    // ns-2 defaults: packetSize_ 210, rate_ 448Kb, random_ 0.
    let packet_size = match t.get("packet_size") {
        Some(v) => packet_size(&v)?,
        None => Bytes(210),
    };
    let interval = match (t.get("interval"), t.get("rate")) {
        (Some(_), Some(r)) => return Err(r.error("give `interval` or `rate`, not both")),
        (Some(i), None) => i.dur_pos()?,
        (None, Some(r)) => {
            let rate = r.rate_pos()?;
            interval_for(packet_size, rate)
        }
        (None, None) => interval_for(packet_size, Rate(448_000)),
    };
    let jitter = match t.get("jitter") {
        Some(v) => v.bool()?,
        None => false,
    };
    let max_packets = match t.get("max_packets") {
        Some(v) => Some(v.u64()?),
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

impl Probe for UdpSender {}

impl DatagramSpec for UdpSpec {
    fn app(&self) -> &'static str {
        "cbr"
    }

    fn transport(&self) -> &'static str {
        "udp"
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let cbr = Cbr::new(self.cbr.clone(), Rng::stream(b.seed, &format!("cbr:{}", b.name)));
        let snd = UdpSender::new(b.flow, Box::new(cbr));
        Ok(Box::new(DatagramFlow::new(snd, UdpReceiver::new(b.flow), b.wire)))
    }

    fn config(&self) -> &dyn Any {
        &self.cbr
    }
}
