"""The ``cardgym`` command: play against bots in the terminal, evaluate bots, read the rules,
measure speed, train agents.

    cardgym eval GAME --bots A,B[,C...] [--players N] [--games N] [--seed S] [--json] [RULE OPTIONS]
    cardgym play GAME [--vs BOT] [--players N] [--seat N] [--seed S] [RULE OPTIONS]
    cardgym rules GAME
    cardgym bench [--seconds S]
    cardgym train GAME [...]          (see ``cardgym train --help``)

Rule options are given as ``--option value`` with the names of the game's rules (for example
``cardgym play skipbo --teams true --num-players 4``); values are parsed as Python literals
(numbers, true/false, none) or taken as text.
"""

from __future__ import annotations

import argparse
import json
import sys

import cardgym

USAGE = __doc__


def parse_rule_options(game, extra: list) -> dict:
    """``["--stock-size", "10", "--teams", "true"]`` -> ``{"stock_size": 10, "teams": True}``."""
    names = game.rules_cls.option_names()
    out = {}
    i = 0
    while i < len(extra):
        key = extra[i]
        if not key.startswith("--"):
            raise SystemExit(f"cardgym: unexpected argument {key!r}; rule options look like --stock-size 10")
        name = key[2:].replace("-", "_")
        if name not in names:
            raise SystemExit(f"cardgym: unknown option {key} for {game.name}; options: "
                             + ", ".join("--" + n.replace("_", "-") for n in names))
        if i + 1 >= len(extra):
            raise SystemExit(f"cardgym: option {key} needs a value")
        out[name] = _literal(extra[i + 1])
        i += 2
    return out


def _literal(text: str):
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


def _game(name):
    try:
        return cardgym.get_game(name)
    except ValueError as exc:
        raise SystemExit(f"cardgym: {exc}") from None


def cmd_eval(args, extra):
    from . import eval as ev

    game = _game(args.game)
    options = parse_rule_options(game, extra)
    bots = [b for b in args.bots.split(",") if b]
    try:
        result = ev.tournament(game, bots, num_players=args.players, games=args.games, seed=args.seed,
                               progress=not args.json and sys.stderr.isatty(), **options)
    except ValueError as exc:
        raise SystemExit(f"cardgym: {exc}") from None
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{game.title}, {args.players} players, {args.games} duplicate games per pair, seed {args.seed}")
    print(f"{'a':>12} {'b':>12} {'games':>7} {'a win rate':>11} {'95% CI':>17} {'draws':>7} {'games/s':>9}")
    for r in result["pairs"]:
        lo, hi = r["ci95"]
        print(f"{r['a']:>12} {r['b']:>12} {r['games']:>7} {r['a_win_rate']:>11.1%} "
              f"{f'[{lo:.1%}, {hi:.1%}]':>17} {r['draws']:>7} {r['games_per_second']:>9,.0f}")
    if result["ratings"] is None:
        print(f"(a plays one seat against {args.players - 1} seats of b: parity is {1 / args.players:.0%})")
        multi = result["multiplayer"]
        print(f"ratings (Plackett-Luce, openskill; {multi['games']} games of line-ups of all bots on "
              f"{args.players} seats, 95% interval mu +- 1.96 sigma):")
        print(f"{'player':>12} {'mu':>7} {'sigma':>6} {'95% interval':>17} {'mean rank':>10}")
        for name, r in sorted(multi["ratings"].items(), key=lambda kv: -kv[1]["mu"]):
            lo, hi = r["ci95"]
            print(f"{name:>12} {r['mu']:>7.2f} {r['sigma']:>6.2f} {f'[{lo:.2f}, {hi:.2f}]':>17} "
                  f"{multi['mean_rank'][name]:>10.2f}")
        return
    print("ratings (Elo scale, Bradley-Terry):",
          ", ".join(f"{k} {v:+.0f}" for k, v in sorted(result["ratings"].items(), key=lambda kv: -kv[1])))


def rules_text(game) -> str:
    """The game's documentation page (rules as implemented, options, spaces) from a source checkout, or
    the options summary of its ``Rules`` class in an installed package without the docs folder."""
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / f"{game.name}.md"
    if page.is_file():
        return page.read_text()
    return f"{game.title}: rule options\n{game.rules_cls.__doc__}"


def cmd_rules(args, extra):
    print(rules_text(_game(args.game)))


def cmd_play(args, extra):
    from .play import play_terminal

    game = _game(args.game)
    options = parse_rule_options(game, extra)
    try:
        play_terminal(game, vs=args.vs, num_players=args.players, seat=args.seat, seed=args.seed, **options)
    except ValueError as exc:
        raise SystemExit(f"cardgym: {exc}") from None


def cmd_bench(args, extra):
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"
    if not script.exists():
        raise SystemExit("cardgym bench runs benchmarks/throughput.py from a source checkout")
    sys.argv = [str(script)] + extra
    runpy.run_path(str(script), run_name="__main__")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train":
        from .train import main as train_main

        return train_main(argv[1:])
    ap = argparse.ArgumentParser(prog="cardgym", description="cardgym: card-game RL environments",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=USAGE)
    sub = ap.add_subparsers(dest="command", required=True)
    games = sorted(cardgym.GAMES)

    e = sub.add_parser("eval", help="duplicate matches and ratings of bots or saved policies")
    e.add_argument("game", choices=games)
    e.add_argument("--bots", required=True, help="comma-separated bot names or model paths")
    e.add_argument("--players", type=int, default=2,
                   help="seats per game; 3 or more also rates the bots together (Plackett-Luce, openskill)")
    e.add_argument("--games", type=int, default=2000, help="games per pair, and of line-ups for the "
                   "multi-player ratings (rounded up to whole rotations)")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--json", action="store_true", help="print the results as JSON")
    e.set_defaults(func=cmd_eval)

    p = sub.add_parser("play", help="play against bots in the terminal")
    p.add_argument("game", choices=games)
    p.add_argument("--vs", default="greedy", help="bot name (or model path) for every other seat")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seat", type=int, default=0, help="your seat (0 plays first)")
    p.add_argument("--seed", type=int, default=None)
    p.set_defaults(func=cmd_play)

    r = sub.add_parser("rules", help="the rules as implemented")
    r.add_argument("game", choices=games)
    r.set_defaults(func=cmd_rules)

    b = sub.add_parser("bench", help="benchmarks/throughput.py (from a source checkout)")
    b.set_defaults(func=cmd_bench)

    sub.add_parser("train", help="train an agent (cardgym train --help)")

    args, extra = ap.parse_known_args(argv)
    return args.func(args, extra)


if __name__ == "__main__":
    sys.exit(main())
