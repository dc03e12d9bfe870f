//! Random valid scenarios: every one runs to its end without a panic and passes the
//! conservation check (`run` returns an error if a packet is created or lost uncounted).

use fairway_core::Rng;
use fairway_engine::{run, RunOptions};
use fairway_scenario::parse_scenario;

fn pick<'a>(rng: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len() as u64) as usize]
}

fn queue(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => "\"droptail\"".into(),
        1 => format!("{{ kind = \"droptail\", limit = {} }}", 1 + rng.below(60)),
        2 => format!("{{ kind = \"droptail\", limit = \"{}B\" }}", 500 + rng.below(30_000)),
        _ => {
            let th = 1 + rng.below(20);
            format!(
                "{{ kind = \"red\", limit = {}, thresh = {th}, maxthresh = {}, q_weight = {}, gentle = {}, wait = {}, bytes = {}, queue_in_bytes = {}, ecn = {} }}",
                1 + rng.below(100),
                th + rng.below(30),
                pick(rng, &["0.002", "0.02", "-1", "0", "1"]),
                rng.bernoulli(0.5),
                rng.bernoulli(0.5),
                rng.bernoulli(0.5),
                rng.bernoulli(0.5),
                rng.bernoulli(0.5),
            )
        }
    }
}

fn scenario(rng: &mut Rng) -> String {
    let hosts = 2 + rng.below(4);
    let mut s = format!("duration = \"{}ms\"\nseed = {}\n", 500 + rng.below(3000), rng.below(1000));
    let rate = |rng: &mut Rng| pick(rng, &["64kb", "1Mb", "1.5Mb", "10Mb", "100Mb", "1Gb"]).to_string();
    let delay = |rng: &mut Rng| pick(rng, &["0ms", "1ms", "10ms", "0.003ms", "100ms"]).to_string();
    // A chain of one to three routers between the access links.
    let routers = 1 + rng.below(3);
    for r in 0..routers.saturating_sub(1) {
        s += &format!(
            "[[link]]\nbetween = [\"r{r}\", \"r{}\"]\nrate = \"{}\"\ndelay = \"{}\"\nqueue = {}\n",
            r + 1,
            rate(rng),
            delay(rng),
            queue(rng)
        );
    }
    for h in 0..hosts {
        for side in ["s", "d"] {
            let r = if side == "s" { 0 } else { routers - 1 };
            s += &format!(
                "[[link]]\nbetween = [\"{side}{h}\", \"r{r}\"]\nrate = \"{}\"\ndelay = \"{}\"\nqueue = {}\n",
                rate(rng),
                delay(rng),
                queue(rng)
            );
        }
    }
    for f in 0..1 + rng.below(5) {
        let (a, b) = (rng.below(hosts), rng.below(hosts));
        let start = rng.below(400);
        s += &format!("[[flow]]\nname = \"f{f}\"\nfrom = \"s{a}\"\nto = \"d{b}\"\nstart = \"{start}ms\"\n");
        if rng.bernoulli(0.3) {
            s += &format!("stop = \"{}ms\"\n", start + 1 + rng.below(2000));
        }
        match rng.below(6) {
            5 => {
                s += &format!(
                    "app = \"iftp\"\nssthresh = {}\nw_max = {}\nscale = {}\n",
                    1 + rng.below(64),
                    1 + rng.below(100),
                    pick(rng, &["0.5", "1.0", "1.5", "2.0"])
                );
                if rng.bernoulli(0.5) {
                    s += &format!("packets = {}\n", 1 + rng.below(5000));
                }
            }
            4 => {
                s += &format!(
                    "app = \"mapp\"\nscales = \"{}\"\njitter = {}\necn = {}\n",
                    pick(rng, &["kadhum2015", "chung"]),
                    rng.bernoulli(0.5),
                    rng.bernoulli(0.5)
                );
                if rng.bernoulli(0.5) {
                    s += &format!(
                        "pacing = \"constant_rate\"\ninterval = \"{}ms\"\npacket_size = \"{}B\"\n",
                        5 + rng.below(50),
                        100 + rng.below(1400)
                    );
                } else {
                    s += &format!("packet_size = \"{}B\"\n", 100 + rng.below(1400));
                }
            }
            0 => {
                s += &format!(
                    "app = \"cbr\"\npacket_size = \"{}B\"\nrate = \"{}\"\njitter = {}\n",
                    1 + rng.below(1500),
                    pick(rng, &["10kb", "500kb", "5Mb"]),
                    rng.bernoulli(0.5)
                );
            }
            k => {
                s += &format!(
                    "app = \"{}\"\ntransport = \"{}\"\nwindow = {}\nwindow_init = {}\npacket_size = \"{}B\"\necn = {}\ndelayed_ack = {}\nmax_burst = {}\n",
                    ["ftp", "transfer", "web"][k as usize - 1],
                    pick(rng, &["reno", "newreno"]),
                    1 + rng.below(100),
                    1 + rng.below(4),
                    1 + rng.below(1500),
                    rng.bernoulli(0.5),
                    rng.bernoulli(0.5),
                    rng.below(4),
                );
                if k == 2 {
                    s += &format!("size = \"{}B\"\n", 1 + rng.below(200_000));
                }
                if k == 3 {
                    s += &format!(
                        "interarrival = \"{}ms\"\nmean_size = \"{}B\"\nshape = {}\n",
                        1 + rng.below(100),
                        100 + rng.below(20_000),
                        pick(rng, &["1.1", "1.5", "2.5"])
                    );
                }
            }
        }
    }
    s += &format!("[monitor]\nbin = \"{}ms\"\nqueue_interval = \"{}ms\"\n", 1 + rng.below(200), 1 + rng.below(50));
    s
}

#[test]
fn random_scenarios_run_and_conserve_packets() {
    let mut rng = Rng::from_seed(2026);
    let (mut events, mut delivered, mut drops) = (0u64, 0u64, 0u64);
    for i in 0..300 {
        let text = scenario(&mut rng);
        let sc = parse_scenario("random.toml", &text, "random")
            .unwrap_or_else(|e| panic!("scenario {i} did not parse: {e}\n{text}"));
        let res = run(&sc, &RunOptions::default(), &mut |_| {});
        let res = res.unwrap_or_else(|e| panic!("scenario {i}: {e}\n{text}"));
        events += res.summary.events;
        drops += res.summary.links.iter().map(|l| l.drops_pkts).sum::<u64>();
        for f in &res.summary.flows {
            delivered += f.recv_pkts;
            assert!(f.recv_distinct_pkts <= f.recv_pkts && f.recv_pkts <= f.sent_pkts, "scenario {i}: {f:?}\n{text}");
        }
    }
    // The generator must exercise the machinery, not produce idle networks.
    eprintln!("{events} events, {delivered} packets delivered, {drops} dropped");
    assert!(events > 1_000_000 && delivered > 100_000 && drops > 1_000, "{events} {delivered} {drops}");
}
