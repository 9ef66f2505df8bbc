"""The pieces the RLlib examples share: an RLModule as a cardgym policy, starting Ray, the batched examples'
options and PPOConfig, the training loop's per-iteration row and line, the throughput summary, the final
duplicate evaluation against the bots and the end of a run (checkpoint, results.json, shutdown).

No Ray import at module level (``ray`` and ``torch`` are imported inside the functions that need them), so
``import cardgym.wrappers.rllib_tools`` works without Ray; used by ``examples/rllib_multiagent.py``,
``examples/rllib_batched.py`` and ``examples/rllib_selfplay_batched.py``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["ModulePolicy", "init_ray", "start_ppo", "add_ppo_arguments", "ppo_config", "finish_run", "fmt",
           "RowKeys", "LEARNER_ROW", "SELFPLAY_ROW", "iteration_row", "iteration_line", "throughput",
           "throughput_line", "train_loop", "EVAL_KEYS", "evaluate_vs_bots", "resolve_init"]


class ModulePolicy:
    """An RLlib RLModule as a cardgym batched policy (``act(obs, masks)``): greedy over the legal
    actions, or (``sample=True``) drawn from the masked softmax.

    ``module.forward_inference({"obs": {"observations", "action_mask"}})["action_dist_inputs"]`` gives
    the logits (as ``cardgym.wrappers.rllib_module.MaskedMLPModule`` does); illegal actions never win."""

    def __init__(self, module, sample: bool = False, seed: int = 0):
        if not callable(getattr(module, "forward_inference", None)):
            raise TypeError(f"module must be an RLlib RLModule (with forward_inference), got {type(module).__name__}")
        self.module = module
        self.sample = sample
        self.rng = np.random.default_rng(seed)

    def act(self, obs, masks):
        import torch

        masks = np.asarray(masks)
        batch = {"obs": {"observations": torch.as_tensor(np.asarray(obs, np.float32)),
                         "action_mask": torch.as_tensor(masks.astype(np.float32))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"].numpy()
        logits = np.where(masks > 0, logits, -np.inf)
        if not self.sample:
            return logits.argmax(axis=1).astype(np.int64)
        gumbel = -np.log(-np.log(self.rng.random(logits.shape)))  # argmax(logits + Gumbel) ~ softmax
        return (logits + gumbel).argmax(axis=1).astype(np.int64)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])


def init_ray(address: str | None, num_cpus: int) -> str:
    """Connect to a Ray cluster (``address`` or ``RAY_ADDRESS``) or start a small local Ray; returns the
    address joined, or ``"local"``."""
    import ray

    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        # "local": always a new Ray of our own, even if a stale `ray start` left its address behind
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                 object_store_memory=256 * 1024**2, log_to_driver=False)
    return address or "local"


def start_ppo(address: str | None, num_cpus: int, build, note: str = ""):
    """Start Ray (`init_ray`), then build the algorithm of ``build()`` (a function returning an RLlib
    AlgorithmConfig, called once Ray is up), printing the time each took; returns ``(algo, where,
    t_start)``: the algorithm, the Ray address (`init_ray`) and the ``time.perf_counter()`` of the start.
    ``note`` follows the "PPO built" line."""
    import ray

    t_start = time.perf_counter()
    where = init_ray(address, num_cpus)
    print(f"ray {ray.__version__} ({where}) up in {time.perf_counter() - t_start:.1f}s", flush=True)
    algo = build().build_algo()
    print(f"PPO built in {time.perf_counter() - t_start:.1f}s{note}", flush=True)
    return algo, where, t_start


def fmt(x, spec=".3f") -> str:
    """``format(x, spec)``, or ``"n/a"`` for None and NaN (RLlib reports NaN means before any episode ends)."""
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


@dataclass(frozen=True)
class RowKeys:
    """The names of a history row's episode columns and how its line labels them. ``seat``: the return
    column is that agent's mean return (``env_runners.agent_episode_return_mean[seat]``) rather than the
    episode's (``env_runners.episode_return_mean``)."""

    episodes: str = "episodes"
    length: str = "episode_len_mean"
    ret: str = "episode_return_mean"
    ret_label: str = "return"
    seat: str | None = None


LEARNER_ROW = RowKeys()  # one learning seat (examples/rllib_batched.py)
SELFPLAY_ROW = RowKeys("games", "game_len_mean", "seat_0_return_mean", "seat 0 return", seat="seat_0")


