"""Skyjo rules played out from stacked decks, straight through the compiled kernels."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardgym.games.skyjo import GAME
from cardgym.games.skyjo.rules import (
    DECK,
    DECK_COUNTS,
    END_GAME,
    END_STALL,
    END_TRUNCATED,
    HIDDEN,
    PH_DRAWN,
    PH_OVER,
    PH_SETUP,
    PH_START,
    PH_TAKEN,
    REMOVED,
    UP,
)
from cardgym.games.skyjo.invariants import cards_of as cards

DRAW, TAKE = 24, 25


def R(p):  # replace position p
    return 12 + p


def stack(n, grids, discard, draw=(), seed=0):
    """A full deck: ``grids[i][p]`` for seat i position p, the discard card, then the draw pile (top
    first); every other card comes in a fixed pseudo-random order."""
    pool = Counter(DECK.tolist())
    deck = [None] * 150
    for i, g in enumerate(grids):
        assert len(g) == 12
        for pos, v in enumerate(g):
            deck[pos * n + i] = v
    deck[12 * n] = discard
    for k, v in enumerate(draw):
        deck[12 * n + 1 + k] = v
    for v in deck:
        if v is not None:
            pool[v] -= 1
    assert min(pool.values()) >= 0, "stacked deck uses too many cards of a value"
    rest = list(np.random.default_rng(seed).permutation(sorted(pool.elements())))
    return [v if v is not None else int(rest.pop()) for v in deck]


class Game:
    """A record plus helpers: step() checks legality and the invariants after every action."""

    def __init__(self, deck=None, seed=0, **options):
        self.rules = GAME.make_rules(**options)
        self.p = self.rules.params()
        self.st = np.zeros(1, GAME.state_dtype).view(np.recarray)
        self.r = self.st[0]
        self.mask = np.zeros(26, np.int8)
        d = np.asarray(deck if deck is not None else [], np.int8)
        GAME.reset(self.r, self.p, seed, d, len(d))
        self.check()

    @property
    def n(self):
        return self.rules.num_players

    def legal(self):
        GAME.legal(self.r, self.p, self.mask)
        return set(np.flatnonzero(self.mask).tolist())

    def step(self, *actions):
        for a in actions:
            assert a in self.legal(), f"action {a} not legal; legal {sorted(self.legal())}"
            GAME.apply(self.r, self.p, a)
            self.check()
        return self

    def check(self):
        r = self.r
        assert sorted(cards(r).tolist()) == sorted(DECK.tolist())
        n = self.n
        seen = np.zeros(15, np.int64)
        for i in range(n):
            assert r.hidden[i] == (r.up[i, :] == HIDDEN).sum()
            for pos in range(12):
                if r.up[i, pos] == UP:
                    seen[r.grid[i, pos] + 2] += 1
        for k in range(r.discard_len):
            seen[r.discard[k] + 2] += 1
        if r.phase in (PH_DRAWN, PH_TAKEN):
            seen[r.held + 2] += 1
        assert seen.tolist() == r.seen.tolist()

    def grid(self, seat):
        return [int(x) for x in self.r.grid[seat]]

    def up(self, seat):
        return [int(x) for x in self.r.up[seat]]

    def discard(self):
        return [int(x) for x in self.r.discard[: self.r.discard_len]]

    def top_of_draw(self, k=1):
        dl = int(self.r.draw_len)
        return [int(self.r.draw[dl - 1 - j]) for j in range(k)]

    def rewards(self):
        return [float(x) for x in self.r.reward[: self.n]]


# ----------------------------------------------------------------------------------------- dealing


@pytest.mark.parametrize("n", [2, 3, 8])
def test_stacked_deal_positions_discard_and_draw_pile(n):
    deck = [int(x) for x in np.random.default_rng(n).permutation(DECK)]
    g = Game(deck, num_players=n)
    r = g.r
    for i in range(n):
        assert g.grid(i) == [deck[p * n + i] for p in range(12)]
        assert g.up(i) == [HIDDEN] * 12
        assert r.hidden[i] == 12
    assert g.discard() == [deck[12 * n]]
    assert r.draw_len == 150 - 12 * n - 1
    assert g.top_of_draw(3) == deck[12 * n + 1: 12 * n + 4]  # front of the list = top
    assert r.phase == PH_SETUP and r.current == 0 and r.status == 0
    # unseen counts start as the deck minus the discard card
    assert r.seen.sum() == 1 and r.seen[deck[12 * n] + 2] == 1


def test_setup_choose_in_seat_order_and_highest_sum_starts():
    n = 3
    grids = [[1] * 12, [5, 9] + [0] * 10, [9, 4] + [0] * 10]
    grids[0] = [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4]
    grids[1] = [5, 9, 0, 0, -1, 1, -1, 1, 2, 3, 2, 3]
    grids[2] = [9, 4, 0, 0, -1, 1, -1, 1, 2, 3, 2, 3]
    g = Game(stack(n, grids, 7), num_players=n)
    assert g.legal() == set(range(12))
    g.step(3)
    assert g.r.current == 0 and g.legal() == set(range(12)) - {3}
    g.step(7)  # seat 0 shows 4 + 8 = 12
    assert g.r.current == 1 and g.r.phase == PH_SETUP
    g.step(0, 1)  # seat 1 shows 14
    assert g.r.current == 2
    g.step(1, 0)  # seat 2 shows 13
    assert g.r.phase == PH_START and g.r.current == 1
    assert g.legal() == {DRAW, TAKE}
    assert g.up(0)[3] == UP and g.up(0)[7] == UP and g.r.hidden[0] == 10


def test_starting_player_tie_goes_to_lowest_seat():
    n = 3
    grids = [[1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4],
             [6, 6, 0, 0, -1, 1, -1, 1, 2, 3, 2, 3],
             [8, 4, 0, 0, -1, 1, -1, 1, 2, 3, 2, 3]]
    g = Game(stack(n, grids, 7), num_players=n)
    g.step(0, 1, 0, 1, 0, 1)  # sums 3, 12, 12
    assert g.r.current == 1


def test_setup_random_reveals_two_per_seat_and_picks_the_starter():
    for seed in range(20):
        g = Game(seed=seed, num_players=4, setup_reveal="random")
        r = g.r
        assert r.phase == PH_START
        sums = []
        for i in range(4):
            assert r.hidden[i] == 10
            sums.append(sum(g.grid(i)[p] for p in range(12) if g.up(i)[p] == UP))
        assert r.current == int(np.argmax(sums))  # argmax = first (lowest seat) on ties
    # the random reveals come from the seeded game generator
    a, b = Game(seed=3, num_players=4, setup_reveal="random"), Game(seed=3, num_players=4, setup_reveal="random")
    assert a.up(2) == b.up(2)


# ------------------------------------------------------------------------------------------- turns

G0 = [4, 3, 1, 2, 2, 1, 3, 4, 1, 2, 4, 3]  # no column triplet; sum 30


def two_player(grid1, discard=7, draw=(), **opts):
    """Seat 0 = G0, seat 1 = grid1; both reveal positions 0 and 1."""
    g = Game(stack(2, [G0, grid1], discard, draw), num_players=2, **opts)
    g.step(0, 1, 0, 1)
    return g


G1 = [9, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, 6]


def test_draw_then_replace_or_discard_and_reveal():
    g = two_player(G1, discard=7, draw=[11, 10, 12])
    assert g.r.current == 1  # 9 + 1 > 4 + 3
    g.step(DRAW)
    assert g.r.phase == PH_DRAWN and g.r.held == 11
    # replace any position; discard-and-reveal only face-down positions
    assert g.legal() == set(range(12, 24)) | set(range(2, 12))
    g.step(R(5))  # replace hidden position 5 (a 2) with the 11
    assert g.grid(1)[5] == 11 and g.up(1)[5] == UP and g.r.hidden[1] == 9
    assert g.discard() == [7, 2]  # the replaced card goes face up on the discard pile
    assert g.r.current == 0 and g.r.phase == PH_START
    g.step(DRAW)
    assert g.r.held == 10
    g.step(6)  # discard the 10, reveal position 6
    assert g.discard() == [7, 2, 10] and g.up(0)[6] == UP and g.r.hidden[0] == 9
    assert g.r.turn == 2
    g.step(DRAW, R(0))  # replace a face-up card: the hidden count stays
    assert g.grid(1)[0] == 12 and g.discard()[-1] == 9 and g.r.hidden[1] == 9


def test_take_the_discard_must_replace():
    g = two_player(G1, discard=-2)
    g.step(TAKE)
    assert g.r.phase == PH_TAKEN and g.r.held == -2 and g.discard() == []
    assert g.legal() == set(range(12, 24))  # no discard-and-reveal after taking
    g.step(R(11))
    assert g.grid(1)[11] == -2 and g.discard() == [6]


def test_column_of_three_is_removed_after_the_replaced_card():
    g0 = [7, 1, 2, 3, 7, 4, 1, 2, 9, 3, 4, 1]
    g = Game(stack(2, [g0, G1], 7), num_players=2)
    g.step(0, 4, 0, 1)  # seat 0 shows 7, 7 (14) and starts
    assert g.r.current == 0
    g.step(TAKE, R(8))  # the 7 replaces the hidden 9 at the bottom of column 0
    assert g.up(0)[0] == REMOVED and g.up(0)[4] == REMOVED and g.up(0)[8] == REMOVED
    assert g.discard() == [9, 7, 7, 7]  # replaced card first, then the triplet on top
    assert g.r.hidden[0] == 9
    # removed positions are gone from the action space
    g.step(DRAW, R(1))  # seat 1
    g.step(DRAW)
    legal = g.legal()
    assert not ({0, 4, 8, 12, 16, 20} & legal) and R(1) in legal


def test_three_minus_twos_are_removed_too_and_reveal_completes_a_column():
    g0 = [1, -2, 2, 3, 4, -2, 1, 2, 3, -2, 4, 1]
    g = Game(stack(2, [g0, G1], 5, draw=[8]), num_players=2)
    g.step(1, 5, 0, 1)  # seat 0 shows -4, seat 1 shows 10 and starts
    g.step(TAKE, R(1))  # seat 1 takes the 5
    g.step(DRAW, 9)  # seat 0 discards the 8 and reveals the third -2 of column 1
    assert [g.up(0)[p] for p in (1, 5, 9)] == [REMOVED] * 3
    assert g.discard()[-4:] == [8, -2, -2, -2]


def test_rows_do_not_count():
    g0 = [5, 5, 5, 5, 1, 2, 3, 4, 2, 3, 4, 1]
    g = Game(stack(2, [g0, G1], 0), num_players=2)
    g.step(0, 1, 0, 1)  # 10 and 10: the tie goes to seat 0
    g.step(DRAW, 2, TAKE, R(5), DRAW, 3)  # seat 0 row 0 = 5 5 5 5 face up
    assert g.up(0)[:4] == [UP] * 4


# ---------------------------------------------------------------------------- end of round, scoring


def play_round(g, goer=0, other_pos=0):
    """Seat ``goer`` draws and reveals its face-down cards in order; everybody else takes the discard
    and puts it at ``other_pos`` (face up, no progress). Returns the number of turns played."""
    turns = 0
    start_round = int(g.r.round_no)
    while g.r.status == 0 and g.r.round_no == start_round:
        me = int(g.r.current)
        if me == goer:
            pos = g.up(me).index(HIDDEN)
            g.step(DRAW, pos)
        else:
            g.step(TAKE, R(other_pos))
        turns += 1
    return turns


def test_final_lap_every_other_player_exactly_one_more_turn():
    n = 3
    grids = [G0, [9, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, 6], [8, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, 6]]
    g = Game(stack(n, grids, 10, draw=[0] * 10), num_players=n, episode="round")
    g.step(0, 1, 0, 1, 0, 1)
    assert g.r.current == 1  # 10 > 9 > 7
    seen_goer = False
    while g.r.status == 0:
        me = int(g.r.current)
        if me == 0:
            g.step(DRAW, g.up(0).index(HIDDEN))
            if g.r.hidden[0] == 0 and not seen_goer:
                seen_goer = True
                assert g.r.goer == 0 and g.r.final_left == 2 and g.r.current == 1
                turn_out = int(g.r.turn)
        else:
            g.step(TAKE, R(0))
    assert seen_goer
    assert g.r.turn == turn_out + 2  # seats 1 and 2, once each
    assert g.r.end_reason == END_GAME and g.r.phase == PH_OVER
    # final reveal: everything face up or removed
    for i in range(n):
        assert HIDDEN not in g.up(i)


@pytest.mark.parametrize(
    "last, seat1_score, goer_points",
    [
        (6, 30, 60),  # tie with the goer: doubled
        (5, 29, 60),  # someone lower: doubled
        (7, 31, 30),  # goer strictly lowest: not doubled
    ],
)
def test_doubling_when_the_goer_is_not_strictly_lowest(last, seat1_score, goer_points):
    # seat 1 keeps taking the discard into position 0; its final position 0 is seat 0's last draw (0)
    grid1 = [9, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, last]
    g = Game(stack(2, [G0, grid1], 0, draw=[0] * 10), num_players=2, episode="round")
    g.step(0, 1, 0, 1)
    play_round(g)
    assert g.r.status == 1 and g.r.goer == 0
    assert [int(x) for x in g.r.scores[:2]] == [goer_points, seat1_score]
    assert [int(x) for x in g.r.totals[:2]] == [goer_points, seat1_score]
    win = [1.0, -1.0] if goer_points < seat1_score else [-1.0, 1.0]
    assert g.rewards() == win


def test_zero_goer_score_is_not_doubled_and_ties_share_the_win():
    g0 = [1, -1, 2, -2, -1, 1, -2, 2, 0, 0, 0, 0]  # sum 0; a row of 0s does not count
    grid1 = [9, 3, -2, 1, -1, 2, -1, 0, 1, -1, -1, -2]  # position 0 ends as the last draw (1): 0
    g = Game(stack(2, [g0, grid1], 6, draw=[6] * 9 + [1]), num_players=2, episode="round")
    g.step(0, 1, 0, 1)
    play_round(g)
    assert g.r.goer == 0 and g.up(0)[8:] == [UP] * 4
    assert [int(x) for x in g.r.scores[:2]] == [0, 0]
    assert g.rewards() == [1.0, 1.0]
    assert GAME.result(g.r, g.rules)["winners"] == [0, 1]


def test_final_reveal_removes_columns_and_doubles_negative_never():
    g0 = [-2, -1, -1, 0, -1, 0, -2, -1, 0, -1, -1, -2]  # sum -12, no column triplet
    grid1 = [9, 1, 2, 5, 4, 2, 3, 5, 4, 3, 1, 5]  # column 3 = 5, 5, 5 stays face down until the end
    g = Game(stack(2, [g0, grid1], 7, draw=[6] * 10), num_players=2, episode="round")
    g.step(0, 1, 0, 1)
    play_round(g)
    assert g.r.goer == 0
    assert [g.up(1)[p] for p in (3, 7, 11)] == [REMOVED] * 3  # removed at the final reveal
    # seat 1: 6 (last taken) + 1 + 2 + 4 + 2 + 3 + 4 + 3 + 1 = 26 ; seat 0: -12, not doubled
    assert [int(x) for x in g.r.scores[:2]] == [-12, 26]
    assert g.discard()[-3:] == [5, 5, 5]


def test_negative_goer_not_strictly_lowest_is_not_doubled():
    g0 = [-2, -1, 0, 1, 0, -1, 1, 0, 1, 0, -1, -2]  # -4
    grid1 = [9, -2, -1, 0, -1, 0, 1, -1, 0, -2, 0, -1]  # position 0 ends as the last draw (0): -7
    g = Game(stack(2, [g0, grid1], 6, draw=[6] * 9 + [0]), num_players=2, episode="round")
    g.step(0, 1, 0, 1)
    play_round(g)
    assert g.r.goer == 0
    assert [int(x) for x in g.r.scores[:2]] == [-4, -7]
    assert g.rewards() == [-1.0, 1.0]


def test_later_rounds_start_with_the_goer_and_score_reward_each_round():
    grid1 = [9, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, 7]
    g = Game(stack(2, [G0, grid1], 0, draw=[0] * 10), num_players=2, reward="score")
    g.step(0, 1, 0, 1)
    assert g.r.current == 1  # seat 1 starts round 1
    play_round(g)
    # round 1 over: 30 vs 31, no doubling; rewards are minus the round points
    assert g.rewards() == [-30.0, -31.0]
    assert g.r.status == 0 and g.r.round_no == 1 and g.r.last_goer == 0
    assert [int(x) for x in g.r.totals[:2]] == [30, 31]
    # round 2 is shuffled with the game generator and starts with a setup phase in seat order
    assert g.r.phase == PH_SETUP and g.r.current == 0 and g.r.hidden[0] == 12 and g.r.draw_len == 125
    # make seat 1 reveal the higher sum: seat 0 still starts (it ended round 1)
    lo = np.argsort(g.grid(0))[:2]
    hi = np.argsort(g.grid(1))[-2:]
    g.step(int(lo[0]), int(lo[1]), int(hi[0]), int(hi[1]))
    assert g.r.current == 0 and g.r.phase == PH_START
    assert g.rewards() == [0.0, 0.0]


def test_game_ends_at_end_score_lowest_total_wins():
    grid1 = [9, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, 7]
    g = Game(stack(2, [G0, grid1], 0, draw=[0] * 10), num_players=2, end_score=31)
    g.step(0, 1, 0, 1)
    play_round(g)
    assert g.r.status == 1 and g.r.end_reason == END_GAME  # seat 1 reached 31
    assert g.rewards() == [1.0, -1.0]
    assert g.legal() == set()
    res = GAME.result(g.r, g.rules)
    assert res["winners"] == [0] and res["totals"] == [30, 31] and res["rounds"] == 1
    g = Game(stack(2, [G0, grid1], 0, draw=[0] * 10), num_players=2, end_score=32)
    g.step(0, 1, 0, 1)
    play_round(g)
    assert g.r.status == 0 and g.r.round_no == 1  # nobody reached 32: a second round


def test_max_rounds_plays_exactly_n_rounds_without_threshold():
    g = Game(seed=5, num_players=2, max_rounds=2, end_score=1, setup_reveal="random")
    g.step(*[])
    play_round(g)
    assert g.r.round_no == 1 and g.r.status == 0  # totals above end_score do not end the game
    play_round(g)
    assert g.r.round_no == 2 and g.r.status == 1 and g.r.end_reason == END_GAME


def test_episode_round_is_one_round():
    g = Game(seed=2, num_players=3, episode="round", setup_reveal="random")
    play_round(g, goer=int(g.r.current))
    assert g.r.status == 1 and g.r.round_no == 1
    assert sorted(g.rewards()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0])


# ------------------------------------------------------------------------------------ reshuffling


def exhaust_draw_pile(g):
    """Both seats draw and put the card on their face-up position 0 until the draw pile is empty."""
    while g.r.draw_len > 0:
        g.step(DRAW, R(0))


@pytest.mark.parametrize("mode", ["keep_top", "all_but_top_flip"])
def test_reshuffle_when_the_draw_pile_is_empty(mode):
    g = Game(seed=1, num_players=2, stall_rounds=None, reshuffle=mode)
    g.step(0, 1, 0, 1)
    exhaust_draw_pile(g)
    assert g.r.draw_len == 0 and g.r.discard_len == 126
    old = g.discard()
    assert DRAW in g.legal()
    rng_before = int(g.r.rng)
    g.step(DRAW)
    assert int(g.r.rng) != rng_before  # shuffled with the game generator
    got = Counter(g.r.draw[: g.r.draw_len].tolist()) + Counter([int(g.r.held)])
    if mode == "keep_top":
        assert g.discard() == [old[-1]]
        assert got == Counter(old[:-1])
    else:
        assert g.r.discard_len == 1
        assert got + Counter(g.discard()) == Counter(old)
    assert g.r.draw_len == 124
    # the unseen counts forget the reshuffled cards again
    unseen = DECK_COUNTS - g.r.seen
    assert unseen.sum() == 124 + int(g.r.hidden[0]) + int(g.r.hidden[1])


# --------------------------------------------------------------------------- truncation and stall


def test_max_turns_truncates():
    g = Game(seed=0, num_players=2, max_turns=3, setup_reveal="random")
    g.step(DRAW, R(0))
    g.step(TAKE, R(0))
    assert g.r.status == 0
    g.step(DRAW, 5)
    assert g.r.status == 2 and g.r.end_reason == END_TRUNCATED
    assert g.rewards() == [0.0, 0.0] and g.legal() == set()


def test_stall_guard_ends_in_a_draw():
    g = Game(seed=0, num_players=2, setup_reveal="random", stall_rounds=3)
    pos = [g.up(i).index(UP) for i in range(2)]
    for _ in range(5):
        g.step(TAKE, R(pos[int(g.r.current)]))
    assert g.r.status == 0 and g.r.stall == 5
    g.step(DRAW, g.up(int(g.r.current)).index(HIDDEN))  # a reveal resets the count
    assert g.r.stall == 0
    for _ in range(5):
        g.step(TAKE, R(pos[int(g.r.current)]))
    assert g.r.status == 0
    g.step(TAKE, R(pos[int(g.r.current)]))  # 6 = 3 rounds x 2 players without progress
    assert g.r.status == 1 and g.r.end_reason == END_STALL
    assert g.rewards() == [0.0, 0.0]
    assert GAME.result(g.r, g.rules)["winners"] == []


# ------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"setup_reveal": "peek"}, "setup_reveal"),
        ({"end_score": 0}, "end_score"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"episode": "match"}, "episode"),
        ({"reshuffle": "bottom"}, "reshuffle"),
        ({"reward": "points"}, "reward"),
        ({"max_turns": 0}, "max_turns"),
        ({"stall_rounds": -1}, "stall_rounds"),
        ({"episode": "round", "max_rounds": 3}, "max_rounds"),
        ({"colour": "red"}, "unknown option"),
    ],
)
def test_bad_options(options, words):
    with pytest.raises(ValueError, match=words):
        GAME.make_rules(**options)


def test_bad_stacked_deck_and_action_names():
    with pytest.raises(ValueError, match="permutation"):
        GAME.check_deck(list(range(150)))
    with pytest.raises(ValueError, match="permutation"):
        GAME.check_deck(DECK.tolist()[:-1])
    assert GAME.check_deck(DECK[::-1].tolist()).dtype == np.int8
    assert GAME.action_to_str(24) == "draw from the draw pile"
    assert "row 1, col 1" in GAME.action_to_str(17)
    with pytest.raises(ValueError):
        GAME.action_to_str(26)
