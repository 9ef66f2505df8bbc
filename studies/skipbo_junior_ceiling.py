"""How well can any player do against ``random`` in 2-player Skip-Bo Junior?

A Monte Carlo search player (``cardgym.games.skipbo_junior.search``) chooses each play by rollouts:
for every distinct legal play it copies the game, applies the play and plays the game out
``--rollouts`` times (itself with the ``greedy`` bot, the opponent with ``random``, the model of the
opponent it faces), and picks the play that won most often. Two information settings:

- ``fair``: before each rollout the cards the seat cannot see (the draw pile and every stock under its
  top) are reshuffled among their places, and the game generator is reseeded, so the search uses
  only what the seat sees;
- ``oracle``: the rollouts keep the true draw pile and stocks (the player knows every hidden card).

The oracle shows how much of the game is luck: if a player that knows the deck cannot reach a win
rate, no fair player can be expected to.

    python studies/skipbo_junior_ceiling.py --games 1000 --rollouts 64 --mode fair

Every deal (``--games`` of them) is played twice, once from each seat; the interval is the 95% Wilson
interval; a draw counts half. ``--mode expert`` / ``greedy`` measure those bots on the same deals.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from cardgym.eval.stats import wilson
from cardgym.games.skipbo_junior.rules import JuniorRules
from cardgym.games.skipbo_junior.search import EXPERT, GREEDY, MC, games_vs_random


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000, help="deals; each is played from both seats")
    ap.add_argument("--rollouts", type=int, default=64)
    ap.add_argument("--mode", choices=["fair", "oracle", "expert", "greedy"], default="fair")
    ap.add_argument("--rollout-bot", choices=["greedy", "expert"], default="greedy",
                    help="the searching player's own policy in the rollouts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stock-size", type=int, default=10)
    ap.add_argument("--json", default="", help="append the result as one JSON line to this file")
    a = ap.parse_args(argv)
    rules = JuniorRules(num_players=2, stock_size=a.stock_size)
    seeds = np.arange(a.seed * 10_000_019, a.seed * 10_000_019 + a.games, dtype=np.int64) + 1
    player = {"fair": MC, "oracle": MC, "expert": EXPERT, "greedy": GREEDY}[a.mode]
    t0 = time.time()
    res = []
    dec = 0
    for seat in (0, 1):
        r, d = games_vs_random(rules, seeds, seat, player, a.rollouts, a.mode == "fair", a.rollout_bot)
        res.append(r)
        dec += int(d.sum())
    r = np.concatenate(res)
    w, lost, dr = int((r == 1).sum()), int((r == 0).sum()), int((r == -1).sum())
    score = w + 0.5 * dr
    lo, hi = wilson(score, len(r))
    secs = time.time() - t0
    extra = f" rollouts={a.rollouts} ({a.rollout_bot})" if player == MC else ""
    print(f"{a.mode}{extra} vs random: {100 * score / len(r):.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
          f"over {len(r)} games (W {w} / L {lost} / D {dr}); {dec / len(r):.1f} decisions a game; "
          f"{secs:.0f} s")
    row = {"mode": a.mode, "rollouts": a.rollouts if player == MC else 0,
           "rollout_bot": a.rollout_bot if player == MC else "", "stock_size": a.stock_size, "seed": a.seed,
           "games": len(r), "wins": w, "losses": lost, "draws": dr, "win_rate": round(score / len(r), 4),
           "ci95": [round(lo, 4), round(hi, 4)], "decisions_per_game": round(dec / len(r), 2),
           "seconds": round(secs, 1)}
    if a.json:
        with Path(a.json).open("a") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    return row


if __name__ == "__main__":
    main()
