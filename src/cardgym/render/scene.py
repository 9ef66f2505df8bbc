"""A small, game-independent description of a card table, drawn by `draw_rgb` and `draw_text`.

A `Scene` is a title, a few text lines, one *table* region (the shared piles in the middle) and
one region per player. A region holds text lines and rows of `Pile`s; a pile holds
`Card`s laid out side by side (``"row"``), overlapped downwards bottom card first (``"fan"``,
a fanned discard pile or hand stack) or as its top card only with a card count (``"stack"``).

A card is a number (``kind="value"``), a wild, a face-down back or an empty slot, optionally
highlighted. Its colours and labels come from the scene's `Palette` (defined by the game, in
``games/<game>/scene.py``): the colour band of each value, the fill of a card back and the wild's name.
This module, `draw_rgb` and `draw_text` know no game: a game hands them a `Scene`.

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
    #: a "value" card's suit or colour: a mark of 1 or 2 characters ("H", "♠", "Y" for a yellow expedition),
    #: shown after its number ("7H") and, with the palette's ``suit_band``, giving the card its colour
    suit: str = ""

    def __post_init__(self):
        if self.suit and (not isinstance(self.suit, str) or len(self.suit) > 2 or self.kind != VALUE):
            raise ValueError(f"Card.suit must be a str of 1 or 2 characters on a 'value' card, got "
                             f"{self.suit!r} on a {self.kind!r} card")

    @property
    def text(self) -> str:
        """Short label used by the text drawer and the corner index of a drawn card (``"7"``, ``"7H"``)."""
        if self.kind == VALUE:
            return f"{self.value}{self.suit}"
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
    """A game's card colours and labels (``PALETTE`` in ``games/<game>/scene.py``).

    - ``name``: the game's name.
    - ``band``: face-up card value -> the name of its colour band in `BANDS` (a wild is always ``"sb_wild"``).
    - ``back_fill``: RGB of a card back (the picture's face-down cards and the edges of a face-down stack).
    - ``wild_label``: long name of the wild card. A label with a hyphen is written on the card in two
      lines split before the hyphen (``"MEGA-WILD"``: ``MEGA`` / ``-WILD``); otherwise the card shows
      ``wild_short`` in large print.
    - ``wild_short``: the wild's corner label in the picture and its text cell (at most 2 characters).
    - ``suit_band``: optional, a card's suit (`Card.suit`) -> the name of its colour band in `BANDS`:
      a card with a suit takes its suit's colour, not its value's (hearts red, spades ``"black"``; the
      five expeditions of Lost Cities). None: every card is coloured by its value.
    """

    name: str
    band: Callable[[int], str]
    back_fill: tuple
    wild_label: str = "WILD"
    wild_short: str = "W"
    suit_band: Callable[[str], str] | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Palette.name must be a non-empty str (the game's name), got {self.name!r}")
        if not callable(self.band):
            raise TypeError(f"Palette {self.name}: band must be a function value -> band name, got {self.band!r}")
        fill = self.back_fill
        if not (isinstance(fill, tuple) and len(fill) == 3
                and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in fill)):
            raise TypeError(f"Palette {self.name}: back_fill must be an (r, g, b) tuple of ints 0..255, got {fill!r}")
        for what in ("wild_label", "wild_short"):
            v = getattr(self, what)
            if not isinstance(v, str) or not v:
                raise TypeError(f"Palette {self.name}: {what} must be a non-empty str, got {v!r}")
        if self.suit_band is not None and not callable(self.suit_band):
            raise TypeError(f"Palette {self.name}: suit_band must be None or a function suit -> band name, "
                            f"got {self.suit_band!r}")
        if len(self.wild_short) > 2:
            raise ValueError(f"Palette {self.name}: wild_short must be 1 or 2 characters, got {self.wild_short!r}")


@dataclass
class Scene:
    palette: Palette  # the game's colours and labels
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
    # "ink" bands (no number colour): white cards with a coloured number and frame
    "sb_blue": ((30, 90, 200), None, "94"),
    "sb_green": ((20, 140, 60), None, "32"),
    "sb_red": ((200, 30, 40), None, "91"),
    "black": ((30, 30, 30), None, "90"),  # black suits (spades, clubs) on white cards
    "sb_wild": ((240, 130, 20), (255, 255, 255), "38;5;208"),
}


def band(palette: Palette, card: Card) -> str:
    """The colour band (a key of `BANDS`) of a face-up card in a game's palette."""
    if card.kind == WILD:
        return "sb_wild"
    if card.suit and palette.suit_band is not None:
        b = palette.suit_band(card.suit)
        if b not in BANDS:
            raise ValueError(f"Palette {palette.name}: suit_band({card.suit!r}) returned {b!r}, not a colour band; "
                             f"allowed: {sorted(BANDS)}")
        return b
    b = palette.band(int(card.value))
    if b not in BANDS:
        raise ValueError(
            f"Palette {palette.name}: band({int(card.value)}) returned {b!r}, not a colour band; allowed: {sorted(BANDS)}"
        )
    return b


#: team colours (region borders, titles)
TEAM_COLOURS = [(90, 170, 255), (255, 120, 200), (170, 255, 120)]

