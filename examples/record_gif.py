"""Play a bot game and save it as an animated GIF (needs Pillow: ``pip install -e ".[render]"``).

    python examples/record_gif.py --game skyjo                  # writes runs/gifs/skyjo.gif
    python examples/record_gif.py --game skipbo --players 4 --teams --viewer current --out skipbo.gif
    python examples/record_gif.py --game skipbo_junior --bot random --max-frames 200 --out runs/junior.gif

The GIF goes to ``--out`` (default ``runs/gifs/GAME.gif``; missing folders are created).

One frame per action (``--every K`` keeps every K-th). ``--viewer public`` (default) draws what a
spectator sees; ``--viewer 0`` what seat 0 sees; ``--viewer current`` looks over the shoulder of the
seat to act at each frame (its Skip-Bo hand face up and its playable cards highlighted).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import cardgym
from cardgym import render
from cardgym.app.options import Parser, integer, seed, text

MODULES = {name: entry.module for name, entry in cardgym.GAMES.items()}


def main(argv=None):
    ap = Parser(prog="record_gif.py", description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=sorted(MODULES), default="skyjo")
    ap.add_argument("--out", type=text("a file name"), default=None,
                    help="GIF file (default: runs/gifs/GAME.gif; missing folders are created)")
    ap.add_argument("--players", type=integer(1, 99), default=None, help="number of players (default 2, Skyjo 3)")
    ap.add_argument("--teams", action="store_true", help="Skip-Bo partnership play (4 or 6 players)")
    ap.add_argument("--bot", type=text("a bot"), default="greedy", help="bot playing every seat (random, greedy)")
    ap.add_argument("--seed", type=seed, default=0, help="seed of the deal")
    ap.add_argument("--viewer", default="public", help="public, current or a seat number")
    ap.add_argument("--every", type=integer(1), default=1, help="keep every K-th frame")
    ap.add_argument("--max-frames", type=integer(1, 100_000), default=300, help="stop after this many frames")
    ap.add_argument("--ms", type=integer(1, 60_000), default=350, help="milliseconds per frame")
    args = ap.parse_args(argv)

    from cardgym.app.options import check_rules, check_seat

    game = cardgym.get_game(args.game)
    mod = importlib.import_module(MODULES[args.game])
    options = {"num_players": args.players or (3 if args.game == "skyjo" else 2)}
    if args.teams:
        options["teams"] = True
    if args.game == "skyjo":
        options["episode"] = "round"  # one round keeps the GIF short
    check_rules(ap, game, options, {"num_players": "--players", "teams": "--teams"})
    if args.bot not in game.bots:
        ap.error(f"argument --bot: must be one of {', '.join(game.bots)}, got {args.bot!r}")
    if args.viewer not in ("public", "current"):
        if not args.viewer.isdigit():
            ap.error(f"argument --viewer: must be public, current or a seat number, got {args.viewer!r}")
        check_seat(ap, int(args.viewer), options["num_players"], "--viewer")
    env = mod.raw_env(**options)
    env.reset(seed=args.seed)

    def running():
        return int(env.record["status"]) == 0  # 0 running, 1 over, 2 truncated

    def viewer():
        if args.viewer == "public":
            return None
        if args.viewer == "current":
            return int(env.record["current"]) if running() else None
        return int(args.viewer)

    def frame():
        img = render.image(mod.GAME, env.record, env.rules, viewer=viewer())
        return img.convert("P", palette=1, colors=128)  # Image.Palette.ADAPTIVE

    frames, step = [frame()], 0
    while running() and len(frames) < args.max_frames:
        env.step(env.bot_action(args.bot))
        step += 1
        if step % args.every == 0 or not running():
            frames.append(frame())
    durations = [args.ms] * len(frames)
    durations[-1] = 3000  # linger on the last picture
    out = Path(args.out or f"runs/gifs/{args.game}.gif")
    out.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(out, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=True)
    print(f"{out}: {len(frames)} frames ({step} actions), {frames[0].size[0]}x{frames[0].size[1]}")
    print(env.result())


if __name__ == "__main__":
    main()
