"""The wrappers ``gymnasium.make`` puts around a cardgym env, as subclasses that copy the whole stack.

``gymnasium.make(id)`` wraps an env in ``PassiveEnvChecker`` and ``OrderEnforcing``. Gymnasium's wrappers
have no ``clone()`` (Gymnasium 1.x forwards no attributes), and ``copy.copy`` of one is a shallow copy
that shares the game with the original, so two envs would step one game. cardgym's ids are therefore
registered with ``order_enforce=False, disable_env_checker=True`` and an entry point,
`gym_entry_point`, that builds the same two wrappers itself, as these subclasses: they behave as
Gymnasium's (same checks, same errors, same ``spec``), and ``clone()`` / ``copy.copy`` copy the whole
stack (`cardgym.core.envs.copies.CopiesWholeStack`).
"""

from __future__ import annotations

from gymnasium import wrappers

from cardgym.core.envs.copies import CopiesWholeStack


class _EntryPointWrapper(CopiesWholeStack):
    @property
    def spec(self):
        """The env's spec as it is: these wrappers come with the entry point, so a spec that recorded them
        (Gymnasium's own flip ``order_enforce`` / ``disable_env_checker``) would have ``gymnasium.make(env.spec)``
        wrap the env twice."""
        return self.env.spec


class PassiveEnvChecker(_EntryPointWrapper, wrappers.PassiveEnvChecker):
    """Gymnasium's ``PassiveEnvChecker``; ``clone()`` and ``copy.copy`` copy the whole stack."""


class OrderEnforcing(_EntryPointWrapper, wrappers.OrderEnforcing):
    """Gymnasium's ``OrderEnforcing``; ``clone()`` and ``copy.copy`` copy the whole stack."""


def gym_entry_point(gym_env: type, module: str):
    """The Gymnasium entry point of a game: ``make(**kwargs)`` builds ``gym_env(**kwargs)`` inside the two
    wrappers ``gymnasium.make`` would add (defined as if written in ``module``, so that it pickles)."""

    def make(**kwargs):
        return OrderEnforcing(PassiveEnvChecker(gym_env(**kwargs)))

    make.__module__ = module
    make.__qualname__ = make.__name__ = "make_env"
    make.__doc__ = (f"``gymnasium.make({gym_env.game.gym_id!r}, **kwargs)``'s entry point: `{gym_env.__name__}` in "
                    "Gymnasium's PassiveEnvChecker and OrderEnforcing (as cardgym subclasses whose clone() and "
                    "copy.copy copy the whole stack).")
    make.metadata = gym_env.metadata  # gymnasium.make reads the render modes from the entry point
    return make
