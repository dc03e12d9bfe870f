//! A link's loss on the wire: what takes a packet after its serialisation, so that it never
//! reaches the link's far end (docs/semantics.md, "Loss on the wire"). Two models:
//!
//! - Bernoulli: each packet is lost independently with probability `p` (an ns-2 ErrorModel
//!   with a uniform random variable on the link, and RFC 8868 §4.4's required minimum, the
//!   independent random loss).
//! - Gilbert-Elliott: a two-state Markov chain, a Good and a Bad state, stepped once per packet
//!   (Gilbert 1960, "Capacity of a burst-noise channel"; Elliott 1963, "Estimates of error rates
//!   for codes on burst-noise channels"; the parameter names are those of Hasslinger and
//!   Hohlfeld 2008, "The Gilbert-Elliott model for packet loss in real time services on the
//!   Internet", which RFC 8868 §4.4 cites for correlated loss). From Good the chain moves to
//!   Bad with probability `p`, from Bad back to Good with probability `r`; a packet is received
//!   with probability `k` in Good and `h` in Bad, so lost with `1 - k` and `1 - h`. Gilbert's
//!   own model has `k = 1` (Good loses nothing); with also `h = 0` (Bad loses everything, the
//!   "simple Gilbert model") every run of losses is exactly one stay in Bad.
//!
//! The chain's stationary share of packets in Bad is pi_B = p / (p + r) (balance: pi_G p =
//! pi_B r), so the mean loss rate is (1 - k) r / (p + r) + (1 - h) p / (p + r). A stay in Bad
//! lasts a geometric number of packets with mean 1 / r, a stay in Good 1 / p.
//!
//! The draws come from the link's own stream, in the order packets take the wire, so a run is
//! determined by its seed. A Bernoulli link makes exactly the one `Rng::bernoulli(p)` call per
//! packet it always made.

use fairway_core::Rng;

/// How a link loses packets on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LossModel {
    /// Each packet lost independently with this probability; 0 = no loss.
    Bernoulli(f64),
    GilbertElliott(GilbertElliott),
}

impl Default for LossModel {
    fn default() -> LossModel {
        LossModel::NONE
    }
}

/// The Gilbert-Elliott chain's parameters, each a probability per packet (see the module).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GilbertElliott {
    /// Good -> Bad.
    pub p: f64,
    /// Bad -> Good.
    pub r: f64,
    /// A packet is received in Good (lost with 1 - k).
    pub k: f64,
    /// A packet is received in Bad (lost with 1 - h).
    pub h: f64,
}

impl GilbertElliott {
    /// The receptions a scenario gets when it names neither `k` nor `h`: Good loses nothing,
    /// Bad loses everything (Gilbert's k = 1 with h = 0), so that `p` and `r` alone say how
    /// often a burst starts and how long it lasts, and a burst of losses is a stay in Bad.
    pub const K_DEFAULT: f64 = 1.0;
    pub const H_DEFAULT: f64 = 0.0;

    /// The chain from its four probabilities; the error names the one outside [0, 1].
    pub fn new(p: f64, r: f64, k: f64, h: f64) -> Result<GilbertElliott, String> {
        for (name, x) in [("p", p), ("r", r), ("k", k), ("h", h)] {
            if !(0.0..=1.0).contains(&x) {
                return Err(format!("`{name}` = {x} is not a probability (0 to 1)"));
            }
        }
        Ok(GilbertElliott { p, r, k, h })
    }

