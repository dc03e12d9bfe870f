"""The `fairway` command-line binary the tests compare the package with: FAIRWAY_BIN, else
cargo's release build of this repository (under CARGO_TARGET_DIR, or target/). Without one, a
test that needs it fails saying how to build or name it."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

HOW = ("build it (cargo build --release -p fairway-cli) or name it: "
       "FAIRWAY_BIN=/path/to/fairway python3 -m pytest python/tests")


def fairway_bin():
    named = os.environ.get("FAIRWAY_BIN")
    if named:
        if not Path(named).is_file():
            pytest.fail(f"FAIRWAY_BIN={named}: no such file; {HOW}", pytrace=False)
        return named
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    if not target.is_absolute():
        target = REPO / target
    built = target / "release" / "fairway"
    if not built.is_file():
        pytest.fail(f"these tests compare the package with the `fairway` command, and {built} "
                    f"does not exist: {HOW}", pytrace=False)
    return str(built)
