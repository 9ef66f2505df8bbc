"""The Crazy Eights table as a `cardgym.render.scene.Scene` (the render layer draws it).

A card shows its rank (7..10, then 11 = J, 12 = Q, 13 = K, 14 = A); its suit is written in the
region's lines (``hand: 7C 9H QS``). A seat's hand is a fan of cards, face up for the viewer only;
the draw pile is a stack of backs, the discard pile shows its top.
"""

from __future__ import annotations

from cardgym.kit import BACK, VALUE, Card, Palette, Pile, Region, Scene

from .kernels import playable
from .rules import DECK_SIZE, PH_SUIT, SUIT_LETTERS, SUIT_NAMES
from .text import card_name


def _band(v: int) -> str:
    return "red" if v == 8 else ("darkblue" if v >= 11 else "green")


def _suit_band(suit: str) -> str:
    return "sb_red" if suit in ("D", "H") else "black"  # a card shows its suit (Card.suit): red or black


PALETTE = Palette(name="crazy_eights", band=_band, back_fill=(20, 100, 60), suit_band=_suit_band)


def _face(c: int, highlight: bool = False) -> Card:
    return Card(VALUE, 7 + (int(c) & 7), highlight, suit=SUIT_LETTERS[int(c) >> 3])


def scene(r, rules, viewer=None) -> Scene:
    n = int(r["num_players"])
    running = int(r["status"]) == 0
    cur = int(r["current"])
    xl = int(r["discard_len"])
    top = int(r["discard"][xl - 1])
    table = Region("table", rows=[[
        Pile([Card(BACK)] * min(1, int(r["draw_len"])) or [Card("empty")], layout="stack", label="draw",
             count=int(r["draw_len"])),
        Pile([_face(top)], layout="stack", label="discard", note=card_name(top), count=xl),
    ]], lines=[f"suit to follow: {SUIT_NAMES[int(r['suit'])]}"])
    players = []
    for j in range(n):
        held = [c for c in range(DECK_SIZE) if r["hand"][j, c]]
        mine = viewer is not None and int(viewer) == j
        to_play = mine and running and cur == j and int(r["phase"]) != PH_SUIT
        cards = [_face(c, to_play and bool(playable(r, c))) for c in held] if mine else [Card(BACK)] * len(held)
        hand = " ".join(card_name(c) for c in held) if mine else "not shown"
        lines = [f"{len(held)} cards", f"hand: {hand}"]  # as many lines in every view: a constant frame size
        players.append(Region(f"player_{j}" + (" (you)" if mine else ""), rows=[[Pile(cards, layout="fan")]],
                              lines=lines, active=running and cur == j, you=mine))
    if running:
        doing = "names a suit" if int(r["phase"]) == PH_SUIT else "to play"
        lines = [f"turn {int(r['turn'])}: player_{cur} {doing}"]
    else:
        w = int(r["winner"])
        lines = [f"over: player_{w} wins" if w >= 0 else "over: no winner"]
    return Scene(PALETTE, "Crazy Eights", lines, table, players, viewer)
