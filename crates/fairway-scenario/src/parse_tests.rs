//! Scenario checks: each bad input is an error naming the file, line and field; no input panics.

use crate::parse::parse_scenario;
use crate::ScenarioError;
use fairway_core::{Bytes, Dur, Rate};
use fairway_model::scenario::*;
use fairway_proto::iftp::Reading;

const GOOD: &str = r#"
duration = "10s"
seed = 3

[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"

[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "10ms"
queue = { kind = "red", limit = 20, thresh = 5, maxthresh = 10, q_weight = 0.002 }

[[link]]
between = ["b", "r2"]
rate = "10Mb"
delay = "1ms"

[[flow]]
name = "ftp"
app = "ftp"
from = "a"
to = "b"
window = 15

[[flow]]
name = "cbr"
app = "cbr"
from = "a"
to = "b"
start = "1s"
packet_size = "500B"
interval = "5ms"
"#;

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_scenario("test.toml", text, "test")
}

/// Replaces the first occurrence of `from` in GOOD (which must exist) and parses.
fn with(from: &str, to: &str) -> Result<Scenario, ScenarioError> {
    assert!(GOOD.contains(from), "test bug: {from:?} not in GOOD");
    parse(&GOOD.replacen(from, to, 1))
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("needle") + 1
}

#[test]
fn the_good_scenario_parses_into_what_it_says() {
    let sc = parse(GOOD).unwrap();
    assert_eq!(sc.name, "test");
    assert_eq!(sc.seed, 3);
    assert_eq!(sc.duration, Dur::from_secs(10));
    assert_eq!(sc.nodes, vec!["a", "r1", "r2", "b"]);
    assert_eq!(sc.links.len(), 6);
    let bottleneck = &sc.links[2];
    assert_eq!(sc.link_name(2), "r1->r2");
    assert_eq!(bottleneck.rate, Rate(2_000_000));
    match &bottleneck.queue {
        QueueSpec::Red(p) => {
            assert_eq!(p.limit, 20);
            assert_eq!(p.thresh, 5.0);
            assert_eq!(p.maxthresh, 10.0);
            assert_eq!(p.q_weight, 0.002);
            assert!(p.bytes && p.queue_in_bytes && p.gentle, "unset RED knobs keep ns-2's defaults");
        }
        q => panic!("expected RED, got {q:?}"),
    }
    let ftp = &sc.flows[0];
    match &ftp.app {
        AppSpec::Ftp { tcp } => {
            assert_eq!(tcp.sender.window, 15);
            assert_eq!(tcp.sender.variant, TcpVariant::NewReno);
            assert_eq!(tcp.sender.packet_size, Bytes(1000));
        }
        a => panic!("{a:?}"),
    }
    match sc.flows[1].app.config::<CbrConfig>() {
        Some(c) => {
            assert_eq!(c.packet_size, Bytes(500));
            assert_eq!(c.interval, Dur::from_millis(5));
        }
        None => panic!("not cbr"),
    }
    // Default monitoring: the core link r1-r2, both directions.
    let names: Vec<String> = sc.monitor.links.iter().map(|l| sc.link_name(*l)).collect();
    assert_eq!(names, vec!["r1->r2", "r2->r1"]);
}

#[test]
fn unknown_key_names_file_line_and_field_and_suggests() {
    let text = GOOD.replacen("window = 15", "windw = 15", 1);
    let e = parse(&text).unwrap_err();
    assert_eq!(e.file, "test.toml");
    assert_eq!(e.line, line_of(&text, "windw"));
    assert_eq!(e.field, "flow[0].windw");
    assert!(e.message.contains("unknown key") && e.message.contains("`window`"), "{e}");
    assert!(e.to_string().starts_with(&format!("test.toml:{}:", e.line)));
}

#[test]
fn unknown_red_key_is_reported_inside_the_inline_table() {
    let e = with("q_weight = 0.002", "qweight = 0.002").unwrap_err();
    assert_eq!(e.field, "link[1].queue.qweight");
    assert!(e.message.contains("did you mean `q_weight`"), "{e}");
}

#[test]
fn a_key_that_does_not_apply_to_the_app_is_an_error() {
    let e = with("window = 15", "interval = \"5ms\"").unwrap_err();
    assert_eq!(e.field, "flow[0].interval");
}

#[test]
fn bad_unit() {
    let text = GOOD.replacen("rate = \"2Mb\"", "rate = \"2 parsecs\"", 1);
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field, "link[1].rate");
    assert_eq!(e.line, line_of(&text, "parsecs"));
    assert!(e.message.contains("parsecs"), "{e}");
}

#[test]
fn negative_and_zero_rates() {
    let e = with("rate = \"2Mb\"", "rate = \"-2Mb\"").unwrap_err();
    assert!(e.message.contains("negative"), "{e}");
    let e = with("rate = \"2Mb\"", "rate = \"0Mb\"").unwrap_err();
    assert!(e.message.contains("greater than zero"), "{e}");
    let e = with("rate = \"2Mb\"", "rate = -5").unwrap_err();
    assert_eq!(e.field, "link[1].rate");
    let e = with("interval = \"5ms\"", "interval = \"0s\"").unwrap_err();
    assert_eq!(e.field, "flow[1].interval");
}

#[test]
fn min_th_above_max_th() {
    let text = GOOD.replacen("thresh = 5, maxthresh = 10", "thresh = 12, maxthresh = 10", 1);
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field, "link[1].queue.thresh");
    assert_eq!(e.line, line_of(&text, "thresh = 12"));
    assert!(e.message.contains("maxthresh"), "{e}");
}

#[test]
fn flow_without_a_route() {
    // A link island: x-y is not connected to the rest.
    let text = format!(
        "{GOOD}\n[[link]]\nbetween = [\"x\", \"y\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n\n[[flow]]\nname = \"lost\"\napp = \"ftp\"\nfrom = \"a\"\nto = \"x\"\n"
    );
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field, "flow[2]");
    assert!(e.message.contains("no route"), "{e}");
    assert_eq!(e.line, line_of(&text, "name = \"lost\"") - 1);
}

#[test]
fn one_way_link_has_no_route_back_for_acks() {
    let text = r#"
duration = "1s"
[[link]]
from = "a"
to = "b"
rate = "1Mb"
delay = "1ms"
[[flow]]
name = "udp-ok"
app = "cbr"
from = "a"
to = "b"
[[flow]]
name = "tcp-bad"
app = "ftp"
from = "a"
to = "b"
"#;
    let e = parse(text).unwrap_err();
    assert_eq!(e.field, "flow[1]");
    assert!(e.message.contains("no route back"), "{e}");
}

#[test]
fn unknown_node_app_and_transport() {
    let e = with("to = \"b\"", "to = \"nowhere\"").unwrap_err();
    assert!(e.message.contains("`nowhere` is neither on a link nor a [[node]]"), "{e}");
    let e = with("app = \"ftp\"", "app = \"bittorrent\"").unwrap_err();
    assert_eq!(e.field, "flow[0].app");
    let e = with("app = \"cbr\"", "app = \"cbr\"\ntransport = \"newreno\"").unwrap_err();
    assert_eq!(e.field, "flow[1].transport");
    let e = with("app = \"ftp\"", "app = \"ftp\"\ntransport = \"udp\"").unwrap_err();
    assert_eq!(e.field, "flow[0].transport");
}

