//! RFC 8698's update rules step by step: each test builds the feedback that puts NADA in one
//! state and checks the next rate against the equation worked by hand.

use fairway_core::{Bytes, Dur, Time};

use super::*;

const MS: u64 = 1_000_000;

fn nada() -> Nada {
    let mut n = Nada::new(NadaConfig::default()).unwrap();
    n.start(Time::ZERO);
    n
}

/// Packets of 1000 bytes sent every 10 ms from `from_ms`, arriving 50 ms later plus the queueing
/// delay `q(i)` ms (`None`: lost).
fn packets(first_seq: u64, from_ms: u64, n: u64, q: impl Fn(u64) -> Option<u64>) -> Vec<PacketResult> {
    (0..n)
        .map(|i| {
            let sent_at = Time((from_ms + 10 * i) * MS);
            PacketResult {
                seq: first_seq + i,
                size: Bytes(1000),
                sent_at,
                arrived_at: q(i).map(|d| sent_at + Dur((50 + d) * MS)),
                ecn: Ecn::NotEct,
                cluster: None,
            }
        })
        .collect()
}

fn view(rtt_ms: u64) -> SenderView {
    SenderView { fps: 30.0, rtt: Some(Dur(rtt_ms * MS)), ..SenderView::default() }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-12)
}

#[test]
fn warping_leaves_delays_under_qth_and_decays_those_above() {
    // Eq. (1) with QTH = 50 ms, LAMBDA = 0.5: 100 ms becomes 50 exp(-0.5) = 30.33 ms.
    let n = nada();
    assert_eq!(n.warp(40.0), 40.0);
    assert!(close(n.warp(100.0), 50.0 * (-0.5f64).exp(), 1e-12));
    assert!(close(n.warp(50.0), 50.0, 1e-12));
}

#[test]
fn without_queueing_or_loss_it_ramps_up_by_gamma_over_the_receiving_rate() {
    // 50 packets of 1000 B over 500 ms, none queued: r_recv = 50 x 8000 / 0.5 s = 800 kb/s
    // (all within LOGWIN); rmode 0; with rtt 100 ms, eq. (3): gamma = min(0.5, 50 / (100 + 100
    // + 120)) = 0.15625; eq. (4): r_ref = max(150k, 1.15625 x 800k) = 925 kb/s.
    let mut n = nada();
    let p = packets(0, 0, 50, |_| Some(0));
    n.on_feedback(Time(600 * MS), &p, &view(100));
    assert_eq!(n.rmode(), 0);
    assert!(close(n.r_recv(), 800e3, 1e-9), "r_recv {}", n.r_recv());
    assert!(close(n.r_ref(), 1.15625 * 800e3, 1e-9), "r_ref {}", n.r_ref());
    // A short rtt reaches GAMMA_MAX' bound only below QBOUND / 0.5 - DELTA - DFILT < 0: with
    // rtt 0, gamma = 50 / 220 = 0.227.
    let mut n = nada();
    n.on_feedback(Time(600 * MS), &p, &view(0));
    assert!(close(n.r_ref(), (1.0 + 50.0 / 220.0) * 800e3, 1e-9));
}

#[test]
fn a_queue_of_qeps_or_more_switches_to_gradual_update_by_eq_5_to_7() {
    // First report: base delay 50 ms, no queue: ramp-up to 925 kb/s as above (rtt 100 ms).
    let mut n = nada();
    n.on_feedback(Time(600 * MS), &packets(0, 0, 50, |_| Some(0)), &view(100));
    let r0 = n.r_ref();
    assert_eq!(n.x_curr(), 0.0);
    // Second report 100 ms later: 10 packets queued 20 ms. The minimum filter over the last 15
    // samples holds 5 zeros, so d_queue = 0 until 15 samples of 20: send 15.
    let p = packets(50, 500, 15, |_| Some(20));
    n.on_feedback(Time(700 * MS), &p, &view(100));
    assert_eq!(n.rmode(), 1);
    assert!(close(n.d_queue(), 20.0, 1e-9));
    // x_curr = 20 (no loss or marks); x_prev = 0; delta = 100 ms; eq. (5): x_offset = 20 -
    // 1 x 10 x 1.5M / r0; eq. (7): r = r0 - 0.5 (100/500)(x_offset/500) r0 - 0.5 x 2 (20/500) r0.
    assert!(close(n.x_curr(), 20.0, 1e-9));
    let x_offset = 20.0 - 10.0 * 1.5e6 / r0;
    let expect = r0 - 0.5 * (100.0 / 500.0) * (x_offset / 500.0) * r0 - 0.5 * 2.0 * (20.0 / 500.0) * r0;
    assert!(close(n.r_ref(), expect, 1e-9), "r_ref {} expected {expect}", n.r_ref());
}

