#!/usr/bin/env python3
"""Two fairway binaries side by side: before and after a change, on the same scenarios, runs
interleaved (before, after, after, before, ...) so that the machine's load falls on both alike.

    python3 bench/compare.py BEFORE AFTER [--reps N] [--only mid,large,series]
                             [--callgrind] [--pin CPU] [--quiet LOAD] [--out FILE]

BEFORE and AFTER are fairway binaries (build each with `cargo build --release -p fairway-cli`
from its commit and copy target/release/fairway aside). For each scenario it reports the median
CPU time (user + system) of each binary over N runs and their ratio, and checks that both wrote
the same summary.json (a speed change must not change a result; "same+" where AFTER only adds
fields, every value BEFORE wrote being equal). With --callgrind it also counts instructions
(valgrind --tool=callgrind, one run each: deterministic, unaffected by the load), which tell
small differences apart that the load's noise hides in the times.

On a shared or virtual machine the times of a half-second run move by 10% from one set of runs
to the next. Three things make the ratio steadier:
  - the order alternates each repetition (before, after, then after, before): a load that rises
    or falls through a set falls on both binaries alike;
  - besides the ratio of the medians, the median of the paired ratios (each repetition's after
    over its before, run back to back) with a 95% bootstrap interval;
  - --quiet LOAD: a run counts only if the rest of the machine used at most LOAD cores while it
    ran (from /proc/stat, less the run's own CPU time); otherwise the pair is run again, after a
    pause, up to 20 times. --pin CPU runs both binaries on that CPU (taskset), so that neither
    gains from a cache the other warmed on another core.
The table says how many pairs were repeated for load.

Scenarios:
  mid       scenarios/validation/dumbbell-mid.toml (100 NewReno + 10 CBR through RED, 20 s)
  large     scenarios/bench/large.toml
  series    scenarios/bench/series-1000.toml
  series10k scenarios/bench/series-10000.toml (a longer run: about 0.7 s, 11 000 flows)
  tfrc      scenarios/bench/tfrc-100.toml

Nothing here asserts anything: it measures and prints. Python 3 standard library only.
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from bench import measure  # noqa: E402  (wall time, peak memory and CPU time of one process)

SCENARIOS = {
    "mid": "scenarios/validation/dumbbell-mid.toml",
    "large": "scenarios/bench/large.toml",
    "series": "scenarios/bench/series-1000.toml",
    "series10k": "scenarios/bench/series-10000.toml",
    "tfrc": "scenarios/bench/tfrc-100.toml",
}

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def busy_seconds():
    """CPU time the whole machine spent busy so far (every CPU: user, nice, system, irq, softirq,
    steal), from /proc/stat; None where there is none."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...
    return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / TICK


def run(binary, scenario, out, pin):
    """One run: (CPU seconds, wall seconds, peak RSS KB, CPU the rest of the machine used meanwhile,
    in cores)."""
    cmd = [binary, "run", scenario, "--out", out, "--quiet"]
    if pin is not None:
        cmd = ["taskset", "-c", str(pin)] + cmd
    b0 = busy_seconds()
    m = measure(cmd, cwd=ROOT)
    b1 = busy_seconds()
    if m["rc"] != 0:
        sys.exit(f"{binary} failed on {scenario}: {m['err']}")
    others = None
    if b0 is not None and b1 is not None and m["wall_s"] > 0:
        others = max(0.0, (b1 - b0) - m["cpu_s"]) / m["wall_s"]
    return m["cpu_s"], m["wall_s"], m["rss_kb"], others


def instructions(binary, scenario, out):
    with tempfile.NamedTemporaryFile() as cg:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg.name}", binary, "run",
                            scenario, "--out", out, "--quiet"], cwd=ROOT, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"callgrind failed on {scenario}: {r.stderr[-500:]}")
    return int(m.group(1))


def covers(before, after):
    """Whether `after` holds every value of `before` unchanged (it may add fields)."""
    if isinstance(before, dict):
        return isinstance(after, dict) and all(k in after and covers(v, after[k]) for k, v in before.items())
    if isinstance(before, list):
        return isinstance(after, list) and len(before) == len(after) and all(map(covers, before, after))
    return before == after


