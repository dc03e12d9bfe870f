//! kadhum2015's claims, in the order of its §4: the numbers its text gives for its two runs, the
//! finding it states of each figure (Figs 6 to 16), its conclusion, and the arithmetic of §4.2
//! that the readings rest on. fairway's values come from the reading the paper's numbers support
//! (mapp-ftp.toml and cbr-ftp.toml; the scenario files give the arithmetic).

use super::super::claims::{trim, Claim, Claims};
use super::super::rules::{Bounds, Phrase, Value};
use super::{Metrics, Reading, Results, PAPER_CBR, PAPER_MAPP};

/// The readings the claims rest on (the scenario files give the arithmetic).
const MAPP: &str = "mapp-ftp.toml (RED in bytes, MApp at k x 160 kb/s)";
const CBR: &str = "cbr-ftp.toml (RED in bytes, CBR at 3 Mb/s)";
const BOTH: &str = "mapp-ftp.toml and cbr-ftp.toml";

pub fn claims(r: &Results) -> Claims {
    let (mapp, cbr) = (r.get("mapp-ftp"), r.get("cbr-ftp"));
    let mut c = Claims::default();
    section_4_2(&mut c);
    appendix(&mut c, mapp, r.get("mapp-ftp-appendix-links"));
    queue(&mut c, mapp, cbr, r);
    loss(&mut c, mapp, cbr);
    throughput(&mut c, mapp, cbr);
    conclusion(&mut c, mapp, cbr);
    c
}

fn section_4_2(c: &mut Claims) {
    // A Pareto distribution with shape a and minimum m has mean a m / (a - 1) and median m 2^(1/a).
    let (a, m) = (1.16, 1.37);
    let (mean, median) = (a * m / (a - 1.0), m * 2f64.powf(1.0 / a));
    let inside = (mean - 10.0).abs() <= 0.5 && (median - 2.5).abs() <= 0.05;
    c.push(Claim::arithmetic(
        "A Pareto distribution with mean 10 KB and median 2.5 KB has shape 1.16 and minimum 1.37 KB",
        "§4.2",
        "shape 1.16, minimum 1.37 KB",
        format!("mean {mean:.2} KB, median {median:.3} KB"),
        "the paper's rounding: mean 10 KB to the KB, median 2.5 KB to 0.05",
        inside,
    ));
    let m15 = 10.0 * 0.5 / 1.5;
    c.push(Claim::inconsistent(
        "Sessions have Pareto sizes with mean 10 KB and shape 1.5",
        "§4.2",
        "shape 1.5",
        "shape 1.16 (the *-web.toml files)",
        "the paper's own derivation above",
        format!(
            "§4.2 derives shape 1.16 from its mean of 10 KB and median of 2.5 KB, then names shape 1.5: with mean 10 KB \
that has minimum {m15:.2} KB and median {:.1} KB. fairway takes 1.16, which fits both of the paper's numbers",
            m15 * 2f64.powf(1.0 / 1.5)
        ),
    ));
    c.push(Claim::inconsistent(
        "The UDP source generates 1.6 Mb/s (with 1.8 Mb/s of TCP, 3.4 Mb/s offered)",
        "§4.2, Table 1",
        "1.6 Mb/s",
        "0.8, 1.6 and 3 Mb/s run",
        "the paper's own parameters and results",
        "Table 1 and §4.1 give the CBR 500-byte packets every 5 ms, 0.8 Mb/s; §4.2 says 1.6 Mb/s; the CBR run's \
18 400 UDP arrivals in 49 s need 3.0 Mb/s of 1000-byte packets. fairway runs all three (cbr-ftp-0.8mb, cbr-ftp-1.6mb, \
cbr-ftp) and checks the CBR run's results with 3 Mb/s, the one they fit",
    ));
}

