"""Draw a `cardgym.render.scene.Scene` as an RGB image with Pillow (``pip install cardgym[render]``).

Cards are rounded rectangles coloured by the scene's `Palette`: a value in an "ink" band (no number
colour in `BANDS`) is a white card with a coloured number, in another band a card filled with the band's
colour; wilds are orange, face-down cards show a patterned back in the palette's ``back_fill`` and empty
slots a faint outline. Text uses Pillow's built-in default font (no font files needed).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .scene import BACK, BANDS, EMPTY, TEAM_COLOURS, WILD, Card, Palette, Pile, Region, Scene, band

CW, CH = 46, 64  # card size
RAD = 7  # corner radius
GAP = 6  # between cards of a "row" pile
PILE_GAP = 14  # between piles
ROW_GAP = 8  # between rows of piles
FAN_STEP = 17  # visible strip of a fanned card
STACK_OFF = 3  # offset of the edges drawn under a "stack" pile's top card
PILE_MIN_W = CW + 20  # room for captions
CAPTION_H = 16
PAD = 10  # inside a region
MARGIN = 10  # around regions
TITLE_H = 20
LINE_H = 16
MAX_WIDTH = 1400  # player regions wrap into rows to stay under this width

FELT = (20, 92, 56)
PANEL = (14, 70, 42)
PANEL_ACTIVE = (24, 84, 52)
TEXT = (236, 240, 232)
DIM = (170, 200, 180)
GOLD = (255, 204, 40)
HIGHLIGHT = (255, 236, 0)
SLOT_FILL = (10, 58, 34)
SLOT_LINE = (70, 124, 90)
FACE = (252, 250, 242)


@lru_cache(maxsize=16)
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType: scalable
    except (TypeError, AttributeError, OSError, ImportError):  # older Pillow: the small bitmap font
        return ImageFont.load_default()


def _text_center(draw, cx, cy, text, font, fill, stroke=0):
    """Draw ``text`` centred on (cx, cy) (bounding-box based: works with bitmap fonts too)."""
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font, stroke_width=stroke)
    draw.text(
        (cx - (x0 + x1) / 2, cy - (y0 + y1) / 2),
        text,
        font=font,
        fill=fill,
        stroke_width=stroke,
        stroke_fill=fill,
    )


def _darker(rgb, f=0.65):
    return tuple(int(c * f) for c in rgb)


# ------------------------------------------------------------------------------------------- sizes


def pile_size(p: Pile) -> tuple:
    """(width, height) of a pile's cards (caption excluded)."""
    if p.layout == "fan":
        return CW, CH + (max(p.fan_slots, 1) - 1) * FAN_STEP
    if p.layout == "stack":
        return CW + 2 * STACK_OFF, CH + 2 * STACK_OFF
    n = max(len(p.cards), 1)
    return n * CW + (n - 1) * GAP, CH


def _box_w(p: Pile) -> int:
    return max(pile_size(p)[0], PILE_MIN_W)


def _row_size(row) -> tuple:
    w = sum(_box_w(p) for p in row) + PILE_GAP * (len(row) - 1)
    h = max(pile_size(p)[1] for p in row) + (CAPTION_H if any(p.caption for p in row) else 0) + 6
    return w, h


def region_size(reg: Region) -> tuple:
    rows = [_row_size(r) for r in reg.rows if r]
    w = max([rw for rw, _ in rows] + [reg.min_width])
    h = TITLE_H + LINE_H * len(reg.lines) + sum(rh for _, rh in rows) + ROW_GAP * max(len(rows) - 1, 0)
    if rows and reg.lines:
        h += 4
    return w + 2 * PAD, h + 2 * PAD + 4


def _pile_words(p: Pile) -> str:
    name = f"pile {p.label!r}" if p.label else "an unlabelled pile"
    return f'{name} ("{p.layout}" layout)'


