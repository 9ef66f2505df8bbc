"""Card-pile helpers shared by the games (compiled).

Conventions: a *pile* is an int8 array plus a length; its top card is ``pile[length - 1]``. Helpers
that change a length return the new length; the caller stores it in its record.
"""

from __future__ import annotations

from numba import njit

from cardgym.core.compiled.rng import shuffle


@njit(cache=True)
def deck_order(s, full_deck, deck, deck_len, out):
    """Fill ``out[:len(full_deck)]`` with the deal order, front = top of the deck.

    A stacked deck (``deck_len > 0``) is copied as given; otherwise ``full_deck`` is shuffled with
    the game generator of record ``s``.
    """
    n = full_deck.shape[0]
    if deck_len > 0:
        for k in range(n):
            out[k] = deck[k]
    else:
        for k in range(n):
            out[k] = full_deck[k]
        shuffle(s, out, n)
    return n


@njit(cache=True)
def load_pile(pile, cards, start, count):
    """Make ``pile`` hold ``cards[start:start+count]`` with ``cards[start]`` on top. Returns count."""
    for k in range(count):
        pile[count - 1 - k] = cards[start + k]
    return count


@njit(cache=True)
def top(pile, length):
    """Top card of a pile, -1 if it is empty."""
    if length == 0:
        return -1
    return pile[length - 1]


@njit(cache=True)
def pop(pile, length):
    """Top card of a non-empty pile; the caller stores ``length - 1``."""
    return pile[length - 1]


@njit(cache=True)
def push(pile, length, card):
    pile[length] = card
    return length + 1


@njit(cache=True)
def move_all(src, src_len, dst, dst_len):
    """Put all of ``src`` on top of ``dst`` (order kept). Returns the new ``dst`` length."""
    for k in range(src_len):
        dst[dst_len + k] = src[k]
    return dst_len + src_len


@njit(cache=True)
def refill_from(s, draw, draw_len, src, src_len):
    """Shuffle all of ``src`` and put it *under* the draw pile. Returns the new draw length.

    With an empty draw pile this is the plain "shuffle into a new draw pile".
    """
    shuffle(s, src, src_len)
    for k in range(draw_len - 1, -1, -1):
        draw[k + src_len] = draw[k]
    for k in range(src_len):
        draw[k] = src[k]
    return draw_len + src_len


@njit(cache=True)
def count_values(pile, length, counts):
    """Add the number of cards of each code in ``pile[:length]`` to ``counts``."""
    for k in range(length):
        counts[pile[k]] += 1
