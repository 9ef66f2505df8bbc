"""The bot-cost benchmark (benchmarks/bot_cost.py) runs and times every bot on the same positions."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import cardgym


def _load():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bot_cost.py"
    spec = importlib.util.spec_from_file_location("bot_cost", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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
