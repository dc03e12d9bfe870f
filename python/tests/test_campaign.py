"""Campaigns: a store that resumes, the same bytes locally and on a Dask cluster, and
`fairway sweep`'s sweep.csv to the byte."""

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import fairway
from binary import fairway_bin

REPO = Path(__file__).resolve().parents[2]
TUTORIAL_SWEEP = REPO / "scenarios/tutorial/red-dumbbell-sweep.toml"
TUTORIAL = REPO / "scenarios/tutorial/red-dumbbell.toml"


def needs(module):
    if os.environ.get("FAIRWAY_REQUIRE_PYTHON"):
        return __import__(module)
    return pytest.importorskip(module)


def cli_sweep(out, *more):
    o = subprocess.run([fairway_bin(), "sweep", str(TUTORIAL_SWEEP), "-q", "--out", str(out), *more], cwd=REPO,
                       capture_output=True, text=True)
    assert o.returncode == 0, o.stderr
    return (out / "sweep.csv").read_text(), (out / "sweep-links.csv").read_text()


def test_a_campaign_is_the_sweep_and_resumes_where_it_stopped(tmp_path):
    needs("pyarrow")
    sweep_csv, links_csv = cli_sweep(tmp_path / "cli")

    class Stop(Exception):
        pass

    def stop_after_four(done, total):
        assert total == 9
        if done == 4:
            raise Stop

    store = tmp_path / "store"
    with pytest.raises(Stop):
        fairway.campaign(TUTORIAL_SWEEP, store=store, jobs=2, progress=stop_after_four)
    kept = [d for d in (store / "points").iterdir() if not d.name.startswith(".")]
    assert len(kept) == 4
    before = {d.name: (d / "summary.json").stat().st_mtime_ns for d in kept}

    c = fairway.campaign(TUTORIAL_SWEEP, store=store, jobs=2)
    assert (c.ran, c.skipped) == (5, 4)
    # The finished points were not run again.
    for name, mtime in before.items():
        assert (store / "points" / name / "summary.json").stat().st_mtime_ns == mtime
    assert (store / "sweep.csv").read_text() == sweep_csv
    assert (store / "sweep-links.csv").read_text() == links_csv
    pd.testing.assert_frame_equal(c.runs, pd.read_csv(tmp_path / "cli/sweep.csv"))
    again = fairway.campaign(TUTORIAL_SWEEP, store=store)
    assert (again.ran, again.skipped) == (0, 9)

    p = c.point("3_flow.cbr.rate=1Mb_seed=1")
    assert p["summary"]["seed"] == 1 and list(p["flows"]["name"]) == ["tcp0", "tcp1", "cbr"]
    assert len(p["bins"]) == 3 * 300


def test_a_grid_given_in_python_and_replications(tmp_path):
    needs("pyarrow")
    c = fairway.campaign(TUTORIAL, grid={"flow.cbr.rate": ["500kb", "1Mb"]}, reps=2, seed=5, store=tmp_path / "s")
    assert (c.ran, c.skipped) == (4, 0)
    assert list(c.runs.columns[:4]) == ["point", "flow.cbr.rate", "flow.cbr.rate_bps", "seed"]
    assert sorted(set(c.runs["flow.cbr.rate_bps"])) == [500000, 1000000]
    assert sorted(set(c.runs["seed"])) == [5, 6]
    text = TUTORIAL_SWEEP.read_text()
    assert "[sweep]" in text
    with pytest.raises(fairway.ScenarioError, match="flow.nope.rate"):
        fairway.campaign(TUTORIAL, grid={"flow.nope.rate": ["1Mb"]}, store=tmp_path / "bad")


def test_a_campaign_on_a_dask_cluster_gives_the_same_bytes(tmp_path):
    needs("pyarrow")
    distributed = needs("distributed")
    sweep_csv, _ = cli_sweep(tmp_path / "cli")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        c = fairway.campaign(TUTORIAL_SWEEP, store=tmp_path / "dask", client=client)
    assert (c.ran, c.skipped) == (9, 0)
    assert (tmp_path / "dask/sweep.csv").read_text() == sweep_csv
    local = fairway.campaign(TUTORIAL_SWEEP, store=tmp_path / "local", jobs=1)
    for d in (tmp_path / "dask/points").iterdir():
        for f in ["summary.json", "sweep.csv", "bins.parquet", "flows.parquet"]:
            assert (d / f).read_bytes() == (tmp_path / "local/points" / d.name / f).read_bytes(), (d.name, f)


def test_a_damaged_point_runs_again_and_a_finished_store_is_read_without_writing(tmp_path):
    needs("pyarrow")
    grid = {"flow.cbr.rate": ["500kb", "1Mb", "2Mb"]}
    store = tmp_path / "s"
    first = fairway.campaign(TUTORIAL, grid=grid, store=store)
    assert (first.ran, first.skipped, first.repaired) == (3, 0, 0)
    points = sorted((store / "points").iterdir())
    labels = [json.loads((d / "point.json").read_text())["label"] for d in points]
    sweep_csv = (store / "sweep.csv").read_text()
    # Each way a point can go wrong after it was written: a summary cut short, a Parquet file
    # truncated, its rows of sweep.csv edited (a number that would flow into the tables),
    # its sweep.csv deleted, a file swapped for a link to another, a file planted beside.
    summary = points[0] / "summary.json"
    summary.write_text(summary.read_text()[:100])
    bins = points[1] / "bins.parquet"
    bins.write_bytes(bins.read_bytes()[:-10])
    rows = points[2] / "sweep.csv"
    edited = rows.read_text().replace(",", ",9", 1)
    rows.write_text(edited)

    with pytest.warns(UserWarning, match="3 damaged point"):
        c = fairway.campaign(TUTORIAL, grid=grid, store=store)
    assert (c.ran, c.skipped, c.repaired) == (3, 0, 3)
    assert (store / "sweep.csv").read_text() == sweep_csv, "the tables are as before the damage"
    pd.testing.assert_frame_equal(c.runs, first.runs)

    (points[0] / "sweep.csv").unlink()
    (points[1] / "flows.parquet").unlink()
    (points[1] / "flows.parquet").symlink_to(points[2] / "flows.parquet")
    (points[2] / "notes.txt").write_text("planted")
    with pytest.raises(ValueError, match="damaged"):
        c.point(labels[0])
    with pytest.warns(UserWarning, match="3 damaged point"), pytest.raises(ValueError, match="no finished point"):
        fairway.open_campaign(store)
    with pytest.warns(UserWarning, match="3 damaged point"):
        c = fairway.campaign(TUTORIAL, grid=grid, store=store)
    assert (c.ran, c.repaired) == (3, 3)
    assert (store / "sweep.csv").read_text() == sweep_csv

    # A finished store: running the campaign again or opening it writes nothing, and opening
    # it needs no scenario and gives the same tables.
    before = {p: p.stat().st_mtime_ns for p in store.rglob("*")}
    again = fairway.campaign(TUTORIAL, grid=grid, store=store)
    assert (again.ran, again.skipped) == (0, 3)
    read = fairway.open_campaign(store)
    assert {p: p.stat().st_mtime_ns for p in store.rglob("*")} == before
    pd.testing.assert_frame_equal(read.runs, first.runs)
    pd.testing.assert_frame_equal(read.links, first.links)
    assert read.point(labels[1])["summary"] == first.point(labels[1])["summary"]
    with pytest.raises(FileNotFoundError, match="not a campaign store"):
        fairway.open_campaign(tmp_path / "nowhere")
