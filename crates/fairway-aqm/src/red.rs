//! RED: Random Early Detection (Floyd & Jacobson 1993), as ns-2 2.35's `Queue/RED` does it
//! (queue/red.cc, `REDQueue`), for the non-adaptive case.
//!
//! On each arrival ([`Red::enqueue`], ns-2 `REDQueue::enque`):
//! 1. If the link was idle, the average first decays as if `m` packets of `mean_pktsize` had
//!    arrived to an empty queue, `m = trunc(ptc x idle time)` (F&J 1993 §4; ns-2 `enque`).
//! 2. `ave <- ave (1 - w)^(m+1) + w q`, `q` the waiting queue before the arrival, in packets or,
//!    with `queue_in_bytes`, bytes (ns-2 `estimator`).
//! 3. `count` (and `count_bytes`) grow by the arrival. If `ave >= th_min` and more than one
//!    packet (byte, in `queue_in_bytes` mode) is waiting:
//!    - without `use_mark_p`, `ave` at or above the top of the curve (`th_max`, or `2 th_max`
//!      when `gentle`) is a forced drop, with no random draw;
//!    - else, if the average has just crossed `th_min` (ns-2 `old_ == 0`), the count restarts
//!      at one and the packet passes, with no random draw;
//!    - else one uniform draw decides an early drop or mark with the probability of
//!      `calculate_p_new` spread by `modify_p` (ns-2 `drop_early`).
//!
//!    Otherwise the probability is zero and the crossing state is cleared.
//! 4. Whatever was decided, `q >= qlim` refuses the packet (ns-2's other "forced" drop; here
//!    [`DropReason::Overflow`]). Forced and overflow drops reset the count.
//!
//! What surprises a reader of the 1993 paper (docs/semantics.md has the list):
//! - ns-2 2.35's default `use_mark_p_ true` disables the forced drop above the top of the curve:
//!   such arrivals go through the early decision with probability one (one draw each), and so are
//!   reported as [`DropReason::Early`]; only with `use_mark_p: false` do they become
//!   [`DropReason::Forced`]. The first arrival after the crossing state was cleared passes even
//!   there. In the gentle region the curve's value at exactly `2 th_max` rounds to
//!   `0.9999999999999998` for max_p = 0.1, so `wait` can still let a packet through at the top.
//! - ECN-capable packets are marked only while the curve's probability is strictly below
//!   `mark_p` (default 0.1 = the default max_p): with the defaults, not above maxthresh; with a
//!   larger max_p, not beyond the point of the linear part where p reaches 0.1.
//! - The idle decay uses `mean_pktsize`, not `idle_pktsize` (that one is for `cautious_ 3`).
//! - No early drop happens while at most one packet is waiting (packet mode), whatever `ave` is.
//! - The queue limit counts only waiting packets: a limit of N holds N waiting plus the one on
//!   the wire (DropTail holds N in all), and in bytes an arrival is admitted while fewer than
//!   `limit x mean_pktsize` bytes wait, so the byte queue can overshoot by one packet.

mod params;
#[cfg(test)]
mod tests;

use fairway_core::{Bytes, Dur, PacketRef, Rate, Rng, Time};

use crate::{
    Decides, Departure, Discipline, DropReason, Fifo, Keys, Level, Limit, OnLink, PacketMeta, ParamError, QueueDiscipline,
    QueueStats, Read, Verdict,
};

pub use params::{RedParams, RedResolved};

/// Idle periods longer than this many packet times are decayed with this many exact
/// multiplications (ns-2's loop, bit for bit) and the rest by repeated squaring, so that an idle
/// period of hours costs microseconds. The two differ in the last bits only: ns-2 loops m times.
const EXACT_DECAY_STEPS: u64 = 1 << 20;

/// RED's algorithm without its queue: the average (the estimator, with the idle decay) and the
/// decision on an arrival (the count, the curve, the early draw, the limit). [`Red`] is a FIFO
/// driven by one; class-based disciplines (CBT, D-CBT) drive one beside their own averages.
#[derive(Debug, Clone)]
pub struct RedCore {
    /// Boxed: the knobs are read-mostly, and this keeps [`crate::Qdisc`]'s variants of similar
    /// size (clippy's large_enum_variant); one allocation per queue, none per packet.
    params: Box<RedParams>,
    res: RedResolved,
    // ns-2 red.cc reset(): the curve's coefficients, computed once, as ns-2 does, so that
    // p is evaluated with the same floating-point operations.
    /// v_a = 1 / (th_max - th_min), with ns-2's fallback th_diff = 1 when the thresholds are equal.
    v_a: f64,
    /// v_b = -th_min / (th_max - th_min).
    v_b: f64,
    /// v_c = (1 - max_p) / th_max (gentle).
    v_c: f64,
    /// v_d = 2 max_p - 1 (gentle).
    v_d: f64,
    /// 1 - w_q, as ns-2's estimator computes it.
    one_minus_w: f64,

