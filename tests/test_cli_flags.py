"""Every flag of every ``cardgym`` command is checked when it is parsed.

The parsers are introspected (``cardgym play/eval/rules`` with each game's rule options, ``cardgym
train``, ``cardgym bench``), so a new flag is covered without editing this file: it gets the generic
hostile values (no value may end in a traceback: either it is accepted or it is refused with argparse's
exit code 2 and a one-line message naming the flag), and `REFUSE` must list values it refuses (a flag
missing from `REFUSE` fails `test_every_flag_has_values_it_refuses`)."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

import cardgym
from cardgym import cli
from cardgym.app.options import rule_defaults
from cardgym.train.cli import build_parser as train_parser, config_from_args
from conftest import load_file

BUILTIN = cardgym.registry.names(builtin=True)
ROOT = Path(__file__).resolve().parents[1]

#: values thrown at every flag: each must be accepted or refused cleanly
HOSTILE = ["", " ", "0", "-1", "7", "9", "1.5", "nan", "inf", "-inf", "1e400", "99999999999999999999999",
           "-99999999999999999999999", "abc", "x=y", ",", "random", "a:b", "none", "true"]

#: values the text players' flags (``cardgym eval`` and ``cardgym ladder``) must refuse
LLM_REFUSE = {"--llm-base-url": ["", "x", "ftp://host/v1", "http://"], "--llm-model": ["", " "],
              "--llm-key-env": ["", "1KEY", "A-B"], "--llm-temperature": ["-1", "nan", "2.5"],
              "--llm-max-tokens": ["0", "-1", "x"], "--llm-timeout": ["0", "-1", "nan", "inf"],
              "--llm-retries": ["-1", "21", "x"], "--llm-fallback": ["", "retry"], "--llm-moves": ["", "all"],
              "--llm-history": ["", "all"],
              "--llm-template": ["", "no/such/template.txt"], "--llm-seed": ["-1", "x"],
              "--llm-mode": ["", "tool"], "--llm-deadline": ["0", "-1", "nan"],
              "--llm-max-server-failures": ["-0.1", "1.5", "x"]}
#: values the run flags of ``cardgym eval`` and ``cardgym ladder`` must refuse (the players parsed are bots:
#: --concurrency and --resume apply to text players only)
RUN_REFUSE = {"--concurrency": ["0", "-1", "1025", "x", "2"], "--resume": ["", " ", "no/such/run"],
              "--price-in": ["-1", "nan", "inf", "x"], "--price-out": ["-1", "nan", "inf", "x"]}

#: values each command's flags must refuse (rule options: `RULE_BAD`)
REFUSE = {
    "play": {"--vs": ["", "nobody"], "--seat": ["-1", "7", "x"], "--seed": ["-1", "99999999999999999999999", "x"],
             "--record": ["", " ", "/proc/cardgym.jsonl"]},
    "eval": {"--bots": ["", "random", "random,", "random,nobody"], "--games": ["0", "-1", "10000001", "x"],
             "--seed": ["-1", "99999999999999999999999", "1.5"],
             "--record": ["", " "], "--record-games": ["0", "-1", "x"], **LLM_REFUSE, **RUN_REFUSE},
    "ladder": {"--player": ["", "nobody", "text:no/such/file.py:f"], "--deals": ["0", "-1", "100001", "x"],
               "--record": ["", " "], "--format": ["", "fast"], **LLM_REFUSE, **RUN_REFUSE},
    "mcp": {"--max-games": ["0", "-1", "100000"], "--expire": ["0", "-1", "nan", "inf"],
            "--keep-finished": ["-1", "x", "100001"], "--port": ["-1", "65536", "x"], "--host": ["", " "],
            "--allow-host": ["", " "], "--max-clients": ["0", "-1", "x", "10001"]},
    "rules": {"--width": ["0", "-1", "x", "100000"]},
    "warmup": {"--jobs": ["0", "-1", "x", "1.5", "100000"]},
    "replay": {"--seat": ["-1", "x"], "--gif": ["", " ", "/proc/cardgym.gif"], "--fps": ["0", "-1", "nan", "inf", "61"]},
    "serve": {"--port": ["0", "-1", "65536", "x"], "--host": ["", " "], "--model": ["", " "],
              "--record": ["", "no/such/record.jsonl"], "--max-games": ["0", "-1", "100000"],
              "--expire": ["0", "-1", "nan", "inf"], "--pace": ["-1", "nan", "inf", "11"], "--idle": ["0", "-1", "nan", "x"],
              "--allow-host": ["", " "], **LLM_REFUSE},
    "bench": {"--seconds": ["0", "-1", "nan", "inf"], "--rounds": ["0", "-1", "x"], "--num-envs": ["0", "-1", "9999999"],
              "--games": ["", "nogame", "skyjo,"], "--json": ["", "/proc/cardgym.json"]},
    "train": {
        "--steps": ["0", "-1", "nan", "inf", "1.5", "x"], "--out": ["", " ", "/proc/cardgym-out"], "--seed": ["-1", "99999999999999999999999"],
        "--envs": ["0", "-1", "100000000"], "--rollout": ["0", "-1", "100000"], "--epochs": ["0", "-1"],
        "--minibatch": ["0", "-1"], "--lr": ["0", "-1", "inf", "nan", "2"], "--ent-coef": ["-1", "nan", "inf"],
        "--gamma": ["nan", "-0.1", "1.5", "inf"], "--hidden": ["", "0", "a,b", "64,-1"],
        "--opponents": ["", "nobody:1", "greedy:-1", "greedy:nan", "greedy:0", ","],
        "--pool-size": ["0", "-1"], "--snapshot-every": ["0", "-1"], "--seat": ["7", "-1", "x"],
        "--num-players": ["0", "1", "9", "-1", "x"], "--rule": ["x", "=1", "nope=1", "num_players=9"],
        "--reward": ["x"], "--reward-scale": ["0", "-1", "nan", "inf"], "--win-bonus": ["-1", "nan", "inf"],
        "--imitate": ["nobody"], "--imitate-coef": ["-1", "nan", "inf"], "--imitate-steps": ["-1", "nan", "1.5"],
        "--init": ["", "no/such/model.pt"], "--pretrain-steps": ["-1", "nan", "inf"],
        "--pretrain-epochs": ["0", "-1"], "--pretrain-minibatch": ["0", "-1"], "--eval-every": ["-1", "x"],
        "--eval-games": ["0", "-1", "10000001"], "--final-eval-games": ["0", "-1"],
        "--checkpoint-every": ["0", "-1"], "--threads": ["0", "-1", "1000"],
    },
}
#: values every rule option refuses (no option takes any text, none takes an integer that large)
RULE_BAD = ["nope", "-99999999999"]


def _bench():
    return load_file(ROOT / "benchmarks" / "throughput.py", "_throughput")


BENCH = _bench()


def _flags(parser) -> dict:
    """``{first option string: action}`` of the flags that take a value, subparsers' positionals aside."""
    return {a.option_strings[0]: a for a in parser._actions
            if a.option_strings and a.nargs != 0 and not isinstance(a, argparse._HelpAction)}


