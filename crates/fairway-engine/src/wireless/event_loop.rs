//! What passes between the wireless stack (net.rs) and the event loop that runs it (sim.rs):
//! the stack's events, packed into the words the loop's queue carries, and what the stack asks
//! of the loop.

use fairway_core::{Dur, NodeId, PacketRef, Time};

use crate::packet::Packet;
use crate::wireless::aodv::TimerWhat;
use crate::wireless::mac::TimerKind;

/// The wireless stack's events. Nodes are wireless indices (the order of
/// [`WirelessSpec::nodes`](super::WirelessSpec::nodes)); a payload is a flow packet's arena
/// slot or a control message's slab index (net.rs). Small and `Copy`, like the loop's own
/// events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AirEv {
    /// A node's MAC timer, valid while its generation matches the MAC's.
    MacTimer { node: u32, timer: TimerKind, gen: u32 },
    /// The first bit of transmission `tx` reaches a node.
    Rx { node: u32, tx: u32 },
    /// A packet reaches a node's interface queue, for MAC destination `ra`.
    LlDown { node: u32, payload: u32, ra: u32 },
    /// A packet reaches a node's routing agent.
    LlUp { node: u32, payload: u32 },
    /// A routing agent's delayed send reaches its link layer, for next hop `next`.
    RtrOut { node: u32, payload: u32, next: u32 },
    /// A node's AODV timer.
    AodvTimer { node: u32, what: TimerWhat },
    /// Random waypoint: a node's pause or move ends.
    Waypoint { node: u32 },
    /// The scenario's list of moves: command `index` is due.
    Command { index: u32 },
    /// A station's kept frames are replayed up to here: the earliest its paused backoff could
    /// run out (overheard.rs). Not one of the run's events: eager receivers have none.
    Wake { node: u32 },
}

/// Where the kind of event starts in the first of an [`AirEv`]'s packed words.
const KIND_SHIFT: u32 = 28;
/// Wireless nodes in a run, at most: the node shares the first packed word with the kind of
/// event (far beyond what memory holds: a transmission keeps a received power per node).
pub(crate) const MAX_NODES: usize = 1 << KIND_SHIFT;

impl AirEv {
    /// The event as three words, as the loop's queue carries it: the shape of the loop's own
    /// events, so that the loop's event stays 16 bytes with its own tag in front. The first
    /// word holds the kind of event in its top bits and the node below them.
    #[inline]
    pub(crate) fn pack(self) -> [u32; 3] {
        let (kind, node, a, b) = match self {
            AirEv::MacTimer { node, timer, gen } => (0, node, timer as u32, gen),
            AirEv::Rx { node, tx } => (1, node, tx, 0),
            AirEv::LlDown { node, payload, ra } => (3, node, payload, ra),
            AirEv::LlUp { node, payload } => (4, node, payload, 0),
            AirEv::RtrOut { node, payload, next } => (5, node, payload, next),
            AirEv::AodvTimer { node, what: TimerWhat::Purge } => (6, node, 0, 0),
            AirEv::AodvTimer { node, what: TimerWhat::BcastIds } => (6, node, 1, 0),
            AirEv::AodvTimer { node, what: TimerWhat::Repair(dst) } => (6, node, 2, dst),
            AirEv::Waypoint { node } => (7, node, 0, 0),
            AirEv::Command { index } => (8, 0, index, 0),
            AirEv::Wake { node } => (9, node, 0, 0),
        };
        debug_assert!((node as usize) < MAX_NODES);
        [kind << KIND_SHIFT | node, a, b]
    }

    /// The event that [`pack`](Self::pack) put in `words`.
    #[inline]
    pub(crate) fn unpack(words: [u32; 3]) -> AirEv {
        let [word, a, b] = words;
        let node = word & (MAX_NODES as u32 - 1);
        match word >> KIND_SHIFT {
            0 => AirEv::MacTimer { node, timer: TimerKind::from_u8(a as u8).expect("a MAC timer"), gen: b },
            1 => AirEv::Rx { node, tx: a },
            3 => AirEv::LlDown { node, payload: a, ra: b },
            4 => AirEv::LlUp { node, payload: a },
            5 => AirEv::RtrOut { node, payload: a, next: b },
            6 => AirEv::AodvTimer {
                node,
                what: match a {
                    0 => TimerWhat::Purge,
                    1 => TimerWhat::BcastIds,
                    _ => TimerWhat::Repair(b),
                },
            },
            7 => AirEv::Waypoint { node },
            8 => AirEv::Command { index: a },
            9 => AirEv::Wake { node },
            _ => unreachable!("an event packed by `AirEv::pack`"),
        }
    }
}

