"""Every ``cardgym ...`` command line written in README.md, docs/*.md and the ``--help`` epilogs runs as
written (in-process through ``cardgym.cli.main``, stdout captured).

Budgets, honestly: ``rules`` and ``play`` run as written (``play`` reads a scripted ``q`` from stdin
after showing the table and the moves); ``eval`` runs as written except that ``--games`` is lowered to
8 (the command parses, validates every bot and rule option and plays real games); ``train`` is only
parsed into the trainer's Config and its rule options validated against the game (training takes
minutes); ``bench`` is only parsed. Lines with placeholders (``GAME``, ``[--players N]``...) are
synopses, not commands, and are skipped.
"""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest

import cardgym
from cardgym.cli import USAGE, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = ("play", "eval", "rules", "train", "bench")


def _commands_in(text: str) -> list:
    """``cardgym ...`` command lines of a text: inline code spans and lines of code blocks / epilogs."""
    found = []
    for m in re.finditer(r"`(cardgym (?:%s)\b[^`]*)`" % "|".join(SUBCOMMANDS), text):
        found.append(" ".join(m.group(1).split()))
    for line in text.splitlines():
        m = re.match(r"\s*(?:\$\s*)?(?:time\s+)?(cardgym (?:%s)\b.*)" % "|".join(SUBCOMMANDS), line)
        if m:
            found.append(m.group(1).split("  #")[0].split(" # ")[0].strip().rstrip("`").strip())
    return found


def _is_synopsis(cmd: str) -> bool:
    """A usage line with placeholders (GAME, N, [--json], A,B[,C...], ...) or a command named in prose
    (``cardgym eval --bots``: no game) rather than a command."""
    toks = cmd.split()
    if toks[1] != "bench" and (len(toks) < 3 or toks[2] not in cardgym.GAMES):
        return True
    return any(ch in cmd for ch in "[]{}") or any(re.fullmatch(r"[A-Z][A-Z_,.]*", tok) for tok in toks)


def documented_commands() -> list:
    """``(where, command)`` for every runnable command line of the README, docs pages and epilogs."""
    sources = [("README.md", (ROOT / "README.md").read_text())]
    sources += [(f"docs/{p.name}", p.read_text()) for p in sorted((ROOT / "docs").glob("*.md"))]
    sources.append(("cardgym --help", USAGE))
    from cardgym.train.cli import build_parser as train_parser

    sources.append(("cardgym train --help", train_parser().epilog))
    out, seen = [], set()
    for where, text in sources:
        for cmd in _commands_in(text):
            if cmd not in seen and not _is_synopsis(cmd):
                seen.add(cmd)
                out.append((where, cmd))
    return out


COMMANDS = documented_commands()


def test_the_documented_commands_were_found():
    subs = {cmd.split()[1] for _, cmd in COMMANDS}
    assert {"play", "eval", "rules", "train"} <= subs, subs
    assert any("--teams true --num-players 4" in cmd for _, cmd in COMMANDS)  # the help's own example


def _budget(argv: list) -> list:
    """eval: ``--games`` lowered to 8."""
    argv = list(argv)
    if argv[0] == "eval":
        if "--games" in argv:
            argv[argv.index("--games") + 1] = "8"
        else:
            argv += ["--games", "8"]
    return argv


@pytest.mark.parametrize("where,cmd", COMMANDS, ids=[c for _, c in COMMANDS])
def test_documented_command_runs(where, cmd, capsys, monkeypatch, tmp_path):
    argv = shlex.split(cmd)[1:]
    sub = argv[0]
    if sub == "train":
        from cardgym.train.cli import config_from_args

        monkeypatch.chdir(tmp_path)
        if "--init" in argv:  # the docs name the model a command continues (OLD.pt, RUN14.pt): a stand-in file
            model = tmp_path / argv[argv.index("--init") + 1]
            model.parent.mkdir(parents=True, exist_ok=True)
            model.touch()
        cfg, _ = config_from_args(argv[1:])
        cardgym.get_game(cfg.game).make_rules(**cfg.rules)  # the rule options are valid for the game
        return
    if sub == "bench":
        args, extra = build_parser(argv).parse_known_args(argv)
        assert args.func.__name__ == "cmd_bench"
        return
    # commands that name a file of the repository (examples/pimc.py:Player) run from its root, as documented
    names_a_file = any(a.split(":")[0].endswith(".py") for a in ",".join(argv).split(","))
    monkeypatch.chdir(ROOT if names_a_file else tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    main(_budget(argv))
    out = capsys.readouterr().out
    if sub == "play":
        assert "Your moves:" in out and "you left the game" in out, out[-2000:]
    elif sub == "eval":
        assert ('"pairs"' in out) if "--json" in argv else ("duplicate games per pair" in out), out
    else:
        assert len(out) > 1000


@pytest.mark.subprocess
@pytest.mark.parametrize("script", ["quickstart.py", "sb3_maskable_ppo.py", "torchrl_ppo.py"])
def test_example_help_explains_every_flag(script):
    """Every flag of the training examples has a help text and shows its default."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--help"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.split("options:", 1)[1]
    entries = re.split(r"\n  (?=-)", text)[1:]  # one entry per option
    assert len(entries) >= 8
    for entry in entries:
        words = " ".join(entry.split())
        flags = words.split()[0]
        assert len(words.split()) > 2, f"{script}: {flags} has no help"
        if not flags.startswith("-h"):
            assert "default" in words, f"{script}: {flags} shows no default"