def _pile_change(where: str, a: Pile, b: Pile) -> str | None:
    """What makes pile ``b`` drawn at another size than ``a`` (same place in the scene), or None."""
    if a.layout != b.layout:
        return f"{where}: {_pile_words(a)} became a \"{b.layout}\" pile"
    if pile_size(a) != pile_size(b):
        if a.layout == "row":
            verb = "grew" if len(b.cards) > len(a.cards) else "shrank"
            return (f"{where}: {_pile_words(b)} {verb} from {len(a.cards)} to {len(b.cards)} cards, so its "
                    f"width went from {pile_size(a)[0]} to {pile_size(b)[0]} px (a \"row\" pile is as wide as "
                    f"its cards: give it a fixed number of slots, empty cards where none lies, or lay it out "
                    f"as a \"fan\" with fan_slots or a \"stack\")")
        return (f"{where}: {_pile_words(b)} reserves room for {b.fan_slots} cards (fan_slots), it reserved "
                f"{a.fan_slots} before (keep fan_slots fixed: older cards are summarised as +k)")
    if bool(a.caption) != bool(b.caption):
        return f"{where}: {_pile_words(b)} {'gained' if b.caption else 'lost'} its caption (label/note)"
    return None


def _region_name(i: int | None, reg: Region) -> str:
    return f"the table region {reg.title!r}" if i is None else f"player region {i} {reg.title!r}"


def size_change(before: Scene, after: Scene, limit: int = 5) -> str:
    """Why the picture of ``after`` is not the size of ``before`` (two scenes of one game): each pile
    that grew or shrank (its region, its label, its cards then and now), each region whose rows or text
    lines changed in number, at most ``limit`` of them; "" when nothing in the layout differs.

    A game's frames must keep one size (`scene_size` depends only on the layout, never on the values):
    this names what broke that, for the check that finds frames of two sizes."""
    found = []
    if len(before.lines) != len(after.lines):
        found.append(f"the scene has {len(after.lines)} text lines, it had {len(before.lines)}")
    if len(before.players) != len(after.players):
        found.append(f"the scene has {len(after.players)} player regions, it had {len(before.players)}")
    pairs = [(None, before.table, after.table)] + list(zip(range(len(after.players)), before.players, after.players))
    for i, ra, rb in pairs:
        name = _region_name(i, rb)
        if len(ra.lines) != len(rb.lines):
            found.append(f"{name} has {len(rb.lines)} text lines, it had {len(ra.lines)}")
        if ra.min_width != rb.min_width:
            found.append(f"{name} has min_width {rb.min_width}, it had {ra.min_width}")
        rows_a, rows_b = [r for r in ra.rows if r], [r for r in rb.rows if r]
        if len(rows_a) != len(rows_b):
            found.append(f"{name} has {len(rows_b)} rows of piles, it had {len(rows_a)}")
            continue
        for k, (row_a, row_b) in enumerate(zip(rows_a, rows_b)):
            if len(row_a) != len(row_b):
                found.append(f"{name}, row {k}: {len(row_b)} piles, it had {len(row_a)}")
                continue
            for pa, pb in zip(row_a, row_b):
                change = _pile_change(f"{name}, row {k}", pa, pb)
                if change:
                    found.append(change)
    more = f"; and {len(found) - limit} more" if len(found) > limit else ""
    return "; ".join(found[:limit]) + more


# ------------------------------------------------------------------------------------------- cards


