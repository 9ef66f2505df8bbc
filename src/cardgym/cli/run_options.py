"""The flags ``cardgym eval`` and ``cardgym ladder`` share for runs with text players: games in flight
(``--concurrency``), resuming an interrupted run (``--resume DIR``) and its cost (``--price-in``,
``--price-out``): `cardgym.eval.runs`."""

from __future__ import annotations

import sys

from cardgym.app.options import integer, real, text
from cardgym.eval.text_games import MAX_CONCURRENCY


def add_run_options(parser):
    g = parser.add_argument_group("runs with text players (docs/llm_real_models.md)")
    g.add_argument("--concurrency", type=integer(1, MAX_CONCURRENCY), default=1, metavar="N",
                   help="games of text players in flight at once (threads; the same results as one at a time)")
    g.add_argument("--resume", type=text("a folder name"), default=None, metavar="DIR",
                   help="continue the run recorded (--record) in DIR: the same command with --resume DIR in place "
                        "of --record DIR plays only the games it had not finished")
    g.add_argument("--price-in", type=real(0, 10_000), default=None, metavar="USD",
                   help="US dollars per million prompt tokens (prints the run's cost)")
    g.add_argument("--price-out", type=real(0, 10_000), default=None, metavar="USD",
                   help="US dollars per million answer tokens (prints the run's cost)")


def check_run_options(args, texts: list):
    """``parser.error`` for run flags that would do nothing: without a text player, or both --record and
    --resume; a folder to resume must exist."""
    from pathlib import Path

    if not texts:
        for flag, v, default in (("--concurrency", args.concurrency, 1), ("--resume", args.resume, None)):
            if v != default:
                args.parser.error(f"argument {flag}: applies to runs with a text player (llm or text:...); "
                                  f"bots and models play batched")
    if args.resume is not None:
        if getattr(args, "record", None) is not None:
            args.parser.error("argument --resume: give --resume DIR in place of --record DIR (the run's folder), not both")
        if not Path(args.resume).is_dir():
            args.parser.error(f"argument --resume: no folder {args.resume} (a run started with --record DIR)")


def run_folder(args, command: str, game, players: list, **what):
    """The `cardgym.eval.runs.RunFolder` of a run with text players recorded (``--record DIR``) or resumed
    (``--resume DIR``), else ``None``."""
    from cardgym.eval.runs import RunFolder, run_manifest

    folder = args.resume if args.resume is not None else getattr(args, "record", None)
    if folder is None:
        return None
    manifest = run_manifest(command, game, players, run={"concurrency": args.concurrency, "price_in": args.price_in,
                                                         "price_out": args.price_out}, **what)
    return RunFolder(folder, manifest, resume=args.resume is not None)


def cost_of(args, players: list, games: int):
    """The run's cost (`cardgym.eval.runs.cost`) over its text players' tokens, ``None`` without prices."""
    from cardgym.agents.text import is_text_player
    from cardgym.eval.runs import cost

    texts = [p.stats() for p in players if is_text_player(p)]
    if not texts:
        return None
    tin = None if all(s["tokens_in"] is None for s in texts) else sum(s["tokens_in"] or 0 for s in texts)
    tout = None if all(s["tokens_out"] is None for s in texts) else sum(s["tokens_out"] or 0 for s in texts)
    return cost(tin, tout, args.price_in, args.price_out, games=games)


def cost_line(c: dict | None) -> str | None:
    """One line of a table's footer for the cost ``c`` (`cost_of`)."""
    if c is None:
        return None
    if c["usd"] is None:
        return "cost: unknown (the server reported no token counts)"
    return (f"cost: ${c['usd']:,.4f} for the run, ${c['usd_per_game']:,.6f} per game ({c['tokens_in']:,} tokens in "
            f"at ${c['price_in'] or 0:g}/M, {c['tokens_out']:,} out at ${c['price_out'] or 0:g}/M)")


def resumed_line(recorder) -> None:
    if recorder is not None and getattr(recorder, "resumed", 0):
        print(f"resumed: {recorder.resumed} games of {recorder.out_dir} were finished before", file=sys.stderr)


__all__ = ["add_run_options", "check_run_options", "cost_line", "cost_of", "resumed_line", "run_folder"]
