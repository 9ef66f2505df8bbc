"""``cardgym warmup``: compile, ahead of first use, every kernel that cardgym's surfaces call.

A kernel compiles on its first call and is cached on disk (`cardgym.core.compiled.cache`). `warm` calls, per
game and in a process of its own, what the PettingZoo, Gymnasium and vector envs, the bots, the
evaluation, the terminal game, the web table and the trainer call, with small sizes:

- the AEC env with each observation, every bot's ``bot_action``, the text rendering;
- the single-agent (Gymnasium) env and the vector env against every bot with each observation, the
  vector env also at the batch size that runs in parallel, and every bot's ``bot_actions``;
- an evaluation for every set of bots that can meet (each set binds its own compiled match loop);
- the web table's games (bots, the shipped agent when the game has one) and game records;
- a few updates of the trainer, when the ``train`` extra (torch) is installed.

After it, these surfaces load their kernels from the cache instead of compiling them. With
``NUMBA_CACHE_DIR`` set, the cache it fills can be copied with the package (a container image): the
kernels are found by the content of the sources, not by their path or modification times.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import tempfile
import time

#: vector env size of the parallel step (`cardgym.core.envs.vector`: from 256 environments)
PARALLEL_ENVS = 256
#: turns the AEC and web tables play at most while warming
TURNS = 400


def steps_of(game) -> list:
    """The steps `warm_game` runs for ``game`` (a `GameSpec`), as ``(surface, detail)`` labels."""
    bots = list(game.bots)
    encoders = list(game.encoders)
    out = [("aec", obs) for obs in encoders]
    out += [("gym", f"{bot}/{obs}") for bot in bots for obs in encoders]
    out += [("vector", f"{bot}/{obs}") for bot in bots for obs in game.flat_encoders()]
    out += [("eval", ",".join(s)) for k in range(1, len(bots) + 1) for s in itertools.combinations(bots, k)]
    out += [("records", ""), ("web", ""), ("train", "")]
    return out


def _counter():
    """A numba compile-event listener counting the compiles of cardgym's (and its games') kernels."""
    from numba.core import event

    from cardgym.core.compiled import cache

    class Count(event.Listener):
        n = 0

        def on_start(self, ev):
            disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            fn = getattr(disp, "py_func", None)
            if fn is not None and cache._game_of(getattr(fn, "__module__", "") or "") is not None:
                Count.n += 1

        def on_end(self, ev):
            pass

    listener = Count()
    event.register("numba:compile", listener)
    return listener


def _legal(mask, rng):
    import numpy as np

    return int(rng.choice(np.flatnonzero(mask)))


def _aec(game, mod, obs, rng):
    env = mod.env(num_players=game.min_players, observation=obs, render_mode="ansi")
    env.reset(seed=0)
    bots = list(game.bots)
    for turn, agent in enumerate(env.agent_iter(TURNS)):
        _, _, terminated, truncated, _ = env.last()
        env.render()
        if terminated or truncated:
            env.step(None)
            continue
        env.unwrapped.legal_actions()
        env.step(env.unwrapped.bot_action(bots[turn % len(bots)]))
    env.unwrapped.state()
    if not env.agents:
        env.unwrapped.result()


def _gym(game, bot, obs, rng):
    import gymnasium as gym

    import cardgym

    env = gym.make(cardgym.GAMES[game.name].gym_id, num_players=game.min_players, opponent=bot, observation=obs, seat="random")
    _, info = env.reset(seed=0)
    for _ in range(TURNS // 4):
        _, _, te, tr, info = env.step(_legal(info["action_mask"], rng))
        if te or tr:
            _, info = env.reset()
    env.close()


def _vector(game, bot, obs, rng):
    import numpy as np

    import cardgym

    for n in (2, PARALLEL_ENVS):
        vec = cardgym.make_vec(game.name, n, num_players=game.min_players, opponent=bot, observation=obs)
        _, info = vec.reset(seed=0)
        for _ in range(3):
            _, _, _, _, info = vec.step(np.array([_legal(m, rng) for m in info["action_mask"]]))
        if n == 2:
            for b in game.bots:
                vec.step(vec.bot_actions(b))
        vec.close()


def _eval(game, names, rng):
    import numpy as np

    from cardgym.eval.batch import play

    rules = game.make_rules(num_players=game.min_players)
    rows = [[names[(i + s) % len(names)] for s in range(rules.num_players)] for i in range(len(names))]
    play(game, rules, np.arange(len(rows), dtype=np.int64), rows)


def _records(game, rng):
    from cardgym.app.game_records import parse_record, play_recorded, replay_states

    bots = list(game.bots)
    recorder = play_recorded(game, bots[:1] * game.min_players, seed=0)
    replay_states(parse_record(recorder.text()))


def _web(game, rng):
    try:
        from cardgym.web.tables import Tables
    except ImportError:  # the web extra is not installed: nothing to warm
        return
    tables = Tables(pace=0.0)
    bots = list(game.bots)
    lineups = [[bots[(i + s) % len(bots)] for s in range(game.min_players)] for i in range(len(bots))]
    try:
        from cardgym.agents.pretrained import agent_path

        agent_path(game.name, game.min_players)
        lineups.append(["agent"] + bots[:1] * (game.min_players - 1))
    except (ImportError, ValueError):  # no shipped agent for this game
        pass
    for seats in lineups:
        try:
            made = tables.create({"game": game.name, "num_players": game.min_players, "seats": seats, "seed": 0})
        except Exception as exc:  # an agent that cannot load here (no torch): the bots are warm anyway
            if "agent" in seats:
                continue
            raise RuntimeError(f"warmup: the web table refused {seats}: {exc}") from exc
        table = tables.get_live(made["id"])
        for _ in range(TURNS):
            if table.over:
                break
            table.advance()
        table.state(None)
        table.state(0)


def _train(game, rng):
    try:
        import torch  # noqa: F401
    except ImportError:  # the train extra is not installed: nothing to warm
        return
    from cardgym.train import main as train

    bots = [b for b in game.bots if b != "search"] or list(game.bots)
    mix = ",".join(f"{b}:1" for b in bots) + ",self:1"
    quiet = io.StringIO()  # the trainer's own lines would break the progress bar
    with (tempfile.TemporaryDirectory(prefix="cardgym-warmup-") as out, contextlib.redirect_stdout(quiet),
          contextlib.redirect_stderr(quiet)):
        train([game.name, "--steps", "512", "--envs", "8", "--rollout", "32", "--epochs", "1", "--minibatch", "64",
               "--opponents", mix, "--imitate", bots[-1], "--pretrain-steps", "256", "--pretrain-epochs", "1",
               "--imitate-steps", "256", "--eval-every", "1", "--eval-games", "2", "--final-eval-games", "2",
               "--snapshot-every", "1", "--no-progress", "--out", out])


def warm_game(name: str, queue=None) -> dict:
    """Run every step of `steps_of` for the game ``name`` in this process; after each, put ``(name,
    surface, detail, kernels compiled so far)`` on ``queue`` if given. Returns ``{"game", "kernels",
    "cpu", "seconds"}``."""
    import importlib

    import numpy as np

    import cardgym

    t0, c0 = time.perf_counter(), time.process_time()
    counter = _counter()
    game = cardgym.get_game(name)
    mod = importlib.import_module(cardgym.GAMES[name].module)
    rng = np.random.default_rng(0)
    for surface, detail in steps_of(game):
        if surface == "aec":
            _aec(game, mod, detail, rng)
        elif surface == "gym":
            _gym(game, *detail.split("/"), rng)
        elif surface == "vector":
            _vector(game, *detail.split("/"), rng)
        elif surface == "eval":
            _eval(game, detail.split(","), rng)
        elif surface == "records":
            _records(game, rng)
        elif surface == "web":
            _web(game, rng)
        else:
            _train(game, rng)
        if queue is not None:
            queue.put((name, surface, detail, counter.n))
    return {"game": name, "kernels": counter.n, "cpu": time.process_time() - c0,
            "seconds": time.perf_counter() - t0}


def _worker(name: str, queue) -> dict:
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    import warnings

    warnings.simplefilter("ignore")
    return warm_game(name, queue)


@contextlib.contextmanager
def _bar(total: int, stream, enabled: bool):
    """``(progress, task)``: a progress bar of ``total`` steps on ``stream`` (rich's, a dependency of
    the base install; hidden when not ``enabled``)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("cardgym warmup"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.fields[step]}"), console=Console(file=stream), disable=not enabled,
                   transient=True)
    with bar:
        yield bar, bar.add_task("warmup", total=total, step="")