def _commands():
    """``(command, game, parse(values) -> None, {flag: action}, rule option flags)`` of every command."""
    def rule_flags(games):
        return {"--num-players" if n == "num_players" else "--" + n.replace("_", "-")
                for g in games for n in rule_defaults(cardgym.get_game(g).rules_cls)}

    out = []
    for game in BUILTIN:
        rules = rule_flags([game])
        for cmd, base in (("play", []), ("eval", ["--bots", "random,greedy"]), ("rules", [])):
            parser = cli.build_parser([cmd, game])
            sub = parser._subparsers._group_actions[0].choices[cmd]
            argv0 = [cmd, game, *base]
            out.append((cmd, game, lambda extra, argv0=argv0: cli.parse(argv0 + extra), _flags(sub),
                        rules if cmd != "rules" else set()))
        out.append(("train", game, lambda extra, game=game: config_from_args([game, *extra]),
                    _flags(train_parser()), rule_flags(cardgym.GAMES) - {"--num-players", "--reward"}))
        parser = cli.build_parser(["ladder", game])
        sub = parser._subparsers._group_actions[0].choices["ladder"]
        out.append(("ladder", game, lambda extra, game=game: cli.parse(["ladder", game, "--player", "random", *extra]),
                    _flags(sub), set()))
    for cmd, argv0 in (("replay", ["replay", str(ROOT / "README.md")]), ("serve", ["serve"]), ("mcp", ["mcp"]), ("warmup", ["warmup"])):
        sub = cli.build_parser([cmd])._subparsers._group_actions[0].choices[cmd]
        out.append((cmd, None, lambda extra, argv0=argv0: cli.parse(argv0 + extra), _flags(sub), set()))
    out.append(("bench", None, lambda extra: BENCH.parse(extra), _flags(BENCH.build_parser()), set()))
    return out


