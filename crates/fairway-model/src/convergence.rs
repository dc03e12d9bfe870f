//! Each flow's convergence time (RFC 8868 §3 item 8), in every run's summary, defined as
//! docs/scenarios.md ("Convergence") states it:
//!
//! the run is cut into periods at every event that changes what a flow may have at its
//! bottleneck (the slowest link of its data path, fairness.rs's): a change of that link's
//! capacity, and the start, stop, pause or resumption of any flow whose data crosses it. Within
//! a period [t0, t1) in which the flow runs throughout, its rate is taken over 1 s windows
//! (RFC 8868 §3 plots rates at 1 s); its settled rate is its mean over the period's last
//! `SETTLE_S` seconds; it has converged at the start of the first `SETTLE_S` consecutive windows
//! all within `BAND` (10%) of the settled rate (it reached a rate and held it), and its
//! convergence time is that start less t0. A period shorter than `SETTLE_S` plus one window is
//! not judged; a judged one with a settled rate of zero, or in which no `SETTLE_S` consecutive
//! windows are in the band, did not converge. Holding the band for `SETTLE_S` rather than to
//! the period's end keeps one late excursion (a key frame, a competitor's burst) from putting
//! the convergence at the period's end: RFC 8593's encoder's frame-size deviations (a Laplacian
//! of scale 0.15 at 30 fps) move a 1 s window by about 4% (one standard deviation), so over a
//! long period some window leaves a 10% band by chance alone.
//!
//! The windows are whole bins summed, so the run's `bin` must divide 1 s (the default 100 ms
//! does; a coarse bin chosen for a long run with many flows may not, and then no flow has one).

use fairway_core::{Dur, Time};

use crate::results::{BinRow, QueueRow, SeriesSink};
use crate::scenario::{FlowSpec, Scenario};

/// The relative band around the settled rate.
pub const BAND: f64 = 0.10;
/// The span at the end of a period over which the settled rate is averaged, seconds.
pub const SETTLE_S: f64 = 5.0;
/// The rate windows, seconds.
pub const WINDOW_S: f64 = 1.0;
const WINDOW: Dur = Dur(1_000_000_000);

/// The periods between consecutive `events` (any order, repeats allowed) within [0, end).
pub fn periods(events: &[f64], end: f64) -> Vec<(f64, f64)> {
    let mut t: Vec<f64> = events.iter().copied().filter(|&e| e > 0.0 && e < end).collect();
    t.push(0.0);
    t.push(end);
    t.sort_by(f64::total_cmp);
    t.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    t.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Whether the period [t0, t1) is long enough to be judged.
pub fn judged(t0: f64, t1: f64) -> bool {
    t1 - t0 >= SETTLE_S + WINDOW_S
}

/// The convergence time of a flow whose window rates are `rate` (start, b/s) within the period
/// [t0, t1) (see the module's definition); `None` if it did not converge or the period is too
/// short to judge.
pub fn convergence_time(rate: &[(f64, f64)], t0: f64, t1: f64) -> Option<f64> {
    if !judged(t0, t1) {
        return None;
    }
    // `rate` is in time order: the windows that start at or after t0 and end by t1.
    let lo = rate.partition_point(|&(s, _)| s < t0 - 1e-9);
    let hi = rate.partition_point(|&(s, _)| s + WINDOW_S <= t1 + 1e-9).max(lo);
    let inside = &rate[lo..hi];
    let tail: Vec<f64> = inside.iter().filter(|&&(s, _)| s >= t1 - SETTLE_S - 1e-9).map(|x| x.1).collect();
    if tail.is_empty() {
        return None;
    }
    let settled = tail.iter().sum::<f64>() / tail.len() as f64;
    if settled <= 0.0 {
        return None;
    }
    let within = |r: f64| (r - settled).abs() <= BAND * settled;
    let hold = (SETTLE_S / WINDOW_S).round() as usize;
    let mut run = 0;
    for (k, &(_, r)) in inside.iter().enumerate() {
        run = if within(r) { run + 1 } else { 0 };
        if run == hold {
            return Some(inside[k + 1 - hold].0 - t0);
        }
    }
    None
}

/// A flow's convergence over its run: the periods judged, how many of them it converged in,
/// and the mean of its convergence times over those.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Convergence {
    pub periods: u32,
    pub converged: u32,
    pub mean_s: Option<f64>,
}

/// The periods that `events` cut [0, end) into that are long enough to judge.
pub fn judged_periods(events: &[f64], end: f64) -> Vec<(f64, f64)> {
    periods(events, end).into_iter().filter(|&(t0, t1)| judged(t0, t1)).collect()
}

/// The convergence of a flow with window rates `rate` (start, b/s, in time order), active over
/// `active` (start, stop) less its own `pauses`, over `periods` (from [`judged_periods`]).
pub fn convergence(
    rate: &[(f64, f64)],
    periods: &[(f64, f64)],
    active: (f64, f64),
    pauses: &[(f64, f64)],
) -> Convergence {
    let mut c = Convergence::default();
    let mut sum = 0.0;
    for &(t0, t1) in periods {
        let paused = pauses.iter().any(|&(a, b)| t0 < b - 1e-9 && t1 > a + 1e-9);
        if t0 + 1e-9 < active.0 || t1 > active.1 + 1e-9 || paused {
            continue;
        }
        c.periods += 1;
        if let Some(t) = convergence_time(rate, t0, t1) {
            c.converged += 1;
            sum += t;
        }
    }
    c.mean_s = (c.converged > 0).then(|| sum / c.converged as f64);
    c
}

