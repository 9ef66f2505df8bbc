"""Draw a `cardgym.render.scene.Scene` as a text table, with ANSI colours if asked.

Every card is a 4-character cell: the number right-aligned, ``W`` (``SB`` in Skip-Bo) for a wild,
``##`` for a face-down card, ``--`` for an empty slot; a highlighted card is in brackets, ``[ 7]``. Fanned piles
list their cards bottom first, so the last one is the top. A ``stack`` pile shows its top card and
``(xN)``, the number of cards in it.
"""

from __future__ import annotations

from .scene import BANDS, EMPTY, VALUE, WILD, Card, Pile, Region, Scene, band, palette_name

RESET = "\x1b[0m"


def _sgr(code: str, on: bool) -> str:
    return f"\x1b[{code}m" if on else ""


def cell(card: Card, palette: str, color: bool) -> str:
    if card.kind == WILD:
        t = "SB" if palette == "skipbo" else "W"
    else:
        t = card.text
    left, right = ("[", "]") if card.highlight else (" ", " ")
    s = f"{t:>2}"
    if not color:
        return left + s + right
    if card.kind in (VALUE, WILD):
        code = BANDS[band(palette, card)][2]
        if card.highlight:
            code += ";1;7"  # bold, reverse
    else:
        code = "90" if card.kind == EMPTY else "2"
    return left + _sgr(code, True) + s + RESET + right


def pile_text(p: Pile, palette: str, color: bool) -> str:
    if p.layout == "stack":
        count = p.count if p.count is not None else len(p.cards)
        top = p.cards[-1] if p.cards else Card(EMPTY)
        body = cell(top, palette, color).rstrip() + (f" (x{count})" if count else "")
    else:
        cards = p.cards or [Card(EMPTY)]
        body = "".join(cell(c, palette, color) for c in cards)
    return body


def _bold(s: str, color: bool) -> str:
    return f"\x1b[1m{s}{RESET}" if color and s else s


def region_lines(reg: Region, palette: str, color: bool) -> list:
    title = reg.title
    if reg.active:
        title = "> " + title
    out = [_bold(title, color)]
    for line in reg.lines:
        out.append("  " + line)
    for row in reg.rows:
        flat = [p for p in row if p.layout != "fan"]
        fans = [p for p in row if p.layout == "fan"]
        if flat:
            parts = []
            for p in flat:
                label = f"{p.label}:" if p.label else ""
                note = f" {p.note}" if p.note and p.layout != "stack" else ""
                parts.append(f"{label}{pile_text(p, palette, color)}{note}")
            out.append("  " + "   ".join(parts))
        for p in fans:
            label = f"{p.label}:" if p.label else ""
            out.append(f"  {label:<4}{pile_text(p, palette, color)}" + (f"   ({p.note})" if p.note else ""))
    return out


def ansi(scene: Scene, color: bool = False) -> str:
    """The scene as text (``color=True``: with ANSI colour codes)."""
    lines = [_bold(scene.title, color)] + list(scene.lines)
    for reg in [scene.table] + list(scene.players):
        lines.append("")
        lines += region_lines(reg, palette_name(scene.palette), color)
    return "\n".join(lines)
