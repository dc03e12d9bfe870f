//! PIE, Proportional Integral controller Enhanced (RFC 8033): a FIFO that drops arrivals at
//! random with a probability a PI controller updates every `t_update` from the queueing delay,
//! how far it is from the target and whether it is rising or falling.
//!
//! - Enqueue (§4.1, §4.4, Appendix A): a full buffer refuses the packet; while the burst
//!   allowance lasts, or while the delay is low and the probability small (qdelay_old below half
//!   the target and drop_prob below 0.2), or with at most two mean packets' bytes waiting, the
//!   packet is taken; otherwise it is dropped with probability drop_prob (marked instead, if it
//!   is ECN-capable, `ecn` is on and drop_prob is below `mark_ecn_threshold`, §5.1). With
//!   `derandomize` (§5.4) the drops are spaced by an accumulated probability.
//! - Delay (§4.3): by default each departing packet's sojourn time (the time-stamp method of
//!   Appendix A), zero when it leaves the queue empty (as Linux's pie does, which lets the
//!   decay of §4.2 act); with `dq_rate_estimator`, Little's law over the departure rate measured
//!   in `dq_threshold`-byte cycles (§5.2).
//! - Update (§4.2): p = alpha (qdelay - target) + beta (qdelay - qdelay_old) (in seconds, alpha
//!   and beta in Hz), scaled down while drop_prob is small, capped at 0.02 a step once drop_prob
//!   reaches 0.1 (`cap_drop_adjustment`, §5.5), added to drop_prob; a decay of 2% while both
//!   delays are zero; bounds 0 and 1; the burst allowance shrinks by `t_update` and is restored
//!   when the probability is zero and both delays are under half the target (§4.4).
//!
//! `flavor = Ns3` follows ns-3.37's PieQueueDisc where it differs from the RFC: the burst
//! allowance is armed by the first arrival that meets the drop test (not at the start), holds the
//! drop probability at zero while it lasts (the RFC keeps the controller running and only skips
//! the drops), and is armed again only after 1.5 s in which both delays stayed under half the
//! target with a zero probability (the RFC re-arms it at once); the work-conserving rule counts at
//! most two waiting packets (the RFC two mean packets' bytes); a drop needs u <= p (the RFC u < p).
//!
//! The updates are due every `t_update` from time zero. A discipline has no timer of its own
//! here: each call first makes the updates that fell due since the last, in order, on the state
//! they would have seen (nothing changes a queue between its arrivals and departures).

use fairway_core::{Bytes, Dur, PacketRef, Rng, Time};

use crate::{
    Decides, Departure, Discipline, DropReason, Fifo, Keys, Limit, OnLink, PacketMeta, ParamError, QueueDiscipline,
    QueueStats, Queued, Read, Verdict,
};

/// PIE's parameters (RFC 8033 Appendix B's, with its defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the target queueing delay (15 ms).
    pub target: Dur,
    /// T_UPDATE, the controller's period (15 ms).
    pub t_update: Dur,
    /// alpha and beta, in Hz (1/8 and 1 + 1/4).
    pub alpha: f64,
    pub beta: f64,
    /// MAX_BURST (150 ms).
    pub max_burst: Dur,
    /// Packets that may wait; an arrival finding this many is refused.
    pub limit: u32,
    /// MEAN_PKTSIZE: no random drop with at most twice this many bytes waiting (1000 bytes).
    pub mean_pktsize: Bytes,
    /// Mark ECN-capable packets instead of dropping them while drop_prob is below
    /// `mark_ecn_threshold` (§5.1: 0.1).
    pub ecn: bool,
    pub mark_ecn_threshold: f64,
    /// §5.2: the delay from the measured departure rate instead of time stamps.
    pub dq_rate_estimator: bool,
    /// DQ_THRESHOLD: the bytes of a departure-rate measurement cycle (16 KB).
    pub dq_threshold: Bytes,
    /// §5.5: at most 0.02 added a step once drop_prob reaches 0.1.
    pub cap_drop_adjustment: bool,
    /// §5.4: drops spaced by an accumulated probability.
    pub derandomize: bool,
    /// Whose reading of the RFC (see the module documentation).
    pub flavor: PieFlavor,
}

/// Whose reading of RFC 8033 PIE follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PieFlavor {
    /// RFC 8033 Appendix A and B.
    #[default]
    Rfc,
    /// ns-3.37's PieQueueDisc.
    Ns3,
}

