"""Campaigns: a sweep's points kept in a store on disk as they finish, so that a campaign
stopped for any reason resumes where it was, run on a Dask cluster when given one.

The store (a folder):

    store/sweep.csv             every finished point's rows, in point order: `fairway sweep`'s file
    store/sweep-links.csv       likewise, sweep-links.csv
    store/points/<key>/         one per finished point, written whole or not at all:
        point.json              its index, label, keys and values, and the fairway build
        summary.json            the run's summary
        flows.parquet           summary.json's flows as a table
        bins.parquet            flows.csv
        links.parquet           links.csv
        sweep.csv, sweep-links.csv   its rows of the sweep's tables (no header)

A point's key is a hash of the scenario it runs (the base file with its values set, its seed
among them) and fairway's build (`fairway.__build__`: its version, commit and edits): a point
already in the store is not run again, and a changed file or another fairway runs afresh. A point's files are the same bytes whichever machine ran it.
"""

import hashlib
import json
import os
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import _native, _toml
from .api import _count, _frame, _source


def _run_point(text, file, reps, seed, index, cancel=None):
    """Runs point `index` of the sweep (on whichever worker): its files, as text. A local
    thread's run stops when `cancel` (a threading.Event) is set."""
    return _native.run_point(text, file, reps=reps, seed=seed, index=index, cancel=cancel)


@dataclass
class Campaign:
    """What a campaign gave: `runs` (sweep.csv: a row per point per flow), `links`
    (sweep-links.csv), and how many points `ran` now and were `skipped` (already in the store)."""

    store: Path
    runs: pd.DataFrame
    links: pd.DataFrame
    ran: int
    skipped: int

    def point(self, label):
        """A finished point's tables: dict of `summary` (a dict), `flows`, `bins`, `links`."""
        # Dot-folders are points being written (or left half-written by a crash).
        for d in (p for p in (self.store / "points").iterdir() if not p.name.startswith(".")):
            meta = json.loads((d / "point.json").read_text())
            if meta["label"] == label:
                return {
                    "summary": json.loads((d / "summary.json").read_text()),
                    "flows": pd.read_parquet(d / "flows.parquet"),
                    "bins": pd.read_parquet(d / "bins.parquet"),
                    "links": pd.read_parquet(d / "links.parquet"),
                }
        raise KeyError(f"no finished point labelled {label!r} in {self.store}")


def _key(build, point_text):
    return hashlib.sha256(f"fairway {build}\n{point_text}".encode()).hexdigest()[:20]


def _write_point(points_dir, key, meta, files):
    """Writes a point's folder beside its place and moves it there whole."""
    final = points_dir / key
    tmp = points_dir / f".{key}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    (tmp / "point.json").write_text(json.dumps(meta, indent=1) + "\n")
    (tmp / "summary.json").write_text(files["summary"])
    (tmp / "sweep.csv").write_text(files["sweep_rows"])
    (tmp / "sweep-links.csv").write_text(files["sweep_links_rows"])
    flows = pd.json_normalize(json.loads(files["summary"])["flows"])
    # Lists (a flow's path) as text: Parquet columns hold one type.
    for c in flows.columns:
        if flows[c].map(lambda v: isinstance(v, (list, dict))).any():
            flows[c] = flows[c].map(json.dumps)
    flows.to_parquet(tmp / "flows.parquet", index=False)
    _frame(files["flows"]).to_parquet(tmp / "bins.parquet", index=False)
    _frame(files["links"]).to_parquet(tmp / "links.parquet", index=False)
    os.replace(tmp, final)


def campaign(scenario, grid=None, reps=None, seed=None, store="campaign", client=None, jobs=None, progress=None):
    """Runs a sweep's points that the store does not have yet, keeping each in the store as it
    finishes; returns a :class:`Campaign` over every point.

    grid: {key: [values]} replaces the file's [sweep] table (keys as [sweep] writes them,
    "flow.cbr.rate"). reps: each point at that many seeds, from `seed` or the file's. client:
    a dask.distributed Client to run the points on (local threads otherwise, `jobs` of them,
    default the cores). progress(done, total): called after each point.
    """
    try:
        import pyarrow  # noqa: F401  (the store's tables are Parquet)
    except ImportError:
        raise ImportError("a campaign keeps its tables in Parquet: pip install pyarrow (or the package's [campaign] extra)") from None
    text, file = _source(scenario)
    reps, seed, jobs = _count("reps", reps), _count("seed", seed, 0), _count("jobs", jobs)
    if grid is not None:
        if not isinstance(grid, dict) or not grid:
            raise ValueError("grid: a dict of {key: [values]}, at least one key")
        axes = []
        for k, vs in grid.items():
            vs = list(vs) if isinstance(vs, (list, tuple, range)) else [vs]
            axes.append((str(k), [_toml.value(v, str(k)) for v in vs]))
        text = _native.with_grid(text, file, axes)
    plan = _native.plan(text, file, reps=reps, seed=seed)
    store = Path(store)
    points_dir = store / "points"
    points_dir.mkdir(parents=True, exist_ok=True)
    build = _native.__build__
    keys = [_key(build, p["text"]) for p in plan["points"]]
    todo = [i for i, k in enumerate(keys) if not (points_dir / k).is_dir()]
    total = len(plan["points"])
    done = total - len(todo)

    def keep(i, files):
        nonlocal done
        p = plan["points"][i]
        meta = {"index": p["index"], "label": p["label"], "keys": plan["keys"], "values": p["values"], "fairway": build}
        _write_point(points_dir, keys[i], meta, files)
        done += 1
        if progress:
            progress(done, total)

    if client is not None:
        from dask.distributed import as_completed as dask_completed

        futures = {client.submit(_run_point, text, file, reps, seed, i, pure=False): i for i in todo}
        try:
            for f in dask_completed(futures):
                keep(futures[f], f.result())
        finally:
            for f in futures:
                f.cancel()
    elif todo:
        # Interrupted (Ctrl-C), or a point failed: the points running stop, those waiting do not
        # start, and the store keeps every point that had finished.
        cancel = threading.Event()
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            futures = {pool.submit(_run_point, text, file, reps, seed, i, cancel): i for i in todo}
            try:
                for f in as_completed(futures):
                    keep(futures[f], f.result())
            finally:
                cancel.set()
                for f in futures:
                    f.cancel()

    # The tables in point order, from what the store holds.
    rows, link_rows = [plan["sweep_header"]], [plan["links_header"]]
    for k in keys:
        d = points_dir / k
        if d.is_dir():
            rows.append((d / "sweep.csv").read_text())
            link_rows.append((d / "sweep-links.csv").read_text())
    (store / "sweep.csv").write_text("".join(rows))
    (store / "sweep-links.csv").write_text("".join(link_rows))
    return Campaign(
        store=store,
        runs=pd.read_csv(store / "sweep.csv"),
        links=pd.read_csv(store / "sweep-links.csv"),
        ran=len(todo),
        skipped=total - len(todo),
    )
