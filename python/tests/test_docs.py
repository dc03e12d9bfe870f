"""docs/python.md's examples run as written, in order, from the repository's root."""

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_the_walk_through_runs(tmp_path, monkeypatch):
    if not os.environ.get("FAIRWAY_REQUIRE_PYTHON"):
        pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    text = (REPO / "docs/python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    # The examples read scenarios/ and write beside it: a folder of the test's own.
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    ns = {}
    for b in blocks:
        exec(compile(b, "docs/python.md", "exec"), ns)
    assert (tmp_path / "cwnd.png").stat().st_size > 1000
    assert (tmp_path / "sweep.png").stat().st_size > 1000
    assert ns["r"].trace is not None
    # The campaigns kept their stores.
    assert (tmp_path / "campaign-cbr/sweep.csv").is_file() and (tmp_path / "campaign-dask/sweep.csv").is_file()
    assert ns["c"].ran == 9
