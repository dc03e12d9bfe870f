//! Tests of what modern TCPs have beyond ns-2's agents: timestamps (RFC 7323), IW10 (RFC 6928),
//! RFC 6675 recovery with PRR (RFC 6937), Linux's RTO.

use fairway_core::{Dur, Time};

use super::rfc6675::{prr_sndcnt, Board, Rfc6675, Rule};
use super::rtt::RttEstimator;
use super::tests::{ack, drain, established, seqs, t};
use super::*;

fn blocks(v: &[(i64, i64)]) -> SackBlocks {
    let mut s = SackBlocks::default();
    for &(l, r) in v {
        s.push(l, r);
    }
    s
}

// ---- timestamps ---------------------------------------------------------------------------

#[test]
fn timestamps_give_one_rtt_sample_per_ack_of_new_data() {
    let cfg = TcpConfig { timestamps: true, window: 1000, ..TcpConfig::default() };
    let (mut s, mut now, round) = established(cfg);
    // The SYN's ACK gave one; ns-2's way would time one segment per round trip.
    assert_eq!(s.stats().rtt_samples, 1);
    assert_eq!(seqs(&round), vec![1, 2]);
    // Each ACK echoes its segment's TSval (sent_at); RTTs 100 ms then 130 ms.
    now += Dur::from_millis(100);
    s.on_ack(now, &TcpAck { ts_echo: round[0].sent_at, ..ack(1) });
    assert_eq!(s.stats().rtt_samples, 2);
    assert_eq!(s.last_sample, Some(Dur::from_millis(100)));
    let later = now + Dur::from_millis(30);
    s.on_ack(later, &TcpAck { ts_echo: round[1].sent_at, ..ack(2) });
    assert_eq!(s.stats().rtt_samples, 3);
    assert_eq!(s.last_sample, Some(Dur::from_millis(130)));
    // A duplicate ACK acknowledges nothing new: no sample (RFC 7323 §4).
    s.on_ack(later + Dur::from_millis(1), &TcpAck { ts_echo: round[1].sent_at, ..ack(2) });
    assert_eq!(s.stats().rtt_samples, 3);
    // Without timestamps the same ACKs give ns-2's one timed segment per round trip.
    let (mut s, now, round) = established(TcpConfig { window: 1000, ..TcpConfig::default() });
    let now = now + Dur::from_millis(100);
    s.on_ack(now, &TcpAck { ts_echo: round[0].sent_at, ..ack(1) });
    s.on_ack(now, &TcpAck { ts_echo: round[1].sent_at, ..ack(2) });
    assert_eq!(s.stats().rtt_samples, 2);
}

#[test]
fn the_sink_echoes_the_earliest_unacknowledged_tsval_and_the_one_that_fills_a_hole() {
    let seg = |seq: u64, sent_ms: u64| TcpSegment {
        seq,
        size: fairway_core::Bytes(1040),
        ect: false,
        cwr: false,
        ece: false,
        syn: false,
        retransmit: false,
        sent_at: t(sent_ms),
    };
    // RFC 7323 §4.3 (A): with delayed ACKs, the ACK of two segments echoes the first's TSval.
    let mut k = TcpSink::new(SinkConfig::delayed());
    k.on_segment(t(100), &seg(0, 0), false);
    assert_eq!(k.poll_transmit(t(100)).unwrap().ts_echo, t(0));
    k.on_segment(t(110), &seg(1, 10), false);
    k.on_segment(t(111), &seg(2, 11), false);
    assert_eq!(k.poll_transmit(t(111)).unwrap().ts_echo, t(10));
    // (C): a segment above a hole does not update TS.Recent; the one that fills it does.
    let mut k = TcpSink::new(SinkConfig::default());
    k.on_segment(t(100), &seg(0, 0), false);
    k.on_segment(t(101), &seg(1, 1), false);
    k.on_segment(t(103), &seg(3, 3), false);
    let echoes: Vec<Time> = std::iter::from_fn(|| k.poll_transmit(t(103))).map(|a| a.ts_echo).collect();
    assert_eq!(echoes, vec![t(0), t(1), t(1)]);
    k.on_segment(t(300), &seg(2, 200), false);
    let a = k.poll_transmit(t(300)).unwrap();
    assert_eq!((a.ackno, a.ts_echo), (3, t(200)));
}

#[test]
fn linux_rto_adds_the_minimum_to_srtt_where_rfc6298_floors_the_whole() {
    let est = |style| {
        let mut e = RttEstimator::new(
            Dur::from_millis(1),
            Dur::ZERO,
            Dur::from_millis(200),
            Dur::from_secs(120),
            Dur::from_secs(1),
        )
        .with_style(style);
        // A steady 100 ms: RTTVAR decays towards 0.
        for i in 0..200u64 {
            e.sample(t(1000 + i * 100), t(900 + i * 100));
        }
        e.timeout()
    };
    // RFC 6298 §2.4: max(SRTT + 4 RTTVAR, 200 ms) = 200 ms; Linux: SRTT + 200 ms.
    assert_eq!(est(RtoStyle::Rfc6298), Dur::from_millis(200));
    assert_eq!(est(RtoStyle::Linux), Dur::from_millis(300));
}

