#!/usr/bin/env python3
"""fairway's queue disciplines and CUBIC beside their peers: wall time, peak memory and delivered
throughput on the mid dumbbell (100 FTP + 10 CBR of 5 Mb/s through 100 Mb/s, 20 s).

    python3 bench/aqm.py [--reps N] [--seed S] [--out bench/results-aqm.md]

  dcbt-mid      scenarios/bench/dcbt-mid.toml (D-CBT, chung-dcbt) beside ns-2 2.35 running RED on
                the same dumbbell (validation/dumbbell.tcl; ns-2 has no D-CBT)
  fq-codel-mid  scenarios/bench/fq-codel-mid.toml (FQ-CoDel) beside ns-3 3.37's FqCoDelQueueDisc
                (validation/ns3/aqm.cc, built by validation/ns3/build.sh when missing)
  cubic-mid     scenarios/bench/cubic-mid.toml (100 CUBIC flows as ns-3.37's TcpCubic runs them,
                DropTail) beside ns-3 3.37 running TcpCubic on the same dumbbell (aqm.cc --tcp=cubic)

Each file names its twin's command in its header. The tools run interleaved (fairway, the peer,
fairway, ...) with the same seed; medians of the repetitions. Measures with bench/bench.py's
`measure` (GNU time's %M for peak memory). Nothing here asserts anything: it measures and prints.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench  # noqa: E402  (measure, build_fairway, machine, fmt_s)


def twin_line(toml, prefix):
    """The twin command a bench scenario's header names after `#   <prefix>`."""
    for line in open(toml):
        s = line.lstrip("#").strip()
        if s.startswith(prefix):
            return s.split()
    raise SystemExit(f"{toml} names no twin starting with {prefix!r}")


def fairway_run(exe, toml, seed, tmp):
    out = tempfile.mkdtemp(prefix="fw-", dir=tmp)
    m = bench.measure([exe, "run", toml, "--out", out, "-q", "--seed", str(seed)])
    if m["rc"] == 0:
        s = json.load(open(os.path.join(out, "summary.json")))
        cls = {c["class"]: c for c in s["classes"]}
        link = next(l for l in s["links"] if l["name"] == "r1->r2")
        m.update(tcp=cls.get("tcp", {}).get("throughput_bps", 0) / 1e6,
                 udp=cls.get("udp", {}).get("throughput_bps", 0) / 1e6,
                 drops=link["drops_pkts"])
    shutil.rmtree(out, ignore_errors=True)
    return m


def ns2_run(words, seed, tmp):
    """words: ns validation/dumbbell.tcl out.json SEED args..."""
    fd, out = tempfile.mkstemp(prefix="ns2-", suffix=".json", dir=tmp)
    os.close(fd)
    cmd = [shutil.which("ns") or "ns", os.path.join(ROOT, words[1]), out, str(seed)] + words[4:]
    m = bench.measure(cmd)
    if m["rc"] == 0:
        j = json.load(open(out))
        by = {"tcp": 0, "udp": 0}
        for f in j["flows"]:
            by[f["class"]] += f["recv_bytes"]
        link = next(l for l in j["links"] if l["name"] == "r1->r2")
        m.update(tcp=by["tcp"] * 8 / j["duration_s"] / 1e6, udp=by["udp"] * 8 / j["duration_s"] / 1e6,
                 drops=link["drops_pkts"])
    os.unlink(out)
    return m


def ns3_run(exe, words, seed, tmp):
    """words: validation/ns3/build/aqm --qdisc=... (the rest of the header's line)."""
    fd, out = tempfile.mkstemp(prefix="ns3-", suffix=".json", dir=tmp)
    os.close(fd)
    m = bench.measure([exe, f"--out={out}", f"--seed={seed}"] + words[1:])
    if m["rc"] == 0:
        j = json.load(open(out))
        d = j["duration_s"]
        m.update(tcp=sum(f["recv_bytes"] for f in j["flows"] if f["class"] == "tcp") * 8 / d / 1e6,
                 udp=sum(f["recv_bytes"] for f in j["flows"] if f["class"] == "udp") * 8 / d / 1e6,
                 drops=j["links"][0]["drops_pkts"])
    os.unlink(out)
    return m


