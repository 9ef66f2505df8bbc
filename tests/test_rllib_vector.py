"""The compiled vector env for RLlib's single-agent EnvRunners (``cardgym.wrappers.rllib_vector``) and
``examples/rllib_batched.py``.

Without Ray: the adapter's spaces, observations, opponent blocks and seeds against ``cardgym.make_vec``,
driven the way RLlib's ``SingleAgentEnvRunner`` drives it (``DictInfoToList``, next-step autoreset).
With Ray (skipped with the reason when ``ray.rllib`` does not import): RLlib builds the env through
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``, samples legal actions with
``MaskedMLPModule`` and runs a PPO update.
"""

from __future__ import annotations

import argparse
import json
import importlib.util
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import cardgym
from cardgym.core.envs.vector import CardGameVectorEnv
from cardgym.wrappers import RLlibVectorEnv, rllib_vector_env
from conftest import assert_ppo_update_learns

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_batched.py"


def _example():
    spec = importlib.util.spec_from_file_location("rllib_batched", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rllib_batched", mod)
    spec.loader.exec_module(mod)  # imports no Ray at module level
    return mod


def test_rllib_vector_env_observations_match_the_vector_env():
    env = rllib_vector_env({"game": "skipbo", "num_envs": 6, "opponent": "greedy", "stock_size": 5})
    ref = cardgym.make_vec("skipbo", 6, opponent="greedy", stock_size=5)
    assert isinstance(env, gym.vector.VectorEnv) and env.num_envs == 6
    assert set(env.single_observation_space.spaces) == {"observations", "action_mask"}
    assert env.single_observation_space["observations"] == ref.single_observation_space
    assert env.single_observation_space["action_mask"].shape == (ref.single_action_space.n,)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=3)
    r_obs, r_info = ref.reset(seed=3)
    assert info == {}
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        assert env.observation_space.contains(obs)
        assert obs["action_mask"].dtype == np.float32
        np.testing.assert_array_equal(obs["observations"], r_obs)
        np.testing.assert_array_equal(obs["action_mask"], r_info["action_mask"].astype(np.float32))
        np.testing.assert_array_equal(env.action_masks(), ref.action_masks())
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]])
        prev = obs
        obs, rew, term, trunc, info = env.step(acts)
        r_obs, r_rew, r_term, r_trunc, r_info = ref.step(acts)
        np.testing.assert_array_equal(rew, r_rew)
        np.testing.assert_array_equal(term, r_term)
        np.testing.assert_array_equal(trunc, r_trunc)
        assert not np.shares_memory(prev["observations"], obs["observations"]), "fresh arrays every step"
        ends += int(term.sum())
    assert ends > 0


def test_rllib_vector_env_splits_the_batch_over_opponents():
    env = RLlibVectorEnv("skyjo", 7, opponent=["random", "greedy", "expert"], keep_info=True)
    assert [e.num_envs for e in env.envs] == [3, 2, 2]
    assert [e._which_bot for e in env.envs] == [cardgym.get_game("skyjo").bot_index(b)
                                                for b in ("random", "greedy", "expert")]
    obs, info = env.reset(seed=10)
    assert set(info) == {"action_mask", "_action_mask", "seat", "_seat"} and info["seat"].shape == (7,)
    # block k is a vector env of its own seeded like games lo.. of one batch: game i gets seed + i
    blocks = [cardgym.make_vec("skyjo", n, opponent=b) for n, b in ((3, "random"), (2, "greedy"), (2, "expert"))]
    refs = [b.reset(seed=10 + lo)[0] for b, lo in zip(blocks, (0, 3, 5))]
    np.testing.assert_array_equal(obs["observations"], np.concatenate(refs))
    rng = np.random.default_rng(1)
    for _ in range(50):
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]])
        obs, rew, term, trunc, info = env.step(acts)
        outs = [b.step(acts[lo:hi]) for b, lo, hi in zip(blocks, (0, 3, 5), (3, 5, 7))]
        np.testing.assert_array_equal(obs["observations"], np.concatenate([o[0] for o in outs]))
        np.testing.assert_array_equal(rew, np.concatenate([o[1] for o in outs]))
    obs, _ = env.reset(seed=list(range(100, 107)))
    np.testing.assert_array_equal(obs["observations"][3:5], blocks[1].reset(seed=[103, 104])[0])