// ---- IW10 ---------------------------------------------------------------------------------

#[test]
fn iw10_follows_the_syn_exchange() {
    // RFC 6928 with ns-2's syn_: the SYN goes alone (cwnd 1), then ten data segments at once,
    // as Linux sends its initial window after the handshake.
    let cfg = TcpConfig { window_init: 10, window: 1000, ..TcpConfig::default() };
    let (s, _, first) = established(cfg.clone());
    assert_eq!(seqs(&first), (1..=10).collect::<Vec<u64>>());
    assert_eq!(s.cwnd(), 10.0);
    // If the SYN is lost, the initial window falls to one (ns-2's bugfix_ss_; RFC 5681 §3.1:
    // one segment after a lost SYN).
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    drain(&mut s, t(0));
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(seqs(&drain(&mut s, rto)), vec![0]);
    s.on_ack(rto + Dur::from_millis(100), &ack(0));
    assert_eq!(drain(&mut s, rto + Dur::from_millis(100)).len(), 1);
}

// ---- RFC 6675 -----------------------------------------------------------------------------

/// Board over packets 0..=9 with `sacked` reported.
fn board(sacked: &[(i64, i64)]) -> Rfc6675 {
    let mut r = Rfc6675::new();
    r.board.update(-1, &blocks(sacked), 9);
    r
}

#[test]
fn is_lost_needs_dupthresh_sacked_packets_above() {
    let r = board(&[(2, 4), (5, 8)]);
    assert_eq!(r.board.sacked(), 5);
    // RFC 6675 §4 IsLost: 0, 1 and 4 have at least three SACKed packets above them; 8 has none.
    assert!(r.board.is_lost(0, 3) && r.board.is_lost(1, 3) && r.board.is_lost(4, 3));
    assert!(!r.board.is_lost(8, 3));
    assert!(!r.board.is_lost(4, 4));
}

#[test]
fn set_pipe_counts_unsacked_packets_not_lost_and_retransmissions_again() {
    let mut r = board(&[(2, 4), (5, 8)]);
    // 8 and 9 are in flight; 0, 1 and 4 are lost; 2, 3, 5, 6, 7 SACKed.
    assert_eq!(r.set_pipe(9, 3, None).0, 2);
    // 0 and 1 retransmitted (HighRxt 1): each counts once more (SetPipe (b)).
    r.high_rxt = 1;
    assert_eq!(r.set_pipe(9, 3, None).0, 4);
    // After a timeout every unSACKed packet up to RecoveryPoint is lost (§5.1).
    r.high_rxt = -1;
    r.lost_to = Some(9);
    assert_eq!(r.set_pipe(9, 3, None).0, 0);
}

#[test]
fn next_seg_follows_rules_one_to_four() {
    let mut r = board(&[(2, 4), (5, 8)]);
    r.in_recovery = true;
    r.recovery_point = 9;
    // (1): the first lost packet above HighRxt.
    assert_eq!(r.next_seg(9, 3, Some(10), None), Some((0, Rule::Lost)));
    r.high_rxt = 0;
    assert_eq!(r.next_seg(9, 3, Some(10), None), Some((1, Rule::Lost)));
    r.high_rxt = 1;
    assert_eq!(r.next_seg(9, 3, Some(10), None), Some((4, Rule::Lost)));
    // (2): no lost packet left below the highest SACKed one: new data.
    r.high_rxt = 4;
    assert_eq!(r.next_seg(9, 3, Some(10), None), Some((10, Rule::New)));
    // (4): no new data and nothing unSACKed below the highest SACKed packet: the rescue
    // retransmission of the highest unSACKed packet, once.
    assert_eq!(r.next_seg(9, 3, None, None), Some((9, Rule::Rescue)));
    r.rescue_rxt = Some(9);
    assert_eq!(r.next_seg(9, 3, None, None), None);
    // (3): an unSACKed packet below the highest SACKed one that is not yet lost.
    let mut r = board(&[(3, 4)]);
    r.in_recovery = true;
    assert_eq!(r.next_seg(9, 3, None, None), Some((0, Rule::Unsacked)));
    // Outside recovery only new data (and no rule 3 or 4).
    r.in_recovery = false;
    assert_eq!(r.next_seg(9, 3, None, None), None);
    assert_eq!(r.next_seg(9, 3, Some(10), None), Some((10, Rule::New)));
}

