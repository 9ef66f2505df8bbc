"""RLlib PPO at batch speed: every EnvRunner steps a compiled batch of cardgym games.

Unlike ``examples/rllib_multiagent.py`` (one Python AEC env per decision, about 280 env steps/s), each
RLlib EnvRunner here builds its env with ``gymnasium.make_vec(..., vectorization_mode=
"vector_entry_point")``: ``cardgym.wrappers.rllib_vector_env`` wraps the compiled vector env
(``gymnasium.make_vec("cardgym/Skyjo-v0", num_envs=N)``) so that one ``step()`` plays
``--envs-per-runner`` games at once, opponents included. The learner plays one seat; the other seats
are played by the game's bots (``--opponents random,greedy`` splits each runner's batch into one block
per bot) inside the compiled step, and by ``self``: a frozen copy of the learner's policy (sampling its
masked softmax) on each EnvRunner, refreshed from the weights RLlib pushes to the runner every
``--snapshot-every`` iterations (random legal moves until the first copy). The policy is ``cardgym.wrappers.rllib_module.MaskedMLPModule``
(masked logits, value head) over ``{"observations", "action_mask"}``.

Install Ray in a virtual environment of its own (ray[rllib] 2.60 pins gymnasium 1.2.2), torch first so
that pip takes the CPU wheel:

    python3 -m venv /work/venvs/ray
    /work/venvs/ray/bin/pip install torch==2.13.0
    /work/venvs/ray/bin/pip install -e '.[train,dev]' 'ray[rllib]==2.60.0'
    /work/venvs/ray/bin/python examples/rllib_batched.py --game skyjo --iterations 10

``--num-env-runners 0`` samples in the driver process; ``N > 0`` starts N EnvRunner actors (each with
its own batch of ``--envs-per-runner`` games). Ray starts locally by default; ``--address`` joins a
cluster (see ``examples/rllib_multiagent.py``). ``--minutes`` stops training after that wall time.
After training, the greedy policy plays duplicate games against every bot (``cardgym.eval.match``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from cardgym import GAMES


class ModulePolicy:
    """An RLlib RLModule as a cardgym batched policy (``act(obs, masks)``): greedy over the legal
    actions, or (``sample=True``) drawn from the masked softmax."""

    def __init__(self, module, sample: bool = False, seed: int = 0):
        self.module = module
        self.sample = sample
        self.rng = np.random.default_rng(seed)

    def act(self, obs, masks):
        import torch

        masks = np.asarray(masks)
        batch = {"obs": {"observations": torch.as_tensor(np.asarray(obs, np.float32)),
                         "action_mask": torch.as_tensor(masks.astype(np.float32))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"].numpy()
        logits = np.where(masks > 0, logits, -np.inf)
        if not self.sample:
            return logits.argmax(axis=1).astype(np.int64)
        gumbel = -np.log(-np.log(self.rng.random(logits.shape)))  # argmax(logits + Gumbel) ~ softmax
        return (logits + gumbel).argmax(axis=1).astype(np.int64)

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


def snapshot_callback(every: int):
    """An RLlib callback class: after every ``every``-th sample of an EnvRunner, the ``"self"``
    opponents of its env (`cardgym.wrappers.PolicySlot`) get a frozen copy of the runner's RLModule
    (which holds the weights the learner pushed to it)."""
    import copy

    from ray.rllib.callbacks.callbacks import RLlibCallback

    class SnapshotOpponents(RLlibCallback):
        def __init__(self):
            super().__init__()
            self.samples = 0

        def on_sample_end(self, *, env_runner=None, metrics_logger=None, samples=None, **kwargs):
            slots = getattr(env_runner.env.unwrapped, "policy_slots", [])
            self.samples += 1
            if not slots or self.samples % every:
                return
            for k, slot in enumerate(slots):
                if slot.policy is None:
                    slot.set_policy(ModulePolicy(copy.deepcopy(env_runner.module), sample=True, seed=k))
                else:
                    slot.policy.module.load_state_dict(env_runner.module.state_dict())
                    slot.updates += 1
            if metrics_logger is not None:
                metrics_logger.log_value("snapshot_updates", slots[0].updates, reduce="max")

    return SnapshotOpponents


def build_config(a):
    """The PPOConfig: compiled vector env per EnvRunner, MaskedMLPModule, one learner in the driver."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from cardgym.wrappers import rllib_vector_env
    from cardgym.wrappers.rllib_module import MaskedMLPModule  # imports Ray: only here

    register_env("cardgym_vec", rllib_vector_env)
    env_config = {"game": a.game, "num_players": a.players, "opponent": a.opponents.split(","), "seat": a.seat}
    if getattr(a, "reward", None) is not None:
        env_config["reward"] = a.reward  # the game's reward option (Skyjo: "score", per-round points)
    config = (
        PPOConfig()
        # RLlib's env pre-check steps unmasked random actions (illegal moves); off
        .environment("cardgym_vec", env_config=env_config, disable_env_checking=True)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule,
                                               model_config={"hidden": a.hidden, "vf_share_layers": False}))
        .env_runners(num_env_runners=a.num_env_runners, num_envs_per_env_runner=a.envs_per_runner,
                     gym_env_vectorize_mode="vector_entry_point", num_cpus_per_env_runner=1,
                     # RLlib's default is 60 s; Ray runs EnvRunner actors at niceness 15, and on a busy
                     # machine a sample can take longer (the iteration then returns no steps at all)
                     sample_timeout_s=getattr(a, "sample_timeout", 600.0),
                     rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=a.train_batch, minibatch_size=min(a.minibatch, a.train_batch),
                  num_epochs=a.epochs, lr=a.lr, entropy_coeff=a.ent_coef, gamma=a.gamma)
        .debugging(seed=a.seed)
    )
    if "self" in env_config["opponent"]:
        config = config.callbacks(snapshot_callback(a.snapshot_every))
    return config