    // The state (ns-2 `edv_` and the idle bookkeeping).
    /// ns-2 `v_ave`: the average queue, in the queue's unit (bytes with `queue_in_bytes`).
    ave: f64,
    /// ns-2 `v_prob1`: the curve's probability at the last early decision.
    prob1: f64,
    /// ns-2 `v_prob`: the spread probability at the last early decision (0 below th_min).
    prob: f64,
    /// ns-2 `count`: arrivals since the last drop or mark (or since the crossing of th_min).
    count: u64,
    /// ns-2 `count_bytes`: the same in bytes.
    count_bytes: u64,
    /// ns-2 `old`: the average was already above th_min with more than one packet waiting.
    old: bool,
    /// ns-2 `idle_`: the last dequeue found the queue empty (the link went idle).
    idle: bool,
    /// ns-2 `idletime_`: when it did.
    idletime: Time,
}

/// A RED queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct Red {
    core: RedCore,
    q: Fifo,
    stats: QueueStats,
}

/// The outcome of ns-2's `drop_early`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Early {
    Pass,
    Mark,
    Drop,
}

impl Red {
    /// A RED queue for a link of `link_rate` and `link_delay`, which ns-2 also reads when a RED
    /// queue is attached to its link: for ptc, the idle decay and the automatic `q_weight` and
    /// thresholds. Starts empty, with the link idle since time zero (ns-2 `reset()`).
    pub fn new(params: RedParams, link_rate: Rate, link_delay: Dur) -> Result<Red, ParamError> {
        Ok(Red {
            core: RedCore::new(params, link_rate, link_delay)?,
            q: Fifo::new(),
            stats: QueueStats::default(),
        })
    }

    /// The parameters as given.
    pub fn params(&self) -> &RedParams {
        &self.core.params
    }

    /// The parameters as used, after ns-2's automatic values (ptc, q_weight, thresholds in
    /// packets and in the queue's unit, max_p, the limit in the queue's unit).
    pub fn resolved(&self) -> &RedResolved {
        &self.core.res
    }

    /// The average queue, raw: ns-2's `ave_`, in bytes with `queue_in_bytes`, else packets.
    pub fn average(&self) -> f64 {
        self.core.ave
    }

    /// The curve's drop probability at the last early decision: ns-2's traced `prob1_`.
    pub fn prob1(&self) -> f64 {
        self.core.prob1
    }

    /// The RED algorithm inside.
    pub fn core(&self) -> &RedCore {
        &self.core
    }

    /// The queue length in the unit RED measures it in (bytes with `queue_in_bytes`).
    fn qlen_units(&self) -> u64 {
        if self.core.params.queue_in_bytes {
            self.q.bytes().0
        } else {
            self.q.len() as u64
        }
    }
}

impl RedCore {
    /// RED's state for a link of `link_rate` and `link_delay` (see [`Red::new`]).
    pub fn new(params: RedParams, link_rate: Rate, link_delay: Dur) -> Result<RedCore, ParamError> {
        let res = params.resolve(link_rate, link_delay)?;
        // ns-2 red.cc reset(): th_diff = th_max - th_min, or 1 if they are equal.
        let mut th_diff = res.th_max - res.th_min;
        if th_diff == 0.0 {
            th_diff = 1.0;
        }
        let v_a = 1.0 / th_diff;
        let v_b = -res.th_min / th_diff;
        let (v_c, v_d) =
            if params.gentle { ((1.0 - res.max_p) / res.th_max, 2.0 * res.max_p - 1.0) } else { (0.0, 0.0) };
        Ok(RedCore {
            params: Box::new(params),
            res,
            v_a,
            v_b,
            v_c,
            v_d,
            one_minus_w: 1.0 - res.q_weight,
            ave: 0.0,
            prob1: 0.0,
            prob: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: true,
            idletime: Time::ZERO,
        })
    }

    /// The parameters as given.
    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// The parameters as used, after ns-2's automatic values (ptc, q_weight, thresholds in
    /// packets and in the queue's unit, max_p, the limit in the queue's unit).
    pub fn resolved(&self) -> &RedResolved {
        &self.res
    }

