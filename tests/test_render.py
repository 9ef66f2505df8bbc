"""Pictures and text views of the table (cardgym.render): shapes, every player count, hidden cards."""

from __future__ import annotations

import collections
import importlib

import numpy as np
import pytest

pytest.importorskip("PIL")

import cardgym
from cardgym import get_game, render
from cardgym.render.draw_rgb import scene_size
from cardgym.render.scene import BACK, VALUE, WILD

from conftest import GAME_NAMES  # noqa: E402

MODULES = {name: cardgym.GAMES[name].module for name in GAME_NAMES}


def play(name, moves, seed=1, **options):
    env = importlib.import_module(MODULES[name]).raw_env(**options)
    env.reset(seed=seed)
    for _ in range(moves):
        if int(env.record["status"]) != 0:
            break
        env.step(env.bot_action("random"))
    return env


def counts(scene_obj):
    return collections.Counter(c.value if c.kind == VALUE else c.kind for c in scene_obj.cards())


PLAYER_COUNTS = [
    (name, n) for name in MODULES for n in range(get_game(name).min_players, get_game(name).max_players + 1)
]


@pytest.mark.parametrize("name,n", PLAYER_COUNTS, ids=[f"{a}-{b}" for a, b in PLAYER_COUNTS])
def test_rgb_and_ansi_for_every_player_count(name, n):
    game = get_game(name)
    env = play(name, 0, num_players=n)
    size0 = scene_size(render.scene(game, env.record, env.rules))
    env = play(name, 25, num_players=n)
    img = render.rgb_array(game, env.record, env.rules)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert (img.shape[1], img.shape[0]) == size0  # frames of one game keep their size
    assert img.std() > 10  # not a blank picture
    mine = render.rgb_array(game, env.record, env.rules, viewer=n - 1)
    assert mine.shape == img.shape
    text = render.ansi(game, env.record, env.rules)
    for i in range(n):
        assert f"player_{i}" in text
    assert "(you)" not in text and "\x1b[" not in text
    seat_text = render.ansi(game, env.record, env.rules, viewer=n - 1, color=True)
    assert f"player_{n - 1} (you)" in seat_text and "\x1b[" in seat_text


def test_frame_size_is_constant_over_a_whole_game():
    game = get_game("skipbo_junior")
    env = play("skipbo_junior", 0, seed=3, num_players=3)
    sizes = set()
    while int(env.record["status"]) == 0:
        sizes.add(scene_size(render.scene(game, env.record, env.rules)))
        sizes.add(scene_size(render.scene(game, env.record, env.rules, viewer=int(env.record["current"]))))
        env.step(env.bot_action("random"))
    sizes.add(scene_size(render.scene(game, env.record, env.rules)))
    assert len(sizes) == 1


def _skipbo_public(r, n):
    """Face-up card codes a spectator sees: stock tops, every discard pile, build pile tops."""
    seen = []
    for i in range(n):
        k = int(r["stock_len"][i])
        if k:
            seen.append(int(r["stock"][i, k - 1]))
        for d in range(4):
            seen += [int(x) for x in r["disc"][i, d, : int(r["disc_len"][i, d])]]
    for b in range(4):
        c = int(r["bcounts"][b])
        if int(r["heights"][b]) and c:
            seen.append(int(r["builds"][b, c - 1]))
    return collections.Counter("wild" if x == 0 else x for x in seen)


def _hand(r, i):
    return collections.Counter(
        "wild" if code == 0 else code for code in range(13) for _ in range(int(r["hand"][i, code]))
    )


@pytest.mark.parametrize("n,teams", [(2, False), (4, True)])
def test_skipbo_public_view_shows_no_hand_and_a_seat_sees_only_its_own(n, teams):
    game = get_game("skipbo")
    env = play("skipbo", 40, num_players=n, teams=teams, stock_size=10)
    r, rules = env.record, env.rules
    assert int(r["hand_len"][:n].sum()) > 0
    public = render.scene(game, r, rules)
    faces = counts(public)
    faces.pop(BACK, None), faces.pop("empty", None)
    assert faces == _skipbo_public(r, n)
    hands = [p.cards for reg in public.players for p in reg.rows[0] if p.label == "hand"]
    for i in range(n):
        assert sum(c.kind == BACK for c in hands[i]) == int(r["hand_len"][i])
    for k in range(n):
        view = render.scene(game, r, rules, viewer=k)
        faces = counts(view)
        faces.pop(BACK, None), faces.pop("empty", None)
        assert faces == _skipbo_public(r, n) + _hand(r, k)  # own hand only, not the partner's
        assert sum(c.kind == BACK for p in view.players[k].rows[0] for c in p.cards if p.label == "hand") == 0


