"""The games the web server holds: live tables and opened records (no web framework here).

The server keeps every env; a page only ever gets a seat's view (`cardgym.render.view`). A live table
is a raw AEC env, one player per seat (a person, a bot, the shipped ``agent`` or a model file given to
``cardgym serve --model``), a log of the moves in words, and one secret token per person seat: the
token is handed out once (to the page that starts the game, or the first page that claims the seat),
and every move must carry it, so a second tab cannot act for a seat another tab holds. Bots move only
when a page asks for the state, one move per ``pace`` seconds, so a person sees every move; at pace 0
one request plays at most `STEP_MOVES` moves or `STEP_SECONDS` seconds (a bots-only game advances in
bounded slices), and a table stops at `MAX_MOVES` moves.

A table opens once the kernels of its game and bots are compiled in this process (`warm_kernels`, run
by one worker thread): until then its state says ``"status": "preparing"``.

`Tables` bounds the games in progress (``max_games``; finished games leave the bound at once, their
records stay downloadable; one page or client holds at most ``per_client`` of them), the opened
records (``max_games`` of them, `RECORD_BYTES` of replayed states in all), and forgets those nobody
asked for in ``expire`` seconds. Nothing here blocks an event loop: the server calls it from worker
threads. Every refusal is a `Refused` (HTTP status, message) raised before anything changes.
"""

from __future__ import annotations

import importlib
import math
import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

import cardgym

from cardgym.app.options import flag, literal, option_help, rule_defaults
from cardgym.app.game_records import GameRecorder, RecordError, parse_record, replay_states
from ..render.view import palette_dict, view

PERSON = "person"
AGENT = "agent"
#: seconds a page keeps its seat after its last request (it asks at least every few seconds while open)
LEASE = 8.0
#: most bot moves, and seconds of bot moves, one request plays (pace 0: a bots-only game in slices)
STEP_MOVES = 200
STEP_SECONDS = 0.25
#: moves a live table holds; a game that reaches it is stopped (its record says finished: false)
MAX_MOVES = 20_000
#: seconds without a request after which a game in progress is ended (nobody plays or watches it: an
#: open page asks every few seconds, a hidden tab at least once a minute)
IDLE = 120.0
#: seconds a game whose page went away (closed, reloaded, navigated off) waits for that page to come
#: back (a reload) before it is ended
GRACE = 3.0
#: bytes of replayed states all opened records may hold together
RECORD_BYTES = 256 * 2**20
#: moves of the throwaway game `warm_kernels` plays to compile a game's and its bots' kernels
WARM_MOVES = 3000


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
    for name in cardgym.registry.loadable():  # a game that fails to load is left out, with a warning
        game = cardgym.get_game(name)
        if game.scene is None:  # a game without a scene (optional) has no picture: not served at the table
            continue
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


def warm_kernels(game, bots=()) -> None:
    """Compile (or load from numba's cache) the kernels of ``game`` and of its ``bots`` in this process:
    a throwaway game of those bots with the default rules, each move described and the table viewed,
    at most `WARM_MOVES` moves."""
    mod = importlib.import_module(cardgym.GAMES[game.name].module)
    seats = [b for b in bots if b in game.bots] or [None]
    env = mod.raw_env(num_players=game.min_players)
    env.reset(seed=0)
    moves = 0
    while env.agents and moves < WARM_MOVES:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        who = seats[moves % len(seats)]
        a = env.bot_action(who) if who is not None else env.legal_actions()[0]
        if env.game.describe_action:
            env.game.describe_action(env.record, env.rules, a)
        env.step(a)
        moves += 1
    view(game, env.record, env.rules, 0)


def _words(names: list, seats) -> str:
    return " and ".join(f"player_{k} ({names[k]})" for k in seats)