COMMANDS = _commands()


def _run(parse, argv):
    """``(exit code or None, stderr)`` of parsing ``argv``; any exception but SystemExit fails the test."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            parse(argv)
        except SystemExit as exc:
            return exc.code, err.getvalue()
    return None, err.getvalue()


def _assert_clean_refusal(code, err, action, argv):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, (argv, code, err)
    assert len(lines) == 1, (argv, err)
    assert "Traceback" not in err
    assert any(f in lines[0] for f in action.option_strings), (argv, lines[0])


@pytest.mark.parametrize("cmd, game, parse, flags, rules", COMMANDS, ids=[f"{c[0]}-{c[1]}" for c in COMMANDS])
def test_hostile_values_never_end_in_a_traceback(cmd, game, parse, flags, rules):
    for name, action in flags.items():
        for value in HOSTILE:
            argv = [name, value]
            code, err = _run(parse, argv)
            if code is not None:
                _assert_clean_refusal(code, err, action, argv)


def test_every_flag_has_values_it_refuses():
    for cmd, game, parse, flags, rules in COMMANDS:
        missing = set(flags) - set(REFUSE[cmd]) - rules
        assert not missing, f"cardgym {cmd} {game}: list values {sorted(missing)} refuse in REFUSE"


@pytest.mark.parametrize("cmd, game, parse, flags, rules", COMMANDS, ids=[f"{c[0]}-{c[1]}" for c in COMMANDS])
def test_bad_values_are_refused_naming_the_flag(cmd, game, parse, flags, rules):
    for name, action in flags.items():
        for value in RULE_BAD if name in rules else REFUSE[cmd][name]:
            argv = [name, value]
            code, err = _run(parse, argv)
            _assert_clean_refusal(code, err, action, argv)


def test_good_values_still_parse():
    cfg, _ = config_from_args(["skyjo", "--steps", "1e6", "--seat", "1", "--num-players", "3", "--seed", str(2**63 - 1),
                               "--hidden", "64,32", "--opponents", "greedy:1,self:0", "--imitate", "", "--pretrain-steps",
                               "0", "--max-rounds", "5"])
    assert (cfg.total_steps, cfg.seat, cfg.rules["num_players"], cfg.hidden, cfg.rules["max_rounds"]) == (
        10**6, "1", 3, (64, 32), 5)
    args, _ = cli.parse(["eval", "skipbo", "--bots", "random,greedy", "--seed", "0", "--players", "4"])
    assert args.options == {"num_players": 4} and args.seed == 0
    args, _ = cli.parse(["play", "skyjo", "--seat", "2", "--players", "3", "--vs", "agent"])
    assert args.seat == 2


def test_rule_option_help_states_its_default_once():
    text = " ".join(cli.build_parser(["play", "skipbo"])._subparsers._group_actions[0]
                    .choices["play"].format_help().split())
    assert "(default 3000)." in text and "(default 3000). (default: 3000)" not in text
    assert "(default: 3000)" not in " ".join(train_parser().format_help().split())
