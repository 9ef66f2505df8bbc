"""The built-in games (and the Crazy Eights test game) are written from `cardgym.kit` alone.

Every module of ``cardgym/games/<game>/``, of ``cardgym/games/_shared/`` and of ``tests/games/crazy_eights/``
may import the standard library, third-party packages (numpy, numba, gymnasium), ``cardgym.kit``
itself, its own game package and ``cardgym.games._shared``; nothing else of cardgym (``cardgym.core``,
``cardgym.render``, the kit's own submodules, ...). Read with ``ast``: every import, also one inside a
function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "src" / "cardgym" / "games"
CRAZY = ROOT / "tests" / "games" / "crazy_eights"

#: (folder, its package's dotted name)
PACKAGES = [(p, f"cardgym.games.{p.name}") for p in sorted(GAMES.iterdir())
            if p.is_dir() and (p / "__init__.py").exists()] + [(CRAZY, "tests.games.crazy_eights")]


def module_name(path: Path, folder: Path, package: str) -> str:
    rel = path.relative_to(folder).with_suffix("")
    parts = [] if rel.name == "__init__" else list(rel.parts)
    return ".".join([package, *parts])


def imported(tree: ast.AST, module: str, is_package: bool):
    """``(line, dotted name)`` of every import of a module's ``ast`` (relative ones resolved; for
    ``from X import a`` both ``X`` and ``X.a``, as ``a`` may be a submodule)."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            if node.module is None:  # from . import x, from .. import _shared
                for alias in node.names:
                    yield node.lineno, f"{target}.{alias.name}"
            else:
                yield node.lineno, target


def allowed(name: str, package: str) -> bool:
    if name == "cardgym.kit":
        return True
    for own in (package, "cardgym.games._shared"):
        if name == own or name.startswith(own + "."):
            return True
    if name == "cardgym" or name.startswith("cardgym."):
        return False
    return not name.startswith("tests.")  # third party or the standard library


def offending(folder: Path, package: str, only_shared: bool = False) -> list:
    bad = []
    for path in sorted(folder.rglob("*.py")):
        mod = module_name(path, folder, package)
        tree = ast.parse(path.read_text(), str(path))
        for line, name in imported(tree, mod, path.name == "__init__.py"):
            ok = allowed(name, package)
            if only_shared and name.startswith("cardgym.games.") and not name.startswith(package):
                ok = False  # _shared serves the games; it imports none of them
            if not ok:
                bad.append(f"{path.relative_to(folder.parent)}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("folder,package", PACKAGES, ids=[p.name for p, _ in PACKAGES])
def test_game_imports_only_the_kit(folder, package):
    assert not offending(folder, package, only_shared=folder.name == "_shared"), (
        "a game imports only cardgym.kit, its own modules and cardgym.games._shared:\n"
        + "\n".join(offending(folder, package, only_shared=folder.name == "_shared")))


def test_the_scan_sees_what_it_must_refuse(tmp_path):
    """The check itself: a relative ``core`` import, an absolute ``render`` one, a kit submodule, an
    import inside a function and another game are refused; the kit, the own package, _shared, numpy pass."""
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ...kit import GameSpec\nfrom .._shared import presets\n")
    (pkg / "scene.py").write_text(
        "import numpy as np\nfrom cardgym.core.contract.game import RUNNING\nfrom cardgym.render.scene import Card\n"
        "from ...kit.cards import top\nfrom .rules import X\n"
        "def f():\n    from ..skyjo import rules\n    from ... import registry\n")
    got = offending(pkg, "cardgym.games.demo")
    assert [g.split(" imports ")[1] for g in got] == [
        "cardgym.core.contract.game", "cardgym.render.scene", "cardgym.kit.cards", "cardgym.games.skyjo",
        "cardgym.registry"], got
    assert all(p.name != "demo" for p, _ in PACKAGES)


def test_every_game_is_scanned():
    names = {p.name for p, _ in PACKAGES}
    assert {"skyjo", "skipbo", "skipbo_junior", "_shared", "crazy_eights"} <= names


def test_a_helper_module_in_a_game_folder_loads_and_stamps_the_cache(tmp_path, monkeypatch):
    """A game folder may hold helper modules ``_*.py``: `GameSpec.from_package` loads a game whose
    kernels import compiled functions from one, and the kernel cache's staleness stamp covers it (an
    edit of the helper drops the cached kernels), as it does the game's own modules."""
    import importlib
    import shutil
    import sys

    from cardgym.core.compiled.cache import source_tag, sources_stamp
    from cardgym.kit import GameSpec

    folder = tmp_path / "ce_helpers"
    shutil.copytree(CRAZY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "_helpers.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n"
                                        "    return 2 * x\n")
    kernels = folder / "kernels.py"
    kernels.write_text(kernels.read_text().replace("from .rules import", "from ._helpers import twice  # noqa: F401\n"
                                                   "from .rules import", 1))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        game = importlib.import_module("ce_helpers").GAME
        assert isinstance(game, GameSpec) and game.name == "ce_helpers"
        assert importlib.import_module("ce_helpers.kernels").twice(3) == 6
    finally:
        for mod in [m for m in sys.modules if m == "ce_helpers" or m.startswith("ce_helpers.")]:
            del sys.modules[mod]
    before, tag = sources_stamp(folder), source_tag("ce_helpers_probe", folder)
    (folder / "_helpers.py").write_text((folder / "_helpers.py").read_text().replace("2 * x", "x + x"))
    assert sources_stamp(folder) != before
    assert source_tag("ce_helpers_probe2", folder) != tag
