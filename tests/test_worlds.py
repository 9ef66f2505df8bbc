"""`sample_world` and its batched forms (`cardgym.core.contract.worlds`): for every game and test configuration,
the checks of `check_sample_world` (the seat's observations and mask kept, a valid state, cards
conserved, no dependence on the true hidden cards, the unseen cards' frequencies at every hidden place);
that they fail on leaky samplers; the AEC and vector env methods; and that the compiled `search` bot
deals its rollouts with the same kernel, in the same steps."""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest

import cardgym
from cardgym.core.contract import worlds
from cardgym.core.compiled.rng import next_seed, seed_record
from cardgym.core.state.status import RUNNING
from conftest import CONFIGS, GAME_NAMES, config_id, module_of


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_sample_world_keeps_what_the_seat_knows_and_nothing_more(cfg):
    name, opts = cfg
    done = worlds.check_sample_world(name, opts, states=3, samples=500, seed=1)
    assert done["states"] == 3 and done["tests"] > 0  # the frequency check was not vacuous


def _true_world(game, rules, record, seat, seed, count):
    """A leaky sampler: the real game itself, ``count`` times."""
    out = game.new_states(count)
    out[:] = record
    return out


def _one_card_leak(game, rules, record, seat, seed, count):
    """A leaky sampler: fair worlds, except that the first hidden place keeps its true card (swapped in
    from wherever the re-deal put it)."""
    out = worlds.sample_worlds(game, rules, record, seat, seed, count)
    w = game.world
    for k in range(count):
        for f in w.positions:
            true, got = np.asarray(record[f]).reshape(-1), out[k][f].reshape(-1)
            moved = np.flatnonzero(true != got)
            if moved.size:
                e = int(moved[0])
                # the true card of place e is somewhere in the re-dealt places of this field: swap it in
                there = [i for i in np.flatnonzero(got == true[e]).tolist() if true[i] != got[i] or i == e]
                if there:
                    i = there[0]
                    got[e], got[i] = got[i], got[e]
                break
    return out


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("leak", [_true_world, _one_card_leak], ids=["true-world", "one-card"])
def test_the_checks_fail_on_a_leaky_sample(name, leak):
    with pytest.raises(AssertionError, match="depends on the true hidden cards|frequencies"):
        worlds.check_sample_world(name, {}, states=3, samples=500, seed=1, sampler=leak)


def test_chi2_quantile_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 5, 14, 60, 301):
        for p in (1e-2, 1e-4, 1e-6):
            want = stats.chi2.isf(p, df)
            assert abs(worlds.chi2_quantile(p, df) - want) / want < 1e-9
            assert abs(worlds.chi2_sf(want, df) - p) / p < 1e-8


def _env(name, seed, steps, **opts):
    _, mod = module_of(name)
    env = mod.raw_env(**opts)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        before = env.clone()  # a game of short episodes: the last running state, not a finished game
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        if env.record["status"] != RUNNING:
            return before
    return env


@pytest.mark.parametrize("name", GAME_NAMES)
def test_aec_sample_world(name):
    env = _env(name, 3, 25)
    game = env.game
    before = env.record.copy()
    for seat in range(env.num_players):
        agent = f"player_{seat}"
        w = env.unwrapped.sample_world(agent, 11)
        assert w is not env and worlds._fields_equal(env.record, before) is None  # the env is left as it was
        assert worlds._fields_equal(w.record, env.sample_world(seat, 11).record) is None  # seeded: replays
        assert worlds._fields_equal(w.record, worlds.sample_world(game, env.rules, env.record, seat, 11)) is None
        mine, theirs = env.observe(agent), w.observe(agent)
        np.testing.assert_array_equal(mine["observation"], theirs["observation"])
        np.testing.assert_array_equal(mine["action_mask"], theirs["action_mask"])
        game.validate_record(w.record, w.rules)
        # the clone's own mask is its record's (the seat to act may hold other cards in the world)
        np.testing.assert_array_equal(w.action_mask(), worlds.legal_masks(game, w.rules, w._states)[0])
        w.step(int(np.flatnonzero(w.action_mask())[0]))  # and it plays on
    first = env.sample_world(0, 0).record
    assert any(worlds._fields_equal(first, env.sample_world(0, s).record) for s in range(1, 5))


