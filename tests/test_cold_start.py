"""First use: where kernels cache (read-only installs included), the compile notice, and the plain
Python mode (``NUMBA_DISABLE_JIT=1``) playing the same games as the compiled kernels."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import cardgym
from cardgym.core.compiled import cache

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
GAMES_SRC = REPO / "tests" / "games" / "crazy_eights"
NOTICE = "cardgym: compiling"


def _run(code, env_extra, *, pythonpath=SRC, user=None, timeout=300):
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = str(pythonpath)
    env.update(env_extra)
    cmd = [sys.executable, "-c", code]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


# ------------------------------------------------------------------------------------- compile notice
@pytest.mark.slow
@pytest.mark.subprocess
def test_notice_printed_on_a_cache_miss_only(tmp_path):
    code = "import cardgym.core.compiled.rng as r; print(r.splitmix64(1))"
    cold = _run(code, {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.count(NOTICE) == 1, cold.stderr
    assert "shared kernels (first use only, cached afterwards)" in cold.stderr
    warm = _run(code, {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert warm.returncode == 0, warm.stderr
    assert NOTICE not in warm.stderr
    assert warm.stdout == cold.stdout


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_long_compile_says_it_is_still_compiling(tmp_path):
    # the heartbeat every HEARTBEAT_S seconds (10 by default) while one outermost compile runs
    code = ("import cardgym.core.compiled.cache as c; c.HEARTBEAT_S = 0.2\n"
            "from cardgym import skyjo_v0\n"
            "env = skyjo_v0.env(); env.reset(seed=0); env.step(env.unwrapped.legal_actions()[0])\n"
            "import threading, time; time.sleep(0.5)\n"
            "print(sorted(t.name for t in threading.enumerate() if t.name.startswith('cardgym')))")
    cold = _run(code, {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert cold.returncode == 0, cold.stderr
    assert "cardgym: still compiling (" in cold.stderr, cold.stderr
    assert cold.stdout.strip().splitlines()[-1] == "[]"  # every heartbeat stopped with its compile
    warm = _run(code, {"NUMBA_CACHE_DIR": str(tmp_path)})
    assert warm.returncode == 0 and "still compiling" not in warm.stderr, warm.stderr


def test_notice_once_per_game(capsys):
    cache._announced.discard("skipbo_junior")
    assert cache.notice("cardgym.games.skipbo_junior._bound_b0o0")
    assert not cache.notice("cardgym.games.skipbo_junior.kernels")  # same game, same process
    assert not cache.notice("numpy.something")  # not ours
    err = capsys.readouterr().err
    assert err.count(NOTICE) == 1 and "Skip-Bo Junior kernels" in err


# ------------------------------------------------------------------------------------- cache folders
def _fake_package(tmp_path) -> Path:
    root = tmp_path / "pkg"
    (root / "games").mkdir(parents=True)
    (root / "a.py").write_text("from numba import njit\nf = njit(lambda: 1)\n")
    (root / "games" / "b.py").write_text("from numba import njit\nf = njit(lambda: 1)\n")
    (root / "plain.py").write_text("x = 1\n")
    return root


def test_choose_prefers_numba_cache_dir_then_tree_then_user_then_temp(tmp_path, monkeypatch):
    root = _fake_package(tmp_path)
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda: str(tmp_path / "nb"))
    assert cache.choose(root) == ("NUMBA_CACHE_DIR", tmp_path / "nb")
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda: "")
    assert cache.choose(root) == ("in-tree", root)
    writable = {"user": True, "temp": True}

    def fake_writable(path):
        if path == root / "__pycache__":
            return False
        if path == cache.user_cache_dir():
            return writable["user"]
        return writable["temp"]

    monkeypatch.setattr(cache, "_writable_dir", fake_writable)
    assert cache.choose(root) == ("user", cache.user_cache_dir())
    writable["user"] = False
    assert cache.choose(root) == ("temp", cache._temp_cache_dir())
    writable["temp"] = False
    assert cache.choose(root) == ("none", None)


def test_user_cache_dir_follows_xdg_without_platformdirs(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "platformdirs", None)  # import fails
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.user_cache_dir() == tmp_path / "cardgym"


def test_refresh_drops_stale_kernels_in_a_user_cache_folder(tmp_path):
    root = _fake_package(tmp_path)
    folder = tmp_path / "usercache"
    stamp = cache.stamp_file("user", folder, root)
    assert cache.refresh(root, choice=("user", folder))  # first time: no stamp yet
    folders = cache.cache_folders("user", folder, root)
    tree = folder / cache.tree_name(root, cache.sources_stamp(root))
    assert sorted(f.name for f in folders) == ["games", "pkg"] and all(f.parent == tree for f in folders)
    for f in folders:
        f.mkdir(parents=True)
        (f / "a.f-1.py311.nbi").write_bytes(b"x")
        (f / "a.f-1.py311.1.nbc").write_bytes(b"x")
    (folder / "other_project_kernel.nbi").write_bytes(b"keep")
    assert not cache.refresh(root, choice=("user", folder))  # sources unchanged: kept
    assert all(len(list(f.iterdir())) == 2 for f in folders)
    # new modification times, same content (a copy, a reinstall): kept, and the new times remembered
    for path in root.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))
    assert not cache.refresh(root, choice=("user", folder))
    assert all(len(list(f.iterdir())) == 2 for f in folders)
    assert json.loads(stamp.read_text())["files"]["1:a.py"][1] == 10**18  # 1: the package (0: cardgym, whose kernels it calls)
    (root / "plain.py").write_text("x = 2\n")  # no kernels: cannot make the cache stale
    assert not cache.refresh(root, choice=("user", folder))
    (root / "games" / "b.py").write_text("from numba import njit\nf = njit(lambda: 1)\n# changed\n")
    assert cache.refresh(root, choice=("user", folder))
    assert not tree.exists()  # the old content's folder is gone
    assert (folder / "other_project_kernel.nbi").exists()  # not ours: left alone
    assert cache.cache_folders("user", folder, root)[0].parent.name == cache.tree_name(root, cache.sources_stamp(root))


def test_the_stamp_is_the_content_and_files_are_read_once(tmp_path, monkeypatch):
    root = _fake_package(tmp_path)
    first = cache.sources_stamp(root)
    copy = tmp_path / "elsewhere" / "pkg"
    shutil.copytree(root, copy)  # new path, new times
    for path in copy.rglob("*.py"):
        os.utime(path, ns=(1, 1))
    assert cache.sources_stamp(copy) == first
    (copy / "a.py").write_text("from numba import njit\nf = njit(lambda: 1)\n#\n")
    assert cache.sources_stamp(copy) != first
    # a file whose size and times are those seen before is not read again
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or real(self))
    cache.sources_stamp(copy)
    assert reads == []
    cache._DIGESTS.clear()  # a new process: the memo saved with the stamp answers instead
    stamp = tmp_path / "s.stamp"
    cache.refresh(copy, stamp, [], choice=("user", tmp_path))
    reads.clear()
    cache._DIGESTS.clear()
    assert not cache.refresh(copy, stamp, [], choice=("user", tmp_path))
    assert reads == []


def test_cache_folders_match_the_locator(tmp_path, monkeypatch):
    """The folder `cache_folders` names for a kernel file is the one cardgym's numba locator caches it in:
    laid out by the package's content, not by its path."""
    folder = tmp_path / "nb"
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda: str(folder))
    monkeypatch.setitem(cache._FALLBACKS, cache.ROOT, ("NUMBA_CACHE_DIR", folder))
    (got,) = [f for f in cache.cache_folders("NUMBA_CACHE_DIR", folder) if f.name == "core.compiled"]
    from cardgym.core.compiled.rng import splitmix64

    locator = cache._make_locator().from_function(splitmix64.py_func, str(cache.ROOT / "core" / "compiled" / "rng.py"))
    assert locator is not None and locator.get_cache_path() == str(got)
    assert got.parent.name == cache.tree_name(cache.ROOT, cache.sources_stamp())
    elsewhere = tmp_path / "other.py"
    elsewhere.write_text("x = 1\n")
    assert cache._make_locator().from_function(splitmix64.py_func, str(elsewhere)) is None  # not ours


