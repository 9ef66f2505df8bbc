"""Reading a move from an answer as language models write it: one parser for the text harness
(`cardgym.agents.text.TextPlayer`) and for any tool that takes a move in text (``cardgym mcp``'s ``play``).

[`read_answer`][cardgym.agents.answers.read_answer] takes the answer and the legal moves (``{"action": id,
"text": words}``) and returns an [`Answer`][cardgym.agents.answers.Answer]: the move, or the failure
(``empty``, ``unparsable`` or ``illegal``) with a reason a person (or the model, in a rethink) can act on.

**Reasoning is never read for a move.** `split_reasoning` takes out ``<think>...</think>``,
``<thinking>``, ``<reasoning>``, ``<reflection>``, ``<thought>`` blocks (a block that is never closed
runs to the end; text before a lone closing tag is reasoning too): what it takes out is the decision's
``thoughts``, kept in the telemetry; the rest, the *final answer*, alone decides.

**The rule that decides.** The final answer is read in this order, and the first place that names a
move (legal or not) decides; a move only *mentioned* elsewhere is never played:

1. the whole final answer;
2. the last code block, when the answer ends with it;
3. the last non-empty line;
4. the last clause of that line (after its last ``,``, ``;``, ``.``, ``!`` or ``?``): ``not 3, I play 8``
   is 8, while ``I play 8, not 3`` names nothing and is unparsable;
5. the last explicit mark anywhere in the final answer: a JSON object with ``action``, ``move``, ``id`` or
   ``choice``, or a line ``move: X`` (``action:``, ``answer:``, ``final answer:``, ``my move:``);
6. the first line, when it names a move as a whole (an answer that gives its move, then explains it).

Each place is read leniently: code fences and backticks, emphasis (``**x**``, ``_x_``), quotes and a
trailing period are dropped; case and spacing do not matter; ``my`` reads as ``your``; a lead such as
``move:``, ``Move #``, ``I play``, ``I will``, ``I'll go with``, ``My move is``, ``The answer is`` is
dropped. A place names a move when it is: an id (``8``); a legal move's words as listed; the listed line
copied whole (``12: replace position 0 (row 0, col 0), the 10, with the drawn 0``: the id and its words
must agree; ``1. First, ...`` is a numbered list, not move 1); a JSON object as above (the value an id or words); a move's plain name
(``game.action_to_str``, given as ``names``).

**Illegal, not unparsable.** An id that is not legal now (or not an id of the game at all), a move's
plain name that is not legal now, and words shaped like a legal move's words but with other cards or
piles (``play the 5 from your hand on build pile 2`` when only the 3 can be played) name a move that
cannot be played now: outcome ``illegal``. Words that name nothing are ``unparsable``; an answer with
nothing but reasoning (or nothing at all) is ``empty``.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field

#: the outcomes `read_answer` gives (a decision adds ``truncated`` and ``server``: `cardgym.agents.text`)
ANSWER_OUTCOMES = ("ok", "empty", "unparsable", "illegal")
#: characters of an answer the parser reads (a longer final answer is read from its last characters)
MAX_PARSE_CHARS = 20000
#: characters of the thoughts kept per answer (the rest is cut, its length said)
MAX_THOUGHT_CHARS = 4000

_TAGS = ("think", "thinking", "reasoning", "reflection", "thought")
_TAG = re.compile(r"<(/?)(%s)>" % "|".join(_TAGS), re.I)
_KEYS = ("action", "move", "id", "choice", "action_id", "move_id")
_LABEL = r"(?:(?:my\s+|the\s+|final\s+|chosen\s+|best\s+)*(?:move|action|answer|choice)(?:\s+id)?)"
_MARK = re.compile(r"^\W*" + _LABEL + r"\s*[:=]\s*(.+?)\s*$", re.I | re.M)
_CONNECT = re.compile(r"^(?:(?:so|then|therefore|thus|hence|and|finally|okay|ok|well|now)\b\s*,?\s*)+", re.I)
_LABEL_LEAD = re.compile(r"^(?:" + _LABEL + r")\b\s*(?:[:=#-]|is\b|will be\b)?\s*(?:move\b\s*)?#?\s*", re.I)
_SUBJECT = re.compile(r"^(?:i|we)\b\s*(?:(?:will|shall|would|am going to|choose to|decide to|want to)\b|'ll|’ll|'d|'m going to)?"
                      r"\s*", re.I)
_LET = re.compile(r"^(?:let\s+me|let's|let’s)\s+", re.I)
_VERB = re.compile(r"^(?:play|choose|pick|select|go\s+with|make|do|take)\b\s*(?:(?:move|action|id)\b\s*)?#?\s*", re.I)
_DIGITS = re.compile(r"\d+")


@dataclass
class Answer:
    """What an answer names.

    ``action``: the legal move's id, or ``None``; ``outcome``: ``ok``, ``empty``, ``unparsable`` or
    ``illegal``; ``reason``: why it is not ``ok`` (said to the model in the rethink); ``thoughts``: the
    reasoning taken out of the answer (never read for a move); ``final``: the final answer read."""

    action: int | None
    outcome: str = "ok"
    reason: str = ""
    thoughts: str = ""
    final: str = ""
    candidates: list = field(default_factory=list, repr=False)

    @property
    def illegal(self) -> bool:
        """Whether the answer named a move that cannot be played now (outcome ``illegal``)."""
        return self.outcome == "illegal"


def split_reasoning(text: str) -> tuple:
    """``(thoughts, final)`` of an answer: reasoning blocks (``<think>`` and the like, see the module)
    taken out and joined as ``thoughts``; ``final`` is what is left, stripped. One pass over the tags: a
    block never closed runs to the end, and the text before a closing tag that opens nothing is reasoning."""
    text = "" if text is None else str(text)
    thoughts, final, pos, open_tag, start = [], [], 0, None, 0
    for m in _TAG.finditer(text):
        closing, name = m.group(1) == "/", m.group(2).lower()
        if not closing and open_tag is None:
            final.append(text[pos:m.start()])
            open_tag, start = name, m.end()
        elif closing and open_tag == name:
            thoughts.append(text[start:m.start()])
            open_tag, pos = None, m.end()
        elif closing and open_tag is None:  # "reasoning ... </think> answer": the opening tag was the template's
            thoughts.append("".join(final) + text[pos:m.start()])
            final, pos = [], m.end()
    if open_tag is not None:
        thoughts.append(text[start:])
    else:
        final.append(text[pos:])
    return "\n\n".join(t.strip() for t in thoughts if t.strip()), "".join(final).strip()


_MY = re.compile(r"\bmy\b")


def _norm(text: str) -> str:
    s = str(text).replace("’", "'").replace("“", '"').replace("”", '"').lower()
    if "my" in s:
        s = _MY.sub("your", s)
    return " ".join(s.split())


def _skeleton(words: str) -> str:
    return _DIGITS.sub("#", _norm(words))


@functools.lru_cache(maxsize=64)
def _name_index(names: tuple) -> dict:
    """Normalized plain name -> id (the first id of a name), built once per list of names."""
    out = {}
    for a, w in enumerate(names):
        if w:
            out.setdefault(_norm(w), a)
    return out


def _unwrap(s: str) -> str:
    """A place's text without fences, emphasis, quotes and a trailing period."""
    s = s.strip()
    s = re.sub(r"^```[\w+-]*\s*|\s*```$", "", s).strip()
    for _ in range(4):
        before = s
        s = s.strip().strip("`").strip()
        s = re.sub(r"^(\*\*|__|\*|_)(.+?)\1(?=\W*$)", r"\2", s, flags=re.S).strip()
        s = re.sub(r"^(\*\*|__)(.+?)\1\s*", r"\2 ", s).strip()  # "**Move:** 8"
        s = s.strip("\"'“”‘’").strip()
        s = re.sub(r"[.!;,]+$", "", s).strip()
        if s == before:
            break
    return s.strip()


