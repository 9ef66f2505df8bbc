"""The packed arguments of the compiled episode loops (`cardgym.core.compiled.batch`)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import cardgym
from cardgym.core.compiled.batch import Batch, new_batch, setup


def test_new_batch_holds_one_row_per_record_with_the_loops_dtypes():
    game = cardgym.get_game("skyjo")
    b = new_batch(game, 3, 7)
    assert isinstance(b, Batch) and b.states.dtype == game.state_dtype and b.states.shape == (3,)
    assert b.masks.shape == (3, game.num_actions) and b.masks.dtype == np.int8
    assert b.obs.shape == b.final_obs.shape == (3, 7) and b.obs.dtype == np.float32
    assert [a.dtype for a in (b.seats, b.rewards, b.terminated, b.truncated, b.illegal, b.needs_reset,
                              b.actions)] == [np.int64, np.float32, np.bool_, np.bool_, np.int8, np.bool_, np.int64]
    assert all(not a.any() for a in b[1:])


def test_setup_types_the_same_whatever_number_types_it_is_given():
    """One compile of the loops per game and binding: numpy scalars and Python numbers give one type."""
    a = setup(np.int8(-1), np.int64(2), 0, np.bool_(True), np.float32(-1))
    b = setup(-1, 2, 0, True, -1.0)
    assert a == b and numba.typeof(a) == numba.typeof(b)
    assert [type(x) for x in a] == [int, int, int, bool, float]


@pytest.mark.slow
def test_the_vector_env_steps_through_its_batch():
    env = cardgym.make_vec("skyjo", 2, copy=False)
    obs, info = env.reset(seed=1)
    assert obs is env._batch.obs and info["action_mask"] is env._batch.masks
    acts = np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
    obs, rew, term, trunc, info = env.step(acts)
    assert rew is env._batch.rewards and term is env._batch.terminated and (env._batch.actions == acts).all()
