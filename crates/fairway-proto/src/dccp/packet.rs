//! DCCP's packets as values (RFC 4340 §5): the types, the generic header's fields fairway uses,
//! and the options CCID2 and CCID3 need. [`super::wire`] writes and reads them as bytes.

/// The packet types (RFC 4340 §5.1, Table 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketType {
    Request = 0,
    Response = 1,
    Data = 2,
    Ack = 3,
    DataAck = 4,
    CloseReq = 5,
    Close = 6,
    Reset = 7,
    Sync = 8,
    SyncAck = 9,
}

impl PacketType {
    pub const ALL: [PacketType; 10] = [
        PacketType::Request,
        PacketType::Response,
        PacketType::Data,
        PacketType::Ack,
        PacketType::DataAck,
        PacketType::CloseReq,
        PacketType::Close,
        PacketType::Reset,
        PacketType::Sync,
        PacketType::SyncAck,
    ];

    pub fn from_code(code: u8) -> Option<PacketType> {
        PacketType::ALL.into_iter().find(|t| *t as u8 == code)
    }

    /// Carries an Acknowledgement Number subheader: every type but Request and Data (§5.1).
    pub fn has_ack(self) -> bool {
        !matches!(self, PacketType::Request | PacketType::Data)
    }

    /// May carry application data (§5.1); the others are the non-data packets of RFC 4341 §6.1.1.
    pub fn may_carry_data(self) -> bool {
        matches!(self, PacketType::Request | PacketType::Response | PacketType::Data | PacketType::DataAck)
    }

    pub fn name(self) -> &'static str {
        match self {
            PacketType::Request => "Request",
            PacketType::Response => "Response",
            PacketType::Data => "Data",
            PacketType::Ack => "Ack",
            PacketType::DataAck => "DataAck",
            PacketType::CloseReq => "CloseReq",
            PacketType::Close => "Close",
            PacketType::Reset => "Reset",
            PacketType::Sync => "Sync",
            PacketType::SyncAck => "SyncAck",
        }
    }
}

/// Sequence and acknowledgement numbers are 48 bits (§7.1, long form: X = 1 throughout).
pub const SEQ_MASK: u64 = (1 << 48) - 1;

/// The four feature-negotiation options (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureOp {
    ChangeL = 32,
    ConfirmL = 33,
    ChangeR = 34,
    ConfirmR = 35,
}

impl FeatureOp {
    pub fn from_code(code: u8) -> Option<FeatureOp> {
        [FeatureOp::ChangeL, FeatureOp::ConfirmL, FeatureOp::ChangeR, FeatureOp::ConfirmR]
            .into_iter()
            .find(|o| *o as u8 == code)
    }
}

/// Feature numbers fairway negotiates (§6.4, Table 4).
pub mod feature {
    /// Congestion Control ID (server-priority, a list of one-byte CCIDs).
    pub const CCID: u8 = 1;
    /// ECN Incapable (server-priority, one byte).
    pub const ECN_INCAPABLE: u8 = 4;
    /// Ack Ratio (non-negotiable, two bytes; §11.3).
    pub const ACK_RATIO: u8 = 5;
    /// Send Ack Vector (server-priority, one byte; §11.5).
    pub const SEND_ACK_VECTOR: u8 = 6;
}

/// One Change or Confirm option: the feature and its value bytes (a preference list for
/// server-priority features, one value for non-negotiable ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureOpt {
    pub op: FeatureOp,
    pub feature: u8,
    pub value: Vec<u8>,
}

/// An Ack Vector (§11.4): run-length cells, the newest first, each `state << 6 | run` covering
/// run + 1 consecutive sequence numbers going back from the Acknowledgement Number; and the ECN
/// Nonce Echo its option type carries (type 38 for 0, 39 for 1; §12.2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AckVector {
    pub nonce_echo: bool,
    pub cells: Vec<u8>,
}

/// Ack Vector states (§11.4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckState {
    Received = 0,
    ReceivedMarked = 1,
    NotReceived = 3,
}

impl AckState {
    /// State 2 is reserved: a receiver of it treats it as Not Yet Received (§11.4.1).
    pub fn from_bits(b: u8) -> AckState {
        match b & 3 {
            0 => AckState::Received,
            1 => AckState::ReceivedMarked,
            _ => AckState::NotReceived,
        }
    }
}

