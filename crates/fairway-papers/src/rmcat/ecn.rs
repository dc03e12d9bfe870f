//! A case's ECN variant and its delay-based twin (`fairway suite rmcat --ecn`): RFC 8867 §6.2
//! asks for "all the basic test cases" run "with the availability of Explicit Congestion
//! Notification (ECN)", and expects the algorithms "to perform better than their delay-based
//! variants". The ECN variant is the case's own text with every RTP flow ECN-capable (`ecn =
//! true`: its packets leave ECT(0), RFC 6679) and the bottleneck of each RTP flow (the slowest
//! link of its data path, the first of equals, as the engine and docs/scenarios.md take it)
//! marking: CoDel at its defaults with `ecn = true` in place of the case's tail drop, with the
//! same room. Its twin has the same CoDel dropping and no flow ECN-capable, so that the two
//! differ in the signal alone (CoDel's limit counts packets: the audio's 50-byte packets take
//! whole places, so either has less room for video than the tail drop's bytes). §6.2 names no
//! AQM and tail drop marks nothing; 6.2-ecn.toml gives the reasons for CoDel on §5.1, and this
//! makes every other case the same way. Flows that are not ECN-capable (audio, TCP) are dropped
//! by CoDel where it would have marked.

use toml_edit::{value, DocumentMut, InlineTable};

use fairway_aqm::Limit;
use fairway_core::Bytes;
use fairway_engine::routing::Router;
use fairway_model::scenario::Scenario;
use fairway_proto::rtp::sender::{RtpSenderConfig, HEADER_LEN};

/// The video's largest packet at the rtp default `packet_size` (1200 bytes of media and the
/// sender's 20 of headers): a tail-drop queue in bytes becomes CoDel's limit in packets of this
/// size, rounded up (6.2-ecn.toml's 37 500 bytes: 31 packets).
pub fn video_packet_bytes() -> u64 {
    RtpSenderConfig::default().max_payload.0 + HEADER_LEN
}

/// `text` (the case whose checked scenario is `sc`) with CoDel at its RTP flows' bottlenecks,
/// marking and every RTP flow ECN-capable if `ecn`, else dropping; an error names what cannot
/// be made so (a bottleneck already not tail drop).
pub fn with_codel(text: &str, sc: &Scenario, ecn: bool) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let pairs: Vec<_> = sc.links.iter().map(|l| (l.from, l.to)).collect();
    let mut router = Router::new(sc.nodes.len(), &pairs);
    let mut bottlenecks: Vec<usize> = vec![];
    for f in sc.flows.iter().filter(|f| f.transport() == "rtp") {
        let route = router.route(f.from, f.to).ok_or_else(|| format!("flow {}: no route", f.name))?;
        if let Some(b) = fairway_model::fairness::bottleneck(sc, &route) {
            if !bottlenecks.contains(&b) {
                bottlenecks.push(b);
            }
        }
    }
    if let Some(flows) = doc.get_mut("flow").and_then(|f| f.as_array_of_tables_mut()) {
        for f in flows.iter_mut() {
            if f.get("transport").and_then(|t| t.as_str()) == Some("rtp") {
                f.insert("ecn", value(ecn));
            }
        }
    }
    // The variant says what it is, where a reader of its text or its report looks: the
    // description, and a comment on each queue it replaced (the case's own comments above the
    // link still describe the tail drop).
    let what = if ecn {
        "CoDel marking (ECN) at the RTP flows' bottlenecks, every RTP flow ECN-capable"
    } else {
        "CoDel dropping at the RTP flows' bottlenecks, no flow ECN-capable (the ECN variant's delay-based twin)"
    };
    if let Some(d) = doc.get_mut("description") {
        if let Some(text) = d.as_str() {
            *d = value(format!("{text}; {what}, in place of tail drop (RFC 8867 §6.2)"));
        }
    }
    let links = doc.get_mut("link").and_then(|l| l.as_array_of_tables_mut()).ok_or("the case has no [[link]]")?;
    let mut marking = vec![];
    for b in bottlenecks {
        let l = &sc.links[b];
        let (from, to) = (sc.node_name(l.from), sc.node_name(l.to));
        let name = format!("{from}->{to}");
        let k = links
            .iter()
            .position(|t| entry_is(t, from, to))
            .ok_or_else(|| format!("no [[link]] entry gives {name}"))?;
        marking.push(k);
        let entry = links.get_mut(k).expect("found above");
        if l.queue.kind() != "droptail" {
            return Err(format!("the bottleneck {name} runs `{}`, not tail drop", l.queue.kind()));
        }
        let (packets, was) = match l.queue.limit() {
            Limit::Packets(n) => (n as u64, format!("{n} packets")),
            Limit::Bytes(b) => (b.0.div_ceil(video_packet_bytes()), format!("{} bytes", b.0)),
        };
        let mut q = InlineTable::new();
        q.insert("kind", "codel".into());
        q.insert("ecn", ecn.into());
        q.insert("limit", (packets as i64).into());
        entry.insert("queue", value(q));
        let note = format!("# In place of the case's tail drop ({was}): {what}.\n");
        if let Some(mut key) = entry.key_mut("queue") {
            key.leaf_decor_mut().set_prefix(note);
        }
    }
    // A [sweep] over such a queue's limit (§5.6's two sizes) counts it in packets too.
    if let Some(sweep) = doc.get_mut("sweep").and_then(|s| s.as_table_like_mut()) {
        for k in marking {
            let Some(values) = sweep.get_mut(&format!("link[{k}].queue.limit")).and_then(|v| v.as_array_mut()) else {
                continue;
            };
            for v in values.iter_mut() {
                if let Some(text) = v.as_str() {
                    let bytes = Bytes::parse(text).map_err(|e| format!("[sweep] link[{k}].queue.limit: {e}"))?;
                    *v = (bytes.0.div_ceil(video_packet_bytes()) as i64).into();
                }
            }
        }
    }
    Ok(doc.to_string())
}

/// Whether the case is ECN-capable already (an RTP flow with `ecn = true`: §6.2's own file),
/// and so has no ECN variant.
pub fn is_ecn_case(text: &str) -> bool {
    let Ok(doc) = text.parse::<DocumentMut>() else { return false };
    let flows = doc.get("flow").and_then(|f| f.as_array_of_tables());
    flows.is_some_and(|f| {
        f.iter().any(|f| {
            f.get("transport").and_then(|t| t.as_str()) == Some("rtp")
                && f.get("ecn").and_then(|e| e.as_bool()) == Some(true)
        })
    })
}

/// Whether the `[[link]]` entry `t` gives the link `from` -> `to`: a simplex entry of that
/// direction, or a duplex one (`between`) of those two nodes, whose queue then marks both ways
/// (the file gives both directions one queue; the backward one carries feedback, which is not
/// ECN-capable, and does not congest in these cases but for §5.3's, written simplex).
fn entry_is(t: &toml_edit::Table, from: &str, to: &str) -> bool {
    let s = |k: &str| t.get(k).and_then(|v| v.as_str());
    if s("from") == Some(from) && s("to") == Some(to) {
        return true;
    }
    let ends: Vec<&str> =
        t.get("between").and_then(|v| v.as_array()).map_or(vec![], |a| a.iter().filter_map(|v| v.as_str()).collect());
    ends.len() == 2 && ends.contains(&from) && ends.contains(&to)
}

#[cfg(test)]
#[path = "ecn_tests.rs"]
mod tests;
