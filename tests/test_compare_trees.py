"""benchmarks/compare_trees.py: two source trees' throughput, interleaved, best of each, and the ratio."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_file

ROOT = Path(__file__).resolve().parents[1]


def _module():
    return load_file(ROOT / "benchmarks" / "compare_trees.py", "compare_trees")


def _tree(path: Path) -> Path:
    (path / "benchmarks").mkdir(parents=True)
    (path / "benchmarks" / "throughput.py").write_text("")
    (path / "src" / "cardgym").mkdir(parents=True)
    return path


def test_runs_interleave_and_the_best_of_each_tree_counts(tmp_path, monkeypatch, capsys):
    mod = _module()
    before, after = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    calls = []
    rates = {before: [100, 300, 200], after: [350, 120, 340]}

    def fake(tree, games, seconds, out):
        calls.append(tree.name)
        got = {("skyjo 2p", "AEC loop"): rates[tree].pop(0)}
        if tree == before:
            got[("only before", "AEC loop")] = 1
        return got

    monkeypatch.setattr(mod, "run_once", fake)
    mod.main([str(before), str(after), "--rounds", "3"])
    assert calls == ["a", "b", "a", "b", "a", "b"]
    out = capsys.readouterr().out
    assert "| skyjo 2p | AEC loop | 300 | 350 | 1.167 |" in out  # the best of 3 runs each
    assert "only before" not in out  # only the rows both trees measure


def test_a_folder_that_is_no_source_tree_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        _module().main([str(tmp_path), str(ROOT)])
    assert exc.value.code == 2
    assert "is not a cardgym source tree" in capsys.readouterr().err