def fmt(x, spec=".3f"):
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="skyjo", choices=sorted(GAMES))
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="random,greedy", help="bots of the other seats, or 'self' (the "
                   "learner's snapshots); comma-separated: each runner's batch is split into one block each")
    p.add_argument("--snapshot-every", type=int, default=5, help="iterations between 'self' snapshots")
    p.add_argument("--seat", default="random", help="the learner's seat, or 'random'")
    p.add_argument("--reward", default=None, help="the game's reward option ('win', 'score'; default: the game's)")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--minutes", type=float, default=None, help="stop training after this wall time")
    p.add_argument("--envs-per-runner", type=int, default=1024, help="games in each EnvRunner's batch")
    p.add_argument("--train-batch", type=int, default=32768, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=4096)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--sample-timeout", type=float, default=600.0,
                   help="seconds RLlib waits for the EnvRunners' samples in an iteration (RLlib's default: 60)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)")
    p.add_argument("--eval-games", type=int, default=200, help="duplicate games per bot at the end (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write results.json (and an RLlib checkpoint) here")
    a = p.parse_args(argv)
    if a.seat != "random":
        a.seat = int(a.seat)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads slow a busy machine

    import ray

    t_start = time.perf_counter()
    where = init_ray(a.address, a.num_cpus)
    print(f"ray {ray.__version__} ({where}) up in {time.perf_counter() - t_start:.1f}s", flush=True)
    algo = build_config(a).build_algo()
    print(f"PPO built in {time.perf_counter() - t_start:.1f}s ({a.num_env_runners} EnvRunners x "
          f"{a.envs_per_runner} games)", flush=True)
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
            "episodes": int(er.get("num_episodes_lifetime", 0)),
            "episode_len_mean": er.get("episode_len_mean"),
            "episode_return_mean": er.get("episode_return_mean"),
            "entropy": res.get("learners", {}).get("default_policy", {}).get("entropy"),
            "iteration_seconds": round(dt, 2),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        row["steps_per_second"] = round(row["iteration_env_steps"] / dt, 1) if dt > 0 else None
        for key in ("episode_len_mean", "episode_return_mean", "entropy"):  # numpy/torch scalars -> JSON
            row[key] = None if row[key] is None else round(float(row[key]), 4)
        history.append(row)
        print(f"iter {it:3d}  steps {steps:9d}  episodes {row['episodes']:6d}  len {fmt(row['episode_len_mean'], '.1f')}"
              f"  return {fmt(row['episode_return_mean'], '+.3f')}  entropy {fmt(row['entropy'])}  "
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
    result = {"game": a.game, "players": a.players, "opponents": a.opponents, "reward": a.reward, "ray": ray.__version__,
              "address": where, "num_env_runners": a.num_env_runners, "envs_per_runner": a.envs_per_runner,
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
