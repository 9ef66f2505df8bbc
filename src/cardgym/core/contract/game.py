"""The game protocol: what a game folder hands to the environment layers.

A game is described by one `GameSpec`. The environment layers (``core.envs.aec``,
``core.envs.single``, ``core.envs.vector``) know nothing else about a game.

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
  `cardgym.core.compiled.rng.seed_record`. If ``deck_len > 0``, ``deck[:deck_len]`` is a stacked deck
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
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from numba import njit

from cardgym.core.compiled.binder import MAX_BOTS, MAX_FLAT_ENCODERS
from cardgym.core.compiled.rng import pick_legal
from cardgym.core.state.status import RUNNING


@njit(cache=True)
def bot_random(s, p, mask):
    """The ``random`` bot every game has (bot 0): a uniformly random legal action from ``s.bot_rng``."""
    return pick_legal(s, mask)


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


# ------------------------------------------------------------------------------------ the contract
#: the version of the game contract this cardgym implements (docs/api.md, "The game contract"). A game
#: states the version it was written for with ``GameSpec.from_package(..., contract=N)``; one that states
#: none was written for version 1 (before versions were stated). Every version up to this one loads.
CONTRACT_VERSION = 2
#: contract version -> what changed in it (docs/api.md's table of versions)
CONTRACT_VERSIONS = {
    1: "the first contract: observe.py also defined resample_hidden, and scene.py, invariants.py and bots.py "
       "(BOTS starting with random, greedy) were required; no WORLD",
    2: "only rules, kernels, one flat encoder and the text are required; WORLD, a scene, invariants, bots "
       "beyond the core's random, describe_action, expert and search are optional abilities; resample_hidden "
       "is gone (a version-1 game may still define it: it is not read)",
}

#: module of a game folder -> the names it must export (docs/api.md, "The game contract"): what a game
#: cannot work without. `GameSpec.from_package` reads it, and tests/test_game_shape.py and the docs check it.
EXPORTS = {
    "rules": ("RULES", "STATE_DTYPE", "DECK", "MIN_PLAYERS", "MAX_PLAYERS", "NUM_ACTIONS"),
    "kernels": ("reset", "legal", "apply", "state_vector"),
    "observe": ("ENCODERS", "state_size"),
    "text": ("action_to_str", "render_ansi", "result"),
}
#: module -> the names a game may export, each an optional ability with a default (`OPTIONAL_DEFAULTS`):
#: a module of this table may be left out altogether. Bots are ``bots.BOTS``, ``expert.BOTS`` then
#: ``search.BOTS``, after the core's ``random``.
OPTIONAL_EXPORTS = {
    "observe": ("WORLD",),
    "text": ("describe_action",),
    "scene": ("scene", "PALETTE", "action_refs"),
    "invariants": ("check_state", "cards_of"),
    "bots": ("BOTS",),
    "expert": ("BOTS",),
    "search": ("BOTS",),
}
#: ``module.name`` -> what a game without it gets: the default, or which calls say "not available"
OPTIONAL_DEFAULTS = {
    "observe.WORLD": "no worlds: sample_world / sample_worlds raise NotImplementedError naming the game, and "
                     "the game has no search bot; check_game skips the world checks",
    "text.describe_action": "action_to_str(action), whatever the state",
    "scene.scene": "no picture: rgb_array, the web table and seat views raise ValueError naming the game; "
                   "check_game skips the view checks (the ansi and human render modes use render_ansi)",
    "scene.PALETTE": "None (a scene.py that defines scene must define PALETTE)",
    "scene.action_refs": "None: no move has refs, and the web table offers the moves as buttons (their text)",
    "invariants.check_state": "no game invariants: validate_record (and so load_state_dict, the checked "
                              "sample_world and the web table's saved games) raises NotImplementedError "
                              "naming the game, since compiled code would read an unchecked record",
    "invariants.cards_of": "None: check_game skips the card-conservation checks",
    "bots.BOTS": "only the core's random; cardgym play then defaults to it (`GameSpec.default_bot`)",
    "expert.BOTS": "no expert bot",
    "search.BOTS": "no search bot",
}

#: what a game's outcome means (`GameSpec.utility`): how `GameSpec.outcome` reads ``result()``, and so
#: what ``cardgym play`` says at the end, how `cardgym.eval` scores a game and whether ratings apply
UTILITIES = {
    "head_to_head": "the seats play against each other; result()['winners'] are the winning seats, none "
                    "is a draw",
    "team": "sides of seats play against each other (a rule option may form them); result()['winners'] "
            "are every seat of the winning side, none is a draw",
    "house": "every seat plays alone against the house (the game itself); result()['winners'] are the "
             "seats that beat it, result()['pushes'] the seats that tied it, every other seat lost",
}

#: bots every game has: ``random`` (the default opponent of the Gymnasium and vector envs), bot 0 of every
#: game, supplied by the core (`bot_random`) unless the game's ``bots.BOTS`` starts with its own
REQUIRED_BOTS = ("random",)
#: the bots ``cardgym play`` prefers as the default opponent, in order (`GameSpec.default_bot`)
DEFAULT_BOTS = ("greedy", "expert")
#: rule options every game's `Rules` has: ``num_players``, and ``max_turns`` (the truncation cap that
#: the header check `cardgym.core.state.invariants.check_common` reads on every state load)
REQUIRED_OPTIONS = ("num_players", "max_turns")
#: keys every ``result()`` holds, by utility (checked at the end of every game by
#: `cardgym.testing.check_game`; the `Standing`'s key too when the game has one)
REQUIRED_RESULT_KEYS = {"head_to_head": ("winners",), "team": ("winners",), "house": ("winners", "pushes")}


@dataclass(frozen=True)
class Standing:
    """How seats are ordered after the winners in a multi-player rating (`cardgym.eval.ratings`):
    ``result()[key]`` per seat, ``better`` ``"lower"`` (a total of points) or ``"higher"``."""

    key: str
    better: str = "lower"

    def value(self, result: Mapping, seat: int) -> float:
        """The seat's standing as a number where lower is better."""
        v = float(result[self.key][seat])
        return v if self.better == "lower" else -v


