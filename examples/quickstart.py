"""cardgym quickstart: train a Skyjo agent in a few minutes on a laptop CPU, then measure it.

    python examples/quickstart.py [--game skyjo] [--steps 1000000] [--pretrain-steps 1000000] [--games 400]

The README's main job. It runs the built-in trainer (``cardgym train``, see docs/training.md) on a small
budget, in two phases:

1. behaviour cloning: the ``expert`` bot plays the learner's seat and the policy learns its choices
   (and the value head the returns) for a few epochs;
2. PPO on a batch of 1024 compiled games against a mixture of the ``greedy`` and ``random`` bots and the
   agent's own past snapshots, still nudged toward the expert's choices while that weight falls to 0.

It ends with duplicate matches (every deal played from both seats) of the trained agent against the
``random``, ``greedy`` and ``expert`` bots, printed with 95% intervals, and writes the model, logs and a
learning curve (``curve.png``: win rates at about five points of the run) to ``--out``. Expect about 3
minutes on 2 cores, first-run compilation included (measured: 2.9 min on a fresh clone); the full-size runs
behind docs/results.md are ``cardgym train GAME`` with each game's preset.
"""

from __future__ import annotations

import argparse
import sys
import time

from cardgym.train import main as train
from cardgym import GAMES


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--game", default="skyjo", choices=sorted(GAMES), help="the game")
    ap.add_argument("--steps", type=float, default=1e6, help="PPO learner steps")
    ap.add_argument("--pretrain-steps", type=float, default=1e6, help="expert decisions to clone first")
    ap.add_argument("--pretrain-epochs", type=int, default=8, help="epochs over the cloning data")
    ap.add_argument("--games", type=int, default=400, help="duplicate games against each bot at the end")
    ap.add_argument("--curve-games", type=int, default=100,
                    help="duplicate games against each bot at each of the ~5 points of curve.png")
    ap.add_argument("--envs", type=int, default=1024, help="games stepped as one batch")
    ap.add_argument("--seed", type=int, default=0, help="seed of the run")
    ap.add_argument("--out", default="runs/quickstart", help="output folder")
    a = ap.parse_args(argv)
    # evaluate after the first iteration, every quarter of the run and at the end: the points of curve.png
    iterations = max(1, -(-int(a.steps) // (a.envs * 64)))  # 64 = the trainer's --rollout
    eval_every = max(1, iterations // 4)
    t0 = time.perf_counter()
    print(f"cardgym quickstart: {a.game}, clone the expert bot from {a.pretrain_steps:,.0f} of its decisions, "
          f"then {a.steps:,.0f} PPO steps; evaluation over {a.games} duplicate games per bot", flush=True)
    code = train([a.game, "--steps", str(a.steps), "--imitate", "expert", "--pretrain-steps", str(a.pretrain_steps),
                  "--pretrain-epochs", str(a.pretrain_epochs), "--imitate-steps", str(a.steps),
                  "--envs", str(a.envs), "--seed", str(a.seed), "--eval-every", str(eval_every),
                  "--eval-games", str(a.curve_games),
                  "--final-eval-games", str(a.games), "--out", a.out])
    print(f"quickstart finished in {(time.perf_counter() - t0) / 60:.1f} min "
          f"(play against the agent: cardgym play {a.game} --vs {a.out}/model.pt)")
    return code


if __name__ == "__main__":
    sys.exit(main())
