"""Command-line pieces shared by ``cardgym`` (`cardgym.cli`) and ``cardgym train`` (`cardgym.train`):
help formatting and a game's rule options as ``--flags``."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import re
import textwrap

import cardgym

from cardgym.core.state.rules import HELP


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps descriptions and epilogs as written and adds ``(default: X)`` to every option whose help
    does not already say what its default is."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.default in (argparse.SUPPRESS, None) or not action.option_strings:
            return text
        if action.nargs == 0 and action.default is False:  # a plain switch
            return text
        return f"{text} (default: %(default)s)"


def plain(text: str) -> str:
    """Docstring markup as plain text: ``[`x`][ref]`` -> ``x``, double or single backticks removed."""
    text = re.sub(r"\[`?([^\]`]+)`?\]\[[^\]]*\]", r"\1", text)
    return re.sub(r"`+([^`]*)`+", r"\1", text)


def option_help(rules_cls) -> dict:
    """``{option: description}`` of a Rules class, as plain text: each option's help given beside it
    (``kit.option(default, help)``, the field's metadata); an option declared without it falls back to
    its item in the ``- ``name``: text`` list of the class docstring (how games written before
    ``option`` existed, the Blackjack example among them, describe their options)."""
    out = _docstring_help(rules_cls)
    for f in dataclasses.fields(rules_cls):
        text = f.metadata.get(HELP)
        if text:
            out[f.name] = text
    return {k: plain(v) for k, v in out.items()}


def _docstring_help(rules_cls) -> dict:
    """``{option: text}`` from the ``- ``name``: text`` list of a Rules class docstring."""
    out: dict = {}
    cur = None
    for line in (inspect.getdoc(rules_cls) or "").splitlines():
        m = re.match(r"\s*- ``(\w+)``:\s*(.*)", line)
        if m:
            cur = m.group(1)
            out[cur] = m.group(2)
        elif cur and line.startswith("  ") and line.strip():
            out[cur] += " " + line.strip()
        else:
            cur = None
    return out


def rule_defaults(rules_cls) -> dict:
    """``{option: default}`` of a Rules dataclass (its fields, in order)."""
    out = {}
    for f in dataclasses.fields(rules_cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:  # pragma: no cover - no game uses one
            out[f.name] = f.default_factory()
        else:  # pragma: no cover
            out[f.name] = None
    return out


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _show(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def with_default(text: str, default: str) -> str:
    """An option's help with ``(default: X)`` added, unless its description already states its default
    (a Rules docstring's "(default 3000)"); ``%`` escaped for argparse."""
    text = text.strip()
    if "(default" not in text:
        text = f"{text} (default: {default})" if text else f"(default: {default})"
    return text.replace("%", "%%")


def add_rule_options(parser, game, exclude=(), action=None):
    """One ``--option VALUE`` per rule option of ``game`` (``--num-players`` also as ``--players``), with
    its description and default; given values land in ``args.<option>`` (absent when not given)."""
    group = parser.add_argument_group(
        f"rule options of {game.title} (cardgym rules {game.name} explains them)",
        "values are numbers, true/false, none or text")
    helps = option_help(game.rules_cls)
    types = {f.name: str(getattr(f.type, "__name__", f.type)) for f in dataclasses.fields(game.rules_cls)}
    for name, default in rule_defaults(game.rules_cls).items():
        if name in exclude:
            continue
        flags = [flag(name)] + (["--players"] if name == "num_players" else [])
        metavar = {"bool": "true|false", "int": "N"}.get(types[name], "VALUE")
        kwargs = dict(dest=name, default=argparse.SUPPRESS, metavar=metavar,
                      help=with_default(helps.get(name, ""), _show(default)))
        if action is None:
            kwargs["type"] = literal
        else:
            kwargs["action"] = action
        group.add_argument(*flags, **kwargs)
    return group


def games_epilog(names=None) -> str:
    """Each game's bots and rule options (for the help of a command given no game)."""
    lines = ["games, their bots and rule options (cardgym COMMAND GAME --help describes each option):"]
    for name in names or sorted(cardgym.GAMES):
        try:
            game = cardgym.get_game(name)
        except cardgym.registry.BrokenGame:  # listed with its error, one line; the other games work
            lines.append(f"  {name}: broken, {cardgym.registry.broken()[name].split(': ', 1)[1]}")
            continue
        opts = [flag(n) for n in rule_defaults(game.rules_cls)]
        lines.append(f"  {name}: bots {', '.join(game.bots)}")
        lines += textwrap.wrap("options " + ", ".join(opts), 96, initial_indent="    ",
                               subsequent_indent="      ", break_on_hyphens=False)
    return "\n".join(lines)


def literal(text: str):
    """A rule option's value from the command line: true/false/yes/no/on/off, none, int, float or text."""
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low == "none":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


# ---------------------------------------------------------------------------------------- validators
# argparse ``type=`` functions shared by every command (``cardgym play/eval/rules``, ``cardgym train``,
# the examples): a bad value stops the parse with argparse's one-line "argument --FLAG: ..." error,
# before anything runs. Hand-written because argparse has no range types and the messages must name
# the allowed range.

#: seeds are stored as int64 by the envs (``0 .. 2**63 - 1``)
SEED_MAX = 2**63 - 1


class Parser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose errors are one line (``PROG: error: MESSAGE (PROG --help
    lists every flag)``) instead of the usage block followed by the message."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help lists every flag)\n")


def _range(lo, hi) -> str:
    if hi is None:
        return f">= {lo:g}" if isinstance(lo, float) else f">= {lo}"
    return f"{lo:g}..{hi:g}" if isinstance(lo, float) or isinstance(hi, float) else f"{lo}..{hi}"


def integer(lo: int, hi: int | None = None):
    """An integer written in decimal, ``lo <= value <= hi`` (``hi=None``: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer {_range(lo, hi)}, got {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be an integer {_range(lo, hi)}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def _finite(text: str, msg: str, ok) -> float:
    """``float(text)`` if it is finite and ``ok(value)``, else an argparse error with ``msg``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(msg) from None
    if not math.isfinite(value) or not ok(value):
        raise argparse.ArgumentTypeError(msg)
    return value


def amount(lo: int, hi: int | None = None):
    """A whole number that may be written in float notation (``1e6``, ``2.5e5``), ``lo..hi``."""

    def parse(text: str) -> int:
        value = _finite(text, f"must be a whole number {_range(lo, hi)} (e.g. 1e6), got {text!r}",
                        lambda v: v.is_integer() and v >= lo and (hi is None or v <= hi))
        return int(value)

    parse.__name__ = "amount"
    return parse


def real(lo: float, hi: float | None = None, lo_open: bool = False):
    """A finite number, ``lo <= value <= hi`` (``lo < value`` with ``lo_open``)."""
    where = (f"> {lo:g}" if hi is None else f"in ({lo:g}, {hi:g}]") if lo_open else _range(float(lo), hi)

    def parse(text: str) -> float:
        return _finite(text, f"must be a finite number {where}, got {text!r}",
                       lambda v: v >= lo and not (lo_open and v == lo) and (hi is None or v <= hi))

    parse.__name__ = "real"
    return parse


#: a seed: ``0 .. 2**63 - 1``
seed = integer(0, SEED_MAX)


def text(what: str = "a value"):
    """Any non-empty text (a name, a folder)."""

    def parse(value: str) -> str:
        if not value.strip():
            raise argparse.ArgumentTypeError(f"must be {what}, got an empty string")
        return value

    parse.__name__ = "text"
    return parse


def sizes(lo: int = 1, hi: int = 8192):
    """Comma-separated integers (``256,256``), each ``lo..hi``, at least one."""

    def parse(value: str) -> tuple:
        msg = f"must be comma-separated integers {lo}..{hi} (e.g. 256,256), got {value!r}"
        parts = [p.strip() for p in value.split(",")]
        try:
            out = tuple(int(p) for p in parts)
        except ValueError:
            raise argparse.ArgumentTypeError(msg) from None
        if not out or any(not lo <= v <= hi for v in out):
            raise argparse.ArgumentTypeError(msg)
        return out

    parse.__name__ = "sizes"
    return parse


def existing_path(value: str) -> str:
    """A file or folder that exists."""
    import os

    if not value.strip() or not os.path.exists(value):
        raise argparse.ArgumentTypeError(f"no such file or folder: {value!r}")
    return value


def _name_max(folder) -> int:
    import os

    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):  # pragma: no cover - not a POSIX system
        return 255


