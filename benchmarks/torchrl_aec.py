"""Collecting a seat's data from a cardgym AEC env with TorchRL: ``PettingZooWrapper`` against the
loop of ``examples/torchrl_ppo.py``, measured in one run (CPU seconds, so other jobs on the machine do
not count).

- **wrapper**: ``PettingZooWrapper(env(), use_mask=True).rollout(N, break_when_any_done=False)`` with
  random legal actions: TorchRL steps per CPU-second (one step per decision of any seat), and how many
  games paid ``player_0``'s result on a row where ``player_0`` did not act (its ``mask`` is false there).
- **loop**: the example's ``SeatCollector`` (games in lockstep, the learner's decisions batched through
  a fresh ``ProbabilisticActor``, the other seat played by the ``random`` bot): learner decisions per
  CPU-second (each followed by the opponent's decisions).

Usage: ``python benchmarks/torchrl_aec.py [--game skipbo_junior] [--steps 3000] [--envs 32] [--json out.json]``
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import platform
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import cardgym  # noqa: E402
from cardgym.app.options import Parser, integer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def wrapper(game: str, steps: int) -> dict:
    from torchrl.envs import PettingZooWrapper

    mod = importlib.import_module(cardgym.GAMES[game].module)
    env = PettingZooWrapper(env=mod.env(), use_mask=True)
    env.set_seed(0)
    env.rollout(10, break_when_any_done=False)  # warm-up (kernels loaded)
    c = time.process_time()
    td = env.rollout(steps, break_when_any_done=False)
    cpu = time.process_time() - c
    acted = td["player_0", "mask"].flatten()
    paid = td["next", "player_0", "reward"].flatten() != 0
    env.close()
    return {"steps": steps, "cpu_s": round(cpu, 3), "steps_per_cpu_s": round(steps / cpu),
            "games": int(td["next", "done"].sum()), "results_paid": int(paid.sum()),
            "results_paid_where_player_0_did_not_act": int((paid & ~acted).sum())}


def loop(game: str, steps: int, envs: int) -> dict:
    import torch

    spec = importlib.util.spec_from_file_location("torchrl_ppo_example", ROOT / "examples" / "torchrl_ppo.py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    torch.manual_seed(0)
    probe = importlib.import_module(cardgym.GAMES[game].module).raw_env()
    actor, _ = ex.build_modules(probe.observation_space("player_0")["observation"].shape[0],
                                probe.action_space("player_0").n)
    col = ex.SeatCollector(game, envs, {"num_players": 2}, actor, {"random": 1.0}, 0)
    col.collect(4)  # warm-up
    rows = max(1, steps // envs)
    c = time.process_time()
    col.collect(rows)
    cpu = time.process_time() - c
    return {"learner_decisions": rows * envs, "cpu_s": round(cpu, 3),
            "learner_decisions_per_cpu_s": round(rows * envs / cpu)}


def main(argv=None) -> dict:
    ap = Parser(prog="torchrl_aec.py", description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="skipbo_junior", choices=sorted(cardgym.GAMES), help="the game")
    ap.add_argument("--steps", type=integer(10, 10**7), default=3000, help="decisions timed on each path")
    ap.add_argument("--envs", type=integer(1, 4096), default=32, help="games in lockstep on the loop path")
    ap.add_argument("--threads", type=integer(1, 256), default=1, help="torch threads")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args(argv)
    import torch

    torch.set_num_threads(a.threads)
    out = {"game": a.game, "threads": a.threads, "machine": platform.processor() or platform.machine(),
           "wrapper": wrapper(a.game, a.steps), "loop": loop(a.game, a.steps, a.envs)}
    w, lp = out["wrapper"], out["loop"]
    print(f"{a.game}: PettingZooWrapper rollout {w['steps_per_cpu_s']:,} steps per CPU-second; "
          f"{w['results_paid_where_player_0_did_not_act']} of {w['results_paid']} rewards of player_0 "
          f"({w['games']} games) paid on a row where it did not act")
    print(f"{a.game}: the example's loop {lp['learner_decisions_per_cpu_s']:,} learner decisions per CPU-second "
          f"({a.envs} games in lockstep, the random bot in the other seat): "
          f"{lp['learner_decisions_per_cpu_s'] / w['steps_per_cpu_s']:.0f}x")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