/// The Appendix's ns-2 script against Table 1 and §4.1, parameter by parameter: the bottleneck,
/// the packets and the run agree; the access links do not (`with` is mapp-ftp.toml run with the
/// script's links).
fn appendix(c: &mut Claims, mapp: &Reading, with: &Reading) {
    c.push(Claim::arithmetic(
        "The Appendix script's bottleneck is Table 1's: 2 Mb/s, 10 ms, RED with thresholds 5 and 10, a buffer of 20",
        "Appendix, Table 1, §4.1",
        "2Mb 10ms RED; thresh_ 5, maxthresh_ 10; queue-limit 20",
        "the same in mapp-ftp.toml and cbr-ftp.toml",
        "each parameter equal",
        true,
    ));
    c.push(Claim::arithmetic(
        "The Appendix script's packets and run are Table 1's: 1000-byte FTP and MApp packets, CBR 500 bytes every 5 ms, 50 s",
        "Appendix, Table 1",
        "packetSize_ 1000; CBR pktsize_ 500, interval_ 0.005; finish at 50.0",
        "the same in every file",
        "each parameter equal",
        true,
    ));
    let (a, b) = (mapp.est(|m| m.drops), with.est(|m| m.drops));
    let (qa, qb) = (mapp.est(|m| m.avg_queue), with.est(|m| m.avg_queue));
    c.push(Claim::inconsistent(
        "The access links run at 6 Mb/s with a delay of 2 ms",
        "§4.1, Table 1, Appendix",
        "6 Mbps, 2 ms (§4.1, Table 1); 5Mb 3ms (Appendix)",
        format!("6 Mb/s, 2 ms; the Appendix's: drops {} against {}", b.show(0), a.show(0)),
        "the paper's text against its script",
        format!(
            "the Appendix's script builds every access link as 5Mb 3ms. §4.1's own reasons fit 6 Mb/s and 2 ms only: \
access links \"three times larger\" than the 2 Mb/s bottleneck, and the bottleneck's 10 ms \"five times larger\" than \
their delay. fairway runs Table 1's; with the script's links (mapp-ftp-appendix-links) the MApp run drops {} packets \
against {} (the paper: 350) and RED's average queue is {} against {} packets (the paper: about 4)",
            b.show(0),
            a.show(0),
            qb.show(1),
            qa.show(1)
        ),
    ));
}

