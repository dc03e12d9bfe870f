//! The SACK sender's scoreboard as ns-2's `Agent/TCP/Sack1` keeps it (its `ScoreBoardRQ`, a
//! shim over FullTCP's reassembly queue): the union of the ranges the receiver's SACK blocks
//! reported, the lowest packet not cumulatively acknowledged (`sack_min`), and a retransmission
//! pointer (`h_seqno`) that walks the holes below the highest SACKed packet, each hole once.

use super::SackBlocks;

#[derive(Debug, Clone, Default)]
pub(super) struct Scoreboard {
    /// SACKed ranges `[left, right)` in packets, disjoint, not adjacent, in order.
    blocks: Vec<(i64, i64)>,
    /// Packets they cover.
    total: i64,
    /// The highest cumulative ACK seen, plus one (-1 before any).
    sack_min: i64,
    /// The next packet the retransmission pointer may offer (-1 when cleared).
    h_seqno: i64,
    /// The last update added SACK information or moved the cumulative point over some.
    changed: bool,
}

impl Scoreboard {
    pub(super) fn new() -> Scoreboard {
        Scoreboard { blocks: vec![], total: 0, sack_min: -1, h_seqno: -1, changed: false }
    }

    /// Forgets the SACKed ranges and the retransmission pointer (ns-2 `ClearScoreBoard`; the
    /// cumulative point stays).
    pub(super) fn clear(&mut self) {
        self.blocks.clear();
        self.total = 0;
        self.h_seqno = -1;
    }

    /// An ACK with cumulative point `last_ack` and `sack` blocks (ns-2 `UpdateScoreBoard`).
    pub(super) fn update(&mut self, last_ack: i64, sack: &SackBlocks) {
        let old_total = self.total;
        self.changed = false;
        if self.sack_min <= last_ack {
            self.sack_min = last_ack + 1;
            if !self.blocks.is_empty() {
                self.clear_to(self.sack_min);
                self.changed = true;
            }
        }
        for (l, r) in sack.iter() {
            self.add(l, r);
        }
        self.changed |= old_total != self.total;
    }

    /// Whether the last update told the sender something new (ns-2 `CheckUpdate`): only such a
    /// duplicate ACK counts towards fast retransmit.
    pub(super) fn changed(&self) -> bool {
        self.changed
    }

    /// The next hole to retransmit, or `None` (ns-2 `GetNextRetran`): from the pointer on, the
    /// first packet neither cumulatively acknowledged nor SACKed that has SACKed data above it.
    pub(super) fn next_retransmit(&mut self) -> Option<i64> {
        if self.h_seqno < self.sack_min {
            self.h_seqno = self.sack_min;
        }
        let (seq, above) = self.next_hole(self.h_seqno)?;
        if seq <= 0 || above == 0 {
            return None;
        }
        if seq > self.h_seqno {
            self.h_seqno = seq;
        }
        Some(seq)
    }

    /// `seq` was retransmitted: the pointer moves past it (ns-2 `MarkRetran`).
    pub(super) fn mark_retransmitted(&mut self, seq: i64) {
        if seq >= self.h_seqno {
            self.h_seqno = seq + 1;
        }
    }

    /// The first hole at or after `seq`, with the number of SACKed ranges above it (ns-2's
    /// `nexthole`): `seq` itself if no range covers it, else the end of the range that does
    /// (a range's end counts as covered, as ns-2 counts it).
    fn next_hole(&self, seq: i64) -> Option<(i64, usize)> {
        for (i, &(l, r)) in self.blocks.iter().enumerate() {
            if l > seq {
                return Some((seq, self.blocks.len() - i));
            }
            if l <= seq && r >= seq {
                return Some((r, self.blocks.len() - i - 1));
            }
        }
        None
    }

    /// Adds `[l, r)` to the union; a range that reaches the cumulative point moves it to its
    /// end (the reassembly queue's `rcv_nxt`, which ns-2's scoreboard shares as `sack_min`).
    fn add(&mut self, l: i64, r: i64) {
        if r <= l {
            return;
        }
        let (mut l, mut r) = (l, r);
        // Ranges that overlap or touch [l, r) merge with it.
        let first = self.blocks.partition_point(|&(_, e)| e < l);
        let mut last = first;
        while last < self.blocks.len() && self.blocks[last].0 <= r {
            l = l.min(self.blocks[last].0);
            r = r.max(self.blocks[last].1);
            self.total -= self.blocks[last].1 - self.blocks[last].0;
            last += 1;
        }
        self.blocks.splice(first..last, [(l, r)]);
        self.total += r - l;
        if self.sack_min >= l {
            self.sack_min = self.sack_min.max(r);
        }
    }

    /// Drops what lies below `seq` (ns-2 `clearto`).
    fn clear_to(&mut self, seq: i64) {
        let gone = self.blocks.partition_point(|&(_, e)| e <= seq);
        for &(l, r) in &self.blocks[..gone] {
            self.total -= r - l;
        }
        self.blocks.drain(..gone);
        if let Some(b) = self.blocks.first_mut() {
            if b.0 < seq {
                self.total -= seq - b.0;
                b.0 = seq;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(v: &[(i64, i64)]) -> SackBlocks {
        let mut s = SackBlocks::default();
        for &(l, r) in v {
            s.push(l, r);
        }
        s
    }

    #[test]
    fn holes_below_sacked_data_are_offered_once_each() {
        let mut sb = Scoreboard::new();
        // Cumulative ACK 9 (packet 10 lost), 11-12 and 14 SACKed: holes 10 and 13.
        sb.update(9, &blocks(&[(14, 15), (11, 13)]));
        assert!(sb.changed());
        assert_eq!(sb.next_retransmit(), Some(10));
        sb.mark_retransmitted(10);
        assert_eq!(sb.next_retransmit(), Some(13));
        sb.mark_retransmitted(13);
        // Nothing SACKed above 15: no more holes to offer.
        assert_eq!(sb.next_retransmit(), None);
    }

    #[test]
    fn an_ack_without_new_information_is_no_change() {
        let mut sb = Scoreboard::new();
        sb.update(9, &blocks(&[(11, 13)]));
        sb.update(9, &blocks(&[(11, 13)]));
        assert!(!sb.changed());
        sb.update(9, &blocks(&[(11, 14)]));
        assert!(sb.changed());
    }

    #[test]
    fn ranges_merge_and_the_cumulative_point_clears_them() {
        let mut sb = Scoreboard::new();
        sb.update(4, &blocks(&[(6, 8), (9, 10)]));
        sb.update(4, &blocks(&[(8, 9)]));
        assert_eq!(sb.blocks, vec![(6, 10)]);
        assert_eq!(sb.total, 4);
        // The hole at 5 filled: everything up to 9 is acknowledged.
        sb.update(9, &SackBlocks::default());
        assert!(sb.blocks.is_empty() && sb.total == 0 && sb.changed());
    }
}