def output_problem(path, kind: str = "file") -> str | None:
    """Why ``path`` cannot be written as a command's output (``kind``: ``"file"``, or ``"folder"``,
    created with its parents if missing), or None. Checked before the work starts: a folder given as a
    file (or a file as a folder), a missing or non-folder parent of a file, a name longer than the
    file system takes, a place nobody may write (tried by creating and removing a file there)."""
    import os
    import tempfile
    from pathlib import Path

    p = Path(path)
    limit = _name_max(".")
    for part in p.parts:
        if len(os.fsencode(part)) > limit:
            return f"the name {part[:40]}... is {len(os.fsencode(part))} bytes long; the file system takes at most {limit}"
    if kind == "file" and p.is_dir():
        return f"{path} is a folder; give a file name"
    if kind == "folder" and p.exists() and not p.is_dir():
        return f"{path} is a file, not a folder"
    existing = p if kind == "folder" else p.parent
    while not existing.exists() and existing != existing.parent and kind == "folder":
        existing = existing.parent
    here = existing if str(existing) else Path(".")
    if not here.exists():
        return f"the folder of {path} ({here}) does not exist"
    if not here.is_dir():
        return f"{here} is not a folder, so {path} cannot be written"
    try:
        if kind == "file" and p.exists():
            with open(p, "ab"):
                pass
        elif kind == "file":
            with open(p, "xb"):
                pass
            p.unlink()
        else:
            with tempfile.TemporaryFile(dir=here):
                pass
    except OSError as exc:
        return f"{path} cannot be written: {exc.strerror or exc}"
    return None


