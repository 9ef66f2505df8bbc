"""Skip-Bo Junior rules, played out from stacked decks (kernels driven directly)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from cardgym.games.skipbo_junior import GAME
from cardgym.games.skipbo_junior.observe import STATE, VECTOR
from cardgym.games.skipbo_junior.rules import JuniorRules
from cardgym.games.skipbo_junior.text import action_to_str
from cardgym.eval import match as eval_match
from cardgym.games.skipbo_junior.rules import FULL_DECK
from redeal import redeal

W = 0
END = 16
EMPTY = np.zeros(0, np.int8)


def stock_play(pile):
    return pile


def stack_play(k, pile):
    return (k + 1) * 4 + pile


def make_deck(n, ss, stocks, draw=()):
    """A stacked deck: ``stocks[i]`` is seat i's stock from top to bottom (the first ones given; the
    rest is filled), ``draw`` the first cards of the draw pile in the order they are dealt."""
    deck = [None] * 96
    for i in range(n):
        for t, c in enumerate(stocks[i]):
            deck[(ss - 1 - t) * n + i] = c
    for t, c in enumerate(draw):
        deck[n * ss + t] = c
    left = Counter(FULL_DECK.tolist()) - Counter(c for c in deck if c is not None)
    rest = sorted(left.elements(), reverse=True)  # 10s first: they block nothing early
    it = iter(rest)
    deck = [c if c is not None else next(it) for c in deck]
    return deck


class Game:
    def __init__(self, deck=None, seed=0, **options):
        self.rules = GAME.make_rules(**options)
        self.p = self.rules.params()
        self.s = np.zeros(1, GAME.state_dtype).view(np.recarray)[0]
        self.mask = np.zeros(GAME.num_actions, np.int8)
        d = GAME.check_deck(deck) if deck is not None else EMPTY
        GAME.reset(self.s, self.p, seed, d, len(d))

    def legal(self):
        GAME.legal(self.s, self.p, self.mask)
        return [a for a in range(17) if self.mask[a]]

    def step(self, *actions):
        for a in actions:
            assert a in self.legal(), (action_to_str(a), self.legal())
            GAME.apply(self.s, self.p, a)
            self.check()

    def stack(self, seat, k):
        return self.s.stacks[seat, k, : self.s.stack_len[seat, k]].tolist()

    def stock(self, seat):  # top first
        return self.s.stock[seat, : self.s.stock_len[seat]].tolist()[::-1]

    def obs(self, seat):
        enc = GAME.encoders["vector"]
        out = np.zeros(enc.size(self.rules), np.float32)
        enc.kernel(self.s, self.p, seat, out)
        return {k: out[v] for k, v in enc.offsets(self.rules).items()}

    def check(self):
        s = self.s
        assert sorted(GAME.cards_of(s, self.rules).tolist()) == sorted(FULL_DECK.tolist())
        hidden = np.bincount(s.draw[: s.draw_len], minlength=11)
        for j in range(s.num_players):
            if s.stock_len[j] > 1:
                hidden += np.bincount(s.stock[j, : s.stock_len[j] - 1], minlength=11)
            for k in range(3):
                under = self.stack(j, k)[:-1]
                assert (np.bincount(under, minlength=11) == s.stack_under[j, k]).all()
        assert (hidden == s.hidden).all()


# ------------------------------------------------------------------------------------------------
# setup


@pytest.mark.parametrize("n,ss", [(2, 10), (3, 7), (4, 10), (4, 24), (2, 1)])
def test_deal_is_skipbo_round_robin(n, ss):
    deck = np.random.default_rng(n * 100 + ss).permutation(FULL_DECK)
    g = Game(deck.tolist(), num_players=n, stock_size=ss, must_play=False)
    s = g.s
    for i in range(n):
        assert s.stock_len[i] == ss
        assert s.stock[i, ss - 1] == deck[(ss - 1) * n + i]  # top of seat i's stock
        assert s.stock[i, 0] == deck[i]  # first card dealt is at the bottom
        assert g.stock(i) == [deck[r * n + i] for r in range(ss - 1, -1, -1)]
    first = int(s.current)
    # the first player to move got the next three cards, stack 0 first (earlier seats were skipped
    # only if they had no play: each of them holds three cards too)
    dealt = deck[n * ss:]
    if len(dealt) == 0:  # 4 x 24: no draw pile at all
        assert s.draw_len == 0 and s.stack_len.sum() == 0
        return
    assert s.turn == first  # no wrap-around in these deals
    at = 0
    for seat in range(first + 1):
        assert [g.stack(seat, k) for k in range(3)] == [[dealt[at]], [dealt[at + 1]], [dealt[at + 2]]]
        at += 3
    assert s.draw_len == 96 - n * ss - at
    assert s.draw[s.draw_len - 1] == dealt[at]  # next card to be dealt
    g.check()


def test_first_turn_and_stacks_keep_old_cards():
    deck = make_deck(2, 3, [[6, 5, 7], [8, 9, 4]], [1, 2, 3, 4, W, 10, 9, 9, 1, 2, 10, 10])
    g = Game(deck, num_players=2, stock_size=3)
    s = g.s
    assert s.current == 0 and s.turn == 0
    assert [g.stack(0, k) for k in range(3)] == [[1], [2], [3]]
    # only a 1 (or a wild) starts a pile: stack 0 onto any empty pile
    assert g.legal() == [4, 5, 6, 7]
    g.step(stack_play(0, 0))
    assert g.legal() == [stack_play(1, 0)]  # 2 on the pile at 1; 1-only piles refuse it
    g.step(stack_play(1, 0), stack_play(2, 0))
    # stock 5 needs a 4: no play left, the turn ended by itself; seat 1 got 4, W, 10
    assert s.current == 1 and s.turn == 1
    assert [g.stack(1, k) for k in range(3)] == [[4], [W], [10]]
    assert s.stack_len[0].tolist() == [0, 0, 0]
    # 4 goes only on the pile at 3; the wild anywhere; 10 nowhere; stock 8 nowhere
    assert g.legal() == [stack_play(0, 0), 8, 9, 10, 11]
    g.step(stack_play(1, 1))  # wild as a 1 on pile 1
    assert s.heights.tolist() == [3, 1, 0, 0] and s.builds[1, 0] == W
    g.step(stack_play(0, 0))  # 4 on pile 0
    assert s.heights.tolist() == [4, 1, 0, 0]
    # stacks: [], [], [10]; stock 8: nothing -> seat 0 (stock 6), whose stacks get 9, 9, 1
    assert s.current == 0 and s.turn == 2
    assert [g.stack(0, k) for k in range(3)] == [[9], [9], [1]]
    # old cards stay under the new ones
    g.step(stack_play(2, 2))
    assert s.current == 1
    assert [g.stack(1, k) for k in range(3)] == [[2], [10], [10, 10]]
    assert s.stack_under[1, 2, 10] == 1 and s.stack_under[1, 0].sum() == 0
    assert g.legal() == [stack_play(0, 1), stack_play(0, 2)]  # piles 1 (wild as 1) and 2 need a 2


def test_turn_without_play_is_skipped():
    deck = make_deck(2, 3, [[5, 6, 7], [1, 9, 4]], [2, 3, 4, 8, 8, 8])
    g = Game(deck, num_players=2, stock_size=3)
    # seat 0 had 2, 3, 4 and stock 5: no play, no decision; seat 1 plays
    assert g.s.current == 1 and g.s.turn == 1
    assert [g.stack(0, k) for k in range(3)] == [[2], [3], [4]]
    assert g.legal() == [0, 1, 2, 3]
    assert END not in g.legal()


def test_playing_the_stock_turns_the_next_card_and_completion_at_10():
    # seat 0: stock 1 then 9 then 7; seat 1: stock 10 10 10
    deck = make_deck(2, 3, [[1, 9, 7], [10, 10, 10]], [2, 3, 4, 5, 6, 7, 8, W, 6, 1, 9, 9])
    g = Game(deck, num_players=2, stock_size=3)
    s = g.s
    hidden_before = s.hidden.copy()
    g.step(stock_play(0))
    assert g.stock(0) == [9, 7] and s.hidden[9] == hidden_before[9] - 1
    g.step(stack_play(0, 0), stack_play(1, 0), stack_play(2, 0))  # 2 3 4
    assert s.current == 1  # stock 9 needs 8
    g.step(stack_play(0, 0), stack_play(1, 0), stack_play(2, 0))  # 5 6 7
    assert s.current == 0 and s.heights[0] == 7
    g.step(stack_play(0, 0))  # 8
    g.step(stock_play(0))  # 9 from the stock
    assert g.stock(0) == [7] and s.heights[0] == 9
    # the wild is a 10: the pile is complete and leaves the table
    g.step(stack_play(1, 0))
    assert s.heights.tolist() == [0, 0, 0, 0] and s.bcounts[0] == 0
    assert s.done_len == 10 and s.done[:10].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, W]
    assert s.current == 1  # 6 and stock 7 cannot start a pile
    assert [g.stack(1, k) for k in range(3)] == [[1], [9], [9]]


def test_at_most_four_piles_and_two_ones():
    deck = make_deck(2, 2, [[1, 1], [5, 5]], [1, 1, 1, 9, 9, 9])
    g = Game(deck, num_players=2, stock_size=2)
    g.step(stock_play(0), stack_play(0, 1), stack_play(1, 2))
    assert g.legal() == [stock_play(3), stack_play(2, 3)]  # two 1s left, one free pile
    g.step(stack_play(2, 3))
    # the last stock card (a 1) has no free pile: the turn passed
    assert g.s.turn > 0 and g.stock(0) == [1] and min(g.s.heights) >= 1


def test_win_when_stock_empties():
    deck = make_deck(2, 2, [[1, 2], [5, 5]], [9, 9, 9])
    g = Game(deck, num_players=2, stock_size=2)
    g.step(stock_play(2))
    g.step(stock_play(2))
    s = g.s
    assert s.status == 1 and s.winner == 0
    assert s.reward.tolist()[:2] == [1.0, -1.0]
    assert g.legal() == []
    assert GAME.result(s, g.rules) == {"outcome": "win", "winners": [0], "stock_left": [0, 2],
                                       "turns": 0, "recycles": 0}


def test_win_rewards_four_players():
    deck = make_deck(4, 1, [[3], [W], [5], [6]], [9, 9, 9, 9, 9, 9])
    g = Game(deck, num_players=4, stock_size=1)
    assert g.s.current == 1  # seat 0 cannot play 3 or 9s
    g.step(stock_play(0))
    assert g.s.reward.tolist() == [-1.0, 1.0, -1.0, -1.0]


# ------------------------------------------------------------------------------------------------
# must_play


def test_must_play_off_end_turn_always_legal():
    deck = make_deck(2, 3, [[5, 6, 7], [8, 9, 4]], [1, 2, 3, 4, W, 10, 10, 10, W])
    g = Game(deck, num_players=2, stock_size=3, must_play=False)
    assert g.legal() == [4, 5, 6, 7, END]
    g.step(stack_play(0, 0))
    assert END in g.legal()
    g.step(END)  # stops with 2 and 3 playable
    s = g.s
    assert s.current == 1 and s.turn == 1 and s.reward.tolist() == [0, 0, 0, 0]
    assert [g.stack(0, k) for k in range(3)] == [[], [2], [3]]
    g.step(END)
    assert s.current == 0 and s.turn == 2
    assert [g.stack(0, k) for k in range(3)] == [[10], [2, 10], [3, W]]


def test_must_play_off_still_skips_turns_without_play_and_ends_when_none_left():
    deck = make_deck(2, 3, [[5, 6, 7], [1, 9, 4]], [2, 3, 4, 9, 9, 9, W, 10, 10])
    g = Game(deck, num_players=2, stock_size=3, must_play=False)
    assert g.s.current == 1 and g.s.turn == 1
    g.step(stock_play(0))  # then 9 and stacks of 9: no play left, the turn ends by itself
    assert g.s.current == 0 and g.s.turn == 2


def test_must_play_on_never_offers_end_turn():
    g = Game(seed=3, num_players=3)
    for _ in range(50):
        if g.s.status:
            break
        legal = g.legal()
        assert legal and END not in legal
        g.step(legal[0])


# ------------------------------------------------------------------------------------------------
# empty draw pile


def recycle_deck(ss=45):
    # seat 0's stock runs 1..10 then a 7; the draw pile holds only 96 - 2*ss cards
    stock0 = list(range(1, 11)) + [7]
    return make_deck(2, ss, [stock0, [5]], [9, 9, 9, 8, 8, 8])


def test_completed_stack_becomes_the_new_draw_pile():
    g = Game(recycle_deck(), seed=5, num_players=2, stock_size=45)
    s = g.s
    for _ in range(9):
        g.step(stock_play(0))
    assert s.draw_len == 3 and s.done_len == 0
    g.step(stock_play(0))  # the 10: pile complete
    # seat 0 (stock 7, three 9s) and seat 1 (stock 5, three 8s) cannot play; the next deal finds an
    # empty draw pile: the completed 1..10 are shuffled into a new one
    assert s.recycles == 1 and s.done_len == 0 and s.heights.sum() == 0
    assert len(g.stack(0, 0)) >= 2  # seat 0 got a card from the new draw pile on every stack
    new = s.draw[: s.draw_len].tolist()
    for j in range(2):
        for k in range(3):
            new += g.stack(j, k)[1:]  # everything dealt after the first deal
    assert sorted(new) == list(range(1, 11))
    g.check()


def test_recycle_is_seeded():
    a = Game(recycle_deck(), seed=5, num_players=2, stock_size=45)
    b = Game(recycle_deck(), seed=5, num_players=2, stock_size=45)
    c = Game(recycle_deck(), seed=6, num_players=2, stock_size=45)
    for g in (a, b, c):
        for _ in range(10):
            g.step(stock_play(0))
    assert a.s.tobytes() == b.s.tobytes()
    order = lambda g: [g.stack(0, k) for k in range(3)] + [g.s.draw[: g.s.draw_len].tolist()]
    assert order(a) != order(c)


def test_fewer_cards_dealt_then_stall_draw():
    deck = make_deck(2, 47, [[5], [6]], [9, 9])
    for rounds, turns in [(2, 4), (1, 2), (3, 6)]:
        g = Game(deck, num_players=2, stock_size=47, stall_rounds=rounds)
        s = g.s
        assert [len(g.stack(0, k)) for k in range(3)] == [1, 1, 0]  # only two cards were left
        assert [len(g.stack(1, k)) for k in range(3)] == [0, 0, 0]
        assert s.status == 1 and s.winner == -1 and s.turn == turns
        assert s.reward.tolist() == [0, 0, 0, 0]
        assert g.legal() == []
        assert GAME.result(s, g.rules)["outcome"] == "draw"


def test_stall_counter_resets_after_a_play():
    # seat 1 can play its stock 1 at its first turn; the draw pile is already empty then
    deck = make_deck(2, 47, [[5], [1, 9]], [9, 9])
    g = Game(deck, num_players=2, stock_size=47, stall_rounds=1)
    s = g.s
    assert s.current == 1 and s.idle == 1
    g.step(stock_play(0))  # then stock 9: nothing: turn over (played) -> idle back to 0
    # seat 0 (idle 1), seat 1 (idle 2 = 1 round of 2 players) -> draw
    assert s.status == 1 and s.turn == 4 and s.winner == -1


def test_recycle_build_piles_option():
    stock0 = [1, 2, 3, 9]
    deck = make_deck(2, 47, [stock0, [6]], [8, 8])
    g = Game(deck, seed=1, num_players=2, stock_size=47, recycle_build_piles=True)
    s = g.s
    g.step(stock_play(0), stock_play(0), stock_play(0))
    # seat 0 is stuck (stock 9, stacks 8 8); seat 1's deal: no draw pile, no completed pile ->
    # the 1 and 2 under pile 0's top 3 become the new draw pile
    assert s.recycles == 1
    assert s.heights[0] == 3 and s.bcounts[0] == 1 and s.builds[0, 0] == 3
    assert s.current == 1
    assert sorted(g.stack(1, 0) + g.stack(1, 1)) == [1, 2] and g.stack(1, 2) == []
    # without the option seat 1 gets nothing and the game stalls
    g2 = Game(deck, seed=1, num_players=2, stock_size=47)
    g2.step(stock_play(0), stock_play(0), stock_play(0))
    assert g2.s.recycles == 0 and g2.s.status == 1 and g2.s.winner == -1


# ------------------------------------------------------------------------------------------------
# caps, first player


def test_max_turns_truncates():
    deck = make_deck(2, 3, [[5, 6, 7], [8, 9, 4]], [1, 2, 3, 4, W, 10])
    g = Game(deck, num_players=2, stock_size=3, must_play=False, max_turns=2)
    g.step(END)
    assert g.s.status == 0
    g.step(END)
    assert g.s.status == 2 and g.s.turn == 2 and g.s.reward.tolist() == [0, 0, 0, 0]
    assert g.legal() == []
    assert GAME.result(g.s, g.rules)["outcome"] == "truncated"


def test_first_player():
    deck = make_deck(3, 2, [[W], [W], [W]], [])
    assert Game(deck, num_players=3, stock_size=2, first_player=2).s.current == 2
    seen = {int(Game(deck, seed=k, num_players=3, stock_size=2, first_player="random").s.current)
            for k in range(40)}
    assert seen == {0, 1, 2}
    assert Game(deck, seed=7, num_players=3, stock_size=2, first_player="random").s.current == \
        Game(deck, seed=7, num_players=3, stock_size=2, first_player="random").s.current


# ------------------------------------------------------------------------------------------------
# options and bad input


@pytest.mark.parametrize("opts,word", [
    ({"num_players": 1}, "num_players"),
    ({"num_players": 5}, "num_players"),
    ({"num_players": 2.0}, "num_players"),
    ({"stock_size": 0}, "stock_size"),
    ({"num_players": 2, "stock_size": 49}, "stock_size"),
    ({"num_players": 4, "stock_size": 25}, "stock_size"),
    ({"must_play": "yes"}, "must_play"),
    ({"recycle_build_piles": 1}, "recycle_build_piles"),
    ({"stall_rounds": 0}, "stall_rounds"),
    ({"first_player": 2}, "first_player"),
    ({"first_player": "youngest"}, "first_player"),
    ({"max_turns": 0}, "max_turns"),
    ({"reward": "points"}, "reward"),
    ({"teams": True}, "unknown option"),
])
def test_bad_options(opts, word):
    with pytest.raises(ValueError, match=word):
        GAME.make_rules(**opts)


def test_score_reward_refused_clearly():
    with pytest.raises(ValueError, match="no scoring"):
        GAME.make_rules(reward="score")


def test_defaults_and_params():
    r = JuniorRules()
    assert (r.num_players, r.stock_size, r.must_play, r.recycle_build_piles, r.stall_rounds,
            r.first_player, r.reward) == (2, 10, True, False, 2, 0, "win")
    assert GAME.make_rules(num_players=4, stock_size=24).stock_size == 24


@pytest.mark.parametrize("deck", [[1, 2, 3], list(FULL_DECK[:-1]) + [11], list(FULL_DECK[1:]) + [1],
                                  ["a"] * 96])
def test_bad_stacked_deck(deck):
    with pytest.raises(ValueError, match="deck"):
        GAME.check_deck(deck)


def test_action_words():
    assert action_to_str(0) == "play stock top onto build pile 0"
    assert action_to_str(stack_play(2, 3)) == "play top of hand stack 2 onto build pile 3"
    assert action_to_str(16) == "end turn"
    with pytest.raises(ValueError):
        action_to_str(17)


# ------------------------------------------------------------------------------------------------
# observations


def test_vector_observation_fields():
    deck = make_deck(3, 3, [[5, 6, 7], [8, 9, 4], [W, 1, 1]], [1, 2, 3, 2, 4, 10, 10, 10, 10, W, 10, 10])
    g = Game(deck, num_players=3, stock_size=3, must_play=False)
    g.step(stack_play(0, 2), END)  # 1 on pile 2; seat 1 gets 2 4 10
    o = g.obs(1)  # seat 1's view: seat 1, seat 2, seat 0
    assert o["stock_top"].reshape(3, 11).argmax(1).tolist() == [8, W, 5]
    assert o["stock_size"].tolist() == [3, 3, 3]
    tops = o["stack_top"].reshape(3, 3, 11)
    assert tops[2].argmax(1).tolist() == [0, 2, 3] and tops[2, 0].sum() == 0  # seat 0: empty, 2, 3
    assert tops[0].argmax(1).tolist() == [2, 4, 10]
    assert o["build_next"].reshape(4, 10).argmax(1).tolist() == [0, 0, 1, 0]  # pile 2 needs a 2
    assert o["build_height"].tolist() == [0, 0, 1, 0]
    assert o["draw_size"][0] == 96 - 9 - 6 and o["completed_size"][0] == 0
    # hidden: stocks under the tops (6 7, 9 4, 1 1) + the draw pile
    want = np.bincount(g.s.draw[: g.s.draw_len], minlength=11) + np.bincount([6, 7, 9, 4, 1, 1], minlength=11)
    assert o["hidden_counts"].tolist() == want.tolist()
    g.step(END, END)  # seat 1 ends; seat 2 gets three 10s and ends; seat 0 gets W 10 10
    o = g.obs(0)
    under = o["stack_under"].reshape(3, 3, 11)
    assert under[0, 1].tolist() == np.bincount([2], minlength=11).tolist()
    assert under[0, 0].sum() == 0  # stack 0 holds one card: nothing under it
    # every field within its bounds
    lo, hi = GAME.encoders["vector"].bounds(g.rules)
    for seat in range(3):
        flat = np.concatenate([g.obs(seat)[f.name] for f in VECTOR.fields(g.rules)])
        assert ((flat >= lo) & (flat <= hi)).all()


def test_dict_and_state_and_render():
    g = Game(seed=11, num_players=4)
    for _ in range(20):
        if g.s.status:
            break
        g.step(g.legal()[-1])
    enc = GAME.encoders["dict"]
    d = enc.encode(g.s, g.rules, 2)
    assert enc.space(g.rules).contains(d)
    v = g.obs(2)
    assert d["stock_size"].tolist() == v["stock_size"].tolist()
    assert d["hidden_counts"].tolist() == v["hidden_counts"].tolist()
    size = GAME.state_size(g.rules)
    out = np.zeros(size, np.float32)
    GAME.state_vector(g.s, g.p, out)
    assert size == sum(f.size for f in STATE.fields(g.rules))
    text = GAME.render_ansi(g.s, g.rules)
    assert "build piles" in text and "##" in text and "player_3" in text


def test_no_leak_redeal():
    rng = np.random.default_rng(0)
    for seed in range(6):
        g = Game(seed=seed, num_players=2 + seed % 3, must_play=bool(seed % 2))
        for _ in range(25):
            if g.s.status:
                break
            g.step(g.legal()[rng.integers(len(g.legal()))])
        r2 = redeal(GAME, g.rules, g.s, 0, rng)
        assert sorted(GAME.cards_of(r2, g.rules).tolist()) == sorted(FULL_DECK.tolist())
        enc = GAME.encoders["vector"]
        for seat in range(g.s.num_players):
            a = np.zeros(enc.size(g.rules), np.float32)
            b = a.copy()
            enc.kernel(g.s, g.p, seat, a)
            enc.kernel(r2, g.p, seat, b)
            assert (a == b).all()


# ------------------------------------------------------------------------------------------------
# bots


def bot(name, g):
    g.legal()
    return int(GAME.bot(name)(g.s, g.p, g.mask))


def test_greedy_plays_stock_first_then_chains_to_it():
    deck = make_deck(2, 3, [[1, 3, 9], [8, 8, 8]], [1, 2, W])
    g = Game(deck, num_players=2, stock_size=3)
    assert bot("greedy", g) in (0, 1, 2, 3)
    g.step(stock_play(0))
    # stock 3 on a pile at 1: the 2 from stack 1 reaches it (no wild spent)
    assert bot("greedy", g) == stack_play(1, 0)
    g.step(stack_play(1, 0))
    assert bot("greedy", g) == stock_play(0)


def test_greedy_prefers_numbers_to_wilds_in_chains():
    deck = make_deck(2, 3, [[3, 9, 9], [8, 8, 8]], [W, 1, 2])
    g = Game(deck, num_players=2, stock_size=3)
    assert bot("greedy", g) in [stack_play(1, b) for b in range(4)]


def test_greedy_ends_turn_rather_than_feed_next_stock():
    deck = make_deck(2, 3, [[9, 9, 9], [2, 8, 8]], [1, 10, 10])
    g = Game(deck, num_players=2, stock_size=3, must_play=False)
    assert bot("greedy", g) == END
    g = Game(deck, num_players=2, stock_size=3, must_play=True)
    assert bot("greedy", g) in [stack_play(0, b) for b in range(4)]


def test_bots_always_legal_and_greedy_beats_random():
    for opts in ({"num_players": 3}, {"num_players": 2, "must_play": False, "recycle_build_piles": True}):
        g = Game(seed=1, **opts)
        while not g.s.status:
            for name in ("random", "greedy"):
                assert bot(name, g) in g.legal()
            g.step(bot("greedy" if g.s.current == 0 else "random", g))
    res = eval_match("skipbo_junior", "greedy", "random", games=400, seed=123)
    assert res["a_win_rate"] > 0.7, res


@pytest.mark.subprocess
def test_no_jit_mode_runs():
    code = (
        "import numpy as np\n"
        "from cardgym.games.skipbo_junior import GAME\n"
        "r = GAME.make_rules(num_players=3, must_play=False); p = r.params()\n"
        "s = np.zeros(1, GAME.state_dtype).view(np.recarray)[0]; m = np.zeros(17, np.int8)\n"
        "o = np.zeros(GAME.encoders['vector'].size(r), np.float32)\n"
        "GAME.reset(s, p, 4, np.zeros(0, np.int8), 0)\n"
        "while s.status == 0:\n"
        "    GAME.legal(s, p, m); GAME.encoders['vector'].kernel(s, p, int(s.current), o)\n"
        "    GAME.apply(s, p, GAME.bots['greedy'](s, p, m))\n"
        "print(GAME.result(s, r)['outcome'])\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() in ("win", "draw", "truncated")
