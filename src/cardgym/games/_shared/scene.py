"""The table shared by the Skip-Bo and Skip-Bo Junior scenes: card codes as scene cards, and the build
piles with the draw pile and the completed stack (the record fields both games share)."""

from __future__ import annotations

from ...kit import BACK, VALUE, WILD, Card, Pile, Region


def card(code) -> Card:
    """A Skip-Bo or Junior card code as a scene card (0 is the wild)."""
    code = int(code)
    return Card(WILD) if code == 0 else Card(VALUE, code)


def build_piles_region(r, needs) -> Region:
    """The shared table of Skip-Bo and Junior: the four build piles (top card, next value needed:
    ``needs[b]``), the draw pile and the completed stack."""
    builds = []
    for b in range(len(needs)):
        h, c = int(r["heights"][b]), int(r["bcounts"][b])
        cards = [card(r["builds"][b, c - 1])] if h and c else []
        builds.append(Pile(cards, "stack", f"B{b}", f"next {needs[b]}", count=c))
    drl, dnl = int(r["draw_len"]), int(r["done_len"])
    draw = Pile([Card(BACK)] if drl else [], "stack", "draw", str(drl), count=drl)
    done = Pile([Card(BACK)] if dnl else [], "stack", "done", str(dnl), count=dnl)
    return Region("Build piles", rows=[builds + [draw, done]])
