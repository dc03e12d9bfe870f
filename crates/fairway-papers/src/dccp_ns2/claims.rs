//! dccp-ns2's claims (its §IV and conclusion, as shared/notes/seed001_spec.md §3 lists them)
//! against fairway's runs. The paper prints no number: every claim is a direction (more, less,
//! fairer, smoother), checked under two readings: the paper's set-up as stated, deterministic
//! as ns-2's agents are (one run per set-up, judged on its numbers), the primary reading; and the
//! same with a random wait before each packet, over the seeds with their 95% confidence
//! intervals, shown and not counted. "fairly" and "an advantage" take the bands every
//! reproduction gives them (docs/reproductions.md).

use super::super::claims::{Claim, Claims, Verdict};
use super::super::rules::{Bounds, Phrase, Value};
use super::ns2_reference::Reference;
use super::{Change, Measure, Results};
use fairway_report::stats::Estimate;

fn mb(e: &Estimate) -> String {
    e.scaled(1e-6).show(2)
}

/// The primary reading: the paper's set-up as stated, which has no random input.
pub const NO_WAIT: &str = "as stated: no random wait, one deterministic run per set-up, on ns-2's clock";

/// The second reading: the paper's set-up with a random wait before each packet.
pub const JITTERED: &str = "a random wait before each packet (not in the paper)";

/// A paired difference over the seeds that the paper's words make positive.
// A claim row's columns, as `Claims::higher` takes them: a struct would only rename them.
#[allow(clippy::too_many_arguments)]
fn positive(
    c: &mut Claims,
    r: &Results,
    claim: &str,
    source: &str,
    paper: &str,
    quantity: &str,
    e: &Estimate,
    digits: usize,
    why: String,
) {
    c.higher(claim, source, paper, e.show(digits), quantity, r.value(e, Bounds::FREE), &why);
}

/// The clients' largest mean over their smallest: "fairly" is this within 1.25 (the smaller
/// within 20% of the larger), as in every reproduction.
fn spread(m: &Measure) -> f64 {
    let max = m.mean_bps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = m.mean_bps.iter().copied().fold(f64::INFINITY, f64::min);
    max / min
}

const AT_LEAST_ONE: Bounds = Bounds { lo: 1.0, hi: f64::INFINITY };

/// "the clients share fairly": [`spread`] almost equal.
// A claim row's columns, as `Claim::words` takes them: a struct would only rename them.
#[allow(clippy::too_many_arguments)]
fn fair(
    c: &mut Claims,
    r: &Results,
    claim: &str,
    source: &str,
    paper: &str,
    e: &Estimate,
    jain: &Estimate,
    note: &str,
    why: String,
) {
    c.push(
        Claim::words(
            claim,
            source,
            paper,
            Phrase::AlmostEqual,
            "the clients' largest mean over their smallest, run by run",
            AT_LEAST_ONE,
            r.value(e, AT_LEAST_ONE),
        )
        .shown(format!("{} (Jain's index {})", e.show(2), jain.show(3)))
        .note(note)
        .why(why),
    );
}

/// Is a set of runs unfair: the clients' spread surely beyond the almost-equal band?
fn unfair(r: &Results, e: &Estimate) -> bool {
    Phrase::AlmostEqual.band().hi < r.value(e, AT_LEAST_ONE).lo
}

/// Each client's change from run `b` to run `a`, paired by seed, the least of the three.
fn every_client(r: &Results, a: (&str, Change), b: (&str, Change), sign: f64) -> (Value, String) {
    let per: Vec<Estimate> = (0..3).map(|k| r.diff(a, b, |m| sign * m.mean_bps[k] / 1e6)).collect();
    let shown = per.iter().map(|e| e.scaled(sign).show(2)).collect::<Vec<_>>().join(", ");
    (Value::least(&per.iter().map(|e| r.value(e, Bounds::FREE)).collect::<Vec<_>>()), shown)
}

/// TCP's window-limited rate: a window of 20 packets of 540 B (500 and 40 of headers) per round
/// trip, the round trip the propagation of the three links both ways plus a data packet's
/// transmission on each (the queue empty: the window cannot fill it).
pub fn window_limit_bps(change: Change) -> f64 {
    let (rate, delay, _) = change.bottleneck();
    let rtt = 2.0 * (2.0 + delay + 2.0) / 1e3 + 540.0 * 8.0 * (2.0 / 10e6 + 1.0 / (rate * 1e6));
    20.0 * 540.0 * 8.0 / rtt * 500.0 / 540.0
}

