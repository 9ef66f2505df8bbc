"""Compiled bindings cache per game: two games with the same record dtype but different kernels (here
Crazy Eights and a renamed copy whose ``legal`` forbids drawing while a card can be played and whose
search scores rollouts the other way round) must never load each other's cached machine code (neither
the ``core/compiled/bound.py`` binding nor the ``search_loop.py`` one) from numba's on-disk cache (issue 12: a
game is one folder, so a copied folder is the first thing a third party writes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
GAMES = Path(__file__).resolve().with_name("games")

# Compiles (or loads) the bound template of both games and checks, record by record over random games,
# that the mask each binding computes is the one its own game's ``legal`` gives (its own kernel, cached under its own file).
SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import cardgym
    from cardgym import registry

    for name in sys.argv[1:]:
        game = registry.get(name)
        rules = game.rules_cls(num_players=2)
        p = rules.params()
        mod = game.compiled(bot=0, obs=-1)
        n = 16
        states = game.new_states(n)
        masks = np.zeros((n, game.num_actions), np.int8)
        mod.batch_reset(states, p, np.arange(n, dtype=np.int64), masks, np.zeros(0, np.int8), 0)
        rng = np.random.default_rng(0)
        differs = 0
        for _ in range(40):
            mod.batch_legal(states, p, masks)
            for i in range(n):
                want = np.zeros(game.num_actions, np.int8)
                game.legal(states[i:i + 1][0], p, want)
                if not np.array_equal(want, masks[i]):
                    differs += 1
            live = [i for i in range(n) if states[i]["status"] == 0]
            if not live:
                break
            idx = np.array(live, np.int64)
            acts = np.array([rng.choice(np.flatnonzero(masks[i])) for i in live], np.int64)
            mod.batch_apply(states, p, idx, acts, masks, np.zeros((n, states[0]["reward"].shape[0]), np.float64))
        # the search bot (the shared search_loop template bound to the game): its decisions over a
        # fixed game, compared by the test with those of the game compiled alone in a fresh cache
        st = game.new_states(1)
        game.reset(st[0], p, 7, np.zeros(0, np.int8), 0)
        mask = np.zeros(game.num_actions, np.int8)
        search, rand = game.bot("search"), game.bot("random")
        picks = []
        while st[0]["status"] == 0 and len(picks) < 60:
            game.legal(st[0], p, mask)
            a = int((search if st[0]["current"] == 0 else rand)(st[0], p, mask))
            picks.append(a)
            game.apply(st[0], p, a)
        print(name, differs, "-".join(map(str, picks)))
        if differs:
            sys.exit(f"{name}: the compiled binding plays another game's rules ({differs} masks differ)")
""")


def _copy_game(dst: Path) -> None:
    """``crazy_nines``: Crazy Eights renamed, where a player who can play a card may not draw, and
    whose search scores a rollout the other way round (it looks for the worst action)."""
    shutil.copytree(GAMES / "crazy_eights", dst, ignore=shutil.ignore_patterns("__pycache__"))
    init = dst / "__init__.py"
    init.write_text(init.read_text().replace('gym_name="CrazyEights"', 'gym_name="CrazyNines"')
                    .replace('title="Crazy Eights"', 'title="Crazy Nines"'))
    rules = dst / "rules.py"
    rules.write_text(rules.read_text().replace('game_name = "crazy_eights"', 'game_name = "crazy_nines"'))
    kernels = dst / "kernels.py"
    text = kernels.read_text()
    assert "if can_draw(s) or not any_play:" in text
    kernels.write_text(text.replace("if can_draw(s) or not any_play:", "if not any_play:"))
    search = dst / "search.py"
    text = search.read_text()
    assert text.count("value=win_draw_loss,") == 1 and "#: ``search(s, p, mask" in text
    worst = ("from numba import njit\n\n\n@njit(cache=True)\ndef _worst(t, p, me, ended):\n    return 1.0 - win_draw_loss(t, p, me, ended)\n\n\n")
    search.write_text(text.replace("value=win_draw_loss,", "value=_worst,")
                      .replace("#: ``search(s, p, mask", worst + "#: ``search(s, p, mask", 1))


