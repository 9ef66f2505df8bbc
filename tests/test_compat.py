"""A game written against an earlier game contract keeps loading, playing and passing `check_game`
(docs/api.md, "The game contract"): the Blackjack plugin as it was before ``WORLD`` existed, frozen in
tests/compat/ (its README says what the copy is). Its world checks are skipped, by reason."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

import cardgym
from cardgym.core.spec.game import CONTRACT_VERSION
from cardgym.testing import check_game

COMPAT = Path(__file__).with_name("compat")
NAME = "compat_blackjack_v1"
NO_WORLD = "skipped: world checks (the game has no WORLD in its observe.py)"


@pytest.fixture(scope="module")
def game():
    cardgym.registry.add(COMPAT)  # puts tests/compat on sys.path and registers its game packages
    yield cardgym.get_game(NAME)
    # the other tests' games are those of the session (tests that loop over cardgym.GAMES)
    cardgym.registry.remove(NAME)


def test_remove_undoes_add_and_refuses_a_built_in_game():
    import gymnasium

    cardgym.registry.add(COMPAT)
    importlib.import_module(f"cardgym.{NAME}_v0")
    from pettingzoo.env_registry.registration import aec_registry

    assert "cardgym/compat_blackjack_v1-v0" in aec_registry  # only the version's "_v" becomes "-v"
    entry = cardgym.registry.remove(NAME)
    assert NAME not in cardgym.GAMES and entry.gym_id not in gymnasium.registry
    assert entry.pettingzoo_id not in aec_registry
    with pytest.raises(ValueError, match="unknown game"):
        cardgym.get_game(NAME)
    with pytest.raises(ImportError, match=f"No module named .cardgym.{NAME}_v0"):
        importlib.import_module(entry.module)
    assert cardgym.registry.add(COMPAT)[0].name == NAME  # and it can be added again
    cardgym.registry.remove(NAME)
    with pytest.raises(ValueError, match="built into cardgym and cannot be removed"):
        cardgym.registry.remove("skyjo")


def test_the_frozen_game_states_no_contract_and_loads_as_version_1(game):
    pkg = importlib.import_module(NAME)
    assert game.contract == 1 < CONTRACT_VERSION and "contract=" not in Path(pkg.__file__).read_text()
    assert game.world is None and hasattr(importlib.import_module(f"{NAME}.observe"), "resample_hidden")
    own = importlib.import_module(f"{NAME}.bots").BOTS
    assert list(game.bots) == ["random", "greedy", "expert"] and game.bots["random"] is own["random"]
    assert game.default_bot == "greedy"


def test_the_frozen_game_plays_through_pettingzoo(game):
    mod = importlib.import_module(cardgym.GAMES[NAME].module)
    rng = np.random.default_rng(0)
    for seed, n in ((0, 1), (1, 3), (2, 4)):
        env = mod.env(num_players=n)
        env.reset(seed=seed)
        steps = 0
        for agent in env.agent_iter(max_iter=1000):
            obs, reward, term, trunc, info = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            steps += 1
        assert steps > 0 and not env.agents
        assert set(env.unwrapped.game.result(env.unwrapped.record, env.unwrapped.rules)) >= {"winners", "pushes"}


def test_the_frozen_game_has_no_worlds_and_says_so(game):
    raw = importlib.import_module(cardgym.GAMES[NAME].module).raw_env(num_players=2)
    raw.reset(seed=1)
    with pytest.raises(NotImplementedError, match=f"sampling worlds is not available for {NAME}"):
        raw.sample_world(0, 5)
    with pytest.raises(ValueError, match="not available for this game: it declares no WORLD"):
        raw.bot_action("search")


def test_the_frozen_game_passes_check_game_with_the_world_checks_skipped(game):
    report = check_game(NAME)
    configs = {cid for _, cid in report}
    assert len(configs) == len(game.test_configs) == 3
    for cid in configs:
        for check in ("hidden_information", "seat_views", "sample_world"):
            assert report[(check, cid)] == NO_WORLD, (check, cid, report[(check, cid)])
    passed = {k for k, v in report.items() if v.startswith("passed")}
    assert {("golden", c) for c in configs} | {("tamper", c) for c in configs} <= passed
    assert all(v.startswith(("passed", "skipped: world checks")) for v in report.values()), report