def result_words(result: dict, names: list, viewer=None, stopped: str | bool = "") -> str:
    """The end of a game in a sentence, from the seat ``viewer``'s side when given; ``stopped``: why a
    game that did not finish was ended (its sentence)."""
    if stopped:
        return stopped if isinstance(stopped, str) else f"the game was stopped after the server's limit of {MAX_MOVES} moves"
    winners = [int(w) for w in result.get("winners", []) or []]
    if result.get("truncated") or result.get("end") == "truncated":
        lead = "the game reached its turn limit; " if winners else "the game reached its turn limit with no winner"
        if not winners:
            return lead
    else:
        lead = ""
    if not winners or result.get("draw") and len(winners) > 1 and len(winners) == len(names):
        return lead + "a draw"
    if viewer is not None and viewer in winners:
        others = [w for w in winners if w != viewer]
        return lead + ("you won" + (f", tied with {_words(names, others)}" if others else ""))
    verb = "won" if len(winners) == 1 else "won (a tie)"
    if viewer is not None:
        return lead + f"you lost: {_words(names, winners)} {verb}"
    return lead + f"{_words(names, winners)} {verb}"


def score_table(result: dict, names: list, rounds: list) -> dict:
    """The game-over table: one row per seat with every per-seat number of the result (scores, totals,
    cards left...), and the totals after each round or hand (``rounds``) when the game has several."""
    n = len(names)
    winners = {int(w) for w in result.get("winners", []) or []}
    columns = [k for k, v in result.items() if k != "winners" and isinstance(v, list) and len(v) == n
               and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)]
    rows = [{"seat": i, "name": names[i], "winner": i in winners, **{k: result[k][i] for k in columns}}
            for i in range(n)]
    return {"columns": columns, "rows": rows, "rounds": rounds}


