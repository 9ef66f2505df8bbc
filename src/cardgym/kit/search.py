"""Pieces of the `search` bots shared by every game: the rollout loop bound to a game's parts
(`bind_search`, over the template ``search_loop.py``), the paired choice between the expert's action and
the alternatives (`confident_best`), and a bot with another budget (`budget_bot`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from cardgym.core.compiled.binder import load_template
from cardgym.core.state.dicts import scratch_maker
from cardgym.core.compiled.rng import shuffle

#: rollout players of a search
R_GREEDY, R_EXPERT = 0, 1

_TEMPLATE = Path(__file__).with_name("search_loop.py")


def bind_search(module: str, *, dtype, apply, legal, expert, greedy, resample, value, num_actions: int,
                pool: int, z: float, rollouts: int, horizon: int, rollout_bot: str, segment=None,
                distinct=None, num_keys: int = 0, searches=None):
    """``(search, bot_search)`` of one game: the loop of ``search_loop.py`` loaded as the game's own module
    (``<game package>._search_loop``, ``module`` being the game's ``search`` module; loaded once,
    `cardgym.core.compiled.binder.load_template`, whose ``TAG`` keeps games with one record dtype apart in the
    kernel cache) with the game's parts as its globals (see that file for what each part is).
    ``search(s, p, mask, rollouts, horizon, player)`` takes a budget; ``bot_search(s, p, mask)`` is the registered bot, with the default budget
    ``rollouts``, ``horizon``, ``rollout_bot``. ``dtype`` is the game's record dtype (scratch records);
    ``segment`` defaults to "never ends early", ``distinct`` to "every action is its own play",
    ``searches`` to "always search"."""
    package = module.rpartition(".")[0]
    rollouts, horizon, rollout_bot = check_budget(rollouts, horizon, rollout_bot)
    mod = load_template(_TEMPLATE, package.rpartition(".")[2], "search_loop", package=package,
                        name=f"{package}._search_loop", values=lambda: {
        "APPLY": apply, "LEGAL": legal, "EXPERT": expert, "GREEDY": greedy, "SCRATCH": scratch_maker(dtype, 3),
        "SEARCHES": searches if searches is not None else _always,
        "DISTINCT": distinct if distinct is not None else _every_action,
        "RESAMPLE": resample, "VALUE": value, "SEGMENT": segment if segment is not None else _whole_game,
        "NUM_ACTIONS": int(num_actions), "NUM_KEYS": int(num_keys), "POOL": int(pool), "Z": float(z),
        "ROLLOUTS": rollouts, "HORIZON": horizon, "PLAYER": R_EXPERT if rollout_bot == "expert" else R_GREEDY,
    })
    return mod.search, mod.bot_search


@njit(cache=True)
def _always(s):
    return True


@njit(cache=True)
def _every_action(s, p, a):
    return -1


@njit(cache=True)
def _whole_game(t):
    return 0


@njit(cache=True)
def shuffled_pool(counts, first, g, buf):
    """The hidden cards pooled by their counts (``counts[k]`` cards of value ``first + k``, in order) and
    shuffled in ``buf`` with the game generator of record ``g``; returns how many. A re-deal built on it
    depends only on which cards are hidden, never on where they were."""
    m = 0
    for c in range(counts.shape[0]):
        for _ in range(counts[c]):
            buf[m] = c + first
            m += 1
    shuffle(g, buf, m)
    return m


def budget_bot(search, rollouts, horizon, rollout_bot):
    """An njit ``bot(s, p, mask)`` playing ``search`` with ``rollouts`` per candidate, ``horizon`` turns per
    rollout and ``rollout_bot`` (``"greedy"`` or ``"expert"``), checked by `check_budget`. Compiled on its
    first call, not cached on disk (numba cannot cache a closure over a compiled function)."""
    r, h, name = check_budget(rollouts, horizon, rollout_bot)
    who = R_EXPERT if name == "expert" else R_GREEDY

    @njit
    def bot(s, p, mask):
        return search(s, p, mask, r, h, who)

    return bot


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