#[test]
fn missing_duration_and_bad_toml() {
    let e = with("duration = \"10s\"", "").unwrap_err();
    assert_eq!(e.field, "duration");
    let e = parse("duration = \"10s\"\n[[link]\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("not valid TOML"), "{e}");
}

#[test]
fn times_must_make_sense() {
    let e = with("start = \"1s\"", "start = \"11s\"").unwrap_err();
    assert_eq!(e.field, "flow[1].start");
    let e = with("start = \"1s\"", "start = \"2s\"\nstop = \"1s\"").unwrap_err();
    assert_eq!(e.field, "flow[1].stop");
}

#[test]
fn duplicate_names_and_links() {
    let e = with("name = \"cbr\"", "name = \"ftp\"").unwrap_err();
    assert!(e.message.contains("already used"), "{e}");
    let text = format!("{GOOD}\n[[link]]\nbetween = [\"r2\", \"r1\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n");
    let e = parse(&text).unwrap_err();
    assert!(e.message.contains("already declared"), "{e}");
}

#[test]
fn count_expands_links_and_flows_with_the_index() {
    let text = r#"
duration = "1s"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "1ms"
[[link]]
count = 3
between = ["s{i}", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
count = 3
between = ["d{i}", "r2"]
rate = "100Mb"
delay = "1ms"
[[flow]]
count = 3
name = "tcp"
app = "ftp"
from = "s{i}"
to = "d{i}"
"#;
    let sc = parse(text).unwrap();
    assert_eq!(sc.links.len(), 14);
    let names: Vec<&str> = sc.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["tcp0", "tcp1", "tcp2"]);
    assert!(sc.flows.iter().all(|f| f.group == "tcp"));
    assert_eq!(sc.node_name(sc.flows[2].from), "s2");
    assert_eq!(sc.node_name(sc.flows[2].to), "d2");
    let e = parse(&text.replacen("count = 3\nname", "count = 0\nname", 1)).unwrap_err();
    assert_eq!(e.field, "flow[0].count");
}

/// A `count` group whose `{i}` is only in names is read once and copied (parse.rs,
/// `repeats_only`); the copies must be exactly the entries written out one by one.
#[test]
fn count_groups_read_like_their_entries_written_out() {
    const CORE: &str = r#"
duration = "2s"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "1ms"
queue = { kind = "red", limit = 30, thresh = 5, maxthresh = 15 }
"#;
    let link = |i: &str| {
        format!(
            "[[link]]\nbetween = [\"s{i}\", \"r1\"]\nrate = \"100Mb\"\ndelay = \"2ms\"\nloss = 0.01\n\
             queue = {{ kind = \"droptail\", limit = 7 }}\n"
        )
    };
    // Simplex, a group each way.
    let sink = |i: &str| format!("[[link]]\nfrom = \"r2\"\nto = \"d{i}\"\nrate = \"100Mb\"\ndelay = \"3ms\"\n");
    let back = |i: &str| format!("[[link]]\nfrom = \"d{i}\"\nto = \"r2\"\nrate = \"1Mb\"\ndelay = \"3ms\"\n");
    let tcp = |i: &str| {
        format!(
            "[[flow]]\nname = \"tcp{i}\"\napp = \"ftp\"\ntransport = \"reno\"\nfrom = \"s{i}\"\nto = \"d{i}\"\n\
             start = \"0.5s\"\nstop = \"1.5s\"\nwindow = 33\npacket_size = \"700B\"\n"
        )
    };
    // In the group, the name has no `{i}`: the index is appended.
    let cbr = |i: &str, name: &str| {
        format!("[[flow]]\nname = \"{name}\"\napp = \"cbr\"\nfrom = \"d{i}\"\nto = \"s{i}\"\nrate = \"300kb\"\njitter = true\n")
    };
    let counted = |entry: String| {
        entry.replace("[[link]]\n", "[[link]]\ncount = 3\n").replace("[[flow]]\n", "[[flow]]\ncount = 3\n")
    };
    let grouped = format!(
        "{CORE}{}{}{}{}{}",
        counted(link("{i}")),
        counted(sink("{i}")),
        counted(back("{i}")),
        counted(tcp("{i}")),
        counted(cbr("{i}", "cbr"))
    );
    let mut written = CORE.to_string();
    for i in ["0", "1", "2"] {
        written += &link(i);
    }
    for i in ["0", "1", "2"] {
        written += &sink(i);
    }
    for i in ["0", "1", "2"] {
        written += &back(i);
    }
    for i in ["0", "1", "2"] {
        written += &tcp(i);
    }
    for i in ["0", "1", "2"] {
        written += &cbr(i, &format!("cbr{i}"));
    }
    let a = parse(&grouped).unwrap();
    let b = parse(&written).unwrap();
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.links.len(), 2 + 3 * 2 + 3 * 2);
    assert_eq!(format!("{:?}", a.links), format!("{:?}", b.links));
    // A group of three and three groups of one differ in `group` only.
    let ungrouped = |sc: &Scenario| -> Vec<String> {
        sc.flows.iter().map(|f| format!("{:?}", FlowSpec { group: String::new(), ..f.clone() })).collect()
    };
    assert_eq!(a.flows.len(), 6);
    assert_eq!(ungrouped(&a), ungrouped(&b));
    // With `{i}` in a value that is not a name, the group is read entry by entry and each entry
    // gets its own value.
    let per_entry = parse(&grouped.replace("start = \"0.5s\"", "start = \"0.{i}s\"")).unwrap();
    let starts: Vec<f64> = per_entry.flows[..3].iter().map(|f| f.start.as_secs_f64()).collect();
    assert_eq!(starts, vec![0.0, 0.1, 0.2]);
}

