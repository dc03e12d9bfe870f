//! Per-flow counters and the conservation check (DESIGN.md: "every run checks, per flow and
//! per link, sent = delivered + dropped + in flight").

use fairway_aqm::QueueStats;
use fairway_core::Time;

use crate::packet::Packet;
use crate::results::BinRow;

/// Counters of one flow over the whole run.
#[derive(Debug, Clone, Default)]
pub struct FlowCounters {
    /// Data packets (TCP segments or UDP datagrams) sent, retransmissions included.
    pub data_sent: u64,
    pub data_sent_bytes: u64,
    /// Data packets that reached the sink, duplicates included.
    pub data_recv: u64,
    pub data_recv_bytes: u64,
    /// Data packets that were new to the sink.
    pub distinct: u64,
    pub distinct_bytes: u64,
    pub goodput_bytes: u64,
    pub data_dropped: u64,
    pub acks_sent: u64,
    pub acks_recv: u64,
    pub acks_dropped: u64,
    pub delay_sum_s: f64,
    pub delay_sq_sum_s2: f64,
    pub delay_n: u64,
    /// Sum of |D(i) - D(i-1)| over consecutive arrivals (RFC 3550 §6.4.1's D).
    pub jitter_sum_s: f64,
    pub jitter_n: u64,
    pub last_delay_s: Option<f64>,
}

impl FlowCounters {
    /// A data packet reached the sink; `new` if it was not a duplicate.
    pub fn record_arrival(&mut self, bin: &mut BinRow, pkt: &Packet, now: Time, new: bool) {
        self.data_recv += 1;
        self.data_recv_bytes += pkt.size as u64;
        bin.recv_pkts += 1;
        if new {
            self.distinct += 1;
            self.distinct_bytes += pkt.size as u64;
            self.goodput_bytes += pkt.payload as u64;
            bin.distinct_bytes += pkt.size as u64;
            bin.goodput_bytes += pkt.payload as u64;
        }
        let d = (now - pkt.sent_at).as_secs_f64();
        self.delay_sum_s += d;
        self.delay_sq_sum_s2 += d * d;
        self.delay_n += 1;
        bin.delay_sum_s += d;
        bin.delay_n += 1;
        if let Some(prev) = self.last_delay_s {
            self.jitter_sum_s += (d - prev).abs();
            self.jitter_n += 1;
        }
        self.last_delay_s = Some(d);
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