def iteration_row(res: dict, *, iteration: int, previous_steps: int, dt: float, seconds: float,
                  keys: RowKeys = LEARNER_ROW) -> dict:
    """One history row (JSON-ready) from an ``algo.train()`` result: lifetime env steps, the steps of this
    iteration (``previous_steps``: the lifetime count after the last one), episodes, mean length and
    return, the learner's entropy, ``dt`` (this iteration's seconds), ``seconds`` since training began,
    and steps/s."""
    er = res.get("env_runners", {})
    steps = int(er.get("num_env_steps_sampled_lifetime", 0))
    ret = er.get("agent_episode_return_mean", {}).get(keys.seat) if keys.seat else er.get("episode_return_mean")
    row = {
        "iteration": iteration,
        "env_steps": steps,
        "iteration_env_steps": steps - previous_steps,
        keys.episodes: int(er.get("num_episodes_lifetime", 0)),
        keys.length: er.get("episode_len_mean"),
        keys.ret: ret,
        "entropy": res.get("learners", {}).get("default_policy", {}).get("entropy"),
        "iteration_seconds": round(dt, 2),
        "seconds": round(seconds, 1),
    }
    row["steps_per_second"] = round(row["iteration_env_steps"] / dt, 1) if dt > 0 else None
    for key in (keys.length, keys.ret, "entropy"):  # numpy/torch scalars -> JSON
        row[key] = None if row[key] is None else round(float(row[key]), 4)
    return row


def iteration_line(row: dict, keys: RowKeys = LEARNER_ROW) -> str:
    """The printed line of a history row."""
    return (f"iter {row['iteration']:3d}  steps {row['env_steps']:9d}  {keys.episodes} {row[keys.episodes]:6d}  "
            f"len {fmt(row[keys.length], '.1f')}  {keys.ret_label} {fmt(row[keys.ret], '+.3f')}  "
            f"entropy {fmt(row['entropy'])}  {row['steps_per_second']:,.0f} steps/s  {row['seconds']:.0f}s")


def throughput(history: list[dict]) -> float:
    """Env steps per second of training, the first (warm-up) iteration excluded when there are more: it
    compiles or loads kernels and builds the torch graphs."""
    timed = history[1:] or history
    return sum(r["iteration_env_steps"] for r in timed) / max(1e-9, sum(r["iteration_seconds"] for r in timed))


def throughput_line(history: list[dict], steps_per_s: float, seconds: float) -> str:
    """The printed summary of `throughput`."""
    return (f"training throughput: {steps_per_s:,.0f} env steps/s (iterations 2..{len(history)}; "
            f"{history[-1]['env_steps'] if history else 0} steps in {seconds:.0f}s)")


