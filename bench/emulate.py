#!/usr/bin/env python3
"""The emulated bottleneck's forwarding speed and added jitter, beside Linux's own path.

Runs as root. For each offered rate, iperf3 sends 1472-byte UDP datagrams (1500-byte IP packets)
from one namespace to another for --seconds, twice:

  fairway  `fairway emulate` of a 10 Gb/s link with 50 ms of delay and RED (thresholds far above
           what 50 ms holds, so that the discipline runs on every packet but drops none by design);
  kernel   a veth pair between two namespaces with netem's 50 ms delay (Linux's emulator; netem
           cannot sit under RED, so it runs alone); where the kernel has no netem, the bare veth
           pair, which shows what iperf3 itself reaches on the machine.

The emulator runs alone on the machine's last core (taskset), iperf3's sender and receiver on
the others, so that "on one core" means what it says. Besides iperf3's receiver's figures (what it
got, the share lost, RFC 3550's jitter), each row gives where the losses were: in the emulator's
own counters (what it read, forwarded, and its host device's drops before it read them) and in the
receiving namespace's UDP receive-buffer overflows (a receiver too slow for its socket), and how
busy the emulator's core was. Writes bench/results-emulate.md.
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


CORES = os.cpu_count() or 1
# The emulator's core, and iperf3's (all cores on a 1-core machine, where nothing can be apart).
EMU_CPU = str(CORES - 1)
GEN_CPUS = ",".join(map(str, range(CORES - 1))) if CORES > 1 else "0"


def cpu_times(cpu):
    """(busy, total) jiffies of one core, from /proc/stat."""
    for line in open("/proc/stat"):
        f = line.split()
        if f[0] == f"cpu{cpu}":
            v = list(map(int, f[1:]))
            return sum(v) - v[3] - v[4], sum(v)
    raise RuntimeError(f"cpu{cpu} not in /proc/stat")


def process_cpu_s(pid):
    """User and system CPU seconds of process `pid` so far, from /proc/PID/stat."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def rcvbuf_errors(ns):
    out = sh("ip", "netns", "exec", ns, "nstat", "-az", "UdpRcvbufErrors").stdout
    return next((int(l.split()[1]) for l in out.splitlines() if l.startswith("UdpRcvbufErrors")), 0)


