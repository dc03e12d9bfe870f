//! The TCP throughput equation TFRC uses (RFC 5348 §3.1, from Padhye et al.'s Reno model) and
//! its inverse, which the receiver needs to seed the loss history (§6.3.1).

/// TCP's average sending rate in bytes per second for segment size `s` (bytes), round-trip time
/// `r` (seconds), loss event rate `p`, retransmission timeout `t_rto` (seconds) and `b` packets
/// acknowledged per ACK (RFC 5348 §3.1):
///
/// ```text
/// X_Bps = s / (R sqrt(2 b p / 3) + t_RTO (3 sqrt(3 b p / 8) p (1 + 32 p^2)))
/// ```
///
/// Infinite for p = 0 (no loss event yet: the equation does not limit the rate).
pub fn throughput(s: f64, r: f64, p: f64, t_rto: f64, b: f64) -> f64 {
    if p <= 0.0 {
        return f64::INFINITY;
    }
    let denom = r * (2.0 * b * p / 3.0).sqrt() + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p));
    if denom <= 0.0 {
        return f64::INFINITY;
    }
    s / denom
}

/// The smallest loss event rate [`loss_rate_for`] returns.
pub const P_MIN: f64 = 1e-12;

/// The loss event rate at which [`throughput`] gives `x` bytes per second, to within one part in
/// 10^9 (RFC 5348 §6.3.1 asks for 5%; a bisection this fine costs nothing and keeps runs exact).
/// The equation falls with p, so: 1 if even p = 1 allows more than `x`, [`P_MIN`] if even that
/// allows less; `None` if `x` is not a positive finite rate or the path time `r` is not positive.
pub fn loss_rate_for(x: f64, s: f64, r: f64, t_rto: f64, b: f64) -> Option<f64> {
    if !(x > 0.0 && x.is_finite() && r > 0.0 && s > 0.0) {
        return None;
    }
    if throughput(s, r, 1.0, t_rto, b) >= x {
        return Some(1.0);
    }
    // Bisection on log p over [P_MIN, 1]: the equation is monotone in p.
    if throughput(s, r, P_MIN, t_rto, b) <= x {
        return Some(P_MIN);
    }
    let (mut lo, mut hi) = (P_MIN.ln(), 0.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if throughput(s, r, mid.exp(), t_rto, b) > x {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-9 {
            break;
        }
    }
    Some((0.5 * (lo + hi)).exp())
}

/// ns-2 2.35 Agent/DCCP/TFRC's inverse (dccp_tfrc.cc tfrc_calcP), which seeds its first loss
/// interval: 1 if even p = 1 allows `x`; else a bisection from p = 0.5 by steps of 0.25, halved
/// each time, stopped as soon as [`throughput`] (t_RTO = 4R, b = 1) is within 5% of `x`, or
/// after 50 steps.
pub fn dccp_ns2_loss_rate_for(x: f64, s: f64, r: f64) -> f64 {
    let eq = |p: f64| throughput(s, r, p, 4.0 * r, 1.0);
    if x <= eq(1.0) {
        return 1.0;
    }
    let (mut p, mut step) = (0.5, 0.25);
    for _ in 0..50 {
        let y = eq(p);
        if y > 0.95 * x && y < 1.05 * x {
            break;
        }
        if y > x {
            p += step;
        } else {
            p -= step;
        }
        step /= 2.0;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dccp_ns2s_inverse_stops_within_five_percent() {
        let (s, r) = (500.0, 0.02);
        for x in [30_000.0, 300_000.0, 3_000_000.0] {
            let p = dccp_ns2_loss_rate_for(x, s, r);
            let y = throughput(s, r, p, 4.0 * r, 1.0);
            assert!((y / x - 1.0).abs() < 0.05, "{x}: p {p} gives {y}");
        }
        assert_eq!(dccp_ns2_loss_rate_for(1.0, s, r), 1.0);
    }

    /// The simplified form RFC 5348 §3.1 gives for t_RTO = 4R and b = 1:
    /// X = s / (R (sqrt(2p/3) + 12 sqrt(3p/8) p (1 + 32 p^2))).
    #[test]
    fn the_full_equation_reduces_to_the_rfcs_simplified_form() {
        for p in [1e-6f64, 1e-4, 0.01, 0.1, 0.3, 1.0] {
            for r in [0.001f64, 0.05, 0.3] {
                let simple =
                    1000.0 / (r * ((2.0 * p / 3.0).sqrt() + 12.0 * (3.0 * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p)));
                let full = throughput(1000.0, r, p, 4.0 * r, 1.0);
                assert!((full / simple - 1.0).abs() < 1e-12, "p {p}, R {r}");
            }
        }
        assert_eq!(throughput(1000.0, 0.1, 0.0, 0.4, 1.0), f64::INFINITY);
    }

    /// RFC 4828 Table 1: TCP's and standard TFRC's rate in KBps at R = 100 ms, computed (as its
    /// table's values show) with 40 bytes of headers on each segment. Every entry with three or
    /// more significant digits is 0.06% above the equation (the table's own scripts); within 0.1%.
    #[test]
    fn rfc_4828_table_1_within_a_tenth_of_a_percent() {
        let table: [(f64, [f64; 3]); 8] = [
            (0.00001, [209.25, 2232.00, 5812.49]),
            (0.00003, [120.79, 1288.41, 3355.24]),
            (0.00010, [66.12, 705.25, 1836.58]),
            (0.00030, [38.10, 406.44, 1058.45]),
            (0.00100, [20.74, 221.23, 576.12]),
            (0.00300, [11.76, 125.49, 326.79]),
            (0.01000, [6.07, 64.75, 168.61]),
            (0.03000, [2.99, 31.90, 83.07]),
        ];
        for (p, row) in table {
            for (seg, kbps) in [14.0, 536.0, 1460.0].into_iter().zip(row) {
                if kbps < 10.0 {
                    continue; // two decimals: rounding alone is up to 0.2% there
                }
                let x = throughput(seg + 40.0, 0.1, p, 0.4, 1.0) / 1000.0;
                assert!((kbps / x - 1.0).abs() < 0.001, "p {p}, {seg} B: {x} vs {kbps}");
            }
        }
    }

    #[test]
    fn the_rate_falls_with_loss_and_with_the_round_trip() {
        let mut last = f64::INFINITY;
        for k in 1..=100 {
            let x = throughput(1000.0, 0.1, k as f64 / 100.0, 0.4, 1.0);
            assert!(x < last);
            last = x;
        }
        assert!(throughput(1000.0, 0.2, 0.01, 0.8, 1.0) < throughput(1000.0, 0.1, 0.01, 0.4, 1.0));
        // b = 2 (delayed ACKs) gives less.
        assert!(throughput(1000.0, 0.1, 0.01, 0.4, 2.0) < throughput(1000.0, 0.1, 0.01, 0.4, 1.0));
    }

    #[test]
    fn the_inverse_finds_the_loss_rate_that_gives_the_rate() {
        for p in [1e-7, 1e-5, 1e-3, 0.02, 0.2, 0.9] {
            let x = throughput(1000.0, 0.08, p, 0.32, 1.0);
            let q = loss_rate_for(x, 1000.0, 0.08, 0.32, 1.0).unwrap();
            assert!((q / p - 1.0).abs() < 1e-6, "{p} -> {q}");
        }
        // Slower than p = 1 allows: p = 1. Faster than p = 1e-12 allows: that floor.
        assert_eq!(loss_rate_for(1.0, 1000.0, 0.1, 0.4, 1.0), Some(1.0));
        assert_eq!(loss_rate_for(1e30, 1000.0, 0.1, 0.4, 1.0), Some(1e-12));
        assert_eq!(loss_rate_for(0.0, 1000.0, 0.1, 0.4, 1.0), None);
        assert_eq!(loss_rate_for(f64::NAN, 1000.0, 0.1, 0.4, 1.0), None);
        assert_eq!(loss_rate_for(1e5, 1000.0, 0.0, 0.0, 1.0), None);
    }
}
