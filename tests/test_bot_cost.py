"""The bot-cost benchmark (benchmarks/bot_cost.py) runs and times every bot on the same positions."""

from __future__ import annotations

from pathlib import Path

import pytest

import cardgym
from conftest import load_file


def _load():
    return load_file(Path(__file__).resolve().parents[1] / "benchmarks" / "bot_cost.py", "bot_cost")


@pytest.mark.slow
def test_every_bot_timed_on_the_same_decisions(tmp_path, capsys):
    out = tmp_path / "cost.json"
    rows = _load().main(["--games", "1", "--games-list", "skyjo", "--json", str(out)])
    (row,) = rows
    assert row["game"] == "skyjo" and row["games"] == 1 and row["decisions"] > 10
    assert set(row["ms_per_decision"]) == set(cardgym.get_game("skyjo").bots)
    assert all(ms > 0 for ms in row["ms_per_decision"].values())
    printed = capsys.readouterr().out
    assert "| skyjo |" in printed and out.exists()
