"""Game records: one game of any cardgym AEC env as a versioned JSON-lines file, and its exact replay.

A record is a text file of JSON objects, one a line (docs/web.md, "Game records"):

1. a **header**: ``{"type": "header", "format": "cardgym-game-record", "version": 1, "game", "env",
   "cardgym", "rules", "seed", "deck", "players"}``: the env id (``skyjo_v0``) and the cardgym
   version, the complete rules (``Rules.as_dict()``), the seed of the deal or the stacked deck, and
   who played each seat (``{"seat", "kind", "name"}``, ``kind`` one of ``person``, ``bot``, ``agent``
   (the shipped agent), ``model`` (a model file; both with ``file`` and its ``sha256``), ``python``);
2. one **action** line per decision: ``{"type": "action", "step", "seat", "action", "text"}`` (the seat
   that acted, the action id, the action in words in its state), and for a text player's decision its
   ``"telemetry"`` (`cardgym.agents.text.TextPlayer.decide`: the prompt's hash, the raw answers, the
   parsed move, the parse and illegal attempts, the fallback, latency and tokens);
3. an **end** line: ``{"type": "end", "steps", "finished", "status", "result"}`` (the game's result;
   ``finished`` false for a game left before its end), with ``"forfeit": {"seat", "step", "telemetry"}``
   when a text player forfeited there.

`GameRecorder` writes one from any AEC env (``cardgym play --record``, ``cardgym eval --record``);
`read_record` reads and checks a file and `replay` re-plays it step by step, refusing (`RecordError`,
naming the line and the reason) an unknown format or version, a damaged line, an action that is not
legal at its step or taken by another seat than the one to act, and a result that differs from the
record's. ``cardgym replay FILE`` prints the replay (``--gif OUT``: a picture).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import cardgym

from cardgym.render.view import plain

FORMAT = "cardgym-game-record"
VERSION = 1
KINDS = ("person", "bot", "agent", "model", "python")
STATUSES = ("running", "terminated", "truncated")
#: the most moves a record may hold (a long 4-player Skip-Bo game is a few thousand)
MAX_MOVES = 20_000
#: the most characters of one line, and of a name or a move's text in it
MAX_LINE = 100_000
MAX_TEXT = 1_000
#: the deepest nesting of lists and objects a line may hold
MAX_DEPTH = 8


class RecordError(ValueError):
    """A game record that cannot be replayed: ``line`` (1-based; 0 for the file as a whole) and ``reason``."""

    def __init__(self, where, line: int, reason: str):
        self.where, self.line, self.reason = str(where), int(line), reason
        super().__init__(f"{where}, line {line}: {reason}" if line else f"{where}: {reason}")


def sha256_of(path) -> str:
    """The sha256 hex digest of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def player_entry(game, who, num_players: int | None = None, seat: int = 0) -> dict:
    """The record's description of a seat's player: ``"person"``, a bot name, ``"agent"`` (the shipped
    agent, with its file name and sha256), a model file path (with its sha256) or a callable."""
    if isinstance(who, dict):
        entry = dict(who)
    elif who is None or who == "person":
        entry = {"kind": "person", "name": "person"}
    elif isinstance(who, str) and who in game.bots:
        entry = {"kind": "bot", "name": who}
    elif isinstance(who, str) and who == "agent":
        from importlib import resources

        from cardgym.agents.pretrained import agent_path

        ref = agent_path(game.name, num_players or 2)
        with resources.as_file(ref) as path:
            entry = {"kind": "agent", "name": "agent", "file": ref.name, "sha256": sha256_of(path)}
    elif isinstance(who, (str, os.PathLike)) and Path(who).is_file():
        entry = {"kind": "model", "name": Path(who).name, "file": str(who), "sha256": sha256_of(who)}
    elif callable(who):
        entry = {"kind": "python", "name": getattr(who, "__name__", type(who).__name__)}
    else:
        raise ValueError(
            f"a player is 'person', a bot of {game.name} {sorted(game.bots)}, 'agent', a model file or a "
            f"callable; got {who!r}"
        )
    entry["seat"] = int(seat)
    return entry


