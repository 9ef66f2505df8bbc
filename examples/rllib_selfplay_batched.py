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

    python3 -m venv .venv-ray
    .venv-ray/bin/pip install torch==2.13.0
    .venv-ray/bin/pip install -e '.[train,dev,rllib]'
    .venv-ray/bin/python examples/rllib_selfplay_batched.py --game skyjo --iterations 10

``--num-env-runners 0`` samples in the driver process; ``N > 0`` starts N EnvRunner actors. Ray starts
locally by default; ``--address`` (or ``RAY_ADDRESS``) joins a running cluster (docs/training.md).
``--minutes`` stops training after that wall time. After training, the greedy policy plays duplicate games
against every bot (``cardgym.eval.match``).

It sets ``OMP_WAIT_POLICY=PASSIVE`` (unless set) before torch is imported, as the built-in trainer does:
on a busy 2-core machine torch's spinning OpenMP threads otherwise make the update about 3x slower (a
hand-written SB3 loop on cardgym ran 3x slower without it). Do the same in a torch loop of your own.
"""

from __future__ import annotations

import argparse
import os

from cardgym.wrappers.rllib_tools import require_rllib, ppo_config, start_ppo, add_ppo_arguments, finish_run, SELFPLAY_ROW, ModulePolicy, evaluate_vs_bots, train_loop


def rule_options(a) -> dict:
    opts = {"num_players": a.players}
    if a.reward is not None:
        opts["reward"] = a.reward
    return opts


def build_config(a):
    """The PPOConfig: SelfPlayEnvRunner over a compiled batch per EnvRunner, MaskedMLPModule, one
    learner in the driver."""
    from ray.tune.registry import register_env

    from cardgym.wrappers.rllib_runner import SelfPlayEnvRunner, selfplay_env_creator  # imports Ray: only here

    register_env("cardgym_selfplay", selfplay_env_creator)
    env_config = {"game": a.game, **rule_options(a)}
    return ppo_config(a, "cardgym_selfplay", env_config, env_runner_cls=SelfPlayEnvRunner)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="skyjo", choices=["skyjo", "skipbo", "skipbo_junior"])
    p.add_argument("--players", type=int, default=2)
    add_ppo_arguments(p, envs_per_runner=512, train_batch_help="env steps (decisions of all seats) per iteration")
    a = p.parse_args(argv)
    require_rllib()  # a clear "install cardgym[rllib]" instead of a bare ModuleNotFoundError
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads slow a busy machine

    import ray

    algo, where, t_start = start_ppo(a.address, a.num_cpus, lambda: build_config(a),
                                     f" ({a.num_env_runners} EnvRunners x {a.envs_per_runner} games, "
                                     "every seat the shared policy)")
    history, steps_per_s = train_loop(algo, a.iterations, a.minutes, SELFPLAY_ROW)
    final = {}
    if a.eval_games > 0:
        final = evaluate_vs_bots(a.game, ModulePolicy(algo.get_module()), a.players, a.eval_games)
    result = {"game": a.game, "players": a.players, "reward": a.reward, "ray": ray.__version__, "address": where,
              "num_env_runners": a.num_env_runners, "envs_per_runner": a.envs_per_runner,
              "steps_per_second": round(steps_per_s, 1), "history": history, "final_eval": final}
    finish_run(algo, a.out, result, t_start)
    return result


if __name__ == "__main__":
    main()
