"""One frame of a table, in a render mode: the AEC and single-agent envs' ``render()``."""

from __future__ import annotations

from cardgym.core import services as plugins
from cardgym.core.contract.game import GameSpec


def render_frame(game: GameSpec, mode: str, record, rules, viewer=None):
    """The table in ``mode``: ``"ansi"`` text (returned), ``"human"`` (printed), ``"rgb_array"`` picture."""
    if mode == "rgb_array":
        return plugins.get("rgb_array")(game, record, rules, viewer=viewer)  # cardgym.render, plugged in
    text = game.render_ansi(record, rules)
    if mode == "ansi":
        return text
    print(text)
    return None
