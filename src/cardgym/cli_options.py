"""Command-line pieces shared by ``cardgym`` (`cardgym.cli`) and ``cardgym train`` (`cardgym.train`):
help formatting and a game's rule options as ``--flags``."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import textwrap

import cardgym


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
    """``{option: description}`` from the ``- ``name``: text`` list of a Rules class docstring."""
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
    return {k: plain(v) for k, v in out.items()}


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
        text = helps.get(name, "").replace("%", "%%")
        kwargs = dict(dest=name, default=argparse.SUPPRESS, metavar=metavar,
                      help=f"{text} (default: {_show(default)})")
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
        game = cardgym.get_game(name)
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