    /// The chain whose mean loss rate is `mean_loss` and whose stays in Bad last `mean_burst`
    /// packets on average, with receptions `k` and `h`: r = 1 / mean_burst, and p from the
    /// stationary share in Bad that gives the rate, pi_B = (mean_loss - (1 - k)) / (k - h)
    /// (the module's rate solved for pi_B), p = r pi_B / (1 - pi_B) (pi_B = p / (p + r) solved
    /// for p).
    pub fn from_mean_loss(mean_loss: f64, mean_burst: f64, k: f64, h: f64) -> Result<GilbertElliott, String> {
        if !(0.0..=1.0).contains(&k) || !(0.0..=1.0).contains(&h) {
            return Err(format!("`k` = {k} and `h` = {h} must be probabilities (0 to 1)"));
        }
        if !(mean_burst >= 1.0 && mean_burst.is_finite()) {
            return Err(format!("`mean_burst` = {mean_burst} must be a finite number of packets, at least 1"));
        }
        let (good_loss, bad_loss) = (1.0 - k, 1.0 - h);
        if !(mean_loss >= good_loss && mean_loss < bad_loss) {
            return Err(format!(
                "`mean_loss` = {mean_loss} is out of this chain's reach: with `k` = {k} and `h` = {h} it must be at \
                 least {good_loss} (all in Good) and below {bad_loss} (all in Bad)"
            ));
        }
        let bad_share = (mean_loss - good_loss) / (bad_loss - good_loss);
        let r = 1.0 / mean_burst;
        let p = r * bad_share / (1.0 - bad_share);
        if p > 1.0 {
            return Err(format!(
                "`mean_loss` = {mean_loss} with `mean_burst` = {mean_burst} needs a Good -> Bad probability of {p}, \
                 above 1: lengthen the bursts or lower the rate"
            ));
        }
        GilbertElliott::new(p, r, k, h)
    }

    /// The stationary share of packets sent in Bad, p / (p + r); 0 when the chain never moves
    /// (p = r = 0: it stays in Good, where it starts).
    pub fn bad_share(&self) -> f64 {
        if self.p + self.r == 0.0 {
            0.0
        } else {
            self.p / (self.p + self.r)
        }
    }

    /// The stationary loss rate, (1 - k) pi_G + (1 - h) pi_B.
    pub fn mean_loss(&self) -> f64 {
        let bad = self.bad_share();
        (1.0 - self.k) * (1.0 - bad) + (1.0 - self.h) * bad
    }

    /// The mean stay in Bad in packets, 1 / r (infinite for r = 0).
    pub fn mean_bad_run(&self) -> f64 {
        1.0 / self.r
    }
}

impl LossModel {
    pub const NONE: LossModel = LossModel::Bernoulli(0.0);

    /// Whether the model can ever take a packet. The chain starts in Good, so it loses
    /// nothing when Good keeps every packet and it never leaves Good, or when Bad keeps every
    /// packet too.
    pub fn can_lose(&self) -> bool {
        match *self {
            LossModel::Bernoulli(p) => p > 0.0,
            LossModel::GilbertElliott(g) => g.k < 1.0 || (g.p > 0.0 && g.h < 1.0),
        }
    }

    /// The long-run share of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::Bernoulli(p) => p,
            LossModel::GilbertElliott(g) => g.mean_loss(),
        }
    }

    /// The model in a few words for a link's description: `loss 0.01` (as it has always
    /// printed) or the chain's parameters and what they come to.
    pub fn describe(&self) -> String {
        match *self {
            LossModel::Bernoulli(p) => format!("loss {p}"),
            LossModel::GilbertElliott(g) => format!(
                "Gilbert-Elliott loss p {} r {} k {} h {} (mean {:.4}, bursts of {:.1} packets in Bad)",
                g.p,
                g.r,
                g.k,
                g.h,
                g.mean_loss(),
                g.mean_bad_run()
            ),
        }
    }

    /// The model as plain bits, for comparing links by their properties (equal bits, equal
    /// model).
    pub fn bits(&self) -> (u8, [u64; 4]) {
        match *self {
            LossModel::Bernoulli(p) => (0, [p.to_bits(), 0, 0, 0]),
            LossModel::GilbertElliott(g) => (1, [g.p.to_bits(), g.r.to_bits(), g.k.to_bits(), g.h.to_bits()]),
        }
    }
}

/// A link's loss model with its state: which state the Gilbert-Elliott chain is in.
#[derive(Debug, Clone)]
pub struct LossProcess {
    model: LossModel,
    /// The chain is in Bad (it starts in Good).
    bad: bool,
}

