//! Packets in flight, kept in an arena and addressed by index (docs/architecture.md, "Speed is a feature"):
//! queues and links move 4-byte [`PacketRef`]s, never packets.

use fairway_core::{PacketRef, Time};

pub use fairway_model::packet_trace::PktKind;

#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct Packet {
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// Connection within the flow (a web flow opens one per session; others have one).
    pub conn: u32,
    /// Size on the wire, in bytes.
    pub size: u32,
    /// Application payload, in bytes (goodput counts these).
    pub payload: u32,
    pub kind: PktKind,
    pub seq: u64,
    pub ack: i64,
    /// When the source sent it (data), or the send time it echoes (acks).
    pub sent_at: Time,
    /// ECN-capable transport (RFC 3168 ECT).
    pub ect: bool,
    /// Congestion Experienced, set by a marking queue.
    pub ce: bool,
    /// ECN-Echo (on an acknowledgement, or on an ECN-setup SYN).
    pub ece: bool,
    /// TCP Congestion Window Reduced (RFC 3168 §6.1.2).
    pub cwr: bool,
    /// TCP SYN (ns-2's one-way agents send packet 0 as a 40-byte SYN).
    pub syn: bool,
    /// Route (where it starts in the simulator's flat route table) and how many of its links
    /// have admitted it (so `route + hop` is where the link after the current one is).
    pub route: u32,
    pub hop: u32,
    /// The link's loss model took it: it is serialised but never arrives.
    pub lost: bool,
    /// A datagram tagged as multimedia by its source (the ToS bit of chung-dcbt §2).
    pub tagged: bool,
    /// When the queue it waits in (or last waited in) took it: a link on the general path
    /// measures its wait from this.
    pub queued_at: Time,
}

impl Packet {
    /// A packet of flow `flow` (connection `conn`) that starts its route at `route` now: no
    /// sequence number or acknowledgement, no flags, not yet on any hop. Senders set the rest.
    pub fn new(flow: usize, conn: usize, kind: PktKind, size: u32, payload: u32, route: u32, sent_at: Time) -> Packet {
        Packet {
            flow: flow as u32,
            conn: conn as u32,
            size,
            payload,
            kind,
            seq: 0,
            ack: -1,
            sent_at,
            ect: false,
            ce: false,
            ece: false,
            cwr: false,
            syn: false,
            route,
            hop: 0,
            lost: false,
            tagged: false,
            queued_at: Time::ZERO,
        }
    }
}

/// Slab of packets with a free list; slots are reused, so a `PacketRef` is valid only until the
/// packet is freed.
#[derive(Default)]
pub struct Arena {
    slots: Vec<Packet>,
    live: Vec<bool>,
    free: Vec<u32>,
}

impl Arena {
    pub fn alloc(&mut self, p: Packet) -> PacketRef {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            self.live[i as usize] = true;
            PacketRef(i)
        } else {
            self.slots.push(p);
            self.live.push(true);
            PacketRef(self.slots.len() as u32 - 1)
        }
    }

    pub fn free(&mut self, r: PacketRef) {
        debug_assert!(self.live[r.index()], "double free of {r:?}");
        self.live[r.index()] = false;
        self.free.push(r.0);
    }

    #[inline]
    pub fn get(&self, r: PacketRef) -> &Packet {
        &self.slots[r.index()]
    }

    /// The slot of `r`, if there is one (live or not).
    pub fn try_get(&self, r: PacketRef) -> Option<&Packet> {
        self.slots.get(r.index())
    }

    #[inline]
    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slots[r.index()]
    }

    /// Packets still allocated (in queues, on links).
    pub fn live(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().zip(&self.live).filter(|(_, l)| **l).map(|(p, _)| p)
    }

    pub fn live_count(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod layout_tests {
    /// A packet is one cache line: the arena's slots are read once per hop.
    #[test]
    fn a_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Packet>(), 64);
    }
}
