"""Skip-Bo Junior "expert" bot: legal, deterministic, sees only its seat's view, beats greedy, fast."""

from __future__ import annotations


import numpy as np
import pytest

from cardgym.eval import match as eval_match
from cardgym.games.skipbo_junior import GAME

from redeal import redeal
from test_skipbo_junior_rules import Game as RulesGame
from test_skipbo_junior_rules import make_deck  # noqa: F401  (the stacked-deck builder of the rules tests)

W = 0
END = 16


class Game(RulesGame):
    """The rules tests' stacked-deck driver, plus the bots' choices."""

    def bot(self, name):
        self.legal()
        return int(GAME.bot(name)(self.s, self.p, self.mask))


def test_registered_in_order():
    assert list(GAME.bots) == ["random", "greedy", "expert", "search"]


@pytest.mark.parametrize("opts", [
    {"num_players": 2},
    {"num_players": 3, "stock_size": 15},
    {"num_players": 4},
    {"num_players": 2, "must_play": False},
    {"num_players": 4, "must_play": False, "recycle_build_piles": True, "stock_size": 20},
    {"num_players": 2, "stock_size": 48},
])
def test_expert_always_legal(opts):
    names = ("expert", "greedy", "random")
    for seed in range(6):
        g = Game(seed=seed, **opts)
        while not g.s.status:
            a = g.bot("expert")
            assert a in g.legal()
            g.step(a if g.s.current % 2 == 0 else g.bot(names[(g.s.current + seed) % 3]))


def test_expert_deterministic_and_uses_no_randomness():
    def trajectory(seed):
        g = Game(seed=seed, num_players=3, must_play=False)
        acts = []
        while not g.s.status:
            rng = int(g.s.bot_rng)
            a = g.bot("expert")
            assert int(g.s.bot_rng) == rng
            acts.append(a)
            g.step(a)
        return acts, GAME.result(g.s, g.rules)

    assert trajectory(11) == trajectory(11)


def test_expert_ignores_hidden_cards():
    """Dealing the hidden cards (stocks under their tops, draw pile) again never changes its choice."""
    rng = np.random.default_rng(0)
    game_ = GAME

    def resample(record, rules, seat, rng):
        return redeal(game_, rules, record, seat, rng)

    for opts in ({"num_players": 2}, {"num_players": 4, "must_play": False}):
        g = Game(seed=3, **opts)
        while not g.s.status:
            a = g.bot("expert")
            for _ in range(2):
                r = resample(g.s, g.rules, int(g.s.current), rng).view(np.recarray)
                assert int(GAME.bot("expert")(r, g.p, g.mask)) == a
            g.step(a)


def test_plays_stock_first_and_keeps_the_wild():
    # stock 2 on empty piles, stacks [1] [W] [7]: the 1 reaches the stock, the wild is kept for later
    deck = make_deck(2, 3, [[2, 9, 9], [8, 8, 8]], [1, W, 7])
    g = Game(deck, num_players=2, stock_size=3)
    assert g.bot("expert") in [4 + b for b in range(4)]  # hand stack 0 (the 1)
    g.step(g.bot("expert"))
    assert g.bot("expert") in range(4)  # then the stock top


def test_uncovers_through_another_pile_to_reach_the_stock():
    # turn 1: seat 0 cannot play (stacks 2 / 5 / 6, stock 3); seat 1 cannot either.
    # turn 2: seat 0 gets 1 / 4 / W: stacks [2, 1] [5, 4] [6, W].
    # Best: 1 (uncovers the 2), 2, then the stock 3 - without spending the wild.
    deck = make_deck(2, 3, [[3, 9, 9], [10, 10, 10]], [2, 5, 6, 8, 8, 8, 1, 4, W])
    g = Game(deck, num_players=2, stock_size=3)
    assert g.s.current == 0 and g.s.stack_len[0].tolist() == [2, 2, 2]
    first = g.bot("expert")
    assert first in [4 + b for b in range(4)]
    g.step(first)
    assert g.bot("expert") in [4 + b for b in range(4)]  # the uncovered 2
    g.step(g.bot("expert"))
    assert g.bot("expert") in range(4)


def test_ends_turn_rather_than_feed_next_stock():
    deck = make_deck(2, 3, [[9, 9, 9], [2, 8, 8]], [1, 10, 10])
    g = Game(deck, num_players=2, stock_size=3, must_play=False)
    assert g.bot("expert") == END
    g = Game(deck, num_players=2, stock_size=3, must_play=True)
    assert g.bot("expert") in [4 + b for b in range(4)]


def test_expert_beats_greedy_and_random():
    res = eval_match("skipbo_junior", "expert", "greedy", games=2000, seed=777)
    assert res["ci95"][0] > 0.5, res
    res = eval_match("skipbo_junior", "expert", "random", games=400, seed=5)
    assert res["a_win_rate"] > 0.75, res
    res = eval_match("skipbo_junior", "expert", "greedy", num_players=4, games=1200, seed=3)
    assert res["a_win_rate"] > 0.25, res  # parity is 25% at four players
