//! RFC 8699's flow state exchange (FSE): coupled congestion control for the RTP media flows of
//! one sender. The flows of a flow group (FG, RFC 8699 §2: flows known to share a bottleneck)
//! register with one [`Fse`]; each time a flow's controller computes a new rate it calls
//! [`Fse::update`], which folds the change into the group's sum of calculated rates S_CR and
//! shares S_CR out again among all the group's flows by their priorities P(i), none above its
//! desired rate DR(i) (§5.3.1, "Example Algorithm 1 - Active FSE"). Each flow then runs on the
//! FSE's rate FSE_R(i) in place of its controller's own: NADA's reference rate r_ref (§6.1),
//! GCC's estimate A_hat (Appendix A), SCReAM's target bitrate (see
//! [`super::RateController::set_coupled_rate`] for each).
//!
//! fairway has no shared-bottleneck detection (RFC 8699 §5.1's SBD): the scenario names the
//! group (`couple = "..."` on RTP flows) and admits only flows of one sender host (RFC 8699 §1
//! and §3: the method is for flows that have the same sender).
//!
//! Choices the RFC leaves open, stated here and at their lines:
//! - §5.3.1 step (c)'s loop: the pseudocode's `while (TLO - AR > 0 ...)` can stop after a pass
//!   that capped a flow at its desired rate while flows seen earlier in that pass were given a
//!   share of the larger leftover before it; the step's stated aim ("distributes S_CR among all
//!   flows, ensuring that each flow's desired rate is not exceeded") is the weighted max-min
//!   share, so passes repeat until a pass caps no flow and the uncapped flows then share what
//!   is left by priority;
//! - §5.3.1 step (2) removes a stopped or paused flow's entry and says nothing of S_CR: its
//!   FSE_R is taken off S_CR with it, so that the flows left do not jump at once to the share
//!   of a flow that no longer sends (§6.2 warns of rate jumps); their controllers raise their
//!   rates again as the bottleneck allows;
//! - step (d) "distributes FSE_R(i) to all the flows": each flow reads its FSE_R at its next
//!   event (a [`FseMember`] sees the group's update counter move), which in a simulation run
//!   is before it next uses its rate: updates are applied in event order, so a run stays
//!   deterministic;
//! - registration (§5.3.1 step (1)) only adds the flow's initial rate to S_CR; the shares are
//!   recomputed at the next UPDATE, as the step says. A flow resuming after a pause registers
//!   again with its controller's rate at that moment (the session keeps its rate, RFC 8867
//!   §5.8), not the controller's initial one;
//! - step (3) runs when the controller's rate differs from the FSE_R the flow runs on (a rate
//!   that did not move is no "new sending rate");
//! - a controller keeps its own floor (GCC's and SCReAM's minimum rate; NADA's r_vin stays at
//!   least RMIN): a FSE_R below it leaves the flow at its floor, and its next CC_R counts the
//!   difference as an increase, so S_CR grows until every share is above the floors. The group
//!   holds no flow under its minimum.

use std::sync::{Arc, Mutex};

/// A flow's handle in its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowId(u64);

/// What the FSE keeps of one flow (RFC 8699 §5.2).
#[derive(Debug, Clone, Copy)]
struct Entry {
    id: FlowId,
    /// P(f), a number above zero.
    prio: f64,
    /// FSE_R(f), bits per second.
    rate: f64,
    /// DR(f), bits per second.
    desired: f64,
}

/// One flow group's state exchange, Algorithm 1 of RFC 8699 §5.3.1.
#[derive(Debug, Clone, Default)]
pub struct Fse {
    flows: Vec<Entry>,
    /// S_CR, the sum of the calculated rates (§5.2), bits per second.
    s_cr: f64,
    next_id: u64,
    /// Counts the redistributions (step (d)), so that a flow knows when its FSE_R may have moved.
    updates: u64,
}

impl Fse {
    pub fn new() -> Fse {
        Fse::default()
    }

    /// Step (1): flow f registers with priority `prio` (above zero), its controller's current
    /// rate `rate` as FSE_R(f) and its desired rate `desired`; FSE_R(f) is added to S_CR.
    pub fn register(&mut self, prio: f64, rate: f64, desired: f64) -> FlowId {
        assert!(prio.is_finite() && prio > 0.0, "RFC 8699 §5.2: a priority is a number greater than zero");
        let id = FlowId(self.next_id);
        self.next_id += 1;
        self.flows.push(Entry { id, prio, rate, desired });
        self.s_cr += rate;
        id
    }

    /// Step (2): flow f stops or pauses; its entry is removed (and its FSE_R taken off S_CR: the
    /// module's notes say why).
    pub fn deregister(&mut self, id: FlowId) {
        if let Some(i) = self.flows.iter().position(|e| e.id == id) {
            let e = self.flows.remove(i);
            self.s_cr = (self.s_cr - e.rate).max(0.0);
        }
    }

    /// Step (3): flow f's controller determined the new rate `cc_rate` (CC_R(f)), its
    /// application desiring `desired` (DR(f)); the group's rates are computed anew. Returns
    /// FSE_R(f). A flow not registered is left alone and gets `cc_rate` back.
    pub fn update(&mut self, id: FlowId, cc_rate: f64, desired: f64) -> f64 {
        let Some(i) = self.flows.iter().position(|e| e.id == id) else { return cc_rate };
        // (a) S_CR = S_CR + CC_R(f) - FSE_R(f).
        self.s_cr = (self.s_cr + cc_rate - self.flows[i].rate).max(0.0);
        self.flows[i].desired = desired;
        self.distribute();
        self.flows[i].rate
    }

