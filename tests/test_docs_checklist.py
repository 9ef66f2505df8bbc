"""docs/api.md's "Adding a game" checklist runs as written, from an empty folder: every command of its
block, in order, in a fresh shell.

Two commands are steered, not rewritten: ``pip`` is a shim that installs into a folder of the test's
own (``pip install -e X`` becomes ``pip install --no-deps --target SITE X``, never touching the
environment the suite runs in; ``pip wheel`` builds without build isolation, offline), and ``cardgym``
runs ``python -m cardgym.cli`` from this checkout. ``cardgym play`` reads ``q`` (quit) from stdin."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def checklist() -> list:
    text = (ROOT / "docs" / "api.md").read_text()
    block = re.search(r"<!-- checklist -->\n```bash\n(.*?)```\n<!-- end checklist -->", text, re.S)
    assert block, "docs/api.md has no checklist block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def _shim(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_the_checklist_covers_a_game_from_nothing_to_a_wheel():
    cmds = checklist()
    assert cmds[0].startswith("cardgym new-game ") and any(c.startswith("pip wheel") for c in cmds)
    assert any("pytest" in c for c in cmds) and any(c.startswith("cardgym rules") for c in cmds)


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_checklist_runs_as_written(tmp_path):
    site, bin_ = tmp_path / "site", tmp_path / "bin"
    bin_.mkdir()
    py = sys.executable
    _shim(bin_ / "python", f'exec "{py}" "$@"\n')
    _shim(bin_ / "cardgym", f'exec "{py}" -m cardgym.cli "$@"\n')
    _shim(bin_ / "pip", (
        'if [ "$1" = install ] && [ "$2" = -e ]; then\n'
        f'  exec "{py}" -m pip install -q --no-deps --no-build-isolation --target "{site}" "$3"\n'
        'fi\n'
        'if [ "$1" = wheel ]; then shift; '
        f'exec "{py}" -m pip wheel -q --no-build-isolation "$@"; fi\n'
        f'exec "{py}" -m pip "$@"\n'))
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join([str(site), str(ROOT / "src")])}
    for key in ("CARDGYM_GAMES", "CARDGYM_TEST_GAMES"):
        env.pop(key, None)
    for cmd in checklist():
        out = subprocess.run(cmd, shell=True, cwd=str(work), env=env, capture_output=True, text=True,
                             input="q\n", timeout=1500)
        assert out.returncode == 0, f"{cmd}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        if cmd.startswith("cardgym rules"):
            assert "Rules as implemented" in out.stdout
        if cmd.startswith("cardgym play"):
            assert "you are player_0" in out.stdout
    assert list((work / "dist").glob("cardgym_my_game-0.1.0-*.whl"))
    assert list((work / "cardgym-my-game" / "tests" / "golden").glob("my_game__*.txt"))
