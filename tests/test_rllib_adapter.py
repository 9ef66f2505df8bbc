"""The RLlib key adapter (``cardgym.wrappers.rllib_keys``) without Ray, and RLlib itself where installed.

Without Ray, the tests drive the wrapped AEC env the way RLlib's ``PettingZooEnv`` does (``last()``
for each agent, ``step(None)`` through the dead) and check the masking module's contract: a Dict
``{"observations", "action_mask"}`` whose float32 mask is exactly the env's int8 mask.
"""

from __future__ import annotations

import importlib
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

import cardgym
from cardgym.wrappers import RLlibKeys, rllib_keys


def make(name, **rules):
    return importlib.import_module(cardgym.GAMES[name][0]).env(**rules)


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


def _example():
    path = Path(__file__).resolve().parents[1] / "examples" / "rllib_multiagent.py"
    spec = importlib.util.spec_from_file_location("rllib_multiagent", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rllib_multiagent", mod)
    spec.loader.exec_module(mod)  # imports no Ray at module level
    return mod


def test_example_module_policy_is_greedy_over_legal_actions():
    torch = pytest.importorskip("torch")
    example = _example()

    class FakeModule:  # the RLModule forward_inference contract: {"obs": {...}} -> action_dist_inputs
        def forward_inference(self, batch):
            obs = batch["obs"]
            assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == torch.float32
            n = obs["action_mask"].shape[1]
            return {"action_dist_inputs": torch.arange(n, dtype=torch.float32).repeat(len(obs["observations"]), 1)}

    policy = example.ModulePolicy(FakeModule())
    masks = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 1]], np.int8)
    np.testing.assert_array_equal(policy.act(np.zeros((3, 5), np.float32), masks), [2, 1, 3])
    assert policy(np.zeros(5, np.float32), masks[0]) == 2
    # and it plays a real duplicate match against a bot through cardgym.eval
    from cardgym.eval import match

    r = match("skyjo", policy, "random", games=4, seed=0)
    assert r["games"] == 4


# ----------------------------------------------------------------------------- with Ray installed
def test_rllib_pettingzoo_env_and_masking_module():
    pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    torch = pytest.importorskip("torch")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env = PettingZooEnv(rllib_keys(make("skyjo")))
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    assert env.observation_space[agent].contains(o)
    module = ActionMaskingTorchRLModule(observation_space=env.observation_space[agent],
                                        action_space=env.action_space[agent],
                                        model_config={"fcnet_hiddens": [32]})
    batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in o.items()}}
    with torch.no_grad():
        logits = module.forward_exploration(batch)["action_dist_inputs"][0].numpy()
    assert np.all(logits[o["action_mask"] == 0] < -1e30)  # masked actions get FLOAT_MIN
    rng = np.random.default_rng(0)
    done = False
    while not done:
        (agent, o), = obs.items()
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        done = term["__all__"] or trunc["__all__"]
    assert set(rew) == set(env.possible_agents)
