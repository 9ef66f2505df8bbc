"""The RLlib key adapter (``cardgym.wrappers.rllib_keys``) without Ray, and cardgym's masking RLModule
(``cardgym.wrappers.rllib_module.MaskedMLPModule``) with RLlib where installed.

Without Ray, the tests drive the wrapped AEC env the way RLlib's ``PettingZooEnv`` does (``last()``
for each agent, ``step(None)`` through the dead) and check the masking module's contract: a Dict
``{"observations", "action_mask"}`` whose float32 mask is exactly the env's int8 mask. With RLlib
(skipped otherwise), the module's forward passes give illegal actions exactly zero probability, its
values have the batch's shape, and a PPO update through RLlib's own EnvRunner and Learner runs.
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

import cardgym
from cardgym.wrappers import RLlibKeys, rllib_keys


def make(name, **rules):
    return importlib.import_module(cardgym.GAMES[name].module).env(**rules)


GAMES = [("skyjo", {"num_players": 2}), ("skyjo", {"num_players": 3}), ("skipbo", {"num_players": 2}),
         ("skipbo_junior", {"num_players": 2})]


def pettingzoo_env_episode(env, seed, rng, max_steps=5000):
    """One episode the way ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv plays it: after each
    action, ``last()`` for every agent whose turn comes up, dead agents stepped with ``None``, until a
    live agent must act. Returns (decisions, rewards summed as PettingZooEnv reports them, rewards summed
    from the env's per-step ``rewards``)."""
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    paid = {a: 0.0 for a in env.possible_agents}
    agent = env.agent_selection
    obs = env.observe(agent)
    steps = 0
    while True:
        mask = obs["action_mask"]
        assert mask.dtype == np.float32 and mask.sum() > 0
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        for a in env.agents:
            paid[a] += env.rewards[a]
        steps += 1
        assert steps < max_steps
        while env.agents:
            obs, rew, term, trunc, _ = env.last()
            agent = env.agent_selection
            totals[agent] += rew
            assert env.observation_space(agent).contains(obs)
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                break
        if not env.agents:
            return steps, totals, paid


@pytest.mark.parametrize("name,rules", GAMES, ids=[f"{n}-{r['num_players']}p" for n, r in GAMES])
def test_keys_spaces_and_observations(name, rules):
    raw = make(name, **rules)
    env = rllib_keys(make(name, **rules))
    assert isinstance(env, RLlibKeys) and env.possible_agents == raw.possible_agents
    for agent in env.possible_agents:
        sp = env.observation_space(agent)
        assert sp is env.observation_space(agent)  # one object per agent, as RLlib caches spaces
        assert isinstance(sp, spaces.Dict) and set(sp.spaces) == {"observations", "action_mask"}
        assert sp["observations"] == raw.observation_space(agent)["observation"]
        n = raw.action_space(agent).n
        assert sp["action_mask"] == spaces.Box(0.0, 1.0, (n,), np.float32)
        assert env.action_space(agent) == raw.action_space(agent)
    raw.reset(seed=7)
    env.reset(seed=7)
    for _ in range(30):  # same seed, same actions: identical observations, renamed and cast
        if not env.agents:
            break
        agent = env.agent_selection
        assert agent == raw.agent_selection
        for a in env.possible_agents:
            o, r = env.observe(a), raw.observe(a)
            assert set(o) == {"observations", "action_mask"}
            np.testing.assert_array_equal(o["observations"], r["observation"])
            assert o["action_mask"].dtype == np.float32
            np.testing.assert_array_equal(o["action_mask"], r["action_mask"].astype(np.float32))
            assert env.observation_space(a).contains(o)
        action = int(np.flatnonzero(raw.observe(agent)["action_mask"])[0])
        env.step(action)
        raw.step(action)


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.parametrize("name,rules", GAMES, ids=[f"{n}-{r['num_players']}p" for n, r in GAMES])
def test_pettingzoo_env_loop_plays_whole_games(name, rules):
    env = rllib_keys(make(name, **rules))
    rng = np.random.default_rng(0)
    for seed in range(3):
        steps, totals, paid = pettingzoo_env_episode(env, seed, rng)
        assert steps > 0
        # what RLlib is shown (last()'s cumulative rewards) sums to what the env paid: nothing counted
        # twice, nothing lost, the final reward reaching every seat
        assert totals == pytest.approx(paid)
        if name == "skyjo":
            assert max(totals.values()) == 1.0


def test_rewards_match_a_plain_aec_loop():
    """The adapter passes rewards, terminations and agent order through untouched."""
    a, b = rllib_keys(make("skyjo")), make("skyjo")
    a.reset(seed=3)
    b.reset(seed=3)
    for agent in a.agent_iter(10_000):
        assert agent == b.agent_selection
        oa, ra, ta, tra, _ = a.last()
        ob, rb, tb, trb, _ = b.last()
        assert (ra, ta, tra) == (rb, tb, trb)
        if ta or tra:
            action = None
        else:
            np.testing.assert_array_equal(oa["action_mask"] > 0, ob["action_mask"] > 0)
            action = int(np.flatnonzero(ob["action_mask"])[-1])
        a.step(action)
        b.step(action)
    assert not b.agents


def test_only_the_acting_agent_has_legal_actions():
    env = rllib_keys(make("skipbo", num_players=3))
    env.reset(seed=1)
    for _ in range(20):
        acting = env.agent_selection
        for agent in env.possible_agents:
            mask = env.observe(agent)["action_mask"]
            assert (mask.sum() > 0) == (agent == acting)
        env.step(int(np.flatnonzero(env.observe(acting)["action_mask"])[0]))


def test_rejects_non_classic_observations():
    from pettingzoo.utils import BaseWrapper

    class Renamed(BaseWrapper):
        def observation_space(self, agent):
            return spaces.Dict({"obs": self.env.observation_space(agent)["observation"]})

    with pytest.raises(ValueError, match="observation"):
        rllib_keys(Renamed(make("skyjo")))


def test_dict_encoder_passes_through():
    env = rllib_keys(make("skyjo", observation="dict"))
    env.reset(seed=0)
    o = env.observe(env.agent_selection)
    assert env.observation_space(env.agent_selection).contains(o)


def test_pickles():
    env = rllib_keys(make("skyjo"))
    env2 = pickle.loads(pickle.dumps(env))
    env2.reset(seed=0)
    assert set(env2.observe(env2.agent_selection)) == {"observations", "action_mask"}


def _example_path():
    return Path(__file__).resolve().parents[1] / "examples" / "rllib_multiagent.py"


def _example():
    spec = importlib.util.spec_from_file_location("rllib_multiagent", _example_path())
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rllib_multiagent", mod)
    spec.loader.exec_module(mod)  # imports no Ray at module level
    return mod


def test_example_uses_the_shared_module_policy():
    """The example's policy is ``cardgym.wrappers.rllib_tools.ModulePolicy`` (its masking and its duplicate
    games against the bots are tested in tests/test_rllib_tools.py)."""
    from cardgym.wrappers.rllib_tools import ModulePolicy

    assert _example().ModulePolicy is ModulePolicy


@pytest.mark.subprocess
def test_cardgym_imports_no_ray():
    """Ray stays optional: cardgym, its wrappers and the example's module level never import it (only
    ``cardgym.wrappers.rllib_module`` does, and only when imported by name)."""
    code = (
        "import importlib.util, sys\n"
        "import cardgym, cardgym.wrappers, cardgym.wrappers.rllib, cardgym.eval\n"
        f"spec = importlib.util.spec_from_file_location('ex', {str(_example_path())!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "bad = sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------- with Ray installed
def _rllib():
    """Skip unless RLlib and torch import; the module file then imports."""
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (pip install -e '.[rllib]')")
    pytest.importorskip("torch")
    from cardgym.wrappers import rllib_module

    return rllib_module


def _spaces(name="skyjo", **rules):
    env = rllib_keys(make(name, **rules))
    agent = env.possible_agents[0]
    return env.observation_space(agent), env.action_space(agent)


def _module(name="skyjo", **model_config):
    obs_space, act_space = _spaces(name)
    return _rllib().MaskedMLPModule(observation_space=obs_space, action_space=act_space,
                                    model_config=model_config)


def _random_batch(obs_space, n_actions, batch, seed=0, lead=None):
    """Observations far outside the space's range (large activations) and random masks: one legal
    action in some rows, all legal in one row, about half legal elsewhere."""
    import torch

    rng = np.random.default_rng(seed)
    lead = (batch,) if lead is None else lead
    obs = rng.normal(0.0, 50.0, lead + obs_space["observations"].shape).astype(np.float32)
    mask = (rng.random(lead + (n_actions,)) < 0.5).astype(np.float32)
    flat = mask.reshape(-1, n_actions)
    flat[0] = 0.0
    flat[0, n_actions - 1] = 1.0  # only the last action legal
    flat[1] = 1.0  # everything legal
    flat[2] = 0.0
    flat[2, 0] = 1.0  # only the first action legal
    empty = flat.sum(1) == 0
    flat[empty, rng.integers(0, n_actions, empty.sum())] = 1.0
    return {"obs": {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(mask)}}


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.parametrize("share", [False, True], ids=["separate-vf", "shared-vf"])
@pytest.mark.parametrize("name", ["skyjo", "skipbo"])
def test_masked_module_gives_illegal_actions_zero_probability(name, share):
    _rllib()  # skips without RLlib and torch
    import torch

    module = _module(name, hidden=[64, 32], vf_share_layers=share)
    obs_space, act_space = _spaces(name)
    n = act_space.n
    with torch.no_grad():  # a sharp policy: unmasked, illegal actions would get most of the mass
        module._pi_head.weight.mul_(1000.0)
    batch = _random_batch(obs_space, n, 64, seed=1)
    mask = batch["obs"]["action_mask"]
    illegal = mask == 0
    with torch.no_grad():
        raw = module._pi_head(module._pi_trunk(batch["obs"]["observations"]))
    assert torch.softmax(raw, -1)[illegal].max() > 0.1  # so the checks below test the masking
    dist_cls = module.get_exploration_action_dist_cls()
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        out = forward(batch)
        logits = out["action_dist_inputs"]
        assert logits.shape == (64, n) and torch.isfinite(logits).all()
        probs = torch.softmax(logits, -1)
        assert (probs[illegal] == 0).all()
        torch.testing.assert_close(probs.sum(-1), torch.ones(64))
        assert (probs[1] > 0).all() and probs[0, n - 1] == 1 and probs[2, 0] == 1
        dist = dist_cls.from_logits(logits)
        actions = torch.stack([dist.sample() for _ in range(50)])
        assert (mask.gather(1, actions.T) == 1).all()  # every sampled action legal
        assert torch.isfinite(dist.entropy()).all() and torch.isfinite(dist.logp(actions[0])).all()
        # a KL term between two masked distributions (PPO's kl loss) stays finite too
        assert torch.isfinite(dist.kl(dist_cls.from_logits(logits.detach() * 0.5))).all()
    # gradients through a PPO-like loss stay finite
    module.zero_grad()
    out = module.forward_train(batch)
    dist = dist_cls.from_logits(out["action_dist_inputs"])
    loss = -(dist.logp(dist.sample()).mean() + dist.entropy().mean()) + module.compute_values(
        batch, embeddings=out["embeddings"]).pow(2).mean()
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in module.parameters() if p.grad is not None)
    assert module._pi_head.weight.grad.abs().sum() > 0


@pytest.mark.slow
@pytest.mark.rllib
def test_masked_module_all_zero_mask_is_uniform_not_nan():
    _rllib()  # skips without RLlib and torch
    import torch

    module = _module()
    obs_space, act_space = _spaces()
    batch = _random_batch(obs_space, act_space.n, 4)
    batch["obs"]["action_mask"][3] = 0.0
    probs = torch.softmax(module.forward_inference(batch)["action_dist_inputs"], -1)
    assert torch.isfinite(probs).all()
    torch.testing.assert_close(probs[3], torch.full((act_space.n,), 1.0 / act_space.n))


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.parametrize("share", [False, True], ids=["separate-vf", "shared-vf"])
def test_masked_module_values(share):
    _rllib()  # skips without RLlib and torch
    import torch

    module = _module(hidden=[32], vf_share_layers=share)
    obs_space, act_space = _spaces()
    batch = _random_batch(obs_space, act_space.n, 7)
    values = module.compute_values(batch)
    assert values.shape == (7,) and values.dtype == torch.float32 and torch.isfinite(values).all()
    out = module.forward_train(batch)
    assert out["embeddings"].shape == (7, 32)
    torch.testing.assert_close(module.compute_values(batch, embeddings=out["embeddings"]), values)
    assert values.std() > 0  # depends on the observation
    other = {"obs": {"observations": batch["obs"]["observations"],
                     "action_mask": 1.0 - batch["obs"]["action_mask"]}}
    torch.testing.assert_close(module.compute_values(other), values)  # but not on the mask
    # a (B, T) batch gives (B, T) values and (B, T, n) logits
    bt = _random_batch(obs_space, act_space.n, None, lead=(3, 4))
    assert module.compute_values(bt).shape == (3, 4)
    assert module.forward_train(bt)["action_dist_inputs"].shape == (3, 4, act_space.n)


@pytest.mark.slow
@pytest.mark.rllib
def test_masked_module_config_and_spaces():
    rm = _rllib()
    import gymnasium as gym
    from torch import nn


    def linears(module, attr):
        return [(m.in_features, m.out_features) for m in getattr(module, attr) if isinstance(m, nn.Linear)]

    obs_size = _spaces()[0]["observations"].shape[0]
    m = _module(hidden=[48, 24])
    assert linears(m, "_pi_trunk") == [(obs_size, 48), (48, 24)] == linears(m, "_vf_trunk")
    assert (m._pi_head.in_features, m._pi_head.out_features) == (24, 26)
    assert (m._vf_head.in_features, m._vf_head.out_features) == (24, 1)
    default = _module()
    assert [o for _, o in linears(default, "_pi_trunk")] == list(rm.DEFAULT_HIDDEN)
    assert isinstance(default._pi_trunk[1], nn.Tanh)
    assert [o for _, o in linears(_module(fcnet_hiddens=[16]), "_pi_trunk")] == [16]
    assert isinstance(_module(activation="relu")._pi_trunk[1], nn.ReLU)
    shared = _module(hidden=[16], vf_share_layers=True)
    assert not hasattr(shared, "_vf_trunk")
    with pytest.raises(ValueError, match="activation"):
        _module(activation="gelu")
    obs_space, act_space = _spaces()
    bad_spaces = [
        (obs_space["observations"], act_space),  # no Dict: the mask is missing
        (gym.spaces.Dict({"observation": obs_space["observations"], "action_mask": obs_space["action_mask"]}),
         act_space),  # classic PettingZoo keys, not rllib_keys'
        (_spaces("skyjo", observation="dict")[0], act_space),  # a Dict observations part
        (obs_space, gym.spaces.Discrete(act_space.n + 1)),  # mask size != number of actions
        (obs_space, gym.spaces.Box(0.0, 1.0, (act_space.n,), np.float32)),
    ]
    for o, a in bad_spaces:
        with pytest.raises(ValueError, match="MaskedMLPModule|action_mask"):
            rm.MaskedMLPModule(observation_space=o, action_space=a, model_config={})


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.parametrize("share", [False, True], ids=["separate-vf", "shared-vf"])
def test_masked_module_inference_only_gets_the_policy_weights(share):
    _rllib()  # skips without RLlib and torch
    import torch

    obs_space, act_space = _spaces()
    cls = _rllib().MaskedMLPModule
    learner = cls(observation_space=obs_space, action_space=act_space,
                  model_config={"hidden": [32], "vf_share_layers": share})
    runner = cls(observation_space=obs_space, action_space=act_space, inference_only=True,
                 model_config={"hidden": [32], "vf_share_layers": share})
    names = {n.split(".")[0] for n, _ in runner.named_parameters()}
    assert names == {"_pi_trunk", "_pi_head"}  # no value function on EnvRunners
    state = learner.get_state(inference_only=True)
    assert {k.split(".")[0] for k in state} == names
    runner.set_state(state)
    batch = _random_batch(obs_space, act_space.n, 8)
    torch.testing.assert_close(runner.forward_exploration(batch)["action_dist_inputs"],
                               learner.forward_exploration(batch)["action_dist_inputs"])


@pytest.mark.slow
@pytest.mark.rllib
def test_rllib_pettingzoo_env_plays_masked_module_actions():
    rm = _rllib()
    import torch
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(rllib_keys(make("skipbo")))
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    assert env.observation_space[agent].contains(o)
    module = rm.MaskedMLPModule(observation_space=env.observation_space[agent],
                                action_space=env.action_space[agent], model_config={"hidden": [32]})
    dist_cls = module.get_exploration_action_dist_cls()
    done, steps = False, 0
    while not done:
        (agent, o), = obs.items()
        batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in o.items()}}
        logits = module.forward_exploration(batch)["action_dist_inputs"]
        assert np.all(logits[0].numpy()[o["action_mask"] == 0] == rm.MASKED_LOGIT)
        action = int(dist_cls.from_logits(logits).sample()[0])
        assert o["action_mask"][action] == 1
        obs, rew, term, trunc, _ = env.step({agent: action})
        done = term["__all__"] or trunc["__all__"]
        steps += 1
        assert steps < 20_000
    assert set(rew) == set(env.possible_agents)