def _contract_error(package: str, file: str, what: str) -> TypeError:
    return TypeError(f"game folder {package}: {file} {what} (see docs/api.md, 'Adding a game')")



def _check_contract_version(package: str, contract) -> None:
    """``TypeError`` unless ``contract`` (``from_package(contract=N)``) is a version this cardgym implements,
    1 to `CONTRACT_VERSION`; a later one says to upgrade cardgym."""
    if isinstance(contract, bool) or not isinstance(contract, int) or not 1 <= contract <= CONTRACT_VERSION:
        raise _contract_error(package, "__init__.py", (
            f"declares contract={contract!r}, but this cardgym implements contract versions 1 to "
            f"{CONTRACT_VERSION}" + (" (upgrade cardgym)" if isinstance(contract, int)
                                     and not isinstance(contract, bool) and contract > CONTRACT_VERSION else "")))


def _required_exports(package: str) -> dict:
    """``{(module, name): value}`` of the names of `EXPORTS` the game folder's modules define, imported by
    name; ``TypeError`` naming the first missing module or name."""
    got = {}
    for module, names in EXPORTS.items():
        if importlib.util.find_spec(f"{package}.{module}") is None:
            raise TypeError(
                f"game folder {package}: has no {module}.py (it must define {', '.join(names)}; "
                "see docs/api.md, 'The game contract')"
            )
        mod = importlib.import_module(f"{package}.{module}")
        for n in names:
            if not hasattr(mod, n):
                raise _contract_error(package, f"{module}.py", f"must define {n}")
            got[(module, n)] = getattr(mod, n)
    return got


def _optional_exports(package: str, got: dict) -> dict:
    """Add the names of `OPTIONAL_EXPORTS` to ``got`` (None when a module present leaves one out; none at
    all for a module left out) and return the game's bots: the core's ``random`` (`bot_random`, unless the
    game's ``bots.BOTS`` brings its own), then ``bots.BOTS``, ``expert.BOTS`` and ``search.BOTS``. A module
    of bots must define ``BOTS`` as a dict: else ``TypeError``."""
    bots = {}
    for module, names in OPTIONAL_EXPORTS.items():
        if importlib.util.find_spec(f"{package}.{module}") is None:
            continue
        mod = importlib.import_module(f"{package}.{module}")
        for n in names:
            got[(module, n)] = getattr(mod, n, None)
        if names == ("BOTS",):
            if got[(module, "BOTS")] is None:
                raise _contract_error(package, f"{module}.py", "must define BOTS (a dict of name -> bot)")
            if not isinstance(got[(module, "BOTS")], Mapping):
                raise _contract_error(package, f"{module}.py", "BOTS must be a dict of name -> compiled bot, "
                                                                f"got {type(got[(module, 'BOTS')]).__name__}")
            bots.update(got[(module, "BOTS")])
    if "random" not in bots:
        bots = {"random": bot_random, **bots}
    return bots


