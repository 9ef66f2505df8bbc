"""The game protocol: what a game folder hands to the environment layers.

A game is described by one `GameSpec`. The environment layers (``core.aec``,
``core.single``, ``core.vector``) know nothing else about a game.

State records
-------------
A game's state is one numpy structured record (``GameSpec.state_dtype``) whose first fields are the
common header built by `state_dtype`:

=============== ========================= =====================================================
field           type                      meaning
=============== ========================= =====================================================
``rng``         uint64                    game generator (shuffles, recycling, random seats)
``bot_rng``     uint64                    generator used by bots playing inside the envs
``num_players`` int8                      players in this game
``current``     int8                      seat to act now (meaningless once ``status != 0``)
``status``      int8                      0 running, 1 terminated, 2 truncated
``turn``        int32                     turns taken in the episode (``max_turns`` cap)
``reward``      float32[max_players]      rewards produced by the last ``apply`` call, by seat
=============== ========================= =====================================================

Kernels
-------
All are ``numba.njit(cache=True)`` functions over one record ``s`` (an element of a record array)
and the rules' parameter vector ``p`` (int32, from ``Rules.params()``):

- ``reset(s, p, seed, deck, deck_len)``: start an episode. ``seed`` seeds ``rng``/``bot_rng`` via
  `cardgym.core.rng.seed_record`. If ``deck_len > 0``, ``deck[:deck_len]`` is a stacked deck
  (front = top) used for the first deal instead of a shuffle.
- ``legal(s, p, mask)``: write the int8 legal-action mask of seat ``s.current`` (zeros when over).
- ``apply(s, p, action)``: play a legal action of ``s.current``. It first zeroes ``s.reward``, then
  writes this action's rewards, and updates ``current``, ``status`` and ``turn``.
- ``state_vector(s, p, out)``: the full-information float32 state (``state()`` in PettingZoo).
- encoders' kernels ``observe(s, p, seat, out)``: the float32 observation of ``seat``.
- bots ``bot(s, p, mask) -> action``: a choice for ``s.current`` using only what that seat sees and
  ``s.bot_rng`` for randomness.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .status import RUNNING, TERMINATED, TRUNCATED  # noqa: F401  (also imported from here)


def state_dtype(max_players: int, fields: Sequence[tuple]) -> np.dtype:
    """The record dtype of a game: the common header followed by the game's own ``fields``."""
    header = [
        ("rng", np.uint64),
        ("bot_rng", np.uint64),
        ("num_players", np.int8),
        ("current", np.int8),
        ("status", np.int8),
        ("_pad", np.int8),
        ("turn", np.int32),
        ("reward", np.float32, (max_players,)),
    ]
    return np.dtype(header + list(fields), align=True)


@dataclass(frozen=True)
class Field:
    """One named slice of a flat observation vector."""

    name: str
    size: int
    low: float
    high: float
    doc: str


@dataclass(frozen=True)
class FlatEncoder:
    """A compiled float32 observation: ``kernel(s, p, seat, out)`` fills ``out``.

    ``layout(rules)`` returns the named table of `Field`s, in order, that the docs show and a
    test holds against the kernel.
    """

    name: str
    layout: Callable[[Any], list]
    kernel: Any
    doc: str = ""

    def size(self, rules) -> int:
        return sum(f.size for f in self.layout(rules))

    def bounds(self, rules):
        low, high = [], []
        for f in self.layout(rules):
            low += [f.low] * f.size
            high += [f.high] * f.size
        return np.asarray(low, np.float32), np.asarray(high, np.float32)

    def offsets(self, rules) -> dict:
        """``{field name: slice}`` into the flat vector."""
        out, at = {}, 0
        for f in self.layout(rules):
            out[f.name] = slice(at, at + f.size)
            at += f.size
        return out


@dataclass(frozen=True)
class DictEncoder:
    """A structured observation built in Python from a record (not for the hot path)."""

    name: str
    space: Callable[[Any], Any]  # rules -> gymnasium.spaces.Dict
    encode: Callable[[Any, Any, int], dict]  # (record, rules, seat) -> dict of numpy arrays
    doc: str = ""

    def observe(self, record, rules, seat: int, space) -> dict:
        """``encode`` with every leaf given the exact dtype of its space (PettingZoo's checker
        compares dtypes, so a Discrete leaf must be a numpy int64, not a Python int)."""
        return _coerce(space, self.encode(record, rules, seat))


