"""``copy.deepcopy``, ``pickle`` and cloudpickle of every env layer continue the same game bit for bit
(docs/api.md, "Copies and pickling"), here and in another process; what cannot be copied exactly is
refused with an error that names ``clone()`` and ``state_dict()``."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from pathlib import Path

import cloudpickle
import numpy as np
import pytest

from conftest import CONFIGS, GAME_NAMES, config_id

import cardgym

ROOT = Path(__file__).resolve().parents[1]
COPIES = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda e: pickle.loads(pickle.dumps(e)),
    "cloudpickle": lambda e: cloudpickle.loads(cloudpickle.dumps(e)),
}
STEPS = 60  # long enough to cross game ends (and the seedless resets after them) in the short configs


def _pick(mask, k: int) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[(7 * k + 3) % len(legal)]) if legal.size else 0


def continue_aec(env, steps: int = STEPS) -> list:
    """Play ``env`` (raw or wrapped AEC) on, resetting without a seed when every agent is done; returns
    everything it produced, as bytes and numbers."""
    out = []
    for k in range(steps):
        if not env.agents:
            env.reset()
            out.append("reset")
        agent = env.agent_selection
        obs, rew, term, trunc, info = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), float(rew), term, trunc,
                    repr(info)))
        env.step(None if term or trunc else _pick(obs["action_mask"], k))
    out.append(env.unwrapped.state_dict() if env.agents else "over")
    return out


def continue_gym(env, steps: int = STEPS) -> list:
    out = []
    mask = env.unwrapped.action_masks()
    for k in range(steps):
        obs, rew, term, trunc, info = env.step(_pick(mask, k))
        mask = info["action_mask"]
        out.append((obs.tobytes(), float(rew), term, trunc, mask.tobytes(), repr(info.get("result"))))
        if term or trunc:
            obs, info = env.reset()
            mask = info["action_mask"]
            out.append(("reset", obs.tobytes(), mask.tobytes(), info["seat"]))
    out.append(env.unwrapped.state_dict())
    return out


def continue_vector(env, steps: int = STEPS) -> list:
    out = []
    for k in range(steps):
        masks = env.action_masks()
        acts = np.array([_pick(m, k + i) for i, m in enumerate(masks)], np.int64)
        obs, rew, term, trunc, info = env.step(acts)
        out.append((obs.tobytes(), rew.tobytes(), term.tobytes(), trunc.tobytes(), info["action_mask"].tobytes(),
                    info["seat"].tobytes(), env.decisions))
    out.append(env.state_dict())
    return out


def _started_envs(name: str, opts: dict) -> dict:
    """One env of every layer, each a few decisions into its game."""
    import gymnasium as gym

    mod = __import__(cardgym.GAMES[name].module, fromlist=["env"])
    gid = cardgym.GAMES[name].gym_id
    envs = {
        "raw_env": mod.raw_env(**opts),
        "env": mod.env(**opts),
        "gym.make": gym.make(gid, opponent="greedy", seat="random", **opts),
        "unwrapped": gym.make(gid, opponent="random", **opts).unwrapped,
        "make_vec": cardgym.make_vec(name, 3, opponent="random", seat="random", **opts),
        "make_vec-python": cardgym.make_vec(name, 3, opponent=["random", "greedy"], autoreset_mode="same_step",
                                            **opts),
    }
    for key, e in envs.items():
        e.reset(seed=11)
        run = continue_vector if key.startswith("make_vec") else continue_gym if "gym" in key or key == "unwrapped" \
            else continue_aec
        run(e, 5)
    return envs


def _continue(key: str, env) -> list:
    if key.startswith("make_vec"):
        return continue_vector(env)
    if key in ("gym.make", "unwrapped"):
        return continue_gym(env)
    return continue_aec(env)


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_copy_continues_the_same_game(cfg, how):
    name, opts = cfg
    envs = _started_envs(name, opts)
    for key, env in envs.items():
        other = COPIES[how](env)
        assert type(other) is type(env), key
        assert other.unwrapped is not env.unwrapped, key
        assert _continue(key, other) == _continue(key, env), f"{key}: the {how} copy played another game"


WRAPPED_COPIES = {"clone": lambda e: e.clone(), "copy.copy": copy.copy}


@pytest.mark.parametrize("how", sorted(WRAPPED_COPIES))
def test_clone_and_copy_of_a_wrapped_env_copy_the_whole_stack(how):
    """Issue 42.8: ``env().clone()`` returned the bare env (PettingZoo's wrappers forwarded ``clone`` to
    it) and ``copy.copy`` of it shared the game with the original. Every cardgym layer's ``clone()`` and
    ``copy.copy`` now give an independent env of the same type, wrappers included, that continues the
    same game. ``gym.make(...)`` failed ``clone()`` (Gymnasium's wrappers forward nothing) and its
    ``copy.copy`` shared the game: its two wrappers are now cardgym subclasses (core/envs/gym_wrappers.py)."""
    envs = _started_envs("skyjo", {})
    assert "gym.make" in envs
    for key, env in envs.items():
        other = WRAPPED_COPIES[how](env)
        assert type(other) is type(env), key
        assert other.unwrapped is not env.unwrapped, key
        if hasattr(env, "env"):  # a wrapper: its inner layers are copied too
            assert type(other.env) is type(env.env) and other.env is not env.env, key
        assert _continue(key, other) == _continue(key, env), f"{key}: the {how} copy played another game"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_copies_before_reset_and_after_the_end(name):
    """A never-reset env copies as a never-reset env; a finished one as finished (and both go on)."""
    mod = __import__(cardgym.GAMES[name].module, fromlist=["env"])
    raw = mod.raw_env()
    fresh = pickle.loads(pickle.dumps(raw))
    with pytest.raises(RuntimeError, match="before reset"):
        fresh.state_dict()
    env = mod.env()
    env.reset(seed=2)
    while env.agents:  # play the game out, the dead agents' None steps included
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _pick(obs["action_mask"], 0))
    done = pickle.loads(pickle.dumps(env))
    assert done.agents == [] and done.unwrapped.result() == env.unwrapped.result()
    done.reset()
    env.reset()
    assert continue_aec(done, 10) == continue_aec(env, 10)
    v = cardgym.make_vec(name, 2)
    w = pickle.loads(pickle.dumps(v))
    with pytest.raises(RuntimeError, match="before reset"):
        w.state_dict()


def _first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_unpicklable_parts_are_refused_with_the_ways_that_work(name):
    import gymnasium as gym

    gid = cardgym.GAMES[name].gym_id
    policy = lambda obs, mask: int(np.flatnonzero(mask)[-1])  # noqa: E731 - a lambda pickle cannot carry
    single = gym.make(gid, opponent=policy).unwrapped
    single.reset(seed=4)
    vec = cardgym.make_vec(name, 2, opponent=["random", policy])
    vec.reset(seed=4)
    vec_draw = cardgym.make_vec(name, 2, opponent=["random"], new_episode=lambda idx: (idx, idx * 0, idx * 0))
    for env, what in ((single, "opponent"), (vec, "opponent"), (vec_draw, "new_episode")):
        with pytest.raises(TypeError, match=rf"its {what} .* cannot be pickled.*clone\(\).*state_dict\(\)"):
            pickle.dumps(env)
        with pytest.raises(TypeError, match=r"clone\(\)"):
            cloudpickle.dumps(env)
    # in this process the callable is shared and the game copied: both continue alike
    for env, run in ((single, continue_gym), (vec, continue_vector)):
        twin = env.clone()
        assert run(twin, 20) == run(env, 20)
    # a module-level function pickles (by reference)
    named = gym.make(gid, opponent=_first_legal).unwrapped
    named.reset(seed=4)
    assert continue_gym(pickle.loads(pickle.dumps(named)), 20) == continue_gym(named, 20)


def test_a_changed_spec_is_refused_by_pickle_not_by_deepcopy():
    import dataclasses

    from cardgym.core.envs.vector import CardGameVectorEnv

    game = dataclasses.replace(cardgym.get_game("skyjo"))
    v = CardGameVectorEnv(game, 2)
    v.reset(seed=0)
    with pytest.raises(TypeError, match="not the registered cardgym.skyjo_v0.GAME.*clone\\(\\)"):
        pickle.dumps(v)
    assert continue_vector(copy.deepcopy(v), 10) == continue_vector(v, 10)


_CHILD = r"""
import pickle, sys
sys.path.insert(0, sys.argv[1])
import test_copies as t
envs = pickle.loads(sys.stdin.buffer.read())
sys.stdout.buffer.write(pickle.dumps({k: t._continue(k, e) for k, e in envs.items()}))
"""


@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.parametrize("how", ["pickle", "cloudpickle"])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_pickled_env_continues_in_another_process(name, how):
    """Every layer pickled into a fresh interpreter plays on there exactly as it does here."""
    import os

    opts = dict(cardgym.get_game(name).test_configs[-1])
    envs = _started_envs(name, opts)
    blob = (pickle if how == "pickle" else cloudpickle).dumps(envs)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT / "tests")], input=blob, capture_output=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    there = pickle.loads(proc.stdout)
    here = {k: _continue(k, e) for k, e in envs.items()}
    assert set(there) == set(here)
    for k in here:
        assert there[k] == here[k], f"{k}: the copy in the other process played another game"


@pytest.mark.parametrize("how", sorted(COPIES))
def test_model_opponents_travel_with_their_weights_and_generator(tmp_path, how):
    """A model opponent (a sampling `TorchPolicy`, its generator mid-stream) is copied with the env."""
    import gymnasium as gym

    torch = pytest.importorskip("torch")
    from cardgym.agents import PolicyNet, load_policy, save_policy

    game = cardgym.get_game("skyjo")
    size = game.encoder("vector").size(game.make_rules())
    torch.manual_seed(0)
    save_policy(tmp_path / "m.pt", PolicyNet(size, game.num_actions, (16,)), {"game": "skyjo"})
    policy = load_policy(tmp_path / "m.pt", deterministic=False, seed=3)
    single = gym.make("cardgym/Skyjo-v0", opponent=policy, seat="random").unwrapped
    vec = cardgym.make_vec("skyjo", 3, opponent=[policy, "greedy"])
    for env, run in ((single, continue_gym), (vec, continue_vector)):
        env.reset(seed=2)
        run(env, 6)
        other = COPIES[how](env)
        assert run(other, 40) == run(env, 40)


def test_gym_make_keeps_gymnasiums_wrappers_and_its_spec_round_trip():
    """The cardgym entry point builds the two wrappers ``gymnasium.make`` adds by default (so its checks and
    its errors are Gymnasium's); ``gymnasium.make(env.spec)`` rebuilds the same stack, not a doubled one."""
    import gymnasium as gym

    gid = cardgym.GAMES["skyjo"].gym_id
    env = gym.make(gid, opponent="greedy")
    assert isinstance(env, gym.wrappers.OrderEnforcing) and isinstance(env.env, gym.wrappers.PassiveEnvChecker)
    assert str(env) == str(gym.make(env.spec)) == f"<OrderEnforcing<PassiveEnvChecker<SkyjoEnv<{gid}>>>>"
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    timed = gym.make(gid, max_episode_steps=7)
    assert str(gym.make(timed.spec)) == str(timed) and timed.spec.max_episode_steps == 7
    twin = pickle.loads(pickle.dumps(env))
    assert str(twin) == str(env)