fn queue(c: &mut Claims, mapp: &Reading, cbr: &Reading, r: &Results) {
    c.reading = MAPP.into();
    let maxq = mapp.est(|m| m.max_queue);
    let packets = r.get("mapp-ftp-red-packets").est(|m| m.max_queue);
    c.count(
        "With MApp the queue grows to a maximum queue size of 20 packets (20,000 bytes)".into(),
        "§4.3.1, Fig. 6",
        "20",
        &maxq,
        format!(
            "RED run as the paper's script ran it (ns-2 2.35's byte mode) holds at most limit x mean_pktsize_ = 20 x 500 = \
10 000 bytes, 10 packets of 1000 bytes (11 with the one on the wire); counting packets, as §4.3.1 reads the limit, \
the largest queue is {} packets (mapp-ftp-red-packets)",
            packets.show(1)
        ),
    );
    // "A packet is then dropped in both TCP and modified UDP connections. This drives the sender
    // to react to the loss": both flows of the MApp run lose packets.
    let (tcp_lost, mapp_lost) = (mapp.est(|m| m.tcp_dropped), mapp.est(|m| m.media_dropped));
    c.higher(
        "With MApp packets are dropped from both the TCP and the modified UDP connection",
        "§4.3.1, Fig. 6",
        "both",
        format!("TCP {} and MApp {} packets dropped", tcp_lost.show(0), mapp_lost.show(0)),
        "the fewer packets dropped of the two flows",
        Value::least(&[Value::of(&tcp_lost, Bounds::NON_NEGATIVE), Value::of(&mapp_lost, Bounds::NON_NEGATIVE)]),
        "one of the two loses nothing",
    );
    c.reading = CBR.into();
    let (before, after) = (cbr.est(|m| m.tcp_cwnd_max_before), cbr.est(|m| m.tcp_cwnd_max_after));
    c.higher(
        "When the standard UDP begins it occupies bandwidth, preventing TCP from increasing its window any further",
        "§4.3.1, Fig. 7",
        "TCP's window stays low",
        format!(
            "TCP's largest window: {} packets before the CBR starts, {} from 2 s on",
            before.show(1),
            after.show(1)
        ),
        "TCP's largest window before the CBR starts less that from 2 s on (packets)",
        Value::gap(&after, &before),
        "TCP's window grows again after the CBR starts",
    );
    for (who, reading, paper, printed, read) in
        [("MApp", mapp, PAPER_MAPP, "4", MAPP), ("CBR", cbr, PAPER_CBR, "9", CBR)]
    {
        c.reading = read.into();
        let avg = reading.est(|m| m.avg_queue);
        let why = format!(
            "fairway's RED average, in packets of the size that arrived, is {}; the paper does not say how it counts \
its queue: in ns-2's byte mode its ave_ is in bytes, and divided by mean_pktsize_ (500) it would read {:.1}",
            avg.show(2),
            avg.mean * 2.0
        );
        c.cell(
            format!("With {who} the average queue is approximately {printed} packets"),
            "§4.3.1, Figs 6 and 7",
            printed,
            &avg,
            2,
            Bounds::NON_NEGATIVE,
            why.clone(),
        );
        let delay = reading.est(|m| m.avg_queue * 1000.0 * 8.0 / 2e6 * 1e3);
        c.cell(
            format!(
                "With {who} the average queueing delay is {} ms (the average queue x 1000 x 8 / 2 Mb/s)",
                trim(paper.queue_delay_ms)
            ),
            "§4.3.1",
            &trim(paper.queue_delay_ms),
            &delay,
            1,
            Bounds::NON_NEGATIVE,
            why,
        );
    }
    c.reading = BOTH.into();
    let (a, b) = (mapp.est(|m| m.avg_queue), cbr.est(|m| m.avg_queue));
    c.push(
        Claim::words(
            "With MApp the average queue is much lower than with CBR",
            "§4.3.1",
            "about 4 against 9",
            Phrase::Ahead,
            "CBR's average queue over MApp's",
            Bounds::NON_NEGATIVE,
            Value::ratio(&b, &a),
        )
        .shown(format!("{} against {} packets", a.show(2), b.show(2)))
        .why("MApp's queue is not much below CBR's"),
    );
    // "varies much faster but less": two findings, each judged on its own.
    let (fm, fc) = (mapp.est(|m| m.tcp_cuts_per_s), cbr.est(|m| m.tcp_cuts_per_s));
    let (sm, sc) = (mapp.est(|m| m.tcp_cwnd_sd), cbr.est(|m| m.tcp_cwnd_sd));
    c.push(
        Claim::words(
            "With standard UDP TCP's window varies much faster (than beside MApp)",
            "§4.3.1, Fig. 7",
            "much faster",
            Phrase::Ahead,
            "TCP's window cuts per second beside CBR over those beside MApp",
            Bounds::NON_NEGATIVE,
            Value::ratio(&fc, &fm),
        )
        .shown(format!("TCP's window cuts per second: {} beside MApp, {} beside CBR", fm.show(2), fc.show(2)))
        .why("beside the 3 Mb/s CBR TCP hardly runs: few cuts, most of them timeouts"),
    );
    c.higher(
        "With standard UDP TCP's window varies less (than beside MApp)",
        "§4.3.1, Fig. 7",
        "less",
        format!(
            "the standard deviation of TCP's window: {} packets beside MApp, {} beside CBR",
            sm.show(2),
            sc.show(2)
        ),
        "the standard deviation of TCP's window beside MApp less that beside CBR (packets)",
        Value::gap(&sc, &sm),
        "TCP's window does not vary less beside CBR",
    );
}