def test_rllib_vector_env_under_rllib_info_wrapper_and_python_opponent():
    from gymnasium.wrappers.vector import DictInfoToList

    def first_legal(obs, mask):
        return int(np.flatnonzero(mask)[0])

    env = DictInfoToList(RLlibVectorEnv("skipbo_junior", 4, opponent=["random", first_legal]))
    obs, infos = env.reset(seed=0)
    assert infos == [{}] * 4
    obs, rew, term, trunc, infos = env.step(np.argmax(obs["action_mask"], axis=1))
    assert infos == [{}] * 4 and rew.shape == (4,)


def test_rllib_vector_env_bad_input():
    with pytest.raises(ValueError, match="'game'"):
        rllib_vector_env({"num_envs": 2})
    with pytest.raises(ValueError, match="unknown game"):
        rllib_vector_env({"game": "poker"})
    with pytest.raises(ValueError, match="num_envs"):
        RLlibVectorEnv("skyjo", 2, opponent=["random", "greedy", "expert"])
    with pytest.raises(ValueError, match="autoreset_mode"):
        RLlibVectorEnv("skyjo", 2, autoreset_mode="same_step")
    with pytest.raises(ValueError, match="non-empty"):
        RLlibVectorEnv("skyjo", 2, opponent=[])
    with pytest.raises(ValueError, match="neither a bot"):
        RLlibVectorEnv("skyjo", 2, opponent="nobody")
    env = RLlibVectorEnv("skyjo", 2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="seeds"):
        env.reset(seed=[1, 2, 3])


