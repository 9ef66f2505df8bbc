"""Decisions per second of cardgym's three API layers, against PettingZoo classic envs in the same run.

A *decision* is one action of any seat, with its observation and mask produced. Measured:

- AEC loop: ``for agent in env.agent_iter(): obs, ... = env.last(); env.step(random legal)`` on the
  wrapped ``env()``, the same loop for PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4``;
- single-agent Gymnasium env: ``step()`` with a random legal learner action; opponents (random bot)
  play inside ``step()`` and their decisions count;
- vector env: ``cardgym.make_vec(..., copy=False)`` with random legal learner actions drawn by a
  compiled sampler, every seat's decisions counted (the opponents' too);
- ``gymnasium.make_vec`` (Skip-Bo 2p): ``gymnasium.make_vec("cardgym/SkipBo-v0", num_envs=N, copy=False)``,
  which the registered vector entry point turns into the same compiled batch (measured by the same
  loop), and ``vectorization_mode="sync"`` (Gymnasium's SyncVectorEnv over N single-agent envs, which
  ``gymnasium.make_vec`` would build without a vector entry point) at 256 envs.

Every row is measured in several short rounds interleaved with all the others (the best round
counts), so that a busy moment of the machine does not skew one row against its peers.

``--cpu`` also counts decisions per CPU-second of this process (``time.process_time``) on one numba
thread (the batches then step on one core, like every other row): other processes on a shared machine
slow the wall clock but hardly the CPU time a decision takes, so these figures compare across runs and
machines' loads. The ratios against the peers are then taken from the CPU-second figures.

Usage: ``python benchmarks/throughput.py [--seconds 6] [--rounds 4] [--num-envs 4096] [--cpu] [--json out.json]``
(needs ``pip install -e '.[bench]'`` for the PettingZoo peers).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
import warnings

import numpy as np
import numba
from numba import njit

import cardgym

warnings.filterwarnings("ignore")

#: rows beyond the 2- and 4-player defaults of every game: variants worth their own row
VARIANTS = {"skipbo": [{"num_players": 4, "teams": True}]}


def cases(games) -> list:
    """(game, rule options) of every row: each game of the registry at 2 and 4 players (within its
    player range), then its `VARIANTS`."""
    out = []
    for name in games:
        entry = cardgym.registry.entry(name)  # a clear ValueError for an unknown game
        spec = cardgym.get_game(entry.name)
        counts = sorted({min(max(k, spec.min_players), spec.max_players) for k in (2, 4)})
        out += [(name, {"num_players": k}) for k in counts] + [(name, dict(v)) for v in VARIANTS.get(name, [])]
    return out


def label(name, opts):
    extra = ",".join(f"{k}={v}" for k, v in opts.items() if k != "num_players")
    return f"{name} {opts.get('num_players', 2)}p" + (f" ({extra})" if extra else "")


class Clock:
    """The wall-clock and CPU time of this process since it was made; ``rates(n)`` = (n per wall second,
    n per CPU-second)."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> float:
        return time.perf_counter() - self.wall

    def rates(self, n) -> tuple:
        return n / (time.perf_counter() - self.wall), n / max(time.process_time() - self.cpu, 1e-9)


def aec_loop(env, seconds):
    """Decisions per (wall, CPU) second of the standard AEC loop with uniformly random legal actions
    (the same loop, and the same cheap sampler, for every environment measured)."""
    rnd = random.Random(0)
    env.reset(seed=0)
    n = 0
    clock = Clock()
    while clock.elapsed() < seconds:
        for _ in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rnd.randrange(len(legal))]))
            n += 1
        env.reset()
    return clock.rates(n)


def single_loop(env, seconds):
    rnd = random.Random(0)
    obs, info = env.reset(seed=0)
    start = env.unwrapped.decisions
    clock = Clock()
    while clock.elapsed() < seconds:
        for _ in range(200):
            legal = info["action_mask"].nonzero()[0]
            obs, r, term, trunc, info = env.step(int(legal[rnd.randrange(len(legal))]))
            if term or trunc:
                obs, info = env.reset()
    return clock.rates(env.unwrapped.decisions - start)