# ------------------------------------------------------------------- a copied tree keeps its kernels
COPY_STEP = (
    "import sys, numpy as np, cardgym\n"
    "from cardgym.core.compiled.rng import splitmix64\n"
    "print(int(splitmix64(np.uint64(12345))))\n"
    "if sys.argv[1:]:\n"
    "    e = cardgym.crazy_eights_v0.env(); e.reset(seed=3)\n"
    "    for _ in range(6):\n"
    "        e.step(int(np.flatnonzero(e.observe(e.agent_selection)['action_mask'])[-1]))\n"
    "    print(e.unwrapped.state().tolist())\n"
)


def _copy_tree(src: Path, dst: Path, keep_cache: bool) -> Path:
    """A copy of ``src`` at ``dst`` whose files all have new modification times (a Docker ``COPY``, a
    reinstall, a CI checkout)."""
    shutil.copytree(src, dst, ignore=None if keep_cache else shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for path in dst.rglob("*"):
        os.utime(path, ns=(946684800 * 10**9, 946684800 * 10**9))
    return dst


def _edit_a_game_kernel(src: Path) -> None:
    """A change in a kernel file that the checked kernel (``core/compiled/rng.py``'s ``splitmix64``) does not live
    in: numba alone would not see it; cardgym's content stamp does."""
    kernels = src / "cardgym" / "games" / "skyjo" / "kernels.py"
    kernels.write_text(kernels.read_text() + "\n# edited\n")


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_copied_tree_loads_its_kernels_without_compiling(tmp_path):
    """A copy of the package (and of a game registered from outside) at another path, with new
    modification times, over the same ``NUMBA_CACHE_DIR``: nothing compiles. A changed kernel file
    compiles again."""
    games = GAMES_SRC.parent
    a = _copy_tree(SRC, tmp_path / "a" / "src", keep_cache=False)
    ga = _copy_tree(games / "crazy_eights", tmp_path / "a" / "games" / "crazy_eights", keep_cache=False)
    nb = {"NUMBA_CACHE_DIR": str(tmp_path / "nbcache")}
    cmd = COPY_STEP.replace("sys.argv[1:]", "True")
    first = _run(cmd, {**nb, "CARDGYM_GAMES": str(ga.parent)}, pythonpath=a)
    assert first.returncode == 0 and NOTICE in first.stderr, first.stderr[-3000:]
    b = _copy_tree(a, tmp_path / "b" / "src", keep_cache=True)
    gb = _copy_tree(ga, tmp_path / "b" / "games" / "crazy_eights", keep_cache=True)
    again = _run(cmd, {**nb, "CARDGYM_GAMES": str(gb.parent)}, pythonpath=b)
    assert again.returncode == 0, again.stderr[-3000:]
    assert NOTICE not in again.stderr, again.stderr[-3000:]
    assert again.stdout == first.stdout
    _edit_a_game_kernel(b)
    edited = _run(COPY_STEP, nb, pythonpath=b)
    assert edited.returncode == 0 and NOTICE in edited.stderr, edited.stderr[-3000:]
    assert edited.stdout.split()[0] == first.stdout.split()[0]


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_copied_tree_keeps_its_in_tree_cache(tmp_path):
    """The same for the cache in the package's own ``__pycache__`` folders, copied with the package."""
    c = _copy_tree(SRC, tmp_path / "c" / "src", keep_cache=False)
    first = _run(COPY_STEP, {}, pythonpath=c)
    assert first.returncode == 0 and NOTICE in first.stderr, first.stderr[-3000:]
    d = _copy_tree(c, tmp_path / "d" / "src", keep_cache=True)
    again = _run(COPY_STEP, {}, pythonpath=d)
    assert again.returncode == 0 and NOTICE not in again.stderr, again.stderr[-3000:]
    assert again.stdout == first.stdout
    _edit_a_game_kernel(d)
    edited = _run(COPY_STEP, {}, pythonpath=d)
    assert edited.returncode == 0 and NOTICE in edited.stderr, edited.stderr[-3000:]
    assert edited.stdout == first.stdout


# ---------------------------------------------------------------------------------- read-only install
ONE_STEP = (
    "import numpy as np, cardgym.skyjo_v0 as m\n"
    "e = m.env(); e.reset(seed=3)\n"
    "e.step(int(np.flatnonzero(e.observe(e.agent_selection)['action_mask'])[0]))\n"
    "from cardgym.core.compiled import cache; print('CACHE', cache.choose()[0])\n"
)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root to run as another user (nobody) over a read-only install")
@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux) to switch user")
def test_read_only_install_plays_as_an_unprivileged_user():
    tmp_path = Path(tempfile.mkdtemp(prefix="cardgym-readonly-"))  # pytest's own tmp is root-only
    try:
        _read_only_install(tmp_path)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(tmp_path)], check=False)
        shutil.rmtree(tmp_path, ignore_errors=True)


