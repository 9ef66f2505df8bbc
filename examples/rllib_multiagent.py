"""RLlib PPO on a cardgym PettingZoo AEC env: one policy shared by every seat, masked logits.

RLlib pins gymnasium 1.2.x, so use a separate virtual environment (cardgym supports gymnasium>=1.0);
install torch first so that pip takes the CPU wheel rather than a CUDA build:

    python3.11 -m venv /tmp/rllib-venv
    /tmp/rllib-venv/bin/pip install torch==2.13.0
    /tmp/rllib-venv/bin/pip install "ray[rllib]==2.60.0"
    /tmp/rllib-venv/bin/pip install -e .
    /tmp/rllib-venv/bin/python examples/rllib_multiagent.py --game skyjo --iterations 10

The AEC env goes through ``cardgym.wrappers.rllib_keys`` (``observation`` -> ``observations``, mask
-> float32) and RLlib's ``PettingZooEnv``; the policy is cardgym's own action-masking RLModule
``cardgym.wrappers.rllib_module.MaskedMLPModule`` (new API stack: MLP, illegal logits set to the
smallest float32, value head; imported only here, so cardgym itself never needs Ray), mapped to every
seat. Ray starts locally by default (2 CPUs, no dashboard). To use a
cluster, start it (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the
others) and pass ``--address auto`` on a cluster node (or ``--address HEAD:6379``, or set
``RAY_ADDRESS``; an explicit address needs ``RAY_AUTH_MODE=token`` and the head's token in
``RAY_AUTH_TOKEN``, see docs/training.md), raising ``--num-env-runners``. After training, the greedy shared policy plays
duplicate games against every bot of the game (``cardgym.eval.match``; ``--eval-games 0`` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from cardgym import GAMES

POLICY = "shared"


def make_env(env_config: dict):
    """The RLlib multi-agent env: ``PettingZooEnv(rllib_keys(cardgym.<game>.env(**rules)))``."""
    import importlib

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from cardgym.wrappers import rllib_keys

    cfg = dict(env_config)
    module = importlib.import_module(GAMES[cfg.pop("game")].module)
    return PettingZooEnv(rllib_keys(module.env(**cfg)))


class ModulePolicy:
    """An RLlib RLModule as a cardgym batched policy (``act(obs, masks)``, greedy over legal actions)."""

    def __init__(self, module):
        self.module = module

    def act(self, obs, masks):
        import torch

        masks = np.asarray(masks)
        batch = {"obs": {"observations": torch.as_tensor(np.asarray(obs, np.float32)),
                         "action_mask": torch.as_tensor(masks.astype(np.float32))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"].numpy()
        return np.where(masks > 0, logits, -np.inf).argmax(axis=1).astype(np.int64)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])


def init_ray(address: str | None, num_cpus: int):
    """Connect to a Ray cluster (``address`` or ``RAY_ADDRESS``) or start a small local Ray."""
    import ray

    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        # "local": always a new Ray of our own, even if a stale `ray start` left its address behind
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                 object_store_memory=256 * 1024**2, log_to_driver=False)
    return address or "local"


def fmt(x, spec=".3f"):
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="skyjo", choices=sorted(GAMES))
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--train-batch", type=int, default=4000, help="env steps per iteration (per learner)")
    p.add_argument("--minibatch", type=int, default=500)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--address", default=None,
                   help="Ray cluster address ('auto', 'HEAD:6379'); default: $RAY_ADDRESS, else a local Ray")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)")
    p.add_argument("--eval-games", type=int, default=200, help="duplicate games per bot at the end (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write results.json (and an RLlib checkpoint) here")
    a = p.parse_args(argv)
    # torch's spinning OpenMP threads slow a busy machine down (inherited by a local Ray's workers)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cardgym.wrappers.rllib_module import MaskedMLPModule  # imports Ray: only here

    t_start = time.perf_counter()
    where = init_ray(a.address, a.num_cpus)
    print(f"ray {ray.__version__} ({where}) up in {time.perf_counter() - t_start:.1f}s", flush=True)
    register_env("cardgym", make_env)
    config = (
        PPOConfig()
        # RLlib's env pre-check steps random (unmasked) actions: illegal moves, warnings; off.
        .environment("cardgym", env_config={"game": a.game, "num_players": a.players},
                     disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY: RLModuleSpec(module_class=MaskedMLPModule,
                                 model_config={"hidden": a.hidden, "vf_share_layers": False})}))
        .env_runners(num_env_runners=a.num_env_runners, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=a.train_batch, minibatch_size=min(a.minibatch, a.train_batch),
                  num_epochs=a.epochs, lr=a.lr)
        .debugging(seed=a.seed)
    )
    algo = config.build_algo()
    print(f"PPO built in {time.perf_counter() - t_start:.1f}s", flush=True)
    history = []
    t0 = time.perf_counter()
    for it in range(1, a.iterations + 1):
        res = algo.train()
        er = res.get("env_runners", {})
        seat_returns = er.get("agent_episode_returns_mean", {})
        row = {
            "iteration": it,
            "env_steps": int(er.get("num_env_steps_sampled_lifetime", 0)),
            "episodes": int(er.get("num_episodes_lifetime", 0)),
            "episode_len_mean": er.get("episode_len_mean"),
            "episode_return_mean": er.get("episode_return_mean"),
            "episode_return_min": er.get("episode_return_min"),
            "episode_return_max": er.get("episode_return_max"),
            "seat_return_mean": {k: float(v) for k, v in sorted(seat_returns.items())},
            "entropy": res.get("learners", {}).get(POLICY, {}).get("entropy"),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        history.append(row)
        seats = " ".join(f"{k}={fmt(v, '+.3f')}" for k, v in row["seat_return_mean"].items())
        print(f"iter {it:3d}  steps {row['env_steps']:7d}  episodes {row['episodes']:5d}  "
              f"len {fmt(row['episode_len_mean'], '.1f')}  return (all seats) {fmt(row['episode_return_mean'])}  "
              f"per seat: {seats}  "
              f"entropy {fmt(row['entropy'])}  {row['seconds']:.0f}s", flush=True)

    final = {}
    if a.eval_games > 0:
        from cardgym.eval import baseline_bots, match

        policy = ModulePolicy(algo.get_module(POLICY))
        for bot in baseline_bots(a.game):  # random, greedy, expert
            r = match(a.game, policy, bot, num_players=a.players, games=a.eval_games, seed=10**6)
            final[bot] = {k: r[k] for k in ("games", "wins", "draws", "losses", "a_win_rate", "ci95")}
            lo, hi = r["ci95"]
            print(f"vs {bot:<8} win rate {100 * r['a_win_rate']:5.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}, "
                  f"{r['games']} duplicate games: {r['wins']} W / {r['draws']} D / {r['losses']} L)", flush=True)
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        algo.save_to_path(str((out / "checkpoint").resolve()))
        (out / "results.json").write_text(json.dumps(
            {"game": a.game, "players": a.players, "ray": ray.__version__, "address": where,
             "history": history, "final_eval": final}, indent=1) + "\n")
    algo.stop()
    ray.shutdown()
    print(f"total {time.perf_counter() - t_start:.0f}s", flush=True)
    return {"history": history, "final_eval": final}


if __name__ == "__main__":
    main()
