"""Crazy Eights whose dict observation leaks the draw pile's top card (the broken piece of this mutant)."""

from __future__ import annotations

from cardgym.kit import DictEncoder
from crazy_eights.observe import ENCODERS as _ENCODERS, WORLD, dict_encode, dict_space, state_size  # noqa: F401


def leaky_encode(r, rules, seat) -> dict:
    """Broken: ``draw_size`` holds the code of the draw pile's top card."""
    out = dict_encode(r, rules, seat)
    n = int(r["draw_len"])
    out["draw_size"] = int(r["draw"][n - 1]) if n else 0
    return out


ENCODERS = {"vector": _ENCODERS["vector"], "dict": DictEncoder("dict", dict_space, leaky_encode, doc="leaks")}