def _coerce(space, value):
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        return {k: _coerce(space[k], value[k]) for k in space}
    if isinstance(space, (spaces.Discrete, spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        return np.asarray(value, dtype=space.dtype) if not np.isscalar(value) else space.dtype.type(value)
    return value


@dataclass(frozen=True)
class GameSpec:
    """Everything the environment layers need to know about one game."""

    name: str  # "skyjo", "skipbo", "skipbo_junior"
    title: str  # "Skyjo"
    env_name: str  # PettingZoo module name, "skyjo_v0"
    gym_id: str  # "cardgym/Skyjo-v0"
    min_players: int
    max_players: int
    num_actions: int
    rules_cls: type  # a cardgym.core.rules.Rules subclass
    state_dtype: np.dtype
    deck: np.ndarray  # every card code of one deck (any order): stacked decks must permute it
    reset: Any
    legal: Any
    apply: Any
    state_vector: Any
    state_size: Callable[[Any], int]  # rules -> length of state_vector
    encoders: Mapping[str, Any]  # name -> FlatEncoder | DictEncoder; "vector" is the default
    bots: Mapping[str, Any]  # name -> njit (s, p, mask) -> action
    action_to_str: Callable[[int], str]
    render_ansi: Callable[[Any, Any], str]  # (record, rules) -> str, public view of the table
    result: Callable[[Any, Any], dict]  # (record, rules) -> JSON-able summary (scores, winners...)
    #: ``(record, rules, seat, numpy Generator) -> record``: a copy of ``record`` with everything ``seat``
    #: cannot see re-dealt (the hidden-information tests and determinized search use it)
    resample_hidden: Callable[[Any, Any, int, Any], Any] | None = None
    #: a `cardgym.core.worlds.Hidden` (``observe.py``'s ``WORLD``): what a seat has not seen and the compiled
    #: re-deal of it that ``sample_world`` and the ``search`` bot use (docs/hidden_information.md)
    world: Any = None
    #: ``(record, rules, action) -> str``: an action described in the context of a state (``cardgym play``)
    describe_action: Callable[[Any, Any, int], str] | None = None
    #: ``(record, rules, viewer) -> cardgym.render.scene.Scene``: the picture of a state (``games/<g>/scene.py``)
    scene: Callable[[Any, Any, Any], Any] | None = None
    #: a ``cardgym.render.scene.Palette``: the game's card colours
    palette: Any = None
    #: rule-option dicts the generic test suites run this game under (the first is the default rules)
    test_configs: Sequence[Mapping[str, Any]] = ({},)
    #: the trainer's defaults for this game (``cardgym train GAME``; command-line flags override them)
    train_preset: Mapping[str, Any] = field(default_factory=dict)
    #: the game's own state invariants, ``(record, rules) -> None`` raising ``ValueError`` (written beside
    #: the rules in ``games/<game>/invariants.py``); `validate_record` runs it after the header checks
    check_state: Callable[[Any, Any], None] | None = None
    #: every card code physically in a *valid* record, ``(record, rules) -> int8 array`` (the test kit's
    #: card-conservation check and `validate_record` use it)
    cards_of: Callable[[Any, Any], np.ndarray] | None = None
    #: defaults of ``cardgym train GAME`` (`cardgym.train.Config` field -> value; ``rules`` a dict of
    #: rule options); every command-line flag overrides them
    train_preset: Mapping[str, Any] = field(default_factory=dict)

    @property
    def gym_class(self) -> str:
        """Class name of the Gymnasium env: ``"cardgym/SkipBo-v0"`` -> ``"SkipBoEnv"``."""
        return self.gym_id.split("/", 1)[1].rsplit("-v", 1)[0] + "Env"

    @classmethod
    def from_package(cls, package: str, *, title: str, gym_name: str, version: int = 0, **meta) -> "GameSpec":
        """The spec of a game folder that follows the fixed shape (docs/api.md, "Adding a game").

        ``package`` is the folder's module name (``__name__`` in its ``__init__.py``). Its modules are
        imported by name (no core module imports a game statically) and must export: ``rules``:
        ``RULES, STATE_DTYPE, DECK, MIN_PLAYERS, MAX_PLAYERS, NUM_ACTIONS``; ``kernels``: ``reset, legal,
        apply, state_vector``; ``observe``: ``ENCODERS, state_size, resample_hidden, WORLD``; ``text``:
        ``action_to_str, describe_action, render_ansi, result``; ``scene``: ``scene, PALETTE``;
        ``invariants``: ``check_state, cards_of``; ``bots``: ``BOTS``; optionally ``expert`` and
        ``search``: ``BOTS``. Bots are ``bots.BOTS`` then ``expert.BOTS`` then ``search.BOTS``.
        ``meta`` holds the rest of the typed fields (``train_preset``, ``test_configs``...)."""
        name = package.rsplit(".", 1)[-1]
        need = {
            "rules": ("RULES", "STATE_DTYPE", "DECK", "MIN_PLAYERS", "MAX_PLAYERS", "NUM_ACTIONS"),
            "kernels": ("reset", "legal", "apply", "state_vector"),
            "observe": ("ENCODERS", "state_size", "resample_hidden", "WORLD"),
            "text": ("action_to_str", "describe_action", "render_ansi", "result"),
            "scene": ("scene", "PALETTE"),
            "invariants": ("check_state", "cards_of"),
            "bots": ("BOTS",),
        }
        got = {}
        for module, names in need.items():
            if importlib.util.find_spec(f"{package}.{module}") is None:
                raise TypeError(
                    f"game folder {package}: has no {module}.py (it must define {', '.join(names)}; "
                    "see docs/api.md, 'Adding a game')"
                )
            mod = importlib.import_module(f"{package}.{module}")
            for n in names:
                if not hasattr(mod, n):
                    raise TypeError(f"game folder {package}: {module}.py must define {n} (see docs/api.md, 'Adding a game')")
                got[(module, n)] = getattr(mod, n)
        bots = dict(got[("bots", "BOTS")])
        for module in ("expert", "search"):
            if importlib.util.find_spec(f"{package}.{module}") is not None:
                mod = importlib.import_module(f"{package}.{module}")
                if not hasattr(mod, "BOTS"):
                    raise TypeError(
                        f"game folder {package}: {module}.py must define BOTS (see docs/api.md, 'Adding a game')"
                    )
                bots.update(mod.BOTS)
        return cls(
            name=name,
            title=title,
            env_name=f"{name}_v{version}",
            gym_id=f"cardgym/{gym_name}-v{version}",
            min_players=got[("rules", "MIN_PLAYERS")],
            max_players=got[("rules", "MAX_PLAYERS")],
            num_actions=got[("rules", "NUM_ACTIONS")],
            rules_cls=got[("rules", "RULES")],
            state_dtype=got[("rules", "STATE_DTYPE")],
            deck=got[("rules", "DECK")],
            reset=got[("kernels", "reset")],
            legal=got[("kernels", "legal")],
            apply=got[("kernels", "apply")],
            state_vector=got[("kernels", "state_vector")],
            state_size=got[("observe", "state_size")],
            encoders=dict(got[("observe", "ENCODERS")]),
            resample_hidden=got[("observe", "resample_hidden")],
            world=got[("observe", "WORLD")],
            bots=bots,
            action_to_str=got[("text", "action_to_str")],
            describe_action=got[("text", "describe_action")],
            render_ansi=got[("text", "render_ansi")],
            result=got[("text", "result")],
            scene=got[("scene", "scene")],
            palette=got[("scene", "PALETTE")],
            check_state=got[("invariants", "check_state")],
            cards_of=got[("invariants", "cards_of")],
            **meta,
        )

    def validate_record(self, record, rules) -> None:
        """Raise ``ValueError`` (naming the field and the reason) unless ``record`` is a state these
        ``rules`` can reach: the common header, then the game's `check_state` (every length within its
        array, every card code valid, the cards a permutation of the deck, counters and seats in range
        and consistent), then, for a running game, that the seat to act has a legal action (the
        compiled ``legal`` kernel run on a copy, only once every bound is known to be safe).

        Nothing here runs on ``step()``: environments call it when they load a state.
        """
        from .invariants import check_common

        if not isinstance(record, (np.void, np.ndarray)) or record.dtype != self.state_dtype:
            got = getattr(record, "dtype", type(record).__name__)
            raise ValueError(f"a {self.name} state record must have the game's record dtype, got {got}")
        if isinstance(record, np.ndarray):
            if record.shape != ():
                raise ValueError(f"validate_record takes one record, got an array of shape {record.shape}")
            record = record[()]
        check_common(record, rules)
        if self.check_state is not None:
            self.check_state(record, rules)
        if int(record["status"]) == RUNNING:
            tmp = np.zeros(1, self.state_dtype)
            tmp[0] = record
            if _jit_disabled():
                tmp = tmp.view(np.recarray)
            mask = np.zeros(self.num_actions, np.int8)
            self.compiled().legal_one(tmp, 0, rules.params(), mask)
            if not mask.any():
                raise ValueError(
                    f"state field 'current'={int(record['current'])}: the seat to act has no legal action "
                    f"in this state (a running {self.name} game always offers one)"
                )

    def validate_records(self, states, rules) -> None:
        """`validate_record` on every record of a batch (e.g. a vector env's or a trainer's saved
        ``states``); the error names the index of the first bad record."""
        if not isinstance(states, np.ndarray) or states.dtype != self.state_dtype or states.ndim != 1:
            got = getattr(states, "dtype", type(states).__name__)
            raise ValueError(
                f"{self.name} states must be a 1-d array of the game's record dtype, got {got} "
                f"shape {getattr(states, 'shape', None)}"
            )
        for i in range(states.shape[0]):
            try:
                self.validate_record(states[i], rules)
            except ValueError as exc:
                raise ValueError(f"record {i}: {exc}") from None

    def compiled(self, bot: int | None = None, obs: int | None = None, bots: tuple | None = None):
        """This game's compiled entry points (the ``core/bound.py`` template bound to its kernels).

        ``bot``/``obs`` (indices as `bot_index`/`obs_index` give, ``obs=-1`` for a dict encoder) bind
        it to that one bot / encoder: the ``which_bot``/``which_obs`` arguments are then ignored and
        only that bot / encoder is compiled. ``bots`` (bot indices) binds the dispatch to those bots
        only, for whole games that mix them (``play_games``): its ``which_bot`` arguments are then slots,
        ``mod.BOT_SLOTS[bot index]``. ``None`` keeps the dispatch over all of them (which compiles every
        bot, the `search` bot included)."""
        if bots is not None:
            bots = tuple(sorted(set(bots)))
            if bot is not None:
                raise ValueError(f"{self.name}: compiled() takes bot= or bots=, not both")
            if bots == tuple(range(len(self.bots))):
                bots = None
        key = (self.name, bot, obs, bots)
        mod = _COMPILED.get(key)
        if mod is None:
            mod = _bind(self, bot, obs, bots)
            _COMPILED[key] = mod
        return mod

    def new_states(self, n: int = 1) -> np.ndarray:
        """``n`` zeroed state records.

        A plain structured array: numba types it several times faster than a ``np.recarray`` on every
        call from Python. Under ``NUMBA_DISABLE_JIT=1`` the kernels run as Python and need attribute
        access to fields, so there it is a record array."""
        states = np.zeros(n, self.state_dtype)
        return states.view(np.recarray) if _jit_disabled() else states

    def bot_index(self, name: str) -> int:
        self.bot(name)
        return list(self.bots).index(name)

    def flat_encoders(self) -> list:
        return [k for k, v in self.encoders.items() if not isinstance(v, DictEncoder)]

    def obs_index(self, name: str) -> int:
        """Index of a flat encoder in the compiled dispatch, -1 for a dict encoder."""
        enc = self.encoder(name)
        return -1 if isinstance(enc, DictEncoder) else self.flat_encoders().index(name)

    def make_rules(self, **options):
        return self.rules_cls.from_options(self, options)

    def encoder(self, name: str):
        if not isinstance(name, str) or name not in self.encoders:
            raise ValueError(
                f"unknown observation encoder {name!r} for {self.name}; allowed: {sorted(self.encoders)}"
            )
        return self.encoders[name]

    def bot(self, name: str):
        if not isinstance(name, str) or name not in self.bots:
            raise ValueError(f"unknown bot {name!r} for {self.name}; allowed: {sorted(self.bots)}")
        return self.bots[name]

    def check_deck(self, deck) -> np.ndarray:
        """Validate a stacked deck (front = top) and return it as an int8 array."""
        try:
            arr = np.asarray(deck)
        except Exception as exc:  # pragma: no cover - numpy rarely fails here
            raise ValueError(f"deck for {self.name} must be a list of card codes: {exc}") from None
        if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer)):
            raise ValueError(
                f"deck for {self.name} must be a flat list of integer card codes, got {arr.dtype} shape {arr.shape}"
            )
        want = np.sort(self.deck.astype(np.int64))
        got = np.sort(arr.astype(np.int64))
        if got.shape != want.shape or not np.array_equal(got, want):
            codes, counts = np.unique(want, return_counts=True)
            need = ", ".join(f"{c}x{k}" for c, k in zip(codes.tolist(), counts.tolist()))
            g_codes, g_counts = np.unique(got, return_counts=True)
            have = dict(zip(g_codes.tolist(), g_counts.tolist()))
            diff = [
                f"code {c}: {have.get(c, 0)} (want {k})"
                for c, k in zip(codes.tolist(), counts.tolist())
                if have.get(c, 0) != k
            ]
            extra = sorted(set(have) - set(codes.tolist()))
            if extra:
                diff.append(f"unknown codes {extra}")
            raise ValueError(
                f"deck for {self.name} is not a permutation of its {len(want)}-card deck "
                f"(got {len(got)} cards; {'; '.join(diff[:6])}). The deck holds: {need}"
            )
        return arr.astype(np.int8)


