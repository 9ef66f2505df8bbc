"""The ``cardgym`` command: play against bots in the terminal, evaluate bots, read the rules,
measure speed, train agents. ``cardgym COMMAND --help`` lists every flag with its default;
``cardgym play GAME --help`` adds the bots and rule options of that game."""

from __future__ import annotations

import argparse
import json
import os
import sys

import cardgym

from cardgym.app.options import (HelpFormatter, Parser, add_llm_options, add_rule_options, check_output, check_players,
                          check_rules, check_seat, check_text_players, existing_path, flag, games_epilog, integer,
                          output_problem, real, rule_defaults, seed, text, writing)
from cardgym.app.pages import clean_markdown, render_markdown, rules_markdown
from cardgym.cli.run_options import add_run_options, check_run_options, cost_line, cost_of, resumed_line, run_folder

USAGE = """commands:
  cardgym play GAME [--vs BOT] [--num-players N] [--seat N] [--seed S] [RULE OPTIONS]
  cardgym eval GAME --bots A,B[,C...] [--num-players N] [--games N] [--seed S] [--json] [RULE OPTIONS]
  cardgym rules GAME
  cardgym bench [--seconds S]
  cardgym train GAME [OPTIONS]
  cardgym replay FILE [--gif OUT]
  cardgym serve [--port P] [--host H] [--model PATH] [--record FILE]
  cardgym ladder GAME --player SPEC [--format full|quick] [--deals N] [--json] [--record DIR | --resume DIR]
                 [--concurrency N] [--price-in USD --price-out USD] [--llm-... OPTIONS]
  cardgym mcp [--http [--port P] [--host H]] [--max-games N] [--expire S]
  cardgym new-game NAME [--dir DIR]
  cardgym warmup [GAME ...] [--jobs N] [--no-progress]

Text players: in --bots and --player, llm is a language model on an OpenAI-compatible server
(--llm-base-url, --llm-model), text:FILE.py:NAME a Python function prompt -> answer.

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


#: most duplicate games of one ``cardgym eval`` pair
MAX_GAMES = 10**6


def _game(name):
    try:
        return cardgym.get_game(name)
    except ValueError as exc:
        raise SystemExit(f"cardgym: {exc}") from None


def _options(args, game, extra) -> dict:
    """The rule options given on the command line (a clear error for anything unknown, and for values
    the game's rules refuse)."""
    parser = args.parser
    if extra:
        key = extra[0]
        allowed = ", ".join(flag(n) for n in rule_defaults(game.rules_cls))
        if not key.startswith("-"):
            parser.error(f"unexpected argument {key!r}; rule options look like --stock-size 10")
        parser.error(f"unknown option {key} for {game.name}; options: {allowed}")
    options = {k: getattr(args, k) for k in rule_defaults(game.rules_cls) if hasattr(args, k)}
    rules = check_rules(parser, game, options)
    return dict(options, num_players=int(rules.num_players))


def check_play(args, extra):
    """``cardgym play``: rule options, the seat against the number of players, the opponent."""
    game = _game(args.game)
    args.options = _options(args, game, extra)
    check_seat(args.parser, args.seat, args.options["num_players"])
    if args.vs is None:  # greedy, or the game's first bot after random (GameSpec.default_bot)
        args.vs = game.default_bot
    check_players(args.parser, game, [args.vs], "--vs", extra=("agent",))
    check_output(args.parser, "--record", args.record)


def check_eval(args, extra):
    """``cardgym eval``: rule options and the players."""
    game = _game(args.game)
    args.options = _options(args, game, extra)
    names = args.bots.split(",")
    if len(names) < 2 or any(not n.strip() for n in names):
        args.parser.error(f"argument --bots: must be two or more comma-separated players (e.g. random,greedy), "
                          f"got {args.bots!r}")
    if len(set(names)) != len(names):
        args.parser.error(f"argument --bots: each player once, got {args.bots!r}")
    texts = check_text_players(args.parser, args, names, "--bots")
    check_players(args.parser, game, [n for n in names if n not in texts], "--bots", extra=("agent",),
                  python_players=True)
    check_output(args.parser, "--record", args.record, "folder")
    check_run_options(args, texts)


def check_replay(args, extra):
    """``cardgym replay``: the picture's path before the replay starts."""
    check_output(args.parser, "--gif", args.gif)


def check_serve(args, extra):
    """``cardgym serve``: with --llm-base-url or --llm-model, both (the seat ``llm`` of every game)."""
    given = {"--llm-base-url": args.llm_base_url, "--llm-model": args.llm_model}
    wanted = any(v is not None for v in given.values())
    if wanted and None in given.values():
        have, need = (k if v is not None else None for k, v in given.items()), [k for k, v in given.items() if v is None]
        args.parser.error(f"argument {next(k for k in have if k)}: the seat 'llm' needs {need[0]} too")
    check_text_players(args.parser, args, ["llm"] if wanted else [], "cardgym serve")
    args.text_player = (lambda game, rules: make_text_player(args, game, "llm", rules)) if wanted else None


def check_ladder(args, extra):
    """``cardgym ladder``: the game has anchors, the player is one."""
    from cardgym.eval.ladder import anchors

    game = _game(args.game)
    if extra:
        args.parser.error(f"unexpected argument {extra[0]!r}")
    if game.name not in anchors(args.format):
        args.parser.error(f"argument game: the ladder has no anchors for {game.name!r}; games with anchors: "
                          f"{', '.join(sorted(anchors()))}")
    texts = check_text_players(args.parser, args, [args.player], "--player")
    if not texts:
        check_players(args.parser, game, [args.player], "--player", extra=("agent",), python_players=True)
        if args.record is not None:
            args.parser.error("argument --record: the ladder records the games of a text player (llm or text:...); "
                              "record other players' games with cardgym eval --record")
    check_run_options(args, texts)
    if args.move_quality and (args.record or args.resume) is None:
        args.parser.error("argument --move-quality: reads the games' records: give --record DIR (or --resume DIR)")


def make_text_player(args, game, spec: str, rules):
    """The `cardgym.agents.text.TextPlayer` of a checked text player name (``llm`` or ``text:...``)."""
    from cardgym.agents.text import DEFAULT_TEMPLATE, TextPlayer
    from cardgym.eval.batch import load_python_player

    template = DEFAULT_TEMPLATE
    if args.llm_template is not None:
        with open(args.llm_template, encoding="utf-8") as f:
            template = f.read()
    if spec == "llm":
        from cardgym.agents.llm_client import OpenAIChat

        ask = OpenAIChat(args.llm_base_url, args.llm_model, key_env=args.llm_key_env,
                         temperature=args.llm_temperature, max_tokens=args.llm_max_tokens,
                         timeout=args.llm_timeout, max_retries=args.llm_retries)
        info = ask.info()
    else:
        ask = load_python_player(game, spec[5:], rules)
        info = {"function": spec[5:]}
    return TextPlayer(game, rules, ask, template=template, list_moves=args.llm_moves == "list",
                      fallback=args.llm_fallback, seed=args.llm_seed, name=spec, info=info,
                      history=getattr(args, "llm_history", "recent"), mode=getattr(args, "llm_mode", "text"),
                      deadline=getattr(args, "llm_deadline", None),
                      max_server_failures=getattr(args, "llm_max_server_failures", 0.1))


def _players(args, game, names, num_players, options) -> list:
    """The players of ``names``: text players built, everything else left to `cardgym.eval`."""
    rules = game.make_rules(num_players=num_players, **options)
    return [make_text_player(args, game, n, rules) if n == "llm" or n.startswith("text:") else n for n in names]


def _text_lines(players) -> list:
    """Two lines per text player: its decisions by outcome (`cardgym.agents.text.OUTCOMES`), then its
    illegal-move rate, fallbacks, failed requests, latency and tokens."""
    from cardgym.agents.text import OUTCOMES, is_text_player

    out = []
    for p in players:
        if not is_text_player(p):
            continue
        st = p.stats()
        outcomes = st.get("outcomes", {})
        out.append(f"{p.name}: {st['decisions']} decisions: " + ", ".join(f"{k} {outcomes.get(k, 0)}" for k in OUTCOMES)
                   + (f", reasoning tokens {st['reasoning_tokens']:,}" if st.get("reasoning_tokens") else ""))
        rate = "n/a" if st["illegal_rate"] is None else f"{st['illegal_rate']:.1%}"
        lat = "n/a" if st["mean_latency_ms"] is None else f"{st['mean_latency_ms']:,.0f} ms"
        tokens = ("not reported" if st["tokens_in"] is None else f"{st['tokens_in']:,} in, {st['tokens_out']:,} out")
        out.append(f"  illegal-move rate {rate} ({st['invalid']} of {st['answers']} answers: {st['parse_errors']} "
                   f"unparsed, {st['illegal']} illegal), {st['fallbacks']} fallbacks ({p.fallback}), {st['forfeits']} "
                   f"forfeits, {st['errors']} failed requests, mean latency {lat} per decision, tokens {tokens}")
    return out


def check_rules_cmd(args, extra):
    if extra:
        args.parser.error(f"unexpected argument {extra[0]!r}")


def check_mcp(args, extra):
    """``cardgym mcp``: the address flags only with --http."""
    check_rules_cmd(args, extra)
    given = [f for f, on in (("--port", args.port != 8765), ("--host", args.host != "127.0.0.1"),
                             ("--public", args.public), ("--allow-host", args.allow_host),
                             ("--max-clients", args.max_clients != 64)) if on]
    if given and not args.http:
        args.parser.error(f"{', '.join(given)} go with --http (stdio has no address)")


def check_warmup(args, extra):
    """``cardgym warmup``: known games, nothing else on the line."""
    check_rules_cmd(args, extra)
    unknown = [g for g in args.games if g not in cardgym.GAMES]
    if unknown:
        args.parser.error(f"argument GAME: unknown game(s) {', '.join(map(repr, unknown))}; games: "
                          f"{', '.join(sorted(cardgym.GAMES))}")


def _table(rows: list, header: list, right=()) -> str:
    """Rows of strings as a text table, each column as wide as its widest cell."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    out = []
    for row in [header] + rows:
        out.append("  ".join(str(x).rjust(w) if k in right else str(x).ljust(w)
                             for k, (x, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(out)


def _text_failed(players, exc):
    """Stop a run whose text player's server failed too often: its counts, the reason, exit status 1."""
    for line in _text_lines(players):
        print(line, file=sys.stderr)
    raise SystemExit(f"cardgym: {exc}")


def _check_health(players):
    """Stop the run (`_text_failed`) when a text player's server failures passed its allowed share: called
    after the games, before any table or rating is printed."""
    from cardgym.agents.text import ServerFailures, is_text_player

    for p in players:
        if is_text_player(p):
            try:
                p.check_health()
            except ServerFailures as exc:
                _text_failed(players, exc)


def cmd_eval(args, extra):
    from cardgym import eval as ev
    from cardgym.agents.text import ServerFailures

    game = _game(args.game)
    options = dict(args.options)
    num_players = options.pop("num_players", 2)
    bots = [b for b in args.bots.split(",") if b]
    recorder = None
    try:
        players = _players(args, game, bots, num_players, options)
        texts = [b for b, p in zip(bots, players) if not isinstance(p, str)]
        if texts:
            recorder = run_folder(args, "eval", game, players, seed=args.seed, games=args.games,
                                  num_players=num_players, options=options)
            resumed_line(recorder)
        result = ev.tournament(game, players, num_players=num_players, games=args.games, seed=args.seed,
                               progress=not args.json and sys.stderr.isatty(), recorder=recorder,
                               concurrency=args.concurrency, **options)
        spent = cost_of(args, players, sum(r["games"] for r in result["pairs"]))
        if spent is not None:
            result["cost"] = spent
    except (ValueError, TypeError) as exc:
        raise SystemExit(f"cardgym: {exc}") from None
    except ImportError as exc:  # a model file without torch installed, the llm player without openai
        raise SystemExit(f"cardgym eval: {exc}") from None
    except ServerFailures as exc:  # a text player's server failed too often: no table, no rating
        _text_failed(players, exc)
    _check_health(players)
    folder = args.record or args.resume
    if folder:
        from cardgym.app.game_records import record_pairings

        others = [b for b in bots if b not in texts]
        try:
            with writing("cardgym eval", folder):
                paths = record_pairings(game, others, folder, args.record_games, num_players, args.seed, options)
        except (ValueError, TypeError) as exc:
            raise SystemExit(f"cardgym: {exc}") from None
        paths += recorder.paths if recorder is not None else []
        print(f"wrote {len(paths)} game records to {folder}", file=sys.stderr)
    if args.json:
        text_stats = {p.name: p.stats() for p in players if not isinstance(p, str)}
        if text_stats:
            result["text_players"] = text_stats
        print(json.dumps(result, indent=2))
        return
    print(f"{game.title}, {num_players} players, {args.games} duplicate games per pair, seed {args.seed}")
    rows = []
    for r in result["pairs"]:
        lo, hi = r["ci95"]
        rows.append([r["a"], r["b"], r["games"], f"{r['a_win_rate']:.1%}", f"[{lo:.1%}, {hi:.1%}]", f"{r['wins']}/{r['draws']}/{r['losses']}",
                     f"{r['games_per_second']:,.0f}"])
    print(_table(rows, ["a", "b", "games", "a win rate", "95% CI", "a W/D/L", "games/s"], right=(2, 3, 4, 5, 6)))
    for line in _text_lines(players) + ([cost_line(result["cost"])] if "cost" in result else []):
        print(line)
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
    from cardgym.cli.play import play_terminal

    game = _game(args.game)
    options = dict(args.options)
    num_players = options.pop("num_players", 2)
    try:
        with writing("cardgym play", args.record):
            play_terminal(game, vs=args.vs, num_players=num_players, seat=args.seat, seed=args.seed,
                          record=args.record, **options)
    except (ValueError, TypeError) as exc:
        raise SystemExit(f"cardgym: {exc}") from None
    except ImportError as exc:  # a model file without torch installed
        raise SystemExit(f"cardgym play: {exc}") from None


def cmd_new_game(args, extra):
    from cardgym.kit.new_game import check_name, new_game

    if extra:
        raise SystemExit(f"cardgym new-game: unexpected argument {extra[0]!r}")
    try:
        name = check_name(args.name)
    except ValueError as exc:
        raise SystemExit(f"cardgym new-game: {exc}") from None
    folder = args.dir if args.dir is not None else f"cardgym-{name.replace('_', '-')}"
    problem = output_problem(folder, "folder")
    if problem is not None:
        args.parser.error(f"{'argument --dir' if args.dir is not None else 'the folder of NAME'}: {problem}")
    try:
        with writing("cardgym new-game", folder):
            out = new_game(args.name, args.dir)
    except ValueError as exc:
        raise SystemExit(f"cardgym new-game: {exc}") from None
    print(f"wrote {out}: pip install -e {out} && python -m pytest {out / 'tests'}")


def cmd_bench(args, extra):
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[3] / "benchmarks" / "throughput.py"
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
    ap = Parser(prog="cardgym", description="cardgym: card-game RL environments",
                                 formatter_class=HelpFormatter, epilog=USAGE)
    sub = ap.add_subparsers(dest="command", required=True,
                            metavar="{play,eval,rules,bench,train,replay,serve,ladder,mcp,new-game,warmup}")
    games = sorted(cardgym.GAMES)
    name = _game_in(argv)
    try:
        game = cardgym.get_game(name) if name else None
    except cardgym.registry.BrokenGame:  # refused by the command's check (`_game`), in one line
        game = None
    bots = f" ({', '.join(game.bots)})" if game else ""
    epilog = None if game else games_epilog()

    def command(cmd, check=None, **kw):
        """A subcommand; ``check(args, extra)`` runs after parsing (what needs the game), its errors are
        the subcommand's argparse errors (``args.parser``)."""
        p = sub.add_parser(cmd, formatter_class=HelpFormatter, allow_abbrev=False, epilog=epilog, **kw)
        p.set_defaults(parser=p, check=check)
        return p

    _add_game_commands(command, games, game, bots)
    # every flag, --help included, goes to the script (cardgym bench --help shows its flags)
    b = sub.add_parser("bench", help="benchmarks/throughput.py (from a source checkout)", add_help=False)
    b.set_defaults(func=cmd_bench)

    sub.add_parser("train", help="train an agent (cardgym train --help)", add_help=False)
    _add_replay_serve(command)
    _add_ladder_mcp(command, games)
    _add_new_game_warmup(command, games)
    return ap


def _add_game_commands(command, games, game, bots) -> None:
    """``play``, ``eval`` and ``rules`` (with a game, ``play`` and ``eval`` get its rule options)."""
    p = command("play", check=check_play, help="play against bots in the terminal", description=(
        "Play one game against bots in the terminal, laid out for 80x24: type the number of a move (its\n"
        "action id, from 0 like positions), n/p for more moves, t for the table, r for the rules, h for help,\n"
        "q to quit."))
    p.add_argument("game", choices=games)
    p.add_argument("--vs", type=text("a bot or a model file"), default=None, metavar="BOT", help=f"bot{bots}, agent (the trained agent shipped with cardgym) or model file for every other seat (default: greedy, else the game's first bot after random)")
    p.add_argument("--seat", type=integer(0), default=0, help="your seat (0 plays first)")
    p.add_argument("--seed", type=seed, default=None, help="seed of the deal (default: a fresh random deal)")
    p.add_argument("--record", type=text("a file name"), default=None, metavar="FILE", help="write the game record (JSON lines) to FILE")
    p.set_defaults(func=cmd_play)

    e = command("eval", check=check_eval, help="duplicate matches and ratings of bots or saved policies", description=(
        "Duplicate matches: every deal is played once per seat rotation; 95% Wilson intervals."))
    e.add_argument("game", choices=games)
    e.add_argument("--bots", required=True, metavar="A,B[,C...]", help=f"comma-separated bots{bots}, agent (the shipped trained agent) or model files")
    e.add_argument("--games", type=integer(1, MAX_GAMES), default=2000, help="games per pair, and of line-ups for the "
                   "multi-player ratings with 3 or more players (rounded up to whole rotations)")
    e.add_argument("--seed", type=seed, default=0, help="seed of the first deal")
    e.add_argument("--json", action="store_true", help="print the results as JSON")
    e.add_argument("--record", type=text("a folder name"), default=None, metavar="DIR", help="also write game records of --record-games games per pairing to DIR")
    e.add_argument("--record-games", type=integer(1, MAX_GAMES), default=1, metavar="N", help="games recorded per pairing (with --record)")
    add_llm_options(e)
    add_run_options(e)
    e.set_defaults(func=cmd_eval)
    if game:
        add_rule_options(p, game)
        add_rule_options(e, game)

    r = command("rules", check=check_rules_cmd, help="the rules as implemented (a pager in a terminal)")
    r.add_argument("game", choices=games)
    r.add_argument("--raw", action="store_true", help="print the Markdown source")
    r.add_argument("--no-pager", action="store_true", help="print without a pager")
    r.add_argument("--width", type=integer(20, 1000), default=100, help="text width when not printing to a terminal")
    r.set_defaults(func=cmd_rules)


def _add_replay_serve(command) -> None:
    """``replay`` and ``serve``."""
    y = command("replay", check=check_replay, help="re-play a game record (text or a GIF)", description=(
        "Re-play a game record exactly (JSON lines written by play --record, eval --record or\n"
        "cardgym.app.game_records.GameRecorder); refuse one that does not replay, naming its line."))
    y.add_argument("file", type=existing_path, help="the record file (.jsonl)")
    y.add_argument("--seat", type=integer(0), default=None, help="show the table as this seat sees it (default: public)")
    y.add_argument("--tables", action="store_true", help="print the table after every move (default: at the end)")
    y.add_argument("--gif", type=text("a file name"), default=None, metavar="OUT",
                   help="write the replay as a GIF picture (needs Pillow)")
    y.add_argument("--fps", type=real(0, 60, lo_open=True), default=2.0, help="frames per second of the GIF")
    y.set_defaults(func=cmd_replay)

    w = command("serve", help="play, watch and replay games in the browser", description=(
        "A web table: play any game against bots or the shipped agent by clicking, watch bots and agents,\n"
        "open game records. Needs pip install 'cardgym[web]'."))
    w.add_argument("--port", type=integer(1, 65535), default=8000, help="the port to listen on")
    w.add_argument("--host", type=text("an address"), default="127.0.0.1",
                   help="the address to bind (beyond loopback, e.g. 0.0.0.0 for every interface, needs --public)")
    w.add_argument("--public", action="store_true",
                   help="allow a --host beyond this machine (the table has no accounts and no encryption)")
    w.add_argument("--allow-host", type=text("a host name"), action="append", metavar="NAME",
                   help="also answer requests whose Host is NAME (repeatable; loopback names always)")
    w.add_argument("--model", type=text("[NAME=]PATH"), action="append", metavar="[NAME=]PATH",
                   help="a model file seats can be given to (repeatable; its game is read from the file)")
    w.add_argument("--record", type=existing_path, action="append", metavar="FILE",
                   help="a game record to open (repeatable)")
    w.add_argument("--max-games", type=integer(1, 10_000), default=32, help="games in progress, and opened records, held at once (finished games do not count)")
    w.add_argument("--expire", type=real(0, 7 * 86400, lo_open=True), default=1800.0,
                   help="seconds after which an untouched game is dropped")
    w.add_argument("--pace", type=real(0, 10), default=0.7, help="seconds between two bot moves (the page's default)")
    w.add_argument("--idle", type=real(0, 86400, lo_open=True), default=120.0,
                   help="seconds without a request after which a game in progress is ended (its slot freed)")
    add_llm_options(w)
    w.set_defaults(func=cmd_serve, check=check_serve)


def _add_ladder_mcp(command, games) -> None:
    """``ladder`` and ``mcp``."""
    from cardgym.eval.ladder import DEFAULT_DEALS, DEFAULT_FORMAT, FORMATS, LADDER_BOTS, MAX_DEALS

    d = command("ladder", check=check_ladder, help="rate a player on the anchored ladder (a fixed scale)",
                description=(
        "Play a fixed, versioned schedule of duplicate deals against the format's anchors (two players: random,\n"
        f"epsilon-random versions of greedy, and the bots {', '.join(LADDER_BOTS[1:])}) and rate the player on the Elo scale\n"
        "with random at 0, the anchors' ratings fixed (docs/llm_agents.md, 'The ladder')."))
    d.add_argument("game", choices=games)
    d.add_argument("--player", required=True, type=text("a player"), metavar="SPEC",
                   help="a bot, agent, a model file, a Python player FILE.py:NAME or module:NAME, llm, or "
                        "text:FILE.py:NAME")
    d.add_argument("--deals", type=integer(1, MAX_DEALS), default=DEFAULT_DEALS,
                   help="deals of the schedule to play (each twice against each anchor)")
    d.add_argument("--format", choices=list(FORMATS), default=DEFAULT_FORMAT,
                   help="full: the default rules; quick: shorter games a model can afford (each game's options: docs/llm_real_models.md)")
    d.add_argument("--json", action="store_true", help="print the result as JSON")
    d.add_argument("--record", type=text("a folder name"), default=None, metavar="DIR",
                   help="write a game record of every game of a text player to DIR")
    d.add_argument("--move-quality", action="store_true",
                   help="beside the rating: how often a text player's move is the expert's and the search's "
                        "choice (from the records: needs --record or --resume)")
    add_llm_options(d)
    add_run_options(d)
    d.set_defaults(func=cmd_ladder)

    m = command("mcp", help="a Model Context Protocol server (stdio, or streamable HTTP): agents play through tools",
                description=(
        "Serve the games to MCP clients over stdin/stdout, or with --http over streamable HTTP at\n"
        "http://HOST:PORT/mcp (tools list_games, rules, new_game, view, legal_actions, play, wait_turn, result,\n"
        "replay_record); the other seats are played by bots on the server. Needs pip install 'cardgym[llm]'."))
    m.add_argument("--max-games", type=integer(1, 10_000), default=16,
                   help="games in progress held at once (finished games do not count)")
    m.add_argument("--keep-finished", type=integer(0, 100_000), default=256,
                   help="finished games kept readable (view, result, replay_record)")
    m.add_argument("--expire", type=real(0, 7 * 86400, lo_open=True), default=1800.0,
                   help="seconds after which an untouched game is dropped")
    m.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp in place of stdio")
    m.add_argument("--port", type=integer(0, 65535), default=8765, help="with --http: the port (0: a free one)")
    m.add_argument("--host", type=text("an address"), default="127.0.0.1",
                   help="with --http: the address to bind (beyond loopback needs --public)")
    m.add_argument("--public", action="store_true",
                   help="with --http: allow a --host beyond this machine (no accounts, no encryption)")
    m.add_argument("--allow-host", type=text("a host name"), action="append", metavar="NAME",
                   help="with --http: also answer requests whose Host is NAME (repeatable; loopback names always)")
    m.add_argument("--max-clients", type=integer(1, 10_000), default=64,
                   help="with --http: MCP clients connected at once (an idle one is dropped after 30 minutes)")
    m.set_defaults(func=cmd_mcp, check=check_mcp)


def _add_new_game_warmup(command, games) -> None:
    """``new-game`` and ``warmup``."""
    n = command("new-game", help="write the package of a new game (docs/api.md, 'Adding a game')", description=(
        "Write an installable package for a new game: pyproject.toml with the cardgym.games entry point,\n"
        "the game folder in the fixed shape, tests calling cardgym.testing.check_game."))
    n.add_argument("name", metavar="NAME", help="the game's name, a lowercase Python identifier")
    n.add_argument("--dir", type=text("a folder"), default=None,
                   help="where to write it (default ./cardgym-NAME; must be new or empty)")
    n.set_defaults(func=cmd_new_game)

    m = command("warmup", check=check_warmup, help="compile every kernel ahead of first use (e.g. while building a container image)",
                description=(
        "Compile every kernel the envs, bots, evaluation, terminal game, web table and trainer use, one\n"
        "game per process, into the kernel cache (NUMBA_CACHE_DIR when set). Afterwards none of them\n"
        "compiles on first use, and a copy of the package with that cache loads without compiling."))
    m.add_argument("games", nargs="*", metavar="GAME", help=f"the games to warm (default: every game; {', '.join(games)})")
    m.add_argument("--jobs", type=integer(1, MAX_JOBS), default=None,
                   help="processes compiling at once (default: the number of cores, at most one per game)")
    m.add_argument("--no-progress", action="store_true", help="no progress bar (the closing line still prints)")
    m.set_defaults(func=cmd_warmup)


def cmd_ladder(args, extra):
    from cardgym.agents.text import ServerFailures
    from cardgym.eval.ladder import ladder

    game = _game(args.game)
    recorder = None
    try:
        player = _players(args, game, [args.player], 2, {})[0]
        if not isinstance(player, str):
            from cardgym.eval.ladder import SEED_BASE

            recorder = run_folder(args, "ladder", game, [player], seed=SEED_BASE, deals=args.deals, format=args.format)
            resumed_line(recorder)
        r = ladder(game, player, deals=args.deals, progress=not args.json and sys.stderr.isatty(),
                   recorder=recorder, concurrency=args.concurrency, fmt=args.format)
        spent = cost_of(args, [player], r["games"])
        if spent is not None:
            r["cost"] = spent
        if args.move_quality:
            from cardgym.eval.quality import move_quality

            r["move_quality"] = move_quality(recorder.paths)
    except (ValueError, TypeError) as exc:
        raise SystemExit(f"cardgym: {exc}") from None
    except ImportError as exc:
        raise SystemExit(f"cardgym ladder: {exc}") from None
    except ServerFailures as exc:  # the player's server failed too often (TextPlayer.decide): no rating
        _text_failed([player], exc)
    _check_health([player])
    if recorder is not None:
        print(f"wrote {len(recorder.paths)} game records to {recorder.out_dir}", file=sys.stderr)
    if args.json:
        print(json.dumps(r, indent=2))
        return
    lo, hi = r["ci95"]
    print(f"{game.title} ladder v{r['version']}, format {r['format']} ({r['scale']}), {r['deals']} deals, {r['games']} games")
    rows = []
    for bot, m in r["matches"].items():
        rows.append([bot, f"{r['anchors'][bot]:+.0f}", m["games"], f"{m['a_win_rate']:.1%}",
                     f"{m['wins']}/{m['draws']}/{m['losses']}"])
    print(_table(rows, ["anchor", "rating", "games", "score", "W/D/L"], right=(1, 2, 3, 4)))
    print(f"rating of {r['player']}: {r['rating']:+.0f}  (95% interval [{lo:+.0f}, {hi:+.0f}])")
    for line in _text_lines([player]) + ([cost_line(r["cost"])] if "cost" in r else []):
        print(line)
    for bot, q in r.get("move_quality", {}).items():
        if not q["decisions"]:
            continue
        lo, hi = q["ci95"]
        print(f"moves the {bot} bot would play: {q['rate']:.1%} [{lo:.1%}, {hi:.1%}] of {q['decisions']:,} decisions "
              f"with a choice")


def cmd_mcp(args, extra):
    from cardgym.cli import mcp_server

    bounds = {"max_games": args.max_games, "expire": args.expire, "keep_finished": args.keep_finished}
    try:
        if not args.http:
            mcp_server.serve_stdio(**bounds)
            return
        from cardgym.app.listen import allowed_hosts

        allowed = allowed_hosts(args.host, args.public, args.allow_host, "cardgym mcp", "the MCP server")

        def ready(port):
            print(f"cardgym mcp: http://{args.host}:{port}/mcp  (Ctrl-C stops it)", file=sys.stderr, flush=True)

        mcp_server.serve_http(args.host, args.port, allowed, max_sessions=args.max_clients, ready=ready, **bounds)
    except ImportError as exc:
        msg = str(exc).removeprefix("cardgym mcp ")
        if "cardgym[llm]" not in msg:  # an SDK module imported before build_server's own message
            msg = f"needs the mcp package (2.x): pip install 'cardgym[llm]' ({msg})"
        raise SystemExit(f"cardgym mcp: {msg}") from None


#: most ``cardgym warmup`` processes at once
MAX_JOBS = 256


def cmd_warmup(args, extra):
    from cardgym.cli.warmup import warm

    try:
        warm(args.games or None, jobs=args.jobs, progress=not args.no_progress)
    except ValueError as exc:  # a game that fails to load (cardgym.registry.BrokenGame), named in one line
        raise SystemExit(f"cardgym warmup: {exc}") from None


def cmd_replay(args, extra):
    from cardgym.app.game_records import cmd_replay as run

    return run(args, extra)


def cmd_serve(args, extra):
    from cardgym.web import cmd_serve as run

    return run(args, extra)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "train":
        from cardgym.train import main as train_main

        return train_main(argv[1:])
    args, extra = parse(argv)
    return args.func(args, extra)


def parse(argv):
    """``(args, extra)`` of a ``cardgym`` command line (not ``train``: `cardgym.train.cli.config_from_args`),
    every flag checked: a bad value ends in a one-line argparse error (exit code 2)."""
    args, extra = build_parser(argv).parse_known_args(argv)
    if getattr(args, "check", None) is not None:
        args.check(args, extra)
    return args, extra


if __name__ == "__main__":
    sys.exit(main())
