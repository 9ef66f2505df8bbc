"""CPU-milliseconds per teacher label in the trainer (``cardgym train GAME --teacher BOT|agent``).

The trainer labels the learner's states of a whole batch in one call: a bot through
``CardGameVectorEnv.bot_actions`` (one compiled call over the batch's records), a model through one
forward pass (``TorchPolicy.act``). This times that call with ``time.process_time`` on the states of
``--envs`` games of the vector env (2 players, default rules, the expert in both seats) over ``--steps``
steps, after one untimed call (compilation or cache loading). CPU time does not count the time other
processes take, so a shared machine moves the figures less than wall time would.

Usage: ``python benchmarks/teacher_cost.py --games skyjo,skipbo,skipbo_junior --teachers search,expert,agent``
"""

from __future__ import annotations

import argparse
import time

import cardgym
from cardgym.core.envs.vector import CardGameVectorEnv


def measure(game: str, teachers: list, envs: int, steps: int) -> dict:
    """CPU-ms per label of each teacher the game has, on the same states."""
    spec = cardgym.get_game(game)
    vec = CardGameVectorEnv(spec, envs, opponent="expert", seat="random", autoreset_mode="same_step")
    obs, _ = vec.reset(seed=5)
    label = {}
    for t in teachers:
        if t == "agent":
            from cardgym.agents.pretrained import load_agent

            pol = load_agent(spec)
            label[t] = lambda o, m, pol=pol: pol.act(o, m)
        elif t in spec.bots:
            label[t] = lambda o, m, t=t: vec.bot_actions(t)
    for f in label.values():  # compile or load before timing
        f(obs, vec.action_masks())
    spent = dict.fromkeys(label, 0.0)
    for _ in range(steps):
        masks = vec.action_masks()
        for t, f in label.items():
            c0 = time.process_time()
            f(obs, masks)
            spent[t] += time.process_time() - c0
        obs, *_ = vec.step(vec.bot_actions("expert"))
    return {t: 1000.0 * s / (envs * steps) for t, s in spent.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default="skyjo,skipbo,skipbo_junior")
    ap.add_argument("--teachers", default="search,expert,agent", help="bots of the game, or agent")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=60)
    args = ap.parse_args(argv)
    teachers = args.teachers.split(",")
    games = args.games.split(",")
    for g in games:
        if g not in cardgym.GAMES:
            ap.error(f"--games: {g!r} is not a game ({', '.join(sorted(cardgym.GAMES))})")
    known = {"agent"}.union(*(cardgym.get_game(g).bots for g in games))
    for t in teachers:
        if t not in known:
            ap.error(f"--teachers: {t!r} is neither agent nor a bot of {', '.join(games)} ({', '.join(sorted(known))})")
    print(f"CPU-ms per label, {args.envs} games x {args.steps} steps (expert vs expert states)\n")
    print("| game | " + " | ".join(teachers) + " |")
    print("|---|" + "---:|" * len(teachers))
    for g in games:
        ms = measure(g, teachers, args.envs, args.steps)
        print(f"| {g} | " + " | ".join(f"{ms[t]:.4f}" if t in ms else "-" for t in teachers) + " |", flush=True)


if __name__ == "__main__":
    main()
