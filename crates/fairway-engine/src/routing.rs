//! Static shortest-path routing, as ns-2's default (`$ns rtproto Static`): every link costs one
//! hop, and among equal paths the one found first wins. Here "first" is breadth-first search
//! over each node's outgoing links in the order the scenario declares them, so routes are
//! deterministic.
//!
//! Routes are computed per flow, once, before the run. To keep that linear in the number of
//! flows on topologies with thousands of hosts, a *stub* node (one outgoing link, and incoming
//! links only from that same neighbour: a host on an access link) is routed through its single
//! neighbour without a search; searches run between the remaining nodes and their trees are
//! cached by source.

use std::collections::VecDeque;

use fairway_core::NodeId;

use crate::fasthash::FastMap;

/// The adjacency of a topology: for each node, its outgoing links (index, far end) in
/// declaration order.
pub struct Router {
    out: Adjacency,
    /// For each node, its incoming links (index, near end) in declaration order.
    incoming: Adjacency,
    /// Per source node: for every node, the link by which the search reached it and that
    /// link's near end.
    trees: FastMap<NodeId, Vec<Option<(usize, NodeId)>>>,
    /// Room for [`Router::reachable`]'s paths.
    scratch: Vec<usize>,
}

const MAX_CACHED_TREES: usize = 256;

impl Router {
    /// `links[i] = (from, to)`.
    pub fn new(n_nodes: usize, links: &[(NodeId, NodeId)]) -> Router {
        let out = Adjacency::new(n_nodes, links.iter().enumerate().map(|(i, &(a, b))| (a, (i, b))));
        let incoming = Adjacency::new(n_nodes, links.iter().enumerate().map(|(i, &(a, b))| (b, (i, a))));
        Router { out, incoming, trees: FastMap::default(), scratch: vec![] }
    }

    /// The single neighbour through which all of a stub's traffic passes.
    fn stub_neighbour(&self, n: NodeId) -> Option<(usize, NodeId)> {
        match self.out.of(n) {
            [(link, nb)] if self.incoming.of(n).iter().all(|(_, x)| x == nb) => Some((*link, *nb)),
            _ => None,
        }
    }

    /// The link from `a` to `b`, if one exists (the first declared). Looked up among `b`'s
    /// incoming links: `b` is a stub with few of them, while `a` may be a router with thousands.
    fn link_between(&self, a: NodeId, b: NodeId) -> Option<usize> {
        self.incoming.of(b).iter().find(|(_, from)| *from == a).map(|(l, _)| *l)
    }

    /// The links of a shortest path from `from` to `to`; `None` if `to` is unreachable.
    /// `from == to` gives an empty path.
    pub fn route(&mut self, from: NodeId, to: NodeId) -> Option<Vec<usize>> {
        let mut path = vec![];
        self.route_into(from, to, &mut path).then_some(path)
    }

    /// [`route`](Self::route)'s links appended to `out`; false, and `out` as it was, if `to`
    /// is unreachable. For routing thousands of flows without an allocation per route.
    pub fn route_into(&mut self, from: NodeId, to: NodeId, out: &mut Vec<usize>) -> bool {
        if from == to {
            return true;
        }
        let start = out.len();
        // Leave a stub source through its only link.
        let mut a = from;
        if let Some((link, nb)) = self.stub_neighbour(from) {
            out.push(link);
            if nb == to {
                return true;
            }
            a = nb;
        }
        // Enter a stub destination from its only neighbour.
        let mut b = to;
        let mut last = None;
        if let Some((_, nb)) = self.stub_neighbour(to) {
            if let Some(l) = self.link_between(nb, to) {
                last = Some(l);
                b = nb;
            }
        }
        if a != b {
            let mid = out.len();
            if !self.search_into(a, b, out) {
                out.truncate(start);
                return false;
            }
            out[mid..].reverse();
        }
        out.extend(last);
        true
    }

    /// Whether `to` can be reached from `from`.
    pub fn reachable(&mut self, from: NodeId, to: NodeId) -> bool {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let ok = self.route_into(from, to, &mut scratch);
        self.scratch = scratch;
        ok
    }

    /// Appends the links from `from` to `to`, last first; false if there is no path (having
    /// appended some of them, perhaps).
    fn search_into(&mut self, from: NodeId, to: NodeId, out: &mut Vec<usize>) -> bool {
        if !self.trees.contains_key(&from) {
            if self.trees.len() >= MAX_CACHED_TREES {
                self.trees.clear();
            }
            let tree = self.bfs(from);
            self.trees.insert(from, tree);
        }
        let tree = &self.trees[&from];
        let mut at = to;
        while at != from {
            let Some((link, prev)) = tree[at.index()] else { return false };
            out.push(link);
            at = prev;
        }
        true
    }

