#!/usr/bin/env python3
"""janani-tfrc's wireless set-up beside ns-2.35: wall time and peak memory of
scenarios/bench/wireless-50.toml (fifty random-waypoint nodes, AODV, 802.11, three TFRC, three
TCP and three CBR flows, 100 s) in fairway and in ns-2 (validation/wireless.tcl with the same
movement file), one run of each at a time, interleaved.

    python3 bench/wireless.py [--reps N] [--out bench/results-wireless.md]

ns-2 runs twice per repetition: with `trace=off` (no agent, router or MAC trace: ns-2's own
speed, the ratio the table reports) and with the traced twin that the validation parses (its
trace is how ns-2 users get their numbers; the JSON gives the delivered packets printed beside
fairway's). Measures with bench/bench.py's `measure` (GNU time's %M for peak memory). Nothing
here asserts anything: it measures and prints.
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench  # noqa: E402  (measure, build_fairway, machine, fmt_s, log)

SCENARIO = os.path.join(ROOT, "scenarios", "bench", "wireless-50.toml")


def twin_args():
    """The arguments after SEED in the scenario's `# ns-2 twin:` line."""
    for line in open(SCENARIO):
        if line.startswith("# ns-2 twin: ns "):
            words = line.split()
            return words[words.index("SEED") + 1:]
    raise SystemExit(f"{SCENARIO} names no ns-2 twin")


def fairway_run(exe, tmp):
    out = tempfile.mkdtemp(prefix="fw-", dir=tmp)
    m = bench.measure([exe, "run", SCENARIO, "--out", out, "-q"])
    if m["rc"] == 0:
        s = json.load(open(os.path.join(out, "summary.json")))
        m["delivered"] = sum(f["recv_distinct_pkts"] for f in s["flows"])
        m["events"] = s["events"]
    shutil.rmtree(out, ignore_errors=True)
    return m


def ns2_run(tmp, traced):
    fd, out = tempfile.mkstemp(prefix="ns2-", suffix=".json", dir=tmp)
    os.close(fd)
    args = twin_args()
    if not traced:
        args = args[:-1] + [args[-1] + ";trace=off"]
    m = bench.measure([shutil.which("ns") or "ns", os.path.join(ROOT, "validation", "wireless.tcl"), out, "1"] + args,
                      cwd=ROOT)
    if m["rc"] == 0 and traced:
        m["delivered"] = sum(f["recv_pkts"] for f in json.load(open(out))["flows"])
    os.unlink(out)
    return m


def med(runs):
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return None
    return dict(wall=statistics.median(r["wall_s"] for r in ok), rss=max(r["rss_kb"] for r in ok) / 1024,
                delivered=ok[0].get("delivered"), events=ok[0].get("events"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results-wireless.md"))
    a = ap.parse_args()
    if shutil.which("ns") is None:
        raise SystemExit("`ns` is not on PATH (apt-get install ns2)")
    mach = bench.machine()
    tmp = tempfile.mkdtemp(prefix="fairway-wireless-bench-")
    try:
        exe, _ = bench.build_fairway(tmp)
        fw, ns, nst = [], [], []
        for rep in range(a.reps):
            bench.log(f"[wireless-50] rep {rep + 1}/{a.reps}")
            fw.append(fairway_run(exe, tmp))
            ns.append(ns2_run(tmp, False))
            nst.append(ns2_run(tmp, True))
        fw, ns, nst = med(fw), med(ns), med(nst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if fw is None or ns is None or nst is None:
        raise SystemExit("a run failed")
    L = ["# janani-tfrc's wireless set-up beside ns-2 (bench/wireless.py)", "",
         f"{mach['date']}; {mach['cpu']}, {mach['cores']} cores, {mach['mem']}; load average {mach['load']} at the "
         f"end; {a.reps} runs of each, interleaved; medians (peak memory: the largest). "
         "scenarios/bench/wireless-50.toml: 50 random-waypoint nodes over 1000 m x 1000 m, AODV, 802.11 at "
         "1 Mb/s with RTS/CTS, 3 TFRC + 3 TCP + 3 CBR flows, 100 s simulated; both tools read the same "
         f"movement file. fairway processed {fw['events']} events.", "",
         "| run | wall s | peak MB | ns-2 / fairway (wall) | data packets delivered |", "|---|---|---|---|---|",
         f"| fairway | {bench.fmt_s(fw['wall'])} | {fw['rss']:.1f} | | {fw['delivered']} |",
         f"| ns-2, no trace | {bench.fmt_s(ns['wall'])} | {ns['rss']:.1f} | {ns['wall'] / fw['wall']:.1f}x | - |",
         f"| ns-2, traced (as the validation runs it, trace parsed) | {bench.fmt_s(nst['wall'])} | {nst['rss']:.1f} | "
         f"{nst['wall'] / fw['wall']:.1f}x | {nst['delivered']} |"]
    untraced, traced = ns["wall"] / fw["wall"], nst["wall"] / fw["wall"]
    verdict = lambda ratio, target: f"{ratio:.1f}x, target {target}x: {'met' if ratio >= target else 'not met'}"
    L += ["", "Where the time goes. Every frame reaches every node within carrier-sense range (550 m: most of "
          "this area) as two events at each, the first bit and the end of reception, in both tools (ns-2: "
          "WirelessChannel::sendUp's copy per node and the MAC's receive timer). fairway's count of events "
          f"({fw['events']} for 100 s) includes those that stations kept and replayed at their next event "
          "rather than ran from the event queue (wireless/overheard.rs: the frames a station need not decode, "
          "about 83% of the events here); the rest are decodable broadcasts, frames for the station, its own "
          "timers and what it sends. Issue 36's targets: without ns-2's trace " + verdict(untraced, 10) +
          "; with it " + verdict(traced, 20) + "."]
    md = "\n".join(L) + "\n"
    print(md)
    with open(a.out, "w") as f:
        f.write(md)


if __name__ == "__main__":
    main()
