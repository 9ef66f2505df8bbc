"""Layers that point one way (docs/api.md, "Layers"): the import contracts of pyproject.toml
(``[tool.importlinter]``, checked by import-linter) and no import cycle between any two modules (grimp,
import-linter's engine). Imports inside functions count. Each check runs in a subprocess on the source
tree of the ``cardgym`` these tests import, and fails with the offending import chain."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardgym

pytest.importorskip("importlinter", reason="the dev extra installs import-linter")

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(cardgym.__file__).resolve().parents[1]

LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"

# every import a -> b within cardgym for which b also reaches a is part of a cycle; the chain back is
# grimp's shortest one. acyclic_siblings (in pyproject) compares siblings only: this also sees a package
# and its own submodule importing each other.
CYCLES = r"""
import sys
import grimp

graph = grimp.build_graph("cardgym", cache_dir=None)
found = []
for a in sorted(graph.modules):
    for b in sorted(graph.find_modules_directly_imported_by(a)):
        back = graph.find_shortest_chain(importer=b, imported=a)
        if back:
            line = graph.get_import_details(importer=a, imported=b)[0]["line_number"]
            found.append(f"{a} (l.{line}) -> " + " -> ".join(back))
print("\n".join(found))
sys.exit(1 if found else 0)
"""


def _run(code: str, src: Path, *args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(src))
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def lint(src: Path) -> subprocess.CompletedProcess:
    return _run(LINT, src, "--no-cache")  # the config: pyproject.toml in the working directory, ROOT


def cycles(src: Path) -> subprocess.CompletedProcess:
    return _run(CYCLES, src)


def _broken(out: str) -> str:
    return out[out.find("Contracts:"):] if "Contracts:" in out else out


@pytest.mark.subprocess
def test_the_import_contracts_are_kept():
    proc = lint(SRC)
    assert proc.returncode == 0, (
        "an import breaks the layering of docs/api.md (\"Layers\"; contracts in pyproject.toml "
        f"[tool.importlinter]):\n{_broken(proc.stdout)}{proc.stderr}")
    assert "0 broken" in proc.stdout


@pytest.mark.subprocess
def test_no_module_is_part_of_an_import_cycle():
    proc = cycles(SRC)
    assert proc.returncode == 0, f"import cycles (each: an import, then the chain back):\n{proc.stdout}{proc.stderr}"


@pytest.fixture
def copy_of_src(tmp_path):
    """A copy of the cardgym source tree to break on purpose."""
    dst = tmp_path / "src"
    shutil.copytree(SRC / "cardgym", dst / "cardgym", ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


@pytest.mark.subprocess
def test_the_contracts_catch_core_importing_agents_inside_a_function(copy_of_src):
    _append(copy_of_src / "cardgym/core/envs/aec.py", "\n\ndef _bad():\n    from cardgym.agents import load_policy\n")
    proc = lint(copy_of_src)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "cardgym.core is not allowed to import cardgym.agents" in proc.stdout
    assert "cardgym.core.envs.aec -> cardgym.agents" in proc.stdout


@pytest.mark.subprocess
def test_the_contracts_catch_core_importing_the_package(copy_of_src):
    _append(copy_of_src / "cardgym/core/envs/opponents.py", "\n\ndef _bad():\n    import cardgym\n")
    proc = lint(copy_of_src)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "cardgym.core.envs.opponents -> cardgym " in proc.stdout


@pytest.mark.subprocess
def test_the_contracts_catch_a_module_outside_every_layer(copy_of_src):
    (copy_of_src / "cardgym/newcomer.py").write_text("from .core import game  # noqa: F401\n")
    proc = lint(copy_of_src)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "cardgym.newcomer" in proc.stdout


@pytest.mark.subprocess
def test_the_cycle_check_catches_a_package_and_its_submodule(copy_of_src):
    # a cycle acyclic_siblings does not see: cardgym.eval (the package) <-> cardgym.eval.ratings
    _append(copy_of_src / "cardgym/eval/ratings.py", "\n\ndef _bad():\n    from . import tournament\n")
    proc = cycles(copy_of_src)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "cardgym.eval.ratings (l." in proc.stdout and " -> cardgym.eval -> " in proc.stdout


@pytest.mark.subprocess
def test_import_cardgym_loads_no_layer_above_core():
    """`import cardgym` plugs render and agents into core without importing them (nor torch, Pillow),
    and discovers the games without importing any (only the empty ``cardgym.games`` package)."""
    code = ("import sys, cardgym; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'PIL') or m.startswith(('cardgym.render', 'cardgym.agents', 'cardgym.games.'))))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(SRC)),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_package_imports_nothing_above_the_registry():
    """Issue 42.6: ``cardgym/__init__.py`` imported ``cardgym.app`` (a layer above the registry, entry
    points and agents). Its module-level imports of cardgym reach the registry and below only."""
    import ast

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    layers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    order = next(c for c in layers if c["id"] == "layers")["layers"]
    allowed = {m.strip() for layer in order[order.index("registry"):] for m in layer.split("|")}
    tree = ast.parse((SRC / "cardgym" / "__init__.py").read_text())
    imported = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("cardgym")):
            base = (node.module or "").removeprefix("cardgym").lstrip(".")
            imported |= {(base or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Import):
            imported |= {a.name.split(".")[1] for a in node.names if a.name.startswith("cardgym.")}
    assert imported and imported <= allowed, sorted(imported - allowed)


def test_core_plugin_slots():
    import cardgym.render
    from cardgym.core import services as plugins

    assert plugins.get("rgb_array") is cardgym.render.rgb_array
    with pytest.raises(ValueError, match="unknown plug-in slot 'nope'; slots: "):
        plugins.get("nope")
    with pytest.raises(ValueError, match="unknown plug-in slot"):
        plugins.plug("nope", lambda: None)
    with pytest.raises(TypeError, match="no-argument callable"):
        plugins.plug("rgb_array", 3)


def test_an_empty_core_slot_says_what_is_missing(monkeypatch):
    from cardgym.core import services as plugins

    monkeypatch.setattr(plugins, "_loaders", {})
    monkeypatch.setattr(plugins, "_loaded", {})
    with pytest.raises(RuntimeError, match="nothing is plugged into core slot 'model_opponent'"):
        plugins.get("model_opponent")
