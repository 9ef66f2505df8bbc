"""Every example script runs end to end on a tiny budget (in a subprocess, as a user would run it)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(script, *args, cwd):
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / script), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stderr[-4000:]}\n{proc.stdout[-2000:]}"
    return proc.stdout


@pytest.mark.slow
@pytest.mark.subprocess
def test_quickstart_trains_and_reports(tmp_path):
    pytest.importorskip("torch")
    out = _run("quickstart.py", "--steps", 2048, "--envs", 16, "--games", 8, "--curve-games", 4, "--eval-every", 1,
               "--out", tmp_path / "q", cwd=tmp_path)
    for bot in ("random", "greedy", "expert"):
        assert f"vs {bot}" in out and "duplicate games" in out
        assert re.search(rf"  vs {bot}: [0-9.]+% \[[0-9.]+%, [0-9.]+%\] -> ", out)  # first and last curve points
    assert "learning curve" in out and "min CPU" in out
    res = json.loads((tmp_path / "q" / "results.json").read_text())
    assert res["steps"] == 2048 and res["pretrain"] == [] and res["config"]["imitate"] == ""
    assert (tmp_path / "q" / "model.pt").is_file()
    # the untrained policy first (--eval-first), then after each of the two iterations
    assert [h["steps"] for h in res["eval_history"]] == [0, 1024, 2048]
    assert (tmp_path / "q" / "curve.png").is_file()  # docs/training.md lists it


@pytest.mark.slow
@pytest.mark.subprocess
def test_tour(tmp_path):
    out = _run("tour.py", "--games", 16, "--episodes", 2, cwd=tmp_path)
    import cardgym

    # every game of the registry: greedy vs random, and expert vs greedy where the game has an expert
    want = sum(1 + ("expert" in cardgym.get_game(name).bots) for name in cardgym.GAMES)
    assert "[AEC]" in out and out.count("[eval]") == want


@pytest.mark.slow
@pytest.mark.subprocess
def test_sb3_maskable_ppo(tmp_path):
    pytest.importorskip("sb3_contrib")
    _run("sb3_maskable_ppo.py", "--game", "skipbo_junior", "--opponent", "random", "--steps", 256, "--envs", 8,
         "--n-steps", 32, "--batch-size", 64, "--eval-freq", 128, "--eval-episodes", 2, "--final-games", 4,
         "--out", tmp_path / "sb3", cwd=tmp_path)
    res = json.loads((tmp_path / "sb3" / "results.json").read_text())
    assert (tmp_path / "sb3" / "model.zip").is_file()
    assert res, res


@pytest.mark.slow
@pytest.mark.subprocess
def test_record_gif(tmp_path):
    pytest.importorskip("PIL")
    _run("record_gif.py", "--game", "skipbo_junior", "--max-frames", 5, "--out", tmp_path / "j.gif", cwd=tmp_path)
    from PIL import Image

    with Image.open(tmp_path / "j.gif") as im:
        assert im.n_frames == 5
