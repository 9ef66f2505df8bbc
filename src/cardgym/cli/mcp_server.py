"""``cardgym mcp``: the games as a Model Context Protocol server, over stdio or streamable HTTP, so that
any MCP-capable agent can play a seat (the official ``mcp`` SDK, ``pip install 'cardgym[llm]'``).

Tools: ``list_games``, ``rules`` (a game's rules in plain words), ``new_game`` (game, rule options, your
seat, who sits in the other seats), ``view`` (your seat's view only), ``legal_actions`` (ids and words),
``play`` (an id or a move's words), ``wait_turn`` (a bounded wait for your turn), ``result`` and
``replay_record`` (the game record, once the game is over). The other seats are played by bots on the
server, or left ``open`` for other agents, whose seat tokens ``new_game`` hands to its caller. Every tool
after ``new_game`` takes the game id *and* the seat's secret token: a game id alone grants nothing, and a
token acts and sees for its own seat only.

Every tool publishes a JSON Schema (2020-12) of its arguments (a description on each, enums for games
and bots, bounds, no unknown names) and of its result, and annotations saying truthfully what it does
(only `new_game` and `play` change anything; nothing reaches outside the process). A call is checked
against the schema first, then against the game (a seat the game has, a rule option it knows, a legal
move): a bad argument gets a tool error naming the field and what is allowed. A result is structured
content with the same object as compact JSON text beside it.

The server holds at most ``max_games`` games in progress; a finished game frees its slot at once and stays
readable (view, result, replay_record) among at most ``keep_finished`` finished games. A game nobody
touched for ``expire`` seconds is dropped.

`Games` is the game keeping (no MCP in it); `TOOLS` describes the tools; `build_server` puts them behind
the SDK's low-level ``Server``; `serve_stdio` and `serve_http` run it.
"""

from __future__ import annotations

import importlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import cardgym

from cardgym.agents.answers import read_answer
from cardgym.agents.text import game_rules_text, theirs
from cardgym.app.options import rule_defaults
from cardgym.app.game_records import GameRecorder

#: the other seats' kinds besides the game's bots: a seat another agent plays with its own token
OPEN = "open"
#: the longest move text ``play`` reads
MAX_MOVE_CHARS = 500
SEED_MAX = 2**63 - 1
#: the longest ``wait_turn`` (seconds), and how many calls may wait at once
MAX_WAIT = 60.0
MAX_WAITERS = 16
#: finished games kept readable (besides the ``max_games`` in progress)
KEEP_FINISHED = 256
#: ids of dropped games remembered, to say why a game is gone
GONE_MEMORY = 4096
#: HTTP: sessions held at once, seconds before an idle session is closed, the largest request body
MAX_SESSIONS = 64
SESSION_IDLE = 1800.0
MAX_BODY = 64 * 1024


class Refused(ValueError):
    """A tool call refused: the message names the field and what is allowed."""


@dataclass
class McpGame:
    id: str
    game: object
    env: object
    recorder: GameRecorder
    seats: list  # per seat: a bot name or OPEN (the agent seats)
    tokens: dict  # token -> seat
    seed: int = 0
    log: list = field(default_factory=list)  # public moves in words
    since: dict = field(default_factory=dict)  # seat -> log index after its last move
    touched: float = 0.0

    @property
    def over(self) -> bool:
        return not self.env.agents or int(self.env.record["status"]) != 0

    def to_act(self):
        env = self.env
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            self.recorder.step(None)
        if self.over:
            return None
        return env.possible_agents.index(env.agent_selection)

    def move(self, seat: int, action: int):
        env = self.env
        describe = env.game.describe_action
        text = describe(env.record, env.rules, action) if describe else env.game.action_to_str(action)
        self.recorder.step(action)
        self.log.append(f"player_{seat}: {theirs(text)}")
        self.since[seat] = len(self.log)
        return text

    def advance(self) -> list:
        """Let the bots move until an agent seat is to act or the game is over; the moves made."""
        made = []
        while True:
            seat = self.to_act()
            if seat is None or self.seats[seat] == OPEN:
                return made
            self.move(seat, self.env.bot_action(self.seats[seat]))
            made.append(self.log[-1])