def test_skyjo_face_down_cards_stay_hidden_even_from_their_owner():
    game = get_game("skyjo")
    env = play("skyjo", 30, num_players=3)
    r = env.record
    for viewer in (None, 0, 1, 2):
        sc = render.scene(game, r, env.rules, viewer=viewer)
        for i, reg in enumerate(sc.players):
            backs = sum(c.kind == BACK for row in reg.rows for p in row for c in p.cards)
            assert backs == int(r["hidden"][i])
    up = np.asarray(r["up"])[:3]
    shown = collections.Counter(int(v) for v in np.asarray(r["grid"])[:3][up == 1])
    grid_values = collections.Counter(
        c.value for reg in sc.players for row in reg.rows for p in row for c in p.cards if c.kind == VALUE
    )
    assert grid_values == shown


@pytest.mark.parametrize(
    "name,options",
    [
        ("skyjo", {"num_players": 3}),
        ("skipbo", {"num_players": 3}),
        ("skipbo", {"num_players": 4, "teams": True}),
        ("skipbo_junior", {"num_players": 3}),
    ],
)
def test_pictures_do_not_depend_on_hidden_cards(name, options):
    """Re-dealing every card hidden from a seat changes no pixel of its view nor of the public view."""
    game = get_game(name)
    env = play(name, 30, seed=5, **options)
    r, rules = env.record, env.rules
    rng = np.random.default_rng(0)
    for seat in {0, int(r["current"])}:
        other = game.resample_hidden(r, rules, seat, rng)
        for viewer in (None, seat):
            a = render.rgb_array(game, r, rules, viewer=viewer)
            b = render.rgb_array(game, other, rules, viewer=viewer)
            assert np.array_equal(a, b), (seat, viewer)
            assert render.ansi(game, r, rules, viewer) == render.ansi(game, other, rules, viewer)


def test_ansi_labels():
    sk = play("skyjo", 5, num_players=2)
    t = render.ansi("skyjo", sk.record, sk.rules)
    for word in ("Skyjo", "Table", "draw:", "discard:", "held:", "total", "##"):
        assert word in t
    sb = play("skipbo", 20, num_players=2, match_target=500)
    t = render.ansi("skipbo", sb.record, sb.rules, viewer=0)
    for word in ("Skip-Bo", "Build piles", "B0:", "B3:", "draw:", "stock:", "hand:", "D0:", "D3:", "match"):
        assert word in t
    jr = play("skipbo_junior", 10, num_players=2)
    t = render.ansi("skipbo_junior", jr.record, jr.rules)
    for word in ("Skip-Bo Junior", "B0:", "stock:", "S0:", "S2:"):
        assert word in t


def test_the_seat_to_act_sees_its_playable_cards_highlighted():
    game = get_game("skipbo_junior")
    env = play("skipbo_junior", 0, num_players=2)
    r = env.record
    cur = int(r["current"])
    mask = env.action_mask() if hasattr(env, "action_mask") else None
    sc = render.scene(game, r, env.rules, viewer=cur)
    lit = [
        c
        for c in sc.players[cur].rows[0][0].cards
        + [p.cards[-1] for p in sc.players[cur].rows[0][1:] if p.cards]
        if c.highlight
    ]
    public = render.scene(game, r, env.rules)
    assert not any(c.highlight for c in public.cards())
    if mask is not None:
        assert bool(lit) == bool(np.asarray(mask)[:16].any())
    assert all(c.kind in (VALUE, WILD) for c in lit)


def test_bad_arguments():
    env = play("skyjo", 0, num_players=2)
    with pytest.raises(ValueError, match="viewer"):
        render.ansi("skyjo", env.record, env.rules, viewer=2)
    with pytest.raises(ValueError, match="no renderer"):
        render.ansi("chess", env.record, env.rules)
