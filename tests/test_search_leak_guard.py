"""Leak guard of the in-game ``search`` bot, for every game that has one.

(a) Over many decisions of the search playing inside the game (its seed drawn from the record's bot
    generator, as in every env), the rollout worlds it deals agree with the true hidden cards no more
    often than worlds dealt from independent seeds: a one-sided paired z-test over decisions. A planted
    leak of 3% of the hidden places is caught by the same test (`test_a_planted_leak_is_caught`).
(b) Two records that differ only in their hidden cards give identical worlds and identical choices of
    every bot for the same seed (the same bot generator state).

The search's worlds are replayed from Python: `cardgym.core.contract.worlds.sample_worlds` with the seed the
compiled search loop draws (``kit/search_loop.py``: the expert's choice first, then two draws of the bot
generator; tests/test_worlds.py checks that world ``k`` is the deal of rollout ``k``). A decision
counts only where the record's bot generator after the real search equals the replayed one after that
seed, i.e. where the search did draw it.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from numba import njit

import cardgym
from cardgym.core.contract import worlds
from cardgym.core.compiled.rng import bot_below
from cardgym.core.state.status import RUNNING
from conftest import GAME_NAMES

#: z above which a leak is reported (one-sided; a fair search exceeds it with probability ~3e-5)
Z_LEAK = 4.0
ROLLOUTS = 16  # worlds compared per decision and arm


def _has_search(name) -> bool:
    game = cardgym.get_game(name)
    pkg = game.package
    return "search" in game.bots and importlib.util.find_spec(f"{pkg}.search") is not None


SEARCH_GAMES = [n for n in GAME_NAMES if _has_search(n)]


@njit(cache=True)
def _search_seed(states):
    """The seed the compiled search loop draws from the record's bot generator (search_loop.py)."""
    s = states[0]
    return bot_below(s, 1 << 31) * (1 << 31) + bot_below(s, 1 << 31)


def _agreement(game, real, ws, pos, rows) -> float:
    """Share of the hidden places (and hidden hand cards) where the worlds ``ws`` hold the true card."""
    hit = total = 0.0
    for f, e in pos:
        true = np.asarray(real[f]).reshape(-1)[e]
        hit += float((ws[f].reshape(ws.shape[0], -1)[:, e] == true).sum())
        total += ws.shape[0]
    for f, j in rows:
        true = np.asarray(real[f])[j].astype(np.int64)
        got = ws[f][:, j].astype(np.int64)
        hit += float(np.minimum(got, true[None]).sum())
        total += float(ws.shape[0] * true.sum())
    return hit / total if total else np.nan


def _plant(game, real, ws, pos, share, rng):
    """A planted leak: each hidden place of each world shows its true card with probability ``share``."""
    ws = ws.copy()
    for f, e in pos:
        flat = ws[f].reshape(ws.shape[0], -1)
        hit = rng.random(ws.shape[0]) < share
        flat[hit, e] = np.asarray(real[f]).reshape(-1)[e]
        ws[f] = flat.reshape(ws[f].shape)
    return ws


def _decisions(name, decisions, seed=0):
    """``(record, seat, in-game seed)`` at up to ``decisions`` decisions where the search (seat 0, against
    the expert) drew its seed inside the game, over as many seeded games as that takes."""
    game = cardgym.get_game(name)
    rules = game.make_rules()
    c = game.compiled(bot=game.bot_index("search"), obs=0)
    ce = game.compiled(bot=game.bot_index("expert"), obs=0)
    params = rules.params()
    states = game.new_states(1)
    mask = np.zeros(game.num_actions, np.int8)
    out = []
    episode = 0
    while len(out) < decisions and episode < 40:
        c.reset_one(states, 0, params, seed + episode, np.empty(0, np.int8), 0, mask)
        episode += 1
        while int(states[0]["status"]) == RUNNING and len(out) < decisions:
            seat = int(states[0]["current"])
            if seat == 0:
                tmp = states.copy()
                worlds.bot_actions(game, rules, tmp, "expert")  # the loop's first step advances the generator
                sd = int(_search_seed(tmp))
                before = states.copy()
                a = int(c.bot_one(states, 0, params, mask.copy(), 0))  # the real search, in the game
                if states[0]["bot_rng"] == tmp[0]["bot_rng"]:  # it drew exactly that seed
                    out.append((before[0].copy(), seat, sd))
            else:
                a = int(ce.bot_one(states, 0, params, mask.copy(), 0))
            c.apply_one(states, 0, params, a, mask)
    return game, rules, out


def _z(name, decisions, plant=0.0):
    """The paired z of (in-game worlds' agreement with the truth) - (independent worlds' agreement)."""
    game, rules, decs = _decisions(name, decisions)
    assert len(decs) >= decisions // 2, f"{name}: the search drew a seed at only {len(decs)} decisions"
    rng = np.random.default_rng(12345)
    diffs = []
    for real, seat, sd in decs:
        ingame = worlds.sample_worlds(game, rules, real, seat, sd, ROLLOUTS)
        indep = worlds.sample_worlds(game, rules, real, seat, int(rng.integers(2**62)), ROLLOUTS)
        ref = worlds.sample_worlds(game, rules, real, seat, int(rng.integers(2**62)), ROLLOUTS)
        pos, rows = worlds._hidden_elements(game, ref, game.world)
        if not pos and not rows:
            continue
        if plant:
            ingame = _plant(game, real, ingame, pos, plant, rng)
        diffs.append(_agreement(game, real, ingame, pos, rows) - _agreement(game, real, indep, pos, rows))
    d = np.asarray(diffs)
    assert d.size >= 50, f"{name}: only {d.size} decisions with hidden cards"
    return float(d.mean() / (d.std(ddof=1) / np.sqrt(d.size))), int(d.size)


