"""The environment layers against the ecosystem's own checkers, for every game: what
`cardgym.testing.check_game` does not already check on every game and configuration (tests/test_check_game.py
runs it: PettingZoo's api_test on every encoder and seed_test, Gymnasium's check_env, the JSON state_dict
round trip; docs/testing.md lists what moved where)."""

from __future__ import annotations

import functools
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import render_test
from pettingzoo.utils.env_logger import EnvLogger

import cardgym
from conftest import module_of

EnvLogger.suppress_output()


def play_random(e, seed=0, steps=10_000):
    rng = np.random.default_rng(seed)
    n = 0
    for agent in e.agent_iter(steps):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return n


def test_pettingzoo_render_test(config):
    name, opts = config
    _, mod = module_of(name)
    render_test(functools.partial(mod.env, **opts))


def test_pickle_round_trip(config):
    name, opts = config
    _, mod = module_of(name)
    e = mod.env(**opts)
    e2 = pickle.loads(pickle.dumps(e))
    e.reset(seed=42)
    e2.reset(seed=42)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if not e.agents:
            break
        o1, o2 = e.observe(e.agent_selection), e2.observe(e2.agent_selection)
        np.testing.assert_array_equal(o1["observation"], o2["observation"])
        a = int(rng.choice(np.flatnonzero(o1["action_mask"]))) if o1["action_mask"].any() else None
        e.step(a)
        e2.step(a)


def test_pettingzoo_registry(config):
    name, opts = config
    env_name = cardgym.GAMES[name].module.rsplit(".", 1)[1].replace("_v", "-v")
    e = pettingzoo.make("aec", f"cardgym/{env_name}", max_cycles=-1, **opts)
    e.reset(seed=1)
    assert e.agent_selection in e.possible_agents


