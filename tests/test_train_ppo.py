"""The built-in trainer end to end on a tiny budget: outputs, determinism, resume, the saved model."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

import cardgym  # noqa: E402
from cardgym.agents import load_policy  # noqa: E402
from conftest import GAME_NAMES  # noqa: E402
from cardgym.train import main  # noqa: E402

TINY = ["--envs", "16", "--rollout", "16", "--minibatch", "128", "--epochs", "1", "--hidden", "32",
        "--eval-every", "1", "--eval-games", "8", "--final-eval-games", "8", "--snapshot-every", "1",
        "--pool-size", "2", "--checkpoint-every", "1", "--no-progress", "--threads", "1", "--pretrain-steps", "0"]


def _run(out, steps=512, extra=()):
    assert main(["skyjo", "--steps", str(steps), "--out", str(out), *TINY, *extra]) == 0
    return json.loads((out / "results.json").read_text())


def test_trainer_outputs_and_determinism(tmp_path):
    a = _run(tmp_path / "a")
    for name in ("model.pt", "checkpoint/state.pt", "checkpoint/env.npz", "checkpoint/manifest.json", "log.csv",
                 "results.json", "timing.json", "curve.png"):
        assert (tmp_path / "a" / name).is_file(), name
    assert sorted(p.name for p in (tmp_path / "a").iterdir() if p.name.startswith("checkpoint")) == ["checkpoint"]
    assert a["steps"] == 512 and set(a["final_eval"]) >= {"random", "greedy"}
    assert (tmp_path / "a" / "results.json").read_bytes() == (_run(tmp_path / "b") and
                                                               (tmp_path / "b" / "results.json").read_bytes())
    pol = load_policy(tmp_path / "a" / "model.pt")
    assert pol.meta["game"] == "skyjo" and pol.meta["trained_steps"] == 512
    ckpt = load_policy(tmp_path / "a" / "checkpoint")  # checkpoints load as policies too
    obs = np.zeros((1, pol.obs_size), np.float32)
    mask = np.ones((1, pol.num_actions), np.int8)
    assert pol.act(obs, mask).tolist() == ckpt.act(obs, mask).tolist()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_trainer_smoke_on_every_game(name, tmp_path):
    """A few updates on every game of the registry: a model that loads, evaluated against the simple bots."""
    assert main([name, "--steps", "256", "--out", str(tmp_path), *TINY]) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["steps"] == 256 and set(res["final_eval"]) >= {"random", "greedy"}
    pol = load_policy(tmp_path / "model.pt")
    assert pol.meta["game"] == name and pol.num_actions == cardgym.get_game(name).num_actions


def test_trainer_resume_is_exact(tmp_path):
    """A run stopped and resumed from its checkpoint ends exactly where an uninterrupted run does (with a
    constant learning rate, so the planned length does not change the schedule)."""
    import torch

    extra = ["--no-anneal-lr"]
    _run(tmp_path / "part", steps=512, extra=extra)
    resumed = _run(tmp_path / "part", steps=768, extra=[*extra, "--resume"])
    straight = _run(tmp_path / "whole", steps=768, extra=extra)
    assert resumed["steps"] == 768
    rows = (tmp_path / "part" / "log.csv").read_text().strip().splitlines()[1:]
    assert [int(r.split(",")[0]) for r in rows] == [1, 2, 3]  # the log goes on from the checkpoint
    for key in ("final_eval", "eval_history", "decisions", "episodes"):
        assert resumed[key] == straight[key], key
    a = torch.load(tmp_path / "part" / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "whole" / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert load_policy(tmp_path / "part" / "model.pt").meta["trained_steps"] == 768


@pytest.mark.slow
def test_pretraining_clones_the_teacher(tmp_path):
    """Behaviour cloning before PPO: the held-out agreement with the teacher rises well above what an
    untrained policy gets, and the imitation term keeps running in the PPO iterations."""
    out = tmp_path / "bc"
    res = _run(out, steps=256, extra=["--imitate", "expert", "--pretrain-steps", "24000", "--pretrain-epochs",
                                      "6", "--pretrain-minibatch", "512", "--imitate-steps", "512",
                                      "--hidden", "128"])
    log = res["pretrain"]
    assert [r["epoch"] for r in log] == [1, 2, 3, 4, 5, 6] and log[0]["samples"] >= 24000
    assert log[-1]["heldout_agree"] > 0.6, log
    assert log[-1]["loss"] < log[0]["loss"]
    assert res["steps"] == 256  # teacher decisions are not learner steps
    header = (out / "log.csv").read_text().splitlines()[0].split(",")
    assert {"imitation_loss", "teacher_agree", "imitation_weight"} <= set(header)


def test_pretraining_needs_a_teacher_bot(tmp_path, capsys):
    for extra, msg in ((["--imitate", "", "--pretrain-steps", "100"], "--imitate BOT"),
                       (["--imitate", "wizard"], "argument --imitate/--teacher: must be a bot of skyjo (random, greedy, expert")):
        with pytest.raises(SystemExit) as exc:  # refused when parsed, before anything runs
            _run(tmp_path / "x", extra=extra)
        assert exc.value.code == 2 and msg in capsys.readouterr().err
        assert not (tmp_path / "x").exists()


def test_presets_and_flags():
    import cardgym
    from cardgym.train import build_parser, config_from_args

    cfg, resume = config_from_args(["skyjo"])
    assert not resume and cfg.imitate == "expert" and cfg.pretrain_steps == 2_000_000
    assert cfg.reward == "diff" and cfg.rules["reward"] == "score" and cfg.hidden == (256, 256)
    cfg, _ = config_from_args(["skipbo_junior"])
    preset = cardgym.get_game("skipbo_junior").train_preset  # presets live with the games
    assert cfg.hidden == tuple(preset["hidden"]) and cfg.lr == preset["lr"]
    # the help's defaults come from the games' presets
    helptext = " ".join(build_parser().format_help().split())
    assert "skipbo and skipbo_junior 512,512" in helptext and "skyjo 256,256" in helptext  # + test games
    assert "skyjo's preset sets reward=score" in helptext
    # explicit flags win over the preset
    cfg, resume = config_from_args(["skyjo", "--lr", "3e-4", "--hidden", "64,64", "--imitate", "", "--steps", "1e5",
                                    "--pretrain-steps", "0", "--epochs", "4", "--resume"])
    assert (cfg.lr, cfg.hidden, cfg.imitate, cfg.total_steps, cfg.pretrain_steps, cfg.epochs) == (
        3e-4, (64, 64), "", 100_000, 0, 4) and resume


def test_init_from_a_model_and_resume_guard(tmp_path):
    from cardgym.train.config import Config
    from cardgym.train.ppo import Trainer

    _run(tmp_path / "a", steps=256)
    model = tmp_path / "a" / "model.pt"
    # a new run can start from a saved agent, with other settings
    b = _run(tmp_path / "b", steps=256, extra=["--init", str(model), "--opponents", "random:1"])
    assert b["config"]["init"] == str(model)
    tr = Trainer(Config(game="skyjo", out=str(tmp_path / "c"), num_envs=4, hidden=(32,), init=str(model)))
    import torch

    saved = torch.load(model, weights_only=True)["state_dict"]
    assert all(torch.equal(tr.net.state_dict()[k], saved[k]) for k in saved)
    with pytest.raises(ValueError, match=r"does not fit.*pass --hidden 32 to continue it"):
        Trainer(Config(game="skyjo", out=str(tmp_path / "d"), num_envs=4, hidden=(64,), init=str(model)))
    with pytest.raises(ValueError, match=r"does not fit.*'obs_size'") as err:  # another game: no --hidden hint
        Trainer(Config(game="skipbo_junior", out=str(tmp_path / "e"), num_envs=4, hidden=(32,), init=str(model)))
    assert "--hidden" not in str(err.value)
    # resuming with another opponent mix is refused with the way out
    with pytest.raises(ValueError, match=r"opponents.*--init"):
        _run(tmp_path / "a", steps=512, extra=["--resume", "--opponents", "random:1"])


@pytest.mark.parametrize("kind", ["garbage", "folder", "empty"])
def test_an_unusable_init_file_is_one_line(kind, tmp_path, capsys):
    """Issue 42.8: ``cardgym train --init FILE`` with a file that is no model ends in one line naming the
    flag, the file and what is wrong (it ended in a traceback)."""
    bad = tmp_path / "bad.pt"
    if kind == "folder":
        bad.mkdir()
    else:
        bad.write_bytes(b"not a model" if kind == "garbage" else b"")
    with pytest.raises(SystemExit) as exc:
        main(["skyjo", "--steps", "64", "--out", str(tmp_path / "out"), *TINY, "--init", str(bad)])
    line = str(exc.value.code)
    assert line.startswith(f"cardgym train: error: --init {str(bad)!r}: ") and "\n" not in line, line


def test_trainer_rolls_out_through_the_public_vector_env(tmp_path):
    """The trainer's games are a `CardGameVectorEnv` (bots, the teacher, then the snapshot pool as its
    opponents), and its episodes start from the run's generator through ``new_episode``."""
    from cardgym.core.envs.vector import CardGameVectorEnv
    from cardgym.train import Config, Trainer

    tr = Trainer(Config(game="skyjo", out=str(tmp_path), num_envs=8, hidden=(16,), imitate="expert",
                        opponents="greedy:0.5,self:0.5", pool_size=2, progress=False))
    assert type(tr.vec) is CardGameVectorEnv
    assert tr.vec.opponents[:2] == ["greedy", "expert"] and len(tr.vec.opponents) == 3  # + the first snapshot
    tr._assign()
    b = tr.collect(4)
    assert b["obs"].shape == (32, tr.obs_size) and "label" in b
    # the learner seat and opponent of every game: what the run's draw chose
    sp = tr.vec.driver.seat_player
    assert (sp[np.arange(8), tr.seats] == -1).all()
    kinds = np.array([tr.kinds[k] for k in tr.env_kind])
    assert (sp[np.arange(8), 1 - tr.seats][kinds == "greedy"] == 0).all()
    assert (sp[np.arange(8), 1 - tr.seats][kinds == "self"] == 2).all()