def replace(spec: GameSpec, **changes) -> GameSpec:
    return dataclasses.replace(spec, **changes)


def _jit_disabled() -> bool:
    from numba.core import config

    return bool(config.DISABLE_JIT)


_COMPILED: dict = {}
_TEMPLATE = Path(__file__).with_name("bound.py")


def _identifier(name: str) -> str:
    """``name`` made a Python identifier (what numba's cache file names may hold)."""
    return re.sub(r"\W", "_", name)


def _bind(game: GameSpec, bot: int | None = None, obs: int | None = None, subset: tuple | None = None):
    bots = list(game.bots.values())
    if subset is not None and (not subset or not all(isinstance(b, int) and 0 <= b < len(bots) for b in subset)):
        raise ValueError(f"{game.name}: bots must be indices 0..{len(bots) - 1}, got {subset!r}")
    flats = [game.encoders[k].kernel for k in game.flat_encoders()]
    if not 1 <= len(bots) <= 4 or not 1 <= len(flats) <= 4:
        raise ValueError(f"{game.name}: the compiled dispatch holds 1-4 bots and 1-4 flat encoders")
    if bot is not None and not (isinstance(bot, int) and 0 <= bot < len(bots)):
        raise ValueError(f"{game.name}: bot index must be None or 0..{len(bots) - 1}, got {bot!r}")
    if obs is not None and not (isinstance(obs, int) and -1 <= obs < len(flats)):
        raise ValueError(f"{game.name}: flat encoder index must be None, -1 or 0..{len(flats) - 1}, got {obs!r}")
    tag = (("" if bot is None else f"b{bot}") + ("" if subset is None else "B" + "".join(map(str, subset)))
           + ("" if obs is None else f"o{obs if obs >= 0 else 'n'}"))
    name = f"cardgym.games.{game.name}._bound" + (f"_{tag}" if tag else "")
    # numba names a cache entry by the template's file and the function's qualified name, and keys it by
    # signature only: two games with one record dtype would share entries (and each other's kernels).
    # The game's name in TAG gives every game its own.
    tag = _identifier(game.name) + (f"_{tag}" if tag else "")
    spec = importlib.util.spec_from_file_location(name, _TEMPLATE)
    mod = importlib.util.module_from_spec(spec)
    mod.TAG = tag  # read by the template before it defines anything: names its cache entries
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    if bot is not None:
        bots = [bots[bot]]
        mod.bot = mod.bot_fixed
    mod.BOT_SLOTS = {k: k for k in range(len(bots))}
    if subset is not None:
        bots = [bots[k] for k in subset]
        mod.BOT_SLOTS = {k: slot for slot, k in enumerate(subset)}
    if obs is not None:
        if obs >= 0:
            flats = [flats[obs]]
            mod.observe = mod.observe_fixed
        else:
            mod.observe = mod.observe_none
    mod.RESET, mod.LEGAL, mod.APPLY, mod.STATE_VECTOR = game.reset, game.legal, game.apply, game.state_vector
    for k in range(4):
        setattr(mod, f"BOT{k}", bots[k] if k < len(bots) else bots[0])
        setattr(mod, f"OBS{k}", flats[k] if k < len(flats) else flats[0])
    return mod