fn loss(c: &mut Claims, mapp: &Reading, cbr: &Reading) {
    c.reading = MAPP.into();
    c.count(
        "With MApp the total number of packets dropped at the gateway is 350".into(),
        "§4.3.2, Fig. 8",
        &trim(PAPER_MAPP.drops),
        &mapp.est(|m| m.drops),
        "MApp's drops depend on its ten rates, which the paper does not give (the scenario file's reading)".into(),
    );
    c.reading = CBR.into();
    c.count(
        "With standard UDP the total number of packets dropped at the gateway is 6300".into(),
        "§4.3.2, Fig. 9",
        &trim(PAPER_CBR.drops),
        &cbr.est(|m| m.drops),
        "at 3 Mb/s the link passes 250 of the CBR's 375 packets a second, so 6 150 are dropped in 49 s".into(),
    );
    // "halted ... due to numerous time outs": what TCP sends ends in a timeout far more often
    // beside CBR (a backed-off TCP sends little, so the count of timeouts alone falls); the
    // halt is the premise: TCP's throughput far lower beside CBR.
    c.reading = BOTH.into();
    let (tm, tc) =
        (mapp.est(|m| 100.0 * m.tcp_timeouts / m.tcp_sent), cbr.est(|m| 100.0 * m.tcp_timeouts / m.tcp_sent));
    let (zm, zc) = (mapp.est(|m| m.tcp_kbps), cbr.est(|m| m.tcp_kbps));
    let halted = Phrase::Ahead.band().contains(Value::ratio(&zm, &zc).lo);
    c.push(
        Claim::words(
            "Beside standard UDP TCP is halted from transmitting by numerous time outs",
            "§4.3.2, Fig. 10",
            "numerous time outs",
            Phrase::Ahead,
            "TCP's timeouts per 100 packets sent beside CBR over those beside MApp",
            Bounds::NON_NEGATIVE,
            Value::ratio(&tc, &tm),
        )
        .shown(format!(
            "TCP's timeouts per 100 packets it sends: {} beside MApp, {} beside CBR; its throughput {} and {} kb/s",
            tm.show(2),
            tc.show(2),
            zm.show(0),
            zc.show(0)
        ))
        .premise(halted)
        .note("premise: TCP's throughput beside MApp over that beside CBR above 1.25 (halted)")
        .why("TCP's packets do not end in timeouts far more often beside CBR than beside MApp, or TCP is not halted"),
    );
    // The MApp run counts every packet arriving at the router; 2.916% is 350 / 12 000.
    c.reading = MAPP.into();
    c.count(
        "With MApp the total number of packets that arrived at the router is 12,000".into(),
        "§4.3.2, Fig. 11",
        "12000",
        &mapp.est(|m| m.arrivals),
        "MApp's arrivals depend on its ten rates, which the paper does not give".into(),
    );
    c.cell(
        "With MApp 2.916% of the packets that arrived were dropped".into(),
        "§4.3.2",
        &trim(PAPER_MAPP.drop_pct),
        &mapp.est(|m| 100.0 * m.drops / m.arrivals),
        2,
        Bounds::PERCENT,
        "as the drops and arrivals above".into(),
    );
    c.reading = CBR.into();
    c.push(Claim::inconsistent(
        "With standard UDP 18,400 UDP packets arrived at the router's buffer",
        "§4.3.2, Fig. 12",
        "18400",
        format!("{} (3 Mb/s, the rate this number gives)", cbr.est(|m| m.media_sent).show(0)),
        "the paper's stated CBR rates",
        "at the CBR rates the paper states, 0.8 Mb/s (Table 1) or 1.6 Mb/s (§4.2), the CBR sends 9 800 packets in \
the 49 s it runs; 18 400 need 3.0 Mb/s of 1000-byte packets, the reading fairway takes for the CBR run's other numbers",
    ));
    // 34.239% is 6 300 / 18 400: total drops over the UDP arrivals.
    c.cell(
        "With standard UDP 34.239% of the packets were dropped (6,300 of the 18,400)".into(),
        "§4.3.2",
        &trim(PAPER_CBR.drop_pct),
        &cbr.est(|m| 100.0 * m.drops / m.media_sent),
        2,
        Bounds::NON_NEGATIVE,
        "the drops and arrivals above: 250 of 375 packets a second pass".into(),
    );
}

