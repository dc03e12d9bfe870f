#!/usr/bin/env python3
"""dccp-ns2's grid beside ns-2.35: wall time and peak memory of each run of `fairway reproduce
dccp-ns2` (TCP Tahoe, CCID2, CCID3; the default set-up and the queue at 100, 20 Mb/s, 10 and
50 ms), in fairway and in ns-2 (validation/dccp-ns2.tcl, ECN off), one run of each at a time.

    python3 bench/dccp.py [--reps N] [--out bench/results-dccp.md]

fairway runs scenarios/dccp-ns2/<transport>.toml with the change made to its bottleneck and
without its random wait (ns-2's agents have none: both sides simulate the same deterministic
run; the delivered payload is printed beside the times). The tools run interleaved; medians of
the repetitions. Measures with bench/bench.py's `measure` (GNU time's %M for peak memory).
Nothing here asserts anything: it measures and prints.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench  # noqa: E402  (measure, build_fairway, machine, fmt_s, log)

TRANSPORTS = ["tcp", "ccid2", "ccid3"]
# change: (bottleneck rate, delay, queue), as fairway-papers' dccp_ns2/mod.rs's Change::bottleneck.
CHANGES = {"default": ("10Mb", "2ms", 20), "queue100": ("10Mb", "2ms", 100), "rate20": ("20Mb", "2ms", 20),
           "delay10": ("10Mb", "10ms", 20), "delay50": ("10Mb", "50ms", 20)}


def scenario(transport, change, tmp):
    """The transport's file with the change made to its first link and the random wait removed."""
    text = open(os.path.join(ROOT, "scenarios", "dccp-ns2", f"{transport}.toml")).read()
    rate, delay, limit = CHANGES[change]
    head, sep, rest = text.partition("[[link]]")
    first, sep2, tail = rest.partition("[[link]]")
    first = re.sub(r'rate = "[^"]*"', f'rate = "{rate}"', first, count=1)
    first = re.sub(r'delay = "[^"]*"', f'delay = "{delay}"', first, count=1)
    first = re.sub(r"limit = \d+", f"limit = {limit}", first, count=1)
    text = head + sep + first + sep2 + tail
    text = "\n".join(l for l in text.splitlines() if not l.startswith("send_jitter")) + "\n"
    path = os.path.join(tmp, f"{transport}-{change}.toml")
    with open(path, "w") as f:
        f.write(text)
    return path


def fairway_run(exe, toml, tmp):
    out = tempfile.mkdtemp(prefix="fw-", dir=tmp)
    m = bench.measure([exe, "run", toml, "--out", out, "-q"])
    if m["rc"] == 0:
        s = json.load(open(os.path.join(out, "summary.json")))
        m["payload_mb"] = sum(f["goodput_bps"] * (f["stop_s"] - f["start_s"]) for f in s["flows"]) / 8e6
    shutil.rmtree(out, ignore_errors=True)
    return m


def ns2_run(transport, change, tmp):
    fd, out = tempfile.mkstemp(prefix="ns2-", suffix=".json", dir=tmp)
    os.close(fd)
    m = bench.measure([shutil.which("ns") or "ns", os.path.join(ROOT, "validation", "dccp-ns2.tcl"), out, "1",
                       transport, change, "0"])
    if m["rc"] == 0:
        cum = json.load(open(out))["cumulative_payload_bytes"]
        m["payload_mb"] = sum(cum[-1]) / 1e6
    os.unlink(out)
    return m


def med(runs):
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return None
    return dict(wall=statistics.median(r["wall_s"] for r in ok), rss=max(r["rss_kb"] for r in ok) / 1024,
                payload=ok[0]["payload_mb"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results-dccp.md"))
    a = ap.parse_args()
    if shutil.which("ns") is None:
        raise SystemExit("`ns` is not on PATH (apt-get install ns2)")
    mach = bench.machine()
    tmp = tempfile.mkdtemp(prefix="fairway-dccp-bench-")
    rows = []
    try:
        exe, _ = bench.build_fairway(tmp)
        for t in TRANSPORTS:
            for ch in CHANGES:
                toml = scenario(t, ch, tmp)
                fw, ns = [], []
                for rep in range(a.reps):
                    bench.log(f"[{t} {ch}] rep {rep + 1}/{a.reps}")
                    fw.append(fairway_run(exe, toml, tmp))
                    ns.append(ns2_run(t, ch, tmp))
                rows.append((t, ch, med(fw), med(ns)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    L = ["# dccp-ns2's grid beside ns-2 (bench/dccp.py)", "",
         f"{mach['date']}; {mach['cpu']}, {mach['cores']} cores, {mach['mem']}; load average {mach['load']} at the "
         f"end; {a.reps} runs of each tool per point, interleaved; medians (peak memory: the largest). Each run "
         "simulates 55 s of three clients; the payload delivered is the two tools' (MB).", "",
         "| transport | run | fairway wall s | ns-2 wall s | ns-2 / fairway | fairway MB peak | ns-2 MB peak | "
         "payload fairway / ns-2 (MB) |", "|---|---|---|---|---|---|---|---|"]
    tot_fw = tot_ns = 0.0
    for t, ch, fw, ns in rows:
        if fw is None or ns is None:
            L.append(f"| {t} | {ch} | - | - | - | - | - | - |")
            continue
        tot_fw += fw["wall"]
        tot_ns += ns["wall"]
        L.append(f"| {t} | {ch} | {bench.fmt_s(fw['wall'])} | {bench.fmt_s(ns['wall'])} | {ns['wall'] / fw['wall']:.0f}x | "
                 f"{fw['rss']:.1f} | {ns['rss']:.1f} | {fw['payload']:.1f} / {ns['payload']:.1f} |")
    if tot_fw > 0:
        L += ["", f"The whole grid: fairway {bench.fmt_s(tot_fw)} s, ns-2 {bench.fmt_s(tot_ns)} s ({tot_ns / tot_fw:.0f}x)."]
    md = "\n".join(L) + "\n"
    print(md)
    with open(a.out, "w") as f:
        f.write(md)


if __name__ == "__main__":
    main()
