"""``cardgym mcp``: the games as a Model Context Protocol server over stdio, so that any MCP-capable agent
can play a seat (the official ``mcp`` SDK, ``pip install 'cardgym[llm]'``).

Tools: ``list_games``, ``new_game`` (game, rule options, your seat, who sits in the other seats),
``view`` (your seat's view only), ``legal_actions`` (ids and words), ``play`` (an id or a move's words),
``result`` and ``replay_record`` (the game record, once the game is over). The other seats are played
by bots on the server, or left ``open`` for other agents, whose seat tokens ``new_game`` hands to its
caller. Every tool but ``list_games`` and ``new_game`` takes the game id *and* the seat's secret token:
a game id alone grants nothing, and a token acts and sees for its own seat only. The server holds at
most ``max_games`` games and drops a game nobody touched for ``expire`` seconds. A bad argument gets a
tool error naming the field and what is allowed.

`Games` is the game keeping (no MCP in it); `build_server` puts it behind the SDK's ``MCPServer``.
"""

from __future__ import annotations

import importlib
import secrets
import threading
import time
from dataclasses import dataclass, field

import cardgym

from cardgym.agents.text import theirs
from cardgym.app.options import rule_defaults
from cardgym.app.game_records import GameRecorder

try:  # the types the SDK validates tool arguments with (pydantic comes with mcp): no true -> 1, no "3" -> 3
    from pydantic import StrictInt, StrictStr
except ImportError:  # pragma: no cover - without the llm extra (build_server then says what to install)
    StrictInt, StrictStr = int, str

#: the other seats' kinds besides the game's bots: a seat another agent plays with its own token
OPEN = "open"
#: the longest move text ``play`` reads
MAX_MOVE_CHARS = 500
SEED_MAX = 2**63 - 1


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


class Games:
    """The games of one server: bounded (``max_games``) and expiring (``expire`` seconds untouched)."""

    def __init__(self, max_games: int = 16, expire: float = 1800.0, clock=time.monotonic):
        self.max_games, self.expire, self.clock = int(max_games), float(expire), clock
        self.games: dict = {}
        self.lock = threading.Lock()

    def _purge(self):
        now = self.clock()
        for gid in [g for g, x in self.games.items() if now - x.touched > self.expire]:
            del self.games[gid]

    def list_games(self) -> list:
        out = []
        for name in cardgym.registry.loadable():  # a game that fails to load is left out, with a warning
            spec = cardgym.get_game(name)
            options = {k: v for k, v in rule_defaults(spec.rules_cls).items() if k != "num_players"}
            out.append({"name": name, "title": spec.title, "min_players": spec.min_players,
                        "max_players": spec.max_players, "bots": list(spec.bots), "options": options})
        return out

    def new_game(self, game: str, seat: int = 0, opponents=None, options=None, seed=None) -> dict:
        names = cardgym.registry.names()
        if not isinstance(game, str) or game not in names:
            raise Refused(f"game must be one of {', '.join(names)}, got {game!r}")
        try:
            spec = cardgym.get_game(game)
        except cardgym.registry.BrokenGame as exc:
            raise Refused(f"game: {exc}") from None
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
        if seed is not None:
            seed = _int(seed, "seed", 0, SEED_MAX)
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
            if len(self.games) >= self.max_games:
                raise Refused(f"the server holds its limit of {self.max_games} games; finish one or wait "
                              f"{self.expire:g} s for an untouched one to expire")
            mod = importlib.import_module(cardgym.GAMES[game].module)
            env = mod.raw_env(**rules.as_dict())
            rec = GameRecorder(env, [OPEN_ENTRY if s == OPEN else s for s in seats])
            rec.reset(seed=seed)
            tokens = {secrets.token_urlsafe(24): i for i, s in enumerate(seats) if s == OPEN}
            g = McpGame(secrets.token_urlsafe(9), spec, env, rec, seats, tokens, touched=self.clock())
            self.games[g.id] = g
            g.advance()
            mine = next(t for t, s in tokens.items() if s == seat)
            out = {"game_id": g.id, "token": mine, "seat": seat, "num_players": n,
                   "seats": [("you" if i == seat else s) for i, s in enumerate(seats)]}
            others = {str(s): t for t, s in tokens.items() if s != seat}
            if others:
                out["open_seat_tokens"] = others
            out.update(self._state(g, seat))
            return out

    def _get(self, game_id, token):
        if not isinstance(game_id, str) or not isinstance(token, str):
            raise Refused("game_id and token must be the strings new_game returned")
        self._purge()
        g = self.games.get(game_id)
        if g is None:
            raise Refused(f"game_id: no game {game_id!r} on this server (it ended long ago, expired after "
                          f"{self.expire:g} s untouched, or never was)")
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
            if g.to_act() != seat:
                return {"your_turn": False, "legal": [], **self._state(g, seat)}
            v = g.env.view(seat)
            return {"your_turn": True, "legal": [{"action": x["action"], "text": x["text"]} for x in v["legal"]]}

    def play(self, game_id, token, action) -> dict:
        with self.lock:
            g, seat = self._get(game_id, token)
            cur = g.to_act()
            if g.over:
                raise Refused("action: the game is over (result and replay_record tell how it ended)")
            if cur != seat:
                raise Refused(f"action: it is player_{cur}'s turn, not yours (player_{seat})")
            legal = g.env.view(seat)["legal"]
            a = None
            if isinstance(action, int) and not isinstance(action, bool):
                if action in [x["action"] for x in legal]:
                    a = action
            elif isinstance(action, str) and len(action) <= MAX_MOVE_CHARS:
                want = " ".join(action.lower().split())
                if want.isdigit() and int(want) in [x["action"] for x in legal]:
                    a = int(want)
                for x in legal:
                    if " ".join(x["text"].lower().split()) == want:
                        a = x["action"]
            if a is None:
                shown = repr(action) if len(repr(action)) < 100 else repr(action)[:100] + "..."
                raise Refused(f"action: {shown} is not a legal move now; give an id or the words of one of: "
                              + "; ".join(f"{x['action']}: {x['text']}" for x in legal[:40]))
            text = g.move(seat, a)
            g.advance()
            return {"played": text, **self._state(g, seat)}

    def result(self, game_id, token) -> dict:
        with self.lock:
            g, seat = self._get(game_id, token)
            g.to_act()
            status = int(g.env.record["status"])
            return {"over": g.over, "status": {0: "running", 1: "terminated", 2: "truncated"}.get(status, str(status)),
                    "result": g.env.result() if g.over else None, "seat": seat}

    def replay_record(self, game_id, token) -> str:
        with self.lock:
            g, _ = self._get(game_id, token)
            g.to_act()
            if not g.over:
                raise Refused("game_id: the record holds every card of the deal, so it is given once the game is "
                              "over; play on")
            return g.recorder.text()


