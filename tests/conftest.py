"""Shared fixtures: the game configurations every generic test runs on."""

from __future__ import annotations

import os
import subprocess
import sys
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

#: pytester: tests/test_tiers.py runs the subprocess guard below on a test file of its own
pytest_plugins = ["pytester"]

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


def load_file(path, name: str):
    """The Python file ``path`` (a script of ``benchmarks/`` or ``examples/``) imported as module ``name``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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


# ------------------------------------------------------------------------------------ the suite's tiers
# Markers (registered in pyproject.toml, [tool.pytest.ini_options]; docs/testing.md): ``slow`` (left out
# of the fast tier ``python -m pytest -m "not slow"``), ``browser`` (a real headless Chromium),
# ``rllib`` (needs ray[rllib]), ``subprocess`` (starts a Python interpreter). The full suite (no ``-m``)
# runs them all.

#: what the fast tier must still reach (tests/test_tiers.py checks it against the collected tests):
#: layer -> the test files (or ``file::test`` prefixes) that exercise it
FAST_TIER_LAYERS = {
    "AEC (PettingZoo)": ["tests/test_env_api.py::test_pettingzoo_registry", "tests/test_check_game.py"],
    "Gymnasium single-agent": ["tests/test_env_api.py::test_single_agent", "tests/test_gym_make_vec.py"],
    "vector": ["tests/test_vector.py"],
    "SB3 VecEnv": ["tests/test_sb3_smoke.py"],
    "eval": ["tests/test_ladder.py", "tests/test_ratings.py"],
    "records": ["tests/test_game_records.py"],
    "render": ["tests/test_render.py"],
    "web API": ["tests/test_web_api.py"],
    "CLI": ["tests/test_cli.py", "tests/test_cli_flags.py", "tests/test_cli_outputs.py"],
    "trainer smoke": ["tests/test_train_ppo.py", "tests/test_train_agents.py"],
}


#: parametrized cases that are slow while their siblings are not (whole tests carry
#: ``@pytest.mark.slow`` in their file): the cases of 1 s of CPU or more in a full run with a warm
#: cache (docs/testing.md, "Tiers and markers"); most pay for their game's first kernels or bots
SLOW_CASES = frozenset([
    'tests/test_check_game.py::test_check_game[crazy_eights-gymnasium_api]',
    'tests/test_check_game.py::test_check_game[crazy_eights-masks]',
    'tests/test_check_game.py::test_check_game[crazy_eights-render]',
    'tests/test_check_game.py::test_check_game[crazy_eights-vector_aec]',
    'tests/test_check_game.py::test_check_game[skipbo-gymnasium_api]',
    'tests/test_check_game.py::test_check_game[skipbo-masks]',
    'tests/test_check_game.py::test_check_game[skipbo-pettingzoo_api]',
    'tests/test_check_game.py::test_check_game[skipbo-render]',
    'tests/test_check_game.py::test_check_game[skipbo-vector_aec]',
    'tests/test_check_game.py::test_check_game[skipbo_junior-gymnasium_api]',
    'tests/test_check_game.py::test_check_game[skipbo_junior-masks]',
    'tests/test_check_game.py::test_check_game[skipbo_junior-render]',
    'tests/test_check_game.py::test_check_game[skyjo-gymnasium_api]',
    'tests/test_check_game.py::test_check_game[skyjo-render]',
    'tests/test_cli.py::test_eval_runs_on_every_game[blackjack]',
    'tests/test_cli.py::test_eval_runs_on_every_game[skipbo]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots agent,expert --games 200]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots random,greedy,expert --games 2000 --json]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots search,expert --games 200 --seed 0]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots search,expert --games 2000 --seed 10000]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots search,expert --games 4000 --seed 100000]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots search,expert --games 4000 --seed 104000]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --bots search,expert --games 600 --seed 1]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo --players 4 --bots random,greedy,expert --games 1000 --seed 0]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo_junior --bots search,expert --games 8000 --seed 100000]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skipbo_junior --players 4 --bots random,greedy,expert --games 1000 --seed 0]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skyjo --bots agent,expert --num-players 4]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skyjo --bots agent,search --games 400 --seed 0]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skyjo --bots examples/pimc.py:Player,expert --games 200]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skyjo --bots search,expert --games 8000 --seed 100000]',
    'tests/test_cli_examples.py::test_documented_command_runs[cardgym eval skyjo --players 4 --bots random,greedy,expert]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[eval-skipbo]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[eval-skipbo_junior]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[eval-skyjo]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[ladder-skipbo_junior]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[train-skipbo]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[train-skipbo_junior]',
    'tests/test_cli_flags.py::test_hostile_values_never_end_in_a_traceback[train-skyjo]',
    'tests/test_docs.py::test_api_snippets_run_as_written[2]',
    'tests/test_docs.py::test_api_snippets_run_as_written[4]',
    'tests/test_env_api.py::test_gymnasium_check_env_dict_and_greedy[crazy_eights-num_players=2]',
    'tests/test_env_api.py::test_gymnasium_check_env_dict_and_greedy[skipbo-num_players=2-stock_size=10]',
    'tests/test_env_api.py::test_gymnasium_check_env_dict_and_greedy[skyjo-num_players=2]',
    'tests/test_env_api.py::test_state_and_state_space[crazy_eights-num_players=2]',
    'tests/test_mutants.py::test_crazy_eights_passes_the_checks_its_mutants_fail[seat_views]',
    'tests/test_mutants.py::test_the_mutant_fails_the_check_that_guards_it[mutant_world_keeps-hidden_information]',
    'tests/test_mutants.py::test_the_mutant_fails_the_check_that_guards_it[mutant_world_pins_top-hidden_information]',
    'tests/test_search_bot.py::test_search_budget_changes_nothing_but_strength[skipbo]',
    'tests/test_search_bot.py::test_search_budget_changes_nothing_but_strength[skyjo]',
    'tests/test_view.py::test_views_leak_nothing[skipbo-num_players=4-teams=True-stock_size=5]',
])


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in SLOW_CASES:
            item.add_marker(pytest.mark.slow)


#: where cardgym's kernel-cache module may live (the first that imports is used)
CACHE_MODULES = ("cardgym.core.compiled.cache",)


def cache_module():
    """cardgym's kernel-cache module (`CACHE_MODULES`), None when it is in none of those places."""
    import importlib

    for path in CACHE_MODULES:
        try:
            return importlib.import_module(path)
        except ImportError:
            continue
    return None


