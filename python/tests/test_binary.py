"""The tests find the command-line binary, or say how to build or name it."""

import pytest

from binary import fairway_bin


def test_the_binary_is_found_or_the_failure_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("FAIRWAY_BIN", str(tmp_path / "nothing"))
    with pytest.raises(pytest.fail.Exception, match=r"FAIRWAY_BIN=.*nothing: no such file; build it \(cargo build"):
        fairway_bin()
    # Without FAIRWAY_BIN: cargo's release build, under CARGO_TARGET_DIR.
    monkeypatch.delenv("FAIRWAY_BIN")
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match=r"release/fairway does not exist: build it .* FAIRWAY_BIN="):
        fairway_bin()
    (tmp_path / "release").mkdir()
    (tmp_path / "release/fairway").write_text("")
    assert fairway_bin() == str(tmp_path / "release/fairway")