OPEN_ENTRY = {"kind": "python", "name": "mcp"}


def build_server(games: Games | None = None):
    """An ``MCPServer`` (the ``mcp`` SDK) whose tools play the games of ``games``."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("cardgym mcp needs the mcp package (2.x): pip install 'cardgym[llm]'") from exc
    games = Games() if games is None else games
    server = MCPServer("cardgym", instructions=(
        "Card games with exact rules (Skyjo, Skip-Bo, Skip-Bo Junior, ...). Call list_games, then new_game; "
        "keep the game_id and token it returns and pass both to view, legal_actions, play, result and "
        "replay_record. The other seats move on the server after each of your moves."))

    def call(fn, *args):
        try:
            return fn(*args)
        except Refused as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    def list_games() -> dict:
        """Every game (``games``): name, title, player counts, bots and rule options with their defaults."""
        return {"games": games.list_games()}

    @server.tool()
    def new_game(game: StrictStr, seat: StrictInt = 0, opponents: list | None = None, options: dict | None = None,
                 seed: StrictInt | None = None) -> dict:
        """Start a game: you sit at `seat`; `opponents` fills the other seats in order (bot names, or
        "open" for a seat another agent plays with a token you hand it); `options` are rule options.
        Returns game_id and your secret token (needed by every other tool), and your situation."""
        return call(games.new_game, game, seat, opponents, options, seed)

    @server.tool()
    def view(game_id: str, token: str) -> dict:
        """Your seat's view of the table (JSON: every pile, the cards you can see, your legal moves in
        words when it is your turn) and the moves since your last turn."""
        return call(games.view, game_id, token)

    @server.tool()
    def legal_actions(game_id: str, token: str) -> dict:
        """Your legal moves now: ids and words (empty when it is not your turn)."""
        return call(games.legal_actions, game_id, token)

    @server.tool()
    def play(game_id: str, token: str, action: StrictInt | StrictStr) -> dict:
        """Play a move: its id or its words as legal_actions lists them. The bots then move until your
        next turn or the end."""
        return call(games.play, game_id, token, action)

    @server.tool()
    def result(game_id: str, token: str) -> dict:
        """Whether the game is over, and its result (scores, winners) once it is."""
        return call(games.result, game_id, token)

    @server.tool()
    def replay_record(game_id: str, token: str) -> str:
        """The game record (JSON lines; `cardgym replay FILE` replays it), once the game is over."""
        return call(games.replay_record, game_id, token)

    return server


def serve_stdio(max_games: int = 16, expire: float = 1800.0) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(Games(max_games=max_games, expire=expire)).run("stdio")


__all__ = ["Games", "OPEN", "Refused", "build_server", "serve_stdio"]
