"""What a text player costs besides its model, and how fast the ladder runs.

1. The harness's overhead per decision (process time, milliseconds): building the seat's view
   (``env.view``), the prompt, the parsing and the telemetry (``TextPlayer.decide``), with a scripted
   ``ask`` (it answers the first listed move) whose own time is measured apart and subtracted, over whole
   games against ``greedy`` through `cardgym.eval.match`.
2. Games per second of a ladder run (``cardgym.eval.ladder.ladder``) of a bot and of the scripted text
   player (process time).

    python benchmarks/text_players.py [--games N] [--deals N]
"""

from __future__ import annotations

import argparse
import re
import time

import cardgym
from cardgym import eval as ev
from cardgym.agents.text import TextPlayer
from cardgym.core.envs.aec import CardGameAEC
from cardgym.eval.ladder import ladder


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per game for the overhead")
    ap.add_argument("--deals", type=int, default=10, help="deals of the ladder runs")
    args = ap.parse_args(argv)
    for name in ("skipbo_junior", "skyjo", "skipbo"):
        game = cardgym.get_game(name)
        rules = game.make_rules(num_players=2)
        spent = [0.0]

        def ask(prompt, spent=spent):
            t = time.process_time()
            out = re.search(r"^(\d+): ", prompt, re.M).group(1)
            spent[0] += time.process_time() - t
            return out

        p = TextPlayer(game, rules, ask, name="scripted")
        ev.match(name, p, "greedy", games=2)  # warm up: compiled kernels, the rules page
        p.reset_stats()
        spent[0] = 0.0
        inside = [0.0]
        decide, view = p.decide, CardGameAEC.view

        def timed(fn):
            def run(*a, **k):
                t = time.process_time()
                try:
                    return fn(*a, **k)
                finally:
                    inside[0] += time.process_time() - t
            return run

        p.decide, CardGameAEC.view = timed(decide), timed(view)
        t0 = time.process_time()
        try:
            m = ev.match(name, p, "greedy", games=args.games, seed=1)
        finally:
            CardGameAEC.view = view
        total = time.process_time() - t0
        d = m["text"]["scripted"]["decisions"]
        per = 1000 * (inside[0] - spent[0]) / d
        print(f"{name}: {d} text decisions in {args.games} games, harness overhead {per:.2f} ms per decision "
              f"(view + prompt + parse + telemetry, process time; the scripted ask's own "
              f"{1000 * spent[0] / d:.3f} ms excluded); the whole match {1000 * total / d:.2f} ms per text decision")
        for who in ("random", p):
            t0 = time.process_time()
            r = ladder(name, who, deals=args.deals)
            dt = time.process_time() - t0
            print(f"  ladder of {who}: {r['games']} games, {r['games'] / dt:,.1f} games per CPU-second, "
                  f"rating {r['rating']:+.0f} [{r['ci95'][0]:+.0f}, {r['ci95'][1]:+.0f}]")


if __name__ == "__main__":
    main()