/// The checks that a later entry of a `count` group can fail and its first entry pass are
/// made for every entry, and their errors name that entry.
#[test]
fn count_group_errors_name_the_entry() {
    const LINKS: &str = r#"
duration = "1s"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["s2", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
count = 3
between = ["s{i}", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
count = 3
between = ["d{i}", "r2"]
rate = "100Mb"
delay = "1ms"
"#;
    let e = parse(LINKS).unwrap_err();
    assert!(e.message.contains("from `s2` to `r1` is already declared at link[1]"), "{e}");
    assert_eq!(e.field, "link[2](i=2)");
    let links = LINKS.replace("between = [\"s2\", \"r1\"]", "between = [\"x\", \"r1\"]");
    let flows = |count: u32, name: &str, to: &str| {
        format!(
            "{links}[[flow]]\nname = \"tcp1\"\napp = \"cbr\"\nfrom = \"x\"\nto = \"d0\"\nrate = \"1Mb\"\n\
             [[flow]]\ncount = {count}\nname = \"{name}\"\napp = \"ftp\"\nfrom = \"s{{i}}\"\nto = \"{to}\"\n"
        )
    };
    parse(&flows(3, "tcp{i}-", "d{i}")).unwrap();
    let e = parse(&flows(4, "tcp{i}-", "d{i}")).unwrap_err();
    assert_eq!(e.field, "flow[1](i=3).from");
    assert!(e.message.contains("node `s3` is neither on a link nor a [[node]]"), "{e}");
    let e = parse(&flows(3, "tcp{i}-", "s1")).unwrap_err();
    assert_eq!(e.field, "flow[1](i=1)");
    assert!(e.message.contains("from a node to itself"), "{e}");
    // A name without `{i}` gets the index appended: the second entry is `tcp1`, taken.
    let e = parse(&flows(3, "tcp", "d{i}")).unwrap_err();
    assert_eq!(e.field, "flow[1](i=1)");
    assert!(e.message.contains("flow name `tcp1` is already used by flow[0]"), "{e}");
}

#[test]
fn cbr_rate_gives_the_interval_like_ns2() {
    let sc = with("interval = \"5ms\"", "rate = \"800kb\"").unwrap();
    match sc.flows[1].app.config::<CbrConfig>() {
        Some(c) => assert_eq!(c.interval, Dur::from_millis(5)),
        None => panic!("not cbr"),
    }
    let e = with("interval = \"5ms\"", "interval = \"5ms\"\nrate = \"1Mb\"").unwrap_err();
    assert!(e.message.contains("not both"), "{e}");
}

#[test]
fn monitor_links_must_exist() {
    let e = parse(&format!("{GOOD}\n[monitor]\nlinks = [\"r1->b\"]\n")).unwrap_err();
    assert_eq!(e.field, "monitor.links");
    let sc = parse(&format!("{GOOD}\n[monitor]\nlinks = [\"r2->r1\"]\nbin = \"1s\"\n")).unwrap();
    assert_eq!(sc.monitor.links.len(), 1);
    assert_eq!(sc.monitor.bin, Dur::from_secs(1));
}

#[test]
fn web_shape_must_give_a_mean() {
    let text =
        GOOD.replacen("app = \"ftp\"", "app = \"web\"\ninterarrival = \"45ms\"\nmean_size = \"10KB\"\nshape = 0.9", 1);
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field, "flow[0].shape");
}

/// No input makes the parser panic: mangle the good scenario in many deterministic ways
/// (truncate, delete a byte, duplicate a line, swap a value's type) and parse each.
#[test]
fn no_mangled_input_panics() {
    let mut rng = fairway_core::Rng::from_seed(11);
    let bytes = GOOD.as_bytes();
    let mut tried = 0;
    for _ in 0..3000 {
        let mut v = bytes.to_vec();
        match rng.below(5) {
            0 => v.truncate(rng.below(v.len() as u64) as usize),
            1 => {
                let i = rng.below(v.len() as u64) as usize;
                v.remove(i);
            }
            2 => {
                let i = rng.below(v.len() as u64) as usize;
                let c = b"\"=[]{}.,-0123456789ax\n#"[rng.below(23) as usize];
                v.insert(i, c);
            }
            3 => {
                let lines: Vec<&str> = GOOD.lines().collect();
                let i = rng.below(lines.len() as u64) as usize;
                let mut l = lines.clone();
                l.insert(i, lines[i]);
                v = l.join("\n").into_bytes();
            }
            _ => {
                let i = rng.below(v.len() as u64) as usize;
                v[i] = b"0\"ts-"[rng.below(5) as usize];
            }
        }
        if let Ok(text) = String::from_utf8(v) {
            let _ = parse(&text);
            tried += 1;
        }
    }
    assert!(tried > 2500);
    // Extreme numbers are errors, not panics.
    for bad in ["rate = 1e300", "rate = \"1e300Mb\"", "delay = 1e300", "rate = -0.0"] {
        let _ = with("rate = \"2Mb\"", bad);
    }
    let _ = with("window = 15", "window = 99999999999999");
    let _ = with("window = 15", "window = -1");
}

#[test]
fn sizes_that_would_exhaust_memory_are_refused() {
    let e = with("packet_size = \"500B\"", "packet_size = \"2GB\"").unwrap_err();
    assert_eq!(e.field, "flow[1].packet_size");
    let e = parse(&format!("{GOOD}\n[monitor]\nbin = \"1ns\"\n")).unwrap_err();
    assert_eq!(e.field, "monitor.bin");
}

#[test]
fn unknown_top_level_key_and_section() {
    let e = with("seed = 3", "seed = 3\ndurration = \"5s\"").unwrap_err();
    assert_eq!(e.field, "durration");
    assert!(e.message.contains("did you mean `duration`"), "{e}");
    let e = parse(&format!("{GOOD}\n[monitr]\nbin = \"1s\"\n")).unwrap_err();
    assert_eq!(e.field, "monitr");
    let e = parse(&format!("{GOOD}\n[monitor]\nbins = \"1s\"\n")).unwrap_err();
    assert_eq!(e.field, "monitor.bins");
}

#[test]
fn mapp_flows_parse_with_presets_lists_and_pacing() {
    let sc = with("app = \"cbr\"", "app = \"mapp\"\nscales = \"chung\"").unwrap_err();
    // packet_size 500B and interval 5ms remain in the flow: `interval` needs constant_rate.
    assert_eq!(sc.field, "flow[1].interval");
    let text = GOOD.replacen("app = \"cbr\"", "app = \"mapp\"\nscales = \"chung\"\npacing = \"constant_rate\"", 1);
    let sc = parse(&text).unwrap();
    match sc.flows[1].app.config::<MappConfig>() {
        Some(c) => {
            assert_eq!(c.table.rates().len(), 5);
            assert_eq!(c.table.rate(4), Rate(1_100_000));
            assert!(
                matches!(c.pacing, Pacing::ConstantRate { interval, max_datagram } if interval == Dur::from_millis(5) && max_datagram == Bytes(500))
            );
        }
        None => panic!("not mapp"),
    }
    assert_eq!(sc.flows[1].transport(), "udpm");
    assert_eq!(sc.flows[1].class(), "udp");
    let text = GOOD.replacen(
        "app = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nstart = \"1s\"\npacket_size = \"500B\"\ninterval = \"5ms\"",
        "app = \"mapp\"\nfrom = \"a\"\nto = \"b\"\nscales = [\"100kb\", \"50kb\"]",
        1,
    );
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field, "flow[1].scales");
    let e = parse(&text.replace("[\"100kb\", \"50kb\"]", "\"nine\"")).unwrap_err();
    assert!(e.message.contains("unknown scale table"), "{e}");
    let e = parse(&text.replace("scales = [\"100kb\", \"50kb\"]", "transport = \"udp\"")).unwrap_err();
    assert_eq!(e.field, "flow[1].transport");
}

#[test]
fn link_loss_must_be_a_probability() {
    let e = with("delay = \"10ms\"", "delay = \"10ms\"\nloss = 1.5").unwrap_err();
    assert_eq!(e.field, "link[1].loss");
    let sc = with("delay = \"10ms\"", "delay = \"10ms\"\nloss = 0.01").unwrap();
    assert_eq!(sc.links[2].loss, LossModel::Bernoulli(0.01));
    assert_eq!(sc.links[3].loss, LossModel::Bernoulli(0.01), "a duplex link's loss applies to both directions");
    assert_eq!(sc.links[0].loss, LossModel::NONE);
    let sc = with("delay = \"10ms\"", "delay = \"10ms\"\nloss = { model = \"bernoulli\", p = 0.02 }").unwrap();
    assert_eq!(sc.links[2].loss, LossModel::Bernoulli(0.02), "the table form names the same model");
}