    /// The average queue, raw: ns-2's `ave_`, in bytes with `queue_in_bytes`, else packets.
    pub fn average(&self) -> f64 {
        self.ave
    }

    /// The curve's drop probability at the last early decision: ns-2's traced `prob1_`.
    pub fn prob1(&self) -> f64 {
        self.prob1
    }

    /// ns-2 red.cc enque(): m = int(ptc x (now - idletime)), the packets of mean size the link
    /// could have sent while idle (F&J 1993 §4, "the average is updated as if m small packets
    /// arrived to an empty queue"). `as` truncates toward zero like C's int(), and saturates
    /// where ns-2's int would overflow (after 2^31 packet times).
    fn idle_packets(&self, now: Time) -> u64 {
        let idle_s = now.saturating_since(self.idletime).as_secs_f64();
        (self.res.ptc * idle_s) as u64
    }

    /// ns-2 red.cc estimator(nqueued, m + 1, ave, q_w): the EWMA after `m` idle packet times,
    /// ave (1 - w)^m, then one arrival seeing `nqueued`: ave (1 - w) + w nqueued.
    fn estimator(&self, nqueued: u64, m: u64) -> f64 {
        Self::decay(self.ave, self.one_minus_w, self.res.q_weight, nqueued, m)
    }

    fn decay(mut ave: f64, f: f64, w: f64, nqueued: u64, m: u64) -> f64 {
        // ns-2: `while (--m >= 1) new_ave *= 1.0 - q_w;`, i.e. (1 - w)^m by m multiplications.
        let exact = m.min(EXACT_DECAY_STEPS);
        for _ in 0..exact {
            if ave == 0.0 {
                break; // 0 x f stays 0: the rest of ns-2's loop changes nothing
            }
            ave *= f;
        }
        let rest = m - exact;
        if rest > 0 && ave != 0.0 {
            ave *= powu(f, rest); // (1 - w)^rest by repeated squaring
        }
        // ns-2: new_ave *= 1.0 - q_w; new_ave += q_w * nqueued;  (F&J 1993 §4: avg <- (1-w)avg + w q)
        ave *= f;
        ave += w * nqueued as f64;
        ave
    }

    /// ns-2 red.cc calculate_p_new(): the drop probability p_b of the RED curve at `ave`.
    fn calculate_p(&self, ave: f64) -> f64 {
        let th_max = self.res.th_max;
        let p = if self.params.gentle && ave >= th_max {
            // Gentle RED (Floyd 2000): from max_p at th_max to 1 at 2 th_max: v_c ave + v_d.
            self.v_c * ave + self.v_d
        } else if !self.params.gentle && ave >= th_max {
            1.0
        } else {
            // F&J 1993 §4: p_b = max_p (ave - min_th) / (max_th - min_th), as (v_a ave + v_b) max_p.
            (self.v_a * ave + self.v_b) * self.res.max_p
        };
        p.min(1.0)
    }

    /// ns-2 red.cc modify_p(): spread the drops out (F&J 1993 §7: uniform rather than
    /// geometric inter-drop gaps) and scale by size in byte mode.
    fn modify_p(&self, p_b: f64, size: Bytes) -> f64 {
        // ns-2: count1 = count, or in byte mode (double)(count_bytes / mean_pktsize) with C's
        // integer division.
        let count1 =
            if self.params.bytes { (self.count_bytes / self.params.mean_pktsize.0) as f64 } else { self.count as f64 };
        self.spread(p_b, count1, size)
    }

