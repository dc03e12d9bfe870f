//! elaarag2002 §5's bandwidth model as claims: the ideal case's time per file size (eqs. (12)-(19))
//! and its limit (eq. (20)), the non-ideal bound (eqs. (23)-(26)) and the worst case (eq. (27)),
//! each against fairway's IFTP (the prose's sender) on a path where the model's assumptions hold
//! (scenarios/elaarag2002/section5-*.toml). The formulas are fairway-proto's `iftp::model`,
//! with the paper's misprints corrected as its docs say.

use fairway_proto::iftp::model;
use fairway_scenario::protocols::IftpSummary;

use super::super::claims::{trim, Claim, Claims};
use super::super::rules::{Band, Bounds, Phrase, Value};
use super::super::Runs;
use super::est;
use fairway_report::stats::Estimate;

/// The files' round trip: 2 x 11 ms of propagation, a 1000-byte packet serialised three times at
/// 100 Mb/s and a 40-byte ACK three times; no queue forms.
pub const RTT_S: f64 = 0.022 + 3.0 * 8000.0 / 100e6 + 3.0 * 320.0 / 100e6;
/// P in bits.
const P: f64 = 8000.0;
/// W_s and W_max of §6.1, which section5-ideal.toml runs.
const W_S: u32 = 32;
const W_MAX: u32 = 50;
/// The drop rate section5-loss.toml runs, and its duration.
const P_DROP: f64 = 0.01;
const LOSS_S: f64 = 300.0;
/// section5-worst.toml's duration, and tau on its 100 Mb/s access link.
const WORST_S: f64 = 60.0;
const TAU_S: f64 = 8000.0 / 100e6;

/// The runs of scenarios/elaarag2002/section5-*.toml.
pub struct ModelRuns {
    pub ideal: Runs,
    pub loss: Runs,
    pub worst: Runs,
}

/// When the transfer of `n` packets sent its last one, over the seeds (s).
fn last_sent(r: &Runs, n: u64) -> Estimate {
    est(r, &[("flow.iftp.packets", &n.to_string())], |s| {
        s.flows.first().and_then(|f| f.report::<IftpSummary>()).and_then(|x| x.last_sent_s).unwrap_or(f64::NAN)
    })
}

/// The rate a run's IFTP source sent at over `secs` (bits/s).
fn sent_rate(r: &Runs, secs: f64) -> Estimate {
    est(r, &[], |s| s.flows.first().map_or(f64::NAN, |f| f.sent_bytes as f64 * 8.0 / secs))
}

pub fn claims(c: &mut Claims, m: &ModelRuns) {
    ideal(c, &m.ideal);
    nonideal(c, &m.loss);
    worst(c, &m.worst);
}

