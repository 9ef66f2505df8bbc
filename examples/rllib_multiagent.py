"""RLlib PPO on a cardgym PettingZoo AEC env: one policy shared by every seat, masked logits.

RLlib pins gymnasium 1.2.x, so use a separate virtual environment (cardgym supports gymnasium>=1.0):

    python3 -m venv /tmp/rllib-venv && . /tmp/rllib-venv/bin/activate
    pip install torch==2.13.0 "ray[rllib]" -e .
    python examples/rllib_multiagent.py --game skyjo --iterations 20

The AEC env is wrapped by ``cardgym.wrappers.rllib_keys`` (``observation`` -> ``observations``, mask ->
float32) and RLlib's ``PettingZooEnv``; the policy is RLlib's example ``ActionMaskingTorchRLModule``
(new API stack). Ray starts locally by default; to use a cluster, start it (``ray start --head`` on one
machine, ``ray start --address=HEAD:6379`` on the others) and pass ``--address auto`` (or set
``RAY_ADDRESS``), raising ``--env-runners`` to the cores you have. At the end the shared policy plays
duplicate games against every bot of the game (``cardgym.train.evaluate``) and a results JSON is written.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def make_env(game: str, env_config: dict):
    import importlib

    import cardgym
    from cardgym.wrappers import rllib_keys
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    module = importlib.import_module(cardgym.GAMES[game][0])
    return PettingZooEnv(rllib_keys(module.env(**env_config)))


class ModulePolicy:
    """An RLlib RLModule as a cardgym batched policy (greedy over legal actions)."""

    def __init__(self, module):
        self.module = module

    def act(self, obs, masks):
        import torch

        batch = {"obs": {"observations": torch.as_tensor(np.asarray(obs, np.float32)),
                         "action_mask": torch.as_tensor(np.asarray(masks, np.float32))}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        logits = out["action_dist_inputs"].numpy()
        logits = np.where(np.asarray(masks) > 0, logits, -np.inf)
        return logits.argmax(axis=1).astype(np.int64)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="skyjo")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--batch", type=int, default=4000, help="train_batch_size_per_learner")
    p.add_argument("--env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto'); default: local Ray")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/rllib")
    a = p.parse_args(argv)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    from cardgym.train.evaluate import duplicate_eval, format_result

    ray.init(address=a.address, include_dashboard=False, num_cpus=None if a.address else 2,
             ignore_reinit_error=True, log_to_driver=False)
    env_config = {"num_players": a.players}
    register_env("cardgym_env", lambda cfg: make_env(a.game, cfg))
    config = (
        PPOConfig()
        .environment("cardgym_env", env_config=env_config)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [256, 256]})}))
        .env_runners(num_env_runners=a.env_runners)
        .training(train_batch_size_per_learner=a.batch, minibatch_size=min(a.batch, 1000), num_epochs=4,
                  lr=3e-4)
        .debugging(seed=a.seed)
    )
    algo = config.build_algo() if hasattr(config, "build_algo") else config.build()
    history = []
    t0 = time.perf_counter()
    for it in range(a.iterations):
        res = algo.train()
        steps = res.get("num_env_steps_sampled_lifetime") or res.get("env_runners", {}).get(
            "num_env_steps_sampled_lifetime", 0)
        history.append({"iteration": it + 1, "env_steps": int(steps or 0)})
        print(f"iteration {it + 1}: {steps} env steps, {time.perf_counter() - t0:.0f}s", flush=True)
    module = algo.get_module("shared")
    policy = ModulePolicy(module)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    import cardgym

    final = {}
    for bot in cardgym.get_game(a.game).bots:
        final[bot] = duplicate_eval(a.game, policy, bot, games=a.eval_games, seed=10**6, num_players=a.players)
        print(format_result(bot, final[bot]))
    (out / "results.json").write_text(json.dumps({"game": a.game, "iterations": a.iterations,
                                                  "history": history, "final_eval": final}, indent=1) + "\n")
    algo.stop()
    ray.shutdown()
    return final


if __name__ == "__main__":
    main()