def warm(games=None, jobs: int | None = None, progress: bool = True, stream=None) -> dict:
    """Compile every kernel of the games ``games`` (names; default: every registered game that loads,
    `cardgym.registry.loadable`) in ``jobs`` processes (default: ``min(cores, games)``), one game per
    process, with a progress bar on ``stream`` (stderr) unless ``progress`` is false. Returns ``{"games": {name: warm_game result}, "kernels",
    "seconds"}``; the closing line on ``stream`` says the same."""
    import multiprocessing
    import queue as queues
    import sys
    from concurrent.futures import ProcessPoolExecutor

    import cardgym

    stream = stream or sys.stderr
    names = cardgym.registry.loadable() if not games else list(dict.fromkeys(games))  # broken games: a warning
    unknown = [g for g in names if g not in cardgym.GAMES]
    if unknown:
        raise ValueError(f"unknown game(s) {unknown}; games: {cardgym.registry.names()}")
    if jobs is None:
        jobs = min(os.cpu_count() or 1, len(names))
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    total = sum(len(steps_of(cardgym.get_game(g))) for g in names)
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    results = {}
    with ctx.Manager() as manager, _bar(total, stream, progress) as (bar, task):
        q = manager.Queue()
        with ProcessPoolExecutor(max_workers=min(jobs, len(names)), mp_context=ctx) as pool:
            futures = {pool.submit(_worker, g, q): g for g in names}
            pending = set(futures)
            while pending:
                try:
                    name, surface, detail, _ = q.get(timeout=0.2)
                    bar.update(task, advance=1, step=f"{name} {surface} {detail}".strip())
                except queues.Empty:
                    pass
                for f in [f for f in pending if f.done()]:
                    pending.discard(f)
                    results[futures[f]] = f.result()  # a failed game stops the warmup with its error
            while True:  # the last steps' messages
                try:
                    q.get_nowait()
                    bar.update(task, advance=1)
                except queues.Empty:
                    break
    seconds = time.perf_counter() - t0
    kernels = sum(r["kernels"] for r in results.values())
    from cardgym.core.compiled import cache

    kind, folder = cache.choose()
    print(f"cardgym warmup: {kernels} kernels compiled for {len(names)} game(s) ({', '.join(names)}) in "
          f"{seconds:.1f} s; cache: {folder} ({kind})", file=stream, flush=True)
    return {"games": {g: results[g] for g in names}, "kernels": kernels, "seconds": seconds}
