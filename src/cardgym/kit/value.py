"""A stock value of a finished rollout for the search loop (`cardgym.kit.search.bind_search`'s
``value``): win 1, draw 0.5, loss 0 (compiled)."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def win_draw_loss(t, p, me, ended):
    """The score of a rollout played to the end of the game for seat ``me``: 1.0 when ``me`` won, 0.5
    when nobody did (a draw, a truncation), 0.0 when another seat won. For records with an integer
    ``winner`` field holding the winning seat, or -1 while nobody has won; ``p`` and ``ended`` are the
    loop's other arguments (unused: pass ``horizon=0`` so that every rollout ends the game)."""
    if t.winner == me:
        return 1.0
    if t.winner < 0:
        return 0.5
    return 0.0
