"""fairway.run, fairway.check and fairway.sweep: scenarios in, pandas DataFrames out."""

import io
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import pandas as pd

from . import _native, _toml

# The name a scenario given as text or as a dict goes by in errors (and, without a `name` key,
# the scenario's name).
_TEXT_FILE = "scenario.toml"


def _source(scenario):
    """(text, file) of a scenario given as a path, TOML text or a dict."""
    if isinstance(scenario, dict):
        return _toml.dumps(scenario), _TEXT_FILE
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario):
        path = os.fspath(scenario)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        limit = _native.MAX_SCENARIO_BYTES
        try:
            # Read to the bound the command line reads to: a device (/dev/zero) never ends.
            with open(path, "rb") as f:
                data = f.read(limit + 1)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such scenario file (give a path, TOML text or a dict)") from None
        if len(data) > limit:
            raise ValueError(f"{path}: larger than the {limit >> 20} MB a scenario file may have")
        try:
            return data.decode("utf-8"), path
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not a scenario file (not UTF-8 text at byte {e.start})") from None
    if isinstance(scenario, str):
        return scenario, _TEXT_FILE
    raise TypeError(f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}")


def _values(overrides, settings):
    """The overrides as (key, TOML value) pairs: `overrides` keyed as [sweep] keys them
    ("flow.cbr.rate"), then the keyword settings (top-level keys: duration="10s")."""
    if overrides is not None and not isinstance(overrides, dict):
        raise TypeError(f"overrides: a dict of {{key: value}}, not {type(overrides).__name__}")
    values = []
    for k, v in list((overrides or {}).items()) + list(settings.items()):
        values.append((str(k), _toml.value(v, str(k))))
    return values


# The largest count each argument takes, as the command line's types and bounds have it: a seed
# is a 64-bit number, replications are a sweep's points, threads are bounded by the points too.
_MOST = {"seed": 2**64 - 1, "reps": _native.MAX_POINTS, "jobs": _native.MAX_POINTS}


def _count(name, value, least=1):
    """An int argument (not a float, a string or a bool), from `least` to its bound, as the
    command line takes it; None stays None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: a whole number, not {type(value).__name__} {value!r}")
    if value < least:
        raise ValueError(f"{name}: at least {least}, not {value}")
    most = _MOST.get(name, 2**63 - 1)
    if value > most:
        raise ValueError(f"{name}: at most {most}, not {value}")
    return value


def _names(name, value):
    """A list of names (flow names for trace): a list or tuple of strings."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name}: a list of names, not {type(value).__name__} {value!r:.60}")
    for v in value:
        if not isinstance(v, str):
            raise TypeError(f"{name}: names are strings, not {type(v).__name__} {v!r:.60}")
    return list(value)


def _frame(text):
    if text is None:
        return None
    return pd.read_csv(io.StringIO(text))


@dataclass
class Result:
    """One run's results, the files `fairway run` writes as DataFrames.

    `flows`: a row per flow, summary.json's flows (nested objects flattened: `protocol.mapp.mean_scale`);
    `bins`: flows.csv (each flow per bin); `queue`: queue.csv; `links`: links.csv; `classes`:
    classes.csv; `logs`: each series a protocol logs, `<name>.csv` by name (MApp's `scale`);
    `scale`: scale.csv (MApp flows) or None; `trace`: trace-agents.csv (when traced) or None;
    `summary`: summary.json as a dict; `scenario`: the scenario run, as TOML text; `files`: each
    file's text, byte for byte what the command line writes (a series' log under its name).
    """

    summary: Dict[str, Any]
    flows: pd.DataFrame
    bins: pd.DataFrame
    queue: pd.DataFrame
    links: pd.DataFrame
    classes: pd.DataFrame
    logs: Dict[str, pd.DataFrame]
    scale: Optional[pd.DataFrame]
    trace: Optional[pd.DataFrame]
    scenario: str
    files: Dict[str, str] = field(repr=False)

    def __repr__(self):
        s = self.summary
        return f"<fairway.Result {s['scenario']!r} seed {s['seed']}: {len(s['flows'])} flows, {s['duration_s']} s>"