@pytest.mark.parametrize("name", SEARCH_GAMES)
def test_in_game_search_worlds_agree_with_the_truth_no_more_than_independent_ones(name):
    z, n = _z(name, 240)
    assert z < Z_LEAK, f"{name}: the in-game search's worlds agree with the true hidden cards more often than " \
                       f"independent worlds (z {z:.1f} over {n} decisions): a leak"


@pytest.mark.parametrize("name", SEARCH_GAMES)
def test_a_planted_leak_is_caught(name):
    """The same statistic with 3% of the hidden places showing their true card in the in-game worlds
    (measured: z 8-46 across the games, against -1.4-0.2 without the plant)."""
    z, n = _z(name, 240, plant=0.03)
    assert z > Z_LEAK, f"a planted 3% leak scored only z {z:.1f} over {n} decisions"


@pytest.mark.parametrize("name", SEARCH_GAMES)
def test_records_differing_only_in_hidden_cards_give_the_same_worlds_and_choices(name):
    game, rules, decs = _decisions(name, 30, seed=100)
    bots = list(game.bots)
    compared = 0
    for k, (real, seat, sd) in enumerate(decs):
        # the same game with its hidden cards dealt otherwise: a world, given the real generators back
        other = game.new_states(1)
        other[0] = worlds.sample_world(game, rules, real, seat, 777 + k)
        other[0]["rng"], other[0]["bot_rng"] = real["rng"], real["bot_rng"]
        mine = game.new_states(1)
        mine[0] = real
        if worlds._fields_equal(mine[0], other[0]) is None:
            continue  # nothing hidden to deal otherwise
        a = worlds.sample_worlds(game, rules, mine[0], seat, sd, 4)
        b = worlds.sample_worlds(game, rules, other[0], seat, sd, 4)
        for i in range(4):
            assert worlds._fields_equal(a[i], b[i]) is None, f"{name}: the worlds depend on the hidden cards"
        for bot in bots:
            x = worlds.bot_actions(game, rules, mine.copy(), bot)
            y = worlds.bot_actions(game, rules, other.copy(), bot)
            assert x.tolist() == y.tolist(), f"{name}: bot {bot!r} chose {x} on the real game, {y} on its twin"
        compared += 1
    assert compared >= 10


# ------------------------------------------------------------ the search on copies (a Python player)
class SeedRecorder:
    """The compiled search as a Python player (``act_records``, handed copies of the records), noting
    the seed each decision's search draws (replayed as above on a copy of the copy)."""

    def __init__(self, name):
        self.game = cardgym.get_game(name)
        self.rules = self.game.make_rules()
        self.seeds: list = []

    def act_records(self, records, masks):
        for i in range(len(records)):
            tmp = records[i: i + 1].copy()
            worlds.bot_actions(self.game, self.rules, tmp, "expert")
            self.seeds.append(int(_search_seed(tmp)))
        return worlds.bot_actions(self.game, self.rules, records, "search")

    def act(self, obs, masks):
        raise TypeError("needs the records")

    __call__ = act


def _copies_run(name, episodes=2):
    """The search as the Python opponent of the single-agent env (the episode driver hands it copies),
    the expert in the learner's seat; the seeds of every episode and the learner's rewards."""
    import gymnasium as gym

    player = SeedRecorder(name)
    env = gym.make(cardgym.get_game(name).gym_id, opponent=player)
    seeds, rewards = [], []
    for ep in range(episodes):
        player.seeds = []
        env.reset(seed=100 + ep)
        done = False
        while not done:
            _, r, term, trunc, _ = env.step(env.unwrapped.bot_action("expert"))
            rewards.append(float(r))
            done = term or trunc
        seeds.append(player.seeds)
    return seeds, rewards


def test_the_search_on_copies_never_reuses_a_seed():
    """No decision of the search played on copies draws the seed of another (the episodes' deals
    differ; the two games of a duplicate pair share their deal's seeds, as the in-game search does)."""
    seeds, rewards = _copies_run("skyjo")
    flat = [s for ep in seeds for s in ep]
    assert len(flat) >= 300
    assert len(set(flat)) == len(flat), f"{len(flat) - len(set(flat))} of {len(flat)} decisions reused a seed"
    again, rewards_again = _copies_run("skyjo")
    assert again == seeds and rewards_again == rewards  # a seeded run replays


def test_plain_copies_would_reuse_seeds(monkeypatch):
    """The check above fails on the old way (copies that share the record's bot generator state, which
    the real record never sees advance): most decisions reuse an earlier one's seed."""
    from cardgym.core.envs.episodes import EpisodeDriver

    monkeypatch.setattr(EpisodeDriver, "copies", lambda self, idx: self.states[idx].copy())
    seeds, _ = _copies_run("skyjo", episodes=1)
    assert len(set(seeds[0])) < len(seeds[0]) / 2
