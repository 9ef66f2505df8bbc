"""RLlib PPO self-play at batch speed: every seat of every game played by one shared policy.

``examples/rllib_multiagent.py`` is the simplest integration (RLlib's ``PettingZooEnv`` over one AEC env,
one Python env step per decision, about 280 env steps/s). Ray 2.60's multi-agent EnvRunner can hold
several such envs (``num_envs_per_env_runner``), but only as ``SyncVectorMultiAgentEnv``: still one Python
env and one episode update per decision. Here every EnvRunner is a
``cardgym.wrappers.rllib_runner.SelfPlayEnvRunner``: ``--envs-per-runner`` compiled games
(``cardgym.wrappers.rllib_selfplay.SelfPlayBatch``), one forward pass of the shared policy for the seat to
act in every game, one compiled call that plays all those actions, and at the end of each sample one
``SingleAgentEpisode`` per (game, seat) chunk for RLlib's PPO learner: every seat's decisions are trained
on, as with RLlib's multi-agent API and a policy mapped to all agents. The policy is
``cardgym.wrappers.rllib_module.MaskedMLPModule`` over ``{"observations", "action_mask"}``.

Install Ray in its own virtual environment (ray[rllib] 2.60 pins gymnasium 1.2.2), torch first so that pip
takes the CPU wheel (or ``pip install -e '.[rllib]'``, see docs/training.md):

    python3 -m venv /work/venvs/ray
    /work/venvs/ray/bin/pip install torch==2.13.0
    /work/venvs/ray/bin/pip install -e '.[train,dev,rllib]'
    /work/venvs/ray/bin/python examples/rllib_selfplay_batched.py --game skyjo --iterations 10

``--num-env-runners 0`` samples in the driver process; ``N > 0`` starts N EnvRunner actors. Ray starts
locally by default; ``--address`` (or ``RAY_ADDRESS``) joins a running cluster (docs/training.md).
``--minutes`` stops training after that wall time. After training, the greedy policy plays duplicate games
against every bot (``cardgym.eval.match``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np


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
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                 object_store_memory=256 * 1024**2, log_to_driver=False)
    return address or "local"


def rule_options(a) -> dict:
    opts = {"num_players": a.players}
    if a.reward is not None:
        opts["reward"] = a.reward
    return opts


def build_config(a):
    """The PPOConfig: SelfPlayEnvRunner over a compiled batch per EnvRunner, MaskedMLPModule, one
    learner in the driver."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cardgym.wrappers.rllib_module import MaskedMLPModule  # these two import Ray: only here
    from cardgym.wrappers.rllib_runner import SelfPlayEnvRunner, selfplay_env_creator

    register_env("cardgym_selfplay", selfplay_env_creator)
    env_config = {"game": a.game, **rule_options(a)}
    return (
        PPOConfig()
        .environment("cardgym_selfplay", env_config=env_config, disable_env_checking=True)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule,
                                               model_config={"hidden": a.hidden, "vf_share_layers": False}))
        .env_runners(env_runner_cls=SelfPlayEnvRunner, num_env_runners=a.num_env_runners,
                     num_envs_per_env_runner=a.envs_per_runner, num_cpus_per_env_runner=1,
                     # RLlib's default is 60 s; Ray runs EnvRunner actors at niceness 15, and on a busy
                     # machine a sample can take longer (the iteration then returns no steps at all)
                     sample_timeout_s=getattr(a, "sample_timeout", 600.0),
                     rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=a.train_batch, minibatch_size=min(a.minibatch, a.train_batch),
                  num_epochs=a.epochs, lr=a.lr, entropy_coeff=a.ent_coef, gamma=a.gamma)
        .debugging(seed=a.seed)
    )


