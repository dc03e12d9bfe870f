//! ns-2.35's own runs of dccp-ns2's grid (scenarios/dccp-ns2/ns2-reference.json, made by
//! validation/dccp-ns2-reference.py with validation/dccp-ns2.tcl): what the paper's simulator
//! gives for each run, with ECN on (its default, the ECN nonce drawn from a clock-seeded
//! generator, so repeated runs differ) and off.

use serde::Deserialize;

/// The file, built in.
pub const TEXT: &str = include_str!("../../../../scenarios/dccp-ns2/ns2-reference.json");

#[derive(Debug, Clone, Deserialize)]
pub struct Reference {
    pub made_by: String,
    pub ns2: String,
    pub date: String,
    pub runs: Vec<Ns2Run>,
}

/// One ns-2 run: the clients' means over 10-35 s (payload, b/s), their coefficient of
/// variation (none when a client got nothing), the clients stalled, and the nonce checks that
/// failed (each a Reset that ends its flow). `overhead_s` is TCP's random wait before each
/// packet (0: none, the deterministic run).
#[derive(Debug, Clone, Deserialize)]
pub struct Ns2Run {
    pub transport: String,
    pub change: String,
    pub ecn: bool,
    pub overhead_s: f64,
    pub seed: u64,
    pub mean_bps: [f64; 3],
    pub cv: Option<f64>,
    pub stalled: usize,
    pub nonce_failures: usize,
}

impl Reference {
    pub fn load() -> Reference {
        serde_json::from_str(TEXT).expect("scenarios/dccp-ns2/ns2-reference.json is valid")
    }

    /// The runs of one transport and change, with ECN on or off, without a random wait.
    pub fn runs(&self, transport: &str, change: &str, ecn: bool) -> Vec<&Ns2Run> {
        self.runs
            .iter()
            .filter(|r| r.transport == transport && r.change == change && r.ecn == ecn && r.overhead_s == 0.0)
            .collect()
    }

    /// The runs with a random wait before each packet (TCP's overhead_), over seeds.
    pub fn waited(&self, transport: &str, change: &str) -> Vec<&Ns2Run> {
        self.runs.iter().filter(|r| r.transport == transport && r.change == change && r.overhead_s > 0.0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dccp_ns2::{Change, TRANSPORTS};

    #[test]
    fn every_run_of_the_grid_is_there() {
        let r = Reference::load();
        for t in TRANSPORTS {
            for c in Change::ALL {
                // TCP once (ECN off); DCCP with ECN off once and with ECN on repeated.
                assert_eq!(r.runs(t, c.stem(), false).len(), 1, "{t} {c:?}");
                if t != "tcp" {
                    assert!(r.runs(t, c.stem(), true).len() >= 5, "{t} {c:?}");
                }
            }
        }
        assert!(r.waited("tcp", "default").len() >= 5);
    }
}
