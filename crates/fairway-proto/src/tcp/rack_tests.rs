//! Tests of RACK-TLP (RFC 8985, rack.rs) driven ACK by ACK; whole flows through the toy
//! network are in net_tests.rs.

use fairway_core::{Dur, Time};

use super::tests::{ack, drain, established, seqs, t};
use super::*;

fn blocks(v: &[(i64, i64)]) -> SackBlocks {
    let mut s = SackBlocks::default();
    for &(l, r) in v {
        s.push(l, r);
    }
    s
}

/// A Linux-like sender with RACK and without TLP (so no probe timer gets in the way).
pub(super) fn rack_cfg(tlp: bool) -> TcpConfig {
    TcpConfig {
        variant: TcpVariant::Sack,
        sack_recovery: SackRecovery::Rfc6675,
        prr: Some(PrrBound::Linux),
        timestamps: true,
        rack: true,
        tlp,
        window: 1000,
        window_init: 10,
        tick: Dur::from_millis(1),
        rto_style: RtoStyle::Linux,
        ..TcpConfig::default()
    }
}

/// An ACK at `now` of everything up to `ackno`, SACKing `sack`, echoing `echo`.
fn sack_ack(ackno: i64, sack: &[(i64, i64)], echo: Time) -> TcpAck {
    TcpAck { ts_echo: echo, sack: blocks(sack), ..ack(ackno) }
}

/// Established with RTT 100 ms (the SYN's sample, so RACK.min_RTT is 100 ms and reo_wnd
/// 25 ms); packets 1-10 left at 100 ms.
fn ten_out() -> (TcpSender, Vec<TcpSegment>) {
    let (s, _, first) = established(rack_cfg(false));
    assert_eq!(seqs(&first), (1..=10).collect::<Vec<u64>>());
    (s, first)
}

#[test]
fn rack_marks_a_packet_lost_once_a_later_one_is_sacked_and_the_reordering_window_passed() {
    let (mut s, _) = ten_out();
    // Packet 1 is missing; 2 arrives and is SACKed at 200 ms: RACK.rtt = 100 ms, RACK.xmit_ts
    // = 100 ms (packet 2's; packet 1 left at the same time, before it). reo_wnd = min_RTT / 4 =
    // 25 ms (one packet SACKed, no recovery): packet 1's deadline is 100 + 100 + 25 ms.
    s.on_ack(t(200), &sack_ack(0, &[(2, 3)], t(0)));
    assert!(drain(&mut s, t(200)).iter().all(|g| !g.retransmit));
    let k = s.rack.as_deref().unwrap();
    assert_eq!(k.reo_wnd, Dur::from_millis(25));
    assert_eq!(s.reo_deadline, Some(t(225)));
    assert!(s.poll_timeout() <= Some(t(225)));
    // Not before: the timer firing early (a stale wake-up) marks nothing.
    s.on_timeout(t(224));
    assert!(drain(&mut s, t(224)).is_empty());
    assert_eq!(s.stats().fast_retransmits, 0);
    // At the deadline the reordering timer marks it lost: fast recovery, packet 1 resent.
    s.on_timeout(t(225));
    let out = drain(&mut s, t(225));
    assert_eq!(out.first().map(|g| (g.seq, g.retransmit)), Some((1, true)), "{out:?}");
    assert_eq!((s.stats().fast_retransmits, s.stats().timeouts), (1, 0));
    assert!(s.in_recovery());
}

#[test]
fn three_sacked_packets_without_reordering_mark_the_hole_lost_at_once() {
    // RFC 8985 §6.2 step 4: no reordering seen and DupThresh packets SACKed: reo_wnd = 0, so
    // RACK finds the loss on the ACK itself, as DupThresh would.
    let (mut s, _) = ten_out();
    s.on_ack(t(200), &sack_ack(0, &[(2, 3)], t(0)));
    s.on_ack(t(201), &sack_ack(0, &[(2, 4)], t(0)));
    assert_eq!(s.stats().fast_retransmits, 0);
    s.on_ack(t(202), &sack_ack(0, &[(2, 5)], t(0)));
    assert_eq!(s.rack.as_deref().unwrap().reo_wnd, Dur::ZERO);
    assert_eq!(s.stats().fast_retransmits, 1);
    let out = drain(&mut s, t(202));
    assert!(out.iter().any(|g| g.seq == 1 && g.retransmit), "{out:?}");
}