@pytest.mark.subprocess
def test_the_batched_example_and_wrappers_import_no_ray():
    code = (
        "import importlib.util, sys\n"
        "import cardgym, cardgym.wrappers, cardgym.wrappers.rllib_vector\n"
        f"spec = importlib.util.spec_from_file_location('ex', {str(EXAMPLE)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "bad = sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------- with Ray installed
def _config(**overrides):
    """The example's PPOConfig with test-sized settings (its argparse defaults, then ``overrides``)."""
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (see docs/training.md)")
    pytest.importorskip("torch")
    example = _example()
    args = dict(game="skyjo", players=2, opponents="random,greedy", seat="random", envs_per_runner=8,
                train_batch=256, minibatch=128, epochs=1, lr=1e-3, ent_coef=0.01, gamma=0.99, hidden=[32],
                num_env_runners=0, seed=0, snapshot_every=5)
    args.update(overrides)
    return example.build_config(argparse.Namespace(**args))


@pytest.mark.slow
@pytest.mark.rllib
def test_rllib_env_runner_steps_the_compiled_vector_env():
    """RLlib's SingleAgentEnvRunner builds the env through gymnasium.make_vec with the vector entry
    point (no ray.init): one compiled batch per runner, legal sampled actions, a finite PPO update."""
    config = _config()
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from cardgym.wrappers.rllib_module import MaskedMLPModule

    runner = SingleAgentEnvRunner(config=config)
    inner = runner.env.unwrapped
    assert isinstance(inner, RLlibVectorEnv) and inner.num_envs == 8
    assert all(isinstance(e, CardGameVectorEnv) for e in inner.envs)
    assert [e._which_bot for e in inner.envs] == [0, 1]
    assert isinstance(runner.module, MaskedMLPModule)
    episodes = runner.sample(num_timesteps=256)
    steps = 0
    for ep in episodes:
        for t in range(len(ep)):
            assert ep.get_observations(t)["action_mask"][ep.get_actions(t)] == 1
            steps += 1
    assert steps >= 256
    assert_ppo_update_learns(config, runner, episodes, steps)


@pytest.mark.slow
@pytest.mark.rllib
def test_rllib_example_policy_plays_duplicate_games():
    config = _config()
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from cardgym.eval import match

    runner = SingleAgentEnvRunner(config=config)
    policy = _example().ModulePolicy(runner.module)
    r = match("skyjo", policy, "random", games=4, seed=0)
    assert r["games"] == 4


def test_policy_slot_plays_random_legal_moves_then_its_policy():
    env = RLlibVectorEnv("skyjo", 4, opponent=["greedy", "self"])
    assert len(env.policy_slots) == 1 and env.envs[1].opponents[0].slot is env.policy_slots[0]
    slot = env.policy_slots[0]
    masks = np.array([[0, 1, 0, 1], [1, 0, 0, 0]], np.int8)
    for _ in range(20):
        a = slot.act(np.zeros((2, 3), np.float32), masks)
        assert masks[np.arange(2), a].all()

    class Last:
        def act(self, obs, masks):
            return np.array([np.flatnonzero(m)[-1] for m in masks])

    slot.set_policy(Last())
    assert slot.updates == 1 and slot.act(np.zeros((2, 3)), masks).tolist() == [3, 0]
    assert slot(np.zeros(3), masks[0]) == 3
    with pytest.raises(TypeError, match="act"):
        slot.set_policy(lambda obs, mask: 0)
    obs, _ = env.reset(seed=0)
    for _ in range(30):
        obs, rew, term, trunc, _ = env.step(np.argmax(obs["action_mask"], axis=1))


@pytest.mark.slow
@pytest.mark.rllib
def test_rllib_snapshot_callback_gives_the_runner_module_to_self_opponents():
    config = _config(opponents="random,self", snapshot_every=1)
    import torch
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    runner = SingleAgentEnvRunner(config=config)
    slot = runner.env.unwrapped.policy_slots[0]
    assert slot.policy is None
    runner.sample(num_timesteps=64)
    assert slot.updates == 1 and slot.policy.module is not runner.module
    for k, v in runner.module.state_dict().items():
        assert torch.equal(slot.policy.module.state_dict()[k], v)
    with torch.no_grad():  # the runner's module moves on (new weights pushed); the copy follows at the next sample
        for p in runner.module.parameters():
            p.add_(1.0)
    assert not all(torch.equal(slot.policy.module.state_dict()[k], v) for k, v in runner.module.state_dict().items())
    runner.sample(num_timesteps=64)
    assert slot.updates == 2
    for k, v in runner.module.state_dict().items():
        assert torch.equal(slot.policy.module.state_dict()[k], v)


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.subprocess
def test_rllib_batched_example_end_to_end(tmp_path):
    """The script as a user runs it (a local Ray, one EnvRunner actor, a 'self' block): trains two
    iterations, evaluates, writes results.json and a checkpoint."""
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (see docs/training.md)")
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--iterations", "2", "--num-env-runners", "1", "--envs-per-runner", "12",
         "--opponents", "random,greedy,self", "--snapshot-every", "1", "--train-batch", "192", "--minibatch", "96",
         "--epochs", "1", "--hidden", "16", "--eval-games", "4", "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads((out / "results.json").read_text())
    assert len(res["history"]) == 2 and res["history"][-1]["env_steps"] >= 384
    assert res["num_env_runners"] == 1 and res["envs_per_runner"] == 12 and res["steps_per_second"] > 0
    from cardgym.eval import baseline_bots

    assert set(res["final_eval"]) == set(baseline_bots("skyjo"))  # random, greedy, expert (not search)
    assert (out / "checkpoint").is_dir()
    assert "training throughput" in proc.stdout


@pytest.mark.slow
@pytest.mark.rllib
def test_rllib_batched_example_reward_option_reaches_the_env():
    config = _config(reward="score")
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    runner = SingleAgentEnvRunner(config=config)
    assert all(e.rules.reward == "score" for e in runner.env.unwrapped.envs)
    assert _config().env_config.get("reward") is None  # default: the game's own reward


@pytest.mark.slow
@pytest.mark.rllib
def test_rllib_batched_example_warm_starts_from_a_trainer_model(tmp_path):
    """--init: the EnvRunner's module (and the learner's) carries the trainer model's weights, so the
    runner's first actions are that policy's; --hidden that does not fit the model is an error."""
    config = _config(hidden=None, init=None)
    import torch
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from cardgym.agents import PolicyNet, load_policy, save_policy

    runner = SingleAgentEnvRunner(config=config)
    obs_size = runner.env.unwrapped.single_observation_space["observations"].shape[0]
    net = PolicyNet(obs_size, cardgym.get_game("skyjo").num_actions, hidden=(24,))
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.5)
    path = save_policy(tmp_path / "model.pt", net, {"game": "skyjo", "rules": {"num_players": 2}, "observation": "vector"})
    config = _config(hidden=None, init=str(path))
    assert config.rl_module_spec.model_config["init"] == str(path)
    runner = SingleAgentEnvRunner(config=config)
    want = load_policy(path).net.state_dict()
    got = runner.module.state_dict()
    for k_src, k_dst in (("trunk.0.weight", "_pi_trunk.0.weight"), ("pi.bias", "_pi_head.bias")):
        assert torch.equal(got[k_dst], want[k_src])
    import dataclasses

    space = runner.env.unwrapped.single_observation_space
    learner = dataclasses.replace(config.rl_module_spec, observation_space=space,
                                  action_space=runner.env.unwrapped.single_action_space)
    algo_module = learner.build()  # the learner's copy: value head included
    assert torch.equal(algo_module.state_dict()["_vf_head.weight"], want["v.weight"])
    with pytest.raises(ValueError, match="--hidden"):
        _config(hidden=[32], init=str(path))
    with pytest.raises(ValueError, match="not 'skipbo'"):
        _config(game="skipbo", hidden=None, init=str(path))