def _int(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise Refused(f"{name} must be an integer {lo}..{hi}, got {value!r}")
    return value


def parse_move(action, legal: list, num_actions: int | None = None):
    """The action id that ``action`` (an id, or text: an id or a move's words, read by the text players'
    parser `cardgym.agents.answers.read_answer`) names among ``legal`` (``[{"action": id, "text":
    words}, ...]``), or None."""
    if isinstance(action, int) and not isinstance(action, bool):
        return action if action in {x["action"] for x in legal} else None
    if not isinstance(action, str) or len(action) > MAX_MOVE_CHARS:
        return None
    return read_answer(action, legal, num_actions).action


class Games:
    """The games of one server: at most ``max_games`` in progress and ``keep_finished`` finished ones,
    each dropped ``expire`` seconds after it was last touched."""

    def __init__(self, max_games: int = 16, expire: float = 1800.0, keep_finished: int = KEEP_FINISHED,
                 clock=time.monotonic):
        self.max_games, self.expire, self.clock = int(max_games), float(expire), clock
        self.keep_finished = int(keep_finished)
        self.games: dict = {}
        self.gone: OrderedDict = OrderedDict()  # id -> why it was dropped
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.waiters = 0

    def _drop(self, gid: str, why: str):
        del self.games[gid]
        self.gone[gid] = why
        while len(self.gone) > GONE_MEMORY:
            self.gone.popitem(last=False)

    def _purge(self):
        now = self.clock()
        for gid in [g for g, x in self.games.items() if now - x.touched > self.expire]:
            self._drop(gid, f"it was untouched for {self.expire:g} s (--expire)")
        finished = sorted((x.touched, g) for g, x in self.games.items() if x.over)
        for _, gid in finished[:max(0, len(finished) - self.keep_finished)]:
            self._drop(gid, f"it was over and the server keeps the {self.keep_finished} finished games touched "
                            "last (--keep-finished)")

    def in_progress(self) -> int:
        return sum(not g.over for g in self.games.values())

    def list_games(self) -> list:
        out = []
        for name in cardgym.registry.loadable():  # a game that fails to load is left out, with a warning
            spec = cardgym.get_game(name)
            options = {k: v for k, v in rule_defaults(spec.rules_cls).items() if k != "num_players"}
            out.append({"name": name, "title": spec.title, "min_players": spec.min_players,
                        "max_players": spec.max_players, "bots": list(spec.bots),
                        "default_opponent": spec.default_bot, "options": options})
        return out

    def rules(self, game: str) -> dict:
        spec = self._spec(game)
        return {"game": game, "title": spec.title, "rules": game_rules_text(spec)}

    @staticmethod
    def _spec(game):
        names = cardgym.registry.names()
        if not isinstance(game, str) or game not in names:
            raise Refused(f"game must be one of {', '.join(names)}, got {game!r}")
        try:
            return cardgym.get_game(game)
        except cardgym.registry.BrokenGame as exc:
            raise Refused(f"game: {exc}") from None

    def new_game(self, game: str, seat: int = 0, opponents=None, options=None, seed=None) -> dict:
        spec = self._spec(game)
        opponents = [spec.default_bot] if opponents is None else opponents
        allowed = list(spec.bots) + [OPEN]
        if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
            raise Refused(f"opponents must be a list of names, each one of {', '.join(allowed)}, got {opponents!r}")
        for o in opponents:
            if o not in allowed:
                raise Refused(f"opponents: {o!r} is not one of {', '.join(allowed)}")
        n = len(opponents) + 1
        if not spec.min_players <= n <= spec.max_players:
            raise Refused(f"opponents: {game} seats {spec.min_players}..{spec.max_players} players, so "
                          f"{spec.min_players - 1}..{spec.max_players - 1} opponents; got {len(opponents)}")
        seat = _int(seat, "seat", 0, n - 1)
        seed = secrets.randbelow(2**53) if seed is None else _int(seed, "seed", 0, SEED_MAX)
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise Refused(f"options must be an object of rule options, got {options!r}")
        known = [k for k in rule_defaults(spec.rules_cls) if k != "num_players"]
        for k, v in options.items():
            if k not in known:
                raise Refused(f"options: {k!r} is not a rule option of {game}; options: {', '.join(known)}")
            if not isinstance(v, (bool, int, float, str)) and v is not None:
                raise Refused(f"options: {k} must be a number, true/false, text or null, got {v!r}")
        try:
            rules = spec.make_rules(num_players=n, **options)
        except (TypeError, ValueError) as exc:
            raise Refused(f"options: {exc}") from None
        seats = list(opponents)
        seats.insert(seat, OPEN)
        with self.lock:
            self._purge()
            if self.in_progress() >= self.max_games:
                raise Refused(f"the server holds its limit of {self.max_games} games in progress (--max-games; "
                              f"finished games do not count): finish one, or wait for one untouched for "
                              f"{self.expire:g} s to be dropped")
            mod = importlib.import_module(cardgym.GAMES[game].module)
            env = mod.raw_env(**rules.as_dict())
            rec = GameRecorder(env, [OPEN_ENTRY if s == OPEN else s for s in seats])
            rec.reset(seed=seed)
            tokens = {secrets.token_urlsafe(24): i for i, s in enumerate(seats) if s == OPEN}
            g = McpGame(secrets.token_urlsafe(9), spec, env, rec, seats, tokens, seed=seed, touched=self.clock())
            self.games[g.id] = g
            g.advance()
            self.changed.notify_all()
            mine = next(t for t, s in tokens.items() if s == seat)
            out = {"game_id": g.id, "token": mine, "seat": seat, "num_players": n, "seed": seed,
                   "seats": [("you" if i == seat else s) for i, s in enumerate(seats)],
                   "open_seat_tokens": {str(s): t for t, s in tokens.items() if s != seat}}
            out.update(self._state(g, seat))
            return out

    def _get(self, game_id, token):
        if not isinstance(game_id, str) or not isinstance(token, str):
            raise Refused("game_id and token must be the strings new_game returned")
        self._purge()
        g = self.games.get(game_id)
        if g is None:
            why = self.gone.get(game_id)
            raise Refused(f"game_id: no game {game_id!r} on this server: "
                          + (f"it was dropped because {why}" if why else
                             "it never was here, or was dropped long ago (a restart drops every game)"))
        for t, s in g.tokens.items():
            if secrets.compare_digest(t, token):
                g.touched = self.clock()
                return g, s
        raise Refused("token: this token does not belong to any seat of this game")

    def _state(self, g: McpGame, seat: int) -> dict:
        cur = g.to_act()
        out = {"your_turn": cur == seat, "to_act": cur, "over": g.over,
               "moves_since_your_turn": g.log[g.since.get(seat, 0):]}
        if g.over:
            out["result"] = g.env.result()
        return out

    def view(self, game_id, token) -> dict:
        with self.lock:
            g, seat = self._get(game_id, token)
            g.to_act()
            return {"view": g.env.view(seat), **self._state(g, seat)}

    def legal_actions(self, game_id, token) -> dict:
        with self.lock:
            g, seat = self._get(game_id, token)
            state = self._state(g, seat)
            legal = g.env.view(seat)["legal"] if state["your_turn"] else []
            return {"legal": [{"action": x["action"], "text": x["text"]} for x in legal], **state}

    def play(self, game_id, token, action) -> dict:
        with self.lock:
            g, seat = self._get(game_id, token)
            cur = g.to_act()
            if g.over:
                raise Refused("action: the game is over (result and replay_record tell how it ended)")
            if cur != seat:
                raise Refused(f"action: it is player_{cur}'s turn, not yours (player_{seat}); wait_turn waits "
                              "for yours")
            legal = g.env.view(seat)["legal"]
            a = parse_move(action, legal, g.env.game.num_actions)
            if a is None:
                shown = repr(action) if len(repr(action)) < 100 else repr(action)[:100] + "..."
                raise Refused(f"action: {shown} is not a legal move now; give an id or the words of one of: "
                              + "; ".join(f"{x['action']}: {x['text']}" for x in legal[:40]))
            text = g.move(seat, a)
            g.advance()
            self.changed.notify_all()
            return {"played": text, **self._state(g, seat)}

    def wait_turn(self, game_id, token, timeout: float = 30.0) -> dict:
        """Wait (at most ``timeout`` seconds of real time) until this seat may act or the game is over."""
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout <= MAX_WAIT:
            raise Refused(f"timeout must be a number of seconds 0..{MAX_WAIT:g}, got {timeout!r}")
        start = time.monotonic()
        with self.lock:
            g, seat = self._get(game_id, token)
            if self.waiters >= MAX_WAITERS:
                raise Refused(f"timeout: {MAX_WAITERS} calls already wait on this server; call again later, or "
                              "poll with view")
            self.waiters += 1
            try:
                ready = self.changed.wait_for(lambda: g.id not in self.games or g.to_act() in (seat, None),
                                              timeout=timeout)
            finally:
                self.waiters -= 1
            if g.id not in self.games:
                raise Refused(f"game_id: the game was dropped while waiting: {self.gone.get(g.id, 'gone')}")
            g.touched = self.clock()
            return {"waited": round(time.monotonic() - start, 3), "timed_out": not ready, **self._state(g, seat)}

    def result(self, game_id, token) -> dict:
        with self.lock:
            g, seat = self._get(game_id, token)
            g.to_act()
            status = int(g.env.record["status"])
            return {"over": g.over, "status": {0: "running", 1: "terminated", 2: "truncated"}.get(status, str(status)),
                    "result": g.env.result() if g.over else None, "seat": seat, "seed": g.seed}

    def replay_record(self, game_id, token) -> str:
        with self.lock:
            g, _ = self._get(game_id, token)
            g.to_act()
            if not g.over:
                raise Refused("game_id: the record holds every card of the deal, so it is given once the game is "
                              "over; play on")
            return g.recorder.text()


OPEN_ENTRY = {"kind": "python", "name": "mcp"}


# ----------------------------------------------------------------------------------------------- the tools


SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _obj(props: dict, required=(), **extra) -> dict:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False,
            **extra}


