//! topology.svg: the wired network drawn, each node named, each link with its rate, delay and
//! (when not DropTail) queue, and each `[[flow]]` entry's path over it in a colour of its own.
//!
//! The layout suits the topologies researchers draw by hand, dumbbells, parking lots, stars and
//! chains. Nodes with one neighbour are hosts, the rest routers. The routers lie in columns by
//! their distance from one end of the router network (the end of its longest shortest path). A
//! host hangs off its router: left of the first column, right of the last, or in its router's
//! column when the router is in between (a parking lot's cross traffic). With a single column of
//! routers (a star), a host that only sends goes left and the others right.
//!
//! A network of more than [`MAX_NODES`] nodes is drawn with its hosts gathered: the hosts on the
//! same router, with the same links to it and the same role (sending, receiving), are one node
//! ("h0 … h999, 1000 hosts") whose link label stands for each of theirs. A thousand-flow
//! dumbbell is drawn as the six nodes a researcher would draw by hand.

use std::fmt::Write;

use fairway_model::scenario::Scenario;

use super::html::escape;

/// Networks with more nodes than this, once their hosts are gathered, are not drawn: the
/// drawing would be a blur.
pub const MAX_NODES: usize = 60;

/// What is drawn: the scenario's nodes, or, for a large network, its hosts gathered.
struct Drawn {
    /// Per drawn node, its label.
    names: Vec<String>,
    /// Per drawn node, whether it stands for several hosts.
    group: Vec<bool>,
    /// Per scenario node, the drawn node standing for it.
    of: Vec<usize>,
}

/// Gathers hosts (nodes with one neighbour) that share their router, their links' rate, delay
/// and queue both ways, and whether they send and receive. `None` if that leaves more than
/// [`MAX_NODES`] nodes.
fn gather(sc: &Scenario, adj: &[Vec<usize>], flows: &[(usize, usize)]) -> Option<Drawn> {
    let n = sc.nodes.len();
    let (mut sends, mut receives) = (vec![false; n], vec![false; n]);
    for &(a, b) in flows {
        sends[a] = true;
        receives[b] = true;
    }
    let mut link_of: std::collections::HashMap<(usize, usize), usize> = Default::default();
    for (i, l) in sc.links.iter().enumerate() {
        link_of.entry((l.from.0 as usize, l.to.0 as usize)).or_insert(i);
    }
    let props = |a: usize, b: usize| {
        link_of.get(&(a, b)).map(|&i| {
            let l = &sc.links[i];
            (l.rate.0, l.delay.0, l.queue.label(), l.loss.bits())
        })
    };
    let mut key_of: std::collections::HashMap<_, usize> = Default::default();
    let mut members: Vec<Vec<usize>> = vec![];
    let mut of = vec![0; n];
    for v in 0..n {
        let slot = match adj[v].as_slice() {
            &[r] if adj[r].len() >= 2 => {
                let key = (r, props(v, r), props(r, v), sends[v], receives[v]);
                *key_of.entry(key).or_insert_with(|| {
                    members.push(vec![]);
                    members.len() - 1
                })
            }
            _ => {
                members.push(vec![]);
                members.len() - 1
            }
        };
        members[slot].push(v);
        of[v] = slot;
    }
    if members.len() > MAX_NODES {
        return None;
    }
    let name = |v: usize| sc.node_name(fairway_core::NodeId(v as u32));
    let names = members
        .iter()
        .map(|m| match m.as_slice() {
            [v] => name(*v).to_string(),
            _ => format!("{} … {}, {} hosts", name(m[0]), name(m[m.len() - 1]), m.len()),
        })
        .collect();
    Some(Drawn { names, group: members.iter().map(|m| m.len() > 1).collect(), of })
}

const PALETTE: [&str; 7] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
const COL: f64 = 190.0;
const ROW: f64 = 70.0;
const MARGIN: f64 = 60.0;

