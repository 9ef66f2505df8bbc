"""The ``search`` bot of Skip-Bo: determinized Monte Carlo rollouts (see docs/bots.md).

For every distinct legal action, ``rollouts`` copies of the game are dealt again from what the seat to
act sees (the other players' hands, every stock under its top and the draw pile reshuffled among their
places, from a generator seeded by the record's ``bot_rng``), the action is applied and the game is
played on by ``expert`` for every seat for ``horizon`` turns (0: to the end of the hand). A rollout
scores +1000 / -1000 when the hand is won / lost (a draw 0), otherwise the difference of stock sizes
(the smallest opposing stock minus the smallest stock of the seat's side). Every action is tried on the
same deals (common random numbers); the best mean score is chosen. The record's game generator ``rng``
is never used: rollouts run on copies with fresh generators.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._shared.search import check_budget, confident_best
from ...core.records import scratch_maker
from ...core.rng import bot_below, next_seed, seed_record, shuffle
from .bots import bot_greedy
from .expert import bot_expert
from .kernels import apply, legal, partner_of
from .rules import A_DISCARD, DECK_SIZE, NUM_ACTIONS, NUM_CODES, P_DIRECTIONS, STATE_DTYPE

#: three scratch records for a decision of the search bot
_scratch = scratch_maker(STATE_DTYPE, 3)

#: default budget of the registered ``search`` bot
ROLLOUTS = 8  # rollouts per distinct legal action
HORIZON = 8  # turns played after the action (0: to the end of the hand)
#: rollout players
R_GREEDY, R_EXPERT = 0, 1
WIN_SCORE = 1000.0


@njit(cache=True)
def resample_seen(t, seat, g, buf):
    """Re-deal what ``seat`` does not see in record ``t`` (the other hands, every stock under its top,
    the draw pile) with the game generator of record ``g``. The pool is rebuilt from its counts, so the
    result depends only on which cards are hidden, never on where they were."""
    n = t.num_players
    counts = np.zeros(NUM_CODES, np.int64)
    for i in range(t.draw_len):
        counts[t.draw[i]] += 1
    for j in range(n):
        for i in range(t.stock_len[j] - 1):
            counts[t.stock[j, i]] += 1
        if j != seat:
            for c in range(NUM_CODES):
                counts[c] += t.hand[j, c]
    m = 0
    for c in range(NUM_CODES):
        for _ in range(counts[c]):
            buf[m] = c
            m += 1
    shuffle(g, buf, m)
    m = 0
    for j in range(n):
        for i in range(t.stock_len[j] - 1):
            t.stock[j, i] = buf[m]
            m += 1
        if j != seat:
            for c in range(NUM_CODES):
                t.hand[j, c] = 0
            for _ in range(t.hand_len[j]):
                t.hand[j, buf[m]] += 1
                m += 1
    for i in range(t.draw_len):
        t.draw[i] = buf[m]
        m += 1


@njit(cache=True)
def _side(s, p, me, j):
    return j == me or partner_of(s, p, me) == j


@njit(cache=True)
def _value(t, p, me, ended):
    n = t.num_players
    if ended:
        if t.winner < 0:
            return 0.0
        return WIN_SCORE if _side(t, p, me, t.winner) else -WIN_SCORE
    mine = 1 << 30
    theirs = 1 << 30
    for j in range(n):
        if _side(t, p, me, j):
            mine = min(mine, t.stock_len[j])
        else:
            theirs = min(theirs, t.stock_len[j])
    return float(theirs - mine)


@njit(cache=True)
def _playout(t, p, me, mask, player, horizon):
    stop = t.turn + horizon if horizon > 0 else 1 << 30
    hands = t.hands
    while t.status == 0 and t.hands == hands and t.turn < stop:
        legal(t, p, mask)
        a = bot_expert(t, p, mask) if player == R_EXPERT else bot_greedy(t, p, mask)
        apply(t, p, a)
    return _value(t, p, me, t.status != 0 or t.hands != hands)


#: the search overrules the expert's choice only when its mean gain over it (paired over the same
#: deals) is at least Z standard errors: small budgets play like the expert, not like noise
Z = 3.0


@njit(cache=True)
def search(s, p, mask, rollouts, horizon, player):
    """The search's action for ``s.current`` (``mask``: its legal actions). Draws one seed from
    ``s.bot_rng``; reads nothing the seat does not see."""
    seat = s.current
    acts = np.empty(NUM_ACTIONS, np.int64)
    seen = np.zeros(1024, np.int8)
    first = bot_expert(s, p, mask)
    acts[0] = first
    na = 1
    for k in range(-1, NUM_ACTIONS):
        a = first if k < 0 else k
        if mask[a] and (k < 0 or a != first):
            if a < A_DISCARD:
                # plays of the same card onto piles of equal height (same direction) are the same play
                pile = a & 3
                d = 1 if (p[P_DIRECTIONS] != 0 and pile >= 2) else 0
                key = (a >> 2) * 32 + d * 16 + int(s.heights[pile])
                if seen[key]:
                    continue
                seen[key] = 1
            if k >= 0:
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
        resample_seen(base, seat, g, buf)
        seed_record(base, next_seed(g))
        for i in range(na):
            recs[1] = recs[0]
            t = recs[1]
            apply(t, p, acts[i])
            score[i, r] = _playout(t, p, seat, m2, player, horizon)
    return acts[confident_best(score, na, rollouts, Z)]


@njit(cache=True)
def bot_search(s, p, mask):
    """Registered bot ``search``: ``ROLLOUTS`` expert rollouts of ``HORIZON`` turns per distinct action."""
    return search(s, p, mask, ROLLOUTS, HORIZON, R_EXPERT)

def make_search_bot(rollouts: int = ROLLOUTS, horizon: int = HORIZON, rollout_bot: str = "expert"):
    """A ``search`` bot with another budget: ``rollouts`` per legal action (0: the expert's choice),
    ``horizon`` turns per rollout (0: to the end of the hand), played by ``rollout_bot`` (``"greedy"`` or
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
