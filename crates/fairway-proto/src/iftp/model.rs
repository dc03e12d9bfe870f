//! The bandwidth of standard-mode IFTP in closed form (elaarag2002 §5), with the paper's symbols:
//! N packets in the file, P the packet size in bits, R the round trip time in seconds (one
//! adjustment period), W_s = ssthresh (a power of two), W_max the largest window, p the packet
//! drop rate, tau one packet's transmission time. Bandwidths are in bits per second.
//!
//! Garbled or inconsistent equations, and what is implemented:
//! - Eq. (17), case 1, reads "⌈lg N⌉ + 1 × R" with "⌈x⌉ ... the smallest integer greater than x".
//!   Windows 1, 2, 4, ... carry 2^k - 1 packets in k rounds, so N packets need ⌊lg N⌋ + 1 rounds
//!   (= ⌈lg(N + 1)⌉): that is the paper's "smallest integer greater than lg N" without the "+ 1",
//!   or (⌊lg N⌋ + 1) x R. Read with the usual ceiling, (⌈lg N⌉ + 1) x R is one round too many for
//!   every N that is not a power of two, and at N = N1 = 2 W_s - 1 it would not meet eq. (12)'s
//!   T1 = (lg W_s + 1) x R, where case 2 starts. ⌊lg N⌋ + 1 meets it.
//! - Eq. (18), case 2: the extracted text puts "- (2W_s + 1)" under the square root. The rounds
//!   k of congestion avoidance solve k W_s + k(k + 1)/2 >= N - N1 (windows W_s + 1, W_s + 2, ...),
//!   k = ⌈(sqrt((2W_s + 1)^2 + 8(N - 2W_s + 1)) - (2W_s + 1)) / 2⌉: the subtraction is outside.
//! - Eq. (16), N2 = (W_max - W_s - 1)(W_max + W_s)/2, is the sum W_s + 1 + ... + (W_max - 1): it
//!   leaves out the window W_max, while eq. (13) counts W_max - W_s rounds of congestion avoidance
//!   (windows W_s + 1 ... W_max, the text's "W_s < W <= W_max"). Eq. (19) takes both, so it counts
//!   the round of window W_max twice: one round too many for every N > N1 + N2, and a jump of two
//!   rounds from case 2. Implemented: N2 = (W_max - W_s)(W_max + W_s + 1)/2, the sum of the
//!   windows of eq. (13)'s rounds (printed eq. (16) + W_max), with eq. (19) otherwise as printed.
//!   Keeping eq. (16) and writing W_max - W_s - 1 rounds in eq. (19) gives the same round counts.
//!   (Eqs. (11)-(14) have the same double count.)
//! - Eq. (26) prints "R × sqrt(P)"; substituting eq. (25) in eq. (23) gives R x sqrt(p), the drop
//!   rate: theta <= 1.5 sqrt(2/3) P / (R sqrt(p)) = sqrt(3/(2p)) P/R, Floyd and Fall's
//!   1.22 P / (R sqrt(p)).
//! - Eq. (27): §5.3's 64 ms is eq. (9) with srtt = rttvar = 0 and backoff 64, i.e. 64 x the 1-ms
//!   "+ 1" tick (see the sender's timer).
//! - "the steady-state bandwidth given in Equation (13)" after eq. (20) means eq. (20).

/// lg W for a power of two W.
fn lg(w: u32) -> u64 {
    u64::from(w.trailing_zeros())
}

fn valid(w_s: u32, w_max: u32) -> bool {
    w_s.is_power_of_two() && w_max >= w_s
}

/// Eq. (15): N1 = 2^(lg W_s + 1) - 1 = 2 W_s - 1, the packets of the slow-start phase.
pub fn n1(w_s: u32) -> u64 {
    2 * u64::from(w_s) - 1
}

/// The packets of the congestion-avoidance phase, windows W_s + 1 ... W_max (eq. (13)'s rounds):
/// (W_max - W_s)(W_max + W_s + 1)/2. Eq. (16) as printed is this minus W_max (module docs).
pub fn n2(w_s: u32, w_max: u32) -> u64 {
    let (s, m) = (u64::from(w_s), u64::from(w_max.max(w_s)));
    (m - s) * (m + s + 1) / 2
}