    /// ns-2 red.cc modify_p() for `count1` arrivals since the last drop.
    fn spread(&self, p_b: f64, count1: f64, size: Bytes) -> f64 {
        let mean = self.params.mean_pktsize.0;
        let cp = count1 * p_b;
        let mut p = if self.params.wait {
            // wait_: no drop while count p_b < 1, then p_b / (2 - count p_b), then 1: the gap
            // between drops is roughly uniform on [1/p_b, 2/p_b].
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            // F&J 1993 §4/§7: p_a = p_b / (1 - count p_b). The paper's gap is uniform on
            // 1..=1/p_b; ns-2's count is already 1 at the first arrival after a drop, so here
            // it is uniform on 1..1/p_b (mean 1/(2 p_b), not (1/p_b + 1)/2).
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if self.params.bytes && p < 1.0 {
            // Byte mode. F&J 1993 §4 scales p_b by size / maximum packet size before the
            // spreading; ns-2 scales the spread p_a by size / mean_pktsize, and so do we.
            p = (p * size.0 as f64) / mean as f64;
        }
        p.min(1.0)
    }

    /// ns-2 red.cc drop_early(): one uniform draw, then drop, mark or pass.
    fn drop_early(&mut self, meta: &PacketMeta, rng: &mut Rng) -> Early {
        self.prob1 = self.calculate_p(self.ave);
        self.prob = self.modify_p(self.prob1, meta.size);
        // ns-2 draws Random::uniform() in (0, 1); 1 - [0, 1) gives (0, 1], so that p = 0 never
        // drops and p = 1 always does, as in ns-2.
        let u = 1.0 - rng.uniform();
        if u <= self.prob {
            self.count = 0;
            self.count_bytes = 0;
            // ns-2: mark if setbit_ && ect && (!use_mark_p_ || prob1 < mark_p_) (2.35 uses `<`).
            // RFC 3168 §5: an ECN-capable packet is marked CE instead of being dropped early.
            if self.params.ecn && meta.ecn_capable && (!self.params.use_mark_p || self.prob1 < self.params.mark_p) {
                Early::Mark
            } else {
                Early::Drop
            }
        } else {
            Early::Pass
        }
    }
}

/// base^exp by repeated squaring (used only for idle periods beyond [`EXACT_DECAY_STEPS`]).
fn powu(mut base: f64, mut exp: u64) -> f64 {
    let mut acc = 1.0;
    while exp > 0 {
        if exp & 1 == 1 {
            acc *= base;
        }
        base *= base;
        exp >>= 1;
        if acc == 0.0 {
            break;
        }
    }
    acc
}

impl RedCore {
    /// The estimator on an arrival that sees `qlen` waiting (in the queue's unit): after an idle
    /// period, the decay of `m` packet times first (ns-2 `enque`); returns `m`, which averages
    /// kept beside RED's (D-CBT) decay by alike.
    pub fn arrive(&mut self, now: Time, qlen: u64) -> u64 {
        // ns-2 red.cc enque(): after an idle period, pretend m packets arrived to an empty queue.
        let m = if self.idle {
            self.idle = false;
            self.idle_packets(now)
        } else {
            0
        };
        self.ave = self.estimator(qlen, m);
        m
    }

    /// ns-2's estimator applied to another average `ave` (a class's, in D-CBT) with RED's weight:
    /// `m` idle packet times, then one arrival seeing `nqueued`.
    pub fn ewma(&self, ave: f64, nqueued: u64, m: u64) -> f64 {
        Self::decay(ave, self.one_minus_w, self.res.q_weight, nqueued, m)
    }

    /// RED's decision on the arrival just averaged ([`RedCore::arrive`]), `qlen` waiting before
    /// it: an early drop or mark, a forced drop, an overflow, or none.
    pub fn decide(&mut self, meta: &PacketMeta, qlen: u64, rng: &mut Rng) -> Verdict {
        // ns-2: count and count_bytes tally the arrivals since the last drop.
        self.count = self.count.saturating_add(1);
        self.count_bytes = self.count_bytes.saturating_add(meta.size.0);

        let ave = self.ave;
        let th_max = self.res.th_max;
        let mut verdict = Verdict::Enqueue;
        // ns-2: if (qavg >= th_min && qlen > 1)
        if ave >= self.res.th_min && qlen > 1 {
            let above_top = if self.params.gentle { ave >= 2.0 * th_max } else { ave >= th_max };
            if !self.params.use_mark_p && above_top {
                // ns-2 2.35: forced drop only when !use_mark_p_ (F&J 1993 §4: avg >= max_th).
                verdict = Verdict::Drop(DropReason::Forced);
            } else if !self.old {
                // ns-2: the average has just crossed th_min (or the queue was at most one
                // packet): restart the count at this packet, no drop, no draw.
                self.count = 1;
                self.count_bytes = meta.size.0;
                self.old = true;
            } else {
                verdict = match self.drop_early(meta, rng) {
                    Early::Pass => Verdict::Enqueue,
                    Early::Mark => Verdict::EnqueueMarked,
                    Early::Drop => Verdict::Drop(DropReason::Early),
                };
            }
        } else {
            // ns-2: below th_min (or at most one packet waiting): no drops, forget the crossing.
            self.prob = 0.0;
            self.old = false;
        }
        // ns-2: if (qlen >= qlim) droptype = DTYPE_FORCED; it overrides an early decision,
        // a mark included (the marked packet is then dropped).
        if qlen >= self.res.qlim {
            verdict = Verdict::Drop(DropReason::Overflow);
        }
        match verdict {
            Verdict::Drop(DropReason::Forced | DropReason::Overflow) => {
                // ns-2 (!ns1_compat_): a forced drop resets the count (Philip Liu's fix).
                self.count = 0;
                self.count_bytes = 0;
            }
            // drop_early() already reset the count; RED never decides the other drops.
            Verdict::Drop(DropReason::Early | DropReason::Threshold | DropReason::Sojourn | DropReason::Flow)
            | Verdict::Enqueue
            | Verdict::EnqueueMarked => {}
        }
        verdict
    }

