"""Pieces of the `search` bots shared by every game: the paired choice between the expert's action
and the alternatives, and the check of a search budget given from Python."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def confident_best(score, na, rollouts, z):
    """Index of the chosen action in ``score[:na, :rollouts]`` (row 0: the expert's choice, each column
    one deal that every action was tried on). An alternative overrules row 0 only when its mean gain over
    it, paired over the same deals, is at least ``z`` standard errors; of those, the largest gain wins.
    So small budgets play like the expert, not like noise."""
    best = 0
    best_gain = 0.0
    if rollouts < 2:
        return 0
    for i in range(1, na):
        mean = 0.0
        for r in range(rollouts):
            mean += score[i, r] - score[0, r]
        mean /= rollouts
        var = 0.0
        for r in range(rollouts):
            d = score[i, r] - score[0, r] - mean
            var += d * d
        var /= rollouts - 1
        if mean > best_gain and mean * mean * rollouts > z * z * var:
            best = i
            best_gain = mean
    return best


def check_budget(rollouts, horizon, rollout_bot) -> tuple:
    """``(rollouts, horizon, rollout_bot)`` as plain values, or ``ValueError`` naming what is allowed."""
    if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or not 0 <= rollouts <= 100_000:
        raise ValueError(f"rollouts must be an integer in 0..100000 (rollouts per legal action), got {rollouts!r}")
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or not 0 <= horizon <= 100_000:
        raise ValueError(f"horizon must be an integer in 0..100000 (turns; 0 = to the end), got {horizon!r}")
    if rollout_bot not in ("greedy", "expert"):
        raise ValueError(f"rollout_bot must be 'greedy' or 'expert', got {rollout_bot!r}")
    return int(rollouts), int(horizon), rollout_bot
