"""Pictures and text views of the table (cardgym.render): shapes, every player count, hidden cards."""

from __future__ import annotations

import collections
import hashlib
import importlib
import types
from pathlib import Path

import numpy as np
import pytest

PIL = pytest.importorskip("PIL")

import cardgym  # noqa: E402
from cardgym import get_game, render  # noqa: E402
from cardgym.render.draw_rgb import rgb, scene_size  # noqa: E402
from cardgym.render.draw_text import ansi as draw_ansi  # noqa: E402
from cardgym.render.scene import BANDS, BACK, VALUE, WILD, Card, Palette, Pile, Region, Scene  # noqa: E402

from conftest import GAME_NAMES  # noqa: E402
from redeal import redeal  # noqa: E402

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
    size0 = scene_size(render.table_scene(game, env.record, env.rules))
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
        sizes.add(scene_size(render.table_scene(game, env.record, env.rules)))
        sizes.add(scene_size(render.table_scene(game, env.record, env.rules, viewer=int(env.record["current"]))))
        env.step(env.bot_action("random"))
    sizes.add(scene_size(render.table_scene(game, env.record, env.rules)))
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
    public = render.table_scene(game, r, rules)
    faces = counts(public)
    faces.pop(BACK, None), faces.pop("empty", None)
    assert faces == _skipbo_public(r, n)
    hands = [p.cards for reg in public.players for p in reg.rows[0] if p.label == "hand"]
    for i in range(n):
        assert sum(c.kind == BACK for c in hands[i]) == int(r["hand_len"][i])
    for k in range(n):
        view = render.table_scene(game, r, rules, viewer=k)
        faces = counts(view)
        faces.pop(BACK, None), faces.pop("empty", None)
        assert faces == _skipbo_public(r, n) + _hand(r, k)  # own hand only, not the partner's
        assert sum(c.kind == BACK for p in view.players[k].rows[0] for c in p.cards if p.label == "hand") == 0


def test_skyjo_face_down_cards_stay_hidden_even_from_their_owner():
    game = get_game("skyjo")
    env = play("skyjo", 30, num_players=3)
    r = env.record
    for viewer in (None, 0, 1, 2):
        sc = render.table_scene(game, r, env.rules, viewer=viewer)
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
        other = redeal(game, rules, r, seat, rng)
        for viewer in (None, seat):
            a = render.rgb_array(game, r, rules, viewer=viewer)
            b = render.rgb_array(game, other, rules, viewer=viewer)
            assert np.array_equal(a, b), (seat, viewer)
            assert render.ansi(game, r, rules, viewer) == render.ansi(game, other, rules, viewer)


def test_ansi_labels():
    sk = play("skyjo", 5, num_players=2)
    t = render.ansi(get_game("skyjo"), sk.record, sk.rules)
    for word in ("Skyjo", "Table", "draw:", "discard:", "held:", "total", "##"):
        assert word in t
    sb = play("skipbo", 20, num_players=2, match_target=500)
    t = render.ansi(get_game("skipbo"), sb.record, sb.rules, viewer=0)
    for word in ("Skip-Bo", "Build piles", "B0:", "B3:", "draw:", "stock:", "hand:", "D0:", "D3:", "match"):
        assert word in t
    jr = play("skipbo_junior", 10, num_players=2)
    t = render.ansi(get_game("skipbo_junior"), jr.record, jr.rules)
    for word in ("Skip-Bo Junior", "B0:", "stock:", "S0:", "S2:"):
        assert word in t


def test_the_seat_to_act_sees_its_playable_cards_highlighted():
    game = get_game("skipbo_junior")
    env = play("skipbo_junior", 0, num_players=2)
    r = env.record
    cur = int(r["current"])
    mask = env.action_mask() if hasattr(env, "action_mask") else None
    sc = render.table_scene(game, r, env.rules, viewer=cur)
    lit = [
        c
        for c in sc.players[cur].rows[0][0].cards
        + [p.cards[-1] for p in sc.players[cur].rows[0][1:] if p.cards]
        if c.highlight
    ]
    public = render.table_scene(game, r, env.rules)
    assert not any(c.highlight for c in public.cards())
    if mask is not None:
        assert bool(lit) == bool(np.asarray(mask)[:16].any())
    assert all(c.kind in (VALUE, WILD) for c in lit)


