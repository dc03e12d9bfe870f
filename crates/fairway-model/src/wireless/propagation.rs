//! Radio propagation: the power a receiver sees from a transmitter, and the thresholds that
//! decide whether it can decode the frame, only sense it, or not notice it at all. The models
//! and their defaults are ns-2's (mobile/propagation.cc, mobile/tworayground.cc; ns-default.tcl):
//! a 914 MHz radio sending 0.2818 W from antennas 1.5 m high, decoding above 3.652e-10 W (250 m
//! with two-ray ground) and sensing above 1.559e-11 W (550 m).

/// ns-2's speed of light (mobile/propagation.h), used for wavelengths and propagation delays.
pub const SPEED_OF_LIGHT: f64 = 3.0e8;

/// How power falls with distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Friis: Pr = Pt Gt Gr λ² / ((4π d)² L).
    FreeSpace,
    /// Friis up to the crossover distance 4π ht hr / λ, then Pr = Pt Gt Gr ht² hr² / (d⁴ L)
    /// (Rappaport's two-ray ground reflection, with ns-2's system loss L).
    TwoRayGround,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::FreeSpace => "free_space",
            Model::TwoRayGround => "two_ray_ground",
        }
    }
}

/// The radio every wireless node has (ns-2's Phy/WirelessPhy with an omni antenna).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Radio {
    pub model: Model,
    /// Transmit power, W.
    pub tx_power: f64,
    /// Carrier frequency, Hz.
    pub frequency: f64,
    /// System loss factor (1 = none).
    pub system_loss: f64,
    /// Antenna gains (transmit and receive) and height above the ground, m.
    pub gain: f64,
    pub antenna_height: f64,
    /// A frame received above this power can be decoded, W.
    pub rx_threshold: f64,
    /// Above this power the medium is sensed busy (and a frame that cannot be decoded still
    /// collides with others), W.
    pub cs_threshold: f64,
    /// Capture: a frame being received survives another that arrives this many times weaker.
    pub capture_ratio: f64,
}

impl Default for Radio {
    /// ns-2.35's defaults (tcl/lib/ns-default.tcl: Phy/WirelessPhy, Antenna/OmniAntenna).
    fn default() -> Radio {
        Radio {
            model: Model::TwoRayGround,
            tx_power: 0.28183815,
            frequency: 914e6,
            system_loss: 1.0,
            gain: 1.0,
            antenna_height: 1.5,
            rx_threshold: 3.652e-10,
            cs_threshold: 1.559e-11,
            capture_ratio: 10.0,
        }
    }
}

impl Radio {
    pub fn wavelength(&self) -> f64 {
        SPEED_OF_LIGHT / self.frequency
    }

    fn friis(&self, d: f64) -> f64 {
        if d == 0.0 {
            // ns-2's Friis returns the transmit power for co-located nodes.
            return self.tx_power;
        }
        let m = self.wavelength() / (4.0 * std::f64::consts::PI * d);
        self.tx_power * self.gain * self.gain * m * m / self.system_loss
    }

    /// Received power at distance `d` metres, W (both antennas at the same height).
    pub fn received_power(&self, d: f64) -> f64 {
        match self.model {
            Model::FreeSpace => self.friis(d),
            Model::TwoRayGround => {
                let h = self.antenna_height;
                let crossover = 4.0 * std::f64::consts::PI * h * h / self.wavelength();
                if d <= crossover {
                    self.friis(d)
                } else {
                    self.tx_power * self.gain * self.gain * h * h * h * h / (d * d * d * d * self.system_loss)
                }
            }
        }
    }

    /// The distance at which the received power falls to `threshold` W (the inverse of
    /// [`received_power`](Self::received_power)).
    pub fn range_for(&self, threshold: f64) -> f64 {
        let pt = self.tx_power * self.gain * self.gain / self.system_loss;
        let friis_d = self.wavelength() / (4.0 * std::f64::consts::PI) * (pt / threshold).sqrt();
        match self.model {
            Model::FreeSpace => friis_d,
            Model::TwoRayGround => {
                let h = self.antenna_height;
                let crossover = 4.0 * std::f64::consts::PI * h * h / self.wavelength();
                if friis_d <= crossover {
                    friis_d
                } else {
                    (pt * h * h * h * h / threshold).sqrt().sqrt()
                }
            }
        }
    }

