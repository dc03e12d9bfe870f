//! Seed 001's claims (its §IV and conclusion, as shared/notes/seed001_spec.md §3 lists them)
//! against fairway's runs. The paper prints no number: every claim is a direction (more, less,
//! fairer, smoother), checked on the means and on the 95% confidence intervals over the seeds;
//! where the paper's words need a threshold (a fair share, an advantage), the notes' proposed
//! margin is the band and is named as such.

use super::super::claims::{Claim, Claims, Verdict};
use super::super::stats::Estimate;
use super::ns2_reference::Reference;
use super::{Change, Measure, Results};

/// The notes' margins (seed001_spec.md §3, marked there as proposals): a share is fair when
/// Jain's index of the three clients' means is at least this, ...
pub const FAIR_JAIN: f64 = 0.95;
/// ... and a client has an advantage when its mean is at least this times the last client's.
pub const ADVANTAGE: f64 = 1.2;

fn mb(e: &Estimate) -> String {
    e.scaled(1e-6).show(2)
}

/// A quantity above `threshold`: reproduced when its 95% confidence interval is, shape when its
/// mean only; `below` turns the test around.
#[allow(clippy::too_many_arguments)]
fn threshold(
    c: &mut Claims,
    claim: &str,
    source: &str,
    paper: &str,
    e: &Estimate,
    digits: usize,
    threshold: f64,
    band: &str,
    below: bool,
    why: String,
) {
    let (holds, sure) = if below {
        (e.mean < threshold, e.mean + e.ci95() < threshold)
    } else {
        (e.mean > threshold, e.mean - e.ci95() > threshold)
    };
    let verdict = match (holds, sure) {
        (true, true) => Verdict::Reproduced,
        (true, false) => Verdict::Shape,
        (false, _) => Verdict::NotReproduced,
    };
    c.push(Claim {
        claim: claim.into(),
        source: source.into(),
        paper: paper.into(),
        fairway: e.show(digits),
        band: format!("{band}; reproduced when the 95% confidence interval is there, shape when only the mean"),
        verdict,
        why: if verdict == Verdict::Reproduced { String::new() } else { why },
    });
}

/// A difference over the seeds that should be positive.
fn positive(c: &mut Claims, claim: &str, source: &str, paper: &str, e: &Estimate, digits: usize, why: String) {
    threshold(c, claim, source, paper, e, digits, 0.0, "the difference above 0, run by run (same seed)", false, why);
}