def ns3_binary():
    exe = os.path.join(ROOT, "validation", "ns3", "build", "aqm")
    if not os.path.exists(exe):
        r = subprocess.run(["bash", os.path.join(ROOT, "validation", "ns3", "build.sh"), "aqm"], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            return None
    return exe


def summary(runs):
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return None
    return dict(n=len(ok), wall=statistics.median(r["wall_s"] for r in ok),
                cpu=statistics.median(r["cpu_s"] for r in ok), rss=max(r["rss_kb"] for r in ok) / 1024,
                tcp=ok[0]["tcp"], udp=ok[0]["udp"], drops=ok[0]["drops"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "results-aqm.md"))
    a = ap.parse_args()
    mach = bench.machine()
    tmp = tempfile.mkdtemp(prefix="fairway-aqm-bench-")
    rows = []
    notes = []
    try:
        exe, _ = bench.build_fairway(tmp)
        ns3 = ns3_binary()
        have_ns2 = shutil.which("ns") is not None
        if not have_ns2:
            notes.append("`ns` is not on PATH (apt-get install ns2): ns-2 not run")
        if ns3 is None:
            notes.append("the ns-3 twin could not be built (apt-get install ns3 libns3-dev): ns-3 not run")
        for name, peer in (("dcbt-mid", "ns-2"), ("fq-codel-mid", "ns-3"), ("cubic-mid", "ns-3")):
            toml = os.path.join(ROOT, "scenarios", "bench", f"{name}.toml")
            words = twin_line(toml, "ns validation/" if peer == "ns-2" else "validation/ns3/build/aqm")
            fw, pe = [], []
            for rep in range(a.reps):
                bench.log(f"[{name}] rep {rep + 1}/{a.reps}: fairway")
                fw.append(fairway_run(exe, toml, a.seed, tmp))
                if peer == "ns-2" and have_ns2:
                    bench.log(f"[{name}] rep {rep + 1}/{a.reps}: ns-2")
                    pe.append(ns2_run(words, a.seed, tmp))
                if peer == "ns-3" and ns3:
                    bench.log(f"[{name}] rep {rep + 1}/{a.reps}: ns-3")
                    pe.append(ns3_run(ns3, words, a.seed, tmp))
            rows.append((name, peer, summary(fw), summary(pe), " ".join(words)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    L = ["# Queue disciplines and CUBIC beside their peers (bench/aqm.py)", "",
         f"{mach['date']}; {mach['cpu']}, {mach['cores']} cores, {mach['mem']}; load average "
         f"{mach['load']} at the end; {a.reps} runs of each tool, interleaved, seed {a.seed}; medians.", "",
         "| scenario | tool | discipline | wall s | CPU s | peak MB | TCP Mb/s | UDP Mb/s | drops | peer / fairway wall |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for name, peer, fw, pe, cmd in rows:
        disc = {"dcbt-mid": "D-CBT", "fq-codel-mid": "FQ-CoDel", "cubic-mid": "DropTail, CUBIC"}[name]
        peer_disc = "RED" if peer == "ns-2" else disc
        for tool, s, d in (("fairway", fw, disc), (peer, pe, peer_disc)):
            if s is None:
                L.append(f"| {name} | {tool} | {d} | - | - | - | - | - | - | |")
                continue
            ratio = f"{pe['wall'] / fw['wall']:.0f}x" if tool != "fairway" and fw and pe else ""
            L.append(f"| {name} | {tool} | {d} | {bench.fmt_s(s['wall'])} | {bench.fmt_s(s['cpu'])} | "
                     f"{s['rss']:.1f} | {s['tcp']:.2f} | {s['udp']:.2f} | {s['drops']} | {ratio} |")
    L += ["", "Twin commands:", ""] + [f"- {name}: `{cmd}`" for name, _, _, _, cmd in rows]
    if notes:
        L += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    md = "\n".join(L) + "\n"
    print(md)
    with open(a.out, "w") as f:
        f.write(md)


if __name__ == "__main__":
    main()
