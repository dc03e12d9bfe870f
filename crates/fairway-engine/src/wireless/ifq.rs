//! The interface queue between the link layer and the MAC: ns-2's Queue/DropTail/PriQueue,
//! a drop-tail FIFO in which routing protocols' packets go to the head (queue/priqueue.cc).

use std::collections::VecDeque;

/// A packet waiting for the MAC, with its link-layer destination already resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IfqItem {
    /// The engine's handle of what the frame carries.
    pub payload: u32,
    /// The MAC destination (a node, or [`super::mac::BROADCAST`]).
    pub ra: u32,
    /// The frame's size on the air, MAC and PLCP headers included, bytes.
    pub size: u32,
    /// A routing protocol's packet: served first.
    pub priority: bool,
}

#[derive(Debug)]
pub struct Ifq {
    q: VecDeque<IfqItem>,
    limit: usize,
}

impl Ifq {
    pub fn new(limit: usize) -> Ifq {
        Ifq { q: VecDeque::new(), limit }
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Takes `it`; returns what it had to throw away, if anything. A normal packet is refused
    /// when the queue would reach its limit (ns-2 DropTail::enque: `length + 1 >= limit`, so 49
    /// wait behind the one at the MAC with limit 50); a priority packet goes to the head and
    /// pushes the tail out instead (PriQueue::recvHighPriority).
    pub fn enqueue(&mut self, it: IfqItem) -> Option<IfqItem> {
        if it.priority {
            self.q.push_front(it);
            if self.q.len() >= self.limit {
                return self.q.pop_back();
            }
            None
        } else if self.q.len() + 1 >= self.limit {
            Some(it)
        } else {
            self.q.push_back(it);
            None
        }
    }

    pub fn dequeue(&mut self) -> Option<IfqItem> {
        self.q.pop_front()
    }

    /// Removes every packet for MAC destination `ra` (a routing protocol's response to a
    /// broken link), in order.
    pub fn remove_for(&mut self, ra: u32) -> Vec<IfqItem> {
        let mut out = vec![];
        self.q.retain(|it| {
            if it.ra == ra {
                out.push(*it);
                false
            } else {
                true
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(payload: u32, priority: bool) -> IfqItem {
        IfqItem { payload, ra: payload % 2, size: 100, priority }
    }

    #[test]
    fn drop_tail_holds_one_less_than_its_limit() {
        let mut q = Ifq::new(3);
        assert_eq!(q.enqueue(item(1, false)), None);
        assert_eq!(q.enqueue(item(2, false)), None);
        assert_eq!(q.enqueue(item(3, false)), Some(item(3, false)));
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn routing_packets_jump_the_queue_and_push_out_the_tail() {
        let mut q = Ifq::new(3);
        q.enqueue(item(1, false));
        q.enqueue(item(2, false));
        assert_eq!(q.enqueue(item(9, true)), Some(item(2, false)));
        assert_eq!(q.dequeue(), Some(item(9, true)));
        assert_eq!(q.dequeue(), Some(item(1, false)));
    }

    #[test]
    fn remove_for_takes_one_next_hops_packets() {
        let mut q = Ifq::new(10);
        for p in 1..=5 {
            q.enqueue(item(p, false));
        }
        let gone: Vec<u32> = q.remove_for(1).iter().map(|i| i.payload).collect();
        assert_eq!(gone, vec![1, 3, 5]);
        assert_eq!(q.len(), 2);
    }
}