/// ns-3's burst states (its `BurstStateT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum BurstState {
    #[default]
    NoBurst,
    Protecting,
    InBurst,
}

/// ns-3 pie-queue-disc.h `BURST_RESET_TIMEOUT`: the calm that re-arms the allowance, seconds.
const NS3_BURST_RESET_S: f64 = 1.5;

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: Dur::from_millis(15),
            t_update: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            limit: 1000,
            mean_pktsize: Bytes(1000),
            ecn: false,
            mark_ecn_threshold: 0.1,
            dq_rate_estimator: false,
            dq_threshold: Bytes(16_384),
            cap_drop_adjustment: true,
            derandomize: false,
            flavor: PieFlavor::Rfc,
        }
    }
}

impl PieParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.target.is_zero() {
            return Err(ParamError::new("target", "must be above zero"));
        }
        if self.t_update.is_zero() {
            return Err(ParamError::new("t_update", "must be above zero"));
        }
        for (field, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ParamError::new(field, format!("{v} is not a gain in Hz (0 or more)")));
            }
        }
        if self.limit == 0 {
            return Err(ParamError::new("limit", "must be at least 1 packet"));
        }
        if !(0.0..=1.0).contains(&self.mark_ecn_threshold) {
            return Err(ParamError::new("mark_ecn_threshold", "is a probability (0 to 1)"));
        }
        if self.dq_threshold.0 == 0 {
            return Err(ParamError::new("dq_threshold", "must be at least 1 byte"));
        }
        Ok(())
    }
}

/// PIE's state (Appendix B's variables).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct PieVars {
    drop_prob: f64,
    /// The latest delay sample (current_qdelay) and the one of the last update (qdelay_old).
    qdelay: Dur,
    qdelay_old: Dur,
    burst_allowance: Dur,
    accu_prob: f64,
    /// The next update.
    next_update: Time,
    // §5.2's departure-rate measurement.
    in_measurement: bool,
    dq_count: u64,
    measurement_start: Time,
    /// The time to drain `dq_threshold` bytes, smoothed; zero before the first measurement.
    avg_dq_time: f64,
    /// ns-3's burst state and its count of calm updates.
    burst_state: BurstState,
    burst_reset: u32,
}

/// A PIE queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct Pie {
    params: PieParams,
    vars: PieVars,
    q: Fifo<Time>,
    stats: QueueStats,
}

impl Pie {
    pub fn new(params: PieParams) -> Result<Pie, ParamError> {
        params.validate()?;
        // RFC 8033 §4.4: the allowance starts at MAX_BURST; ns-3 arms it on the first arrival.
        let burst_allowance = match params.flavor {
            PieFlavor::Rfc => params.max_burst,
            PieFlavor::Ns3 => Dur::ZERO,
        };
        let vars = PieVars { burst_allowance, ..PieVars::default() };
        Ok(Pie { params, vars, q: Fifo::new(), stats: QueueStats::default() })
    }

    /// A PIE whose updates are due at `first_update` and every `t_update` after, instead of from
    /// time zero: ns-3 starts a PieQueueDisc's update timer when it builds it, and FQ-PIE builds
    /// one per flow queue when the queue's first packet arrives.
    pub(crate) fn with_first_update(params: PieParams, first_update: Time) -> Result<Pie, ParamError> {
        let mut pie = Pie::new(params)?;
        pie.vars.next_update = first_update;
        Ok(pie)
    }

    /// Takes the packet at the head without a departure's delay sample (FQ-PIE's overflow drops
    /// from the fattest flow; ns-3 takes them from the PieQueueDisc's internal queue). The
    /// updates due by `now` come first.
    pub(crate) fn drop_head(&mut self, now: Time) -> Option<(PacketRef, Bytes)> {
        self.catch_up(now);
        let e = self.q.pop()?;
        self.stats.count_dropped(DropReason::Overflow);
        Some((e.pkt, e.size))
    }

    pub fn params(&self) -> &PieParams {
        &self.params
    }

    /// The drop probability now.
    pub fn drop_prob(&self) -> f64 {
        self.vars.drop_prob
    }

    /// The latest delay sample.
    pub fn qdelay(&self) -> Dur {
        self.vars.qdelay
    }

    /// Whether an arrival now would be refused for want of room.
    pub fn would_overflow(&self) -> bool {
        self.q.len() >= self.params.limit as usize
    }

    /// Whether the burst allowance covers arrivals now.
    pub fn in_burst(&self) -> bool {
        !self.vars.burst_allowance.is_zero()
    }