def _dump(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _plain(x):
    """JSON-able copy (numpy scalars and arrays as Python values), as the file will hold it."""
    return json.loads(json.dumps(plain(x)))


class GameRecorder:
    """Records one game of a cardgym AEC env (raw or wrapped) while it is played.

    ```python
    rec = GameRecorder(env, players=["person", "expert"])
    rec.reset(seed=7)              # resets env; a fresh seed is drawn (and recorded) if None
    while env.agents:
        ...
        rec.step(action)           # env.step(action), recorded with the acting seat
    rec.save("game.jsonl")
    ```
    """

    def __init__(self, env, players=None):
        raw = env.unwrapped
        if not hasattr(raw, "game") or not hasattr(raw, "record"):
            raise TypeError(f"GameRecorder records a cardgym AEC env, got {type(raw).__name__}")
        self.env, self.raw = env, raw
        n = raw.num_players
        players = list(players) if players is not None else ["python"] * n
        if len(players) != n:
            raise ValueError(f"players must name all {n} seats, got {len(players)}: {players!r}")
        self.players = [
            {"kind": "python", "name": "python", "seat": i} if p == "python" else player_entry(raw.game, p, n, i)
            for i, p in enumerate(players)
        ]
        self.header = None
        self.actions: list = []
        #: extra keys of the end line (e.g. ``forfeit``)
        self.end_extra: dict = {}

    def reset(self, seed: int | None = None, deck=None):
        """``env.reset`` with ``seed`` (drawn from the OS when None, so the record can replay it) or a
        stacked ``deck`` (a permutation of the game's deck, which then decides the deal)."""
        from cardgym.core.envs.resets import check_seed, entropy_seed

        raw = self.raw
        seed = entropy_seed() if seed is None else check_seed(seed)
        options = None
        if deck is not None:
            deck = raw.game.check_deck(deck)
            options = {"deck": deck}
        self.env.reset(seed=seed, options=options)
        self.header = {
            "type": "header", "format": FORMAT, "version": VERSION, "game": raw.game.name,
            "env": raw.game.env_name, "cardgym": cardgym.__version__, "rules": _plain(raw.rules.as_dict()),
            "seed": seed, "deck": None if deck is None else [int(x) for x in deck], "players": self.players,
        }
        self.actions = []
        self.end_extra = {}

    def step(self, action, telemetry: dict | None = None):
        """``env.step(action)``; a decision (not the ``None`` step of a finished agent) is recorded, with
        ``telemetry`` (JSON-able: a text player's) when given."""
        raw = self.raw
        if self.header is None:
            raise RuntimeError("GameRecorder.step before GameRecorder.reset")
        agent = raw.agent_selection
        dead = raw.terminations.get(agent, False) or raw.truncations.get(agent, False)
        if dead or action is None:
            self.env.step(action)
            return
        seat = raw.possible_agents.index(agent)
        a = int(action)
        text = raw.game.describe_action(raw.record, raw.rules, a) if raw.game.describe_action else (
            raw.game.action_to_str(a))
        legal = raw.legal_actions()
        if a not in legal:
            raise ValueError(f"illegal action {a} for {agent} (not recorded); legal actions: {legal}")
        self.env.step(action)
        line = {"type": "action", "step": len(self.actions), "seat": seat, "action": a, "text": text}
        if telemetry is not None:
            line["telemetry"] = _plain(telemetry)
        self.actions.append(line)

    def lines(self) -> list:
        """The record as a list of JSON objects (header, actions, end)."""
        if self.header is None:
            raise RuntimeError("nothing recorded: call GameRecorder.reset first")
        raw = self.raw
        status = int(raw.record["status"])
        end = {"type": "end", "steps": len(self.actions), "finished": status != 0,
               "status": {0: "running", 1: "terminated", 2: "truncated"}[status],
               "result": _plain(raw.result())}
        end.update(_plain(self.end_extra))
        return [self.header] + self.actions + [end]

    def text(self) -> str:
        return "".join(_dump(x) + "\n" for x in self.lines())

    def save(self, path) -> Path:
        """Write the record (JSON lines) to ``path``; returns the path."""
        path = Path(path)
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text())
        return path