    /// ns-2's `ave_` in packets, comparable with the actual queue in packets, for a queue whose
    /// arrivals `stats` counts. In `queue_in_bytes` mode `ave_` is in bytes; it is divided by the
    /// mean size of the packets that have arrived so far (`mean_pktsize` before the first), not
    /// by `mean_pktsize`, which is only a scale for the thresholds: with 1040-byte TCP packets
    /// and ns-2's default of 500, dividing by `mean_pktsize` would double the average.
    pub fn average_pkts(&self, stats: &QueueStats) -> f64 {
        if !self.params.queue_in_bytes {
            return self.ave;
        }
        let mean_size = if stats.arrivals_pkts > 0 {
            stats.arrivals_bytes as f64 / stats.arrivals_pkts as f64
        } else {
            self.params.mean_pktsize.0 as f64
        };
        self.ave / mean_size
    }

    /// The average moved by one sample of `qlen` waiting, with no idle decay: FRED also averages
    /// on departures (Lin & Morris 1997, Figure 5).
    pub fn sample(&mut self, qlen: u64) {
        self.ave = self.ave * self.one_minus_w + self.res.q_weight * qlen as f64;
    }

    /// The early-drop probability at the current average for an arrival of `size` that comes
    /// `count` arrivals after the last drop: RED's curve spread by `modify_p` (F&J 1993 §4's
    /// p_a, or ns-2's `wait` variant), for disciplines that keep their own count (FRED).
    pub fn early_probability(&self, count: u64, size: Bytes) -> f64 {
        self.spread(self.calculate_p(self.ave), count as f64, size)
    }

    /// One early-drop draw with probability `p`, as RED draws (ns-2's uniform in (0, 1]).
    pub fn draw(&self, p: f64, rng: &mut Rng) -> bool {
        1.0 - rng.uniform() <= p
    }

    /// A packet left: the link is busy.
    pub fn departed(&mut self) {
        self.idle = false;
    }

    /// ns-2 red.cc deque(): an empty queue marks the link idle from `now`.
    pub fn went_idle(&mut self, now: Time) {
        self.idle = true;
        self.idletime = now;
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        let qlen = self.qlen_units();
        self.core.arrive(now, qlen);
        let verdict = self.core.decide(meta, qlen, rng);
        if matches!(verdict, Verdict::Enqueue | Verdict::EnqueueMarked) {
            self.q.push(pkt, meta.size, ());
        }
        self.stats.count_verdict(meta, verdict);
        verdict
    }

    /// ns-2 red.cc deque(): an empty queue marks the link idle from `now`.
    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        match self.q.pop() {
            Some(e) => {
                self.core.departed();
                self.stats.count_departure(e.size);
                Some(Departure::plain(e.pkt, e.size))
            }
            None => {
                self.core.went_idle(now);
                None
            }
        }
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