def test_bad_arguments():
    env = play("skyjo", 0, num_players=2)
    with pytest.raises(ValueError, match="viewer"):
        render.ansi(get_game("skyjo"), env.record, env.rules, viewer=2)
    with pytest.raises(ValueError, match="no renderer"):
        render.ansi("chess", env.record, env.rules)
    with pytest.raises(ValueError, match="no renderer for 'x'"):
        render.rgb_array(types.SimpleNamespace(name="x"), env.record, env.rules)
    with pytest.raises(ValueError, match="no renderer"):
        render.table_scene(42, env.record, env.rules)


# ------------------------------------------------------------------ the render layer knows no game

RENDER = Path(render.__file__).parent


@pytest.mark.parametrize("module", ["__init__.py", "scene.py", "draw_rgb.py", "draw_text.py", "_common.py"])
def test_the_render_layer_names_no_game(module):
    """Colours, backs and wild labels come from the game's `Palette`; the scene from ``GameSpec.scene``."""
    source = (RENDER / module).read_text()
    for name in list(cardgym.GAMES) + ["skip-bo", "skip_bo", "junior"]:
        assert name.lower() not in source.lower(), f"render/{module} names {name!r}"
    assert "GAMES" not in source  # no list of games of its own: the scene comes from the GameSpec


def test_each_game_has_its_palette():
    for name in cardgym.GAMES:
        game = get_game(name)
        assert isinstance(game.palette, Palette) and game.palette.name == name
        env = play(name, 3)
        assert render.table_scene(game, env.record, env.rules).palette is game.palette


def _fake_scene(palette):
    cards = [Card(VALUE, 1), Card(VALUE, 2), Card(WILD), Card(BACK)]
    table = Region("Table", rows=[[Pile(cards, "row", "t"), Pile([Card(BACK)], "stack", "d", count=3)]])
    return Scene(palette, "A game", ["a line"], table, [Region("player_0", rows=[[Pile([Card(WILD)], "row")]])])


def test_a_new_palette_drives_colours_backs_and_wild_labels():
    one = Palette("one", band=lambda v: "red" if v == 1 else "green", back_fill=(10, 20, 30))
    two = Palette("two", band=lambda v: "sb_blue", back_fill=(200, 200, 10), wild_label="MEGA-WILD",
                  wild_short="MW")
    t1, t2 = (draw_ansi(_fake_scene(p), color=True) for p in (one, two))
    assert f"\x1b[{BANDS['red'][2]}m 1" in t1 and f"\x1b[{BANDS['green'][2]}m 2" in t1
    assert f"\x1b[{BANDS['sb_blue'][2]}m 1" in t2
    assert " W " in draw_ansi(_fake_scene(one)) and " MW " in draw_ansi(_fake_scene(two))
    a, b = rgb(_fake_scene(one)), rgb(_fake_scene(two))
    assert a.shape == b.shape and not np.array_equal(a, b)
    # the back colour of each palette is painted (the card back fill)
    assert (a.reshape(-1, 3) == (10, 20, 30)).all(axis=1).sum() > 200
    assert (b.reshape(-1, 3) == (200, 200, 10)).all(axis=1).sum() > 200
    assert not (a.reshape(-1, 3) == (200, 200, 10)).all(axis=1).any()


def test_palette_checks_its_fields():
    def ok(v):
        return "red"

    with pytest.raises(TypeError, match="name"):
        Palette("", ok, (1, 2, 3))
    with pytest.raises(TypeError, match="band must be a function"):
        Palette("g", "red", (1, 2, 3))
    with pytest.raises(TypeError, match=r"back_fill must be an \(r, g, b\) tuple"):
        Palette("g", ok, (1, 2, 300))
    with pytest.raises(TypeError, match="back_fill"):
        Palette("g", ok, [1, 2, 3])
    with pytest.raises(TypeError, match="wild_label"):
        Palette("g", ok, (1, 2, 3), wild_label="")
    with pytest.raises(ValueError, match="wild_short must be 1 or 2 characters"):
        Palette("g", ok, (1, 2, 3), wild_short="WLD")
    bad = Palette("g", lambda v: "mauve", (1, 2, 3))
    with pytest.raises(ValueError, match=r"Palette g: band\(1\) returned 'mauve', not a colour band"):
        draw_ansi(_fake_scene(bad), color=True)


