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
    monkeypatch.chdir(REPO)
    ns = {}
    for b in blocks:
        # Figures the examples save go to the test's folder, not the repository.
        code = b.replace('savefig("', f'savefig("{tmp_path}/')
        exec(compile(code, "docs/python.md", "exec"), ns)
    assert (tmp_path / "cwnd.png").stat().st_size > 1000
    assert (tmp_path / "sweep.png").stat().st_size > 1000
    assert ns["r"].trace is not None