def same_summary(a, b):
    ta, tb = open(a).read(), open(b).read()
    if ta == tb:
        return "yes"
    return "same+" if covers(json.loads(ta), json.loads(tb)) else "NO"


def paired(ratios, n_boot=2000):
    """Median of the paired ratios and a 95% bootstrap interval for it."""
    med = statistics.median(ratios)
    rng = random.Random(1)
    boots = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(n_boot))
    return med, boots[int(0.025 * n_boot)], boots[int(0.975 * n_boot) - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--reps", type=int, default=5, help="runs of each binary per scenario (default 5)")
    ap.add_argument("--only", default="mid,large,series", help="scenarios, comma-separated")
    ap.add_argument("--callgrind", action="store_true", help="count instructions too")
    ap.add_argument("--pin", type=int, help="run both binaries on this CPU (taskset -c)")
    ap.add_argument("--quiet", type=float,
                    help="count a pair only if the rest of the machine used at most this many cores meanwhile")
    ap.add_argument("--out", help="append the table to this file")
    a = ap.parse_args()
    bins = [os.path.abspath(a.before), os.path.abspath(a.after)]
    rows = []
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.only.split(","):
            sc = SCENARIOS[name]
            cpu = [[], []]
            rss = [0, 0]
            redone = 0
            for rep in range(a.reps):
                order = [0, 1] if rep % 2 == 0 else [1, 0]
                for attempt in range(21):
                    got = {}
                    for i in order:
                        got[i] = run(bins[i], sc, os.path.join(tmp, f"{name}-{i}"), a.pin)
                    busy = [got[i][3] for i in order if got[i][3] is not None]
                    if a.quiet is None or not busy or max(busy) <= a.quiet or attempt == 20:
                        break
                    redone += 1
                    time.sleep(2)
                for i in (0, 1):
                    cpu[i].append(got[i][0])
                    rss[i] = max(rss[i], got[i][2])
                    if got[i][3] is not None:
                        loads.append(got[i][3])
                print(f"{name} rep {rep + 1}: before {cpu[0][-1]:.3f} s, after {cpu[1][-1]:.3f} s", file=sys.stderr)
            same = same_summary(os.path.join(tmp, f"{name}-0", "summary.json"),
                                os.path.join(tmp, f"{name}-1", "summary.json"))
            med = [statistics.median(c) for c in cpu]
            pm, lo, hi = paired([b / a_ for a_, b in zip(cpu[0], cpu[1])])
            row = [name, f"{med[0]:.3f}", f"{med[1]:.3f}", f"{med[1] / med[0]:.3f}", f"{pm:.3f} ({lo:.3f}-{hi:.3f})",
                   str(redone), f"{rss[0] // 1024}", f"{rss[1] // 1024}", same]
            if a.callgrind:
                ins = [instructions(b, sc, os.path.join(tmp, f"{name}-cg{i}")) for i, b in enumerate(bins)]
                row += [f"{ins[0]:,}".replace(",", " "), f"{ins[1]:,}".replace(",", " "), f"{ins[1] / ins[0]:.3f}"]
            rows.append(row)
    head = ["scenario", "CPU s before", "CPU s after", "ratio", "paired ratio (95%)", "pairs redone",
            "MB before", "MB after", "same summary"]
    if a.callgrind:
        head += ["instructions before", "instructions after", "ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    load = f"; the rest of the machine used {statistics.median(loads):.2f} cores (median over runs)" if loads else ""
    opts = (f", pinned to CPU {a.pin}" if a.pin is not None else "") + \
        (f", pairs counted only under {a.quiet} cores of other load" if a.quiet is not None else "")
    text = "\n".join(lines) + f"\n\nMedian of {a.reps} interleaved runs each (order alternating){opts}{load}; " \
        f"machine: {os.cpu_count()} cores, {os.uname().release}, load average {os.getloadavg()[0]:.2f} at the end.\n"
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
