//! The trendline filter, WebRTC's estimate of the one-way delay gradient. The draft
//! (draft-ietf-rmcat-gcc-02 §5.3) runs a Kalman filter over d(i); WebRTC replaced it with this
//! filter, which fairway follows: accumulate the delay variations, smooth the sum
//! exponentially, and fit a least-squares line through the last [`WINDOW`] (arrival time,
//! smoothed delay) points. Its slope (ms of queuing delay gained per ms) is the trend the
//! over-use detector ([`super::overuse`]) reads.

use std::collections::VecDeque;

#[cfg(test)]
#[path = "trendline_tests.rs"]
mod tests;

/// Points in the fit (WebRTC's default trendline window: 20 group deltas).
pub const WINDOW: usize = 20;
/// Weight of the previous smoothed delay (WebRTC's trendline smoothing coefficient, 0.9).
pub const SMOOTHING: f64 = 0.9;

/// The slope of the least-squares line through `points` (x, y), `None` if every x is the same
/// (or there are fewer than two points).
pub fn slope(points: impl Iterator<Item = (f64, f64)> + Clone) -> Option<f64> {
    let (mut n, mut sx, mut sy) = (0usize, 0.0, 0.0);
    for (x, y) in points.clone() {
        n += 1;
        sx += x;
        sy += y;
    }
    if n < 2 {
        return None;
    }
    let (mx, my) = (sx / n as f64, sy / n as f64);
    let (mut num, mut den) = (0.0, 0.0);
    for (x, y) in points {
        num += (x - mx) * (y - my);
        den += (x - mx) * (x - mx);
    }
    if den == 0.0 {
        None
    } else {
        Some(num / den)
    }
}

#[derive(Debug, Clone, Copy)]
struct Point {
    /// Arrival time since the first sample, ms.
    x: f64,
    /// Smoothed accumulated delay, ms.
    y: f64,
}

/// The filter's state.
#[derive(Debug, Clone)]
pub struct Trendline {
    window: usize,
    smoothing: f64,
    first_arrival_ms: Option<f64>,
    accumulated_ms: f64,
    smoothed_ms: f64,
    points: VecDeque<Point>,
    trend: f64,
}

impl Default for Trendline {
    fn default() -> Self {
        Trendline::new(WINDOW, SMOOTHING)
    }
}

impl Trendline {
    pub fn new(window: usize, smoothing: f64) -> Trendline {
        Trendline {
            window: window.max(2),
            smoothing,
            first_arrival_ms: None,
            accumulated_ms: 0.0,
            smoothed_ms: 0.0,
            points: VecDeque::with_capacity(window + 1),
            trend: 0.0,
        }
    }

    /// One group delta: its arrival and send spacing (ms) and the arrival time (ms, receiver's
    /// clock) of the packet that closed it. Returns the trend: the slope over the last full
    /// window, or the previous slope until the window first fills (WebRTC).
    pub fn update(&mut self, arrival_delta_ms: f64, send_delta_ms: f64, arrival_ms: f64) -> f64 {
        let first = *self.first_arrival_ms.get_or_insert(arrival_ms);
        self.accumulated_ms += arrival_delta_ms - send_delta_ms;
        self.smoothed_ms = self.smoothing * self.smoothed_ms + (1.0 - self.smoothing) * self.accumulated_ms;
        self.points.push_back(Point { x: arrival_ms - first, y: self.smoothed_ms });
        if self.points.len() > self.window {
            self.points.pop_front();
        }
        if self.points.len() == self.window {
            if let Some(s) = slope(self.points.iter().map(|p| (p.x, p.y))) {
                self.trend = s;
            }
        }
        self.trend
    }

    /// The latest trend.
    pub fn trend(&self) -> f64 {
        self.trend
    }

    /// The accumulated delay variation, ms.
    pub fn accumulated_ms(&self) -> f64 {
        self.accumulated_ms
    }

    /// The smoothed accumulated delay variation, ms.
    pub fn smoothed_ms(&self) -> f64 {
        self.smoothed_ms
    }
}
