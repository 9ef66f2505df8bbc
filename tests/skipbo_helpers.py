"""Stacked-deck helpers for the Skip-Bo tests (kernel level, no env layer needed)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from cardgym.games.skipbo import GAME
from cardgym.games.skipbo.rules import A_DISCARD, A_PASS, FULL_DECK

W = 0  # wild


def make_deck(n, size, stocks, draw=()):
    """A permutation of the 162-card deck dealing ``stocks[i]`` (listed top first; unspecified cards
    below are fillers) to seat ``i`` and whose draw pile starts with ``draw`` (next drawn first).

    Fillers are the remaining cards, highest values first (12s rarely play by accident)."""
    pool = Counter(FULL_DECK.tolist())
    for cards in list(stocks) + [list(draw)]:
        for c in cards:
            pool[c] -= 1
            assert pool[c] >= 0, f"too many cards of code {c}"
    filler = []
    for c in sorted(pool, key=lambda c: (-c if c else -0.5)):
        filler += [c] * pool[c]
    filler.reverse()  # pop() takes from the end: highest values first
    full = []
    for i in range(n):
        top_first = list(stocks[i]) if i < len(stocks) else []
        while len(top_first) < size:
            top_first.append(filler.pop())
        full.append(top_first)
    order = [0] * (n * size)
    for i in range(n):
        for r in range(size):
            order[r * n + i] = full[i][size - 1 - r]  # the r-th card dealt to seat i; the last is the top
    rest = list(draw) + filler[::-1]
    deck = np.array(order + rest, dtype=np.int8)
    GAME.check_deck(deck)
    return deck


def hand(v, b):
    return (13 if v == 0 else v) * 4 + b


def stock(b):
    return b


def dtop(d, b):
    return (14 + d) * 4 + b


def pstock(b):
    return 18 * 4 + b


def pdtop(d, b):
    return (19 + d) * 4 + b


def discard(v, d):
    return A_DISCARD + (12 if v == 0 else v - 1) * 4 + d


PASS = A_PASS


class Table:
    """One Skip-Bo record driven through the compiled kernels, with legality checks."""

    def __init__(self, seed=0, deck=None, **options):
        self.rules = GAME.make_rules(**options)
        self.p = self.rules.params()
        self.st = np.zeros(1, GAME.state_dtype).view(np.recarray)
        self.mask = np.zeros(GAME.num_actions, np.int8)
        d = np.zeros(0, np.int8) if deck is None else np.asarray(deck, np.int8)
        GAME.reset(self.s, self.p, seed, d, len(d))
        self.refresh()

    @property
    def s(self):
        return self.st[0]

    def refresh(self):
        GAME.legal(self.s, self.p, self.mask)

    def legal(self):
        return set(np.flatnonzero(self.mask).tolist())

    def step(self, a):
        legal = [GAME.action_to_str(x) for x in self.legal()]
        assert self.mask[a], f"illegal: {GAME.action_to_str(a)}; legal: {legal}"
        GAME.apply(self.s, self.p, a)
        self.refresh()
        return self.s.reward[: self.s.num_players].copy()

    def hand(self, seat):
        return {c: int(k) for c, k in enumerate(self.s.hand[seat]) if k}

    def stock_top(self, seat):
        k = int(self.s.stock_len[seat])
        return int(self.s.stock[seat, k - 1]) if k else None

    def cards_ok(self):
        got = np.sort(GAME.cards_of(self.s, self.rules))
        return np.array_equal(got, np.sort(FULL_DECK))

    def discard_any(self, pile=0):
        """The current seat discards its lowest-coded hand card onto ``pile``."""
        c = int(np.flatnonzero(self.s.hand[self.s.current])[0])
        return self.step(discard(c, pile))

    def bot_step(self, name="random"):
        a = GAME.bot(name)(self.s, self.p, self.mask)
        return self.step(a)
