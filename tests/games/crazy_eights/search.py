"""The Crazy Eights `search` bot: the shared determinized rollout loop (`bind_search`) bound to this
game's parts. For the expert's play and every other legal action, ``ROLLOUTS`` deals of what the seat
to act cannot see (the other hands and the draw pile, pooled and reshuffled, every hand keeping its
size) are played to the end of the game by the rollout bot for every seat, on the same deals for every
action; the expert's action is kept unless another wins more often by ``Z`` standard errors."""

from __future__ import annotations


from cardgym.kit import bind_search, budget_bot, win_draw_loss

from .observe import resample_seen
from .bots import bot_greedy
from .expert import bot_expert
from .kernels import apply, legal
from .rules import DECK_SIZE, NUM_ACTIONS, STATE_DTYPE

#: default budget: rollouts per legal action, played to the end of the game by ROLLOUT_BOT
ROLLOUTS = 128
ROLLOUT_BOT = "expert"
Z = 1.0


#: ``search(s, p, mask, rollouts, horizon, player)`` and the registered ``bot_search(s, p, mask)``
search, bot_search = bind_search(
    __name__, dtype=STATE_DTYPE, apply=apply, legal=legal, expert=bot_expert, greedy=bot_greedy,
    resample=resample_seen, value=win_draw_loss, num_actions=NUM_ACTIONS, pool=DECK_SIZE, z=Z,
    rollouts=ROLLOUTS, horizon=0, rollout_bot=ROLLOUT_BOT,
)



def make_search_bot(rollouts: int = ROLLOUTS, rollout_bot: str = ROLLOUT_BOT):
    """A ``search`` bot with another budget: ``rollouts`` per legal action (0: the expert's choice), played
    to the end of the game by ``rollout_bot`` (``"greedy"`` or ``"expert"``); an njit ``bot(s, p, mask)``
    compiled on its first call (not cached on disk)."""
    return budget_bot(search, rollouts, 0, rollout_bot)


BOTS = {"search": bot_search}
