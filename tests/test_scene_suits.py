"""A card of the scene model can show a suit or colour (`Card.suit`, `Palette.suit_band`): in the text
cell, the RGB picture, the seat view (the web table and the text players read it) and its colour. The
Crazy Eights test game (a 32-card piquet deck of four suits) shows its cards with their suits."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

pytest.importorskip("PIL")

import cardgym  # noqa: E402
from cardgym.render.draw_rgb import rgb  # noqa: E402
from cardgym.render.draw_text import ansi, cell  # noqa: E402
from cardgym.render.scene import BANDS, VALUE, Card, Palette, Pile, Region, Scene, band  # noqa: E402
from cardgym.render.view import card_key, view  # noqa: E402

SUITS = Palette(name="suits", band=lambda v: "green", back_fill=(20, 100, 60),
                suit_band=lambda s: "sb_red" if s in "HD" else "black")


def _scene(*cards):
    table = Region("table", rows=[[Pile(list(cards), layout="row", label="row")]])
    return Scene(SUITS, "suits", [], table, [], None)


def test_a_suited_card_shows_its_suit_and_takes_its_colour():
    seven_h, seven_s = Card(VALUE, 7, suit="H"), Card(VALUE, 7, suit="S")
    assert (seven_h.text, seven_s.text, Card(VALUE, 7).text) == ("7H", "7S", "7")
    assert band(SUITS, seven_h) == "sb_red" and band(SUITS, seven_s) == "black" and band(SUITS, Card(VALUE, 7)) == "green"
    assert cell(Card(VALUE, 10, suit="H"), SUITS, False) == " 10H "
    assert f"\x1b[{BANDS['black'][2]}m7S" in ansi(_scene(seven_s), color=True)
    a, b, plain = rgb(_scene(seven_h)), rgb(_scene(seven_s)), rgb(_scene(Card(VALUE, 7)))
    assert a.shape == b.shape == plain.shape  # the suit changes no frame size
    assert not np.array_equal(a, b) and not np.array_equal(b, plain)
    red, black = np.array(BANDS["sb_red"][0]), np.array(BANDS["black"][0])
    for img, ink in ((a, red), (b, black)):  # the number and suit are drawn in the suit's colour
        assert (np.abs(img.reshape(-1, 3).astype(int) - ink).sum(axis=1) < 30).sum() > 50


def test_bad_suits_are_refused_naming_what_is_allowed():
    with pytest.raises(ValueError, match="Card.suit must be a str of 1 or 2 characters on a 'value' card"):
        Card(VALUE, 7, suit="hearts")
    with pytest.raises(ValueError, match="on a 'back' card"):
        Card("back", suit="H")
    with pytest.raises(TypeError, match="suit_band must be None or a function"):
        Palette(name="x", band=lambda v: "green", back_fill=(0, 0, 0), suit_band={"H": "red"})
    odd = Palette(name="odd", band=lambda v: "green", back_fill=(0, 0, 0), suit_band=lambda s: "crimson")
    with pytest.raises(ValueError, match=r"suit_band\('H'\) returned 'crimson', not a colour band; allowed"):
        band(odd, Card(VALUE, 7, suit="H"))


def test_crazy_eights_shows_its_cards_with_their_suits():
    game = cardgym.get_game("crazy_eights")
    raw = importlib.import_module(cardgym.GAMES["crazy_eights"].module).raw_env(num_players=2)
    raw.reset(seed=4)
    text = importlib.import_module("crazy_eights.text")
    seat = int(raw.record["current"])
    held = [c for c in range(32) if raw.record["hand"][seat, c]]
    v = view(game, raw.record, raw.rules, seat)
    mine = next(r for r in v["players"] if r["you"])
    cards = [c for row in mine["rows"] for p in row for c in p["cards"]]
    # the view names each card as the game's text does ("10H", "AS": rank and suit)
    names = [text.card_name(c) for c in held]
    suits = [c["suit"] for c in cards]
    assert suits == [n[-1] for n in names] and all(c["text"].endswith(c["suit"]) for c in cards)
    assert {c["band"] for c in cards} <= {"sb_red", "black"}
    assert all(card_key(Card(VALUE, c["value"], suit=c["suit"])) == c["text"] for c in cards)
    assert any(s in ansi(game.scene(raw.record, raw.rules, seat)) for s in ("H ", "S ", "D ", "C "))