/// The events that cut the periods of the flows whose bottleneck is `link`: its capacity's
/// changes, and the starts, stops and both ends of the pauses of `crossing`, the flows whose
/// data crosses it (each with when it starts in this run), seconds.
pub fn bottleneck_events<'a>(
    sc: &Scenario,
    link: usize,
    crossing: impl Iterator<Item = (&'a FlowSpec, Time)>,
    end: Time,
) -> Vec<f64> {
    let mut ev: Vec<f64> = match sc.links[link].schedule.as_deref() {
        Some(s) => s.rate.iter().map(|(t, _)| t.as_secs_f64()).collect(),
        None => vec![],
    };
    for (f, start) in crossing {
        ev.push(start.as_secs_f64());
        ev.push(f.stop.unwrap_or(end).min(end).as_secs_f64());
        for &(a, b) in &f.pauses {
            ev.push(a.as_secs_f64());
            ev.push(b.as_secs_f64());
        }
    }
    ev
}

/// How many bins of `bin` make a 1 s window, if a whole number do.
pub fn bins_per_window(bin: Dur) -> Option<u64> {
    (bin.0 > 0 && WINDOW.0.is_multiple_of(bin.0)).then(|| WINDOW.0 / bin.0)
}

/// A flow's window rates (start, b/s) from all its `bins` of width `bin`, of the windows whole
/// by `end`: what [`WindowTap`] gives for a run that keeps its bins (a live run's).
pub fn bin_rates(bins: &[BinRow], bin: Dur, end: Time) -> Vec<(f64, f64)> {
    let Some(per) = bins_per_window(bin) else { return vec![] };
    let mut bytes = vec![];
    for (k, b) in bins.iter().enumerate() {
        add(&mut bytes, k / per as usize, b.distinct_bytes);
    }
    rates(&bytes, end)
}

/// Adds `b` bytes to window `w` of one flow's window bytes.
fn add(bytes: &mut Vec<f32>, w: usize, b: u64) {
    if bytes.len() <= w {
        bytes.resize(w + 1, 0.0);
    }
    bytes[w] += b as f32;
}

/// One flow's window rates, (start, b/s), from its bytes per window, of the windows whole by
/// `end`.
fn rates(bytes: &[f32], end: Time) -> Vec<(f64, f64)> {
    let whole = (end.0 / WINDOW.0) as usize;
    bytes.iter().take(whole).enumerate().map(|(w, &b)| (w as f64 * WINDOW_S, b as f64 * 8.0 / WINDOW_S)).collect()
}

/// Each flow's bytes delivered per 1 s window, summed from the bins as a run hands them to the
/// sink behind it (a run that streams its bins keeps only these). Windows are aligned at 0; a
/// window the run ends inside is not made.
pub struct WindowTap<'a> {
    inner: &'a mut dyn SeriesSink,
    per: Option<u64>,
    /// Per flow, bytes per window (f32: a 10% band needs no more, and a run's windows are
    /// bounded by its flows.csv rows, up to 20 million).
    bytes: Vec<Vec<f32>>,
}

impl<'a> WindowTap<'a> {
    /// For `flows` flows binned at `bin`, in front of `inner`.
    pub fn new(inner: &'a mut dyn SeriesSink, flows: usize, bin: Dur) -> WindowTap<'a> {
        WindowTap { inner, per: bins_per_window(bin), bytes: vec![vec![]; flows] }
    }

    /// Bin `k` of every flow.
    fn add(&mut self, k: usize, rows: &[BinRow]) {
        let Some(per) = self.per else { return };
        for (b, r) in self.bytes.iter_mut().zip(rows) {
            add(b, k / per as usize, r.distinct_bytes);
        }
    }

    /// Flow `i`'s window rates, (start, b/s), of the windows whole by `end` (when the run
    /// ended); empty when the bin does not divide 1 s.
    pub fn rates(&self, i: usize, end: Time) -> Vec<(f64, f64)> {
        rates(&self.bytes[i], end)
    }
}

impl SeriesSink for WindowTap<'_> {
    fn bin(&mut self, k: usize, t0: Time, t1: Time, rows: &[BinRow]) {
        self.add(k, rows);
        self.inner.bin(k, t0, t1, rows);
    }

    fn queue(&mut self, link: usize, row: &QueueRow) {
        self.inner.queue(link, row);
    }

    fn agent(&mut self, rows: &[crate::results::AgentRow]) {
        self.inner.agent(rows);
    }

    fn packets(&mut self, rows: &[crate::packet_trace::PacketEvent]) {
        self.inner.packets(rows);
    }
}

#[cfg(test)]
#[path = "convergence_tests.rs"]
mod tests;
