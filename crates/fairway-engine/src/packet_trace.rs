//! Per-packet tracing on wired links: what ns-2's `trace-all` records (an enqueue, a dequeue, a
//! receive at the far end, a drop), with each packet's unique id and sequence number, for the
//! links and flows asked for. Off unless asked for: the simulator then holds `None` and pays
//! one pointer test per packet creation and per arrival.

use fairway_core::Time;

pub use fairway_model::packet_trace::{PacketEvent, PacketOp, PacketTraceSpec};

use crate::packet::{Packet, PktKind};

/// An event's bit in the tracer's set of traced events.
fn bit(op: PacketOp) -> u8 {
    1 << op as u8
}

/// Traced events gathered before they go to the sink in one call.
pub(crate) const PACKET_BATCH: usize = 1 << 16;

pub(crate) struct PacketTracer {
    /// Per link, whether it is traced.
    links: Vec<bool>,
    /// Per flow, whether its packets are.
    flows: Vec<bool>,
    ops: u8,
    /// The run covers [0, end): what happens at its end (the last serialisations the loop
    /// closes) is not traced.
    end: Time,
    /// Per arena slot, the uid, sequence number, acknowledged count and protocol's packet
    /// type of the packet in it.
    ids: Vec<(u64, i64, i64, Option<u8>)>,
    next_uid: u64,
    /// Per flow: datagrams sent each way, the highest data number its sink has received, and
    /// the highest feedback number its source has.
    counts: Vec<(i64, i64, i64, i64)>,
    pub(crate) rows: Vec<PacketEvent>,
}

impl PacketTracer {
    pub(crate) fn new(spec: &PacketTraceSpec, nlinks: usize, nflows: usize, end: Time) -> PacketTracer {
        let pick = |chosen: &[usize], n: usize| {
            let mut v = vec![chosen.is_empty(); n];
            for &i in chosen {
                if let Some(b) = v.get_mut(i) {
                    *b = true;
                }
            }
            v
        };
        let ops = if spec.ops.is_empty() { PacketOp::ALL.to_vec() } else { spec.ops.clone() };
        PacketTracer {
            links: pick(&spec.links, nlinks),
            flows: pick(&spec.flows, nflows),
            ops: ops.iter().fold(0, |m, o| m | bit(*o)),
            end,
            ids: vec![],
            next_uid: 0,
            counts: vec![(0, 0, -1, -1); nflows],
            rows: Vec::new(),
        }
    }

    /// Whether link `l`'s events are traced (it then runs on the general path, where each of
    /// them is an event of its own).
    pub(crate) fn traces_link(&self, l: usize) -> bool {
        self.links[l]
    }

    /// A packet was made in arena slot `slot`, of the protocol's packet type `wire_type`: its
    /// uid and number.
    pub(crate) fn made(&mut self, slot: usize, pkt: &Packet, wire_type: Option<u8>) {
        if self.ids.len() <= slot {
            self.ids.resize(slot + 1, (0, 0, -1, None));
        }
        let c = &mut self.counts[pkt.flow as usize];
        let (seq, acked) = match pkt.kind {
            PktKind::TcpData => (pkt.seq as i64, -1),
            PktKind::TcpAck => (pkt.ack, -1),
            PktKind::Datagram => {
                c.0 += 1;
                (c.0 - 1, c.3)
            }
            PktKind::Feedback => {
                c.1 += 1;
                (c.1 - 1, c.2)
            }
        };
        self.ids[slot] = (self.next_uid, seq, acked, wire_type);
        self.next_uid += 1;
    }

    /// The packet in `slot` reached the end of its route.
    pub(crate) fn delivered(&mut self, slot: usize, pkt: &Packet) {
        let c = &mut self.counts[pkt.flow as usize];
        match pkt.kind {
            PktKind::Datagram => c.2 = c.2.max(self.ids[slot].1),
            PktKind::Feedback => c.3 = c.3.max(self.ids[slot].1),
            PktKind::TcpData | PktKind::TcpAck => {}
        }
    }

    /// Records `op` at link `l` for the packet in `slot`, if traced. Returns whether the batch
    /// is now full.
    pub(crate) fn record(&mut self, op: PacketOp, t: Time, l: usize, slot: usize, pkt: &Packet) -> bool {
        if !self.links[l] || !self.flows[pkt.flow as usize] || self.ops & bit(op) == 0 || t >= self.end {
            return false;
        }
        let (uid, seq, acked, wire_type) = self.ids[slot];
        self.rows.push(PacketEvent {
            t,
            op,
            link: l as u32,
            flow: pkt.flow,
            conn: pkt.conn,
            kind: pkt.kind,
            size: pkt.size,
            payload: pkt.payload,
            uid,
            seq,
            acked,
            ect: pkt.ect,
            ce: pkt.ce,
            ece: pkt.ece,
            cwr: pkt.cwr,
            syn: pkt.syn,
            wire_type,
        });
        self.rows.len() == PACKET_BATCH
    }
}
