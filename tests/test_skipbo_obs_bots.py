"""Skip-Bo encoders, bots, conservation and hidden information (kernel level)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from reference import skipbo_legal as reference_legal
from skipbo_helpers import Table, W, discard, hand, make_deck

from cardgym.games.skipbo import GAME
from cardgym.eval import match
from redeal import redeal

VARIANTS = [
    dict(),
    dict(num_players=3, stock_size=10, recycle="immediately"),
    dict(num_players=4, teams=True, stock_size=8, wild_must_be_covered=True),
    dict(num_players=6, teams=True, stock_size=5, build_directions="two_up_two_down", match_target=60,
         reward="score"),
    dict(num_players=5, recycle_build_piles=False, stall_rounds=1, stock_size=12),
]


def _play(t, bots, decisions, check):
    for k in range(decisions):
        if t.s.status:
            break
        check(t)
        t.bot_step(bots[int(t.s.current) % len(bots)])


@pytest.mark.parametrize("opts", VARIANTS)
def test_vector_layout_bounds_and_conservation(opts):
    t = Table(seed=11, **opts)
    enc = GAME.encoder("vector")
    lo, hi = enc.bounds(t.rules)
    out = np.zeros(enc.size(t.rules), np.float32)
    n = t.rules.num_players
    off = enc.offsets(t.rules)
    sv = np.zeros(GAME.state_size(t.rules), np.float32)

    def check(t):
        assert t.cards_ok()
        for seat in range(n):
            enc.kernel(t.s, t.p, seat, out)
            assert np.all(out >= lo) and np.all(out <= hi), seat
            # relative seating: block 0 is the observer
            top = t.stock_top(seat)
            block = out[off["stock_top"]][:13]
            assert (block.argmax() == top) if top is not None else not block.any()
            assert out[off["hand"]].tolist() == t.s.hand[seat].tolist()
            assert out[off["to_play"]][(int(t.s.current) - seat) % n] == 1
            if t.rules.teams:
                assert out[off["partner"]].tolist() == [1.0 if r == n // 2 else 0.0 for r in range(n)]
        GAME.state_vector(t.s, t.p, sv)

    _play(t, ["greedy", "random"], 400, check)


@pytest.mark.parametrize("opts", VARIANTS[:4])
def test_dict_encoder_matches_space(opts):
    t = Table(seed=5, **opts)
    enc = GAME.encoder("dict")
    space = enc.space(t.rules)

    def check(t):
        for seat in range(t.rules.num_players):
            obs = enc.encode(t.s, t.rules, seat)
            assert space.contains(obs), {k: v for k, v in obs.items() if not space[k].contains(v)}
        vec = np.zeros(GAME.encoder("vector").size(t.rules), np.float32)
        GAME.encoder("vector").kernel(t.s, t.p, 0, vec)
        d = enc.encode(t.s, t.rules, 0)
        assert vec[:13].tolist() == d["hand"].tolist()

    _play(t, ["greedy"], 150, check)


@pytest.mark.parametrize("opts", [VARIANTS[0], VARIANTS[2]])
def test_no_leak_of_hidden_cards(opts):
    t = Table(seed=2, **opts)
    enc = GAME.encoder("vector")
    a = np.zeros(enc.size(t.rules), np.float32)
    b = np.zeros_like(a)
    rng = np.random.default_rng(0)

    def check(t):
        for seat in range(t.rules.num_players):
            new = redeal(GAME, t.rules, t.s, seat, rng)
            enc.kernel(t.s, t.p, seat, a)
            st2 = np.zeros(1, GAME.state_dtype).view(np.recarray)
            st2[0] = new
            enc.kernel(st2[0], t.p, seat, b)
            assert np.array_equal(a, b)
            got = np.sort(GAME.cards_of(st2[0], t.rules))
            assert np.array_equal(got, np.sort(GAME.deck))

    _play(t, ["greedy", "random"], 60, check)


def test_greedy_is_legal_and_prefers_the_stock():
    deck = make_deck(2, 30, [[3], [12]], draw=[1, 2, W, 9, 9])
    t = Table(deck=deck)
    a = GAME.bot("greedy")(t.s, t.p, t.mask)
    assert a == hand(1, 0)  # the chain 1, 2 towards the stock 3, without the wild
    t.step(a)
    t.bot_step("greedy")  # the 2 (not the wild)
    assert t.s.hand[0, W] == 1 and t.s.heights.max() == 2
    t.bot_step("greedy")  # the stock 3
    assert t.s.stock_len[0] == 29


def test_greedy_keeps_wilds_and_discards_tidily():
    deck = make_deck(2, 30, [[12], [12]], draw=[W, 9, 9, 7, 11])
    t = Table(deck=deck)
    a = GAME.bot("greedy")(t.s, t.p, t.mask)
    assert a in (discard(11, d) for d in range(4))  # highest card first, never the wild
    t.step(a)


def test_greedy_beats_random():
    res = match("skipbo", "greedy", "random", games=60, seed=1)
    assert res["wins"] >= 0.9 * res["games"] and res["losses"] <= 0.05 * res["games"], res


def test_random_games_end():
    for seed in range(10):  # random players clog the table: the stall rule ends their games
        t = Table(seed=seed, num_players=3)
        while not t.s.status:
            t.bot_step("random")
        assert t.s.status == 1 and t.s.turn < 1000


def test_render_and_result():
    t = Table(seed=3, num_players=4, teams=True, match_target=500)
    text = GAME.render_ansi(t.s, t.rules)
    assert "##" in text and "build piles" in text and "partner 2" in text
    res = GAME.result(t.s, t.rules)
    assert res["winners"] == [] and res["totals"] == [0, 0, 0, 0]


@pytest.mark.subprocess
def test_python_mode_runs():
    code = (
        "from cardgym.eval import match;"
        "r = match('skipbo', 'greedy', 'random', games=2, stock_size=3);"
        "assert r['wins'] + r['losses'] + r['draws'] == 2"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=300)


@pytest.mark.parametrize("opts", VARIANTS)
def test_mask_equals_plain_python_reading_of_the_rules(opts):
    t = Table(seed=9, **opts)

    def check(t):
        want = reference_legal(t.s, t.rules)
        assert t.legal() == want and want
        assert t.s.hand_len[t.s.current] == t.s.hand[t.s.current].sum()
        assert list(t.s.disc_cnt[t.s.current].sum(axis=1)) == list(t.s.disc_len[t.s.current])

    _play(t, ["random", "greedy", "random"], 500, check)


@pytest.mark.parametrize("opts", [VARIANTS[0], VARIANTS[3]])
def test_state_vector_size(opts):
    t = Table(seed=4, **opts)
    size = GAME.state_size(t.rules)
    buf = np.full(size + 16, -7.0, np.float32)
    for _ in range(50):
        GAME.state_vector(t.s, t.p, buf[:size])
        assert np.all(buf[size:] == -7.0) and np.all(buf[:size] >= 0)
        t.bot_step("greedy")
    n = t.rules.num_players
    GAME.state_vector(t.s, t.p, buf[:size])
    per_seat = buf[: n * 144].reshape(n, 144)
    assert per_seat[:, :13].sum() == t.s.hand_len[:n].sum()  # every hand is in the full state
    assert per_seat[:, 13:26].sum() == t.s.stock_len[:n].sum()  # and every stock's contents
