"""Pictures and text views of a game's table, public or as one seat sees it.

Entry points (``game_spec`` is a `cardgym.core.contract.game.GameSpec`, e.g. ``cardgym.get_game(name)``)::

    import cardgym
    from cardgym import render
    game = cardgym.get_game(name)
    img = render.rgb_array(game, record, rules)                       # uint8 (H, W, 3), public view
    txt = render.ansi(game, record, rules, viewer=0, color=True)      # what seat 0 sees

``viewer=None`` is what a spectator sees (cards in hands and other hidden cards as backs); ``viewer=k``
adds what seat ``k`` alone sees and highlights the cards it can play when it is to act (what each view
shows is the game's choice).

Underneath, the game's own builder (``GameSpec.scene``, from ``games/<game>/scene.py``) turns a state
record into a game-independent `cardgym.render.scene.Scene` coloured by the game's
`cardgym.render.scene.Palette`, which `draw_rgb.rgb` (Pillow; ``pip install cardgym[render]``) or
`draw_text.ansi` draws. This package knows no game. The image size depends only on the game and its
number of players, so every frame of an episode has the same size.
"""

from __future__ import annotations

import sys
import types
import warnings

import numpy as np

from .scene import Card, Palette, Pile, Region, Scene


def _spec(game_spec):
    """``game_spec`` itself, checked to be a GameSpec with a ``scene`` (render knows no game and no
    registry: pass ``cardgym.get_game(name)`` for a game's name)."""
    if getattr(game_spec, "scene", None) is None:
        what = game_spec if isinstance(game_spec, str) else getattr(game_spec, "name", type(game_spec).__name__)
        raise ValueError(
            f"no renderer for {what!r}: render takes a GameSpec with a scene (games/<game>/scene.py), "
            "e.g. cardgym.get_game(name)"
        )
    return game_spec


def table_scene(game_spec, record, rules, viewer=None) -> Scene:
    """The `Scene` of a state record: the public view (``viewer=None``) or seat ``viewer``'s."""
    return _spec(game_spec).scene(record, rules, viewer)


class _SceneModule(types.ModuleType):
    """The module `cardgym.render.scene` (the scene model), callable for a while as the function of that
    name it used to be hidden by: ``render.scene(game, record, rules)`` warns and calls `table_scene`."""

    def __call__(self, game_spec, record, rules, viewer=None) -> Scene:
        warnings.warn("cardgym.render.scene(game, record, rules, viewer) is deprecated: call "
                      "cardgym.render.table_scene(...) (cardgym.render.scene is the scene model's module)",
                      DeprecationWarning, stacklevel=2)
        return table_scene(game_spec, record, rules, viewer)


# `import cardgym.render.scene as sc` gives the module (the function of the same name used to shadow it)
sys.modules[f"{__name__}.scene"].__class__ = _SceneModule


def _need_pillow(what: str):
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs Pillow: pip install 'cardgym[render]'") from None


def rgb_array(game_spec, record, rules, viewer=None) -> np.ndarray:
    """The table as an RGB picture, ``uint8 (H, W, 3)`` (needs Pillow)."""
    _need_pillow("cardgym.render.rgb_array")
    from .draw_rgb import rgb

    return rgb(table_scene(game_spec, record, rules, viewer))


def image(game_spec, record, rules, viewer=None):
    """The table as a ``PIL.Image`` (what `rgb_array` returns as an array; needs Pillow)."""
    _need_pillow("cardgym.render.image")
    from .draw_rgb import render_image

    return render_image(table_scene(game_spec, record, rules, viewer))


def ansi(game_spec, record, rules, viewer=None, color: bool = False) -> str:
    """The table as text; ``color=True`` adds ANSI colour codes."""
    from .draw_text import ansi as draw

    return draw(table_scene(game_spec, record, rules, viewer), color=color)


def size_change(before: Scene, after: Scene) -> str:
    """Why the picture of scene ``after`` is not the size of ``before``'s: the piles that grew or shrank
    (region, label, cards then and now) and the regions whose rows or lines changed in number; "" when
    their layouts match (`cardgym.render.draw_rgb.size_change`; no Pillow needed)."""
    from .draw_rgb import size_change as explain

    return explain(before, after)


__all__ = ["Card", "Palette", "Pile", "Region", "Scene", "ansi", "image", "rgb_array", "size_change", "table_scene"]
