"""Flat-vector layouts whose offsets come from one table (the observation and state vectors).

A `Layout` is the ordered table of a flat float32 vector's fields. Each `Slot` is sized
``per_seat * num_players + fixed``, so the offset of every field is also ``a * num_players + b`` with
two integers known when the module is imported: `Layout.at` gives them as a tuple, which a compiled
kernel reads as a compile-time constant (a module global) and turns into an offset with `offset`. The
same table gives the encoder's documented `cardgym.core.contract.game.Field` list (`Layout.fields`), its
size and the encoder itself (`Layout.encoder`), so the kernel, the docs, the bounds and the size
cannot drift apart::

    VECTOR = Layout(Slot("hand", 0, 13, 0, 5, "own hand"), Slot("stock_size", 1, 0, 0, 30, "per seat"))
    O_STOCK_SIZE = VECTOR.at("stock_size")       # (0, 13): offset 0 * n + 13

    @njit
    def observe(s, p, seat, out):
        o = offset(O_STOCK_SIZE, s.num_players)

    ENCODERS = {"vector": VECTOR.encoder(observe, doc="own hand, stock sizes")}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Union

from numba import njit

from cardgym.core.contract.game import Field, FlatEncoder


@dataclass(frozen=True)
class Slot:
    """One named field of a `Layout`: ``per_seat * num_players + fixed`` entries in ``[low, high]``
    (``high`` may be a function of the rules, e.g. the stock size)."""

    name: str
    per_seat: int
    fixed: int
    low: float
    high: Union[float, Callable[[Any], float]]
    doc: str

    def size(self, num_players: int) -> int:
        return self.per_seat * num_players + self.fixed


class Layout:
    """The ordered fields of one flat vector (see the module docstring)."""

    def __init__(self, *slots: Slot):
        names = [s.name for s in slots]
        if len(set(names)) != len(names):
            raise ValueError(f"layout field names must be unique, got {names}")
        self.slots = tuple(slots)
        self._at = {}
        a = b = 0
        for s in slots:
            self._at[s.name] = (a, b)
            a += s.per_seat
            b += s.fixed
        self.total = (a, b)  # the vector's size, as (per seat, fixed)

    def __add__(self, other: "Layout") -> "Layout":
        return Layout(*self.slots, *other.slots)

    def at(self, name: str) -> tuple:
        """``(a, b)``: field ``name`` starts at ``a * num_players + b``."""
        try:
            return self._at[name]
        except KeyError:
            raise ValueError(f"no field {name!r} in this layout; fields: {list(self._at)}") from None

    def size(self, num_players: int) -> int:
        return self.total[0] * num_players + self.total[1]

    def size_of(self, rules) -> int:
        """The vector's size under ``rules`` (a game's ``state_size``)."""
        return self.size(rules.num_players)

    def fields(self, rules) -> list:
        """The `Field` table of ``rules`` (what `cardgym.core.contract.game.FlatEncoder` documents and bounds)."""
        n = rules.num_players
        return [
            Field(s.name, s.size(n), s.low, s.high(rules) if callable(s.high) else s.high, s.doc)
            for s in self.slots
        ]

    def encoder(self, kernel, name: str = "vector", doc: str = "") -> FlatEncoder:
        """The `FlatEncoder` ``name`` whose compiled ``kernel(s, p, seat, out)`` fills this layout:
        its documented fields, bounds and size are this table's (``ENCODERS = {"vector":
        VECTOR.encoder(observe_vector, doc="...")}``; no layout function to write)."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Layout.encoder: name must be an encoder name such as 'vector' (letters, digits, "
                             f"_), got {name!r}")
        if not callable(kernel):
            raise TypeError(f"Layout.encoder {name!r}: kernel must be the compiled observe function "
                            f"kernel(s, p, seat, out), got {kernel!r}")
        return FlatEncoder(name, self.fields, kernel, doc)


@njit(cache=True)
def offset(at, num_players):
    """The offset ``at[0] * num_players + at[1]`` of a field whose `Layout.at` is ``at`` (an int, also
    in plain numpy under ``NUMBA_DISABLE_JIT``, where an int8 ``num_players`` would overflow)."""
    return at[0] * int(num_players) + at[1]
