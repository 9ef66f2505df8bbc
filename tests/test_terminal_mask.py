"""The terminal-mask convention (docs/api.md, "Masks at the end of an episode"): the step that ends an
episode returns a mask with only ``TERMINAL_ACTION`` legal, so the usual masked sampling loop survives
Gymnasium's next-step autoreset, over ``AsyncVectorEnv`` of the single-agent env and over cardgym's
vector env (both engines); the action given to the resetting step is ignored."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import GAME_NAMES

import cardgym
from cardgym.core.state.actions import TERMINAL_ACTION

STEPS = 160
SHORT = {"max_turns": 12}  # episodes end every few steps (truncated), and some by the rules


def _sample(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)


def _loop(envs, steps=STEPS, next_step=True):
    """The masked sampling loop of the issue; returns how many episode ends it stepped through. Under
    next-step autoreset the terminal step's mask is checked (under same-step the mask at an end is
    already the next episode's)."""
    rng = np.random.default_rng(0)
    obs, info = envs.reset(seed=0)
    ends = 0
    for _ in range(steps):
        obs, rew, term, trunc, info = envs.step(_sample(rng, info["action_mask"]))
        done = term | trunc
        ends += int(done.sum())
        for i in np.flatnonzero(done) if next_step else ():
            assert np.flatnonzero(info["action_mask"][i]).tolist() == [TERMINAL_ACTION]
    return ends


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_async_vector_env_of_the_single_agent_env_survives_episode_ends(name, mode):
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    gid = cardgym.GAMES[name].gym_id
    envs = gym.make_vec(gid, num_envs=2, vectorization_mode="async", opponent="random", seat="random",
                        vector_kwargs={"autoreset_mode": {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}[mode]}, **SHORT)
    try:
        assert _loop(envs, next_step=mode == "next_step") > 4
    finally:
        envs.close()


@pytest.mark.parametrize("python_driven", [False, True])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_cardgym_vector_env_survives_episode_ends(name, python_driven):
    opponent = ["random", "greedy"] if python_driven else "random"
    vec = cardgym.make_vec(name, 4, opponent=opponent, seat="random", **SHORT)
    assert _loop(vec) > 8
    # the next step resets the finished games whatever they are given (the terminal action or another)
    rng = np.random.default_rng(1)
    _, info = vec.reset(seed=3)
    for _ in range(60):
        acts = _sample(rng, info["action_mask"])
        resetting = vec.state_dict()["needs_reset"]
        acts[np.asarray(resetting)] = 7 % vec.single_action_space.n  # anything: ignored
        _, _, term, trunc, info = vec.step(acts)
        assert not info.get("illegal_action", np.zeros(4, bool))[np.asarray(resetting)].any()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_single_env_terminal_mask_and_its_saved_state(name):
    import gymnasium as gym

    env = gym.make(cardgym.GAMES[name].gym_id, opponent="random", **SHORT).unwrapped
    rng = np.random.default_rng(2)
    obs, info = env.reset(seed=5)
    done = False
    while not done:
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = term or trunc
    assert np.flatnonzero(info["action_mask"]).tolist() == [TERMINAL_ACTION]
    assert np.flatnonzero(env.action_masks()).tolist() == [TERMINAL_ACTION]
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(TERMINAL_ACTION)  # the single env itself is not autoreset: a finished episode takes no step
    other = gym.make(cardgym.GAMES[name].gym_id, opponent="random", **SHORT).unwrapped
    other.load_state_dict(env.state_dict())
    assert np.flatnonzero(other.action_masks()).tolist() == [TERMINAL_ACTION]
