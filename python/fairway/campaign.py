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
        digest                  the SHA-256 of each file above, written last

A point is kept only if its folder holds exactly the files its digest names, as regular files
with those digests: one damaged, edited, cut short, missing or replaced by a link since it was
written runs again (`Campaign.repaired` counts them). `open_campaign(store)` reads a store
without writing to it.

A point's key is a hash of the scenario it runs (the base file with its values set, its seed
among them) and fairway's build (`fairway.__build__`: its version, commit and edits): a point
already in the store is not run again, and a changed file or another fairway runs afresh. A point's files are the same bytes whichever machine ran it.
"""

import hashlib
import io
import json
import os
import shutil
import stat
import threading
import warnings
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
    (sweep-links.csv), how many points `ran` now and were `skipped` (already in the store), and
    of those run how many were `repaired` (in the store but damaged: run again)."""

    store: Path
    runs: pd.DataFrame
    links: pd.DataFrame
    ran: int
    skipped: int
    repaired: int = 0

    def point(self, label):
        """A finished point's tables: dict of `summary` (a dict), `flows`, `bins`, `links`.
        A point whose files fail their digest is not read: ValueError says which."""
        # Dot-folders are points being written (or left half-written by a crash).
        for d in (p for p in (self.store / "points").iterdir() if not p.name.startswith(".")):
            problem = _check(d)
            if problem:
                try:
                    meta = json.loads((d / "point.json").read_text())
                except (OSError, ValueError):
                    continue
                if isinstance(meta, dict) and meta.get("label") == label:
                    raise ValueError(f"point {label!r} in {d} is damaged ({problem}): run the campaign again to repair it")
                continue
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


DIGEST = "digest"


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_digest(d):
    """Writes d/digest: a line `<sha256>  <name>` per file in d, sorted by name."""
    lines = [f"{_sha256(d / n)}  {n}\n" for n in sorted(p.name for p in d.iterdir())]
    (d / DIGEST).write_text("".join(lines))


def _check(d):
    """Why the point folder `d` is not as written (None if it is): its digest names exactly the
    files in it, each a regular file (not a link) whose SHA-256 it gives."""
    try:
        text = (d / DIGEST).read_text()
    except (OSError, UnicodeDecodeError):
        return "no digest"
    want = {}
    for line in text.splitlines():
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or "/" in name or name in ("", ".", "..", DIGEST):
            return "a damaged digest"
        want[name] = digest
    try:
        have = {p.name for p in d.iterdir()} - {DIGEST}
    except OSError as e:
        return str(e)
    if have != set(want):
        extra, missing = sorted(have - set(want)), sorted(set(want) - have)
        return "; ".join(x for x in (extra and f"unexpected {', '.join(extra)}", missing and f"missing {', '.join(missing)}") if x)
    for name, digest in want.items():
        p = d / name
        try:
            if not stat.S_ISREG(os.lstat(p).st_mode):
                return f"{name} is not a regular file"
            if _sha256(p) != digest:
                return f"{name} changed since it was written"
        except OSError as e:
            return f"{name}: {e}"
    return None


def _write_point(points_dir, key, meta, files):
    """Writes a point's folder beside its place, its digest last, and moves it there whole."""
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
    _write_digest(tmp)
    os.replace(tmp, final)


def _set_aside(d):
    """Removes a damaged point's folder: renamed first (so it is no longer a point even if the
    removal is cut short), then deleted."""
    aside = d.parent / f".{d.name}.damaged-{os.getpid()}"
    shutil.rmtree(aside, ignore_errors=True)
    os.replace(d, aside)
    shutil.rmtree(aside, ignore_errors=True)


def _tables(points, sweep_header, links_header):
    """sweep.csv's and sweep-links.csv's text from point folders, in the order given."""
    rows, link_rows = [sweep_header], [links_header]
    for d in points:
        rows.append((d / "sweep.csv").read_text())
        link_rows.append((d / "sweep-links.csv").read_text())
    return "".join(rows), "".join(link_rows)


