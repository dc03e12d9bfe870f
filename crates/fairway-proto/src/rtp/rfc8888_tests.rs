//! RFC 8888's feedback: the wire form byte by byte, round trips, refusals, and the recorder.

use fairway_core::{Dur, Time};

use super::*;

fn ms(t: u64) -> Time {
    Time(t * 1_000_000)
}

#[test]
fn a_report_is_laid_out_as_section_3_1_draws_it() {
    // One stream, sequence numbers 65535, 0 and 1 (through the wrap): received with ECT(0) 1 s
    // before the report, lost, received CE with the offset unavailable.
    let fb = Feedback {
        sender_ssrc: 0x0102_0304,
        streams: vec![StreamReport {
            ssrc: 0x0A0B_0C0D,
            begin_seq: 65535,
            reports: vec![
                Report::Received { ecn: Ecn::Ect0, ato: Ato::Units(1024) },
                Report::Lost,
                Report::Received { ecn: Ecn::Ce, ato: Ato::Unavailable },
            ],
        }],
        report_timestamp: 0x1234_8000,
    };
    let mut b = vec![];
    fb.encode(&mut b);
    // 4 + 4 + 8 + 3 blocks padded to 4 (8) + 4 = 28 bytes: length field 28 / 4 - 1 = 6.
    let expected: Vec<u8> = vec![
        0x8B, 205, 0x00, 0x06, // V=2 P=0 FMT=11, PT=205, length 6
        0x01, 0x02, 0x03, 0x04, // sender SSRC
        0x0A, 0x0B, 0x0C, 0x0D, // stream SSRC
        0xFF, 0xFF, 0x00, 0x03, // begin_seq 65535, num_reports 3
        0xC4, 0x00, // R=1 ECN=10 ATO=1024: 1 10 0010000000000
        0x00, 0x00, // lost
        0xFF, 0xFF, // R=1 ECN=11 ATO=0x1FFF
        0x00, 0x00, // alignment
        0x12, 0x34, 0x80, 0x00, // report timestamp
    ];
    assert_eq!(b, expected);
    assert_eq!(fb.len(), 28);
    assert_eq!(Feedback::decode(&b), Ok(fb));
}

#[test]
fn round_trips_keep_every_field() {
    let reports: Vec<Report> = (0..9u16)
        .map(|i| match i % 4 {
            0 => Report::Lost,
            1 => Report::Received { ecn: Ecn::NotEct, ato: Ato::Units(i * 100) },
            2 => Report::Received { ecn: Ecn::Ect1, ato: Ato::OverRange },
            _ => Report::Received { ecn: Ecn::Ect0, ato: Ato::Units(ATO_MAX) },
        })
        .collect();
    let fb = Feedback {
        sender_ssrc: 7,
        streams: vec![
            StreamReport { ssrc: 1, begin_seq: 10, reports: reports.clone() },
            StreamReport { ssrc: 2, begin_seq: 0, reports: vec![] },
            StreamReport { ssrc: 3, begin_seq: 40_000, reports: reports[..4].to_vec() },
        ],
        report_timestamp: u32::MAX,
    };
    let mut b = vec![];
    fb.encode(&mut b);
    assert_eq!(b.len(), fb.len());
    assert_eq!(b.len() % 4, 0);
    assert_eq!(Feedback::decode(&b), Ok(fb));
    // No stream at all: the 12 fixed bytes.
    let empty = Feedback { sender_ssrc: 1, streams: vec![], report_timestamp: 2 };
    let mut b = vec![];
    empty.encode(&mut b);
    assert_eq!(b.len(), 12);
    assert_eq!(Feedback::decode(&b), Ok(empty));
}

#[test]
fn a_lost_packets_other_bits_are_ignored() {
    assert_eq!(Report::from_word(0x7FFF), Report::Lost);
    assert_eq!(Report::from_word(0x8000 | 0x1FFE), Report::Received { ecn: Ecn::NotEct, ato: Ato::OverRange });
}

#[test]
fn what_is_not_a_report_is_refused_with_its_reason() {
    let fb = Feedback {
        sender_ssrc: 1,
        streams: vec![StreamReport { ssrc: 2, begin_seq: 3, reports: vec![Report::Lost; 2] }],
        report_timestamp: 0,
    };
    let mut good = vec![];
    fb.encode(&mut good);
    let refuse = |b: &[u8], why: &str| {
        let e = Feedback::decode(b).expect_err(why).0;
        assert!(e.contains(why), "{e}");
    };
    refuse(&good[..8], "under the 12");
    let mut v = good.clone();
    v[0] = 0x4B;
    refuse(&v, "version 1");
    let mut v = good.clone();
    v[1] = 206;
    refuse(&v, "PT 206");
    let mut v = good.clone();
    v[0] = 0x8F;
    refuse(&v, "FMT 15");
    refuse(&good[..good.len() - 4], "length field says");
    // num_reports of 3 where the report has room for 2 blocks.
    let mut v = good.clone();
    v[15] = 3;
    refuse(&v, "3 reports run past");
    // One more word before the timestamp, the length field grown to match: 4 bytes after the
    // first stream, too few for another stream's 8-byte header.
    let mut v = good.clone();
    v.splice(good.len() - 4..good.len() - 4, [0u8; 4]);
    v[3] += 1;
    refuse(&v, "header runs past");
}

