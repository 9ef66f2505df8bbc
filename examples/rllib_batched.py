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

    python3 -m venv .venv-ray
    .venv-ray/bin/pip install torch==2.13.0
    .venv-ray/bin/pip install -e '.[train,dev]' 'ray[rllib]==2.60.0'
    .venv-ray/bin/python examples/rllib_batched.py --game skyjo --iterations 10

``--init MODEL`` warm-starts the policy from a model file of cardgym's trainer (``cardgym train``'s
``model.pt``, or ``agent``: the agent shipped for the game): ``MaskedMLPModule`` takes that network's shape
and weights, value head included (``model_config={"init": path}``). From scratch, PPO here beats
``random`` but not ``greedy`` in 30 minutes; cloning the expert first gets there (docs/training.md, "Warm
start"):

    cardgym train skyjo --pretrain-steps 1e6 --pretrain-epochs 8 --steps 65536 --imitate-steps 65536 \
        --eval-every 0 --final-eval-games 200 --out runs/clone
    python examples/rllib_batched.py --game skyjo --init runs/clone/model.pt --opponents greedy,self \
        --lr 1e-4 --ent-coef 0.003 --minutes 20 --eval-games 2000

(measured: 22.8 minutes in all, then 100% against random and 65.9% against greedy).

``--num-env-runners 0`` samples in the driver process; ``N > 0`` starts N EnvRunner actors (each with
its own batch of ``--envs-per-runner`` games). Ray starts locally by default; ``--address`` joins a
cluster (see ``examples/rllib_multiagent.py``). ``--minutes`` stops training after that wall time.
After training, the greedy policy plays duplicate games against every bot (``cardgym.eval.match``).

It sets ``OMP_WAIT_POLICY=PASSIVE`` (unless set) before torch is imported, as the built-in trainer does:
on a busy 2-core machine torch's spinning OpenMP threads otherwise make the update about 3x slower (a
hand-written SB3 loop on cardgym ran 3x slower without it). Do the same in a torch loop of your own.
"""

from __future__ import annotations

import argparse
import os

from cardgym import GAMES
from cardgym.wrappers.rllib_tools import require_rllib, ppo_config, start_ppo, add_ppo_arguments, finish_run, ModulePolicy, evaluate_vs_bots, train_loop


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
                # a new frozen copy each time: games in progress finish against the copy they started with
                slot.set_policy(ModulePolicy(copy.deepcopy(env_runner.module), sample=True, seed=k + slot.updates))
            if metrics_logger is not None:
                metrics_logger.log_value("snapshot_updates", slots[0].updates, reduce="max")

    return SnapshotOpponents


def build_config(a):
    """The PPOConfig: compiled vector env per EnvRunner, MaskedMLPModule, one learner in the driver."""
    from ray.tune.registry import register_env

    from cardgym.wrappers import rllib_vector_env

    register_env("cardgym_vec", rllib_vector_env)
    env_config = {"game": a.game, "num_players": a.players, "opponent": a.opponents.split(","), "seat": a.seat}
    if getattr(a, "reward", None) is not None:
        env_config["reward"] = a.reward  # the game's reward option (Skyjo: "score", per-round points)
    config = ppo_config(a, "cardgym_vec", env_config, gym_env_vectorize_mode="vector_entry_point")
    if "self" in env_config["opponent"]:
        config = config.callbacks(snapshot_callback(a.snapshot_every))
    return config


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="skyjo", choices=sorted(GAMES))
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="random,greedy", help="bots of the other seats, or 'self' (the "
                   "learner's snapshots); comma-separated: each runner's batch is split into one block each")
    p.add_argument("--snapshot-every", type=int, default=5, help="iterations between 'self' snapshots")
    p.add_argument("--seat", default="random", help="the learner's seat, or 'random'")
    add_ppo_arguments(p, envs_per_runner=1024)
    a = p.parse_args(argv)
    require_rllib()  # a clear "install cardgym[rllib]" instead of a bare ModuleNotFoundError
    if a.seat != "random":
        a.seat = int(a.seat)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads slow a busy machine

    import ray

    algo, where, t_start = start_ppo(a.address, a.num_cpus, lambda: build_config(a),
                                     f" ({a.num_env_runners} EnvRunners x {a.envs_per_runner} games)")
    history, steps_per_s = train_loop(algo, a.iterations, a.minutes)
    final = {}
    if a.eval_games > 0:
        final = evaluate_vs_bots(a.game, ModulePolicy(algo.get_module()), a.players, a.eval_games)
    result = {"game": a.game, "players": a.players, "opponents": a.opponents, "reward": a.reward, "ray": ray.__version__,
              "address": where, "num_env_runners": a.num_env_runners, "envs_per_runner": a.envs_per_runner,
              "steps_per_second": round(steps_per_s, 1), "history": history, "final_eval": final}
    finish_run(algo, a.out, result, t_start)
    return result


if __name__ == "__main__":
    main()
