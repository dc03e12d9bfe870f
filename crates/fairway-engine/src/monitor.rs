//! Per-flow counters and the conservation check (docs/architecture.md, "Simulation semantics":
//! every run checks, per flow and per link, sent = delivered + dropped + in flight).

use fairway_aqm::QueueStats;
use fairway_core::Time;
use fairway_model::delay_hist::DelayHist;

use crate::driver::Header;
use crate::results::BinRow;

/// Counters of one flow over the whole run. `repr(C)` keeps the order: the sender's side and the
/// drops first, which with the flow's route and connection fill one cache line of the
/// simulator's per-flow state (see `FlowMonitor`); the receiver's side after.
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct FlowCounters {
    /// Data packets (TCP segments or UDP datagrams) sent, retransmissions included.
    pub data_sent: u64,
    pub data_sent_bytes: u64,
    pub acks_recv: u64,
    pub data_dropped: u64,
    pub acks_dropped: u64,
    /// Data packets that reached the sink, duplicates included.
    pub data_recv: u64,
    pub data_recv_bytes: u64,
    /// Data packets that were new to the sink.
    pub distinct: u64,
    pub distinct_bytes: u64,
    pub goodput_bytes: u64,
    pub acks_sent: u64,
    pub delay_sum_s: f64,
    pub delay_sq_sum_s2: f64,
    pub delay_n: u64,
    /// Sum of |D(i) - D(i-1)| over consecutive arrivals (RFC 3550 §6.4.1's D).
    pub jitter_sum_s: f64,
    pub jitter_n: u64,
    /// The last arrival's delay (none before the first: `delay_n` is 0 then).
    pub last_delay_s: f64,
    /// The delays, for their percentiles and CDF (RFC 8868 §3).
    pub delays: DelayHist,
}

impl FlowCounters {
    /// A data packet reached the sink; `new` if it was not a duplicate. Returns its delay.
    pub fn record_arrival(&mut self, pkt: &Header, now: Time, new: bool) -> f64 {
        self.data_recv += 1;
        self.data_recv_bytes += pkt.size as u64;
        if new {
            self.distinct += 1;
            self.distinct_bytes += pkt.size as u64;
            self.goodput_bytes += pkt.payload as u64;
        }
        let gap = now - pkt.sent_at;
        self.delays.record_ns(gap.as_nanos());
        let d = gap.as_secs_f64();
        // RFC 3550 §6.4.1's D against the arrival before, if there was one.
        if self.delay_n > 0 {
            self.jitter_sum_s += (d - self.last_delay_s).abs();
            self.jitter_n += 1;
        }
        self.last_delay_s = d;
        self.delay_sum_s += d;
        self.delay_sq_sum_s2 += d * d;
        self.delay_n += 1;
        d
    }

    /// sent = received + dropped + in the network, for data and for acknowledgements.
    pub fn check(&self, in_network_data: u64, in_network_acks: u64) -> Result<(), String> {
        if self.data_sent != self.data_recv + self.data_dropped + in_network_data {
            return Err(format!(
                "data: sent {} != received {} + dropped {} + in flight {}",
                self.data_sent, self.data_recv, self.data_dropped, in_network_data
            ));
        }
        if self.acks_sent != self.acks_recv + self.acks_dropped + in_network_acks {
            return Err(format!(
                "acks: sent {} != received {} + dropped {} + in flight {}",
                self.acks_sent, self.acks_recv, self.acks_dropped, in_network_acks
            ));
        }
        Ok(())
    }
}

/// One flow's counters over the run and per throughput bin.
///
/// A packet updates the run's counters only. A bin's row is what the counters gained during the
/// bin, taken when the bin ends ([`FlowMonitor::emit`], called for every flow at every bin's
/// end) or, if the flow's first event of the next bin comes first (an event at the boundary
/// itself), set aside until then. Only the delay sum is summed apart for the bin (a difference of
/// two float sums is not the sum of the bin's delays, to the last bit). With tens of thousands
/// of flows, a row of its own for every packet to update was one more cache miss per packet.
/// A flow holds at most two rows, whatever the run's length: the rows go to the run's
/// [`SeriesSink`](crate::results::SeriesSink) as the bins end.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct FlowMonitor {
    pub c: FlowCounters,
    /// The delays of the current bin's arrivals, summed.
    bin_delay_sum_s: f64,
    /// The bin the counters are in.
    bin: u32,
    /// The counters when the current bin began.
    at_bin_start: BinBase,
    /// The counts of bin `bin`, as far as it was closed.
    row: BinCounts,
    /// An earlier bin's counts, closed by an event of the next bin before the bin's end was seen.
    ended: Option<(u32, BinCounts)>,
}

impl Default for FlowMonitor {
    fn default() -> Self {
        FlowMonitor {
            bin: 0,
            c: FlowCounters::default(),
            bin_delay_sum_s: 0.0,
            at_bin_start: BinBase::default(),
            row: BinCounts::default(),
            ended: None,
        }
    }
}

impl FlowMonitor {
    pub fn new() -> FlowMonitor {
        FlowMonitor::default()
    }

