//! Per-packet trace records (what ns-2's `trace-all` records) and what to trace: the engine's
//! tracer fills them, fairway-report writes them as a text trace or a pcap.

use fairway_core::Time;

/// What a packet carries, as far as the simulator's agents need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PktKind {
    /// A TCP data segment (`seq` is its sequence number in packets).
    TcpData,
    /// A TCP acknowledgement (`ack` is the highest in-order sequence received, or -1).
    TcpAck,
    /// A datagram protocol's data, source to sink (CBR, MApp, IFTP: `seq` is the token of the
    /// message it carries, see `datagram.rs`).
    Datagram,
    /// A datagram protocol's feedback, sink to source (MApp's feedback, IFTP's ACKs).
    Feedback,
}

impl PktKind {
    /// Data travels from the flow's source to its sink; the rest (TCP ACKs, feedback) travels
    /// back.
    pub fn is_data(self) -> bool {
        matches!(self, PktKind::TcpData | PktKind::Datagram)
    }

    /// The class a class-based queue puts it in: chung-dcbt §2's router tells TCP from UDP by
    /// the protocol field, and tagged UDP by the ToS bit.
    pub fn queue_class(self, tagged: bool) -> fairway_aqm::Class {
        use fairway_aqm::Class;
        match self {
            PktKind::TcpData | PktKind::TcpAck => Class::Tcp,
            PktKind::Datagram | PktKind::Feedback if tagged => Class::Tagged,
            PktKind::Datagram | PktKind::Feedback => Class::Untagged,
        }
    }
}

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
    /// had reached its sink when the feedback left it (-1 before any had); for their data, the
    /// highest number among its feedback that had reached the source. What a DCCP packet's
    /// acknowledgement number says in the pcap.
    pub acked: i64,
    pub ect: bool,
    pub ce: bool,
    pub ece: bool,
    pub cwr: bool,
    pub syn: bool,
    /// The protocol's packet type where its header has one (DCCP's, RFC 4340 §5.1).
    pub wire_type: Option<u8>,
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
