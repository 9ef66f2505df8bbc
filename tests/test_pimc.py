"""The readable Python search of examples/pimc.py: built on the public world calls only, it makes the
compiled Skyjo `search` bot's very choices when handed the seed the compiled bot draws; it plays as an
env opponent, in `cardgym.eval.match` and from ``cardgym eval`` as ``examples/pimc.py:Player``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import cardgym
from cardgym.core.contract import worlds
from cardgym.core.compiled.rng import bot_below
from conftest import load_file

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("pimc_example", ROOT / "examples" / "pimc.py")
pimc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pimc)


@njit(cache=True)
def _search_seed(states):
    """The seed the compiled search loop draws from the record's bot generator (search_loop.py)."""
    s = states[0]
    return bot_below(s, 1 << 31) * (1 << 31) + bot_below(s, 1 << 31)


def test_pimc_makes_the_compiled_search_choices_in_skyjo():
    game = cardgym.get_game("skyjo")
    rules = game.make_rules()
    player = pimc.Player("skyjo", rules)
    c = game.compiled(bot=game.bot_index("search"), obs=0)
    params = rules.params()
    states = game.new_states(1)
    mask = np.zeros(game.num_actions, np.int8)
    rng = np.random.default_rng(0)
    compared = overruled = rounds = 0
    for episode in range(3):
        c.reset_one(states, 0, params, 40 + episode, np.empty(0, np.int8), 0, mask)
        while int(states[0]["status"]) == 0 and compared < 200 * (episode + 1):
            if int(states[0]["phase"]) != 0 and mask.sum() > 1:
                probe = states.copy()
                want = int(c.bot_one(probe, 0, params, mask.copy(), 0))  # the compiled search
                # the compiled loop on a copy: the expert first (it advances the bot generator), then the
                # seed it draws next, handed to the Python player
                tmp = states.copy()
                expert = int(worlds.bot_actions(game, rules, tmp, "expert")[0])
                got = player.choose(states[0], seed=int(_search_seed(tmp)))
                assert got == want, f"episode {episode} turn {int(states[0]['turn'])}: pimc {got}, search {want}"
                compared += 1
                overruled += got != expert
            # the expert plays on (so rounds end, and candidates that end them are compared), now and then
            # a random move
            a = int(worlds.bot_actions(game, rules, states.copy(), "expert")[0])
            if rng.random() < 0.2:
                a = int(rng.choice(np.flatnonzero(mask)))
            ended = int(states[0]["round_no"])
            c.apply_one(states, 0, params, a, mask)
            rounds += int(states[0]["round_no"]) != ended
    assert compared >= 300 and overruled >= 5 and rounds >= 3  # the search did overrule the expert, identically


def test_pimc_plays_as_an_opponent_and_in_eval():
    from cardgym import eval as ev

    r = ev.match("skyjo", pimc.Player("skyjo", rollouts=4, seed=1), "greedy", games=4, seed=3,
                 max_rounds=1)
    assert r["games"] == 4
    player = pimc.Player("skyjo", rollouts=2)
    env = cardgym.make_vec("skyjo", 2, opponent=player, max_rounds=1)  # an env opponent
    env.reset(seed=0)
    for _ in range(6):
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    assert player.decisions > 0
    with pytest.raises(TypeError, match="needs the game records"):
        pimc.Player("skyjo").act(None, None)
    with pytest.raises(ValueError, match="rollouts must be"):
        pimc.Player("skyjo", rollouts=0)


@pytest.mark.slow
@pytest.mark.subprocess
def test_cardgym_eval_takes_a_python_player_from_a_file():
    cmd = [sys.executable, "-m", "cardgym.cli", "eval", "skyjo", "--bots", "examples/pimc.py:Player,greedy",
           "--games", "2", "--max-rounds", "1", "--json"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["pairs"][0]["games"] == 2
    bad = subprocess.run(cmd[:6] + ["examples/pimc.py:Nope,greedy", "--games", "2"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "defines no Nope" in bad.stderr


def test_the_example_runs_from_the_command_line(capsys):
    assert pimc.main(["--games", "2", "--rollouts", "4"]) == 0
    assert "vs expert, 2 games" in capsys.readouterr().out


@pytest.mark.slow
def test_the_benchmark_runs(tmp_path):
    bench = load_file(ROOT / "benchmarks" / "pimc_vs_search.py", "pimc_bench")
    out = tmp_path / "r.json"
    assert bench.main(["--games", "2", "--chunk", "2", "--cost-games", "1", "--arms", "pimc,search,search_py",
                       "--out", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["pimc"]["games"] == r["search"]["games"] == r["search_py"]["games"] == 2
    assert r["cost_same_positions"]["decisions"] > 0
    with pytest.raises(SystemExit, match="--arms"):
        bench.main(["--arms", "nope"])