    /// Makes the updates due by `now`, each at its own time.
    pub(crate) fn catch_up(&mut self, now: Time) {
        while self.vars.next_update <= now {
            self.update();
            self.vars.next_update += self.params.t_update;
        }
    }

    /// The delay now, for an update (§4.3, §5.2).
    fn current_qdelay(&self) -> Dur {
        if self.params.dq_rate_estimator {
            // §5.2: queue bytes x avg_dq_time / DQ_THRESHOLD.
            let d = self.q.bytes().0 as f64 * self.vars.avg_dq_time / self.params.dq_threshold.0 as f64;
            Dur(d.round() as u64)
        } else {
            self.vars.qdelay
        }
    }

    /// RFC 8033 §4.2 calculate_drop_prob(), with §4.4's burst allowance and §5.5's cap.
    pub(crate) fn update(&mut self) {
        let qdelay = self.current_qdelay();
        let p = &self.params;
        let v = &mut self.vars;
        let ns3 = p.flavor == PieFlavor::Ns3;
        if ns3 && !v.burst_allowance.is_zero() {
            // ns-3 CalculateP: no probability while the allowance lasts.
            v.drop_prob = 0.0;
        }
        let ref_s = p.target.as_secs_f64();
        let mut adj = if ns3 && !v.burst_allowance.is_zero() {
            0.0
        } else {
            p.alpha * (qdelay.as_secs_f64() - ref_s) + p.beta * (qdelay.as_secs_f64() - v.qdelay_old.as_secs_f64())
        };
        // §4.2: the gains shrink with the probability, so that a light drop rate moves gently.
        adj /= match v.drop_prob {
            x if x < 0.000_001 => 2048.0,
            x if x < 0.000_01 => 512.0,
            x if x < 0.000_1 => 128.0,
            x if x < 0.001 => 32.0,
            x if x < 0.01 => 8.0,
            x if x < 0.1 => 2.0,
            _ => 1.0,
        };
        // §5.5: cap the step once the probability is high.
        if p.cap_drop_adjustment && v.drop_prob >= 0.1 && adj > 0.02 {
            adj = 0.02;
        }
        v.drop_prob += adj;
        // §4.2: decay exponentially once the queue is gone.
        if qdelay.is_zero() && v.qdelay_old.is_zero() {
            v.drop_prob *= 0.98;
        }
        v.drop_prob = v.drop_prob.clamp(0.0, 1.0);
        // §4.4: the allowance shrinks each update.
        v.burst_allowance = Dur(v.burst_allowance.0.saturating_sub(p.t_update.0));
        let half = Dur(p.target.0 / 2);
        let calm = v.drop_prob == 0.0 && qdelay < half && v.qdelay_old < half;
        if !ns3 {
            // §4.4: congestion gone, the allowance is back.
            if calm {
                v.burst_allowance = p.max_burst;
            }
        } else if calm && v.burst_allowance.is_zero() {
            // ns-3: the allowance is armed again after BURST_RESET_TIMEOUT of calm.
            let limit = (NS3_BURST_RESET_S / p.t_update.as_secs_f64()) as u32;
            match v.burst_state {
                BurstState::Protecting => {
                    v.burst_state = BurstState::InBurst;
                    v.burst_reset = 0;
                }
                BurstState::InBurst => {
                    v.burst_reset += 1;
                    if v.burst_reset > limit {
                        v.burst_reset = 0;
                        v.burst_state = BurstState::NoBurst;
                    }
                }
                BurstState::NoBurst => {}
            }
        } else if v.burst_state == BurstState::InBurst {
            v.burst_reset = 0;
        }
        v.qdelay_old = qdelay;
    }