# ------------------------------------------------------------------ pinned pictures

#: sha256 of ``render.ansi`` (colour on) and of ``render.rgb_array``'s bytes for a few states: the
#: pictures do not change unless a change means to (re-pin with ``python tests/test_render.py``). The
#: pixels depend on Pillow's font rasteriser, so they are compared on the Pillow version they were
#: pinned with only; the text always.
PIN_PILLOW = "13.0.0"
PIN_CASES = [
    ("skyjo", {"num_players": 3}, 4, 17),
    ("skyjo", {"num_players": 2, "setup_reveal": "random"}, 5, 60),
    ("skipbo", {"num_players": 4, "teams": True, "stock_size": 10}, 6, 40),
    ("skipbo", {"num_players": 2, "match_target": 100, "stock_size": 8}, 7, 25),
    ("skipbo_junior", {"num_players": 3}, 8, 30),
]
PINS = {
    "skyjo-4-None": ("6f06574fd10ee390", "535x808:66267725a370734b"),
    "skyjo-4-2": ("b1431fba15a01eb6", "535x808:4dd443be37950416"),
    "skyjo-5-None": ("c4765fe72646d78f", "535x542:793268dd46663165"),
    "skyjo-5-1": ("8390456facaf7b77", "535x542:9020612dbd25bc5b"),
    "skipbo-6-None": ("7c69047dc6d24b2d", "777x1378:1225bac4d4ed2fd8"),
    "skipbo-6-0": ("fda19ab1783947d8", "777x1378:f3e54c04433eeaad"),
    "skipbo-7-None": ("fa86c53f520dec20", "498x1378:1cc2dabf448c4ab9"),
    "skipbo-7-0": ("366a272a3c30780c", "498x1378:b3948ab480b0e5c4"),
    "skipbo_junior-8-None": ("07a55ec8d6fc3186", "481x1018:31fd63de46f8c3cb"),
    "skipbo_junior-8-0": ("bd35d6faa91cf11e", "481x1018:f9ef54748da7f198"),
}


def _pins():
    out = {}
    for name, opts, seed, moves in PIN_CASES:
        env = play(name, moves, seed=seed, **opts)
        game = get_game(name)
        for viewer in (None, int(env.record["current"])):
            key = f"{name}-{seed}-{viewer}"
            text = render.ansi(game, env.record, env.rules, viewer=viewer, color=True)
            img = render.rgb_array(game, env.record, env.rules, viewer=viewer)
            out[key] = (hashlib.sha256(text.encode()).hexdigest()[:16],
                        f"{img.shape[0]}x{img.shape[1]}:" + hashlib.sha256(img.tobytes()).hexdigest()[:16])
    return out


def test_pictures_are_pinned():
    got = _pins()
    assert set(got) == set(PINS)
    for key, (text, pixels) in PINS.items():
        assert got[key][0] == text, f"{key}: the text picture changed"
        if PIL.__version__ == PIN_PILLOW:
            assert got[key][1] == pixels, f"{key}: the RGB picture changed"
        else:
            assert got[key][1].split(":")[0] == pixels.split(":")[0], f"{key}: the picture's size changed"


if __name__ == "__main__":  # print fresh pins
    for k, v in _pins().items():
        print(f"    {k!r}: {v!r},")


def test_render_scene_is_the_module_and_the_old_call_warns():
    """Issue 42.6: ``import cardgym.render.scene as sc`` gave the function ``render.scene``, not the module;
    the function is now ``render.table_scene`` and the old call still works, with a DeprecationWarning."""
    import cardgym.render.scene as sc

    assert isinstance(sc, types.ModuleType) and sc is importlib.import_module("cardgym.render.scene")
    assert sc.Scene is render.Scene and hasattr(sc, "BANDS")
    game = cardgym.get_game("skyjo")
    env = cardgym.skyjo_v0.raw_env()
    env.reset(seed=0)
    with pytest.warns(DeprecationWarning, match=r"render\.table_scene"):
        old = render.scene(game, env.record, env.rules)
    assert old == render.table_scene(game, env.record, env.rules)