def play_recorded(game, players, seed: int, rules: dict | None = None, policies: dict | None = None):
    """Play one game of bots and models (``players``: one per seat, bot names, ``"agent"`` or model
    files) and return its `GameRecorder`. ``policies`` caches loaded models by name across calls."""
    from cardgym.core.envs.opponents import load_model_opponent

    game = cardgym.get_game(game) if isinstance(game, str) else game
    mod = importlib.import_module(cardgym.GAMES[game.name].module)
    rules = dict(rules or {})
    rules["num_players"] = len(players)
    env = mod.raw_env(**rules)
    policies = {} if policies is None else policies
    for p in players:
        if p not in game.bots and p not in policies:
            policies[p] = load_model_opponent(game, p, dict(rules), "vector")
    rec = GameRecorder(env, players)
    rec.reset(seed=seed)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            rec.step(None)
            continue
        who = players[env.possible_agents.index(agent)]
        if who in game.bots:
            a = env.bot_action(who)
        else:
            obs = env.observe(agent)
            a = int(policies[who].act(obs["observation"][None], obs["action_mask"][None])[0])
        rec.step(a)
    return rec


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(str(name)).name).strip("_") or "player"


def record_pairings(game, bots: list, out_dir, games: int, num_players: int = 2, seed: int = 0,
                    rules: dict | None = None) -> list:
    """``games`` recorded games for every pair of ``bots`` (``cardgym eval --record DIR``): game ``j`` of
    pair (a, b) seats ``a`` at seat ``j % num_players`` and ``b`` everywhere else, with deal seed
    ``seed + j``. Files ``DIR/<a>-vs-<b>-<j>.jsonl``; returns their paths."""
    import itertools

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"the number of recorded games per pairing must be a positive integer, got {games!r}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths, cache = [], {}
    for a, b in itertools.combinations(bots, 2):
        for j in range(games):
            seats = [b] * num_players
            seats[j % num_players] = a
            rec = play_recorded(game, seats, seed + j, rules, cache)
            paths.append(rec.save(out_dir / f"{_safe(a)}-vs-{_safe(b)}-{j}.jsonl"))
    return paths


class RecordFolder:
    """Records every game `cardgym.eval.match` plays into a folder (the ``recorder`` of
    `cardgym.eval.batch.play`, used for games with text players): ``DIR/<players>-<k>.jsonl``, ``k``
    counting the games of each line-up. ``paths`` lists the files written."""

    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.paths: list = []
        self._count: dict = {}
        self._lock = threading.Lock()

    def claim(self, row) -> str:
        """The name (without ``.jsonl``) of the next game of the line-up ``row``: ``<players>-<k>``.
        Claimed in schedule order, so the names do not depend on which game ends first."""
        stem = "-".join(_safe(x) for x in _names(row))
        with self._lock:
            j = self._count.get(stem, 0)
            self._count[stem] = j + 1
        return f"{stem}-{j}"

    def open(self, env, row, key: str) -> GameRecorder:
        """The recorder of the game ``key`` (from `claim`) of ``env``; its ``done()`` writes the file."""
        entries = [p.record_entry() if callable(getattr(p, "record_entry", None)) else
                   (p if isinstance(p, str) else {"kind": "python", "name": n}) for p, n in zip(row, _names(row))]
        rec = GameRecorder(env, entries)
        folder = self

        def done():
            path = rec.save(folder.out_dir / f"{key}.jsonl")
            with folder._lock:
                folder.paths.append(path)

        rec.done = done
        return rec

    def __call__(self, env, row, k):
        return self.open(env, row, self.claim(row))


def _names(row) -> list:
    return [p if isinstance(p, str) else str(getattr(p, "name", None) or type(p).__name__) for p in row]


# ----------------------------------------------------------------------------------------------- reading
@dataclass
class GameRecord:
    """A record read and checked line by line by `read_record` (not yet replayed)."""

    header: dict
    actions: list  # of the action dicts
    end: dict
    where: str = "record"
    lines: list = field(default_factory=list)  # the line number of each action

    @property
    def game(self) -> str:
        return self.header["game"]


