"""The built-in PPO trainer: masked-logit PPO in plain torch on a compiled batch of games.

One learner seat per game; every other seat is played by an opponent drawn at each episode start
from a mixture of the game's bots and a pool of the learner's own past snapshots (self-play). Bots
decide inside compiled calls, snapshots in batched forward passes (see
[`cardgym.agents.runner.BatchRunner`][cardgym.agents.runner.BatchRunner]). Everything random (deals, seats, opponents, action
sampling) comes from the run's seed, and torch runs deterministic on the CPU, so one command run twice
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

import argparse
import contextlib
import csv
import dataclasses
import errno
import hashlib
import io
import json
import math
import os
import shutil
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# torch's OpenMP threads spin while waiting by default; on a shared 2-core machine that costs ~3x.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ..agents import CHECKPOINT_STATE, FORMAT, PolicyNet, TorchPolicy, mask_logits, save_policy  # noqa: E402
from ..agents.runner import EXTERNAL, BatchRunner  # noqa: E402
from .evaluate import duplicate_eval, format_result  # noqa: E402

#: the checkpoint folder in ``--out`` and its files (see ``Trainer.save_checkpoint``)
CHECKPOINT_DIR = "checkpoint"
CHECKPOINT_ENV = "env.npz"
CHECKPOINT_MANIFEST = "manifest.json"
CHECKPOINT_FORMAT = "cardgym-checkpoint-v1"


class CheckpointError(ValueError):
    """``--resume`` found no checkpoint, or none that is complete and fits this run."""


class OutputError(OSError):
    """An output of the run could not be written (disk full, read-only or vanished folder...)."""


@contextlib.contextmanager
def _writing(path):
    """Turn an ``OSError`` raised while writing ``path`` into an `OutputError` naming it."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        hint = ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            hint = "; the disk is full: free some space or pass another --out, then --resume"
        elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            hint = "; the folder is not writable: pass another --out"
        raise OutputError(exc.errno, f"cannot write {path}: {exc.strerror or exc}{hint}") from exc


def _write_text(path: Path, text: str):
    """Write ``text`` to ``path`` whole (a temporary file renamed over it), errors naming ``path``."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with _writing(path):
        try:
            tmp.write_text(text)
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()


def _sync(f):
    f.flush()
    os.fsync(f.fileno())


def _sync_dir(path: Path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_npz(path: Path) -> dict:
    """Every array of an ``.npz`` file, read now (so a truncated file fails here, as a `CheckpointError`)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"{path} cannot be read ({type(exc).__name__}: {exc})") from None

# Per-game defaults of ``cardgym train GAME`` (command-line flags override them). Every preset clones
# the expert bot first (behaviour cloning on 2M of its decisions, 10 epochs), then runs PPO against a
# mixture of bots and the agent's own snapshots while the imitation weight falls from 1 to 0.
_CLONE = dict(imitate="expert", pretrain_steps=2_000_000, pretrain_epochs=10, imitate_coef=1.0,
              imitate_steps=5_000_000, total_steps=5_000_000, lr=1e-4, epochs=2)
PRESETS = {
    # Skyjo: train on per-round points (dense) as a zero-sum difference, plus a win bonus at the end.
    "skyjo": dict(_CLONE, rules={"reward": "score"}, reward="diff", reward_scale=0.02, win_bonus=1.0,
                  opponents="greedy:0.7,random:0.05,self:0.25"),
    "skipbo": dict(_CLONE, hidden=(512, 512), opponents="greedy:0.5,random:0.2,self:0.3"),
    "skipbo_junior": dict(_CLONE, hidden=(512, 512), opponents="greedy:0.4,random:0.4,self:0.2"),
}


@dataclass
class Config:
    game: str = "skyjo"
    rules: dict = field(default_factory=dict)  # rule options of the game (num_players defaults to 2)
    out: str = "runs/skyjo"
    seed: int = 0
    total_steps: int = 10_000_000  # learner decisions
    num_envs: int = 1024
    rollout: int = 64  # steps per env per iteration
    epochs: int = 3
    minibatch: int = 8192
    lr: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.997
    lam: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple = (256, 256)
    opponents: str = "greedy:0.5,random:0.1,self:0.4"  # bot names, "self" = snapshot pool
    pool_size: int = 8
    snapshot_every: int = 10  # iterations
    seat: str = "random"  # learner seat: "random" or a seat number
    reward: str = "env"  # "env": the game's reward; "diff": own reward minus the others' mean
    reward_scale: float = 1.0
    win_bonus: float = 0.0  # +b / -b at the end for strictly best / not best total reward (0 on a tie)
    observation: str = "vector"
    imitate: str = ""  # a bot whose choices the policy also learns (cross-entropy on the learner's states)
    imitate_coef: float = 1.0  # weight of that imitation loss at the start
    imitate_steps: int = 0  # learner steps over which the weight falls linearly to 0 (0: never falls)
    init: str = ""  # a saved model (model.pt or a checkpoint folder) to start from instead of random weights
    pretrain_steps: int = 0  # teacher decisions to clone before PPO starts (needs ``imitate``)
    pretrain_epochs: int = 8
    pretrain_lr: float = 1e-3
    pretrain_minibatch: int = 4096
    eval_every: int = 10  # iterations (0: never during training)
    eval_games: int = 400
    final_eval_games: int = 2000
    eval_seed: int = 1_000_000
    checkpoint_every: int = 10
    threads: int = 2
    progress: bool = True


def parse_spec(spec: str) -> list:
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, w = part.partition(":")
        out.append((name.strip(), float(w) if w else 1.0))
    if not out or any(w < 0 for _, w in out) or sum(w for _, w in out) <= 0:
        raise ValueError(f"--opponents must look like 'greedy:0.5,random:0.1,self:0.4', got {spec!r}")
    return out


