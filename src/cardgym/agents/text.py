"""Text players: a language model (or any ``str -> str`` callable) at the table.

A [`TextPlayer`][cardgym.agents.text.TextPlayer] turns a seat's view (``env.unwrapped.view(seat)``, the
seat's table as JSON with each legal move in words) into a prompt, asks its ``ask`` callable, parses the
answer into a move and keeps per-decision telemetry. The prompt is built from the seat's view only, the
game's rules summary and the public moves since the seat's last turn (or the whole public history,
``history="full"``), so it cannot leak a hidden card
(the tests re-deal every card hidden from the seat and compare the prompts byte for byte).

Answers are parsed robustly: a move's id (``12``), its words as listed (``play 3 from your stock on
build pile 0``), a JSON object (``{"action": 12}`` or ``{"move": "..."}``), or a last line
``move: ...``. Anything else gets one *rethink* message naming what was wrong; a second unusable
answer falls back to the declared ``fallback``: ``"forfeit"`` (the game ends, lost by this seat),
``"random"`` (a legal move drawn from the player's own seeded generator) or ``"first"`` (the legal move
with the lowest id). A fallback is always counted and written in the telemetry, never silent.

``ask`` is any callable ``ask(prompt: str) -> str``; an object with a ``chat(messages)`` method (such as
[`OpenAIChat`][cardgym.agents.llm_client.OpenAIChat]) is given the conversation as chat messages instead,
and may answer with a `Reply` holding the tokens the server counted.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
import time
from dataclasses import dataclass

import numpy as np

from cardgym.core import services as plugins

FALLBACKS = ("forfeit", "random", "first")

#: the rules summary a prompt holds at most (characters of the game page's rules section)
MAX_RULES_CHARS = 6000
#: characters of each raw answer kept in the telemetry (the rest is cut, and the full length recorded)
MAX_ANSWER_CHARS = 4000
#: characters of an answer the parser reads (a longer answer is parsed from its last characters)
MAX_PARSE_CHARS = 20000

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

RETHINK = ("Your answer could not be played: {reason}. Answer again with exactly one legal move "
           "(its id alone, or its words exactly as listed, or {{\"action\": <id>}}).")


@dataclass
class Reply:
    """An answer and what the server counted (``None`` where it did not say)."""

    text: str
    tokens_in: int | None = None
    tokens_out: int | None = None


class AskError(RuntimeError):
    """The ``ask`` callable failed for good (e.g. the server kept answering HTTP 429 after its retries)."""


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


def _norm(text: str) -> str:
    return " ".join(str(text).strip().strip("`'\".").lower().split())


@dataclass
class Parsed:
    """What an answer names: ``action`` (a legal id) or ``None`` with ``reason``; ``illegal`` is True when
    the answer named a real move that is not legal now (as opposed to naming nothing)."""

    action: int | None
    reason: str = ""
    illegal: bool = False


def parse_answer(answer: str, legal: list, num_actions: int) -> Parsed:
    """The move an answer names, among ``legal`` (dicts ``{"action", "text"}`` of the view).

    Tried in order, on the whole answer and then on its last non-empty line: a JSON object with
    ``action``/``move``/``id`` (an id or words), ``move: X`` / ``action: X`` / ``answer: X``, a bare id,
    and a legal move's words (case and spacing ignored)."""
    if answer is None or not str(answer).strip():
        return Parsed(None, "the answer was empty")
    text = str(answer)
    if len(text) > MAX_PARSE_CHARS:
        text = text[-MAX_PARSE_CHARS:]
    by_id = {int(x["action"]): x["text"] for x in legal}
    by_words = {_norm(x["text"]): int(x["action"]) for x in legal}
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    candidates = [text.strip()] + ([lines[-1].strip()] if len(lines) > 1 else [])

    def one(value):
        """A candidate value (str or int) -> Parsed or None (names nothing)."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            if value in by_id:
                return Parsed(value)
            if 0 <= value < num_actions:
                return Parsed(None, f"move {value} is not legal now", illegal=True)
            return Parsed(None, f"{value} is not a move id (ids are 0..{num_actions - 1})", illegal=True)
        if not isinstance(value, str):
            return None
        s = value.strip()
        if re.fullmatch(r"[#]?-?\d+[.]?", s.strip("`'\"*")):
            return one(int(s.strip("`'\"*#.")))
        w = _norm(s)
        if w in by_words:
            return Parsed(by_words[w])
        return None

    for cand in candidates:
        m = re.search(r"\{.*\}", cand, flags=re.S)
        if m:
            try:
                obj = json.loads(m.group(0))
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict):
                for key in ("action", "move", "id"):
                    if key in obj:
                        got = one(obj[key])
                        if got is not None:
                            return got
                        return Parsed(None, f"the JSON object's {key!r} ({str(obj[key])[:80]!r}) is not a legal "
                                            "move's id or words", illegal=False)
        m = re.fullmatch(r"\**\s*(?:final\s+)?(?:move|action|answer)\s*[:=]\s*\**\s*(.+?)\s*\**", cand,
                         flags=re.I | re.S)
        if m:
            got = one(m.group(1))
            if got is not None:
                return got
            return Parsed(None, f"{m.group(1)[:80]!r} is not a legal move's id or words")
        got = one(cand)
        if got is not None:
            return got
    short = text.strip().replace("\n", " ")
    short = short[:80] + ("..." if len(short) > 80 else "")
    return Parsed(None, f"{short!r} names no legal move (neither an id, nor a move's words, nor a JSON object "
                        "with \"action\")")


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
        seed: seed of the generator of the ``"random"`` fallback.
        name: the player's name in tables and records.
        rules_text: the rules summary (default: from the game's page, followed by the players and the
            options that differ from the defaults, `options_text`).
        info: extra JSON-able facts about the player written in records (model, server...).
        history: ``"recent"`` (the moves since the seat's last turn) or ``"full"`` (the whole public
            history, compacted to at most `MAX_HISTORY_CHARS` characters, the newest moves kept).
    """

    text_player = True

    def __init__(self, game, rules, ask, template: str = DEFAULT_TEMPLATE, list_moves: bool = True,
                 fallback: str = "random", seed: int = 0, name: str = "text", rules_text: str | None = None,
                 info: dict | None = None, history: str = "recent"):
        if not (callable(ask) or callable(getattr(ask, "chat", None))):
            raise TypeError(f"ask must be a callable prompt -> answer or have chat(messages), got {ask!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}")
        if not isinstance(list_moves, bool):
            raise ValueError(f"list_moves must be True or False, got {list_moves!r}")
        if history not in HISTORIES:
            raise ValueError(f"history must be one of {', '.join(HISTORIES)}, got {history!r}")
        self.history = history
        self.game, self.rules, self.ask = game, rules, ask
        self.template = check_template(template)
        self.list_moves, self.fallback, self.name = list_moves, fallback, str(name)
        self.seed = int(seed)
        self._rng = np.random.default_rng(self.seed)
        if rules_text is None:
            rules_text = game_rules_text(game) + "\n\n" + options_text(rules)
        self.rules_text = str(rules_text)
        self.info = dict(info or {})
        self.reset_stats()

    def __repr__(self):
        return f"TextPlayer({self.name!r}, game={self.game.name!r}, fallback={self.fallback!r})"

    def __str__(self):
        return self.name

    # ------------------------------------------------------------------------------------- statistics
    def reset_stats(self):
        """Zero the counts `stats` reports."""
        self.counts = {"decisions": 0, "answers": 0, "parse_errors": 0, "illegal": 0, "rethinks": 0,
                       "fallbacks": 0, "forfeits": 0, "errors": 0, "latency_s": 0.0, "tokens_in": 0,
                       "tokens_out": 0, "tokens_reported": 0}

    def stats(self, since: dict | None = None) -> dict:
        """Totals over every decision since the last `reset_stats` (or since ``since``, a copy of
        ``counts`` taken earlier): ``decisions``, ``answers`` (answers
        received), ``invalid`` (answers that named no legal move: ``parse_errors`` + ``illegal``),
        ``illegal_rate`` (invalid / answers), ``fallbacks`` (decisions settled by the fallback),
        ``forfeits``, ``errors`` (failed asks), ``mean_latency_ms`` (per decision, every ask of it), and
        ``tokens_in``/``tokens_out`` (``None`` when the server never reported them)."""
        c = {k: v - (since or {}).get(k, 0) for k, v in self.counts.items()}
        invalid = c["parse_errors"] + c["illegal"]
        out = {k: c[k] for k in ("decisions", "answers", "parse_errors", "illegal", "rethinks", "fallbacks",
                                 "forfeits", "errors")}
        out["invalid"] = invalid
        out["illegal_rate"] = round(invalid / c["answers"], 4) if c["answers"] else None
        out["mean_latency_ms"] = round(1000 * c["latency_s"] / c["decisions"], 2) if c["decisions"] else None
        reported = c["tokens_reported"] > 0
        out["tokens_in"] = c["tokens_in"] if reported else None
        out["tokens_out"] = c["tokens_out"] if reported else None
        return out

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
            answer = ANSWER_FORMAT_LISTED
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
    def _ask(self, messages: list):
        """One answer to the conversation ``messages``: ``(text, tokens_in, tokens_out)``."""
        if callable(getattr(self.ask, "chat", None)):
            got = self.ask.chat(messages)
        else:
            text = messages[0]["content"]
            for m in messages[1:]:
                who = "Your answer" if m["role"] == "assistant" else "Message"
                text += f"\n\n# {who}\n{m['content']}"
            got = self.ask(text)
        if isinstance(got, Reply):
            return got.text, got.tokens_in, got.tokens_out
        if isinstance(got, str):
            return got, None, None
        if got is None:
            return "", None, None
        raise TypeError(f"the text player's ask returned a {type(got).__name__}, not a string")

    def decide(self, view: dict, moves: list | None = None) -> tuple:
        """``(action, telemetry)`` for the seat of ``view`` (which must be the seat to act): ``action``
        is a legal id, or ``None`` when the player forfeits. ``telemetry`` is JSON-able: ``prompt_sha256``,
        ``answers`` (the raw answers, each cut at `MAX_ANSWER_CHARS`), ``move`` (the parsed id),
        ``attempts``, ``parse_errors``, ``illegal``, ``reasons``, ``fallback`` (``None`` or the fallback
        taken), ``error`` (a failed ask), ``latency_ms``, ``tokens_in``, ``tokens_out``."""
        legal = view["legal"]
        if not legal:
            raise ValueError(f"view of seat {view['viewer']} has no legal move: it is not this seat's turn")
        prompt = self.prompt(view, moves)
        messages = [{"role": "user", "content": prompt}]
        tel = {"prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest(), "answers": [], "move": None,
               "attempts": 0, "parse_errors": 0, "illegal": 0, "reasons": [], "fallback": None, "error": None,
               "latency_ms": 0.0, "tokens_in": None, "tokens_out": None}
        c = self.counts
        c["decisions"] += 1
        action = None
        spent = 0.0
        for attempt in range(2):
            tel["attempts"] += 1
            t0 = time.perf_counter()
            try:
                text, tin, tout = self._ask(messages)
            except Exception as exc:  # noqa: BLE001 - a client's failure ends the decision, never the game
                spent += time.perf_counter() - t0
                tel["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                c["errors"] += 1
                break
            spent += time.perf_counter() - t0
            c["answers"] += 1
            if tin is not None or tout is not None:
                c["tokens_reported"] += 1
                tel["tokens_in"] = (tel["tokens_in"] or 0) + int(tin or 0)
                tel["tokens_out"] = (tel["tokens_out"] or 0) + int(tout or 0)
                c["tokens_in"] += int(tin or 0)
                c["tokens_out"] += int(tout or 0)
            shown = text if len(text) <= MAX_ANSWER_CHARS else text[:MAX_ANSWER_CHARS] + f"... [{len(text)} chars]"
            tel["answers"].append(shown)
            got = parse_answer(text, legal, self.game.num_actions)
            if got.action is not None:
                action = got.action
                break
            tel["illegal" if got.illegal else "parse_errors"] += 1
            c["illegal" if got.illegal else "parse_errors"] += 1
            tel["reasons"].append(got.reason)
            if attempt == 0:
                c["rethinks"] += 1
                messages += [{"role": "assistant", "content": text[:MAX_PARSE_CHARS]},
                             {"role": "user", "content": RETHINK.format(reason=got.reason)}]
        tel["latency_ms"] = round(1000 * spent, 3)
        c["latency_s"] += spent
        if action is None:
            tel["fallback"] = self.fallback
            c["fallbacks"] += 1
            ids = sorted(int(x["action"]) for x in legal)
            if self.fallback == "first":
                action = ids[0]
            elif self.fallback == "random":
                action = int(self._rng.choice(ids))
            else:
                c["forfeits"] += 1
        tel["move"] = action
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
                         "template_sha256": hashlib.sha256(self.template.encode()).hexdigest(), **self.info}}


def is_text_player(player) -> bool:
    """Whether ``player`` decides from views in text (drivers then give it the move log)."""
    return getattr(player, "text_player", False) is True and callable(getattr(player, "decide", None))


__all__ = ["AskError", "DEFAULT_TEMPLATE", "FALLBACKS", "HISTORIES", "History", "MAX_HISTORY_CHARS", "Parsed", "Reply",
           "TABLE_GUIDE", "TEMPLATE_FIELDS", "TextPlayer", "check_template", "game_rules_text", "history_text",
           "is_text_player", "moves_for", "options_text", "parse_answer", "rules_summary", "table_json", "theirs"]
