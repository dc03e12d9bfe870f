//! The buffer every discipline keeps its waiting packets in: a FIFO of packet references with
//! their sizes and whatever the discipline needs to remember of each (its class, its flow, when
//! it arrived), and the bytes waiting.

use std::collections::VecDeque;

use fairway_core::{Bytes, PacketRef};

/// One waiting packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued<T> {
    pub pkt: PacketRef,
    /// Its size on the wire.
    pub size: Bytes,
    /// What the discipline keeps with it.
    pub tag: T,
}

/// Packets in arrival order, with their byte count.
#[derive(Debug, Clone)]
pub struct Fifo<T = ()> {
    q: VecDeque<Queued<T>>,
    bytes: Bytes,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo { q: VecDeque::new(), bytes: Bytes(0) }
    }
}

impl<T> Fifo<T> {
    pub fn new() -> Fifo<T> {
        Fifo::default()
    }

    #[inline]
    pub fn push(&mut self, pkt: PacketRef, size: Bytes, tag: T) {
        self.bytes += size;
        self.q.push_back(Queued { pkt, size, tag });
    }

    /// Takes the packet at the head.
    #[inline]
    pub fn pop(&mut self) -> Option<Queued<T>> {
        let e = self.q.pop_front()?;
        self.bytes = Bytes(self.bytes.0 - e.size.0);
        Some(e)
    }

    /// The packet at the head, left in place.
    pub fn front(&self) -> Option<&Queued<T>> {
        self.q.front()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> Bytes {
        self.bytes
    }

    /// The waiting packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = &Queued<T>> {
        self.q.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_bytes() {
        let mut f: Fifo<u8> = Fifo::new();
        f.push(PacketRef(1), Bytes(100), 7);
        f.push(PacketRef(2), Bytes(40), 9);
        assert_eq!((f.len(), f.bytes()), (2, Bytes(140)));
        assert_eq!(f.front().map(|e| e.tag), Some(7));
        assert_eq!(f.pop(), Some(Queued { pkt: PacketRef(1), size: Bytes(100), tag: 7 }));
        assert_eq!((f.len(), f.bytes()), (1, Bytes(40)));
        assert_eq!(f.pop().map(|e| e.pkt), Some(PacketRef(2)));
        assert!(f.is_empty() && f.bytes() == Bytes(0) && f.pop().is_none());
    }
}