def _read_only_install(tmp_path):
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
         str(REPO)], capture_output=True, text=True, check=False, timeout=300,
    )
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr[-500:]}")
    site = tmp_path / "site"
    inst = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
         *map(str, wheels.glob("cardgym-*.whl"))], capture_output=True, text=True, check=False, timeout=300,
    )
    assert inst.returncode == 0, inst.stderr
    subprocess.run(["chmod", "-R", "a-w", str(site)], check=True)
    home = tmp_path / "home"  # exists, not writable by nobody
    home.mkdir()
    os.chmod(home, 0o555)
    tmp = tmp_path / "tmp"  # the user's temporary directory
    nbdir = tmp_path / "nbcache"
    for d in (tmp, nbdir):
        d.mkdir()
        os.chmod(d, 0o777)
    os.chmod(tmp_path, 0o755)
    nobody = 65534
    base = {"HOME": str(home), "TMPDIR": str(tmp), "XDG_CACHE_HOME": str(home / ".cache")}
    # no writable package folder, no writable home: the kernels cache in the temporary directory
    res = _run(ONE_STEP, base, pythonpath=site, user=nobody)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "CACHE temp" in res.stdout
    assert NOTICE in res.stderr
    assert list((tmp / f"cardgym-cache-{nobody}").rglob("*.nbi"))
    assert not list(site.rglob("*.nbi"))
    # the temp cache is warm now: nothing compiles
    res = _run(ONE_STEP, base, pythonpath=site, user=nobody)
    assert res.returncode == 0 and NOTICE not in res.stderr, res.stderr[-3000:]
    # NUMBA_CACHE_DIR wins (holding a copy of those kernels: numba lays both folders out alike)
    shutil.copytree(tmp / f"cardgym-cache-{nobody}", nbdir, dirs_exist_ok=True)
    subprocess.run(["chmod", "-R", "a+rwX", str(nbdir)], check=True)
    shutil.rmtree(tmp / f"cardgym-cache-{nobody}")
    res = _run(ONE_STEP, {**base, "NUMBA_CACHE_DIR": str(nbdir)}, pythonpath=site, user=nobody)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "CACHE NUMBA_CACHE_DIR" in res.stdout
    assert NOTICE not in res.stderr  # loaded from NUMBA_CACHE_DIR
    assert not (tmp / f"cardgym-cache-{nobody}").exists()


