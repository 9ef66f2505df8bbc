"""Seat views as data (cardgym.render.view, env.unwrapped.view): JSON, from the scene, no leak."""

from __future__ import annotations

import importlib
import json

import pytest

import cardgym
from cardgym import render
from cardgym.render.view import dumps, element_ids, palette_dict
from cardgym.testing.viewcheck import check_view

from conftest import CONFIGS, GAME_NAMES, config_id


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_views_leak_nothing(cfg):
    """Re-dealing every card hidden from seat k changes no byte of view(k) nor of view(None)."""
    name, options = cfg
    checked = check_view(name, options, games=2, every=4, max_steps=240)
    if checked <= 10:  # a game of short episodes (against the house): more games, every position
        checked = check_view(name, options, games=16, every=1, max_steps=240)
    assert checked > 10


def _env(name, steps=10, seed=3, **options):
    env = importlib.import_module(cardgym.GAMES[name].module).raw_env(**options)
    env.reset(seed=seed)
    for _ in range(steps):
        if int(env.record["status"]) != 0:
            break
        env.step(env.bot_action("random"))
    return env


@pytest.mark.parametrize("name", GAME_NAMES)
def test_view_is_the_scene(name):
    """Every card of the view is the scene's card (same kind, value, highlight), pile by pile."""
    env = _env(name)
    game = cardgym.get_game(name)
    for seat in (None, 0, int(env.record["current"])):
        sc = render.table_scene(game, env.record, env.rules, seat)
        v = env.unwrapped.view(seat)
        json.dumps(v)
        flat_scene = [(c.kind, c.value if c.kind == "value" else None, c.highlight) for c in sc.cards()]
        flat_view = [(c["kind"], c.get("value"), c["highlight"])
                     for reg in [v["table"]] + v["players"] for row in reg["rows"] for p in row for c in p["cards"]]
        assert flat_view == flat_scene
        assert v["title"] == sc.title and v["lines"] == sc.lines
        assert [p["title"] for p in v["players"]] == [r.title for r in sc.players]


def test_skyjo_view_content():
    env = _env("skyjo", steps=0)
    v = env.view(0)
    assert v["status"] == "running" and v["current"] == 0 and v["phase"] == 0
    # setup: reveal any of 12 grid cards, each one click on that card
    assert sorted(x["action"] for x in v["legal"]) == list(range(12))
    assert {tuple(x["refs"]) for x in v["legal"]} == {(f"p0.row{r}_0#{c}",) for r in range(3) for c in range(4)}
    assert all(c["kind"] == "back" for row in v["players"][1]["rows"] for p in row for c in p["cards"])
    assert env.view(1)["legal"] == [] and env.view(None)["legal"] == []


def test_skipbo_view_hides_other_hands_and_names_clicks():
    env = _env("skipbo", steps=0)
    cur = int(env.record["current"])
    mine = env.view(cur)
    other = env.view(1 - cur)
    hand = [p for p in mine["players"][cur]["rows"][0] if p["label"] == "hand"][0]
    assert all(c["kind"] in ("value", "wild") for c in hand["cards"] if c["kind"] != "empty")
    seen = [p for p in other["players"][cur]["rows"][0] if p["label"] == "hand"][0]
    assert {c["kind"] for c in seen["cards"]} <= {"back", "empty"} and seen["count"] == 5
    ids = element_ids(mine)
    assert all(r in ids for x in mine["legal"] for r in x["refs"])
    assert any(x["refs"][-1].startswith("table.B") or ".D" in x["refs"][-1] for x in mine["legal"])


def test_finished_game_view_has_the_result():
    env = _env("skipbo_junior", steps=2000, seed=1)
    assert int(env.record["status"]) != 0
    v = env.view(None)
    assert v["status"] in ("terminated", "truncated") and v["current"] is None and v["result"] is not None
    assert v["result"] == json.loads(json.dumps(env.result()))


def test_view_refuses_a_bad_seat_and_needs_a_reset():
    env = importlib.import_module(cardgym.GAMES["skyjo"].module).raw_env()
    with pytest.raises(RuntimeError, match="before reset"):
        env.view(0)
    env.reset(seed=0)
    for bad in (2, -1, "0", True):
        with pytest.raises(ValueError, match="viewer"):
            env.view(bad)


def test_check_view_catches_a_leak(monkeypatch):
    """A view that shows a hidden card (a scene drawing the opponents' hands face up) fails the check."""
    import dataclasses

    game = cardgym.get_game("skipbo")
    real = game.scene

    def leaky(r, rules, viewer=None):
        sc = real(r, rules, None if viewer is None else viewer)
        if viewer is not None:
            other = real(r, rules, (viewer + 1) % int(r["num_players"]))
            sc.players[(viewer + 1) % len(sc.players)] = other.players[(viewer + 1) % len(sc.players)]
        return sc

    spec = dataclasses.replace(game, scene=leaky)
    monkeypatch.setattr(cardgym, "get_game", lambda name: spec)
    with pytest.raises(AssertionError, match="re-dealt"):
        check_view("skipbo", {}, games=1, every=1, max_steps=20)


def test_palette_dict_is_css():
    p = palette_dict(cardgym.get_game("skyjo").palette)
    assert p["back"].startswith("#") and len(p["back"]) == 7
    assert p["bands"]["red"]["fill"] == "#cd2d2d"


def test_dumps_is_canonical():
    env = _env("skyjo")
    a, b = env.view(0), env.view(0)
    assert dumps(a) == dumps(b) and dumps(env.view(None)) != dumps(a)
