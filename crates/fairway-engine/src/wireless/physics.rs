//! What one transmission brings to the nodes: where each node is and its distance squared from
//! the sender; then, for the nodes within carrier-sense distance only, the power each receives,
//! the propagation delay in whole nanoseconds, and whether it may sense the frame (the power
//! only beyond two-ray ground's crossover distance, where nearly every node is: NaN nearer, left
//! to [`Reach::power`]). Two loops without a branch, which the compiler vectorizes (on x86-64
//! processors with AVX2, std's cached detection at each call, four nodes at a time): one over
//! the nodes' moves, column by column ([`Motions`]), and one over the nodes in range, whose
//! square roots and divisions are most of the work, gathered between them. The same IEEE
//! operations in the same order as for one node ([`Motion::at`], [`Reach::far_power_and_delay`]),
//! and none fused, so the results are bit for bit the same with the vector instructions or
//! without.

use fairway_core::Time;
use fairway_model::wireless::propagation::Reach;

use super::mobility::{Motion, Motions};

/// One transmission's numbers: the distance squared node by node (the sender's own is zero),
/// then entry by entry for the nodes within carrier-sense distance, the sender left out, in the
/// nodes' order.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub d2: Vec<f64>,
    /// The nodes in range (their first [`Batch::fill`]'s count of entries), and each one's
    /// distance squared.
    pub node: Vec<u32>,
    pub near_d2: Vec<f64>,
    pub power: Vec<f64>,
    /// Whole nanoseconds, NaN where [`Reach::round_ns`] is not exact.
    pub delay: Vec<f64>,
    /// 1 where the node may sense the frame: where `power` is known, at the carrier-sense
    /// threshold or above (where it is NaN, `Reach::power` decides); else 0.
    pub sensed: Vec<u64>,
}

impl Batch {
    /// Fills the batch for a frame sent at `t` by node `sender` from (`x`, `y`), sensed within
    /// `sense2` metres squared at `cs_threshold` W or more; returns how many nodes are in range.
    pub(crate) fn fill(
        &mut self,
        m: &Motions,
        reach: &Reach,
        t: Time,
        (sender, x, y): (usize, f64, f64),
        (sense2, cs_threshold): (f64, f64),
    ) -> usize {
        let n = m.len();
        for v in [&mut self.d2, &mut self.near_d2, &mut self.power, &mut self.delay] {
            v.resize(n, 0.0);
        }
        self.node.resize(n, 0);
        self.sensed.resize(n, 0);
        let at = (t.0, x, y, sender, sense2, cs_threshold);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, all `fill_avx2` asks of it.
            return unsafe { fill_avx2(self, m, reach, at) };
        }
        fill_scalar(self, m, reach, at)
    }
}

/// The time, the sender's place and index, the carrier-sense distance squared and threshold.
type At = (u64, f64, f64, usize, f64, f64);

#[inline(always)]
fn fill_body(b: &mut Batch, m: &Motions, reach: &Reach, (t, x, y, sender, sense2, cs_threshold): At) -> usize {
    let n = m.len();
    let d2 = &mut b.d2[..n];
    let (since, mx, my, ux, uy) = (&m.since[..n], &m.x[..n], &m.y[..n], &m.ux[..n], &m.uy[..n]);
    let (speed, dest_x, dest_y) = (&m.speed[..n], &m.dest_x[..n], &m.dest_y[..n]);
    for i in 0..n {
        let (x0, y0, dx, dy) = (mx[i], my[i], dest_x[i], dest_y[i]);
        let m = Motion {
            since: Time(since[i]),
            x: x0,
            y: y0,
            ux: ux[i],
            uy: uy[i],
            speed: speed[i],
            dest_x: dx,
            dest_y: dy,
        };
        let (px, py) = m.at(Time(t));
        d2[i] = (px - x) * (px - x) + (py - y) * (py - y);
    }
    // The nodes in range, gathered without a branch: each written, counted if it is.
    let (node, near_d2) = (&mut b.node[..n], &mut b.near_d2[..n]);
    let mut k = 0;
    for (i, &dd) in d2.iter().enumerate() {
        node[k] = i as u32;
        near_d2[k] = dd;
        k += ((dd <= sense2) & (i != sender)) as usize;
    }
    let (near_d2, power, delay, sensed) = (&near_d2[..k], &mut b.power[..k], &mut b.delay[..k], &mut b.sensed[..k]);
    for j in 0..k {
        let (p, s) = reach.far_power_and_delay(near_d2[j].sqrt());
        power[j] = p;
        delay[j] = s;
        // Not below the threshold: a NaN power (within the crossover) passes, for
        // `Reach::power` to decide; one comparison fewer than `p >= cs | p.is_nan()`.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let may = !(p < cs_threshold);
        sensed[j] = may as u64;
    }
    k
}

