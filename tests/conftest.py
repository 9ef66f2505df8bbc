"""Shared fixtures: the game configurations every generic test runs on."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from hypothesis import settings  # noqa: E402

# CI replays a fixed set of examples (a landing should not hang on a new random draw); local runs
# explore new ones each time.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
warnings.filterwarnings("ignore", message=".*Observation is not NumPy array.*")

# The games under test: every game of the registry, built in or added. tests/games/ holds games that
# live in the test suite alone (the proof that a game is one folder); they join through the registry's
# CARDGYM_GAMES hook, exactly as a third-party game would (docs/api.md, "Registering a game"). The
# variable also reaches the subprocesses that tests start.
TEST_GAMES_DIR = Path(__file__).resolve().with_name("games")
if str(TEST_GAMES_DIR) not in os.environ.get("CARDGYM_GAMES", "").split(os.pathsep):
    os.environ["CARDGYM_GAMES"] = os.pathsep.join(x for x in (os.environ.get("CARDGYM_GAMES"), str(TEST_GAMES_DIR)) if x)

import cardgym  # noqa: E402

cardgym.registry.discover()  # reads CARDGYM_GAMES again, should cardgym have been imported before

#: game names under test, in registry order
GAME_NAMES = cardgym.registry.names()
if os.environ.get("CARDGYM_TEST_GAMES"):  # e.g. "skyjo,skipbo" while developing one game
    GAME_NAMES = [g for g in GAME_NAMES if g in os.environ["CARDGYM_TEST_GAMES"].split(",")]

#: (game name, rule options) played by the generic tests: each game's ``GameSpec.test_configs`` (its
#: defaults, more seats, and the variants that change the state's shape or flow)
CONFIGS = [(name, dict(opts)) for name in GAME_NAMES for opts in cardgym.get_game(name).test_configs]


def config_id(cfg):
    name, opts = cfg
    return name + "-" + "-".join(f"{k}={v}" for k, v in opts.items())


@pytest.fixture(params=CONFIGS, ids=[config_id(c) for c in CONFIGS])
def config(request):
    return request.param


def module_of(name: str):
    """``(GameSpec, the cardgym.<game>_v0 module)`` of a game."""
    import importlib

    return cardgym.get_game(name), importlib.import_module(cardgym.GAMES[name].module)


def assert_ppo_update_learns(config, runner, episodes, steps: int) -> None:
    """One RLlib PPO learner update (built from ``config`` with ``runner``'s spaces) on ``episodes``:
    finite losses, and the weights of the ``default_policy`` module change."""
    import numpy as np
    import torch

    learner = config.build_learner(spaces=runner.get_spaces())
    before = {k: v.clone() for k, v in learner.module["default_policy"].state_dict().items()}
    results = learner.update(episodes=episodes, timesteps={"num_env_steps_sampled_lifetime": steps})
    stats = {k: float(v.peek()) for k, v in results["default_policy"].items() if hasattr(v, "peek")}
    for key in ("policy_loss", "vf_loss", "total_loss", "entropy"):
        assert np.isfinite(stats[key]), (key, stats)
    after = learner.module["default_policy"].state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
