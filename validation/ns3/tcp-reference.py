#!/usr/bin/env python3
"""Runs the ns-3 twin of every scenarios/validation/tcp-ns3-*.toml (validation/ns3/tcp.cc, the
command in the scenario's `# ns-3 twin:` line) with seeds 1-40 (`--seeds`) and writes what
crates/fairway-scenario/tests/tcp_ns3.rs compares fairway with when ns-3 is not installed:
validation/ns3/tcp-reference.json. Each run's record holds the exact command that made it, each
flow's goodput from the end of the warm-up, and the bottleneck's mean wait.

Usage: python3 validation/ns3/tcp-reference.py [--seeds N] [--out FILE]
       (builds the twin first: validation/ns3/build.sh tcp)
"""
import argparse
import datetime
import glob
import json
import os
import shlex
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "../.."))
PREFIX = "# ns-3 twin: "


def twin_command(toml):
    with open(toml) as f:
        for line in f:
            if line.startswith(PREFIX):
                return shlex.split(line[len(PREFIX):])
    raise SystemExit(f"{toml} names no `{PREFIX}...` line")


def run(cmd, seed):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "o.json")
        full = cmd + [f"--seed={seed}"]
        subprocess.run([os.path.join(REPO, full[0])] + full[1:] + [f"--out={out}"], check=True, cwd=REPO)
        with open(out) as f:
            v = json.load(f)
    link = v["links"][0]
    return {
        "seed": seed,
        "command": " ".join(full + ["--out=OUT.json"]),
        "goodput_bps": [f["goodput_bps"] for f in v["flows"]],
        "start_s": [round(f["start_s"], 6) for f in v["flows"]],
        "fast_recoveries": [f["fast_recoveries"] for f in v["flows"]],
        "rtos": [f["rtos"] for f in v["flows"]],
        "mean_sojourn_s": link["mean_sojourn_s"],
        "drops_measured_pkts": link["drops_measured_pkts"],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--out", default=os.path.join(HERE, "tcp-reference.json"))
    a = ap.parse_args()
    subprocess.run(["bash", os.path.join(HERE, "build.sh"), "tcp"], check=True)
    ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libns3-dev"], capture_output=True, text=True).stdout
    cases = {}
    for toml in sorted(glob.glob(os.path.join(REPO, "scenarios/validation/tcp-ns3-*.toml"))):
        name = os.path.basename(toml)[:-5]
        cmd = twin_command(toml)
        cases[name] = [run(cmd, s) for s in range(1, a.seeds + 1)]
        print(name, "done", flush=True)
    doc = {
        "made_by": "python3 validation/ns3/tcp-reference.py" + (f" --seeds {a.seeds}" if a.seeds != 40 else ""),
        "ns3": ver or "3.37",
        "date": datetime.date.today().isoformat(),
        "cases": cases,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
