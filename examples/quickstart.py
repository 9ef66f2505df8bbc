"""cardgym quickstart: train a Skip-Bo Junior agent from scratch with PPO and watch it learn.

    python examples/quickstart.py [--game skipbo_junior] [--steps 1e6] [--curve-games 200] [--games 400]

The README's main job. It runs the built-in trainer (``cardgym train``, see docs/training.md) with pure
PPO from random weights (no behaviour cloning) on a batch of 512 compiled games against a mixture of the
``random`` and ``greedy`` bots, and evaluates the policy before the first update and every five
iterations: the learning curve (duplicate win rates against ``random``, ``greedy`` and ``expert``,
also drawn in ``curve.png``) starts from a network that knows nothing. It ends with duplicate matches (every
deal played from both seats) of the trained agent against the three bots, printed with 95% intervals,
and writes the model, logs and curve to ``--out``.

Measured cold (empty kernel cache) on an idle 2-core machine: 48 s of wall time, 61 s of CPU time (2.5
minutes of wall time on the same machine loaded by other jobs; the README and docs/results.md give the
curve it printed). This budget teaches PPO to beat ``random`` and to close
part of the gap to ``greedy``; beating the ``expert`` takes the game's full preset (``cardgym train GAME``:
behaviour cloning of the expert, then millions of PPO steps; docs/results.md).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from cardgym import GAMES
from cardgym.app.options import Parser, amount, integer, seed, text
from cardgym.eval import baseline_bots, wilson
from cardgym.train import main as train

ENVS, ROLLOUT = 512, 64  # games per batch, steps per game per iteration: 32,768 learner steps an iteration


def main(argv=None) -> int:
    ap = Parser(prog="quickstart.py", description=__doc__.split("\n")[0],
                formatter_class=__import__("argparse").ArgumentDefaultsHelpFormatter)
    ap.add_argument("--game", default="skipbo_junior", choices=sorted(GAMES), help="the game")
    ap.add_argument("--steps", type=amount(1, 10**9), default=10**6, help="PPO learner steps")
    ap.add_argument("--envs", type=integer(1, 65536), default=ENVS, help="games stepped as one batch")
    ap.add_argument("--games", type=integer(2, 10**5), default=400,
                    help="duplicate games against each bot at the end")
    ap.add_argument("--curve-games", type=integer(2, 10**5), default=200,
                    help="duplicate games against each bot at each point of the learning curve")
    ap.add_argument("--eval-every", type=integer(1, 10**6), default=5, help="PPO iterations between curve points")
    ap.add_argument("--seed", type=seed, default=0, help="seed of the run")
    ap.add_argument("--out", type=text("a folder"), default="runs/quickstart", help="output folder")
    a = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"cardgym quickstart: {a.game}, {a.steps:,} PPO steps from random weights against the random and "
          f"greedy bots; a point of the learning curve every {a.eval_every} iterations "
          f"({a.curve_games} duplicate games per bot), {a.games} at the end", flush=True)
    code = train([a.game, "--steps", str(a.steps), "--imitate", "", "--pretrain-steps", "0",
                  "--opponents", "random:0.5,greedy:0.5", "--envs", str(a.envs), "--rollout", str(ROLLOUT),
                  "--hidden", "256,256", "--lr", "3e-4", "--epochs", "3", "--minibatch", "4096",
                  "--reward", "env", "--reward-scale", "1", "--win-bonus", "0",
                  "--seed", str(a.seed), "--eval-every", str(a.eval_every), "--eval-first",
                  "--eval-games", str(a.curve_games), "--final-eval-games", str(a.games), "--out", a.out])
    results = json.loads((Path(a.out) / "results.json").read_text())
    print(curve_table(results["eval_history"], a.curve_games, baseline_bots(a.game)))
    print(f"quickstart finished in {(time.perf_counter() - t0) / 60:.1f} min wall, "
          f"{(time.process_time() - c0) / 60:.1f} min CPU "
          f"(curve: {a.out}/curve.png; play against the agent: cardgym play {a.game} --vs {a.out}/model.pt)")
    return code


def curve_table(history: list, games: int, bots: list) -> str:
    """The learning curve as text: win rate against each bot at each point, then the first and last
    points with their 95% intervals (a rise larger than the intervals is learning, not noise)."""
    lines = [f"learning curve (duplicate win rate of the argmax policy, {games} games per bot and point):",
             f"{'PPO steps':>11}  " + "  ".join(f"{b:>7}" for b in bots)]
    for h in history:
        lines.append(f"{h['steps']:>11,}  " + "  ".join(f"{h[b]:>7.1%}" for b in bots))
    first, last = history[0], history[-1]
    for b in bots:
        lo0, hi0 = wilson(first[b] * games, games)
        lo1, hi1 = wilson(last[b] * games, games)
        verdict = "a rise beyond the intervals" if lo1 > hi0 else "within the noise"
        lines.append(f"  vs {b}: {first[b]:.1%} [{lo0:.1%}, {hi0:.1%}] -> {last[b]:.1%} [{lo1:.1%}, {hi1:.1%}]: {verdict}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
