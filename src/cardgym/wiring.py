"""Plugs the package's renderer and model loading into core (`cardgym.core.services`).

Core is the bottom layer and imports neither `cardgym.render` nor `cardgym.agents`; this module, run
once by ``cardgym/__init__.py``, hands them to it. It sits just above them (docs/api.md, "Layers": below
the registry), so ``import cardgym`` imports nothing from the layers above (it lived in ``cardgym.app``). Each loader imports its module on first use only,
so ``import cardgym`` loads neither Pillow nor torch.
"""

from __future__ import annotations

from cardgym.core import services as plugins


def _rgb_array():
    from cardgym.render import rgb_array

    return rgb_array


def _view():
    from cardgym.render.view import view

    return view


def load_model_opponent(game, path, rules=None, observation: str | None = None):
    """A saved model (``cardgym.agents.load_policy``, torch ``weights_only=True``) as an opponent.

    The file is checked before anything is built (``ValueError("not a cardgym model: ...")`` otherwise);
    a model trained on another game is refused, and so is one trained with other ``rules`` (a ``Rules``
    object or option dict) or another ``observation`` encoder when those are given. ``"agent"`` is the
    trained agent shipped in the package for these rules (`cardgym.agents.pretrained`)."""
    from pathlib import Path

    if isinstance(path, str) and path == "agent":
        from cardgym.agents.pretrained import load_agent

        return load_agent(game, rules, observation)
    from cardgym.agents import CHECKPOINT_STATE, check_model_fits, load_policy

    p = Path(path)
    if not (p.is_file() or (p / CHECKPOINT_STATE).is_file()):  # a model file or a trainer checkpoint folder
        raise ValueError(
            f"opponent {str(path)!r} is neither a bot of {game.name} {sorted(game.bots)}, 'agent' nor a model file"
        )
    policy = load_policy(p)
    check_model_fits(policy, game, rules, observation, where=str(path))
    return policy


def plug_in() -> None:
    """Fill every slot of `cardgym.core.services` with this package's implementation."""
    plugins.plug("rgb_array", _rgb_array)
    plugins.plug("model_opponent", lambda: load_model_opponent)
    plugins.plug("view", _view)
