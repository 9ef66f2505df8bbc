"""The built-in PPO trainer: masked-logit PPO in plain torch on a compiled batch of games.

This module holds `Trainer` (behaviour cloning, the PPO update, evaluations, the training loop); the
rest of ``cardgym.train`` is split by concern: ``config.py`` (`Config`, presets), ``rollout.py``
(opponents and rollouts through the vector env), ``checkpoints.py``, ``progress.py`` and ``cli.py``
(``cardgym train``).

One learner seat per game; every other seat is played by an opponent drawn at each episode start
from a mixture of the game's bots and a pool of the learner's own past snapshots (self-play). Bots
decide inside compiled calls, snapshots in batched forward passes: the games are the public vector env
(`cardgym.core.envs.vector.CardGameVectorEnv`, see ``rollout.py``). Everything random (deals, seats,
opponents, action sampling) comes from the run's seed, and torch runs deterministic on the CPU, so one command run twice
writes the same ``results.json``.

With ``imitate`` set, a run starts with behaviour cloning of that bot (``pretrain_steps`` of its
decisions in the learner's seat, ``pretrain_epochs`` epochs), and PPO adds a cross-entropy term toward
the bot's choice on the learner's own states (DAgger) whose weight falls to 0 at ``imitate_steps``.

Outputs in ``--out``: ``model.pt`` (the final policy, a [`cardgym.agents.load_policy`][cardgym.agents.load_policy] file),
``checkpoint/`` (``state.pt`` + ``env.npz`` + ``manifest.json``, replaced whole at each save; resume with
``--resume``), ``log.csv`` (one row per iteration), ``results.json`` (config, pretraining log, final
duplicate evaluation against every bot; no wall-clock times, so it is the same for the same command),
``timing.json`` (phase times, steps/s), ``curve.png`` (evaluation win rates over training).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import time
from pathlib import Path

import numpy as np

# torch's OpenMP threads spin while waiting by default; on a shared 2-core machine that costs ~3x.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ..agents import PolicyNet, TorchPolicy, mask_logits, save_policy  # noqa: E402
from .checkpoints import CheckpointMixin, _write_text, _writing  # noqa: E402
from .config import Config, parse_spec  # noqa: E402
from .evaluate import duplicate_eval  # noqa: E402
from .progress import Progress, status  # noqa: E402
from .rollout import RolloutMixin  # noqa: E402


class Trainer(RolloutMixin, CheckpointMixin):
    """One training run: `collect` (rollout.py), `pretrain`, `update`, evaluations, checkpoints
    (checkpoints.py) and `train`, the loop that writes the outputs."""

    def __init__(self, cfg: Config):
        import torch

        import cardgym

        self.torch = torch
        self.cfg = cfg
        torch.set_num_threads(max(1, int(cfg.threads)))
        torch.use_deterministic_algorithms(True)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.game = cardgym.get_game(cfg.game)
        rules = dict(cfg.rules)
        rules.setdefault("num_players", 2)
        cfg.rules = rules
        self.rules = self.game.make_rules(**rules)
        self.eval_rules = {k: v for k, v in rules.items() if k != "reward"}
        self.np = int(self.rules.num_players)
        n = int(cfg.num_envs)
        self.n = n
        if self.game.obs_index(cfg.observation) < 0:
            raise ValueError(f"policies need a flat encoder; {cfg.observation!r} is a dict encoder")
        self.obs_size = int(self.game.encoder(cfg.observation).size(self.rules))
        self.A = self.game.num_actions
        self.net = PolicyNet(self.obs_size, self.A, tuple(cfg.hidden))
        if cfg.init:
            self._load_init(cfg.init)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        self.mix = parse_spec(cfg.opponents)
        self.kinds = [k for k, _ in self.mix]
        w = np.array([w for _, w in self.mix], np.float64)
        self.mix_p = w / w.sum()
        self.seat_fixed = -1 if cfg.seat == "random" else int(cfg.seat)
        self.env_kind = np.zeros(n, np.int64)  # index into self.kinds
        self._build_env()  # the vector env, its opponents and the first snapshot (rollout.py)
        self.ep_ret = np.zeros((n, self.game.max_players), np.float64)
        self.ep_len = np.zeros(n, np.int64)
        self.iteration = 0
        self.steps = 0
        self.decisions = 0
        self.episodes = 0
        self.window = {k: [] for k in self.kinds}  # recent outcomes (1 / 0.5 / 0) by opponent kind
        self.eval_history: list = []
        self.out = Path(cfg.out)
        self.pretrain_log: list = []
        self.pretrain_timing: dict = {}
        if cfg.pretrain_steps > 0 and not self.has_teacher():
            raise ValueError("--pretrain-steps needs a teacher: pass --imitate BOT (e.g. expert)")

    # ------------------------------------------------------------ opponents
    def _load_init(self, path):
        """Start from the weights of a saved model of the same game, observation and network shape."""
        from ..agents import load_policy

        try:
            pol = load_policy(path)
        except (ValueError, OSError) as exc:  # not a model file, a folder, unreadable: one line for the CLI
            raise ValueError(f"--init {str(path)!r}: {exc}") from exc
        want = {"game": self.cfg.game, "obs_size": self.obs_size, "num_actions": self.A,
                "hidden": list(self.cfg.hidden)}
        have = {"game": pol.meta.get("game"), "obs_size": pol.obs_size, "num_actions": pol.num_actions,
                "hidden": list(pol.net.hidden)}
        if have != want:
            only_width = {**have, "hidden": None} == {**want, "hidden": None}
            hint = f"; pass --hidden {','.join(map(str, have['hidden']))} to continue it" if only_width else ""
            raise ValueError(f"--init {str(path)!r} does not fit this run: the model has {have}, "
                             f"the run needs {want}{hint}")
        self.net.load_state_dict(pol.net.state_dict())

    # ----------------------------------------------------------- pretraining
    def pretrain(self) -> list:
        """Behaviour cloning before PPO: the teacher (``imitate``) plays the learner's seat for
        ``pretrain_steps`` decisions against the opponent mix; the policy head learns its choices
        (cross-entropy) and the value head the discounted returns, for ``pretrain_epochs`` epochs.
        2% of the records are held out to report the agreement with the teacher. Returns one log row
        per epoch."""
        torch, cfg = self.torch, self.cfg
        T = max(1, math.ceil(cfg.pretrain_steps / self.n))
        t0 = time.perf_counter()
        # wall-clock times go to timing.json (results.json holds only what the seed determines)
        self.pretrain_timing = {"collect_s": 0.0, "epochs_s": []}
        bar = Progress(T * self.n, cfg.progress)
        b = self.collect(T, teacher_plays=True, progress=bar)
        bar.update(T * self.n, "collecting the teacher's decisions", force=True)
        bar.close()
        for k in self.window:  # outcomes of the teacher's games are not the learner's
            self.window[k].clear()
        t_collect = time.perf_counter() - t0
        N = b["act"].shape[0]
        # hold out whole records (every T-th row belongs to one record, so split by record index)
        rec = np.tile(np.arange(self.n), T)
        held = rec < max(1, self.n // 50)
        tr_idx, ho_idx = torch.from_numpy(np.flatnonzero(~held)), torch.from_numpy(np.flatnonzero(held))
        obs, mask = torch.from_numpy(b["obs"]), torch.from_numpy(b["mask"])
        label, ret = torch.from_numpy(b["label"]), torch.from_numpy(b["ret"])
        opt = torch.optim.Adam(self.net.parameters(), lr=cfg.pretrain_lr, eps=1e-5)
        mb = int(cfg.pretrain_minibatch)
        updates = int(cfg.pretrain_epochs) * -(-tr_idx.numel() // mb)
        done = 0
        rows = []
        # one bar over every cloning update: a line at least every few seconds inside each epoch
        ebar = Progress(updates, cfg.progress, fmt=lambda d, t: f"{d}/{t} updates")
        for ep in range(int(cfg.pretrain_epochs)):
            ebar.update(done, f"cloning {cfg.imitate}: epoch {ep + 1}/{cfg.pretrain_epochs}")
            perm = tr_idx[torch.randperm(tr_idx.numel())]
            tot = {"loss": 0.0, "v_loss": 0.0}
            count = 0
            for s in range(0, perm.numel(), mb):
                j = perm[s: s + mb]
                if cfg.pretrain_anneal:
                    for g in opt.param_groups:
                        g["lr"] = cfg.pretrain_lr * (1.0 - done / updates)
                done += 1
                logits, v = self.net(obs[j])
                logits = mask_logits(logits, mask[j])
                ce = torch.nn.functional.cross_entropy(logits, label[j])
                v_loss = 0.5 * (v - ret[j]).pow(2).mean()
                opt.zero_grad()
                (ce + cfg.vf_coef * v_loss).backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                opt.step()
                tot["loss"] += float(ce.detach())
                tot["v_loss"] += float(v_loss.detach())
                count += 1
                ebar.update(done)
            with torch.no_grad():
                logits, _ = self.net(obs[ho_idx])
                agree = float((mask_logits(logits, mask[ho_idx]).argmax(-1) == label[ho_idx]).float().mean())
            row = {"epoch": ep + 1, "samples": int(N), "loss": round(tot["loss"] / max(1, count), 5),
                   "v_loss": round(tot["v_loss"] / max(1, count), 5), "heldout_agree": round(agree, 4)}
            rows.append(row)
            self.pretrain_timing["epochs_s"].append(round(time.perf_counter() - t0, 1))
            ebar.update(done, f"cloning epoch {ep + 1}/{cfg.pretrain_epochs} done: imitation loss {row['loss']:.3f}, "
                        f"agreement with {cfg.imitate} {100 * agree:.1f}% (held out)", force=True)
        ebar.close()
        self.pretrain_timing["collect_s"] = round(t_collect, 1)
        # the policy snapshots start from the pretrained policy
        for slot in range(len(self.pool_pids)):
            self._snapshot(slot)
        # PPO starts with fresh optimizer moments
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        self._assign()
        return rows

    # --------------------------------------------------------------- update
    def update(self, b) -> dict:
        torch, cfg = self.torch, self.cfg
        N = b["act"].shape[0]
        obs, mask = torch.from_numpy(b["obs"]), torch.from_numpy(b["mask"])
        act, old_logp = torch.from_numpy(b["act"]), torch.from_numpy(b["logp"])
        adv, ret = torch.from_numpy(b["adv"]), torch.from_numpy(b["ret"])
        mb = min(cfg.minibatch, N)
        bc_w = self.imitation_weight() if "label" in b else 0.0
        label = torch.from_numpy(b["label"]) if bc_w > 0 else None
        stats = {"pi_loss": 0.0, "v_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
        if label is not None:
            stats.update(imitation_loss=0.0, teacher_agree=0.0)
        count = 0
        for _ in range(cfg.epochs):
            perm = torch.randperm(N)
            for s in range(0, N - mb + 1, mb):
                j = perm[s: s + mb]
                logits, v = self.net(obs[j])
                logits = mask_logits(logits, mask[j])
                logp_all = torch.log_softmax(logits, -1)
                logp = logp_all.gather(1, act[j][:, None]).squeeze(-1)
                p = logp_all.exp()
                ent = -(p * logp_all).sum(-1).mean()
                a = adv[j]
                a = (a - a.mean()) / (a.std() + 1e-8)
                ratio = (logp - old_logp[j]).exp()
                pi_loss = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
                v_loss = 0.5 * (v - ret[j]).pow(2).mean()
                loss = pi_loss + cfg.vf_coef * v_loss - cfg.ent_coef * ent
                if label is not None:
                    bc = -logp_all.gather(1, label[j][:, None]).mean()
                    loss = loss + bc_w * bc
                    stats["imitation_loss"] += float(bc.detach())
                    stats["teacher_agree"] += float((logp_all.argmax(-1) == label[j]).float().mean())
                self.opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.opt.step()
                with torch.no_grad():
                    lr_ = logp - old_logp[j]
                    stats["approx_kl"] += float(((lr_.exp() - 1) - lr_).mean())
                    stats["clipfrac"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
                stats["pi_loss"] += float(pi_loss.detach())
                stats["v_loss"] += float(v_loss.detach())
                stats["entropy"] += float(ent.detach())
                count += 1
        return {k: v / max(1, count) for k, v in stats.items()}

    # ------------------------------------------------------------ evaluation
    def policy(self) -> TorchPolicy:
        net = PolicyNet(self.obs_size, self.A, tuple(self.cfg.hidden))
        net.load_state_dict(self.net.state_dict())
        return TorchPolicy(net, self.meta(), deterministic=True)

    def meta(self) -> dict:
        cfg = self.cfg
        return {"game": cfg.game, "rules": self.eval_rules, "observation": cfg.observation,
                "trained_steps": int(self.steps), "seed": cfg.seed}

    def bots(self) -> list:
        """The bots measured against during and after training (`cardgym.eval.baseline_bots`)."""
        from ..eval import baseline_bots

        return baseline_bots(self.game)

    def evaluate(self, games: int, bar: Progress | None = None, seed: int | None = None, what="evaluation") -> dict:
        """Duplicate win rates of the argmax policy against every bot (`bots`); ``bar`` gets a line
        before each bot and the results so far."""
        pol = self.policy()
        seed = self.cfg.eval_seed if seed is None else seed
        out: dict = {}
        for k, b in enumerate(self.bots()):
            if bar is not None:
                done = " ".join(f"{x} {r['win_rate']:.0%}" for x, r in out.items())
                bar.update(bar.done, f"{what} ({games} duplicate games per bot): against {b} "
                                     f"({k + 1}/{len(self.bots())})…" + (f" so far {done}" if done else ""),
                           force=True)
            out[b] = duplicate_eval(self.game, pol, b, games=games, seed=seed, **self.eval_rules)
        return out

    def _evaluate_now(self, bar: Progress, row: dict | None = None):
        """A point of the curve: evaluation at the current step, kept in ``eval_history``."""
        ev = self.evaluate(self.cfg.eval_games, bar)
        self.eval_history.append({"steps": self.steps, **{b: r["win_rate"] for b, r in ev.items()}})
        if row is not None:
            for b, r in ev.items():
                row[f"eval_{b}"] = r["win_rate"]
        bar.update(self.steps, "evaluation: " + " ".join(f"{b} {r['win_rate']:.0%}" for b, r in ev.items()),
                   force=True)

    # ------------------------------------------------------------------ main
    def train(self, resume: bool = False) -> dict:
        cfg = self.cfg
        t_begin = time.perf_counter()
        with _writing(self.out):
            self.out.mkdir(parents=True, exist_ok=True)
        iters = max(1, math.ceil(cfg.total_steps / (self.n * cfg.rollout)))
        log_path = self.out / "log.csv"
        rows: list = []
        if resume:
            self.load_checkpoint()
            if log_path.is_file():
                with open(log_path) as f:
                    rows = [r for r in csv.DictReader(f) if int(r["iteration"]) <= self.iteration]
        else:
            with status("dealing the first games (the game's kernels compile on first use)…", cfg.progress):
                self._assign()
            if cfg.pretrain_steps > 0:
                self.pretrain_log = self.pretrain()
        bar = Progress(iters * self.n * cfg.rollout, cfg.progress)
        if cfg.eval_first and cfg.eval_every and self.iteration == 0 and not self.eval_history:
            self._evaluate_now(bar)  # the curve's starting point: the policy before any PPO update
        t_start = time.perf_counter()
        steps_start = self.steps
        train_time = 0.0
        while self.iteration < iters:
            t0 = time.perf_counter()
            if cfg.anneal_lr:
                for g in self.opt.param_groups:
                    g["lr"] = cfg.lr * (1.0 - self.iteration / iters)
            batch = self.collect()
            t1 = time.perf_counter()
            st = self.update(batch)
            t2 = time.perf_counter()
            train_time += t2 - t0
            self.iteration += 1
            if "self" in self.kinds and self.iteration % cfg.snapshot_every == 0:
                self._snapshot()
            row = {"iteration": self.iteration, "steps": self.steps, "decisions": self.decisions,
                   "episodes": self.episodes}
            for k in self.kinds:
                w = self.window[k][-500:]
                row[f"train_win_{k}"] = round(float(np.mean(w)), 4) if w else ""
            row.update({k: round(v, 5) for k, v in st.items()})
            row["imitation_weight"] = round(self.imitation_weight(), 5)
            if "label" in batch:  # the rollout policy's argmax against the teacher on the states it visited
                row["teacher_agree_rollout"] = self.teacher_agreement[-1][1]
            row["rollout_s"], row["update_s"] = round(t1 - t0, 3), round(t2 - t1, 3)
            row["steps_per_s"] = round(self.n * cfg.rollout / (t2 - t0))
            last = self.iteration == iters
            if cfg.eval_every and (self.iteration % cfg.eval_every == 0 or last or self.iteration == 1):
                bar.update(self.steps)
                self._evaluate_now(bar, row)
            rows.append(row)
            self._write_log(log_path, rows)
            text = " ".join(f"{k}:{row[f'train_win_{k}']}" for k in self.kinds if row[f"train_win_{k}"] != "")
            agree = (f" agree {cfg.imitate} {row['teacher_agree_rollout']:.1%}"
                     if "teacher_agree_rollout" in row else "")
            bar.update(self.steps, f"{row['steps_per_s'] / 1e3:.0f}k st/s win {text}{agree}", force=last)
            if cfg.checkpoint_every and (self.iteration % cfg.checkpoint_every == 0 or last):
                self.save_checkpoint()
        bar.close()
        wall = time.perf_counter() - t_start
        t_final = time.perf_counter()
        with _writing(self.out / "model.pt"):
            save_policy(self.out / "model.pt", self.policy().net, self.meta())
        with status("final evaluation…", cfg.progress) as fbar:
            final = self.evaluate(cfg.final_eval_games, fbar, seed=cfg.eval_seed + 10_000_000,
                                  what="final evaluation")
        config = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in ("out", "progress")}
        if not cfg.eval_first:  # a later setting: runs without it keep the results.json they always wrote
            del config["eval_first"]
        results = {"game": cfg.game, "config": config, "steps": int(self.steps),
                   "decisions": int(self.decisions), "episodes": int(self.episodes),
                   "final_eval": final, "eval_history": self.eval_history, "pretrain": self.pretrain_log}
        if self.teacher_agreement:  # [learner steps, agreement] of every rollout labelled by the teacher
            results["teacher_agreement"] = self.teacher_agreement
        _write_text(self.out / "results.json", json.dumps(results, indent=1, sort_keys=True) + "\n")
        sps = (self.steps - steps_start) / max(1e-9, train_time)
        pre = self.pretrain_timing if self.pretrain_timing.get("epochs_s") else {}
        timing = {
            "total_s": round(time.perf_counter() - t_begin, 1),  # this invocation, start to end
            "pretrain_s": pre["epochs_s"][-1] if pre else 0.0,  # behaviour cloning (collect + epochs), 0 when resumed
            "pretrain_collect_s": pre.get("collect_s", 0.0),  # playing the teacher's decisions
            "pretrain_epochs_s": pre.get("epochs_s", []),  # time since the start of cloning at each epoch's end
            "ppo_wall_s": round(wall, 1),  # PPO iterations incl. periodic evaluations and checkpoints
            "ppo_train_s": round(train_time, 1),  # rollouts + updates only
            "final_eval_s": round(time.perf_counter() - t_final, 1),
            "steps_per_s": round(sps),  # PPO learner steps per second of rollout + update
            "decisions_per_s": round(sps * self.decisions / max(1, self.steps)),  # incl. opponents' moves
            "threads": cfg.threads,
        }
        _write_text(self.out / "timing.json", json.dumps(timing, indent=1) + "\n")
        with _writing(self.out / "curve.png"):
            self._plot()
        results["timing"] = timing
        return results

    def _write_log(self, path, rows):
        keys: list = []
        for r in rows:
            keys += [k for k in r if k not in keys]
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, keys)
        w.writeheader()
        for r in rows:
            w.writerow(r)
        _write_text(path, buf.getvalue())

    def _plot(self):
        from .plot import line_plot

        h = self.eval_history
        if not h:
            return
        series = {f"vs {b}": ([e["steps"] for e in h], [e[b] for e in h]) for b in self.bots()}
        line_plot(self.out / "curve.png", series, title=f"{self.cfg.game}: duplicate win rate of the argmax policy",
                  xlabel="PPO learner steps" + (" (after behaviour cloning)" if self.pretrain_log else ""),
                  ylabel="win rate", ylim=(0, 1), hline=0.5)