#[test]
fn at_equilibrium_x_curr_equals_prio_xref_rmax_over_r_ref_and_the_rate_holds() {
    // x_curr = PRIO XREF RMAX / r_ref makes x_offset zero; an unchanged x_curr makes x_diff
    // zero: eq. (7) leaves r_ref as it is. With r_ref = 750 kb/s: x = 10 x 1.5M / 750k = 20 ms.
    let mut n = nada();
    n.r_ref = 750e3;
    n.x_prev = 20.0;
    n.x_curr = 20.0;
    n.rmode = 1;
    n.update_rate(Time(100 * MS), 100.0);
    assert!(close(n.r_ref(), 750e3, 1e-12));
    // Twice the equilibrium signal lowers it: x_offset = 20, x_diff = 0 (x_prev was set to 40
    // by hand): r = 750k (1 - 0.5 x 0.2 x 20/500) = 747 kb/s.
    n.x_prev = 40.0;
    n.x_curr = 40.0;
    n.update_rate(Time(200 * MS), 100.0);
    assert!(close(n.r_ref(), 750e3 * (1.0 - 0.5 * 0.2 * 20.0 / 500.0), 1e-12));
}

#[test]
fn the_rate_is_clipped_to_rmin_and_rmax() {
    // Eq. (8) and (9): a huge signal cannot go below RMIN; a huge receiving rate cannot lift
    // r_ref above RMAX.
    let mut n = nada();
    n.r_ref = 1e6;
    n.rmode = 1;
    n.x_curr = 3000.0;
    n.update_rate(Time(100 * MS), 100.0);
    assert_eq!(n.r_ref(), 150e3);
    let mut n = nada();
    n.r_recv = 10e6;
    n.rmode = 0;
    n.update_rate(Time(100 * MS), 100.0);
    assert_eq!(n.r_ref(), 1.5e6);
}

#[test]
fn losses_enter_x_curr_through_the_smoothed_ratio_squared() {
    // 50 packets, one lost: p_inst = 1/50 = 0.02; eq. (10): p_loss = 0.1 x 0.02 = 0.002; eq. (2):
    // DLOSS (p_loss / PLRREF)^2 = 10 x 0.2^2 = 0.4 ms. The loss is recent (one interval of 25
    // packets, 24 since), so the delay term is the warped d_queue, which is 0 here.
    let mut n = nada();
    n.on_feedback(Time(600 * MS), &packets(0, 0, 50, |i| (i != 25).then_some(0)), &view(100));
    assert!(close(n.p_loss(), 0.002, 1e-12), "p_loss {}", n.p_loss());
    assert!(close(n.x_curr(), 0.4, 1e-9), "x_curr {}", n.x_curr());
    assert_eq!(n.rmode(), 1, "a loss in the window means gradual update");
}

#[test]
fn marks_enter_x_curr_with_dmark_over_the_received_packets() {
    // 50 packets, 5 CE-marked: m_inst = 0.1, p_mark = 0.01 after eq. (10)'s smoothing, and
    // DMARK (p_mark / PMRREF)^2 = 2 x 1 = 2 ms.
    let mut n = nada();
    let mut p = packets(0, 0, 50, |_| Some(0));
    for x in p.iter_mut().step_by(10) {
        x.ecn = Ecn::Ce;
    }
    n.on_feedback(Time(600 * MS), &p, &view(100));
    assert!(close(n.x_curr(), 2.0, 1e-9), "x_curr {}", n.x_curr());
}

