"""Edits recompile only what compiled code depends on: a game's kernel files and the modules they import,
not its ``scene.py`` or ``text.py`` (a copy of a test game in a temporary folder, played in subprocesses
over their own kernel cache; the compile notice counts compiles, as in tests/test_cold_start.py)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import sys
from pathlib import Path

from cardgym.core.compiled import cache

REPO = Path(__file__).resolve().parents[1]
CRAZY_EIGHTS = REPO / "tests" / "games" / "crazy_eights"
NOTICE = "cardgym: compiling"

PLAY = (
    "import numpy as np, cardgym\n"
    "e = cardgym.crazy_eights_v0.env(); e.reset(seed=3)\n"
    "for _ in range(6):\n"
    "    e.step(int(np.flatnonzero(e.observe(e.agent_selection)['action_mask'])[-1]))\n"
    "print(e.unwrapped.state().tolist())\n"
)


def _play(games: Path, nbcache: Path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), CARDGYM_GAMES=str(games), NUMBA_CACHE_DIR=str(nbcache))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_what_kernels_depend_on_is_their_files_and_the_modules_they_import():
    files = [rel for _, rel, _ in cache._relevant([CRAZY_EIGHTS])]
    assert files == ["bots.py", "expert.py", "kernels.py", "observe.py", "rules.py", "search.py"]
    # rules.py holds no kernel, but its constants are frozen into the kernels that import it
    assert not cache._digest(CRAZY_EIGHTS / "rules.py")[0]
    mine = [rel for _, rel, _ in cache._relevant([cache.ROOT])]
    assert "core/compiled/rng.py" in mine and "games/skyjo/rules.py" in mine
    # no game's scene.py or text.py (render/scene.py is one: cardgym.kit, which kernels import,
    # re-exports its constants)
    assert not any(rel.startswith("games/") and rel.endswith(("scene.py", "text.py")) for rel in mine)
    assert "render/draw_rgb.py" not in mine and "web/server.py" not in mine


def test_a_file_holds_kernels_when_it_compiles_one_not_when_it_names_njit_in_words():
    assert cache._parse(b"from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x\n")[0]
    assert cache._parse(b"import numba\ng = numba.njit(lambda x: x)\n")[0]
    assert not cache._parse(b'"""Helpers are numba.njit(cache=True) functions."""\n# njit\nX = 1\n')[0]
    assert not cache._parse(b"from numba import njit\n")[0]  # an import alone compiles nothing
    assert not cache._digest(cache.ROOT / "kit" / "__init__.py")[0]  # its docstring names njit


@pytest.mark.slow
@pytest.mark.subprocess
def test_an_edited_scene_compiles_nothing_and_an_edited_kernel_compiles_again(tmp_path):
    games = tmp_path / "games"
    game = games / "crazy_eights"
    shutil.copytree(CRAZY_EIGHTS, game, ignore=shutil.ignore_patterns("__pycache__"))
    nbcache = tmp_path / "nbcache"
    tag = cache.source_tag("crazy_eights_copy", game)
    first = _play(games, nbcache)
    assert NOTICE in first.stderr
    _append(game / "scene.py", "\n# a comment in the scene\n")
    _append(game / "text.py", "\n# and one in the text\n")
    assert cache.source_tag("crazy_eights_copy2", game) == tag  # the bindings' cache names stay
    again = _play(games, nbcache)
    assert NOTICE not in again.stderr, again.stderr[-3000:]
    assert again.stdout == first.stdout
    _append(game / "kernels.py", "\n# a comment in a kernel file\n")
    assert cache.source_tag("crazy_eights_copy3", game) != tag
    edited = _play(games, nbcache)
    assert NOTICE in edited.stderr, edited.stderr[-3000:]
    assert edited.stdout == first.stdout