    /// Steps (b) and (c): S_CR shared by priority, no flow above its desired rate.
    fn distribute(&mut self) {
        // (b) S_P, the sum of the priorities; every FSE_R back to 0 (`open`: not yet capped).
        let mut s_p: f64 = self.flows.iter().map(|e| e.prio).sum();
        let mut open = vec![true; self.flows.len()];
        for e in &mut self.flows {
            e.rate = 0.0;
        }
        // (c) TLO, the leftover: a flow whose share TLO x P(i) / S_P reaches DR(i) gets DR(i),
        // which leaves TLO and S_P; passes repeat until one caps no flow (module notes).
        let mut tlo = self.s_cr;
        loop {
            let mut capped = false;
            for (e, open) in self.flows.iter_mut().zip(open.iter_mut()) {
                if *open && s_p > 0.0 && tlo * e.prio / s_p >= e.desired {
                    e.rate = e.desired;
                    tlo -= e.desired;
                    s_p -= e.prio;
                    *open = false;
                    capped = true;
                }
            }
            if !capped {
                break;
            }
        }
        // ... and the uncapped flows share what is left by priority.
        for (e, open) in self.flows.iter_mut().zip(&open) {
            if *open && s_p > 0.0 {
                e.rate = tlo.max(0.0) * e.prio / s_p;
            }
        }
        // (d) is each flow's reading of its FSE_R: see FseMember.
        self.updates += 1;
    }

    /// FSE_R(f), if f is registered.
    pub fn rate(&self, id: FlowId) -> Option<f64> {
        self.flows.iter().find(|e| e.id == id).map(|e| e.rate)
    }

    /// S_CR.
    pub fn sum(&self) -> f64 {
        self.s_cr
    }

    /// The flows registered.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// How many times the rates were computed anew.
    pub fn updates(&self) -> u64 {
        self.updates
    }
}

/// One group's FSE as its flows share it: the senders of one run hold it together (a run is
/// one thread, but the engine runs runs on several, so the handle is Send).
pub type SharedFse = Arc<Mutex<Fse>>;

/// A sender's membership of a group: its priority, its entry while it sends, and the last
/// redistribution it took its rate from.
#[derive(Debug)]
pub struct FseMember {
    fse: SharedFse,
    prio: f64,
    id: Option<FlowId>,
    seen: u64,
    /// The FSE_R the flow last took: a controller rate equal to it is no new rate.
    last: Option<f64>,
}

impl FseMember {
    /// A member of `fse` with priority `prio`, not yet registered.
    pub fn new(fse: SharedFse, prio: f64) -> Result<FseMember, String> {
        if !(prio.is_finite() && prio > 0.0) {
            return Err(format!("priority {prio} must be a number greater than zero (RFC 8699 §5.2)"));
        }
        Ok(FseMember { fse, prio, id: None, seen: 0, last: None })
    }

    pub fn prio(&self) -> f64 {
        self.prio
    }

    /// Whether the flow is registered (it has started and is not paused).
    pub fn joined(&self) -> bool {
        self.id.is_some()
    }

    /// Step (1) at the flow's start or resumption, at its controller's rate `rate`.
    pub fn join(&mut self, rate: f64, desired: f64) {
        if self.id.is_none() {
            let mut fse = lock(&self.fse);
            let id = fse.register(self.prio, rate, desired);
            self.seen = fse.updates();
            drop(fse);
            self.id = Some(id);
            self.last = Some(rate);
        }
    }

    /// Step (2) at the flow's stop or pause.
    pub fn leave(&mut self) {
        self.last = None;
        if let Some(id) = self.id.take() {
            lock(&self.fse).deregister(id);
        }
    }

    /// Step (3): the controller's rate `cc_rate` after one of its updates; returns FSE_R(f) to
    /// run on. A rate equal to the FSE_R the flow runs on is no new rate ("every time the
    /// congestion controller ... determines a new sending rate"): nothing is exchanged.
    pub fn update(&mut self, cc_rate: f64, desired: f64) -> f64 {
        let Some(id) = self.id else { return cc_rate };
        if self.last == Some(cc_rate) {
            return cc_rate;
        }
        let mut fse = lock(&self.fse);
        let r = fse.update(id, cc_rate, desired);
        self.seen = fse.updates();
        drop(fse);
        self.last = Some(r);
        r
    }

    /// Step (d) as this flow sees it: FSE_R(f) if the group computed the rates anew since this
    /// flow last took its rate, else `None`.
    pub fn pending(&mut self) -> Option<f64> {
        let id = self.id?;
        let fse = lock(&self.fse);
        if fse.updates() == self.seen {
            return None;
        }
        self.seen = fse.updates();
        let r = fse.rate(id);
        drop(fse);
        self.last = r.or(self.last);
        r
    }
}

/// The group's state (a run that panicked with the lock held is over; its state is still
/// readable).
fn lock(fse: &SharedFse) -> std::sync::MutexGuard<'_, Fse> {
    fse.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for FseMember {
    /// A flow that goes away leaves its group.
    fn drop(&mut self) {
        self.leave();
    }
}

#[cfg(test)]
#[path = "fse_tests.rs"]
mod tests;
