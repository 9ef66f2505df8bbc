"""The determinized Monte Carlo loop of every game's ``search`` bot, written once.

This file is a template, like `cardgym.core.compiled.bound`: `cardgym.kit.search.bind_search` loads it
once per game as that game's own module (``cardgym.games.<game>._search_loop``) and sets the globals
below to the game's parts before anything compiles (numba binds globals at compile time, so the loop
calls the game's kernels directly, and caches on disk under names suffixed by ``TAG``, the game's
name, so that two games with one record dtype never share a cache entry). What stays in a game's
``search.py`` is the game's own: what is hidden (``RESAMPLE``), which legal actions are the same play (``DISTINCT``), how a rollout is scored (``VALUE``, ``SEGMENT``) and the
budget constants.

The loop, for the seat to act: the expert's action first, then every other distinct legal action; one
seed drawn from the record's ``bot_rng``; ``rollouts`` times, the hidden cards re-dealt from what the
seat sees into a scratch record and its generators reseeded, then every action tried on that same deal
(common random numbers) and played on by the rollout bot for ``horizon`` turns (0: to the end of the
game's segment); `confident_best` picks the action.
"""

from __future__ import annotations

import numpy as np

from cardgym.core.compiled.fastcall import tagged_jit
from cardgym.core.compiled.rng import bot_below, next_seed, seed_record
from cardgym.kit.search import R_EXPERT, confident_best

TAG = globals().get("TAG", "")  # set by bind_search() before this file runs: the game's name


def _jit(**options):
    """``njit(cache=True)`` named with ``TAG`` (`cardgym.core.compiled.fastcall.tagged_jit`)."""
    return tagged_jit(TAG, **options)


# set by bind_search() before the first call
APPLY = LEGAL = None  # the game's kernels
EXPERT = GREEDY = None  # the expert (the first candidate) and the greedy bot (a rollout player)
SCRATCH = None  # () -> 3 scratch records: 0 the deal of a rollout, 1 a playout, 2 the search's generator
SEARCHES = None  # (s) -> bool: False where the expert decides alone (no seed drawn)
DISTINCT = None  # (s, p, a) -> key of legal action a (actions with one key are one play), or -1: distinct
RESAMPLE = None  # (t, seat, g, buf): re-deal in record t what seat cannot see, with g's game generator
SEGMENT = None  # (t) -> int: a rollout stops when this changes (the round, the hand; a constant: never)
VALUE = None  # (t, p, me, ended) -> float: the score of a finished rollout for seat me
NUM_ACTIONS = NUM_KEYS = POOL = 0  # the game's actions, DISTINCT's keys, the largest pool of hidden cards
Z = 0.0  # standard errors by which an alternative must beat the expert's action (`confident_best`)
ROLLOUTS = HORIZON = PLAYER = 0  # the registered bot's budget and rollout player (R_GREEDY or R_EXPERT)


@_jit()
def playout(t, p, me, mask, player, horizon):
    """Play record ``t`` on with the rollout bot ``player`` for every seat, for ``horizon`` turns (0: no
    limit) or until its segment ends; the rollout's ``VALUE`` for seat ``me``."""
    stop = t.turn + horizon if horizon > 0 else 1 << 30
    part = SEGMENT(t)
    while t.status == 0 and SEGMENT(t) == part and t.turn < stop:
        LEGAL(t, p, mask)
        a = EXPERT(t, p, mask) if player == R_EXPERT else GREEDY(t, p, mask)
        APPLY(t, p, a)
    return VALUE(t, p, me, t.status != 0 or SEGMENT(t) != part)


@_jit()
def candidates(s, p, mask, first, acts):
    """Write ``first`` (the expert's action) and then every other distinct legal action into ``acts``;
    returns how many."""
    seen = np.zeros(max(NUM_KEYS, 1), np.int8)
    acts[0] = first
    na = 1
    for k in range(-1, NUM_ACTIONS):
        a = first if k < 0 else k
        if mask[a] and (k < 0 or a != first):
            key = DISTINCT(s, p, a)
            if key >= 0:
                if seen[key]:
                    continue
                seen[key] = 1
            if k >= 0:
                acts[na] = a
                na += 1
    return na


@_jit()
def search(s, p, mask, rollouts, horizon, player):
    """The search's action for ``s.current`` (``mask``: its legal actions): ``rollouts`` deals per
    candidate, each played ``horizon`` turns (0: to the end of the segment) by ``player`` (``R_GREEDY``
    or ``R_EXPERT``). Draws one seed from ``s.bot_rng``; reads nothing the seat does not see."""
    if not SEARCHES(s):
        return EXPERT(s, p, mask)
    seat = s.current
    acts = np.empty(NUM_ACTIONS, np.int64)
    first = EXPERT(s, p, mask)
    na = candidates(s, p, mask, first, acts)
    if na == 1:
        return first
    seed = bot_below(s, 1 << 31) * (1 << 31) + bot_below(s, 1 << 31)
    recs = SCRATCH()
    seed_record(recs[2], seed)
    g = recs[2]
    buf = np.empty(POOL, np.int8)
    m2 = np.empty(NUM_ACTIONS, np.int8)
    score = np.zeros((na, max(rollouts, 1)), np.float64)
    for r in range(rollouts):
        recs[0] = s
        base = recs[0]
        RESAMPLE(base, seat, g, buf)
        seed_record(base, next_seed(g))
        for i in range(na):
            recs[1] = recs[0]
            t = recs[1]
            APPLY(t, p, acts[i])
            score[i, r] = playout(t, p, seat, m2, player, horizon)
    return acts[confident_best(score, na, rollouts, Z)]


@_jit()
def bot_search(s, p, mask):
    """The registered bot ``search``: `search` with the game's default budget."""
    return search(s, p, mask, ROLLOUTS, HORIZON, PLAYER)