def _need(where, line, obj, key, kind, what=""):
    if key not in obj:
        raise RecordError(where, line, f"the {obj.get('type', 'line')} line has no {key!r}")
    v = obj[key]
    ok = {"int": lambda x: isinstance(x, int) and not isinstance(x, bool),
          "str": lambda x: isinstance(x, str), "dict": lambda x: isinstance(x, dict),
          "list": lambda x: isinstance(x, list), "bool": lambda x: isinstance(x, bool)}[kind](v)
    if not ok:
        raise RecordError(where, line, f"{key!r} must be {what or ('an ' if kind == 'int' else 'a ') + kind}, "
                                       f"got {_short(v)}")
    if kind == "str" and len(v) > MAX_TEXT:
        raise RecordError(where, line, f"{key!r} is {len(v)} characters long; the most is {MAX_TEXT}")
    return v


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _int_in(where, line, obj, key, lo, hi, what):
    v = _need(where, line, obj, key, "int")
    if not lo <= v <= hi:
        raise RecordError(where, line, f"{key!r} must be {what} ({lo}..{hi}), got {_short(v)}")
    return v


def _depth(obj) -> int:
    """How deeply lists and objects nest in ``obj`` (no recursion)."""
    deepest, todo = 0, [(obj, 0)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, (list, dict)):
            d += 1
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                return d
            todo.extend((v, d) for v in (x.values() if isinstance(x, dict) else x))
    return deepest


def _load_line(where, no, line):
    if len(line) > MAX_LINE:
        raise RecordError(where, no, f"the line is {len(line)} characters long; a record's line holds at most {MAX_LINE}")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(where, no, f"not JSON ({exc.msg} at column {exc.colno}): the file is damaged") from None
    except RecursionError:
        raise RecordError(where, no, f"lists or objects nested more than {MAX_DEPTH} deep") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise RecordError(where, no, f"not a number this reader takes ({str(exc)[:120]})") from None
    if _depth(obj) > MAX_DEPTH:
        raise RecordError(where, no, f"lists or objects nested more than {MAX_DEPTH} deep")
    if not isinstance(obj, dict):
        raise RecordError(where, no, f"a line must be a JSON object, got {type(obj).__name__}")
    return obj


