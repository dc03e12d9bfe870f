//! Per-packet tracing on wired links: what ns-2's `trace-all` records (an enqueue, a dequeue, a
//! receive at the far end, a drop), with each packet's unique id and sequence number, for the
//! links and flows asked for. Off unless asked for: the simulator then holds `None` and pays
//! one pointer test per packet creation and per arrival.

use fairway_core::Time;

use crate::packet::{Packet, PktKind};

/// What happened to a packet at a link (ns-2's trace event letters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketOp {
    /// `+`: offered to the link's queue (a packet refused there gets a `d` right after).
    Enqueue,
    /// `-`: leaves the queue for the wire.
    Dequeue,
    /// `r`: reaches the link's far end.
    Receive,
    /// `d`: thrown away by the queue (on arrival or later), or lost on the wire (at the time it
    /// would have arrived).
    Drop,
}

impl PacketOp {
    pub const ALL: [PacketOp; 4] = [PacketOp::Enqueue, PacketOp::Dequeue, PacketOp::Receive, PacketOp::Drop];

    /// ns-2's letter for it.
    pub fn letter(self) -> char {
        match self {
            PacketOp::Enqueue => '+',
            PacketOp::Dequeue => '-',
            PacketOp::Receive => 'r',
            PacketOp::Drop => 'd',
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// One traced event: a copy of what the packet said at that moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketEvent {
    pub t: Time,
    pub op: PacketOp,
    /// The link (scenario order).
    pub link: u32,
    pub flow: u32,
    pub conn: u32,
    pub kind: PktKind,
    /// Bytes on the wire, and of them the application's.
    pub size: u32,
    pub payload: u32,
    /// Unique per packet in the run, in the order packets were made (ns-2's `uid`).
    pub uid: u64,
    /// A TCP segment's sequence number, a TCP ACK's acknowledgement number (both in packets, as
    /// ns-2 traces them), or a datagram's number among its flow's datagrams of that direction
    /// (from 0).
    pub seq: i64,
    /// For feedback of datagram protocols: the highest number among the flow's datagrams that
    /// had reached its sink when the feedback left it (-1 before any had); what a DCCP-Ack's
    /// acknowledgement number says in the pcap.
    pub acked: i64,
    pub ect: bool,
    pub ce: bool,
    pub ece: bool,
    pub cwr: bool,
    pub syn: bool,
}

/// What to trace: empty link and flow lists mean all of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PacketTraceSpec {
    /// Links (scenario indices) whose events are traced.
    pub links: Vec<usize>,
    /// Flows (scenario indices) whose packets are traced.
    pub flows: Vec<usize>,
    /// Which events; empty means all four.
    pub ops: Vec<PacketOp>,
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
    /// Per arena slot, the uid, sequence number and acknowledged count of the packet in it.
    ids: Vec<(u64, i64, i64)>,
    next_uid: u64,
    /// Per flow: datagrams sent each way, and the highest data number its sink has received.
    counts: Vec<(i64, i64, i64)>,
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
            ops: ops.iter().fold(0, |m, o| m | o.bit()),
            end,
            ids: vec![],
            next_uid: 0,
            counts: vec![(0, 0, -1); nflows],
            rows: Vec::new(),
        }
    }

    /// Whether link `l`'s events are traced (it then runs on the general path, where each of
    /// them is an event of its own).
    pub(crate) fn traces_link(&self, l: usize) -> bool {
        self.links[l]
    }

    /// A packet was made in arena slot `slot`: its uid and number.
    pub(crate) fn made(&mut self, slot: usize, pkt: &Packet) {
        if self.ids.len() <= slot {
            self.ids.resize(slot + 1, (0, 0, -1));
        }
        let c = &mut self.counts[pkt.flow as usize];
        let (seq, acked) = match pkt.kind {
            PktKind::TcpData => (pkt.seq as i64, -1),
            PktKind::TcpAck => (pkt.ack, -1),
            PktKind::Datagram => {
                c.0 += 1;
                (c.0 - 1, -1)
            }
            PktKind::Feedback => {
                c.1 += 1;
                (c.1 - 1, c.2)
            }
        };
        self.ids[slot] = (self.next_uid, seq, acked);
        self.next_uid += 1;
    }

    /// The packet in `slot` reached the end of its route.
    pub(crate) fn delivered(&mut self, slot: usize, pkt: &Packet) {
        if pkt.kind == PktKind::Datagram {
            let c = &mut self.counts[pkt.flow as usize];
            c.2 = c.2.max(self.ids[slot].1);
        }
    }

    /// Records `op` at link `l` for the packet in `slot`, if traced. Returns whether the batch
    /// is now full.
    pub(crate) fn record(&mut self, op: PacketOp, t: Time, l: usize, slot: usize, pkt: &Packet) -> bool {
        if !self.links[l] || !self.flows[pkt.flow as usize] || self.ops & op.bit() == 0 || t >= self.end {
            return false;
        }
        let (uid, seq, acked) = self.ids[slot];
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
        });
        self.rows.len() == PACKET_BATCH
    }
}
