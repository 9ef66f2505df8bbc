"""Blackjack observations: the compiled "vector" encoder and what a seat cannot see (`resample_hidden`,
and `WORLD`, the compiled re-deal behind ``sample_world`` and the ``search`` bot).

Every player's cards are dealt face up, so a seat sees every hand at the table and the dealer's up
card; it never sees the dealer's hole card (until the game is over) or the order of the shoe. Every
seat sees the same cards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardgym.core.game import FlatEncoder
from cardgym.core.worlds import Hidden
from cardgym.games._shared.layout import Layout, Slot, offset
from cardgym.games._shared.search import shuffled_pool

from .rules import DECK_SIZE, card_value, hand_total

#: the "vector" observation; per-seat fields are relative to the observer (0 = the observer)
VECTOR = Layout(
    Slot("dealer_up", 0, 10, 0, 1, "the dealer's face-up card, one-hot by value (ace = 1, ten and faces = 10)"),
    Slot("dealer_total", 0, 1, 0, 31, "the dealer's final total once the game is over (0 while it runs)"),
    Slot("totals", 1, 0, 0, 31, "each seat's hand total, observer first"),
    Slot("soft", 1, 0, 0, 1, "1 where that hand is soft (an ace counted 11)"),
    Slot("cards", 1, 0, 0, 12, "cards in each hand"),
    Slot("done", 1, 0, 0, 1, "1 where that seat has finished (stood, busted or reached 21)"),
    Slot("to_act", 1, 0, 0, 1, "the seat to act, one-hot (zeros once over)"),
    Slot("shoe", 0, 1, 0, 52, "cards left in the shoe"),
)
O_UP, O_DEALER, O_TOTALS, O_SOFT = (VECTOR.at(k) for k in ("dealer_up", "dealer_total", "totals", "soft"))
O_CARDS, O_DONE, O_TO_ACT, O_SHOE = (VECTOR.at(k) for k in ("cards", "done", "to_act", "shoe"))
SIZE = VECTOR.total


def vector_layout(rules) -> list:
    return VECTOR.fields(rules)


@njit(cache=True)
def obs_size(n):
    return offset(SIZE, n)


@njit(cache=True)
def observe_vector(s, p, seat, out):
    n = int(s.num_players)
    for i in range(out.shape[0]):
        out[i] = 0.0
    out[offset(O_UP, n) + card_value(s.dealer[0]) - 1] = 1.0
    if s.status != 0:
        out[offset(O_DEALER, n)] = hand_total(s.dealer, s.dealer_len)[0]
    for r in range(n):
        j = (seat + r) % n
        total, soft = hand_total(s.hand[j], s.hand_len[j])
        out[offset(O_TOTALS, n) + r] = total
        out[offset(O_SOFT, n) + r] = 1.0 if soft else 0.0
        out[offset(O_CARDS, n) + r] = s.hand_len[j]
        out[offset(O_DONE, n) + r] = s.done[j]
        if s.status == 0 and j == s.current:
            out[offset(O_TO_ACT, n) + r] = 1.0
    out[offset(O_SHOE, n)] = s.draw_len


def state_size(rules) -> int:
    """Length of ``state_vector`` (kernels.py): seat 0's observation, the hole card, the shoe's values."""
    return obs_size(rules.num_players) + 20


ENCODERS = {
    "vector": FlatEncoder("vector", vector_layout, kernel=observe_vector,
                          doc="dealer's up card, every hand's total, softness, size and state, the shoe's size"),
}


def resample_hidden(r, rules, seat, np_rng):
    """A copy of record ``r`` with what no seat sees re-dealt: the shoe's order and, while the game
    runs, the dealer's hole card (pooled with the shoe)."""
    arr = np.zeros(1, r.dtype)
    arr[0] = r
    out = arr.view(np.recarray)[0]
    dl = int(out["draw_len"])
    running = int(out["status"]) == 0
    pool = out["draw"][:dl].tolist() + ([int(out["dealer"][1])] if running else [])
    pool = np_rng.permutation(np.asarray(pool, np.int64)).tolist()
    if running:
        out["dealer"][1] = pool.pop()
    out["draw"][:dl] = pool
    return out


# -- the re-deal of what a seat has not seen (sample_world, the search bot) --------------------


@njit(cache=True)
def resample_seen(t, seat, g, buf):
    """Re-deal in record ``t`` what no seat sees (the shoe and, while the game runs, the dealer's hole
    card ``dealer[1]``) with the game generator of record ``g``; the same for every ``seat``. The pool
    is rebuilt from which cards are hidden (`shuffled_pool`), never from where they were. Every hand at
    the table and the dealer's up card are face up and stay; the record holds no scratch cards."""
    running = t.status == 0
    counts = np.zeros(DECK_SIZE, np.int64)
    if running:
        counts[t.dealer[1]] += 1
    for i in range(t.draw_len):
        counts[t.draw[i]] += 1
    shuffled_pool(counts, 0, g, buf)
    m = 0
    if running:
        t.dealer[1] = buf[m]
        m += 1
    for i in range(t.draw_len):
        t.draw[i] = buf[m]
        m += 1


#: what Blackjack hides and how ``cardgym.kit``'s ``sample_world`` re-deals it
WORLD = Hidden(
    resample=resample_seen,
    positions=("draw", "dealer"),
    seen="every hand at the table (dealt face up), the dealer's up card and the shoe's size; not the "
    "dealer's hole card until the game is over, or the order of the shoe; every seat sees the same",
)
