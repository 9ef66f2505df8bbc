"""Golden playthroughs: every file in tests/golden/ equals a fresh run of tests/golden/generate.py.

A mismatch means the behaviour changed (deal, rules, observations, masks, rewards, rendering, bots, RNG
streams, the Gymnasium or vector env). If that is intended, regenerate the files with
``python -m tests.golden.generate`` and review ``git diff tests/golden``; see docs/testing.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from golden import generate as gen

import cardgym

GOLDEN = Path(gen.__file__).resolve().parent
FILES = gen.all_files()


@pytest.mark.parametrize("name", list(FILES))
def test_golden_file_matches_a_fresh_run(name):
    path = GOLDEN / name
    assert path.is_file(), f"tests/golden/{name} is missing; create it with `{gen.REGENERATE} --only {name}`"
    stored = path.read_text()
    fresh = FILES[name]()
    diff = gen.first_difference(stored, fresh, name)
    assert not diff, gen.mismatch_message(name, diff)


def test_every_game_and_api_is_covered():
    assert set(gen.GAMES) == set(cardgym.registry.names(builtin=True))  # the built-in games (not those added from outside)
    for game in gen.GAMES:
        variants = [v for v in gen.VARIANTS if v.game == game]
        counts = {v.options.get("num_players", 2) for v in variants}
        assert 2 in counts and max(counts) > 2, f"{game}: golden playthroughs need 2 and a larger player count"
        assert f"{game}__gym.txt" in FILES and f"{game}__vector.txt" in FILES
    names = [v.filename for v in gen.VARIANTS]
    assert len(names) == len(set(names))


def test_no_stale_golden_files():
    stored = sorted(p.name for p in GOLDEN.glob("*.txt"))
    stale = sorted(set(stored) - set(FILES))
    assert not stale, f"tests/golden holds files the generator no longer writes: {stale}; delete them"


def test_golden_files_stay_reviewable():
    for name in FILES:
        size = (GOLDEN / name).stat().st_size
        assert size < 300_000, f"tests/golden/{name} is {size} bytes; lower DETAILED in generate.py"


def test_a_mismatch_shows_the_first_differing_lines_and_the_command():
    stored = "\n".join(f"line {i}" for i in range(100)) + "\n"
    fresh = stored.replace("line 50\n", "line fifty\n")
    diff = gen.first_difference(stored, fresh, "x.txt")
    assert "-line 50" in diff and "+line fifty" in diff
    assert "line 47" in diff and "line 53" in diff and "line 46" not in diff  # 3 lines of context
    message = gen.mismatch_message("x.txt", diff)
    assert gen.REGENERATE in message and "--only x.txt" in message
    assert gen.first_difference(stored, stored, "x.txt") == ""
    long = gen.first_difference(stored, stored.replace("line", "LINE"), "x.txt", max_lines=10)
    assert long.splitlines()[-1].startswith("... (") and len(long.splitlines()) == 11


def test_formatting_is_fixed():
    assert gen.fnum(3.0) == "3" and gen.fnum(-2) == "-2" and gen.fnum(2 / 3) == "0.666667"
    assert gen.nonzero([0, 1.5, 0, -1]) == "1:1.5 3:-1"
    # a last-bit difference and the sign of zero do not change a hash
    assert gen.digest([0.1, -0.0]) == gen.digest([0.1 + 1e-12, 0.0])
    assert gen.digest([0.1]) != gen.digest([0.2])


@pytest.mark.slow
@pytest.mark.subprocess
def test_check_mode_reports_a_mismatch(tmp_path):
    name = "skipbo_junior__classic_2p.txt"
    (tmp_path / name).write_text((GOLDEN / name).read_text().replace("seed: 1", "seed: 99"))
    root = GOLDEN.parents[1]
    cmd = [sys.executable, "-m", "tests.golden.generate", "--check", "--only", name, "--dir", str(tmp_path)]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "-seed: 99" in proc.stderr and "+seed: 1" in proc.stderr and gen.REGENERATE in proc.stderr
    (tmp_path / name).write_text((GOLDEN / name).read_text())
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and f"ok {name}" in proc.stdout, proc.stdout + proc.stderr
