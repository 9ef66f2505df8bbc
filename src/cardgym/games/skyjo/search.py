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

from numba import njit

from ...kit import bind_search, budget_bot
from .observe import resample_seen
from .bots import bot_greedy
from .expert import bot_expert
from .kernels import apply, legal, round_points
from .rules import DECK_SIZE, NUM_ACTIONS, PH_SETUP, STATE_DTYPE

#: default budget of the registered ``search`` bot
ROLLOUTS = 32  # rollouts per legal action
HORIZON = 2  # turns played after the action (0: to the end of the round)
ROLLOUT_BOT = "greedy"  # the rollout player: "greedy" (the expert costs ~16x more) or "expert"
#: the search overrules the expert's choice only when its mean gain over it (paired over the same
#: deals) is at least Z standard errors: small budgets play like the expert, not like noise
Z = 2.0


@njit(cache=True)
def _value(t, p, me, ended):
    """The smallest opposing estimate minus ``me``'s (game total plus, while the round runs, the grid's
    points)."""
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
def _round(t):
    return t.round_no


@njit(cache=True)
def _searches(s):
    return s.phase != PH_SETUP  # setup reveals are left to the expert


#: ``search(s, p, mask, rollouts, horizon, player)`` and the registered ``bot_search(s, p, mask)``: the
#: rollout loop bound to Skyjo's parts
search, bot_search = bind_search(
    __name__, dtype=STATE_DTYPE, apply=apply, legal=legal, expert=bot_expert, greedy=bot_greedy,
    resample=resample_seen, value=_value, segment=_round, searches=_searches, num_actions=NUM_ACTIONS,
    pool=DECK_SIZE, z=Z,
    rollouts=ROLLOUTS, horizon=HORIZON, rollout_bot=ROLLOUT_BOT,
)


def make_search_bot(rollouts: int = ROLLOUTS, horizon: int = HORIZON, rollout_bot: str = ROLLOUT_BOT):
    """A ``search`` bot with another budget: ``rollouts`` per legal action (0: the expert's choice),
    ``horizon`` turns per rollout (0: to the end of the round), played by ``rollout_bot`` (``"greedy"`` or
    ``"expert"``). The result is an njit ``bot(s, p, mask) -> action`` like the registered bots (compiled
    on its first call, not cached on disk); to play it in the environments, put it in a copy of the
    game's spec: ``cardgym.core.contract.game.replace(GAME, bots={**GAME.bots, "search": bot})``."""
    return budget_bot(search, rollouts, horizon, rollout_bot)


BOTS = {"search": bot_search}
