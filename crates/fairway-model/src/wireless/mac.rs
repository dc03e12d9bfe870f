//! The 802.11 MAC and PHY's parameters (ns-2's Mac/802_11 and its defaults), the frame
//! lengths and air times they imply, and the MAC's per-station counters. fairway-engine's
//! `wireless::mac` runs the MAC.

use fairway_core::{Dur, Rate};

/// The MAC and PHY parameters (ns-2's Mac/802_11 and its defaults in ns-default.tcl).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MacParams {
    pub cw_min: u32,
    pub cw_max: u32,
    pub slot: Dur,
    pub sifs: Dur,
    /// PLCP preamble and header, bits, sent at `plcp_rate`.
    pub preamble_bits: u32,
    pub plcp_header_bits: u32,
    pub plcp_rate: Rate,
    /// Unicast data frames go at `data_rate`; control, broadcast frames at `basic_rate`.
    pub data_rate: Rate,
    pub basic_rate: Rate,
    /// Unicast frames of at least this size (MAC frame, headers included) go after RTS/CTS.
    pub rts_threshold: u32,
    pub short_retry: u32,
    pub long_retry: u32,
    /// The interface queue's limit, packets.
    pub ifq_limit: usize,
}

impl Default for MacParams {
    fn default() -> MacParams {
        MacParams {
            cw_min: 31,
            cw_max: 1023,
            slot: Dur::from_micros(20),
            sifs: Dur::from_micros(10),
            preamble_bits: 144,
            plcp_header_bits: 48,
            plcp_rate: Rate::from_bps(1_000_000),
            data_rate: Rate::from_bps(1_000_000),
            basic_rate: Rate::from_bps(1_000_000),
            rts_threshold: 0,
            short_retry: 7,
            long_retry: 4,
            ifq_limit: 50,
        }
    }
}

fn bits_at(bits: u64, rate: Rate) -> Dur {
    Dur(((bits as u128 * 1_000_000_000 + rate.0 as u128 / 2) / rate.0 as u128) as u64)
}

impl MacParams {
    pub fn difs(&self) -> Dur {
        self.sifs + self.slot + self.slot
    }

    /// PLCP preamble and header, bytes.
    pub fn plcp_len(&self) -> u32 {
        (self.preamble_bits + self.plcp_header_bits) / 8
    }

    /// What the MAC adds to a packet: PLCP, the 30-byte data header and the FCS.
    pub fn header_len(&self) -> u32 {
        self.plcp_len() + 30 + 4
    }

    pub fn rts_len(&self) -> u32 {
        self.plcp_len() + 20
    }

    pub fn cts_len(&self) -> u32 {
        self.plcp_len() + 14
    }

    pub fn ack_len(&self) -> u32 {
        self.plcp_len() + 14
    }

    /// Air time of a frame of `size` bytes (PLCP included) whose body goes at `rate`.
    pub fn txtime(&self, size: u32, rate: Rate) -> Dur {
        let plcp = self.preamble_bits + self.plcp_header_bits;
        bits_at(plcp as u64, self.plcp_rate) + bits_at((size.saturating_sub(self.plcp_len()) as u64) * 8, rate)
    }

    /// EIFS: what a station waits after a frame it could not decode (ns-2: SIFS + DIFS + an
    /// ACK's length at the PLCP rate).
    pub fn eifs(&self) -> Dur {
        self.sifs + self.difs() + bits_at(self.ack_len() as u64 * 8, self.plcp_rate)
    }

    pub fn ack_time(&self) -> Dur {
        self.txtime(self.ack_len(), self.basic_rate)
    }

    pub fn cts_time(&self) -> Dur {
        self.txtime(self.cts_len(), self.basic_rate)
    }

    pub fn rts_time(&self) -> Dur {
        self.txtime(self.rts_len(), self.basic_rate)
    }
}

/// Per-station counters. Drops of frames follow what ns-2's trace shows: frames addressed to
/// (or sent by) this station, and broadcast data, that were decodable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MacStats {
    pub data_frames: u64,
    pub data_retries: u64,
    pub rts_frames: u64,
    pub cts_frames: u64,
    pub ack_frames: u64,
    pub collisions: u64,
    pub retry_drops: u64,
    pub ifq_drops: u64,
    /// Frames refused while busy with another exchange (ns-2's BSY).
    pub busy_drops: u64,
    pub duplicates: u64,
    /// RTS without CTS, data without ACK (ns-2's RTSFailureCount, ACKFailureCount).
    pub rts_failures: u64,
    pub ack_failures: u64,
}