@pytest.mark.slow
@pytest.mark.subprocess
def test_two_games_with_one_dtype_keep_their_own_cache(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    shutil.copytree(GAMES / "crazy_eights", games / "crazy_eights", ignore=shutil.ignore_patterns("__pycache__"))
    _copy_game(games / "crazy_nines")
    cache = tmp_path / "numba_cache"
    env = {**os.environ, "PYTHONPATH": str(SRC), "CARDGYM_GAMES": str(games), "NUMBA_CACHE_DIR": str(cache),
           "NUMBA_DISABLE_JIT": "0"}

    def run(what, env, names=("crazy_eights", "crazy_nines")):
        out = subprocess.run([sys.executable, "-c", SCRIPT, *names], env=env, capture_output=True, text=True,
                             timeout=900)
        assert out.returncode == 0, f"{what}: {out.stdout}\n{out.stderr[-3000:]}"
        lines = [line.split() for line in out.stdout.splitlines()]
        assert [(w[0], w[1]) for w in lines] == [(n, "0") for n in names], out.stdout
        return {w[0]: w[2] for w in lines}

    # each game compiled in a cache of its own: the decisions of its own search bot
    alone = {}
    for name in ("crazy_eights", "crazy_nines"):
        solo = tmp_path / f"solo_{name}"
        solo.mkdir()
        shutil.copytree(games / name, solo / name)
        own = {**env, "CARDGYM_GAMES": str(solo), "NUMBA_CACHE_DIR": str(tmp_path / f"cache_{name}")}
        alone[name] = run(f"{name} alone", own, (name,))[name]
    assert alone["crazy_eights"] != alone["crazy_nines"], "the two search bots should play differently"
    for what in ("compile", "load from cache"):
        assert run(what, env) == alone, what
    assert any(cache.rglob("*.nbi")), "numba wrote no cache"


# ------------------------------------------------------------------ an edited plugin game (issue 25)
EDIT_SCRIPT = textwrap.dedent("""
    import numpy as np
    import cardgym
    from cardgym import registry

    game = registry.get("crazy_eights")
    env = cardgym.crazy_eights_v0.raw_env(num_players=2)
    env.reset(seed=SEED)
    direct = np.zeros(game.num_actions, np.int8)
    game.legal(env.record, env.rules.params(), direct)
    vec = cardgym.make_vec("crazy_eights", 1, opponent="random")
    _, info = vec.reset(seed=SEED)
    print("env", "".join(map(str, env.action_mask())), "direct", "".join(map(str, direct)))
""")


def _first_mask(tmp_path, env, seed):
    out = subprocess.run([sys.executable, "-c", EDIT_SCRIPT.replace("SEED", str(seed))], env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    words = out.stdout.split()
    assert words[0] == "env" and words[2] == "direct", out.stdout
    return words[1], words[3]


@pytest.mark.slow
@pytest.mark.subprocess
def test_an_edited_plugin_kernel_is_seen_by_the_next_process(tmp_path):
    """Issue 25.1: after a plugin game's ``legal`` changes, every env layer of the next process plays
    the new rules (the bound template's cache entries are named by the game's source hash, and the
    plugin folder is stamped like cardgym's), in numba's in-tree cache beside the plugin's files."""
    games = tmp_path / "games"
    shutil.copytree(GAMES / "crazy_eights", games / "crazy_eights", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(SRC), "CARDGYM_GAMES": str(games), "NUMBA_DISABLE_JIT": "0",
           "NUMBA_CACHE_DIR": str(tmp_path / "numba_cache")}
    before_env, before_direct = _first_mask(tmp_path, env, 3)
    assert before_env == before_direct
    draw = 32  # the draw action: legal at the start of a game whose first player can play
    assert before_env[draw] == "1" and "1" in before_env[:32], before_env
    kernels = games / "crazy_eights" / "kernels.py"
    text = kernels.read_text()
    assert "if can_draw(s) or not any_play:" in text
    kernels.write_text(text.replace("if can_draw(s) or not any_play:", "if not any_play:"))
    after_env, after_direct = _first_mask(tmp_path, env, 3)
    assert after_direct[draw] == "0", after_direct
    assert after_env == after_direct, "the env layers ran the old rules of the edited game"


def test_a_plugin_folder_gets_its_own_stamp(tmp_path):
    """The stamp of a plugin package covers its kernel files and cardgym's; watching it drops its stale
    cached kernels (in its in-tree ``__pycache__``) when one of them changes."""
    from cardgym.core.compiled import cache

    pkg = tmp_path / "mygame"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text("from numba import njit\nf = njit(lambda: 1)\n")
    stale = pkg / "__pycache__" / "kernels.f-1.py311.nbi"
    stale.write_bytes(b"x")
    kind, folder = cache.watch("mygame", pkg)
    assert kind in ("in-tree", "NUMBA_CACHE_DIR")
    if kind != "in-tree":
        return  # the suite runs under NUMBA_CACHE_DIR: the folder logic is that of cardgym's own cache
    assert not stale.exists(), "a new stamp drops the cached kernels"
    stamp = cache.stamp_file(kind, folder, pkg.resolve())
    first = json.loads(stamp.read_text())["stamp"]
    assert first == cache.sources_stamp(pkg.resolve()) != cache.sources_stamp(cache.ROOT)
    stale.write_bytes(b"x")
    assert not cache.refresh(pkg.resolve(), stamp, cache.cache_folders(kind, folder, pkg.resolve()))
    assert stale.exists(), "an unchanged stamp keeps the cache"
    (pkg / "kernels.py").write_text("from numba import njit\nf = njit(lambda: 1)\n# edited\n")
    assert cache.refresh(pkg.resolve(), stamp, cache.cache_folders(kind, folder, pkg.resolve()))
    assert not stale.exists()


# ------------------------------------------------------------------------- a damaged cache (issue 27.2)
DAMAGE_SCRIPT = textwrap.dedent("""
    import numpy as np
    import cardgym
    from cardgym.core.compiled.rng import splitmix64
    print("value", int(splitmix64(np.uint64(12345))))
""")


def _run_damage(env):
    out = subprocess.run([sys.executable, "-c", DAMAGE_SCRIPT], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()[-1], [line for line in out.stderr.splitlines() if "damaged kernel cache" in line]


@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.parametrize("kind", ["nbi", "nbc"])
@pytest.mark.parametrize("damage", ["empty", "truncated", "garbled"])
def test_a_damaged_cache_entry_is_dropped_and_recompiled(tmp_path, kind, damage):
    cache_dir = tmp_path / "numba_cache"
    env = {**os.environ, "PYTHONPATH": str(SRC), "NUMBA_CACHE_DIR": str(cache_dir), "NUMBA_DISABLE_JIT": "0"}
    want, said = _run_damage(env)
    assert not said
    files = sorted(cache_dir.rglob(f"rng.splitmix64-*.{kind}"))
    assert files, sorted(p.name for p in cache_dir.rglob("*"))
    for path in files:
        data = path.read_bytes()
        if damage == "empty":
            path.write_bytes(b"")
        elif damage == "truncated":
            path.write_bytes(data[: len(data) // 2])
        else:
            path.write_bytes(bytes(b ^ 0x5A for b in data))
    got, said = _run_damage(env)
    assert got == want
    assert len(said) == 1 and "splitmix64" in said[0] and "recompiling" in said[0], said
    got, said = _run_damage(env)  # the fresh entry loads silently
    assert got == want and not said


SWAP_SCRIPT = textwrap.dedent("""
    import numpy as np
    import cardgym
    from cardgym.core.compiled.rng import _xorshift, splitmix64
    out = [int(splitmix64(np.uint64(12345))), int(_xorshift(np.uint64(12345)))]
    for name in ("skyjo", "skipbo_junior")[:int(__import__("sys").argv[1])]:
        g = cardgym.get_game(name)
        p = g.rules_cls(num_players=2).params()
        st = g.new_states(1)
        g.reset(st[0], p, 3, np.zeros(0, np.int8), 0)
        mask = np.zeros(g.num_actions, np.int8)
        g.legal(st[0], p, mask)
        out.append("".join(map(str, mask)))
    print("value", "|".join(map(str, out)))
""")


def _run_swap(env, games: int):
    out = subprocess.run([sys.executable, "-c", SWAP_SCRIPT, str(games)], env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()[-1], [line for line in out.stderr.splitlines() if "damaged kernel cache" in line]


#: damage -> (games the script compiles, the entry damaged, what the damage line names)
DAMAGES = {
    # an .nbc copied over another function's of the same module: numba would run _xorshift as splitmix64
    "nbc swapped between two functions": (0, "rng.splitmix64", "it holds the code of cardgym.core.compiled.rng._xorshift"),
    # Skyjo's `legal` copied over Skip-Bo Junior's: another game's rules
    "nbc swapped between games": (2, "kernels.legal", "it holds the code of cardgym.games.skyjo.kernels.legal"),
    "nbi replaced by a folder": (0, "rng.splitmix64", "IsADirectoryError"),
    "nbc replaced by a folder": (0, "rng.splitmix64", "(a folder)"),
}


@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damages_that_never_healed_heal(tmp_path, damage):
    """Issue 42.8: five cache damages never healed: an ``.nbc`` swapped between games or between two
    functions of one game (numba loads it: another function's code runs), an ``.nbc`` or ``.nbi``
    replaced by a folder (every later save or load fails). Each is now dropped with one line and
    recompiled, the results are the undamaged ones, and the next process loads silently."""
    games, entry, named = DAMAGES[damage]
    cache_dir = tmp_path / "numba_cache"
    env = {**os.environ, "PYTHONPATH": str(SRC), "NUMBA_CACHE_DIR": str(cache_dir), "NUMBA_DISABLE_JIT": "0"}
    want, said = _run_swap(env, games)
    assert not said
    if "swapped" in damage:
        other = "rng._xorshift" if "functions" in damage else "kernels.legal"
        (victim,) = [f for f in cache_dir.rglob(f"{entry}-*.nbc") if "skyjo" not in str(f)]
        (source,) = [f for f in cache_dir.rglob(f"{other}-*.nbc") if f != victim]
        shutil.copyfile(source, victim)
    else:
        kind = damage[:3]
        (victim,) = cache_dir.rglob(f"{entry}-*.{kind}")
        victim.unlink()
        (victim / "inside").mkdir(parents=True)
    got, said = _run_swap(env, games)
    assert got == want
    assert len(said) == 1 and entry in said[0] and named in said[0], said
    got, said = _run_swap(env, games)  # healed: the fresh entry loads silently
    assert got == want and not said
    assert all(f.is_file() for f in cache_dir.rglob("*.nb?"))


def test_the_numba_hooks_name_the_numba_they_were_written_for():
    import warnings

    from cardgym.core.compiled import numba_hooks

    assert numba_hooks.check_version()  # the numba this suite runs on is one the hooks know
    numba_hooks._warned.discard("version")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not numba_hooks.check_version((0, 99))
    (w,) = [c for c in caught if "numba" in str(c.message)]
    assert "outside the versions" in str(w.message) and "0.59 to 0.68" in str(w.message)
    # every hook is in place on this numba
    from numba.core.caching import Cache
    from numba.core.dispatcher import Dispatcher

    assert hasattr(Cache.load_overload, "__wrapped__") and hasattr(Dispatcher.get_call_template, "__wrapped__")
