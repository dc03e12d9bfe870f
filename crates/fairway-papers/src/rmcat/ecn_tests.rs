//! A case's ECN variant: what changes in its text, and that it still reads.

use super::*;

fn case(stem: &str) -> (String, Scenario) {
    let text = crate::embedded::file("rfc8867", stem).expect("a built-in case").to_string();
    let sc = fairway_scenario::parse_scenario("case.toml", &text, stem).unwrap_or_else(|e| panic!("{e}"));
    (text, sc)
}

fn ecn(stem: &str) -> (Scenario, Scenario) {
    let (text, sc) = case(stem);
    let out = with_codel(&text, &sc, true).unwrap_or_else(|e| panic!("{e}"));
    let new = fairway_scenario::parse_scenario("case.toml", &out, stem).unwrap_or_else(|e| panic!("{e}\n{out}"));
    (sc, new)
}

fn link<'a>(sc: &'a Scenario, name: &str) -> &'a fairway_model::scenario::LinkSpec {
    sc.links.iter().find(|l| format!("{}->{}", sc.node_name(l.from), sc.node_name(l.to)) == name).unwrap()
}

#[test]
fn the_bottleneck_marks_with_codel_in_the_same_room_and_only_it_changes() {
    // §5.4: three videos and an audio across a -> b, 131 250 bytes of tail drop: 108 packets of
    // 1220 bytes (107.6, rounded up).
    let (old, new) = ecn("5.4-competing-same-cc");
    assert_eq!(video_packet_bytes(), 1220);
    let q = &link(&new, "a->b").queue;
    assert_eq!(q.kind(), "codel");
    assert_eq!(q.limit(), Limit::Packets(108));
    // Nothing else: the backward link and the access links keep their queues.
    for (a, b) in old.links.iter().zip(&new.links) {
        if format!("{}->{}", old.node_name(a.from), old.node_name(a.to)) != "a->b" {
            assert_eq!((a.queue.kind(), a.queue.limit()), (b.queue.kind(), b.queue.limit()));
        }
    }
}

#[test]
fn every_media_flows_bottleneck_marks_both_of_6_3s_and_both_directions_of_5_3s() {
    // §6.3: S1 crosses a-b (2 Mb/s) and c-d (1.5 Mb/s); its bottleneck is c-d, S2's a-b, S3's
    // c-d. Both are duplex entries: both directions take the queue.
    let (_, new) = ecn("6.3-multiple-bottlenecks");
    for (name, packets) in [("a->b", 75_000u64.div_ceil(1220)), ("b->a", 62), ("c->d", 47), ("d->c", 47)] {
        let q = &link(&new, name).queue;
        assert_eq!((q.kind(), q.limit()), ("codel", Limit::Packets(packets as u32)), "{name}");
    }
    assert_eq!(link(&new, "b->c").queue.kind(), "droptail");
    // §5.3: media both ways, each direction a bottleneck.
    let (_, new) = ecn("5.3-congested-feedback-link");
    assert_eq!(link(&new, "a->b").queue.kind(), "codel");
    assert_eq!(link(&new, "b->a").queue.kind(), "codel");
}

#[test]
fn every_rtp_flow_turns_ecn_capable_and_the_ecn_case_is_known_as_one() {
    let (text, sc) = case("5.4-competing-same-cc");
    assert!(!is_ecn_case(&text));
    let out = with_codel(&text, &sc, true).unwrap();
    assert!(is_ecn_case(&out));
    let doc: DocumentMut = out.parse().unwrap();
    let flows = doc["flow"].as_array_of_tables().unwrap();
    for f in flows.iter() {
        let rtp = f.get("transport").and_then(|t| t.as_str()) == Some("rtp");
        assert_eq!(f.get("ecn").and_then(|e| e.as_bool()), rtp.then_some(true), "{f}");
    }
    assert_eq!(flows.iter().filter(|f| f.get("ecn").is_some()).count(), 3);
    assert!(is_ecn_case(&case("6.2-ecn").0));
}

#[test]
fn a_bottleneck_that_is_not_tail_drop_is_refused() {
    let (text, sc) = case("6.2-ecn");
    let e = with_codel(&text, &sc, true).unwrap_err();
    assert!(e.contains("a->b runs `codel`"), "{e}");
}

#[test]
fn a_sweep_over_the_bottlenecks_limit_counts_packets_too() {
    // §5.6 sweeps a -> b's tail drop over 75 000 and 250 000 bytes: 62 and 205 packets.
    let (text, sc) = case("5.6-long-tcp-flow");
    let out = with_codel(&text, &sc, true).unwrap();
    let doc: DocumentMut = out.parse().unwrap();
    let limits: Vec<i64> =
        doc["sweep"]["link[2].queue.limit"].as_array().unwrap().iter().map(|v| v.as_integer().unwrap()).collect();
    assert_eq!(limits, [62, 205]);
    let points = fairway_scenario::sweep::points_of_text("case.toml", &out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(points.points.len(), 2);
}

#[test]
fn the_delay_based_twin_has_the_same_codel_dropping_and_no_flow_ecn_capable() {
    let (text, sc) = case("5.4-competing-same-cc");
    let out = with_codel(&text, &sc, false).unwrap();
    assert!(!is_ecn_case(&out));
    let new = fairway_scenario::parse_scenario("case.toml", &out, "5.4").unwrap();
    let q = &link(&new, "a->b").queue;
    assert_eq!((q.kind(), q.limit()), ("codel", Limit::Packets(108)));
    // The same text as the ECN variant but for the two `ecn` values and the words saying which
    // variant it is.
    let marked = with_codel(&text, &sc, true).unwrap();
    let words = |t: &str| {
        t.replace("ecn = true", "ecn = false").replace(
            "CoDel marking (ECN) at the RTP flows' bottlenecks, every RTP flow ECN-capable",
            "CoDel dropping at the RTP flows' bottlenecks, no flow ECN-capable (the ECN variant's delay-based twin)",
        )
    };
    assert_eq!(words(&marked), out);
}

#[test]
fn the_variant_says_what_it_is_in_its_description_and_beside_each_queue_it_replaced() {
    // §5.1: a -> b and b -> a, 37 500 bytes of tail drop each.
    let (text, sc) = case("5.1-variable-capacity");
    let out = with_codel(&text, &sc, true).unwrap();
    let new = fairway_scenario::parse_scenario("case.toml", &out, "5.1").unwrap();
    assert!(new.description.starts_with(&sc.description), "{}", new.description);
    assert!(
        new.description.ends_with("every RTP flow ECN-capable, in place of tail drop (RFC 8867 §6.2)"),
        "{}",
        new.description
    );
    let note = "# In place of the case's tail drop (37500 bytes): CoDel marking (ECN) at the RTP flows' bottlenecks";
    assert_eq!(out.matches(note).count(), 1, "{out}");
    // The comment sits on the queue's own line, just before it.
    let at = out.find(note).unwrap();
    assert!(out[at..].lines().nth(1).unwrap().starts_with("queue = { kind = \"codel\""), "{}", &out[at..]);
    let twin = with_codel(&text, &sc, false).unwrap();
    assert!(twin.contains("no flow ECN-capable (the ECN variant's delay-based twin), in place of tail drop"));
}