fn fill_scalar(b: &mut Batch, m: &Motions, reach: &Reach, at: At) -> usize {
    fill_body(b, m, reach, at)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_avx2(b: &mut Batch, m: &Motions, reach: &Reach, at: At) -> usize {
    fill_body(b, m, reach, at)
}

#[cfg(test)]
mod tests {
    use fairway_model::wireless::Radio;

    use super::*;

    /// The batch, vectorized where the processor allows, gives bit for bit what one node's
    /// operations give: positions on moves in every direction, standing still, past their end.
    #[test]
    fn the_batch_is_bit_for_bit_one_node_at_a_time() {
        let reach = Reach::new(&Radio::default());
        let start: Vec<(f64, f64)> = (0..37).map(|i| (i as f64 * 29.3 % 1000.0, i as f64 * 71.9 % 1000.0)).collect();
        let mut m = Motions::new(&start);
        for i in 0..m.len() {
            if i % 5 != 0 {
                let mut mo: Motion = m.get(i);
                mo.head_for(
                    Time(i as u64 * 1_000_003),
                    (i * 137 % 1000) as f64,
                    (i * 251 % 1000) as f64,
                    1.0 + i as f64,
                );
                m.set(i, mo);
            }
        }
        let mut b = Batch::default();
        for t in [0u64, 1, 999_999_937, 7_000_000_001, 60_000_000_000] {
            let (x, y) = (412.5, 377.25);
            let (sense2, cs) = (550.0 * 550.0, Radio::default().cs_threshold);
            let sender = 3;
            let k = b.fill(&m, &reach, Time(t), (sender, x, y), (sense2, cs));
            let mut s = Batch::default();
            for v in [&mut s.d2, &mut s.near_d2, &mut s.power, &mut s.delay] {
                v.resize(m.len(), 0.0);
            }
            s.node.resize(m.len(), 0);
            s.sensed.resize(m.len(), 0);
            assert_eq!(fill_scalar(&mut s, &m, &reach, (t, x, y, sender, sense2, cs)), k);
            let mut j = 0;
            for i in 0..m.len() {
                let (px, py) = m.at(i, Time(t));
                let d2 = (px - x) * (px - x) + (py - y) * (py - y);
                assert_eq!(b.d2[i].to_bits(), d2.to_bits(), "node {i} at {t}");
                assert_eq!(b.d2[i].to_bits(), s.d2[i].to_bits());
                if d2 > sense2 || i == sender {
                    continue;
                }
                // In range: the next entry, in the nodes' order.
                assert_eq!((b.node[j], b.near_d2[j].to_bits()), (i as u32, d2.to_bits()), "node {i} at {t}");
                let p = b.power[j];
                assert!(p.is_nan() || p.to_bits() == reach.power(d2.sqrt()).to_bits(), "node {i} at {t}");
                // NaN only within two-ray ground's crossover distance (86 m here).
                assert!(!p.is_nan() || d2 < 87.0 * 87.0, "node {i} at {t}");
                assert_eq!(Reach::whole_ns(b.delay[j]), Some(reach.delay(d2.sqrt())), "node {i} at {t}");
                let sensed = reach.power(d2.sqrt()) >= cs;
                assert_eq!(b.sensed[j] == 1, sensed || p.is_nan(), "node {i} at {t}");
                assert_eq!(
                    (b.node[j], b.power[j].to_bits(), b.delay[j].to_bits(), b.sensed[j]),
                    (s.node[j], s.power[j].to_bits(), s.delay[j].to_bits(), s.sensed[j])
                );
                j += 1;
            }
            assert_eq!(j, k, "every node in range, and no other, at {t}");
        }
    }
}
