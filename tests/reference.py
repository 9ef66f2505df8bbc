"""Plain-Python readings of each game's legality, written from RULES.md independently of the kernels.

``LEGAL[game](record, rules) -> set of legal action ids`` for the seat to act. The property tests
compare the compiled masks against these on random play.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------------------- Skyjo
SKYJO_HIDDEN, SKYJO_UP, SKYJO_REMOVED = 0, 1, 2
SKYJO_SETUP, SKYJO_START, SKYJO_DRAWN, SKYJO_TAKEN = 0, 1, 2, 3


def skyjo_legal(rec, rules):
    if rec["status"] != 0:
        return set()
    seat = int(rec["current"])
    up = [int(x) for x in rec["up"][seat]]
    hidden = {p for p in range(12) if up[p] == SKYJO_HIDDEN}
    present = {p for p in range(12) if up[p] != SKYJO_REMOVED}
    phase = int(rec["phase"])
    if phase == SKYJO_SETUP:
        return hidden  # a setup reveal: any face-down card of one's own grid
    if phase == SKYJO_START:
        # draw from the draw pile, or take the discard top (the discard pile is never empty at a turn start)
        return {24, 25} if rec["discard_len"] > 0 else {24}
    if phase == SKYJO_DRAWN:
        # replace any card (face up or down) with the drawn card, or discard it and reveal a face-down card
        return {12 + p for p in present} | hidden
    if phase == SKYJO_TAKEN:
        return {12 + p for p in present}  # a taken discard must replace a card
    raise AssertionError(f"unknown Skyjo phase {phase}")


LEGAL = {"skyjo": skyjo_legal}