    /// Moves the counters into bin `k` (never an earlier bin than the current one).
    #[inline]
    fn enter(&mut self, k: usize) {
        if k != self.bin as usize {
            self.close_bin();
            let row = std::mem::take(&mut self.row);
            // Only the bin just before can be waiting: every bin's end takes its rows.
            debug_assert!(self.ended.is_none());
            self.ended = Some((self.bin, row));
            self.bin = k as u32;
        }
    }

    /// Adds what the counters gained since the current bin began to its row. Adding, not
    /// setting: closing twice adds nothing the second time.
    #[cold]
    fn close_bin(&mut self) {
        let (c, s) = (&self.c, &self.at_bin_start);
        let row = &mut self.row;
        row.sent_pkts += c.data_sent - s.data_sent;
        row.recv_pkts += c.data_recv - s.data_recv;
        row.dropped_pkts += c.data_dropped - s.data_dropped;
        row.distinct_bytes += c.distinct_bytes - s.distinct_bytes;
        row.goodput_bytes += c.goodput_bytes - s.goodput_bytes;
        row.delay_n += c.delay_n - s.delay_n;
        row.delay_sum_s += self.bin_delay_sum_s;
        self.bin_delay_sum_s = 0.0;
        self.at_bin_start = BinBase::of(&self.c);
    }

    /// A data packet of `bytes` left the source during bin `k`.
    #[inline]
    pub fn sent(&mut self, k: usize, bytes: u64) {
        self.enter(k);
        self.c.data_sent += 1;
        self.c.data_sent_bytes += bytes;
    }

    /// A data packet was dropped during bin `k`.
    #[inline]
    pub fn data_dropped(&mut self, k: usize) {
        self.enter(k);
        self.c.data_dropped += 1;
    }

    /// A data packet reached the sink at `now`, during bin `k`; `new` if it was not a duplicate.
    #[inline]
    pub fn arrival(&mut self, k: usize, pkt: &Header, now: Time, new: bool) {
        self.enter(k);
        let d = self.c.record_arrival(pkt, now, new);
        self.bin_delay_sum_s += d;
    }

    /// Bin `k` has ended: its row, complete but for what the run loop samples at the bin's end
    /// (the window, the protocol's series). Bins end in order, each once; a bin in which the
    /// flow saw nothing gives an empty row.
    pub fn emit(&mut self, k: usize) -> BinRow {
        match self.ended {
            Some((b, row)) if b as usize == k => {
                self.ended = None;
                row.into_row()
            }
            // An earlier bin waiting means a bin's end was not seen: it cannot be.
            Some(_) => unreachable!("bins end in order"),
            None if self.bin as usize <= k => {
                self.close_bin();
                self.bin = k as u32 + 1;
                std::mem::take(&mut self.row).into_row()
            }
            // The counters are in a later bin already, and this one saw nothing.
            None => BinRow::default(),
        }
    }
}

/// What a flow's counters gained in a bin: a [`BinRow`]'s counts, kept apart from the row so
/// that what is sampled only at the bin's end does not widen every flow's state.
#[derive(Debug, Clone, Copy, Default)]
struct BinCounts {
    sent_pkts: u64,
    recv_pkts: u64,
    dropped_pkts: u64,
    distinct_bytes: u64,
    goodput_bytes: u64,
    delay_sum_s: f64,
    delay_n: u64,
}

impl BinCounts {
    fn into_row(self) -> BinRow {
        BinRow {
            sent_pkts: self.sent_pkts,
            recv_pkts: self.recv_pkts,
            dropped_pkts: self.dropped_pkts,
            distinct_bytes: self.distinct_bytes,
            goodput_bytes: self.goodput_bytes,
            delay_sum_s: self.delay_sum_s,
            delay_n: self.delay_n,
            ..BinRow::default()
        }
    }
}

/// The counters a bin's row is the difference of (48 bytes, where all the counters are 144).
#[derive(Debug, Clone, Copy, Default)]
struct BinBase {
    data_sent: u64,
    data_recv: u64,
    data_dropped: u64,
    distinct_bytes: u64,
    goodput_bytes: u64,
    delay_n: u64,
}

impl BinBase {
    fn of(c: &FlowCounters) -> BinBase {
        BinBase {
            data_sent: c.data_sent,
            data_recv: c.data_recv,
            data_dropped: c.data_dropped,
            distinct_bytes: c.distinct_bytes,
            goodput_bytes: c.goodput_bytes,
            delay_n: c.delay_n,
        }
    }
}

/// What a link's conservation check looks at.
#[derive(Debug, Clone, Copy)]
pub struct LinkCheck {
    pub stats: QueueStats,
    pub waiting: u64,
    /// Being serialised or propagating.
    pub on_wire: u64,
    pub delivered: u64,
    /// Lost on the wire by the link's loss model.
    pub lost: u64,
}

