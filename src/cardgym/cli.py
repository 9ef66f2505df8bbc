"""The ``cardgym`` command: play against bots in the terminal, evaluate bots, read the rules,
measure speed, train agents. ``cardgym COMMAND --help`` lists every flag with its default;
``cardgym play GAME --help`` adds the bots and rule options of that game."""

from __future__ import annotations

import argparse
import json
import os
import sys

import cardgym

from .cli_options import HelpFormatter, add_rule_options, flag, games_epilog, rule_defaults
from .docs_pages import clean_markdown, render_markdown, rules_markdown

USAGE = """commands:
  cardgym play GAME [--vs BOT] [--num-players N] [--seat N] [--seed S] [RULE OPTIONS]
  cardgym eval GAME --bots A,B[,C...] [--num-players N] [--games N] [--seed S] [--json] [RULE OPTIONS]
  cardgym rules GAME
  cardgym bench [--seconds S]
  cardgym train GAME [OPTIONS]
  cardgym new-game NAME [--dir DIR]

Rule options are the game's Rules fields written --like-this with a value: numbers, true/false, none
or text (--players is another name of --num-players). cardgym play GAME --help lists them.

examples:
{examples}"""


def _examples() -> str:
    """The help's example lines, for the first game of the registry (the CLI names no game itself)."""
    g = next(iter(cardgym.GAMES), "GAME")
    return "".join(f"  cardgym {line}\n" for line in (
        f"play {g} --vs greedy", f"eval {g} --bots random,greedy --games 2000", f"rules {g}",
        f"train {g} --steps 1e6 --out runs/{g}"))


USAGE = USAGE.format(examples=_examples())


def _game(name):
    try:
        return cardgym.get_game(name)
    except ValueError as exc:
        raise SystemExit(f"cardgym: {exc}") from None


def _options(args, game, extra) -> dict:
    """The rule options given on the command line (a clear error for anything unknown)."""
    if extra:
        key = extra[0]
        allowed = ", ".join(flag(n) for n in rule_defaults(game.rules_cls))
        if not key.startswith("-"):
            raise SystemExit(f"cardgym: unexpected argument {key!r}; rule options look like --stock-size 10")
        raise SystemExit(f"cardgym: unknown option {key} for {game.name}; options: {allowed}")
    return {k: getattr(args, k) for k in rule_defaults(game.rules_cls) if hasattr(args, k)}


