"""Shared fixtures: the game configurations every generic test runs on."""

from __future__ import annotations

import os
import warnings

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from hypothesis import settings  # noqa: E402

# CI replays a fixed set of examples (a landing should not hang on a new random draw); local runs
# explore new ones each time.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
warnings.filterwarnings("ignore", message=".*Observation is not NumPy array.*")

#: (game name, rule options) played by the generic tests: defaults, more seats, and the variants
#: that change the state's shape or flow.
CONFIGS = [
    ("skyjo", {"num_players": 2}),
    ("skyjo", {"num_players": 4, "setup_reveal": "random"}),
    ("skyjo", {"num_players": 3, "episode": "round", "reward": "score"}),
    ("skipbo", {"num_players": 2, "stock_size": 10}),
    ("skipbo", {"num_players": 4, "teams": True, "stock_size": 5}),
    ("skipbo", {"num_players": 3, "stock_size": 4, "build_directions": "two_up_two_down",
                "wild_must_be_covered": True, "match_target": 60}),
    ("skipbo_junior", {"num_players": 2}),
    ("skipbo_junior", {"num_players": 4, "must_play": False, "stock_size": 5}),
]

if os.environ.get("CARDGYM_TEST_GAMES"):  # e.g. "skyjo,skipbo" while developing one game
    CONFIGS = [c for c in CONFIGS if c[0] in os.environ["CARDGYM_TEST_GAMES"].split(",")]


def config_id(cfg):
    name, opts = cfg
    return name + "-" + "-".join(f"{k}={v}" for k, v in opts.items())


@pytest.fixture(params=CONFIGS, ids=[config_id(c) for c in CONFIGS])
def config(request):
    return request.param


def module_of(name: str):
    import cardgym

    return cardgym.get_game(name), __import__(cardgym.GAMES[name][0], fromlist=["env"])