def _exported_fields(got: dict) -> dict:
    """The `GameSpec` fields that the game folder's exports ``got`` give (`from_package`): the optional
    ones None when the game leaves them out."""
    return dict(
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
        world=got.get(("observe", "WORLD")),
        action_to_str=got[("text", "action_to_str")],
        describe_action=got.get(("text", "describe_action")),
        render_ansi=got[("text", "render_ansi")],
        result=got[("text", "result")],
        scene=got.get(("scene", "scene")),
        palette=got.get(("scene", "PALETTE")),
        action_refs=got.get(("scene", "action_refs")),
        check_state=got.get(("invariants", "check_state")),
        cards_of=got.get(("invariants", "cards_of")),
    )

@dataclass(frozen=True)
class GameSpec:
    """Everything the environment layers need to know about one game."""

    name: str  # the game folder's name
    title: str  # its title, for people
    env_name: str  # PettingZoo module name, "<name>_v<version>"
    gym_id: str  # "cardgym/<gym_name>-v<version>"
    min_players: int
    max_players: int
    num_actions: int
    rules_cls: type  # a cardgym.core.state.rules.Rules subclass
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
    #: a `cardgym.core.contract.worlds.Hidden` (``observe.py``'s ``WORLD``): what a seat has not seen and the compiled
    #: re-deal of it that ``sample_world`` and the ``search`` bot use (docs/hidden_information.md); None:
    #: the game offers no worlds (``sample_world`` raises ``NotImplementedError`` naming the game)
    world: Any = None
    #: ``(record, rules, action) -> str``: an action described in the context of a state (``cardgym play``);
    #: None: ``action_to_str(action)`` (every caller falls back to it)
    describe_action: Callable[[Any, Any, int], str] | None = None
    #: ``(record, rules, viewer) -> cardgym.render.scene.Scene``: the picture of a state (``games/<g>/scene.py``);
    #: None: no picture (rgb_array, the web table and seat views are not available for the game)
    scene: Callable[[Any, Any, Any], Any] | None = None
    #: a ``cardgym.render.scene.Palette``: the game's card colours
    palette: Any = None
    #: optional ``(record, rules, action) -> list[str]``: the ids of the scene's cards and piles a legal action
    #: moves, in the order a person clicks them (pile ids ``"p0.hand"``, card ids ``"p0.hand#2"`` or
    #: ``"p0.hand=7"``, as `cardgym.render.view` names them); the seat view puts them in each legal move's
    #: ``refs``, and the web table plays a move when the cards clicked match them (docs/api.md, "action_refs")
    action_refs: Callable[[Any, Any, int], list] | None = None
    #: rule-option dicts the generic test suites run this game under (the first is the default rules)
    test_configs: Sequence[Mapping[str, Any]] = ({},)
    #: defaults of ``cardgym train GAME`` (`cardgym.train.Config` field -> value; ``rules`` a dict of
    #: rule options); every command-line flag overrides them
    train_preset: Mapping[str, Any] = field(default_factory=dict)
    #: the game's own state invariants, ``(record, rules) -> None`` raising ``ValueError`` (written beside
    #: the rules in ``games/<game>/invariants.py``); `validate_record` runs it after the header checks
    check_state: Callable[[Any, Any], None] | None = None
    #: every card code physically in a *valid* record, ``(record, rules) -> int8 array`` (the test kit's
    #: card-conservation check and `validate_record` use it)
    cards_of: Callable[[Any, Any], np.ndarray] | None = None
    #: the game package (``cardgym.games.<name>`` for a built-in game); `from_package` sets it
    package: str = ""
    #: what an outcome means: a key of `UTILITIES` (``"head_to_head"``, ``"team"``, ``"house"``)
    utility: str = "head_to_head"
    #: how the seats after the winners are ordered in multi-player ratings (None: they tie)
    standing: Standing | None = None
    #: the contract version the game was written for (`CONTRACT_VERSION`; ``from_package(contract=N)``)
    contract: int = 1

    @property
    def gym_class(self) -> str:
        """Class name of the Gymnasium env: ``"cardgym/<GymName>-v0"`` -> ``"<GymName>Env"``."""
        return self.gym_id.split("/", 1)[1].rsplit("-v", 1)[0] + "Env"

    @property
    def version(self) -> int:
        """The env version: the ``N`` of ``<name>_vN`` and ``cardgym/<Name>-vN``. It counts behaviour
        changes: any change of what an episode is (rules, rewards, observations, action ids) bumps it,
        and the game's page keeps a version history (docs/api.md, "Adding a game")."""
        return int(self.env_name.rsplit("_v", 1)[1])

    def outcome(self, result: Mapping, seat: int) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` of ``seat`` in a finished game's ``result()``, read as the
        game's `utility` says (`UTILITIES`): against the house, a seat with no win and no push lost."""
        winners = set(int(w) for w in result.get("winners", ()))
        if int(seat) in winners:
            return "win"
        if self.utility == "house":
            return "draw" if int(seat) in set(int(w) for w in result.get("pushes", ())) else "loss"
        return "draw" if not winners else "loss"

    def required_result_keys(self) -> tuple:
        """The keys every ``result()`` of this game holds (`REQUIRED_RESULT_KEYS`, and the standing's)."""
        keys = REQUIRED_RESULT_KEYS[self.utility]
        return keys + ((self.standing.key,) if self.standing is not None else ())

    @classmethod
    def from_package(cls, package: str, *, title: str, gym_name: str, version: int = 0, contract: int = 1,
                     **meta) -> "GameSpec":
        """The spec of a game folder that follows the game contract (docs/api.md, "The game contract").

        ``package`` is the folder's module name (``__name__`` in its ``__init__.py``). Its modules are
        imported by name (no core module imports a game statically). They must export the names of
        `EXPORTS` (``rules``: ``RULES, STATE_DTYPE, DECK, MIN_PLAYERS, MAX_PLAYERS, NUM_ACTIONS``;
        ``kernels``: ``reset, legal, apply, state_vector``; ``observe``: ``ENCODERS, state_size``;
        ``text``: ``action_to_str, render_ansi, result``) and may export those of `OPTIONAL_EXPORTS`,
        each an ability with the default of `OPTIONAL_DEFAULTS`. Bots are the core's ``random``
        (`bot_random`; a game's own ``random`` first in ``bots.BOTS`` takes its place), then
        ``bots.BOTS``, ``expert.BOTS`` and ``search.BOTS``. ``contract`` is the contract version the game
        was written for (1 when not stated; at most `CONTRACT_VERSION`). ``meta`` holds the rest of the
        typed fields (``utility``, ``standing``, ``train_preset``, ``test_configs``...).

        The whole contract is checked here, once (`_check_contract`): a missing module or name, a
        value of the wrong kind, a limit exceeded (`MAX_BOTS`, `MAX_FLAT_ENCODERS`), a required rule
        option missing (`REQUIRED_OPTIONS`), an unknown utility or contract version: each is a
        ``TypeError`` naming the folder, the file and the missing piece."""
        name = package.rsplit(".", 1)[-1]
        _check_contract_version(package, contract)
        got = _required_exports(package)
        bots = _optional_exports(package, got)
        _check_contract(package, got, bots, title=title, gym_name=gym_name, version=version, meta=meta)
        return cls(
            name=name,
            package=package,
            title=title,
            env_name=f"{name}_v{version}",
            gym_id=f"cardgym/{gym_name}-v{version}",
            bots=bots,
            contract=contract,
            **_exported_fields(got),
            **meta,
        )

    @property
    def default_bot(self) -> str:
        """The opponent ``cardgym play`` (and the MCP server) use when none is named: the first of
        `DEFAULT_BOTS` the game has, else its first bot after ``random``, else ``random``."""
        for name in DEFAULT_BOTS:
            if name in self.bots:
                return name
        return next((b for b in self.bots if b != "random"), "random")

    def validate_record(self, record, rules) -> None:
        """Raise ``ValueError`` (naming the field and the reason) unless ``record`` is a state these
        ``rules`` can reach: the common header, then the game's `check_state` (every length within its
        array, every card code valid, the cards a permutation of the deck, counters and seats in range
        and consistent), then, for a running game, that the seat to act has a legal action (the
        compiled ``legal`` kernel run on a copy, only once every bound is known to be safe).

        Nothing here runs on ``step()``: environments call it when they load a state. A game without
        ``check_state`` (an optional export) cannot have a record checked: ``NotImplementedError``.
        """
        from cardgym.core.state.invariants import check_common

        if not isinstance(record, (np.void, np.ndarray)) or record.dtype != self.state_dtype:
            got = getattr(record, "dtype", type(record).__name__)
            raise ValueError(f"a {self.name} state record must have the game's record dtype, got {got}")
        if isinstance(record, np.ndarray):
            if record.shape != ():
                raise ValueError(f"validate_record takes one record, got an array of shape {record.shape}")
            record = record[()]
        if self.check_state is None:
            raise NotImplementedError(
                f"loading or checking a state is not available for {self.name}: the game declares no "
                "check_state in its invariants.py, and compiled code would read an unchecked record "
                "(see docs/api.md, 'The game contract')")
        check_common(record, rules)
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
        """This game's compiled entry points (the ``core/compiled/bound.py`` template bound to its kernels).

        ``bot``/``obs`` (indices as `bot_index`/`obs_index` give, ``obs=-1`` for a dict encoder) bind
        it to that one bot / encoder: the ``which_bot``/``which_obs`` arguments are then ignored and
        only that bot / encoder is compiled. ``bots`` (bot indices) binds the dispatch to those bots
        only, for whole games that mix them (``play_games``): its ``which_bot`` arguments are then slots,
        ``mod.BOT_SLOTS[bot index]``. ``None`` keeps the dispatch over all of them (which compiles every
        bot, the `search` bot included)."""
        from cardgym.core.compiled.binder import compiled

        return compiled(self, bot, obs, bots)

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
            why = ""
            if name == "search" and self.world is None:
                why = " (the search bot is not available for this game: it declares no WORLD in its observe.py)"
            elif name in ("greedy", "expert", "search"):
                why = f" (bots beyond 'random' are optional: this game offers no {name!r} bot)"
            raise ValueError(f"unknown bot {name!r} for {self.name}; allowed: {sorted(self.bots)}{why}")
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


def _check_contract(package: str, got: dict, bots: dict, *, title, gym_name, version, meta) -> None:
    """The contract of a game folder beyond its names (`GameSpec.from_package`): each failure a
    ``TypeError`` naming the folder, the file and the piece."""
    _check_arguments(package, title=title, gym_name=gym_name, version=version, meta=meta)
    _check_rules(package, got)
    _check_encoders(package, got)
    _check_abilities(package, got, bots)


def _fail(package: str, file: str, what: str):
    """Raise the contract's ``TypeError`` (`_contract_error`) for ``file`` of the folder ``package``."""
    raise _contract_error(package, file, what)


def _check_arguments(package: str, *, title, gym_name, version, meta) -> None:
    """The arguments ``__init__.py`` passes to `GameSpec.from_package`: title, gym name, version, and the
    typed fields of ``meta`` that the core reads (utility, standing, test configs)."""

    def fail(what):
        _fail(package, "__init__.py", what)

    for key, value in (("title", title), ("gym_name", gym_name)):
        if not isinstance(value, str) or not value:
            fail(f"must pass {key}= as a non-empty string to GameSpec.from_package, got {value!r}")
    if not isinstance(gym_name, str) or not gym_name.isidentifier():
        fail(f"gym_name= must be an identifier (it names the Gymnasium class), got {gym_name!r}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        fail(f"version= must be an integer >= 0 (the -vN of the env ids), got {version!r}")
    utility = meta.get("utility", "head_to_head")
    if utility not in UTILITIES:
        fail(f"utility={utility!r} is not one of {sorted(UTILITIES)}")
    standing = meta.get("standing")
    if standing is not None and not (isinstance(standing, Standing) and isinstance(standing.key, str)
                                     and standing.better in ("lower", "higher")):
        fail(f"standing= must be None or a Standing(key, better='lower'|'higher'), got {standing!r}")
    configs = meta.get("test_configs", ({},))
    if (isinstance(configs, (str, Mapping)) or not isinstance(configs, Sequence) or not configs
            or not all(isinstance(c, Mapping) for c in configs)):
        fail(f"test_configs= must be a non-empty list of rule-option dicts, got {configs!r}")


def _check_rules(package: str, got: dict) -> None:
    """``rules.py``: the player and action counts, the `Rules` dataclass and its required options, the
    record dtype (the common header first) and the deck."""
    from cardgym.core.state.rules import Rules

    def fail(what):
        _fail(package, "rules.py", what)

    lo, hi, na = got[("rules", "MIN_PLAYERS")], got[("rules", "MAX_PLAYERS")], got[("rules", "NUM_ACTIONS")]
    for key, value in (("MIN_PLAYERS", lo), ("MAX_PLAYERS", hi), ("NUM_ACTIONS", na)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            fail(f"{key} must be an integer >= 1, got {value!r}")
    if lo > hi:
        fail(f"MIN_PLAYERS={lo} is above MAX_PLAYERS={hi}")
    rules_cls = got[("rules", "RULES")]
    if not (isinstance(rules_cls, type) and issubclass(rules_cls, Rules) and dataclasses.is_dataclass(rules_cls)):
        fail(f"RULES must be a dataclass subclass of cardgym.core.state.rules.Rules, got {rules_cls!r}")
    fields = {f.name for f in dataclasses.fields(rules_cls)}
    for option in REQUIRED_OPTIONS:
        if option not in fields:
            fail(f"RULES ({rules_cls.__name__}) must have the rule option {option!r} "
                 f"(every game has {', '.join(REQUIRED_OPTIONS)})")
    dtype = got[("rules", "STATE_DTYPE")]
    header = state_dtype(int(hi), [])
    if not isinstance(dtype, np.dtype) or dtype.names is None or dtype.names[:len(header.names)] != header.names:
        fail("STATE_DTYPE must be built by cardgym.core.contract.game.state_dtype(MAX_PLAYERS, fields) "
             f"(the common header first), got {dtype!r}")
    if dtype["reward"].shape != (int(hi),):
        fail(f"STATE_DTYPE's reward must hold MAX_PLAYERS={hi} seats, got {dtype['reward'].shape}")
    deck = got[("rules", "DECK")]
    if not (isinstance(deck, np.ndarray) and deck.ndim == 1 and np.issubdtype(deck.dtype, np.integer)):
        fail(f"DECK must be a 1-d integer numpy array of card codes, got {type(deck).__name__}")


def _check_encoders(package: str, got: dict) -> None:
    """``observe.py``'s ``ENCODERS``: encoders only, ``vector`` first and flat, at most `MAX_FLAT_ENCODERS`
    flat ones."""

    def fail(what):
        _fail(package, "observe.py", what)

    encoders = got[("observe", "ENCODERS")]
    if not isinstance(encoders, Mapping) or not encoders or next(iter(encoders)) != "vector":
        fail("ENCODERS must be a dict of encoders whose first is 'vector' (the default)")
    for key, enc in encoders.items():
        if not isinstance(enc, (FlatEncoder, DictEncoder)):
            fail(f"ENCODERS[{key!r}] must be a FlatEncoder or DictEncoder, got {type(enc).__name__}")
    if not isinstance(encoders["vector"], FlatEncoder):
        fail("ENCODERS['vector'] must be a FlatEncoder (the compiled default observation)")
    flats = sum(isinstance(e, FlatEncoder) for e in encoders.values())
    if flats > MAX_FLAT_ENCODERS:
        fail(f"ENCODERS holds {flats} flat encoders; the compiled dispatch holds at most {MAX_FLAT_ENCODERS}")


def _check_abilities(package: str, got: dict, bots: dict) -> None:
    """The bots (``random`` first, at most `MAX_BOTS`), every lower-case export a function, a scene with its
    palette, and a ``WORLD`` that is a `Hidden`."""
    if list(bots)[:len(REQUIRED_BOTS)] != list(REQUIRED_BOTS):
        _fail(package, "bots.py", f"BOTS may start with the game's own random bot, but random must come first "
                                  f"(bot 0 of every game), got {list(bots)}")
    if len(bots) > MAX_BOTS:
        _fail(package, "bots.py", f"the game has {len(bots)} bots ({', '.join(bots)}: the core's random, bots.py, "
                                  f"expert.py and search.py together); the compiled dispatch holds at most {MAX_BOTS}")
    for (module, n), value in got.items():
        if n.islower() and value is not None and not callable(value):
            _fail(package, f"{module}.py", f"{n} must be a function, got {type(value).__name__}")
    if got.get(("scene", "scene")) is not None and got.get(("scene", "PALETTE")) is None:
        _fail(package, "scene.py", "must define PALETTE (a cardgym.render.scene.Palette) beside scene")
    world = got.get(("observe", "WORLD"))
    if world is not None:
        from cardgym.core.contract.worlds import Hidden

        if not isinstance(world, Hidden):
            _fail(package, "observe.py", f"WORLD must be a cardgym.kit.Hidden, got {type(world).__name__}")


def replace(spec: GameSpec, **changes) -> GameSpec:
    return dataclasses.replace(spec, **changes)


def _jit_disabled() -> bool:
    from numba.core import config

    return bool(config.DISABLE_JIT)