    fn bfs(&self, from: NodeId) -> Vec<Option<(usize, NodeId)>> {
        let n = self.out.start.len() - 1;
        let mut via: Vec<Option<(usize, NodeId)>> = vec![None; n];
        let mut seen = vec![false; n];
        seen[from.index()] = true;
        let mut q = VecDeque::from([from]);
        while let Some(n) = q.pop_front() {
            for (link, nb) in self.out.of(n) {
                if !seen[nb.index()] {
                    seen[nb.index()] = true;
                    via[nb.index()] = Some((*link, n));
                    q.push_back(*nb);
                }
            }
        }
        via
    }
}

/// Per node, a list of (link, other end), all in one array in node order (a list per node
/// was tens of thousands of small allocations on large topologies, made again for every run).
struct Adjacency {
    /// Node `n`'s list is `items[start[n] .. start[n + 1]]`.
    start: Vec<usize>,
    items: Vec<(usize, NodeId)>,
}

impl Adjacency {
    /// From (node, item) pairs; each node's items keep the order they come in.
    fn new(n_nodes: usize, pairs: impl Iterator<Item = (NodeId, (usize, NodeId))> + Clone) -> Adjacency {
        let mut start = vec![0; n_nodes + 1];
        for (n, _) in pairs.clone() {
            start[n.index() + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut items = vec![(0, NodeId(0)); start[n_nodes]];
        for (n, item) in pairs {
            items[next[n.index()]] = item;
            next[n.index()] += 1;
        }
        Adjacency { start, items }
    }

    fn of(&self, n: NodeId) -> &[(usize, NodeId)] {
        &self.items[self.start[n.index()]..self.start[n.index() + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplex(pairs: &[(u32, u32)]) -> Vec<(NodeId, NodeId)> {
        pairs.iter().flat_map(|(a, b)| [(NodeId(*a), NodeId(*b)), (NodeId(*b), NodeId(*a))]).collect()
    }

    #[test]
    fn dumbbell_routes_through_the_bottleneck() {
        // 0,1 -> r1(2) -> r2(3) -> 4,5
        let links = duplex(&[(0, 2), (1, 2), (2, 3), (4, 3), (5, 3)]);
        let mut r = Router::new(6, &links);
        let p = r.route(NodeId(0), NodeId(4)).unwrap();
        let hops: Vec<_> = p.iter().map(|l| links[*l]).collect();
        assert_eq!(hops, vec![(NodeId(0), NodeId(2)), (NodeId(2), NodeId(3)), (NodeId(3), NodeId(4))]);
        let back = r.route(NodeId(4), NodeId(0)).unwrap();
        let hops: Vec<_> = back.iter().map(|l| links[*l]).collect();
        assert_eq!(hops, vec![(NodeId(4), NodeId(3)), (NodeId(3), NodeId(2)), (NodeId(2), NodeId(0))]);
    }

    #[test]
    fn shortest_path_wins_over_a_longer_one() {
        // ring 0-1-2-3-0 plus chord 0-2: 0 -> 2 must take the chord.
        let links = duplex(&[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]);
        let mut r = Router::new(4, &links);
        let p = r.route(NodeId(0), NodeId(2)).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(links[p[0]], (NodeId(0), NodeId(2)));
    }

    #[test]
    fn equal_paths_take_the_first_declared() {
        // 0 -> {1, 2} -> 3, declared via 1 first.
        let links = duplex(&[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let mut r = Router::new(4, &links);
        let p = r.route(NodeId(0), NodeId(3)).unwrap();
        assert_eq!(links[p[0]], (NodeId(0), NodeId(1)));
    }

    #[test]
    fn unreachable_and_one_way() {
        let links = vec![(NodeId(0), NodeId(1))];
        let mut r = Router::new(3, &links);
        assert!(r.route(NodeId(0), NodeId(1)).is_some());
        assert!(r.route(NodeId(1), NodeId(0)).is_none());
        assert!(r.route(NodeId(0), NodeId(2)).is_none());
    }

    #[test]
    fn stubs_and_plain_search_agree_on_random_graphs() {
        let mut rng = fairway_core::Rng::from_seed(5);
        for _ in 0..50 {
            let n = 12;
            let mut pairs = vec![];
            for a in 0..n {
                for b in (a + 1)..n {
                    if rng.bernoulli(0.2) {
                        pairs.push((a, b));
                    }
                }
            }
            let links = duplex(&pairs);
            let mut r = Router::new(n as usize, &links);
            for a in 0..n {
                for b in 0..n {
                    let with_stubs = r.route(NodeId(a), NodeId(b)).map(|p| p.len());
                    let mut p = vec![];
                    let plain =
                        if a == b { Some(0) } else { r.search_into(NodeId(a), NodeId(b), &mut p).then_some(p.len()) };
                    assert_eq!(with_stubs, plain, "{a}->{b}");
                    assert_eq!(r.reachable(NodeId(a), NodeId(b)), plain.is_some(), "{a}->{b}");
                    if let Some(p) = r.route(NodeId(a), NodeId(b)) {
                        // The path is connected and ends where it should.
                        let mut at = NodeId(a);
                        for l in p {
                            assert_eq!(links[l].0, at);
                            at = links[l].1;
                        }
                        assert_eq!(at, NodeId(b));
                    }
                }
            }
        }
    }
}
