"""Throughput of two source trees of cardgym, measured in one interleaved run: did a change move it?

Runs ``benchmarks/throughput.py --cpu --json`` of each tree in turn, ``--rounds`` times (A, B, A, B, ...),
each tree on its own ``src/`` (``PYTHONPATH``) and its own kernel cache, and prints every row's decisions
per CPU-second of both trees (the best of its runs) and their ratio. Interleaving the runs lets a busy
moment of a shared machine hit both trees alike; CPU-seconds (``time.process_time``, one numba thread) do
not count the time other processes take.

Usage, for the change since a commit::

    git worktree add /tmp/before <commit>
    python benchmarks/compare_trees.py /tmp/before . --games skyjo,skipbo,skipbo_junior

The rows are the ones both trees measure (named by env and API).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def run_once(tree: Path, games: str, seconds: float, out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    env.pop("NUMBA_CACHE_DIR", None)  # each tree's own in-tree cache
    cmd = [sys.executable, str(tree / "benchmarks" / "throughput.py"), "--cpu", "--games", games,
           "--seconds", str(seconds), "--rounds", "2", "--json", str(out)]
    subprocess.run(cmd, env=env, cwd=tree, check=True, stdout=subprocess.DEVNULL)
    rows = json.loads(out.read_text())["rows"]
    return {(r["env"], r["api"]): r["decisions_per_cpu_s"] for r in rows}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path, help="the first source tree (a git worktree of the old commit)")
    ap.add_argument("after", type=Path, help="the second source tree")
    ap.add_argument("--games", default="skyjo,skipbo,skipbo_junior", help="comma-separated games")
    ap.add_argument("--seconds", type=float, default=2.0, help="measuring time per row and run")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each tree, interleaved")
    args = ap.parse_args(argv)
    trees = [args.before.resolve(), args.after.resolve()]
    for tree in trees:
        if not (tree / "benchmarks" / "throughput.py").is_file() or not (tree / "src" / "cardgym").is_dir():
            ap.error(f"{tree} is not a cardgym source tree (no benchmarks/throughput.py or src/cardgym)")
    best: list = [{}, {}]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for k, tree in enumerate(trees):
                print(f"round {r + 1}/{args.rounds}: {tree}", file=sys.stderr, flush=True)
                got = run_once(tree, args.games, args.seconds, Path(tmp) / f"{k}.json")
                for row, rate in got.items():
                    best[k][row] = max(best[k].get(row, 0), rate)
    rows = [row for row in best[0] if row in best[1]]
    print(f"decisions per CPU-second, best of {args.rounds} interleaved runs each\n")
    print("| env | API | before | after | after / before |")
    print("|---|---|---|---|---|")
    for env, api in rows:
        a, b = best[0][(env, api)], best[1][(env, api)]
        print(f"| {env} | {api} | {a:,} | {b:,} | {b / a:.3f} |")


if __name__ == "__main__":
    main()