impl LinkCheck {
    /// arrivals = departures + drops + waiting, and departures = delivered + on the wire + lost.
    pub fn check(&self) -> Result<(), String> {
        let s = &self.stats;
        if s.arrivals_pkts != s.departures_pkts + s.drops() + self.waiting {
            return Err(format!(
                "arrivals {} != departures {} + drops {} + waiting {}",
                s.arrivals_pkts,
                s.departures_pkts,
                s.drops(),
                self.waiting
            ));
        }
        if s.departures_pkts != self.delivered + self.on_wire + self.lost {
            return Err(format!(
                "departures {} != delivered {} + on the wire {} + lost {}",
                s.departures_pkts, self.delivered, self.on_wire, self.lost
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_conservation_catches_a_lost_packet() {
        let c = FlowCounters {
            data_sent: 10,
            data_recv: 7,
            data_dropped: 2,
            acks_sent: 7,
            acks_recv: 7,
            ..Default::default()
        };
        assert!(c.check(1, 0).is_ok());
        assert!(c.check(0, 0).unwrap_err().contains("data"));
        assert!(c.check(1, 1).unwrap_err().contains("acks"));
    }

    fn packet(size: u32, sent_at_ms: u64) -> Header {
        let sent_at = Time(sent_at_ms * 1_000_000);
        crate::driver::Outgoing::new(crate::packet::PktKind::Datagram, size, size - 40, 0, sent_at).header()
    }

    /// The rows a flow's packets give when each packet updates its bin's row directly, as the
    /// simulator did before `FlowMonitor`: the same integers and, summed in the same order, the
    /// same floats to the last bit. Bins 1 and 3 see no packet; events of bin 2 come after a
    /// long gap.
    #[test]
    fn bin_rows_are_what_each_bin_gained() {
        // (bin, what): 0 sent, 1 arrival (new), 2 arrival (duplicate), 3 data drop.
        let events = [(0, 0), (0, 0), (0, 1), (0, 0), (0, 3), (0, 1), (2, 2), (2, 1), (2, 0), (2, 1), (4, 3)];
        let mut m = FlowMonitor::new();
        let mut want = vec![BinRow::default(); 5];
        let mut got = vec![];
        for (i, &(k, what)) in events.iter().enumerate() {
            // Every bin before this event's has ended.
            while got.len() < k {
                got.push(m.emit(got.len()));
            }
            let now = Time((i as u64 + 10) * 7_000_001);
            let p = packet(1000 + i as u32, i as u64);
            let w = &mut want[k];
            match what {
                0 => {
                    m.sent(k, p.size as u64);
                    w.sent_pkts += 1;
                }
                3 => {
                    m.data_dropped(k);
                    w.dropped_pkts += 1;
                }
                _ => {
                    let new = what == 1;
                    m.arrival(k, &p, now, new);
                    w.recv_pkts += 1;
                    if new {
                        w.distinct_bytes += p.size as u64;
                        w.goodput_bytes += p.payload as u64;
                    }
                    w.delay_sum_s += (now - p.sent_at).as_secs_f64();
                    w.delay_n += 1;
                }
            }
        }
        got.push(m.emit(4));
        let show = |rows: &[BinRow]| format!("{rows:?}");
        assert_eq!(show(&got), show(&want));
        assert_eq!(m.c.data_sent, 4);
        assert_eq!(m.c.data_recv, 5);
        assert_eq!(m.c.data_dropped, 2);
    }

    /// An event at a bin's boundary (of the next bin) can come before the bin's end is seen: the
    /// ended bin's row waits, and the event counts in the next.
    #[test]
    fn an_event_at_the_boundary_counts_in_the_next_bin() {
        let mut m = FlowMonitor::new();
        m.sent(0, 1000);
        m.sent(1, 1000);
        m.sent(1, 1000);
        assert_eq!(m.emit(0).sent_pkts, 1);
        assert_eq!(m.emit(1).sent_pkts, 2);
        assert_eq!(m.emit(2).sent_pkts, 0);
    }

    /// The layout `FlowMonitor` and the simulator's per-flow state rely on: the counters first,
    /// the sender's side (and the drops) first among them, then the bin's delay sum and the bin
    /// number.
    #[test]
    fn the_senders_counters_come_first() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(FlowMonitor, c), 0);
        assert_eq!(offset_of!(FlowCounters, acks_dropped), 32);
        assert_eq!(offset_of!(FlowMonitor, bin_delay_sum_s), std::mem::size_of::<FlowCounters>());
        assert_eq!(offset_of!(FlowMonitor, bin), std::mem::size_of::<FlowCounters>() + 8);
    }

    #[test]
    fn link_conservation_catches_a_lost_packet() {
        let stats = QueueStats { arrivals_pkts: 10, departures_pkts: 7, overflow_drops: 2, ..Default::default() };
        let ok = LinkCheck { stats, waiting: 1, on_wire: 2, delivered: 4, lost: 1 };
        assert!(ok.check().is_ok());
        assert!(LinkCheck { waiting: 0, ..ok }.check().is_err());
        assert!(LinkCheck { delivered: 3, ..ok }.check().is_err());
        assert!(LinkCheck { lost: 0, ..ok }.check().is_err());
    }
}