#: seconds between progress lines when stderr is not a terminal (a line at the end of the first update
#: after that: an iteration takes a few seconds, so a log never sits silent for 10 s)
NON_TTY_EVERY_S = 5.0


class Progress:
    """A dependency-free progress bar on stderr (one line per update when not a terminal)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.enabled = total, enabled
        self.tty = sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self._last = 0.0

    def update(self, done: int, text: str = "", force: bool = False):
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.tty and not force and now - self._last < NON_TTY_EVERY_S:
            return
        self._last = now
        frac = min(1.0, done / max(1, self.total))
        el = now - self.t0
        eta = el / frac - el if frac > 0 else 0
        bar = "#" * int(frac * 24) + "." * (24 - int(frac * 24))
        line = (f"[{bar}] {100 * frac:5.1f}% {done / 1e6:.2f}M/{self.total / 1e6:.2f}M "
                f"{el / 60:4.1f}m<{eta / 60:4.1f}m {text}")
        sys.stderr.write(("\r" + line + "\033[K") if self.tty else line + "\n")
        sys.stderr.flush()

    def close(self):
        if self.enabled and self.tty:
            sys.stderr.write("\n")


class Trainer:
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
        self.run = BatchRunner(self.game, self.rules, n, cfg.observation)
        self.obs_size = self.run.obs_size
        self.A = self.game.num_actions
        self.net = PolicyNet(self.obs_size, self.A, tuple(cfg.hidden))
        if cfg.init:
            self._load_init(cfg.init)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        self.mix = parse_spec(cfg.opponents)
        self.kinds = [k for k, _ in self.mix]
        w = np.array([w for _, w in self.mix], np.float64)
        self.mix_p = w / w.sum()
        self.bot_pid = {}
        for k in self.kinds:
            if k != "self":
                self.bot_pid[k] = self.run.add_player(k)
        self._add_teacher()
        self.pool_pids: list = []
        self.pool_states: list = []
        self.pool_next = 0
        if "self" in self.kinds:
            self._snapshot()
        self.env_kind = np.zeros(n, np.int64)  # index into self.kinds
        self.seats = np.zeros(n, np.int64)
        self.ep_ret = np.zeros((n, self.game.max_players), np.float64)
        self.ep_len = np.zeros(n, np.int64)
        self.iteration = 0
        self.steps = 0
        self.decisions = 0
        self.episodes = 0
        self.window = {k: [] for k in self.kinds}  # recent outcomes (1 / 0.5 / 0) by opponent kind
        self.eval_history: list = []
        self.seat_fixed = -1 if cfg.seat == "random" else int(cfg.seat)
        self.out = Path(cfg.out)
        self.pretrain_log: list = []
        self.pretrain_timing: dict = {}
        if cfg.pretrain_steps > 0 and self.teacher_pid is None:
            raise ValueError("--pretrain-steps needs a teacher: pass --imitate BOT (e.g. expert)")

    # ------------------------------------------------------------ opponents
    def _load_init(self, path):
        """Start from the weights of a saved model of the same game, observation and network shape."""
        from ..agents import load_policy

        pol = load_policy(path)
        want = {"game": self.cfg.game, "obs_size": self.obs_size, "num_actions": self.A,
                "hidden": list(self.cfg.hidden)}
        have = {"game": pol.meta.get("game"), "obs_size": pol.obs_size, "num_actions": pol.num_actions,
                "hidden": list(pol.net.hidden)}
        if have != want:
            raise ValueError(f"--init {str(path)!r} does not fit this run: the model has {have}, the run needs {want}")
        self.net.load_state_dict(pol.net.state_dict())

    def _add_teacher(self):
        """Register the bot the policy imitates (``--imitate``), sharing the opponent's player if any."""
        name = self.cfg.imitate
        if not name:
            self.teacher_pid = None
        elif name in self.bot_pid:
            self.teacher_pid = self.bot_pid[name]
        else:
            if name not in self.game.bots:
                raise ValueError(f"--imitate must be one of the game's bots {list(self.game.bots)}, got {name!r}")
            self.teacher_pid = self.run.add_player(name)

    def imitation_weight(self) -> float:
        """The imitation loss weight now: ``imitate_coef`` falling linearly to 0 at ``imitate_steps``."""
        cfg = self.cfg
        if self.teacher_pid is None or cfg.imitate_coef <= 0:
            return 0.0
        if cfg.imitate_steps <= 0:
            return float(cfg.imitate_coef)
        return float(cfg.imitate_coef) * max(0.0, 1.0 - self.steps / cfg.imitate_steps)

    def _policy_copy(self, seed, state=None):
        """A frozen, sampling copy of the current policy (or of the weights ``state``) for the pool."""
        net = PolicyNet(self.obs_size, self.A, tuple(self.cfg.hidden))
        net.load_state_dict(self.net.state_dict() if state is None else state)
        return TorchPolicy(net, {"game": self.cfg.game}, deterministic=False, seed=seed)

    def _snapshot(self, slot: int | None = None):
        """Copy the current policy into the pool: a new entry while the pool is not full, else over the
        oldest entry (or over entry ``slot``)."""
        seed = int(self.rng.integers(2**62))
        pol = self._policy_copy(seed)
        state = {k: v.clone() for k, v in self.net.state_dict().items()}
        if slot is None and len(self.pool_pids) < self.cfg.pool_size:
            self.pool_pids.append(self.run.add_player(pol))
            self.pool_states.append((state, seed))
            return
        if slot is None:
            slot = self.pool_next % self.cfg.pool_size
            self.pool_next += 1
        self.run.set_policy(self.pool_pids[slot], pol)
        self.pool_states[slot] = (state, seed)

    def _assign(self, idx):
        """New seeds, seats and opponents for records ``idx``; reset and play up to the learner."""
        idx = np.asarray(idx, np.int64)
        while idx.size:
            seeds = self.rng.integers(0, 2**62, size=idx.size)
            if self.seat_fixed >= 0:
                seats = np.full(idx.size, self.seat_fixed, np.int64)
            else:
                seats = self.rng.integers(0, self.np, size=idx.size)
            kinds = self.rng.choice(len(self.kinds), size=idx.size, p=self.mix_p)
            slots = self.rng.integers(0, max(1, len(self.pool_pids)), size=idx.size)
            for j, i in enumerate(idx):
                k = self.kinds[kinds[j]]
                pid = self.pool_pids[slots[j]] if k == "self" else self.bot_pid[k]
                self.run.seat_player[i, :] = pid
                self.run.seat_player[i, seats[j]] = EXTERNAL
            self.seats[idx] = seats
            self.env_kind[idx] = kinds
            self.run.reset(seeds, idx)
            self.run.play()
            self.run.rewards[idx] = 0
            self.ep_ret[idx] = 0
            self.ep_len[idx] = 0
            idx = idx[self.run.status[idx] != 0]  # over before the learner's first decision: redeal

    # -------------------------------------------------------------- rollout
    def _episode_end(self, idx, rewards):
        """Outcome bookkeeping and the win bonus for records ``idx`` that just finished."""
        cfg = self.cfg
        ret = self.ep_ret[idx, : self.np]
        me = ret[np.arange(idx.size), self.seats[idx]]
        best = ret.max(axis=1)
        ties = (ret == best[:, None]).sum(axis=1)
        score = np.where(me == best, 1.0 / ties, 0.0)
        if cfg.win_bonus:
            bonus = np.where(score == 1.0, 1.0, np.where(score == 0.0, -1.0, 0.0)) * cfg.win_bonus
            rewards[idx] += bonus.astype(np.float32)
        for j, i in enumerate(idx):
            w = self.window[self.kinds[self.env_kind[i]]]
            w.append(float(score[j]))
            if len(w) > 2000:
                del w[: len(w) - 2000]
        self.episodes += idx.size

    def collect(self, T: int | None = None, teacher_plays: bool = False, progress: Progress | None = None):
        """Play ``T`` learner decisions in every record (``rollout`` by default) and return the batch with
        advantages and returns. With ``teacher_plays`` the teacher bot decides in the learner's seat (for
        behaviour cloning): no policy is run, values are 0, so the returns are Monte Carlo returns.
        ``progress`` (a `Progress` over ``T * num_envs`` decisions) is updated after every step."""
        torch, cfg, run, n = self.torch, self.cfg, self.run, self.n
        T = cfg.rollout if T is None else int(T)
        obs_b = np.zeros((T, n, self.obs_size), np.float32)
        mask_b = np.zeros((T, n, self.A), np.bool_)
        act_b = np.zeros((T, n), np.int64)
        logp_b = np.zeros((T, n), np.float32)
        val_b = np.zeros((T + 1, n), np.float32)
        rew_b = np.zeros((T, n), np.float32)
        done_b = np.zeros((T, n), np.float32)
        teach = teacher_plays or self.imitation_weight() > 0
        lab_b = np.zeros((T, n), np.int64) if teach else None
        all_idx = np.arange(n, dtype=np.int64)
        ar = np.arange(n)
        d0 = run.decisions
        for t in range(T):
            if progress is not None:
                progress.update(t * n, "collecting the teacher's decisions")
            run.observe(all_idx, self.seats, obs_b[t])
            mask_b[t] = run.masks.astype(bool)
            if teach:  # what the teacher bot would do in the learner's place (its own view only)
                lab_b[t] = run.decide(self.teacher_pid, all_idx, self.seats)
            if teacher_plays:
                acts = act_b[t] = lab_b[t]
            else:
                with torch.no_grad():
                    logits, v = self.net(torch.from_numpy(obs_b[t]))
                    logits = mask_logits(logits, torch.from_numpy(mask_b[t]))
                    logp_all = torch.log_softmax(logits, -1)
                    a = torch.multinomial(logp_all.exp(), 1).squeeze(-1)
                    logp = logp_all.gather(1, a[:, None]).squeeze(-1)
                acts = a.numpy()
                act_b[t], logp_b[t], val_b[t] = acts, logp.numpy(), v.numpy()
            run.apply(all_idx, acts)
            run.play()
            r_all = run.rewards[:, : self.np].astype(np.float64)
            run.rewards[:] = 0
            self.ep_ret[:, : self.np] += r_all
            self.ep_len += 1
            r = r_all[ar, self.seats]
            if cfg.reward == "diff" and self.np > 1:
                r = r - (r_all.sum(axis=1) - r) / (self.np - 1)
            r = (r * cfg.reward_scale).astype(np.float32)
            done = run.status != 0
            if done.any():
                idx = np.flatnonzero(done)
                self._episode_end(idx, r)
                self._assign(idx)
            rew_b[t], done_b[t] = r, done
        if not teacher_plays:
            obs_last = run.observe(all_idx, self.seats)
            with torch.no_grad():
                val_b[T] = self.net(torch.from_numpy(obs_last))[1].numpy()
            self.steps += n * T
            self.decisions += run.decisions - d0
        # GAE (with the values all 0 and lambda 1: discounted Monte Carlo returns)
        lam = 1.0 if teacher_plays else cfg.lam
        adv = np.zeros((T, n), np.float32)
        last = np.zeros(n, np.float32)
        for t in range(T - 1, -1, -1):
            nonterm = 1.0 - done_b[t]
            delta = rew_b[t] + cfg.gamma * val_b[t + 1] * nonterm - val_b[t]
            last = delta + cfg.gamma * lam * nonterm * last
            adv[t] = last
        ret = adv + val_b[:T]
        out = dict(obs=obs_b.reshape(T * n, -1), mask=mask_b.reshape(T * n, -1), act=act_b.reshape(-1),
                   logp=logp_b.reshape(-1), adv=adv.reshape(-1), ret=ret.reshape(-1))
        if teach:
            out["label"] = lab_b.reshape(-1)
        return out

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
        rows = []
        for ep in range(int(cfg.pretrain_epochs)):
            perm = tr_idx[torch.randperm(tr_idx.numel())]
            tot = {"loss": 0.0, "v_loss": 0.0}
            count = 0
            for s in range(0, perm.numel(), mb):
                j = perm[s: s + mb]
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
            with torch.no_grad():
                logits, _ = self.net(obs[ho_idx])
                agree = float((mask_logits(logits, mask[ho_idx]).argmax(-1) == label[ho_idx]).float().mean())
            row = {"epoch": ep + 1, "samples": int(N), "loss": round(tot["loss"] / max(1, count), 5),
                   "v_loss": round(tot["v_loss"] / max(1, count), 5), "heldout_agree": round(agree, 4)}
            rows.append(row)
            self.pretrain_timing["epochs_s"].append(round(time.perf_counter() - t0, 1))
            if cfg.progress:
                print(f"pretrain epoch {ep + 1}/{cfg.pretrain_epochs}: imitation loss {row['loss']:.3f}, "
                      f"agreement with {cfg.imitate} {100 * agree:.1f}% (held out)", file=sys.stderr)
        self.pretrain_timing["collect_s"] = round(t_collect, 1)
        # the policy snapshots start from the pretrained policy
        for slot in range(len(self.pool_pids)):
            self._snapshot(slot)
        # PPO starts with fresh optimizer moments
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        self._assign(np.arange(self.n))
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

    def evaluate(self, games: int) -> dict:
        pol = self.policy()
        return {b: duplicate_eval(self.game, pol, b, games=games, seed=self.cfg.eval_seed, **self.eval_rules)
                for b in self.bots()}

    # ------------------------------------------------------- checkpointing
    # A checkpoint is one folder, OUT/checkpoint/: state.pt (weights, optimizer, generators, pool,
    # counters), env.npz (every game record and the per-record bookkeeping) and manifest.json (the
    # iteration and the sha256 of both files). It is written whole under a temporary name and renamed
    # into place, the previous one kept as checkpoint.prev until then, so a crash at any moment leaves
    # at least one complete checkpoint, and a torn one is recognised by its hashes. Hand-written with
    # os.replace: renaming a folder is atomic on POSIX file systems, and no maintained library offers an
    # atomic multi-file write (atomicwrites, now unmaintained, did single files only).
    def _checkpoint_arrays(self) -> dict:
        return dict(states=self.run.states, masks=self.run.masks, seat_player=self.run.seat_player,
                    seats=self.seats, env_kind=self.env_kind, ep_ret=self.ep_ret, ep_len=self.ep_len)

    def save_checkpoint(self):
        torch = self.torch
        pol = {"format": FORMAT, "meta_json": json.dumps({**self.meta(), "obs_size": self.obs_size,
                                                           "num_actions": self.A,
                                                           "hidden": list(self.cfg.hidden)}, sort_keys=True),
               "state_dict": {k: v.clone() for k, v in self.net.state_dict().items()}}
        bg = self.rng.bit_generator.state
        data = {
            "policy": pol,
            "optimizer": self.opt.state_dict(),
            "config_json": json.dumps(dataclasses.asdict(self.cfg), sort_keys=True),
            "counters": [self.iteration, self.steps, self.decisions, self.episodes, self.pool_next],
            "torch_rng": torch.get_rng_state(),
            "np_rng_json": json.dumps(bg),
            "pool": [s for s, _ in self.pool_states],
            "pool_seeds": [sd for _, sd in self.pool_states],
            "pool_gen": [self.run.players[p]._gen.get_state() for p in self.pool_pids],
            "window_json": json.dumps(self.window),
            "eval_json": json.dumps(self.eval_history),
            "pretrain_json": json.dumps(self.pretrain_log),
        }
        main, prev = self.out / CHECKPOINT_DIR, self.out / (CHECKPOINT_DIR + ".prev")
        tmp = self.out / f"{CHECKPOINT_DIR}.tmp-{os.getpid()}"
        with _writing(main):
            self.out.mkdir(parents=True, exist_ok=True)
            for old in self.out.glob(f"{CHECKPOINT_DIR}.tmp-*"):  # left by a crashed save
                shutil.rmtree(old, ignore_errors=True)
            try:
                self._write_checkpoint(tmp, main, prev, data)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)
                raise

    def _write_checkpoint(self, tmp: Path, main: Path, prev: Path, data: dict):
        """Write the checkpoint folder under ``tmp``, then swap it in for ``main`` (see above)."""
        torch = self.torch
        tmp.mkdir()
        files = {}
        with open(tmp / CHECKPOINT_STATE, "wb") as f:
            torch.save(data, f)
            _sync(f)
        with open(tmp / CHECKPOINT_ENV, "wb") as f:
            np.savez(f, **self._checkpoint_arrays())
            _sync(f)
        for name in (CHECKPOINT_STATE, CHECKPOINT_ENV):
            files[name] = {"sha256": _sha256(tmp / name), "bytes": (tmp / name).stat().st_size}
        manifest = {"format": CHECKPOINT_FORMAT, "iteration": self.iteration, "steps": self.steps,
                    "files": files}
        with open(tmp / CHECKPOINT_MANIFEST, "w") as f:
            f.write(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
            _sync(f)
        _sync_dir(tmp)
        if main.exists():
            if prev.exists():
                shutil.rmtree(prev)
            os.replace(main, prev)
        os.replace(tmp, main)
        _sync_dir(self.out)
        if prev.exists():
            shutil.rmtree(prev)

    def _read_checkpoint(self, folder: Path) -> tuple:
        """``(data, env)`` of a checkpoint folder whose manifest, hashes and files all check out; a
        `CheckpointError` saying what is wrong otherwise."""
        torch = self.torch
        try:
            manifest = json.loads((folder / CHECKPOINT_MANIFEST).read_text())
        except FileNotFoundError:
            raise CheckpointError(f"{folder} has no {CHECKPOINT_MANIFEST} (written last: the save did not end)") from None
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"{folder / CHECKPOINT_MANIFEST} is unreadable ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"{folder / CHECKPOINT_MANIFEST} is not a {CHECKPOINT_FORMAT} manifest")
        files = manifest.get("files")
        for name in (CHECKPOINT_STATE, CHECKPOINT_ENV):
            entry = files.get(name) if isinstance(files, dict) else None
            if not isinstance(entry, dict):
                raise CheckpointError(f"{folder / CHECKPOINT_MANIFEST} does not list {name}")
            path = folder / name
            if not path.is_file():
                raise CheckpointError(f"{path} is missing")
            if _sha256(path) != entry.get("sha256"):
                raise CheckpointError(f"{path} does not match the sha256 of the manifest (torn or truncated file)")
        try:
            data = torch.load(folder / CHECKPOINT_STATE, map_location="cpu", weights_only=True)
            if not isinstance(data, dict) or not isinstance(data.get("counters"), list):
                raise ValueError("not a trainer state")
        except Exception as exc:  # torch raises many types for a bad file
            raise CheckpointError(f"{folder / CHECKPOINT_STATE} cannot be read ({type(exc).__name__}: {exc})") from None
        if data["counters"][:1] != [manifest.get("iteration")]:
            raise CheckpointError(f"{folder / CHECKPOINT_STATE} is of iteration {data['counters'][:1]}, the manifest "
                                  f"says {manifest.get('iteration')}")
        env = _read_npz(folder / CHECKPOINT_ENV)
        return data, env

    def _find_checkpoint(self) -> tuple:
        """The newest complete checkpoint in ``out``: ``checkpoint/``, else ``checkpoint.prev/`` (the one
        a save was replacing when it stopped; said on stderr), else the two files of older versions
        (``checkpoint.pt`` + ``checkpoint_env.npz``, which cannot be verified; said on stderr)."""
        main, prev = self.out / CHECKPOINT_DIR, self.out / (CHECKPOINT_DIR + ".prev")
        problems = []
        for folder in (main, prev):
            if not folder.exists():
                continue
            try:
                data, env = self._read_checkpoint(folder)
            except CheckpointError as exc:
                problems.append(str(exc))
                continue
            if folder == prev:
                why = "; ".join(problems) if problems else f"{main} is missing (a save stopped between two renames)"
                print(f"warning: the last checkpoint is unusable ({why}); resuming from the previous complete "
                      f"checkpoint {folder} (iteration {data['counters'][0]})", file=sys.stderr)
            return data, env
        legacy_pt, legacy_env = self.out / "checkpoint.pt", self.out / "checkpoint_env.npz"
        if not problems and legacy_pt.is_file() and legacy_env.is_file():
            print(f"warning: resuming from {legacy_pt} + {legacy_env}, a checkpoint of an older cardgym that "
                  "cannot be checked for a torn write", file=sys.stderr)
            try:
                data = self.torch.load(legacy_pt, map_location="cpu", weights_only=True)
            except Exception as exc:
                raise CheckpointError(f"{legacy_pt} cannot be read ({type(exc).__name__}: {exc})") from None
            return data, _read_npz(legacy_env)
        if problems:
            raise CheckpointError(f"--resume: no usable checkpoint in {self.out}: {'; '.join(problems)}. Start a "
                                  f"new run without --resume (it overwrites the outputs in {self.out}) or with "
                                  "another --out")
        raise CheckpointError(f"--resume: there is no checkpoint in {self.out} (expected {main}/). To start a new "
                              f"run, drop --resume (it writes its outputs in {self.out}) or pass another --out")

    def _validate_env_states(self, env: dict, num_players: int):
        """Check the game records and bookkeeping arrays of a checkpoint before the compiled kernels see
        them (they do no bounds checks): names, shapes and dtypes as this run builds them, seats, opponent
        kinds and players in range, every game record through the game's validator
        (`GameSpec.validate_records`) and the saved masks equal to the ones the rules give those records
        (a tampered mask would let an illegal action reach the kernels)."""
        want = self._checkpoint_arrays()
        if set(env) != set(want):
            raise CheckpointError(f"{self.out / CHECKPOINT_DIR / CHECKPOINT_ENV} holds {sorted(env)}, expected {sorted(want)}")
        for k, a in want.items():
            if env[k].shape != a.shape or env[k].dtype != a.dtype:
                raise CheckpointError(f"{self.out / CHECKPOINT_DIR / CHECKPOINT_ENV}: {k} has shape {env[k].shape} and "
                                      f"dtype {env[k].dtype}, this run needs {a.shape} {a.dtype}")
        ranges = {"seats": (0, self.np - 1), "env_kind": (0, len(self.kinds) - 1),
                  "seat_player": (EXTERNAL, num_players - 1), "masks": (0, 1)}
        for k, (lo, hi) in ranges.items():
            if env[k].size and (env[k].min() < lo or env[k].max() > hi):
                raise CheckpointError(f"{self.out / CHECKPOINT_DIR / CHECKPOINT_ENV}: {k} holds values outside {lo}..{hi}")
        where = self.out / CHECKPOINT_DIR / CHECKPOINT_ENV
        # in the run's own dtype object: a loaded npz drops the aligned-struct flag, which numba types apart
        states = np.empty(env["states"].shape, self.run.states.dtype)  # (np.array would keep the npz's dtype)
        states[...] = env["states"]
        try:
            self.game.validate_records(states, self.rules)
        except ValueError as exc:
            raise CheckpointError(f"{where}: {exc}") from None
        masks = np.zeros_like(env["masks"])
        self.run.c.batch_legal(states, self.run.params, masks)
        if not np.array_equal(masks, env["masks"]):
            bad = int(np.flatnonzero((masks != env["masks"]).any(axis=1))[0])
            raise CheckpointError(f"{where}: masks[{bad}] is not the legal-action mask of records[{bad}]")

    # settings the saved games, snapshot pool and network depend on: a resume must keep them
    RESUME_KEYS = ("game", "rules", "num_envs", "opponents", "hidden", "observation", "pool_size", "seat")

    def load_checkpoint(self):
        torch = self.torch
        data, env = self._find_checkpoint()
        saved = json.loads(data["config_json"])
        now = json.loads(json.dumps(dataclasses.asdict(self.cfg)))
        changed = [k for k in self.RESUME_KEYS if saved.get(k) != now.get(k)]
        if changed:
            detail = ", ".join(f"{k}: {saved.get(k)!r} -> {now.get(k)!r}" for k in changed)
            raise ValueError(
                f"--resume must keep the settings the checkpoint's games and networks were built with; "
                f"changed: {detail}. To train on from this agent with new settings, start a new run with "
                f"--init {self.out / 'model.pt'}"
            )
        # the players the pool rebuilt below will have: bots and teacher, then one per saved snapshot
        self._validate_env_states(env, len(self.run.players) - len(self.pool_pids) + len(data["pool"]))
        self.net.load_state_dict(data["policy"]["state_dict"])
        self.opt.load_state_dict(data["optimizer"])
        self.iteration, self.steps, self.decisions, self.episodes, self.pool_next = data["counters"]
        self.rng.bit_generator.state = json.loads(data["np_rng_json"])
        # rebuild the pool in its saved order
        self.run.players, self.run._kinds = [], []
        self.bot_pid = {k: self.run.add_player(k) for k in self.kinds if k != "self"}
        self._add_teacher()
        self.pool_pids, self.pool_states = [], []
        for state, seed, gen in zip(data["pool"], data["pool_seeds"], data["pool_gen"]):
            pol = self._policy_copy(seed, state)
            pol._gen.set_state(gen)
            self.pool_pids.append(self.run.add_player(pol))
            self.pool_states.append((state, seed))
        self.window = json.loads(data["window_json"])
        self.eval_history = json.loads(data["eval_json"])
        # (checkpoints of older versions kept wall-clock times in the pretraining log)
        self.pretrain_log = [{k: v for k, v in row.items() if k not in ("elapsed_s", "collect_s")}
                             for row in json.loads(data.get("pretrain_json", "[]"))]
        # last: building the pool's networks above draws initial weights from torch's generator
        torch.set_rng_state(data["torch_rng"])
        self.run.states[:] = env["states"]
        self.run.masks[:] = env["masks"]
        self.run.seat_player[:] = env["seat_player"]
        self.seats[:], self.env_kind[:] = env["seats"], env["env_kind"]
        self.ep_ret[:], self.ep_len[:] = env["ep_ret"], env["ep_len"]

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
            self._assign(np.arange(self.n))
            if cfg.pretrain_steps > 0:
                self.pretrain_log = self.pretrain()
        bar = Progress(iters * self.n * cfg.rollout, cfg.progress)
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
            row["rollout_s"], row["update_s"] = round(t1 - t0, 3), round(t2 - t1, 3)
            row["steps_per_s"] = round(self.n * cfg.rollout / (t2 - t0))
            last = self.iteration == iters
            if cfg.eval_every and (self.iteration % cfg.eval_every == 0 or last or self.iteration == 1):
                bar.update(self.steps, f"evaluating against {', '.join(self.bots())}…", force=True)
                ev = self.evaluate(cfg.eval_games)
                self.eval_history.append({"steps": self.steps, **{b: r["win_rate"] for b, r in ev.items()}})
                for b, r in ev.items():
                    row[f"eval_{b}"] = r["win_rate"]
                bar.update(self.steps, "evaluation: " + " ".join(f"{b} {r['win_rate']:.0%}" for b, r in ev.items()),
                           force=True)
            rows.append(row)
            self._write_log(log_path, rows)
            text = " ".join(f"{k}:{row[f'train_win_{k}']}" for k in self.kinds if row[f"train_win_{k}"] != "")
            bar.update(self.steps, f"{row['steps_per_s'] / 1e3:.0f}k st/s win {text}", force=last)
            if cfg.checkpoint_every and (self.iteration % cfg.checkpoint_every == 0 or last):
                self.save_checkpoint()
        bar.close()
        wall = time.perf_counter() - t_start
        t_final = time.perf_counter()
        with _writing(self.out / "model.pt"):
            save_policy(self.out / "model.pt", self.policy().net, self.meta())
        final = {b: duplicate_eval(self.game, self.policy(), b, games=cfg.final_eval_games,
                                   seed=cfg.eval_seed + 10_000_000, **self.eval_rules) for b in self.bots()}
        config = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in ("out", "progress")}
        results = {"game": cfg.game, "config": config, "steps": int(self.steps),
                   "decisions": int(self.decisions), "episodes": int(self.episodes),
                   "final_eval": final, "eval_history": self.eval_history, "pretrain": self.pretrain_log}
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