fn min3(x: [f64; 3]) -> f64 {
    x.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Every client's change in mean throughput from `b` to `a` (the least of the three).
fn least_gain(a: &Measure, b: &Measure) -> f64 {
    min3(std::array::from_fn(|k| a.mean_bps[k] - b.mean_bps[k]))
}

/// TCP's window-limited rate: a window of 20 packets of 540 B (500 and 40 of headers) per round
/// trip, the round trip the propagation of the three links both ways plus a data packet's
/// transmission on each (the queue empty: the window cannot fill it).
pub fn window_limit_bps(change: Change) -> f64 {
    let (rate, delay, _) = change.bottleneck();
    let rtt = 2.0 * (2.0 + delay + 2.0) / 1e3 + 540.0 * 8.0 * (2.0 / 10e6 + 1.0 / (rate * 1e6));
    20.0 * 540.0 * 8.0 / rtt * 500.0 / 540.0
}

pub fn build(r: &Results, ns2: &Reference) -> Claims {
    use Change::*;
    let mut c = Claims::default();
    let ratio13 = |m: &Measure| m.mean_bps[0] / m.mean_bps[2];
    let jain = |m: &Measure| m.jain;
    let cvf = |m: &Measure| m.cv;

    // TCP (Figures 3-7).
    let adv = r.est("tcp", Default, ratio13);
    threshold(
        &mut c,
        "TCP, default: client 1, which starts first, has an advantage over the later clients",
        "§IV, Fig. 3",
        "\"Client 1 flow start first seems to have advantage over the bandwidth\"",
        &adv,
        2,
        ADVANTAGE,
        "client 1's mean over 10-35 s at least 1.2 times client 3's (the notes' margin)",
        false,
        format!(
            "a drop-tail phase effect. The three windows of 20 (60 packets) overfill the 31-packet pipe and the 20-packet queue, and which client loses is decided by the order of packets that reach the full queue at the same instant (every link 10 Mb/s, every packet 540 B). ns-2's deterministic run gives client 1 {:.2} times client 3's throughput ({}): from 10 s client 3's packets are the ones that find the queue full. With a random wait before each packet the ties go, and the clients share evenly: fairway {:.2}, ns-2 with overhead_ 400 us {} over seeds 1-5. fairway's run without the wait orders the ties differently from ns-2's scheduler (their 1 s series agree to 0.01 Mb/s until client 3 starts) and gives {:.2}",
            ns2_ratio(ns2, "tcp", "default"),
            ns2_means(ns2, "tcp", "default"),
            adv.mean,
            Estimate::of(ns2.waited("tcp", "default").iter().map(|x| x.mean_bps[0] / x.mean_bps[2])).show(2),
            ratio13(r.deterministic("tcp", Default)),
        ),
    );
    let q100 = r.est("tcp", Queue100, jain);
    threshold(
        &mut c,
        "TCP, queue 100: all clients share the bandwidth fairly",
        "§IV, Fig. 4",
        "\"all clients shared the bandwidth fairly\"",
        &q100,
        3,
        FAIR_JAIN,
        "Jain's index of the three means at least 0.95 (the notes' margin)",
        false,
        "with 100 packets of queue the three windows of 20 fit without loss, and each client gets a third".into(),
    );
    positive(
        &mut c,
        "TCP: the queue of 100 is fairer than the default's 20",
        "§IV, Figs. 3-4",
        "fair at 100, client 1 ahead at 20",
        &r.diff(("tcp", Queue100), ("tcp", Default), jain),
        3,
        "Jain's index is as high at 20 packets as at 100".into(),
    );
    let wl20 = window_limit_bps(Rate20);
    positive(
        &mut c,
        "TCP, 20 Mb/s: every client's throughput increases",
        "§IV, Fig. 5",
        "\"all client's throughput are increased\"",
        &r.pair(("tcp", Rate20), ("tcp", Default), least_gain).scaled(1e-6),
        2,
        "some client's mean does not rise (the least gain is shown, Mb/s)".into(),
    );
    let adv20 = r.est("tcp", Rate20, ratio13);
    threshold(
        &mut c,
        "TCP, 20 Mb/s: client 1 still has an advantage over the clients who start late",
        "§IV, Fig. 5",
        "\"but still client1 has advantage compared to other clients who start late\"",
        &adv20,
        2,
        ADVANTAGE,
        "client 1's mean at least 1.2 times client 3's (the notes' margin)",
        false,
        format!(
            "the paper's set-up does not allow it: with a window of 20 packets each TCP is limited to 20 x 540 B per round trip of about 13 ms, {:.1} Mb/s of payload, and three of them ({:.1} Mb/s) cannot fill 20 Mb/s, so nothing is lost and the clients are equal (ratio {:.2}; ns-2: {:.2}). An advantage needs a larger window or a longer round trip than Table 2 gives (the notes' B8)",
            wl20 / 1e6,
            3.0 * wl20 / 1e6,
            adv20.mean,
            ns2_ratio(ns2, "tcp", "rate20")
        ),
    );
    for (ch, fig) in [(Delay10, "Fig. 6"), (Delay50, "Fig. 7")] {
        let ms = ch.bottleneck().1;
        threshold(
            &mut c,
            &format!("TCP, bottleneck delay {ms} ms: every client's throughput decreases"),
            &format!("§IV, {fig}"),
            "\"Due to delay, throughput decrease\"",
            &r.pair(("tcp", ch), ("tcp", Default), |a, b| -least_gain(b, a)).scaled(1e-6),
            2,
            0.0,
            "every client's change from the default run below 0 (the largest change is shown, Mb/s), run by run",
            true,
            format!(
                "each client is window-limited to {:.2} Mb/s at {ms} ms, no less than what the default run's clients get when they share 10 Mb/s three ways ({}, {} and {} Mb/s); in ns-2 too the late clients gain ({} by default, {} at {ms} ms)",
                window_limit_bps(ch) / 1e6,
                mb(&r.est("tcp", Default, |m| m.mean_bps[0])),
                mb(&r.est("tcp", Default, |m| m.mean_bps[1])),
                mb(&r.est("tcp", Default, |m| m.mean_bps[2])),
                ns2_means(ns2, "tcp", "default"),
                ns2_means(ns2, "tcp", ch.stem())
            ),
        );
        let wl = window_limit_bps(ch);
        let mean = r.est("tcp", ch, |m| m.mean_bps.iter().sum::<f64>() / 3.0);
        threshold(
            &mut c,
            &format!("TCP, bottleneck delay {ms} ms: the clients share the bandwidth"),
            &format!("§IV, {fig}"),
            "\"however clients could share bandwidth\"",
            &r.est("tcp", ch, jain),
            3,
            FAIR_JAIN,
            &format!(
                "Jain's index at least 0.95 (the notes' margin); each client is window-limited to {:.2} Mb/s, fairway's mean {}",
                wl / 1e6,
                mb(&mean)
            ),
            false,
            "the clients' means differ".into(),
        );
    }

    // CCID2 (Figures 8-12).
    positive(
        &mut c,
        "CCID2, default: the clients share more fairly than TCP's",
        "§IV, Fig. 8",
        "\"Compare to TCP, CCID2 could have fair share with each other\"",
        &r.diff(("ccid2", Default), ("tcp", Default), jain),
        3,
        format!(
            "Jain's index of CCID2's clients ({}) is not above TCP's ({}): with the random wait TCP's clients share evenly (claim 1)",
            r.est("ccid2", Default, jain).show(3),
            r.est("tcp", Default, jain).show(3)
        ),
    );
    positive(
        &mut c,
        "CCID2, default: the clients fluctuate until about 25 s, less after",
        "§IV, Fig. 8",
        "\"until 25 second we can see a fluctuation among clients\"",
        &r.est("ccid2", Default, |m| m.cv_early - m.cv_late),
        3,
        format!(
            "the coefficient of variation of the 1 s samples is {} over 10-25 s and {} over 25-35 s: CCID2's sawtooth at a 13 ms round trip is much faster than the 1 s bins and looks the same throughout",
            r.est("ccid2", Default, |m| m.cv_early).show(3),
            r.est("ccid2", Default, |m| m.cv_late).show(3)
        ),
    );
    positive(
        &mut c,
        "CCID2, queue 100: the fluctuation among clients is bigger",
        "§IV, Fig. 9",
        "\"the fluctuation among clients was bigger and took longer time to get stable\"",
        &r.diff(("ccid2", Queue100), ("ccid2", Default), cvf),
        3,
        format!(
            "the coefficient of variation is {} with the queue of 100 against {} at 20; ns-2's runs: {} against {}",
            r.est("ccid2", Queue100, cvf).show(3),
            r.est("ccid2", Default, cvf).show(3),
            ns2_cv(ns2, "ccid2", "queue100"),
            ns2_cv(ns2, "ccid2", "default")
        ),
    );
    positive(
        &mut c,
        "CCID2, queue 100: the clients still consume more bandwidth",
        "§IV, Fig. 9",
        "\"However, all clients still consume bigger bandwidth\"",
        &r.diff(("ccid2", Queue100), ("ccid2", Default), |m| m.mean_bps.iter().sum::<f64>()).scaled(1e-6),
        2,
        "the three clients' total is not higher with the larger queue: at 20 packets the link is already full".into(),
    );
    positive(
        &mut c,
        "CCID2, 20 Mb/s: every client's throughput increases",
        "§IV, Fig. 10",
        "\"throughput was increased\"",
        &r.diff(("ccid2", Rate20), ("ccid2", Default), |m| m.mean_bps.iter().sum::<f64>()).scaled(1e-6),
        2,
        "the total does not rise".into(),
    );
    threshold(
        &mut c,
        "CCID2, 20 Mb/s: the clients still share fairly",
        "§IV, Fig. 10",
        "\"still clients have a fairly shared bandwidth\"",
        &r.est("ccid2", Rate20, jain),
        3,
        FAIR_JAIN,
        "Jain's index at least 0.95 (the notes' margin)",
        false,
        format!(
            "the third client, starting at 10 s into a link the first two share, stays behind over 10-35 s (its mean {} against {} and {} Mb/s); ns-2's run shows the same ({})",
            mb(&r.est("ccid2", Rate20, |m| m.mean_bps[2])),
            mb(&r.est("ccid2", Rate20, |m| m.mean_bps[0])),
            mb(&r.est("ccid2", Rate20, |m| m.mean_bps[1])),
            ns2_means(ns2, "ccid2", "rate20")
        ),
    );
    for (ch, fig) in [(Delay10, "Fig. 11"), (Delay50, "Fig. 12")] {
        let ms = ch.bottleneck().1;
        positive(
            &mut c,
            &format!("CCID2, bottleneck delay {ms} ms: a big fluctuation"),
            &format!("§IV, {fig}"),
            "\"a big fluctuation\"",
            &r.diff(("ccid2", ch), ("ccid2", Default), cvf),
            3,
            format!(
                "the coefficient of variation is {} against the default's {}",
                r.est("ccid2", ch, cvf).show(3),
                r.est("ccid2", Default, cvf).show(3)
            ),
        );
    }
    positive(
        &mut c,
        "CCID2, bottleneck delay 50 ms: the fluctuation is slower",
        "§IV, Fig. 12",
        "\"the fluctuation velocity get low\"",
        &r.diff(("ccid2", Delay50), ("ccid2", Default), |m| m.period_s.unwrap_or(1.0)),
        1,
        "the dominant period of client 3's 1 s series is not longer at 50 ms (a period below 2 s counts as 1 s)".into(),
    );

    // CCID3 (Figures 13-17).
    let smoother = |c: &mut Claims, ch: Change, fig: &str, paper: &str, claim: &str| {
        positive(c, claim, &format!("§IV, {fig}"), paper, &r.diff(("ccid2", ch), ("ccid3", ch), cvf), 3, {
            let (a, b) = (r.est("ccid3", ch, cvf), r.est("ccid2", ch, cvf));
            let slow = if a.max > 2.0 * a.min {
                ". A newcomer that meets a loss early in its slow start starts from a high loss event rate (averaged over ns-2's zero-filled slots: six times the RFC's) and climbs back slowly: the seeds' largest value is such a run"
            } else {
                ""
            };
            format!(
                    "CCID3's coefficient of variation {} (from {:.3} to {:.3} over the seeds) against CCID2's {} ({:.3} to {:.3}); without the random wait {:.3} against {:.3}; ns-2: {} against {}{slow}",
                    a.show(3),
                    a.min,
                    a.max,
                    b.show(3),
                    b.min,
                    b.max,
                    r.deterministic("ccid3", ch).cv,
                    r.deterministic("ccid2", ch).cv,
                    ns2_cv(ns2, "ccid3", ch.stem()),
                    ns2_cv(ns2, "ccid2", ch.stem())
                )
        });
    };
    smoother(
        &mut c,
        Default,
        "Fig. 13",
        "\"fluctuation in CCID3 is smaller, and the throughput line seems smoothly\"",
        "CCID3, default: smoother than CCID2",
    );
    smoother(
        &mut c,
        Queue100,
        "Fig. 14",
        "\"fluctuation is small\"",
        "CCID3, queue 100: the fluctuation is small (below CCID2's)",
    );
    let settle = |m: &Measure| m.settle_s;
    for (ch, fig, paper) in [
        (Queue100, "Fig. 14", "\"it took longer time for new coming packet to stabilize the throughput\""),
        (Delay10, "Fig. 16", "\"Only the throughput need time to be stabilized\""),
    ] {
        positive(
            &mut c,
            &format!("CCID3, {}: the newcomer takes longer to stabilize than in the default run", ch.label()),
            &format!("§IV, {fig}"),
            paper,
            &r.diff(("ccid3", ch), ("ccid3", Default), settle),
            1,
            format!(
                "client 3 reaches 90% of its later mean {} s after it starts, against {} s in the default run",
                r.est("ccid3", ch, settle).show(1),
                r.est("ccid3", Default, settle).show(1)
            ),
        );
    }
    positive(
        &mut c,
        "CCID3, 20 Mb/s: throughput increases",
        "§IV, Fig. 15",
        "\"throughput increased\"",
        &r.diff(("ccid3", Rate20), ("ccid3", Default), |m| m.mean_bps.iter().sum::<f64>()).scaled(1e-6),
        2,
        "the total does not rise".into(),
    );
    smoother(
        &mut c,
        Rate20,
        "Fig. 15",
        "\"the performance are not that fluctuated\"",
        "CCID3, 20 Mb/s: not much fluctuation (below CCID2's)",
    );
    let stalls = r.est("ccid3", Delay50, |m| m.stalled as f64);
    let on = ns2.runs("ccid3", "delay50", true);
    let off = ns2.runs("ccid3", "delay50", false);
    let stalled_on = on.iter().filter(|x| x.stalled > 0).count();
    let failures: usize = on.iter().map(|x| x.nonce_failures).sum();
    c.push(Claim {
        claim: "CCID3, bottleneck delay 50 ms: CCID3 cannot transmit (the clients stall)".into(),
        source: "§IV, Fig. 17".into(),
        paper: "\"CCID3 cannot transmit packet when the delay equal to 50ms\"".into(),
        fairway: format!("{} clients stalled per run", stalls.show(1)),
        band: "at least one client's throughput over its last 10 s below 5% of a fair share, in every seed".into(),
        verdict: if stalls.min >= 1.0 { Verdict::Reproduced } else { Verdict::NotReproduced },
        why: format!(
            "an RFC 4342 sender at a 108 ms round trip keeps sending (its means {} Mb/s). The stall is ns-2's: in {} of its {} runs with ECN on (its default), {} \"ECN check failed!\" in all, its sender judged the receiver's ECN nonce echo wrong and reset the connection with Aggression Penalty, which ends the flow for good; with ECN off ns-2 never stalls ({} of {} runs; means {}). The paper's reading, the nofeedback timer cutting the rate to one packet, is not what ns-2 does. fairway's CCIDs check the ECN nonce echo without spurious failures and do not reset on a failure (docs/semantics.md, \"DCCP\"), so fairway cannot show the artefact itself; the report's ns-2 table has both",
            mb(&r.est("ccid3", Delay50, |m| m.mean_bps.iter().sum::<f64>() / 3.0)),
            stalled_on,
            on.len(),
            failures,
            off.iter().filter(|x| x.stalled > 0).count(),
            off.len(),
            ns2_means(ns2, "ccid3", "delay50"),
        ),
    });

    // The conclusion.
    let changes = [Default, Queue100, Rate20, Delay10];
    let margins: Vec<Estimate> = changes
        .iter()
        .map(|&ch| {
            let (a, b, t) = (r.runs("ccid3", ch), r.runs("ccid2", ch), r.runs("tcp", ch));
            Estimate::of(a.iter().zip(b).zip(t).map(|((a, b), t)| b.cv.min(t.cv) - a.cv))
        })
        .collect();
    let holds = margins.iter().all(|e| e.mean > 0.0);
    let sure = margins.iter().all(|e| e.mean - e.ci95() > 0.0);
    c.direction(
        "Conclusion: CCID3 gives the smoothest flows of the three, but at 50 ms",
        "§V",
        "\"CCID3 ... the best traffic flows\", smooth",
        format!(
            "the least other coefficient of variation minus CCID3's: {}",
            changes
                .iter()
                .zip(&margins)
                .map(|(ch, e)| format!("{} {}", ch.stem(), e.show(3)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        holds,
        sure,
        "TCP, window-limited in every run but the default (a window of 20 packets cannot fill the pipe and the queue, so nothing is lost), sends an even stream and is smoother than either CCID there; CCID3 against CCID2 alone is in the claims above",
    );
    let c2 = r.est("ccid2", Delay50, |m| m.stalled as f64);
    c.push(Claim {
        claim: "Conclusion: CCID2 keeps transmitting at 50 ms".into(),
        source: "§V".into(),
        paper: "\"CCID2 still can react\"".into(),
        fairway: format!(
            "{} clients stalled per run; means {} Mb/s",
            c2.show(1),
            mb(&r.est("ccid2", Delay50, |m| m.mean_bps.iter().sum::<f64>() / 3.0))
        ),
        band: "no client stalled in any seed".into(),
        verdict: if c2.max == 0.0 { Verdict::Reproduced } else { Verdict::NotReproduced },
        why: if c2.max == 0.0 { String::new() } else { "a CCID2 client stalled".into() },
    });
    positive(
        &mut c,
        "Conclusion: DCCP (CCID3) is fairer than TCP, where late flows get less",
        "§V",
        "\"DCCP ... fair\"; TCP's late flows \"will not have chances to gain better throughput\"",
        &r.diff(("ccid3", Default), ("tcp", Default), jain),
        3,
        format!(
            "Jain's index of CCID3's clients ({}) is not above TCP's ({}): with the random wait TCP's clients share evenly (claim 1); ns-2's deterministic run, where a phase effect gives the first client more ({}), has Jain {:.3} against CCID3's {:.3}",
            r.est("ccid3", Default, jain).show(3),
            r.est("tcp", Default, jain).show(3),
            ns2_means(ns2, "tcp", "default"),
            ns2_jain(ns2, "tcp", "default"),
            ns2_jain(ns2, "ccid3", "default")
        ),
    );
    c
}

fn ns2_jain(ns2: &Reference, t: &str, ch: &str) -> f64 {
    ns2.runs(t, ch, false).first().and_then(|x| fairway_engine::metrics::jain(&x.mean_bps)).unwrap_or(f64::NAN)
}

/// ns-2's client 1 over client 3 in its (ECN off) run.
fn ns2_ratio(ns2: &Reference, t: &str, ch: &str) -> f64 {
    ns2.runs(t, ch, false).first().map_or(f64::NAN, |x| x.mean_bps[0] / x.mean_bps[2])
}

fn ns2_cv(ns2: &Reference, t: &str, ch: &str) -> String {
    ns2.runs(t, ch, false).first().and_then(|x| x.cv).map_or("-".into(), |v| format!("{v:.3}"))
}

fn ns2_means(ns2: &Reference, t: &str, ch: &str) -> String {
    ns2.runs(t, ch, false).first().map_or("-".into(), |x| {
        format!("{:.2}/{:.2}/{:.2} Mb/s", x.mean_bps[0] / 1e6, x.mean_bps[1] / 1e6, x.mean_bps[2] / 1e6)
    })
}
