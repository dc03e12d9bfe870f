#!/usr/bin/env python3
"""setdest.py: random waypoint movement files for ns-2 (and fairway), after CMU setdest version 1.

The model is that of ns-2's indep-utils/cmu-scen-gen/setdest (version 1, "original 1999 CMU"),
written afresh here with Python's random.Random(seed) instead of ns-2's RNG (so the same seed does
not give setdest's file, only the same kind of file):

  * every node starts at a uniform random point of [0, W) x [0, H), at rest;
  * it first pauses for the pause time, then picks a uniform random destination and a speed
    (--speed S: always S; --max-speed M: uniform in (0, M], as setdest's uniform() * MAXSPEED),
    moves there in a straight line, pauses again on arrival, and so on;
  * with pause 0 it never stops: a new destination is picked on each arrival (and at time 0);
  * events are written while their time is <= the duration (setdest's `while (TIME <= MAXTIME)`).

Output, in setdest's format (%.12f everywhere), events in time order (nodes in index order at
equal times, as setdest's loop):

  $node_(i) set X_ x          (then Y_, Z_ 0, node by node)
  $ns_ at T "$node_(i) setdest X Y S"

A move is one setdest to the destination at its speed; a pause is written as setdest writes it, a
setdest to the node's position with speed 0, at the arrival time. No $god_ lines are written.

Destinations are strictly inside (0, W) x (0, H) as written (ns-2's MobileNode::set_destination
refuses a point on or past the grid's edge, and the refusal is a Tcl error that ends the run):
a draw that prints as 0 or W (or H) is drawn again. Coordinates, speeds and times are rounded to
the 12 decimals written, and each arrival time is computed from the rounded values, so the file
is exactly the motion it describes.

Usage: python3 validation/setdest.py --nodes N --area WxH --pause P (--speed S | --max-speed M)
                                     --duration T --seed K --out FILE
"""

import argparse
import math
import random
import sys


def fmt(x):
    return "%.12f" % x


def rounded(x):
    return float(fmt(x))


def parse_area(s):
    try:
        w, h = s.lower().split("x")
        w, h = float(w), float(h)
    except ValueError:
        raise argparse.ArgumentTypeError("area must be WxH in metres, got %r" % s)
    if not (w > 0 and h > 0 and math.isfinite(w) and math.isfinite(h)):
        raise argparse.ArgumentTypeError("area must be positive, got %r" % s)
    return w, h


def inside_point(rng, w, h, strict):
    """A uniform point of [0, W) x [0, H) (strict: (0, W) x (0, H)), as written (rounded)."""
    while True:
        x = rounded(rng.random() * w)
        y = rounded(rng.random() * h)
        if strict:
            if 0.0 < x < w and 0.0 < y < h:
                return x, y
        elif 0.0 <= x < w and 0.0 <= y < h:
            return x, y


def generate(nodes, w, h, pause, speed, max_speed, duration, seed):
    """Returns (initial positions [(x, y)], events [(t, node, x, y, s)]) in time order."""
    rng = random.Random(seed)
    # Initial positions first, node by node (setdest draws them in its Node constructors).
    starts = [inside_point(rng, w, h, strict=False) for _ in range(nodes)]
    pos = list(starts)
    moving = [False] * nodes
    t_next = [rounded(pause)] * nodes  # the first event: the end of the initial pause
    events = []
    # Process events globally in time order, like setdest's loop, so that the draws (and so
    # the file) do not depend on how nodes are interleaved in the code.
    while True:
        t = min(t_next)
        if t > duration:
            break
        for i in range(nodes):
            if t_next[i] != t:
                continue
            if moving[i] and pause > 0.0:
                # Arrived: pause where it is.
                x, y = pos[i]
                events.append((t, i, x, y, 0.0))
                moving[i] = False
                t_next[i] = rounded(t + pause)
            else:
                # At rest (or pause 0): a new leg.
                while True:
                    dx, dy = inside_point(rng, w, h, strict=True)
                    if (dx, dy) != pos[i]:
                        break
                if speed is not None:
                    s = rounded(speed)
                else:
                    while True:
                        # uniform in (0, max]; a draw that prints as 0 is drawn again
                        s = rounded((1.0 - rng.random()) * max_speed)
                        if s > 0.0:
                            break
                dist = math.hypot(dx - pos[i][0], dy - pos[i][1])
                events.append((t, i, dx, dy, s))
                pos[i] = (dx, dy)
                moving[i] = True
                # The arrival, at the time as written (the pause's setdest, or the next leg).
                t_next[i] = rounded(t + dist / s)
    return starts, events


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Random waypoint movement file (CMU setdest version 1 semantics) for ns-2.")
    ap.add_argument("--nodes", type=int, required=True, help="number of nodes")
    ap.add_argument("--area", type=parse_area, required=True, help="WxH in metres")
    ap.add_argument("--pause", type=float, required=True, help="pause time in seconds (0: none)")
    sp = ap.add_mutually_exclusive_group(required=True)
    sp.add_argument("--speed", type=float, help="constant speed in m/s")
    sp.add_argument("--max-speed", type=float, help="speeds uniform in (0, MAX] m/s")
    ap.add_argument("--duration", type=float, required=True, help="seconds")
    ap.add_argument("--seed", type=int, required=True, help="seed of random.Random")
    ap.add_argument("--out", required=True, help="output file (- for stdout)")
    a = ap.parse_args(argv)

    if a.nodes < 1:
        ap.error("--nodes must be >= 1")
    if a.pause < 0 or not math.isfinite(a.pause):
        ap.error("--pause must be >= 0")
    if not (a.duration > 0 and math.isfinite(a.duration)):
        ap.error("--duration must be > 0")
    v = a.speed if a.speed is not None else a.max_speed
    if not (v > 0 and math.isfinite(v)):
        ap.error("the speed must be > 0")
    w, h = a.area

    starts, events = generate(a.nodes, w, h, a.pause, a.speed, a.max_speed, a.duration, a.seed)

    out = []
    if a.speed is not None:
        speedtxt = "speed: %.2f" % a.speed
    else:
        speedtxt = "max speed: %.2f" % a.max_speed
    out.append("#\n# nodes: %d, pause: %.2f, %s, max x: %.2f, max y: %.2f\n#\n"
               % (a.nodes, a.pause, speedtxt, w, h))
    out.append("# random waypoint (CMU setdest version 1 semantics), validation/setdest.py, "
               "seed %d, duration %s s\n" % (a.seed, repr(a.duration)))
    for i, (x, y) in enumerate(starts):
        out.append("$node_(%d) set X_ %s\n" % (i, fmt(x)))
        out.append("$node_(%d) set Y_ %s\n" % (i, fmt(y)))
        out.append("$node_(%d) set Z_ %s\n" % (i, fmt(0.0)))
    for t, i, x, y, s in events:
        out.append('$ns_ at %s "$node_(%d) setdest %s %s %s"\n' % (fmt(t), i, fmt(x), fmt(y), fmt(s)))
    text = "".join(out)
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
