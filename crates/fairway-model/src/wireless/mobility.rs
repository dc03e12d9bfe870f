//! How wireless nodes move, as a scenario says it: ns-2 `setdest` moves (its movement files,
//! as CMU's setdest writes them) or setdest's random waypoint model. fairway-engine's
//! `wireless::mobility` moves the nodes.

use fairway_core::{Dur, Time};

/// How a random waypoint node draws its speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// The same speed on every move, m/s.
    Constant(f64),
    /// Uniform in (min, max] m/s (setdest's version 1 draws in (0, max]).
    Uniform { min: f64, max: f64 },
}

/// One `setdest` command: at `at`, node `node` (its wireless index) heads for (x, y) at `speed`
/// m/s; speed 0 stops it where it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetDest {
    pub at: Time,
    pub node: usize,
    pub x: f64,
    pub y: f64,
    pub speed: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MobilitySpec {
    /// setdest's random waypoint over the rectangle [0, width) x [0, height).
    RandomWaypoint { width: f64, height: f64, speed: Speed, pause: Dur },
    /// Explicit moves, in time order; `width` and `height` bound the topography (ns-2 ignores a
    /// destination on or beyond its edges).
    Moves { width: f64, height: f64, moves: Vec<SetDest> },
}

/// Reads ns-2 movement commands (the lines CMU's setdest writes), for wireless nodes numbered
/// as ns-2's `$node_(i)`: `$node_(i) set X_ 12.5`, `$node_(i) set Y_ 40`, `$node_(i) set Z_ 0`
/// (initial positions) and `$ns_ at 2.0 "$node_(i) setdest 100 200 5.0"`. Comments (`#`) and
/// blank lines are skipped; `$god_` lines are ignored. Returns the initial positions given (node,
/// x or y) and the moves in time order, or the line number and what is wrong.
pub type Initial = Vec<(usize, char, f64)>;

pub fn parse_moves(text: &str) -> Result<(Initial, Vec<SetDest>), (usize, String)> {
    let mut init = vec![];
    let mut moves = vec![];
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if line.is_empty() || line.starts_with('#') || line.contains("$god_") {
            continue;
        }
        let node_of = |s: &str| -> Result<usize, (usize, String)> {
            let inner = s
                .strip_prefix("$node_(")
                .and_then(|r| r.strip_suffix(')'))
                .ok_or((n, format!("expected $node_(i), got `{s}`")))?;
            inner.parse().map_err(|_| (n, format!("node index `{inner}` is not a number")))
        };
        let num = |s: &str| -> Result<f64, (usize, String)> {
            let v: f64 = s.trim_matches('"').parse().map_err(|_| (n, format!("`{s}` is not a number")))?;
            if v.is_finite() {
                Ok(v)
            } else {
                Err((n, format!("`{s}` is not a finite number")))
            }
        };
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            [node, "set", coord, v] => {
                let c = match *coord {
                    "X_" => 'x',
                    "Y_" => 'y',
                    "Z_" => continue,
                    other => return Err((n, format!("unknown coordinate `{other}` (X_, Y_, Z_)"))),
                };
                init.push((node_of(node)?, c, num(v)?));
            }
            [ns, "at", t, node, "setdest", x, y, s] if ns.starts_with('$') => {
                let at = num(t)?;
                let speed = num(s)?;
                if at < 0.0 || speed < 0.0 {
                    return Err((n, "negative time or speed".into()));
                }
                let node = node_of(node.trim_start_matches('"'))?;
                moves.push(SetDest { at: Time::from_secs_f64(at), node, x: num(x)?, y: num(y)?, speed });
            }
            _ => {
                return Err((n, format!("not a movement command: `{line}` (expected `$node_(i) set X_ v` or `$ns_ at t \"$node_(i) setdest x y speed\"`)")))
            }
        }
    }
    // Stable: commands for the same time keep their order, as ns-2 runs them.
    moves.sort_by_key(|m| m.at);
    Ok((init, moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: f64) -> Time {
        Time::from_secs_f64(s)
    }

    #[test]
    fn setdest_files_are_read() {
        let text = "# nodes: 2\n$node_(0) set X_ 10.0\n$node_(0) set Y_ 20.0\n$node_(0) set Z_ 0.0\n\
                    $ns_ at 5.0 \"$node_(1) setdest 100.0 50.0 3.5\"\n$ns_ at 1.5 \"$node_(0) setdest 1 2 0\"\n\
                    $god_ set-dist 0 1 2\n";
        let (init, moves) = parse_moves(text).unwrap();
        assert_eq!(init, vec![(0, 'x', 10.0), (0, 'y', 20.0)]);
        assert_eq!(moves.len(), 2);
        assert_eq!((moves[0].node, moves[0].at), (0, t(1.5)));
        assert_eq!((moves[1].x, moves[1].y, moves[1].speed), (100.0, 50.0, 3.5));
        let e = parse_moves("$node_(0) set W_ 1\n").unwrap_err();
        assert_eq!(e.0, 1);
        let e = parse_moves("\n$ns_ at x \"$node_(0) setdest 1 2 3\"\n").unwrap_err();
        assert_eq!(e.0, 2);
        assert!(e.1.contains("`x` is not a number"), "{}", e.1);
    }
}
