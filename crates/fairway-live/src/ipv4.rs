//! What the bottleneck reads of an IPv4 packet (RFC 791): its size, ECN field (RFC 3168 §5),
//! ToS, protocol and the ports that name its flow; and the one change it makes, setting CE.

use fairway_aqm::{Class, PacketMeta};
use fairway_core::{Bytes, FlowId};

const TCP: u8 = 6;
const UDP: u8 = 17;
/// The ECN field, the two low bits of the second byte (RFC 3168 §5): 00 Not-ECT, 01 ECT(1),
/// 10 ECT(0), 11 CE.
const ECN_MASK: u8 = 0b11;
const CE: u8 = 0b11;

/// The fields of an IPv4 header the bottleneck classifies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub tos: u8,
    pub protocol: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// TCP's or UDP's ports; 0 for other protocols and for fragments after the first.
    pub src_port: u16,
    pub dst_port: u16,
}

impl Header {
    /// Reads an IPv4 packet's header; `None` if it is not one (too short, another version, a
    /// header length out of bounds).
    pub fn parse(p: &[u8]) -> Option<Header> {
        if p.len() < 20 || p[0] >> 4 != 4 {
            return None;
        }
        let ihl = usize::from(p[0] & 0x0f) * 4;
        if ihl < 20 || p.len() < ihl {
            return None;
        }
        let protocol = p[9];
        let first_fragment = u16::from_be_bytes([p[6], p[7]]) & 0x1fff == 0;
        let (src_port, dst_port) = match (protocol, first_fragment && p.len() >= ihl + 4) {
            (TCP | UDP, true) => {
                (u16::from_be_bytes([p[ihl], p[ihl + 1]]), u16::from_be_bytes([p[ihl + 2], p[ihl + 3]]))
            }
            _ => (0, 0),
        };
        Some(Header {
            tos: p[1],
            protocol,
            src: [p[12], p[13], p[14], p[15]],
            dst: [p[16], p[17], p[18], p[19]],
            src_port,
            dst_port,
        })
    }

    /// The flow a packet belongs to: its addresses, protocol and ports, folded into an id (the
    /// same five fields always give the same id; different ones collide rarely).
    pub fn flow(&self) -> FlowId {
        let mut h: u32 = 0x811c_9dc5;
        let mut eat = |b: u8| h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        self.src.iter().chain(&self.dst).for_each(|&b| eat(b));
        eat(self.protocol);
        self.src_port.to_be_bytes().into_iter().chain(self.dst_port.to_be_bytes()).for_each(&mut eat);
        FlowId(h)
    }

    /// The class CBT and D-CBT sort it into (chung-dcbt §2): TCP; UDP its source tagged as
    /// multimedia (any DSCP bit set in the ToS byte, the "ToS bit" of chung-dcbt); other UDP and
    /// everything else untagged.
    pub fn class(&self) -> Class {
        match self.protocol {
            TCP => Class::Tcp,
            UDP if self.tos >> 2 != 0 => Class::Tagged,
            _ => Class::Untagged,
        }
    }

    /// The packet as a queue discipline sees it, `size` bytes on the wire.
    pub fn meta(&self, size: usize) -> PacketMeta {
        PacketMeta {
            size: Bytes(size as u64),
            ecn_capable: matches!(self.tos & ECN_MASK, 0b01 | 0b10),
            flow: self.flow(),
            class: self.class(),
        }
    }
}

/// Sets CE in an ECN-capable packet's header and updates its checksum incrementally
/// (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')).
pub fn mark_ce(p: &mut [u8]) {
    if p.len() < 20 {
        return;
    }
    let old = u16::from_be_bytes([p[0], p[1]]);
    p[1] |= CE;
    let new = u16::from_be_bytes([p[0], p[1]]);
    let hc = u16::from_be_bytes([p[10], p[11]]);
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    p[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header checksum computed from scratch (RFC 1071).
    fn checksum(h: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for (i, w) in h.chunks(2).enumerate() {
            if i != 5 {
                sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
            }
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    fn packet(tos: u8, protocol: u8) -> Vec<u8> {
        let mut p = vec![0x45, tos, 0, 40, 0x12, 0x34, 0x40, 0, 64, protocol, 0, 0, 10, 0, 0, 1, 10, 0, 1, 1];
        p.extend_from_slice(&[0x1f, 0x90, 0x00, 0x50]);
        p.resize(40, 0);
        let c = checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p
    }

    #[test]
    fn reads_the_fields_the_disciplines_use() {
        let h = Header::parse(&packet(0b10, TCP)).unwrap();
        assert_eq!((h.src_port, h.dst_port), (8080, 80));
        let m = h.meta(40);
        assert_eq!((m.size, m.ecn_capable, m.class), (Bytes(40), true, Class::Tcp));
        assert_eq!(Header::parse(&packet(0xb8, UDP)).unwrap().class(), Class::Tagged, "DSCP EF");
        assert_eq!(Header::parse(&packet(0, UDP)).unwrap().class(), Class::Untagged);
        assert!(!Header::parse(&packet(0, UDP)).unwrap().meta(40).ecn_capable);
        assert_ne!(Header::parse(&packet(0, UDP)).unwrap().flow(), Header::parse(&packet(0, TCP)).unwrap().flow());
        assert!(Header::parse(&[0x60; 40]).is_none(), "IPv6");
        assert!(Header::parse(&[0x45; 10]).is_none(), "short");
    }

    #[test]
    fn marking_ce_keeps_the_checksum_right() {
        for tos in [0b01, 0b10, 0xb8 | 0b10, !0b01] {
            let mut p = packet(tos, UDP);
            mark_ce(&mut p);
            assert_eq!(p[1] & ECN_MASK, CE);
            assert_eq!(u16::from_be_bytes([p[10], p[11]]), checksum(&p[..20]), "tos {tos:#x}");
        }
    }
}