class _Moves:
    """The moves an answer may name: the legal ones by id and words, every move by its plain name (the
    indexes are built on first use: most answers are an id)."""

    def __init__(self, legal, num_actions, names):
        self.by_id = {}
        for x in legal:
            a, w = (x["action"], x["text"]) if isinstance(x, dict) else x
            self.by_id.setdefault(int(a), str(w))
        self.num_actions = num_actions
        self._names = tuple(names) if names else ()
        self._by_words = self._skeletons = None

    @property
    def by_words(self) -> dict:
        if self._by_words is None:
            self._by_words = {}
            for a, w in self.by_id.items():
                self._by_words.setdefault(_norm(w), a)
        return self._by_words

    def of_id(self, a: int):
        if a in self.by_id:
            return Answer(a)
        if self.num_actions is not None and not 0 <= a < self.num_actions:
            return Answer(None, "illegal", f"{a} is not a move id (ids are 0..{self.num_actions - 1})")
        return Answer(None, "illegal", f"move {a} is not legal now")

    def of_words(self, s: str):
        w = _norm(s)
        if w in self.by_words:
            return Answer(self.by_words[w])
        names = _name_index(self._names) if self._names else {}
        if w in names:
            a = names[w]
            return Answer(a) if a in self.by_id else Answer(None, "illegal", f"{s[:80]!r} is not legal now")
        if self._skeletons is None:
            self._skeletons = {_skeleton(x) for x in self.by_id.values()}
        if _DIGITS.sub("#", w) in self._skeletons:
            return Answer(None, "illegal", f"{s[:80]!r} is not one of the legal moves now")
        return None