def test_aec_sample_world_refuses_bad_input():
    env = _env("skyjo", 0, 3)
    for seat in (-1, 2, "player_9", 1.5, True):
        with pytest.raises(ValueError, match="seat must be"):
            env.sample_world(seat, 0)
    for seed in (-1, 2**64, 0.5, "1"):
        with pytest.raises(ValueError, match="seed must be"):
            env.sample_world(0, seed)
    with pytest.raises(ValueError, match="count must be"):
        worlds.sample_worlds(env.game, env.rules, env.record, 0, 0, 0)
    bad = env.record.copy()
    bad["draw_len"] = 1000
    with pytest.raises(ValueError):
        worlds.sample_world(env.game, env.rules, bad, 0, 0)  # a record from outside is validated
    with pytest.raises(RuntimeError, match="before reset"):
        module_of("skyjo")[1].raw_env().sample_world(0, 0)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_vector_sample_worlds_is_one_sample_world_per_env(name):
    game = cardgym.get_game(name)
    from cardgym.core.envs.vector import CardGameVectorEnv

    vec = CardGameVectorEnv(game, 6, opponent="greedy", seat="random")
    vec.reset(seed=5)
    for _ in range(3):
        vec.step(np.array([int(np.flatnonzero(m)[0]) for m in vec.action_masks()]))
    states = vec.states.copy()
    got = vec.sample_worlds(100)
    assert all(worlds._fields_equal(a, b) is None for a, b in zip(vec.states, states))
    assert got.dtype == game.state_dtype and got.shape == (6,)
    again = vec.sample_worlds(100)
    for i in range(6):
        assert worlds._fields_equal(got[i], again[i]) is None
        one = worlds.sample_world(game, vec.rules, states[i], int(vec._seats[i]), 100 + i)
        assert worlds._fields_equal(got[i], one) is None
    other = vec.sample_worlds([7] * 6, seats=0)
    assert worlds._fields_equal(other[0], worlds.sample_world(game, vec.rules, states[0], 0, 7)) is None
    with pytest.raises(ValueError, match="seeds must be"):
        vec.sample_worlds([1, 2])


def _search_module(name):
    pkg = cardgym.get_game(name).package
    if importlib.util.find_spec(f"{pkg}.search") is None:
        pytest.skip(f"{name} has no search bot (search.py is optional)")
    return importlib.import_module(f"{pkg}.search")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_search_bot_deals_its_rollouts_with_the_public_kernel(name):
    """The compiled search re-deals with the game's ``WORLD.resample``, and `sample_worlds` takes the
    search loop's steps (copy, re-deal, reseed the world's generators from the sample generator): world
    ``k`` of `sample_worlds` is the deal of rollout ``k``, replayed here step by step from Python."""
    game = cardgym.get_game(name)
    search = _search_module(name)
    assert search.bot_search.py_func.__globals__["RESAMPLE"] is game.world.resample
    env = _env(name, 8, 30)
    seat = int(env.record["current"])
    got = worlds.sample_worlds(game, env.rules, env.record, seat, 1234, 5)
    recs = game.new_states(3)
    seed_record(recs[2], 1234)  # the search loop: g = its scratch record, seeded once
    buf = np.zeros(len(game.deck), np.int8)
    for k in range(5):
        recs[0] = env.record
        game.world.resample(recs[0], seat, recs[2], buf)
        seed_record(recs[0], next_seed(recs[2]))
        assert worlds._fields_equal(got[k], recs[0]) is None


@pytest.mark.parametrize("name", GAME_NAMES)
def test_play_out_and_bot_actions(name):
    game = cardgym.get_game(name)
    env = _env(name, 4, 10)
    ws = worlds.sample_worlds(game, env.rules, env.record, int(env.record["current"]), 9, 4)
    acts = worlds.bot_actions(game, env.rules, ws.copy(), "greedy")
    masks = worlds.legal_masks(game, env.rules, ws)
    assert all(masks[i, a] for i, a in enumerate(acts))
    a, b = ws.copy(), ws.copy()
    ra = worlds.play_out(game, env.rules, a, "greedy", 0, first=acts)
    rb = worlds.play_out(game, env.rules, b, "greedy", 0, first=acts)
    np.testing.assert_array_equal(ra, rb)  # seeded by the worlds: replays
    assert (a["status"] != 0).all()  # played to the end
    c = ws.copy()
    worlds.play_out(game, env.rules, c, "greedy", 2)
    assert (c["turn"] <= ws["turn"] + 2 + 1).all()
    bad = np.full(4, game.num_actions - 1)
    bad[masks[np.arange(4), bad] != 0] = -1
    if (bad >= 0).any():
        with pytest.raises(ValueError, match="not a legal action"):
            worlds.play_out(game, env.rules, ws.copy(), "greedy", 1, first=bad)