def check_output(parser, flag_name: str, path, kind: str = "file") -> None:
    """`output_problem` as the parser's one-line error (exit code 2)."""
    if path is not None:
        problem = output_problem(path, kind)
        if problem is not None:
            parser.error(f"argument {flag_name}: {problem}")


class writing:
    """``with writing(prog, path):`` a failed write (a full device, a path gone meanwhile) ends the
    command with one line and exit code 2 instead of a traceback."""

    def __init__(self, prog: str, path):
        self.prog, self.path = prog, path

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, OSError):
            import sys

            print(f"{self.prog}: error: could not write {self.path}: {exc.strerror or exc}", file=sys.stderr)
            raise SystemExit(2) from None
        return False


def key_value(value: str) -> str:
    """``KEY=VALUE`` with a non-empty key."""
    key, sep, _ = value.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"must look like KEY=VALUE (e.g. num_players=3), got {value!r}")
    return value


def check_rules(parser, game, options: dict, spelling: dict | None = None):
    """The game's `Rules` from ``options``, or ``parser.error`` naming the flag of the option the rules
    refuse (``spelling``: option -> the flag it was given as, default ``--option-name``)."""
    spelling = spelling or {}
    known = game.rules_cls.option_names()
    for name in options:
        if name not in known:
            parser.error(f"argument {spelling.get(name, flag(name))}: {game.name} has no rule option {name!r}; "
                         f"options: {', '.join(known)}")
    try:
        return game.make_rules(**options)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        m = re.search(r"option (\w+)", msg)
        name = m.group(1) if m and m.group(1) in options else None
        parser.error(f"argument {spelling.get(name, flag(name))}: {msg}" if name else msg)


def check_seat(parser, seat: int, num_players: int, name: str = "--seat"):
    """``parser.error`` unless ``0 <= seat < num_players``."""
    if not 0 <= seat < num_players:
        parser.error(f"argument {name}: must be a seat 0..{num_players - 1} for {num_players} players, got {seat}")


def check_players(parser, game, names, name: str, extra=(), python_players: bool = False):
    """``parser.error`` unless every name is one of the game's bots, one of ``extra`` or an existing file
    (a saved model); with ``python_players`` also ``FILE.py:NAME`` (an existing file) or ``module:NAME``
    (a Python player, `cardgym.eval.batch.load_python_player`, which checks the rest when it loads it)."""
    import os
    import re

    allowed = list(game.bots) + list(extra)
    for n in names:
        if n in allowed or os.path.isfile(n):
            continue
        where, _, attr = n.rpartition(":")
        if python_players and attr.isidentifier() and (
                (where.endswith(".py") and os.path.isfile(where)) or re.fullmatch(r"[A-Za-z_][\w.]*", where)):
            continue
        also = ", a Python player FILE.py:NAME or module:NAME" if python_players else ""
        parser.error(f"argument {name}: {n!r} is neither a bot of {game.name} ({', '.join(allowed)}){also} "
                     f"nor a model file")


def url(value: str) -> str:
    """An ``http://`` or ``https://`` URL with a host (a server's API root)."""
    import re

    if not re.fullmatch(r"https?://[^\s/?#]+(/\S*)?", value.strip()):
        raise argparse.ArgumentTypeError(f"must be an http:// or https:// URL such as http://127.0.0.1:8000/v1, "
                                         f"got {value!r}")
    return value.strip()


def env_name(value: str) -> str:
    """The name of an environment variable (letters, digits and _, not starting with a digit)."""
    import re

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise argparse.ArgumentTypeError(f"must name an environment variable (letters, digits, _), got {value!r}")
    return value


#: the flags of the text players (``llm`` and ``text:...``) and their defaults
LLM_DEFAULTS = {"llm_base_url": None, "llm_model": None, "llm_key_env": "OPENAI_API_KEY", "llm_temperature": 0.0,
                "llm_max_tokens": 512, "llm_timeout": 60.0, "llm_retries": 2, "llm_fallback": "random",
                "llm_moves": "list", "llm_template": None, "llm_seed": 0, "llm_history": "recent", "llm_mode": "text",
                "llm_deadline": None, "llm_max_server_failures": 0.1}


