#!/usr/bin/env python3
"""janani-tfrc's Table 5 set-up at 50 nodes in fairway and in ns-2.35, pause by pause and seed by
seed (issue 36): scenarios/validation/wireless-table5.toml (50 random-waypoint nodes on
1000 m x 1000 m at 10 m/s, AODV, two 84 kb/s UDP flows of 160-byte packets, n0 -> n1 and
n2 -> n3, 100 s) with its ns-2 twin validation/wireless.tcl. For each pause and seed,
validation/setdest.py writes the movement file (--seed = the seed), which both tools read; fairway
runs with --seed = the seed, ns-2 with the same seed.

    python3 bench/table5.py [--pauses 10,40,80] [--seeds 10] [--fairway PATH] [--out bench/results-table5.md]

Per pause: the delivery ratio (packets received / sent, both flows together) and the mean delay of
the delivered packets, means over the seeds and the mean of the paired differences with its
standard error; routing packets (AODV sent or forwarded) and interface-queue drops, summed over the
nodes. Nothing here asserts anything (ns2_validation.rs's wireless_table5_agrees_with_ns2 runs a
short form); it measures and prints.
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
import bench  # noqa: E402  (build_fairway, machine, log)

SCENARIO = os.path.join(ROOT, "scenarios", "validation", "wireless-table5.toml")
FLOWS = "voip0:cbr:0:1:84000:160:0:100;voip1:cbr:2:3:84000:160:0.1:100"


def moves(tmp, pause, seed):
    path = os.path.join(tmp, f"t5-p{pause}-{seed}.tcl")
    subprocess.run([sys.executable, os.path.join(ROOT, "validation", "setdest.py"), "--nodes", "50", "--area",
                    "1000x1000", "--pause", str(pause), "--speed", "10", "--duration", "100", "--seed", str(seed),
                    "--out", path], check=True)
    return path


def fairway(exe, tmp, mv, seed):
    text = open(SCENARIO).read().replace("moves/t5-p10-1.tcl", mv)
    toml = os.path.join(tmp, "t5.toml")
    open(toml, "w").write(text)
    out = os.path.join(tmp, "fw")
    subprocess.run([exe, "run", toml, "--out", out, "-q", "--seed", str(seed)], check=True)
    s = json.load(open(os.path.join(out, "summary.json")))
    recv = sum(f["recv_pkts"] for f in s["flows"])
    sent = sum(f["sent_pkts"] for f in s["flows"])
    delay = sum(f["recv_pkts"] * (f["mean_delay_s"] or 0) for f in s["flows"]) / max(recv, 1)
    nodes = s["wireless"]["nodes"]
    return dict(pdr=recv / sent, delay=delay, routing=sum(n["routing_pkts"] for n in nodes),
                ifq=sum(n["ifq_drops"] for n in nodes))


def ns2(tmp, mv, seed):
    out = os.path.join(tmp, "ns2.json")
    subprocess.run(["ns", os.path.join(ROOT, "validation", "wireless.tcl"), out, str(seed), "100", "AODV", "0", "-",
                    FLOWS, f"area=1000x1000;moves={mv}"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    v = json.load(open(out))
    recv = sum(f["recv_pkts"] for f in v["flows"])
    sent = sum(f["sent_pkts"] for f in v["flows"])
    delay = sum(f["recv_pkts"] * (f["mean_delay_s"] or 0) for f in v["flows"]) / max(recv, 1)
    ifq = sum(n["drops"].get("IFQ", {}).get("---", 0) for n in v["nodes"])
    return dict(pdr=recv / sent, delay=delay, routing=v["routing"]["pkts"], ifq=ifq)


def paired(a, b):
    d = [x - y for x, y in zip(a, b)]
    se = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else 0.0
    return statistics.mean(d), se


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pauses", default="10,40,80")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--fairway", help="a built fairway binary (default: cargo build --release)")
    ap.add_argument("--out", default=os.path.join(HERE, "results-table5.md"))
    a = ap.parse_args()
    if shutil.which("ns") is None:
        raise SystemExit("`ns` is not on PATH (apt-get install ns2)")
    pauses = [int(p) for p in a.pauses.split(",")]
    tmp = tempfile.mkdtemp(prefix="table5-")
    exe = a.fairway or bench.build_fairway(tmp)[0]
    rows = []
    per_seed = []
    for pause in pauses:
        fw, ns = [], []
        for seed in range(1, a.seeds + 1):
            mv = moves(tmp, pause, seed)
            f, n = fairway(exe, tmp, mv, seed), ns2(tmp, mv, seed)
            fw.append(f)
            ns.append(n)
            per_seed.append((pause, seed, f, n))
            bench.log(f"pause {pause} seed {seed}: pdr {f['pdr']:.3f} / {n['pdr']:.3f}, delay {f['delay']:.3f} / "
                      f"{n['delay']:.3f} s, routing {f['routing']} / {n['routing']}, ifq drops {f['ifq']} / {n['ifq']}")
        m = lambda v, k: statistics.mean(x[k] for x in v)  # noqa: E731
        dp, sp = paired([x["pdr"] for x in fw], [x["pdr"] for x in ns])
        dd, sd = paired([x["delay"] for x in fw], [x["delay"] for x in ns])
        rows.append(f"| {pause} s | {m(fw, 'pdr'):.3f} / {m(ns, 'pdr'):.3f} | {dp:+.3f} ± {sp:.3f} | "
                    f"{m(fw, 'delay'):.3f} / {m(ns, 'delay'):.3f} s | {dd:+.3f} ± {sd:.3f} s | "
                    f"{m(fw, 'routing'):.0f} / {m(ns, 'routing'):.0f} | {sum(x['ifq'] for x in fw)} / "
                    f"{sum(x['ifq'] for x in ns)} |")
    shutil.rmtree(tmp, ignore_errors=True)
    mach = bench.machine()
    lines = [
        "# janani-tfrc Table 5 at 50 nodes: fairway against ns-2.35",
        "",
        f"`python3 bench/table5.py --pauses {a.pauses} --seeds {a.seeds}` on {mach['date']} ({mach['cpu']}, {mach['cores']} cores).",
        "Means over seeds 1 to " + str(a.seeds) + " (fairway / ns-2), each seed with its own movement file;",
        "± one standard error of the paired mean; routing packets per run; interface-queue drops summed.",
        "",
        "| pause | delivery ratio | paired difference | mean delay | paired difference | routing packets | IFQ drops |",
        "|---|---|---|---|---|---|---|",
    ] + rows + ["", "Per seed (pause, seed: fairway / ns-2):", ""]
    for pause, seed, f, n in per_seed:
        lines.append(f"- {pause} s, {seed}: pdr {f['pdr']:.3f} / {n['pdr']:.3f}, delay {f['delay']:.3f} / "
                     f"{n['delay']:.3f} s, routing {f['routing']} / {n['routing']}, IFQ drops {f['ifq']} / {n['ifq']}")
    open(a.out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[:8 + len(rows)]))


if __name__ == "__main__":
    main()
