"""Cold-start cost: what a new user waits for on first use, and what a warm cache leaves.

For every game, in fresh subprocesses:

- cold: an EMPTY kernel cache (a copy of the source tree without ``__pycache__`` and a fresh
  ``NUMBA_CACHE_DIR``): ``import cardgym``, the first AEC step (``env.reset`` + one ``env.step``),
  then the first vector step (``make_vec`` + ``reset`` + ``step``);
- warm: a second process over the same (now filled) cache, the same three timings.

Prints a table and writes JSON (``--out``). ``python benchmarks/cold_start.py [--games skyjo ...]
[--num-envs 16] [--out cold_start.json]``. Timings are wall-clock seconds; they depend heavily on
the machine and on what else it runs.

``--surfaces`` measures instead what each later surface compiles after the first: over ONE empty cache,
fresh processes one after the other run a short quickstart (``cardgym train`` with the quickstart's
flags on a tiny budget), then the AEC env (with a bot's advice), the Gymnasium env against ``greedy``,
the vector env, ``cardgym play``'s calls (the raw AEC env against ``expert``) and an evaluation against
another opponent (``cardgym.eval.match``), then all of them once more. For each it prints the CPU
seconds and the compiled entry points (numba cache misses, by binding), so a kernel compiled twice under
two bindings shows up by name. ``python benchmarks/cold_start.py --surfaces --games skyjo``.

``--readme`` runs each Python snippet of the README's "Examples" (the AEC loop, the Gymnasium env, the
vector env) as it is written, each in a fresh process over its OWN empty ``NUMBA_CACHE_DIR`` (what a new
user who pastes only that snippet pays), then once more over the filled cache. It reports the CPU
seconds of the whole process (interpreter, imports, compiles: ``getrusage`` of the child) and whether
anything compiled (the "cardgym: compiling" notice). ``--readme`` with the default mode: both tables.
``python benchmarks/cold_start.py --readme --out cold_start.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
README = Path(__file__).resolve().parents[1] / "README.md"
GAMES = ["skyjo", "skipbo", "skipbo_junior"]

CHILD = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
import cardgym
t1, c1 = time.perf_counter(), time.process_time()
game, num_envs = sys.argv[1], int(sys.argv[2])
mod = __import__(cardgym.GAMES[game].module, fromlist=["env"])
env = mod.env()
env.reset(seed=0)
mask = env.observe(env.agent_selection)["action_mask"]
env.step(int(np.flatnonzero(mask)[0]))
t2, c2 = time.perf_counter(), time.process_time()
out = {"import": t1 - t0, "aec_first_step": t2 - t1, "cpu_import": c1 - c0, "cpu_aec_first_step": c2 - c1}
if num_envs > 0:
    venv = cardgym.make_vec(game, num_envs=num_envs)
    obs, info = venv.reset(seed=0)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
    venv.step(acts)
    out["vec_first_step"] = time.perf_counter() - t2
    out["cpu_vec_first_step"] = time.process_time() - c2
print("RESULT " + json.dumps(out))
"""


SURFACES = ["quickstart", "aec", "gym", "vector", "play", "eval"]

SURFACE_CHILD = r"""
import json, sys, tempfile, time
c0 = time.process_time()
import numpy as np
import cardgym
game, surface = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
if surface == "quickstart":
    from cardgym.train import main as train
    with tempfile.TemporaryDirectory() as out:
        train([game, "--steps", "2048", "--imitate", "expert", "--pretrain-steps", "1024", "--pretrain-epochs", "1",
               "--imitate-steps", "2048", "--envs", "32", "--rollout", "64", "--eval-every", "1", "--eval-games", "4",
               "--final-eval-games", "4", "--no-progress", "--out", out])
elif surface in ("aec", "play"):
    mod = __import__(cardgym.GAMES[game].module, fromlist=["env"])
    env = mod.env() if surface == "aec" else mod.raw_env()
    env.reset(seed=0)
    for k in range(60):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        elif surface == "play" and agent != "player_0":
            env.step(env.bot_action("expert"))  # what cardgym play --vs expert calls
        else:
            mask = env.observe(agent)["action_mask"]
            env.unwrapped.bot_action("greedy") if surface == "aec" and k == 0 else None
            env.step(int(rng.choice(np.flatnonzero(mask))))
elif surface == "gym":
    import gymnasium as gym
    env = gym.make(cardgym.GAMES[game].gym_id, opponent="greedy")
    obs, info = env.reset(seed=0)
    for _ in range(60):
        obs, r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if te or tr:
            obs, info = env.reset()
elif surface == "vector":
    vec = cardgym.make_vec(game, 16, opponent="random")
    obs, info = vec.reset(seed=0)
    for _ in range(60):
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]))
elif surface == "eval":
    from cardgym.eval import match
    match(game, "greedy", "expert", games=8)
from cardgym.core.compiled import binder
compiled = {}
for mod in list(binder._COMPILED.values()):
    for name, f in vars(mod).items():
        misses = sum(getattr(getattr(f, "stats", None), "cache_misses", {}).values()) if hasattr(f, "stats") else 0
        if misses and f.__module__ == mod.__name__:
            compiled[mod.TAG + "." + name] = misses
print("RESULT " + json.dumps({"cpu": time.process_time() - c0, "compiled": compiled}))
"""


def run_surface(src: Path, cache: Path, game: str, surface: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", SURFACE_CHILD, game, surface], env=env, capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{game} {surface}: child failed:\n{proc.stderr[-3000:]}")
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    res = json.loads(line[len("RESULT "):])
    res["notice"] = "first use only" in proc.stderr
    return res