/// Each node's column and row.
fn layout(n: usize, adj: &[Vec<usize>], flows: &[(usize, usize)]) -> Vec<(i64, f64)> {
    let (mut senders, mut receivers) = (vec![false; n], vec![false; n]);
    for &(a, b) in flows {
        senders[a] = true;
        receivers[b] = true;
    }
    let core: Vec<bool> = (0..n).map(|i| adj[i].len() >= 2).collect();
    let bfs = |from: usize, within: &dyn Fn(usize) -> bool| -> Vec<Option<i64>> {
        let mut d = vec![None; n];
        let mut q = std::collections::VecDeque::from([from]);
        d[from] = Some(0);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if d[v].is_none() && within(v) {
                    d[v] = Some(d[u].expect("visited") + 1);
                    q.push_back(v);
                }
            }
        }
        d
    };
    let mut col: Vec<Option<i64>> = vec![None; n];
    // Each connected part of the router network in turn, then what is left.
    let mut next_col = 0;
    for start in 0..n {
        if col[start].is_some() || !core[start] {
            continue;
        }
        let within = |v: usize| core[v];
        let d0 = bfs(start, &within);
        let far = (0..n).filter(|&v| d0[v].is_some()).max_by_key(|&v| (d0[v], std::cmp::Reverse(v))).unwrap_or(start);
        let d = bfs(far, &within);
        let width = d.iter().flatten().max().copied().unwrap_or(0);
        for v in 0..n {
            if let Some(k) = d[v] {
                col[v] = Some(next_col + 1 + k);
            }
        }
        // Hosts of this part.
        for v in 0..n {
            if core[v] || col[v].is_some() {
                continue;
            }
            let Some(&r) = adj[v].first() else { continue };
            let Some(k) = d[r] else { continue };
            let c = if width == 0 {
                if senders[v] && !receivers[v] {
                    -1
                } else {
                    1
                }
            } else if k == 0 {
                -1
            } else if k == width {
                width + 1
            } else {
                k
            };
            col[v] = Some(next_col + 1 + c);
        }
        next_col += width + 3;
    }
    // Hosts linked only to hosts (a single link), and lone nodes.
    for v in 0..n {
        if col[v].is_some() {
            continue;
        }
        col[v] = Some(next_col);
        for &u in &adj[v] {
            if col[u].is_none() {
                col[u] = Some(next_col + 1);
            }
        }
        next_col += 2;
    }
    let mut col: Vec<i64> = col.into_iter().map(|c| c.unwrap_or(0)).collect();
    // Data flows left to right, mostly.
    let rightward: i64 = flows.iter().map(|&(a, b)| col[b] - col[a]).sum();
    if rightward < 0 {
        col.iter_mut().for_each(|c| *c = -*c);
    }
    let min = col.iter().min().copied().unwrap_or(0);
    let col: Vec<i64> = col.into_iter().map(|c| c - min).collect();
    // Rows: a column's routers in the middle, its hosts around them, in node order.
    let ncols = col.iter().max().map_or(0, |m| m + 1) as usize;
    let mut members: Vec<Vec<usize>> = vec![vec![]; ncols];
    for v in 0..n {
        members[col[v] as usize].push(v);
    }
    let mut pos = vec![(0, 0.0); n];
    for m in &members {
        let (routers, hosts): (Vec<usize>, Vec<usize>) = m.iter().partition(|&&v| core[v]);
        let mut order = hosts[..hosts.len() / 2].to_vec();
        order.extend(&routers);
        order.extend(&hosts[hosts.len() / 2..]);
        let half = (order.len() as f64 - 1.0) / 2.0;
        for (i, &v) in order.iter().enumerate() {
            pos[v] = (col[v], i as f64 - half);
        }
    }
    pos
}

fn rate_text(bps: f64) -> String {
    let (v, unit) = if bps >= 1e9 {
        (bps / 1e9, "Gb/s")
    } else if bps >= 1e6 {
        (bps / 1e6, "Mb/s")
    } else {
        (bps / 1e3, "kb/s")
    };
    format!("{} {unit}", (v * 1000.0).round() / 1000.0)
}

