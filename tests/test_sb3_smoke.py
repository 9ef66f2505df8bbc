"""MaskablePPO (sb3-contrib) trains on the single-agent env and evaluates with masks."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import cardgym

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_maskable_ppo_smoke(name):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.monitor import Monitor

    gym_id = cardgym.GAMES[name].gym_id
    short = {"max_turns": 120}  # an untrained deterministic policy may stall a game until the turn cap
    venv = make_vec_env(gym_id, n_envs=2, seed=0, env_kwargs={"opponent": "random", "render_mode": None, **short})
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(128)
    env = Monitor(gym.make(gym_id, opponent="random", **short))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rewards, lengths = evaluate_policy(model, env, n_eval_episodes=2, return_episode_rewards=True)
    assert len(rewards) == 2 and all(np.isfinite(rewards))
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
    assert info["action_mask"][int(action)] == 1
