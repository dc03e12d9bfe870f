#!/usr/bin/env python3
"""Two fairway binaries side by side: before and after a change, on the same scenarios, runs
interleaved (before, after, before, ...) so that the machine's load falls on both alike.

    python3 bench/compare.py BEFORE AFTER [--reps N] [--only mid,large,series]
                             [--callgrind] [--out FILE]

BEFORE and AFTER are fairway binaries (build each with `cargo build --release -p fairway-cli`
from its commit and copy target/release/fairway aside). For each scenario it reports the median
CPU time (user + system) of each binary over N runs and their ratio, and checks that both wrote
the same summary.json (a speed change must not change a result). With --callgrind it also counts
instructions (valgrind --tool=callgrind, one run each: deterministic, unaffected by the load),
which tell small differences apart that the load's noise hides in the times.

Scenarios:
  mid     scenarios/validation/dumbbell-mid.toml (100 NewReno + 10 CBR through RED, 20 s)
  large   scenarios/bench/large.toml
  series  scenarios/bench/series-1000.toml
  tfrc    scenarios/bench/tfrc-100.toml

Nothing here asserts anything: it measures and prints. Python 3 standard library only.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from bench import measure  # noqa: E402  (wall time, peak memory and CPU time of one process)

SCENARIOS = {
    "mid": "scenarios/validation/dumbbell-mid.toml",
    "large": "scenarios/bench/large.toml",
    "series": "scenarios/bench/series-1000.toml",
    "tfrc": "scenarios/bench/tfrc-100.toml",
}


def run(binary, scenario, out):
    m = measure([binary, "run", scenario, "--out", out, "--quiet"], cwd=ROOT)
    if m["rc"] != 0:
        sys.exit(f"{binary} failed on {scenario}: {m['err']}")
    return m["cpu_s"], m["wall_s"], m["rss_kb"]


def instructions(binary, scenario, out):
    with tempfile.NamedTemporaryFile() as cg:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg.name}", binary, "run",
                            scenario, "--out", out, "--quiet"], cwd=ROOT, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"callgrind failed on {scenario}: {r.stderr[-500:]}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--reps", type=int, default=5, help="runs of each binary per scenario (default 5)")
    ap.add_argument("--only", default="mid,large,series", help="scenarios, comma-separated")
    ap.add_argument("--callgrind", action="store_true", help="count instructions too")
    ap.add_argument("--out", help="append the table to this file")
    a = ap.parse_args()
    bins = [os.path.abspath(a.before), os.path.abspath(a.after)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.only.split(","):
            sc = SCENARIOS[name]
            cpu = [[], []]
            rss = [0, 0]
            for rep in range(a.reps):
                for i, b in enumerate(bins):
                    c, _, r = run(b, sc, os.path.join(tmp, f"{name}-{i}"))
                    cpu[i].append(c)
                    rss[i] = max(rss[i], r)
                print(f"{name} rep {rep + 1}: before {cpu[0][-1]:.2f} s, after {cpu[1][-1]:.2f} s", file=sys.stderr)
            same = open(os.path.join(tmp, f"{name}-0", "summary.json")).read() == \
                open(os.path.join(tmp, f"{name}-1", "summary.json")).read()
            med = [statistics.median(c) for c in cpu]
            row = [name, f"{med[0]:.2f}", f"{med[1]:.2f}", f"{med[1] / med[0]:.3f}", f"{rss[0] // 1024}",
                   f"{rss[1] // 1024}", "yes" if same else "NO"]
            if a.callgrind:
                ins = [instructions(b, sc, os.path.join(tmp, f"{name}-cg{i}")) for i, b in enumerate(bins)]
                row += [f"{ins[0]:,}".replace(",", " "), f"{ins[1]:,}".replace(",", " "), f"{ins[1] / ins[0]:.3f}"]
            rows.append(row)
    head = ["scenario", "CPU s before", "CPU s after", "ratio", "MB before", "MB after", "same summary"]
    if a.callgrind:
        head += ["instructions before", "instructions after", "ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines) + f"\n\nMedian of {a.reps} interleaved runs each; machine: {os.cpu_count()} cores, " \
        f"{os.uname().release}.\n"
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