@pytest.mark.parametrize("anneal", [False, True])
def test_pretrain_anneal_lowers_the_cloning_rate_to_zero(monkeypatch, anneal):
    """--pretrain-anneal: the cloning learning rate falls linearly from --pretrain-lr to 0 over all
    cloning updates (last update at lr / updates); without it, every update uses the same rate."""
    import torch

    from cardgym.train import config_from_args
    from cardgym.train.ppo import Trainer

    argv = ["skyjo", "--out", "unused", *TINY, "--imitate", "expert", "--pretrain-steps", "2000",
            "--pretrain-epochs", "3", "--pretrain-minibatch", "256"] + (["--pretrain-anneal"] if anneal else [])
    cfg, _ = config_from_args(argv)
    assert cfg.pretrain_anneal is anneal
    tr = Trainer(cfg)
    seen = []
    step = torch.optim.Adam.step

    def recording(self, *a, **k):
        seen.append(self.param_groups[0]["lr"])
        return step(self, *a, **k)

    monkeypatch.setattr(torch.optim.Adam, "step", recording)
    tr._assign()
    tr.pretrain()
    held_out = 1  # 16 games: one record in 50 (at least one) is held out
    updates = 3 * -(-(2000 // 16 + (2000 % 16 > 0)) * (16 - held_out) // 256)
    assert len(seen) == updates
    if anneal:
        want = [cfg.pretrain_lr * (1 - k / updates) for k in range(updates)]
        assert seen == pytest.approx(want) and seen[-1] == pytest.approx(cfg.pretrain_lr / updates)
    else:
        assert set(seen) == {cfg.pretrain_lr}