def test_gymnasium_check_env_dict_and_greedy(config):
    from gymnasium.utils.env_checker import check_env

    name, opts = config
    if "dict" not in cardgym.get_game(name).encoders:
        pytest.skip(f"{name} has no dict encoder")
    g = gym.make(cardgym.GAMES[name].gym_id, opponent="greedy", observation="dict", seat="random", **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(g.unwrapped)


def test_sb3_check_env(config):
    from stable_baselines3.common.env_checker import check_env

    name, opts = config
    g = gym.make(cardgym.GAMES[name].gym_id, opponent="random", **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(g.unwrapped, warn=True, skip_render_check=True)


def test_state_and_state_space(config):
    name, opts = config
    _, mod = module_of(name)
    e = mod.env(**opts)
    e.reset(seed=3)
    raw = e.unwrapped
    s = raw.state()
    assert s.dtype == np.float32 and s.shape == raw.state_space.shape
    assert np.all(np.isfinite(s))


def test_render_ansi_and_action_names(config):
    name, opts = config
    game, mod = module_of(name)
    e = mod.env(render_mode="ansi", **opts)
    e.reset(seed=2)
    text = e.render()
    assert isinstance(text, str) and text.strip()
    names = [e.unwrapped.action_to_str(a) for a in range(game.num_actions)]
    assert all(isinstance(s, str) and s for s in names)
    assert len(set(names)) == len(names), "every action id needs its own description"


def test_tianshou_style_reward_and_keys(config):
    """rewards are per-step in env.rewards, the obs keys are the classic ones."""
    name, opts = config
    _, mod = module_of(name)
    e = mod.env(**opts)
    e.reset(seed=9)
    obs = e.observe(e.agent_selection)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["action_mask"].dtype == np.int8
    assert obs["observation"].dtype == np.float32


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_bad_input_errors(name):
    game, mod = module_of(name)
    with pytest.raises(ValueError, match="unknown option"):
        mod.env(no_such_option=1)
    with pytest.raises(ValueError, match="num_players"):
        mod.env(num_players=game.max_players + 1)
    if game.min_players > 1:  # the spec says how few players a game takes (one may be enough)
        with pytest.raises(ValueError, match="num_players"):
            mod.env(num_players=game.min_players - 1)
    with pytest.raises(ValueError, match="observation encoder"):
        mod.env(observation="pixels")
    with pytest.raises(ValueError, match="render_mode"):
        mod.raw_env(render_mode="svg")
    raw = mod.raw_env()
    with pytest.raises(RuntimeError, match="before reset"):
        raw.step(0)
    with pytest.raises(ValueError, match="permutation"):
        raw.reset(seed=0, options={"deck": [1, 2, 3]})
    bad = list(game.deck)
    bad[0] = 99
    with pytest.raises(ValueError, match="unknown codes"):
        raw.reset(seed=0, options={"deck": bad})
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        raw.step(game.num_actions)
    with pytest.raises(ValueError, match="out of range"):
        raw.step(-1)
    with pytest.raises(ValueError, match="integer"):
        raw.step("draw")
    illegal = _first_illegal(raw)
    if illegal is not None:  # a game may offer every action at some decisions
        with pytest.raises(ValueError, match="illegal action"):
            raw.step(illegal)
    with pytest.raises(ValueError, match="bot"):
        gym.make(cardgym.GAMES[name].gym_id, opponent="nobody")
    with pytest.raises(ValueError, match="seat"):
        gym.make(cardgym.GAMES[name].gym_id, seat=7)
    with pytest.raises(ValueError, match="seed"):
        raw.reset(seed=-3)


def _first_illegal(raw, steps=500):
    """An illegal action at the first decision that has one (random legal play until then; None if no
    decision within ``steps`` has one: nothing says a game must forbid an action at its first)."""
    rng = np.random.default_rng(0)
    for _ in range(steps):
        if not raw.agents:
            raw.reset()
            continue
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        mask = raw.action_mask()
        if not mask.all():
            return int(np.flatnonzero(mask == 0)[0])
        raw.step(int(rng.choice(np.flatnonzero(mask))))
    return None


@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_step_after_end_is_an_error(name):
    _, mod = module_of(name)
    raw = mod.raw_env()
    raw.reset(seed=4)
    play_random(raw, seed=2, steps=200_000)
    assert not raw.agents
    with pytest.raises(RuntimeError, match="episode is over"):
        raw.step(0)
    g = gym.make(cardgym.GAMES[name].gym_id).unwrapped
    g.reset(seed=1)
    done = False
    rng = np.random.default_rng(0)
    while not done:
        _, _, term, trunc, info = g.step(int(rng.choice(np.flatnonzero(info_mask(g)))))
        done = term or trunc
    with pytest.raises(RuntimeError, match="episode is over"):
        g.step(0)


def info_mask(g):
    return g.action_masks()


@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_single_agent_illegal_move_penalty(name):
    g = gym.make(cardgym.GAMES[name].gym_id, illegal_penalty=-2.5).unwrapped
    _, info = g.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(500):  # the first learner decision with an illegal action (a game may have none at first)
        if not info["action_mask"].all():
            break
        _, _, term, trunc, info = g.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            _, info = g.reset()
    else:
        pytest.skip(f"{name} offered every action at 500 decisions")
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, r, term, trunc, info = g.step(illegal)
    assert (r, term, trunc) == (-2.5, True, False)
    assert info["illegal_action"]


@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_single_agent_callable_opponent_matches_bot(name):
    """A Python opponent sees its own observation and mask and plays through the same rules."""
    seen = []

    def first_legal(obs, mask):
        seen.append(mask.copy())
        return int(np.flatnonzero(mask)[0])

    game = cardgym.get_game(name)
    if game.max_players < 2:
        pytest.skip(f"{name} has no seat for an opponent")
    g = gym.make(cardgym.GAMES[name].gym_id, opponent=first_legal, num_players=max(2, game.min_players)).unwrapped
    obs, info = g.reset(seed=0)
    done, steps = False, 0
    while not done and steps < 300:
        obs, r, term, trunc, info = g.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = term or trunc
        steps += 1
    assert seen, "the opponent was never asked"
    assert all(m.dtype == np.int8 and m.any() for m in seen)