    /// §4.1 drop_early() with §5.4's derandomization: whether to drop (or mark) this arrival.
    fn drop_early(&mut self, rng: &mut Rng) -> bool {
        let p = &self.params;
        let v = &mut self.vars;
        let ns3 = p.flavor == PieFlavor::Ns3;
        if ns3 {
            // ns-3 DropEarly: no drop while the allowance lasts; the first test arms it.
            if !v.burst_allowance.is_zero() {
                return false;
            }
            if v.burst_state == BurstState::NoBurst {
                v.burst_state = BurstState::Protecting;
                v.burst_allowance = p.max_burst;
            }
        }
        let half = Dur(p.target.0 / 2);
        // Work conserving: a short queue, or a low delay while the probability is small.
        let short = if ns3 { self.q.len() <= 2 } else { self.q.bytes().0 <= 2 * p.mean_pktsize.0 };
        if (v.qdelay_old < half && v.drop_prob < 0.2) || short {
            return false;
        }
        if p.derandomize {
            if v.drop_prob == 0.0 {
                v.accu_prob = 0.0;
            }
            v.accu_prob += v.drop_prob;
            if v.accu_prob < 0.85 {
                return false;
            }
            if v.accu_prob >= 8.5 {
                v.accu_prob = 0.0;
                return true;
            }
        }
        let u = rng.uniform();
        let drop = if ns3 { u <= v.drop_prob } else { u < v.drop_prob };
        if drop {
            v.accu_prob = 0.0;
        }
        drop
    }

    /// §5.2: the departure-rate measurement, on a departure of `size` (the queue's bytes are
    /// those left behind it, as Linux's pie_process_dequeue sees them).
    fn measure_departure(&mut self, now: Time, size: Bytes) {
        let p = &self.params;
        let v = &mut self.vars;
        if !v.in_measurement && self.q.bytes().0 >= p.dq_threshold.0 {
            v.in_measurement = true;
            v.measurement_start = now;
            v.dq_count = 0;
        }
        if v.in_measurement {
            v.dq_count += size.0;
            if v.dq_count >= p.dq_threshold.0 {
                let elapsed = now.saturating_since(v.measurement_start).0 as f64;
                let w = p.dq_threshold.0 as f64 / 65_536.0;
                v.avg_dq_time = if v.avg_dq_time == 0.0 { elapsed } else { elapsed * w + v.avg_dq_time * (1.0 - w) };
                v.dq_count = 0;
                v.measurement_start = now;
                // §5.2: keep measuring only while enough is queued.
                if self.q.bytes().0 < p.dq_threshold.0 {
                    v.in_measurement = false;
                }
            }
        }
    }
}

impl QueueDiscipline for Pie {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        self.catch_up(now);
        let v = if self.would_overflow() {
            Verdict::Drop(DropReason::Overflow)
        } else if (self.params.flavor == PieFlavor::Ns3 || self.vars.burst_allowance.is_zero()) && self.drop_early(rng)
        {
            if self.params.ecn && meta.ecn_capable && self.vars.drop_prob < self.params.mark_ecn_threshold {
                Verdict::EnqueueMarked
            } else {
                Verdict::Drop(DropReason::Early)
            }
        } else {
            Verdict::Enqueue
        };
        if matches!(v, Verdict::Enqueue | Verdict::EnqueueMarked) {
            self.q.push(pkt, meta.size, now);
        }
        self.stats.count_verdict(meta, v);
        v
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        self.catch_up(now);
        let Queued { pkt, size, tag: at } = self.q.pop()?;
        if self.params.dq_rate_estimator {
            self.measure_departure(now, size);
        } else {
            // Appendix A: the delay is the leaving packet's; nothing waits behind an emptied queue.
            self.vars.qdelay = if self.q.is_empty() { Dur::ZERO } else { now.saturating_since(at) };
        }
        self.stats.count_departure(size);
        Some(Departure::plain(pkt, size))
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn bytes(&self) -> Bytes {
        self.q.bytes()
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }
}

/// The keys of PIE's controller, which FQ-PIE's queues share: RFC 8033's parameters and
/// Linux's and ns-3's options.
pub(crate) const CONTROLLER_KEYS: &[&str] = &[
    "target",
    "t_update",
    "alpha",
    "beta",
    "max_burst",
    "ecn",
    "mark_ecn_threshold",
    "dq_rate_estimator",
    "dq_threshold",
    "cap_drop_adjustment",
    "derandomize",
];

/// Reads [`CONTROLLER_KEYS`] into `p`.
pub(crate) fn read_controller(k: &mut dyn Keys, p: &mut PieParams) -> Read<()> {
    k.set_dur("target", &mut p.target)?;
    k.set_dur("t_update", &mut p.t_update)?;
    k.set_dur("max_burst", &mut p.max_burst)?;
    k.set_f64("alpha", &mut p.alpha)?;
    k.set_f64("beta", &mut p.beta)?;
    k.set_f64("mark_ecn_threshold", &mut p.mark_ecn_threshold)?;
    k.set_bytes_pos("dq_threshold", &mut p.dq_threshold)?;
    k.set_bool("ecn", &mut p.ecn)?;
    k.set_bool("dq_rate_estimator", &mut p.dq_rate_estimator)?;
    k.set_bool("cap_drop_adjustment", &mut p.cap_drop_adjustment)?;
    k.set_bool("derandomize", &mut p.derandomize)
}

