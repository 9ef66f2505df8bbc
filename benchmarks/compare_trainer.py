"""The built-in trainer's PPO iterations in two source trees, measured in one interleaved run: did a change
of the trainer move its speed?

Each round runs, for each tree in turn (A, B, A, B, ...), a fresh Python process on that tree's ``src/``
(``PYTHONPATH``) that builds a `cardgym.train.Trainer`, plays one warm-up iteration and then times
``--iters`` iterations (`collect` + `update`) with ``time.process_time``; it prints learner steps per
CPU-second of each tree (the best of its rounds) and their ratio. Set-up, compilation and evaluations are
not timed. ``--teacher`` adds the teacher's labels (e.g. ``search``) in the tree that has the option.

Usage::

    python benchmarks/compare_trainer.py /tmp/before . --game skyjo --rounds 3   # after: git worktree add /tmp/before REV
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, tempfile, time
from cardgym.train import Config, Trainer
game, envs, rollout, iters, teacher = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
with tempfile.TemporaryDirectory() as out:
    cfg = Config(game=game, out=out, num_envs=envs, rollout=rollout, imitate=teacher, imitate_steps=0,
                 opponents="random:0.5,greedy:0.5", threads=1, progress=False)
    tr = Trainer(cfg)
    tr._assign()
    tr.update(tr.collect())  # warm-up: first calls, torch's first allocations
    c0 = time.process_time()
    for _ in range(iters):
        tr.update(tr.collect())
    print(json.dumps({"steps_per_cpu_s": iters * envs * rollout / (time.process_time() - c0)}))
"""


def run_once(tree: Path, args) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), OMP_WAIT_POLICY="PASSIVE")
    env.pop("NUMBA_CACHE_DIR", None)  # each tree's own in-tree cache
    cmd = [sys.executable, "-c", CHILD, args.game, str(args.envs), str(args.rollout), str(args.iters), args.teacher]
    out = subprocess.run(cmd, env=env, cwd=tree, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["steps_per_cpu_s"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path, help="the first source tree")
    ap.add_argument("after", type=Path, help="the second source tree")
    ap.add_argument("--game", default="skyjo")
    ap.add_argument("--envs", type=int, default=1024)
    ap.add_argument("--rollout", type=int, default=64)
    ap.add_argument("--iters", type=int, default=3, help="timed iterations per run")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each tree, interleaved")
    ap.add_argument("--teacher", default="", help="a teacher bot (default: none)")
    args = ap.parse_args(argv)
    trees = [args.before.resolve(), args.after.resolve()]
    for tree in trees:
        if not (tree / "src" / "cardgym" / "train").is_dir():
            ap.error(f"{tree} is not a cardgym source tree (no src/cardgym/train)")
    runs: list = [[], []]
    for r in range(args.rounds):
        for k, tree in enumerate(trees):
            runs[k].append(run_once(tree, args))
            print(f"round {r + 1}/{args.rounds}: {tree}: {runs[k][-1]:,.0f} learner steps per CPU-second",
                  file=sys.stderr, flush=True)
    a, b = max(runs[0]), max(runs[1])
    print(f"{args.game}, {args.envs} games x {args.rollout} steps, teacher {args.teacher or 'none'}: learner steps "
          f"per CPU-second, best of {args.rounds} interleaved runs of {args.iters} iterations each")
    print(f"before {a:,.0f}  after {b:,.0f}  after / before {b / a:.3f}")
    print("every run: before " + ", ".join(f"{x:,.0f}" for x in runs[0]) + "; after "
          + ", ".join(f"{x:,.0f}" for x in runs[1]))


if __name__ == "__main__":
    main()
