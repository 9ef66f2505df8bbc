"""The example plugin (examples/plugin_blackjack/, a game against the house for 1-4 seats) installed as a
third party would install it, in a folder of its own (``pip install --no-deps --target``): found through
its entry point, it passes its own tests (`cardgym.testing.check_game` among them) and is served by
``gym.make``, ``make_vec``, ``cardgym eval`` (one seat), ``cardgym play`` (whose verdict reads the
game's utility: nobody beating the house is no draw) and ``cardgym rules`` (its page is its docstring)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "plugin_blackjack"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(PLUGIN)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT / "src")])}
    env.pop("CARDGYM_GAMES", None)  # found through its entry point alone
    env.pop("CARDGYM_TEST_GAMES", None)
    return env


def _run(env, *args, stdin=None, timeout=900):
    out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, input=stdin,
                         timeout=timeout, cwd=str(ROOT))
    assert out.returncode == 0, f"{args}: {out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_plugin_passes_its_own_tests(installed):
    out = _run(installed, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PLUGIN / "tests"))
    assert "[100%]" in out and "F" not in out.splitlines()[0]  # pytest -q: a dot per passed test


@pytest.mark.slow
@pytest.mark.subprocess
def test_every_surface_serves_the_plugin(installed):
    code = (
        "import gymnasium as gym, numpy as np, cardgym\n"
        "e = cardgym.GAMES['blackjack']; assert e.origin.startswith('entry point'), e.origin\n"
        "g = gym.make('cardgym/Blackjack-v0', num_players=3); o, i = g.reset(seed=0)\n"
        "o, r, t, tr, i = g.step(int(np.flatnonzero(i['action_mask'])[0]))\n"
        "v = cardgym.make_vec('blackjack', 4, num_players=1); o, i = v.reset(seed=0)\n"
        "assert o.shape[0] == 4 and i['action_mask'].shape == (4, 2)\n"
        "print('ok')\n")
    assert _run(installed, "-c", code).strip().endswith("ok")
    cli = ["-m", "cardgym.cli"]
    out = _run(installed, *cli, "eval", "blackjack", "--bots", "expert,random", "--num-players", "1", "--games", "40")
    assert "expert" in out and "ratings" in out
    out = _run(installed, *cli, "rules", "blackjack", "--no-pager")
    assert "Rules as implemented" in out and "Version history" in out


@pytest.mark.slow
@pytest.mark.subprocess
def test_play_says_lost_when_nobody_beat_the_house(installed):
    verdicts = set()
    for seed in range(12):
        out = _run(installed, "-m", "cardgym.cli", "play", "blackjack", "--num-players", "1", "--seed", str(seed),
                   stdin="1\n" * 12)
        line = next(x for x in out.splitlines() if x.startswith("Game over."))
        result = next(x for x in out.splitlines() if x.startswith("result:"))
        won, pushed = "'winners': [0]" in result, "'pushes': [0]" in result
        want = "You won!" if won else ("Draw." if pushed else "You lost.")
        assert want in line, (line, result)
        verdicts.add(want)
    assert "You lost." in verdicts
