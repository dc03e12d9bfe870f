//! Wireless nodes beside the point-to-point links: positions, a shared radio channel, the
//! 802.11 DCF MAC with its interface queue, ARP and routing, run the way ns-2's wireless model
//! runs them (docs/architecture.md, "Simulation semantics").

pub mod aodv;
pub(crate) mod event_loop;
pub mod ifq;
pub mod mac;
pub mod mobility;
pub(crate) mod net;
pub mod propagation;
pub mod timer;

use fairway_core::{Dur, NodeId};

pub use mac::{MacParams, MacStats};
pub use mobility::{MobilitySpec, SetDest, Speed};
pub use net::NetStats;
pub use propagation::{Model, Radio};

/// How a wireless node finds the next hop to a destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routing {
    /// No routing: every destination is one hop away (ns-2's DumbAgent); no IP header is added.
    Direct,
    /// Fixed shortest paths (fewest hops, ties to the lower-numbered neighbour) over the links
    /// the radio can decode at the start; a 20-byte IP header is added as ns-2's routing agents
    /// add it.
    Static,
    /// AODV (RFC 3561) as ns-2 runs it (aodv.rs).
    Aodv,
}

impl Routing {
    pub fn name(self) -> &'static str {
        match self {
            Routing::Direct => "none",
            Routing::Static => "static",
            Routing::Aodv => "aodv",
        }
    }

    /// Bytes of IP header the routing agent adds at the source to a packet whose size does not
    /// include one (ns-2: IP_HDR_LEN, added by AODV to all but TCP's segments and ACKs, not by
    /// DumbAgent).
    pub fn ip_header(self) -> u32 {
        match self {
            Routing::Direct => 0,
            Routing::Static | Routing::Aodv => 20,
        }
    }
}

/// A wireless node: which scenario node it is, and where it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WirelessNode {
    pub node: NodeId,
    pub x: f64,
    pub y: f64,
    /// Whether the scenario placed it; random waypoint places the others at random, from the
    /// run's seed.
    pub placed: bool,
}

/// The wireless part of a scenario: one shared channel, and the same radio, MAC and routing on
/// every wireless node.
#[derive(Debug, Clone, PartialEq)]
pub struct WirelessSpec {
    pub radio: Radio,
    pub mac: MacParams,
    pub routing: Routing,
    /// ns-2's LL: each packet waits this long on its way down to the interface queue and on
    /// its way up (LL delay_, 25 µs).
    pub ll_delay: Dur,
    /// ARP before the first packet to each neighbour (ns-2's ARPTable; its delay_ is 5 µs).
    pub arp: bool,
    pub nodes: Vec<WirelessNode>,
    /// How the nodes move; `None`: they stand still.
    pub mobility: Option<MobilitySpec>,
}

impl WirelessSpec {
    /// ns-2.35's defaults for the given nodes.
    pub fn ns2(nodes: Vec<WirelessNode>) -> WirelessSpec {
        WirelessSpec {
            radio: Radio::default(),
            mac: MacParams::default(),
            routing: Routing::Static,
            ll_delay: Dur::from_micros(25),
            arp: true,
            nodes,
            mobility: None,
        }
    }

    /// The wireless index of scenario node `n`, if it is a wireless node.
    pub fn index_of(&self, n: NodeId) -> Option<usize> {
        self.nodes.iter().position(|w| w.node == n)
    }

    /// Distance between wireless nodes `a` and `b`, m.
    pub fn distance(&self, a: usize, b: usize) -> f64 {
        let (p, q) = (&self.nodes[a], &self.nodes[b]);
        ((p.x - q.x).powi(2) + (p.y - q.y).powi(2)).sqrt()
    }

    /// Fewest-hop next hops over the links the radio decodes: `table[from][to]` (`None`:
    /// unreachable; `from` itself for `to == from`). Ties go to the lower-numbered neighbour.
    pub fn next_hops(&self) -> Vec<Vec<Option<u32>>> {
        let n = self.nodes.len();
        let range_ok = |a: usize, b: usize| self.radio.received_power(self.distance(a, b)) >= self.radio.rx_threshold;
        let nbrs: Vec<Vec<usize>> = (0..n).map(|a| (0..n).filter(|&b| b != a && range_ok(a, b)).collect()).collect();
        let mut table = vec![vec![None; n]; n];
        for to in 0..n {
            // Breadth-first from the destination: a node's next hop is its lowest-numbered
            // neighbour one hop nearer.
            let mut dist = vec![usize::MAX; n];
            dist[to] = 0;
            let mut frontier = vec![to];
            while !frontier.is_empty() {
                let mut next = vec![];
                for &v in &frontier {
                    for &u in &nbrs[v] {
                        if dist[u] == usize::MAX {
                            dist[u] = dist[v] + 1;
                            next.push(u);
                        }
                    }
                }
                frontier = next;
            }
            for from in 0..n {
                if from == to {
                    table[from][to] = Some(to as u32);
                } else if dist[from] != usize::MAX {
                    table[from][to] = nbrs[from].iter().find(|&&u| dist[u] + 1 == dist[from]).map(|&u| u as u32);
                }
            }
        }
        table
    }
}
