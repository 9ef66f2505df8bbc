"""Compiled bindings cache per game: two games with the same record dtype but different kernels (here
Crazy Eights and a renamed copy whose ``legal`` forbids drawing while a card can be played and whose
search scores rollouts the other way round) must never load each other's cached machine code (neither
the ``core/bound.py`` binding nor the ``search_loop.py`` one) from numba's on-disk cache (issue 12: a
game is one folder, so a copied folder is the first thing a third party writes)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

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
    assert text.count("return 1.0\n") == 1 and text.count("return 0.0\n") == 1
    search.write_text(text.replace("return 1.0\n", "return 2.0\n").replace("return 0.0\n", "return 1.0\n")
                      .replace("return 2.0\n", "return 0.0\n"))


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
