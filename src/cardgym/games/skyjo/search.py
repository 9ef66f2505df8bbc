"""The ``search`` bot of Skyjo: determinized Monte Carlo rollouts (see docs/bots.md).

For every legal action, ``rollouts`` copies of the game are dealt again from what the seat to act sees
(every face-down grid card and the draw pile reshuffled among their places, from a generator seeded
by the record's ``bot_rng``), the action is applied and the round is played on by the rollout bot
(``greedy`` by default: ``expert`` costs ~16x more a decision) for every seat, to the end of the round
(``horizon`` 0) or for ``horizon`` turns. A rollout scores the smallest opposing estimate minus the
seat's own, an estimate being the game total plus, while the round runs, the points of the grid (the
face-down cards counted at their dealt value). Every action is tried on the same deals (common
random numbers); the best mean score is chosen. Setup reveals are left to ``expert``. The record's
game generator ``rng`` is never used: rollouts run on copies with fresh generators.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._shared.search import check_budget, confident_best
from ...core.records import scratch_maker
from ...core.rng import bot_below, next_seed, seed_record, shuffle
from .bots import bot_greedy
from .expert import bot_expert
from .kernels import apply, legal, round_points
from .rules import DECK_SIZE, HIDDEN, MIN_VALUE, NUM_ACTIONS, NUM_VALUES, PH_SETUP, SLOTS, STATE_DTYPE

#: three scratch records for a decision of the search bot
_scratch = scratch_maker(STATE_DTYPE, 3)

#: default budget of the registered ``search`` bot
ROLLOUTS = 32  # rollouts per legal action
HORIZON = 2  # turns played after the action (0: to the end of the round)
#: rollout players
R_GREEDY, R_EXPERT = 0, 1


@njit(cache=True)
def resample_seen(t, g, buf):
    """Re-deal what nobody sees in record ``t`` (face-down grid cards of every seat, the draw pile) with
    the game generator of record ``g``. The pool is rebuilt from its counts, so the result depends only
    on which cards are hidden, never on where they were."""
    n = t.num_players
    counts = np.zeros(NUM_VALUES, np.int64)
    for j in range(n):
        for pos in range(SLOTS):
            if t.up[j, pos] == HIDDEN:
                counts[t.grid[j, pos] - MIN_VALUE] += 1
    for i in range(t.draw_len):
        counts[t.draw[i] - MIN_VALUE] += 1
    m = 0
    for c in range(NUM_VALUES):
        for _ in range(counts[c]):
            buf[m] = c + MIN_VALUE
            m += 1
    shuffle(g, buf, m)
    m = 0
    for j in range(n):
        for pos in range(SLOTS):
            if t.up[j, pos] == HIDDEN:
                t.grid[j, pos] = buf[m]
                m += 1
    for i in range(t.draw_len):
        t.draw[i] = buf[m]
        m += 1


@njit(cache=True)
def _value(t, me, ended):
    best = 1 << 30
    mine = 0
    for j in range(t.num_players):
        est = t.totals[j] + (0 if ended else round_points(t, j))
        if j == me:
            mine = est
        else:
            best = min(best, est)
    return float(best - mine)


@njit(cache=True)
def _playout(t, p, me, mask, player, horizon):
    stop = t.turn + horizon if horizon > 0 else 1 << 30
    rnd = t.round_no
    while t.status == 0 and t.round_no == rnd and t.turn < stop:
        legal(t, p, mask)
        a = bot_expert(t, p, mask) if player == R_EXPERT else bot_greedy(t, p, mask)
        apply(t, p, a)
    return _value(t, me, t.status != 0 or t.round_no != rnd)


#: the search overrules the expert's choice only when its mean gain over it (paired over the same
#: deals) is at least Z standard errors: small budgets play like the expert, not like noise
Z = 2.0


@njit(cache=True)
def search(s, p, mask, rollouts, horizon, player):
    """The search's action for ``s.current`` (``mask``: its legal actions). Draws one seed from
    ``s.bot_rng``; reads nothing the seat does not see."""
    if s.phase == PH_SETUP:
        return bot_expert(s, p, mask)
    seat = s.current
    acts = np.empty(NUM_ACTIONS, np.int64)
    first = bot_expert(s, p, mask)
    acts[0] = first
    na = 1
    for a in range(NUM_ACTIONS):
        if mask[a] and a != first:
            acts[na] = a
            na += 1
    if na == 1:
        return first
    seed = bot_below(s, 1 << 31) * (1 << 31) + bot_below(s, 1 << 31)
    recs = _scratch()  # 0: the deal of this rollout, 1: a playout, 2: generator
    seed_record(recs[2], seed)
    g = recs[2]
    buf = np.empty(DECK_SIZE, np.int8)
    m2 = np.empty(NUM_ACTIONS, np.int8)
    score = np.zeros((na, max(rollouts, 1)), np.float64)
    for r in range(rollouts):
        recs[0] = s
        base = recs[0]
        resample_seen(base, g, buf)
        seed_record(base, next_seed(g))
        for i in range(na):
            recs[1] = recs[0]
            t = recs[1]
            apply(t, p, acts[i])
            score[i, r] = _playout(t, p, seat, m2, player, horizon)
    return acts[confident_best(score, na, rollouts, Z)]


@njit(cache=True)
def bot_search(s, p, mask):
    """Registered bot ``search``: ``ROLLOUTS`` greedy rollouts of ``HORIZON`` turns per legal action."""
    return search(s, p, mask, ROLLOUTS, HORIZON, R_GREEDY)

def make_search_bot(rollouts: int = ROLLOUTS, horizon: int = HORIZON, rollout_bot: str = "greedy"):
    """A ``search`` bot with another budget: ``rollouts`` per legal action (0: the expert's choice),
    ``horizon`` turns per rollout (0: to the end of the round), played by ``rollout_bot`` (``"greedy"`` or
    ``"expert"``). The result is an njit ``bot(s, p, mask) -> action`` like the registered bots (compiled
    on its first call, not cached on disk); to play it in the environments, put it in a copy of the
    game's spec: ``cardgym.core.game.replace(GAME, bots={**GAME.bots, "search": bot})``."""
    r, h, name = check_budget(rollouts, horizon, rollout_bot)
    who = R_EXPERT if name == "expert" else R_GREEDY

    @njit
    def bot(s, p, mask):
        return search(s, p, mask, r, h, who)

    return bot


BOTS = {"search": bot_search}
