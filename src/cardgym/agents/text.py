"""Text players: a language model (or any ``str -> str`` callable) at the table.

A [`TextPlayer`][cardgym.agents.text.TextPlayer] turns a seat's view (``env.unwrapped.view(seat)``, the
seat's table as JSON with each legal move in words) into a prompt, asks its ``ask`` callable, parses the
answer into a move and keeps per-decision telemetry. The prompt is built from the seat's view only, the
game's rules summary and the public moves since the seat's last turn (or the whole public history,
``history="full"``), so it cannot leak a hidden card
(the tests re-deal every card hidden from the seat and compare the prompts byte for byte).

Answers are read by one parser, [`read_answer`][cardgym.agents.answers.read_answer] (its module gives
the rule): reasoning blocks are kept as the decision's thoughts and never read for a move; the final
answer alone decides (an id, a move's words, the listed line, ``move: ...``, ``{"action": 12}``, with
fences, emphasis, quotes and leads such as ``I play`` dropped). Each decision ends as one of `OUTCOMES`
(ok, truncated, empty, unparsable, illegal, server); a first failed answer gets one *rethink* message
that says what went wrong; a second falls back to the declared ``fallback``: ``"forfeit"`` (the game
ends, lost by this seat), ``"random"`` (a legal move drawn from a generator seeded by the player's seed
and the prompt) or ``"first"`` (the legal move with the lowest id). A fallback is always counted and
written in the telemetry, never silent. In ``mode="tools"`` the legal moves are offered as one
function and the answer is a call of it, read by the same parser.

``ask`` is any callable ``ask(prompt: str) -> str``; an object with a ``chat(messages)`` method (such as
[`OpenAIChat`][cardgym.agents.llm_client.OpenAIChat]) is given the conversation as chat messages instead
(and ``deadline=``/``tools=`` when its ``chat`` takes them), and may answer with a `Reply` holding the
tokens the server counted, its ``finish_reason``, reasoning and tool calls.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import string
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from cardgym.core import services as plugins

from .answers import MAX_PARSE_CHARS, Answer, read_answer, read_tool_calls, tool_schema

FALLBACKS = ("forfeit", "random", "first")
#: how a text player is asked: ``text`` (it answers in text) or ``tools`` (it calls the function ``play_move``)
MODES = ("text", "tools")
#: how each decision ends (`TextPlayer.decide`; counted apart in `TextPlayer.stats`)
OUTCOMES = ("ok", "truncated", "empty", "unparsable", "illegal", "server")
#: decisions a text player takes before a share of server failures above its limit stops the run
HEALTH_MIN_DECISIONS = 20

#: the rules summary a prompt holds at most (characters of the game page's rules section)
MAX_RULES_CHARS = 6000
#: characters of each raw answer kept in the telemetry (the rest is cut, and the full length recorded)
MAX_ANSWER_CHARS = 4000

DEFAULT_TEMPLATE = """You are playing the card game {title} as {seat_name}. You play to win.

# Rules (summary)
{rules}

# {moves_heading}
{moves}

# The table as you see it
{table_guide}
{table}

# {legal_heading}
{legal}

