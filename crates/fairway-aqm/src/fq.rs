//! What the fair-queueing disciplines (FQ-CoDel, FQ-PIE) share: the flow queues' hashing, the
//! lists deficit round robin keeps them on, and the checks and keys of their scheduler.

use fairway_core::hash::{fnv1a64, fnv1a64_extend};
use fairway_core::{Bytes, FlowId};

use crate::keys::{Keys, Read};
use crate::ParamError;

/// Which list a flow queue is on (RFC 8290 §4.2: new queues are served before old ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    None,
    New,
    Old,
}

/// The queue `flow` hashes into among `flows` (RFC 8290 §4.1.1): FNV-1a of the perturbation and
/// the flow, so two flows may share a queue as on a real router.
pub(crate) fn queue_of(flow: FlowId, perturbation: u64, flows: u32) -> usize {
    let h = fnv1a64_extend(fnv1a64(&perturbation.to_le_bytes()), &flow.0.to_le_bytes());
    (h % flows as u64) as usize
}

/// The scheduler's settings, as every fair-queueing discipline reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scheduler {
    pub limit: u32,
    pub flows: u32,
    pub quantum: Bytes,
    pub drop_batch: u32,
    pub perturbation: u64,
}

/// The scheduler's keys.
pub(crate) const KEYS: &[&str] = &["limit", "flows", "quantum", "drop_batch", "perturbation"];

impl Scheduler {
    /// The scheduler's keys over `self` (the discipline's defaults).
    pub fn read(mut self, k: &mut dyn Keys) -> Read<Scheduler> {
        k.set_u32("limit", 1, &mut self.limit)?;
        k.set_u32("flows", 1, &mut self.flows)?;
        k.set_bytes_pos("quantum", &mut self.quantum)?;
        k.set_u32("drop_batch", 1, &mut self.drop_batch)?;
        if let Some(x) = k.int("perturbation", 0, u32::MAX as i64)? {
            self.perturbation = x as u64;
        }
        Ok(self)
    }

    /// The checks every fair-queueing discipline makes of its scheduler.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.flows == 0 || self.flows > 65_536 {
            return Err(ParamError::new("flows", format!("{}: expected 1 to 65536 queues", self.flows)));
        }
        if self.quantum.0 == 0 {
            return Err(ParamError::new("quantum", "must be at least 1 byte"));
        }
        if self.drop_batch == 0 {
            return Err(ParamError::new("drop_batch", "must be at least 1 packet"));
        }
        Ok(())
    }
}