def iperf(client_ns, server_ns, server_ip, rate, seconds, emulator_pid=None):
    """iperf3's receiver-side figures for UDP at `rate` from client_ns to server_ip, with the
    receiving namespace's socket overflows and the emulator's core's busy share meanwhile."""
    pin = ["taskset", "-c", GEN_CPUS]
    server = subprocess.Popen(["ip", "netns", "exec", server_ns, *pin, "iperf3", "-s", "-1", "-J"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    overflow0, (busy0, total0) = rcvbuf_errors(server_ns), cpu_times(EMU_CPU)
    cpu0, t0 = (process_cpu_s(emulator_pid) if emulator_pid else 0.0), time.monotonic()
    sh("ip", "netns", "exec", client_ns, *pin, "iperf3", "-c", server_ip, "-u", "-b", rate, "-l", "1472",
       "-t", seconds, "-J")
    out, _ = server.communicate(timeout=seconds + 30)
    busy1, total1 = cpu_times(EMU_CPU)
    cpu1, t1 = (process_cpu_s(emulator_pid) if emulator_pid else 0.0), time.monotonic()
    end = json.loads(out)["end"]
    got, udp = end["sum_received"], end["sum"]
    return {"mbps": got["bits_per_second"] / 1e6, "lost": udp["lost_percent"], "jitter_ms": udp["jitter_ms"],
            "sent": udp["packets"], "overflow": rcvbuf_errors(server_ns) - overflow0,
            "core_busy": (busy1 - busy0) / max(total1 - total0, 1), "process_cpu": (cpu1 - cpu0) / (t1 - t0),
            "seconds": seconds}


def fairway_run(rate, seconds):
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.toml"
        f.write_text(SCENARIO)
        out = Path(d) / "out"
        emu = subprocess.Popen(["taskset", "-c", EMU_CPU, FAIRWAY, "emulate", f, "--duration", f"{seconds + 8}s",
                                "--name", "bench", "--out", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(100):
                if Path("/run/netns/fw-bench-b").exists():
                    break
                time.sleep(0.05)
            time.sleep(0.3)
            r = iperf("fw-bench-a", "fw-bench-b", "10.201.1.1", rate, seconds, emulator_pid=emu.pid)
        finally:
            emu.terminate()
            emu.wait(timeout=30)
        fwd = json.loads((out / "summary.json").read_text())["links"][0]
        # iperf3's control connection crosses the emulator too: a few dozen packets.
        r.update(read=fwd["arrivals_pkts"], forwarded=fwd["delivered_pkts"], device_drops=fwd["device_drops_pkts"])
        return r


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
            print(f"{rate:>5} {name:40} {r['mbps']:8.1f} Mb/s  lost {r['lost']:5.1f}% "
                  f"(socket overflow {pct(r['overflow'], r['sent'])})  jitter {r['jitter_ms']:.3f} ms  "
                  f"emulator: {emulator_cells(r)}", flush=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    lines = [
        "# The emulated bottleneck beside Linux's own path",
        "",
        f"`python3 bench/emulate.py --rates {args.rates} --seconds {args.seconds}` on {time.strftime('%Y-%m-%d')}, "
        f"fairway {rev}, {cpu}, {CORES} cores, Linux {platform.release()}. One run per row. iperf3 sends "
        "1472-byte UDP datagrams (1500-byte packets) between two namespaces: through `fairway emulate` "
        "(a 10 Gb/s link, 50 ms, RED that drops nothing by design) or through a veth pair, with netem's 50 ms "
        f"where the kernel has netem. The emulator runs alone on core {EMU_CPU}, iperf3's sender and receiver on "
        f"core(s) {GEN_CPUS}. "
        "Sent is what iperf3's sender managed (its datagrams, as 1500-byte packets, over its seconds): on one "
        "core shared with its receiver it falls short of high offered rates. "
        "Received rate and jitter are iperf3's receiver's; lost is the share of datagrams sent that did not arrive, "
        "and socket overflow the share the receiving namespace's UDP socket had no room for (the receiver, not "
        "the path, fell behind). For the emulator: the rate it forwarded (packets it delivered to host b in the "
        "sender's seconds, of 1500 bytes), packets its host's device dropped before it read them, its CPU (its "
        "process's user and system time over the run, as a share of one core: the kernel's delivery of its "
        "packets to host b's stack, which runs in its system calls, included), and how busy its core was "
        "(/proc/stat; below saturation this share swings from run to run, from 1% to 47% at 500M on this "
        "machine, so the CPU column is the one to read).",
        "",
        "| offered | path | sent Mb/s | received Mb/s | lost | socket overflow | jitter ms | emulator forwarded Mb/s | device drops | emulator CPU | its core busy |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rate, name, r in rows:
        lines.append(f"| {rate} | {name} | {sent_mbps(r):.1f} | {r['mbps']:.1f} | {r['lost']:.1f}% | {pct(r['overflow'], r['sent'])} | "
                     f"{r['jitter_ms']:.3f} | {emulator_cells(r, ' | ')} |")
    lines += ["", verdict(rows), "", PEERS]
    (REPO / "bench/results-emulate.md").write_text("\n".join(lines) + "\n")


def verdict(rows):
    """What the rows say of the emulator: the most it forwarded, on how much of its core, and
    whether any packet was lost inside it (read but not forwarded, or dropped by its device)."""
    emu = [r for _, name, r in rows if "forwarded" in r]
    if not emu:
        return ""
    top = max(emu, key=lambda r: r["forwarded"])
    inside = sum(r["read"] - r["forwarded"] + (r["device_drops"] or 0) for r in emu)
    all_of_it = all(r["read"] == r["forwarded"] and not r["device_drops"] for r in emu)
    return (("In every row the emulator forwarded all that was sent to it, so no row reaches its limit. " if all_of_it else "")
            + f"The emulator forwarded up to {top['forwarded'] * 1500 * 8 / top['seconds'] / 1e6:.0f} Mb/s on its one core "
            f"(using {100 * top['process_cpu']:.0f}% of it); {inside} packets were lost inside it over all rows (read and "
            "not forwarded, or dropped by its host's device). Where iperf3 counts losses, they are its receiver's "
            "socket overflows: the receiver shares its core with the sender. On the kernel path, the veth's "
            "delivery to the receiving namespace also runs on that core, so its rows show the generator's limit, "
            "not the kernel's.")


def sent_mbps(r):
    return r["sent"] * 1500 * 8 / r["seconds"] / 1e6


def pct(n, of):
    return f"{100 * n / of:.1f}%" if of else "-"


def emulator_cells(r, sep="  "):
    if "forwarded" not in r:
        return sep.join(["-", "-", "-", "-"])
    mbps = r["forwarded"] * 1500 * 8 / r["seconds"] / 1e6
    return sep.join([f"{mbps:.1f}", str(r["device_drops"]), f"{100 * r['process_cpu']:.0f}%",
                     f"{100 * r['core_busy']:.0f}%"])


# The peers' figures, as issue 18 states them; this script does not run them.
PEERS = ("Not run here, for scale: mahimahi reaches about 300 Mb/s once a delay is added, and ns-3's emulation "
         "about 220 Mb/s on one core (the figures issue 18 gives); fairway's target is 1 Gb/s of 1500-byte "
         "packets through 50 ms and RED on one core.")


if __name__ == "__main__":
    main()