@dataclass
class LiveTable:
    id: str
    game: object
    env: object
    recorder: GameRecorder
    seats: list
    pace: float
    log: list = field(default_factory=list)
    #: the log as a text player reads it ("player_k: words"), and each seat's last move number: kept as
    #: moves are made, so that a text player's turn costs the moves since its last one, not the whole game
    log_lines: list = field(default_factory=list)
    last_move_of: dict = field(default_factory=dict)
    leases: dict = field(default_factory=dict)  # seat -> (page id, last request time)
    clock: object = time.monotonic
    last_move: float = 0.0
    touched: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: preparing (kernels compiling) | playing | failed; `over` tells a finished or stopped game
    status: str = "playing"
    error: str | None = None
    client: tuple = ()
    #: why a game that did not finish was ended (the move limit, its page left, nobody asked for it)
    stopped: str = ""
    #: when the page holding it went away (a closed tab or a reload): ended `GRACE` s later unless asked for
    leaving: float | None = None
    leaving_seat: int | None = None
    rounds: list = field(default_factory=list)  # totals after each round or hand
    max_moves: int = MAX_MOVES
    preparing: str = ""
    queue: object = None  # the server's asyncio.Lock: requests for this table wait their turn on it

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
        if self.leaving is not None and self.leaving_seat == seat:  # its page came back (a reload)
            self.leaving = None

    @property
    def has_person(self) -> bool:
        return any(s.kind == PERSON for s in self.seats)

    def viewer(self, token, seat, page="") -> int | None:
        """The seat whose view a request gets: the token's seat; without a token, the public table, or,
        in a game without a person (bots only), any seat asked for."""
        mine = self.seat_of(token, page)
        if not self.has_person and self.leaving is not None:  # a bots-only game still watched
            self.leaving = None
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
    def ready(self) -> bool:
        return self.status == "playing"

    @property
    def over(self) -> bool:
        if self.stopped:
            return True
        if not self.ready:
            return False
        return not self.env.agents or int(self.env.record["status"]) != 0

    @property
    def in_progress(self) -> bool:
        """Counted against the server's bound: preparing, or playing and not over."""
        return not self.stopped and (self.status == "preparing" or (self.ready and not self.over))

    def end(self, reason: str) -> None:
        """End a game in progress (its page left, or nobody asked for it): it leaves the server's bound at
        once, its state says ``stopped`` with ``reason`` and its record (``finished: false``) stays."""
        if self.in_progress:
            self.stopped = reason

    def _need_ready(self):
        if self.status == "preparing":
            raise Refused(409, f"the table is still being prepared ({self.preparing}); ask for its state again")
        if self.status == "failed":
            raise Refused(409, f"the table could not be prepared: {self.error}")

    def _flush_dead(self):
        env = self.env
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            self.recorder.step(None)

    def to_act(self) -> int | None:
        if not self.ready:
            return None
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
        self.log_lines.append(f"player_{seat}: {entry['text']}")
        self.last_move_of[seat] = entry["n"]
        self.last_move = time.monotonic()
        self._flush_dead()
        self._note_round()
        if len(self.log) >= self.max_moves and not self.over:
            self.stopped = f"the game was stopped after the server's limit of {self.max_moves} moves"

    def _note_round(self):
        """Keep the totals after each round or hand (a change of the result's totals)."""
        res = self.env.result()
        totals = res.get("totals")
        if isinstance(totals, list) and (not self.rounds or self.rounds[-1]["totals"] != totals) and any(totals):
            self.rounds.append({"round": len(self.rounds) + 1, "step": len(self.log),
                                "scores": [int(x) for x in res.get("scores", totals)],
                                "totals": [int(x) for x in totals]})

    def advance(self, now: float | None = None, moves: int = STEP_MOVES, seconds: float = STEP_SECONDS) -> None:
        """Let the bots move: one move per ``pace`` seconds since the last move, until a person is to act;
        at pace 0 at most ``moves`` moves or ``seconds`` seconds in one call."""
        if not self.ready:
            return
        now = time.monotonic() if now is None else now
        start, done = time.monotonic(), 0
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
            done += 1
            if self.pace > 0 or done >= moves or time.monotonic() - start >= seconds:
                return

    def text_move(self, seat: int, player) -> tuple:
        """A text player's move and telemetry: its seat's view and the public moves since its last move.
        A forfeit cannot end a live table: it is played as the first legal move (and counted)."""
        from cardgym.agents.text import moves_for

        moves = moves_for(player, self.log_lines, self.last_move_of.get(seat, -1) + 1)
        from cardgym.agents.text import FatalAskError, ServerFailures

        try:
            a, tel = player.decide(self.env.view(seat), moves)
        except (FatalAskError, ServerFailures) as exc:  # the seat's server refused it, or failed too often
            raise Refused(502, f"the text player of seat {seat} cannot play: {exc}") from None
        if a is None:
            a = self.env.legal_actions()[0]
            tel = dict(tel, move=a, forfeit_played_as="first")
        return a, tel

    def act(self, token, action, step, page="") -> None:
        """A person's move, checked whole before it is made."""
        self._need_ready()
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
    def names(self) -> list:
        return [s.name for s in self.seats]

    def last_entry(self) -> dict | None:
        """The last move as the page shows it: its log entry and a sentence ("player_1 (expert): take
        the 6 from the discard ...")."""
        if not self.log:
            return None
        e = self.log[-1]
        return {"n": e["n"], "seat": e["seat"], "who": e["who"], "action": e["action"],
                "sentence": f"player_{e['seat']} ({e['who']}): {e['text']}"}

    def state(self, viewer, since=None) -> dict:
        """The table as ``viewer`` (a seat, or None for the public table) sees it, with the log from move
        ``since`` on (``log_from``; the whole log when None: a page sends what it already holds, so a
        step costs the same at move 20,000 as at move 1). Besides the view and the log: ``status`` (preparing | playing | over | stopped; a table whose preparation failed is
        refused with the reason, 500), ``preparing`` (true until the table opens), ``message`` (what
        the page shows while preparing), ``last`` (the last move in a sentence) and, once
        over, ``outcome`` (the result in words for this viewer) and ``table`` (`score_table`);
        ``last_round``: the scores and totals after the last round or hand so far (the page announces a
        round's end; the list of them all is the game-over table's, so that a step's size stays constant)."""
        seats = [{"seat": i, "kind": s.kind, "name": s.name, "label": f"player_{i} ({s.name})",
                  "claimed": s.claimed or s.kind != PERSON} for i, s in enumerate(self.seats)]
        head = {"id": self.id, "kind": "live", "game": self.game.name, "title": self.game.title,
                "viewer": viewer, "seats": seats, "pace": self.pace}
        if self.status == "failed":
            raise Refused(500, f"the table could not be prepared: {self.error}")
        if not self.ready:
            return {**head, "status": "preparing", "preparing": True, "step": 0, "to_act": None,
                    "waiting": "preparing", "over": False, "view": None, "log": [], "last": None,
                    "message": self.preparing}
        env = self.env
        cur = self.to_act()
        start = log_start(since, len(self.log))
        log = []
        for e in self.log[start:]:
            if "policy" in e and e["seat"] != viewer:
                e = {k: v for k, v in e.items() if k != "policy"}  # a model's probabilities speak of its
            log.append(e)  # hand: only for its own seat's view
        waiting = None
        if cur is not None:
            waiting = "person" if self.seats[cur].kind == PERSON else "bot"
        over = cur is None
        out = {
            **head, "step": len(self.log), "status": ("stopped" if self.stopped else "over") if over else "playing",
            "preparing": False,
            "to_act": cur, "waiting": waiting, "over": over,
            "view": view(env.game, env.record, env.rules, viewer, env.action_mask() if viewer == cur else None),
            "log": log, "log_from": start, "last": self.last_entry(), "message": "",
            "last_round": self.rounds[-1] if self.rounds else None,
        }
        if over:
            res = _plain_result(env.result())
            out["outcome"] = result_words(res, self.names(), viewer, self.stopped)
            out["table"] = score_table(res, self.names(), self.rounds)
        return out


