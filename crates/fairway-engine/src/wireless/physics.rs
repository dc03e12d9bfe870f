//! What one transmission brings to every node: where the node is, its distance squared from
//! the sender, the power it receives and the propagation delay (in nanoseconds, before
//! rounding), for all nodes at once (the power only beyond two-ray ground's crossover
//! distance, where nearly every node is: NaN nearer, left to [`Reach::power`]). One loop over the nodes' moves, column by column
//! ([`Motions`]), without a branch, which the compiler vectorizes: on x86-64 processors with
//! AVX2 (std's cached detection at each call) four nodes at a time. The same IEEE operations
//! in the same order as for one node ([`Motion::at`], [`Reach::far_power_and_ns`]), and none fused, so
//! the results are bit for bit the same with the vector instructions or without.

use fairway_core::Time;
use fairway_model::wireless::propagation::Reach;

use super::mobility::{Motion, Motions};

/// One transmission's numbers, node by node (the sender's own entry included: its distance is
/// zero).
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub d2: Vec<f64>,
    pub power: Vec<f64>,
    pub ns: Vec<f64>,
}

impl Batch {
    /// Fills the batch for a frame sent at `t` from (`x`, `y`).
    pub(crate) fn fill(&mut self, m: &Motions, reach: &Reach, t: Time, x: f64, y: f64) {
        let n = m.len();
        self.d2.resize(n, 0.0);
        self.power.resize(n, 0.0);
        self.ns.resize(n, 0.0);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, all `fill_avx2` asks of it.
            unsafe { fill_avx2(self, m, reach, t.0, x, y) };
            return;
        }
        fill_scalar(self, m, reach, t.0, x, y);
    }
}

#[inline(always)]
fn fill_body(b: &mut Batch, m: &Motions, reach: &Reach, t: u64, x: f64, y: f64) {
    let n = m.len();
    let (d2, power, ns) = (&mut b.d2[..n], &mut b.power[..n], &mut b.ns[..n]);
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
        let dd = (px - x) * (px - x) + (py - y) * (py - y);
        let (p, s) = reach.far_power_and_ns(dd.sqrt());
        d2[i] = dd;
        power[i] = p;
        ns[i] = s;
    }
}

fn fill_scalar(b: &mut Batch, m: &Motions, reach: &Reach, t: u64, x: f64, y: f64) {
    fill_body(b, m, reach, t, x, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_avx2(b: &mut Batch, m: &Motions, reach: &Reach, t: u64, x: f64, y: f64) {
    fill_body(b, m, reach, t, x, y)
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
            b.fill(&m, &reach, Time(t), x, y);
            let mut s = Batch::default();
            s.d2.resize(m.len(), 0.0);
            s.power.resize(m.len(), 0.0);
            s.ns.resize(m.len(), 0.0);
            fill_scalar(&mut s, &m, &reach, t, x, y);
            for i in 0..m.len() {
                let (px, py) = m.at(i, Time(t));
                let d2 = (px - x) * (px - x) + (py - y) * (py - y);
                assert_eq!(b.d2[i].to_bits(), d2.to_bits(), "node {i} at {t}");
                assert_eq!(b.power[i].to_bits(), reach.power(d2.sqrt()).to_bits(), "node {i} at {t}");
                assert_eq!(
                    (b.d2[i].to_bits(), b.power[i].to_bits(), b.ns[i].to_bits()),
                    (s.d2[i].to_bits(), s.power[i].to_bits(), s.ns[i].to_bits())
                );
            }
        }
    }
}