    fn average_pkts(&self) -> Option<f64> {
        Some(self.core.average_pkts(&self.stats))
    }
}

/// RED's keys: ns-2's variable names without the trailing underscore.
pub(crate) const RED_KEYS: &[&str] = &[
    "limit",
    "thresh",
    "maxthresh",
    "q_weight",
    "linterm",
    "gentle",
    "wait",
    "mean_pktsize",
    "idle_pktsize",
    "bytes",
    "queue_in_bytes",
    "ecn",
    "mark_p",
    "use_mark_p",
    "targetdelay",
];

/// RED's keys over `base`; what is not given keeps `base`'s value, and the result passes the
/// checks RED makes when built, refused at the key they name.
pub(crate) fn read_red(k: &mut dyn Keys, base: RedParams) -> Read<RedParams> {
    let mut p = base;
    k.set_u32("limit", 1, &mut p.limit)?;
    k.set_f64("thresh", &mut p.thresh)?;
    k.set_f64("maxthresh", &mut p.maxthresh)?;
    k.set_f64("q_weight", &mut p.q_weight)?;
    k.set_f64("linterm", &mut p.linterm)?;
    k.set_f64("mark_p", &mut p.mark_p)?;
    k.set_bool("gentle", &mut p.gentle)?;
    k.set_bool("wait", &mut p.wait)?;
    k.set_bool("bytes", &mut p.bytes)?;
    k.set_bool("queue_in_bytes", &mut p.queue_in_bytes)?;
    k.set_bool("ecn", &mut p.ecn)?;
    k.set_bool("use_mark_p", &mut p.use_mark_p)?;
    k.set_bytes_pos("mean_pktsize", &mut p.mean_pktsize)?;
    k.set_bytes_pos("idle_pktsize", &mut p.idle_pktsize)?;
    k.set_dur_pos("targetdelay", &mut p.targetdelay)?;
    k.check(p.validate())?;
    Ok(p)
}

/// What RED's settings come to on `link` (ns-2's automatic values): an error where they cannot
/// be resolved, a warning where RED would act as something else than it seems to.
pub(crate) fn check_red_on_link(p: &RedParams, link: OnLink, k: &mut dyn Keys) -> Read<()> {
    let res = p.resolve(link.rate, link.delay).map_err(|e| k.refuse(e))?;
    let unit = if p.queue_in_bytes { "bytes" } else { "packets" };
    if res.th_min >= res.qlim as f64 {
        k.warn(
            "thresh",
            format!(
                "thresh ({} {unit}) is at or above the limit ({} {unit}): the average never gets there, so RED never drops early and acts as DropTail",
                res.th_min, res.qlim
            ),
        );
    } else if res.th_max >= res.qlim as f64 {
        k.warn(
            "maxthresh",
            format!(
                "maxthresh ({} {unit}) is at or above the limit ({} {unit}): the queue overflows before the drop probability reaches max_p",
                res.th_max, res.qlim
            ),
        );
    }
    if p.queue_in_bytes && !k.has("bytes") && !k.has("queue_in_bytes") {
        k.warn(
            "",
            "RED counts in bytes here (ns-2's default: `bytes` and `queue_in_bytes` true, thresholds and limit x mean_pktsize); set both to say so, or both to false for a RED that counts packets".into(),
        );
    }
    Ok(())
}

/// RED's thresholds as a queue-length figure draws them, and its limit.
pub(crate) fn red_levels(p: &RedParams) -> Vec<Level> {
    let mut v = vec![];
    // A threshold of 0 is ns-2's automatic one, set from the link (not known here).
    if p.thresh > 0.0 {
        let max = if p.maxthresh > 0.0 { p.maxthresh } else { 3.0 * p.thresh };
        let unit = if p.queue_in_bytes { " (in mean_pktsize packets)" } else { "" };
        v.push(Level { label: format!("RED min_th {}{unit}", p.thresh), packets: p.thresh });
        v.push(Level { label: format!("RED max_th {max}{unit}"), packets: max });
    }
    v.push(Level { label: format!("limit {}", p.limit), packets: p.limit as f64 });
    v
}

impl Discipline for Red {
    type Params = RedParams;
    const KIND: &'static str = "red";
    const LABEL: Option<&'static str> = Some("RED");
    const DECIDES: Decides = Decides::AtEnqueue;
    const FIFO: bool = true;
    const DRAWS: bool = true;
    const TRACKS_IDLE: bool = true;
    const KEEPS_AVERAGE: bool = true;

    fn keys() -> Vec<&'static str> {
        RED_KEYS.to_vec()
    }

    /// What is not given keeps ns-2 2.35's default ([`RedParams::default`]).
    fn read(k: &mut dyn Keys) -> Read<RedParams> {
        read_red(k, RedParams::default())
    }
    fn check_on_link(p: &RedParams, link: OnLink, k: &mut dyn Keys) -> Read<()> {
        check_red_on_link(p, link, k)
    }
    fn build(p: &RedParams, link: OnLink) -> Result<Red, ParamError> {
        Red::new(*p, link.rate, link.delay)
    }
    fn limit(p: &RedParams) -> Limit {
        Limit::Packets(p.limit)
    }
    fn marks_ecn(p: &RedParams) -> bool {
        p.ecn
    }
    fn levels(p: &RedParams) -> Vec<Level> {
        red_levels(p)
    }
}
