"""Milliseconds per decision of every bot of every game, measured on the same positions in one run.

Each game's single-agent env (2 players, default rules, ``opponent="expert"``) is played by the
``expert`` in the learner's seat; at every learner decision each bot of the game is asked for its
action (``env.bot_action(bot)``, the compiled bot called once) and timed. The positions are therefore
the same for every bot, and the ``search`` bot's cost is printed as a multiple of the ``expert``'s and of
``greedy``'s. The first call of each bot (compilation or cache loading) is left out.

Usage: ``python benchmarks/bot_cost.py [--games 20] [--seed 0] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import gymnasium as gym

import cardgym


def measure(name: str, games: int, seed: int) -> dict:
    """Per bot: decisions timed and mean milliseconds per decision, over ``games`` games."""
    spec = cardgym.get_game(name)
    bots = list(spec.bots)
    env = gym.make(cardgym.GAMES[name].gym_id, opponent="expert")
    env.reset(seed=seed)
    for bot in bots:  # compile or load each bot before timing
        env.unwrapped.bot_action(bot)
    spent = {b: 0.0 for b in bots}
    decisions = 0
    for g in range(games):
        env.reset(seed=seed + g)
        done = False
        while not done:
            chosen = {}
            for bot in bots:
                t0 = time.perf_counter()
                chosen[bot] = env.unwrapped.bot_action(bot)
                spent[bot] += time.perf_counter() - t0
            decisions += 1
            _, _, term, trunc, _ = env.step(chosen["expert"])  # the expert's timed choice is played
            done = term or trunc
    return {"game": name, "games": games, "decisions": decisions,
            "ms_per_decision": {b: 1000.0 * spent[b] / decisions for b in bots}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games per game (learner decisions are timed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games-list", default=",".join(cardgym.registry.names()),
                    help="comma-separated games (default: every game of cardgym.registry)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}"
    print(f"machine: {machine}; python {platform.python_version()}; {args.games} games per game, "
          f"2 players, default rules, the expert playing the timed seat")
    rows = [measure(name, args.games, args.seed) for name in args.games_list.split(",")]
    print()
    print("| game | decisions | " + " | ".join(f"{b} ms" for b in ("random", "greedy", "expert", "search"))
          + " | search / expert | search / greedy |")
    print("|---|---:|" + "---:|" * 6)
    for r in rows:
        ms = r["ms_per_decision"]
        cells = " | ".join(f"{ms[b]:.4f}" if b in ms else "-" for b in ("random", "greedy", "expert", "search"))
        ratios = " | ".join(f"{ms['search'] / ms[b]:,.0f}x" if "search" in ms and ms.get(b) else "-"
                            for b in ("expert", "greedy"))
        print(f"| {r['game']} | {r['decisions']} | {cells} | {ratios} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine, "rows": rows}, fh, indent=2)
    return rows


if __name__ == "__main__":
    main()
