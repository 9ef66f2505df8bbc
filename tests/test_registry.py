"""The registry (cardgym.registry): games are discovered, never listed; everything that names games
derives from it; a game added from outside (entry point, CARDGYM_GAMES, add()) gets the same entry
points as a built-in one; each ``cardgym.<game>_v0`` module's docstring is the game's page."""

from __future__ import annotations

import importlib
import json
import os
import pydoc
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import cardgym
from cardgym import registry
from conftest import GAME_NAMES

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def _python(code: str, env_extra: dict | None = None, path=()):
    """Run ``code`` in a fresh interpreter on this worktree's sources (without the test suite's
    CARDGYM_GAMES unless ``env_extra`` sets it)."""
    env = {k: v for k, v in os.environ.items() if k != registry.PATH_VARIABLE}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *map(str, path)])
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=600)


def test_builtin_games_are_the_packages_of_cardgym_games():
    pkgs = sorted(p.name for p in (SRC / "cardgym" / "games").iterdir()
                  if (p / "__init__.py").is_file() and not p.name.startswith("_"))
    assert sorted(registry.names(builtin=True)) == pkgs
    assert set(registry.names(builtin=True)) <= set(cardgym.GAMES)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_entry_read_without_import_agrees_with_the_spec(name):
    entry = cardgym.GAMES[name]
    game = cardgym.get_game(name)
    assert (entry.name, entry.title, entry.gym_id, entry.gym_class) == (game.name, game.title, game.gym_id,
                                                                        game.gym_class)
    assert entry.module == f"cardgym.{game.env_name}" and entry.env_name == game.env_name
    assert cardgym.GAMES[name][1] == game.gym_id  # indexable as before the registry


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_gets_every_entry_point(name):
    import gymnasium as gym
    import pettingzoo

    entry = cardgym.GAMES[name]
    mod = importlib.import_module(entry.module)
    assert getattr(cardgym, entry.env_name) is mod  # the lazy attribute
    assert mod.GAME is cardgym.get_game(name)
    for attr in ("raw_env", "env", entry.gym_class, "make_env", "make_vec"):
        assert getattr(mod, attr).__module__ == entry.module, attr
    spec = gym.spec(entry.gym_id)
    assert spec.entry_point == f"{entry.module}:make_env"  # the class inside Gymnasium's two wrappers
    assert type(gym.make(entry.gym_id).unwrapped) is getattr(mod, entry.gym_class)
    assert spec.vector_entry_point == f"{entry.module}:make_vec"
    if hasattr(pettingzoo, "register"):
        env = pettingzoo.make("aec", entry.pettingzoo_id)
        assert env.unwrapped.game is mod.GAME
    # the compile notice names the game by its title
    from cardgym.core.compiled import cache

    assert cache._TITLES[name] == entry.title


@pytest.mark.parametrize("name", GAME_NAMES)
def test_module_docstring_is_the_game_page(name):
    """PettingZoo style: help(cardgym.<game>_v0) shows the game's page, the same text as the docs."""
    entry = cardgym.GAMES[name]
    mod = importlib.import_module(entry.module)
    assert mod.__doc__ == registry.page(name)
    if entry.builtin:
        assert mod.__doc__ == (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")
    else:
        assert mod.__doc__ == importlib.import_module(entry.package).__doc__
    shown = pydoc.render_doc(mod, renderer=pydoc.plaintext)
    first = [line for line in mod.__doc__.splitlines() if line.strip()][:3]
    assert all(line.strip() in shown for line in first)
    assert len(shown.splitlines()) > 30


def test_unknown_game_and_bad_targets_are_clear_errors():
    with pytest.raises(ValueError, match=r"unknown game 'nope'; games: \["):
        cardgym.get_game("nope")
    with pytest.raises(ValueError, match="cannot be found"):
        registry.add("no_such_package_anywhere.game")
    with pytest.raises(TypeError, match="module path or a folder"):
        registry.add(3)
    with pytest.raises(ValueError, match="names no game"):
        registry.add(str(ROOT / "docs"))  # a folder without game packages
    with pytest.raises(AttributeError, match="no attribute 'nope_v0'"):
        _ = cardgym.nope_v0


def test_a_game_is_read_without_importing_it(tmp_path):
    pkg = tmp_path / "lazy_game"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        'raise RuntimeError("discovery must not import a game")\n'
        "from cardgym.core.contract.game import GameSpec\n"
        'GAME = GameSpec.from_package(__name__, title="Lazy Game", gym_name="LazyGame", version=2)\n')
    sys.path.insert(0, str(tmp_path))
    try:
        entry = registry.read_entry("lazy_game", "test")
    finally:
        sys.path.remove(str(tmp_path))
    assert entry == registry.GameEntry("cardgym.lazy_game_v2", "cardgym/LazyGame-v2", "LazyGameEnv", "lazy_game",
                                       "Lazy Game", "lazy_game", "GAME", "test")
    assert "lazy_game" not in sys.modules


