#!/usr/bin/env python3
"""The emulated bottleneck's forwarding speed and added jitter, beside Linux's own path.

Runs as root. For each offered rate, iperf3 sends 1472-byte UDP datagrams (1500-byte IP packets)
from one namespace to another for --seconds, twice:

  fairway  `fairway emulate` of a 10 Gb/s link with 50 ms of delay and RED (thresholds far above
           what 50 ms holds, so that the discipline runs on every packet but drops none by design);
  kernel   a veth pair between two namespaces with netem's 50 ms delay (Linux's emulator; netem
           cannot sit under RED, so it runs alone); where the kernel has no netem, the bare veth
           pair, which shows what iperf3 itself reaches on the machine.

and writes bench/results-emulate.md: what the receiver got (Mb/s), the share lost, and iperf3's
jitter (RFC 3550's, over the receiver's datagrams). Both paths share the machine's cores with
iperf3's sender and receiver.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FAIRWAY = REPO / "target/release/fairway"

SCENARIO = """name = "emulate-bench"
duration = "1s"
[[link]]
between = ["a", "b"]
rate = "10Gb"
delay = "50ms"
queue = { kind = "red", limit = 200000, thresh = 50000, maxthresh = 150000, bytes = false, queue_in_bytes = false }
[[flow]]
name = "u"
app = "cbr"
from = "a"
to = "b"
rate = "1Mb"
[monitor]
links = ["a->b"]
"""


def sh(*args, check=True, **kw):
    return subprocess.run(list(map(str, args)), check=check, capture_output=True, text=True, **kw)


def iperf(client_ns, server_ns, server_ip, rate, seconds):
    """iperf3's receiver-side figures for UDP at `rate` from client_ns to server_ip."""
    server = subprocess.Popen(["ip", "netns", "exec", server_ns, "iperf3", "-s", "-1", "-J"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    sh("ip", "netns", "exec", client_ns, "iperf3", "-c", server_ip, "-u", "-b", rate, "-l", "1472",
       "-t", seconds, "-J")
    out, _ = server.communicate(timeout=seconds + 30)
    end = json.loads(out)["end"]
    got, udp = end["sum_received"], end["sum"]
    return {"mbps": got["bits_per_second"] / 1e6, "lost": udp["lost_percent"], "jitter_ms": udp["jitter_ms"]}


def fairway_run(rate, seconds):
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.toml"
        f.write_text(SCENARIO)
        emu = subprocess.Popen([FAIRWAY, "emulate", f, "--duration", f"{seconds + 8}s", "--name", "bench"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(100):
                if Path("/run/netns/fw-bench-b").exists():
                    break
                time.sleep(0.05)
            time.sleep(0.3)
            return iperf("fw-bench-a", "fw-bench-b", "10.201.1.1", rate, seconds)
        finally:
            emu.terminate()
            emu.wait(timeout=30)


def kernel_run(rate, seconds):
    a, b = "fwk-bench-a", "fwk-bench-b"
    for ns in (a, b):
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", "fwkva", "netns", a, "type", "veth", "peer", "name", "fwkvb", "netns", b)
        for ns, dev, ip in ((a, "fwkva", "10.202.0.1/24"), (b, "fwkvb", "10.202.0.2/24")):
            sh("ip", "-n", ns, "addr", "add", ip, "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        netem = sh("ip", "netns", "exec", a, "tc", "qdisc", "add", "dev", "fwkva", "root", "netem", "delay", "50ms",
                   "limit", "200000", check=False).returncode == 0
        return dict(iperf(a, b, "10.202.0.2", rate, seconds), path="kernel netem 50 ms" if netem else "kernel veth, no delay (no netem here)")
    finally:
        for ns in (a, b):
            sh("ip", "netns", "del", ns, check=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", default="500M,1G,2G", help="offered rates, iperf3's notation")
    ap.add_argument("--seconds", type=int, default=10)
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/emulate.py needs root (network namespaces)")
    sh("cargo", "build", "--release", "-q", "-p", "fairway-cli", cwd=REPO)
    rev = sh("git", "describe", "--always", "--dirty", cwd=REPO).stdout.strip()
    rows = []
    for rate in args.rates.split(","):
        for name, run in (("fairway emulate", fairway_run), ("kernel", kernel_run)):
            r = run(rate, args.seconds)
            name = r.get("path", name)
            rows.append((rate, name, r))
            print(f"{rate:>5} {name:40} {r['mbps']:8.1f} Mb/s  lost {r['lost']:5.1f}%  jitter {r['jitter_ms']:.3f} ms",
                  flush=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    lines = [
        "# The emulated bottleneck beside Linux's own path",
        "",
        f"`python3 bench/emulate.py --rates {args.rates} --seconds {args.seconds}` on {time.strftime('%Y-%m-%d')}, "
        f"fairway {rev}, {cpu}, {os.cpu_count()} cores, Linux {platform.release()}. One run per row. iperf3 sends "
        "1472-byte UDP datagrams (1500-byte packets) between two namespaces: through `fairway emulate` "
        "(a 10 Gb/s link, 50 ms, RED that drops nothing by design) or through a veth pair, with netem's 50 ms "
        "where the kernel has netem. "
        "Received rate and jitter are iperf3's receiver's; lost is the share of datagrams sent that did not arrive.",
        "",
        "| offered | path | received Mb/s | lost | jitter ms |",
        "|---|---|---|---|---|",
    ]
    for rate, name, r in rows:
        lines.append(f"| {rate} | {name} | {r['mbps']:.1f} | {r['lost']:.1f}% | {r['jitter_ms']:.3f} |")
    lines += ["", PEERS]
    (REPO / "bench/results-emulate.md").write_text("\n".join(lines) + "\n")


# The peers' figures, as issue 18 states them; this script does not run them.
PEERS = ("Not run here, for scale: mahimahi reaches about 300 Mb/s once a delay is added, and ns-3's emulation "
         "about 220 Mb/s on one core (the figures issue 18 gives); fairway's target is 1 Gb/s of 1500-byte "
         "packets through 50 ms and RED on one core.")


if __name__ == "__main__":
    main()
