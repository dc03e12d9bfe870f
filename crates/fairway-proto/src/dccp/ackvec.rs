//! The receiving side of the Ack Vector (RFC 4340 §11.4, Appendix A): what arrived from the
//! peer, by sequence number, run-length encoded into each acknowledgement; and the state it may
//! forget once the peer has acknowledged an acknowledgement (Appendix A.3, RFC 4341 §6.2).

use std::collections::VecDeque;

use super::packet::{AckState, AckVector};

/// Most cells one acknowledgement carries: three full options, inside the 1020 bytes the header
/// may have with its other options (the vector may cover less than the whole window, §11.4.2).
pub const MAX_CELLS: usize = 3 * 253;
/// Most sequence numbers the record keeps when the peer never acknowledges an acknowledgement.
const MAX_TRACKED: usize = 1 << 16;

/// What arrived, newest first: `states[i]` is the state of `head - i`, with the ECN nonce it
/// arrived with (RFC 3540; false when it was not ECN-capable or was marked).
#[derive(Debug, Clone, Default)]
pub struct AckRecord {
    head: Option<u64>,
    states: VecDeque<(AckState, bool)>,
    /// (sequence number of an ack packet this end sent, the Ack Number it carried).
    sent: VecDeque<(u64, u64)>,
}

impl AckRecord {
    /// The greatest sequence number received (GSR, §7.1).
    pub fn head(&self) -> Option<u64> {
        self.head
    }

    /// Sequence numbers the record covers.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Packet `seq` arrived, ECN-marked or not (§11.4.1: CE is State 1), with `nonce` its ECN
    /// nonce (RFC 3540: ECT(1); counted only when not marked). Returns false for a duplicate or
    /// for one older than the record reaches.
    pub fn record(&mut self, seq: u64, marked: bool, nonce: bool) -> bool {
        let cell = if marked { (AckState::ReceivedMarked, false) } else { (AckState::Received, nonce) };
        let Some(head) = self.head else {
            self.head = Some(seq);
            self.states.push_front(cell);
            return true;
        };
        if seq > head {
            let gap = (seq - head - 1) as usize;
            if gap >= MAX_TRACKED {
                // A jump past what the record can hold starts it afresh.
                self.states.clear();
            } else {
                for _ in 0..gap {
                    self.states.push_front((AckState::NotReceived, false));
                }
            }
            self.states.push_front(cell);
            self.head = Some(seq);
            self.states.truncate(MAX_TRACKED);
            return true;
        }
        match self.states.get_mut((head - seq) as usize) {
            Some(s) if s.0 == AckState::NotReceived => {
                *s = cell;
                true
            }
            _ => false,
        }
    }

    /// The Ack Vector for an acknowledgement of the head, at most [`MAX_CELLS`] cells, with its
    /// ECN Nonce Echo: the one-bit sum of the nonces of the packets it reports as State 0
    /// (RFC 4340 §12.2).
    pub fn vector(&self) -> AckVector {
        let mut cells = Vec::new();
        let mut echo = false;
        let mut it = self.states.iter().copied().peekable();
        while let Some((s, nonce)) = it.next() {
            if cells.len() == MAX_CELLS {
                break;
            }
            echo ^= nonce;
            // A run of up to 64 equal states in one cell (§11.4: run length 0..63).
            let mut run = 0u8;
            while run < 63 && it.peek().is_some_and(|x| x.0 == s) {
                echo ^= it.next().is_some_and(|x| x.1);
                run += 1;
            }
            cells.push((s as u8) << 6 | run);
        }
        AckVector { nonce_echo: echo, cells }
    }

    /// This end sent an acknowledgement `my_seq` whose Ack Number was `ack`.
    pub fn sent_ack(&mut self, my_seq: u64, ack: u64) {
        self.sent.push_back((my_seq, ack));
        if self.sent.len() > MAX_TRACKED {
            self.sent.pop_front();
        }
    }

    /// The peer acknowledged this end's packet `my_seq` (its Ack Number): if that packet carried
    /// an Ack Vector, the peer has what it said, and the state up to its Ack Number goes
    /// (Appendix A.3).
    pub fn peer_acked(&mut self, my_seq: u64) {
        let mut upto = None;
        while let Some(&(s, a)) = self.sent.front() {
            if s > my_seq {
                break;
            }
            if s == my_seq {
                upto = Some(a);
            }
            self.sent.pop_front();
        }
        if let (Some(a), Some(head)) = (upto, self.head) {
            // Keep head down to a + 1; the acknowledged vector covered a and below.
            let keep = head.saturating_sub(a) as usize;
            self.states.truncate(keep.max(1).min(self.states.len()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(r: &AckRecord) -> Vec<(u64, AckState)> {
        r.vector().iter(r.head().unwrap()).collect()
    }

    #[test]
    fn arrivals_become_the_runs_of_rfc_4340_s_example() {
        // §11.4's example in reverse: 88-93 arrive, 94 marked, 95-98, 99 lost, 100.
        let mut r = AckRecord::default();
        for s in 88..=93 {
            assert!(r.record(s, false, false));
        }
        r.record(94, true, false);
        for s in 95..=98 {
            r.record(s, false, false);
        }
        r.record(100, false, false);
        assert_eq!(r.vector().cells, vec![0x00, 0xc0, 0x03, 0x40, 0x05]);
        // 99 arrives late: the hole fills.
        assert!(r.record(99, false, false));
        assert!(!r.record(99, false, false), "a duplicate");
        assert_eq!(r.vector().cells, vec![0x05, 0x40, 0x05]);
    }

    #[test]
    fn long_runs_split_at_64() {
        let mut r = AckRecord::default();
        for s in 0..130 {
            r.record(s, false, false);
        }
        assert_eq!(r.vector().cells, vec![63, 63, 1]);
        assert_eq!(r.vector().span(), 130);
    }

    #[test]
    fn an_acknowledged_acknowledgement_frees_what_it_covered() {
        let mut r = AckRecord::default();
        for s in 10..20 {
            r.record(s, false, false);
        }
        r.sent_ack(500, 19);
        for s in 20..25 {
            r.record(s, false, false);
        }
        r.sent_ack(501, 24);
        r.peer_acked(500);
        assert_eq!(states(&r).iter().map(|x| x.0).collect::<Vec<_>>(), vec![24, 23, 22, 21, 20]);
        // An ack of a packet that was not an acknowledgement frees nothing.
        r.peer_acked(400);
        assert_eq!(r.len(), 5);
        r.peer_acked(501);
        assert_eq!(r.len(), 1, "the head stays, so the next vector starts from it");
    }

    /// §12.2: the echo is the one-bit sum of the nonces of the packets reported as State 0;
    /// marked and missing packets do not count.
    #[test]
    fn the_nonce_echo_sums_the_received_packets_nonces() {
        let mut r = AckRecord::default();
        // 1 (nonce 1), 2 (nonce 1), 3 missing, 4 marked (its nonce lost), 5 (nonce 1).
        r.record(1, false, true);
        r.record(2, false, true);
        r.record(4, true, true);
        r.record(5, false, true);
        assert!(r.vector().nonce_echo, "three nonces of 1");
        r.record(3, false, true);
        assert!(!r.vector().nonce_echo, "four");
        let mut r = AckRecord::default();
        // A run longer than one cell (64): 100 packets, nonce 1 on every third.
        for s in 0..100u64 {
            r.record(s, false, s % 3 == 0);
        }
        assert_eq!(r.vector().nonce_echo, (0..100).filter(|s| s % 3 == 0).count() % 2 == 1);
    }
}
