"""The Python PIMC search (examples/pimc.py) against the compiled ``search`` bot, both against the
``expert``, on the same duplicate deals and at the same budget (the compiled search's: Skyjo 32 rollouts
per candidate, horizon 2 turns, greedy rollouts, z = 2).

The games run in chunks of ``--chunk`` duplicate games (chunk ``k``: deals ``seed + k * chunk / 2``
onwards, each played from both seats); after every chunk the totals so far are written to ``--out``
(JSON), so an interrupted run still reports its largest completed count. Then the cost per decision of
both players is timed on the same positions (``--cost-games`` games of the expert against itself,
each searcher asked at every decision).

Usage: ``python benchmarks/pimc_vs_search.py [--game skyjo] [--games 2000] [--chunk 200] [--seed 0]
[--out pimc.json]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path


import cardgym
from cardgym import eval as ev
from cardgym.eval.stats import wilson

ROOT = Path(__file__).resolve().parents[1]


def _pimc():
    spec = importlib.util.spec_from_file_location("pimc_example", ROOT / "examples" / "pimc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class CompiledSearchPlayer:
    """The compiled ``search`` bot played as a Python player (``act_records`` on copies of the records),
    the path the Python search is evaluated on: each copy gets a fresh bot generator seeded from one step
    of its record's, which the episode driver advances (docs/hidden_information.md), so no decision
    draws the seed of an earlier one."""

    def __init__(self, game_name):
        self.game = cardgym.get_game(game_name)
        self.rules = self.game.make_rules()

    def act_records(self, records, masks):
        from cardgym.core.contract import worlds

        return worlds.bot_actions(self.game, self.rules, records, "search")

    def act(self, obs, masks):
        raise TypeError("needs the records")

    __call__ = act


def cost(game_name: str, games: int, seed: int) -> dict:
    """Milliseconds per decision of the Python player and of the compiled search on the same positions."""
    pimc = _pimc()
    game = cardgym.get_game(game_name)
    player = pimc.Player(game_name, seed=seed)
    _, mod = game, __import__(cardgym.GAMES[game_name].module, fromlist=["raw_env"])
    env = mod.raw_env()
    env.reset(seed=seed)
    env.bot_action("search")
    player.choose(env.record)
    spent = {"pimc": 0.0, "search": 0.0}
    n = 0
    for g in range(games):
        env.reset(seed=seed + g)
        while env.agents and not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            probe = env.clone()
            t = time.perf_counter()
            probe.bot_action("search")
            spent["search"] += time.perf_counter() - t
            t = time.perf_counter()
            player.choose(env.record)
            spent["pimc"] += time.perf_counter() - t
            n += 1
            env.step(env.bot_action("expert"))
    return {"decisions": n, **{f"{k}_ms": round(1000 * v / n, 3) for k, v in spent.items()}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="skyjo")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cost-games", type=int, default=3)
    ap.add_argument("--out", default="")
    ap.add_argument("--arms", default="pimc,search",
                    help="comma-separated: pimc, search (in-game), search_py (the compiled search as a Python player)")
    args = ap.parse_args(argv)
    pimc = _pimc()
    player = pimc.Player(args.game, seed=args.seed)
    arms = [a for a in args.arms.split(",") if a]
    who_of = {"pimc": player, "search": "search", "search_py": CompiledSearchPlayer(args.game)}
    if not arms or any(a not in who_of for a in arms):
        raise SystemExit(f"--arms takes {sorted(who_of)}, got {args.arms!r}")
    totals = {a: [0.0, 0, 0.0] for a in arms}  # points, games, seconds
    result = {"game": args.game, "budget": repr(player), "seed": args.seed}
    done = 0
    while done < args.games:
        k = min(args.chunk, args.games - done)
        for name in arms:
            who = who_of[name]
            r = ev.match(args.game, who, "expert", games=k, seed=args.seed + done // 2)
            tot = totals[name]
            tot[0] += r["wins"] + 0.5 * r["draws"]
            tot[1] += r["games"]
            tot[2] += r["seconds"]
        done += k
        for name, (points, n, secs) in totals.items():
            lo, hi = wilson(points, n)
            result[name] = {"games": n, "win_rate": round(points / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
                            "seconds": round(secs, 1)}
        if "pimc" in arms:
            result["pimc"]["ms_per_decision_in_games"] = round(1000 * player.seconds / max(player.decisions, 1), 3)
            result["pimc"]["decisions"] = player.decisions
        print(json.dumps({k: result[k] for k in arms}), flush=True)
        if args.out:
            Path(args.out).write_text(json.dumps(result, indent=2))
    if args.cost_games:
        result["cost_same_positions"] = cost(args.game, args.cost_games, args.seed)
        print(json.dumps(result["cost_same_positions"]), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"{args.game} against the expert, {done} duplicate games each: " + ", ".join(
        f"{a} {100 * result[a]['win_rate']:.1f}% {[round(100 * x, 1) for x in result[a]['ci95']]}" for a in arms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
