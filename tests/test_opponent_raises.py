"""An opponent that raises inside ``step()`` (a refusing server behind a text player, any Python
policy) leaves the Gym and vector envs needing ``reset()``: the next step and every copy are refused
with an error that says so, instead of playing the learner's action as the opponent's move."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

import cardgym  # noqa: F401 - registers the envs

GYM_ID = "cardgym/SkipBoJunior-v0"


class Flaky:
    """A Python opponent ``(obs, mask) -> action`` that raises at its ``fail_at``-th call."""

    def __init__(self, fail_at: int):
        self.calls, self.fail_at = 0, fail_at

    def __call__(self, obs, mask):
        self.calls += 1
        if self.calls == self.fail_at:
            raise ConnectionError("the server went away")
        return int(np.flatnonzero(mask)[0])


def _first(mask) -> int:
    return int(np.flatnonzero(mask)[0])


def test_the_gym_env_refuses_to_go_on_after_its_opponent_raised():
    opp = Flaky(3)
    env = gym.make(GYM_ID, opponent=opp)
    _, info = env.reset(seed=0)
    with pytest.raises(ConnectionError, match="went away"):  # the opponent's own error, as raised
        for _ in range(200):
            _, _, term, trunc, info = env.step(_first(info["action_mask"]))
            assert not (term or trunc), "the episode ended before the opponent's third move"
    calls = opp.calls
    for what in (lambda: env.step(_first(info["action_mask"])), lambda: copy.deepcopy(env.unwrapped),
                 lambda: env.unwrapped.state_dict()):
        with pytest.raises(RuntimeError, match=r"the opponent raised ConnectionError: the server went away.*call reset\(\)"):
            what()
    assert opp.calls == calls  # nothing was played
    _, info = env.reset(seed=1)  # a reset starts afresh
    env.step(_first(info["action_mask"]))
    copy.deepcopy(env.unwrapped)


def test_the_vector_env_refuses_to_go_on_after_its_opponent_raised():
    opp = Flaky(5)
    env = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="vector_entry_point", opponent=[opp])
    _, info = env.reset(seed=0)
    with pytest.raises(ConnectionError):
        for _ in range(200):
            _, _, _, _, info = env.step(np.array([_first(m) for m in info["action_mask"]]))
    actions = np.array([_first(m) for m in info["action_mask"]])
    for what in (lambda: env.step(actions), lambda: copy.deepcopy(env.unwrapped), lambda: env.unwrapped.state_dict()):
        with pytest.raises(RuntimeError, match=r"the opponent raised ConnectionError.*call reset\(\)"):
            what()
    _, info = env.reset(seed=1)
    env.step(np.array([_first(m) for m in info["action_mask"]]))
    copy.deepcopy(env.unwrapped)