def _table(rows: list, header: list, right=()) -> str:
    """Rows of strings as a text table, each column as wide as its widest cell."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    out = []
    for row in [header] + rows:
        out.append("  ".join(str(x).rjust(w) if k in right else str(x).ljust(w)
                             for k, (x, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(out)


def cmd_eval(args, extra):
    from . import eval as ev

    game = _game(args.game)
    options = _options(args, game, extra)
    num_players = options.pop("num_players", 2)
    bots = [b for b in args.bots.split(",") if b]
    try:
        result = ev.tournament(game, bots, num_players=num_players, games=args.games, seed=args.seed,
                               progress=not args.json and sys.stderr.isatty(), **options)
    except (ValueError, TypeError) as exc:
        raise SystemExit(f"cardgym: {exc}") from None
    except ImportError as exc:  # a model file without torch installed
        raise SystemExit(f"cardgym eval: {exc}") from None
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{game.title}, {num_players} players, {args.games} duplicate games per pair, seed {args.seed}")
    rows = []
    for r in result["pairs"]:
        lo, hi = r["ci95"]
        rows.append([r["a"], r["b"], r["games"], f"{r['a_win_rate']:.1%}", f"[{lo:.1%}, {hi:.1%}]", r["draws"],
                     f"{r['games_per_second']:,.0f}"])
    print(_table(rows, ["a", "b", "games", "a win rate", "95% CI", "draws", "games/s"], right=(2, 3, 4, 5, 6)))
    if result["ratings"] is None and result["multiplayer"] is not None:
        print(f"(a plays one seat against {num_players - 1} seats of b: parity is {1 / num_players:.0%})")
        multi = result["multiplayer"]
        print(f"ratings (Plackett-Luce, openskill; {multi['games']} games of line-ups of all bots on "
              f"{num_players} seats, 95% interval mu +- 1.96 sigma):")
        print(f"{'player':>12} {'mu':>7} {'sigma':>6} {'95% interval':>17} {'mean rank':>10}")
        for name, r in sorted(multi["ratings"].items(), key=lambda kv: -kv[1]["mu"]):
            lo, hi = r["ci95"]
            print(f"{name:>12} {r['mu']:>7.2f} {r['sigma']:>6.2f} {f'[{lo:.2f}, {hi:.2f}]':>17} "
                  f"{multi['mean_rank'][name]:>10.2f}")
        return
    print("ratings (Elo scale, Bradley-Terry):",
          ", ".join(f"{k} {v:+.0f}" for k, v in sorted(result["ratings"].items(), key=lambda kv: -kv[1])))


def cmd_rules(args, extra):
    game = _game(args.game)
    if extra:
        raise SystemExit(f"cardgym rules: unexpected argument {extra[0]!r}")
    if args.raw:
        sys.stdout.write(rules_markdown(game))
        return
    text = clean_markdown(rules_markdown(game))
    if not sys.stdout.isatty() or args.no_pager:
        sys.stdout.write(render_markdown(text, width=args.width))
        return
    from rich.console import Console
    from rich.markdown import Markdown

    os.environ.setdefault("LESS", "-RFX")  # colours through less; quit at once when it fits
    console = Console()
    with console.pager(styles=True):
        console.print(Markdown(text, hyperlinks=False))


def cmd_play(args, extra):
    from .play import play_terminal

    game = _game(args.game)
    options = _options(args, game, extra)
    num_players = options.pop("num_players", 2)
    try:
        play_terminal(game, vs=args.vs, num_players=num_players, seat=args.seat, seed=args.seed, **options)
    except (ValueError, TypeError) as exc:
        raise SystemExit(f"cardgym: {exc}") from None
    except ImportError as exc:  # a model file without torch installed
        raise SystemExit(f"cardgym play: {exc}") from None


def cmd_new_game(args, extra):
    from .kit.new_game import new_game

    if extra:
        raise SystemExit(f"cardgym new-game: unexpected argument {extra[0]!r}")
    try:
        out = new_game(args.name, args.dir)
    except ValueError as exc:
        raise SystemExit(f"cardgym new-game: {exc}") from None
    print(f"wrote {out}: pip install -e {out} && python -m pytest {out / 'tests'}")


def cmd_bench(args, extra):
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"
    if not script.exists():
        raise SystemExit("cardgym bench runs benchmarks/throughput.py from a source checkout")
    sys.argv = ["cardgym bench"] + extra
    runpy.run_path(str(script), run_name="__main__")


def _game_in(argv) -> str | None:
    """The GAME argument of ``cardgym COMMAND GAME ...`` if there is one (to add its rule options)."""
    for tok in argv[1:]:
        if tok in cardgym.GAMES:
            return tok
    return None


def build_parser(argv=()) -> argparse.ArgumentParser:
    """The parser of every command but ``train``; with a game in ``argv``, its rule options are flags."""
    ap = argparse.ArgumentParser(prog="cardgym", description="cardgym: card-game RL environments",
                                 formatter_class=HelpFormatter, epilog=USAGE)
    sub = ap.add_subparsers(dest="command", required=True, metavar="{play,eval,rules,bench,train,new-game}")
    games = sorted(cardgym.GAMES)
    name = _game_in(argv)
    game = cardgym.get_game(name) if name else None
    bots = f" ({', '.join(game.bots)})" if game else ""
    epilog = None if game else games_epilog()

    def command(cmd, **kw):
        return sub.add_parser(cmd, formatter_class=HelpFormatter, allow_abbrev=False, epilog=epilog, **kw)

    p = command("play", help="play against bots in the terminal", description=(
        "Play one game against bots in the terminal: type the number of a move (h for help, q to quit)."))
    p.add_argument("game", choices=games)
    p.add_argument("--vs", default="greedy", metavar="BOT", help=f"bot{bots}, agent (the trained agent shipped with cardgym) or model file for every other seat")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 plays first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default: a fresh random deal)")
    p.set_defaults(func=cmd_play)

    e = command("eval", help="duplicate matches and ratings of bots or saved policies", description=(
        "Duplicate matches: every deal is played once per seat rotation; 95% Wilson intervals.".replace("%", "%%")))
    e.add_argument("game", choices=games)
    e.add_argument("--bots", required=True, metavar="A,B[,C...]", help=f"comma-separated bots{bots}, agent (the shipped trained agent) or model files")
    e.add_argument("--games", type=int, default=2000, help="games per pair, and of line-ups for the "
                   "multi-player ratings with 3 or more players (rounded up to whole rotations)")
    e.add_argument("--seed", type=int, default=0, help="seed of the first deal")
    e.add_argument("--json", action="store_true", help="print the results as JSON")
    e.set_defaults(func=cmd_eval)
    if game:
        add_rule_options(p, game)
        add_rule_options(e, game)

    r = command("rules", help="the rules as implemented (a pager in a terminal)")
    r.add_argument("game", choices=games)
    r.add_argument("--raw", action="store_true", help="print the Markdown source")
    r.add_argument("--no-pager", action="store_true", help="print without a pager")
    r.add_argument("--width", type=int, default=100, help="text width when not printing to a terminal")
    r.set_defaults(func=cmd_rules)

    # every flag, --help included, goes to the script (cardgym bench --help shows its flags)
    b = sub.add_parser("bench", help="benchmarks/throughput.py (from a source checkout)", add_help=False)
    b.set_defaults(func=cmd_bench)

    sub.add_parser("train", help="train an agent (cardgym train --help)", add_help=False)

    n = sub.add_parser("new-game", help="write the package of a new game (docs/api.md, 'Adding a game')",
                       formatter_class=HelpFormatter, allow_abbrev=False, description=(
                           "Write an installable package for a new game: pyproject.toml with the cardgym.games "
                           "entry point, the game folder in the fixed shape, tests calling "
                           "cardgym.testing.check_game."))
    n.add_argument("name", metavar="NAME", help="the game's name, a lowercase Python identifier")
    n.add_argument("--dir", default=None, help="where to write it (default ./cardgym-NAME; must be new or empty)")
    n.set_defaults(func=cmd_new_game)
    return ap


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train":
        from .train import main as train_main

        return train_main(argv[1:])
    args, extra = build_parser(argv).parse_known_args(argv)
    return args.func(args, extra)


if __name__ == "__main__":
    sys.exit(main())
