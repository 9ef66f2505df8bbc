"""A seat's view of the table as plain data (JSON-able), built from the game's `Scene`.

`view` turns the same `cardgym.render.scene.Scene` that `draw_text` and `draw_rgb` draw into nested
dicts and lists, so the text, the picture and the data can never disagree: whatever a seat's scene
hides (cards as backs), its view hides too. On top of the scene it adds what the scene only implies:
whose turn it is, the status and phase, the result once the game is over and, for the seat to act
only, its legal actions in words with the scene cards each one moves (``refs``, for a table where a
person clicks the cards).

Ids (stable within a game, used by ``refs``):

- a region: ``"table"`` or ``"p<seat>"``;
- a pile: ``"<region>.<label>"`` (``"table.draw"``, ``"p0.hand"``, ``"p1.D2"``), or
  ``"<region>.row<r>_<k>"`` for the k-th unlabelled pile of row r (Skyjo's grid rows);
- a card: ``"<pile>#<index>"`` (bottom first), and every face-up card also answers to
  ``"<pile>=<text>"`` (``"p0.hand=7"``, ``"p0.hand=W"`` for a wild): "any card of that value there".

This module knows no game: a game's ``scene.action_refs(record, rules, action)`` (optional; the
``GameSpec.action_refs`` field) names the ids an action moves, in the order a person clicks them.
"""

from __future__ import annotations

import json

import numpy as np

from ._common import check_viewer, legal_mask
from .scene import BANDS, EMPTY, VALUE, WILD, Card, Pile, Region, band

#: the version of the view's layout (bumped when a key changes meaning)
VIEW_VERSION = 1
_STATUS = {0: "running", 1: "terminated", 2: "truncated"}


def card_key(card: Card) -> str:
    """The ``=<text>`` part of a face-up card's value id: its number (and suit), or ``W`` for a wild."""
    return "W" if card.kind == WILD else card.text


def _card(card: Card, cid: str, palette) -> dict:
    out = {"id": cid, "kind": card.kind, "text": card.text, "highlight": bool(card.highlight)}
    if card.kind == VALUE:
        out["value"] = int(card.value)
        if card.suit:
            out["suit"] = card.suit
    if card.kind in (VALUE, WILD):
        out["band"] = band(palette, card)
        out["label"] = palette.wild_short if card.kind == WILD else card.text
    return out


def _pile(pile: Pile, pid: str, palette) -> dict:
    shown = sum(c.kind != EMPTY for c in pile.cards)
    return {
        "id": pid,
        "label": pile.label,
        "note": pile.note,
        "layout": pile.layout,
        # a scene's count is a badge (0: none drawn), never fewer than the cards it shows
        "count": shown if pile.count is None else max(int(pile.count), shown),
        "cards": [_card(c, f"{pid}#{k}", palette) for k, c in enumerate(pile.cards)],
    }


def _region(reg: Region, rid: str, palette) -> dict:
    rows, seen = [], set()
    for r, row in enumerate(reg.rows):
        out = []
        for k, pile in enumerate(row):
            name = pile.label if pile.label and pile.label not in seen else f"row{r}_{k}"
            seen.add(name)
            out.append(_pile(pile, f"{rid}.{name}", palette))
        rows.append(out)
    return {
        "id": rid,
        "title": reg.title,
        "lines": list(reg.lines),
        "active": bool(reg.active),
        "you": bool(reg.you),
        "team": reg.team,
        "rows": rows,
    }


def palette_dict(palette) -> dict:
    """A game's colours as CSS-ready data: ``band -> {fill, ink}`` (``#rrggbb``; ``ink`` None for the
    white "ink" cards of Skip-Bo), the card back's fill and the wild's names."""

    def hexc(rgb):
        return None if rgb is None else "#%02x%02x%02x" % tuple(rgb)

    return {
        "name": palette.name,
        "bands": {k: {"fill": hexc(v[0]), "ink": hexc(v[1])} for k, v in BANDS.items()},
        "back": hexc(palette.back_fill),
        "wild_label": palette.wild_label,
        "wild_short": palette.wild_short,
    }


def plain(x):
    """JSON-able copy of a game's result dict (numpy scalars and arrays as Python values)."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def view(game, record, rules, viewer=None, mask=None) -> dict:
    """What seat ``viewer`` sees in ``record`` (``None``: a spectator, the public table) as JSON-able data.

    Keys: ``version``, ``game``, ``title``, ``lines`` (the scene's status lines), ``viewer``,
    ``num_players``, ``status`` (``"running"``, ``"terminated"``, ``"truncated"``), ``current`` (the
    seat to act, ``None`` once over), ``phase`` (the record's ``phase`` field where the game has one),
    ``turn``, ``table`` and ``players`` (regions: ``id``, ``title``, ``lines``, ``active``, ``you``,
    ``team``, ``rows`` of piles: ``id``, ``label``, ``note``, ``layout``, ``count`` (the cards the pile
    holds, never fewer than it shows), ``cards``: ``id``, ``kind`` (``value``/``wild``/``back``/``empty``), ``text``, ``highlight``, and for a face-up card
    ``value``, ``band`` and ``label``, and ``suit`` when it has one), ``legal`` (only for the seat to act, else ``[]``: ``action``,
    ``text``, ``refs``) and ``result`` (the game's result once it is over, else ``None``).

    ``mask`` is the legal-action mask of the seat to act if the caller has it (the env does);
    otherwise it is computed from ``record``.
    """
    n = int(record["num_players"])
    viewer = check_viewer(viewer, n)
    sc = game.scene(record, rules, viewer)
    pal = sc.palette
    status = int(record["status"])
    running = status == 0
    cur = int(record["current"])
    names = record.dtype.names
    legal = []
    if running and viewer == cur:
        if mask is None:
            mask = legal_mask(game, record, rules)
        describe = game.describe_action or (lambda r, ru, a: game.action_to_str(a))
        refs = game.action_refs
        for a in np.flatnonzero(np.asarray(mask)).tolist():
            legal.append({
                "action": int(a),
                "text": describe(record, rules, a),
                "refs": list(refs(record, rules, a)) if refs is not None else [],
            })
    players = []
    for i, reg in enumerate(sc.players):
        d = _region(reg, f"p{i}", pal)
        d["seat"] = i
        d["you"] = d["you"] or viewer == i
        players.append(d)
    return {
        "version": VIEW_VERSION,
        "game": game.name,
        "title": sc.title,
        "lines": list(sc.lines),
        "viewer": viewer,
        "num_players": n,
        "status": _STATUS.get(status, str(status)),
        "current": cur if running else None,
        "phase": int(record["phase"]) if "phase" in names else None,
        "turn": int(record["turn"]) if "turn" in names else None,
        "table": _region(sc.table, "table", pal),
        "players": players,
        "legal": legal,
        "result": None if running else plain(game.result(record, rules)),
    }


def dumps(v: dict) -> str:
    """A view as canonical JSON (sorted keys): equal views give equal strings."""
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def element_ids(v: dict) -> set:
    """Every id a click can name in a view: piles, cards and the ``=<text>`` value ids of face-up cards."""
    out = set()
    for reg in [v["table"]] + list(v["players"]):
        for row in reg["rows"]:
            for pile in row:
                out.add(pile["id"])
                for c in pile["cards"]:
                    out.add(c["id"])
                    if c["kind"] in (VALUE, WILD):
                        out.add(f"{pile['id']}={'W' if c['kind'] == WILD else c['text']}")
    return out


__all__ = ["VIEW_VERSION", "card_key", "dumps", "element_ids", "palette_dict", "plain", "view"]