def _check_header(where, no, obj):
    """The header's fields, every one a reader uses; returns ``(game, rules)`` (the game spec and its
    checked Rules)."""
    if obj.get("type") != "header" or obj.get("format") != FORMAT:
        raise RecordError(where, no, f"not a cardgym game record (the first line must be the header, format {FORMAT!r})")
    version = obj.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise RecordError(where, no, f"unknown record version {_short(version)}; this cardgym reads version {VERSION}")
    game = _need(where, no, obj, "game", "str")
    if game not in cardgym.GAMES:
        raise RecordError(where, no, f"unknown game {_short(game)}; games: {sorted(cardgym.GAMES)}")
    spec = cardgym.get_game(game)
    env_id = _need(where, no, obj, "env", "str")
    if env_id != spec.env_name:
        raise RecordError(where, no, f"env {_short(env_id)} is not this cardgym's {spec.env_name!r}")
    if "cardgym" in obj:
        _need(where, no, obj, "cardgym", "str")
    rules = _need(where, no, obj, "rules", "dict")
    for k, v in rules.items():
        if not isinstance(v, (int, float, str, bool)) and v is not None:
            raise RecordError(where, no, f"rule {_short(k)} must be a number, text, true/false or null, got {_short(v)}")
    try:
        checked = spec.make_rules(**rules)
    except (TypeError, ValueError, OverflowError) as exc:
        raise RecordError(where, no, f"rules not accepted: {exc}") from None
    seed, deck = obj.get("seed"), obj.get("deck")
    if seed is None and deck is None:
        raise RecordError(where, no, "the header has neither a seed nor a deck")
    if seed is not None:
        _int_in(where, no, obj, "seed", 0, 2**63 - 1, "the seed of the deal")
    if deck is not None:
        deck = _need(where, no, obj, "deck", "list")
        if not all(isinstance(c, int) and not isinstance(c, bool) and -128 <= c <= 127 for c in deck):
            raise RecordError(where, no, "'deck' must list the card codes of the game's deck (small integers)")
        try:
            spec.check_deck(np.asarray(deck))
        except (TypeError, ValueError, OverflowError) as exc:
            raise RecordError(where, no, f"deck not accepted: {exc}") from None
    players = _need(where, no, obj, "players", "list")
    n = int(checked.num_players)
    if len(players) != n:
        raise RecordError(where, no, f"the header names {len(players)} players for a {n}-player game (one per seat)")
    for i, p in enumerate(players):
        if not isinstance(p, dict) or p.get("kind") not in KINDS:
            raise RecordError(where, no, f"player {i} must be an object with kind one of {list(KINDS)}, got {_short(p)}")
        what = f"player {i}"
        if isinstance(p.get("seat"), bool) or p.get("seat") != i:
            raise RecordError(where, no, f"{what} must have 'seat': {i} (players are listed seat by seat), got "
                                         f"{_short(p.get('seat'))}")
        name = p.get("name")
        if not isinstance(name, str) or not name or len(name) > MAX_TEXT:
            raise RecordError(where, no, f"{what} must have a 'name' (text of 1..{MAX_TEXT} characters), got {_short(name)}")
        if p["kind"] == "bot" and name not in spec.bots:
            raise RecordError(where, no, f"{what} is a bot named {_short(name)}; bots of {game}: {list(spec.bots)}")
        for key in ("file", "sha256"):
            if key in p and (not isinstance(p[key], str) or len(p[key]) > MAX_TEXT):
                raise RecordError(where, no, f"{what}'s {key!r} must be text, got {_short(p[key])}")
        if p["kind"] in ("agent", "model") and not re.fullmatch(r"[0-9a-f]{64}", str(p.get("sha256", ""))):
            raise RecordError(where, no, f"{what} ({p['kind']}) must have the 'sha256' of its file (64 hex digits), "
                                         f"got {_short(p.get('sha256'))}")
    return spec, checked


def parse_record(text: str, where: str = "record") -> GameRecord:
    """A record from its text, every field a reader uses checked (`RecordError` with the line number
    and the reason otherwise): its types, ranges and sizes, the players against the seats, at most
    `MAX_MOVES` moves, no nesting deeper than `MAX_DEPTH`."""
    header, actions, lines, end = None, [], [], None
    if not isinstance(text, str):
        raise RecordError(where, 0, f"a record is text, got {type(text).__name__}")
    raw_lines = text.splitlines()
    if not raw_lines:
        raise RecordError(where, 0, "the file is empty (a game record starts with a header line)")
    if len(raw_lines) > MAX_MOVES + 2:
        raise RecordError(where, MAX_MOVES + 2, f"the record holds more than {MAX_MOVES} moves, the most this "
                                                f"reader replays")
    n, num_actions = 0, 0
    for no, line in enumerate(raw_lines, 1):
        if not line.strip():
            raise RecordError(where, no, "empty line (one JSON object per line, nothing else)")
        obj = _load_line(where, no, line)
        kind = obj.get("type")
        if end is not None:
            raise RecordError(where, no, f"a {_short(kind)} line after the end line")
        if no == 1:
            spec, checked = _check_header(where, no, obj)
            n, num_actions = int(checked.num_players), int(spec.num_actions)
            header = obj
            continue
        if kind == "action":
            step = _need(where, no, obj, "step", "int")
            if step != len(actions):
                raise RecordError(where, no, f"action step {_short(step)} out of order (expected step {len(actions)})")
            _int_in(where, no, obj, "seat", 0, n - 1, "a seat of the game")
            _int_in(where, no, obj, "action", 0, num_actions - 1, "an action id of the game")
            _need(where, no, obj, "text", "str")
            actions.append(obj)
            lines.append(no)
        elif kind == "end":
            steps = _need(where, no, obj, "steps", "int")
            if steps != len(actions):
                raise RecordError(where, no, f"the end line counts {_short(steps)} steps, the record holds {len(actions)}")
            finished = _need(where, no, obj, "finished", "bool")
            status = _need(where, no, obj, "status", "str")
            if status not in STATUSES:
                raise RecordError(where, no, f"'status' must be one of {list(STATUSES)}, got {_short(status)}")
            if finished != (status != "running"):
                raise RecordError(where, no, f"'finished' {finished} contradicts 'status' {status!r}")
            _need(where, no, obj, "result", "dict")
            end = obj
        else:
            raise RecordError(where, no, f"unknown line type {_short(kind)}; allowed: 'action', 'end' after the header")
    if end is None:
        raise RecordError(where, len(raw_lines), "the record stops without its end line (a cut-off file)")
    return GameRecord(header, actions, end, where, lines)