#[test]
fn the_board_forgets_what_the_cumulative_ack_covers() {
    let mut b = Board::new();
    let u = b.update(-1, &blocks(&[(2, 5)]), 9);
    assert_eq!((u.newly_sacked, u.was_sacked), (3, 0));
    // The hole at 0-1 fills: 0..=4 acknowledged, 2-4 had been SACKed; 7 newly SACKed.
    let u = b.update(4, &blocks(&[(7, 8)]), 9);
    assert_eq!((u.newly_sacked, u.was_sacked), (1, 3));
    assert_eq!(b.sacked(), 1);
    assert!(b.is_sacked(7) && !b.is_sacked(5));
}

// ---- PRR ----------------------------------------------------------------------------------

#[test]
fn prr_sends_ssthresh_over_recoverfs_of_what_is_delivered() {
    // RFC 6937 §3 with the numbers of §3.1's first example: RecoverFS 20, ssthresh 10, one packet
    // delivered per ACK and pipe above ssthresh: sndcnt = ceil(k * 10 / 20) - prr_out, one
    // packet every other ACK, starting with the first (the fast retransmit).
    let mut out = 0u64;
    let mut sent = vec![];
    for k in 1..=8u64 {
        let n = prr_sndcnt(PrrBound::Ssrb, k, out, 1, 15, 10.0, 20, false);
        sent.push(n);
        out += n.max(0) as u64;
    }
    assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0]);
    // At or below ssthresh the bound decides: pipe 6, ssthresh 10, prr_delivered 8, prr_out 4,
    // this ACK delivered 3.
    // CRB: prr_delivered - prr_out = 4.
    assert_eq!(prr_sndcnt(PrrBound::Crb, 8, 4, 3, 6, 10.0, 20, false), 4);
    // SSRB: max(4, 3) + 1 = 5, but no more than ssthresh - pipe = 4.
    assert_eq!(prr_sndcnt(PrrBound::Ssrb, 8, 4, 3, 6, 10.0, 20, false), 4);
    assert_eq!(prr_sndcnt(PrrBound::Ssrb, 8, 4, 3, 3, 10.0, 20, false), 5);
    // Linux: max(4, 3), plus one on a safe ACK.
    assert_eq!(prr_sndcnt(PrrBound::Linux, 8, 4, 3, 3, 10.0, 20, false), 4);
    assert_eq!(prr_sndcnt(PrrBound::Linux, 8, 4, 3, 3, 10.0, 20, true), 5);
    // Linux forces the fast retransmit even when the share rounds to nothing.
    assert_eq!(prr_sndcnt(PrrBound::Linux, 1, 0, 1, 30, 10.0, 100, false), 1);
}

