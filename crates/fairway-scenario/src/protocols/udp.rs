//! `transport = "udp"`: plain UDP (ns-2's Agent/UDP) carrying an application that sets its own
//! pace: `cbr` (ns-2's Application/Traffic/CBR), `voip` or `video` (see `sources`).

use std::any::Any;
use std::sync::Arc;

use fairway_proto::udp::{UdpReceiver, UdpSender};

use super::sources::{parse_source, SourceSpec, SOURCE_KEYS};
use super::{parse_class, Build, DatagramSpec, FlowContext, Load, Registration, CLASS_KEYS};
use crate::reader::{Res, Tbl};
use fairway_model::datagram::DatagramFlow;
use fairway_model::driver::FlowDriver;

pub(crate) const REGISTRATION: Registration = Registration {
    transport: "udp",
    apps: &["cbr", "voip", "video"],
    keys: &[SOURCE_KEYS, CLASS_KEYS],
    series: &[],
    parse,
};

/// An application over UDP.
#[derive(Debug, Clone)]
struct UdpSpec {
    app: &'static str,
    source: SourceSpec,
    /// chung-dcbt §2: the ToS bit a class-based queue (CBT) tells multimedia by; off by default.
    tagged: bool,
}

fn parse(t: &Tbl, app: &str, _ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>> {
    let app = REGISTRATION.apps.iter().copied().find(|a| *a == app).expect("a registered app");
    let tagged = parse_class(t, false)?;
    Ok(Arc::new(UdpSpec { app, source: parse_source(t, app)?, tagged }))
}

impl DatagramSpec for UdpSpec {
    fn app(&self) -> &'static str {
        self.app
    }

    fn transport(&self) -> &'static str {
        "udp"
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let snd = UdpSender::new(b.flow, self.source.build(b.seed, b.name)).tagged(self.tagged);
        Ok(Box::new(DatagramFlow::new(snd, UdpReceiver::new(b.flow), b.wire)))
    }

    fn load(&self) -> Load {
        self.source.load()
    }

    /// The CBR inside the application.
    fn config(&self) -> &dyn Any {
        match self.source.cbr() {
            Some(c) => c,
            None => &self.source,
        }
    }
}
