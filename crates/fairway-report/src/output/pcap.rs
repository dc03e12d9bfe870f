//! Packets as a capture file that tcpdump and Wireshark open: the classic pcap format with
//! nanosecond timestamps and raw IPv4 link type, one record per packet leaving a link's queue
//! (what a capture on the link's sending interface sees). Each record holds the packet's real
//! headers (IPv4, then TCP, UDP or DCCP) and none of its payload: the captured length is the
//! headers', the original length the packet's size on the wire.
//!
//! Addresses and ports: node `n` (scenario order) is 10.x.y.z with x.y.z = n + 1; a flow's
//! source end uses port 32768 + its session's number (mod 32768), its sink end 1024 + the
//! flow's number (mod 31744), so that each flow, and each web session, is a stream of its own.

use fairway_model::packet_trace::PacketEvent;
use fairway_model::packet_trace::PktKind;
use fairway_model::scenario::{AppSpec, Scenario};

/// LINKTYPE_RAW: each record starts with its IP header.
const LINKTYPE_RAW: u32 = 101;
/// The magic number of a pcap file whose timestamps' second part counts nanoseconds.
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// The longest transport header written: a DCCP Response or Reset (16 + 8 + 4 bytes).
const L4_MAX: usize = 28;

/// How a flow's packets look on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// TCP with `mss` payload bytes per segment; `syn`: segment 0 is a SYN.
    Tcp {
        mss: u32,
        syn: bool,
    },
    Udp,
    /// DCCP (RFC 4340), for the CCIDs.
    Dccp,
}

/// Per flow: its wire form and its ends' nodes.
pub struct FlowWire {
    pub wire: Wire,
    pub from: u32,
    pub to: u32,
}

pub fn flow_wires(sc: &Scenario) -> Vec<FlowWire> {
    sc.flows
        .iter()
        .map(|f| {
            let wire = match &f.app {
                AppSpec::Datagram(d) if d.spec.transport().starts_with("ccid") => Wire::Dccp,
                AppSpec::Datagram(_) => Wire::Udp,
                AppSpec::Ftp { tcp } | AppSpec::Transfer { tcp, .. } | AppSpec::Web { tcp, .. } => {
                    Wire::Tcp { mss: tcp.sender.packet_size.0 as u32, syn: tcp.sender.syn }
                }
            };
            FlowWire { wire, from: f.from.0, to: f.to.0 }
        })
        .collect()
}

/// The file header (24 bytes).
pub fn file_header() -> Vec<u8> {
    let mut h = Vec::with_capacity(24);
    h.extend(MAGIC_NANOS.to_le_bytes());
    h.extend(2u16.to_le_bytes());
    h.extend(4u16.to_le_bytes());
    h.extend(0i32.to_le_bytes()); // GMT offset
    h.extend(0u32.to_le_bytes()); // timestamp accuracy
    h.extend(65_535u32.to_le_bytes()); // snapshot length
    h.extend(LINKTYPE_RAW.to_le_bytes());
    h
}