@pytest.mark.subprocess
def test_import_cardgym_imports_no_game_and_no_numba():
    proc = _python("""
        import sys, cardgym
        games = [m for m in sys.modules if m.startswith("cardgym.games.")]
        print(len(cardgym.GAMES), games, "numba" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    count, rest = proc.stdout.split(" ", 1)
    assert int(count) >= 3 and rest.strip() == "[] False", proc.stdout


#: a game package added from outside: a renamed Skip-Bo Junior (its spec is not written with literal
#: keywords, so the registry imports it to read its names). It is not played here: it shares Junior's
#: record dtype, hence Junior's cached compiled template; tests/games/ holds games that are played.
_PLUGIN = '''
import dataclasses
from cardgym.games.skipbo_junior import GAME as _JUNIOR
GAME = dataclasses.replace(_JUNIOR, name="junior_plugin", title="Junior Plug-in", env_name="junior_plugin_v0",
                           gym_id="cardgym/JuniorPlugin-v0")
'''

_USE_PLUGIN = """
    import json
    import cardgym, gymnasium
    import cardgym.junior_plugin_v0 as m
    e = cardgym.GAMES["junior_plugin"]
    spec = gymnasium.spec("cardgym/JuniorPlugin-v0")
    print(json.dumps([e.origin, m.JuniorPluginEnv.__name__, m.GAME.name, spec.vector_entry_point,
                      m.__doc__.splitlines()[0], "junior_plugin" in cardgym.registry.names(builtin=False)]))
"""


def _plugin(tmp_path, entry_point: bool):
    pkg = tmp_path / "plugin_games" / "junior_plugin"
    pkg.mkdir(parents=True)
    (tmp_path / "plugin_games" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text('"""# Junior plug-in\n\nA renamed Skip-Bo Junior."""\n' + _PLUGIN)
    if entry_point:
        dist = tmp_path / "junior_plugin-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: junior-plugin\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text("[cardgym.games]\njunior_plugin = plugin_games.junior_plugin:GAME\n")


@pytest.mark.subprocess
def test_an_entry_point_adds_a_game_without_touching_cardgym(tmp_path):
    _plugin(tmp_path, entry_point=True)
    proc = _python(_USE_PLUGIN, path=[tmp_path])
    assert proc.returncode == 0, proc.stderr[-3000:]
    origin, cls, name, vec, title, added = json.loads(proc.stdout.splitlines()[-1])
    assert origin == "entry point junior_plugin (junior-plugin)" and added
    assert (cls, name, vec) == ("JuniorPluginEnv", "junior_plugin", "cardgym.junior_plugin_v0:make_vec")
    assert title == "# Junior plug-in"  # its docstring is its page


@pytest.mark.subprocess
def test_cardgym_games_variable_adds_a_game(tmp_path):
    _plugin(tmp_path, entry_point=False)
    proc = _python(_USE_PLUGIN, {registry.PATH_VARIABLE: "plugin_games.junior_plugin"}, path=[tmp_path])
    assert proc.returncode == 0, proc.stderr[-3000:]
    origin = json.loads(proc.stdout.splitlines()[-1])[0]
    assert origin == registry.PATH_VARIABLE


@pytest.mark.subprocess
def test_a_broken_plugin_is_skipped_with_a_warning(tmp_path):
    dist = tmp_path / "broken-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[cardgym.games]\nbroken = no_such_module_xyz\n")
    proc = _python("import warnings; warnings.simplefilter('always'); import cardgym; print(sorted(cardgym.GAMES))",
                   path=[tmp_path])
    assert proc.returncode == 0, proc.stderr
    assert "game 'no_such_module_xyz' (entry point broken (broken)) skipped" in proc.stderr
    assert "skyjo" in proc.stdout


def test_a_name_taken_twice_is_refused(tmp_path):
    pkg = tmp_path / "skyjo_again" / "skyjo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from cardgym.core.contract.game import GameSpec\n"
        'GAME = GameSpec.from_package(__name__, title="Skyjo again", gym_name="SkyjoAgain")\n')
    with pytest.raises(ValueError, match="game name 'skyjo' of skyjo .* is already taken by cardgym.games.skyjo"):
        registry.add(tmp_path / "skyjo_again")
    sys.path.remove(str((tmp_path / "skyjo_again").resolve()))


def test_entry_points_are_only_read_when_a_distribution_names_the_group(tmp_path):
    """``import cardgym`` skips importlib.metadata when no installed distribution declares the group
    (CI installs the example plugin, which does: then the look must answer yes)."""
    import importlib.metadata

    declared = bool(importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP))
    assert registry._group_may_be_declared() == declared
    _plugin(tmp_path, entry_point=True)
    sys.path.insert(0, str(tmp_path))
    try:
        assert registry._group_may_be_declared()
    finally:
        sys.path.remove(str(tmp_path))


def test_rules_of_a_game_from_outside_is_its_docstring(capsys):
    """Issue 25.2: ``cardgym rules`` of a game registered from outside cardgym shows its package's
    docstring (it has no shipped page) instead of failing."""
    from cardgym.cli import main
    from cardgym.app.pages import rules_markdown

    outside = [n for n in registry.names(builtin=False)]
    assert outside, "the test suite registers tests/games through CARDGYM_GAMES"
    game = cardgym.get_game(outside[0])
    assert rules_markdown(game) == importlib.import_module(game.package).__doc__
    main(["rules", outside[0], "--no-pager"])
    assert "Rules as implemented" in capsys.readouterr().out


def test_finishing_ranks_read_the_declared_standing():
    """Multi-player ratings order the seats after the winners by the game's own Standing."""
    import dataclasses

    import numpy as np

    from cardgym.core.contract.game import Standing
    from cardgym.eval.ratings import finishing_ranks

    game = cardgym.get_game("skyjo")
    rules = game.make_rules(num_players=3)
    results = {0: {"winners": [0], "totals": [10, 40, 30]}}
    fake = [dataclasses.replace(game, result=lambda r, rules: results[0], standing=s)
            for s in (Standing("totals", "lower"), Standing("totals", "higher"), None)]
    rec = np.zeros(1, game.state_dtype)
    assert finishing_ranks(fake[0], rules, rec).tolist() == [[1, 3, 2]]
    assert finishing_ranks(fake[1], rules, rec).tolist() == [[1, 2, 3]]
    assert finishing_ranks(fake[2], rules, rec).tolist() == [[1, 2, 2]]
