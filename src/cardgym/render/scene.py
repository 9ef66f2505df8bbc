"""A small, game-independent description of a card table, drawn by `draw_rgb` and `draw_text`.

A `Scene` is a title, a few text lines, one *table* region (the shared piles in the middle) and
one region per player. A region holds text lines and rows of `Pile`s; a pile holds
`Card`s laid out side by side (``"row"``), overlapped downwards bottom card first (``"fan"``,
a fanned discard pile or hand stack) or as its top card only with a card count (``"stack"``).

A card is a number (``kind="value"``), a wild, a face-down back or an empty slot, optionally
highlighted. Its colours come from the scene's ``palette`` (the game's name) through `band`.

The layout is structural: the size of a drawn scene depends only on the number of piles, cards per
``"row"`` pile and ``fan_slots`` of ``"fan"`` piles, never on the values shown, so every frame of one
game has the same size (what video recorders need).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

VALUE, WILD, BACK, EMPTY = "value", "wild", "back", "empty"


@dataclass
class Card:
    kind: str = VALUE  # "value" | "wild" | "back" | "empty"
    value: int | None = None  # the number of a "value" card
    highlight: bool = False  # drawn with a bright outline (e.g. playable now, the held card)

    @property
    def text(self) -> str:
        """Short label used by the text drawer and the corner index of a drawn card."""
        if self.kind == VALUE:
            return str(self.value)
        return {WILD: "W", BACK: "##", EMPTY: "--"}[self.kind]


@dataclass
class Pile:
    cards: list  # list[Card], bottom first (the last card is the top of a "fan" / "stack")
    layout: str = "row"  # "row" | "fan" | "stack"
    label: str = ""  # short name ("stock", "D1", "B2"); drawn under the pile
    note: str = ""  # short extra text ("30", "next 5"); drawn after the label
    count: int | None = None  # "stack": number of cards in the pile (a badge)
    fan_slots: int = 8  # "fan": space reserved for this many cards; older cards are summarised as "+k"

    @property
    def caption(self) -> str:
        return " ".join(x for x in (self.label, self.note) if x)


@dataclass
class Region:
    title: str
    rows: list = field(default_factory=list)  # list[list[Pile]]
    lines: list = field(default_factory=list)  # list[str]
    active: bool = False  # this player is to act
    you: bool = False  # the viewer's own seat
    team: int | None = None  # team index (partners share a colour)
    min_width: int = 0  # pixels, to keep every player's region the same size


@dataclass(frozen=True)
class Palette:
    name: str                      # the game's name
    band: Callable[[int], str]     # face-up card value -> colour band name in BANDS
    back_fill: tuple               # RGB of a card back
    wild_label: str = "WILD"       # long name of the wild card ("SKIP-BO" in Skip-Bo)
    wild_short: str = "W"          # corner / text label of the wild card ("SB" in Skip-Bo)


def palette_name(palette) -> str:
    """The game name of a scene's palette (a `Palette` or, for the scenes still built in render/, a name)."""
    return palette.name if isinstance(palette, Palette) else palette


@dataclass
class Scene:
    palette: "Palette | str"  # the game's Palette ("skyjo": a name, until its scene moves to games/)
    title: str
    lines: list  # list[str]: whose turn, scores, pile sizes...
    table: Region
    players: list  # list[Region], seat order
    viewer: int | None = None

    def cards(self):
        """Every card of the scene (for tests: what is drawn)."""
        for reg in [self.table] + list(self.players):
            for row in reg.rows:
                for pile in row:
                    yield from pile.cards

    def values(self) -> list:
        """Values of every face-up number card in the scene."""
        return [c.value for c in self.cards() if c.kind == VALUE]


# ------------------------------------------------------------------------------------------- colours

#: colour bands: name -> (card fill RGB, number RGB, ANSI SGR code)
BANDS = {
    "darkblue": ((36, 52, 140), (255, 255, 255), "34"),
    "lightblue": ((120, 200, 240), (20, 40, 80), "96"),
    "green": ((70, 160, 70), (255, 255, 255), "32"),
    "yellow": ((245, 205, 50), (60, 45, 0), "93"),
    "red": ((205, 45, 45), (255, 255, 255), "31"),
    # Skip-Bo style: white cards with a coloured number
    "sb_blue": ((30, 90, 200), None, "94"),
    "sb_green": ((20, 140, 60), None, "32"),
    "sb_red": ((200, 30, 40), None, "91"),
    "sb_wild": ((240, 130, 20), (255, 255, 255), "38;5;208"),
}


def band(palette: str, card: Card) -> str:
    """The colour band of a face-up card in a game's palette."""
    if card.kind == WILD:
        return "sb_wild"
    v = int(card.value)
    if palette == "skyjo":
        if v < 0:
            return "darkblue"
        if v == 0:
            return "lightblue"
        if v <= 4:
            return "green"
        if v <= 8:
            return "yellow"
        return "red"
    if palette == "skipbo_junior":  # 1-3 blue, 4-7 green, 8-10 red
        return "sb_blue" if v <= 3 else ("sb_green" if v <= 7 else "sb_red")
    return "sb_blue" if v <= 4 else ("sb_green" if v <= 8 else "sb_red")  # Skip-Bo: 1-4, 5-8, 9-12


def wild_label(palette: str) -> str:
    return "SKIP-BO" if palette == "skipbo" else "WILD"


#: team colours (region borders, titles)
TEAM_COLOURS = [(90, 170, 255), (255, 120, 200), (170, 255, 120)]


def cards_of(values, kind=VALUE) -> list:
    """Cards from codes where 0 is the wild (Skip-Bo family)."""
    return [Card(WILD) if int(v) == 0 else Card(kind, int(v)) for v in values]