/// The drawing, or `None` when there is nothing to draw (no wired links) or too much
/// ([`MAX_NODES`] once hosts are gathered). `paths`: per `[[flow]]` entry, its name and one of
/// its flows' path as node indices.
pub fn svg(sc: &Scenario, paths: &[(String, Vec<usize>)]) -> Option<String> {
    let n = sc.nodes.len();
    if sc.links.is_empty() || sc.wireless.is_some() {
        return None;
    }
    let mut adj = vec![vec![]; n];
    for l in &sc.links {
        let (a, b) = (l.from.0 as usize, l.to.0 as usize);
        if !adj[a].contains(&b) {
            adj[a].push(b);
            adj[b].push(a);
        }
    }
    let flows: Vec<(usize, usize)> = sc.flows.iter().map(|f| (f.from.0 as usize, f.to.0 as usize)).collect();
    let drawn = if n > MAX_NODES {
        gather(sc, &adj, &flows)?
    } else {
        Drawn {
            names: (0..n).map(|v| sc.node_name(fairway_core::NodeId(v as u32)).to_string()).collect(),
            group: vec![false; n],
            of: (0..n).collect(),
        }
    };
    let dn = drawn.names.len();
    let of = &drawn.of;
    let mut dadj = vec![vec![]; dn];
    for (a, nb) in adj.iter().enumerate() {
        for &b in nb {
            let (x, y) = (of[a], of[b]);
            if x != y && !dadj[x].contains(&y) {
                dadj[x].push(y);
            }
        }
    }
    let dflows: Vec<(usize, usize)> = flows.iter().map(|&(a, b)| (of[a], of[b])).collect();
    let pos = layout(dn, &dadj, &dflows);
    let cols = pos.iter().map(|p| p.0).max().unwrap_or(0) as f64 + 1.0;
    let rows = pos.iter().map(|p| p.1.abs()).fold(0.0, f64::max) * 2.0 + 1.0;
    let legend = paths.len().min(12) as f64;
    let (w, h) = (2.0 * MARGIN + (cols - 1.0) * COL + 120.0, 2.0 * MARGIN + (rows - 1.0) * ROW + 20.0 + legend * 16.0);
    let at = |v: usize| (MARGIN + 60.0 + pos[v].0 as f64 * COL, MARGIN + (rows - 1.0) / 2.0 * ROW + pos[v].1 * ROW);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    // Links: one line per pair of drawn nodes, labelled with each direction's rate and delay
    // (a gathered group's: each of its hosts').
    let mut back_of: std::collections::HashMap<(usize, usize), usize> = Default::default();
    for (i, l) in sc.links.iter().enumerate() {
        back_of.entry((l.from.0 as usize, l.to.0 as usize)).or_insert(i);
    }
    let mut drawn_pairs = std::collections::HashSet::new();
    for (i, l) in sc.links.iter().enumerate() {
        let (a, b) = (l.from.0 as usize, l.to.0 as usize);
        let (da, db) = (of[a], of[b]);
        if da == db || !drawn_pairs.insert((da.min(db), da.max(db))) {
            continue;
        }
        let back = back_of.get(&(b, a)).copied();
        let ((x1, y1), (x2, y2)) = (at(da), at(db));
        let _ = write!(s, r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#999" stroke-width="3"/>"##);
        let mut label = format!("{}, {} ms", rate_text(l.rate.0 as f64), l.delay.as_secs_f64() * 1e3);
        let q = l.queue.label().or(back.and_then(|j| sc.links[j].queue.label()));
        if let Some(q) = q {
            let _ = write!(label, ", {q}");
        }
        if let Some(j) = back.filter(|&j| sc.links[j].rate != l.rate || sc.links[j].delay != l.delay) {
            let m = &sc.links[j];
            let from = if drawn.group[da] || drawn.group[db] { "each".to_string() } else { sc.link_name(i) };
            label =
                format!("{from}: {label}; back: {}, {} ms", rate_text(m.rate.0 as f64), m.delay.as_secs_f64() * 1e3);
        } else if drawn.group[da] || drawn.group[db] {
            label = format!("each: {label}");
        }
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#444">{}</text>"##,
            (x1 + x2) / 2.0,
            (y1 + y2) / 2.0 - 6.0,
            escape(&label)
        );
    }
    // Paths: a polyline per [[flow]] entry, each a little off the links.
    for (k, (name, nodes)) in paths.iter().enumerate().take(12) {
        let off = 4.0 + 3.0 * k as f64;
        let mut hops: Vec<usize> = nodes.iter().map(|&v| of[v]).collect();
        hops.dedup();
        let pts: Vec<String> = hops.iter().map(|&v| at(v)).map(|(x, y)| format!("{},{}", x, y + off)).collect();
        let c = PALETTE[k % PALETTE.len()];
        let _ = write!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="1.5" opacity="0.9"/>"#,
            pts.join(" ")
        );
        let y = h - MARGIN / 2.0 - (legend - k as f64) * 16.0 + 16.0;
        let _ = write!(
            s,
            r#"<line x1="{MARGIN}" y1="{y}" x2="{}" y2="{y}" stroke="{c}" stroke-width="2"/><text x="{}" y="{}">{}</text>"#,
            MARGIN + 24.0,
            MARGIN + 30.0,
            y + 4.0,
            escape(name)
        );
    }
    for (v, links) in dadj.iter().enumerate() {
        let (x, y) = at(v);
        let router = links.len() >= 2;
        let fill = if router { "#333" } else { "#fff" };
        let _ = write!(s, r##"<circle cx="{x}" cy="{y}" r="9" fill="{fill}" stroke="#333" stroke-width="2"/>"##);
        if drawn.group[v] {
            // A stack of hosts: a second ring behind the first.
            let _ = write!(
                s,
                r##"<circle cx="{}" cy="{}" r="9" fill="none" stroke="#333" stroke-width="1.5"/>"##,
                x + 4.0,
                y + 4.0
            );
        }
        let _ = write!(
            s,
            r#"<text x="{x}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"#,
            y - 14.0,
            escape(&drawn.names[v])
        );
    }
    s.push_str("</svg>\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::layout;

    fn adjacency(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut adj = vec![vec![]; n];
        for &(a, b) in pairs {
            adj[a].push(b);
            adj[b].push(a);
        }
        adj
    }

    /// A dumbbell: sources left of the first router, sinks right of the second, whichever
    /// router the numbering meets first.
    #[test]
    fn a_dumbbell_reads_left_to_right() {
        // 0, 1 sources; 2, 3 routers; 4, 5 sinks; the routers listed sink side first.
        let adj = adjacency(6, &[(3, 4), (3, 5), (3, 2), (0, 2), (1, 2)]);
        let pos = layout(6, &adj, &[(0, 4), (1, 5)]);
        let cols: Vec<i64> = pos.iter().map(|p| p.0).collect();
        assert_eq!(cols, [0, 0, 1, 2, 3, 3]);
        assert_eq!(pos[2].1, 0.0, "a router in its column's middle");
        assert_ne!(pos[0].1, pos[1].1);
    }

    /// A parking lot: three routers in a row; the middle one's hosts in its own column.
    #[test]
    fn a_parking_lots_cross_traffic_hangs_off_its_router() {
        // routers 0-1-2; hosts 3 (on 0), 4 (on 2), 5 and 6 (on 1).
        let adj = adjacency(7, &[(0, 1), (1, 2), (3, 0), (4, 2), (5, 1), (6, 1)]);
        let pos = layout(7, &adj, &[(3, 4), (5, 6)]);
        let cols: Vec<i64> = pos.iter().map(|p| p.0).collect();
        assert_eq!(cols, [1, 2, 3, 0, 4, 2, 2]);
        assert_eq!(pos[1].1, 0.0);
        assert!(pos[5].1 < 0.0 && pos[6].1 > 0.0, "one above, one below: {pos:?}");
    }

    /// A star: senders left of the hub, receivers right; a single link: two columns.
    #[test]
    fn a_star_and_a_single_link() {
        let adj = adjacency(4, &[(0, 1), (0, 2), (0, 3)]);
        let pos = layout(4, &adj, &[(1, 3), (2, 3)]);
        assert_eq!(pos.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 0, 0, 2]);
        let pos = layout(2, &adjacency(2, &[(0, 1)]), &[(1, 0)]);
        assert_eq!(pos.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 0], "the sender on the left");
    }
}