    /// The decoding range, m (250 m at ns-2's defaults).
    pub fn rx_range(&self) -> f64 {
        self.range_for(self.rx_threshold)
    }

    /// The carrier-sense range, m (550 m at ns-2's defaults).
    pub fn cs_range(&self) -> f64 {
        self.range_for(self.cs_threshold)
    }
}

/// The propagation delay over `d` metres.
pub fn delay(d: f64) -> fairway_core::Dur {
    fairway_core::Dur::from_secs_f64(d / SPEED_OF_LIGHT)
}

/// [`Radio::received_power`] and [`delay`] for one radio, with what does not depend on the
/// distance worked out once: the channel asks for both at every node in range of every frame.
/// The results are bit for bit those of the two functions (the same operations on the same
/// values, in the same order; a test checks it).
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    model: Model,
    /// 4π ht hr / λ.
    crossover: f64,
    tx_power: f64,
    /// Pt Gt Gr, as `friis` multiplies it out.
    friis_k: f64,
    wavelength: f64,
    system_loss: f64,
    /// Pt Gt Gr ht² hr², as two-ray ground multiplies it out.
    two_ray_k: f64,
}

impl Reach {
    pub fn new(r: &Radio) -> Reach {
        let h = r.antenna_height;
        Reach {
            model: r.model,
            crossover: 4.0 * std::f64::consts::PI * h * h / r.wavelength(),
            tx_power: r.tx_power,
            friis_k: r.tx_power * r.gain * r.gain,
            wavelength: r.wavelength(),
            system_loss: r.system_loss,
            two_ray_k: r.tx_power * r.gain * r.gain * h * h * h * h,
        }
    }

    /// [`Radio::received_power`] at `d` metres.
    #[inline]
    pub fn power(&self, d: f64) -> f64 {
        if self.model == Model::TwoRayGround && d > self.crossover {
            return self.two_ray_k / (d * d * d * d * self.system_loss);
        }
        if d == 0.0 {
            return self.tx_power;
        }
        let m = self.wavelength / (4.0 * std::f64::consts::PI * d);
        self.friis_k * m * m / self.system_loss
    }

    /// [`power`](Self::power) at `d` metres where two-ray ground's fourth-power law gives it
    /// (beyond the crossover distance), NaN elsewhere (for `power` itself), and [`delay`] over
    /// `d` in whole nanoseconds ([`Self::round_ns`], NaN where that is not exact): without a
    /// branch, for the channel's loop over every node, which the compiler vectorizes. Bit for
    /// bit `power` and `delay`.
    #[inline(always)]
    pub fn far_power_and_delay(&self, d: f64) -> (f64, f64) {
        let two_ray = self.two_ray_k / (d * d * d * d * self.system_loss);
        let p = if self.model == Model::TwoRayGround && d > self.crossover { two_ray } else { f64::NAN };
        (p, Self::round_ns(d / SPEED_OF_LIGHT * 1e9))
    }

    /// [`delay`] over `d` metres, its rounding done inline ([`Self::round_ns`]; delays of
    /// 2^52 ns or more, some 52 days, go through `delay` itself).
    #[inline]
    pub fn delay(&self, d: f64) -> fairway_core::Dur {
        Self::whole_ns(Self::round_ns(d / SPEED_OF_LIGHT * 1e9)).unwrap_or_else(|| delay(d))
    }

    /// `Dur::from_secs_f64`'s rounding of `ns` nanoseconds to the nearest whole one (halves
    /// away from zero), as a double: truncation and the exact remainder rather than a call to
    /// `round`, and no branch, so that it vectorizes. NaN unless 0 < `ns` < 2^52, where every
    /// step is exact.
    #[inline(always)]
    pub fn round_ns(ns: f64) -> f64 {
        let whole = ns.trunc();
        let rounded = whole + if ns - whole >= 0.5 { 1.0 } else { 0.0 };
        if ns > 0.0 && ns < (1u64 << 52) as f64 {
            rounded
        } else {
            f64::NAN
        }
    }