impl LossProcess {
    pub fn new(model: LossModel) -> LossProcess {
        LossProcess { model, bad: false }
    }

    pub fn model(&self) -> &LossModel {
        &self.model
    }

    /// Whether the packet now taking the wire is lost, drawing from `rng`. Bernoulli: one
    /// `bernoulli(p)`, as links always drew. Gilbert-Elliott: the current state decides this
    /// packet (lost with 1 - k in Good, 1 - h in Bad), then the chain takes its step for the
    /// next (Good -> Bad with p, Bad -> Good with r). `Rng::bernoulli` draws nothing for a
    /// probability of 0 or 1, so Gilbert's h = 0, k = 1 costs one draw per packet.
    #[inline]
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        match self.model {
            LossModel::Bernoulli(p) => rng.bernoulli(p),
            LossModel::GilbertElliott(g) => {
                let (lose_here, leave) = if self.bad { (1.0 - g.h, g.r) } else { (1.0 - g.k, g.p) };
                let lost = rng.bernoulli(lose_here);
                if rng.bernoulli(leave) {
                    self.bad = !self.bad;
                }
                lost
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 1_000_000;

    /// Losses over `n` packets, and the runs of consecutive losses (their count and summed
    /// length).
    fn sample(model: LossModel, n: usize, seed: u64) -> (u64, u64, u64) {
        let mut proc = LossProcess::new(model);
        let mut rng = Rng::stream(seed, "loss:test");
        let (mut lost, mut runs, mut in_runs, mut prev) = (0u64, 0u64, 0u64, false);
        for _ in 0..n {
            let l = proc.lose(&mut rng);
            if l {
                lost += 1;
                in_runs += 1;
                if !prev {
                    runs += 1;
                }
            }
            prev = l;
        }
        (lost, runs, in_runs)
    }

    #[test]
    fn bernoulli_draws_exactly_what_links_drew_before() {
        let mut proc = LossProcess::new(LossModel::Bernoulli(0.03));
        let (mut a, mut b) = (Rng::stream(7, "loss:x"), Rng::stream(7, "loss:x"));
        for _ in 0..10_000 {
            assert_eq!(proc.lose(&mut a), b.bernoulli(0.03));
        }
        assert_eq!(a.next_u64(), b.next_u64(), "the streams are at the same place");
        // The live link's description, as it printed before there were models.
        assert_eq!(LossModel::Bernoulli(0.03).describe(), "loss 0.03");
    }

    /// Gilbert's h = 0, k = 1 with p = 0.01, r = 0.3: pi_B = 0.01 / 0.31 = 0.03226, the loss
    /// rate, and runs of losses are stays in Bad, mean 1 / r = 3.333.
    ///
    /// Tolerances, five standard errors over 10^6 packets. The rate: the loss indicator is the
    /// chain's state, whose sample mean has variance pi_B (1 - pi_B) / n (1 + l) / (1 - l) with
    /// l = 1 - p - r = 0.69 the chain's second eigenvalue: SE = sqrt(0.0312 * 5.45 / 10^6) =
    /// 4.1e-4, so a band of 2.1e-3. The runs: about n pi_B r = 9 700 of them, geometric with
    /// sd sqrt(1 - r) / r = 2.79, SE 2.79 / sqrt(9 700) = 0.028, so a band of 0.14 packets.
    #[test]
    fn gilberts_chain_loses_at_its_stationary_rate_in_bursts_of_one_over_r() {
        let g = GilbertElliott::new(0.01, 0.3, 1.0, 0.0).unwrap();
        assert!((g.mean_loss() - 0.01 / 0.31).abs() < 1e-15);
        let (lost, runs, in_runs) = sample(LossModel::GilbertElliott(g), N, 1);
        let rate = lost as f64 / N as f64;
        assert!((rate - g.mean_loss()).abs() < 2.1e-3, "loss rate {rate}, expected {}", g.mean_loss());
        let burst = in_runs as f64 / runs as f64;
        assert!((burst - 1.0 / 0.3).abs() < 0.14, "mean run {burst}, expected {}", 1.0 / 0.3);
    }

    /// Elliott's general chain, p = 0.05, r = 0.2, k = 0.99, h = 0.5: pi_B = 0.2, loss =
    /// 0.01 * 0.8 + 0.5 * 0.2 = 0.108. Its sample mean's variance is the chain's part,
    /// (k - h)^2 pi_B (1 - pi_B) / n (1 + l) / (1 - l) with l = 0.75 (2.7e-7), plus at most the
    /// independent draws' mean(1 - mean) / n (9.6e-8): SE 6.1e-4, five of them 3.1e-3.
    #[test]
    fn elliotts_chain_loses_at_its_stationary_rate() {
        let g = GilbertElliott::new(0.05, 0.2, 0.99, 0.5).unwrap();
        assert!((g.mean_loss() - 0.108).abs() < 1e-12);
        let (lost, _, _) = sample(LossModel::GilbertElliott(g), N, 2);
        let rate = lost as f64 / N as f64;
        assert!((rate - 0.108).abs() < 3.1e-3, "loss rate {rate}");
    }

    /// The same rate as Gilbert's chain above, but independent: runs average 1 / (1 - rate),
    /// barely over one packet: what tells the two apart.
    #[test]
    fn bernoulli_loss_comes_in_runs_of_about_one() {
        let (lost, runs, in_runs) = sample(LossModel::Bernoulli(0.0323), N, 3);
        assert!((lost as f64 / N as f64 - 0.0323).abs() < 1e-3);
        let burst = in_runs as f64 / runs as f64;
        assert!((burst - 1.0 / (1.0 - 0.0323)).abs() < 0.02, "mean run {burst}");
    }

    #[test]
    fn the_mean_rate_and_burst_give_p_and_r() {
        let g = GilbertElliott::from_mean_loss(0.02, 4.0, 1.0, 0.0).unwrap();
        assert_eq!(g.r, 0.25);
        // pi_B = 0.02: p = 0.25 * 0.02 / 0.98.
        assert!((g.p - 0.25 * 0.02 / 0.98).abs() < 1e-15);
        assert!((g.mean_loss() - 0.02).abs() < 1e-15);
        let e = GilbertElliott::from_mean_loss(0.02, 0.5, 1.0, 0.0).unwrap_err();
        assert!(e.contains("mean_burst"), "{e}");
        let e = GilbertElliott::from_mean_loss(0.005, 4.0, 0.99, 0.0).unwrap_err();
        assert!(e.contains("at least 0.01"), "{e}");
        // pi_B = 0.9 with bursts of 1: p = 9.
        let e = GilbertElliott::from_mean_loss(0.9, 1.0, 1.0, 0.0).unwrap_err();
        assert!(e.contains("above 1"), "{e}");
    }

    #[test]
    fn probabilities_outside_zero_to_one_are_refused_by_name() {
        assert!(GilbertElliott::new(1.5, 0.3, 1.0, 0.0).unwrap_err().contains("`p`"));
        assert!(GilbertElliott::new(0.1, -0.3, 1.0, 0.0).unwrap_err().contains("`r`"));
        assert!(GilbertElliott::new(0.1, 0.3, f64::NAN, 0.0).unwrap_err().contains("`k`"));
    }

    #[test]
    fn a_chain_that_cannot_lose_says_so() {
        assert!(!LossModel::NONE.can_lose());
        let never = |p, k, h| LossModel::GilbertElliott(GilbertElliott { p, r: 0.5, k, h });
        assert!(!never(0.0, 1.0, 0.0).can_lose(), "never leaves a lossless Good");
        assert!(!never(0.1, 1.0, 1.0).can_lose(), "neither state loses");
        assert!(never(0.1, 1.0, 0.0).can_lose());
        assert!(never(0.0, 0.9, 1.0).can_lose());
    }
}