/// `loss = { model = "gilbert-elliott", ... }`: Gilbert's k = 1, h = 0 unless given, or the
/// chain from its mean loss and burst; the link's `loss` in both directions.
#[test]
fn a_gilbert_elliott_loss_reads_its_chain() {
    use fairway_model::loss_model::GilbertElliott;
    let ge = |table: &str| with("delay = \"10ms\"", &format!("delay = \"10ms\"\nloss = {table}"));
    let sc = ge(r#"{ model = "gilbert-elliott", p = 0.01, r = 0.3 }"#).unwrap();
    let g = GilbertElliott { p: 0.01, r: 0.3, k: 1.0, h: 0.0 };
    assert_eq!(sc.links[2].loss, LossModel::GilbertElliott(g));
    assert_eq!(sc.links[3].loss, LossModel::GilbertElliott(g));
    let sc = ge(r#"{ model = "gilbert-elliott", p = 0.01, r = 0.3, k = 0.999, h = 0.25 }"#).unwrap();
    assert_eq!(sc.links[2].loss, LossModel::GilbertElliott(GilbertElliott { k: 0.999, h: 0.25, ..g }));
    let sc = ge(r#"{ model = "gilbert-elliott", mean_loss = 0.02, mean_burst = 4 }"#).unwrap();
    let LossModel::GilbertElliott(g) = sc.links[2].loss else { panic!("{:?}", sc.links[2].loss) };
    assert_eq!(g.r, 0.25);
    assert!((g.mean_loss() - 0.02).abs() < 1e-12, "{g:?}");
}

#[test]
fn a_bad_loss_table_is_located_and_says_what_is_accepted() {
    let ge = |table: &str| with("delay = \"10ms\"", &format!("delay = \"10ms\"\nloss = {table}")).unwrap_err();
    let line = line_of(GOOD, "delay = \"10ms\"") + 1;
    let e = ge(r#"{ model = "gilbert", p = 0.01, r = 0.3 }"#);
    assert_eq!((e.field.as_str(), e.line), ("link[1].loss.model", line));
    assert!(e.message.contains("unknown loss model `gilbert`; accepted: bernoulli, gilbert-elliott"), "{e}");
    let e = ge(r#"{ model = "gilbert-elliott", p = 1.01, r = 0.3 }"#);
    assert_eq!(e.field, "link[1].loss.p");
    assert!(e.message.contains("1.01 is not a probability"), "{e}");
    let e = ge(r#"{ model = "gilbert-elliott", p = 0.01, r = 0.3, h = -0.5 }"#);
    assert_eq!(e.field, "link[1].loss.h");
    let e = ge(r#"{ model = "bernoulli", p = 2 }"#);
    assert_eq!(e.field, "link[1].loss.p");
    let e = ge(r#"{ model = "gilbert-elliott", p = 0.01 }"#);
    assert_eq!((e.field.as_str(), e.message.as_str()), ("link[1].loss.r", "missing required key"));
    let e = ge(r#"{ model = "gilbert-elliott", p = 0.01, r = 0.3, burst = 3 }"#);
    assert_eq!(e.field, "link[1].loss.burst");
    assert!(e.message.contains("accepted here: model, p, r, k, h, mean_loss, mean_burst"), "{e}");
    let e = ge(r#"{ model = "bernoulli", p = 0.01, r = 0.3 }"#);
    assert!(e.message.contains("unknown key `r`") && e.message.contains("accepted here: model, p"), "{e}");
    let e = ge(r#"{ model = "gilbert-elliott", p = 0.01, mean_loss = 0.02, mean_burst = 4 }"#);
    assert_eq!(e.field, "link[1].loss.p");
    assert!(e.message.contains("not both"), "{e}");
    let e = ge(r#"{ model = "gilbert-elliott", mean_loss = 0.02, mean_burst = 0.5 }"#);
    assert_eq!(e.field, "link[1].loss");
    assert!(e.message.contains("at least 1"), "{e}");
    let e = ge(r#"{ p = 0.01 }"#);
    assert_eq!((e.field.as_str(), e.message.as_str()), ("link[1].loss.model", "missing required key"));
    let e = ge(r#""0.01""#);
    assert_eq!(e.field, "link[1].loss");
}

#[test]
fn a_device_queue_is_a_packet_count_in_both_directions_and_bad_ones_are_located() {
    let sc = with("delay = \"10ms\"", "delay = \"10ms\"\ndevice_queue = 1").unwrap();
    assert_eq!(sc.links[2].device_queue, 1);
    assert_eq!(sc.links[3].device_queue, 1, "a duplex link's device queue is in both directions");
    assert_eq!(sc.links[0].device_queue, 0, "none by default");
    assert_eq!(with("delay = \"10ms\"", "delay = \"10ms\"\ndevice_queue = 0").unwrap().links[2].device_queue, 0);
    for (bad, says) in [
        ("-1", "out of range"),
        ("1.5", "integer"),
        ("\"1p\"", "integer"),
        ("1000001", "out of range"),
        ("true", "integer"),
    ] {
        let text = GOOD.replacen("delay = \"10ms\"", &format!("delay = \"10ms\"\ndevice_queue = {bad}"), 1);
        let e = parse(&text).unwrap_err();
        assert_eq!(e.field, "link[1].device_queue", "{bad}: {e}");
        assert_eq!(e.line, line_of(&text, "device_queue"), "{bad}: {e}");
        assert!(e.message.contains(says), "{bad}: {e}");
    }
}

#[test]
fn iftp_flows_take_the_papers_parameters_and_their_access_rate() {
    let text = GOOD.replacen(
        "app = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nstart = \"1s\"\npacket_size = \"500B\"\ninterval = \"5ms\"",
        "app = \"iftp\"\nfrom = \"a\"\nto = \"b\"\nscale = 1.5\npackets = 300",
        1,
    );
    let sc = parse(&text).unwrap();
    match sc.flows[1].app.config::<IftpConfig>() {
        Some(c) => {
            assert_eq!((c.ssthresh, c.w_max, c.after_missing_thresh), (32, 50, 3));
            assert_eq!(c.scale, 1.5);
            assert_eq!(c.packets, Some(300));
            // tau comes from the first link of the route, a -> r1 at 10 Mb/s.
            assert_eq!(c.link_rate, Rate(10_000_000));
        }
        None => panic!("not iftp"),
    }
    assert_eq!(sc.flows[1].transport(), "iftp");
    let e = parse(&text.replace("scale = 1.5", "scale = -1.0")).unwrap_err();
    assert_eq!(e.field, "flow[1].scale");
    let e = parse(&text.replace("scale = 1.5", "w_max = 0")).unwrap_err();
    assert_eq!(e.field, "flow[1].w_max");
    let sc = parse(&text.replace("scale = 1.5", "access_rate = \"1Mb\"")).unwrap();
    assert!(matches!(sc.flows[1].app.config::<IftpConfig>(), Some(c) if c.link_rate == Rate(1_000_000)));
    // `tau = "bottleneck"`: the slowest link of the route, r1 -> r2 at 2 Mb/s.
    let sc = parse(&text.replace("scale = 1.5", "tau = \"bottleneck\"")).unwrap();
    assert!(matches!(sc.flows[1].app.config::<IftpConfig>(), Some(c) if c.link_rate == Rate(2_000_000)));
    let sc = parse(&text.replace("scale = 1.5", "tau = \"access\"")).unwrap();
    assert!(matches!(sc.flows[1].app.config::<IftpConfig>(), Some(c) if c.link_rate == Rate(10_000_000)));
    let e = parse(&text.replace("scale = 1.5", "tau = \"8ms\"")).unwrap_err();
    assert_eq!(e.field, "flow[1].tau");
    let e = parse(&text.replace("scale = 1.5", "tau = \"access\"\naccess_rate = \"1Mb\"")).unwrap_err();
    assert_eq!(e.field, "flow[1].tau");
    // The backoff rule and the timer's minimum.
    match sc.flows[1].app.config::<IftpConfig>() {
        Some(c) => assert_eq!((c.backoff_reset, c.min_rto), (BackoffReset::AfterProbe, Dur::ZERO)),
        None => panic!("not iftp"),
    }
    let sc = parse(&text.replace("scale = 1.5", "backoff_reset = \"never\"\nmin_rto = \"200ms\"")).unwrap();
    match sc.flows[1].app.config::<IftpConfig>() {
        Some(c) => {
            assert_eq!((c.backoff_reset, c.min_rto), (BackoffReset::Never, Dur::from_millis(200)))
        }
        None => panic!("not iftp"),
    }
    let e = parse(&text.replace("scale = 1.5", "backoff_reset = \"sometimes\"")).unwrap_err();
    assert_eq!(e.field, "flow[1].backoff_reset");
    // Which description of the sender: the prose by default, Fig. 1 on request.
    assert!(matches!(sc.flows[1].app.config::<IftpConfig>(), Some(c) if c.reading == Reading::Prose));
    let sc = parse(&text.replace("scale = 1.5", "reading = \"figure1\"")).unwrap();
    assert!(matches!(sc.flows[1].app.config::<IftpConfig>(), Some(c) if c.reading == Reading::Figure1));
    let e = parse(&text.replace("scale = 1.5", "reading = \"fig1\"")).unwrap_err();
    assert_eq!(e.field, "flow[1].reading");
    assert!(e.message.contains("prose or figure1"), "{}", e.message);
}

#[test]
fn phase_effect_remedies_parse_per_flow_and_reject_bad_values() {
    let sc = with("window = 15", "window = 15\noverhead = \"8ms\"\nsend_jitter = \"2ms\"").unwrap();
    let ftp = &sc.flows[0];
    assert_eq!(ftp.send_jitter, Dur::from_millis(2));
    assert_eq!(ftp.tcp().unwrap().sender.overhead, Dur::from_millis(8));
    assert_eq!(sc.flows[1].send_jitter, Dur::ZERO, "off unless asked");
    let sc = with("interval = \"5ms\"", "interval = \"5ms\"\nsend_jitter = \"1ms\"").unwrap();
    assert_eq!(sc.flows[1].send_jitter, Dur::from_millis(1), "any flow may have it");
    let e = with("window = 15", "window = 15\nsend_jitter = \"-1ms\"").unwrap_err();
    assert_eq!(e.field, "flow[0].send_jitter");
    let e = with("window = 15", "window = 15\noverhead = \"soon\"").unwrap_err();
    assert_eq!(e.field, "flow[0].overhead");
    // `overhead` is TCP's (ns-2 `overhead_`); a CBR has `jitter` and `send_jitter`.
    let e = with("interval = \"5ms\"", "interval = \"5ms\"\noverhead = \"1ms\"").unwrap_err();
    assert_eq!(e.field, "flow[1].overhead");
}

#[test]
fn apps_and_transports_that_do_not_go_together_are_named() {
    // A datagram app on another datagram transport: the transports that carry it.
    let e = with("app = \"cbr\"", "app = \"cbr\"\ntransport = \"iftp\"").unwrap_err();
    assert_eq!(e.field, "flow[1].transport");
    assert!(e.message.contains("transport `iftp` cannot carry app `cbr`: expected udp"), "{e}");
    // A TCP app on a datagram transport that does not carry it: the TCP variants.
    let e = with("app = \"ftp\"", "app = \"ftp\"\ntransport = \"udpm\"").unwrap_err();
    assert!(e.message.contains("cannot carry app `ftp`: expected newreno, reno, tahoe, sack"), "{e}");
    // A TCP variant under a datagram app.
    let e = with("app = \"cbr\"", "app = \"cbr\"\ntransport = \"reno\"").unwrap_err();
    assert!(e.message.contains("transport `reno` cannot carry app `cbr`: expected udp"), "{e}");
    // Names nobody registered: every app is listed.
    let e = with("app = \"cbr\"", "app = \"video-ish\"").unwrap_err();
    assert_eq!(e.field, "flow[1].app");
    assert!(e.message.contains("expected ftp, transfer, web, cbr, voip, video, mapp, mm_app, mpeg_app, iftp"), "{e}");
    let e = with("app = \"cbr\"", "app = \"cbr\"\ntransport = \"carrier-pigeon\"").unwrap_err();
    assert!(e.message.contains("unknown transport `carrier-pigeon` for app `cbr`: expected udp, tfrc, tfrc-sp, ccid2, ccid3 (transports: newreno, reno, tahoe, sack, udp, udpm, iftp,"), "{e}");
    // A misspelt transport under a TCP app: those that carry it, then every transport.
    let e = with("app = \"cbr\"", "app = \"ftp\"\ntransport = \"cubic\"").unwrap_err();
    assert!(e.message.contains("unknown transport `cubic` for app `ftp`: expected newreno, reno, tahoe, sack, tfrc, tfrc-sp, ccid2, ccid3 (transports:"), "{e}");
    for t in ["tfrc", "ccid3", "udpm"] {
        assert!(e.message.contains(t), "{t}: {e}");
    }
    // The defaults: an app's own transport, named in the summary's terms.
    let sc = parse(GOOD).unwrap();
    assert_eq!((sc.flows[1].app.name(), sc.flows[1].transport()), ("cbr", "udp"));
    let sc = with("app = \"cbr\"", "app = \"cbr\"\ntransport = \"udp\"").unwrap();
    assert_eq!(sc.flows[1].transport(), "udp");
}

#[test]
fn a_protocols_keys_are_its_own() {
    // IFTP's keys on a CBR flow are unknown there, and the message lists CBR's.
    let e = with("interval = \"5ms\"", "interval = \"5ms\"\nw_max = 3").unwrap_err();
    assert_eq!(e.field, "flow[1].w_max");
    assert!(e.message.contains("frame_interval"), "{e}");
}

/// GOOD with its CBR flow replaced by one flow with `keys`.
fn datagram_flow(keys: &str) -> Result<Scenario, ScenarioError> {
    let head = &GOOD[..GOOD.find("[[flow]]\nname = \"cbr\"").expect("GOOD's CBR flow")];
    parse(&format!("{head}[[flow]]\nname = \"d\"\nfrom = \"a\"\nto = \"b\"\n{keys}\n"))
}

#[test]
fn voip_and_video_are_sources_for_any_datagram_transport() {
    // janani-tfrc's VoIP by default: 84 kb/s of 160-byte packets, 15.24 ms apart, over UDP.
    let sc = datagram_flow("app = \"voip\"").unwrap();
    let d = &sc.flows[1];
    let c = d.app.config::<CbrConfig>().unwrap();
    assert_eq!(c.packet_size, Bytes(160));
    assert!((c.interval.as_secs_f64() - 160.0 * 8.0 / 84_000.0).abs() < 1e-9);
    assert_eq!((d.app.name(), d.transport(), d.class()), ("voip", "udp", "udp"));
    // Over TFRC, in talk spurts; over TFRC-SP.
    let sc = datagram_flow("app = \"voip\"\ntransport = \"tfrc\"\ntalk_spurts = true\non_mean = \"800ms\"").unwrap();
    assert_eq!((sc.flows[1].transport(), sc.flows[1].class()), ("tfrc", "tfrc"));
    let sc = datagram_flow("app = \"voip\"\ntransport = \"tfrc-sp\"").unwrap();
    assert_eq!(sc.flows[1].transport(), "tfrc-sp");
    // Spurt keys need talk_spurts; frames are video's.
    let e = datagram_flow("app = \"voip\"\non_mean = \"800ms\"").unwrap_err();
    assert_eq!(e.field, "flow[1].on_mean");
    let e = datagram_flow("app = \"voip\"\nframe_rate = 25").unwrap_err();
    assert_eq!(e.field, "flow[1].frame_rate");
    let e = datagram_flow("app = \"cbr\"\ntalk_spurts = true").unwrap_err();
    assert_eq!(e.field, "flow[1].talk_spurts");
    // Video: a rate is required; frame_rate gives frames.
    let e = datagram_flow("app = \"video\"").unwrap_err();
    assert!(e.message.contains("needs its `rate`"), "{e}");
    let sc = datagram_flow("app = \"video\"\nrate = \"2.5Mb\"\nframe_rate = 25").unwrap();
    let c = sc.flows[1].app.config::<CbrConfig>().unwrap();
    assert_eq!((c.packet_size, c.frame_interval), (Bytes(1000), Some(Dur::from_millis(40))));
    assert!((c.interval.as_secs_f64() - 0.0032).abs() < 1e-12, "1000 B at 2.5 Mb/s");
    let e = datagram_flow("app = \"video\"\nrate = \"1Mb\"\nframe_rate = 25\nframe_interval = \"40ms\"").unwrap_err();
    assert!(e.message.contains("not both"), "{e}");
    // A greedy app over TFRC takes no pace.
    let e = datagram_flow("app = \"ftp\"\ntransport = \"tfrc\"\nrate = \"1Mb\"").unwrap_err();
    assert_eq!(e.field, "flow[1].rate");
    // UDP carries no greedy app.
    let e = datagram_flow("app = \"ftp\"\ntransport = \"udp\"").unwrap_err();
    assert!(e.message.contains("cannot carry app `ftp`"), "{e}");
}

fn warnings(text: &str) -> Vec<String> {
    crate::parse::parse_scenario_warn("test.toml", text, "test")
        .expect("valid")
        .1
        .iter()
        .map(|w| w.to_string())
        .collect()
}

const RED_GOOD: &str = r#"queue = { kind = "red", bytes = false, queue_in_bytes = false, limit = 20, thresh = 5, maxthresh = 10, q_weight = 0.002 }"#;
const RED_IN_GOOD: &str = r#"queue = { kind = "red", limit = 20, thresh = 5, maxthresh = 10, q_weight = 0.002 }"#;

#[test]
fn check_makes_the_checks_a_run_makes_that_need_the_link() {
    // ns-2's automatic thresh on a 1 Gb/s link is 625 packets: above maxthresh 2. The run
    // would refuse it; the check does, at the key.
    let text = GOOD.replacen(RED_IN_GOOD, r#"queue = { kind = "red", thresh = 0, maxthresh = 2 }"#, 1).replacen(
        "rate = \"2Mb\"",
        "rate = \"1Gb\"",
        1,
    );
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, line_of(&text, "maxthresh = 2"));
    assert_eq!(e.field, "link[1].queue.thresh", "{e}");
    assert!(e.message.contains("automatic thresh for this link is 625 packets, above maxthresh 2"), "{e}");
}

#[test]
fn numbers_are_held_to_the_range_their_strings_are() {
    for (from, to, needle) in [
        ("rate = \"2Mb\"", "rate = 1e300", "1e300 is too large"),
        ("delay = \"10ms\"", "delay = 1e300", "1e300 is too large"),
        ("delay = \"10ms\"", "delay = 1e12", "too large"),
        ("packet_size = \"500B\"", "packet_size = 1e300", "1e300 is too large"),
        ("packet_size = \"500B\"", "packet_size = 500.5", "not a whole number of bytes"),
        ("rate = \"2Mb\"", "rate = -3.0", "negative"),
    ] {
        let e = with(from, to).unwrap_err();
        assert!(e.message.contains(needle), "{to}: {e}");
        assert_eq!(e.line, line_of(&GOOD.replacen(from, to, 1), to), "{to}");
    }
    // In range, a bare number is the base unit, as its string would be.
    assert_eq!(with("rate = \"2Mb\"", "rate = 2e6").unwrap().links[2].rate, Rate(2_000_000));
    assert_eq!(with("delay = \"10ms\"", "delay = 0.01").unwrap().links[2].delay, Dur::from_millis(10));
}

#[test]
fn a_name_cannot_leave_the_results_folder() {
    for name in ["..", ".", "../x", "a/b"] {
        let e = parse(&format!("name = \"{name}\"\n{GOOD}")).unwrap_err();
        assert_eq!(e.field, "name", "{name}: {e}");
    }
}

#[test]
fn warnings_point_at_settings_that_defeat_what_they_set_up() {
    // The good scenario, with RED's mode said, warns of nothing.
    let good = GOOD.replacen(RED_IN_GOOD, RED_GOOD, 1);
    assert_eq!(warnings(&good), Vec::<String>::new());
    // RED's mode left to ns-2's byte-mode default.
    let w = warnings(GOOD);
    assert!(w.len() == 1 && w[0].contains("link[1].queue: RED counts in bytes"), "{w:?}");
    // maxthresh at the limit: the queue overflows before max_p.
    let w = warnings(&good.replacen("maxthresh = 10", "maxthresh = 20", 1));
    assert!(
        w.len() == 1 && w[0].contains("queue.maxthresh: maxthresh (20 packets) is at or above the limit (20"),
        "{w:?}"
    );
    // Both thresholds above it: RED never drops early.
    let w = warnings(&good.replacen("thresh = 5, maxthresh = 10", "thresh = 25, maxthresh = 30", 1));
    assert!(w.len() == 1 && w[0].contains("queue.thresh: thresh (25 packets) is at or above the limit"), "{w:?}");
    // A window far below the bottleneck's bandwidth-delay product: 2 Mb/s over the 30.05 ms
    // round trip (24 ms of propagation, 5.8 ms of serialising a 1040-byte packet out and 0.2 ms
    // a 40-byte ACK back) is 7.2 packets; a window of 2 fills 28% of it, 15 (the good one) all.
    let small = good.replacen("window = 15", "window = 2", 1);
    let w = warnings(&small);
    assert!(w.len() == 1 && w[0].contains(&format!("test.toml:{}:", line_of(&small, "window = 2"))), "{w:?}");
    assert!(w[0].contains("flow[0].window: the greedy TCP flows through r1->r2 have windows of 2 packets"), "{w:?}");
    assert!(
        w[0].contains("(7.2 packets: 2Mb/s over this flow's round trip of 30.0 ms): they can use at most 28%"),
        "{w:?}"
    );
    // Four such flows together fill it (8 packets): no warning.
    let three =
        small.replacen("window = 2", "window = 2\ncount = 4", 1).replacen("name = \"ftp\"", "name = \"ftp{i}\"", 1);
    assert_eq!(warnings(&three), Vec::<String>::new());
}

#[test]
fn a_star_of_idle_hosts_monitors_the_links_its_flows_cross_not_every_link() {
    // Issue 12: 40 000 hosts on one switch and one flow monitored all 80 000 links (80 011 files).
    let text = r#"duration = "10s"
[[link]]
between = ["h{i}", "hub"]
count = 4000
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "f"
app = "ftp"
from = "h0"
to = "h1"
"#;
    let sc = parse(text).unwrap();
    let names: Vec<String> = sc.monitor.links.iter().map(|&l| sc.link_name(l)).collect();
    assert_eq!(names, ["h0->hub", "hub->h0", "h1->hub", "hub->h1"]);
    // A dumbbell keeps its core link, both ways, as before.
    let names: Vec<String> =
        parse(GOOD).unwrap().monitor.links.iter().map(|&l| parse(GOOD).unwrap().link_name(l)).collect();
    assert_eq!(names, ["r1->r2", "r2->r1"]);
}

#[test]
fn long_runs_get_coarser_default_series_and_explicit_ones_are_kept() {
    let long = GOOD.replacen("duration = \"10s\"", "duration = \"1000000s\"", 1);
    let m = parse(&long).unwrap().monitor;
    // At most a million bins and samples by default, rounded up to 1-2-5.
    assert_eq!((m.bin, m.queue_interval), (Dur::from_secs(1), Dur::from_secs(1)));
    let m = parse(&GOOD.replacen("duration = \"10s\"", "duration = \"30000s\"", 1)).unwrap().monitor;
    assert_eq!((m.bin, m.queue_interval), (Dur::from_millis(100), Dur::from_millis(50)));
    // Up to 10 000 s, the defaults are the fine ones.
    let m = parse(GOOD).unwrap().monitor;
    assert_eq!((m.bin, m.queue_interval), (Dur::from_millis(100), Dur::from_millis(10)));
    let m = parse(&format!("{long}\n[monitor]\nqueue_interval = \"100ms\"\n")).unwrap().monitor;
    assert_eq!(m.queue_interval, Dur::from_millis(100));
}

/// Sources that would hang the simulator (issue 32): a CBR of no packets would wait for its
/// first for ever, and a gap that rounds to no nanosecond would send every packet at one
/// instant. Each is a located error.
#[test]
fn sources_that_would_never_advance_are_refused() {
    let cbr = "packet_size = \"500B\"\ninterval = \"5ms\"";
    for (to, field) in [
        ("packet_size = \"500B\"\ninterval = \"5ms\"\nmax_packets = 0", "flow[1].max_packets"),
        ("packet_size = \"1B\"\nrate = \"40Gb\"", "flow[1].rate"),
    ] {
        let e = with(cbr, to).unwrap_err();
        assert_eq!(e.field, field, "{e}");
    }
    let e = with(cbr, "packet_size = \"1B\"\nrate = \"40Gb\"").unwrap_err();
    assert!(e.message.contains("1 ns") && e.message.contains("at most 8Gb"), "{}", e.message);
    // The fastest that still advances: one packet a nanosecond.
    assert!(with(cbr, "packet_size = \"1B\"\nrate = \"8Gb\"").is_ok());
    let video = "app = \"video\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mb\"\nframe_rate = 1e12";
    let e = with(
        "app = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nstart = \"1s\"\npacket_size = \"500B\"\ninterval = \"5ms\"",
        video,
    )
    .unwrap_err();
    assert_eq!(e.field, "flow[1].frame_rate", "{e}");
    let voip = "app = \"voip\"\ntransport = \"tfrc\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1000Tb\"";
    let e = with(
        "app = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nstart = \"1s\"\npacket_size = \"500B\"\ninterval = \"5ms\"",
        voip,
    )
    .unwrap_err();
    assert_eq!(e.field, "flow[1].rate", "{e}");
}

/// A window of 2^32 - 1 packets aborted the run on allocation (issue 32): windows are bounded by
/// 2^20 packets, a located error beyond.
#[test]
fn windows_beyond_a_million_packets_are_refused() {
    for to in ["window = 4294967295", "window = 15\nwindow_init = 4294967295", "window = 15\nmax_cwnd = 1048577"] {
        let e = with("window = 15", to).unwrap_err();
        assert!(e.message.contains("1048576"), "{to}: {e}");
    }
    assert!(with("window = 15", "window = 1048576").is_ok());
    let ccid2 = "app = \"ftp\"\ntransport = \"ccid2\"\nfrom = \"a\"\nto = \"b\"\ninitial_cwnd = 4294967295";
    let e = with("app = \"ftp\"\nfrom = \"a\"\nto = \"b\"\nwindow = 15", ccid2).unwrap_err();
    assert_eq!(e.field, "flow[0].initial_cwnd", "{e}");
}

/// A CCID2 flow's `cc` names the window's congestion control: one that needs no delivery-rate
/// samples (docs/semantics.md, "DCCP with CCID2").
#[test]
fn a_ccid2_flow_names_its_windows_congestion_control() {
    let tcp = "app = \"ftp\"\nfrom = \"a\"\nto = \"b\"\nwindow = 15";
    let ccid2 = |cc: &str| format!("app = \"ftp\"\ntransport = \"ccid2\"\nfrom = \"a\"\nto = \"b\"\ncc = \"{cc}\"");
    for cc in ["tcplike", "cubic", "reno"] {
        assert!(with(tcp, &ccid2(cc)).is_ok(), "{cc}");
    }
    for cc in ["bbr", "newreno", "vegas"] {
        let e = with(tcp, &ccid2(cc)).unwrap_err();
        assert_eq!(e.field, "flow[0].cc", "{e}");
        assert!(e.message.contains("for ccid2: expected reno, cubic, tcplike"), "{e}");
    }
}

/// Sizes that would wrap a 32-bit packet field, and a monitored link listed twice (which
/// multiplied queue.csv), are located errors (issue 32).
#[test]
fn header_sizes_are_bounded_and_monitored_links_listed_once() {
    let tfrc = "app = \"ftp\"\ntransport = \"tfrc\"\nfrom = \"a\"\nto = \"b\"\nheader_size = \"4294967295B\"";
    let e = with("app = \"ftp\"\nfrom = \"a\"\nto = \"b\"\nwindow = 15", tfrc).unwrap_err();
    assert_eq!(e.field, "flow[0].header_size", "{e}");
    let ccid3 = "app = \"ftp\"\ntransport = \"ccid3\"\nfrom = \"a\"\nto = \"b\"\nip_header = \"4294967295B\"";
    let e = with("app = \"ftp\"\nfrom = \"a\"\nto = \"b\"\nwindow = 15", ccid3).unwrap_err();
    assert_eq!(e.field, "flow[0].ip_header", "{e}");
    let twice = format!("{GOOD}\n[monitor]\nlinks = [\"r1->r2\", \"r1->r2\"]\n");
    let e = parse(&twice).unwrap_err();
    assert!(e.field.ends_with("links") && e.message.contains("listed twice"), "{e}");
}

/// A flow that stops before `measure_from` gives a row of zeros: a warning at its `stop`.
#[test]
fn a_flow_that_stops_before_measuring_begins_is_warned_of() {
    let text = GOOD
        .replace("seed = 3", "seed = 3\nmeasure_from = \"5s\"")
        .replace("interval = \"5ms\"", "interval = \"5ms\"\nstop = \"4s\"");
    let w = warnings(&text);
    assert!(w.iter().any(|m| m.contains("flow[1].stop") && m.contains("`cbr` stops at 4s")), "{w:?}");
    assert!(warnings(&text.replace("stop = \"4s\"", "stop = \"6s\"")).iter().all(|m| !m.contains("measure_from")));
}

#[test]
fn a_value_without_its_unit_is_read_in_the_base_unit_with_a_warning() {
    let good = GOOD.replacen(RED_IN_GOOD, RED_GOOD, 1);
    // A string without a unit: seconds, bits per second, bytes, each named.
    let text = good.replacen("delay = \"10ms\"", "delay = \"10\"", 1);
    let sc = parse(&text).unwrap();
    assert_eq!(sc.links[2].delay, Dur::from_secs_f64(10.0));
    // (A delay of 10 s also trips the window's warning, which is not this test's.)
    let w: Vec<String> = warnings(&text).into_iter().filter(|w| w.contains("no unit")).collect();
    let line = line_of(&text, "delay = \"10\"");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with(&format!("test.toml:{line}:")), "{w:?}");
    assert!(w[0].contains("link[1].delay: \"10\" has no unit, so it is read as 10 seconds"), "{w:?}");
    let w = warnings(&good.replacen("rate = \"2Mb\"", "rate = 2000000", 1));
    assert!(
        w.len() == 1 && w[0].contains("link[1].rate: 2000000 has no unit, so it is read as 2000000 bits per second"),
        "{w:?}"
    );
    let w = warnings(&good.replacen("packet_size = \"500B\"", "packet_size = \"500\"", 1));
    assert!(w.len() == 1 && w[0].contains("\"500\" has no unit, so it is read as 500 bytes"), "{w:?}");
    // A size as a bare number is bytes without a word; zero is zero in any unit.
    assert_eq!(warnings(&good.replacen("packet_size = \"500B\"", "packet_size = 500", 1)), Vec::<String>::new());
    assert_eq!(warnings(&good.replacen("start = \"1s\"", "start = 0", 1)), Vec::<String>::new());
    // One warning per place, however many flows a `count` entry makes.
    let many = good.replacen("name = \"cbr\"", "name = \"cbr{i}\"\ncount = 50", 1).replacen(
        "interval = \"5ms\"",
        "interval = 0.005",
        1,
    );
    let w = warnings(&many);
    assert!(w.len() == 1 && w[0].contains("0.005 has no unit, so it is read as 0.005 seconds"), "{w:?}");
}

#[test]
fn tcp_flows_choose_their_recovery_and_congestion_control() {
    let tcp = |to: &str| -> TcpSpec {
        let sc = with("window = 15", &format!("window = 15\n{to}")).unwrap_or_else(|e| panic!("{to}: {e}"));
        match &sc.flows[0].app {
            AppSpec::Ftp { tcp } => tcp.clone(),
            a => panic!("{a:?}"),
        }
    };
    // `transport = "tcp"` is NewReno; ns-2's senders by `cc` or by their old transport names.
    let t = tcp("transport = \"tcp\"");
    assert_eq!((t.sender.variant, t.sender.cc), (TcpVariant::NewReno, "reno"));
    assert_eq!(tcp("cc = \"tahoe\"").sender.variant, TcpVariant::Tahoe);
    assert_eq!(tcp("transport = \"reno\"\ncc = \"reno\"").sender.variant, TcpVariant::Reno);
    // CUBIC over NewReno's recovery, or over SACK's.
    let t = tcp("cc = \"cubic\"");
    assert_eq!((t.sender.variant, t.sender.cc, t.sink.sack), (TcpVariant::NewReno, "cubic", false));
    let t = tcp("transport = \"tcp\"\ncc = \"cubic\"\nsack = true");
    assert_eq!((t.sender.variant, t.sender.cc, t.sink.sack), (TcpVariant::Sack, "cubic", true));
    // SACK's sender always has SACK's sink.
    let t = tcp("transport = \"sack\"");
    assert_eq!((t.sender.variant, t.sink.sack), (TcpVariant::Sack, true));
    // Wrong or contradictory choices are located errors that say what is accepted.
    let e = with("window = 15", "window = 15\ncc = \"vegas\"").unwrap_err();
    assert_eq!(e.field, "flow[0].cc");
    assert!(e.message.contains("unknown cc `vegas`: expected newreno, reno, tahoe, cubic"), "{e}");
    let e = with("window = 15", "window = 15\ntransport = \"reno\"\ncc = \"cubic\"").unwrap_err();
    assert!(e.message.contains("disagree"), "{e}");
    let e = with("window = 15", "window = 15\ncc = \"tahoe\"\nsack = true").unwrap_err();
    assert_eq!(e.field, "flow[0].sack");
}

#[test]
fn a_congestion_controls_flavour_is_one_it_has() {
    let sc = with("window = 15", "window = 15\ncc = \"cubic\"\nflavor = \"ns3\"").unwrap();
    match &sc.flows[0].app {
        AppSpec::Ftp { tcp } => assert_eq!((tcp.sender.cc, tcp.sender.cc_flavor), ("cubic", "ns3")),
        a => panic!("{a:?}"),
    }
    let e = with("window = 15", "window = 15\ncc = \"cubic\"\nflavor = \"bsd\"").unwrap_err();
    assert_eq!(e.field, "flow[0].flavor");
    assert!(e.message.contains("unknown flavor `bsd` of cc `cubic`: expected rfc9438, ns3, linux"), "{e}");
    let e = with("window = 15", "window = 15\nflavor = \"ns3\"").unwrap_err();
    assert!(e.message.contains("cc `newreno` has no flavours"), "{e}");
}

#[test]
fn tcp_option_sets_give_every_key_a_default_that_keys_override() {
    let tcp = |to: &str| -> TcpSpec {
        let sc = with("window = 15", to).unwrap_or_else(|e| panic!("{to}: {e}"));
        match &sc.flows[0].app {
            AppSpec::Ftp { tcp } => tcp.clone(),
            a => panic!("{a:?}"),
        }
    };
    use fairway_proto::tcp::{PrrBound, RtoStyle, SackRecovery};
    // ns2, the default: exactly what no `options` gives.
    assert_eq!(tcp("options = \"ns2\""), tcp("window = 20"));
    assert_eq!(tcp("options = \"ns2\"").sender.header_size, Bytes(40));
    // linux: SACK with RFC 6675 recovery and PRR, timestamps (12 more header bytes), IW10,
    // delayed ACKs, a 200 ms minimum RTO added to srtt, and Linux's CUBIC.
    let l = tcp("options = \"linux\"");
    assert_eq!((l.sender.variant, l.sink.sack), (TcpVariant::Sack, true));
    assert_eq!((l.sender.sack_recovery, l.sender.prr), (SackRecovery::Rfc6675, Some(PrrBound::Linux)));
    assert!(l.sender.timestamps);
    assert_eq!((l.sender.packet_size, l.sender.header_size, l.sink.ack_size), (Bytes(1448), Bytes(52), Bytes(52)));
    assert_eq!(
        (l.sender.window_init, l.sender.min_rto, l.sender.rto_style),
        (10, Dur::from_millis(200), RtoStyle::Linux)
    );
    assert_eq!(l.sink.delayed_ack, Some(Dur::from_millis(40)));
    // Linux's receiver's quick ACKs: by the key only, not yet in the set (docs/semantics.md).
    assert!(!l.sink.quick_ack);
    assert!(tcp("options = \"linux\"\nquick_ack = true").sink.quick_ack);
    assert!(!tcp("options = \"ns3\"").sink.quick_ack && !tcp("delayed_ack = true").sink.quick_ack);
    // RACK-TLP (RFC 8985), on in Linux; off where RFC 6675 recovery is off, and in ns3.
    assert!(l.sender.rack && l.sender.tlp);
    assert!(!tcp("options = \"linux\"\nrecovery = \"ns2\"\ntransport = \"sack\"").sender.rack);
    assert!(!tcp("options = \"linux\"\nsack = false").sender.rack);
    let nt = tcp("options = \"linux\"\ntlp = false");
    assert!(nt.sender.rack && !nt.sender.tlp);
    assert!(!tcp("options = \"linux\"\nrack = false").sender.tlp);
    assert!(!tcp("options = \"ns3\"").sender.rack);
    assert!(tcp("recovery = \"rfc6675\"\nrack = true").sender.tlp);
    assert_eq!((l.sender.cc, l.sender.cc_flavor), ("cubic", "linux"));
    // Keys given override the set: another cc, no SACK (NewReno's recovery), no timestamps (the
    // header shrinks with them), an explicit header.
    let l = tcp("options = \"linux\"\ncc = \"bbr\"\nsack = false\ntimestamps = false");
    assert_eq!((l.sender.cc, l.sender.variant, l.sender.prr), ("bbr", TcpVariant::NewReno, None));
    assert_eq!((l.sender.header_size, l.sender.window_init), (Bytes(40), 10));
    assert_eq!(tcp("options = \"linux\"\nheader_size = \"60B\"").sender.header_size, Bytes(60));
    assert_eq!(tcp("options = \"linux\"\ncc = \"cubic\"").sender.cc_flavor, "linux");
    assert_eq!(tcp("options = \"linux\"\nprr = \"crb\"").sender.prr, Some(PrrBound::Crb));
    // Tahoe has no SACK: the set's SACK is dropped, not an error.
    assert_eq!(tcp("options = \"linux\"\ncc = \"tahoe\"").sender.variant, TcpVariant::Tahoe);
    // ns3: ns-3.37's attribute defaults.
    let n = tcp("options = \"ns3\"");
    assert_eq!((n.sender.packet_size, n.sender.window, n.sender.window_init), (Bytes(536), 244, 10));
    assert_eq!((n.sender.min_rto, n.sender.tick), (Dur::from_secs(1), Dur::from_millis(1)));
    assert_eq!((n.sink.delayed_ack, n.sender.prr), (Some(Dur::from_millis(200)), Some(PrrBound::Ssrb)));
    assert_eq!((n.sender.cc, n.sender.cc_flavor), ("cubic", "ns3"));
    // ns-2's senders by their transport names stay ns-2's senders (window and recovery) under
    // any set, with the set's other values.
    let r = tcp("options = \"linux\"\ntransport = \"reno\"");
    assert_eq!((r.sender.cc, r.sender.variant, r.sink.sack), ("reno", TcpVariant::Reno, false));
    assert!(r.sender.timestamps);
    let r = tcp("options = \"linux\"\ntransport = \"sack\"");
    assert_eq!((r.sender.variant, r.sender.sack_recovery, r.sender.prr), (TcpVariant::Sack, SackRecovery::Ns2, None));
    let r = tcp("options = \"linux\"\ntransport = \"sack\"\nrecovery = \"rfc6675\"");
    assert_eq!((r.sender.sack_recovery, r.sender.prr), (SackRecovery::Rfc6675, Some(PrrBound::Linux)));
    assert_eq!(tcp("options = \"linux\"\nrecovery = \"ns2\"").sender.prr, None);
    // The modern keys alone, over ns-2's defaults.
    let t = tcp("recovery = \"rfc6675\"\nprr = true\ntimestamps = true");
    assert_eq!((t.sender.variant, t.sink.sack, t.sender.prr), (TcpVariant::Sack, true, Some(PrrBound::Ssrb)));
    assert_eq!((t.sender.header_size, t.sink.ack_size), (Bytes(52), Bytes(52)));
    assert_eq!(tcp("cc = \"cubic\"\nhystart = true").sender.hystart, Some(true));
}

#[test]
fn wrong_tcp_options_are_located_errors_that_list_the_accepted_ones() {
    let err = |to: &str| with("window = 15", to).unwrap_err();
    let e = err("options = \"bsd\"");
    assert_eq!(e.field, "flow[0].options");
    assert!(e.message.contains("unknown options `bsd`: expected ns2, linux, ns3"), "{e}");
    let e = err("recovery = \"fack\"");
    assert_eq!(e.field, "flow[0].recovery");
    assert!(e.message.contains("expected ns2, rfc6675"), "{e}");
    let e = err("prr = true");
    assert_eq!(e.field, "flow[0].prr");
    assert!(e.message.contains("recovery = \"rfc6675\""), "{e}");
    let e = err("rack = true");
    assert_eq!(e.field, "flow[0].rack");
    assert!(e.message.contains("recovery = \"rfc6675\""), "{e}");
    let e = err("options = \"linux\"\nrack = false\ntlp = true");
    assert_eq!(e.field, "flow[0].tlp");
    assert!(e.message.contains("rack = true"), "{e}");
    let e = err("recovery = \"rfc6675\"\nprr = \"fast\"");
    assert!(e.message.contains("unknown prr `fast`: expected true, false, ssrb, crb, linux"), "{e}");
    let e = err("recovery = \"rfc6675\"\nsack = false");
    assert_eq!(e.field, "flow[0].recovery");
    let e = err("cc = \"tahoe\"\nrecovery = \"rfc6675\"");
    assert!(e.message.contains("Tahoe"), "{e}");
    let e = err("hystart = true");
    assert_eq!(e.field, "flow[0].hystart");
    assert!(e.message.contains("cc `newreno` has no HyStart"), "{e}");
    let e = err("cc = \"bbr\"\nhystart = true");
    assert!(e.message.contains("cc `bbr` has no HyStart"), "{e}");
    let e = err("rto = \"bsd\"");
    assert!(e.message.contains("expected rfc6298, linux"), "{e}");
}

#[test]
fn tick_phase_pins_the_tick_clocks_phase_under_the_tick() {
    let tcp = |sc: &Scenario| sc.flows[0].tcp().expect("ftp is TCP").tick_phase;
    assert_eq!(tcp(&parse(GOOD).unwrap()), None);
    let sc = with("window = 15", "window = 15\ntick_phase = \"4.25ms\"").unwrap();
    assert_eq!(tcp(&sc), Some(Dur::from_micros(4250)));
    let e = with("window = 15", "window = 15\ntick_phase = \"10ms\"").unwrap_err();
    assert!(e.to_string().contains("tick_phase 10ms must be under the tick, 10ms"), "{e}");
    // Under a finer tick, the bound follows it.
    let e = with("window = 15", "window = 15\ntick = \"1ms\"\ntick_phase = \"2ms\"").unwrap_err();
    assert!(e.to_string().contains("under the tick, 1ms"), "{e}");
}

#[test]
fn the_clock_is_fairways_unless_ns2s_is_asked_for() {
    assert_eq!(parse(GOOD).unwrap().clock, Clock::Fairway);
    assert_eq!(with("seed = 3", "seed = 3\nclock = \"ns2\"").unwrap().clock, Clock::Ns2);
    assert_eq!(with("seed = 3", "seed = 3\nclock = \"fairway\"").unwrap().clock, Clock::Fairway);
    let e = with("seed = 3", "seed = 3\nclock = \"ns3\"").unwrap_err();
    assert!(e.message.contains("unknown clock `ns3`: expected fairway or ns2"), "{e}");
    assert!(e.to_string().starts_with(&format!("test.toml:{}:", line_of(GOOD, "seed = 3") + 1)), "{e}");
}
