"""Policies: save/load round trip (weights_only), trained-model opponents in every env, the SB3 VecEnv,
the RLlib key adapter, and duplicate evaluation."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import cardgym

torch = pytest.importorskip("torch")

from cardgym.agents import PolicyNet, load_policy, save_policy  # noqa: E402
from cardgym.eval.stats import wilson  # noqa: E402
from cardgym.train.evaluate import duplicate_eval  # noqa: E402


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    torch.manual_seed(0)
    game = cardgym.get_game("skyjo")
    size = game.encoder("vector").size(game.make_rules(num_players=2))
    path = tmp_path_factory.mktemp("m") / "model.pt"
    save_policy(path, PolicyNet(size, game.num_actions, (32,)), {"game": "skyjo", "rules": {"num_players": 2}})
    return path


def test_save_load_round_trip(model_path):
    data = torch.load(model_path, weights_only=True)  # plain tensors, numbers and strings only
    assert set(data) == {"format", "meta_json", "state_dict"}
    pol = load_policy(model_path)
    assert pol.meta["game"] == "skyjo"
    env = gym.make("cardgym/Skyjo-v0")
    obs, info = env.reset(seed=3)
    a = pol(obs, info["action_mask"])
    assert info["action_mask"][a] == 1
    batch = pol.act(np.stack([obs, obs]), np.stack([info["action_mask"]] * 2))
    assert batch.tolist() == [a, a]
    again = load_policy(model_path)
    for k, v in pol.net.state_dict().items():
        assert torch.equal(v, again.net.state_dict()[k])
    with pytest.raises(ValueError, match="size"):
        pol.act(np.zeros((1, 5), np.float32), np.ones((1, 26), np.int8))


def test_model_opponent_single_env(model_path):
    env = gym.make("cardgym/Skyjo-v0", opponent=str(model_path), seat="random")
    for seed in range(2):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = term or trunc
    with pytest.raises(ValueError, match="neither a bot"):
        gym.make("cardgym/Skyjo-v0", opponent="no/such/model.pt")


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_model_opponent_vector_env(model_path, mode):
    runs = []
    for _ in range(2):
        v = cardgym.make_vec("skyjo", 16, opponent=str(model_path), seat="random", autoreset_mode=mode)
        obs, info = v.reset(seed=5)
        total, ends = 0.0, 0
        for _ in range(300):
            m = info["action_mask"]
            acts = np.array([np.flatnonzero(r)[-1] if r.any() else 0 for r in m])
            obs, r, te, tr, info = v.step(acts)
            assert obs.shape == (16, v.single_observation_space.shape[0])
            live = m.any(axis=1)
            assert not info.get("illegal_action", np.zeros(16, bool))[live].any()
            total += float(r.sum())
            ends += int((te | tr).sum())
        runs.append((total, ends, obs.copy()))
    assert runs[0][1] > 0 and runs[0][0] == runs[1][0] and np.array_equal(runs[0][2], runs[1][2])


def test_policy_callable_matches_between_envs():
    """A Python opponent in make_vec plays the same games as in the single-agent env."""
    first = lambda obs, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    v = cardgym.make_vec("skyjo", 1, opponent=first, seat=1)
    e = gym.make("cardgym/Skyjo-v0", opponent=first, seat=1)
    o1, i1 = v.reset(seed=11)
    o2, i2 = e.reset(seed=11)
    for _ in range(60):
        assert np.array_equal(o1[0], o2)
        a = int(np.flatnonzero(i2["action_mask"])[-1])
        o1, r1, t1, _, i1 = v.step(np.array([a]))
        o2, r2, t2, _, i2 = e.step(a)
        assert r1[0] == r2 and t1[0] == t2
        if t2:
            break


def test_sb3_vecenv_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    import cardgym.wrappers.sb3

    venv = cardgym.wrappers.sb3.make_vec_env("skyjo", 8, opponent="random")
    assert is_masking_supported(venv)
    venv.seed(0)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (8, 26) and masks.dtype == bool
    done_seen = False
    for _ in range(400):
        acts = np.array([np.flatnonzero(m)[0] for m in get_action_masks(venv)])
        obs, rew, dones, infos = venv.step(acts)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs.shape[1:]
            done_seen = True
    assert done_seen
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)


def test_rllib_keys_adapter():
    from cardgym import skyjo_v0
    from cardgym.wrappers import rllib_keys

    env = rllib_keys(skyjo_v0.env())
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == np.float32
    assert env.observation_space(env.agent_selection) is env.observation_space(env.agent_selection)
    assert env.observation_space(env.agent_selection).contains(obs)
    for _ in range(20):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_duplicate_eval_symmetric_and_wilson():
    res = duplicate_eval("skyjo", "greedy", "greedy", games=40, seed=0)
    assert res["games"] == 40 and res["win_rate"] == 0.5  # same bot in both seats of every deal
    lo, hi = wilson(1000, 2000)
    assert 0.47 < lo < 0.5 < hi < 0.53