def fmt(x, spec=".3f"):
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="skyjo", choices=["skyjo", "skipbo", "skipbo_junior"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--reward", default=None, help="the game's reward option ('win', 'score'; default: the game's)")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--minutes", type=float, default=None, help="stop training after this wall time")
    p.add_argument("--envs-per-runner", type=int, default=512, help="games in each EnvRunner's batch")
    p.add_argument("--train-batch", type=int, default=32768, help="env steps (decisions of all seats) per iteration")
    p.add_argument("--minibatch", type=int, default=4096)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--sample-timeout", type=float, default=600.0,
                   help="seconds RLlib waits for the EnvRunners' samples in an iteration (RLlib's default: 60)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: $RAY_ADDRESS, else a local Ray)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)")
    p.add_argument("--eval-games", type=int, default=200, help="duplicate games per bot at the end (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write results.json (and an RLlib checkpoint) here")
    a = p.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads slow a busy machine

    import ray

    t_start = time.perf_counter()
    where = init_ray(a.address, a.num_cpus)
    print(f"ray {ray.__version__} ({where}) up in {time.perf_counter() - t_start:.1f}s", flush=True)
    algo = build_config(a).build_algo()
    print(f"PPO built in {time.perf_counter() - t_start:.1f}s ({a.num_env_runners} EnvRunners x "
          f"{a.envs_per_runner} games, every seat the shared policy)", flush=True)
    history = []
    t0 = time.perf_counter()
    it = 0
    while it < a.iterations or a.minutes is not None:
        if a.minutes is not None and time.perf_counter() - t0 >= 60 * a.minutes:
            break
        it += 1
        t_it = time.perf_counter()
        res = algo.train()
        er = res.get("env_runners", {})
        steps = int(er.get("num_env_steps_sampled_lifetime", 0))
        dt = time.perf_counter() - t_it
        row = {
            "iteration": it,
            "env_steps": steps,
            "iteration_env_steps": steps - (history[-1]["env_steps"] if history else 0),
            "games": int(er.get("num_episodes_lifetime", 0)),
            "game_len_mean": er.get("episode_len_mean"),
            "seat_0_return_mean": er.get("agent_episode_return_mean", {}).get("seat_0"),
            "entropy": res.get("learners", {}).get("default_policy", {}).get("entropy"),
            "iteration_seconds": round(dt, 2),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        row["steps_per_second"] = round(row["iteration_env_steps"] / dt, 1) if dt > 0 else None
        for key in ("game_len_mean", "seat_0_return_mean", "entropy"):  # numpy/torch scalars -> JSON
            row[key] = None if row[key] is None else round(float(row[key]), 4)
        history.append(row)
        print(f"iter {it:3d}  steps {steps:9d}  games {row['games']:6d}  len {fmt(row['game_len_mean'], '.1f')}"
              f"  seat 0 return {fmt(row['seat_0_return_mean'], '+.3f')}  entropy {fmt(row['entropy'])}  "
              f"{row['steps_per_second']:,.0f} steps/s  {row['seconds']:.0f}s", flush=True)
        if a.iterations and a.minutes is None and it >= a.iterations:
            break
    # warm-up excluded: the first iteration compiles or loads kernels and builds the torch graphs
    timed = history[1:] or history
    steps_per_s = sum(r["iteration_env_steps"] for r in timed) / max(1e-9, sum(r["iteration_seconds"] for r in timed))
    print(f"training throughput: {steps_per_s:,.0f} env steps/s (iterations 2..{len(history)}; "
          f"{history[-1]['env_steps'] if history else 0} steps in {time.perf_counter() - t0:.0f}s)", flush=True)

    final = {}
    if a.eval_games > 0:
        from cardgym.eval import baseline_bots, match

        policy = ModulePolicy(algo.get_module())
        for bot in baseline_bots(a.game):  # random, greedy, expert
            r = match(a.game, policy, bot, num_players=a.players, games=a.eval_games, seed=10**6)
            final[bot] = {k: r[k] for k in ("games", "wins", "draws", "losses", "a_win_rate", "ci95")}
            lo, hi = r["ci95"]
            print(f"vs {bot:<8} win rate {100 * r['a_win_rate']:5.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}, "
                  f"{r['games']} duplicate games: {r['wins']} W / {r['draws']} D / {r['losses']} L)", flush=True)
    result = {"game": a.game, "players": a.players, "reward": a.reward, "ray": ray.__version__, "address": where,
              "num_env_runners": a.num_env_runners, "envs_per_runner": a.envs_per_runner,
              "steps_per_second": round(steps_per_s, 1), "history": history, "final_eval": final}
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        algo.save_to_path(str((out / "checkpoint").resolve()))
        (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    algo.stop()
    ray.shutdown()
    print(f"total {time.perf_counter() - t_start:.0f}s", flush=True)
    return result


if __name__ == "__main__":
    main()
