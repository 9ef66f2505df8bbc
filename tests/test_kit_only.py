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
        "import numpy as np\nfrom ...core.game import RUNNING\nfrom cardgym.render.scene import Card\n"
        "from ...kit.cards import top\nfrom .rules import X\n"
        "def f():\n    from ..skyjo import rules\n    from ... import registry\n")
    got = offending(pkg, "cardgym.games.demo")
    assert [g.split(" imports ")[1] for g in got] == [
        "cardgym.core.game", "cardgym.render.scene", "cardgym.kit.cards", "cardgym.games.skyjo",
        "cardgym.registry"], got
    assert all(p.name != "demo" for p, _ in PACKAGES)


def test_every_game_is_scanned():
    names = {p.name for p, _ in PACKAGES}
    assert {"skyjo", "skipbo", "skipbo_junior", "_shared", "crazy_eights"} <= names
