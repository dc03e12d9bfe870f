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
    # Run as a script is: `if __name__ == "__main__":` blocks run.
    ns = {"__name__": "__main__"}
    for b in blocks:
        exec(compile(b, "docs/python.md", "exec"), ns)
    assert (tmp_path / "cwnd.png").stat().st_size > 1000
    assert (tmp_path / "sweep.png").stat().st_size > 1000
    assert ns["r"].trace is not None
    # The campaigns kept their stores.
    assert (tmp_path / "campaign-cbr/sweep.csv").is_file() and (tmp_path / "campaign-dask/sweep.csv").is_file()
    assert ns["c"].ran == 9
    # The campaign's example shows the effect: per class, TCP falls and the CBR rises with the rate.
    by_class = ns["by_class"]
    assert list(by_class.index) == [500000, 1000000, 1500000]
    assert by_class["tcp"].is_monotonic_decreasing and by_class["udp"].is_monotonic_increasing


def test_a_local_cluster_is_made_under_the_main_guard():
    # A LocalCluster's worker processes import the script that made them: outside the guard,
    # each would run it again.
    seen = 0
    for doc in ["README.md", "docs/python.md", "docs/tutorial.md", "docs/cookbook.md"]:
        for b in re.findall(r"```py(?:thon)?\n(.*?)```", (REPO / doc).read_text(), re.S):
            lines = b.splitlines()
            for i, line in enumerate(lines):
                if "LocalCluster(" in line:
                    seen += 1
                    guarded = any(g.startswith('if __name__ == "__main__":') for g in lines[:i])
                    assert guarded and line.startswith(" "), f"{doc}: {line.strip()}"
    assert seen >= 1
