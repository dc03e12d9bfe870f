#!/usr/bin/env python3
"""Runs dccp-ns2's grid in ns-2.35 (validation/dccp-ns2.tcl) and writes what
`fairway reproduce dccp-ns2` quotes of it: scenarios/dccp-ns2/ns2-reference.json.

Every transport (TCP Tahoe, CCID2, CCID3) and change (default, queue100, rate20, delay10,
delay50) runs once with ns-2's defaults; the DCCP runs with ECN on (ns-2's default) are repeated,
as ns-2 draws their ECN nonces from a clock-seeded generator and no two runs are alike, and run
once more with ECN off (deterministic). TCP's default run is also repeated with seeds 1-5 and
Agent/TCP's overhead_ at 400 us, ns-2's random wait before each packet (fairway's send_jitter). Each run's record: the clients' mean throughput over
10-35 s (payload, b/s), the coefficient of variation of their 1 s samples over the same window
(averaged over the clients), the clients stalled (throughput over the last 10 s of their
activity below 5% of the link's fair share; the measures of fairway-papers' dccp_ns2/mod.rs), and the
"ECN check failed!" lines ns-2 printed (each a Reset with Aggression Penalty, which ends the flow).

Usage: python3 validation/dccp-ns2-reference.py [--repeats N] [--out FILE]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TCL = os.path.join(HERE, "dccp-ns2.tcl")
CHANGES = {"default": 10e6, "queue100": 10e6, "rate20": 20e6, "delay10": 10e6, "delay50": 10e6}
LAST = [(25, 35), (40, 50), (40, 50)]


def run(transport, change, ecn, seed=1, overhead=0.0):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "o.json")
        p = subprocess.run(["ns", TCL, out, str(seed), transport, change, str(ecn), str(overhead)],
                           capture_output=True, text=True, check=True)
        with open(out) as f:
            cum = json.load(f)["cumulative_payload_bytes"]
    failures = (p.stdout + p.stderr).count("ECN check failed")
    series = [[(cum[k + 1][c] - cum[k][c]) * 8.0 for k in range(len(cum) - 1)] for c in range(3)]
    means = [statistics.fmean(s[10:35]) for s in series]

    def cv(v):
        m = statistics.fmean(v)
        return statistics.stdev(v) / m if m > 0 else None

    cvs = [cv(s[10:35]) for s in series]

    fair = CHANGES[change] / 3.0
    stalled = sum(1 for c in range(3) if statistics.fmean(series[c][LAST[c][0]:LAST[c][1]]) < 0.05 * fair)
    return {
        "transport": transport, "change": change, "ecn": bool(ecn), "overhead_s": overhead, "seed": seed,
        "mean_bps": [round(m) for m in means],
        # None when a client got nothing in the window (a stalled flow has no variation to speak of).
        "cv": round(statistics.fmean(cvs), 4) if None not in cvs else None,
        "stalled": stalled, "nonce_failures": failures,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "scenarios", "dccp-ns2", "ns2-reference.json"))
    a = ap.parse_args()
    runs = []
    for change in CHANGES:
        runs.append(run("tcp", change, 0))
        for t in ("ccid2", "ccid3"):
            for _ in range(a.repeats):
                runs.append(run(t, change, 1))
            runs.append(run(t, change, 0))
        print(change, file=sys.stderr)
    for seed in range(1, 6):
        runs.append(run("tcp", "default", 0, seed, 0.0004))
    ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True).stdout
    doc = {
        "made_by": "python3 validation/dccp-ns2-reference.py --repeats %d" % a.repeats,
        "ns2": ver or "unknown",
        "date": datetime.date.today().isoformat(),
        "runs": runs,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