/// Which of §5.1's cases a file of `n_packets` falls in: 1 (N <= N1, ends in slow start), 2 (N1 <
/// N <= N1 + N2, ends in congestion avoidance), 3 (longer). `None` for invalid parameters.
pub fn ideal_case(n_packets: u64, w_s: u32, w_max: u32) -> Option<u8> {
    if !valid(w_s, w_max) || n_packets == 0 {
        return None;
    }
    let (a, b) = (n1(w_s), n2(w_s, w_max));
    Some(if n_packets <= a {
        1
    } else if n_packets <= a + b {
        2
    } else {
        3
    })
}

/// The denominator of eqs. (17)-(19) in units of R: the adjustment periods an ideal (loss-free)
/// IFTP needs to send N packets. `None` for invalid parameters (W_s not a power of two, W_max <
/// W_s, N = 0).
pub fn ideal_rounds(n_packets: u64, w_s: u32, w_max: u32) -> Option<u64> {
    let n = n_packets;
    let slow_start = lg(w_s) + 1; // eq. (12): lg W_s + 1 rounds
    Some(match ideal_case(n, w_s, w_max)? {
        // Eq. (17), read as ⌊lg N⌋ + 1 (module docs).
        1 => u64::from(64 - n.leading_zeros()),
        // Eq. (18) with the square root closed before "- (2 W_s + 1)".
        2 => {
            let b = 2.0 * w_s as f64 + 1.0;
            let k = ((b * b + 8.0 * (n - n1(w_s)) as f64).sqrt() - b) / 2.0;
            slow_start + k.ceil() as u64
        }
        // Eq. (19) with N2 including the window W_max (module docs).
        _ => {
            let rest = n - n1(w_s) - n2(w_s, w_max);
            slow_start + u64::from(w_max - w_s) + rest.div_ceil(u64::from(w_max))
        }
    })
}

/// Eqs. (10), (17)-(19): theta(N) = N x P / (rounds x R), the bandwidth of an ideal IFTP sending
/// a file of N packets. NaN for invalid parameters.
pub fn ideal_bandwidth(n_packets: u64, p_bits: f64, r: f64, w_s: u32, w_max: u32) -> f64 {
    match ideal_rounds(n_packets, w_s, w_max) {
        Some(k) if p_bits > 0.0 && r > 0.0 && r.is_finite() => n_packets as f64 * p_bits / (k as f64 * r),
        _ => f64::NAN,
    }
}

/// Eq. (20): lim_{N -> inf} theta = W_max x P / R.
pub fn ideal_limit(p_bits: f64, r: f64, w_max: u32) -> f64 {
    w_max as f64 * p_bits / r
}

/// Eq. (21): n/2 + (n/2 + 1) + ... + n = 3/8 n^2 + 3/4 n, the packets of one steady-state cycle
/// of Floyd and Fall's model (n even).
pub fn packets_per_cycle(n: f64) -> f64 {
    0.375 * n * n + 0.75 * n
}

/// Eq. (24): p = 1 / (3/8 n^2 + 3/4 n), one drop per cycle.
pub fn drop_rate(n: f64) -> f64 {
    1.0 / packets_per_cycle(n)
}

/// Eq. (25), exact: n = sqrt(1 + 8/(3p)) - 1, the window at which a drop occurs.
pub fn window_at_drop_rate(p_drop: f64) -> f64 {
    (1.0 + 8.0 / (3.0 * p_drop)).sqrt() - 1.0
}

/// Eq. (25), the bound used in eq. (26): n <= sqrt(8/(3p)).
pub fn window_at_drop_rate_approx(p_drop: f64) -> f64 {
    (8.0 / (3.0 * p_drop)).sqrt()
}

/// Eqs. (22)-(23): theta_ss <= 0.75 x n x P / R (the mean window of a cycle is 3/4 n).
pub fn steady_state_bound(n: f64, p_bits: f64, r: f64) -> f64 {
    0.75 * n * p_bits / r
}