@njit(cache=True)
def sample_masks(masks, out, state):
    """One uniformly random legal action per row (xorshift64); all-zero rows get 0."""
    x = state[0]
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        if count == 0:
            out[i] = 0
            continue
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        k = np.int64(x % np.uint64(count))
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
    state[0] = x


def vec_loop(vec, seconds):
    obs, info = vec.reset(seed=0)
    acts = np.zeros(vec.num_envs, np.int64)
    rs = np.array([88172645463325252], np.uint64)
    sample_masks(vec._masks, acts, rs)
    vec.step(acts)  # warm up
    start = vec.decisions
    clock = Clock()
    while clock.elapsed() < seconds:
        sample_masks(vec._masks, acts, rs)
        vec.step(acts)
    return clock.rates(vec.decisions - start)


def sync_loop(vec, seconds):
    """SyncVectorEnv over single-agent envs: random legal actions, every seat's decisions counted."""
    rng = np.random.default_rng(0)
    obs, info = vec.reset(seed=0)
    envs = [e.unwrapped for e in vec.envs]

    def decisions():
        return sum(e.decisions for e in envs)

    start = decisions()
    clock = Clock()
    while clock.elapsed() < seconds:
        masks = info["action_mask"]
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)
        obs, r, term, trunc, info = vec.step(acts)
    return clock.rates(decisions() - start)


def peer_envs():
    try:
        from pettingzoo.classic import connect_four_v3, leduc_holdem_v4
    except Exception as exc:  # pragma: no cover - optional
        print(f"PettingZoo classic peers unavailable ({exc}); install cardgym[bench]")
        return {}
    return {"connect_four_v3": connect_four_v3.env(), "leduc_holdem_v4": leduc_holdem_v4.env()}


def build_parser():
    """The flags of ``cardgym bench`` (``python benchmarks/throughput.py``)."""
    from cardgym.app.options import Parser, integer, real, text

    ap = Parser(prog="cardgym bench", description=__doc__.split("\n")[0],
                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--seconds", type=real(0.0, 3600.0, lo_open=True), default=6.0,
                    help="measuring time per row (split into rounds)")
    ap.add_argument("--rounds", type=integer(1, 1000), default=4, help="interleaved rounds; the best round counts")
    ap.add_argument("--num-envs", type=integer(1, 65536), default=4096, help="games of the vector env rows")
    ap.add_argument("--games", type=text("comma-separated games"), default=",".join(cardgym.registry.names()),
                    help="comma-separated games (default: every game of cardgym.registry)")
    ap.add_argument("--cpu", action="store_true",
                    help="also count decisions per CPU-second of this process, on one numba thread; the ratios "
                         "then compare CPU-second figures (comparable on a shared machine)")
    ap.add_argument("--json", type=text("a file name"), default=None, help="also write the rows to this JSON file")
    return ap


