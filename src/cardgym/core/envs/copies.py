"""Copies of environments: ``copy.deepcopy``, ``copy.copy``, ``pickle`` and cloudpickle.

Every env layer (the AEC env, the single-agent Gymnasium env, the vector env) copies the same way: the
copy is built again from the environment's constructor arguments (its rules, encoder, opponents...),
then its game is loaded from the original's *state record* (`snapshot` / `restore`, the state the
``state_dict`` methods save, checked by `cardgym.core.contract.game.GameSpec.validate_record` on the way in).
So a copy, here or in another process, continues the same game bit for bit: same records, generators,
seats, masks and observations (docs/api.md, "Copies and pickling").

A copy cannot be exact when the environment holds Python code that pickle cannot carry (a lambda or a
local function as opponent, a ``new_episode`` closure): pickling then raises ``TypeError`` naming the
part and the ways that do work (``clone()`` in the same process, ``state_dict()`` into a new env).
``copy.deepcopy`` and ``clone()`` share such callables with the original instead (functions are
immutable to ``deepcopy``); objects with state (e.g. a loaded policy) are deep-copied.
"""

from __future__ import annotations

import copy
import importlib
import pickle

#: version of the pickled form (a later cardgym refuses a form it does not know)
FORMAT = 1


class GameRef:
    """A picklable reference to a registered game: its PettingZoo module's ``GAME`` (``cardgym.<name>_v<version>``).

    Core does not import the registry; the module is found by name when the copy is loaded."""

    def __init__(self, game):
        self.env_name = game.env_name
        self.name = game.name

    def resolve(self):
        mod = importlib.import_module(f"cardgym.{self.env_name}")
        game = getattr(mod, "GAME", None)
        if game is None or game.name != self.name:
            raise ValueError(f"cannot load a copy of a {self.name} env: cardgym.{self.env_name} has no such game")
        return game


def game_ref(game):
    """`GameRef` of ``game``, or ``TypeError`` when ``game`` is not the registered spec of its name (a
    spec changed by ``dataclasses.replace`` cannot be found again by name in another process)."""
    ref = GameRef(game)
    try:
        same = ref.resolve() is game
    except (ImportError, ValueError):
        same = False
    if not same:
        raise TypeError(
            f"this {game.name} env was built from a GameSpec that is not the registered cardgym.{game.env_name}.GAME, "
            "so a pickled copy could not find its game again; use clone() (same process) or state_dict() "
            "into a new env"
        )
    return ref


def check_picklable(env, parts) -> None:
    """``TypeError`` naming the first of ``parts`` (``(what, object)`` pairs) that pickle cannot carry."""
    for what, obj in parts:
        try:
            pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise TypeError(
                f"cannot pickle this {type(env).__name__}: its {what} {obj!r} cannot be pickled ({exc}), so a "
                "copy in another process could not continue the same game. Use a bot name, a model path or a "
                "picklable (module-level) callable; or copy in this process with env.clone() / copy.deepcopy "
                "(which share the callable), or save env.state_dict() and load it into a new env with "
                "load_state_dict()"
            ) from None


def _rebuild(cls, form: int, kwargs: dict, snapshot, spec=None):
    """The unpickled copy: ``cls(**kwargs)`` (a `GameRef` in them resolved) with ``snapshot`` restored and
    the Gymnasium ``spec`` that ``gymnasium.make`` gave the original (absent from copies pickled before it
    was carried)."""
    if form != FORMAT:
        raise ValueError(f"a pickled cardgym env of format {form!r}; this cardgym reads format {FORMAT}")
    kwargs = {k: (v.resolve() if isinstance(v, GameRef) else v) for k, v in kwargs.items()}
    env = cls(**kwargs)
    env._restore(snapshot)
    if spec is not None:
        env.spec = spec
    return env


def _own_spec(env):
    """The ``spec`` that ``gymnasium.make`` set on ``env`` itself (None for the AEC env and the bare class)."""
    return vars(env).get("spec")


class CopiesThroughState:
    """``pickle``/``copy`` support for an env class; the class provides:

    - ``_init_kwargs()``: keyword arguments that build an env of the same kind (rules, encoder,
      opponents as objects, never as files to read again);
    - ``_python_parts()``: ``(what, object)`` pairs of Python code among them (checked before pickling);
    - ``_snapshot()``: the game's state (the ``state_dict`` data and what it leaves out), and
      ``_restore(snapshot)``, which checks and loads it into a freshly built env.
    """

    def _python_parts(self):
        return ()

    def __reduce_ex__(self, protocol):
        check_picklable(self, self._python_parts())
        kwargs = dict(self._init_kwargs())
        if "game" in kwargs:
            kwargs["game"] = game_ref(kwargs["game"])
        spec = _own_spec(self)
        return (_rebuild, (type(self), FORMAT, kwargs, self._snapshot(), *([spec] if spec is not None else [])))

    def __deepcopy__(self, memo):
        kwargs = self._init_kwargs()
        if "game" in kwargs:
            memo[id(kwargs["game"])] = kwargs["game"]  # immutable and holds compiled code: shared
        other = type(self)(**copy.deepcopy(kwargs, memo))
        memo[id(self)] = other
        other._restore(copy.deepcopy(self._snapshot(), memo))
        if _own_spec(self) is not None:
            other.spec = copy.deepcopy(_own_spec(self), memo)
        return other

    def __copy__(self):
        # a shallow copy would share the game's arrays and step both envs at once: copy in full
        return self.__deepcopy__({})

    def clone(self):
        """An independent copy that continues exactly like this environment (``copy.deepcopy(env)``)."""
        return self.__deepcopy__({})


class CopiesWholeStack:
    """``clone()`` and ``copy.copy`` for a wrapper around an env of this module: a copy of the whole
    stack (``copy.deepcopy``: every wrapper's own state and the game), never the bare env (a wrapper's
    attribute forwarding would reach the inner env's ``clone``) nor a shallow copy that shares the game."""

    def clone(self):
        """An independent copy of the wrapped env, wrappers included, that continues exactly like it."""
        return copy.deepcopy(self)

    def __copy__(self):
        return copy.deepcopy(self)