@lru_cache(maxsize=1024)
def _tile(palette: Palette, kind: str, value, highlight: bool, suit: str = ""):
    """A card drawn once on a transparent tile (3 px of room around it for the highlight)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (CW + 6, CH + 6), (0, 0, 0, 0))
    _draw_card(ImageDraw.Draw(img), 3, 3, Card(kind, value, highlight, suit), palette)
    return img


def draw_card(img, x, y, card: Card, palette: Palette):
    """Paste one card with its top-left corner at (x, y) of ``img``."""
    tile = _tile(palette, card.kind, card.value, bool(card.highlight), card.suit)
    img.paste(tile, (int(x) - 3, int(y) - 3), tile)


def _draw_card(draw, x, y, card: Card, palette: Palette):
    """Draw one card with its top-left corner at (x, y)."""
    box = [x, y, x + CW - 1, y + CH - 1]
    if card.highlight:
        draw.rounded_rectangle([x - 3, y - 3, x + CW + 2, y + CH + 2], RAD + 3, outline=HIGHLIGHT, width=3)
    if card.kind == EMPTY:
        draw.rounded_rectangle(box, RAD, fill=SLOT_FILL, outline=SLOT_LINE, width=1)
        return
    if card.kind == BACK:
        fill = palette.back_fill
        draw.rounded_rectangle(box, RAD, fill=fill, outline=(245, 245, 245), width=2)
        inner = [x + 5, y + 5, x + CW - 6, y + CH - 6]
        draw.rounded_rectangle(
            inner, RAD - 3, outline=_darker(fill, 1.45 if max(fill) < 170 else 0.7), width=1
        )
        light = tuple(min(255, int(c * 1.35) + 20) for c in fill)
        for k in range(-CH, CW, 8):  # diagonal hatch inside the inner frame
            x0, y0 = x + 7 + k, y + 7
            x1, y1 = x0 + (CH - 14), y + CH - 8
            # clip the segment to the inner frame horizontally
            if x1 < x + 7 or x0 > x + CW - 8:
                continue
            t0 = max(0.0, (x + 7 - x0) / (x1 - x0))
            t1 = min(1.0, (x + CW - 8 - x0) / (x1 - x0))
            draw.line(
                [x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0), x0 + t1 * (x1 - x0), y0 + t1 * (y1 - y0)],
                fill=light,
                width=1,
            )
        cx, cy = x + CW / 2, y + CH / 2
        draw.ellipse([cx - 9, cy - 9, cx + 9, cy + 9], fill=fill, outline=(245, 245, 245), width=1)
        return
    b = band(palette, card)
    colour, fg, _ = BANDS[b]
    if card.kind == WILD:
        draw.rounded_rectangle(box, RAD, fill=colour, outline=_darker(colour), width=2)
        label = palette.wild_label
        draw.text((x + 4, y + 2), palette.wild_short, font=_font(12), fill=fg)
        if "-" in label:  # two lines, split before the hyphen
            head, tail = label.split("-", 1)
            _text_center(draw, x + CW / 2, y + CH / 2 - 2, head, _font(13), fg, stroke=0)
            _text_center(draw, x + CW / 2, y + CH / 2 + 12, "-" + tail, _font(13), fg, stroke=0)
        else:
            _text_center(draw, x + CW / 2, y + CH / 2 + 4, palette.wild_short, _font(26), fg, stroke=1)
        return
    text = str(card.value)
    if fg is None:  # an "ink" band: white card, coloured number and frame
        draw.rounded_rectangle(box, RAD, fill=FACE, outline=colour, width=2)
        ink = colour
    else:  # a "fill" band: the card is the colour
        draw.rounded_rectangle(box, RAD, fill=colour, outline=_darker(colour), width=2)
        ink = fg
        cx, cy = x + CW / 2, y + CH / 2 + 4
        draw.ellipse([cx - 16, cy - 17, cx + 16, cy + 17], outline=_blend(colour, ink, 0.35), width=1)
    if fg is None or card.suit:  # corner index (what a fanned card shows): the number and the suit
        draw.text((x + 4, y + 2), card.text, font=_font(12), fill=ink)
    _text_center(draw, x + CW / 2, y + CH / 2 + 4, text, _font(24 if len(text) < 3 else 20), ink, stroke=1)
    if card.suit:  # the suit again under the number
        _text_center(draw, x + CW / 2, y + CH - 12, card.suit, _font(13), ink, stroke=0)


def _blend(a, b, t):
    return tuple(int(a[i] + (b[i] - a[i]) * t) for i in range(3))


def draw_pile(img, draw, x, y, p: Pile, palette: Palette, caption_y=None):
    """A pile in a box of width ``_box_w(p)``, cards from (x, y); its caption centred on ``caption_y``."""
    bw = _box_w(p)
    pw, _ = pile_size(p)
    x0 = x + (bw - pw) // 2
    caption = p.caption
    if p.layout == "fan":
        cards = p.cards or [Card(EMPTY)]
        shown = cards[-p.fan_slots :] if p.fan_slots > 0 else cards[-1:]
        extra = len(cards) - len(shown)
        for k, c in enumerate(shown):
            draw_card(img, x0, y + k * FAN_STEP, c, palette)
        if extra:
            caption = f"{caption} (+{extra})".strip()
    elif p.layout == "stack":
        top = p.cards[-1] if p.cards else Card(EMPTY)
        count = p.count if p.count is not None else len(p.cards)
        if top.kind != EMPTY:
            edge = palette.back_fill if top.kind == BACK else (215, 212, 200)
            for k in (2, 1):
                if count > k:
                    o = k * STACK_OFF
                    draw.rounded_rectangle(
                        [x0 + o, y + o, x0 + o + CW - 1, y + o + CH - 1], RAD, fill=edge, outline=(60, 60, 60)
                    )
        draw_card(img, x0, y, top, palette)
    else:
        cards = p.cards or [Card(EMPTY)]
        for k, c in enumerate(cards):
            draw_card(img, x0 + k * (CW + GAP), y, c, palette)
    if caption and caption_y is not None:
        _text_center(draw, x + bw / 2, caption_y, caption, _font(12), DIM)


def draw_region(img, x, y, w, h, reg: Region, palette: Palette, center_rows=False):
    from PIL import Image, ImageDraw

    panel = Image.new("RGB", (w, h), FELT)
    d = ImageDraw.Draw(panel)
    fill = PANEL_ACTIVE if reg.active else PANEL
    d.rounded_rectangle([0, 0, w - 1, h - 1], 10, fill=fill)
    if reg.team is not None:
        d.rounded_rectangle(
            [0, 0, w - 1, h - 1], 10, outline=TEAM_COLOURS[reg.team % len(TEAM_COLOURS)], width=2
        )
    if reg.active:
        d.rounded_rectangle([0, 0, w - 1, h - 1], 10, outline=GOLD, width=3)
        if reg.team is not None:
            d.rounded_rectangle(
                [4, 4, w - 5, h - 5], 7, outline=TEAM_COLOURS[reg.team % len(TEAM_COLOURS)], width=1
            )
    ty = PAD
    title_colour = (
        GOLD if reg.active else (TEAM_COLOURS[reg.team % len(TEAM_COLOURS)] if reg.team is not None else TEXT)
    )
    d.text((PAD, ty), reg.title, font=_font(15), fill=title_colour)
    ty += TITLE_H
    for line in reg.lines:
        d.text((PAD, ty), line, font=_font(13), fill=TEXT)
        ty += LINE_H
    if reg.lines:
        ty += 4
    for row in reg.rows:
        if not row:
            continue
        rw, rh = _row_size(row)
        rx = (w - rw) // 2 if center_rows else PAD
        has_caption = any(p.caption for p in row)
        cy = ty + CAPTION_H // 2 if has_caption else None
        top = ty + (CAPTION_H if has_caption else 0) + 3
        for p in row:
            draw_pile(panel, d, rx, top, p, palette, cy)
            rx += _box_w(p) + PILE_GAP
        ty += rh + ROW_GAP
    img.paste(panel, (x, y))


def rgb(scene: Scene) -> np.ndarray:
    """The scene as an ``(H, W, 3)`` uint8 array."""
    return np.asarray(render_image(scene), dtype=np.uint8)


def _layout(scene: Scene) -> dict:
    n = len(scene.players)
    sizes = [region_size(r) for r in scene.players]
    cw = max(s[0] for s in sizes) if sizes else 0
    ch = max(s[1] for s in sizes) if sizes else 0
    ncols = max(1, min(n, (MAX_WIDTH - MARGIN) // max(cw + MARGIN, 1)))
    nrows = math.ceil(n / ncols) if n else 0
    ncols = math.ceil(n / nrows) if nrows else 1
    tw, th = region_size(scene.table)
    width = max(ncols * (cw + MARGIN) + MARGIN, tw + 2 * MARGIN, 360)
    head_h = 26 + LINE_H * len(scene.lines)
    height = MARGIN + head_h + th + MARGIN + nrows * (ch + MARGIN) + MARGIN // 2
    return {"cw": cw, "ch": ch, "ncols": ncols, "th": th, "width": width, "height": height}


def scene_size(scene: Scene) -> tuple:
    """``(width, height)`` of the picture of ``scene`` (computed without drawing)."""
    lay = _layout(scene)
    return lay["width"], lay["height"]


def render_image(scene: Scene):
    """The scene as a ``PIL.Image`` (RGB)."""
    from PIL import Image, ImageDraw

    lay = _layout(scene)
    cw, ch, ncols, th, width, height = (lay[k] for k in ("cw", "ch", "ncols", "th", "width", "height"))
    img = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(img)
    y = MARGIN
    d.text((MARGIN + 2, y), scene.title, font=_font(18), fill=(255, 255, 255))
    y += 26
    for line in scene.lines:
        d.text((MARGIN + 2, y), line, font=_font(13), fill=TEXT)
        y += LINE_H
    draw_region(img, MARGIN, y, width - 2 * MARGIN, th, scene.table, scene.palette, center_rows=True)
    y += th + MARGIN
    used = ncols * (cw + MARGIN) - MARGIN
    left = (width - used) // 2
    for i, reg in enumerate(scene.players):
        r, c = divmod(i, ncols)
        draw_region(img, left + c * (cw + MARGIN), y + r * (ch + MARGIN), cw, ch, reg, scene.palette)
    return img
