"""benchmarks/prompt_sizes.py: the largest prompt of each game, measured through the text players' runner
(docs/llm_agents.md, "Prompt sizes"); here on one short game, with the tokenizer it finds."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import load_file


@pytest.fixture(scope="module")
def bench():
    return load_file(Path(__file__).resolve().parents[1] / "benchmarks" / "prompt_sizes.py", "prompt_sizes")


def test_prompt_sizes_measures_the_largest_prompt_of_each_history(bench, capsys):
    rows = bench.main(["--games", "1", "--game", "skipbo_junior"])
    out = capsys.readouterr().out
    assert [r["history"] for r in rows] == ["recent", "full"] and "skipbo_junior" in out
    recent, full = rows
    assert recent["decisions"] == full["decisions"] > 0
    assert full["chars"] > recent["chars"] > 1000
    assert 0 < recent["tokens"] < recent["chars"]
    got = bench.measure("skipbo_junior", {}, "full", games=1)
    assert len(got["prompt"]) == got["chars"] and "# The game so far (public moves)" in got["prompt"]
    with pytest.raises(SystemExit):
        bench.main(["--games", "0"])