# Your answer
{answer_format}"""

#: the fields a prompt template may use (``str.format`` names); every other name is refused
TEMPLATE_FIELDS = ("game", "title", "seat", "seat_name", "rules", "moves", "table", "legal_heading", "legal",
                   "answer_format", "turn", "moves_heading", "table_guide")

#: how to read `table_json` (the ``{table_guide}`` field): which end of a pile is its top, what a count is
TABLE_GUIDE = ('JSON. Each pile lists the cards you can see from the bottom up: the last card listed is its top '
               'card. "count" is how many cards the pile holds: a face-down pile shows only its top as a back '
               '"##", a pile that shows its top card only lists that card. Cards you cannot see are backs "##". '
               'A row of a grid ("row 0", "row 1", ...) lists its cards from left to right, column 0 first; "--" '
               'is an empty place in it.')

#: ``history`` of a `TextPlayer`: the moves since the seat's last turn, or the whole public history
HISTORIES = ("recent", "full")
#: characters of the public history a ``history="full"`` prompt holds at most (the newest moves are kept)
MAX_HISTORY_CHARS = 8000
#: options a prompt does not name (how an environment pays rewards is not a rule of play)
_UNTOLD_OPTIONS = ("num_players", "reward")

ANSWER_FORMAT_LISTED = ("Answer with the id of one legal move (for example: 12), its words exactly as listed, "
                        "or a JSON object such as {\"action\": 12}. If you explain, put the move alone on the last "
                        "line as: move: <id>")
ANSWER_FORMAT_UNLISTED = ("Answer with one legal move in words, as the game describes moves (for example: "
                          "\"{example}\"), or its action id, or a JSON object such as {{\"action\": <id>}}. If you "
                          "explain, put the move alone on the last line as: move: <move>")

ANSWER_FORMAT_TOOLS = "Call the function play_move once, with the id of one legal move as its argument action."

#: the rethink message of each failed answer's outcome (``{reason}``: what the parser said; ``{how}``: how
#: to name a move, with the legal moves listed or not)
RETHINKS = {
    "truncated": "Your answer was cut off at the length limit before it named a move. Answer shorter: {how}, "
                 "with at most a sentence of reasons before it.",
    "empty": "Your answer was empty ({reason}). Answer with {how}.",
    "unparsable": "Your answer could not be read as a move: {reason}. Answer with {how}, nothing else.",
    "illegal": "That move isn't legal now: {reason}. Choose one of the legal moves and answer with {how}.",
}
HOW_LISTED = "one move id only (for example: 12), or {\"action\": <id>}"
HOW_UNLISTED = "one legal move only, in words as the game describes moves, or its id"
HOW_TOOLS = "one call of the function play_move with the id of a legal move"


@dataclass
class Reply:
    """An answer and what the server said about it (``None`` where it did not say): the tokens it
    counted, ``reasoning`` (a ``reasoning_content`` field, apart from the answer), ``finish_reason``
    (``stop``, ``length``, ``tool_calls``...), ``reasoning_tokens`` and ``tool_calls`` (``[{"name",
    "arguments"}]``, ``arguments`` a JSON string)."""

    text: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    reasoning_tokens: int | None = None
    tool_calls: list = field(default_factory=list)


class AskError(RuntimeError):
    """The ``ask`` callable failed for good (e.g. the server kept answering HTTP 429 after its retries,
    or sent a body that holds no answer): the decision ends as ``server``, in the fallback."""


class FatalAskError(ValueError):
    """A request the server refused for a reason retrying cannot mend (HTTP 400, 401, 403, 404, 422...):
    the run stops at once; the message names the setting to fix."""


class ServerFailures(RuntimeError):
    """A text player's share of decisions that ended in server failures passed its limit
    (`TextPlayer.check_health`): the run stops, and no rating is given."""


def check_template(template: str) -> str:
    """``template`` if it is a usable prompt template: a string whose ``{fields}`` are all among
    `TEMPLATE_FIELDS` (``{{`` and ``}}`` for literal braces); ``ValueError`` naming the field otherwise."""
    if not isinstance(template, str) or not template.strip():
        raise ValueError(f"a prompt template must be a non-empty string, got {template!r}")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"the prompt template is not a str.format template: {exc}") from None
    for _, name, spec, conv in parsed:
        if name is None:
            continue
        if name not in TEMPLATE_FIELDS:
            raise ValueError(f"the prompt template uses {{{name}}}; allowed fields: "
                             f"{', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)}")
        if spec or conv:
            raise ValueError(f"the prompt template's field {{{name}}} has a format spec or conversion; "
                             "write fields plainly as {name}")
    return template


def rules_summary(page: str) -> str:
    """The rules part of a game page (Markdown): its section "The rules in plain words" when it has one,
    else the page up to its second heading; HTML comments and code blocks dropped, cut at `MAX_RULES_CHARS`."""
    text = re.sub(r"<!--.*?-->\n?", "", page or "", flags=re.S)
    text = re.sub(r"```.*?```\n?", "", text, flags=re.S)
    m = re.search(r"^## The rules in plain words\s*$(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    if m:
        body = m.group(1)
    else:
        parts = re.split(r"^#{1,2} ", text, flags=re.M)
        body = parts[1] if len(parts) > 1 else text
        body = body.split("\n", 1)[1] if "\n" in body else body
    body = body.strip()
    if len(body) > MAX_RULES_CHARS:
        body = body[:MAX_RULES_CHARS].rsplit("\n", 1)[0] + "\n(the rest of the rules: see the game's page)"
    return body or "(no rules summary)"


def options_text(rules) -> str:
    """The players and the options of ``rules`` that differ from their defaults, in words
    (``"This game: 2 players; options that differ from the rules above: stock size 10; teams on."``)."""
    import dataclasses

    parts = []
    if dataclasses.is_dataclass(rules):
        try:  # the defaults as the rules resolve them for this many players (Skip-Bo's stock: 30 or 20)
            plain = dataclasses.asdict(type(rules)(num_players=rules.num_players))
        except (TypeError, ValueError, AttributeError):
            plain = {f.name: f.default for f in dataclasses.fields(rules)}
        for f in dataclasses.fields(rules):
            value = getattr(rules, f.name)
            if f.name in _UNTOLD_OPTIONS or plain.get(f.name, dataclasses.MISSING) in (dataclasses.MISSING, value):
                continue
            if isinstance(value, bool):
                word = "on" if value else "off"
            elif value is None:
                word = "none"
            else:
                word = str(value).replace("_", " ")
            parts.append(f"{f.name.replace('_', ' ')} {word}")
    n = getattr(rules, "num_players", None)
    head = f"This game: {n} players" if n is not None else "This game"
    if not parts:
        return head + ", the rules above without variants."
    return head + "; options that differ from the rules above: " + "; ".join(parts) + "."


def game_rules_text(game) -> str:
    """The rules summary of ``game`` (a `GameSpec`): from its page shipped in the package
    (``cardgym/pages/NAME.md``), else its package's docstring."""
    import importlib
    from importlib import resources

    try:
        page = (resources.files("cardgym") / "pages" / f"{game.name}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        page = importlib.import_module(game.package).__doc__ if getattr(game, "package", None) else ""
    return rules_summary(page or "")


def theirs(text: str) -> str:
    """A move described to the acting seat ("your stock") as others read it ("their stock")."""
    return re.sub(r"\byour\b", "their", re.sub(r"\byou\b", "they", text))


def table_json(view: dict, with_legal: bool) -> str:
    """The compact table of a view as JSON: the status lines, then every region (the shared table first)
    with its piles' labels, notes, counts and card texts. Nothing that is not in ``view``."""
    def region(reg):
        out = {"name": reg["title"]}
        if reg.get("lines"):
            out["lines"] = list(reg["lines"])
        piles = []
        for r, row in enumerate(reg["rows"]):
            unnamed = [p for p in row if not p["label"]]
            for p in row:
                if p["label"]:
                    # a named pile lists its cards; the empty slots of its picture are not cards
                    name, cards = p["label"], [c["text"] for c in p["cards"] if c["kind"] != "empty"]
                else:
                    # a row of a grid keeps its empty places ("--"): a card's column is its place
                    k = unnamed.index(p)
                    name = f"row {r}" if len(unnamed) == 1 else f"row {r}, part {k}"
                    cards = [c["text"] for c in p["cards"]]
                pile = {"pile": name, "count": p["count"], "cards": cards}
                if p.get("note"):
                    pile["note"] = p["note"]
                piles.append(pile)
        out["piles"] = piles
        return out

    data = {"title": view.get("title"), "status": view["status"], "turn": view.get("turn"), "lines": list(view["lines"]),
            "table": region(view["table"]), "players": [region(p) for p in view["players"]]}
    if view.get("result") is not None:
        data["result"] = view["result"]
    if with_legal:
        data["legal"] = [{"id": x["action"], "move": x["text"]} for x in view["legal"]]
    return json.dumps(data, sort_keys=False, separators=(", ", ": "), ensure_ascii=False)


#: what `parse_answer` returns (the name of `cardgym.agents.answers.Answer` before there was one parser)
Parsed = Answer


def parse_answer(answer: str, legal: list, num_actions: int) -> Answer:
    """The move an answer names, among ``legal`` (dicts ``{"action", "text"}`` of the view): the one
    parser, `cardgym.agents.answers.read_answer` (reasoning blocks taken out, the final answer alone read;
    its module gives the rule)."""
    return read_answer(answer, legal, num_actions)


class History(list):
    """The whole public history of a game as a driver gives it to a text player: every move in words,
    oldest first (``"player_1: play the 3 from their stock on build pile 0"``), and ``since``, the index of
    the first move made since the seat's last turn (``history[since:]`` is what ``history="recent"``
    shows)."""

    def __init__(self, moves=(), since: int = 0):
        super().__init__(moves)
        if not 0 <= int(since) <= len(self):
            raise ValueError(f"since must be 0..{len(self)} (the number of moves), got {since!r}")
        self.since = int(since)


def moves_for(player, history: list, since: int) -> list:
    """What a driver gives ``player`` (a text player) as its moves: the moves since its last turn
    (``history[since:]``), or the whole `History` for a player with ``history="full"``."""
    if getattr(player, "history", "recent") == "full":
        return History(history, since)
    return list(history[since:])


def _turns(moves: list) -> list:
    """``moves`` (``"player_k: words"``) grouped into turns, one line per turn: consecutive moves of one
    player joined by ``"; "`` after a single ``player_k:``."""
    out, who = [], None
    for m in moves:
        head, sep, words = str(m).partition(": ")
        if sep and head == who:
            out[-1] += "; " + words
        else:
            out.append(str(m))
            who = head if sep else None
    return out


def history_text(moves: list, max_chars: int = MAX_HISTORY_CHARS) -> str:
    """The whole public history in at most about ``max_chars`` characters: the turns before the seat's
    last turn one line each (its moves joined by ``;``), then the moves since its last turn one per line;
    when the history is longer, the oldest turns are left out and a first line says how many (the newest
    moves are always kept in full). ``moves`` is a `History` (a plain list counts as all recent)."""
    since = getattr(moves, "since", 0)
    older, recent = _turns(moves[:since]), [f"- {m}" for m in moves[since:]]
    tail = ["Since your last turn:"] + (recent or ["(none)"])
    budget = max_chars - sum(len(x) + 1 for x in tail)
    kept: list = []
    for line in reversed(older):
        if budget - len(line) - 3 < 0:
            break
        budget -= len(line) + 3
        kept.append(f"- {line}")
    kept.reverse()
    head = []
    if len(kept) < len(older):
        left = older[:len(older) - len(kept)]
        count = sum(1 + x.count("; ") for x in left)
        head = [f"(the first {len(left)} turns of the game, {count} moves, are left out to keep the prompt short)"]
    if not older:
        return "\n".join(["(no earlier turns)"] + tail)
    return "\n".join(head + ["Earlier turns (one line a turn, oldest first):"] + kept + tail)


class TextPlayer:
    """A player that reads the table as text and answers in text (a language model, a person's script).

    Args:
        game: the game (`GameSpec`).
        rules: the game's ``Rules``.
        ask: ``ask(prompt) -> str`` (or `Reply`), or an object with ``chat(messages) -> Reply``.
        template: the prompt template (`DEFAULT_TEMPLATE`; fields `TEMPLATE_FIELDS`).
        list_moves: list the legal moves (ids and words) in the prompt; ``False`` leaves them out (the
            player must name a move in words or by id from the rules alone).
        fallback: what a decision falls back to after an unusable answer and its rethink, or a failed
            ``ask``: ``"forfeit"``, ``"random"`` or ``"first"``.
        seed: seed of the ``"random"`` fallback: its move is drawn from a generator seeded by ``seed`` and
            the prompt's hash, so it is the same whatever order threads decide in.
        name: the player's name in tables and records.
        rules_text: the rules summary (default: from the game's page, followed by the players and the
            options that differ from the defaults, `options_text`).
        info: extra JSON-able facts about the player written in records (model, server...).
        history: ``"recent"`` (the moves since the seat's last turn) or ``"full"`` (the whole public
            history, compacted to at most `MAX_HISTORY_CHARS` characters, the newest moves kept).
        mode: ``"text"`` (the answer is text) or ``"tools"`` (the legal moves are offered as one function,
            `cardgym.agents.answers.tool_schema`, and the answer is a call of it; needs ``list_moves`` and
            an ``ask`` whose ``chat`` takes ``tools``, such as `OpenAIChat`).
        deadline: seconds one decision may take, every request, retry and rethink of it (``None``: no
            limit but the client's own); given to ``ask.chat`` when it takes ``deadline``.
        max_server_failures: the share of decisions that may end in server failures (0 to 1): above it
            `check_health` raises `ServerFailures`, which `decide` does itself once the player has taken
            `HEALTH_MIN_DECISIONS` decisions.
    """

    text_player = True

    def __init__(self, game, rules, ask, template: str = DEFAULT_TEMPLATE, list_moves: bool = True,
                 fallback: str = "random", seed: int = 0, name: str = "text", rules_text: str | None = None,
                 info: dict | None = None, history: str = "recent", mode: str = "text",
                 deadline: float | None = None, max_server_failures: float = 0.1):
        chat = getattr(ask, "chat", None)
        if not (callable(ask) or callable(chat)):
            raise TypeError(f"ask must be a callable prompt -> answer or have chat(messages), got {ask!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}")
        if not isinstance(list_moves, bool):
            raise ValueError(f"list_moves must be True or False, got {list_moves!r}")
        if history not in HISTORIES:
            raise ValueError(f"history must be one of {', '.join(HISTORIES)}, got {history!r}")
        self.history = history
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self._chat_takes = set()
        if callable(chat):
            try:
                params = inspect.signature(chat).parameters
            except (TypeError, ValueError):
                params = {}
            self._chat_takes = {k for k in ("deadline", "tools") if k in params}
        if mode == "tools":
            if "tools" not in self._chat_takes:
                raise ValueError("mode 'tools' needs an ask with chat(messages, tools=...) such as OpenAIChat; "
                                 f"{ask!r} has none")
            if not list_moves:
                raise ValueError("mode 'tools' offers the legal moves in the function's schema: it needs "
                                 "list_moves=True (--llm-moves list)")
        if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, (int, float))
                                     or not 0 < deadline <= 86400):
            raise ValueError(f"deadline must be None or seconds in (0, 86400], got {deadline!r}")
        if isinstance(max_server_failures, bool) or not isinstance(max_server_failures, (int, float)) or not (
                0 <= max_server_failures <= 1):
            raise ValueError(f"max_server_failures must be a share in [0, 1], got {max_server_failures!r}")
        self.game, self.rules, self.ask = game, rules, ask
        self.template = check_template(template)
        self.list_moves, self.fallback, self.name = list_moves, fallback, str(name)
        self.mode, self.deadline = mode, None if deadline is None else float(deadline)
        self.max_server_failures = float(max_server_failures)
        self.seed = int(seed)
        if rules_text is None:
            rules_text = game_rules_text(game) + "\n\n" + options_text(rules)
        self.rules_text = str(rules_text)
        self.info = dict(info or {})
        self._lock = threading.Lock()
        self._last_error = None
        self.reset_stats()

    def __getstate__(self):  # copies and pickles (an env's opponent): the lock is made anew
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def names(self) -> list:
        """The plain name of every action id (``game.action_to_str``), which the parser also reads."""
        if getattr(self, "_names", None) is None:
            out = []
            for a in range(self.game.num_actions):
                try:
                    out.append(str(self.game.action_to_str(a)))
                except Exception:  # noqa: BLE001 - a game that names only some ids
                    out.append("")
            self._names = out
        return self._names

    def __repr__(self):
        return f"TextPlayer({self.name!r}, game={self.game.name!r}, fallback={self.fallback!r})"

    def __str__(self):
        return self.name

    # ------------------------------------------------------------------------------------- statistics
    def reset_stats(self):
        """Zero the counts `stats` reports."""
        with self._lock:
            self.counts = {"decisions": 0, "answers": 0, "parse_errors": 0, "illegal": 0, "rethinks": 0,
                           "fallbacks": 0, "forfeits": 0, "errors": 0, "latency_s": 0.0, "tokens_in": 0,
                           "tokens_out": 0, "tokens_reported": 0, "reasoning_tokens": 0,
                           **{f"outcome_{k}": 0 for k in OUTCOMES}}

    def stats(self, since: dict | None = None) -> dict:
        """Totals over every decision since the last `reset_stats` (or since ``since``, a copy of
        ``counts`` taken earlier): ``decisions``, ``outcomes`` (decisions by how they ended: ``ok``,
        ``truncated``, ``empty``, ``unparsable``, ``illegal``, ``server``; `decide`), ``answers`` (answers
        received), ``parse_errors`` and ``illegal`` (answers that named nothing, or a move not legal now),
        ``invalid`` (their sum), ``illegal_rate`` (invalid / answers), ``rethinks``, ``fallbacks``
        (decisions settled by the fallback), ``forfeits``, ``errors`` (failed asks: decisions ended as
        ``server``), ``mean_latency_ms`` (per decision, every ask of it), ``tokens_in``/``tokens_out``
        and ``reasoning_tokens`` (``None`` when the server never reported them)."""
        with self._lock:
            now = dict(self.counts)
        c = {k: v - (since or {}).get(k, 0) for k, v in now.items()}
        invalid = c["parse_errors"] + c["illegal"]
        out = {"decisions": c["decisions"], "outcomes": {k: c[f"outcome_{k}"] for k in OUTCOMES}}
        out.update({k: c[k] for k in ("answers", "parse_errors", "illegal", "rethinks", "fallbacks", "forfeits",
                                      "errors")})
        out["invalid"] = invalid
        out["illegal_rate"] = round(invalid / c["answers"], 4) if c["answers"] else None
        out["mean_latency_ms"] = round(1000 * c["latency_s"] / c["decisions"], 2) if c["decisions"] else None
        reported = c["tokens_reported"] > 0
        out["tokens_in"] = c["tokens_in"] if reported else None
        out["tokens_out"] = c["tokens_out"] if reported else None
        out["reasoning_tokens"] = c["reasoning_tokens"] if reported and c["reasoning_tokens"] else None
        return out

    def check_health(self, since: dict | None = None) -> dict:
        """`stats` (since ``since``) when the share of decisions that ended in server failures is at most
        ``max_server_failures``; `ServerFailures` naming the counts, the last error and the setting
        otherwise. `cardgym eval` and `cardgym ladder` call it before they print a table or a rating."""
        st = self.stats(since)
        d, bad = st["decisions"], st["outcomes"]["server"]
        if d and bad / d > self.max_server_failures:
            raise ServerFailures(
                f"{self.name}: {bad} of {d} decisions ({bad / d:.0%}) ended in server failures, more than the "
                f"{self.max_server_failures:.0%} allowed (--llm-max-server-failures); the last: {self._last_error}. "
                "The run stops without a rating: fix the server (or its settings) and run again")
        return st

    # ---------------------------------------------------------------------------------------- prompts
    def prompt(self, view: dict, moves: list | None = None) -> str:
        """The prompt for ``view`` (a seat's view, `cardgym.render.view.view`) and the public ``moves``
        since the seat's last turn, or the game's whole `History` (``None``: the driver keeps no move
        log). With ``history="full"`` a `History` is shown whole (`history_text`); else only its moves
        since the seat's last turn."""
        seat = view["viewer"]
        if isinstance(moves, History) and self.history == "recent":
            moves = moves[moves.since:]
        full = self.history == "full"
        moves_heading = "The game so far (public moves)" if full else "Moves since your last turn"
        if moves is None:
            moves_text = "(not available: this game is played without a move log)"
        elif full:
            moves_text = history_text(moves)
        elif not moves:
            moves_text = "(none)"
        else:
            moves_text = "\n".join(f"- {m}" for m in moves)
        if self.list_moves:
            heading = "Your legal moves (id: move)"
            legal = "\n".join(f"{x['action']}: {x['text']}" for x in view["legal"]) or "(none)"
            answer = ANSWER_FORMAT_TOOLS if self.mode == "tools" else ANSWER_FORMAT_LISTED
        else:
            heading = "Your move"
            legal = "The legal moves are not listed: choose one the rules allow on this table."
            example = self._example_move()
            answer = ANSWER_FORMAT_UNLISTED.format(example=example)
        fields = {
            "game": view["game"], "title": self.game.title, "seat": seat, "seat_name": f"player_{seat}",
            "rules": self.rules_text, "moves": moves_text, "table": table_json(view, False),
            "legal_heading": heading, "legal": legal, "answer_format": answer, "turn": view.get("turn"),
            "moves_heading": moves_heading, "table_guide": TABLE_GUIDE,
        }
        return self.template.format(**fields)

    def _example_move(self) -> str:
        """An example of a move in words that names no card of the table: the words of action 0 in a
        fresh deal of seed 0 (the same for every state, so the prompt cannot leak through it)."""
        if not hasattr(self, "_example"):
            try:
                rec = self.game.new_states(1)
                c = self.game.compiled()
                masks = np.zeros((1, self.game.num_actions), np.int8)
                c.batch_reset(rec, self.rules.params(), np.zeros(1, np.int64), masks, np.empty(0, np.int8), 0)
                a = int(np.flatnonzero(masks[0])[0])
                describe = self.game.describe_action
                self._example = describe(rec[0], self.rules, a) if describe else self.game.action_to_str(a)
            except Exception:  # noqa: BLE001 - a game without these services: a generic example
                self._example = "move words"
        return self._example

    # -------------------------------------------------------------------------------------- decisions
    def _ask(self, messages: list, deadline: float | None = None, tools: list | None = None) -> Reply:
        """One answer to the conversation ``messages``, as a `Reply`."""
        if callable(getattr(self.ask, "chat", None)):
            kw = {}
            if "deadline" in self._chat_takes:
                kw["deadline"] = deadline
            if tools is not None:
                kw["tools"] = tools
            got = self.ask.chat(messages, **kw)
        else:
            text = messages[0]["content"]
            for m in messages[1:]:
                who = "Your answer" if m["role"] == "assistant" else "Message"
                text += f"\n\n# {who}\n{m['content']}"
            got = self.ask(text)
        if isinstance(got, Reply):
            return got
        if isinstance(got, str):
            return Reply(got)
        if got is None:
            return Reply("")
        raise TypeError(f"the text player's ask returned a {type(got).__name__}, not a string")

    def _rethink(self, outcome: str, reason: str) -> str:
        how = HOW_TOOLS if self.mode == "tools" else HOW_LISTED if self.list_moves else HOW_UNLISTED
        return RETHINKS[outcome].format(reason=reason, how=how)

    def decide(self, view: dict, moves: list | None = None) -> tuple:
        """``(action, telemetry)`` for the seat of ``view`` (which must be the seat to act): ``action``
        is a legal id, or ``None`` when the player forfeits. Thread-safe: threads may decide for
        different games at once.

        The decision ends as one of `OUTCOMES`: ``ok`` (an answer named a legal move), ``truncated``
        (the last answer named none and the server cut it: ``finish_reason`` ``length``), ``empty``,
        ``unparsable``, ``illegal`` (`cardgym.agents.answers.read_answer`), or ``server`` (the request
        failed after its retries, or the server's body held no answer). A first failed answer gets one
        rethink that says what went wrong; a decision that does not end ``ok`` ends in the fallback.

        ``telemetry`` is JSON-able: ``prompt_sha256``, ``outcome``, ``outcomes`` (per answer asked for),
        ``answers`` (the raw answers, each cut at `MAX_ANSWER_CHARS`), ``thoughts`` (per answer: the
        reasoning taken out of it, or sent apart as ``reasoning_content``, cut), ``finish_reasons`` (per
        answer) and ``finish_reason`` (the last answer's),
        ``move`` (the id played), ``attempts``, ``parse_errors``, ``illegal``, ``reasons``, ``fallback``
        (``None`` or the fallback taken), ``error`` (a failed ask), ``latency_ms``, ``tokens_in``,
        ``tokens_out`` and ``reasoning_tokens`` (``None`` when the server did not count them)."""
        legal = view["legal"]
        if not legal:
            raise ValueError(f"view of seat {view['viewer']} has no legal move: it is not this seat's turn")
        prompt = self.prompt(view, moves)
        messages = [{"role": "user", "content": prompt}]
        sha = hashlib.sha256(prompt.encode()).hexdigest()
        tel = {"prompt_sha256": sha, "outcome": None, "outcomes": [], "answers": [], "thoughts": [],
               "finish_reasons": [], "move": None, "attempts": 0, "parse_errors": 0, "illegal": 0, "reasons": [],
               "fallback": None, "error": None, "latency_ms": 0.0, "tokens_in": None, "tokens_out": None,
               "reasoning_tokens": None}
        tools = [tool_schema(legal)] if self.mode == "tools" else None
        deadline = None if self.deadline is None else time.monotonic() + self.deadline
        mine = dict.fromkeys(("answers", "parse_errors", "illegal", "rethinks", "errors", "tokens_in", "tokens_out",
                              "tokens_reported", "reasoning_tokens"), 0)
        action, outcome, spent = None, None, 0.0
        for attempt in range(2):
            tel["attempts"] += 1
            t0 = time.perf_counter()
            try:
                reply = self._ask(messages, deadline, tools)
            except FatalAskError:
                raise
            except Exception as exc:  # noqa: BLE001 - a client's failure ends the decision, never the game
                spent += time.perf_counter() - t0
                tel["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                outcome = "server"
                tel["outcomes"].append(outcome)
                mine["errors"] += 1
                break
            spent += time.perf_counter() - t0
            mine["answers"] += 1
            if reply.tokens_in is not None or reply.tokens_out is not None:
                mine["tokens_reported"] += 1
                for key, v in (("tokens_in", reply.tokens_in), ("tokens_out", reply.tokens_out),
                               ("reasoning_tokens", reply.reasoning_tokens)):
                    if v is not None:
                        tel[key] = (tel[key] or 0) + int(v)
                        mine[key] += int(v)
            text = reply.text or ""
            shown = text if len(text) <= MAX_ANSWER_CHARS else text[:MAX_ANSWER_CHARS] + f"... [{len(text)} chars]"
            if reply.tool_calls:
                shown = (shown + "\n" if shown else "") + "\n".join(
                    f"{c.get('name')}({str(c.get('arguments'))[:300]})" for c in reply.tool_calls)
            tel["answers"].append(shown)
            tel["finish_reasons"].append(reply.finish_reason)
            if self.mode == "tools" and reply.tool_calls:
                got = read_tool_calls(reply.tool_calls, legal, self.game.num_actions, self.names, reply.reasoning)
            else:
                got = read_answer(text, legal, self.game.num_actions, self.names, reply.reasoning)
            tel["thoughts"].append(got.thoughts)
            if got.outcome == "ok":
                action, outcome = got.action, "ok"
                tel["outcomes"].append(outcome)
                break
            outcome = "truncated" if reply.finish_reason == "length" else got.outcome
            tel["outcomes"].append(outcome)
            reason = got.reason if outcome != "truncated" else f"cut at the length limit ({got.reason})"
            tel["reasons"].append(reason)
            bad = "illegal" if got.outcome == "illegal" else "parse_errors"
            tel[bad] += 1
            mine[bad] += 1
            if attempt == 0:
                mine["rethinks"] += 1
                said = text[-MAX_PARSE_CHARS:] if text else "\n".join(
                    f"{c.get('name')}({c.get('arguments')})" for c in reply.tool_calls)
                messages = messages + [{"role": "assistant", "content": said or "(no answer)"},
                                       {"role": "user", "content": self._rethink(outcome, got.reason)}]
        tel["latency_ms"] = round(1000 * spent, 3)
        tel["outcome"] = outcome
        tel["finish_reason"] = tel["finish_reasons"][-1] if tel["finish_reasons"] else None
        if action is None:
            tel["fallback"] = self.fallback
            ids = sorted(int(x["action"]) for x in legal)
            if self.fallback == "first":
                action = ids[0]
            elif self.fallback == "random":  # the same move whatever order threads decide in
                action = int(np.random.default_rng([self.seed, int(sha[:15], 16)]).choice(ids))
        tel["move"] = action
        with self._lock:
            c = self.counts
            for k, v in mine.items():
                c[k] += v
            c["decisions"] += 1
            c["latency_s"] += spent
            c[f"outcome_{outcome}"] += 1
            if tel["fallback"] is not None:
                c["fallbacks"] += 1
                c["forfeits"] += action is None
            if tel["error"] is not None:
                self._last_error = tel["error"]
            check = c["decisions"] >= HEALTH_MIN_DECISIONS
        if check and outcome == "server":
            self.check_health()
        return action, tel

    # ------------------------------------------------------------------------ as a policy of the core
    def act_records(self, records, masks) -> np.ndarray:
        """Actions for the seats to act in ``records`` (the core's batched drivers: a Gym opponent, the
        vector env). These drivers keep no move log and cannot end a game early: the prompt says the
        moves are not available, and a ``"forfeit"`` is played as the first legal move (still counted as
        a forfeit and a fallback in `stats`)."""
        view_of = plugins.get("view")
        out = np.zeros(len(records), np.int64)
        for k in range(len(records)):
            rec = records[k]
            v = view_of(self.game, rec, self.rules, int(rec["current"]), masks[k])
            a, _ = self.decide(v, None)
            out[k] = a if a is not None else int(np.flatnonzero(masks[k])[0])
        return out

    def record_entry(self) -> dict:
        """The player as a game record's header names it (kind ``python``, with the text player's setup)."""
        return {"kind": "python", "name": self.name,
                "text": {"fallback": self.fallback, "list_moves": self.list_moves, "history": self.history,
                         "mode": self.mode,
                         "template_sha256": hashlib.sha256(self.template.encode()).hexdigest(), **self.info}}


def is_text_player(player) -> bool:
    """Whether ``player`` decides from views in text (drivers then give it the move log)."""
    return getattr(player, "text_player", False) is True and callable(getattr(player, "decide", None))


__all__ = ["AskError", "DEFAULT_TEMPLATE", "FALLBACKS", "FatalAskError", "HEALTH_MIN_DECISIONS", "HISTORIES", "History",
           "MAX_HISTORY_CHARS", "MODES", "OUTCOMES", "Parsed", "Reply", "ServerFailures", "TABLE_GUIDE",
           "TEMPLATE_FIELDS", "TextPlayer", "check_template", "game_rules_text", "history_text", "is_text_player",
           "moves_for", "options_text", "parse_answer", "rules_summary", "table_json", "theirs"]
