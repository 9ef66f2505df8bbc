"""Checkpoints of the built-in trainer: one folder, ``OUT/checkpoint/``, written whole and verified on
``--resume``; and the errors a run's outputs can raise."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np

from ..agents import CHECKPOINT_STATE, FORMAT, archive_damage
from cardgym.core.envs.episodes import EXTERNAL

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


class CheckpointMixin:
    """The checkpoint methods of `cardgym.train.ppo.Trainer`."""

    # A checkpoint is one folder, OUT/checkpoint/: state.pt (weights, optimizer, generators, pool,
    # counters), env.npz (every game record and the per-record bookkeeping) and manifest.json (the
    # iteration and the sha256 of both files). It is written whole under a temporary name and renamed
    # into place, the previous one kept as checkpoint.prev until then, so a crash at any moment leaves
    # at least one complete checkpoint, and a torn one is recognised by its hashes. Hand-written with
    # os.replace: renaming a folder is atomic on POSIX file systems, and no maintained library offers an
    # atomic multi-file write (atomicwrites, now unmaintained, did single files only).
    def _checkpoint_arrays(self) -> dict:
        drv = self.vec.driver
        return dict(states=drv.states, masks=drv.masks, seat_player=drv.seat_player,
                    seats=self.seats, env_kind=self.env_kind, ep_ret=self.ep_ret, ep_len=self.ep_len)

    def save_checkpoint(self):
        torch = self.torch
        pol = {"format": FORMAT, "meta_json": json.dumps({**self.meta(), "obs_size": self.obs_size,
                                                           "num_actions": self.A,
                                                           "hidden": list(self.cfg.hidden)}, sort_keys=True),
               "state_dict": {k: v.clone() for k, v in self.net.state_dict().items()}}
        bg = self.rng.bit_generator.state
        # who plays what (a replaced snapshot plays on in the games it started): the env's opponent table,
        # with every snapshot it holds as weights, seed and generator state
        table = self.vec._opponent_table()
        players, snaps = [], []
        for pid, p in enumerate(table["players"]):
            if p is None or isinstance(p, str):
                players.append(p)
            else:
                oid = table["pid_id"][pid]
                state, seed = self.snaps[oid]
                players.append(int(oid))
                snaps.append([int(oid), state, int(seed), p._gen.get_state()])
        table = {**table, "players": players}
        data = {
            "policy": pol,
            "optimizer": self.opt.state_dict(),
            "config_json": json.dumps(dataclasses.asdict(self.cfg), sort_keys=True),
            "counters": [self.iteration, self.steps, self.decisions, self.episodes, self.pool_next],
            "torch_rng": torch.get_rng_state(),
            "np_rng_json": json.dumps(bg),
            "pool": [s for s, _ in self.pool_states],
            "pool_seeds": [sd for _, sd in self.pool_states],
            "pool_gen": [self.vec.opponents[p]._gen.get_state() for p in self.pool_pids],
            "window_json": json.dumps(self.window),
            "opponents_json": json.dumps(table),
            "snaps": snaps,
            "opponent_stats_json": json.dumps({"kind": self.opp_kind, "stats": self.opponent_stats}),
            "eval_json": json.dumps(self.eval_history),
            "pretrain_json": json.dumps(self.pretrain_log),
            "teacher_agreement_json": json.dumps(self.teacher_agreement),
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
        except (OSError, ValueError, RecursionError) as exc:
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
            damage = archive_damage(legacy_pt)  # no manifest hash here: at least the archive's own CRCs
            if damage is not None:
                raise CheckpointError(f"{legacy_pt} cannot be read ({damage})")
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
        states = np.empty(env["states"].shape, self.vec.driver.states.dtype)  # (np.array would keep the npz's dtype)
        states[...] = env["states"]
        try:
            self.game.validate_records(states, self.rules)
        except ValueError as exc:
            raise CheckpointError(f"{where}: {exc}") from None
        masks = np.zeros_like(env["masks"])
        self.vec.driver.c.batch_legal(states, self.vec.driver.params, masks)
        if not np.array_equal(masks, env["masks"]):
            bad = int(np.flatnonzero((masks != env["masks"]).any(axis=1))[0])
            raise CheckpointError(f"{where}: masks[{bad}] is not the legal-action mask of records[{bad}]")

    def _load_players(self, table: dict, snaps: list, seat_player, stats_json: str):
        """Restore the env's opponent table of a checkpoint: bots by name, every snapshot (in the pool or
        replaced but still playing) from its saved weights, seed and generator state."""
        where = self.out / CHECKPOINT_DIR / CHECKPOINT_STATE
        pols, self.snaps = {}, {}
        for oid, state, seed, gen in snaps:
            pol = self._policy_copy(seed, state)
            pol._gen.set_state(gen)
            pols[int(oid)], self.snaps[int(oid)] = pol, (state, int(seed))
        players = []
        for p in table["players"]:
            if p is not None and not isinstance(p, str) and p not in pols:
                raise CheckpointError(f"{where}: the opponent table names snapshot {p!r}, which it does not hold")
            players.append(pols[p] if isinstance(p, int) else p)
        try:
            self.vec._load_opponent_table({**table, "players": players}, seat_player)
        except ValueError as exc:
            raise CheckpointError(f"{where}: {exc}") from None
        if any(not isinstance(self.vec.opponents[pid], str) or self.vec.opponents[pid] != k
               for k, pid in self.bot_pid.items()):
            raise CheckpointError(f"{where}: the opponent table's bots are not this run's {sorted(self.bot_pid)}")
        saved = json.loads(stats_json)
        self.opp_kind = {int(k): v for k, v in saved["kind"].items()}
        self.opponent_stats = {int(k): v for k, v in saved["stats"].items()}

    # settings the saved games, snapshot pool and network depend on: a resume must keep them
    RESUME_KEYS = ("game", "rules", "num_envs", "opponents", "hidden", "observation", "pool_size", "seat", "imitate")

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
        # the players the pool rebuilt below will have: bots and teacher, then one per saved snapshot (and,
        # in checkpoints that save the env's opponent table, the replaced snapshots still playing)
        table = json.loads(data["opponents_json"]) if "opponents_json" in data else None
        self._validate_env_states(env, len(table["players"]) if table is not None
                                  else len(self.vec.opponents) - len(self.pool_pids) + len(data["pool"]))
        self.net.load_state_dict(data["policy"]["state_dict"])
        self.opt.load_state_dict(data["optimizer"])
        self.iteration, self.steps, self.decisions, self.episodes, self.pool_next = data["counters"]
        self.rng.bit_generator.state = json.loads(data["np_rng_json"])
        # rebuild the pool in its saved order (the opponents before it, bots and teacher, stay)
        pids, self.pool_pids, self.pool_states = self.pool_pids, [], []
        for j, (state, seed, gen) in enumerate(zip(data["pool"], data["pool_seeds"], data["pool_gen"])):
            pol = self._policy_copy(seed, state)
            pol._gen.set_state(gen)
            if j < len(pids):
                self.vec.set_opponent(pids[j], pol)
                self.pool_pids.append(pids[j])
            else:
                self.pool_pids.append(self.vec.add_opponent(pol))
            self.pool_states.append((state, seed))
        if table is not None:
            self._load_players(table, data["snaps"], env["seat_player"], data["opponent_stats_json"])
        else:  # a checkpoint of an older version: one player per opponent, the pool's snapshots
            self.snaps = {self.vec.opponent_ids[p]: st for p, st in zip(self.pool_pids, self.pool_states)}
            self.opp_kind.update({i: self.kinds.index("self") for i in self.snaps})
        self.window = json.loads(data["window_json"])
        self.eval_history = json.loads(data["eval_json"])
        # (checkpoints of older versions kept wall-clock times in the pretraining log)
        self.pretrain_log = [{k: v for k, v in row.items() if k not in ("elapsed_s", "collect_s")}
                             for row in json.loads(data.get("pretrain_json", "[]"))]
        self.teacher_agreement = json.loads(data.get("teacher_agreement_json", "[]"))
        # last: building the pool's networks above draws initial weights from torch's generator
        torch.set_rng_state(data["torch_rng"])
        self.obs = self.vec.load_records(env["states"], env["seats"], env["seat_player"])
        self.env_kind[:] = env["env_kind"]
        self.ep_ret[:], self.ep_len[:] = env["ep_ret"], env["ep_len"]
