//! When to probe (WebRTC's `ProbeController` with GoogCC's default configuration): at the start,
//! two probe clusters at 3 and 6 x the start rate; then, while waiting for their results, each
//! estimate that reaches 0.7 of the last cluster's rate asks for one more at 2 x that estimate
//! ("further exponential probing"); no cluster above the maximum rate (a capped cluster ends
//! the probing), none while the delay-based detector signals over- or under-use, and the wait
//! for a result ends a second after the last cluster was asked for.
//!
//! Each cluster is asked for with WebRTC's minimum of 5 packets and 15 ms of its rate in bytes.
//! The highest rate probed is the controller's maximum rate: WebRTC probes up to the call's
//! maximum (5 Mb/s when the application sets none), and up to twice the streams' allocated
//! maximum when it knows it; fairway's seam knows only the one maximum, the encoder's.
//!
//! Left out (see the module doc of [`super`]): probing in the application-limited region (ALR
//! probing, off in WebRTC unless the application asks for it; and the probe after a large drop
//! of the estimate, which WebRTC makes only in or just after ALR), probing when the maximum
//! rate or the allocated rate changes (fairway's seam changes neither during a run), repeated
//! initial probing (off by default), and probing toward a network state estimate (WebRTC has no
//! such estimator by default).

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use crate::rtp::controller::ProbeCluster;

#[cfg(test)]
#[path = "probe_controller_tests.rs"]
mod tests;

/// The initial clusters' rates over the start rate (WebRTC's `p1` and `p2` of
/// WebRTC-Bwe-ProbingConfiguration: 3 and 6).
pub const INITIAL_FACTORS: [f64; 2] = [3.0, 6.0];
/// A further cluster's rate over the estimate that asked for it (WebRTC's `step_size`: 2).
pub const STEP_SIZE: f64 = 2.0;
/// An estimate asks for a further cluster when it is above this share of the last cluster's
/// rate (WebRTC's `further_probe_threshold`: 0.7).
pub const FURTHER_PROBE_THRESHOLD: f64 = 0.7;
/// A cluster's minimum packets (WebRTC's `min_probe_packets_sent`: 5).
pub const MIN_PROBE_PACKETS: u32 = 5;
/// A cluster's minimum duration at its rate, which sets its minimum bytes (WebRTC's
/// `min_probe_duration`: 15 ms).
pub const MIN_PROBE_DURATION: Dur = Dur::from_millis(15);
/// How long the controller waits for a result before probing is complete (WebRTC's
/// `kMaxWaitingTimeForProbingResult`: 1 s).
pub const MAX_WAITING_FOR_RESULT: Dur = Dur::from_secs(1);

/// The controller's state (WebRTC's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeState {
    /// Nothing asked for yet.
    Init,
    /// Clusters asked for; a result may ask for another.
    WaitingForResult,
    /// No more probing.
    Complete,
}

/// The probe controller.
#[derive(Debug, Clone)]
pub struct ProbeController {
    state: ProbeState,
    max_bps: f64,
    /// An estimate above this asks for a further cluster (infinite when none may).
    min_to_probe_further: f64,
    last_initiated: Option<Time>,
    next_id: u32,
    pending: VecDeque<ProbeCluster>,
}

/// A cluster's minimum bytes: `rate_bps` over [`MIN_PROBE_DURATION`], rounded to the byte (as
/// WebRTC's rate x duration is).
pub fn min_probe_bytes(rate_bps: f64) -> u64 {
    (rate_bps * MIN_PROBE_DURATION.as_secs_f64() / 8.0).round() as u64
}

impl ProbeController {
    /// No cluster above `max_bps` (the controller's maximum rate).
    pub fn new(max_bps: f64) -> ProbeController {
        ProbeController {
            state: ProbeState::Init,
            max_bps,
            min_to_probe_further: f64::INFINITY,
            last_initiated: None,
            // WebRTC numbers its clusters from 1.
            next_id: 1,
            pending: VecDeque::new(),
        }
    }

    pub fn state(&self) -> ProbeState {
        self.state
    }

    /// The sender starts at `now` at `start_bps`: the initial clusters (WebRTC's exponential
    /// probing when the network becomes available with a start rate).
    pub fn start(&mut self, now: Time, start_bps: f64) {
        if self.state == ProbeState::Init {
            let rates = INITIAL_FACTORS.map(|f| f * start_bps);
            self.initiate(now, &rates, true);
        }
    }

    /// A new estimate (the target), and whether the delay-based detector signals over- or
    /// under-use (WebRTC's "delay-based limited, delay increased": no cluster then).
    pub fn on_estimate(&mut self, now: Time, estimate_bps: f64, delay_increased: bool) {
        if self.state == ProbeState::WaitingForResult && estimate_bps > self.min_to_probe_further && !delay_increased {
            self.initiate(now, &[STEP_SIZE * estimate_bps], true);
        }
    }

    /// The periodic check (WebRTC's `Process`, at each process interval): a wait for results
    /// longer than [`MAX_WAITING_FOR_RESULT`] completes the probing.
    pub fn process(&mut self, now: Time) {
        let waited = self.last_initiated.map_or(Dur::ZERO, |t| now.saturating_since(t));
        if self.state == ProbeState::WaitingForResult && waited > MAX_WAITING_FOR_RESULT {
            self.complete();
        }
    }

    /// The next cluster asked for and not yet taken.
    pub fn take(&mut self) -> Option<ProbeCluster> {
        self.pending.pop_front()
    }

    fn complete(&mut self) {
        self.state = ProbeState::Complete;
        self.min_to_probe_further = f64::INFINITY;
    }

    /// Asks for clusters at `rates` (each capped at the maximum, a capped one ending the
    /// probing); with `probe_further`, waits for results, a further cluster being due when an
    /// estimate passes [`FURTHER_PROBE_THRESHOLD`] of the last rate.
    fn initiate(&mut self, now: Time, rates: &[f64], mut probe_further: bool) {
        let mut last = 0.0;
        for &r in rates {
            let rate = if r >= self.max_bps {
                probe_further = false;
                self.max_bps
            } else {
                r
            };
            self.pending.push_back(ProbeCluster {
                id: self.next_id,
                rate_bps: rate,
                min_packets: MIN_PROBE_PACKETS,
                min_bytes: min_probe_bytes(rate),
            });
            self.next_id = self.next_id.wrapping_add(1);
            last = rate;
        }
        self.last_initiated = Some(now);
        if probe_further {
            self.state = ProbeState::WaitingForResult;
            self.min_to_probe_further = last * FURTHER_PROBE_THRESHOLD;
        } else {
            self.complete();
        }
    }
}