def kernel_cache_state(choice=None) -> str:
    """``"warm"``, ``"cold"`` (no cached kernel of cardgym for its current sources: the first tests
    compile for minutes) or ``"unknown"`` (the cache module is not where this looks, or cannot say),
    read from cardgym's cache layout (`cardgym.core.compiled.cache`: the folders of the current content stamp).
    ``choice``: a ``(kind, folder)`` as ``cache.choose()`` gives (default: the one in use)."""
    cache = cache_module()
    if cache is None:
        return "unknown"
    try:
        kind, folder = choice or getattr(cache, "_CHOICE", None) or cache.choose()
        folders = cache.cache_folders(kind, folder)
    except Exception:  # the layout changed: say nothing wrong, say it may compile
        return "unknown"
    if not folders:
        return "unknown"
    return "warm" if any(Path(d).is_dir() and any(Path(d).glob("*.nbi")) for d in folders) else "cold"


COMPILE_NOTICE = ("cardgym: compiling kernels on first use (cold cache: a few minutes before the first results; "
                  "`cardgym warmup` compiles ahead)")


def pytest_sessionstart(session):
    """Say, before collection, that the first tests will compile for minutes (the run looks hung
    otherwise: numba prints nothing while it compiles, and pytest captures cardgym's own notice)."""
    state = kernel_cache_state()
    if state == "warm":
        return
    line = COMPILE_NOTICE if state == "cold" else COMPILE_NOTICE.replace("(cold cache", "(if the cache is cold")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line, yellow=True)
    else:
        print(line, file=sys.stderr, flush=True)


def _spawns_python(args) -> bool:
    first = args if isinstance(args, (str, bytes, os.PathLike)) else (list(args)[:1] or [""])[0]
    first = os.fsdecode(first) if isinstance(first, (bytes, os.PathLike)) else str(first)
    name = os.path.basename(first.split()[0]) if first.strip() else ""
    return first == sys.executable or name.startswith("python") or name == "cardgym"


@pytest.fixture(autouse=True)
def _subprocess_marker_is_true(request):
    """A test that starts a Python interpreter (``sys.executable``, ``python*``, the ``cardgym`` command)
    must carry ``@pytest.mark.subprocess``: otherwise it fails here, naming the marker."""
    if request.node.get_closest_marker("subprocess") is not None:
        yield
        return
    started = []
    real = subprocess.Popen.__init__

    def init(self, args, *a, **kw):
        if _spawns_python(args):
            started.append(args)
        return real(self, args, *a, **kw)

    subprocess.Popen.__init__ = init
    try:
        yield
    finally:
        subprocess.Popen.__init__ = real
    if started:
        pytest.fail(f"{request.node.nodeid} starts a Python interpreter ({started[0]!r}) but has no "
                    "@pytest.mark.subprocess marker (docs/testing.md, 'Tiers and markers')", pytrace=False)