def measure_surfaces(game: str, src_tree: Path = SRC) -> dict:
    """Every surface in turn over one cold cache, then every surface again (warm)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="cardgym-surfaces-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(src_tree, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        cache = Path(tmp) / "numba-cache"
        for rnd in ("cold", "again"):
            for surface in SURFACES:
                r = run_surface(src, cache, game, surface)
                out[f"{rnd}:{surface}"] = r
                print(f"{game:<14}{rnd:<6}{surface:<11}{r['cpu']:7.1f}s cpu  notice={'yes' if r['notice'] else 'no':<3} "
                      f"compiled {sum(r['compiled'].values()):3d}: {' '.join(sorted(r['compiled']))}", flush=True)
    return out


def run_child(src: Path, cache: Path, game: str, num_envs: int) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, game, str(num_envs)], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{game}: child failed:\n{proc.stderr[-3000:]}")
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    res = json.loads(line[len("RESULT "):])
    res["process"] = wall
    res["stderr"] = proc.stderr.strip()
    return res


def measure(game: str, num_envs: int, src_tree: Path = SRC) -> dict:
    with tempfile.TemporaryDirectory(prefix="cardgym-cold-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(src_tree, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        cache = Path(tmp) / "numba-cache"
        cold = run_child(src, cache, game, num_envs)
        warm = run_child(src, cache, game, num_envs)
        warm_aec = run_child(src, cache, game, 0)
    return {"cold": cold, "warm": warm, "warm_aec_only": warm_aec}


def readme_snippets(readme: Path = README) -> list:
    """``(title, code)`` of every ```python block of the README, titled by the line that introduces it."""
    text = readme.read_text()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        before = [x for x in text[: m.start()].splitlines() if x.strip()]
        out.append((before[-1].split("(")[0].split(",")[0].rstrip(": ") if before else "snippet", m.group(1)))
    return out


def run_snippet(src: Path, cache: Path, code: str) -> dict:
    """One snippet in a fresh process: the process's CPU seconds (user + system, from ``getrusage``),
    its wall time, and whether a cardgym kernel compiled."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"snippet failed:\n{code}\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall, "compiled": "cardgym: compiling" in proc.stderr}


def measure_readme(src_tree: Path = SRC, readme: Path = README) -> dict:
    """Each README snippet over its own empty cache (cold), then again over that filled cache (warm)."""
    out = {}
    print("README snippets, each in a fresh process over its own empty NUMBA_CACHE_DIR, then again warm:")
    print(f"{'snippet':<48}{'cold CPU s':>11}{'wall s':>8}{'warm CPU s':>11}{'compiled warm':>15}")
    with tempfile.TemporaryDirectory(prefix="cardgym-readme-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(src_tree, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        for k, (title, code) in enumerate(readme_snippets(readme)):
            cache = Path(tmp) / f"numba-cache-{k}"
            cold = run_snippet(src, cache, code)
            warm = run_snippet(src, cache, code)
            out[title] = {"cold": cold, "warm": warm}
            print(f"{title[:47]:<48}{cold['cpu']:11.1f}{cold['wall']:8.1f}{warm['cpu']:11.1f}"
                  f"{'yes' if warm['compiled'] else 'no':>15}", flush=True)
    return out


def _pair(x: dict, key: str) -> str:
    return f"{x[key]:.2f}/{x['cpu_' + key]:.2f}"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=GAMES, choices=GAMES)
    ap.add_argument("--num-envs", type=int, default=16, help="vector env size (>= 256 uses the parallel step)")
    ap.add_argument("--out", default="cold_start.json")
    ap.add_argument("--src", default=str(SRC), help="the source tree to copy and measure (default: this checkout's)")
    ap.add_argument("--readme", action="store_true", help="also time each README snippet, cold and warm")
    ap.add_argument("--surfaces", action="store_true",
                    help="what each surface compiles after the quickstart, over one cold cache")
    args = ap.parse_args(argv)
    if args.surfaces:
        res = {game: measure_surfaces(game, Path(args.src)) for game in args.games}
        Path(args.out).write_text(json.dumps(res, indent=2))
        print(f"wrote {args.out}")
        return res
    results = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "num_envs": args.num_envs, "games": {}}
    import numba

    results["numba"] = numba.__version__
    print("seconds, wall-clock / CPU time of the process (CPU time is what a busy machine does not inflate)")
    print(f"{'game':<15}{'':6}{'import':>13}{'1st AEC step':>15}{'1st vec step':>15}{'process':>9}")
    for game in args.games:
        r = measure(game, args.num_envs, Path(args.src))
        results["games"][game] = r
        for kind in ("cold", "warm"):
            x = r[kind]
            print(f"{game:<15}{kind:<6}{_pair(x, 'import'):>13}{_pair(x, 'aec_first_step'):>15}"
                  f"{_pair(x, 'vec_first_step'):>15}{x['process']:9.2f}")
        x = r["warm_aec_only"]
        print(f"{game:<15}{'warm*':<6}{_pair(x, 'import'):>13}{_pair(x, 'aec_first_step'):>15}{'':>15}"
              f"{x['process']:9.2f}  (* import + first AEC step only)")
        sys.stdout.flush()
    if args.readme:
        results["readme"] = measure_readme(Path(args.src))
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"wrote {args.out}")
    return results


if __name__ == "__main__":
    main()
