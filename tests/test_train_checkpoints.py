"""The trainer's checkpoint is one unit: a save stopped at any point leaves a complete checkpoint to resume
from (ending on the uninterrupted run's bits), a torn one is detected, ``--resume`` without one is refused,
and a full disk gives an error naming the path. Also: ``results.json`` holds no wall-clock time."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import cardgym.train.checkpoints as checkpoints  # noqa: E402
from cardgym.train import main  # noqa: E402
from cardgym.train.checkpoints import CheckpointError  # noqa: E402
from cardgym.train.config import Config  # noqa: E402
from cardgym.train.ppo import Trainer  # noqa: E402

TINY = ["--envs", "16", "--rollout", "16", "--minibatch", "128", "--epochs", "1", "--hidden", "32",
        "--eval-every", "1", "--eval-games", "8", "--final-eval-games", "8", "--snapshot-every", "1",
        "--pool-size", "2", "--checkpoint-every", "1", "--no-progress", "--threads", "1", "--pretrain-steps", "0",
        "--no-anneal-lr"]


class Crash(BaseException):
    """Stands for the process being killed: not an error the trainer handles."""


def _run(out, steps=512, extra=()):
    assert main(["skyjo", "--steps", str(steps), "--out", str(out), *TINY, *extra]) == 0
    return json.loads((out / "results.json").read_text())


def _model(out):
    return torch.load(out / "model.pt", weights_only=True)["state_dict"]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """The uninterrupted run every resumed one must end on: 3 iterations."""
    out = tmp_path_factory.mktemp("straight")
    return _run(out, steps=768), _model(out)


def _assert_same_end(out, straight):
    res = json.loads((out / "results.json").read_text())
    ref, ref_model = straight
    for key in ("steps", "final_eval", "eval_history", "decisions", "episodes"):
        assert res[key] == ref[key], key
    model = _model(out)
    assert all(torch.equal(model[k], ref_model[k]) for k in ref_model)


def _iteration(folder):
    return json.loads((folder / "manifest.json").read_text())["iteration"]


def _crash_on_call(monkeypatch, obj, name, call):
    """Make ``obj.name`` raise `Crash` on its ``call``-th call (1-based)."""
    real, seen = getattr(obj, name), []

    def wrapped(*a, **k):
        seen.append(1)
        if len(seen) == call:
            raise Crash(name)
        return real(*a, **k)

    monkeypatch.setattr(obj, name, wrapped)


def test_crash_between_the_two_files_resumes_from_the_last_complete_checkpoint(tmp_path, monkeypatch, straight):
    out = tmp_path / "run"
    with monkeypatch.context() as m:
        _crash_on_call(m, checkpoints.np, "savez", 2)  # the second save: state.pt written, env.npz not
        with pytest.raises(Crash):
            _run(out)
    assert _iteration(out / "checkpoint") == 1
    assert [p.name for p in out.glob("checkpoint.tmp-*")]  # the torn save, never renamed into place
    _run(out, steps=768, extra=["--resume"])
    _assert_same_end(out, straight)
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("checkpoint")) == ["checkpoint"]


def test_crash_between_the_renames_resumes_from_the_previous_checkpoint(tmp_path, monkeypatch, capsys, straight):
    out = tmp_path / "run"
    real, seen = os.replace, []

    def replace(src, dst):
        if str(src).rsplit(os.sep, 1)[-1].startswith("checkpoint.tmp-"):
            seen.append(1)
            if len(seen) == 2:
                raise Crash("replace")
        return real(src, dst)

    with monkeypatch.context() as m:
        m.setattr(checkpoints.os, "replace", replace)
        with pytest.raises(Crash):
            _run(out)
    assert not (out / "checkpoint").exists() and _iteration(out / "checkpoint.prev") == 1
    capsys.readouterr()
    _run(out, steps=768, extra=["--resume"])
    err = capsys.readouterr().err
    assert "resuming from the previous complete checkpoint" in err and "checkpoint.prev" in err
    _assert_same_end(out, straight)


def test_a_torn_checkpoint_falls_back_to_the_previous_one(tmp_path, monkeypatch, capsys, straight):
    out = tmp_path / "run"
    with monkeypatch.context() as m:
        _crash_on_call(m, checkpoints.shutil, "rmtree", 1)  # the second save, removing the previous checkpoint
        with pytest.raises(Crash):
            _run(out)
    assert _iteration(out / "checkpoint") == 2 and _iteration(out / "checkpoint.prev") == 1
    npz = out / "checkpoint" / "env.npz"
    npz.write_bytes(npz.read_bytes()[:-100])  # torn
    capsys.readouterr()
    _run(out, steps=768, extra=["--resume"])
    err = capsys.readouterr().err
    assert "env.npz does not match the sha256" in err and "(iteration 1)" in err
    _assert_same_end(out, straight)


def _rehash(folder):
    m = json.loads((folder / "manifest.json").read_text())
    for name in m["files"]:
        m["files"][name]["sha256"] = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(m))


def test_torn_checkpoints_without_a_previous_one_are_refused(tmp_path):
    out = tmp_path / "run"
    _run(out, steps=256)
    ck = out / "checkpoint"
    good = tmp_path / "good"
    shutil.copytree(ck, good)

    def resume_error():
        with pytest.raises(SystemExit) as exc:
            _run(out, steps=512, extra=["--resume"])
        return str(exc.value.code)

    npz = ck / "env.npz"
    npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2])
    msg = resume_error()
    assert f"no usable checkpoint in {out}" in msg and "env.npz does not match the sha256" in msg
    _rehash(ck)  # a truncated file the manifest agrees with: reading it fails
    assert "env.npz cannot be read (BadZipFile" in resume_error()
    (ck / "state.pt").unlink()
    assert "state.pt is missing" in resume_error()
    shutil.rmtree(ck)
    shutil.copytree(good, ck)
    (ck / "manifest.json").unlink()
    assert "has no manifest.json" in resume_error()
    # records that do not fit this run are refused before the compiled kernels see them
    shutil.rmtree(ck)
    shutil.copytree(good, ck)
    with np.load(ck / "env.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["seats"][3] = 7
    np.savez(ck / "env.npz", **arrays)
    _rehash(ck)
    assert "seats holds values outside 0..1" in resume_error()
    arrays["seats"][3] = 0
    arrays["ep_len"] = arrays["ep_len"].astype(np.int32)
    np.savez(ck / "env.npz", **arrays)
    _rehash(ck)
    assert "ep_len has shape (16,) and dtype int32" in resume_error()
    # a game record the rules cannot reach, and a mask that is not the record's, go through the
    # game's validator before the kernels see them
    arrays["ep_len"] = arrays["ep_len"].astype(np.int64)
    arrays["states"][2]["draw_len"] = 32767
    np.savez(ck / "env.npz", **arrays)
    _rehash(ck)
    assert "record 2: state field 'draw_len'=32767 out of range" in resume_error()
    arrays["states"][2]["draw_len"] = good_len = np.load(good / "env.npz")["states"][2]["draw_len"]
    assert good_len < 150
    arrays["masks"][5] = 1 - arrays["masks"][5]
    np.savez(ck / "env.npz", **arrays)
    _rehash(ck)
    assert "masks[5] is not the legal-action mask of records[5]" in resume_error()
    assert not (out / "checkpoint.prev").exists()


def test_resume_without_a_checkpoint_is_refused(tmp_path):
    out = tmp_path / "fresh"
    with pytest.raises(SystemExit) as exc:
        _run(out, extra=["--resume"])
    msg = str(exc.value.code)
    assert f"there is no checkpoint in {out}" in msg and "drop --resume" in msg
    assert not (out / "results.json").exists() and not (out / "model.pt").exists()
    with pytest.raises(CheckpointError, match="no checkpoint"):
        Trainer(Config(game="skyjo", out=str(out), num_envs=4, hidden=(8,), progress=False)).train(resume=True)


def test_a_full_disk_is_an_error_naming_the_path(tmp_path, monkeypatch):
    def no_space(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = tmp_path / "a"
    with monkeypatch.context() as m:
        m.setattr(checkpoints.np, "savez", no_space)
        with pytest.raises(SystemExit) as exc:
            _run(out)
    msg = str(exc.value.code)
    assert f"cannot write {out / 'checkpoint'}: No space left on device" in msg and "disk is full" in msg
    assert not list(out.glob("checkpoint*"))  # nothing half-written left behind
    # the previous checkpoint survives a failed save
    with monkeypatch.context() as m:
        real, seen = torch.save, []

        def save(*a, **k):
            seen.append(1)
            if len(seen) == 2:
                no_space()
            return real(*a, **k)

        m.setattr(torch, "save", save)
        with pytest.raises(SystemExit, match="No space left"):
            _run(tmp_path / "b")
    assert _iteration(tmp_path / "b" / "checkpoint") == 1 and not list((tmp_path / "b").glob("checkpoint.*"))
    # the final outputs too
    real_write = type(out).write_text

    def write_text(self, *a, **k):
        if self.name.startswith("results.json"):
            no_space()
        return real_write(self, *a, **k)

    with monkeypatch.context() as m:
        m.setattr(type(out), "write_text", write_text)
        with pytest.raises(SystemExit) as exc:
            _run(tmp_path / "c", steps=256)
    assert f"cannot write {tmp_path / 'c' / 'results.json'}: No space left" in str(exc.value.code)


def test_results_json_is_the_same_for_the_same_command(tmp_path):
    """Wall-clock times (pretraining included) are in timing.json, so results.json repeats byte for byte."""
    extra = ["--imitate", "expert", "--pretrain-steps", "2000", "--pretrain-epochs", "2", "--pretrain-minibatch", "256"]
    res = _run(tmp_path / "a", steps=256, extra=extra)
    _run(tmp_path / "b", steps=256, extra=extra)
    assert (tmp_path / "a" / "results.json").read_bytes() == (tmp_path / "b" / "results.json").read_bytes()
    assert [r["epoch"] for r in res["pretrain"]] == [1, 2]
    assert not any(k.endswith("_s") for row in res["pretrain"] for k in row)
    timing = json.loads((tmp_path / "a" / "timing.json").read_text())
    assert len(timing["pretrain_epochs_s"]) == 2 and timing["pretrain_s"] == timing["pretrain_epochs_s"][-1]
    assert timing["pretrain_collect_s"] >= 0


@pytest.mark.slow
@pytest.mark.subprocess
def test_resume_without_a_checkpoint_exits_non_zero_from_the_command_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import cardgym

    src = str(Path(cardgym.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "cardgym.train", "skyjo", "--out", str(tmp_path), "--resume",
                           *TINY], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode != 0
    assert f"there is no checkpoint in {tmp_path}" in proc.stderr and "Traceback" not in proc.stderr


def test_a_checkpoint_of_the_older_two_file_layout_still_resumes(tmp_path, capsys, straight):
    out = tmp_path / "run"
    _run(out)
    (out / "checkpoint" / "state.pt").rename(out / "checkpoint.pt")
    (out / "checkpoint" / "env.npz").rename(out / "checkpoint_env.npz")
    shutil.rmtree(out / "checkpoint")
    capsys.readouterr()
    _run(out, steps=768, extra=["--resume"])
    assert "an older cardgym" in capsys.readouterr().err
    _assert_same_end(out, straight)