def _value(moves: _Moves, v):
    """A JSON value (an id, or words) -> Answer or None."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return moves.of_id(v)
    if isinstance(v, float) and v.is_integer():
        return moves.of_id(int(v))
    if isinstance(v, str):
        return _place(moves, v, json_ok=False)
    return None


def _json_objects(text: str):
    """Every JSON object in ``text`` (outermost first found from the left), as dicts."""
    dec = json.JSONDecoder()
    out, i = [], 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return out
        try:
            obj, end = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
            i += 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        i = end


def _from_object(moves: _Moves, obj: dict):
    for key in _KEYS:
        for k in obj:
            if isinstance(k, str) and k.lower() == key:
                got = _value(moves, obj[k])
                if got is not None:
                    return got
                return Answer(None, "unparsable", f"the JSON object's {k!r} ({str(obj[k])[:80]!r}) is not a "
                                                  "move's id or words")
    return None


def _variants(s: str):
    """``s``, then ``s`` without its lead (``so,``, ``move:``, ``I will``, ``I play``, ``let me play``)."""
    seen = []

    def add(x):
        x = _unwrap(x)
        if x and x not in seen:
            seen.append(x)

    s = _CONNECT.sub("", s).strip() or s
    add(s)
    for lead in (_LABEL_LEAD, _VERB):
        m = lead.match(s)
        if m and m.end() < len(s):
            add(s[m.end():])
    m = _SUBJECT.match(s) or _LET.match(s)
    if m and m.end() and m.end() < len(s):
        rest = s[m.end():]
        add(rest)
        v = _VERB.match(rest)
        if v and v.end() < len(rest):
            add(rest[v.end():])
    return seen


def _one(moves: _Moves, s: str):
    """One cleaned text: an id, a move's words or name, or the listed line ``id: words`` -> Answer or None."""
    m = re.fullmatch(r"#?\s*(-?\d+)", s)
    if m:
        return moves.of_id(int(m.group(1)))
    got = moves.of_words(s)
    if got is not None:
        return got
    m = (re.fullmatch(r"\(?#?(\d+)\)?\s*[:.)\]-]\s*(.+)", s)  # the listed line "12: words" copied whole
         or re.fullmatch(r"#?(\d+)\s*\((.+)\)", s))  # "12 (words)"
    if m:  # only when the words name a move: "1. First, ..." is a numbered list, not move 1
        a, words = int(m.group(1)), _unwrap(m.group(2))
        named = moves.of_words(words)
        if named is None:
            return None
        if named.action == a:
            return moves.of_id(a)
        return Answer(None, "unparsable", f"{s[:80]!r}: the id {a} and the words name different moves")
    return None


def _place(moves: _Moves, text: str, json_ok: bool = True):
    """One place of the answer (see the module's rule) -> Answer (a move, or an illegal one) or None."""
    s = _unwrap(text)
    if not s:
        return None
    if json_ok and s.startswith("{") and s.endswith("}"):
        objs = _json_objects(s)
        if objs:
            got = _from_object(moves, objs[0])
            if got is not None:
                return got
    for v in _variants(s):
        got = _one(moves, v)
        if got is not None:
            return got
    return None