@dataclass
class Replications:
    """N seeds of one scenario: `runs` has a row per seed per flow (sweep.csv), `replications`
    each flow's and class's mean and 95% confidence half-width (replications.csv)."""

    runs: pd.DataFrame
    replications: pd.DataFrame
    links: pd.DataFrame


def run(scenario, seed=None, reps=None, overrides=None, trace=None, **settings):
    """Runs a scenario (a path, TOML text or a dict) and returns its :class:`Result`.

    seed: overrides the scenario's. overrides: values to set, keyed as a [sweep] table keys them
    ({"flow.cbr.rate": "1Mb", "link[2].delay": "20ms"}); keyword settings set top-level keys
    (duration="10s"). trace: flow names (or [[flow]] entry names) whose senders' state is traced
    at every change, into `trace`; [] traces every flow. reps: run that many seeds (from seed,
    or the scenario's) in parallel instead and return :class:`Replications`.

    A scenario fairway refuses raises fairway.ScenarioError, with file, line, col and field.
    """
    text, file = _source(scenario)
    values = _values(overrides, settings)
    reps, seed = _count("reps", reps), _count("seed", seed, 0)
    if reps is not None:
        if trace is not None:
            raise ValueError("trace: a single run's; with reps, trace one seed with run(..., seed=...)")
        # The base values (a [sweep] table is left out), as `fairway run --reps` runs them.
        base = _native.scenario_text(text, file, values)
        runs, reps_csv, links = _native.sweep_points(base, file, reps=reps, seed=seed)
        return Replications(runs=_frame(runs), replications=_frame(reps_csv), links=_frame(links))
    files = _native.run(text, file, seed=seed, values=values, trace=None if trace is None else _names("trace", trace))
    summary = json.loads(files["summary"])
    flows = pd.json_normalize(summary["flows"]) if summary["flows"] else pd.DataFrame()
    texts = {k: v for k, v in files.items() if v is not None and k not in ("scenario", "logs")}
    texts.update(files["logs"])
    logs = {name: _frame(text) for name, text in files["logs"].items()}
    return Result(
        summary=summary,
        flows=flows,
        bins=_frame(files["flows"]),
        queue=_frame(files["queue"]),
        links=_frame(files["links"]),
        classes=_frame(files["classes"]),
        logs=logs,
        scale=logs.get("scale"),
        trace=_frame(files["trace"]),
        scenario=files["scenario"],
        files=texts,
    )


@dataclass
class Problem:
    """An error or warning about a scenario, where it is."""

    file: str
    line: int
    col: int
    field: str
    message: str
    text: str

    def __str__(self):
        return self.text


@dataclass
class Check:
    """What fairway.check found: `errors` (the scenario cannot run) and `warnings` (it can, but
    likely not as meant). True when there are no errors."""

    errors: List[Problem]
    warnings: List[Problem]

    def __bool__(self):
        return not self.errors


def check(scenario, overrides=None, **settings):
    """Checks a scenario (and its [sweep]) without running it; returns a :class:`Check`."""
    text, file = _source(scenario)
    errors, warnings = _native.check(text, file, values=_values(overrides, settings))
    return Check(errors=[Problem(**e) for e in errors], warnings=[Problem(**w) for w in warnings])


def sweep(scenario, reps=None, seed=None, jobs=None, out=None):
    """Runs every point of the scenario's [sweep] grid in parallel (jobs threads, default the
    cores), each at `reps` seeds from `seed` if given, as `fairway sweep` does; returns sweep.csv
    as one DataFrame, a row per point per flow. With reps, `.attrs["replications"]` holds
    replications.csv; `.attrs["links"]` always holds sweep-links.csv. With out, the sweep's
    folder is written there too, as the command writes it."""
    text, file = _source(scenario)
    reps, seed, jobs = _count("reps", reps), _count("seed", seed, 0), _count("jobs", jobs)
    runs, reps_csv, links = _native.sweep_points(
        text, file, reps=reps, seed=seed, jobs=jobs,
        out=None if out is None else os.fspath(out),
    )
    df = _frame(runs)
    df.attrs["links"] = _frame(links)
    if reps_csv is not None:
        df.attrs["replications"] = _frame(reps_csv)
    return df