/// Eq. (26), with the printed sqrt(P) read as sqrt(p): theta_ss <= 1.5 sqrt(2/3) P / (R sqrt(p))
/// = sqrt(3/(2p)) P/R.
pub fn nonideal_bound(p_drop: f64, p_bits: f64, r: f64) -> f64 {
    1.5 * (2.0f64 / 3.0).sqrt() * p_bits / (r * p_drop.sqrt())
}

/// Eq. (23) with eq. (25)'s exact n (slightly below [`nonideal_bound`]).
pub fn nonideal_exact(p_drop: f64, p_bits: f64, r: f64) -> f64 {
    steady_state_bound(window_at_drop_rate(p_drop), p_bits, r)
}

/// Eq. (27): theta = P / (tau + 0.064), one packet per maximally backed-off timer of 64 ms when no
/// ACK ever returns (§5.3). `tau` in seconds.
pub fn worst_case(p_bits: f64, tau: f64) -> f64 {
    p_bits / (tau + 0.064)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The explicit count: windows 1, 2, 4, ..., W_s, then W_s + 1, ..., W_max, then W_max
    /// forever; the rounds until N packets are sent (the last one possibly partial).
    fn count_rounds(n: u64, w_s: u64, w_max: u64) -> u64 {
        let (mut left, mut w, mut rounds) = (n, 1u64, 0);
        while left > 0 {
            left -= left.min(w);
            rounds += 1;
            w = if w < w_s { (2 * w).min(w_s) } else { (w + 1).min(w_max) };
        }
        rounds
    }

    const SHAPES: [(u32, u32); 8] = [(1, 1), (1, 5), (2, 2), (4, 9), (8, 8), (16, 17), (32, 50), (64, 200)];

    #[test]
    fn every_case_formula_matches_the_round_by_round_count() {
        for (w_s, w_max) in SHAPES {
            let top = n1(w_s) + n2(w_s, w_max) + 5 * u64::from(w_max) + 3;
            let mut seen = [false; 3];
            for n in 1..=top {
                let want = count_rounds(n, w_s.into(), w_max.into());
                assert_eq!(ideal_rounds(n, w_s, w_max), Some(want), "N {n}, W_s {w_s}, W_max {w_max}");
                let theta = ideal_bandwidth(n, 8000.0, 0.1, w_s, w_max);
                assert!((theta - n as f64 * 8000.0 / (want as f64 * 0.1)).abs() < 1e-6 * theta);
                seen[ideal_case(n, w_s, w_max).unwrap() as usize - 1] = true;
            }
            assert!(seen[0] && seen[2] && (seen[1] || w_s == w_max), "all cases met for {w_s}, {w_max}");
        }
        // Also far out, where floating point could bite eq. (18).
        for n in [10_000u64, 123_457, 9_999_999] {
            assert_eq!(ideal_rounds(n, 1 << 12, 1 << 14), Some(count_rounds(n, 1 << 12, 1 << 14)));
        }
    }

    #[test]
    fn phase_sizes_and_the_printed_equations() {
        let (w_s, w_max) = (32u32, 50u32);
        // Eq. (15): 1 + 2 + ... + 32 = 63. N2: 33 + ... + 50 = 747.
        assert_eq!((n1(w_s), n2(w_s, w_max)), (63, (33..=50).sum::<u64>()));
        // Printed eq. (16) leaves out the window W_max.
        let printed16 = (w_max - w_s - 1) as u64 * (w_max + w_s) as u64 / 2;
        assert_eq!(printed16 + u64::from(w_max), n2(w_s, w_max));
        // Printed eq. (19) (eq. (16)'s N2, W_max - W_s rounds) is one round high in case 3.
        for n in [n1(w_s) + printed16 + 1, 1024, 5000] {
            let printed19 = 6 + u64::from(w_max - w_s) + (n - n1(w_s) - printed16).div_ceil(50);
            assert_eq!(printed19, count_rounds(n, 32, 50) + 1, "N {n}");
        }
        // Printed eq. (17) with the usual ceiling: right for powers of two, one high otherwise.
        let printed17 = |n: u64| (n as f64).log2().ceil() as u64 + 1;
        assert_eq!(printed17(3), count_rounds(3, 32, 50) + 1);
        assert_eq!(printed17(63), count_rounds(63, 32, 50) + 1);
        assert_eq!(printed17(32), count_rounds(32, 32, 50));
        // Eq. (18) with "- (2W_s + 1)" under the root gives a round of congestion avoidance at
        // N = N1, where there is none.
        let b = 65.0f64;
        assert!(((b * b - b).sqrt() / 2.0).ceil() >= 1.0);
        assert_eq!(ideal_rounds(n1(w_s), w_s, w_max), Some(6), "eq. (12): lg 32 + 1");
        // Fig. 3's ranges: N = 8-32 case 1, 64-512 case 2, 1024-5000 case 3.
        for (n, c) in [(8, 1), (32, 1), (64, 2), (512, 2), (1024, 3), (5000, 3)] {
            assert_eq!(ideal_case(n, w_s, w_max), Some(c), "N {n}");
        }
        // Invalid parameters.
        assert_eq!(ideal_rounds(10, 3, 50), None);
        assert_eq!(ideal_rounds(10, 64, 50), None);
        assert_eq!(ideal_rounds(0, 32, 50), None);
        assert!(ideal_bandwidth(10, 8000.0, 0.0, 32, 50).is_nan());
        assert!(ideal_bandwidth(10, -1.0, 0.1, 32, 50).is_nan());
    }

    #[test]
    fn the_ideal_bandwidth_tends_to_eq_20_from_below() {
        let (p, r) = (8000.0, 0.05);
        let limit = ideal_limit(p, r, 50);
        assert_eq!(limit, 50.0 * 8000.0 / 0.05);
        let mut prev = 0.0;
        for n in [1u64, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 100_000_000] {
            let t = ideal_bandwidth(n, p, r, 32, 50);
            assert!(t <= limit && t >= prev * 0.999, "N {n}: {t}");
            prev = t;
        }
        assert!((prev / limit - 1.0).abs() < 1e-5, "{prev} vs {limit}");
    }

    #[test]
    fn non_ideal_bound_is_floyd_falls_1_22_over_sqrt_p() {
        // Eq. (21) against the explicit sum for even n.
        for n in (2..=200u64).step_by(2) {
            let sum: u64 = (n / 2..=n).sum();
            assert!((packets_per_cycle(n as f64) - sum as f64).abs() < 1e-9, "n {n}");
        }
        let (p_bits, r) = (8000.0, 0.1);
        for p in [1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3] {
            // Eq. (25) exact solves eq. (24); the approximation bounds it from above.
            let n = window_at_drop_rate(p);
            assert!((drop_rate(n) / p - 1.0).abs() < 1e-12, "p {p}");
            assert!(n < window_at_drop_rate_approx(p));
            // Eq. (26) = eq. (23) with n = sqrt(8/(3p)) = sqrt(3/(2p)) P/R = 1.2247 P/(R sqrt(p)).
            let bound = nonideal_bound(p, p_bits, r);
            assert!((bound / steady_state_bound(window_at_drop_rate_approx(p), p_bits, r) - 1.0).abs() < 1e-12);
            assert!((bound / ((1.5 / p).sqrt() * p_bits / r) - 1.0).abs() < 1e-12);
            assert!((bound * r * p.sqrt() / p_bits - 1.224_744_871).abs() < 1e-9);
            assert!(nonideal_exact(p, p_bits, r) < bound);
        }
        // For small p the exact and approximate n agree (the "- 1" is negligible).
        assert!((nonideal_exact(1e-6, p_bits, r) / nonideal_bound(1e-6, p_bits, r) - 1.0).abs() < 1e-3);
    }

    #[test]
    fn worst_case_is_one_packet_per_64_ms_timer() {
        // 1000-byte packets on a 10 Mb/s access link: 8000 / (0.0008 + 0.064).
        assert!((worst_case(8000.0, 0.0008) - 8000.0 / 0.0648).abs() < 1e-9);
        assert!(worst_case(8000.0, 0.0) == 125_000.0);
    }
}