_ID = {"type": "string", "minLength": 1, "maxLength": 64, "description": "the game_id that new_game returned"}
_TOKEN = {"type": "string", "minLength": 1, "maxLength": 64,
          "description": "your seat's secret token, as new_game returned it (or as the game's starter handed it "
                        "to you for an open seat)"}
_SEAT_ARGS = {"game_id": _ID, "token": _TOKEN}
_STATE = {
    "your_turn": {"type": "boolean", "description": "whether your seat may act now"},
    "to_act": {"anyOf": [{"type": "integer"}, {"type": "null"}],
               "description": "the seat to act now; null once the game is over"},
    "over": {"type": "boolean", "description": "whether the game is over"},
    "moves_since_your_turn": {"type": "array", "items": {"type": "string"},
                              "description": "every seat's moves, in words, since your last move"},
    "result": {"type": "object", "description": "the result (scores, winners), once the game is over"},
}
_STATE_REQ = ("your_turn", "to_act", "over", "moves_since_your_turn")


def _state_schema(props: dict, required=()) -> dict:
    return {"type": "object", "properties": {**props, **_STATE}, "required": [*required, *_STATE_REQ]}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what it does, its argument and result schemas, its annotations, and the
    `Games` method that serves it (``wrap`` turns that method's value into the result object)."""

    name: str
    title: str
    description: str
    input: dict
    output: dict
    read_only: bool
    idempotent: bool
    method: str
    wrap: object = None

    def annotations(self):
        from mcp import types

        # nothing is ever deleted (a move adds to a game; finished games are dropped by the server's own
        # bounds, not by a call), and no tool reaches anything outside this process
        return types.ToolAnnotations(title=self.title, read_only_hint=self.read_only, destructive_hint=False,
                                     idempotent_hint=self.idempotent, open_world_hint=False)


def tool_specs() -> list:
    """The tools, their schemas built from the games installed now (enums of games and bots)."""
    names = cardgym.registry.names()  # a game that fails to load stays nameable: new_game refuses it with its error
    specs = [cardgym.get_game(n) for n in cardgym.registry.loadable(names)]
    bots = sorted({b for s in specs for b in s.bots})
    most = max(s.max_players for s in specs)
    game = {"type": "string", "enum": list(names), "description": "the game's name (list_games lists them)"}
    return [
        ToolSpec(
            "list_games", "List the games",
            "Every game: name, title, player counts, bots, the default opponent, and the rule options with "
            "their defaults (new_game's `options`).",
            _obj({}), _obj({"games": {"type": "array", "items": _obj({
                "name": {"type": "string"}, "title": {"type": "string"},
                "min_players": {"type": "integer"}, "max_players": {"type": "integer"},
                "bots": {"type": "array", "items": {"type": "string"}},
                "default_opponent": {"type": "string"}, "options": {"type": "object"}},
                ("name", "title", "min_players", "max_players", "bots", "default_opponent", "options"))}},
                ("games",)),
            True, True, "list_games", lambda v: {"games": v}),
        ToolSpec(
            "rules", "Read a game's rules",
            "The rules of a game in plain words (what a turn is, how it ends, how it scores).",
            _obj({"game": game}, ("game",)),
            _obj({"game": {"type": "string"}, "title": {"type": "string"}, "rules": {"type": "string"}},
                 ("game", "title", "rules")),
            True, True, "rules"),
        ToolSpec(
            "new_game", "Start a game",
            "Start a game and sit at `seat`. `opponents` fills the other seats in order: bot names, or "
            "\"open\" for a seat another agent plays with the token this returns for it. Returns game_id and "
            "your secret token (every other tool needs both), the seed, and your situation; the bots before "
            "you have moved.",
            _obj({
                "game": game,
                "seat": {"type": "integer", "minimum": 0, "maximum": most - 1, "default": 0,
                         "description": "your seat, 0 = the first to act by default; at most the number of "
                                        "opponents"},
                "opponents": {"type": "array", "maxItems": most - 1,
                              "items": {"type": "string", "enum": [*bots, OPEN]},
                              "description": "who sits in the other seats, in seat order: a bot name (each "
                                             "game's bots: list_games) or \"open\" for another agent; leave "
                                             "out for one of the game's default bot"},
                "options": {"type": "object", "additionalProperties": {"anyOf": [
                    {"type": "number"}, {"type": "boolean"}, {"type": "string"}, {"type": "null"}]},
                            "description": "rule options by name (list_games lists each game's options and "
                                           "defaults); leave out for the defaults"},
                "seed": {"type": "integer", "minimum": 0, "maximum": SEED_MAX,
                         "description": "the deal's seed: the same seed, rules and seats deal the same game; "
                                        "leave out for a random one (returned as `seed`)"},
            }, ("game",)),
            _state_schema({
                "game_id": {"type": "string"}, "token": {"type": "string"}, "seat": {"type": "integer"},
                "num_players": {"type": "integer"}, "seed": {"type": "integer"},
                "seats": {"type": "array", "items": {"type": "string"},
                          "description": "per seat: \"you\", a bot name or \"open\""},
                "open_seat_tokens": {"type": "object", "additionalProperties": {"type": "string"},
                                     "description": "seat number -> token, for the open seats: hand each to "
                                                    "the agent that plays it"}},
                ("game_id", "token", "seat", "num_players", "seed", "seats", "open_seat_tokens")),
            False, False, "new_game"),
        ToolSpec(
            "view", "View the table",
            "Your seat's view of the table (every pile, the cards you may see, your legal moves in words when "
            "it is your turn) and the moves since your last turn.",
            _obj(_SEAT_ARGS, ("game_id", "token")),
            _state_schema({"view": {"type": "object", "description": "the table as your seat sees it"}}, ("view",)),
            True, True, "view"),
        ToolSpec(
            "legal_actions", "List your legal moves",
            "Your legal moves now, each an id and its words (empty when it is not your turn).",
            _obj(_SEAT_ARGS, ("game_id", "token")),
            _state_schema({"legal": {"type": "array", "items": _obj(
                {"action": {"type": "integer"}, "text": {"type": "string"}}, ("action", "text"))}}, ("legal",)),
            True, True, "legal_actions"),
        ToolSpec(
            "play", "Play a move",
            "Play a move: its id or its words, as legal_actions lists them. The bots then move until your "
            "next turn or the end.",
            _obj({**_SEAT_ARGS, "action": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": MAX_MOVE_CHARS}],
                                           "description": "the move: its id (an integer, or its digits) or its "
                                                          "words as legal_actions lists them"}},
                 ("game_id", "token", "action")),
            _state_schema({"played": {"type": "string", "description": "the move played, in words"}}, ("played",)),
            False, False, "play"),
        ToolSpec(
            "wait_turn", "Wait for your turn",
            "Wait until your seat may act or the game is over, at most `timeout` seconds; then your situation. "
            "For a game shared with other agents (open seats), in place of calling view again and again.",
            _obj({**_SEAT_ARGS, "timeout": {"type": "number", "minimum": 0, "maximum": MAX_WAIT, "default": 30,
                                            "description": "the longest wait, in seconds"}},
                 ("game_id", "token")),
            _state_schema({"waited": {"type": "number", "description": "seconds waited"},
                           "timed_out": {"type": "boolean", "description": "true when the time ran out first"}},
                          ("waited", "timed_out")),
            True, True, "wait_turn"),
        ToolSpec(
            "result", "Read the result",
            "Whether the game is over, and its result (scores, winners) once it is.",
            _obj(_SEAT_ARGS, ("game_id", "token")),
            _obj({"over": {"type": "boolean"}, "status": {"type": "string", "enum": ["running", "terminated",
                                                                                      "truncated"]},
                  "result": {"anyOf": [{"type": "object"}, {"type": "null"}]}, "seat": {"type": "integer"}, "seed": {"type": "integer"}},
                 ("over", "status", "result", "seat", "seed")),
            True, True, "result"),
        ToolSpec(
            "replay_record", "Get the game record",
            "The game record (JSON lines; `cardgym replay FILE` replays it), once the game is over.",
            _obj(_SEAT_ARGS, ("game_id", "token")),
            _obj({"record": {"type": "string", "description": "the record, JSON lines"}}, ("record",)),
            True, True, "replay_record", lambda v: {"record": v}),
    ]