#[test]
fn reordering_within_the_window_is_not_loss() {
    let (mut s, _) = ten_out();
    // 2 overtakes 1, which arrives 10 ms later: within reo_wnd (25 ms), so nothing is resent,
    // and RACK has seen reordering (a packet below RACK.fack delivered, never resent).
    s.on_ack(t(200), &sack_ack(0, &[(2, 3)], t(0)));
    s.on_ack(t(210), &sack_ack(2, &[], t(100)));
    s.on_timeout(t(225));
    s.on_timeout(t(300));
    assert!(drain(&mut s, t(300)).iter().all(|g| !g.retransmit));
    assert_eq!((s.stats().fast_retransmits, s.stats().retransmits), (0, 0));
    let k = s.rack.as_deref().unwrap();
    assert!(k.reordering_seen);
    // Once reordering is seen, three SACKed packets no longer zero the window (step 4): the
    // hole waits its reo_wnd.
    s.on_ack(t(300), &sack_ack(2, &[(4, 5)], t(100)));
    s.on_ack(t(301), &sack_ack(2, &[(4, 6)], t(100)));
    s.on_ack(t(302), &sack_ack(2, &[(4, 7)], t(100)));
    assert_eq!(s.rack.as_deref().unwrap().reo_wnd, Dur::from_millis(25));
    assert_eq!(s.stats().fast_retransmits, 0);
}

#[test]
fn without_rack_the_same_acks_wait_for_dupthresh() {
    // The contrast: RFC 6675 alone never resends packet 1 on one SACK, however long it waits.
    let cfg = TcpConfig { rack: false, ..rack_cfg(false) };
    let (mut s, _, _) = established(cfg);
    s.on_ack(t(200), &sack_ack(0, &[(2, 3)], t(0)));
    s.on_timeout(t(225));
    assert!(drain(&mut s, t(225)).iter().all(|g| !g.retransmit));
    assert_eq!(s.poll_timeout(), s.rtx_deadline);
}

#[test]
fn a_tail_loss_probe_goes_after_two_srtt_and_its_ack_ends_the_episode() {
    let (mut s, _, first) = established(rack_cfg(true));
    assert_eq!(first.len(), 10);
    // 1-9 acknowledged at 200 ms; 10 is outstanding alone: PTO = 2 SRTT + 200 ms (one packet
    // in flight, RFC 8985 §7.2), unless the RTO comes first.
    s.send(t(200), Some(0));
    s.on_ack(t(200), &sack_ack(9, &[], t(100)));
    let new = drain(&mut s, t(200));
    // The transfer is unlimited: the window sends new data; the PTO restarts on it.
    assert!(!new.is_empty());
    let pto = s.pto_deadline.expect("armed");
    let srtt = s.srtt().unwrap();
    assert!(pto <= t(200) + Dur(2 * srtt.0) + Dur::from_millis(200));
    assert!(pto <= s.rtx_deadline.unwrap());
    // Nothing comes back: at the PTO one new packet goes (there is one, and the receiver's
    // window allows it) whatever cwnd says; the RTO restarts from it.
    let before = s.max_seq_sent();
    s.on_timeout(pto);
    let probe = drain(&mut s, pto);
    assert_eq!(seqs(&probe), vec![(before + 1) as u64]);
    assert_eq!(s.tlp_probes(), (1, 0));
    assert_eq!(s.rtx_deadline, Some(pto + s.rto()));
    // One probe per episode: no probe timer until its ACK.
    assert_eq!(s.pto_deadline, None);
    assert_eq!(s.stats().timeouts, 0);
}
