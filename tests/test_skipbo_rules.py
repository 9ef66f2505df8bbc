"""Skip-Bo rules played out from stacked decks (kernel level)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from skipbo_helpers import PASS, Table, W, discard, dtop, hand, make_deck, pdtop, pstock, stock

from cardgym.games.skipbo import GAME
from cardgym.games.skipbo.rules import SkipBoRules
from cardgym.games.skipbo.rules import FULL_DECK, NUM_ACTIONS, OUT_DRAW, OUT_WIN


# ----------------------------------------------------------------------------------- options/errors
@pytest.mark.parametrize(
    "opts, match",
    [
        (dict(num_players=1), "num_players"),
        (dict(num_players=7), "num_players"),
        (dict(num_players=2, teams=True), "teams"),
        (dict(num_players=3, teams=True), "teams"),
        (dict(num_players=5, teams=True), "teams"),
        (dict(num_players=2, stock_size=82), "stock_size"),
        (dict(num_players=6, stock_size=28), "stock_size"),
        (dict(stock_size=0), "stock_size"),
        (dict(stock_size="30"), "stock_size"),
        (dict(first_player=2), "first_player"),
        (dict(first_player="last"), "first_player"),
        (dict(recycle="never"), "recycle"),
        (dict(recycle_build_piles=1), "recycle_build_piles"),
        (dict(stall_rounds=-1), "stall_rounds"),
        (dict(max_turns=0), "max_turns"),
        (dict(match_target=0), "match_target"),
        (dict(stock_points="yes"), "stock_points"),
        (dict(wild_must_be_covered=None), "wild_must_be_covered"),
        (dict(build_directions="descending"), "build_directions"),
        (dict(reward="points"), "reward"),
        (dict(colour="red"), "unknown option"),
    ],
)
def test_bad_options(opts, match):
    with pytest.raises(ValueError, match=match):
        GAME.make_rules(**opts)


def test_defaults_and_stock_sizes():
    r = SkipBoRules()
    assert (r.num_players, r.stock_size, r.first_player, r.recycle) == (2, 30, 0, "when_empty")
    assert r.recycle_build_piles and r.stock_points and not r.teams and not r.wild_must_be_covered
    assert (r.stall_rounds, r.match_target, r.build_directions, r.reward) == (2, None, "ascending", "win")
    assert [SkipBoRules(num_players=n).stock_size for n in range(2, 7)] == [30, 30, 30, 20, 20]
    assert SkipBoRules(num_players=6, stock_size=27).stock_size == 27  # 6 x 27 = 162: the whole deck
    assert SkipBoRules(num_players=4, teams=True).partner(1) == 3
    assert SkipBoRules(num_players=6, teams=True).partner(4) == 1


def test_bad_deck():
    with pytest.raises(ValueError, match="permutation"):
        GAME.check_deck(list(FULL_DECK[:-1]) + [13])


def test_action_table_is_the_same_for_every_variant():
    assert NUM_ACTIONS == GAME.num_actions == 145
    names = {GAME.action_to_str(a) for a in range(145)}
    assert len(names) == 145
    assert GAME.action_to_str(0) == "play own stock top on build pile 0"
    assert GAME.action_to_str(hand(W, 2)) == "play hand wild on build pile 2"
    assert GAME.action_to_str(pdtop(3, 1)) == "play partner's discard pile 3 top on build pile 1"
    assert GAME.action_to_str(discard(W, 3)) == "discard hand wild onto own discard pile 3, ending the turn"
    with pytest.raises(ValueError):
        GAME.action_to_str(145)


# ----------------------------------------------------------------------------------------- setup
def test_stacked_deal_round_robin():
    deck = np.random.default_rng(3).permutation(FULL_DECK)
    n, size = 3, 30
    t = Table(deck=deck, num_players=n)
    s = t.s
    for i in range(n):
        assert t.stock_top(i) == deck[(size - 1) * n + i]
        assert s.stock[i, 0] == deck[i]  # the first card dealt is at the bottom
        assert s.stock_len[i] == size
    assert Counter(t.hand(0)) == Counter(dict(Counter(deck[n * size : n * size + 5].tolist())))
    assert s.hand_len[1] == s.hand_len[2] == 0
    assert s.draw_len == 162 - n * size - 5
    assert s.draw[s.draw_len - 1] == deck[n * size + 5]  # next card drawn
    assert s.current == 0 and s.status == 0
    assert t.cards_ok()


def test_first_player():
    t = Table(deck=make_deck(2, 30, [[7], [7]]), first_player=1)
    assert t.s.current == 1 and t.s.hand_len[1] == 5 and t.s.hand_len[0] == 0
    seen = {int(Table(seed=k, first_player="random").s.current) for k in range(20)}
    assert seen == {0, 1}


# ------------------------------------------------------------------------------------------ turns
def test_turn_plays_wild_and_discard():
    deck = make_deck(2, 30, [[1, 2, W, 5], [8]], draw=[3, 4, 7, 9, 9])
    t = Table(deck=deck)
    assert t.hand(0) == {3: 1, 4: 1, 7: 1, 9: 2}
    legal = t.legal()
    assert {stock(b) for b in range(4)} <= legal
    assert PASS not in legal  # pass only with an empty hand
    assert hand(3, 0) not in legal  # no skipping
    assert not any(a in legal for a in range(14 * 4, 92))  # empty discard piles
    t.step(stock(0))
    t.step(stock(0))
    assert t.stock_top(0) == W
    assert {stock(b) for b in range(4)} <= t.legal()  # a wild goes anywhere
    t.step(hand(3, 0))
    t.step(hand(4, 0))
    t.step(stock(0))  # the wild stands for 5
    assert t.stock_top(0) == 5  # uncovered at once
    assert not any(stock(b) in t.legal() for b in range(4))  # pile 0 needs 6, the others 1
    assert list(t.s.builds[0, :5]) == [1, 2, 3, 4, 0] and t.s.heights[0] == 5
    t.step(discard(9, 2))  # ends the turn
    assert t.s.current == 1 and t.s.hand_len[1] == 5 and t.s.turn == 1
    assert list(t.s.disc[0, 2, :1]) == [9] and t.s.disc_cnt[0, 2, 9] == 1
    assert t.hand(0) == {7: 1, 9: 1}
    t.discard_any()
    assert t.s.current == 0 and t.s.hand_len[0] == 5  # drew 3 back up to 5
    assert dtop(2, 0) not in t.legal()  # pile 0 needs 6, the 9 needs nothing
    assert t.cards_ok()


def test_refill_mid_turn_and_completed_pile():
    deck = make_deck(2, 30, [[12], [12]], draw=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 11, 11, 11])
    t = Table(deck=deck)
    for v in range(1, 6):
        t.step(hand(v, 0))
    assert t.s.hand_len[0] == 5 and t.hand(0) == {6: 1, 7: 1, 8: 1, 9: 1, 10: 1}  # drew 5 at once
    for v in range(6, 11):
        t.step(hand(v, 0))
    assert t.hand(0) == {11: 4, 12: 1}
    t.step(hand(11, 0))
    t.step(hand(12, 0))  # the 12th card completes the pile
    s = t.s
    assert s.heights[0] == 0 and s.bcounts[0] == 0 and s.done_len == 12
    assert sorted(s.done[:12].tolist()) == list(range(1, 13))
    assert stock(0) not in t.legal() and t.cards_ok()  # the free place needs a 1 again; stock top is 12


def test_discard_pile_top_is_playable_next_turn():
    deck = make_deck(2, 30, [[9], [9]], draw=[1, 5, 5, 5, 5] + [12] * 5 + [6])
    t = Table(deck=deck)
    t.step(discard(1, 3))
    t.discard_any()
    assert {dtop(3, b) for b in range(4)} <= t.legal()
    t.step(dtop(3, 2))
    assert t.s.disc_len[0, 3] == 0 and t.s.heights[2] == 1 and t.s.disc_cnt[0, 3, 1] == 0


# ----------------------------------------------------------------------------------- end, scoring
@pytest.mark.parametrize("reward, stock_points, want", [
    ("win", True, [1, -1]), ("score", True, [35, 0]), ("score", False, [25, 0])])
def test_win_rewards(reward, stock_points, want):
    deck = make_deck(2, 2, [[1, 2], [7, 8]])
    t = Table(deck=deck, stock_size=2, reward=reward, stock_points=stock_points)
    r = t.step(stock(0))
    assert r.tolist() == [0, 0] and t.s.status == 0
    r = t.step(stock(0))  # last stock card: the hand ends at once
    assert r.tolist() == want
    assert t.s.status == 1 and t.s.outcome == OUT_WIN and t.legal() == set()
    res = GAME.result(t.s, t.rules)
    assert res["winners"] == [0] and res["scores"][0] == (35 if stock_points else 25)


def test_quick_variant_stock_size():
    t = Table(seed=4, num_players=3, stock_size=10)
    assert list(t.s.stock_len[:3]) == [10, 10, 10] and t.s.draw_len == 162 - 30 - 5


def test_match_one_hand_reaches_target():
    deck = make_deck(2, 1, [[1], [5]])
    t = Table(deck=deck, stock_size=1, match_target=30)
    assert t.step(stock(0)).tolist() == [1, -1]
    assert t.s.status == 1 and list(t.s.totals[:2]) == [30, 0]


def test_match_several_hands():
    deck = make_deck(2, 1, [[1], [5]])
    t = Table(deck=deck, stock_size=1, match_target=100, reward="score")
    assert t.step(stock(0)).tolist() == [30, 0]
    s = t.s
    assert s.status == 0 and s.hands == 1 and list(s.totals[:2]) == [30, 0]
    assert s.current == 1 and s.hand_len[1] == 5 and s.hand_len[0] == 0  # rotated start, new deal
    assert list(s.stock_len[:2]) == [1, 1] and s.draw_len == 162 - 2 - 5
    assert t.cards_ok()
    got = np.array([30.0, 0.0])
    hands_before = 1
    for _ in range(20000):
        if t.s.status:
            break
        got += t.bot_step("greedy")
        if t.s.hands != hands_before:  # a hand ended: points went to its winner(s)
            hands_before = int(t.s.hands)
            assert min(t.s.points[:2].tolist()) == 0
    assert t.s.status == 1
    assert got.tolist() == t.s.totals[:2].tolist()  # "score" rewards add up to the totals
    assert max(t.s.totals[:2]) >= 100
    res = GAME.result(t.s, t.rules)
    assert res["winners"] == [int(np.argmax(t.s.totals[:2]))]


# ------------------------------------------------------------------------------------------ teams
def test_teams_partner_sources_and_team_win():
    deck = make_deck(4, 2, [[1, 3], [9, 9], [2, 4], [10, 10]], draw=[6] * 5)
    t = Table(deck=deck, num_players=4, teams=True, stock_size=2, reward="score")
    legal = t.legal()
    assert stock(0) in legal and pstock(0) not in legal
    t.step(stock(0))
    assert pstock(0) in t.legal()  # the partner's stock top
    t.step(pstock(0))
    t.step(stock(0))  # own stock empty: the partner still has one card, play goes on
    assert t.s.status == 0 and t.s.stock_len[0] == 0
    r = t.step(pstock(0))  # both stocks empty: the team wins
    assert t.s.status == 1
    assert r.tolist() == [45, 0, 45, 0]  # 25 + 5 x (2 + 2) to both partners
    assert GAME.result(t.s, t.rules)["winners"] == [0, 2]


def test_teams_partner_discard_and_win_reward():
    draw = [6] * 5 + [7] * 5 + [1, 11, 11, 11, 11] + [8] * 5 + [5]
    deck = make_deck(4, 30, [[12], [12], [12], [12]], draw=draw)
    t = Table(deck=deck, num_players=4, teams=True)
    t.step(discard(6, 0))
    t.discard_any()
    t.step(discard(1, 1))  # seat 2 (partner of 0) discards its 1
    t.discard_any()
    assert t.s.current == 0
    legal = t.legal()
    assert {pdtop(1, b) for b in range(4)} <= legal
    assert not any(a in legal for a in range(pdtop(0, 0), pdtop(0, 3) + 1))  # seat 2's pile 0 is empty
    t.step(pdtop(1, 3))
    assert t.s.disc_len[2, 1] == 0 and t.s.heights[3] == 1
    # discards only go to one's own piles: 4 own piles, no other target exists in the table
    t.step(discard(6, 3))
    assert t.s.disc_len[0, 3] == 1 and t.s.disc_len[2].sum() == 0


def test_teams_win_reward_both_partners():
    deck = make_deck(6, 1, [[9], [9], [9], [1], [9], [9]])
    t = Table(deck=deck, num_players=6, teams=True, stock_size=1)
    assert pstock(0) in t.legal()  # seat 3 is seat 0's partner
    r = t.step(pstock(0))
    assert t.s.status == 0  # seat 0's own stock (a 9) is not empty yet
    assert r.tolist() == [0] * 6


def test_six_player_team_win():
    deck = make_deck(6, 1, [[2], [9], [9], [1], [9], [9]])
    t = Table(deck=deck, num_players=6, teams=True, stock_size=1)
    t.step(pstock(1))
    r = t.step(stock(1))
    assert r.tolist() == [1, -1, -1, 1, -1, -1]


# -------------------------------------------------------------------------------------- recycling
def _recycle_deck():
    # 2 x 78 stock cards: the draw pile has 6 cards; seat 0 can complete a pile from its stock
    return make_deck(2, 78, [list(range(1, 13)), [12]], draw=[10, 10, 10, 10, 10, 11])


def test_recycle_when_empty():
    t = Table(deck=_recycle_deck(), stock_size=78)
    for _ in range(12):
        t.step(stock(0))
    s = t.s
    assert s.done_len == 12 and s.draw_len == 1
    t.step(discard(10, 0))
    # seat 1 drew the 11, then the completed stack became the new draw pile
    assert s.hand_len[1] == 5 and s.hand[1, 11] >= 1
    assert s.done_len == 0 and s.draw_len == 12 - 4
    assert t.cards_ok()


def test_recycle_immediately():
    t = Table(deck=_recycle_deck(), stock_size=78, recycle="immediately")
    for _ in range(12):
        t.step(stock(0))
    s = t.s
    assert s.done_len == 0 and s.draw_len == 13
    assert s.draw[12] == 11  # the completed pile went under the draw pile
    assert sorted(s.draw[:12].tolist()) == list(range(1, 13))
    t.step(discard(10, 0))
    assert s.hand_len[1] == 5 and s.draw_len == 8 and t.cards_ok()


@pytest.mark.parametrize("on", [True, False])
def test_recycle_build_piles(on):
    deck = make_deck(2, 78, [[1, 2, 3], [12]], draw=[10, 10, 10, 10, 10, 11])
    t = Table(deck=deck, stock_size=78, recycle_build_piles=on)
    for _ in range(3):
        t.step(stock(0))
    t.step(discard(10, 0))
    s = t.s
    if on:  # the 1 and 2 under the 3 were shuffled into a new draw pile
        assert s.hand_len[1] == 3 and s.hand[1, 1] == 1 and s.hand[1, 2] == 1
        assert s.bcounts[0] == 1 and s.heights[0] == 3 and s.builds[0, 0] == 3
    else:  # fewer cards are drawn
        assert s.hand_len[1] == 1 and s.bcounts[0] == 3
    assert s.draw_len == 0 and t.cards_ok()


# ------------------------------------------------------------------------------ pass, stall, cap
def _stuck_deck():
    return make_deck(2, 81, [[5], [6]])  # the whole deck is in the stocks: nothing to draw


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_stall_draw(rounds):
    t = Table(deck=_stuck_deck(), stock_size=81, stall_rounds=rounds)
    assert t.legal() == {PASS}
    for k in range(2 * rounds - 1):
        t.step(PASS)
        assert t.s.status == 0
    assert t.step(PASS).tolist() == [0, 0]
    assert t.s.status == 1 and t.s.outcome == OUT_DRAW
    assert GAME.result(t.s, t.rules)["draw"] and GAME.result(t.s, t.rules)["winners"] == []


def test_stall_counter_restarts_after_a_build_play():
    t = Table(deck=make_deck(2, 81, [[1, 5], [6]]), stock_size=81)
    assert t.legal() == {stock(0), stock(1), stock(2), stock(3), PASS}  # plays stay legal with pass
    t.step(stock(0))
    for _ in range(4):
        t.step(PASS)
        assert t.s.status == 0
    t.step(PASS)
    assert t.s.status == 1 and t.s.outcome == OUT_DRAW


def test_stall_off_then_max_turns_truncates():
    t = Table(deck=_stuck_deck(), stock_size=81, stall_rounds=None, max_turns=7)
    for _ in range(6):
        t.step(PASS)
    assert t.s.status == 0
    assert t.step(PASS).tolist() == [0, 0]
    assert t.s.status == 2 and GAME.result(t.s, t.rules)["truncated"]


def test_stalled_hand_in_a_match_deals_a_new_hand():
    t = Table(deck=_stuck_deck(), stock_size=81, match_target=100, stall_rounds=1)
    t.step(PASS)
    t.step(PASS)
    s = t.s
    assert s.status == 0 and s.hands == 1 and s.outcome == OUT_DRAW
    assert s.current == 1 and list(s.totals[:2]) == [0, 0] and list(s.stock_len[:2]) == [81, 81]


# ----------------------------------------------------------------------------------------- variants
def test_wild_must_be_covered():
    deck = make_deck(2, 30, [[5], [12]], draw=[W, 1, 3, 9, 9])
    t = Table(deck=deck, wild_must_be_covered=True)
    assert not any(hand(W, b) in t.legal() for b in range(4))  # nothing could cover a wild on a 1-pile
    t.step(hand(1, 0))
    legal = t.legal()
    assert hand(W, 0) in legal  # the 3 in hand can cover it
    assert hand(W, 1) not in legal
    t.step(hand(W, 0))
    assert t.s.cover == 0
    assert t.legal() == {hand(3, 0)}  # the covering play is forced
    t.step(hand(3, 0))
    assert t.s.cover == -1 and discard(9, 0) in t.legal()


def test_wild_cover_ignores_card_under_stock_wild():
    deck = make_deck(2, 30, [[W, 3], [12]], draw=[1, 9, 9, 10, 10])
    t = Table(deck=deck, wild_must_be_covered=True)
    assert not any(stock(b) in t.legal() for b in range(4))
    t.step(hand(1, 0))
    assert stock(0) not in t.legal()  # the 3 under the wild is hidden: it does not count
    off = Table(deck=deck)
    off.step(hand(1, 0))
    assert stock(0) in off.legal()


def test_wild_cannot_be_a_piles_last_card():
    deck = make_deck(2, 30, [list(range(1, 12)) + [5], [12]], draw=[W, 12, 9, 9, 9])
    t = Table(deck=deck, wild_must_be_covered=True)
    for _ in range(11):
        t.step(stock(0))
    assert hand(12, 0) in t.legal() and hand(W, 0) not in t.legal()


def test_two_up_two_down():
    deck = make_deck(2, 30, [list(range(12, 0, -1)), [7]], draw=[12, 11, 1, 9, 9])
    t = Table(deck=deck, build_directions="two_up_two_down")
    legal = t.legal()
    assert {hand(1, 0), hand(1, 1), hand(12, 2), hand(12, 3), stock(2), stock(3)} <= legal
    assert hand(12, 0) not in legal and hand(1, 2) not in legal
    for _ in range(12):
        t.step(stock(2))  # 12, 11, ..., 1 completes the descending pile
    s = t.s
    assert s.heights[2] == 0 and s.done_len == 12 and s.stock_len[0] == 18
    t.step(hand(12, 3))
    assert hand(11, 3) in t.legal() and t.cards_ok()


def test_pass_needs_empty_hand_and_nothing_to_draw():
    t = Table(deck=make_deck(2, 80, [[7], [7]], draw=[9, 10]), stock_size=80)  # 2 cards to draw
    assert t.hand(0) == {9: 1, 10: 1} and PASS not in t.legal()
    t.step(discard(9, 0))
    assert t.s.current == 1 and t.s.hand_len[1] == 0 and t.legal() == {PASS}
    t.step(PASS)
    assert t.s.current == 0 and t.hand(0) == {10: 1} and PASS not in t.legal()


def test_a_turn_that_never_ends_is_truncated():
    """Recycling lets cards cycle back into the hand: a player who never discards is cut off after
    MAX_TURN_PLAYS plays in one turn (the episode is truncated)."""
    from cardgym import skipbo_v0
    from cardgym.games.skipbo.rules import MAX_TURN_PLAYS

    raw = skipbo_v0.raw_env(num_players=2)
    raw.reset(seed=3)
    for _ in range(500):
        plays = [a for a in raw.legal_actions() if a < 92]
        if plays:
            break
        raw.step(raw.bot_action("greedy"))
    assert plays, "a build play turned up"
    raw._states[0]["turn_plays"] = MAX_TURN_PLAYS - 1
    raw.step(plays[0])
    assert all(raw.truncations.values()) and not any(raw.terminations.values())