def _count_in(value, n: int, what: str) -> int:
    """``value`` (a query parameter) as an integer 0..n, refused (400) naming ``what`` otherwise."""
    try:
        k = int(value)
    except (TypeError, ValueError):
        raise Refused(400, f"{what} must be an integer 0..{n}, got {value!r}") from None
    if not 0 <= k <= n:
        raise Refused(400, f"{what} must be 0..{n}, got {k}")
    return k


def log_start(since, n: int) -> int:
    """The first log entry a response carries: ``since`` (the entries a page holds), 0 when None."""
    if since is None or since == "":
        return 0
    return _count_in(since, n, f"since (the number of log entries the page holds; the log has {n})")


def _plain_result(res: dict) -> dict:
    import json

    from ..render.view import plain

    return json.loads(json.dumps(plain(res)))


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
    nbytes: int = 0
    owner: str | None = None  # the page that uploaded it (None: the server's own, listed for everybody)

    def state(self, step, seat, since=None) -> dict:
        """The record's state at ``step`` as ``seat`` sees it, with its log from entry ``since`` on (the
        whole log when None; a page that holds it sends its length and gets one step's worth)."""
        n = len(self.states) - 1
        k = _count_in(step, n, "step")
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
        players = self.record.header["players"]
        names = [p["name"] for p in players]
        last = None
        if k > 0:
            a = self.record.actions[k - 1]
            last = {"n": k - 1, "seat": a["seat"], "who": names[a["seat"]], "action": a["action"],
                    "sentence": f"player_{a['seat']} ({names[a['seat']]}): {_theirs(a['text'])}"}
        end = self.record.end
        return {
            "id": self.id, "kind": "replay", "game": self.game.name, "title": self.game.title, "step": k,
            "steps": n, "viewer": viewer, "seats": players,
            "view": view(self.game, rec, self.rules, viewer),
            "log": [_replay_entry(i, a) for i, a in enumerate(self.record.actions[log_start(since, n):], log_start(since, n))],
            "log_from": log_start(since, n),
            "result": end["result"], "finished": end["finished"], "last": last,
            "outcome": result_words(end["result"], names, viewer) if end["finished"] else "the game was left unfinished",
            "table": score_table(end["result"], names, []),
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
    """Every live table and opened record of one server, bounded and expiring.

    ``max_games``: games in progress at once (finished ones do not count) and records opened at once;
    ``per_client``: games in progress one client (a page's ``X-Page`` id, else its address) may hold
    (default: half of ``max_games``, at least 1); ``expire``: seconds after which an untouched game or
    record is forgotten; ``pace``: the default seconds between two bot moves; ``warm``: the function
    that compiles a game's and its bots' kernels (`warm_kernels`), run by one worker thread before a
    table of a game not yet used opens."""

    def __init__(self, models: dict | None = None, max_games: int = 32, expire: float = 1800.0,
                 pace: float = 0.7, clock=time.monotonic, per_client: int | None = None, warm=None,
                 record_bytes: int = RECORD_BYTES, max_moves: int = MAX_MOVES, text_players: dict | None = None,
                 idle: float = IDLE):
        self.models = dict(models or {})  # name -> (game, path)
        #: name -> ``make(game, rules)`` of a `cardgym.agents.text.TextPlayer` (a seat of any game)
        self.text_players = dict(text_players or {})
        self.max_games, self.expire, self.pace = int(max_games), float(expire), float(pace)
        self.idle = float(idle)
        self.per_client = int(per_client) if per_client is not None else max(1, self.max_games // 2)
        self.record_bytes, self.max_moves = int(record_bytes), int(max_moves)
        self.clock = clock
        self.live: dict = {}
        self.records: dict = {}
        self.lock = threading.Lock()
        self._policies: dict = {}
        self._policy_lock = threading.Lock()
        self._warm_fn = warm or warm_kernels
        self._warm: dict = {}  # (game, bot or None) -> Future of its compile
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cardgym-prepare")

    def close(self):
        """Stop the preparing worker (pending preparations are dropped)."""
        self._worker.shutdown(wait=False, cancel_futures=True)

    # ---------------------------------------------------------------------------------- bounds
    def _purge(self):
        now = self.clock()
        for t in list(self.live.values()):  # games nobody plays or watches any more end (and free their slot)
            if not t.in_progress:
                continue
            if now - t.touched > self.idle:
                t.end(f"the game was ended: nobody asked for it in {self.idle:.0f} s")
            elif t.leaving is not None and now - t.leaving > GRACE:
                t.end("the game was ended: its page was closed")
        for d in (self.live, self.records):
            for k in [k for k, t in d.items() if now - t.touched > self.expire]:
                del d[k]
        finished = [t for t in self.live.values() if not t.in_progress]
        keep = max(64, 4 * self.max_games)  # finished games kept for their state and record
        if len(finished) > keep:
            for t in sorted(finished, key=lambda t: t.touched)[: len(finished) - keep]:
                del self.live[t.id]

    def _count(self, client=None) -> int:
        return sum(1 for t in list(self.live.values()) if t.in_progress and (client is None or t.client == client))

    def in_progress(self, client=None) -> int:
        """Games in progress (preparing or playing and not over), all or of one client."""
        with self.lock:
            return self._count(client)

    def _room(self, client):
        self._purge()
        if self._count() >= self.max_games:
            raise Refused(429, f"the server holds its limit of {self.max_games} games in progress (all pages "
                               f"together); finish or leave one, or wait: a game nobody asks for ends "
                               f"{self.idle:.0f} s after its last request")
        if client and self._count(client) >= self.per_client:
            who = "this page" if client[1:] and client[1] else f"this client (address {client[0]}, no X-Page id)"
            raise Refused(429, f"{who} already has {self.per_client} game{'s' * (self.per_client != 1)} in progress (the most one page may "
                               f"hold); finish or leave one (a game nobody asks for ends {self.idle:.0f} s after its "
                               "last request)")

    def _record_room(self, need: int):
        self._purge()
        if len(self.records) >= self.max_games:
            raise Refused(429, f"the server holds its limit of {self.max_games} opened records; wait until one "
                               f"expires ({self.expire:.0f} s after its last request)")
        held = sum(r.nbytes for r in self.records.values())
        if held + need > self.record_bytes:
            raise Refused(413 if need > self.record_bytes else 429,
                          f"the record's replay needs {need} bytes; the server holds {held} of its "
                          f"{self.record_bytes} bytes for opened records")

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

    # ---------------------------------------------------------------------------------- kernels
    def _warm_keys(self, game, bots) -> list:
        return [(game.name, None)] + [(game.name, b) for b in sorted(set(bots)) if b in game.bots]

    def kernels_ready(self, game, bots=()) -> bool:
        """Whether the kernels of ``game`` and ``bots`` are compiled in this process."""
        with self.lock:
            futs = [self._warm.get(k) for k in self._warm_keys(game, bots)]
        return all(f is not None and f.done() and f.exception() is None for f in futs)

    def prepare(self, game, bots=()) -> list:
        """Start compiling the kernels of ``game`` and ``bots`` on the worker (once per process); returns
        their futures."""
        futs = []
        with self.lock:
            for key in self._warm_keys(game, bots):
                f = self._warm.get(key)
                if f is None or (f.done() and f.exception() is not None):
                    f = self._warm[key] = self._worker.submit(self._warm_fn, game, () if key[1] is None else (key[1],))
                futs.append(f)
        return futs

    def preparing_message(self, game) -> str:
        return f"preparing {game.title} (first use in this server: compiling its kernels, about 10-40 s)"

    def catalogue_status(self) -> dict:
        """``{game: "ready" | "preparing" | "cold"}``: the state of each game's own kernels."""
        out = {}
        with self.lock:
            for name in cardgym.registry.names():
                f = self._warm.get((name, None))
                out[name] = "cold" if f is None or (f.done() and f.exception() is not None) else (
                    "ready" if f.done() else "preparing")
        return out

    # ---------------------------------------------------------------------------------- create
    def _policy(self, game, who, rules):
        from cardgym.core.envs.opponents import load_model_opponent

        key = (game.name, who, tuple(sorted(rules.as_dict().items(), key=lambda kv: kv[0])))
        with self._policy_lock:
            if key not in self._policies:
                path = "agent" if who == AGENT else self.models[who][1]
                self._policies[key] = load_model_opponent(game, path, rules, "vector")
            return self._policies[key]

    def create(self, body, client=()) -> dict:
        """A new table from the page's request (``client``: who asks, for the per-client bound). The
        body is checked whole first (`_parse`, `_players`); the table opens at once if its kernels are
        ready, else it is prepared by the worker and its state says ``preparing`` meanwhile."""
        req = self._parse(body)
        players = self._players(req, body["seats"])
        t = self._register(req, players, client)
        first = next((s for s in players if s.kind == PERSON), None)
        if first is not None:
            first.claimed = True
        return {"id": t.id, "token": first.token if first is not None else None,
                "seat": players.index(first) if first is not None else None,
                "status": t.status, "message": t.preparing if t.status == "preparing" else ""}

    def _parse(self, body) -> dict:
        """The request's game, player count, rule options (checked by the game's rules), seed and pace,
        refused (400) with what was wrong."""
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object {game, num_players, seats, rules, seed}")
        unknown = sorted(set(body) - {"game", "num_players", "seats", "rules", "seed", "pace"})
        if unknown:
            raise Refused(400, f"unknown field(s) {unknown}; allowed: game, num_players, seats, rules, seed, pace")
        name = body.get("game")
        if not isinstance(name, str) or name not in cardgym.GAMES:
            raise Refused(400, f"unknown game {name!r}; games: {cardgym.registry.names()}")
        game = cardgym.get_game(name)
        if game.scene is None:
            raise Refused(400, f"the web table is not available for {name}: the game has no scene (scene.py)")
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
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
            raise Refused(400, f"seed must be an integer 0..2**63-1 or null, got {seed!r}")
        pace = body.get("pace", self.pace)
        if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not math.isfinite(pace) or not 0 <= pace <= 10:
            raise Refused(400, f"pace must be a number of seconds 0..10, got {pace!r}")
        try:
            checked = game.make_rules(num_players=n, **rules)
        except (TypeError, ValueError, OverflowError) as exc:
            raise Refused(400, f"rules not accepted: {exc}") from None
        return {"name": name, "game": game, "n": n, "rules": rules, "checked": checked, "seed": seed,
                "pace": float(pace)}

    def _players(self, req: dict, seats: list) -> list:
        """One `Seat` per seat name: a person (with a fresh token), a bot, a text player, the shipped agent
        or a model given to ``cardgym serve --model``."""
        name, game, checked = req["name"], req["game"], req["checked"]
        players = []
        for i, who in enumerate(seats):
            if who == PERSON:
                players.append(Seat(PERSON, PERSON, token=secrets.token_urlsafe(16)))
            elif who in game.bots:
                players.append(Seat("bot", who))
            elif who in self.text_players:
                try:
                    players.append(Seat("text", who, policy=self.text_players[who](game, checked)))
                except (ValueError, TypeError, ImportError) as exc:
                    raise Refused(400, f"seat {i}: {exc}") from None
            elif who == AGENT or (who in self.models and self.models[who][0] == name):
                try:
                    pol = self._policy(game, who, checked)
                except (ValueError, ImportError) as exc:
                    raise Refused(400, f"seat {i}: {exc}") from None
                players.append(Seat(AGENT if who == AGENT else "model", who, policy=pol))
            else:
                raise Refused(400, f"seat {i}: {who!r} is not 'person', a bot of {name} {list(game.bots)}, "
                                   f"'agent' or a model given to cardgym serve --model "
                                   f"{sorted(k for k, (g, _) in self.models.items() if g == name)}")
        return players

    def _register(self, req: dict, players: list, client) -> LiveTable:
        """The table, counted against the bounds (refused 429 beyond them), then opened: at once when its
        kernels are ready, else by the preparing worker once they are."""
        game = req["game"]
        with self.lock:
            self._room(client)
            gid = secrets.token_urlsafe(8)
            t = LiveTable(gid, game, None, None, players, req["pace"], touched=self.clock(), clock=self.clock,
                          status="preparing", client=client, max_moves=self.max_moves,
                          preparing=self.preparing_message(game))
            self.live[gid] = t
        futs = self.prepare(game, [s.name for s in players if s.kind == "bot"])
        if all(f.done() for f in futs):
            self._open(t, req, futs)
        else:
            self._worker.submit(self._open, t, req, futs)
        return t

    def _open(self, t: LiveTable, req: dict, futs: list) -> None:
        """Make the table's env and its recorder (after its kernels' compiles ``futs``); a compile or env
        failure marks the table failed, with the reason, instead of leaving it preparing."""
        n, players = req["n"], t.seats
        try:
            for f in futs:
                f.result()
            mod = importlib.import_module(cardgym.GAMES[req["name"]].module)
            env = mod.raw_env(num_players=n, **req["rules"])
            entries = [player_file_entry(req["game"], self.models[s.name][1], n) if s.kind == "model"
                       else s.policy.record_entry() if s.kind == "text" else s.name for s in players]
            rec = GameRecorder(env, entries)
            rec.reset(seed=req["seed"])
        except Exception as exc:  # noqa: BLE001 - the table says so instead of hanging
            with t.lock:
                t.status, t.error = "failed", f"{type(exc).__name__}: {exc}"
            return
        with t.lock:
            t.env, t.recorder, t.status = env, rec, "playing"
            t.last_move = time.monotonic()

    def leave(self, gid, token, client=(), soon: bool = False) -> dict:
        """A page leaves a game: the page playing a seat (its token), or the page that started a bots-only
        game. The game ends at once; with ``soon`` (the page was closed or is reloading) it ends `GRACE`
        seconds later unless that seat's page asks for it again meanwhile."""
        t = self.get_live(gid)
        with t.lock:
            seat = t.seat_of(token)
            if seat is None and (t.has_person or t.client != tuple(client)):
                raise Refused(403, "only the page playing a seat (its token) or the page that started a bots-only "
                                   "game can end it by leaving; a spectator just goes")
            if soon:
                t.leaving, t.leaving_seat = self.clock(), seat
                t.leases.pop(seat, None)  # a reloaded page (a new page id) takes the seat back at once
            else:
                t.end(f"the game was ended: {'player_%d' % seat if seat is not None else 'its page'} left")
            return {"id": gid, "status": "stopped" if t.stopped else "over" if t.over else "leaving"}

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

    def open_record(self, text: str, where: str = "upload", pinned: bool = False, owner: str = "") -> dict:
        """Replay a record (refused whole, with its line, if it does not replay) and hold its states;
        ``pinned`` (the files given to ``cardgym serve --record``) never expire and are listed for every
        page, an upload only for the page that sent it (``owner``, its page id). A record whose replay
        would pass the server's bytes for records (`RECORD_BYTES`) is refused before it is replayed. A
        UTF-8 byte-order mark (some editors write one) is not part of the record."""
        text = text[1:] if text.startswith("\ufeff") else text
        try:
            rec = parse_record(text, where)
            game = cardgym.get_game(rec.game)
            need = record_cost(game, len(rec.actions), len(text))
            with self.lock:
                self._record_room(need)
            env, states = replay_states(rec)
        except RecordError as exc:
            raise Refused(400, f"refused: {exc}") from None
        with self.lock:
            self._record_room(need)
            rid = secrets.token_urlsafe(8)
            self.records[rid] = OpenRecord(rid, env.game, env.rules, rec, states, nbytes=need,
                                           touched=math.inf if pinned else self.clock(),
                                           owner=None if pinned else str(owner))
        return {"id": rid, "steps": len(states) - 1, "game": env.game.name, "name": where}

    def list_records(self, page: str | None = None) -> list:
        """The opened records a page sees: the server's own (``--record``) and those it uploaded (``page``,
        its page id; None: every record)."""
        with self.lock:
            self._purge()
            return [{"id": r.id, "game": r.game.name, "title": r.game.title, "name": r.record.where,
                     "steps": len(r.states) - 1} for r in self.records.values()
                    if page is None or r.owner is None or r.owner == page]


def state_bytes(game, rules=None) -> int:
    """Bytes of one state record of ``game`` (what an opened record holds per step, without overhead)."""
    return int(game.state_dtype.itemsize)


def record_cost(game, moves: int, text_bytes: int) -> int:
    """The bytes an opened record holds, counted high: its env, a copy of the state before every move
    and after the last (the state record and its array's overhead), each action line read into Python
    objects (about 400 bytes, and up to 4 bytes per character of its text, a text player's answers
    included). Measured against tracemalloc in tests/test_web_api.py."""
    return 256 * 1024 + (moves + 1) * (state_bytes(game) + 200) + 400 * moves + 4 * int(text_bytes)


def player_file_entry(game, path, n):
    from cardgym.app.game_records import player_entry

    return player_entry(game, path, n)