@pytest.mark.slow
@pytest.mark.rllib
def test_masked_module_ppo_update_without_a_ray_cluster():
    """RLlib's own multi-agent EnvRunner and PPO Learner (no ray.init): the module's sampled actions are
    legal, GAE (`compute_values`) and the PPO loss run, every weight moves and the losses are finite."""
    rm = _rllib()
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    register_env("cardgym_test_skyjo", lambda cfg: PettingZooEnv(rllib_keys(make("skyjo"))))
    config = (
        PPOConfig()
        .environment("cardgym_test_skyjo", disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(
            module_class=rm.MaskedMLPModule, model_config={"hidden": [32], "vf_share_layers": False})}))
        .env_runners(num_env_runners=0)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1, lr=1e-3)
        .debugging(seed=0)
    )
    runner = MultiAgentEnvRunner(config=config)
    learner = config.build_learner(spaces=runner.get_spaces())
    assert isinstance(learner.module["shared"], rm.MaskedMLPModule)
    episodes = runner.sample(num_timesteps=200)
    decisions = 0
    for episode in episodes:
        for sa in episode.agent_episodes.values():
            for t in range(len(sa)):
                assert sa.get_observations(t)["action_mask"][sa.get_actions(t)] == 1
                decisions += 1
    assert decisions > 150  # about one decision per env step (200)
    before = {k: v.clone() for k, v in learner.module["shared"].state_dict().items()}
    results = learner.update(episodes=episodes, timesteps={"num_env_steps_sampled_lifetime": 200})
    stats = {k: float(v.peek()) for k, v in results["shared"].items() if hasattr(v, "peek")}
    for key in ("policy_loss", "vf_loss", "total_loss", "entropy", "mean_kl_loss"):
        assert np.isfinite(stats[key]), (key, stats)
    assert stats["entropy"] > 0
    after = learner.module["shared"].state_dict()
    assert all(not torch.equal(before[k], after[k]) for k in before)


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.parametrize("inference_only", [False, True], ids=["learner", "env-runner"])
def test_masked_module_warm_starts_from_a_cardgym_model(tmp_path, inference_only):
    """model_config["init"]: the module takes a trainer model's shape and weights, so its masked logits
    (and, on the learner, its values) are the cardgym policy's."""
    rm = _rllib()
    import torch

    from cardgym.agents import PolicyNet, load_policy, mask_logits, save_policy

    obs_space, act_space = _spaces()
    net = PolicyNet(obs_space["observations"].shape[0], act_space.n, hidden=(24, 12))
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.3)  # not the initializer's values: the copy must carry them
    path = save_policy(tmp_path / "model.pt", net, {"game": "skyjo", "rules": {"num_players": 2}, "observation": "vector"})
    cfg = rm.init_model_config(path)
    assert cfg == {"init": str(path), "hidden": [24, 12], "activation": "relu", "vf_share_layers": True}
    m = rm.MaskedMLPModule(observation_space=obs_space, action_space=act_space, inference_only=inference_only,
                           model_config={"init": str(path)})
    batch = _random_batch(obs_space, act_space.n, 16)
    policy = load_policy(path)
    logits, values = policy.net(batch["obs"]["observations"])
    want = mask_logits(logits, batch["obs"]["action_mask"] > 0)
    torch.testing.assert_close(m.forward_inference(batch)["action_dist_inputs"], want)
    if not inference_only:
        torch.testing.assert_close(m.compute_values(batch), values)
    with pytest.raises(ValueError, match=r"hidden=\[32\] \(the file needs \[24, 12\]\)"):
        rm.MaskedMLPModule(observation_space=obs_space, action_space=act_space,
                           model_config={"init": str(path), "hidden": [32]})
    with pytest.raises(ValueError, match="vf_share_layers"):
        rm.MaskedMLPModule(observation_space=obs_space, action_space=act_space,
                           model_config={"init": str(path), "vf_share_layers": False})
    junior_obs, junior_act = _spaces("skipbo_junior")
    with pytest.raises(ValueError, match="observations .* actions"):
        rm.MaskedMLPModule(observation_space=junior_obs, action_space=junior_act, model_config={"init": str(path)})


def test_resolve_init_checks_the_game_and_finds_the_shipped_agent(tmp_path):
    pytest.importorskip("torch")
    import argparse

    from cardgym.agents import PolicyNet, save_policy
    from cardgym.agents.pretrained import agent_path
    from cardgym.wrappers.rllib_tools import resolve_init

    assert resolve_init(argparse.Namespace(init=None, game="skyjo", players=2)) is None
    a = argparse.Namespace(init="agent", game="skyjo", players=2)
    assert resolve_init(a) == str(agent_path("skyjo", 2))
    obs_space, act_space = _spaces()
    path = save_policy(tmp_path / "m.pt", PolicyNet(obs_space["observations"].shape[0], act_space.n, hidden=(8,)),
                       {"game": "skyjo", "rules": {"num_players": 2}, "observation": "vector"})
    with pytest.raises(ValueError, match="trained on 'skyjo', not 'skipbo'"):
        resolve_init(argparse.Namespace(init=str(path), game="skipbo", players=2))
    with pytest.raises(ValueError, match="no shipped 'agent' for skyjo with 5 players"):
        resolve_init(argparse.Namespace(init="agent", game="skyjo", players=5))