/// A sender with 20 packets (0..=19) outstanding and cwnd 20, packet 0 lost; the sink's 19
/// duplicate ACKs, each SACKing one more packet. Returns how many packets each ACK released
/// (the first two before recovery), and the sender.
fn single_loss(prr: Option<PrrBound>) -> (Vec<usize>, TcpSender) {
    let cfg = TcpConfig {
        variant: TcpVariant::Sack,
        sack_recovery: SackRecovery::Rfc6675,
        prr,
        syn: false,
        delay_growth: false,
        window_init: 20,
        window: 1000,
        limited_transmit: false,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    assert_eq!(drain(&mut s, t(0)).len(), 20);
    let mut per_ack = vec![];
    for k in 1..=19i64 {
        let now = t(100 + k as u64);
        s.on_ack(now, &TcpAck { sack: blocks(&[(1, k + 1)]), ..ack(-1) });
        per_ack.push(drain(&mut s, now).len());
    }
    (per_ack, s)
}

#[test]
fn prr_spreads_recovery_over_the_acks_where_rfc6675_alone_waits() {
    // PRR-SSRB: the third duplicate ACK enters recovery (ssthresh 10 from FlightSize 20) and
    // sends the retransmission; then one packet per two ACKs while pipe > ssthresh (RFC 6937
    // §3.1: 20 packets outstanding, RecoverFS 20).
    let (per_ack, mut s) = single_loss(Some(PrrBound::Ssrb));
    assert_eq!(&per_ack[..2], &[0, 0]);
    assert_eq!(&per_ack[2..12], &[1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.ssthresh(), 10.0);
    // The cumulative ACK of everything sent before recovery ends it with cwnd = ssthresh.
    s.on_ack(t(300), &ack(19));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 10.0);
    // RFC 6675 alone: cwnd = ssthresh = 10 at once; pipe (17 after the retransmission) has to
    // fall below 10 before anything more goes out, then one packet per ACK.
    let (per_ack, _) = single_loss(None);
    assert_eq!(&per_ack[2..], &[1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn after_a_timeout_only_what_the_receiver_lacks_is_resent() {
    // Packets 0 and 5 lost of 0..=9, the rest SACKed; the duplicate ACKs are lost too, so the
    // timer fires. RFC 6675 §5.1 keeps the scoreboard: 0 and 5 are resent, not 1-4 and 6-9.
    let cfg = TcpConfig {
        variant: TcpVariant::Sack,
        sack_recovery: SackRecovery::Rfc6675,
        syn: false,
        delay_growth: false,
        window_init: 10,
        window: 1000,
        limited_transmit: false,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    drain(&mut s, t(0));
    // One duplicate ACK gets through, SACKing 1-4 and 6-9: IsLost(0) holds at once (§5 (2)),
    // so recovery begins with the retransmission of 0, then 5 (NextSeg rule 1).
    s.on_ack(t(100), &TcpAck { sack: blocks(&[(6, 10), (1, 5)]), ..ack(-1) });
    let sent = seqs(&drain(&mut s, t(100)));
    assert_eq!(&sent[..2], &[0, 5]);
    // Both retransmissions are lost: the timer fires.
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(seqs(&drain(&mut s, rto)), vec![0]);
    // The ACK of 0 (cwnd 2 in slow start) brings 5 and new data, never 1-4.
    s.on_ack(rto + Dur::from_millis(100), &TcpAck { sack: blocks(&[(6, 10)]), ..ack(4) });
    let sent = seqs(&drain(&mut s, rto + Dur::from_millis(100)));
    assert_eq!(sent[0], 5);
    assert!(sent.iter().all(|&q| q == 5 || q >= 10), "{sent:?}");
}

#[test]
fn linux_like_delayed_acks_ack_every_second_segment_or_after_40_ms() {
    // `delayed_ack = "40ms"`: ns-2's DelAck sink with Linux's TCP_DELACK_MIN.
    let seg = |seq: u64| TcpSegment {
        seq,
        size: fairway_core::Bytes(1500),
        ect: false,
        cwr: false,
        ece: false,
        syn: false,
        retransmit: false,
        sent_at: Time::ZERO,
    };
    let mut k = TcpSink::new(SinkConfig { delayed_ack: Some(Dur::from_millis(40)), ..SinkConfig::default() });
    k.on_segment(t(0), &seg(0), false);
    assert_eq!(k.poll_transmit(t(0)).map(|a| a.ackno), Some(0));
    // Two in order: one ACK at the second.
    k.on_segment(t(10), &seg(1), false);
    assert!(k.poll_transmit(t(10)).is_none());
    k.on_segment(t(11), &seg(2), false);
    assert_eq!(k.poll_transmit(t(11)).map(|a| a.ackno), Some(2));
    // A lone one: after 40 ms.
    k.on_segment(t(20), &seg(3), false);
    assert_eq!(k.poll_timeout(), Some(t(60)));
    k.on_timeout(t(60));
    assert_eq!(k.poll_transmit(t(60)).map(|a| a.ackno), Some(3));
    // Out of order: at once (RFC 5681 §4.2).
    k.on_segment(t(70), &seg(5), false);
    assert_eq!(k.poll_transmit(t(70)).map(|a| a.ackno), Some(3));
}

#[test]
fn after_a_timeout_slow_start_grows_by_what_an_ack_delivered_not_by_what_was_sacked_before() {
    // 40 packets out, 0 lost, 1-39 SACKed; the retransmission of 0 is lost too, and the timer
    // fires. The ACK of 0's next copy covers 0-39: it delivers one packet (39 were SACKed
    // before), so a slow start that counts every packet acknowledged (CUBIC as ns-3.37 runs it,
    // RFC 3465 without a limit) grows by one, as Linux's (tcp_ack's `delivered`) and ns-3's do,
    // and does not leap by 40.
    let cfg = TcpConfig {
        variant: TcpVariant::Sack,
        sack_recovery: SackRecovery::Rfc6675,
        cc: "cubic",
        cc_flavor: "ns3",
        syn: false,
        delay_growth: false,
        window_init: 40,
        window: 1000,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(cfg);
    s.send(t(0), None);
    assert_eq!(drain(&mut s, t(0)).len(), 40);
    s.on_ack(t(100), &TcpAck { sack: blocks(&[(1, 40)]), ..ack(-1) });
    assert_eq!(seqs(&drain(&mut s, t(100)))[0], 0);
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(seqs(&drain(&mut s, rto)), vec![0]);
    s.on_ack(rto + Dur::from_millis(100), &ack(39));
    assert_eq!(s.cwnd(), 2.0, "one packet delivered: slow start adds one");
    // The same ACK without the SACKs before it (nothing was SACKed: all 40 are new to the
    // sender) grows the window by all 40.
    let mut s = TcpSender::new(TcpConfig { window_init: 40, ..s.config().clone() });
    s.send(t(0), None);
    drain(&mut s, t(0));
    s.on_ack(t(100), &ack(39));
    assert_eq!(s.cwnd(), 80.0);
}