# ------------------------------------------------------------------------------ NUMBA_DISABLE_JIT mode
PLAY = r"""
import hashlib, json, sys
import numpy as np
import cardgym
out = {}
for game in ("skyjo", "skipbo", "skipbo_junior"):
    mod = __import__(cardgym.GAMES[game].module, fromlist=["env"])
    G = cardgym.get_game(game)
    for nplayers in (2, 3):
        for bot in G.bots:
            # the search bot runs thousands of rollouts a decision: in plain Python, seconds each
            slow = bot == "search"
            if slow and nplayers != 2:
                continue
            env = mod.env(num_players=nplayers).unwrapped
            h = hashlib.sha256()
            for seed in (0,) if slow else (0, 1):
                env.reset(seed=seed)
                for _ in range(100 if not slow else 6 if game == "skyjo" else 2):  # Skyjo: 4 setup reveals first
                    if not env.agents:
                        break
                    a = env.agent_selection
                    o = env.observe(a)
                    h.update(o["observation"].tobytes()); h.update(o["action_mask"].tobytes())
                    if env.terminations[a] or env.truncations[a]:
                        env.step(None)
                        continue
                    assert o["action_mask"].any(), (game, bot, seed, "empty mask")
                    env.step(env.bot_action(bot))
                    h.update(np.array([env.rewards[x] for x in env.possible_agents], np.float64).tobytes())
                h.update(np.array(env.state()).tobytes())
            out[f"{game}/{nplayers}p/{bot}"] = h.hexdigest()
print("HASHES " + json.dumps(out))
"""


