"""The batched vector env against the AEC env: same seeds, same trajectories."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import VectorEnv
import cardgym
from cardgym.testing import aec_trajectory, vec_trajectory
from conftest import module_of


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_vector_env_matches_aec(config, bot):
    name, opts = config
    game, mod = module_of(name)
    policy_rng_seed = 11

    def make_policy():
        rng = np.random.default_rng(policy_rng_seed)
        return lambda k, mask: int(rng.choice(np.flatnonzero(mask)))

    seat = min(1, game.make_rules(**opts).num_players - 1)  # a game may have one seat
    seed = 1234
    a = aec_trajectory(name, opts, seed, seat, bot, make_policy(), episodes=2)
    b = vec_trajectory(name, opts, seed, seat, bot, make_policy(), episodes=2, num_envs=3, env_index=2)
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, f"trajectories differ at learner step {i}: {x[:1]} vs {y[:1]}"


def test_vector_env_is_a_gymnasium_vector_env(config):
    name, opts = config
    v = cardgym.make_vec(name, 8, **opts)
    assert isinstance(v, VectorEnv)
    obs, info = v.reset(seed=0)
    assert obs.shape == (8,) + v.single_observation_space.shape
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (8, v.single_action_space.n)
    assert v.action_masks().dtype == bool
    rng = np.random.default_rng(0)
    for _ in range(50):
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in v.action_masks()])
        obs, rew, term, trunc, info = v.step(acts)
        assert v.observation_space.contains(obs)


def test_vector_env_same_step_autoreset():
    v = cardgym.make_vec("skyjo", 4, autoreset_mode="same_step", episode="round")
    obs, info = v.reset(seed=3)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = v.step(acts)
        done = term | trunc
        if done.any():
            finished += int(done.sum())
            assert info["_final_obs"][done].all()
            assert info["action_mask"][done].any(axis=1).all(), "reset games have legal moves at once"
    assert finished > 0


def test_vector_env_illegal_action_ends_episode():
    v = cardgym.make_vec("skyjo", 2, illegal_penalty=-3.0)
    obs, info = v.reset(seed=0)
    illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in info["action_mask"]])
    obs, rew, term, trunc, info = v.step(illegal)
    assert rew.tolist() == [-3.0, -3.0] and term.all() and not trunc.any()
    assert info["illegal_action"].all()


def test_vector_env_bad_input():
    with pytest.raises(ValueError, match="num_envs"):
        cardgym.make_vec("skyjo", 0)
    with pytest.raises(ValueError, match="unknown game"):
        cardgym.make_vec("poker", 2)
    with pytest.raises(ValueError, match="opponent"):
        cardgym.make_vec("skyjo", 2, opponent=42)
    with pytest.raises(ValueError, match="neither a bot"):
        cardgym.make_vec("skyjo", 2, opponent="no_such_bot_or_file")
    with pytest.raises(ValueError, match="autoreset_mode"):
        cardgym.make_vec("skyjo", 2, autoreset_mode="never")
    with pytest.raises(ValueError, match="flat"):
        cardgym.make_vec("skyjo", 2, observation="dict")
    v = cardgym.make_vec("skyjo", 2)
    with pytest.raises(RuntimeError, match="before reset"):
        v.step(np.zeros(2, np.int64))
    v.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        v.step(np.zeros(3, np.int64))


# ---------------------------------------------------------------- the Python-side episode driver
def _run(v, steps, seed, mode_same_step):
    """Every observation, mask, reward and end flag of ``steps`` random legal steps."""
    obs, info = v.reset(seed=seed)
    rng = np.random.default_rng(5)
    out = [obs.tobytes(), info["action_mask"].tobytes(), info["seat"].tobytes()]
    for _ in range(steps):
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]])
        obs, rew, term, trunc, info = v.step(acts)
        out += [obs.tobytes(), rew.tobytes(), term.tobytes(), trunc.tobytes(), info["action_mask"].tobytes(),
                info["seat"].tobytes()]
        if mode_same_step and "final_obs" in info:
            out.append(info["final_obs"][info["_final_obs"]].tobytes())
    return out


@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
def test_python_driver_plays_like_the_compiled_loop(config, autoreset_mode):
    """A bot given in a list is played by the episode driver from Python (reset, seat draw, opponents up
    to the learner, autoreset from the record's generator): the same games as the compiled step."""
    name, opts = config
    kw = dict(seat="random", autoreset_mode=autoreset_mode, **opts)
    compiled = cardgym.make_vec(name, 6, opponent="greedy", **kw)
    driven = cardgym.make_vec(name, 6, opponent=["greedy"], **kw)
    assert compiled.driver is None and driven.driver is not None
    same = autoreset_mode == "same_step"
    assert _run(compiled, 120, 7, same) == _run(driven, 120, 7, same)
    assert compiled.decisions == driven.decisions


def test_vector_env_several_opponents_and_new_episode():
    calls = []

    def new_episode(idx):
        calls.append(idx.tolist())
        k = idx.size
        return np.arange(k) + 100 * len(calls), np.full(k, 1), idx % 2

    v = cardgym.make_vec("skyjo", 4, opponent=["random", "greedy"], autoreset_mode="same_step",
                         new_episode=new_episode, episode="round")
    assert v.opponents == ["random", "greedy"]
    obs, info = v.reset(seed=0)
    assert calls[0] == [0, 1, 2, 3] and info["seat"].tolist() == [1, 1, 1, 1]
    # env i plays opponent i % 2 at every seat but the learner's
    sp = v.driver.seat_player
    assert sp[:, 0].tolist() == [0, 1, 0, 1] and (sp[:, 1] == -1).all()
    # the deals are those the hook chose: seed 100 + k in env k
    ref = cardgym.make_vec("skyjo", 1, opponent=["random"], seat=1, episode="round")
    for k in range(4):
        o, _ = ref.reset(seed=[100 + k])
        np.testing.assert_array_equal(o[0], obs[k])
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = v.step(acts)
        ended += int((term | trunc).sum())
        # every seat's reward of the step; the learner's is the env's reward
        np.testing.assert_array_equal(v.seat_rewards[np.arange(4), 1], rew)
    assert ended > 0 and sum(len(c) for c in calls[1:]) == ended  # one hook call per restart, same step
    pid = v.add_opponent("greedy")
    assert pid == 2 and v.opponents[2] == "greedy"
    v.set_opponent(0, "greedy")
    assert v.opponents[0] == "greedy"


def test_vector_env_new_episode_redeals_from_the_hook():
    """A deal over before the learner's first decision is replaced by asking the hook again (the trainer
    draws every deal from its own generator)."""
    asked = []

    def new_episode(idx):
        asked.append(idx.tolist())
        k = idx.size
        return np.arange(k) + 10 * len(asked), np.ones(k, np.int64), np.zeros(k, np.int64)

    # a one-turn cap: a deal where seat 0 starts ends before the learner (seat 1) can move
    v = cardgym.make_vec("skipbo", 8, opponent=["random"], new_episode=new_episode, max_turns=1,
                         first_player="random")
    v.reset()
    assert (v.states["status"] == 0).all() and (v.states["current"] == 1).all()
    assert len(asked) > 1 and asked[0] == list(range(8))
    assert set(asked[1]) < set(range(8))  # only the deals that ended were asked for again


@pytest.mark.parametrize("bad, what", [
    (lambda idx: (np.zeros(idx.size, np.int64),), "seeds, seats, opponents"),
    (lambda idx: (np.zeros(idx.size, np.int64), np.full(idx.size, 5), np.zeros(idx.size, np.int64)), "seats"),
    (lambda idx: (np.zeros(idx.size, np.int64), np.zeros(idx.size, np.int64), np.full(idx.size, 3)), "opponents"),
    (lambda idx: (np.zeros(idx.size + 1, np.int64), np.zeros(idx.size, np.int64), np.zeros(idx.size, np.int64)), "seeds"),
])
def test_vector_env_new_episode_checked(bad, what):
    v = cardgym.make_vec("skyjo", 2, opponent=["random", "greedy"], new_episode=bad)
    with pytest.raises(ValueError, match=what):
        v.reset()


def test_vector_env_opponent_list_bad_input():
    with pytest.raises(ValueError, match="non-empty list"):
        cardgym.make_vec("skyjo", 2, opponent=[])
    with pytest.raises(ValueError, match="new_episode must be None or a callable"):
        cardgym.make_vec("skyjo", 2, new_episode=3)
    v = cardgym.make_vec("skyjo", 2, opponent="random")
    with pytest.raises(ValueError, match="driven from Python"):
        v.add_opponent("greedy")
    v = cardgym.make_vec("skyjo", 2, opponent=["random"])
    with pytest.raises(ValueError, match="opponent index must be 0..0"):
        v.set_opponent(1, "greedy")
    with pytest.raises(ValueError, match="neither a bot"):
        v.add_opponent("nobot")


def test_single_env_and_vector_env_share_the_driver():
    """A Python opponent in the single-agent env and in a one-game vector env is played by the same
    episode driver: the same seed gives the same episode, opening and re-deals included."""
    import gymnasium as gym

    def first_legal(obs, mask):
        return int(np.flatnonzero(mask)[-1])

    single = gym.make("cardgym/Skyjo-v0", opponent=first_legal, seat=1, episode="round").unwrapped
    vec = cardgym.make_vec("skyjo", 1, opponent=first_legal, seat=1, autoreset_mode="same_step", episode="round")
    obs_s, info_s = single.reset(seed=21)
    obs_v, info_v = vec.reset(seed=[21])
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(60):
        np.testing.assert_array_equal(obs_s, obs_v[0])
        np.testing.assert_array_equal(info_s["action_mask"], info_v["action_mask"][0])
        a = int(rng.choice(np.flatnonzero(info_s["action_mask"])))
        obs_s, r_s, term, trunc, info_s = single.step(a)
        obs_v, r_v, term_v, trunc_v, info_v = vec.step(np.array([a]))
        assert (r_s, term, trunc) == (float(r_v[0]), bool(term_v[0]), bool(trunc_v[0]))
        if term or trunc:
            np.testing.assert_array_equal(obs_s, info_v["final_obs"][0])
            obs_s, info_s = single.reset()  # the record's own generator, as the vector env's autoreset
            ends += 1
    assert ends > 0 and single.decisions == vec.decisions


def test_illegal_penalty_assigned_after_construction_is_what_the_step_pays():
    """``illegal_penalty`` lives in the compiled step's Setup: assigning it takes effect at the next step,
    in the vector and the single-agent env alike."""
    import gymnasium as gym

    env = cardgym.make_vec("skyjo", 4, seat=0)
    env.reset(seed=3)
    env.illegal_penalty = -7.5
    acts = np.argmin(env._masks, axis=1)  # an illegal action in every game
    assert (env._masks[np.arange(4), acts] == 0).all()
    _, rew, term, _, _ = env.step(acts)
    assert np.all(rew == -7.5) and term.all()
    one = gym.make("cardgym/Skyjo-v0").unwrapped
    _, info = one.reset(seed=3)
    one.illegal_penalty = -2.5
    bad = int(np.argmin(info["action_mask"]))
    assert one.step(bad)[1] == -2.5
    with pytest.raises(ValueError, match="illegal_penalty must be a finite real number"):
        one.illegal_penalty = "high"


@pytest.mark.parametrize("opponent", ["random", ["random"]])
def test_a_seedless_first_reset_of_the_vector_env(opponent):
    """The first reset without a seed draws one from the operating system (it overflowed an int64 array)."""
    v = cardgym.make_vec("skyjo", 3, opponent=opponent)
    obs, info = v.reset()
    assert obs.shape[0] == 3 and info["action_mask"].any(axis=1).all()
