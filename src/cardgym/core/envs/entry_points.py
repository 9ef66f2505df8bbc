"""Builds a game's public entry points (PettingZoo ``raw_env``/``env``, the Gymnasium env class)."""

from __future__ import annotations

from cardgym.core.envs.aec import CardGameAEC, aec_metadata, wrap_classic
from cardgym.core.contract.game import GameSpec
from cardgym.core.envs.single import CardGameEnv


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


def vector_entry_point(game: GameSpec, module: str):
    """``make_vec(num_envs=1, **kwargs)``: the compiled vector env of ``game``, defined as if written in
    ``module``; it is the Gymnasium ``vector_entry_point`` of the game's id, so that
    ``gymnasium.make_vec(game.gym_id, num_envs=N, ...)`` builds one
    [`CardGameVectorEnv`][cardgym.core.envs.vector.CardGameVectorEnv] instead of N Python envs."""
    from cardgym.core.envs.vector import CardGameVectorEnv

    def make_vec(num_envs: int = 1, render_mode=None, max_episode_steps=None, **kwargs):
        if render_mode is not None:
            raise ValueError(
                f"the compiled vector env of {game.name} does not render (render_mode must be None, got "
                f"{render_mode!r}); render the single env (gymnasium.make) or the AEC env"
            )
        if max_episode_steps is not None:
            raise ValueError(
                f"max_episode_steps is not supported by the compiled vector env of {game.name} (its games "
                f"end by their rules); use gymnasium.make_vec(..., vectorization_mode='sync') for a "
                f"TimeLimit on each env"
            )
        return CardGameVectorEnv(game, num_envs, **kwargs)

    make_vec.__module__ = module
    make_vec.__qualname__ = "make_vec"
    make_vec.__doc__ = (
        f"{game.title}: ``num_envs`` games stepped by one compiled call (the ``vector_entry_point`` of "
        f"``{game.gym_id}``; the arguments of ``cardgym.make_vec({game.name!r}, num_envs, ...)``: "
        f"``opponent``, ``seat``, ``observation``, ``autoreset_mode``, ``illegal_penalty``, ``copy`` and "
        f"the rule options). ``render_mode`` must be None."
    )
    return make_vec
