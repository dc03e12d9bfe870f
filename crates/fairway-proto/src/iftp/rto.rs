//! The RTT estimate and timeout interval of elaarag2002 §4, eqs. (7)-(9), with Karn's exponential
//! backoff.

use fairway_core::Dur;

const MS: u64 = 1_000_000;

/// srtt, rttvar and backoff of elaarag2002 §4 ("Four variables are used to estimate the roundtrip
/// time and set the timeout timer: rtt, srtt, rttvar and backoff").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    backoff: u32,
    max_backoff: u32,
    initial_rto: Dur,
    min_rto: Dur,
}

impl RttEstimator {
    /// No sample yet; backoff 1 (elaarag2002 §4: "The backoff is initially 1"). `min_rto` bounds
    /// srtt + 4 rttvar + 1 from below before the backoff multiplies it (0: eq. (9) as it stands).
    pub fn new(initial_rto: Dur, max_backoff: u32, min_rto: Dur) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            backoff: 1,
            max_backoff: max_backoff.max(1),
            initial_rto,
            min_rto,
        }
    }

    /// Takes one RTT sample (eqs. (7)-(8)). It leaves the backoff alone: when a sample ends it is
    /// the sender's rule ([`super::BackoffReset`]).
    pub fn sample(&mut self, rtt: Dur) {
        match self.srtt {
            // elaarag2002 §4: "When the first sample is taken, its value is used as the initial value
            // for srtt. Half the first sample is used as the initial value for rttvar."
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Dur(rtt.0 / 2);
            }
            Some(srtt) => {
                // elaarag2002 eq. (8), garbled in the text: rttvar = 3/4 rttvar + 1/4 |rtt - srtt|,
                // with the srtt before eq. (7)'s update (Jacobson 1988; RFC 6298 §2.3 order).
                let err = rtt.0.abs_diff(srtt.0) as u128;
                self.rttvar = Dur(((3 * self.rttvar.0 as u128 + err) / 4) as u64);
                // elaarag2002 eq. (7): srtt = 7/8 srtt + 1/8 rtt (integer ns, rounded down).
                self.srtt = Some(Dur(((7 * srtt.0 as u128 + rtt.0 as u128) / 8) as u64));
            }
        }
    }

    /// Ends Karn's backoff: the next interval is eq. (9)'s with backoff 1.
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    /// elaarag2002 §4: "The backoff factor doubles each time a timeout occur to a maximum of 64
    /// (Karn's exponential timer backoff)".
    pub fn on_timeout(&mut self) {
        self.backoff = self.backoff.saturating_mul(2).min(self.max_backoff);
    }

    /// The timer interval of eq. (9): backoff x (srtt + 4 rttvar + 1) on the 1-ms grid. srtt + 4
    /// rttvar is rounded to the nearest millisecond (halves up) and the "+ 1" is one 1-ms tick, so
    /// srtt = rttvar = 0 with backoff 64 gives §5.3's 64 ms. The sum is at least `min_rto` (as
    /// TCP's minimum applies before the backoff, RFC 6298 §2.4, ns-2 `minrto_`). Before any
    /// sample: backoff x `initial_rto`.
    pub fn interval(&self) -> Dur {
        let k = self.backoff as u64;
        match self.srtt {
            None => self.initial_rto.saturating_mul(k),
            Some(srtt) => {
                let ms = srtt.0.saturating_add(self.rttvar.0.saturating_mul(4)).saturating_add(MS / 2) / MS;
                Dur::from_millis(1).saturating_mul(ms.saturating_add(1)).max(self.min_rto).saturating_mul(k)
            }
        }
    }

    /// R, the smoothed RTT.
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eqs_7_to_9_on_the_millisecond_grid() {
        let mut e = RttEstimator::new(Dur::from_secs(3), 64, Dur::ZERO);
        assert_eq!(e.interval(), Dur::from_secs(3), "before any sample");
        e.sample(Dur::from_millis(100));
        assert_eq!((e.srtt(), e.rttvar()), (Some(Dur::from_millis(100)), Dur::from_millis(50)));
        assert_eq!(e.interval(), Dur::from_millis(301), "100 + 4 x 50 + 1");
        e.sample(Dur::from_millis(60));
        // rttvar = 3/4 x 50 + 1/4 x |60 - 100| = 47.5; srtt = 7/8 x 100 + 1/8 x 60 = 95.
        assert_eq!((e.srtt(), e.rttvar()), (Some(Dur::from_millis(95)), Dur(47_500_000)));
        assert_eq!(e.interval(), Dur::from_millis(286), "95 + 190 + 1");
        // srtt + 4 rttvar = 3 x the first sample, rounded to the nearest ms: 0.3 ms -> 0,
        // 0.498 -> 0, 0.501 -> 1, 1.5 -> 2 (halves up); then + 1 ms.
        for (rtt_us, want_ms) in [(100, 1), (166, 1), (167, 2), (500, 3)] {
            let mut e = RttEstimator::new(Dur::from_secs(3), 64, Dur::ZERO);
            e.sample(Dur::from_micros(rtt_us));
            assert_eq!(e.interval(), Dur::from_millis(want_ms), "rtt {rtt_us} us");
        }
    }

    #[test]
    fn backoff_doubles_to_its_cap_and_a_sample_resets_it() {
        let mut e = RttEstimator::new(Dur::from_secs(1), 64, Dur::ZERO);
        e.sample(Dur::from_micros(100)); // rounds to 0 ms: interval = backoff x 1 ms
        let mut seen = vec![];
        for _ in 0..9 {
            seen.push(e.interval().0 / MS);
            e.on_timeout();
        }
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 64, 64, 64]);
        e.sample(Dur::from_micros(100));
        assert_eq!(e.backoff(), 64, "a sample alone does not end the backoff");
        e.reset_backoff();
        assert_eq!(e.backoff(), 1);
        let mut e = RttEstimator::new(Dur::from_secs(3), 5, Dur::ZERO);
        e.on_timeout();
        e.on_timeout();
        e.on_timeout();
        assert_eq!((e.backoff(), e.interval()), (5, Dur::from_secs(15)), "cap need not be a power of two");
    }

    #[test]
    fn a_minimum_bounds_the_interval_before_the_backoff() {
        let mut e = RttEstimator::new(Dur::from_secs(3), 64, Dur::from_millis(200));
        e.sample(Dur::from_millis(20)); // 20 + 4 x 10 + 1 = 61 ms, below the minimum
        assert_eq!(e.interval(), Dur::from_millis(200));
        e.on_timeout();
        assert_eq!(e.interval(), Dur::from_millis(400));
        // rttvar = (3 x 10 + 280) / 4 = 77.5, srtt = (7 x 20 + 300) / 8 = 55: 55 + 310 + 1 ms.
        e.sample(Dur::from_millis(300));
        e.reset_backoff();
        assert_eq!(e.interval(), Dur::from_millis(366));
    }
}
