"""The ``search`` bot of every game (docs/bots.md): legal, blind to hidden cards, leaves the game's
generator alone, deterministic under a seed, and registered in every layer."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numba
import numpy as np
import pytest

import cardgym
from cardgym.cli import main
from redeal import redeal

GAMES = ["skyjo", "skipbo", "skipbo_junior", "crazy_eights"]
# short episodes keep the test fast
OPTIONS = {"skyjo": {"episode": "round"}, "skipbo": {"stock_size": 5}, "skipbo_junior": {"stock_size": 4},
           "crazy_eights": {}}


def _pkg(name):
    """The game folder's package (``cardgym.games.<name>``, or a test game's)."""
    return cardgym.get_game(name).rules_cls.__module__.rpartition(".")[0]


def _setup(name, seed):
    game = cardgym.get_game(name)
    rules = game.make_rules(num_players=2, **OPTIONS[name])
    p = rules.params()
    st = game.new_states(1)
    game.reset(st[0], p, seed, np.zeros(1, np.int8), 0)
    return game, rules, p, st


def _decisions(name, seed, limit=400):
    """Yield (game, rules, p, states, mask) at each decision of a game played by search (seat 0) and
    random (seat 1); the caller's checks run before the move is applied."""
    game, rules, p, st = _setup(name, seed)
    mask = np.zeros(game.num_actions, np.int8)
    search, rand = game.bot("search"), game.bot("random")
    for _ in range(limit):
        if st[0]["status"] != 0:
            return
        game.legal(st[0], p, mask)
        yield game, rules, p, st, mask
        bot = search if st[0]["current"] == 0 else rand
        game.apply(st[0], p, int(bot(st[0], p, mask)))


@pytest.mark.parametrize("name", GAMES)
def test_search_plays_legal_actions_to_the_end(name):
    ended = 0
    for seed in range(3):
        for game, _, p, st, mask in _decisions(name, seed, limit=2000):
            if st[0]["current"] == 0:
                probe = st.copy()
                a = int(game.bot("search")(probe[0], p, mask))
                assert mask[a] == 1, (seed, a)
            last = st
        ended += int(last[0]["status"]) != 0
    assert ended >= 1


@pytest.mark.parametrize("name", GAMES)
def test_search_never_reads_hidden_cards(name):
    """Two records that differ only in cards the seat cannot see (re-dealt by the game's own
    ``WORLD``, through sample_world) get the same decision from the same ``bot_rng``."""
    game_ = cardgym.get_game(name)

    def resample(record, rules, seat, rng):
        return redeal(game_, rules, record, seat, rng)

    np_rng = np.random.default_rng(0)
    checked = differed = 0
    for seed in range(6):
        if checked >= 12:
            break
        for k, (game, rules, p, st, mask) in enumerate(_decisions(name, 10 + seed)):
            if k % 3 or st[0]["current"] != 0 or mask.sum() < 2:
                continue
            seat = int(st[0]["current"])
            other = np.zeros(1, st.dtype)
            other[0] = resample(st[0].copy(), rules, seat, np_rng)
            other[0]["rng"] = st[0]["rng"]
            other[0]["bot_rng"] = st[0]["bot_rng"]
            differed += int(other.tobytes() != st.tobytes())
            a = game.bot("search")(st.copy()[0], p, mask)
            b = game.bot("search")(other[0], p, mask)
            assert a == b, (seed, k)
            checked += 1
            if checked >= 12:
                break
    assert checked >= 6 and differed >= 3


@pytest.mark.parametrize("name", GAMES)
def test_search_leaves_the_game_generator_alone(name):
    """Only ``bot_rng`` moves: the game generator and every rules field are as before the decision."""
    moved = 0
    for k, (game, _, p, st, mask) in enumerate(_decisions(name, 21)):
        if st[0]["current"] != 0 or mask.sum() < 2:
            continue
        before = st.copy()
        game.bot("search")(st[0], p, mask)
        assert st[0]["rng"] == before[0]["rng"]
        for f in st.dtype.names:
            if f != "bot_rng" and not f.startswith("_bot"):
                assert np.array_equal(st[0][f], before[0][f]), f
        moved += int(st[0]["bot_rng"] != before[0]["bot_rng"])
        if k > 40:
            break
    assert moved >= 3


@pytest.mark.parametrize("name", GAMES)
def test_search_is_deterministic_under_a_seed(name):
    def trajectory():
        out = []
        for game, _, p, st, mask in _decisions(name, 33, limit=60):
            out.append(int(st[0]["bot_rng"]))
        return out

    assert trajectory() == trajectory()


