"""Crazy Eights' legality read in plain Python from the rules in the game's docstring, independently
of the kernels (the property tests compare the compiled masks against it; tests/reference.py)."""

from __future__ import annotations


def legal(rec, rules) -> set:
    if rec["status"] != 0:
        return set()
    if rec["phase"] == 1:  # an eight was just played: name one of the four suits
        return {33, 34, 35, 36}
    seat = int(rec["current"])
    top = int(rec["discard"][int(rec["discard_len"]) - 1])
    suit = int(rec["suit"])
    held = [c for c in range(32) if rec["hand"][seat, c]]
    plays = {c for c in held if c % 8 == 1 or c // 8 == suit or c % 8 == top % 8}
    can_draw = rec["draw_len"] > 0 or rec["discard_len"] > 1
    return plays | ({32} if can_draw or not plays else set())
