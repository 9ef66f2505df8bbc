"""The games the web server holds: live tables and opened records (no web framework here).

The server keeps every env; a page only ever gets a seat's view (`cardgym.render.view`). A live table
is a raw AEC env, one player per seat (a person, a bot, the shipped ``agent`` or a model file given to
``cardgym serve --model``), a log of the moves in words, and one secret token per person seat: the
token is handed out once (to the page that starts the game, or the first page that claims the seat),
and every move must carry it, so a second tab cannot act for a seat another tab holds. Bots move only
when a page asks for the state, one move per ``pace`` seconds, so a person sees every move.

`Tables` bounds the live games and opened records (``max_games``) and forgets those nobody asked for
in ``expire`` seconds. Every refusal is a `Refused` (HTTP status, message) raised before anything
changes.
"""

from __future__ import annotations

import importlib
import math
import re
import secrets
import threading
import time
from dataclasses import dataclass, field

import numpy as np

import cardgym

from ..cli_options import flag, literal, option_help, rule_defaults
from ..game_records import GameRecorder, RecordError, parse_record, replay_states
from ..render.view import palette_dict, view

PERSON = "person"
AGENT = "agent"
#: seconds a page keeps its seat after its last request (it asks at least every few seconds while open)
LEASE = 8.0


class Refused(Exception):
    """A request the server refuses: ``status`` (4xx) and a message saying what was wrong."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _theirs(text: str) -> str:
    """An action described to the acting seat ("your stock") as a log line for everybody ("their stock")."""
    return re.sub(r"\byour\b", "their", re.sub(r"\byou\b", "they", text))


def game_catalogue(models: dict, text_players=()) -> list:
    """What the front page offers: every game with its player counts, bots, rule options (the CLI's
    names and defaults), shipped agents, the model files given on the command line and the text players
    (``cardgym serve --llm-base-url ... --llm-model ...``: ``llm``, offered for every game, among the models)."""
    from ..agents.pretrained import shipped

    agents = shipped()
    out = []
    for name in cardgym.registry.names():
        game = cardgym.get_game(name)
        helps = option_help(game.rules_cls)
        options = []
        for opt, default in rule_defaults(game.rules_cls).items():
            if opt == "num_players":
                continue
            shown = "none" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
            options.append({"name": opt, "flag": flag(opt), "default": shown, "help": helps.get(opt, "")})
        out.append({
            "name": name, "title": game.title, "min_players": game.min_players, "max_players": game.max_players,
            "bots": list(game.bots), "agents": sorted(n for (g, n) in agents if g == name),
            "models": sorted(k for k, (g, _) in models.items() if g == name) + sorted(text_players),
            "options": options, "palette": palette_dict(game.palette),
        })
    return out


@dataclass
class Seat:
    kind: str  # person | bot | agent | model | text
    name: str
    policy: object = None
    token: str | None = None
    claimed: bool = False


@dataclass
class LiveTable:
    id: str
    game: object
    env: object
    recorder: GameRecorder
    seats: list
    pace: float
    log: list = field(default_factory=list)
    leases: dict = field(default_factory=dict)  # seat -> (page id, last request time)
    clock: object = time.monotonic
    last_move: float = 0.0
    touched: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------------ who may see and do what
    def seat_of(self, token, page=None) -> int | None:
        """The seat of a token (None without one). With ``page`` (the ``X-Page`` id a page draws when it
        loads), the seat is leased to that page: another page with the same token (a second tab) is
        refused until the holder has been silent for `LEASE` seconds."""
        if token is None or token == "":
            return None
        for i, s in enumerate(self.seats):
            if s.token is not None and secrets.compare_digest(str(token), s.token):
                if page is not None:
                    self._lease(i, str(page))
                return i
        raise Refused(403, "this seat token does not belong to any seat of this game")

    def _lease(self, seat: int, page: str):
        now = self.clock()
        holder = self.leases.get(seat)
        if holder is not None and holder[0] != page and now - holder[1] < LEASE:
            raise Refused(409, f"player_{seat} is being played in another tab or page; close it (its seat is "
                               f"freed {LEASE:.0f} s after its last request) or open the game without a seat to watch")
        self.leases[seat] = (page, now)

    @property
    def has_person(self) -> bool:
        return any(s.kind == PERSON for s in self.seats)

    def viewer(self, token, seat, page="") -> int | None:
        """The seat whose view a request gets: the token's seat; without a token, the public table, or,
        in a game without a person (bots only), any seat asked for."""
        mine = self.seat_of(token, page)
        if seat in (None, "", "none", "table"):
            return mine
        try:
            k = int(seat)
        except (TypeError, ValueError):
            raise Refused(400, f"seat must be a seat number 0..{len(self.seats) - 1} or 'table', got {seat!r}") from None
        if not 0 <= k < len(self.seats):
            raise Refused(400, f"seat must be 0..{len(self.seats) - 1} or 'table', got {k}")
        if k != mine and self.has_person:
            raise Refused(403, f"seat {k}'s view needs that seat's token (a game with a person shows each "
                               "page only its own seat, or the public table)")
        return k

    # --------------------------------------------------------------------------------- moves
    @property
    def over(self) -> bool:
        return not self.env.agents or int(self.env.record["status"]) != 0

    def _flush_dead(self):
        env = self.env
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            self.recorder.step(None)

    def to_act(self) -> int | None:
        self._flush_dead()
        if self.over:
            return None
        return self.env.possible_agents.index(self.env.agent_selection)

    def _do(self, seat: int, action: int, policy_info=None, telemetry=None):
        env = self.env
        text = env.game.describe_action(env.record, env.rules, action) if env.game.describe_action else (
            env.game.action_to_str(action))
        self.recorder.step(action, telemetry=telemetry)
        entry = {"n": len(self.log), "seat": seat, "action": int(action), "text": _theirs(text),
                 "who": self.seats[seat].name}
        if policy_info is not None:
            entry["policy"] = policy_info
        self.log.append(entry)
        self.last_move = time.monotonic()
        self._flush_dead()

    def advance(self, now: float | None = None) -> None:
        """Let the bots move: one move per ``pace`` seconds since the last move, until a person is to act."""
        now = time.monotonic() if now is None else now
        while True:
            seat = self.to_act()
            if seat is None or self.seats[seat].kind == PERSON:
                return
            if self.pace > 0 and now - self.last_move < self.pace:
                return
            s = self.seats[seat]
            env = self.env
            info = tel = None
            if s.kind == "bot":
                a = env.bot_action(s.name)
            elif s.kind == "text":
                a, tel = self.text_move(seat, s.policy)
                info = {"telemetry": tel}
            else:
                a, info = policy_move(env, s.policy)
            self._do(seat, a, info, tel)
            if self.pace > 0:
                return

    def text_move(self, seat: int, player) -> tuple:
        """A text player's move and telemetry: its seat's view and the public moves since its last move.
        A forfeit cannot end a live table: it is played as the first legal move (and counted)."""
        last = max((e["n"] for e in self.log if e["seat"] == seat), default=-1)
        moves = [f"player_{e['seat']}: {e['text']}" for e in self.log[last + 1:]]
        a, tel = player.decide(self.env.view(seat), moves)
        if a is None:
            a = self.env.legal_actions()[0]
            tel = dict(tel, move=a, forfeit_played_as="first")
        return a, tel

    def act(self, token, action, step, page="") -> None:
        """A person's move, checked whole before it is made."""
        seat = self.seat_of(token, page)
        if seat is None:
            raise Refused(403, "a move needs the seat token of a person seat (this page only watches)")
        if self.seats[seat].kind != PERSON:  # pragma: no cover - tokens belong to person seats only
            raise Refused(403, f"seat {seat} is not a person's")
        if isinstance(step, bool) or not isinstance(step, int):
            raise Refused(400, f"'step' must be the number of moves the page has seen (an integer), got {step!r}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise Refused(400, f"'action' must be an integer action id, got {action!r}")
        cur = self.to_act()
        if cur is None:
            raise Refused(409, "the game is over; start a new one")
        if step != len(self.log):
            raise Refused(409, f"the page is at move {step} but the game is at move {len(self.log)}: "
                               "reload the state before moving")
        if cur != seat:
            raise Refused(409, f"it is not your turn: player_{cur} is to act, you are player_{seat}")
        legal = self.env.legal_actions()
        if action not in legal:
            raise Refused(422, f"action {action} is not legal now; legal actions: {legal}")
        self._do(seat, action)

    # ---------------------------------------------------------------------------------- state
    def state(self, viewer) -> dict:
        env = self.env
        cur = self.to_act()
        log = []
        for e in self.log:
            e = dict(e)
            if "policy" in e and e["seat"] != viewer:
                del e["policy"]  # a model's probabilities speak of its hand: only for its own seat's view
            log.append(e)
        waiting = None
        if cur is not None:
            waiting = "person" if self.seats[cur].kind == PERSON else "bot"
        return {
            "id": self.id, "kind": "live", "game": env.game.name, "title": env.game.title,
            "viewer": viewer, "step": len(self.log),
            "seats": [{"seat": i, "kind": s.kind, "name": s.name, "claimed": s.claimed or s.kind != PERSON}
                      for i, s in enumerate(self.seats)],
            "to_act": cur, "waiting": waiting, "pace": self.pace, "over": cur is None,
            "view": view(env.game, env.record, env.rules, viewer, env.action_mask() if viewer == cur else None),
            "log": log,
        }


def policy_move(env, policy):
    """A model seat's move with its probabilities and value (the top legal actions), as the log shows."""
    agent = env.agent_selection
    obs = env.observe(agent)
    mask = obs["action_mask"]
    net = getattr(policy, "net", None)
    if net is None:  # pragma: no cover - every cardgym model is a TorchPolicy
        return int(policy.act(obs["observation"][None], mask[None])[0]), None
    import torch

    with torch.no_grad():
        logits, value = net(torch.from_numpy(np.asarray(obs["observation"], np.float32)[None]))
    logits = logits[0].numpy().astype(np.float64)
    legal = np.flatnonzero(mask)
    z = logits[legal] - logits[legal].max()
    p = np.exp(z) / np.exp(z).sum()
    order = np.argsort(-p)
    a = int(policy.act(obs["observation"][None], mask[None])[0])
    top = [{"action": int(legal[k]), "p": round(float(p[k]), 4),
            "text": _theirs(env.game.describe_action(env.record, env.rules, int(legal[k]))
                            if env.game.describe_action else env.game.action_to_str(int(legal[k])))}
           for k in order[:5]]
    return a, {"value": round(float(value[0]), 4), "top": top}


@dataclass
class OpenRecord:
    id: str
    game: object
    rules: object
    record: object
    states: list
    touched: float = 0.0

    def state(self, step, seat) -> dict:
        n = len(self.states) - 1
        try:
            k = int(step)
        except (TypeError, ValueError):
            raise Refused(400, f"step must be an integer 0..{n}, got {step!r}") from None
        if not 0 <= k <= n:
            raise Refused(400, f"step must be 0..{n}, got {k}")
        players = len(self.record.header["players"])
        if seat in (None, "", "none", "table"):
            viewer = None
        else:
            try:
                viewer = int(seat)
            except (TypeError, ValueError):
                raise Refused(400, f"seat must be 0..{players - 1} or 'table', got {seat!r}") from None
            if not 0 <= viewer < players:
                raise Refused(400, f"seat must be 0..{players - 1} or 'table', got {viewer}")
        rec = self.states[k]
        return {
            "id": self.id, "kind": "replay", "game": self.game.name, "title": self.game.title, "step": k,
            "steps": n, "viewer": viewer, "seats": self.record.header["players"],
            "view": view(self.game, rec, self.rules, viewer),
            "log": [_replay_entry(i, a) for i, a in enumerate(self.record.actions)],
            "result": self.record.end["result"], "finished": self.record.end["finished"],
        }


def _replay_entry(i: int, a: dict) -> dict:
    """A record's action line as the replay's log shows it; a text player's telemetry (its answers,
    parse and illegal attempts, latency, tokens) goes along as ``telemetry`` (a record is a finished
    game: nothing in it is hidden any more)."""
    entry = {"n": i, "seat": a["seat"], "action": a["action"], "text": _theirs(a.get("text", ""))}
    if isinstance(a.get("telemetry"), dict):
        entry["telemetry"] = a["telemetry"]
    return entry


class Tables:
    """Every live table and opened record of one server, bounded and expiring."""

    def __init__(self, models: dict | None = None, max_games: int = 32, expire: float = 1800.0,
                 pace: float = 0.7, clock=time.monotonic, text_players: dict | None = None):
        self.models = dict(models or {})  # name -> (game, path)
        #: name -> ``make(game, rules)`` of a `cardgym.agents.text.TextPlayer` (a seat of any game)
        self.text_players = dict(text_players or {})
        self.max_games, self.expire, self.pace = int(max_games), float(expire), float(pace)
        self.clock = clock
        self.live: dict = {}
        self.records: dict = {}
        self.lock = threading.Lock()
        self._policies: dict = {}

    def _purge(self):
        now = self.clock()
        for d in (self.live, self.records):
            for k in [k for k, t in d.items() if now - t.touched > self.expire]:
                del d[k]

    def _room(self):
        self._purge()
        if len(self.live) + len(self.records) >= self.max_games:
            raise Refused(429, f"the server holds its limit of {self.max_games} games and records; finish one "
                               f"or wait until an abandoned one expires ({self.expire:.0f} s)")

    def _get(self, store: dict, key, what: str):
        with self.lock:
            self._purge()
            item = store.get(key)
        if item is None:
            raise Refused(404, f"unknown {what} id {key!r} (it may have expired)")
        if item.touched != math.inf:  # pinned records never expire
            item.touched = self.clock()
        return item

    def get_live(self, gid) -> LiveTable:
        return self._get(self.live, gid, "game")

    def get_record(self, rid) -> OpenRecord:
        return self._get(self.records, rid, "record")

    # ---------------------------------------------------------------------------------- create
    def _policy(self, game, who, rules):
        from ..core.opponents import load_model_opponent

        key = (game.name, who, tuple(sorted(rules.as_dict().items(), key=lambda kv: kv[0])))
        if key not in self._policies:
            path = "agent" if who == AGENT else self.models[who][1]
            self._policies[key] = load_model_opponent(game, path, rules, "vector")
        return self._policies[key]

    def create(self, body) -> dict:
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object {game, num_players, seats, rules, seed}")
        unknown = sorted(set(body) - {"game", "num_players", "seats", "rules", "seed", "pace"})
        if unknown:
            raise Refused(400, f"unknown field(s) {unknown}; allowed: game, num_players, seats, rules, seed, pace")
        name = body.get("game")
        if name not in cardgym.GAMES:
            raise Refused(400, f"unknown game {name!r}; games: {cardgym.registry.names()}")
        game = cardgym.get_game(name)
        n = body.get("num_players", 2)
        if isinstance(n, bool) or not isinstance(n, int) or not game.min_players <= n <= game.max_players:
            raise Refused(400, f"num_players must be an integer {game.min_players}..{game.max_players} for {name}, got {n!r}")
        seats = body.get("seats")
        if not isinstance(seats, list) or len(seats) != n or not all(isinstance(s, str) for s in seats):
            raise Refused(400, f"seats must list {n} players (one per seat: 'person', a bot, 'agent' or a model name), got {seats!r}")
        options = body.get("rules", {}) or {}
        if not isinstance(options, dict):
            raise Refused(400, f"rules must be an object of rule options, got {options!r}")
        known = rule_defaults(game.rules_cls)
        rules = {}
        for k, v in options.items():
            key = k[2:].replace("-", "_") if isinstance(k, str) and k.startswith("--") else k
            if key not in known or key == "num_players":
                raise Refused(400, f"unknown rule option {k!r} for {name}; options: "
                                   f"{[flag(o) for o in known if o != 'num_players']}")
            rules[key] = literal(v) if isinstance(v, str) else v
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise Refused(400, f"seed must be a non-negative integer or null, got {seed!r}")
        pace = body.get("pace", self.pace)
        if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not math.isfinite(pace) or not 0 <= pace <= 10:
            raise Refused(400, f"pace must be a number of seconds 0..10, got {pace!r}")
        mod = importlib.import_module(cardgym.GAMES[name].module)
        try:
            env = mod.raw_env(num_players=n, **rules)
        except (TypeError, ValueError) as exc:
            raise Refused(400, f"rules not accepted: {exc}") from None
        players = []
        for i, who in enumerate(seats):
            if who == PERSON:
                players.append(Seat(PERSON, PERSON, token=secrets.token_urlsafe(16)))
            elif who in game.bots:
                players.append(Seat("bot", who))
            elif who in self.text_players:
                try:
                    players.append(Seat("text", who, policy=self.text_players[who](game, env.rules)))
                except (ValueError, TypeError, ImportError) as exc:
                    raise Refused(400, f"seat {i}: {exc}") from None
            elif who == AGENT or (who in self.models and self.models[who][0] == name):
                try:
                    pol = self._policy(game, who, env.rules)
                except (ValueError, ImportError) as exc:
                    raise Refused(400, f"seat {i}: {exc}") from None
                players.append(Seat(AGENT if who == AGENT else "model", who, policy=pol))
            else:
                raise Refused(400, f"seat {i}: {who!r} is not 'person', a bot of {name} {list(game.bots)}, "
                                   f"'agent' or a model given to cardgym serve --model "
                                   f"{sorted(k for k, (g, _) in self.models.items() if g == name)}")
        with self.lock:
            self._room()
            gid = secrets.token_urlsafe(8)
            entries = []
            for s in players:
                if s.kind in ("model",):
                    entries.append(player_file_entry(game, self.models[s.name][1], n))
                elif s.kind == "text":
                    entries.append(s.policy.record_entry())
                else:
                    entries.append(s.name)
            rec = GameRecorder(env, entries)
            rec.reset(seed=seed)
            t = LiveTable(gid, game, env, rec, players, float(pace), touched=self.clock(), clock=self.clock)
            t.last_move = time.monotonic()
            self.live[gid] = t
        token = None
        first = next((s for s in players if s.kind == PERSON), None)
        if first is not None:
            first.claimed = True
            token = first.token
        return {"id": gid, "token": token, "seat": players.index(first) if first is not None else None}

    def claim(self, gid, seat) -> dict:
        t = self.get_live(gid)
        with t.lock:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(t.seats):
                raise Refused(400, f"seat must be 0..{len(t.seats) - 1}, got {seat!r}")
            s = t.seats[seat]
            if s.kind != PERSON:
                raise Refused(409, f"seat {seat} is played by {s.name}, not a person")
            if s.claimed:
                raise Refused(409, f"seat {seat} is already taken by another page; open the game without a "
                                   "seat to watch it")
            s.claimed = True
            return {"id": gid, "token": s.token, "seat": seat}

    def open_record(self, text: str, where: str = "upload", pinned: bool = False) -> dict:
        """Replay a record (refused whole, with its line, if it does not replay) and hold its states;
        ``pinned`` (the files given to ``cardgym serve --record``) never expire."""
        try:
            rec = parse_record(text, where)
            env, states = replay_states(rec)
        except RecordError as exc:
            raise Refused(400, f"refused: {exc}") from None
        with self.lock:
            self._room()
            rid = secrets.token_urlsafe(8)
            self.records[rid] = OpenRecord(rid, env.game, env.rules, rec, states,
                                           touched=math.inf if pinned else self.clock())
        return {"id": rid, "steps": len(states) - 1, "game": env.game.name, "name": where}

    def list_records(self) -> list:
        with self.lock:
            self._purge()
            return [{"id": r.id, "game": r.game.name, "title": r.game.title, "name": r.record.where,
                     "steps": len(r.states) - 1} for r in self.records.values()]


def player_file_entry(game, path, n):
    from ..game_records import player_entry

    return player_entry(game, path, n)