def read_record(path) -> GameRecord:
    """Read and check a record file (`RecordError` naming the line and the reason)."""
    path = Path(path)
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise RecordError(path, 0, "not a text file (a game record is JSON lines)") from None
    return parse_record(text, str(path))


def make_env(rec: GameRecord):
    """A fresh raw AEC env of the record's game and rules, reset to its deal."""
    h = rec.header
    mod = importlib.import_module(cardgym.GAMES[h["game"]].module)
    try:
        env = mod.raw_env(**h["rules"])
    except (TypeError, ValueError) as exc:
        raise RecordError(rec.where, 1, f"rules not accepted: {exc}") from None
    options = None
    if h.get("deck") is not None:
        try:
            options = {"deck": env.game.check_deck(np.asarray(h["deck"]))}
        except (TypeError, ValueError) as exc:
            raise RecordError(rec.where, 1, f"deck not accepted: {exc}") from None
    env.reset(seed=h["seed"] if h.get("seed") is not None else 0, options=options)
    for p, i in zip(h["players"], range(env.num_players)):  # checked by parse_record; a GameRecord built by hand too
        if not isinstance(p, dict) or p.get("seat") != i or not isinstance(p.get("name"), str):
            raise RecordError(rec.where, 1, f"player {i} must be an object with 'seat': {i} and a 'name'")
    return env


def replay(rec: GameRecord):
    """Re-play a record: yields ``(step, env)`` before each action (``step`` 0..) and once more after
    the last one (``step`` = the number of actions). Raises `RecordError` at the first action that is
    not the recorded seat's turn or not legal, and at the end if the result differs from the record's."""
    env = make_env(rec)
    for k, (obj, no) in enumerate(zip(rec.actions, rec.lines)):
        yield k, env
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        if not env.agents or int(env.record["status"]) != 0:
            raise RecordError(rec.where, no, f"step {k}: the game is already over, yet the record goes on")
        seat = env.possible_agents.index(env.agent_selection)
        if obj["seat"] != seat:
            raise RecordError(rec.where, no, f"step {k}: the record says seat {obj['seat']} acted, but seat {seat} is to act")
        a = obj["action"]
        legal = env.legal_actions()
        if a not in legal:
            raise RecordError(rec.where, no, f"step {k}: action {a} is not legal here; legal actions: {legal}")
        text = env.game.describe_action(env.record, env.rules, a) if env.game.describe_action else (
            env.game.action_to_str(a))
        if obj["text"] != text:
            raise RecordError(rec.where, no, f"step {k}: the record's move {_short(obj['text'])} is not what action "
                                             f"{a} does here ({text!r}): a changed move")
        env.step(a)
    yield len(rec.actions), env
    end_line = len(rec.lines) + 2
    status = {0: "running", 1: "terminated", 2: "truncated"}[int(env.record["status"])]
    if status != rec.end["status"]:
        raise RecordError(rec.where, end_line, f"the record ends with status {rec.end['status']!r}, the replay with "
                                               f"{status!r}")
    got = _plain(env.result())
    if got != rec.end["result"]:
        raise RecordError(rec.where, end_line, f"the replayed result {_short(got)} differs from the recorded "
                                               f"{_short(rec.end['result'])}")


