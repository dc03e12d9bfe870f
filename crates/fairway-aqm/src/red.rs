//! RED (placeholder: being written).
use fairway_core::{Bytes, PacketRef, Rate, Rng, Time};

use crate::{PacketMeta, ParamError, QueueDiscipline, QueueStats, Verdict};

#[derive(Debug, Clone, Default)]
pub struct RedParams {}

#[derive(Debug, Clone)]
pub struct Red {
    stats: QueueStats,
}

impl Red {
    pub fn new(_p: RedParams, _link_rate: Rate) -> Result<Red, ParamError> {
        Err(ParamError::new("kind", "RED is not written yet"))
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, _now: Time, _m: &PacketMeta, _p: PacketRef, _r: &mut Rng) -> Verdict {
        unimplemented!()
    }
    fn dequeue(&mut self, _now: Time) -> Option<(PacketRef, Bytes)> {
        None
    }
    fn len(&self) -> usize {
        0
    }
    fn bytes(&self) -> Bytes {
        Bytes(0)
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
}