def train_loop(algo, iterations: int, minutes: float | None = None, keys: RowKeys = LEARNER_ROW,
               out=print) -> tuple[list[dict], float]:
    """``algo.train()`` for ``iterations`` iterations, or (``minutes``) until that wall time, one history
    row and printed line each; prints the throughput summary and returns ``(history, steps_per_second)``."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ValueError(f"iterations must be a whole number >= 0, got {iterations!r}")
    if minutes is not None and not minutes > 0:
        raise ValueError(f"minutes must be > 0 or None (no time limit), got {minutes!r}")
    history = []
    t0 = time.perf_counter()
    it = 0
    while it < iterations or minutes is not None:
        if minutes is not None and time.perf_counter() - t0 >= 60 * minutes:
            break
        it += 1
        t_it = time.perf_counter()
        res = algo.train()
        dt = time.perf_counter() - t_it
        row = iteration_row(res, iteration=it, previous_steps=history[-1]["env_steps"] if history else 0, dt=dt,
                            seconds=time.perf_counter() - t0, keys=keys)
        history.append(row)
        out(iteration_line(row, keys), flush=True)
        if iterations and minutes is None and it >= iterations:
            break
    steps_per_s = throughput(history)
    out(throughput_line(history, steps_per_s, time.perf_counter() - t0), flush=True)
    return history, steps_per_s


EVAL_KEYS = ("games", "wins", "draws", "losses", "a_win_rate", "ci95")


def evaluate_vs_bots(game: str, policy, num_players: int, games: int, seed: int = 10**6, out=print) -> dict:
    """Duplicate games (``cardgym.eval.match``) of ``policy`` against every baseline bot of the game
    (random, greedy, expert), one printed line each; returns ``{bot: {EVAL_KEYS}}``."""
    from cardgym.eval import baseline_bots, match

    final = {}
    for bot in baseline_bots(game):
        r = match(game, policy, bot, num_players=num_players, games=games, seed=seed)
        final[bot] = {k: r[k] for k in EVAL_KEYS}
        lo, hi = r["ci95"]
        out(f"vs {bot:<8} win rate {100 * r['a_win_rate']:5.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}, "
            f"{r['games']} duplicate games: {r['wins']} W / {r['draws']} D / {r['losses']} L)", flush=True)
    return final


def add_ppo_arguments(parser, envs_per_runner: int, train_batch_help: str = "env steps per iteration"):
    """The command-line options of the batched RLlib examples, ``--reward`` to ``--out`` (training budget,
    PPO settings, EnvRunners, Ray, evaluation, output); ``envs_per_runner``: the default of
    ``--envs-per-runner``."""
    p = parser
    p.add_argument("--reward", default=None, help="the game's reward option ('win', 'score'; default: the game's)")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--minutes", type=float, default=None, help="stop training after this wall time")
    p.add_argument("--envs-per-runner", type=int, default=envs_per_runner, help="games in each EnvRunner's batch")
    p.add_argument("--train-batch", type=int, default=32768, help=train_batch_help)
    p.add_argument("--minibatch", type=int, default=4096)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--hidden", type=int, nargs="+", default=None,
                   help="hidden layer sizes (default: 256 256, or those of --init's model)")
    p.add_argument("--init", default=None, metavar="MODEL",
                   help="warm start: a model file of `cardgym train` (e.g. runs/skyjo/model.pt), or 'agent' for "
                        "the agent shipped for this game and player count; the network takes its shape and weights")
    p.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--sample-timeout", type=float, default=600.0,
                   help="seconds RLlib waits for the EnvRunners' samples in an iteration (RLlib's default: 60)")
    p.add_argument("--address", default=None, help="Ray cluster address (default: $RAY_ADDRESS, else a local Ray)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)")
    p.add_argument("--eval-games", type=int, default=200, help="duplicate games per bot at the end (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write results.json (and an RLlib checkpoint) here")
    return p


def resolve_init(a, rules: dict | None = None) -> str | None:
    """The model file of ``a.init`` as a path (``"agent"``: the shipped agent of ``a.game`` with
    ``a.players``), checked to fit the game, ``rules`` (default: ``a.players`` players) and the ``vector``
    observation (`cardgym.agents.check_model_fits`); None without ``--init``."""
    if not getattr(a, "init", None):
        return None
    import cardgym
    from ..agents import check_model_fits, load_policy
    from ..agents.pretrained import AGENT, agent_path

    path = str(agent_path(a.game, a.players)) if a.init == AGENT else a.init
    rules = rules if rules is not None else {"num_players": a.players}
    check_model_fits(load_policy(path), cardgym.get_game(a.game), rules, "vector", where=path)
    return path


def ppo_config(a, env: str, env_config: dict, **env_runners):
    """The PPOConfig of the batched examples: env ``env`` (registered with ``ray.tune.register_env``) with
    ``env_config`` and no env pre-check, ``cardgym.wrappers.rllib_module.MaskedMLPModule`` with
    ``a.hidden`` (or warm-started from ``a.init``, see `resolve_init`), EnvRunners (``a.num_env_runners`` x ``a.envs_per_runner`` games, ``a.sample_timeout``,
    and ``env_runners``), one learner in the driver, PPO settings and seed from `add_ppo_arguments`'s ``a``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_module import MaskedMLPModule, init_model_config  # imports Ray: only here

    rules = {k: v for k, v in env_config.items() if k not in ("game", "opponent", "seat")}
    init = resolve_init(a, rules)
    if init:
        model_config = init_model_config(init)
        if a.hidden and list(a.hidden) != model_config["hidden"]:
            raise ValueError(f"--hidden {a.hidden} does not fit --init {a.init!r}, whose network is {model_config['hidden']}")
    else:
        model_config = {"hidden": a.hidden or [256, 256], "vf_share_layers": False}
    return (
        PPOConfig()
        # RLlib's env pre-check steps unmasked random actions (illegal moves); off
        .environment(env, env_config=env_config, disable_env_checking=True)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule, model_config=model_config))
        .env_runners(num_env_runners=a.num_env_runners, num_envs_per_env_runner=a.envs_per_runner,
                     num_cpus_per_env_runner=1,
                     # RLlib's default is 60 s; Ray runs EnvRunner actors at niceness 15, and on a busy
                     # machine a sample can take longer (the iteration then returns no steps at all)
                     sample_timeout_s=getattr(a, "sample_timeout", 600.0),
                     rollout_fragment_length="auto", **env_runners)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=a.train_batch, minibatch_size=min(a.minibatch, a.train_batch),
                  num_epochs=a.epochs, lr=a.lr, entropy_coeff=a.ent_coef, gamma=a.gamma)
        .debugging(seed=a.seed)
    )


def require_rllib() -> None:
    """Exit with the install line when Ray's RLlib is not importable (the RLlib examples call it first)."""
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise SystemExit(
            f"this example needs Ray RLlib, which is not installed ({exc}): pip install 'cardgym[rllib]' "
            "(ray[rllib]==2.60.0 and torch; in a virtual environment of its own, see docs/training.md)"
        ) from None


def finish_run(algo, out: str | None, result: dict, t_start: float) -> None:
    """The end of an example's run: with ``out``, an RLlib checkpoint in ``out/checkpoint`` and ``result``
    in ``out/results.json``; then stop the algorithm and Ray, and print the total time since ``t_start``."""
    import ray

    if out:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        algo.save_to_path(str((out / "checkpoint").resolve()))
        (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    algo.stop()
    ray.shutdown()
    print(f"total {time.perf_counter() - t_start:.0f}s", flush=True)