impl AckVector {
    /// The (seqno, state) pairs it reports, from `ack` backward.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, AckState)> + '_ {
        let mut next = ack;
        self.cells.iter().flat_map(move |&c| {
            let state = AckState::from_bits(c >> 6);
            let run = u64::from(c & 0x3f) + 1;
            let top = next;
            next = next.wrapping_sub(run) & SEQ_MASK;
            (0..run).map(move |i| (top.wrapping_sub(i) & SEQ_MASK, state))
        })
    }

    /// Sequence numbers it covers.
    pub fn span(&self) -> u64 {
        self.cells.iter().map(|&c| u64::from(c & 0x3f) + 1).sum()
    }
}

/// One loss interval of CCID3's Loss Intervals option (RFC 4342 §8.6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossIntervalOpt {
    /// Packets from the interval's first loss to its last packet not lost (24 bits).
    pub lossless_length: u32,
    /// ECN Nonce Echo of the interval (1 bit) and the data packets after the lossless part
    /// (23 bits).
    pub nonce_echo: bool,
    pub loss_length: u32,
    /// The interval's data packets (24 bits).
    pub data_length: u32,
}

/// CCID3's Loss Intervals option (RFC 4342 §8.6): the Skip Length (packets after the newest
/// interval not yet counted in it) and up to 28 intervals, the newest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LossIntervals {
    pub skip: u8,
    pub intervals: Vec<LossIntervalOpt>,
}

/// The options a packet carries (§5.8). Those fairway does not use are skipped on reading, as
/// §5.8 asks of unknown options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    pub features: Vec<FeatureOpt>,
    pub ack_vector: Option<AckVector>,
    /// NDP Count (§7.7): non-data packets since the last data packet, before this one.
    pub ndp_count: Option<u64>,
    /// Timestamp (§13.1), in units of 10 microseconds.
    pub timestamp: Option<u32>,
    /// Timestamp Echo (§13.3): the echoed timestamp and the time since it arrived (10 µs units).
    pub timestamp_echo: Option<(u32, u32)>,
    /// Elapsed Time (§13.2), 10 µs units.
    pub elapsed_time: Option<u32>,
    /// CCID3's Loss Event Rate (RFC 4342 §8.5): the inverse of p, 2^32 - 1 for none.
    pub loss_event_rate: Option<u32>,
    /// CCID3's Receive Rate (RFC 4342 §8.3), bytes per second.
    pub receive_rate: Option<u32>,
    /// CCID3's Loss Intervals (RFC 4342 §8.6).
    pub loss_intervals: Option<LossIntervals>,
}

/// A DCCP packet: the header fields and options; the application data is counted, not held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub kind: PacketType,
    /// The connection: fairway's flow id, written in the port pair (§5.1).
    pub flow: u32,
    pub seq: u64,
    /// The Acknowledgement Number, where [`PacketType::has_ack`].
    pub ack: u64,
    /// CCVal (§5.1): CCID3's window counter; 4 bits.
    pub ccval: u8,
    /// Service Code of a Request or Response (§8.1.2).
    pub service: u32,
    /// Reset Code of a Reset (§5.6).
    pub reset_code: u8,
    pub options: Options,
    /// The ECN nonce of the IP header the packet travels in (RFC 3540 §2): ECT(1) when set,
    /// ECT(0) when not (meaningless when the packet is not ECN-capable or arrives marked CE).
    /// Not part of DCCP's header: fairway's wire format carries it in the preamble's type.
    pub ecn_nonce: bool,
}

impl Packet {
    pub fn new(kind: PacketType, flow: u32, seq: u64) -> Packet {
        Packet {
            kind,
            flow,
            seq: seq & SEQ_MASK,
            ack: 0,
            ccval: 0,
            service: 0,
            reset_code: 0,
            options: Options::default(),
            ecn_nonce: false,
        }
    }
}

/// Reset Codes used here (§5.6).
pub mod reset_code {
    pub const CLOSED: u8 = 1;
    pub const ABORTED: u8 = 2;
    pub const NO_CONNECTION: u8 = 3;
    pub const PACKET_ERROR: u8 = 4;
    pub const OPTION_ERROR: u8 = 5;
    pub const MANDATORY_ERROR: u8 = 6;
    pub const BAD_SERVICE_CODE: u8 = 8;
    pub const AGGRESSION_PENALTY: u8 = 12;
}
