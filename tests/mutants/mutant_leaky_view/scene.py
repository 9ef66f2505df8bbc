"""Crazy Eights whose scene shows the draw pile's top card (the broken piece of this mutant)."""

from __future__ import annotations

from cardgym.kit import Pile
from crazy_eights.scene import PALETTE, _face
from crazy_eights.scene import scene as _scene


def scene(r, rules, viewer=None):
    """Broken: the draw pile shows its top card face up."""
    s = _scene(r, rules, viewer)
    n = int(r["draw_len"])
    if n:
        s.table.rows[0][0] = Pile([_face(int(r["draw"][n - 1]))], layout="stack", label="draw", count=n)
    return s