def add_llm_options(parser):
    """The flags of text players: the ``llm`` player's OpenAI-compatible server and every text player's
    prompt and fallback (docs/llm_agents.md)."""
    g = parser.add_argument_group("text players (llm: an OpenAI-compatible server; text:FILE.py:NAME: a Python "
                                  "function prompt -> answer)")
    g.add_argument("--llm-base-url", type=url, default=None, metavar="URL",
                   help="the server's API root, e.g. http://127.0.0.1:8000/v1 (needed by the llm player)")
    g.add_argument("--llm-model", type=text("a model name"), default=None, metavar="NAME",
                   help="the model the server serves (needed by the llm player)")
    g.add_argument("--llm-key-env", type=env_name, default="OPENAI_API_KEY", metavar="VAR",
                   help="the environment variable holding the API key (unset: none is sent)")
    g.add_argument("--llm-temperature", type=real(0, 2), default=0.0, help="sampling temperature")
    g.add_argument("--llm-max-tokens", type=integer(1, 1_000_000), default=512, help="most tokens of an answer")
    g.add_argument("--llm-timeout", type=real(0, 3600, lo_open=True), default=60.0,
                   help="seconds a request may take before it is retried")
    g.add_argument("--llm-retries", type=integer(0, 20), default=2,
                   help="retries of a request after a timeout, a connection error, HTTP 408/409/429/5xx or a body "
                        "without an answer")
    g.add_argument("--llm-fallback", choices=["forfeit", "random", "first"], default="random",
                   help="what a decision falls back to after an unusable answer and its rethink")
    g.add_argument("--llm-moves", choices=["list", "hide"], default="list",
                   help="list the legal moves in the prompt, or leave them out")
    g.add_argument("--llm-history", choices=["recent", "full"], default="recent",
                   help="the moves in the prompt: those since the player's last turn, or the whole public "
                        "history (compacted: the newest moves kept)")
    g.add_argument("--llm-template", type=existing_path, default=None, metavar="FILE",
                   help="a prompt template file (str.format fields; docs/llm_agents.md)")
    g.add_argument("--llm-seed", type=seed, default=0, help="seed of the random fallback")
    g.add_argument("--llm-mode", choices=["text", "tools"], default="text",
                   help="text: the model answers in text; tools: the legal moves are one function it calls (llm only)")
    g.add_argument("--llm-deadline", type=real(0, 86400, lo_open=True), default=None, metavar="S",
                   help="seconds one decision may take, every retry and rethink included (default: no limit)")
    g.add_argument("--llm-max-server-failures", type=real(0, 1), default=0.1, metavar="SHARE",
                   help="the share of decisions that may end in server failures before the run stops "
                        "without a rating (default 0.1)")


def check_text_players(parser, args_ns, names, name: str) -> list:
    """The names among ``names`` that are text players (``llm``, ``text:FILE.py:NAME``, ``text:module:NAME``),
    each checked: ``llm`` needs ``--llm-base-url`` and ``--llm-model``; ``--llm-template`` must be a usable
    template. ``parser.error`` naming the flag otherwise."""
    import os

    found = []
    for n in names:
        if n == "llm":
            missing = [f for f, k in (("--llm-base-url", "llm_base_url"), ("--llm-model", "llm_model"))
                       if getattr(args_ns, k) is None]
            if missing:
                parser.error(f"argument {name}: the player 'llm' needs {' and '.join(missing)}")
            found.append(n)
        elif n.startswith("text:"):
            where, _, attr = n[5:].rpartition(":")
            ok = os.path.isfile(where) if where.endswith(".py") else re.fullmatch(r"[A-Za-z_][\w.]*", where)
            if not attr.isidentifier() or not ok:
                parser.error(f"argument {name}: a text player is text:FILE.py:NAME (an existing file) or "
                             f"text:module:NAME, got {n!r}")
            found.append(n)
    if getattr(args_ns, "llm_mode", "text") == "tools":
        if args_ns.llm_moves != "list":
            parser.error("argument --llm-mode: tools offers the legal moves in the function's schema; it needs "
                         "--llm-moves list")
        if any(n != "llm" for n in found):
            parser.error(f"argument --llm-mode: tools is for the llm player (a server's tool calls), not "
                         f"{next(n for n in found if n != 'llm')!r}")
    if args_ns.llm_template is not None:
        from cardgym.agents.text import check_template

        try:
            with open(args_ns.llm_template, encoding="utf-8") as f:
                check_template(f.read())
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            parser.error(f"argument --llm-template: {exc}")
    if not found:
        given = [flag(k) for k, v in LLM_DEFAULTS.items() if getattr(args_ns, k) != v]
        if given:
            parser.error(f"argument {given[0]}: no text player (llm or text:...) among the players of {name}")
    return found