    /// The delay [`Self::round_ns`] gave, `None` for its NaN.
    #[inline(always)]
    pub fn whole_ns(rounded: f64) -> Option<fairway_core::Dur> {
        // Through i64: a single conversion instruction (u64's is a sequence), exact here.
        (!rounded.is_nan()).then_some(fairway_core::Dur(rounded as i64 as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2's documented ranges for its default radio (threshold.cc's table: 250 m to decode,
    /// 550 m to sense, with two-ray ground).
    #[test]
    fn ns2_defaults_give_250_and_550_metres() {
        let r = Radio::default();
        assert!((r.rx_range() - 250.0).abs() < 0.5, "{}", r.rx_range());
        assert!((r.cs_range() - 550.0).abs() < 0.5, "{}", r.cs_range());
        assert!(r.received_power(249.0) >= r.rx_threshold);
        assert!(r.received_power(251.0) < r.rx_threshold);
        assert!(r.received_power(549.0) >= r.cs_threshold);
        assert!(r.received_power(551.0) < r.cs_threshold);
    }

    /// Below the crossover distance (86 m at 914 MHz and 1.5 m) two-ray ground is Friis; above
    /// it power falls with d⁴, so doubling the distance divides it by 16.
    #[test]
    fn two_ray_is_friis_near_and_fourth_power_far() {
        let r = Radio::default();
        let f = Radio { model: Model::FreeSpace, ..r };
        assert_eq!(r.received_power(50.0), f.received_power(50.0));
        let ratio = r.received_power(200.0) / r.received_power(400.0);
        assert!((ratio - 16.0).abs() < 1e-9, "{ratio}");
        let ratio = f.received_power(200.0) / f.received_power(400.0);
        assert!((ratio - 4.0).abs() < 1e-9, "{ratio}");
        // Free space reaches further: d² falls slower than d⁴.
        assert!(f.rx_range() > r.rx_range());
        assert!((f.received_power(f.rx_range()) / f.rx_threshold - 1.0).abs() < 1e-9);
    }

    /// `Reach` gives exactly what `received_power` and `delay` give, near and far, for both
    /// models and for radios other than the default.
    #[test]
    fn reach_is_bit_for_bit_received_power_and_delay() {
        let radios = [
            Radio::default(),
            Radio { model: Model::FreeSpace, ..Radio::default() },
            Radio { antenna_height: 0.7, frequency: 2.4e9, gain: 1.3, system_loss: 1.7, ..Radio::default() },
        ];
        for r in radios {
            let k = Reach::new(&r);
            let mut d = 0.0;
            let same = |d: f64| {
                assert_eq!(k.power(d).to_bits(), r.received_power(d).to_bits(), "{d}");
                assert_eq!(k.delay(d), delay(d), "{d}");
                // The branch-free pair the channel's batch uses.
                let (p, ns) = k.far_power_and_delay(d);
                assert!(p.is_nan() || p.to_bits() == k.power(d).to_bits(), "{d}");
                assert_eq!(p.is_nan(), r.model == Model::FreeSpace || d <= k.crossover, "{d}");
                assert_eq!(Reach::whole_ns(ns).unwrap_or_else(|| delay(d)), delay(d), "{d}");
                assert_eq!(ns.is_nan(), !(d > 0.0 && d / SPEED_OF_LIGHT * 1e9 < (1u64 << 52) as f64), "{d}");
            };
            while d < 3000.0 {
                same(d);
                d += 0.0137;
            }
            for d in [0.0, 1e-9, 0.15, 0.45, 149.9, 150.0, 150.15, 1e12, 1e16] {
                same(d);
            }
        }
    }

    #[test]
    fn a_metre_takes_three_and_a_third_nanoseconds() {
        assert_eq!(delay(300.0), fairway_core::Dur::from_micros(1));
        assert_eq!(delay(200.0).0, 667);
    }
}
