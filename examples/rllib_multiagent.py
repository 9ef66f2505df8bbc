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

It sets ``OMP_WAIT_POLICY=PASSIVE`` (unless set) before torch is imported, as the built-in trainer does:
on a busy 2-core machine torch's spinning OpenMP threads otherwise make the update about 3x slower (a
hand-written SB3 loop on cardgym ran 3x slower without it). Do the same in a torch loop of your own.
"""

from __future__ import annotations

import argparse
import os
import time

from cardgym import GAMES
from cardgym.wrappers.rllib_tools import require_rllib, ModulePolicy, evaluate_vs_bots, finish_run, fmt, start_ppo

POLICY = "shared"


def make_env(env_config: dict):
    """The RLlib multi-agent env: ``PettingZooEnv(rllib_keys(cardgym.<game>.env(**rules)))``."""
    import importlib

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from cardgym.wrappers import rllib_keys

    cfg = dict(env_config)
    module = importlib.import_module(GAMES[cfg.pop("game")].module)
    return PettingZooEnv(rllib_keys(module.env(**cfg)))


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
    require_rllib()  # a clear "install cardgym[rllib]" instead of a bare ModuleNotFoundError
    # torch's spinning OpenMP threads slow a busy machine down (inherited by a local Ray's workers)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cardgym.wrappers.rllib_module import MaskedMLPModule  # imports Ray: only here

    def build():  # called once Ray is up
        register_env("cardgym", make_env)
        return (
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

    algo, where, t_start = start_ppo(a.address, a.num_cpus, build)
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
        final = evaluate_vs_bots(a.game, ModulePolicy(algo.get_module(POLICY)), a.players, a.eval_games)
    finish_run(algo, a.out, {"game": a.game, "players": a.players, "ray": ray.__version__, "address": where,
                             "history": history, "final_eval": final}, t_start)
    return {"history": history, "final_eval": final}


if __name__ == "__main__":
    main()