fn addr(node: u32) -> [u8; 4] {
    let n = node + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// Appends `e`'s record: its header and the packet's headers.
pub fn record(out: &mut Vec<u8>, flows: &[FlowWire], e: &PacketEvent) {
    let f = &flows[e.flow as usize];
    let data = e.kind.is_data();
    let (src, dst) = if data { (f.from, f.to) } else { (f.to, f.from) };
    let source_port = 32768 + (e.conn % 32768) as u16;
    let sink_port = 1024 + (e.flow % 31744) as u16;
    let (sport, dport) = if data { (source_port, sink_port) } else { (sink_port, source_port) };
    let mut l4 = [0u8; L4_MAX];
    let (proto, l4_len) = match f.wire {
        Wire::Tcp { mss, syn } => (6, tcp(&mut l4, e, mss, syn, sport, dport)),
        Wire::Udp => (17, udp(&mut l4, e, sport, dport)),
        Wire::Dccp => (33, dccp(&mut l4, e, sport, dport)),
    };
    let caplen = 20 + l4_len;
    // A packet smaller than its headers (ns-2's DCCP sizes some ACKs below them) is given
    // their length on the wire.
    let len = (e.size as usize).max(caplen);
    if len == caplen && proto != 17 {
        // The record holds the whole packet (a pure ACK, a SYN, a DCCP-Ack): its checksum can
        // be, and is, right. Others have payload the record leaves out; theirs stay 0.
        let at = if proto == 6 { 16 } else { 6 };
        let sum = l4_checksum(addr(src), addr(dst), proto, &l4[..l4_len]);
        l4[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    }
    let t = e.t.0;
    out.extend(((t / 1_000_000_000) as u32).to_le_bytes());
    out.extend(((t % 1_000_000_000) as u32).to_le_bytes());
    out.extend((caplen as u32).to_le_bytes());
    out.extend((len as u32).to_le_bytes());
    out.extend(ipv4(e, len, proto, addr(src), addr(dst)));
    out.extend(&l4[..l4_len]);
}

/// RFC 791's header, with RFC 3168's ECN field in the old ToS byte.
fn ipv4(e: &PacketEvent, len: usize, proto: u8, src: [u8; 4], dst: [u8; 4]) -> [u8; 20] {
    let mut h = [0u8; 20];
    h[0] = 0x45;
    h[1] = match (e.ect, e.ce) {
        (_, true) => 0b11,
        (true, false) => 0b10,
        (false, false) => 0,
    };
    h[2..4].copy_from_slice(&(len.min(65_535) as u16).to_be_bytes());
    h[4..6].copy_from_slice(&(e.uid as u16).to_be_bytes());
    h[6] = 0x40; // don't fragment
    h[8] = 64;
    h[9] = proto;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    let sum = checksum(&h);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
    h
}

/// The Internet checksum (RFC 1071) of `bytes`, an even number of them.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The checksum of a TCP (RFC 793 §3.1) or DCCP (RFC 4340 §9.1, full coverage) packet that is
/// all header: over the pseudo-header and the header, its checksum field 0.
fn l4_checksum(src: [u8; 4], dst: [u8; 4], proto: u8, header: &[u8]) -> u16 {
    let mut v = Vec::with_capacity(12 + header.len());
    v.extend(src);
    v.extend(dst);
    v.extend([0, proto]);
    v.extend((header.len() as u16).to_be_bytes());
    v.extend(header);
    checksum(&v)
}

/// RFC 793's header. Sequence numbers count bytes: with a SYN (segment 0, which takes one
/// number), segment k starts at byte (k - 1) x mss + 1; without, at k x mss + 1. An ACK of
/// segment a asks for the first byte of segment a + 1. The checksum would need the payload,
/// which the record does not hold: it is left 0.
fn tcp(h: &mut [u8; L4_MAX], e: &PacketEvent, mss: u32, syn: bool, sport: u16, dport: u16) -> usize {
    let first = |k: i64| -> u32 {
        let k = k as u32;
        if syn {
            k.wrapping_sub(1).wrapping_mul(mss).wrapping_add(1)
        } else {
            k.wrapping_mul(mss).wrapping_add(1)
        }
    };
    let (seq, ack) = match e.kind {
        PktKind::TcpAck => (0, (e.seq >= 0).then(|| first(e.seq + 1))),
        _ if e.syn => (0, None),
        _ => (first(e.seq), None),
    };
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..8].copy_from_slice(&seq.to_be_bytes());
    h[8..12].copy_from_slice(&ack.unwrap_or(0).to_be_bytes());
    h[12] = 5 << 4;
    let mut flags = 0u8;
    if e.cwr {
        flags |= 0x80;
    }
    if e.ece {
        flags |= 0x40;
    }
    if ack.is_some() {
        flags |= 0x10;
    }
    if e.kind == PktKind::TcpData && !e.syn {
        flags |= 0x08; // PSH
    }
    if e.syn {
        flags |= 0x02;
    }
    h[13] = flags;
    h[14..16].copy_from_slice(&65_535u16.to_be_bytes());
    20
}

/// RFC 768's header; checksum 0 (none, allowed over IPv4).
fn udp(h: &mut [u8; L4_MAX], e: &PacketEvent, sport: u16, dport: u16) -> usize {
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..6].copy_from_slice(&(e.size.saturating_sub(20).clamp(8, 65_535) as u16).to_be_bytes());
    8
}

/// RFC 4340 §5.1's generic header with 48-bit sequence numbers (X = 1) and what its type
/// adds: the packet's type where the trace has it (`wire_type`), else DCCP-Data for data and
/// DCCP-Ack for feedback; §5.3's acknowledgement subheader on every type but Request and Data,
/// acknowledging the highest number the other end had received (0 before any); a Request's or
/// Response's Service Code (§5.4, §5.5), which the trace does not hold: 0, "no meaningful
/// Service Code" (§8.1.2); a Reset's code and data (§5.6): 0, unspecified.
fn dccp(h: &mut [u8; L4_MAX], e: &PacketEvent, sport: u16, dport: u16) -> usize {
    let data = e.kind.is_data();
    let kind = e.wire_type.unwrap_or(if data { 2 } else { 3 });
    let acks = !matches!(kind, 0 | 2);
    let len = 16 + if acks { 8 } else { 0 } + if matches!(kind, 0 | 1 | 7) { 4 } else { 0 };
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4] = (len / 4) as u8;
    h[8] = kind << 1 | 1;
    h[10..16].copy_from_slice(&(e.seq.max(0) as u64).to_be_bytes()[2..]);
    if acks {
        h[18..24].copy_from_slice(&(e.acked.max(0) as u64).to_be_bytes()[2..]);
    }
    len
}

#[cfg(test)]
mod tests {
    use super::checksum;

    /// RFC 1071's worked example sums to 0xddf2; its checksum is the complement.
    #[test]
    fn the_checksum_is_rfc_1071s() {
        assert_eq!(checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), !0xddf2);
    }
}
