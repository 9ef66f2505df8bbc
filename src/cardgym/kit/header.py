"""Kernels over the common record header (`cardgym.core.contract.game.state_dtype`: ``status``, ``turn``,
``num_players``, ``reward``, the generators) that every game's ``reset``, ``legal`` and ``apply`` open
with (compiled; small enough for numba to inline)."""

from __future__ import annotations

from numba import njit

from cardgym.core.compiled.rng import seed_record
from cardgym.core.state.status import RUNNING


@njit(cache=True)
def clear_reward(s):
    """Zero ``s.reward`` (``apply`` does this first, then writes this action's rewards)."""
    for i in range(s.reward.shape[0]):
        s.reward[i] = 0.0


@njit(cache=True)
def start_record(s, seed, n):
    """The start of every ``reset``: both generators seeded from ``seed``, ``n`` players, a running
    game at turn 0 and no reward yet. The game's own fields are the caller's."""
    seed_record(s, seed)
    s.num_players = n
    s.status = RUNNING
    s.turn = 0
    clear_reward(s)


@njit(cache=True)
def clear_mask(s, mask):
    """Zero ``mask`` (the start of every ``legal``); True if the game in ``s`` runs, so that the caller
    goes on to set its legal actions."""
    for a in range(mask.shape[0]):
        mask[a] = 0
    return s.status == RUNNING
