"""Skyjo encoders, text views, extras and bots."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_skyjo_rules import DRAW, TAKE, Game, R, stack

from cardgym.games.skyjo import GAME
from cardgym.eval import match
from cardgym.games.skyjo.rules import DECK_COUNTS, HIDDEN, PH_DRAWN
from cardgym.games.skyjo.observe import D_HIDDEN, D_NONE, D_REMOVED
from redeal import redeal

VEC = GAME.encoders["vector"]
compiled_only = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="too slow as plain Python"
)


def obs(g, seat):
    out = np.full(VEC.size(g.rules), -99.0, np.float32)
    VEC.kernel(g.r, g.p, seat, out)
    return out


def three_players():
    grids = [
        [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4],
        [5, 9, 0, 0, -1, 1, -1, 1, 2, 3, 2, 3],
        [-2, 4, 0, 0, -1, 1, -1, 1, 2, 3, 12, 3],
    ]
    g = Game(stack(3, grids, 7, draw=[11]), num_players=3)
    g.step(0, 1, 0, 1, 0, 10)  # seat 1 (14) starts
    return g


def test_vector_layout_is_seated_relative_to_the_observer():
    g = three_players()
    sl = VEC.offsets(g.rules)
    o = obs(g, 1)
    grids = o[sl["grids"]].reshape(3, 12, 17)
    # relative seat 0 = seat 1: positions 0, 1 show 5 and 9, the rest face down
    assert grids[0, 0, 2 + 2 + 5] == 1 and grids[0, 1, 4 + 9] == 1 and grids[0, 2, 0] == 1
    # relative seat 1 = seat 2 (shows -2 at 0 and 12 at 10); relative seat 2 = seat 0 (1, 2)
    assert grids[1, 0, 4 - 2] == 1 and grids[1, 10, 4 + 12] == 1 and grids[1, 1, 0] == 1
    assert grids[2, 0, 4 + 1] == 1 and grids[2, 1, 4 + 2] == 1
    assert (grids.sum(axis=2) == 1).all()
    assert o[sl["discard_top"]].tolist() == [1.0 if k == 7 + 2 else 0.0 for k in range(16)]
    assert o[sl["held"]][15] == 1 and o[sl["held"]].sum() == 1
    assert o[sl["phase"]].tolist() == [0, 1, 0, 0, 0]
    assert o[sl["current"]].tolist() == [1, 0, 0]  # seat 1 to act = the observer
    assert obs(g, 0)[sl["current"]].tolist() == [0, 1, 0]
    assert o[sl["goer"]].tolist() == [0, 0, 0]
    assert o[sl["draw_size"]][0] == pytest.approx((150 - 37) / 150)
    unseen = DECK_COUNTS.astype(np.int64).copy()
    for v in [7, 1, 2, 5, 9, -2, 12]:
        unseen[v + 2] -= 1
    assert np.allclose(o[sl["unseen"]] * 15, unseen)
    # after drawing, the held card is shown to everybody and leaves the unseen counts
    g.step(DRAW)
    for seat in range(3):
        o2 = obs(g, seat)
        assert o2[sl["held"]][11 + 2] == 1 and o2[sl["phase"]][PH_DRAWN] == 1
        assert o2[sl["unseen"]][11 + 2] * 15 == pytest.approx(unseen[13] - 1)


def test_vector_values_stay_in_the_layout_bounds_over_random_games():
    for n, opts in [(2, {}), (5, {"setup_reveal": "random", "reward": "score"})]:
        for seed in range(3):
            g = Game(seed=seed, num_players=n, **opts)
            lo, hi = VEC.bounds(g.rules)
            bot = GAME.bots["random" if seed % 2 else "greedy"]
            while g.r.status == 0:
                g.legal()
                for seat in range(n):
                    o = obs(g, seat)
                    assert (o >= lo).all() and (o <= hi).all()
                g.step(int(bot(g.r, g.p, g.mask)))
            assert GAME.result(g.r, g.rules)["end"] == "game over"


def test_state_vector_has_the_full_information():
    g = three_players()
    size = GAME.state_size(g.rules)
    out = np.zeros(size, np.float32)
    GAME.state_vector(g.r, g.p, out)
    s = out[: 3 * 12 * 17].reshape(3, 12, 17)
    for i in range(3):
        for pos in range(12):
            assert s[i, pos, 4 + g.r.grid[i, pos]] == 1  # true values, also face down
            assert s[i, pos, 0] == (g.r.up[i, pos] == HIDDEN)
    assert out[-16 + 11 + 2] == 1  # top of the draw pile


def test_dict_encoder():
    g = three_players()
    space = GAME.encoders["dict"].space(g.rules)
    d = GAME.encoders["dict"].encode(g.r, g.rules, 2)
    assert space.contains(d)
    assert d["grids"][0, 0].tolist() == [-2, D_HIDDEN, D_HIDDEN, D_HIDDEN]
    assert d["grids"][0, 2, 2] == 12
    assert d["grids"][1, 0, :2].tolist() == [1, 2]  # seat 0 is the next seat after seat 2
    assert d["discard_top"] == 7 and d["held"] == D_NONE and d["current"] == 2 and d["goer"] == 3
    assert d["draw_size"] == 113 and d["unseen"].sum() == 150 - 7
    g.step(TAKE, R(2))
    d = GAME.encoders["dict"].encode(g.r, g.rules, 1)
    assert d["grids"][0, 0, 2] == 7 and d["discard_top"] == 0


def test_dict_encoder_removed_slots():
    g0 = [7, 1, 2, 3, 7, 4, 1, 2, 9, 3, 4, 1]
    g1 = [9, 1, 2, 3, 4, 2, 3, 1, 4, 3, 1, 6]
    g = Game(stack(2, [g0, g1], 7), num_players=2)
    g.step(0, 4, 0, 1, TAKE, R(8))
    d = GAME.encoders["dict"].encode(g.r, g.rules, 0)
    assert d["grids"][0, :, 0].tolist() == [D_REMOVED] * 3


def test_render_shows_only_public_cards():
    g = three_players()
    text = GAME.render_ansi(g.r, g.rules)
    assert text.count("##") == int(sum(g.r.hidden[:3]))
    assert "player_1" in text and "discard: 7" in text
    g.step(DRAW)
    assert "held card: 11" in GAME.render_ansi(g.r, g.rules)


def test_a_redeal_keeps_every_observation():
    rng = np.random.default_rng(0)
    g = Game(seed=4, num_players=3, setup_reveal="random")
    for _ in range(15):
        g.legal()
        g.step(int(GAME.bots["greedy"](g.r, g.p, g.mask)))
    changed = False
    for seat in range(3):
        other = redeal(GAME, g.rules, g.r, seat, rng)
        assert sorted(GAME.cards_of(other, g.rules).tolist()) == sorted(GAME.cards_of(g.r, g.rules).tolist())
        for s2 in range(3):
            o2 = np.zeros(VEC.size(g.rules), np.float32)
            VEC.kernel(other, g.p, s2, o2)
            assert np.array_equal(o2, obs(g, s2))
        changed |= not np.array_equal(other["grid"], g.r.grid)
        assert np.array_equal(other["up"], g.r.up)
    assert changed


# --------------------------------------------------------------------------------------------- bots


def test_greedy_never_plays_illegal_and_never_reads_hidden_cards():
    for seed in range(4):
        g = Game(seed=seed, num_players=4)
        steps = 0
        while g.r.status == 0 and steps < 400:
            g.legal()
            # the same public state with re-dealt hidden cards (and the same bot_rng) gets the same decision
            other = np.zeros(1, GAME.state_dtype).view(np.recarray)
            other[0] = redeal(GAME, g.rules, g.r, int(g.r.current), np.random.default_rng(steps))
            a = int(GAME.bots["greedy"](g.r, g.p, g.mask))
            assert g.mask[a] == 1
            assert int(GAME.bots["greedy"](other[0], g.p, g.mask)) == a
            g.step(a)
            steps += 1


@compiled_only
def test_greedy_beats_random():
    out = match("skyjo", "greedy", "random", games=200, num_players=2, seed=123)
    assert out["a_win_rate"] >= 0.95, out
    out = match("skyjo", "greedy", "random", games=60, num_players=5, seed=7)
    assert out["wins"] / out["games"] >= 0.9, out  # one greedy seat against four random ones