def check_arguments(spec: ToolSpec, arguments) -> dict:
    """``arguments`` checked against the tool's input schema (jsonschema, JSON Schema 2020-12); a
    `Refused` naming the field (or the unknown names) otherwise."""
    from jsonschema import Draft202012Validator

    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, dict):
        raise Refused(f"arguments must be an object, got {type(arguments).__name__}")
    unknown = sorted(set(arguments) - set(spec.input["properties"]))
    if unknown:
        known = ", ".join(spec.input["properties"]) or "none"
        raise Refused(f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for "
                      f"{spec.name}; its arguments: {known}")
    errors = sorted(Draft202012Validator(spec.input).iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.path) or "arguments"
        shown = e.message if len(e.message) < 300 else e.message[:300] + "..."
        raise Refused(f"{where}: {shown}")
    return arguments


def call_tool(games: Games, spec: ToolSpec, arguments) -> dict:
    """One tool call: the result object, or `Refused`."""
    args = check_arguments(spec, arguments)
    value = getattr(games, spec.method)(**args)
    return spec.wrap(value) if spec.wrap else value


def compact(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


INSTRUCTIONS = (
    "Card games with exact rules (Skyjo, Skip-Bo, Skip-Bo Junior, ...). Call list_games (and rules to read a "
    "game's rules), then new_game; keep the game_id and token it returns and pass both to view, "
    "legal_actions, play, wait_turn, result and replay_record. The bots in the other seats move on the "
    "server after each of your moves; wait_turn waits for a seat another agent plays.")


def build_server(games: Games | None = None):
    """The ``mcp`` SDK's low-level ``Server`` whose tools (`tool_specs`) play the games of ``games``."""
    try:
        import anyio
        from mcp import types
        from mcp.server import Server
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("cardgym mcp needs the mcp package (2.x): pip install 'cardgym[llm]'") from exc
    games = Games() if games is None else games
    specs = {s.name: s for s in tool_specs()}
    tools = [types.Tool(name=s.name, title=s.title, description=s.description,
                        input_schema={"$schema": SCHEMA, **s.input}, output_schema={"$schema": SCHEMA, **s.output},
                        annotations=s.annotations()) for s in specs.values()]
    # a waiting wait_turn holds a worker thread: the other tools get their own threads
    waits, calls = anyio.CapacityLimiter(MAX_WAITERS), anyio.CapacityLimiter(8)

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=tools)

    async def on_call(ctx, params):
        spec = specs.get(params.name)
        if spec is None:
            return _error(types, f"no tool {params.name!r}; tools: {', '.join(specs)}")
        try:
            out = await anyio.to_thread.run_sync(call_tool, games, spec, params.arguments,
                                                 limiter=waits if spec.name == "wait_turn" else calls)
        except Refused as exc:
            return _error(types, str(exc))
        return types.CallToolResult(content=[types.TextContent(type="text", text=compact(out))],
                                    structured_content=out)

    return Server("cardgym", version=cardgym.__version__, title="cardgym", instructions=INSTRUCTIONS,
                  get_tool_input_schema=lambda name: specs[name].input if name in specs else None,
                  on_list_tools=list_tools, on_call_tool=on_call)