@pytest.mark.parametrize("name", GAMES)
def test_search_budget_changes_nothing_but_strength(name):
    """``make_search_bot`` builds a bot with another budget; a budget of 0 plays the expert's choice."""
    mod = importlib.import_module(f"{_pkg(name)}.search")
    zero = mod.make_search_bot(rollouts=0)
    game, _, p, st = _setup(name, 5)
    mask = np.zeros(game.num_actions, np.int8)
    n = 0
    while st[0]["status"] == 0 and n < 80:
        game.legal(st[0], p, mask)
        a = zero(st.copy()[0], p, mask)
        assert a == game.bot("expert")(st.copy()[0], p, mask)
        game.apply(st[0], p, a)
        n += 1
    with pytest.raises(ValueError, match="rollouts"):
        mod.make_search_bot(rollouts=-1)
    with pytest.raises(ValueError, match="rollout_bot"):
        mod.make_search_bot(rollout_bot="nobody")


@pytest.mark.parametrize("name", GAMES)
def test_search_is_registered_in_every_layer(name, capsys):
    game = cardgym.get_game(name)
    assert list(game.bots)[-1] == "search" and game.bot_index("search") == 3
    env = gym.make(cardgym.GAMES[name].gym_id, opponent="search", **OPTIONS[name])
    obs, info = env.reset(seed=1)
    a = env.unwrapped.bot_action("search")
    assert info["action_mask"][a] == 1
    env.step(a)
    env.close()
    aec = importlib.import_module(f"cardgym.{game.env_name}").raw_env(**OPTIONS[name])
    aec.reset(seed=2)
    aec.step(aec.bot_action("search"))
    opts = {"skyjo": [], "skipbo": ["--stock-size", "5"], "skipbo_junior": ["--stock-size", "4"],
            "crazy_eights": []}[name]
    main(["eval", name, "--bots", "search,expert", "--games", "4", "--seed", "1", "--json", *opts])
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert pair["a"] == "search" and pair["games"] == 4


@pytest.mark.parametrize("name", GAMES)
def test_search_and_expert_modules_export_their_bots(name):
    """The game-folder contract: ``search.BOTS`` and ``expert.BOTS`` name the compiled bots, and the
    search loop bound to the game is that game's own module (one per game)."""
    search = importlib.import_module(f"{_pkg(name)}.search")
    expert = importlib.import_module(f"{_pkg(name)}.expert")
    assert search.BOTS == {"search": search.bot_search}
    assert expert.BOTS == {"expert": expert.bot_expert}
    assert search.search.py_func.__module__ == f"{_pkg(name)}._search_loop"
    assert search.bot_search.py_func.__globals__["RESAMPLE"] is search.resample_seen


def test_bind_search_checks_the_default_budget():
    from cardgym.kit.search import bind_search

    with pytest.raises(ValueError, match="rollout_bot"):
        bind_search("cardgym.games.nowhere.search", dtype=None, apply=None, legal=None, expert=None,
                    greedy=None, resample=None, value=None, num_actions=1, pool=1, z=2.0, rollouts=1,
                    horizon=0, rollout_bot="nobody")


@pytest.mark.subprocess
@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing is compiled under NUMBA_DISABLE_JIT")
def test_the_bound_search_loop_is_cached_on_disk():
    """The loop is bound to each game through module globals, not closures (which numba cannot cache):
    a second process loads the search bot from the cache instead of compiling it again."""
    game, _, p, st = _setup("skyjo", 4)
    mask = np.zeros(game.num_actions, np.int8)
    game.legal(st[0], p, mask)
    game.bot("search")(st[0], p, mask)  # compiled (or loaded) and cached here
    code = ("import numpy as np, cardgym\n"
            "from cardgym.games.skyjo import search\n"
            "g = cardgym.get_game('skyjo'); r = g.make_rules(); p = r.params(); st = g.new_states(1)\n"
            "g.reset(st[0], p, 4, np.zeros(1, np.int8), 0); m = np.zeros(g.num_actions, np.int8)\n"
            "g.legal(st[0], p, m); search.bot_search(st[0], p, m)\n"
            "print(sum(search.bot_search.stats.cache_hits.values()),"
            " sum(search.bot_search.stats.cache_misses.values()))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(cardgym.__file__).parents[1]),
                                                          os.environ.get("PYTHONPATH", "")])}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "0"]
