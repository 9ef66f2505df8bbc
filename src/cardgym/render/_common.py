"""Helpers shared by the scene builders."""

from __future__ import annotations

import numpy as np

from .scene import BACK, VALUE, WILD, Card, Pile, Region


def legal_mask(game, record, rules) -> np.ndarray:
    """The legal-action mask of the seat to act in ``record`` (the game's compiled ``legal``)."""
    states = game.new_states(1)
    states[0] = record
    mask = np.zeros(game.num_actions, np.int8)
    game.compiled().legal_one(states, 0, rules.params(), mask)
    return mask


def you(i: int, viewer) -> str:
    return " (you)" if viewer is not None and i == viewer else ""


def check_viewer(viewer, n: int):
    if viewer is None:
        return None
    if isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer)) or not 0 <= int(viewer) < n:
        raise ValueError(f"viewer must be None (public view) or a seat 0..{n - 1}, got {viewer!r}")
    return int(viewer)


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
