#!/usr/bin/env python3
"""fairway beside ns-2: wall time, peak memory and delivered throughput on the same scenarios.

    python3 bench/bench.py [--reps N] [--only mid,large,series,tfrc,sweep] [--with-ns2-large]
                           [--skip-ns2] [--with-ns3] [--seed S] [--out bench/results.md]

Builds fairway once (cargo build --release -p fairway-cli) and runs a private copy of the binary,
so a rebuild by someone else during the run changes nothing. For each scenario and repetition it
runs fairway, then ns-2 (Debian's ns 2.35, `ns` on PATH), then fairway again, and so on, always with
the same seed, and measures each process's wall time and peak resident memory. It reads each
tool's results (fairway's summary.json, the ns-2 twin's JSON) so that the reader can see that like
was compared with like: per class (tcp, udp), the delivered throughput of both tools.

Scenarios (fairway file / ns-2 twin):
  mid      scenarios/validation/dumbbell-mid.toml / validation/dumbbell-mid.tcl
  large    scenarios/bench/large.toml / validation/dumbbell.tcl (ns-2 only with --with-ns2-large)
  series   scenarios/bench/series-{10,100,1000,10000}.toml / validation/dumbbell.tcl
           (ns-2 skips N = 10000: its route computation grows as nodes cubed); then fairway on
           N = 10 and N = 10000 back to back, max(--reps, 5) times, for the ratio of their times
           per packet under the same load on the machine
  tfrc     scenarios/bench/tfrc-100.toml / validation/tfrc-mix.tcl (arguments from the file's
           header): 100 TFRC flows (ns-2 flavour) and 10 NewReno, beside ns-2's Agent/TFRC
  sweep    `fairway sweep` over seeds 1-4 of mid, with --jobs 1 and --jobs 2 (and nproc)

With --with-ns3, mid also runs in ns-3 (validation/ns3/dumbbell-mid.cc, built by its build.sh when
missing; needs Debian's ns3 and libns3-dev). The ns-3 twin runs NewReno without SACK, as ns-2 does;
its delivered throughput is a few per cent lower than the other two (validation/ns3/README.md).

ns-2 runs of 1000 flows or more take about 5 minutes each (route computation for 2202 nodes),
so they run once per invocation, not --reps times. Every ns-2 measurement is recorded in
bench/ns2-reference.json; where ns-2 is skipped, the recorded figure is shown, marked as earlier.

Peak memory: GNU time's %M (`/usr/bin/time`, Debian package `time`) when it is installed.
os.wait4's ru_maxrss is no good here: Linux starts a child's ru_maxrss at the RSS of the process
that forked it (the high-water mark of the forking process's memory carries over through fork and
exec), so every child of this Python process would report at least Python's own peak.
/usr/bin/time forks from a ~1 MB process. Without it, the harness polls the child's VmHWM in
/proc/<pid>/status every 5 ms (exact apart from growth in the last few milliseconds).

Nothing here asserts anything: it measures and prints. Python 3 standard library only.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no bench/__pycache__ in the tree
import gen_scenarios  # noqa: E402  (the parameters of scenarios/bench/*.toml and their twins)

REFERENCE = os.path.join(HERE, "ns2-reference.json")
SERIES_N = [10, 100, 1000, 10000]
NS2_SERIES_MAX_FLOWS = 1000   # ns-2 skips series points above this many TCP flows
NS2_ONCE_FLOWS = 1000         # ns-2 runs with this many TCP flows or more run once
SWEEP_SEEDS = [1, 2, 3, 4]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# measuring one process

def find_gnu_time():
    path = shutil.which("time", path="/usr/bin:/bin:/usr/local/bin")
    if not path:
        return None
    with tempfile.NamedTemporaryFile() as f:
        try:
            r = subprocess.run([path, "-f", "%M", "-o", f.name, "true"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            return None
        if r.returncode != 0:
            return None
        try:
            int(open(f.name).read().split()[-1])
        except (ValueError, IndexError):
            return None
    return path


GNU_TIME = find_gnu_time()


def read_hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def measure(cmd, cwd=None):
    """Run cmd; return wall_s, rss_kb (peak resident set of the child), cpu_s, rc, err."""
    errf = tempfile.TemporaryFile()
    rssf = None
    full = list(cmd)
    if GNU_TIME:
        fd, rssf = tempfile.mkstemp(prefix="bench-rss-")
        os.close(fd)
        full = [GNU_TIME, "-f", "%M", "-o", rssf] + full
    peak = [0]
    done = threading.Event()
    t0 = time.perf_counter()
    p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=errf, cwd=cwd)
    if not GNU_TIME:
        def poll():
            while not done.is_set():
                peak[0] = max(peak[0], read_hwm_kb(p.pid))
                done.wait(0.005)
        th = threading.Thread(target=poll, daemon=True)
        th.start()
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.perf_counter()
    done.set()
    p.returncode = os.waitstatus_to_exitcode(status)
    rss = peak[0]
    if rssf:
        try:
            rss = int(open(rssf).read().split()[-1])
        except (ValueError, IndexError, OSError):
            rss = 0
        os.unlink(rssf)
    errf.seek(0)
    err = errf.read().decode(errors="replace")
    errf.close()
    return dict(wall_s=t1 - t0, rss_kb=rss, cpu_s=ru.ru_utime + ru.ru_stime,
                rc=p.returncode, err=err[-2000:])


# ---------------------------------------------------------------------------------------------
# the tools

def build_fairway(tmp):
    log("building fairway: cargo build --release -p fairway-cli")
    r = subprocess.run(["cargo", "build", "--release", "-p", "fairway-cli",
                        "--message-format=json-render-diagnostics"],
                       cwd=ROOT, stdout=subprocess.PIPE, text=True)
    exe = None
    for line in r.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if (m.get("reason") == "compiler-artifact" and m.get("executable")
                and m.get("target", {}).get("name") == "fairway"):
            exe = m["executable"]
    if r.returncode != 0 or not exe:
        log("error: cargo build failed")
        sys.exit(1)
    # A private copy: someone else rebuilding target/release/fairway mid-run must not change
    # the binary between repetitions.
    copy = os.path.join(tmp, "fairway")
    shutil.copy2(exe, copy)
    digest = hashlib.sha256(open(copy, "rb").read()).hexdigest()[:12]
    return copy, digest


def git_info():
    def git(*a):
        r = subprocess.run(["git", "-C", ROOT] + list(a), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "unknown"
    dirty = git("status", "--porcelain", "--", "crates", "Cargo.toml", "Cargo.lock")
    return head + (" + uncommitted changes in crates/" if dirty else "")


def run_fairway(exe, toml, seed, tmp):
    out = tempfile.mkdtemp(prefix="fw-", dir=tmp)
    m = measure([exe, "run", toml, "--out", out, "-q", "--seed", str(seed)])
    if m["rc"] == 0:
        try:
            s = json.load(open(os.path.join(out, "summary.json")))
            cls = {c["class"]: c for c in s["classes"]}
            m.update(
                events=s["events"],
                duration_s=s["duration_s"],
                pkts=sum(f["recv_distinct_pkts"] for f in s["flows"]),
                tcp_bytes=cls.get("tcp", {}).get("recv_distinct_bytes", 0),
                # Every class but TCP (udp, tfrc), as the ns-2 twins report them.
                udp_bytes=sum(c["recv_distinct_bytes"] for k, c in cls.items() if k != "tcp"),
            )
            # Over the whole run, as the ns-2 twins divide (summary.json's class throughput
            # is over the class's active time).
            m.update(tcp_mbps=m["tcp_bytes"] * 8 / s["duration_s"] / 1e6,
                     udp_mbps=m["udp_bytes"] * 8 / s["duration_s"] / 1e6)
        except (OSError, ValueError, KeyError) as e:
            m.update(rc=-1, err=f"reading summary.json: {e}")
    shutil.rmtree(out, ignore_errors=True)
    return m


def run_twin(cmd, args, seed, tmp):
    """Run a twin that writes the validation JSON (validation/README.md): `cmd out.json seed args`.
    cmd is [ns, twin.tcl] for ns-2, [validation/ns3/build/dumbbell-mid] for ns-3."""
    fd, out = tempfile.mkstemp(prefix="twin-", suffix=".json", dir=tmp)
    os.close(fd)
    m = measure(list(cmd) + [out, str(seed)] + list(args))
    if m["rc"] == 0:
        try:
            j = json.load(open(out))
            by = {"tcp": 0, "udp": 0}
            for f in j["flows"]:
                by[f["class"]] = by.get(f["class"], 0) + f["recv_bytes"]
            d = j["duration_s"]
            m.update(
                duration_s=d,
                ns_version=j.get("ns_version", "?"),
                pkts=sum(f["recv_pkts"] for f in j["flows"]),
                tcp_mbps=by["tcp"] * 8 / d / 1e6,
                udp_mbps=by["udp"] * 8 / d / 1e6,
                tcp_bytes=by["tcp"],
                udp_bytes=by["udp"],
            )
        except (OSError, ValueError, KeyError) as e:
            m.update(rc=-1, err=f"reading the twin's JSON: {e}")
    os.unlink(out)
    return m


# ---------------------------------------------------------------------------------------------
# scenarios

def ns3_twin(notes):
    """The ns-3 twin of mid, built with validation/ns3/build.sh when missing; None if unavailable."""
    exe = os.path.join(ROOT, "validation", "ns3", "build", "dumbbell-mid")
    if not os.path.exists(exe):
        log("building the ns-3 twin: validation/ns3/build.sh")
        r = subprocess.run(["bash", os.path.join(ROOT, "validation", "ns3", "build.sh")], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0 or not os.path.exists(exe):
            notes.append("--with-ns3: validation/ns3/build.sh failed (apt-get install ns3 libns3-dev): "
                         + r.stderr.strip()[-300:].replace("\n", " "))
            return None
    return exe


def scenario_list(only, with_ns2_large):
    """The scenarios to run: name, group, fairway file, ns-2 (twin, arguments after the seed),
    why ns-2 is skipped (None: it runs) and the number of TCP flows."""
    dumbbell = os.path.join(ROOT, "validation", "dumbbell.tcl")
    out = []
    if "mid" in only:
        out.append(dict(name="mid", group="mid",
                        toml=os.path.join(ROOT, "scenarios", "validation", "dumbbell-mid.toml"),
                        ns2=(os.path.join(ROOT, "validation", "dumbbell-mid.tcl"), []),
                        skip=None, n_tcp=100))
    if "large" in only:
        out.append(dict(name="large", group="large",
                        toml=os.path.join(ROOT, "scenarios", "bench", "large.toml"),
                        ns2=(dumbbell, gen_scenarios.ns2_args("large")),
                        skip=None if with_ns2_large else
                        "ns-2 skipped for large (about 5 min and 1 GB; --with-ns2-large runs it once)",
                        n_tcp=1000))
    if "series" in only:
        for n in SERIES_N:
            name = f"series-{n}"
            skip = None
            if n > NS2_SERIES_MAX_FLOWS:
                skip = (f"ns-2 skipped for {name}: its route computation grows roughly as nodes cubed "
                        "(~5 min and 1 GB at 2202 nodes; this point has "
                        f"{2 * (n + n // 10) + 2} nodes)")
            out.append(dict(name=name, group="series",
                            toml=os.path.join(ROOT, "scenarios", "bench", f"{name}.toml"),
                            ns2=(dumbbell, gen_scenarios.ns2_args(name)), skip=skip, n_tcp=n))
    if "tfrc" in only:
        for name in ["tfrc-100"]:
            toml = os.path.join(ROOT, "scenarios", "bench", f"{name}.toml")
            out.append(dict(name=name, group="tfrc", toml=toml, ns2=twin_of(toml), skip=None, n_tcp=10))
    return out


def twin_of(toml):
    """The twin a scenario names in its header: `# ns-2 twin: ns <tcl> out.json SEED <args>`."""
    for line in open(toml):
        if line.startswith("# ns-2 twin: ns "):
            words = line.split()[4:]
            return (os.path.join(ROOT, words[0]), words[3:])
    raise SystemExit(f"{toml} names no `# ns-2 twin: ns ...` line")


def check_scenario_files(notes):
    for name in gen_scenarios.BENCH:
        path = os.path.join(ROOT, "scenarios", "bench", f"{name}.toml")
        try:
            same = open(path).read() == gen_scenarios.render(name)
        except OSError:
            same = False
        if not same:
            notes.append(f"scenarios/bench/{name}.toml differs from what bench/gen_scenarios.py "
                         "writes: the ns-2 twin's arguments may not match it")


def load_reference():
    try:
        return json.load(open(REFERENCE))
    except (OSError, ValueError):
        return {"schema": "fairway.bench.ns2-reference/1", "scenarios": {}}


def save_reference(ref):
    with open(REFERENCE, "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")


# ---------------------------------------------------------------------------------------------
# formatting

def fmt_s(x):
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_pct(x):
    return "-" if x is None else f"{x * 100:+.1f}%"


def rel(a, b):
    """(a - b) / b, or None."""
    if a is None or b is None or b == 0:
        return None
    return (a - b) / b


def summarise(runs):
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return None
    walls = [r["wall_s"] for r in ok]
    first = ok[0]
    varied = any(abs(r["tcp_bytes"] - first["tcp_bytes"]) or abs(r["udp_bytes"] - first["udp_bytes"])
                 for r in ok)
    med = statistics.median(walls)
    s = dict(n=len(ok), wall_med=med, wall_min=min(walls), wall_max=max(walls),
             rss_mb=max(r["rss_kb"] for r in ok) / 1024, cpu_med=statistics.median(r["cpu_s"] for r in ok),
             pkts=first["pkts"], tcp_mbps=first["tcp_mbps"], udp_mbps=first["udp_mbps"],
             ns_per_pkt=med / first["pkts"] * 1e9 if first["pkts"] else None, varied=varied)
    if "events" in first:
        s["events"] = first["events"]
        s["events_per_s"] = first["events"] / med
    return s


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except (OSError, IndexError):
        return "?"


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GB"
    except OSError:
        pass
    cores = os.cpu_count()
    try:
        avail = len(os.sched_getaffinity(0))
    except AttributeError:
        avail = cores
    return dict(load=loadavg(), cpu=cpu, cores=cores, cores_available=avail, mem=mem,
                kernel=platform.release(), python=platform.python_version(),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="repetitions per tool (default 3)")
    ap.add_argument("--only", default="mid,large,series,tfrc,sweep",
                    help="comma-separated subset of mid,large,series,sweep (default all)")
    ap.add_argument("--with-ns2-large", action="store_true",
                    help="also run ns-2 on large (once; about 5 minutes and 1 GB)")
    ap.add_argument("--skip-ns2", action="store_true", help="run fairway only")
    ap.add_argument("--with-ns3", action="store_true",
                    help="also run the ns-3 twin of mid (validation/ns3/, about 17 s a run)")
    ap.add_argument("--seed", type=int, default=1, help="seed of every run (default 1)")
    ap.add_argument("--out", default=os.path.join(HERE, "results.md"),
                    help="Markdown report (default bench/results.md of the repository)")
    a = ap.parse_args()
    only = [s.strip() for s in a.only.split(",") if s.strip()]
    bad = [s for s in only if s not in ("mid", "large", "series", "tfrc", "sweep")]
    if bad or a.reps < 1 or a.seed < 1:
        ap.error(f"--only takes mid,large,series,tfrc,sweep (got {bad})" if bad
                 else "--reps and --seed must be at least 1")

    notes = []
    check_scenario_files(notes)
    ns = None if a.skip_ns2 else shutil.which("ns")
    if a.skip_ns2:
        notes.append("ns-2 not run (--skip-ns2); ns-2 rows, if any, are earlier figures")
    if not a.skip_ns2 and not ns:
        notes.append("`ns` is not on PATH (apt-get install ns2): ns-2 not run")
    ns3 = ns3_twin(notes) if a.with_ns3 else None
    ref = load_reference()
    mach = machine()
    tmp = tempfile.mkdtemp(prefix="fairway-bench-")
    try:
        exe, digest = build_fairway(tmp)
        commit = git_info()
        results = []   # per scenario: dict(sc, fw=summary, ns2=summary or None, ns2_ref, note)
        raw = []
        for sc in scenario_list(only, a.with_ns2_large):
            run_ns = ns is not None and sc["skip"] is None
            ns_reps = a.reps if sc["n_tcp"] < NS2_ONCE_FLOWS else 1
            fw_runs, ns_runs, ns3_runs = [], [], []
            run_ns3 = ns3 is not None and sc["name"] == "mid"
            for rep in range(a.reps):
                log(f"[{sc['name']}] rep {rep + 1}/{a.reps}: fairway")
                m = run_fairway(exe, sc["toml"], a.seed, tmp)
                fw_runs.append(m)
                raw.append((sc["name"], "fairway", rep + 1, m))
                log(f"    {m['wall_s']:.3f} s, {m['rss_kb'] / 1024:.1f} MB"
                    + ("" if m["rc"] == 0 else f", FAILED (exit {m['rc']}): {m['err'][-300:]}"))
                if run_ns and rep < ns_reps:
                    log(f"[{sc['name']}] rep {rep + 1}/{ns_reps}: ns-2")
                    m = run_twin([ns, sc["ns2"][0]], sc["ns2"][1], a.seed, tmp)
                    ns_runs.append(m)
                    raw.append((sc["name"], "ns-2", rep + 1, m))
                    log(f"    {m['wall_s']:.3f} s, {m['rss_kb'] / 1024:.1f} MB"
                        + ("" if m["rc"] == 0 else f", FAILED (exit {m['rc']}): {m['err'][-300:]}"))
                if run_ns3:
                    log(f"[{sc['name']}] rep {rep + 1}/{a.reps}: ns-3")
                    m = run_twin([ns3], [], a.seed, tmp)
                    ns3_runs.append(m)
                    raw.append((sc["name"], "ns-3", rep + 1, m))
                    log(f"    {m['wall_s']:.3f} s, {m['rss_kb'] / 1024:.1f} MB"
                        + ("" if m["rc"] == 0 else f", FAILED (exit {m['rc']}): {m['err'][-300:]}"))
            fw = summarise(fw_runs)
            nsum = summarise(ns_runs) if ns_runs else None
            note = None
            if run_ns and ns_reps < a.reps:
                note = (f"ns-2 ran once on {sc['name']}: about 5 minutes, nearly all of it at the start "
                        "of `$ns run`, where ns-2 computes routes between all 2202 nodes (building "
                        "the topology and flows takes about 4 s)")
            ns_ref = None
            if nsum:
                ref["scenarios"][sc["name"]] = dict(
                    date=mach["date"], cpu=mach["cpu"], seed=a.seed, runs=nsum["n"],
                    wall_median_s=round(nsum["wall_med"], 3), wall_min_s=round(nsum["wall_min"], 3),
                    wall_max_s=round(nsum["wall_max"], 3), rss_mb=round(nsum["rss_mb"], 1),
                    cpu_median_s=round(nsum["cpu_med"], 3),
                    delivered_pkts=nsum["pkts"], tcp_mbps=round(nsum["tcp_mbps"], 4),
                    udp_mbps=round(nsum["udp_mbps"], 4),
                    ns_version=next((r.get("ns_version") for r in ns_runs if r["rc"] == 0), "?"),
                    args=sc["ns2"][1])
                save_reference(ref)
            elif sc["name"] in ref["scenarios"]:
                ns_ref = ref["scenarios"][sc["name"]]
            if sc["skip"]:
                note = sc["skip"]
            failed = [r for r in fw_runs + ns_runs + ns3_runs if r["rc"] != 0]
            if failed:
                notes.append(f"{sc['name']}: {len(failed)} run(s) failed; see the raw runs")
            ns3sum = summarise(ns3_runs) if ns3_runs else None
            for tool, s in (("fairway", fw), ("ns-2", nsum), ("ns-3", ns3sum)):
                if s and s["varied"]:
                    notes.append(f"{sc['name']}: {tool}'s delivered bytes varied between "
                                 "repetitions of the same seed")
            results.append(dict(sc=sc, fw=fw, ns2=nsum, ns2_ref=ns_ref, ns3=ns3sum, note=note))

        pairs = None
        if "series" in only:
            pairs = run_series_pairs(exe, max(a.reps, 5), a.seed, tmp, raw)
        sweep = None
        if "sweep" in only:
            sweep = run_sweep_bench(exe, a.reps, mach, tmp, raw)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    md = report(results, pairs, sweep, raw, notes, mach, commit, digest, a)
    print(md)
    out = a.out if os.path.isabs(a.out) else os.path.join(os.getcwd(), a.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(md)
    log(f"wrote {os.path.relpath(out)}")


def run_series_pairs(exe, pairs, seed, tmp, raw):
    """The series' ratio measured in pairs: fairway on the smallest and the largest point back to
    back, `pairs` times. The scenario table runs each point's repetitions together, minutes
    apart from the other point's (ns-2 runs in between), so a change in the load other work puts
    on the machine lands on one point and not the other; within a pair both see the same load.
    Returns the ratio of each pair (time per delivered packet, largest N over smallest)."""
    names = ("series-10", "series-10000")
    tomls = {n: os.path.join(ROOT, "scenarios", "bench", n + ".toml") for n in names}
    ratios = []
    for rep in range(pairs):
        pp = {}
        for n in names:
            log(f"[series pairs] {rep + 1}/{pairs}: fairway {n}")
            m = run_fairway(exe, tomls[n], seed, tmp)
            raw.append((n + " (pair)", "fairway", rep + 1, m))
            if m["rc"] != 0 or not m.get("pkts"):
                break
            pp[n] = m["wall_s"] / m["pkts"]
        if len(pp) == 2:
            ratios.append(pp["series-10000"] / pp["series-10"])
    return ratios


def run_sweep_bench(exe, reps, mach, tmp, raw):
    mid = open(os.path.join(ROOT, "scenarios", "validation", "dumbbell-mid.toml")).read()
    path = os.path.join(tmp, "mid-sweep.toml")
    with open(path, "w") as f:
        f.write(mid + "\n[sweep]\nseed = [" + ", ".join(map(str, SWEEP_SEEDS)) + "]\n")
    cores = mach["cores_available"]
    jobs_list = sorted({1, 2, cores})
    runs = {j: [] for j in jobs_list}
    for rep in range(reps):
        for j in jobs_list:
            log(f"[sweep] rep {rep + 1}/{reps}: fairway sweep --jobs {j}")
            out = tempfile.mkdtemp(prefix="sweep-", dir=tmp)
            m = measure([exe, "sweep", path, "--out", out, "--jobs", str(j), "-q"])
            shutil.rmtree(out, ignore_errors=True)
            runs[j].append(m)
            raw.append((f"sweep --jobs {j}", "fairway", rep + 1, m))
            log(f"    {m['wall_s']:.3f} s" + ("" if m["rc"] == 0 else f", FAILED (exit {m['rc']})"))
    rows = []
    base = None
    for j in jobs_list:
        ok = [r for r in runs[j] if r["rc"] == 0]
        if not ok:
            rows.append(dict(jobs=j, failed=True))
            continue
        med = statistics.median(r["wall_s"] for r in ok)
        if j == 1:
            base = med
        rows.append(dict(jobs=j, wall_med=med, wall_min=min(r["wall_s"] for r in ok),
                         wall_max=max(r["wall_s"] for r in ok),
                         cpu_med=statistics.median(r["cpu_s"] for r in ok),
                         rss_mb=max(r["rss_kb"] for r in ok) / 1024,
                         ideal=min(j, cores, len(SWEEP_SEEDS))))
    for r in rows:
        if not r.get("failed") and base:
            r["speedup"] = base / r["wall_med"]
    return dict(rows=rows, cores=cores, points=len(SWEEP_SEEDS))


# Benchmarks of other parts, written by their own scripts beside this one's results.md.
OTHER_BENCHMARKS = [("results-aqm.md", "aqm.py"), ("results-dccp.md", "dccp.py"), ("results-wireless.md", "wireless.py"),
                    ("results-emulate.md", "emulate.py")]


def emulator_section():
    """The emulated bottleneck's table, as bench/emulate.py last wrote it (it needs root and
    iperf3, so this script does not rerun it), with the line that says when and how."""
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results-emulate.md")
    if not os.path.exists(p):
        return []
    lines = open(p).read().splitlines()
    body = [l for l in lines[1:] if l.strip()]
    prose = [l for l in body if not l.startswith("|")]
    table = [l for l in body if l.startswith("|")]
    rest = [line for para in prose[1:] for line in ("", para)]
    return ["", "## The emulated bottleneck (from results-emulate.md)", "", prose[0], ""] + table + rest


def report(results, pairs, sweep, raw, notes, mach, commit, digest, a):
    L = []
    L.append("# fairway beside ns-2: speed and memory")
    L.append("")
    L.append(f"- date: {mach['date']}")
    L.append(f"- machine: {mach['cpu']}, {mach['cores']} cores ({mach['cores_available']} available "
             f"to this process), {mach['mem']} RAM, Linux {mach['kernel']}")
    L.append(f"- fairway: commit {commit}, binary sha256 {digest}")
    L.append(f"- ns-2: Debian's ns 2.35")
    L.append(f"- command: `python3 bench/bench.py --reps {a.reps}"
             + (f" --only {a.only}" if a.only != "mid,large,series,tfrc,sweep" else "")
             + (" --with-ns2-large" if a.with_ns2_large else "")
             + (" --skip-ns2" if a.skip_ns2 else "")
             + (" --with-ns3" if a.with_ns3 else "")
             + (f" --seed {a.seed}" if a.seed != 1 else "") + "`")
    L.append(f"- every run uses seed {a.seed}; the tools alternate (fairway, ns-2, fairway, ...)")
    L.append("- peak RSS: " + ("GNU time's %M (/usr/bin/time)" if GNU_TIME else
                               "VmHWM of /proc/<pid>/status polled every 5 ms (no /usr/bin/time)"))
    L.append(f"- load average (1 min) at start {mach['load']}, at end {loadavg()}: other work "
             "on the machine slows wall times; CPU time (user + sys) is less sensitive to it")
    L.append("- wall time is the whole process: fairway's includes writing its results folder "
             "(CSV, SVG); ns-2's includes its ~15 ms start-up and writes one small JSON")
    L.append("- the other benchmarks beside their peers, each with its own script: "
             + ", ".join(f"[{f}]({f}) (`python3 bench/{s}`)" for f, s in OTHER_BENCHMARKS))

    # prominent: disagreements
    dis = []
    for r in results:
        fw, n2 = r["fw"], r["ns2"] or r["ns2_ref"]
        if not fw or not n2:
            continue
        for cls in ("tcp", "udp"):
            d = rel(fw[f"{cls}_mbps"], n2[f"{cls}_mbps"])
            if d is not None and abs(d) > 0.10:
                dis.append(f"{r['sc']['name']} {cls}: fairway {fw[f'{cls}_mbps']:.2f} Mb/s, "
                           f"ns-2 {n2[f'{cls}_mbps']:.2f} Mb/s ({fmt_pct(d)})")
    if dis:
        L.append("")
        L.append("**Throughput disagreements above 10% between fairway and ns-2** (the ns-2 "
                 "validation covers only mid):")
        L.append("")
        for d in dis:
            L.append(f"- **{d}**")

    if results:
        L.append("")
        L.append("## Scenarios")
        L.append("")
        L.append("Median wall time over the repetitions (min-max beside it); ratio = ns-2 median / "
                 "fairway median (ns-3's row: ns-3 / fairway); ns/pkt = median wall time / delivered packets (both classes, "
                 "TCP's SYN included); tcp and udp = delivered bytes x 8 / duration per class "
                 "(in-order bytes on the wire); diff = (fairway - that tool) / that tool.")
        L.append("")
        L.append("| scenario | tool | runs | median wall s | min-max s | ratio | median CPU s | "
                 "CPU ratio | peak RSS MB | events/s | delivered pkts | ns/pkt | tcp Mb/s | "
                 "udp Mb/s | tcp diff | udp diff |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in results:
            name, fw = r["sc"]["name"], r["fw"]
            if fw:
                L.append(f"| {name} | fairway | {fw['n']} | {fmt_s(fw['wall_med'])} | "
                         f"{fmt_s(fw['wall_min'])}-{fmt_s(fw['wall_max'])} | | {fmt_s(fw['cpu_med'])} | | "
                         f"{fw['rss_mb']:.1f} | "
                         f"{fw['events_per_s'] / 1e6:.1f} M | {fw['pkts']} | {fw['ns_per_pkt']:.0f} | "
                         f"{fw['tcp_mbps']:.2f} | {fw['udp_mbps']:.2f} | | |")
            else:
                L.append(f"| {name} | fairway | 0 | failed | | | | | | | | | | | | |")
            n2 = r["ns2"]
            earlier = False
            if not n2 and r["ns2_ref"]:
                e = r["ns2_ref"]
                n2 = dict(n=e["runs"], wall_med=e["wall_median_s"], wall_min=e["wall_min_s"],
                          wall_max=e["wall_max_s"], rss_mb=e["rss_mb"], pkts=e["delivered_pkts"],
                          cpu_med=e.get("cpu_median_s"),
                          tcp_mbps=e["tcp_mbps"], udp_mbps=e["udp_mbps"],
                          ns_per_pkt=e["wall_median_s"] / e["delivered_pkts"] * 1e9
                          if e["delivered_pkts"] else None)
                earlier = True
            if n2:
                tool = f"ns-2 (earlier: {r['ns2_ref']['date'][:10]})" if earlier else "ns-2"
                ratio = f"{n2['wall_med'] / fw['wall_med']:.1f}" if fw else "-"
                cratio = (f"{n2['cpu_med'] / fw['cpu_med']:.1f}"
                          if fw and n2["cpu_med"] and fw["cpu_med"] else "-")
                L.append(f"| {name} | {tool} | {n2['n']} | {fmt_s(n2['wall_med'])} | "
                         f"{fmt_s(n2['wall_min'])}-{fmt_s(n2['wall_max'])} | {ratio} | "
                         f"{fmt_s(n2['cpu_med'])} | {cratio} | "
                         f"{n2['rss_mb']:.1f} | | {n2['pkts']} | "
                         f"{n2['ns_per_pkt']:.0f} | {n2['tcp_mbps']:.2f} | {n2['udp_mbps']:.2f} | "
                         f"{fmt_pct(rel(fw['tcp_mbps'], n2['tcp_mbps'])) if fw else '-'} | "
                         f"{fmt_pct(rel(fw['udp_mbps'], n2['udp_mbps'])) if fw else '-'} |")
            else:
                L.append(f"| {name} | ns-2 | 0 | not run | | | | | | | | | | | | |")
            n3 = r.get("ns3")
            if n3:
                ratio = f"{n3['wall_med'] / fw['wall_med']:.1f}" if fw else "-"
                cratio = f"{n3['cpu_med'] / fw['cpu_med']:.1f}" if fw and fw["cpu_med"] else "-"
                L.append(f"| {name} | ns-3 | {n3['n']} | {fmt_s(n3['wall_med'])} | "
                         f"{fmt_s(n3['wall_min'])}-{fmt_s(n3['wall_max'])} | {ratio} | "
                         f"{fmt_s(n3['cpu_med'])} | {cratio} | {n3['rss_mb']:.1f} | | "
                         f"{n3['pkts']} | {n3['ns_per_pkt']:.0f} | "
                         f"{n3['tcp_mbps']:.2f} | {n3['udp_mbps']:.2f} | "
                         f"{fmt_pct(rel(fw['tcp_mbps'], n3['tcp_mbps'])) if fw else '-'} | "
                         f"{fmt_pct(rel(fw['udp_mbps'], n3['udp_mbps'])) if fw else '-'} |")
        sc_notes = [r["note"] for r in results if r["note"]]
        if sc_notes or any(r["ns2_ref"] for r in results):
            L.append("")
        for n in sc_notes:
            L.append(f"- {n}.")
        if any(r["ns2_ref"] for r in results):
            L.append("- rows marked earlier are ns-2 figures recorded in bench/ns2-reference.json "
                     "by an earlier run (date in the row), possibly with another fairway.")

    series = [r for r in results if r["sc"]["group"] == "series"]
    if series:
        L.append("")
        L.append("## Series: time per delivered packet as flows grow")
        L.append("")
        L.append("N TCP flows and N/10 CBR flows over an N x 1 Mb/s bottleneck; the duration "
                 "shrinks with N so that each point delivers about the same number of packets. "
                 "Flat means cost grows with packets, not with flows.")
        L.append("")
        L.append("| N | nodes | duration s | fairway ns/pkt | fairway events/pkt | ns-2 ns/pkt | ns-2 / fairway |")
        L.append("|---|---|---|---|---|---|---|")
        fw_pp, ns_pp = {}, {}
        for r in series:
            n = r["sc"]["n_tcp"]
            fw = r["fw"]
            n2 = r["ns2"]
            n2pp = n2["ns_per_pkt"] if n2 else None
            tag = ""
            if not n2 and r["ns2_ref"] and r["ns2_ref"]["delivered_pkts"]:
                n2pp = r["ns2_ref"]["wall_median_s"] / r["ns2_ref"]["delivered_pkts"] * 1e9
                tag = " (earlier)"
            if fw:
                fw_pp[n] = fw["ns_per_pkt"]
            if n2pp:
                ns_pp[n] = n2pp
            dur = gen_scenarios.seconds(gen_scenarios.BENCH[r["sc"]["name"]]["duration"])
            L.append(f"| {n} | {2 * (n + n // 10) + 2} | {dur} | "
                     f"{fw['ns_per_pkt']:.0f} | {fw['events'] / fw['pkts']:.1f} | "
                     if fw else f"| {n} | | {dur} | failed | | ")
            L[-1] += (f"{n2pp:.0f}{tag} | {n2pp / fw['ns_per_pkt']:.1f} |" if n2pp and fw
                      else "not run | |")
        for tool, pp in (("fairway", fw_pp), ("ns-2", ns_pp)):
            if len(pp) >= 2:
                lo, hi = min(pp), max(pp)
                L.append("")
                L.append(f"{tool}: time per delivered packet at N = {hi} / at N = {lo}: "
                         f"**{pp[hi] / pp[lo]:.2f}** ({pp[lo]:.0f} ns -> {pp[hi]:.0f} ns).")
        if pairs:
            L.append("")
            L.append(f"fairway, the same ratio from {len(pairs)} pairs of runs of N = 10 and N = 10000 "
                     "back to back (both points of a pair see the same load on the machine): median "
                     f"**{statistics.median(pairs):.2f}**, min-max {min(pairs):.2f}-{max(pairs):.2f}.")

    if sweep:
        L.append("")
        L.append(f"## Sweep: `fairway sweep` over {sweep['points']} seeds of mid")
        L.append("")
        L.append(f"The machine has {sweep['cores']} cores available; ideal speed-up = "
                 f"min(jobs, cores, points); efficiency = speed-up / ideal.")
        L.append("")
        L.append("| jobs | median wall s | min-max s | CPU s (user+sys) | peak RSS MB | speed-up | ideal | efficiency |")
        L.append("|---|---|---|---|---|---|---|---|")
        for r in sweep["rows"]:
            if r.get("failed"):
                L.append(f"| {r['jobs']} | failed | | | | | | |")
                continue
            sp = r.get("speedup")
            L.append(f"| {r['jobs']} | {fmt_s(r['wall_med'])} | {fmt_s(r['wall_min'])}-"
                     f"{fmt_s(r['wall_max'])} | {fmt_s(r['cpu_med'])} | {r['rss_mb']:.1f} | "
                     + (f"{sp:.2f} | {r['ideal']} | {sp / r['ideal'] * 100:.0f}% |" if sp else "- | | |"))

    L.extend(emulator_section())

    if notes:
        L.append("")
        L.append("## Notes")
        L.append("")
        for n in notes:
            L.append(f"- {n}")

    L.append("")
    L.append("## Raw runs")
    L.append("")
    L.append("| scenario | tool | rep | wall s | CPU s | peak RSS MB | exit |")
    L.append("|---|---|---|---|---|---|---|")
    for name, tool, rep, m in raw:
        L.append(f"| {name} | {tool} | {rep} | {m['wall_s']:.3f} | {m['cpu_s']:.3f} | "
                 f"{m['rss_kb'] / 1024:.1f} | {m['rc']} |")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