impl Discipline for Pie {
    type Params = PieParams;
    const KIND: &'static str = "pie";
    const LABEL: Option<&'static str> = Some("PIE");
    const DECIDES: Decides = Decides::AtEnqueue;
    const FIFO: bool = true;
    const DRAWS: bool = true;
    // Its delay samples come with departures; an idle link leaves it nothing to learn.
    const TRACKS_IDLE: bool = false;
    const KEEPS_AVERAGE: bool = false;

    fn keys() -> Vec<&'static str> {
        [&["limit", "mean_pktsize", "flavor"], CONTROLLER_KEYS].concat()
    }

    /// What is not given keeps RFC 8033's value ([`PieParams::default`]).
    fn read(k: &mut dyn Keys) -> Read<PieParams> {
        let mut p = PieParams::default();
        k.set_u32("limit", 1, &mut p.limit)?;
        read_controller(k, &mut p)?;
        k.set_bytes_pos("mean_pktsize", &mut p.mean_pktsize)?;
        if let Some(f) = k.choice(
            "flavor",
            &[("rfc", PieFlavor::Rfc, "RFC 8033"), ("ns3", PieFlavor::Ns3, "ns-3.37's PieQueueDisc")],
        )? {
            p.flavor = f;
        }
        k.check(p.validate())?;
        Ok(p)
    }
    fn build(p: &PieParams, _: OnLink) -> Result<Pie, ParamError> {
        Pie::new(*p)
    }
    fn limit(p: &PieParams) -> Limit {
        Limit::Packets(p.limit)
    }
    fn marks_ecn(p: &PieParams) -> bool {
        p.ecn
    }
    /// The drop probability's periodic update (RFC 8033 §4.2), every `t_update`.
    fn timers_per_s(p: &PieParams, _: usize) -> f64 {
        1.0 / p.t_update.as_secs_f64().max(1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Class;
    use fairway_core::FlowId;

    const MS: u64 = 1_000_000;

    fn meta() -> PacketMeta {
        PacketMeta { size: Bytes(1000), ecn_capable: false, flow: FlowId(0), class: Class::Tcp }
    }

    /// A standing queue: `n` packets, then one arrival and one departure per ms up to `until`,
    /// each departing packet having waited about n ms.
    fn standing(q: &mut Pie, n: u32, until_ms: u64, rng: &mut Rng) -> u64 {
        let mut id = 0;
        for _ in 0..n {
            q.enqueue(Time(0), &meta(), PacketRef(id), rng);
            id += 1;
        }
        let mut drops = 0;
        for ms in 1..until_ms {
            q.dequeue(Time(ms * MS));
            if let Verdict::Drop(_) = q.enqueue(Time(ms * MS), &meta(), PacketRef(id), rng) {
                drops += 1;
            }
            id += 1;
        }
        drops
    }

    #[test]
    fn the_first_update_follows_the_rfcs_arithmetic() {
        // One update at 15 ms with a 40 ms delay sample, qdelay_old 0, drop_prob 0: p = 0.125 x
        // (0.040 - 0.015) + 1.25 x 0.040 = 0.053125, divided by 2048 at this probability.
        let mut q = Pie::new(PieParams::default()).unwrap();
        q.vars.next_update = Time(15 * MS);
        q.vars.qdelay = Dur(40 * MS);
        q.q.push(PacketRef(0), Bytes(1000), Time(0));
        q.catch_up(Time(15 * MS));
        let expect = (0.125 * 0.025 + 1.25 * 0.040) / 2048.0;
        assert!((q.drop_prob() - expect).abs() < 1e-15, "{}", q.drop_prob());
        assert_eq!(q.vars.qdelay_old, Dur(40 * MS));
        // The allowance shrank by one update: 150 - 15 ms.
        assert_eq!(q.vars.burst_allowance, Dur(135 * MS));
    }

    #[test]
    fn a_standing_queue_above_the_target_raises_the_probability_and_drops() {
        let mut q = Pie::new(PieParams::default()).unwrap();
        let mut rng = Rng::from_seed(1);
        // 50 packets waiting, each about 50 ms: well above the 15 ms target.
        let drops = standing(&mut q, 50, 3000, &mut rng);
        assert!(q.drop_prob() > 0.0 && drops > 0, "p {} drops {drops}", q.drop_prob());
        assert!(!q.in_burst());
        assert_eq!(q.stats().early_drops, drops);
    }

    #[test]
    fn no_drop_during_the_burst_allowance_or_below_half_the_target() {
        // 150 ms of allowance: a burst arriving at once is taken whatever the delay.
        let mut q = Pie::new(PieParams::default()).unwrap();
        let mut rng = Rng::from_seed(1);
        let drops = standing(&mut q, 50, 140, &mut rng);
        assert_eq!(drops, 0);
        // A queue whose packets wait 5 ms (under half of 15) is never dropped early.
        let mut q = Pie::new(PieParams::default()).unwrap();
        let drops = standing(&mut q, 5, 5000, &mut rng);
        assert_eq!(drops, 0);
        assert_eq!(q.drop_prob(), 0.0);
    }

    #[test]
    fn the_probability_decays_once_the_queue_is_gone() {
        let mut q = Pie::new(PieParams::default()).unwrap();
        let mut rng = Rng::from_seed(1);
        standing(&mut q, 50, 3000, &mut rng);
        let p = q.drop_prob();
        assert!(p > 0.0);
        // Drain at 3 s, then nothing for a second: with both delays zero, -2% an update; the
        // PI term is negative too (below the target), so it falls at least that fast.
        while q.dequeue(Time(3000 * MS)).is_some() {}
        q.catch_up(Time(4000 * MS));
        assert!(q.drop_prob() <= p * 0.98f64.powi(60), "{} from {p}", q.drop_prob());
    }

    #[test]
    fn the_rate_estimator_measures_the_draining_time() {
        // 40 packets of 1000 bytes drained at one a ms: 16 384 bytes take about 16.4 ms.
        let p = PieParams { dq_rate_estimator: true, ..PieParams::default() };
        let mut q = Pie::new(p).unwrap();
        let mut rng = Rng::from_seed(1);
        for k in 0..40 {
            q.enqueue(Time(0), &meta(), PacketRef(k), &mut rng);
        }
        for ms in 1..=17 {
            q.dequeue(Time(ms * MS));
        }
        // The cycle started at the first departure (1 ms, 39 000 bytes behind it) and its 17th
        // packet passed 16 384 bytes at 17 ms: 16 ms.
        assert_eq!(q.vars.avg_dq_time, (16 * MS) as f64);
        // Little's law: 23 000 bytes waiting x 16 ms / 16 384 bytes.
        let want = 23_000.0 * (16 * MS) as f64 / 16_384.0;
        assert_eq!(q.current_qdelay(), Dur(want.round() as u64));
    }

    #[test]
    fn the_ns3_flavor_arms_the_allowance_on_the_first_test_and_holds_the_probability_at_zero() {
        let p = PieParams { flavor: PieFlavor::Ns3, ..PieParams::default() };
        let mut q = Pie::new(p).unwrap();
        let mut rng = Rng::from_seed(1);
        assert!(!q.in_burst(), "no allowance before the first arrival");
        q.enqueue(Time(0), &meta(), PacketRef(0), &mut rng);
        assert!(q.in_burst(), "the first arrival arms it");
        // A standing 50 ms queue: the probability stays zero for the 150 ms of allowance, then
        // rises (the RFC flavour's controller would have run from the start).
        let mut q = Pie::new(p).unwrap();
        standing(&mut q, 50, 140, &mut rng);
        assert_eq!(q.drop_prob(), 0.0);
        let mut q = Pie::new(p).unwrap();
        standing(&mut q, 50, 400, &mut rng);
        assert!(q.drop_prob() > 0.0);
        let mut rfc = Pie::new(PieParams::default()).unwrap();
        standing(&mut rfc, 50, 140, &mut rng);
        assert!(rfc.drop_prob() > 0.0);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |p: PieParams| Pie::new(p).unwrap_err().field;
        assert_eq!(bad(PieParams { target: Dur::ZERO, ..PieParams::default() }), "target");
        assert_eq!(bad(PieParams { t_update: Dur::ZERO, ..PieParams::default() }), "t_update");
        assert_eq!(bad(PieParams { alpha: -1.0, ..PieParams::default() }), "alpha");
        assert_eq!(bad(PieParams { limit: 0, ..PieParams::default() }), "limit");
        assert_eq!(bad(PieParams { mark_ecn_threshold: 2.0, ..PieParams::default() }), "mark_ecn_threshold");
    }
}