#[test]
fn ato_is_to_the_nearest_1024th_and_over_range_past_its_13_bits() {
    assert_eq!(Ato::between(ms(1000), ms(1000)), Ato::Units(0));
    assert_eq!(Ato::between(ms(0), ms(1000)), Ato::Units(1024));
    // 0.4 and 0.6 of a unit (976.5625 us).
    assert_eq!(Ato::between(Time(0), Time(390_625)), Ato::Units(0));
    assert_eq!(Ato::between(Time(0), Time(585_938)), Ato::Units(1));
    // 0x1FFD units is 7.9971 s; 8 s is over.
    assert_eq!(Ato::between(Time(0), Time(ATO_MAX as u64 * 1_000_000_000 / 1024)), Ato::Units(ATO_MAX));
    assert_eq!(Ato::between(ms(0), ms(8000)), Ato::OverRange);
    // An arrival after the report (a clock the caller got wrong) is no offset, not a negative one.
    assert_eq!(Ato::between(ms(10), ms(5)), Ato::Units(0));
    assert_eq!(Ato::Units(512).offset(), Some(Dur::from_millis(500)));
    assert_eq!(Ato::OverRange.offset(), None);
}

#[test]
fn the_report_timestamp_is_the_ntp_middle_32_bits() {
    // 70 000.5 s: 70 000 mod 65536 = 4464 = 0x1170 seconds, half a second 0x8000.
    assert_eq!(ntp_middle(Time(70_000_500_000_000)), 0x1170_8000);
    assert_eq!(ntp_middle(Time(1_000_000)), 65); // 1 ms = 65.536 / 65536 s, truncated
}

#[test]
fn the_recorder_reports_each_sequence_number_once_losses_included() {
    let mut r = Recorder::new(9);
    assert_eq!(r.report(ms(0), 100), None, "nothing seen");
    // 10, 11, 13 arrive (12 lost so far), 13 with CE.
    r.record(10, ms(100), Ecn::Ect0);
    r.record(11, ms(110), Ecn::Ect0);
    r.record(13, ms(130), Ecn::Ce);
    let s = r.report(ms(150), 100).unwrap();
    assert_eq!((s.ssrc, s.begin_seq), (9, 10));
    let rx = |ms_before: u64, ecn| Report::Received { ecn, ato: Ato::Units((ms_before * 1024 + 500) as u16 / 1000) };
    assert_eq!(s.reports, vec![rx(50, Ecn::Ect0), rx(40, Ecn::Ect0), Report::Lost, rx(20, Ecn::Ce)]);
    // 12 arrives late: it was reported lost, and is not reported again; 14 is new.
    r.record(12, ms(160), Ecn::Ect0);
    assert_eq!(r.report(ms(165), 100), None);
    r.record(14, ms(170), Ecn::Ect0);
    let s = r.report(ms(170), 100).unwrap();
    assert_eq!((s.begin_seq, s.reports.len()), (14, 1));
    // A duplicate of what is not yet reported counts once, at its first arrival.
    r.record(15, ms(180), Ecn::Ect0);
    r.record(15, ms(190), Ecn::Ce);
    assert_eq!(r.report(ms(200), 100).unwrap().reports, vec![rx(20, Ecn::Ect0)]);
}

#[test]
fn the_recorder_follows_the_sequence_number_through_its_wrap_and_caps_a_report() {
    let mut r = Recorder::new(1);
    // Before the first report a reordered packet below the first still counts.
    r.record(65534, ms(1), Ecn::NotEct);
    r.record(65533, ms(2), Ecn::NotEct);
    for (i, seq) in [65535u16, 0, 1, 2].into_iter().enumerate() {
        r.record(seq, ms(3 + i as u64), Ecn::NotEct);
    }
    // Six packets, 65533 to 2 through the wrap; at most 4 in the first report.
    let a = r.report(ms(10), 4).unwrap();
    assert_eq!((a.begin_seq, a.reports.len()), (65533, 4));
    assert!(a.reports.iter().all(|x| *x != Report::Lost));
    let b = r.report(ms(10), 4).unwrap();
    assert_eq!((b.begin_seq, b.reports.len()), (1, 2));
    assert_eq!(r.report(ms(10), 4), None);
}
