"""``cardgym warmup``: after it, the README's snippets, ``cardgym play``, ``cardgym eval`` and ``cardgym
serve`` compile nothing, also from a copy of the package at another path with the cache read-only (a
container image).

One game is warmed and checked: the test suite's own Crazy Eights (tests/games, registered like a
third-party game), the cheapest to compile of the games with every kind of part (four bots with a
search bot, a flat and a dict observation). One game is enough because every surface reaches a game's
kernels through the same code for all games: the template bound per game (``core/compiled/bound.py`` through
``core/compiled/binder.py``, one binding per bot, encoder and set of bots) and the same Python layers; only the
game's own kernels differ, and `cardgym.cli.warmup.steps_of` derives its steps from the game's bots and
encoders. The README's snippets name Skyjo and Skip-Bo: they run here as written with the game's
names replaced (``skyjo_v0`` by ``crazy_eights_v0``, ``"skyjo"`` and the Gymnasium ids by Crazy
Eights')."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardgym
from cardgym.cli import warmup

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
GAME = REPO / "tests" / "games" / "crazy_eights"
NOTICE = "cardgym: compiling"


def readme_snippets() -> list:
    text = (REPO / "README.md").read_text()
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def as_crazy_eights(code: str) -> str:
    out = (code.replace("skyjo_v0", "crazy_eights_v0").replace('"skyjo"', '"crazy_eights"')
           .replace("cardgym/Skyjo-v0", "cardgym/CrazyEights-v0").replace("cardgym/SkipBo-v0", "cardgym/CrazyEights-v0"))
    assert "kyjo" not in out and "SkipBo" not in out, out
    return out


SERVE = """
from starlette.testclient import TestClient
from cardgym.web.app import create_app
from cardgym.web.tables import Tables
import time
c = TestClient(create_app(Tables(pace=0)), base_url="http://127.0.0.1:8000")
assert c.get("/api/games").status_code == 200
g = c.post("/api/games", json={"game": "crazy_eights", "num_players": 2, "seats": ["person", "expert"], "seed": 1}).json()
tok = {"X-Seat-Token": g["token"]}
st = c.get(f"/api/games/{g['id']}", headers=tok).json()
for _ in range(100):  # a table opens once its kernels are ready (at once after warmup)
    if not st["preparing"]:
        break
    time.sleep(0.1)
    st = c.get(f"/api/games/{g['id']}", headers=tok).json()
for _ in range(30):
    if st["over"]:
        break
    st = c.post(f"/api/games/{g['id']}/move", json={"action": st["view"]["legal"][-1]["action"], "step": st["step"]},
                headers=tok).json()
w = c.post("/api/games", json={"game": "crazy_eights", "num_players": 3, "seats": ["search", "greedy", "random"]}).json()
print("served", len(c.get(f"/api/games/{w['id']}").json()["log"]))
"""


def read_only_runner(folder: Path):
    """A function turning a command line into one that runs with ``folder`` read-only: under a user and
    mount namespace with ``folder`` bound read-only (``unshare``: root can write through file modes),
    else with its files' write bits cleared (a user that is not root). Skips when neither can be had."""
    if shutil.which("unshare"):
        probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind -o ro '{folder}' '{folder}' && "
                                f"! touch '{folder}/.probe' 2>/dev/null"], capture_output=True)
        if probe.returncode == 0:
            return lambda argv: ["unshare", "-rm", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"',
                                 str(folder), *argv]
    if os.geteuid() != 0:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        return lambda argv: argv
    pytest.skip("cannot make a folder read-only here (root without unshare)")


def test_steps_cover_every_bot_encoder_and_set_of_bots():
    game = cardgym.get_game("crazy_eights")
    steps = warmup.steps_of(game)
    assert ("gym", "search/dict") in steps and ("vector", "search/vector") in steps
    assert sum(s == "eval" for s, _ in steps) == 2 ** len(game.bots) - 1  # every set of bots that can meet
    assert {s for s, _ in steps} == {"aec", "gym", "vector", "eval", "records", "web", "train"}
    with pytest.raises(ValueError, match="unknown game"):
        warmup.warm(["nogame"])
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        warmup.warm(["crazy_eights"], jobs=0)


@pytest.mark.slow
@pytest.mark.subprocess
def test_after_warmup_no_surface_compiles_even_from_a_copy(tmp_path):
    games = tmp_path / "a" / "games"
    shutil.copytree(GAME, games / "crazy_eights", ignore=shutil.ignore_patterns("__pycache__"))
    src = tmp_path / "a" / "src"
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    base = dict(os.environ)
    base.pop("NUMBA_DISABLE_JIT", None)
    cache = tmp_path / "nbcache"
    env = {**base, "PYTHONPATH": str(src), "CARDGYM_GAMES": str(games), "NUMBA_CACHE_DIR": str(cache)}
    cli = [sys.executable, "-c", "import sys; from cardgym.cli import main; sys.exit(main())"]
    out = subprocess.run([*cli, "warmup", "crazy_eights", "--no-progress"], env=env, capture_output=True,
                         text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    closing = out.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"cardgym warmup: [1-9]\d* kernels compiled for 1 game\(s\) \(crazy_eights\) in [\d.]+ s; "
                        r"cache: .* \(NUMBA_CACHE_DIR\)", closing), closing

    # the image: the package and the game copied elsewhere with new modification times, the cache reused
    # read-only (baked into an image: issue 42.8, it used to be skipped and every process compiled again)
    copy = tmp_path / "image"
    shutil.copytree(tmp_path / "a", copy)
    for path in copy.rglob("*"):
        os.utime(path, ns=(946684800 * 10**9,) * 2)
    env = {**env, "PYTHONPATH": str(copy / "src"), "CARDGYM_GAMES": str(copy / "games")}
    read_only = read_only_runner(cache)

    def run(what, argv, stdin=None):
        res = subprocess.run(read_only(argv), env=env, capture_output=True, text=True, input=stdin, timeout=600)
        assert res.returncode == 0, f"{what}: {res.stderr[-3000:]}"
        assert NOTICE not in res.stderr, f"{what} compiled after cardgym warmup:\n{res.stderr[-3000:]}"
        assert "not writable" not in res.stderr, res.stderr[-3000:]
        return res.stdout

    snippets = readme_snippets()
    assert len(snippets) == 3, "the README's Python snippets changed: check them here"
    for k, code in enumerate(snippets):
        run(f"README snippet {k + 1}", [sys.executable, "-c", as_crazy_eights(code)])
    n = cardgym.get_game("crazy_eights").num_actions
    moves = "".join(f"{a}\n" for a in list(range(n)) * 4)  # every action id in turn: the legal ones play
    assert run("cardgym play", [*cli, "play", "crazy_eights", "--vs", "expert", "--seed", "1"], moves)
    assert "random" in run("cardgym eval", [*cli, "eval", "crazy_eights", "--bots", "random,greedy,search", "--games", "2"])
    pytest.importorskip("starlette", reason="cardgym serve needs the web extra")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")
    assert "served" in run("cardgym serve", [sys.executable, "-c", SERVE])
    # nothing was compiled into the copy's own folders either (outside the content stamp)
    assert not [p.name for p in copy.rglob("*.nbi")], "kernels written into the package's __pycache__"