def _error(types, message: str):
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def serve_stdio(max_games: int = 16, expire: float = 1800.0, keep_finished: int = KEEP_FINISHED) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(Games(max_games=max_games, expire=expire, keep_finished=keep_finished))

    async def run():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def http_app(games: Games | None = None, allowed_hosts=(), max_sessions: int = MAX_SESSIONS,
             session_idle: float = SESSION_IDLE, max_body: int = MAX_BODY):
    """The streamable HTTP application (path ``/mcp``): the SDK's transport, its sessions and request bodies
    bounded, behind ``cardgym serve``'s Host and Origin guard (`cardgym.web.app.GuardMiddleware`: a Host
    other than a loopback name or ``allowed_hosts`` gets 400, a cross-site Origin 403)."""
    from cardgym.web.app import GuardMiddleware

    app = build_server(games).streamable_http_app(
        max_request_body_size=max_body, session_idle_timeout=session_idle, max_sessions=max_sessions,
        # the guard below checks Host and Origin (the SDK's own check is the same idea, off so that one
        # rule, cardgym serve's, decides)
        transport_security=_no_sdk_guard())
    return GuardMiddleware(app, allowed_hosts=allowed_hosts, command="cardgym mcp --http")


def _no_sdk_guard():
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def serve_http(host: str = "127.0.0.1", port: int = 8765, allowed_hosts=(), max_games: int = 16,
               expire: float = 1800.0, keep_finished: int = KEEP_FINISHED, max_sessions: int = MAX_SESSIONS,
               ready=None) -> None:
    """Run the streamable HTTP server on ``host:port`` (path ``/mcp``) until interrupted; ``ready(port)``
    is called once it listens (``port`` 0 picks a free one)."""
    import uvicorn

    from cardgym.web import KEEP_ALIVE, MAX_CONNECTIONS, timed_protocol

    app = http_app(Games(max_games=max_games, expire=expire, keep_finished=keep_finished), allowed_hosts,
                   max_sessions=max_sessions)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", http=timed_protocol(),
                            timeout_keep_alive=KEEP_ALIVE, limit_concurrency=MAX_CONNECTIONS,
                            timeout_graceful_shutdown=5, lifespan="on")
    server = uvicorn.Server(config)
    if ready is None:
        server.run()
        return
    import asyncio

    async def run():
        task = asyncio.ensure_future(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            ready(server.servers[0].sockets[0].getsockname()[1])
        await task

    asyncio.run(run())


__all__ = ["Games", "OPEN", "Refused", "ToolSpec", "build_server", "call_tool", "check_arguments", "http_app",
           "parse_move", "serve_http", "serve_stdio", "tool_specs"]