#[test]
fn the_loss_interval_is_rfc_5348s_weighted_mean_and_warping_expires_after_multiloss_intervals() {
    // Losses at packets 9, 19, ..., 89: closed intervals of 9 received packets each.
    let mut n = nada();
    let p = packets(0, 0, 90, |i| (i % 10 != 9).then_some(0));
    n.on_feedback(Time(1000 * MS), &p, &view(100));
    assert!(close(n.loss_interval().unwrap(), 9.0, 1e-12));
    // Unequal intervals weigh by RFC 5348 §5.4's 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, newest first:
    // newest 20, then seven of 9: (20 + 9 x 5) / 6 = 10.83.
    let mut m = n.clone();
    m.intervals[0] = 20;
    assert!(close(m.loss_interval().unwrap(), (20.0 + 9.0 * 5.0) / 6.0, 1e-12));
    // With a queue of 100 ms and a recent loss, the delay term is the warped 30.3 ms.
    n.d_queue = 100.0;
    assert!(close(n.delay_term(), n.warp(100.0), 1e-12));
    // Under MULTILOSS x 9 = 63 packets since the loss the warping holds; over the next 9 it
    // blends linearly (at 67.5, the mean of the two); from 72 on, d_queue alone.
    n.since_loss = 62;
    assert!(close(n.delay_term(), n.warp(100.0), 1e-12));
    n.since_loss = 63;
    assert!(close(n.delay_term(), n.warp(100.0), 1e-12));
    let mut half = n.clone();
    half.intervals.iter_mut().for_each(|x| *x = 10);
    half.since_loss = 75;
    assert!(close(half.delay_term(), 0.5 * (100.0 + n.warp(100.0)), 1e-12));
    n.since_loss = 72;
    assert_eq!(n.delay_term(), 100.0);
    n.since_loss = 10_000;
    assert_eq!(n.delay_term(), 100.0);
}

#[test]
fn the_encoder_target_and_sending_rate_split_by_the_buffer() {
    // §5.2.2's worked example: a 2000-byte buffer at 30 fps and BETA = 0.1 shifts each rate by
    // 0.1 x 8 x 2000 x 30 = 48 kb/s, within 5% of r_ref = 1.2 Mb/s (60 kb/s).
    let mut n = nada();
    n.r_ref = 1.2e6;
    assert!(close(n.r_vin(2000, 30.0), 1.2e6 - 48e3, 1e-12));
    assert!(close(n.r_send(2000, 30.0), 1.2e6 + 48e3, 1e-12));
    // Bound by 5% of r_ref, and by RMIN and RMAX: at r_ref = RMIN, r_vin stays at RMIN; at
    // r_ref = RMAX, r_send stays at RMAX.
    assert!(close(n.r_vin(100_000, 30.0), 1.2e6 * 0.95, 1e-12));
    n.r_ref = 150e3;
    assert_eq!(n.r_vin(2000, 30.0), 150e3);
    n.r_ref = 1.5e6;
    assert_eq!(n.r_send(2000, 30.0), 1.5e6);
    assert_eq!(n.r_vin(0, 30.0), 1.5e6);
}

#[test]
fn bad_settings_are_refused_by_name() {
    let e = Nada::new(NadaConfig { rmin: 2e6, ..NadaConfig::default() }).unwrap_err();
    assert!(e.contains("rmin"), "{e}");
    let e = Nada::new(NadaConfig { tau: 0.0, ..NadaConfig::default() }).unwrap_err();
    assert!(e.contains("tau"), "{e}");
    let e = Nada::new(NadaConfig { alpha: 1.5, ..NadaConfig::default() }).unwrap_err();
    assert!(e.contains("alpha"), "{e}");
}

/// RFC 8699 §6.1: NADA gives the FSE r_ref and takes FSE_R as r_ref, from which r_vin and
/// r_send follow (eq. (11)-(14)): with an empty buffer both are r_ref.
#[test]
fn coupled_the_fse_s_rate_is_the_reference_rate() {
    let mut n = nada();
    assert_eq!(n.coupled_rate(), Some(150e3));
    n.set_coupled_rate(Time::ZERO, 800e3);
    assert_eq!(n.r_ref(), 800e3);
    assert_eq!(n.coupled_rate(), Some(800e3));
    assert_eq!(n.r_vin(0, 30.0), 800e3);
    assert_eq!(n.r_send(0, 30.0), 800e3);
    assert_eq!(n.max_rate(), 1.5e6);
}
