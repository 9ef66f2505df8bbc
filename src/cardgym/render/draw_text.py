"""Draw a `cardgym.render.scene.Scene` as a text table, with ANSI colours if asked.

Every card is a 4-character cell: the number right-aligned, the palette's ``wild_short`` for a wild,
``##`` for a face-down card, ``--`` for an empty slot; a highlighted card is in brackets, ``[ 7]``. Fanned piles
list their cards bottom first, so the last one is the top. A ``stack`` pile shows its top card and
``(xN)``, the number of cards in it.

`terminal` lays a scene out for ``cardgym play`` in a terminal of a given size: as `ansi` draws it
when that leaves room for the moves, else packed (`region_block`) and the other seats side by side.
"""

from __future__ import annotations

import re

from .scene import BANDS, EMPTY, VALUE, WILD, Card, Palette, Pile, Region, Scene, band

RESET = "\x1b[0m"


def _sgr(code: str, on: bool) -> str:
    return f"\x1b[{code}m" if on else ""


def cell(card: Card, palette: Palette, color: bool) -> str:
    if card.kind == WILD:
        t = palette.wild_short
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


def pile_text(p: Pile, palette: Palette, color: bool) -> str:
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


def region_lines(reg: Region, palette: Palette, color: bool) -> list:
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
        lines += region_lines(reg, scene.palette, color)
    return "\n".join(lines)



_SGR = re.compile(r"\x1b\[[0-9;]*m")


def width_of(text: str) -> int:
    """The columns a line takes on a terminal (its ANSI colour codes take none)."""
    return len(_SGR.sub("", text))


def _pack(first: list, items: list, width: int, sep: str = "   ") -> list:
    """``items`` added to the lines ``first`` (its last line extended while they fit ``width``)."""
    lines = list(first)
    for it in items:
        if lines and width_of(lines[-1]) + len(sep) + width_of(it) <= width:
            lines[-1] += sep + it
        else:
            lines.append("  " + it)
    return lines


def region_block(reg: Region, palette: Palette, color: bool, width: int, narrow: int = 0, tight: bool = False) -> list:
    """A region in as few lines as fit ``width``: its lines beside its title where they fit, its
    labelled piles side by side (``stock: 4 (x30)   hand: ...   D0:  6   9``), each label-less pile (a row
    of a grid) on a line of its own, so that a grid keeps its shape. ``narrow`` (a block drawn beside
    others): 1, the title and each of its lines on lines of their own; 2, the title and the first part
    of its first line only ("player_3 total 12"). ``tight``: the labelled piles start on the title's line."""
    title = ("> " if reg.active else "") + reg.title
    if narrow == 2:
        first = reg.lines[0].split("   ")[0].strip() if reg.lines else ""
        lines = [_bold(title, color) + (" " + first if first and len(title) + 1 + len(first) <= 18 else "")]
    elif narrow:
        lines = [_bold(title, color)] + list(reg.lines)
    else:
        lines = _pack([_bold(title, color)], list(reg.lines), width)
    loose = []
    for row in reg.rows:
        for p in row:
            if p.label:
                note = f" {p.note}" if p.note and p.layout != "stack" else ""
                loose.append(f"{p.label}:{pile_text(p, palette, color).rstrip()}{note}")
                continue
            lines = _pack(lines, loose, width) if tight else lines + _pack([], loose, width)
            loose = []
            note = f"   ({p.note})" if p.note else ""
            lines.append("  " + pile_text(p, palette, color).rstrip() + note)
    return _pack(lines, loose, width) if tight else lines + _pack([], loose, width)


def side_by_side(blocks: list, width: int, gap: int = 3) -> list:
    """Blocks of lines laid out left to right while they fit ``width``, then on further shelves."""
    out, shelf, used = [], [], 0
    for b in blocks + [None]:
        w = max(width_of(x) for x in b) if b else 0
        if b is None or (shelf and used + gap + w > width):
            height = max(len(x[0]) for x in shelf) if shelf else 0
            for k in range(height):
                parts = [(blk[k] if k < len(blk) else "") + " " * (bw - width_of(blk[k] if k < len(blk) else ""))
                         for blk, bw in shelf]
                out.append((" " * gap).join(parts).rstrip())
            shelf, used = [], 0
            if b is None:
                break
        shelf.append((b, w))
        used += (gap if len(shelf) > 1 else 0) + w
    return out


def terminal(scene: Scene, color: bool = False, width: int = 80, height: int = 24) -> list:
    """The scene as terminal lines, as compact as it takes to leave room for moves under it: drawn as
    `ansi` draws it when that fits ``height`` (less 8 lines), else the first of these that fits: each
    region packed (`region_block`); the other seats' regions side by side in narrow blocks (two,
    then four abreast, with only their first line); every region's piles beside its title (tight);
    else the shortest of them. Lines wider than ``width`` are left to the caller."""
    budget = height - 8
    full = [x for x in ansi(scene, color).splitlines() if x.strip()]
    if len(full) <= budget:
        return full
    head = [_bold(scene.title, color)] + list(scene.lines)
    mine = [r for r in scene.players if r.you or "(you)" in r.title]
    others = [r for r in scene.players if r not in mine]

    def block(r, narrow=False):
        return region_block(r, scene.palette, color, width, narrow)

    top = head + block(scene.table)
    you = [x for r in mine for x in block(r)]
    packed = top + [x for r in others for x in block(r)] + you
    if len(packed) <= budget or not others:
        return packed
    tight = _pack([_bold(scene.title, color)], list(scene.lines), width) + \
        [x for r in [scene.table] + others + mine for x in region_block(r, scene.palette, color, width, tight=True)]
    tries = [packed, top + side_by_side([block(r, 1) for r in others], width) + you,
             top + side_by_side([block(r, 2) for r in others], width, gap=2) + you, tight]
    return next((t for t in tries if len(t) <= budget), min(tries, key=len))
