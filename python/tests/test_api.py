"""fairway from Python beside the command line: the same scenario gives the same files, whichever
ran it. FAIRWAY_BIN names the command-line binary (cargo's test sets it; binary.py)."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import fairway
from binary import fairway_bin

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "scenarios/tutorial/red-dumbbell.toml"
TUTORIAL_SWEEP = REPO / "scenarios/tutorial/red-dumbbell-sweep.toml"


def cli(*args):
    o = subprocess.run([fairway_bin(), *map(str, args)], cwd=REPO, capture_output=True, text=True)
    assert o.returncode == 0, o.stderr
    return o


def test_a_runs_frames_are_the_command_lines_files(tmp_path):
    cli("run", TUTORIAL, "-q", "--out", tmp_path / "cli")
    r = fairway.run(TUTORIAL)
    for name, key in [("flows.csv", "flows"), ("queue.csv", "queue"), ("links.csv", "links"),
                      ("classes.csv", "classes"), ("summary.json", "summary")]:
        assert r.files[key] == (tmp_path / "cli" / name).read_text(), name
    pd.testing.assert_frame_equal(r.bins, pd.read_csv(tmp_path / "cli/flows.csv"))
    pd.testing.assert_frame_equal(r.queue, pd.read_csv(tmp_path / "cli/queue.csv"))
    pd.testing.assert_frame_equal(r.links, pd.read_csv(tmp_path / "cli/links.csv"))
    summary = json.loads((tmp_path / "cli/summary.json").read_text())
    assert r.summary == summary
    assert list(r.flows["name"]) == [f["name"] for f in summary["flows"]]
    assert list(r.flows["throughput_bps"]) == [f["throughput_bps"] for f in summary["flows"]]
    assert r.scale is None and r.trace is None and r.logs == {}
    assert "red-dumbbell" in repr(r)


def test_a_protocols_series_logs_are_the_command_lines_files(tmp_path):
    # MApp logs its scale: scale.csv, and flows.csv's `scale` column.
    mapp = REPO / "scenarios/kadhum2015/mapp-ftp.toml"
    cli("run", mapp, "-q", "--out", tmp_path / "cli")
    r = fairway.run(mapp)
    assert list(r.logs) == ["scale"]
    assert r.files["scale"] == (tmp_path / "cli/scale.csv").read_text()
    pd.testing.assert_frame_equal(r.scale, pd.read_csv(tmp_path / "cli/scale.csv"))
    assert r.bins["scale"].notna().any()


def test_the_package_is_the_command_lines_build():
    # A package installed from another tree (or before an edit) says so here.
    assert cli("--version").stdout.strip() == f"fairway {fairway.__build__}"
    assert fairway.__build__.startswith(fairway.__version__)


def test_overrides_a_dict_and_text_run_what_the_file_would(tmp_path):
    r = fairway.run(TUTORIAL, overrides={"flow.cbr.rate": "1Mb"}, duration="10s", seed=3)
    assert r.summary["duration_s"] == 10.0 and r.summary["seed"] == 3
    # The scenario run is a file of its own: the command line gives the same files for it.
    point = tmp_path / "point.toml"
    point.write_text(r.scenario)
    cli("run", point, "-q", "--seed", "3", "--out", tmp_path / "cli")
    assert r.files["flows"] == (tmp_path / "cli/flows.csv").read_text()
    cbr = r.flows.set_index("name").loc["cbr"]
    assert cbr["sent_pkts"] == pytest.approx(1e6 / (500 * 8) * 8, rel=0.01)  # 1 Mb/s of 500 B for 8 s

    as_text = fairway.run(TUTORIAL.read_text(), duration="5s")
    as_dict = fairway.run({
        "name": "red-dumbbell",
        "duration": "5s",
        "link": [{"between": ["s1", "r1"], "rate": "10Mb", "delay": "2ms"},
                 {"between": ["s2", "r1"], "rate": "10Mb", "delay": "2ms"},
                 {"between": ["r1", "r2"], "rate": "2Mb", "delay": "20ms",
                  "queue": {"kind": "red", "limit": 30, "thresh": 5, "maxthresh": 15, "q_weight": 0.002,
                            "bytes": False, "queue_in_bytes": False}},
                 {"between": ["r2", "d1"], "rate": "10Mb", "delay": "2ms"}],
        "flow": [{"name": "tcp{i}", "count": 2, "app": "ftp", "transport": "newreno", "from": "s1", "to": "d1",
                  "start": "uniform(0s, 1s)"},
                 {"name": "cbr", "app": "cbr", "from": "s2", "to": "d1", "rate": "600kb", "packet_size": "500B",
                  "start": "2s"}],
        "monitor": {"links": ["r1->r2"]},
    })
    assert as_dict.files["flows"] == as_text.files["flows"]
    assert as_dict.files["links"] == as_text.files["links"]


def test_a_refused_scenario_raises_with_its_place():
    text = TUTORIAL.read_text().replace('rate = "2Mb"', 'rate = "2 parsecs"')
    with pytest.raises(fairway.ScenarioError) as e:
        fairway.run(text)
    err = e.value
    assert err.field == "link[2].rate" and err.line > 0 and err.file == "scenario.toml"
    assert "parsecs" in err.message and "link[2].rate" in str(err)
    with pytest.raises(fairway.ScenarioError) as e:
        fairway.run(TUTORIAL, overrides={"flow.cbr.rate": "fast"})
    assert "flow.cbr.rate" in str(e.value)
    with pytest.raises(FileNotFoundError):
        fairway.run("no/such/file.toml")
    with pytest.raises(ValueError, match="no flow or \\[\\[flow\\]\\] entry named `nope`"):
        fairway.run(TUTORIAL, trace=["nope"])
    # Counts as the command line takes them: whole numbers in range, and no abort on a huge one.
    for bad, err in [("3", TypeError), (2.0, TypeError), (True, TypeError), (0, ValueError), (-1, ValueError)]:
        with pytest.raises(err, match="reps"):
            fairway.run(TUTORIAL, reps=bad)
    with pytest.raises(ValueError, match="reps: at most 100000"):
        fairway.run(TUTORIAL, reps=10**12)
    with pytest.raises(ValueError, match="jobs"):
        fairway.sweep(TUTORIAL_SWEEP, jobs=0)
    with pytest.raises(TypeError, match="seed"):
        fairway.sweep(TUTORIAL_SWEEP, reps=2, seed="1")

    c = fairway.check(text)
    assert not c and c.errors[0].field == "link[2].rate" and c.warnings == []
    ok = fairway.check(TUTORIAL)
    assert ok and ok.errors == []
    # A valid scenario with a likely mistake: ns-2's default 20-packet window cannot fill a
    # fast long path.
    warned = fairway.check(TUTORIAL, overrides={"link[2].rate": "100Mb", "link[2].delay": "100ms"})
    assert warned.errors == [] and any("window" in w.message for w in warned.warnings), warned


def test_a_traced_flows_state_is_the_command_lines_trace(tmp_path):
    r = fairway.run(TUTORIAL, trace=["tcp0"])
    cli("run", TUTORIAL, "-q", "--trace", "agents", "--trace-flow", "tcp0", "--out", tmp_path / "cli")
    pd.testing.assert_frame_equal(r.trace, pd.read_csv(tmp_path / "cli/trace-agents.csv"))
    assert set(r.trace["flow"]) == {"tcp0"} and len(r.trace) > 300


def test_a_sweep_is_the_command_lines_sweep_csv(tmp_path):
    cli("sweep", TUTORIAL_SWEEP, "-q", "--out", tmp_path / "cli")
    df = fairway.sweep(TUTORIAL_SWEEP, jobs=2)
    pd.testing.assert_frame_equal(df, pd.read_csv(tmp_path / "cli/sweep.csv"))
    pd.testing.assert_frame_equal(df.attrs["links"], pd.read_csv(tmp_path / "cli/sweep-links.csv"))
    # With out, the folder the command writes.
    fairway.sweep(TUTORIAL_SWEEP, out=tmp_path / "py")
    assert (tmp_path / "py/sweep.csv").read_text() == (tmp_path / "cli/sweep.csv").read_text()
    assert (tmp_path / "py/0_flow.cbr.rate=500kb_seed=1/summary.json").is_file()
    # As the command line's: a folder fairway did not write is refused and left as it was; a
    # sweep's folder is replaced whole (nothing of the earlier sweep stays beside the new one).
    mine = tmp_path / "mine"
    (mine / "src").mkdir(parents=True)
    (mine / "report.md").write_text("x")
    (mine / "src/thesis.tex").write_text("important")
    with pytest.raises(ValueError, match="refusing"):
        fairway.sweep(TUTORIAL_SWEEP, out=mine)
    assert (mine / "src/thesis.tex").read_text() == "important"
    (tmp_path / "py/stale.csv").write_text("old")
    fairway.sweep(TUTORIAL_SWEEP, out=tmp_path / "py")
    assert not (tmp_path / "py/stale.csv").exists() and (tmp_path / "py/sweep.csv").is_file()
    assert (tmp_path / "py/.fairway-results").is_file()


def test_replications_are_the_command_lines(tmp_path):
    cli("run", TUTORIAL, "-q", "--reps", "3", "--out", tmp_path / "cli")
    r = fairway.run(TUTORIAL, reps=3)
    pd.testing.assert_frame_equal(r.replications, pd.read_csv(tmp_path / "cli/replications.csv"))
    pd.testing.assert_frame_equal(r.runs, pd.read_csv(tmp_path / "cli/sweep.csv"))
    df = fairway.sweep(TUTORIAL_SWEEP, reps=2)
    cli("sweep", TUTORIAL_SWEEP, "-q", "--reps", "2", "--out", tmp_path / "cli2")
    pd.testing.assert_frame_equal(df.attrs["replications"], pd.read_csv(tmp_path / "cli2/replications.csv"))


def test_the_simulator_runs_without_the_gil():
    # A run of a few hundred ms; a Python thread counting meanwhile would not count at all if
    # the run held the GIL.
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.01)
    start = time.perf_counter()
    fairway.run(TUTORIAL, duration="600s")
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    assert end - start > 0.05, "the run is long enough to see"
    assert len(during) >= 10, f"{len(during)} ticks in {end - start:.3f} s of run"


# A run of about 800 s of the tutorial's dumbbell: far longer than the bounds below, so a call
# that ignored the interrupt would fail them, however slow the machine.
LONG = dict(duration="1000000s", overrides={"monitor.bin": "1000s"})


def test_ctrl_c_stops_a_run_from_python():
    # Python raises KeyboardInterrupt at Ctrl-C unless it started with SIGINT ignored, as a
    # background job of a shell without job control does: the script asks for it either way.
    script = f"""