def replay_states(rec: GameRecord) -> list:
    """Every state of a record (copies of the env's state record before each action and after the last),
    checked by `replay`. Returns ``(env, states)``: the env holds the final state."""
    states, env = [], None
    for _, env in replay(rec):
        states.append(env.record.copy())
    return env, states


# ------------------------------------------------------------------------------------------ the command
def telemetry_text(tel: dict, width: int = 300) -> str:
    """A text player's telemetry of one decision as indented lines: each answer (cut at ``width``
    characters, on one line), then the counts."""
    out = []
    answers = tel.get("answers") if isinstance(tel.get("answers"), list) else []
    for i, ans in enumerate(answers):
        one = " ".join(str(ans).split())
        one = one[:width] + ("..." if len(one) > width else "")
        out.append(f"       answer{' ' + str(i + 1) if len(answers) > 1 else ''}: {one!r}")
    facts = [f"outcome {tel['outcome']}"] if tel.get("outcome") not in (None, "ok") else []
    for key, label in (("parse_errors", "unparsed"), ("illegal", "illegal"), ("fallback", "fallback"),
                       ("error", "error"), ("latency_ms", "ms"), ("tokens_in", "tokens in"),
                       ("tokens_out", "tokens out")):
        v = tel.get(key)
        if v not in (None, 0, ""):
            facts.append(f"{label} {v}")
    if facts:
        out.append("       (" + ", ".join(facts) + ")")
    return "\n".join(out) if out else "       (no answer)"


def cmd_replay(args, extra):
    import sys

    from cardgym import render

    if extra:
        raise SystemExit(f"cardgym replay: unexpected argument {extra[0]!r}")
    if not Path(args.file).is_file():
        raise SystemExit(f"cardgym replay: no such file {args.file!r}")
    frames = []
    try:
        rec = read_record(args.file)
        game = cardgym.get_game(rec.game)
        n = int(rec.header["rules"].get("num_players", 2))
        if args.seat is not None and not 0 <= args.seat < n:
            raise SystemExit(f"cardgym replay: --seat must be 0..{n - 1}, got {args.seat}")
        who = ", ".join(f"player_{p['seat']}: {p['name']}" for p in rec.header["players"])
        print(f"{game.title} record {args.file}: {len(rec.actions)} moves; {who}")
        for k, env in replay(rec):
            if args.gif:
                frames.append(render.image(game, env.record, env.rules, viewer=args.seat))
            if args.tables or k == len(rec.actions):
                print(render.ansi(game, env.record, env.rules, viewer=args.seat))
            if k < len(rec.actions):
                a = rec.actions[k]
                print(f"{k:>4} player_{a['seat']}: {a.get('text') or env.action_to_str(a['action'])}")
                if isinstance(a.get("telemetry"), dict):
                    print(telemetry_text(a["telemetry"]))
    except RecordError as exc:
        raise SystemExit(f"cardgym replay: refused: {exc}") from None
    except ImportError as exc:
        raise SystemExit(f"cardgym replay: {exc}") from None
    if isinstance(rec.end.get("forfeit"), dict):
        f = rec.end["forfeit"]
        print(f"player_{f.get('seat')} forfeited at step {f.get('step')}")
        if isinstance(f.get("telemetry"), dict):
            print(telemetry_text(f["telemetry"]))
    print(f"result: {rec.end['result']}")
    if args.gif:
        ms = int(1000 / args.fps)
        try:
            frames[0].save(args.gif, format="GIF", save_all=True, append_images=frames[1:], duration=ms, loop=0)
        except OSError as exc:  # a full disk: one line, exit 2 (the path itself was checked when parsed)
            print(f"cardgym replay: error: could not write {args.gif}: {exc.strerror or exc}", file=sys.stderr)
            raise SystemExit(2) from None
        print(f"wrote {args.gif} ({len(frames)} frames)", file=sys.stderr)


__all__ = ["FORMAT", "VERSION", "GameRecord", "GameRecorder", "RecordError", "RecordFolder", "parse_record",
           "play_recorded", "player_entry", "read_record", "record_pairings", "replay", "replay_states", "sha256_of",
           "telemetry_text"]
