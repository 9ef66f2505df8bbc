"""A game written against an earlier game contract keeps loading, playing and passing `check_game`
(docs/api.md, "The game contract"): the Blackjack plugin as it was before ``WORLD`` existed, frozen in
tests/compat/ (its README says what the copy is; its world checks are skipped, by reason), and the
Blackjack plugin written exactly as the docs of 8424a68 showed (their old import paths, a page without
"Version history"): it loads with DeprecationWarnings naming `cardgym.kit`, and passes with a warning."""

from __future__ import annotations

import importlib
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import cardgym
from cardgym.core.contract.game import CONTRACT_VERSION
from cardgym.testing import check_game

COMPAT = Path(__file__).with_name("compat")
NAME = "compat_blackjack_v1"
DOCS = "compat_blackjack_docs"  # the plugin as the docs of 8424a68 showed it (old paths, no version history)
NO_WORLD = "skipped: world checks (the game has no WORLD in its observe.py)"


@pytest.fixture(scope="module")
def game():
    cardgym.registry.add(COMPAT)  # puts tests/compat on sys.path and registers its game packages
    yield cardgym.get_game(NAME)
    # the other tests' games are those of the session (tests that loop over cardgym.GAMES)
    _remove_compat()


def _remove_compat():
    for name in (NAME, DOCS):
        if name in cardgym.GAMES:
            cardgym.registry.remove(name)


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
    assert NAME in [e.name for e in cardgym.registry.add(COMPAT)]  # and it can be added again
    _remove_compat()
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


# ------------------------------------------------ games written from the docs of earlier releases
#: every name cardgym.kit exports that a game of tests/compat imports -> the module the docs of earlier
#: releases showed for it (docs/api.md, "Old import paths")
OLD_PATHS = {
    "cardgym.core.game": ["GameSpec", "Standing", "state_dtype", "FlatEncoder", "RUNNING", "TERMINATED",
                          "TRUNCATED"],
    "cardgym.core.rules": ["Rules", "check_bool", "check_choice", "check_int"],
    "cardgym.core.rng": ["pick_legal"],
    "cardgym.core.invariants": ["all_equal", "all_in_range", "bad", "check_codes", "in_range", "same_cards"],
    "cardgym.core.worlds": ["Hidden"],
    "cardgym.games._shared.cards": ["deck_order", "load_pile"],
    "cardgym.games._shared.header": ["clear_mask", "clear_reward", "start_record"],
    "cardgym.games._shared.layout": ["Layout", "Slot", "offset"],
    "cardgym.games._shared.search": ["shuffled_pool"],
}


def old_docs_form(source: Path, dest: Path) -> Path:
    """A copy of the game package ``source`` as an author of the earlier docs wrote it: every
    ``from cardgym.kit import ...`` split over the old module paths, the page's "Version history" cut."""
    where = {name: module for module, names in OLD_PATHS.items() for name in names}
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__"))
    for f in dest.glob("*.py"):
        text = f.read_text()

        def split(m):
            names = [n.strip() for n in m.group(1).split(",")]
            by = {}
            for n in names:
                by.setdefault(where[n], []).append(n)  # a KeyError: a name with no old path in OLD_PATHS
            return "\n".join(f"from {mod} import {', '.join(ns)}" for mod, ns in by.items())

        text = re.sub(r"^from cardgym\.kit import (.+)$", split, text, flags=re.M)
        text = re.sub(r"## Version history\n\n(- .*\n)+", "", text)
        f.write_text(text)
    return dest


def test_the_old_docs_game_is_written_with_the_old_paths_and_no_version_history():
    pkg = COMPAT / DOCS
    text = "".join(f.read_text() for f in pkg.glob("*.py"))
    assert "from cardgym.kit import" not in text
    for old in ("cardgym.core.game", "cardgym.core.rules", "cardgym.core.rng", "cardgym.core.invariants",
                "cardgym.core.worlds", "cardgym.games._shared.search"):
        assert f"from {old} import" in text, old
    assert "version history" not in (pkg / "__init__.py").read_text().lower()


def _check_with_warnings(name: str) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = check_game(name)
    return report, [w for w in caught]


@pytest.mark.slow
def test_the_old_docs_game_loads_plays_and_passes_check_game_with_warnings(game):
    from cardgym.testing import PageSectionWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = cardgym.get_game(DOCS)
    olds = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert any(m.startswith("cardgym.core.game moved") and "cardgym.kit" in m for m in olds), olds
    assert spec.contract == 1 and spec.world is not None
    report, caught = _check_with_warnings(DOCS)
    assert all(v.startswith("passed") for v in report.values()), report
    spec_reports = {v for (check, _), v in report.items() if check == "spec"}
    assert len(spec_reports) == 1 and "no '## Version history' section" in spec_reports.pop()
    assert any(w.category is PageSectionWarning for w in caught)
    raw = importlib.import_module(cardgym.GAMES[DOCS].module).raw_env(num_players=2)
    raw.reset(seed=3)
    assert raw.sample_world(0, 5).record.dtype == raw.record.dtype  # its WORLD works through the old paths


@pytest.mark.slow
def test_the_pre_world_plugin_in_its_old_docs_form_passes_check_game_with_warnings(tmp_path):
    folder = tmp_path / "games"
    old_docs_form(COMPAT / NAME, folder / "compat_blackjack_v1_docs")
    init = folder / "compat_blackjack_v1_docs" / "__init__.py"
    init.write_text(init.read_text().replace('gym_name="CompatBlackjackV1"', 'gym_name="CompatBlackjackV1Docs"'))
    assert "from cardgym.kit import" not in "".join(f.read_text() for f in init.parent.glob("*.py"))
    cardgym.registry.add(folder)
    try:
        report, caught = _check_with_warnings("compat_blackjack_v1_docs")
    finally:
        cardgym.registry.remove("compat_blackjack_v1_docs")
    assert all(v.startswith(("passed", "skipped: world checks")) for v in report.values()), report
    assert all("no '## Version history' section" in v for (c, _), v in report.items() if c == "spec"), report


def test_a_contract_2_game_without_a_page_section_fails_spec(game, monkeypatch):
    import dataclasses

    from cardgym.testing import GameCheckError
    from cardgym.testing.checks import PAGE_SECTIONS

    assert PAGE_SECTIONS["## Version history"] == 2
    spec = cardgym.get_game(DOCS)
    monkeypatch.setitem(cardgym.registry._SPECS, DOCS, dataclasses.replace(spec, contract=2))
    with pytest.raises(GameCheckError, match="spec .*no '## Version history' section .*required since game contract 2"):
        check_game(DOCS, checks=["spec"], configs=[{"num_players": 1}])