import os, signal, sys, threading, fairway
signal.signal(signal.SIGINT, signal.default_int_handler)
threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    fairway.run({str(TUTORIAL)!r}, **{LONG!r})
except KeyboardInterrupt:
    print("interrupted")
    sys.exit(0)
print("ran to its end")
"""
    o = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert o.returncode == 0, o.stderr
    assert o.stdout.strip() == "interrupted"


def test_a_cancelled_point_stops():
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    text = TUTORIAL.read_text().replace('duration = "30s"', 'duration = "1000000s"')
    text = text.replace("[monitor]\n", '[monitor]\nbin = "1000s"\n')
    assert text != TUTORIAL.read_text()
    with pytest.raises(fairway.RunError, match="cancelled"):
        fairway._native.run_point(text, "long.toml", 0, reps=1, cancel=cancel)


def _deep(levels):
    d = {}
    top = d
    for _ in range(levels):
        d["x"] = {}
        d = d["x"]
    return top


# Bad calls from the adversarial review of issue 32, each with the exception it must raise: a
# located, named error, never an abort, an endless read, a bare OverflowError or an error from
# deep inside (AttributeError, RecursionError).
BAD_CALLS = [
    (lambda: fairway.run("/dev/zero"), ValueError, "larger than the 64 MB a scenario file may have"),
    (lambda: fairway.check("/dev/zero"), ValueError, "larger than the 64 MB"),
    (lambda: fairway.run("/dev/urandom"), ValueError, "larger than|not a scenario file"),
    (lambda: fairway.run(TUTORIAL, seed=2**64), ValueError, "seed: at most 18446744073709551615"),
    (lambda: fairway.run(TUTORIAL, reps=2**64), ValueError, "reps: at most 100000"),
    (lambda: fairway.sweep(TUTORIAL_SWEEP, jobs=2**64), ValueError, "jobs: at most 100000"),
    (lambda: fairway.run(TUTORIAL, overrides=[("duration", "1s")]), TypeError, "overrides: a dict"),
    (lambda: fairway.run(TUTORIAL, overrides={"flow.cbr.rate": _deep(5000)}), ValueError, "nested deeper than 32"),
    (lambda: fairway.run(_deep(5000)), ValueError, "nested deeper than 32"),
    (lambda: fairway.check(TUTORIAL, overrides={"x": _deep(5000)}), ValueError, "nested deeper"),
    (lambda: fairway.run(TUTORIAL, overrides={"seed": 10**30}), ValueError, "seed: 10+ is beyond TOML's 64-bit integers"),
    (lambda: fairway.run(TUTORIAL, duration=10**20), ValueError, "duration: 10+ is beyond TOML's 64-bit"),
    (lambda: fairway.run(TUTORIAL, trace="cbr"), TypeError, "trace: a list of names, not str"),
    (lambda: fairway.run(TUTORIAL, trace=[1, 2]), TypeError, "trace: names are strings, not int"),
    (lambda: fairway.run({1: 2}), TypeError, "a scenario's keys are strings, not int"),
    (lambda: fairway.campaign(TUTORIAL, grid={"flow.cbr.rate": []}, store="/nonexistent/x"), ValueError,
     "grid: flow.cbr.rate has no values"),
    (lambda: fairway.campaign(TUTORIAL, grid={"flow.cbr.rate": ["1Mb"]}, client="x", store="/nonexistent/x"),
     TypeError, "client: a dask.distributed Client, not str"),
    (lambda: fairway.campaign(TUTORIAL, grid={"flow.cbr.rate": ["1Mb"]}, progress="x", store="/nonexistent/x"),
     TypeError, "progress: a function"),
    (lambda: fairway.campaign(TUTORIAL, grid={"flow.cbr.rate": ["1Mb"]}, store=TUTORIAL), NotADirectoryError,
     "is a file, not a campaign store"),
    (lambda: fairway.open_campaign(TUTORIAL), FileNotFoundError, "not a campaign store"),
]


@pytest.mark.parametrize("call,err,message", BAD_CALLS, ids=[m[:40] for _, _, m in BAD_CALLS])
def test_a_bad_argument_is_a_named_error(call, err, message):
    with pytest.raises(err, match=message):
        call()


def test_a_huge_override_is_refused_in_a_short_message():
    # A million-entry list echoed whole made a 10 MB error.
    with pytest.raises(fairway.ScenarioError) as e:
        fairway.run(TUTORIAL, overrides={"monitor.links": ["r1->r2"] * 10**6})
    assert len(str(e.value)) < 1000 and "more characters" in str(e.value), str(e.value)[:300]
