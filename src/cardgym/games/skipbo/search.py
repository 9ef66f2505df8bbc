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

from numba import njit

from ...kit import bind_search, budget_bot
from .observe import resample_seen
from .bots import bot_greedy
from .expert import bot_expert
from .kernels import apply, legal, partner_of
from .rules import A_DISCARD, DECK_SIZE, NUM_ACTIONS, P_DIRECTIONS, STATE_DTYPE

#: default budget of the registered ``search`` bot
ROLLOUTS = 8  # rollouts per distinct legal action
HORIZON = 8  # turns played after the action (0: to the end of the hand)
ROLLOUT_BOT = "expert"  # the rollout player: "expert" or "greedy"
WIN_SCORE = 1000.0
#: the search overrules the expert's choice only when its mean gain over it (paired over the same
#: deals) is at least Z standard errors: small budgets play like the expert, not like noise
Z = 3.0


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
def _hand(t):
    return t.hands


@njit(cache=True)
def _distinct(s, p, a):
    """Plays of the same card onto piles of equal height (same direction) are the same play; discards
    and passes are each their own."""
    if a >= A_DISCARD:
        return -1
    pile = a & 3
    d = 1 if (p[P_DIRECTIONS] != 0 and pile >= 2) else 0
    return (a >> 2) * 32 + d * 16 + int(s.heights[pile])


#: ``search(s, p, mask, rollouts, horizon, player)`` and the registered ``bot_search(s, p, mask)``: the
#: rollout loop bound to Skip-Bo's parts
search, bot_search = bind_search(
    __name__, dtype=STATE_DTYPE, apply=apply, legal=legal, expert=bot_expert, greedy=bot_greedy,
    resample=resample_seen, value=_value, segment=_hand, distinct=_distinct, num_keys=1024,
    num_actions=NUM_ACTIONS, pool=DECK_SIZE, z=Z,
    rollouts=ROLLOUTS, horizon=HORIZON, rollout_bot=ROLLOUT_BOT,
)


def make_search_bot(rollouts: int = ROLLOUTS, horizon: int = HORIZON, rollout_bot: str = ROLLOUT_BOT):
    """A ``search`` bot with another budget: ``rollouts`` per legal action (0: the expert's choice),
    ``horizon`` turns per rollout (0: to the end of the hand), played by ``rollout_bot`` (``"greedy"`` or
    ``"expert"``). The result is an njit ``bot(s, p, mask) -> action`` like the registered bots (compiled
    on its first call, not cached on disk); to play it in the environments, put it in a copy of the
    game's spec: ``cardgym.core.contract.game.replace(GAME, bots={**GAME.bots, "search": bot})``."""
    return budget_bot(search, rollouts, horizon, rollout_bot)


BOTS = {"search": bot_search}
