"""``gymnasium.make_vec(id, num_envs=N, ...)``: the registered ``vector_entry_point`` of every game id
builds the compiled vector env (one batch, not N Python envs), with the options, opponents and autoreset
of ``cardgym.make_vec``, and behaves as Gymnasium's own vector envs do.

Gymnasium 1.x ships no checker for vector envs (``gymnasium.utils.env_checker`` checks single envs), so
the checks its vector tests make are written out here: the batch spaces, ``AutoresetMode`` metadata,
the spec round trip, seed determinism, no reused output arrays, Gymnasium's vector wrappers, and the same
trajectories as ``SyncVectorEnv`` over the single-agent envs.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv

import cardgym
from cardgym.core.envs.vector import CardGameVectorEnv

GAME_IDS = {name: entry.gym_id for name, entry in cardgym.GAMES.items()}


def legal_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)


@pytest.mark.parametrize("name", sorted(GAME_IDS))
def test_make_vec_picks_the_compiled_vector_env(name):
    gym_id = GAME_IDS[name]
    assert gym.spec(gym_id).vector_entry_point == f"{cardgym.GAMES[name].module}:make_vec"
    default = gym.make_vec(gym_id, num_envs=6)  # Gymnasium prefers the vector entry point when one exists
    explicit = gym.make_vec(gym_id, num_envs=6, vectorization_mode="vector_entry_point")
    for v in (default, explicit):
        assert type(v) is CardGameVectorEnv and v.game.name == name and v.num_envs == 6
        assert v.spec.id == gym_id and v.spec.kwargs["vectorization_mode"] == "vector_entry_point"
    # the Python envs stay one vectorization_mode away
    sync = gym.make_vec(gym_id, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)
    sync.close()


@pytest.mark.parametrize("name", sorted(GAME_IDS))
def test_make_vec_follows_gymnasium_vector_conventions(name):
    v = gym.make_vec(GAME_IDS[name], num_envs=4, opponent="greedy")
    assert isinstance(v, VectorEnv)
    assert isinstance(v.metadata["autoreset_mode"], AutoresetMode)
    assert v.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert v.observation_space == gym.vector.utils.batch_space(v.single_observation_space, 4)
    assert v.action_space == gym.vector.utils.batch_space(v.single_action_space, 4)
    obs, info = v.reset(seed=5)
    obs_again, info_again = v.reset(seed=5)
    assert v.observation_space.contains(obs) and data_equivalence(obs, obs_again)
    assert data_equivalence(info, info_again)
    rng = np.random.default_rng(0)
    prev = obs
    for _ in range(30):
        out = v.step(legal_actions(info["action_mask"], rng))
        obs, rew, term, trunc, info = out
        assert v.observation_space.contains(obs)
        assert rew.shape == term.shape == trunc.shape == (4,)
        assert term.dtype == trunc.dtype == np.bool_
        assert obs is not prev and not np.shares_memory(obs, prev), "copy=True returns fresh arrays"
        prev = obs
    # the spec re-creates the same env
    again = gym.make_vec(v.spec)
    assert type(again) is CardGameVectorEnv and again.num_envs == 4
    assert again.spec.kwargs["opponent"] == "greedy"
    v.close()


def test_make_vec_step_determinism():
    def run():
        v = gym.make_vec("cardgym/SkipBo-v0", num_envs=3, stock_size=5)
        obs, info = v.reset(seed=11)
        rng = np.random.default_rng(3)
        out = [obs]
        for _ in range(40):
            obs, rew, term, trunc, info = v.step(legal_actions(info["action_mask"], rng))
            out += [obs, rew, term, trunc, info["action_mask"]]
        return out

    assert data_equivalence(run(), run(), exact=True)


SYNC_CASES = [
    ("skyjo", {"num_players": 3, "opponent": "greedy", "seat": "random"}),
    ("skyjo", {"episode": "round", "autoreset_mode": "next_step"}),
    ("skipbo", {"stock_size": 5}),
    ("skipbo", {"num_players": 4, "teams": True, "stock_size": 3, "seat": 2}),
    ("skipbo_junior", {"num_players": 4, "opponent": "greedy"}),
]


@pytest.mark.parametrize("name,opts", SYNC_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SYNC_CASES)])
def test_make_vec_matches_sync_vector_env(name, opts):
    """The compiled batch and Gymnasium's SyncVectorEnv of single-agent envs (env i seeded seed + i in
    both) give the same observations, masks, rewards and ends, across autoresets."""
    gym_id = GAME_IDS[name]
    sync_opts = {k: v for k, v in opts.items() if k != "autoreset_mode"}
    a = gym.make_vec(gym_id, num_envs=4, **opts)
    b = gym.make_vec(gym_id, num_envs=4, vectorization_mode="sync", **sync_opts)
    assert b.metadata["autoreset_mode"] == a.metadata["autoreset_mode"]
    oa, ia = a.reset(seed=7)
    ob, ib = b.reset(seed=7)
    rng = np.random.default_rng(1)
    ends = 0
    for t in range(400):
        assert np.array_equal(oa, ob), f"observations differ at step {t}"
        assert np.array_equal(ia["action_mask"], ib["action_mask"]), f"masks differ at step {t}"
        acts = legal_actions(ia["action_mask"], rng)
        oa, ra, ta, tra, ia = a.step(acts)
        ob, rb, tb, trb, ib = b.step(acts)
        assert np.allclose(ra, rb) and np.array_equal(ta, tb) and np.array_equal(tra, trb), f"step {t}"
        ends += int((ta | tra).sum())
    assert ends > 0, "the run crossed no autoreset"
    b.close()


def test_make_vec_same_step_autoreset_and_python_opponent():
    calls = []

    def first_legal(obs, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    v = gym.make_vec("cardgym/Skyjo-v0", num_envs=3, opponent=first_legal, autoreset_mode="same_step",
                     episode="round", copy=False)
    assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP and v.copy is False
    obs, info = v.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        obs, rew, term, trunc, info = v.step(legal_actions(info["action_mask"], rng))
        done = term | trunc
        if done.any():
            finished += int(done.sum())
            assert info["_final_obs"][done].all()
    assert finished > 0 and calls


def test_make_vec_works_under_gymnasium_vector_wrappers():
    from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

    v = RecordEpisodeStatistics(gym.make_vec("cardgym/Skyjo-v0", num_envs=4, episode="round"))
    v = DictInfoToList(v)
    obs, infos = v.reset(seed=0)
    assert isinstance(infos, list) and len(infos) == 4 and infos[0]["action_mask"].shape == (v.single_action_space.n,)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        obs, rew, term, trunc, infos = v.step(legal_actions([i["action_mask"] for i in infos], rng))
        episodes += sum("episode" in i for i in infos)
    assert episodes > 0


def test_make_vec_bad_input():
    with pytest.raises(ValueError, match="render_mode must be None"):
        gym.make_vec("cardgym/Skyjo-v0", num_envs=2, render_mode="ansi")
    with pytest.raises(ValueError, match="max_episode_steps"):
        gym.make_vec("cardgym/Skyjo-v0", num_envs=2, max_episode_steps=10)
    with pytest.raises(ValueError, match="unknown option"):
        gym.make_vec("cardgym/Skyjo-v0", num_envs=2, no_such_option=1)
    with pytest.raises(ValueError, match="num_envs"):
        gym.make_vec("cardgym/Skyjo-v0", num_envs=0)
    with pytest.raises(ValueError, match="opponent"):
        gym.make_vec("cardgym/SkipBo-v0", num_envs=2, opponent=42)
    with pytest.raises(gym.error.Error, match="wrappers"):
        gym.make_vec("cardgym/Skyjo-v0", num_envs=2, wrappers=[lambda e: e])