def parse(argv=None):
    """The checked flags: a bad value ends in a one-line argparse error (exit code 2)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    for g in args.games.split(","):
        try:
            cardgym.registry.entry(g)
        except ValueError as exc:
            ap.error(f"argument --games: {exc}")
    from cardgym.app.options import check_output

    check_output(ap, "--json", args.json)  # before minutes of measuring
    return args


def main(argv=None):
    args = parse(argv)
    games = args.games.split(",")

    import gymnasium as gym

    if args.cpu:  # CPU-seconds of one thread: a batch stepped on several threads would add theirs up
        numba.set_num_threads(1)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}"
    print(f"machine: {machine}; python {platform.python_version()}; numba threads {numba.get_num_threads()}; "
          f"best of {args.rounds} interleaved rounds, {args.seconds:g} s per row"
          + (f"; load average {os.getloadavg()[0]:.1f} at start" if hasattr(os, "getloadavg") else ""))
    # every row: (env, API, measure(seconds) -> (decisions per wall second, per CPU-second))
    rows = [(name, "AEC loop", (lambda e: lambda t: aec_loop(e, t))(env)) for name, env in peer_envs().items()]
    for name, opts in cases(games):
        mod = __import__(cardgym.GAMES[name].module, fromlist=["env"])
        aec = mod.env(**opts)
        single = gym.make(cardgym.GAMES[name].gym_id, opponent="random", **opts)
        vec = cardgym.make_vec(name, args.num_envs, opponent="random", copy=False, **opts)
        rows.append((label(name, opts), "AEC loop", (lambda e: lambda t: aec_loop(e, t))(aec)))
        rows.append((label(name, opts), "single-agent", (lambda e: lambda t: single_loop(e, t))(single)))
        rows.append((label(name, opts), f"vector x{args.num_envs}", (lambda e: lambda t: vec_loop(e, t))(vec)))
        if name == "skipbo" and opts == {"num_players": 2}:
            # the registered vector entry point: the same compiled batch through Gymnasium's factory
            gvec = gym.make_vec(cardgym.GAMES[name].gym_id, num_envs=args.num_envs, copy=False, **opts)
            assert type(gvec) is type(vec), type(gvec)
            rows.append((label(name, opts), f"gymnasium.make_vec x{args.num_envs}",
                         (lambda e: lambda t: vec_loop(e, t))(gvec)))
            sync = gym.make_vec(cardgym.GAMES[name].gym_id, num_envs=256, vectorization_mode="sync", **opts)
            rows.append((label(name, opts), "gymnasium.make_vec sync x256",
                         (lambda e: lambda t: sync_loop(e, t))(sync)))
    for _, _, measure in rows:  # warm-up: compilation or cache loading stays out of the timings
        measure(0.2)
    best = [(0.0, 0.0)] * len(rows)  # (wall, CPU) rates: the best of each clock over the rounds
    for _ in range(args.rounds):  # interleaved, so that a busy moment of the machine hits every row alike
        for k, (_, _, measure) in enumerate(rows):
            wall, cpu = measure(args.seconds / args.rounds)
            best[k] = (max(best[k][0], wall), max(best[k][1], cpu))
    print(table(rows, best, args.cpu))
    if args.json:
        out = [{"env": env, "api": api, "decisions_per_s": round(w), **({"decisions_per_cpu_s": round(c)}
                                                                          if args.cpu else {})}
               for (env, api, _), (w, c) in zip(rows, best)]
        from cardgym.app.options import writing

        with writing("cardgym bench", args.json), open(args.json, "w") as fh:
            json.dump({"machine": machine, "numba_threads": numba.get_num_threads(), "rows": out}, fh, indent=2)


def table(rows, best, cpu: bool) -> str:
    """The Markdown table of the measured rows: decisions per wall second, with ``cpu`` per CPU-second
    too, and the ratios against the peers (of the CPU-second figures with ``cpu``)."""
    col = 1 if cpu else 0
    peer = {env: best[k][col] for k, (env, api, _) in enumerate(rows) if env in ("connect_four_v3", "leduc_holdem_v4")}
    c4, leduc = peer.get("connect_four_v3"), peer.get("leduc_holdem_v4")
    per = " per CPU-s" if cpu else ""
    head = "| env | API | decisions/s |" + (" decisions/CPU-s |" if cpu else "")
    head += f" x connect_four_v3{per} | x leduc_holdem_v4{per} |"
    lines = ["", head, "|---|---|---:|" + ("---:|" if cpu else "") + "---:|---:|"]
    for (env_name, api, _), rates in zip(rows, best):
        d = rates[col]
        r1 = f"{d / c4:,.1f}" if c4 else "-"
        r2 = f"{d / leduc:,.1f}" if leduc else "-"
        cells = f"{rates[0]:,.0f} |" + (f" {rates[1]:,.0f} |" if cpu else "")
        lines.append(f"| {env_name} | {api} | {cells} {r1} | {r2} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
