"""Builds a game's public entry points (PettingZoo ``raw_env``/``env``, the Gymnasium env class)."""

from __future__ import annotations

from .aec import CardGameAEC, aec_metadata, wrap_classic
from .game import GameSpec
from .single import CardGameEnv


def game_entry_points(game: GameSpec, module: str, gym_class_name: str):
    """``(raw_env, env, GymEnv)`` for ``game``, defined as if written in ``module`` (so they pickle)."""
    raw_env = type(
        "raw_env",
        (CardGameAEC,),
        {
            "game": game,
            "metadata": aec_metadata(game),
            "__module__": module,
            "__qualname__": "raw_env",
            "__doc__": f"{game.title} as a PettingZoo AEC environment without wrappers "
            f"(illegal actions raise ValueError). See ``{module}.env``.",
        },
    )

    def env(**kwargs):
        """The PettingZoo AEC environment with the classic wrappers (TerminateIllegal,
        AssertOutOfBounds, OrderEnforcing). Keyword arguments: ``render_mode``, ``observation`` and
        every rule option."""
        return wrap_classic(raw_env(**kwargs))

    env.__module__ = module
    gym_env = type(
        gym_class_name,
        (CardGameEnv,),
        {
            "game": game,
            "__module__": module,
            "__qualname__": gym_class_name,
            "__doc__": f"{game.title} as a single-agent Gymnasium environment ({game.gym_id}).",
        },
    )
    return raw_env, env, gym_env