def _hashes(res):
    assert res.returncode == 0, res.stderr[-3000:]
    line = [x for x in res.stdout.splitlines() if x.startswith("HASHES ")][-1]
    return json.loads(line[len("HASHES "):])


@pytest.mark.slow
@pytest.mark.subprocess
def test_disable_jit_plays_the_same_games_as_the_compiled_kernels(capsys):
    exec(compile(PLAY, "<play>", "exec"), {})  # compiled, in this process (shares its kernels)
    jit = json.loads(capsys.readouterr().out.split("HASHES ")[-1])
    nojit = _hashes(_run(PLAY, {"NUMBA_DISABLE_JIT": "1"}, timeout=900))
    assert nojit.keys() == jit.keys()
    differ = sorted(k for k in jit if jit[k] != nojit[k])
    assert not differ, f"NUMBA_DISABLE_JIT=1 differs from the compiled kernels for {differ}"


# ------------------------------------------------------------------------- one-bot / one-encoder bindings
def test_bindings_are_per_bot_and_encoder_and_check_their_indices():
    import cardgym

    game = cardgym.get_game("skyjo")
    one = game.compiled(bot=1, obs=0)
    assert one is game.compiled(bot=1, obs=0)
    assert one is not game.compiled() and one is not game.compiled(bot=2, obs=0)
    assert one.bot is one.bot_fixed and one.BOT0 is list(game.bots.values())[1]
    assert game.compiled(obs=-1).observe is game.compiled(obs=-1).observe_none
    assert game.compiled().bot is game.compiled().bot_any
    # each binding caches under its own names, which start with the game's (tests/test_cache_keys.py)
    assert one.vec_step.py_func.__qualname__ == "vec_step__skyjo_b1o0"
    assert game.compiled().reset_one.py_func.__qualname__ == "reset_one__skyjo"
    # ... and takes what its bot / encoder does not change from the smallest binding (core/compiled/binder.py):
    # one compile per game of each bot, encoder and bot-free entry point, whichever surface asks first
    assert one.reset_one is game.compiled().reset_one is game.compiled(bot=2, obs=0).reset_one
    assert one.bot is game.compiled(bot=1).bot and one.batch_bot is game.compiled(bot=1).batch_bot
    assert one.observe is game.compiled(obs=0).observe is game.compiled(bot=2, obs=0).observe
    assert one.observe_one is game.compiled(obs=0).observe_one
    assert one.vec_step is not game.compiled(bot=2, obs=0).vec_step  # its loop reaches both
    with pytest.raises(ValueError, match="bot index"):
        game.compiled(bot=len(game.bots))
    with pytest.raises(ValueError, match="flat encoder index"):
        game.compiled(obs=-2)


@pytest.mark.slow
@pytest.mark.subprocess
def test_eval_and_the_batch_runner_compile_only_the_bots_that_play():
    # the search bot costs 10-20 s of compiling: evaluating or training against other bots must not pay it
    code = ("import numpy as np, cardgym\n"
            "from cardgym import eval as ev\n"
            "from cardgym.agents.runner import BatchRunner\n"
            "from cardgym.games.skyjo import search\n"
            "g = cardgym.get_game('skyjo'); rules = g.make_rules()\n"
            "ev.tournament(g, ['greedy', 'random'], games=4, seed=0)\n"
            "run = BatchRunner(g, rules, 4); pid = run.add_player('greedy'); run.reset(np.arange(4))\n"
            "run.decide(pid, np.arange(4), run.current)\n"
            "print(len(search.bot_search.signatures))\n")
    out = _run(code, {})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


def test_a_binding_to_some_bots_maps_bot_indices_to_its_slots():
    game = cardgym.get_game("skipbo_junior")
    some = game.compiled(bots=(2, 0))
    assert some.BOT_SLOTS == {0: 0, 2: 1} and some is game.compiled(bots=(0, 2, 2))
    assert game.compiled(bots=tuple(range(len(game.bots)))) is game.compiled()
    with pytest.raises(ValueError, match="bots must be indices"):
        game.compiled(bots=(7,))
    with pytest.raises(ValueError, match="not both"):
        game.compiled(bot=1, bots=(1,))
