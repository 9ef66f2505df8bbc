"""cardgym tour: every game through each API, and how the bots do against each other.

    python examples/tour.py [--games 2000]

1. PettingZoo AEC: one Skyjo game, greedy (player_0) against random, shown move by move at the end;
2. Gymnasium single-agent: the learner's seat played by the greedy bot against a random opponent;
3. the batched vector env: thousands of games at once, greedy learner against random opponents;
4. the bot ladder: duplicate matches (``cardgym.eval``) of expert against greedy and greedy against random.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import cardgym
from cardgym import skyjo_v0


def aec_demo():
    env = skyjo_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    raw = env.unwrapped
    moves = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        bot = "greedy" if agent == "player_0" else "random"
        env.step(raw.bot_action(bot))
        moves += 1
    print(f"[AEC] one Skyjo game, greedy player_0 vs random player_1: {moves} decisions")
    print(raw.render())
    print(f"result: {raw.result()}")


def single_agent_demo(name, episodes):
    env = gym.make(cardgym.GAMES[name].gym_id, opponent="random", seat="random")
    wins = 0
    for ep in range(episodes):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            obs, reward, term, trunc, info = env.step(env.unwrapped.bot_action("greedy"))
            done = term or trunc
        wins += reward > 0
    print(f"[Gymnasium] {cardgym.GAMES[name].gym_id}: greedy won {wins}/{episodes} episodes against random")


def vector_eval(name, games, num_envs=512, **opts):
    vec = cardgym.make_vec(name, num_envs, opponent="random", seat="random", **opts)
    vec.reset(seed=0)
    wins = losses = draws = 0
    t0 = time.perf_counter()
    while wins + losses + draws < games:
        _, rew, term, trunc, _ = vec.step(vec.bot_actions("greedy"))
        done = term | trunc
        wins += int(np.sum(done & (rew > 0)))
        losses += int(np.sum(done & (rew < 0)))
        draws += int(np.sum(done & (rew == 0)))
    dt = time.perf_counter() - t0
    n = wins + losses + draws
    print(
        f"[vector] {name:14s} {opts.get('num_players', 2)} players: greedy vs random won {wins / n:6.1%} "
        f"(lost {losses / n:.1%}, drawn {draws / n:.1%}) of {n} games in {dt:.1f} s"
    )


def ladder(name, games):
    from cardgym import eval as ev

    bots = cardgym.get_game(name).bots
    for a, b in (("expert", "greedy"), ("greedy", "random")):
        if a not in bots:  # a game may ship only the random and greedy bots
            continue
        r = ev.match(name, a, b, games=games, seed=0)
        lo, hi = r["ci95"]
        print(f"[eval] {name:14s} {a} vs {b}: {r['a_win_rate']:6.1%} (95% CI {lo:.1%}-{hi:.1%}) "
              f"over {r['games']} duplicate games")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games per vector evaluation and per match")
    ap.add_argument("--episodes", type=int, default=20, help="single-agent episodes per game")
    args = ap.parse_args(argv)
    aec_demo()
    for name in cardgym.GAMES:
        single_agent_demo(name, args.episodes)
    for name in cardgym.GAMES:
        vector_eval(name, args.games, num_players=2)
    for name in cardgym.GAMES:
        ladder(name, args.games)


if __name__ == "__main__":
    main()