fn ideal(c: &mut Claims, r: &Runs) {
    // The model counts whole adjustment periods: N packets take k of them, so the last packet
    // leaves in the k-th, within one R before k R. The quantity is (k R - t_last) / R, in [0, 1]
    // when they agree, widened by 0.1% of R: the sender's R is measured from send times echoed
    // in whole microseconds, and its gaps are whole nanoseconds.
    let within = Phrase::Margin(Band::closed(-0.001, 1.001));
    let sizes: Vec<u64> = r.values("flow.iftp.packets").iter().filter_map(|x| x.parse().ok()).collect();
    for (case, eq) in [(1u8, "(17)"), (2, "(18)"), (3, "(19)")] {
        let ns: Vec<u64> =
            sizes.iter().copied().filter(|&n| n <= 5000 && model::ideal_case(n, W_S, W_MAX) == Some(case)).collect();
        let points: Vec<(u64, u64, Estimate)> = ns
            .iter()
            .map(|&n| {
                let k = model::ideal_rounds(n, W_S, W_MAX).unwrap_or(0);
                (n, k, last_sent(r, n))
            })
            .collect();
        let values: Vec<Value> =
            points.iter().map(|(_, k, t)| Value::of(&t.scaled(-1.0 / RTT_S), Bounds::FREE).offset(*k as f64)).collect();
        c.push(
            Claim::words(
                format!("Ideal case {case}: a loss-free file of N packets takes eq. {eq}'s rounds of R (N = {})", ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
                format!("§5.1, eq. {eq}, Fig. 3"),
                "theta(N) = N P / (rounds x R)",
                within.clone(),
                "the model's rounds less the time the last packet left in round trips, k - t_last / R, the worst N",
                Bounds::FREE,
                Value::worst(&values, &within),
            )
            .shown(
                points
                    .iter()
                    .map(|(n, k, t)| format!("N = {n}: {k} rounds, last packet at {:.2} R", t.mean / RTT_S))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .note("the model counts whole rounds: the last packet leaves within the last one")
            .why("a transfer takes another number of round trips than the model's (eqs. (17)-(19) as corrected in crates/fairway-proto/src/iftp/model.rs)"),
        );
    }
    // Eq. (20): for very long files theta -> W_max P / R.
    let n = 20_000u64;
    let t = last_sent(r, n);
    let limit = model::ideal_limit(P, RTT_S, W_MAX);
    let bw = est(r, &[("flow.iftp.packets", "20000")], |s| {
        let t = s.flows.first().and_then(|f| f.report::<IftpSummary>()).and_then(|x| x.last_sent_s);
        t.map_or(f64::NAN, |t| n as f64 * P / (t + RTT_S / f64::from(W_MAX)))
    });
    let ratio = bw.scaled(1.0 / limit);
    c.push(
        Claim::words(
            "For very long files the bandwidth tends to W_max P / R",
            "§5.1, eq. (20)",
            format!("W_max P / R = {:.2} Mb/s", limit / 1e6),
            Phrase::AlmostEqual,
            "a 20 000-packet file's bandwidth (N P over the time to its last packet and one more gap) over W_max P / R",
            Bounds::NON_NEGATIVE,
            Value::of(&ratio, Bounds::NON_NEGATIVE),
        )
        .shown(format!(
            "{} Mb/s, {} of the limit (last packet at {} s)",
            bw.scaled(1e-6).show(3),
            ratio.show(3),
            t.show(2)
        ))
        .why("the long file's bandwidth stays away from W_max P / R"),
    );
}

fn nonideal(c: &mut Claims, r: &Runs) {
    let bound = model::nonideal_bound(P_DROP, P, RTT_S);
    let rate = sent_rate(r, LOSS_S);
    let ratio = rate.scaled(1.0 / bound);
    let why = format!(
        "eq. (26) is the rate of Floyd and Fall's deterministic cycle, one drop each time the window reaches n; with \
independent drops at the same rate the window's average is higher (the random-loss constant sqrt(3/2) = 1.22 becomes \
about 1.31 for such AIMD, 7% more), and whole-packet windows and the odd timeout cost a little: fairway's IFTP sends \
at {} of the bound",
        ratio.show(3)
    );
    c.push(
        Claim::words(
            format!("Under a drop rate p IFTP sends at TCP's steady-state rate, eq. (26) (p = {})", trim(P_DROP)),
            "§5.2, eqs. (23)-(26)",
            format!("sqrt(3/(2p)) P / R = {:.2} Mb/s", bound / 1e6),
            Phrase::AlmostEqual,
            "IFTP's sending rate over eq. (26)'s, over the seeds",
            Bounds::NON_NEGATIVE,
            Value::of(&ratio, Bounds::NON_NEGATIVE),
        )
        .shown(format!("{} Mb/s, {} of eq. (26)", rate.scaled(1e-6).show(3), ratio.show(3)))
        .why(why.clone()),
    );
    let gap = est(r, &[], |s| s.flows.first().map_or(f64::NAN, |f| (bound - f.sent_bytes as f64 * 8.0 / LOSS_S) / 1e3));
    c.push(
        Claim::words(
            "Eq. (26) bounds IFTP's rate from above",
            "§5.2, eqs. (23), (26)",
            "theta_ss <= 1.5 sqrt(2/3) P / (R sqrt(p))",
            Phrase::NotLower,
            "eq. (26)'s bound less IFTP's sending rate, over the seeds (kb/s)",
            Bounds::FREE,
            Value::of(&gap, Bounds::FREE),
        )
        .shown(format!("{} kb/s", gap.show(1)))
        .why(why),
    );
}

fn worst(c: &mut Claims, r: &Runs) {
    let theta = model::worst_case(P, TAU_S);
    let rate = sent_rate(r, WORST_S);
    let ratio = rate.scaled(1.0 / theta);
    c.push(
        Claim::words(
            "With every ACK lost IFTP sends one packet per 64 ms timer, eq. (27)",
            "§5.3, eq. (27)",
            format!("P / (tau + 0.064) = {:.1} kb/s", theta / 1e3),
            Phrase::AlmostEqual,
            "IFTP's sending rate over 60 s over eq. (27)'s",
            Bounds::NON_NEGATIVE,
            Value::of(&ratio, Bounds::NON_NEGATIVE),
        )
        .shown(format!("{} kb/s, {} of eq. (27)", rate.scaled(1e-3).show(1), ratio.show(3)))
        .note(
            "under the model's own assumptions, srtt = rttvar = 0 (no sample; the timer before one is the 1 ms tick); on a \
real path srtt is at least the round trip and the timer 64 x (srtt + 4 rttvar + 1 ms), so eq. (27) is no lower bound there",
        )
        .why("the timer does not settle at 64 ms"),
    );
}
