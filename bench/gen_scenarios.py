#!/usr/bin/env python3
"""Write scenarios/bench/*.toml, the fairway side of bench/bench.py's scenarios.

Run from anywhere: python3 bench/gen_scenarios.py. The files are committed; this script only
documents how they were made (and remakes them if the parameters here change). Each scenario has
an ns-2 twin in validation/dumbbell.tcl, called by bench.py with the parameters in BENCH below.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "scenarios", "bench")

# name -> parameters. n_tcp NewReno FTP flows (window 10000, 1000 B) from 0 s, n_cbr CBR flows
# of 5 Mb/s (1000 B) from cbr_start; each host on its own `access` 2 ms link; r1-r2 `bneck`
# 10 ms RED with thresh/maxthresh/limit (packets of mean_pktsize 500 B: ns-2's byte mode).
BENCH = {
    "large": dict(n_tcp=1000, n_cbr=100, bneck="1Gb", access="10Gb", thresh=500,
                  maxthresh=1500, limit=5000, duration="10s", cbr_start="1s"),
}
# The series: the mid dumbbell (scenarios/validation/dumbbell-mid.toml) with N TCP flows and
# N/10 CBR flows, bottleneck N x 1 Mb/s, RED thresh N, maxthresh 3N, limit 10N; the duration
# shrinks as the bottleneck grows so that every point delivers about the same number of packets
# (~600 000), and the CBR flows start at 1/20 of the duration (1 s of mid's 20 s).
SERIES = {10: ("10Mb", "1Gb", "500s", "25s"),
          100: ("100Mb", "1Gb", "50s", "2.5s"),
          1000: ("1Gb", "10Gb", "5s", "0.25s"),
          10000: ("10Gb", "10Gb", "0.5s", "0.025s")}
for n, (bneck, access, duration, cbr_start) in SERIES.items():
    BENCH[f"series-{n}"] = dict(n_tcp=n, n_cbr=n // 10, bneck=bneck, access=access, thresh=n,
                                maxthresh=3 * n, limit=10 * n, duration=duration,
                                cbr_start=cbr_start)

HEAD = {
    "large": """\
# The large dumbbell of bench/bench.py: 1000 NewReno FTP flows and 100 CBR flows of 5 Mb/s,
# each host on its own 10 Gb/s 2 ms access link, through a 1 Gb/s 10 ms RED bottleneck
# (thresh 500, maxthresh 1500, limit 5000), 10 s. The mid dumbbell
# (scenarios/validation/dumbbell-mid.toml) ten times wider. ns-2 twin:
#   ns validation/dumbbell.tcl out.json 1 1000 100 1Gb 10Gb 500 1500 5000 10
# (about 5 minutes and 1 GB in ns-2, nearly all of it ns-2's route computation for 2202 nodes;
# bench.py runs it only with --with-ns2-large). RED parameters not given here are ns-2 2.35's
# defaults (byte mode, gentle, automatic q_weight).
""",
}


def series_head(n, p):
    return f"""\
# Point N = {n} of bench/bench.py's series: the mid dumbbell (scenarios/validation/dumbbell-mid.toml)
# with N = {n} NewReno FTP flows and N/10 = {n // 10} CBR flows of 5 Mb/s, the bottleneck scaled with N to
# keep each flow's share (N x 1 Mb/s = {p['bneck']}), RED thresh N, maxthresh 3N, limit 10N.
# The metric of the series is wall time per delivered packet, so the duration shrinks as the
# bottleneck grows: every point (500 s, 50 s, 5 s, 0.5 s for N = 10 ... 10 000) delivers about the
# same number of packets, ~600 000. The CBR flows start at 1/20 of the duration, as in mid (1 s of
# 20 s), so that every point carries both classes for the same share of its run.
# Access links are 1 Gb/s up to N = 100 (as in mid) and 10 Gb/s above: an access link only has to
# carry one flow (1 Mb/s of TCP share, 5 Mb/s of CBR), but keeping it at least as fast as the
# bottleneck keeps a window's burst reaching the bottleneck queue at least at the bottleneck's
# rate, as in mid. ns-2 twin:
#   ns validation/dumbbell.tcl out.json 1 {n} {n // 10} {p['bneck']} {p['access']} {n} {3 * n} {10 * n} {' '.join(ns2_args(f'series-{n}')[7:])}
"""


def body(name, p, description):
    n_tcp, n_cbr = p["n_tcp"], p["n_cbr"]
    s = f'''name = "{name}"
description = "{description}"
duration = "{p['duration']}"
seed = 1

[[link]]
between = ["r1", "r2"]
rate = "{p['bneck']}"
delay = "10ms"
queue = {{ kind = "red", bytes = true, queue_in_bytes = true, limit = {p['limit']}, thresh = {p['thresh']}, maxthresh = {p['maxthresh']} }}
'''
    for count, node, router in ((n_tcp, "ts", "r1"), (n_tcp, "td", "r2"),
                                (n_cbr, "us", "r1"), (n_cbr, "ud", "r2")):
        s += f'''
[[link]]
count = {count}
between = ["{node}{{i}}", "{router}"]
rate = "{p['access']}"
delay = "2ms"
'''
    s += f'''
[[flow]]
count = {n_tcp}
name = "tcp{{i}}"
app = "ftp"
transport = "newreno"
from = "ts{{i}}"
to = "td{{i}}"
start = "0s"
window = 10000
packet_size = "1000B"

[[flow]]
count = {n_cbr}
name = "cbr{{i}}"
app = "cbr"
from = "us{{i}}"
to = "ud{{i}}"
start = "{p['cbr_start']}"
packet_size = "1000B"
rate = "5Mb"

[monitor]
bin = "100ms"
queue_interval = "10ms"
links = ["r1->r2"]
'''
    return s


def render(name):
    """The text of scenarios/bench/<name>.toml."""
    p = BENCH[name]
    desc = (f"{p['n_tcp']} NewReno FTP + {p['n_cbr']} CBR (5 Mb/s) through a "
            f"{p['bneck']}/s RED bottleneck, {p['duration']}")
    head = HEAD[name] if name in HEAD else series_head(p["n_tcp"], p)
    return head + body(name, p, desc)


def seconds(s):
    """'0.25s' -> '0.25' (the durations above are all written in seconds)."""
    assert s.endswith("s") and not s.endswith("ms"), s
    return s[:-1]


def ns2_args(name):
    """The arguments of validation/dumbbell.tcl after <out.json> <seed> for scenario `name`."""
    p = BENCH[name]
    return [str(p["n_tcp"]), str(p["n_cbr"]), p["bneck"], p["access"], str(p["thresh"]),
            str(p["maxthresh"]), str(p["limit"]), seconds(p["duration"]), seconds(p["cbr_start"])]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in BENCH:
        path = os.path.join(OUT, f"{name}.toml")
        with open(path, "w") as f:
            f.write(render(name))
        print(path)


if __name__ == "__main__":
    main()