# ------------------------------------------------------------------ command line
def _value(s: str):
    for cast in (int, float):
        try:
            return cast(s)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(s.lower(), s)


class _RuleFlag(argparse.Action):
    """A rule option given as its own flag (``--stock-size 10``): appended to ``--rule`` as
    ``"stock_size=10"``, so both spellings reach the trainer the same way."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.rule = list(getattr(namespace, "rule", None) or []) + [f"{self.dest}={values}"]


def build_parser():
    import cardgym

    from ..cli_options import HelpFormatter, _show, flag

    d = Config()

    def preset(key, fmt=str):
        vals = {g: fmt(PRESETS[g][key]) for g in PRESETS if key in PRESETS[g]}
        if len(set(vals.values())) == 1:
            return f"default: {next(iter(vals.values()))} (the presets)"
        return "default: the game's preset: " + ", ".join(f"{g} {v}" for g, v in vals.items())

    num = lambda v: f"{v:g}"  # noqa: E731
    p = argparse.ArgumentParser(
        prog="cardgym train", description="Train a masked PPO agent on a cardgym game.",
        formatter_class=HelpFormatter,
        epilog="Each game has a preset (PRESETS in cardgym/train/ppo.py, described in docs/training.md): clone\n"
               "the expert bot, then PPO. Every flag given overrides the preset; --imitate '' --pretrain-steps 0\n"
               "trains with pure PPO. Rule options: --rule KEY=VALUE (any option, e.g. --rule reward=score) or\n"
               "the option's own flag (--stock-size 10); --reward is the trainer's reward shaping.\n\n"
               "examples:\n"
               "  cardgym train skyjo --out runs/skyjo\n"
               "  cardgym train skipbo_junior --steps 1e6 --imitate '' --pretrain-steps 0 --out runs/junior\n")
    p.add_argument("game", choices=sorted(cardgym.GAMES))
    p.add_argument("--steps", type=float, default=None,
                   help=f"learner decisions to train, e.g. 3e7 ({preset('total_steps', num)})")
    p.add_argument("--out", default=None, help="output folder (default: runs/GAME)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--envs", type=int, default=d.num_envs, help="games stepped as one batch")
    p.add_argument("--rollout", type=int, default=d.rollout, help="steps per game per iteration")
    p.add_argument("--epochs", type=int, default=None, help=f"PPO epochs per iteration ({preset('epochs')})")
    p.add_argument("--minibatch", type=int, default=None, help=f"PPO minibatch (default: {d.minibatch})")
    p.add_argument("--lr", type=float, default=None, help=f"learning rate ({preset('lr', num)})")
    p.add_argument("--ent-coef", type=float, default=None, help=f"entropy bonus (default: {d.ent_coef:g})")
    p.add_argument("--gamma", type=float, default=d.gamma, help="discount")
    p.add_argument("--hidden", default=None, metavar="N,N",
                   help="hidden layer sizes (default: skyjo 256,256, skipbo and skipbo_junior 512,512)")
    p.add_argument("--opponents", default=None, metavar="MIX",
                   help=f"mixture of bots and self (snapshots), e.g. greedy:0.5,random:0.1,self:0.4 "
                        f"({preset('opponents')})")
    p.add_argument("--pool-size", type=int, default=d.pool_size, help="snapshots kept for self-play")
    p.add_argument("--snapshot-every", type=int, default=d.snapshot_every, help="iterations between snapshots")
    p.add_argument("--seat", default=d.seat, help="the learner's seat: random or a seat number")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=None, metavar="N",
                   help="players per game (default: 2)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option, repeatable (default: the game's rules; skyjo's preset sets reward=score)")
    p.add_argument("--reward", choices=["env", "diff"], default=None,
                   help="env: the game's reward; diff: own reward minus the others' mean (default: skyjo diff, "
                        "else env)")
    p.add_argument("--reward-scale", type=float, default=None, help="default: skyjo 0.02, else 1")
    p.add_argument("--win-bonus", type=float, default=None,
                   help="+b/-b at the end for best/not best total reward (default: skyjo 1, else 0)")
    p.add_argument("--imitate", default=None, metavar="BOT",
                   help=f"also learn this bot's choices on the learner's own states; '' for none "
                        f"({preset('imitate')})")
    p.add_argument("--imitate-coef", type=float, default=None,
                   help=f"imitation loss weight at the start ({preset('imitate_coef', num)})")
    p.add_argument("--imitate-steps", type=float, default=None,
                   help=f"learner steps over which the imitation weight falls linearly to 0, 0: constant "
                        f"({preset('imitate_steps', num)})")
    p.add_argument("--init", default="", metavar="MODEL",
                   help="start from a saved model's weights (e.g. runs/skyjo/model.pt) instead of random ones")
    p.add_argument("--pretrain-steps", type=float, default=None,
                   help=f"behaviour cloning before PPO: teacher (--imitate) decisions to learn from "
                        f"({preset('pretrain_steps', num)})")
    p.add_argument("--pretrain-epochs", type=int, default=None,
                   help=f"epochs over the cloning data ({preset('pretrain_epochs')})")
    p.add_argument("--pretrain-minibatch", type=int, default=None,
                   help=f"cloning minibatch (default: {d.pretrain_minibatch})")
    p.add_argument("--eval-every", type=int, default=d.eval_every,
                   help="iterations between evaluations (0: none; curve.png needs at least one)")
    p.add_argument("--eval-games", type=int, default=d.eval_games, help="duplicate games per bot per evaluation")
    p.add_argument("--final-eval-games", type=int, default=d.final_eval_games,
                   help="duplicate games per bot at the end")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every, help="iterations between checkpoints")
    p.add_argument("--threads", type=int, default=d.threads, help="torch threads")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in OUT (OUT/checkpoint/; a torn one falls back to OUT/checkpoint.prev/)")
    p.add_argument("--no-anneal-lr", action="store_true",
                   help="constant learning rate (the default anneals it to 0 over --steps, so a run resumed "
                        "with a larger --steps follows a different schedule than one planned that long)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    # every game's rule options as flags (the trainer's own --reward and --num-players keep their meaning)
    from ..cli_options import option_help, rule_defaults

    group = p.add_argument_group("rule options (cardgym rules GAME explains them; values: numbers, true/false, text)")
    found: dict = {}
    for name in sorted(cardgym.GAMES):
        rules_cls = cardgym.get_game(name).rules_cls
        helps, defaults = option_help(rules_cls), rule_defaults(rules_cls)
        for opt in defaults:
            if opt not in ("reward", "num_players"):
                found.setdefault(opt, []).append((name, defaults[opt], helps.get(opt, "")))
    for opt, uses in found.items():
        where = ", ".join(f"{g} {_show(dflt)}" for g, dflt, _ in uses)
        group.add_argument(flag(opt), dest=opt, action=_RuleFlag, default=argparse.SUPPRESS,
                           metavar="VALUE", help=f"{uses[0][2]} (default: {where})".replace("%", "%%"))
    return p


# flags a game's preset may set: Config field -> argparse dest (None on the command line = not given)
_PRESET_FLAGS = {"opponents": "opponents", "reward": "reward", "reward_scale": "reward_scale",
                 "win_bonus": "win_bonus", "total_steps": "steps", "imitate": "imitate",
                 "imitate_coef": "imitate_coef", "imitate_steps": "imitate_steps",
                 "pretrain_steps": "pretrain_steps", "pretrain_epochs": "pretrain_epochs",
                 "pretrain_minibatch": "pretrain_minibatch", "lr": "lr",
                 "epochs": "epochs", "ent_coef": "ent_coef", "minibatch": "minibatch"}
_INT_FIELDS = {f.name for f in dataclasses.fields(Config) if f.type in ("int", int)}


def config_from_args(argv) -> tuple:
    """``(Config, resume)`` from command-line arguments: the defaults, then the game's preset
    (`PRESETS`), then every flag given explicitly."""
    a = build_parser().parse_args(argv)
    preset = dict(PRESETS.get(a.game, {}))
    rules = dict(preset.pop("rules", {}))
    for kv in a.rule:
        k, sep, v = kv.partition("=")
        if not sep:
            raise SystemExit(f"--rule needs KEY=VALUE, got {kv!r}")
        rules[k.strip()] = _value(v.strip())
    if a.players:
        rules["num_players"] = a.players
    cfg = Config(game=a.game, rules=rules, out=a.out or f"runs/{a.game}", seed=a.seed,
                 num_envs=a.envs, rollout=a.rollout, gamma=a.gamma,
                 hidden=(tuple(int(h) for h in a.hidden.split(",") if h) if a.hidden
                         else tuple(preset.get("hidden", Config.hidden))),
                 pool_size=a.pool_size, snapshot_every=a.snapshot_every, seat=a.seat,
                 eval_every=a.eval_every, eval_games=a.eval_games, final_eval_games=a.final_eval_games,
                 checkpoint_every=a.checkpoint_every, threads=a.threads, progress=not a.no_progress,
                 anneal_lr=not a.no_anneal_lr, init=a.init)
    for key, dest in _PRESET_FLAGS.items():
        value = getattr(a, dest)
        if value is None:
            value = preset.get(key, getattr(cfg, key))
        setattr(cfg, key, int(value) if key in _INT_FIELDS else value)
    return cfg, a.resume


def main(argv=None) -> int:
    """``cardgym train GAME [options]`` (see ``--help``)."""
    cfg, resume = config_from_args(sys.argv[1:] if argv is None else list(argv))
    import cardgym

    if cfg.game not in cardgym.GAMES:
        raise SystemExit(f"unknown game {cfg.game!r}; games: {sorted(cardgym.GAMES)}")
    tr = Trainer(cfg)
    print(f"training {cfg.game} ({tr.np} players) for {cfg.total_steps:,} learner steps "
          f"on {cfg.num_envs} games, opponents {cfg.opponents}; output in {cfg.out}", file=sys.stderr)
    try:
        res = tr.train(resume=resume)
    except (CheckpointError, OutputError) as exc:
        raise SystemExit(f"cardgym train: error: {exc}") from None
    t = res["timing"]
    print(f"done in {t['total_s'] / 60:.1f} min: {res['steps']:,} PPO learner steps "
          f"({t['steps_per_s']:,} steps/s, {t['decisions_per_s']:,} decisions/s incl. opponents)"
          + (f" after {t['pretrain_s'] / 60:.1f} min of behaviour cloning" if t["pretrain_s"] else ""))
    for b, r in res["final_eval"].items():
        print(format_result(b, r))
    print(f"model: {Path(cfg.out) / 'model.pt'}  results: {Path(cfg.out) / 'results.json'}")
    return 0
