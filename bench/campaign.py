#!/usr/bin/env python3
"""A 1000-point campaign on a local Dask cluster (two worker processes, one thread each): how
busy it keeps the machine's cores, from /proc/stat over the campaign, beside the same campaign
on local threads. Writes bench/results-campaign.md.

    python3 bench/campaign.py [--points 1000] [--duration 120s]

Needs the Python package with its campaign extra: python3 -m pip install "./python[campaign]".
"""

import argparse
import os
import platform
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cpu_times():
    """(busy, total) jiffies of all cores, from /proc/stat's first line."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]  # idle, iowait
    return sum(v) - idle, sum(v)


def measure(run):
    b0, t0 = cpu_times()
    w0 = time.perf_counter()
    c = run()
    wall = time.perf_counter() - w0
    b1, t1 = cpu_times()
    return c, wall, (b1 - b0) / max(t1 - t0, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--duration", default="120s", help="each point's simulated time (default 120s)")
    ap.add_argument("--out", default=os.path.join(HERE, "results-campaign.md"))
    args = ap.parse_args()

    import fairway
    from dask.distributed import Client, LocalCluster

    base = os.path.join(ROOT, "scenarios", "tutorial", "red-dumbbell.toml")
    text = open(base).read().replace('duration = "30s"', f'duration = "{args.duration}"')
    grid = {"seed": list(range(1, args.points + 1))}
    tmp = tempfile.mkdtemp(prefix="fairway-bench-campaign-")
    try:
        rows = []
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            c, wall, busy = measure(lambda: fairway.campaign(text, grid=grid, store=os.path.join(tmp, "dask"),
                                                             client=client))
            rows.append(("Dask LocalCluster, 2 worker processes", c, wall, busy))
        c, wall, busy = measure(lambda: fairway.campaign(text, grid=grid, store=os.path.join(tmp, "threads"), jobs=2))
        rows.append(("local threads, jobs=2", c, wall, busy))
        same = open(os.path.join(tmp, "dask", "sweep.csv"), "rb").read() == \
            open(os.path.join(tmp, "threads", "sweep.csv"), "rb").read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    cpu = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    L = [
        "# A campaign on a local Dask cluster: how busy it keeps the cores",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"- machine: {cpu}, {os.cpu_count()} cores, Linux {platform.release()}",
        f"- fairway: commit {commit}",
        f"- command: `python3 bench/campaign.py --points {args.points} --duration {args.duration}`",
        f"- the campaign: the tutorial's RED dumbbell ({args.duration} simulated) at {args.points} seeds, "
        "each point kept in a store as it ends (summary.json and three Parquet tables)",
        "- busy: the share of all cores' time not idle over the campaign, from /proc/stat (the whole machine: "
        "the driver, the scheduler, the workers and anything else running)",
        "",
        "| how | points | wall s | points/s | busy (all cores) |",
        "|---|---|---|---|---|",
    ]
    for how, c, wall, busy in rows:
        L.append(f"| {how} | {c.ran} | {wall:.1f} | {c.ran / wall:.1f} | {busy:.0%} |")
    L += ["", f"sweep.csv the same bytes both ways: {'yes' if same else 'NO'}", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))


if __name__ == "__main__":
    main()