@pytest.mark.parametrize("name", ["skyjo", "skipbo"])
def test_no_world_carries_scratch_that_held_hidden_cards(name):
    """Skyjo's ``buf`` holds the round's deal order and Skip-Bo's bot scratch the hand a bot last planned
    for: a world clears them."""
    env = _env(name, 2, 12)
    fields = {"skyjo": ("buf",), "skipbo": ("_bot_pos", "_bot_hand", "_bot_need")}[name]
    env.bot_action("greedy")  # a bot plans in the record's scratch (Skip-Bo's greedy)
    w = env.sample_world(0, 3).record
    assert any(np.asarray(env.record[f]).any() for f in fields)  # the real game has something there
    for f in fields:
        assert not np.asarray(w[f]).any()


def test_apply_actions():
    game = cardgym.get_game("skyjo")
    env = _env("skyjo", 1, 8)
    recs = game.new_states(2)
    recs[:] = env.record
    acts = worlds.bot_actions(game, env.rules, recs.copy(), "greedy")
    before = int(recs[0]["turn"])
    worlds.apply_actions(game, env.rules, recs, acts)
    assert worlds.legal_masks(game, env.rules, recs).shape == (2, game.num_actions)
    assert int(recs[0]["turn"]) - before <= 1  # one action each, nothing played on


# ------------------------------------------------------------------ rules that constrain the hidden cards
# A toy constraint on Crazy Eights (the test game): the draw pile's top card is never an eight. A correct
# sampler then deals uniformly among the deals that keep it (here: the game's worlds, rejected until one
# does); the unconstrained frequency check rejects it, the check of ``WORLD.possible`` accepts it.
EIGHT = 1  # crazy eights' rank index of the eights (card code & 7)


def _no_eight_on_top(t, rules) -> bool:
    n = int(t["draw_len"])
    return n == 0 or (int(t["draw"][n - 1]) & 7) != EIGHT


def _rejecting(game, rules, record, seat, seed, count):
    """Uniform among the possible worlds: the game's own worlds, those with an eight on top dropped."""
    kept, k = [], 0
    while sum(len(x) for x in kept) < count:
        batch = worlds.sample_worlds(game, rules, record, seat, (int(seed) * 7919 + k) % 2**63, 2 * count, check=False)
        kept.append(batch[[_no_eight_on_top(w, rules) for w in batch]])
        k += 1
    return np.concatenate(kept)[:count]


def _rejecting_biased(game, rules, record, seat, seed, count):
    """Keeps the constraint but not uniform: the draw pile's bottom card is the lowest below its top."""
    out = _rejecting(game, rules, record, seat, seed, count)
    for w in out:
        n = int(w["draw_len"])
        if n > 2:
            i = int(np.argmin(w["draw"][: n - 1]))
            w["draw"][0], w["draw"][i] = w["draw"][i], w["draw"][0]
    return out


def _constrained(possible):
    import dataclasses

    game = cardgym.get_game("crazy_eights")
    return dataclasses.replace(game, world=dataclasses.replace(game.world, possible=possible))


@pytest.mark.skipif("crazy_eights" not in GAME_NAMES, reason="the test game is not registered")
def test_a_correct_constrained_sampler_passes_once_the_game_states_its_constraint():
    with pytest.raises(AssertionError, match="frequencies"):  # the unconstrained check: a false alarm
        worlds.check_sample_world(_constrained(None), {}, states=3, samples=500, seed=1, sampler=_rejecting)
    done = worlds.check_sample_world(_constrained(_no_eight_on_top), {}, states=3, samples=500, seed=1,
                                     sampler=_rejecting)
    assert done["tests"] > 0 and done["min_p"] > 0


@pytest.mark.skipif("crazy_eights" not in GAME_NAMES, reason="the test game is not registered")
def test_a_biased_constrained_sampler_still_fails():
    with pytest.raises(AssertionError, match="frequencies"):
        worlds.check_sample_world(_constrained(_no_eight_on_top), {}, states=3, samples=500, seed=1,
                                  sampler=_rejecting_biased)


def test_two_sample_chi2_of_equal_and_different_counts():
    same = worlds._chi2_two(np.array([100, 200, 300, 2, 1]), np.array([200, 400, 600, 4, 2]))
    assert same[0] < 1e-9 and same[1] == 3  # the two categories expecting under 5 pooled into one
    far = worlds._chi2_two(np.array([300, 0, 300]), np.array([100, 400, 100]))
    assert far[0] > 100 and far[1] == 2
