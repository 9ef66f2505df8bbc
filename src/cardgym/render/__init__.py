"""Pictures and text views of a game's table, public or as one seat sees it.

Entry points (``game_spec`` is a `cardgym.core.game.GameSpec` or a game name)::

    from cardgym import render, skyjo_v0
    e = skyjo_v0.raw_env(num_players=3); e.reset(seed=1)
    img = render.rgb_array(skyjo_v0.GAME, e.record, e.rules)              # uint8 (H, W, 3), public view
    txt = render.ansi(skyjo_v0.GAME, e.record, e.rules, viewer=0, color=True)  # what seat 0 sees

``viewer=None`` is what a spectator sees (hidden cards as backs, Skip-Bo hands as backs); ``viewer=k``
adds what seat ``k`` alone sees (its Skip-Bo hand) and highlights the cards it can play when it is to
act. Face-down Skyjo cards stay hidden in every view: nobody has seen them.

Underneath, a per-game builder (``cardgym.render.<game>.scene``) turns a state record into a
game-independent `cardgym.render.scene.Scene`, which `draw_rgb.rgb` (Pillow; ``pip install
cardgym[render]``) or `draw_text.ansi` draws. The image size depends only on the game and its
number of players, so every frame of an episode has the same shape.
"""

from __future__ import annotations

import importlib

import numpy as np

from .scene import Card, Pile, Region, Scene

GAMES = ("skyjo", "skipbo", "skipbo_junior")


def _name(game_spec) -> str:
    name = game_spec if isinstance(game_spec, str) else getattr(game_spec, "name", None)
    if name not in GAMES:
        raise ValueError(f"no renderer for game {name!r}; games: {list(GAMES)}")
    return name


def scene(game_spec, record, rules, viewer=None) -> Scene:
    """The `Scene` of a state record: the public view (``viewer=None``) or seat ``viewer``'s."""
    name = _name(game_spec)
    if isinstance(game_spec, str):
        game_spec = importlib.import_module(f"cardgym.games.{name}").GAME
    if game_spec.scene is not None:  # the game folder's scene.py
        return game_spec.scene(record, rules, viewer)
    return importlib.import_module(f"{__name__}.{name}").scene(record, rules, viewer)


def _need_pillow(what: str):
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs Pillow: pip install 'cardgym[render]'") from None


def rgb_array(game_spec, record, rules, viewer=None) -> np.ndarray:
    """The table as an RGB picture, ``uint8 (H, W, 3)`` (needs Pillow)."""
    _need_pillow("cardgym.render.rgb_array")
    from .draw_rgb import rgb

    return rgb(scene(game_spec, record, rules, viewer))


def image(game_spec, record, rules, viewer=None):
    """The table as a ``PIL.Image`` (what `rgb_array` returns as an array; needs Pillow)."""
    _need_pillow("cardgym.render.image")
    from .draw_rgb import render_image

    return render_image(scene(game_spec, record, rules, viewer))


def ansi(game_spec, record, rules, viewer=None, color: bool = False) -> str:
    """The table as text; ``color=True`` adds ANSI colour codes."""
    from .draw_text import ansi as draw

    return draw(scene(game_spec, record, rules, viewer), color=color)


__all__ = ["Card", "Pile", "Region", "Scene", "ansi", "image", "rgb_array", "scene"]
