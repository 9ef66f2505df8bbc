"""The suite's tiers (docs/testing.md): the fast tier (``python -m pytest -m "not slow"``) still reaches
every game and every layer, the run says so before a long compile phase, the ``subprocess`` marker is
enforced, and an unpacked sdist collects the whole suite."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import conftest
from conftest import FAST_TIER_LAYERS, GAME_NAMES, kernel_cache_state

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------- the fast tier
def _whole_suite_collected(config) -> bool:
    """Whether this run collected the whole suite (no paths, ``-k`` or markers other than ``not slow``):
    only then does the session hold every test of the fast tier."""
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    return (all(a in (ROOT, ROOT / "tests") for a in args) and not config.option.keyword
            and config.option.markexpr.strip() in ("", "not slow"))


def names_game(nodeid: str, game: str) -> bool:
    """Whether a test id names ``game`` as a word (``skipbo`` is not named by ``skipbo_junior``)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(game)}(?![A-Za-z0-9_])", nodeid) is not None


def fast_tier_gaps(nodeids) -> list:
    """What the fast tier (the test ids ``nodeids``) leaves untouched: layers of `FAST_TIER_LAYERS`
    without a test, and games (every registered one, the test game crazy_eights among them) without a
    test of the AEC layer and one of another layer."""
    gaps = []
    by_layer = {layer: [n for n in nodeids if n.startswith(tuple(prefixes))]
                for layer, prefixes in FAST_TIER_LAYERS.items()}
    gaps += [f"layer {layer!r}: no test" for layer, ids in by_layer.items() if not ids]
    games = sorted({*GAME_NAMES, "crazy_eights"}) if not os.environ.get("CARDGYM_TEST_GAMES") else GAME_NAMES
    for game in games:
        layers = sorted(layer for layer, ids in by_layer.items() if any(names_game(n, game) for n in ids))
        if "AEC (PettingZoo)" not in layers:
            gaps.append(f"game {game!r}: no test of the AEC layer")
        if len(layers) < 2:
            gaps.append(f"game {game!r}: tested in {layers or 'no layer'} only")
    return gaps


def test_fast_tier_touches_every_game_and_layer(request):
    """The tests without the ``slow`` marker reach every layer and every game (docs/testing.md)."""
    if not _whole_suite_collected(request.config):
        pytest.skip("needs the whole suite collected: python -m pytest -m 'not slow' (or python -m pytest)")
    fast = [item.nodeid for item in request.session.items if item.get_closest_marker("slow") is None]
    assert fast_tier_gaps(fast) == []


def test_the_coverage_check_sees_a_missing_layer_and_game():
    ids = ([f"tests/test_check_game.py::test_check_game[{g}-masks]" for g in [*GAME_NAMES, "crazy_eights"]]
           + [f"tests/test_vector.py::test_x[{g}]" for g in [*GAME_NAMES, "crazy_eights"]])
    gaps = fast_tier_gaps(ids)
    assert "layer 'render': no test" in gaps and "layer 'vector': no test" not in gaps
    assert not [g for g in gaps if g.startswith("game")]
    without_skipbo = [n for n in ids if not names_game(n, "skipbo")]
    assert "game 'skipbo': no test of the AEC layer" in fast_tier_gaps(without_skipbo)
    assert not [g for g in fast_tier_gaps(without_skipbo) if "skipbo_junior" in g]


# ------------------------------------------------------------------------------- the compile notice
def test_kernel_cache_state_tells_cold_from_warm(tmp_path):
    cache = conftest.cache_module()
    assert cache is not None, f"cardgym's kernel-cache module is in none of {conftest.CACHE_MODULES}: add its path"
    choice = ("NUMBA_CACHE_DIR", tmp_path)
    assert kernel_cache_state(choice) == "cold"
    folder = Path(cache.cache_folders(*choice)[0])
    folder.mkdir(parents=True)
    assert kernel_cache_state(choice) == "cold"  # a folder without a kernel
    (folder / "rules.observe-12.py312.nbi").write_bytes(b"")
    assert kernel_cache_state(choice) == "warm"


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_cold_cache_is_announced_before_the_first_result(tmp_path):
    """With an empty ``NUMBA_CACHE_DIR`` the run's first line says kernels will compile."""
    env = {k: v for k, v in os.environ.items() if k not in ("CARDGYM_GAMES", "PYTEST_ADDOPTS")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "empty"), PYTHONPATH=os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]))
    test = "tests/test_tiers.py::test_the_coverage_check_sees_a_missing_layer_and_game"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [x for x in proc.stdout.splitlines() if x.strip()]
    assert lines[0] == conftest.COMPILE_NOTICE, proc.stdout
    assert lines[1].startswith("."), proc.stdout  # the test's result comes after it


@pytest.mark.subprocess
def test_the_subprocess_marker_is_enforced(pytester):
    """A test that starts a Python interpreter without ``@pytest.mark.subprocess`` fails, naming the marker
    (conftest's guard, run here on a copy of it)."""
    src = (ROOT / "tests" / "conftest.py").read_text()
    guard = src[src.index("def _spawns_python"):]
    pytester.makeconftest("import os, subprocess, sys\nimport pytest\n\n" + guard)
    pytester.makeini("[pytest]\nmarkers =\n    subprocess: starts Python\n")
    pytester.makepyfile("""
        import subprocess, sys
        import pytest

        def test_unmarked():
            subprocess.run([sys.executable, "-c", "pass"], check=True)

        @pytest.mark.subprocess
        def test_marked():
            subprocess.run([sys.executable, "-c", "pass"], check=True)

        def test_other_programs_are_free():
            subprocess.run(["true"], check=True)
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*test_unmarked starts a Python interpreter*@pytest.mark.subprocess*"])


# ------------------------------------------------------------------------------------------ the sdist
@pytest.mark.slow
@pytest.mark.subprocess
def test_an_unpacked_sdist_collects_the_whole_suite(tmp_path):
    """The sdist carries what its tests need (MANIFEST.in): built with setuptools' own PEP 517 hook,
    unpacked, ``pytest --co`` collects every test file without an error."""
    out = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-c", "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))",
                            str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    archive = out / build.stdout.strip().splitlines()[-1]
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    top = next((tmp_path / "unpacked").iterdir())
    for needed in ("tests/conftest.py", "tests/golden/generate.py", "tests/games", "docs/api.md",
                   "examples/plugin_blackjack", "mkdocs.yml", "CITATION.cff"):
        assert (top / needed).exists(), f"the sdist has no {needed}"
    env = {k: v for k, v in os.environ.items() if k not in ("CARDGYM_GAMES", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(top / "src")
    proc = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"], cwd=top,
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    files = {line.split("::")[0].split(":")[0] for line in proc.stdout.splitlines() if line.startswith("tests/")}
    want = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py")}
    assert files == want, sorted(want ^ files)
