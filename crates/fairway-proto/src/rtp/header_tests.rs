//! The RTP header: the bytes of worked headers, round trips, what RFC 3550 and RFC 8285 allow a
//! reader to meet, and refusals.

use super::*;

fn header(transport_seq: Option<u16>) -> RtpHeader {
    RtpHeader {
        padding: false,
        marker: true,
        payload_type: 96,
        seq: 0xABCD,
        timestamp: 0x0102_0304,
        ssrc: 0xDEAD_BEEF,
        transport_seq,
    }
}

#[test]
fn a_header_is_laid_out_as_rfc_3550_and_8285_draw_it() {
    let mut b = vec![];
    header(None).encode(&mut b);
    assert_eq!(
        b,
        [0x80, 0x80 | 96, 0xAB, 0xCD, 0x01, 0x02, 0x03, 0x04, 0xDE, 0xAD, 0xBE, 0xEF],
        "V=2 P=0 X=0 CC=0, M=1 PT=96, seq, timestamp, SSRC"
    );
    let mut b = vec![];
    header(Some(0x1234)).encode(&mut b);
    assert_eq!(b[0], 0x90, "X=1");
    assert_eq!(
        &b[12..],
        [0xBE, 0xDE, 0x00, 0x01, 0x11, 0x12, 0x34, 0x00],
        "0xBEDE, one word: ID 1 L 1, the number, padding"
    );
    assert_eq!(b.len(), header(Some(0x1234)).len());
}

#[test]
fn round_trips_keep_the_fields_and_the_payload() {
    for h in [header(None), header(Some(0)), RtpHeader { marker: false, payload_type: 0, ..header(Some(65535)) }] {
        let mut b = vec![];
        h.encode(&mut b);
        b.extend_from_slice(b"media");
        assert_eq!(RtpHeader::decode(&b), Ok((h, &b"media"[..])));
    }
}

#[test]
fn a_reader_skips_csrcs_padding_and_other_extension_elements() {
    // CC = 2, X = 1, P = 1: two CSRCs, an extension of two words holding a padding byte, an
    // element ID 3 of 2 bytes, ours (ID 1, 2 bytes) and a padding byte; the payload; 3 bytes of
    // padding.
    let mut b = vec![0xB2, 96, 0, 7, 0, 0, 0, 9, 0, 0, 0, 1];
    b.extend_from_slice(&[0xAA; 8]); // the CSRCs
    b.extend_from_slice(&[0xBE, 0xDE, 0x00, 0x02]);
    b.extend_from_slice(&[0x00, 0x31, 0xEE, 0xEE, 0x11, 0x56, 0x78, 0x00]);
    b.extend_from_slice(b"xy");
    b.extend_from_slice(&[0, 0, 3]);
    let (h, payload) = RtpHeader::decode(&b).unwrap();
    assert_eq!((h.seq, h.timestamp, h.ssrc, h.transport_seq), (7, 9, 1, Some(0x5678)));
    assert!(!h.marker);
    assert!(h.padding);
    assert_eq!(payload, b"xy");
    // ID 15 ends the list: an element after it is not read.
    let mut b = vec![0x90, 96, 0, 7, 0, 0, 0, 9, 0, 0, 0, 1, 0xBE, 0xDE, 0x00, 0x02];
    b.extend_from_slice(&[0xF0, 0x00, 0x00, 0x00, 0x11, 0x56, 0x78, 0x00]);
    assert_eq!(RtpHeader::decode(&b).unwrap().0.transport_seq, None);
    // A two-byte-header extension (another profile) is skipped whole.
    let mut b = vec![0x90, 96, 0, 7, 0, 0, 0, 9, 0, 0, 0, 1, 0x10, 0x00, 0x00, 0x01, 1, 2, 0x56, 0x78];
    b.extend_from_slice(b"p");
    assert_eq!(RtpHeader::decode(&b).unwrap(), (RtpHeader { transport_seq: None, ..header_of(&b) }, &b"p"[..]));
}

/// A packet of padding only (the sender's probe padding): P set, no payload left once the
/// padding its last byte counts is taken off.
#[test]
fn a_padding_only_packet_round_trips_with_no_payload() {
    let h = RtpHeader { padding: true, marker: false, ..header(Some(7)) };
    let mut b = vec![];
    h.encode(&mut b);
    assert_eq!(b[0], 0xB0, "V=2 P=1 X=1");
    b.extend_from_slice(&[0; 223]);
    b.push(224);
    assert_eq!(RtpHeader::decode(&b), Ok((h, &b""[..])));
}

fn header_of(b: &[u8]) -> RtpHeader {
    RtpHeader::decode(b).unwrap().0
}

#[test]
fn what_is_not_rtp_is_refused_with_its_reason() {
    let mut good = vec![];
    header(Some(3)).encode(&mut good);
    let refuse = |b: &[u8], why: &str| {
        let e = RtpHeader::decode(b).expect_err(why).0;
        assert!(e.contains(why), "{e}");
    };
    refuse(&good[..11], "under the fixed header");
    let mut v = good.clone();
    v[0] = 0x50;
    refuse(&v, "version 1");
    // Padding: a count of zero, or more than follows the fixed header.
    let mut v = good.clone();
    v[0] |= 0x20;
    v.push(0);
    refuse(&v, "0 bytes of padding");
    let mut v = good.clone();
    v[0] |= 0x20;
    v.push(200);
    refuse(&v, "200 bytes of padding");
    let mut v = good[..12].to_vec();
    v[0] |= 0x0F;
    refuse(&v, "15 CSRCs run past");
    let mut v = good.clone();
    v.truncate(14);
    refuse(&v, "extension's header runs past");
    let mut v = good.clone();
    v[15] = 9;
    refuse(&v, "extension of 9 words runs past");
}