def read_answer(text, legal, num_actions: int | None = None, names=None, reasoning: str | None = None) -> Answer:
    """The move an answer names among ``legal`` (dicts ``{"action": id, "text": words}``, or ``(id,
    words)`` pairs), by the rule of this module.

    Args:
        text: the answer as the model wrote it (reasoning blocks included: they are taken out).
        legal: the legal moves now.
        num_actions: the game's number of actions (an id outside ``0..num_actions-1`` is said to be no
            move id); ``None``: any id that is not legal is "not legal now".
        names: optional plain names of every action, by id (``game.action_to_str``): naming one that is
            legal plays it, one that is not is ``illegal``.
        reasoning: reasoning the server gave apart (a ``reasoning_content`` field): kept in ``thoughts``.
    """
    thoughts, final = split_reasoning(text) if "<" in str(text or "") else ("", str(text or "").strip())
    if reasoning:
        thoughts = (str(reasoning).strip() + ("\n\n" + thoughts if thoughts else "")).strip()
    if len(thoughts) > MAX_THOUGHT_CHARS:
        thoughts = thoughts[:MAX_THOUGHT_CHARS] + f"... [{len(thoughts)} chars]"
    if not final:
        why = "the answer held only reasoning, no final answer" if thoughts else "the answer was empty"
        return Answer(None, "empty", why, thoughts, final)
    if len(final) > MAX_PARSE_CHARS:
        final = final[-MAX_PARSE_CHARS:]
    moves = _Moves(legal, num_actions, names)
    if final.isascii() and final.isdigit():  # the usual answer: an id alone
        return _done(moves.of_id(int(final)), thoughts, final)
    places = [final]
    fences = list(re.finditer(r"```[\w+-]*\s*\n?(.*?)```", final, flags=re.S))
    if fences and not final[fences[-1].end():].strip():
        places.append(fences[-1].group(1))
    lines = [ln for ln in final.splitlines() if ln.strip() and not re.fullmatch(r"\s*```[\w+-]*\s*", ln)]
    if lines:
        places.append(lines[-1])
        clauses = re.split(r"(?<=[,;.!?])\s+", _unwrap(lines[-1]))
        if len(clauses) > 1:
            places.append(clauses[-1])
    for place in places:
        got = _place(moves, place)
        if got is not None:
            return _done(got, thoughts, final)
    marks = []  # the explicit marks, in the order they stand
    for obj_m in _json_marks(final):
        marks.append(obj_m)
    for m in _MARK.finditer(final):
        marks.append((m.start(), m.group(1)))
    for _, what in sorted(marks, key=lambda t: t[0], reverse=True)[:1]:
        got = _from_object(moves, what) if isinstance(what, dict) else _place(moves, what)
        if got is not None:
            return _done(got, thoughts, final)
        return _done(Answer(None, "unparsable", f"the marked move {str(what)[:80]!r} is not a move's id or words"),
                     thoughts, final)
    if len(lines) > 1:
        got = _place(moves, lines[0])
        if got is not None:
            return _done(got, thoughts, final)
    short = " ".join(final.split())
    short = short[:80] + ("..." if len(short) > 80 else "")
    return _done(Answer(None, "unparsable", f"{short!r} names no move (neither an id alone, nor a move's words, "
                                            "nor a last line 'move: <id>', nor {\"action\": <id>})"), thoughts, final)


def _json_marks(text: str):
    """``(position, object)`` of every JSON object in ``text`` with one of the move keys."""
    dec = json.JSONDecoder()
    i = 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return
        try:
            obj, end = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
            i += 1
            continue
        if isinstance(obj, dict) and any(isinstance(k, str) and k.lower() in _KEYS for k in obj):
            yield i, obj
        i = end


def _done(got: Answer, thoughts: str, final: str) -> Answer:
    got.thoughts, got.final = thoughts, final
    return got


def tool_schema(legal, name: str = "play_move") -> dict:
    """The one function (OpenAI ``tools`` format) that offers the legal moves: its argument ``action`` is
    an enum of their ids, and its description lists each id with its words."""
    listed = "; ".join(f"{int(x['action'])}: {x['text']}" for x in legal)
    return {"type": "function", "function": {
        "name": name,
        "description": f"Play one of your legal moves. The legal moves (id: move): {listed}",
        "parameters": {"type": "object", "properties": {"action": {
            "type": "integer", "enum": [int(x["action"]) for x in legal],
            "description": "the id of the move to play"}}, "required": ["action"]}}}


def read_tool_calls(calls, legal, num_actions: int | None = None, names=None, reasoning: str | None = None) -> Answer:
    """The move named by tool calls (``[{"name", "arguments"}]``, ``arguments`` a JSON string): each call's
    arguments are read as an answer by `read_answer`; calls that name different moves are unparsable."""
    if not calls:
        return read_answer("", legal, num_actions, names, reasoning)
    got = [read_answer(str(c.get("arguments") or ""), legal, num_actions, names, reasoning) for c in calls]
    picks = {g.action for g in got if g.outcome == "ok"}
    if len(picks) > 1:
        return Answer(None, "unparsable", f"{len(calls)} tool calls name different moves {sorted(picks)}; call "
                                          "play_move once", got[0].thoughts, got[0].final)
    return next((g for g in got if g.outcome == "ok"), got[-1])


__all__ = ["ANSWER_OUTCOMES", "Answer", "MAX_PARSE_CHARS", "MAX_THOUGHT_CHARS", "read_answer", "read_tool_calls",
           "split_reasoning", "tool_schema"]