/// What the wireless stack asks of the event loop that runs it.
pub(crate) trait EventLoop {
    /// The time of the event being handled.
    fn now(&self) -> Time;
    /// Schedules `ev` at `at` (no earlier than now), after whatever is already due then.
    fn schedule(&mut self, at: Time, ev: AirEv);
    /// The key of the event being handled: its time above its insertion number. An event whose
    /// key is smaller comes before it in the order of events.
    fn key(&self) -> u128;
    /// The insertion numbers of a frame's first bit at a receiver `delay` from now and of its
    /// reception's end `txtime` later, taken now: both events keep the place among simultaneous
    /// events that scheduling them now would give, whenever they are scheduled
    /// ([`schedule_reserved`](Self::schedule_reserved)), or if they never are. The four plain
    /// numbers after the end's ([`raw`](Self::raw)) are taken too, for the timers the two
    /// events may start (net.rs, `Slot`).
    fn reserve_rx(&mut self, delay: Dur, txtime: Dur) -> (u64, u64);
    /// Schedules `ev` at `at` with insertion number `seq` from [`reserve_rx`](Self::reserve_rx),
    /// before anything later than it has happened.
    fn schedule_reserved(&mut self, at: Time, seq: u64, ev: AirEv);
    /// Takes one plain insertion number, as scheduling an event now would.
    fn reserve_raw(&mut self) -> u64;
    /// The plain insertion number in a key's low word (on ns-2's clock the low word also holds
    /// the event's double).
    fn raw(&self, low: u64) -> u64;
    /// The key of an event at `at` with plain insertion number `raw`, scheduled by the event of
    /// key `from` (on ns-2's clock its double is `from`'s plus the delay, as `schedule` gives).
    fn key_after(&self, from: u128, at: Time, raw: u64) -> u128;
    /// Schedules `ev` under `key` (from [`key_after`](Self::key_after), or a station's wake-up
    /// ahead of every other event of its time), before anything later than it has happened.
    fn schedule_key(&mut self, key: u128, ev: AirEv);
    /// The flow packet in arena slot `p`.
    fn packet(&self, p: PacketRef) -> &Packet;
    /// The scenario node at which flow packet `p` leaves the wireless network.
    fn destination(&self, p: PacketRef) -> NodeId;
    /// Throws flow packet `p` away: a wireless node could not send it on (the stack counts
    /// why in its own [`NetStats`](super::NetStats)).
    fn drop_packet(&mut self, p: PacketRef);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event comes out of the queue as it went in.
    #[test]
    fn packing_keeps_every_event() {
        let evs = [
            AirEv::MacTimer { node: 7, timer: TimerKind::Backoff, gen: u32::MAX },
            AirEv::Rx { node: 1, tx: 2 },
            AirEv::LlDown { node: 4, payload: 1 << 31 | 5, ra: u32::MAX },
            AirEv::LlUp { node: 6, payload: u32::MAX },
            AirEv::RtrOut { node: 8, payload: 9, next: 10 },
            AirEv::AodvTimer { node: 11, what: TimerWhat::Purge },
            AirEv::AodvTimer { node: 12, what: TimerWhat::BcastIds },
            AirEv::AodvTimer { node: 13, what: TimerWhat::Repair(14) },
            AirEv::Waypoint { node: 15 },
            AirEv::Command { index: 16 },
            AirEv::Wake { node: 17 },
        ];
        for e in evs {
            assert_eq!(AirEv::unpack(e.pack()), e);
        }
        let last = MAX_NODES as u32 - 1;
        let e = AirEv::LlDown { node: last, payload: u32::MAX, ra: u32::MAX };
        assert_eq!(AirEv::unpack(e.pack()), e);
        let e = AirEv::Command { index: u32::MAX };
        assert_eq!(AirEv::unpack(e.pack()), e);
    }
}
