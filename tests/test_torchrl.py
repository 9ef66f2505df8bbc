"""TorchRL's own env checker on cardgym's envs (skipped when TorchRL is not installed): its ``GymEnv``
builds ``cardgym/<Game>-v0`` (it passes ``frameskip=`` first and retries without it on Python's standard
"unexpected keyword argument" ``TypeError``), its ``PettingZooWrapper`` wraps the AEC ``env()`` with the
action mask, and ``check_env_specs`` rolls both out against their specs."""

from __future__ import annotations

import importlib

import pytest

from conftest import GAME_NAMES

import cardgym


@pytest.fixture(scope="module")
def torchrl():
    """``(torchrl.envs, check_env_specs)``; the test is skipped without TorchRL (the ``dev`` extra has it)."""
    envs = pytest.importorskip("torchrl.envs", reason="TorchRL is not installed (pip install torchrl)")
    return envs, pytest.importorskip("torchrl.envs.utils").check_env_specs


def test_an_unknown_option_is_a_type_error_and_a_value_error():
    import gymnasium as gym

    from cardgym.core.rules import UnknownOptionError

    for make in (lambda: gym.make("cardgym/Skyjo-v0", frameskip=4), lambda: cardgym.make_vec("skyjo", 2, frameskip=4)):
        with pytest.raises(UnknownOptionError) as info:
            make()
        assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
        assert "unexpected keyword argument 'frameskip'" in str(info.value)
        assert "allowed options: [" in str(info.value)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_torchrl_gym_env_passes_check_env_specs(name, torchrl):
    torchrl_envs, check_env_specs = torchrl
    env = torchrl_envs.GymEnv(cardgym.GAMES[name].gym_id)
    check_env_specs(env, seed=0)
    env.close()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_torchrl_pettingzoo_wrapper_passes_check_env_specs(name, torchrl):
    torchrl_envs, check_env_specs = torchrl
    mod = importlib.import_module(cardgym.GAMES[name].module)
    env = torchrl_envs.PettingZooWrapper(env=mod.env(), use_mask=True)
    # check_env_specs rolls out 3 steps and then samples one more action from the last step's mask; the AEC
    # env's masks are all zeros once an episode is over (PettingZoo's convention, docs/api.md), so a game
    # whose episode ends within those steps (a hand against the house) cannot be sampled there
    env.set_seed(0)
    if env.rollout(3, break_when_any_done=True)["next", "done"].any():
        env.close()
        pytest.skip(f"{name}: an episode ends within check_env_specs' 3-step rollout")
    check_env_specs(env, seed=0)
    env.close()