/// Every claim under the primary reading (the runs without the random wait), counted, then
/// under the second (with it), shown and not counted.
pub fn build(r: &Results, ns2: &Reference) -> Claims {
    let mut c = under(&r.without_wait(), r, ns2, NO_WAIT);
    let second = under(r, r, ns2, JITTERED);
    c.rows.extend(second.rows.into_iter().map(Claim::uncounted));
    c
}

/// The claims whose verdict differs between the two readings: (the claim, its verdict without
/// the random wait, with it).
pub fn depends_on_the_wait(c: &Claims) -> Vec<(&str, Verdict, Verdict)> {
    let (a, b): (Vec<&Claim>, Vec<&Claim>) = c.rows.iter().partition(|x| x.check.counted);
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.verdict != y.verdict)
        .map(|(x, y)| (x.claim.as_str(), x.verdict, y.verdict))
        .collect()
}

/// The claims judged on the runs `r` (the runs of the reading `reading`); `all` holds both
/// readings' runs, for the notes that set one beside the other.
fn under(r: &Results, all: &Results, ns2: &Reference, reading: &str) -> Claims {
    use Change::*;
    let mut c = Claims { reading: reading.into(), ..Claims::default() };
    // How the notes name this reading's runs.
    let these = if r.exact { "without the random wait" } else { "with the random wait" };
    let ratio13 = |m: &Measure| m.mean_bps[0] / m.mean_bps[2];
    let jain = |m: &Measure| m.jain;
    let cvf = |m: &Measure| m.cv;

    // TCP (Figures 3-7).
    let adv = r.est("tcp", Default, ratio13);
    c.push(
        Claim::words(
            "TCP, default: client 1, which starts first, has an advantage over the later clients",
            "§IV, Fig. 3",
            "\"Client 1 flow start first seems to have advantage over the bandwidth\"",
            Phrase::Ahead,
            "client 1's mean over 10-35 s over client 3's, run by run",
            Bounds::NON_NEGATIVE,
            r.value(&adv, Bounds::NON_NEGATIVE),
        )
        .shown(adv.show(2))
        .why(format!(
            "a drop-tail phase effect. The three windows of 20 (60 packets) overfill the 31-packet pipe and the 20-packet queue, and which client loses is decided by the order of packets that reach the full queue at the same instant (every link 10 Mb/s, every packet 540 B). ns-2's deterministic run gives client 1 {:.2} times client 3's throughput ({}): from 10 s client 3's packets are the ones that find the queue full. ns-2 orders such ties by the rounding of its double-precision times; fairway's run without the wait, on ns-2's clock, which orders them the same way (docs/semantics.md, \"Phase effects\"), gives {:.2}. With a random wait before each packet the ties go, and the clients share evenly: fairway {}, ns-2 with overhead_ 400 us {} over seeds 1-5",
            ns2_ratio(ns2, "tcp", "default"),
            ns2_means(ns2, "tcp", "default"),
            ratio13(all.deterministic("tcp", Default)),
            all.est("tcp", Default, ratio13).show(2),
            Estimate::of(ns2.waited("tcp", "default").iter().map(|x| x.mean_bps[0] / x.mean_bps[2])).show(2),
        )),
    );
    let tcp_default = r.est("tcp", Default, spread);
    fair(
        &mut c,
        r,
        "TCP, queue 100: all clients share the bandwidth fairly",
        "§IV, Fig. 4",
        "\"all clients shared the bandwidth fairly\"",
        &r.est("tcp", Queue100, spread),
        &r.est("tcp", Queue100, jain),
        "",
        "with 100 packets of queue the three windows of 20 fit without loss, and each client gets a third".into(),
    );
    c.push(
        Claim::words(
            "TCP: the queue of 100 is fairer than the default's 20",
            "§IV, Figs. 3-4",
            "fair at 100, client 1 ahead at 20",
            Phrase::Higher,
            "Jain's index at queue 100 less that at 20, run by run",
            Bounds::FREE,
            r.value(&r.diff(("tcp", Queue100), ("tcp", Default), jain), Bounds::FREE),
        )
        .shown(r.diff(("tcp", Queue100), ("tcp", Default), jain).show(3))
        .premise(unfair(r, &tcp_default))
        .note("premise: the clients unfair at 20 (their largest over smallest surely above 1.25)")
        .why(format!(
            "the default's clients share almost equally too (largest over smallest {}), so the contrast the paper draws is absent; Jain's index {} against {}",
            tcp_default.show(2),
            r.est("tcp", Default, jain).show(3),
            r.est("tcp", Queue100, jain).show(3)
        )),
    );
    let wl20 = window_limit_bps(Rate20);
    let (v, shown) = every_client(r, ("tcp", Rate20), ("tcp", Default), 1.0);
    c.higher(
        "TCP, 20 Mb/s: every client's throughput increases",
        "§IV, Fig. 5",
        "\"all client's throughput are increased\"",
        format!("each client's change: {shown} Mb/s"),
        "each client's change in mean from the default run, run by run, the least of the three (Mb/s)",
        v,
        "some client's mean does not rise",
    );
    let adv20 = r.est("tcp", Rate20, ratio13);
    c.push(
        Claim::words(
            "TCP, 20 Mb/s: client 1 still has an advantage over the clients who start late",
            "§IV, Fig. 5",
            "\"but still client1 has advantage compared to other clients who start late\"",
            Phrase::Ahead,
            "client 1's mean over client 3's, run by run",
            Bounds::NON_NEGATIVE,
            r.value(&adv20, Bounds::NON_NEGATIVE),
        )
        .shown(adv20.show(2))
        .why(format!(
            "the paper's set-up does not allow it: with a window of 20 packets each TCP is limited to 20 x 540 B per round trip of about 13 ms, {:.1} Mb/s of payload, and three of them ({:.1} Mb/s) cannot fill 20 Mb/s, so nothing is lost and the clients are equal (ratio {:.2}; ns-2: {:.2}). An advantage needs a larger window or a longer round trip than Table 2 gives (the notes' B8)",
            wl20 / 1e6,
            3.0 * wl20 / 1e6,
            adv20.mean,
            ns2_ratio(ns2, "tcp", "rate20")
        )),
    );
    for (ch, fig) in [(Delay10, "Fig. 6"), (Delay50, "Fig. 7")] {
        let ms = ch.bottleneck().1;
        let wl = window_limit_bps(ch);
        let (v, shown) = every_client(r, ("tcp", Default), ("tcp", ch), 1.0);
        c.higher(
            &format!("TCP, bottleneck delay {ms} ms: every client's throughput decreases"),
            &format!("§IV, {fig}"),
            "\"Due to delay, throughput decrease\"",
            format!("each client's fall from the default run: {shown} Mb/s"),
            "each client's mean in the default run less that at this delay, run by run, the least of the three (Mb/s)",
            v,
            &format!(
                "each client is window-limited to {:.2} Mb/s at {ms} ms, about what the default run's clients get when they share 10 Mb/s three ways ({}, {} and {} Mb/s), so each falls by little, and not surely in every client; in ns-2 the late clients gain ({} by default, {} at {ms} ms)",
                wl / 1e6,
                mb(&r.est("tcp", Default, |m| m.mean_bps[0])),
                mb(&r.est("tcp", Default, |m| m.mean_bps[1])),
                mb(&r.est("tcp", Default, |m| m.mean_bps[2])),
                ns2_means(ns2, "tcp", "default"),
                ns2_means(ns2, "tcp", ch.stem())
            ),
        );
        let mean = r.est("tcp", ch, |m| m.mean_bps.iter().sum::<f64>() / 3.0);
        fair(
            &mut c,
            r,
            &format!("TCP, bottleneck delay {ms} ms: the clients share the bandwidth"),
            &format!("§IV, {fig}"),
            "\"however clients could share bandwidth\"",
            &r.est("tcp", ch, spread),
            &r.est("tcp", ch, jain),
            &format!("each client is window-limited to {:.2} Mb/s, fairway's mean {}", wl / 1e6, mb(&mean)),
            "the clients' means differ".into(),
        );
    }

    // CCID2 (Figures 8-12).
    c.push(
        Claim::words(
            "CCID2, default: the clients share more fairly than TCP's",
            "§IV, Fig. 8",
            "\"Compare to TCP, CCID2 could have fair share with each other\"",
            Phrase::Higher,
            "Jain's index of CCID2's clients less TCP's, run by run",
            Bounds::FREE,
            r.value(&r.diff(("ccid2", Default), ("tcp", Default), jain), Bounds::FREE),
        )
        .shown(r.diff(("ccid2", Default), ("tcp", Default), jain).show(3))
        .premise(unfair(r, &tcp_default))
        .note("premise: TCP's clients unfair (their largest over smallest surely above 1.25)")
        .why(format!(
            "Jain's index of CCID2's clients ({}) against TCP's ({}): {these} TCP's clients share evenly too (largest over smallest {}; the first claim), so there is no unfairness for CCID2 to improve on",
            r.est("ccid2", Default, jain).show(3),
            r.est("tcp", Default, jain).show(3),
            tcp_default.show(2)
        )),
    );
    positive(
        &mut c,
        r,
        "CCID2, default: the clients fluctuate until about 25 s, less after",
        "§IV, Fig. 8",
        "\"until 25 second we can see a fluctuation among clients\"",
        "the coefficient of variation over 10-25 s less that over 25-35 s, run by run",
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
        r,
        "CCID2, queue 100: the fluctuation among clients is bigger",
        "§IV, Fig. 9",
        "\"the fluctuation among clients was bigger and took longer time to get stable\"",
        "the coefficient of variation at queue 100 less that at 20, run by run",
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
    let settle = |m: &Measure| m.settle_s;
    positive(
        &mut c,
        r,
        "CCID2, queue 100: the clients take longer to get stable",
        "§IV, Fig. 9",
        "\"took longer time to get stable\"",
        "client 3's time to stabilize at queue 100 less the default's, run by run (s)",
        &r.diff(("ccid2", Queue100), ("ccid2", Default), settle),
        1,
        format!(
            "client 3 reaches 90% of its later mean {} s after it starts with the queue of 100, against {} s at 20",
            r.est("ccid2", Queue100, settle).show(1),
            r.est("ccid2", Default, settle).show(1)
        ),
    );
    positive(
        &mut c,
        r,
        "CCID2, queue 100: the clients still consume more bandwidth",
        "§IV, Fig. 9",
        "\"However, all clients still consume bigger bandwidth\"",
        "the clients' total at queue 100 less that at 20, run by run (Mb/s)",
        &r.diff(("ccid2", Queue100), ("ccid2", Default), |m| m.mean_bps.iter().sum::<f64>()).scaled(1e-6),
        2,
        "the three clients' total is not higher with the larger queue: at 20 packets the link is already full".into(),
    );
    positive(
        &mut c,
        r,
        "CCID2, 20 Mb/s: every client's throughput increases",
        "§IV, Fig. 10",
        "\"throughput was increased\"",
        "the clients' total at 20 Mb/s less that at 10, run by run (Mb/s)",
        &r.diff(("ccid2", Rate20), ("ccid2", Default), |m| m.mean_bps.iter().sum::<f64>()).scaled(1e-6),
        2,
        "the total does not rise".into(),
    );
    fair(
        &mut c,
        r,
        "CCID2, 20 Mb/s: the clients still share fairly",
        "§IV, Fig. 10",
        "\"still clients have a fairly shared bandwidth\"",
        &r.est("ccid2", Rate20, spread),
        &r.est("ccid2", Rate20, jain),
        "",
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
            r,
            &format!("CCID2, bottleneck delay {ms} ms: a big fluctuation"),
            &format!("§IV, {fig}"),
            "\"a big fluctuation\"",
            "the coefficient of variation at this delay less the default's, run by run",
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
        r,
        "CCID2, bottleneck delay 50 ms: the fluctuation is slower",
        "§IV, Fig. 12",
        "\"the fluctuation velocity get low\"",
        "the dominant period of client 3's 1 s series at 50 ms less the default's, run by run (s)",
        &r.diff(("ccid2", Delay50), ("ccid2", Default), |m| m.period_s.unwrap_or(1.0)),
        1,
        "the dominant period of client 3's 1 s series is not longer at 50 ms (a period below 2 s counts as 1 s)".into(),
    );

    // CCID3 (Figures 13-17).
    let smoother = |c: &mut Claims, ch: Change, fig: &str, paper: &str, claim: &str| {
        positive(
            c,
            r,
            claim,
            &format!("§IV, {fig}"),
            paper,
            "CCID2's coefficient of variation less CCID3's, run by run",
            &r.diff(("ccid2", ch), ("ccid3", ch), cvf),
            3,
            {
                let (a, b) = (r.est("ccid3", ch, cvf), r.est("ccid2", ch, cvf));
                let range = |e: &Estimate| {
                    if e.n > 1 {
                        format!(" (from {:.3} to {:.3} over the seeds)", e.min, e.max)
                    } else {
                        String::new()
                    }
                };
                let slow = if a.n > 1 && a.max > 2.0 * a.min {
                    ". A newcomer that meets a loss early in its slow start starts from a high loss event rate (averaged over ns-2's zero-filled slots: six times the RFC's) and climbs back slowly: the seeds' largest value is such a run"
                } else {
                    ""
                };
                format!(
                    "CCID3's coefficient of variation {}{} against CCID2's {}{}; ns-2: {} against {}{slow}",
                    a.show(3),
                    range(&a),
                    b.show(3),
                    range(&b),
                    ns2_cv(ns2, "ccid3", ch.stem()),
                    ns2_cv(ns2, "ccid2", ch.stem())
                )
            },
        );
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
    // Fig. 16 "still shows similarity to the default graph (figure 13)": the graph's level and
    // its fluctuation, two findings, two rows.
    let total = |m: &Measure| m.mean_bps.iter().sum::<f64>();
    for (what, f, quantity, scale, unit) in [
        (
            "the same level",
            &total as &dyn Fn(&Measure) -> f64,
            "the clients' total at 10 ms over the default's, run by run",
            1e-6,
            " Mb/s",
        ),
        ("the same fluctuation", &cvf, "the coefficient of variation at 10 ms over the default's, run by run", 1.0, ""),
    ] {
        let e = r.pair(("ccid3", Delay10), ("ccid3", Default), |x, y| f(x) / f(y));
        c.push(
            Claim::words(
                format!("CCID3, bottleneck delay 10 ms: the graph looks like the default's ({what})"),
                "§IV, Fig. 16",
                "\"the graph still shows similarity to the default graph (figure 13)\"",
                Phrase::AlmostEqual,
                quantity,
                Bounds::NON_NEGATIVE,
                r.value(&e, Bounds::NON_NEGATIVE),
            )
            .shown(e.show(2))
            .why(format!(
                "at 10 ms {}{unit} against the default's {}{unit}",
                r.est("ccid3", Delay10, f).scaled(scale).show(3),
                r.est("ccid3", Default, f).scaled(scale).show(3)
            )),
        );
    }
    for (ch, fig, paper) in [
        (Queue100, "Fig. 14", "\"it took longer time for new coming packet to stabilize the throughput\""),
        (Delay10, "Fig. 16", "\"Only the throughput need time to be stabilized\""),
    ] {
        positive(
            &mut c,
            r,
            &format!("CCID3, {}: the newcomer takes longer to stabilize than in the default run", ch.label()),
            &format!("§IV, {fig}"),
            paper,
            "client 3's time to stabilize here less the default's, run by run (s)",
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
        r,
        "CCID3, 20 Mb/s: throughput increases",
        "§IV, Fig. 15",
        "\"throughput increased\"",
        "the clients' total at 20 Mb/s less that at 10, run by run (Mb/s)",
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
    let stalls: Vec<usize> = r.runs("ccid3", Delay50).iter().map(|m| m.stalled).collect();
    let on = ns2.runs("ccid3", "delay50", true);
    let off = ns2.runs("ccid3", "delay50", false);
    let stalled_on = on.iter().filter(|x| x.stalled > 0).count();
    let failures: usize = on.iter().map(|x| x.nonce_failures).sum();
    c.push(
        Claim::words(
            "CCID3, bottleneck delay 50 ms: CCID3 cannot transmit (the clients stall)",
            "§IV, Fig. 17",
            "\"CCID3 cannot transmit packet when the delay equal to 50ms\"",
            Phrase::Every(stalls.len()),
            "seeds in which some client's throughput over its last 10 s is below 5% of a fair share (stalled)",
            Bounds::count(stalls.len()),
            Value::exact(stalls.iter().filter(|&&s| s > 0).count() as f64),
        )
        .shown(format!("{} clients stalled per run", Estimate::of(stalls.iter().map(|&s| s as f64)).show(1)))
        .why(format!(
            "an RFC 4342 sender at a 108 ms round trip keeps sending (its means {} Mb/s). The stall is ns-2's: in {} of its {} runs with ECN on (its default), {} \"ECN check failed!\" in all, its sender judged the receiver's ECN nonce echo wrong and reset the connection with Aggression Penalty, which ends the flow for good; with ECN off ns-2 never stalls ({} of {} runs; means {}). The paper's reading, the nofeedback timer cutting the rate to one packet, is not what ns-2 does. fairway's CCIDs check the ECN nonce echo without spurious failures and do not reset on a failure (docs/semantics.md, \"DCCP\"), so fairway cannot show the artefact itself; the report's ns-2 table has both",
            mb(&r.est("ccid3", Delay50, |m| m.mean_bps.iter().sum::<f64>() / 3.0)),
            stalled_on,
            on.len(),
            failures,
            off.iter().filter(|x| x.stalled > 0).count(),
            off.len(),
            ns2_means(ns2, "ccid3", "delay50"),
        )),
    );

    // The conclusion.
    let changes = [Default, Queue100, Rate20, Delay10];
    let margins: Vec<Estimate> = changes
        .iter()
        .map(|&ch| {
            let (a, b, t) = (r.runs("ccid3", ch), r.runs("ccid2", ch), r.runs("tcp", ch));
            Estimate::of(a.iter().zip(b).zip(t).map(|((a, b), t)| b.cv.min(t.cv) - a.cv))
        })
        .collect();
    c.higher(
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
        "the lesser of TCP's and CCID2's coefficient of variation less CCID3's, run by run, the least over the four set-ups",
        Value::least(&margins.iter().map(|e| r.value(e, Bounds::FREE)).collect::<Vec<_>>()),
        "TCP, window-limited in every run but the default (a window of 20 packets cannot fill the pipe and the queue, so nothing is lost), sends an even stream and is smoother than either CCID there; CCID3 against CCID2 alone is in the claims above",
    );
    let c2: Vec<usize> = r.runs("ccid2", Delay50).iter().map(|m| m.stalled).collect();
    c.push(
        Claim::words(
            "Conclusion: CCID2 keeps transmitting at 50 ms",
            "§V",
            "\"CCID2 still can react\"",
            Phrase::Every(c2.len()),
            "seeds in which no client stalled",
            Bounds::count(c2.len()),
            Value::exact(c2.iter().filter(|&&s| s == 0).count() as f64),
        )
        .shown(format!(
            "{} clients stalled per run; means {} Mb/s",
            Estimate::of(c2.iter().map(|&s| s as f64)).show(1),
            mb(&r.est("ccid2", Delay50, |m| m.mean_bps.iter().sum::<f64>() / 3.0))
        ))
        .why("a CCID2 client stalled"),
    );
    c.push(
        Claim::words(
            "Conclusion: DCCP (CCID3) is fairer than TCP, where late flows get less",
            "§V",
            "\"DCCP ... fair\"; TCP's late flows \"will not have chances to gain better throughput\"",
            Phrase::Higher,
            "Jain's index of CCID3's clients less TCP's, run by run",
            Bounds::FREE,
            r.value(&r.diff(("ccid3", Default), ("tcp", Default), jain), Bounds::FREE),
        )
        .shown(r.diff(("ccid3", Default), ("tcp", Default), jain).show(3))
        .premise(unfair(r, &tcp_default))
        .note("premise: TCP's clients unfair (their largest over smallest surely above 1.25)")
        .why(format!(
            "Jain's index of CCID3's clients ({}) against TCP's ({}): {these} TCP's clients share evenly (the first claim); ns-2's deterministic run, where a phase effect gives the first client more ({}), has Jain {:.3} against CCID3's {:.3}",
            r.est("ccid3", Default, jain).show(3),
            r.est("tcp", Default, jain).show(3),
            ns2_means(ns2, "tcp", "default"),
            ns2_jain(ns2, "tcp", "default"),
            ns2_jain(ns2, "ccid3", "default")
        )),
    );
    c
}

fn ns2_jain(ns2: &Reference, t: &str, ch: &str) -> f64 {
    ns2.runs(t, ch, false).first().and_then(|x| fairway_model::metrics::jain(&x.mean_bps)).unwrap_or(f64::NAN)
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