def _write_if_changed(path, text):
    """Writes `text` to `path` (whole: beside it, then moved) unless it holds it already, so
    that reading a finished store writes nothing."""
    try:
        if path.read_text() == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


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
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: a function of (done, total), not {type(progress).__name__}")
    if client is not None and not callable(getattr(client, "submit", None)):
        raise TypeError(f"client: a dask.distributed Client, not {type(client).__name__}")
    if grid is not None:
        if not isinstance(grid, dict) or not grid:
            raise ValueError("grid: a dict of {key: [values]}, at least one key")
        axes = []
        for k, vs in grid.items():
            vs = list(vs) if isinstance(vs, (list, tuple, range)) else [vs]
            if not vs:
                raise ValueError(f"grid: {k} has no values")
            axes.append((str(k), [_toml.value(v, str(k)) for v in vs]))
        text = _native.with_grid(text, file, axes)
    plan = _native.plan(text, file, reps=reps, seed=seed)
    store = Path(store)
    if store.exists() and not store.is_dir():
        raise NotADirectoryError(f"{store}: is a file, not a campaign store (a folder)")
    points_dir = store / "points"
    points_dir.mkdir(parents=True, exist_ok=True)
    build = _native.__build__
    keys = [_key(build, p["text"]) for p in plan["points"]]
    # A point in the store is kept only if its files are those its digest was made of.
    damaged = []
    for k in keys:
        d = points_dir / k
        if os.path.lexists(d):
            problem = _check(d) if d.is_dir() and not d.is_symlink() else "not a folder"
            if problem:
                damaged.append(f"{k} ({problem})")
                if d.is_dir() and not d.is_symlink():
                    _set_aside(d)
                else:
                    d.unlink()
    if damaged:
        warnings.warn(f"{store}: {len(damaged)} damaged point(s) run again: {'; '.join(damaged[:5])}", stacklevel=2)
    todo = [i for i, k in enumerate(keys) if not (points_dir / k).is_dir()]
    total = len(plan["points"])
    done = total - len(todo)

    def keep(i, files):
        nonlocal done
        p = plan["points"][i]
        meta = {
            "index": p["index"],
            "label": p["label"],
            "keys": plan["keys"],
            "values": p["values"],
            "fairway": build,
            "sweep_header": plan["sweep_header"],
            "links_header": plan["links_header"],
        }
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
    kept = [points_dir / k for k in keys if (points_dir / k).is_dir()]
    sweep_text, links_text = _tables(kept, plan["sweep_header"], plan["links_header"])
    _write_if_changed(store / "sweep.csv", sweep_text)
    _write_if_changed(store / "sweep-links.csv", links_text)
    return Campaign(
        store=store,
        runs=pd.read_csv(io.StringIO(sweep_text)),
        links=pd.read_csv(io.StringIO(links_text)),
        ran=len(todo),
        skipped=total - len(todo),
        repaired=len(damaged),
    )


def open_campaign(store):
    """The campaign a store holds, read without writing to it (a store on a read-only disk, or
    another user's): every point whose files pass their digest, in point order. Damaged points
    are left out with a warning naming them; running the campaign again repairs them. A store
    that has held two campaigns of the same columns (another grid, another fairway build) holds
    the points of both, and this reads them all; `campaign()` reads only its own."""
    store = Path(store)
    points_dir = store / "points"
    if not points_dir.is_dir():
        raise FileNotFoundError(f"{store}: not a campaign store (no points folder)")
    good, damaged, headers = [], [], None
    for d in sorted(p for p in points_dir.iterdir() if not p.name.startswith(".")):
        problem = _check(d) if d.is_dir() and not d.is_symlink() else "not a folder"
        meta = None
        if not problem:
            try:
                meta = json.loads((d / "point.json").read_text())
                index = int(meta["index"])
                these = (meta["sweep_header"], meta["links_header"])
            except (OSError, ValueError, KeyError, TypeError):
                problem = "point.json is not a point's"
        if problem:
            damaged.append(f"{d.name} ({problem})")
            continue
        if headers is not None and these != headers:
            raise ValueError(f"{store}: points of different sweeps (their tables' columns differ); open one sweep's store")
        headers = these
        good.append((index, d))
    if damaged:
        warnings.warn(f"{store}: {len(damaged)} damaged point(s) left out: {'; '.join(damaged[:5])}", stacklevel=2)
    if headers is None:
        raise ValueError(f"{store}: no finished point to read")
    good.sort(key=lambda x: x[0])
    sweep_text, links_text = _tables([d for _, d in good], *headers)
    return Campaign(
        store=store,
        runs=pd.read_csv(io.StringIO(sweep_text)),
        links=pd.read_csv(io.StringIO(links_text)),
        ran=0,
        skipped=len(good),
    )