fn throughput(c: &mut Claims, mapp: &Reading, cbr: &Reading) {
    c.reading = MAPP.into();
    let ratio = mapp.est(|m| m.media_kbps / m.tcp_kbps);
    c.push(
        Claim::words(
            "The modified UDP shares the bandwidth with TCP fairly",
            "§4.3.3-4.3.4, Figs 13 and 15",
            "fair share",
            Phrase::AlmostEqual,
            "MApp's throughput over TCP's, run by run",
            Bounds::NON_NEGATIVE,
            Value::of(&ratio, Bounds::NON_NEGATIVE),
        )
        .shown(format!(
            "MApp / TCP = {} ({} and {} kb/s)",
            ratio.show(2),
            mapp.est(|m| m.media_kbps).show(0),
            mapp.est(|m| m.tcp_kbps).show(0)
        ))
        .why("MApp's rates (not given) set its share"),
    );
    c.reading = CBR.into();
    let zero = cbr.est(|m| m.tcp_near_zero);
    c.push(
        Claim::words(
            "Beside standard UDP TCP's throughput is almost zero the majority of the time, except at the beginning",
            "§4.3.3, Fig. 14",
            "almost zero",
            Phrase::MostOf,
            "the share of the 100 ms bins from 2 s on with TCP under 5% of the link's rate ('almost zero')",
            Bounds::UNIT,
            Value::of(&zero, Bounds::UNIT),
        )
        .shown(format!("under 100 kb/s in {:.0}% of the 100 ms bins from 2 s on", 100.0 * zero.mean))
        .why("TCP keeps a share beside the CBR"),
    );
    let cv = cbr.est(|m| m.media_cv);
    c.push(
        Claim::words(
            "Standard UDP's throughput is very high and almost consistent",
            "§4.3.3, Fig. 14",
            "almost consistent",
            Phrase::AlmostConstant,
            "the coefficient of variation of UDP's throughput in 0.5 s windows",
            Bounds::NON_NEGATIVE,
            Value::of(&cv, Bounds::NON_NEGATIVE),
        )
        .shown(format!(
            "{} kb/s, varying by {:.1}% (coefficient of variation, 0.5 s windows)",
            cbr.est(|m| m.media_kbps).show(0),
            100.0 * cv.mean
        ))
        .why("RED's drops make UDP's delivered rate vary"),
    );
    let share = cbr.est(|m| m.media_kbps / (m.media_kbps + m.tcp_kbps + m.web_kbps));
    c.push(
        Claim::words(
            "Standard UDP utilises the bandwidth fully, leaving no chance for other protocols",
            "§4.3.4, Fig. 16",
            "no chance",
            Phrase::AlmostAll,
            "UDP's share of what the link delivers",
            Bounds::UNIT,
            Value::of(&share, Bounds::UNIT),
        )
        .shown(format!("UDP carries {} of what the link delivers", share.show(3)))
        .why("TCP keeps more than 5% beside the CBR"),
    );
}

fn conclusion(c: &mut Claims, mapp: &Reading, cbr: &Reading) {
    c.reading = BOTH.into();
    let delivered = |m: &Metrics| m.media_kbps + m.tcp_kbps + m.web_kbps;
    let (dm, dc) = (mapp.est(|m| m.drops), cbr.est(|m| m.drops));
    c.higher(
        "The responsive multimedia application reduces the packet drops",
        "§5",
        "350 against 6300",
        format!("{} against {}", dm.show(0), dc.show(0)),
        "the drops with CBR less those with MApp",
        Value::gap(&dm, &dc),
        "MApp's run drops no fewer",
    );
    let (tm, tc) = (mapp.est(delivered), cbr.est(delivered));
    c.higher(
        "The responsive multimedia application increases the throughput at the end hosts",
        "§5",
        "higher",
        format!("delivered in all: {} kb/s with MApp, {} kb/s with CBR", tm.show(0), tc.show(0)),
        "what the link delivers in all with MApp less that with CBR (kb/s)",
        Value::gap(&tc, &tm),
        "the 3 Mb/s CBR fills the link, which MApp's halvings leave idle at times: less reaches the receivers with \
MApp, though all of it is TCP's and MApp's own",
    );
    let (um, uc) = (mapp.est(|m| 100.0 * m.utilization), cbr.est(|m| 100.0 * m.utilization));
    c.higher(
        "The responsive multimedia application improves the network utilisation",
        "§5, Figs 15 and 16",
        "improved",
        format!("bottleneck busy {}% of the time with MApp, {}% with CBR", um.show(1), uc.show(1)),
        "the bottleneck's utilisation with MApp less that with CBR (points)",
        Value::gap(&uc, &um),
        "an unresponsive CBR above the link's rate keeps it busy all the time; MApp's halvings leave it idle at \
times",
    );
}
