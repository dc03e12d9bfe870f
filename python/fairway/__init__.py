"""fairway from Python: run, check and sweep fairway's scenarios and get pandas DataFrames.

    import fairway
    r = fairway.run("scenarios/tutorial/red-dumbbell.toml", overrides={"flow.cbr.rate": "1Mb"})
    r.flows          # one row per flow: summary.json's flows
    r.bins           # flows.csv: each flow per bin
    r.summary        # summary.json as a dict

The simulator is fairway's Rust engine, run with the GIL released. docs/python.md walks through
it, sweeps and campaigns included. `fairway.__build__` names the build (version, commit and
edits), as `fairway --version` does.
"""

from ._native import RunError, ScenarioError, __build__, __version__
from .api import Replications, Result, check, run, sweep
from .campaign import Campaign, campaign, open_campaign

__all__ = [
    "run",
    "check",
    "sweep",
    "campaign",
    "open_campaign",
    "Result",
    "Replications",
    "Campaign",
    "ScenarioError",
    "RunError",
    "__version__",
    "__build__",
]
