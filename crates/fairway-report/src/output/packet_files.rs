//! The packet trace's files as the run makes them: trace.tr (ns-2's format) for the links and
//! events asked for, and a pcap per captured link, each at most `--trace-limit` records.

use std::io;
use std::path::Path;

use fairway_model::packet_trace::{PacketEvent, PacketOp, PacketTraceSpec};
use fairway_model::scenario::Scenario;

use super::bounded::{Bounded, TraceFile};
use super::{ns2_trace, pcap};

/// Which packet files a run writes.
#[derive(Debug, Clone, Default)]
pub struct PacketOutputs {
    /// Write trace.tr.
    pub text: bool,
    /// Links trace.tr covers (scenario indices; empty: every link).
    pub text_links: Vec<usize>,
    /// Events trace.tr holds (empty: all four).
    pub ops: Vec<PacketOp>,
    /// Links with a pcap each.
    pub pcap_links: Vec<usize>,
    /// Flows traced (scenario indices; empty: every flow).
    pub flows: Vec<usize>,
}

impl PacketOutputs {
    /// What the engine has to trace for these files; `None` when there are none.
    pub fn engine_spec(&self) -> Option<PacketTraceSpec> {
        if !self.text && self.pcap_links.is_empty() {
            return None;
        }
        let links = if self.text && self.text_links.is_empty() {
            vec![]
        } else {
            let mut v: Vec<usize> = self.text_links.iter().chain(&self.pcap_links).copied().collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut ops = if !self.text {
            vec![]
        } else if self.ops.is_empty() {
            PacketOp::ALL.to_vec()
        } else {
            self.ops.clone()
        };
        if !self.pcap_links.is_empty() && !ops.contains(&PacketOp::Dequeue) {
            ops.push(PacketOp::Dequeue);
        }
        Some(PacketTraceSpec { links, flows: self.flows.clone(), ops })
    }
}

/// A pcap's file name for link `l`: `trace-<from>-<to>.pcap` (as the queue plots name links).
pub fn pcap_name(sc: &Scenario, l: usize) -> String {
    format!("trace-{}.pcap", super::file_safe(&sc.link_name(l)))
}

pub(crate) struct PacketFiles {
    labels: Vec<ns2_trace::FlowLabels>,
    wires: Vec<pcap::FlowWire>,
    /// trace.tr, with per link whether it covers it, and per event kind.
    text: Option<(Bounded, Vec<bool>, [bool; 4])>,
    /// Per link, its pcap's place in `pcaps` (usize::MAX: none).
    pcap_of: Vec<usize>,
    pcaps: Vec<Bounded>,
    line: String,
    bytes: Vec<u8>,
}

impl PacketFiles {
    pub(crate) fn create(dir: &Path, sc: &Scenario, out: &PacketOutputs, limit: u64) -> io::Result<PacketFiles> {
        let text = if out.text {
            let mut links = vec![out.text_links.is_empty(); sc.links.len()];
            for &l in &out.text_links {
                links[l] = true;
            }
            let mut ops = [out.ops.is_empty(); 4];
            for &o in &out.ops {
                ops[o as usize] = true;
            }
            Some((Bounded::create(&dir.join("trace.tr"), b"", limit)?, links, ops))
        } else {
            None
        };
        let mut pcap_of = vec![usize::MAX; sc.links.len()];
        let mut pcaps = vec![];
        for &l in &out.pcap_links {
            if pcap_of[l] == usize::MAX {
                pcap_of[l] = pcaps.len();
                pcaps.push(Bounded::create(&dir.join(pcap_name(sc, l)), &pcap::file_header(), limit)?);
            }
        }
        Ok(PacketFiles {
            labels: ns2_trace::flow_labels(sc),
            wires: pcap::flow_wires(sc),
            text,
            pcap_of,
            pcaps,
            line: String::new(),
            bytes: vec![],
        })
    }

    pub(crate) fn write(&mut self, sc: &Scenario, rows: &[PacketEvent]) {
        if let Some((file, links, ops)) = &mut self.text {
            let mut wanted = rows.iter().filter(|e| links[e.link as usize] && ops[e.op as usize]);
            let n = wanted.clone().count();
            let kept = file.take(n);
            self.line.clear();
            for e in wanted.by_ref().take(kept) {
                ns2_trace::line(&mut self.line, sc, &self.labels, e);
            }
            file.write(kept, self.line.as_bytes());
        }
        for e in rows.iter().filter(|e| e.op == PacketOp::Dequeue) {
            let Some(file) = self.pcaps.get_mut(self.pcap_of[e.link as usize]) else { continue };
            if file.take(1) == 1 {
                self.bytes.clear();
                pcap::record(&mut self.bytes, &self.wires, e);
                file.write(1, &self.bytes);
            }
        }
    }

    /// Closes the files: what each came to, trace.tr first.
    pub(crate) fn finish(self) -> io::Result<Vec<TraceFile>> {
        self.text.into_iter().map(|t| t.0).chain(self.pcaps).map(Bounded::finish).collect()
    }
}
