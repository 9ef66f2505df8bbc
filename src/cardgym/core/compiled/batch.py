"""The packed arguments of the compiled episode loops (`cardgym.core.compiled.bound`): one value for the batch's
arrays and one for how the learner's episodes are played.

Both are namedtuples: numba passes them to compiled code as plain tuples (fields read by name, no cost
once compiled) and caches functions that take them. They live in this importable module, not in the
bound template, so that numba's on-disk cache can name their classes.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class Batch(NamedTuple):
    """The arrays of a batch of single-agent episodes, one row per record (``n`` records)."""

    states: np.ndarray  # (n,) the game's state records
    seats: np.ndarray  # (n,) int64: the learner's seat in each record
    masks: np.ndarray  # (n, num_actions) int8: legal actions of the seat to act
    obs: np.ndarray  # (n, obs_size) float32: the learner's observation
    final_obs: np.ndarray  # (n, obs_size) float32: the last observation of an episode reset in the same step
    rewards: np.ndarray  # (n,) float32: the learner's reward of the last step
    terminated: np.ndarray  # (n,) bool
    truncated: np.ndarray  # (n,) bool
    illegal: np.ndarray  # (n,) int8: 1 where the learner's action was illegal (the episode ends)
    needs_reset: np.ndarray  # (n,) bool: finished, reset on the next step (NEXT_STEP autoreset)
    actions: np.ndarray  # (n,) int64: the learner's actions of the next step


def new_batch(game, n: int, obs_size: int) -> Batch:
    """Zeroed arrays for ``n`` episodes of ``game`` with observations of ``obs_size`` floats."""
    return Batch(
        states=game.new_states(n),
        seats=np.zeros(n, np.int64),
        masks=np.zeros((n, game.num_actions), np.int8),
        obs=np.zeros((n, obs_size), np.float32),
        final_obs=np.zeros((n, obs_size), np.float32),
        rewards=np.zeros(n, np.float32),
        terminated=np.zeros(n, np.bool_),
        truncated=np.zeros(n, np.bool_),
        illegal=np.zeros(n, np.int8),
        needs_reset=np.zeros(n, np.bool_),
        actions=np.zeros(n, np.int64),
    )


class Setup(NamedTuple):
    """How the learner's episodes are played: fixed for the life of an environment."""

    seat_choice: int  # the learner's seat, or -1: drawn per episode from the record's bot generator
    which_bot: int  # the opponents' bot (index in ``GameSpec.bots``)
    which_obs: int  # the learner's flat encoder (index in ``GameSpec.encoders``; -1: none)
    same_step: bool  # autoreset in the step that ends an episode (else on the next step)
    penalty: float  # the reward of an illegal learner action


def setup(seat_choice, which_bot, which_obs, same_step, penalty) -> Setup:
    """A `Setup` with the plain Python types the compiled loops are compiled for (one compile, not one
    per integer width)."""
    return Setup(int(seat_choice), int(which_bot), int(which_obs), bool(same_step), float(penalty))


#: the largest ``illegal_penalty`` in size: the vector env's rewards are float32, and a larger finite
#: penalty would become an infinite reward there
MAX_PENALTY = float(np.finfo(np.float32).max)


def check_penalty(value) -> float:
    """``illegal_penalty`` as a float: a finite real number (a Python or numpy int or float; not a
    bool, a string, NaN or an infinity, which would reach training as rewards) of size at most
    `MAX_PENALTY` (float32's largest, what the vector env's rewards hold), else ``ValueError``."""
    real = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    try:
        ok = real and math.isfinite(float(value))
    except OverflowError:  # an int too large for a float
        ok = False
    if not ok:
        raise ValueError(f"illegal_penalty must be a finite real number, got {value!r} ({type(value).__name__})")
    if abs(float(value)) > MAX_PENALTY:
        raise ValueError(f"illegal_penalty must be within +-{MAX_PENALTY:.6g} (float32, the vector env's rewards), "
                         f"got {value!r}")
    return float(value)


def _get_penalty(env) -> float:
    return env._setup.penalty


def _set_penalty(env, value) -> None:
    env._setup = env._setup._replace(penalty=check_penalty(value))  # same types: the compiled step stays


#: the ``illegal_penalty`` attribute of the single-agent and vector envs: held once, in their `Setup`
#: (what the compiled step reads), so assigning it takes effect at the next step
illegal_penalty = property(_get_penalty, _set_penalty, doc="reward of an illegal action (it ends the episode)")
