"""MaskablePPO (sb3-contrib) against a chosen bot, with MaskableEvalCallback, a saved model, a duplicate
evaluation against every bot at the end, a results JSON and a learning-curve PNG.

    python examples/sb3_maskable_ppo.py --game skyjo --opponent greedy --steps 2000000 --vec compiled
    python examples/sb3_maskable_ppo.py --game skipbo_junior --opponent random --steps 200000 --vec dummy

``--vec compiled`` (default) trains on ``cardgym.wrappers.sb3.make_vec_env``: every game of the batch, opponents
included, steps in one compiled call (no subprocesses). ``--vec dummy`` uses SB3's ``DummyVecEnv`` over
the single-agent Gymnasium env (``gymnasium.make("cardgym/Skyjo-v0")``), the textbook route.
Outputs in ``--out``: ``model.zip`` (SB3), ``eval/evaluations.npz`` (MaskableEvalCallback),
``results.json`` and ``curve.png``.

It sets ``OMP_WAIT_POLICY=PASSIVE`` (unless set) before torch is imported, as the built-in trainer does:
on a busy 2-core machine torch's spinning OpenMP threads otherwise make the update about 3x slower (a
hand-written SB3 loop on cardgym ran 3x slower without it). Do the same in a torch loop of your own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from cardgym import GAMES


class SB3Policy:
    """A MaskablePPO model as a cardgym policy (``(obs, mask) -> action`` and batched ``act``)."""

    def __init__(self, model):
        self.model = model

    def act(self, obs, masks):
        actions, _ = self.model.predict(np.asarray(obs, np.float32), action_masks=np.asarray(masks).astype(bool),
                                        deterministic=True)
        return np.asarray(actions, np.int64)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description="MaskablePPO on a cardgym game against a bot",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--game", default="skyjo", choices=sorted(GAMES), help="the game")
    p.add_argument("--opponent", default="greedy", help="a bot name (random, greedy, expert) or a model path")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=2, help="players per game")
    p.add_argument("--steps", type=int, default=200_000, help="total env steps of the learner")
    p.add_argument("--vec", choices=["compiled", "dummy"], default="compiled",
                   help="compiled: cardgym.wrappers.sb3.make_vec_env (one compiled batch); dummy: SB3 DummyVecEnv")
    p.add_argument("--envs", type=int, default=64, help="parallel games")
    p.add_argument("--n-steps", type=int, default=128, help="PPO rollout length per env")
    p.add_argument("--batch-size", type=int, default=2048, help="PPO minibatch size")
    p.add_argument("--eval-freq", type=int, default=20_000, help="env steps (all envs) between evaluations")
    p.add_argument("--eval-episodes", type=int, default=20, help="episodes per evaluation")
    p.add_argument("--final-games", type=int, default=400, help="duplicate games against every bot at the end")
    p.add_argument("--seed", type=int, default=0, help="seed of the run")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option of the game, e.g. stock_size=10 (repeatable)")
    p.add_argument("--out", default="runs/sb3", help="output folder")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="SB3's progress bar (default: when stderr is a terminal)")
    a = p.parse_args(argv)
    # torch's spinning OpenMP threads slow a busy machine down (about 3x on 2 cores): before torch loads
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    import cardgym.wrappers.sb3
    from cardgym.eval import baseline_bots
    from cardgym.train.evaluate import duplicate_eval, format_result
    from cardgym.train.plot import line_plot

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    gym_id = cardgym.GAMES[a.game].gym_id
    from cardgym.train.cli import _value

    rules = {"num_players": a.players}
    for kv in a.rule:
        k, _, v = kv.partition("=")
        rules[k] = _value(v)
    if a.vec == "compiled":
        venv = VecMonitor(cardgym.wrappers.sb3.make_vec_env(a.game, a.envs, opponent=a.opponent, **rules))
        venv.seed(a.seed)
    else:
        venv = sb3_make_vec_env(gym_id, n_envs=a.envs, seed=a.seed, vec_env_cls=DummyVecEnv,
                                env_kwargs={"opponent": a.opponent, "seat": "random", "render_mode": None, **rules})
    eval_env = DummyVecEnv([lambda: Monitor(gym.make(gym_id, opponent=a.opponent, seat="random", **rules))])
    eval_env.seed(a.seed + 12345)
    callback = MaskableEvalCallback(eval_env, n_eval_episodes=a.eval_episodes,
                                    eval_freq=max(1, a.eval_freq // a.envs), log_path=str(out / "eval"),
                                    best_model_save_path=None, deterministic=True, verbose=1)
    model = MaskablePPO("MlpPolicy", venv, n_steps=a.n_steps, batch_size=min(a.batch_size, a.n_steps * a.envs),
                        n_epochs=4, learning_rate=3e-4, gamma=0.997, ent_coef=0.01, seed=a.seed, verbose=0,
                        policy_kwargs={"net_arch": [256, 256]}, device="cpu")
    progress = sys.stderr.isatty() if a.progress is None else a.progress
    print(f"MaskablePPO on {a.game} against {a.opponent}: {a.steps:,} steps on {a.envs} envs ({a.vec}); "
          f"an evaluation line every {a.eval_freq:,} steps", flush=True)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.learn(a.steps, callback=callback, progress_bar=progress)
    wall = time.perf_counter() - t0
    model.save(out / "model.zip")
    policy = SB3Policy(MaskablePPO.load(out / "model.zip", device="cpu"))
    final = {}
    for bot in baseline_bots(a.game):  # random, greedy, expert
        final[bot] = duplicate_eval(a.game, policy, bot, games=a.final_games, seed=10**6, **rules)
        print(format_result(bot, final[bot]))
    ev = np.load(out / "eval" / "evaluations.npz")
    curve = {"timesteps": ev["timesteps"].tolist(), "mean_reward": ev["results"].mean(axis=1).round(4).tolist()}
    line_plot(out / "curve.png", {f"vs {a.opponent} (mean reward)": (curve["timesteps"], curve["mean_reward"])},
              title=f"MaskablePPO on {a.game}", xlabel="env steps", ylabel="mean episode reward")
    results = {"game": a.game, "opponent": a.opponent, "steps": a.steps, "vec": a.vec, "seed": a.seed,
               "eval_curve": curve, "final_eval": final}
    (out / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    (out / "timing.json").write_text(json.dumps({"wall_s": round(wall, 1),
                                                 "steps_per_s": round(a.steps / wall)}) + "\n")
    print(f"{a.steps} steps in {wall:.0f}s; model {out / 'model.zip'}, results {out / 'results.json'}")
    return results


if __name__ == "__main__":
    main()
