"""A teacher in the trainer (``--teacher BOT|agent|MODEL``, DAgger): the teacher labels the learner's own
states, the agreement is reported, seeded runs replay, bad teachers are refused clearly."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import load_file

pytest.importorskip("torch")

from cardgym.train import Config, Trainer, main  # noqa: E402

SMALL = ["--envs", "32", "--rollout", "16", "--minibatch", "256", "--epochs", "2", "--hidden", "64", "--lr", "1e-3",
         "--eval-every", "0", "--final-eval-games", "2", "--snapshot-every", "1", "--pool-size", "2",
         "--checkpoint-every", "1", "--no-progress", "--threads", "1", "--pretrain-steps", "0",
         "--opponents", "expert:1", "--teacher-weight", "1", "--teacher-until", "0"]


def _run(game, out, teacher, steps, extra=()):
    assert main([game, "--steps", str(steps), "--out", str(out), *SMALL, "--teacher", teacher, *extra]) == 0
    return json.loads((out / "results.json").read_text())


@pytest.mark.slow
def test_search_teacher_agreement_rises(tmp_path):
    """DAgger from the compiled `search` bot: the rollout policy's agreement with the search's labels on its
    own states rises from the untrained network's (measured, seed 0: 0.50 -> 0.72 -> 0.75; without the
    imitation term in the update 0.50 -> 0.61 -> 0.60)."""
    a = _run("skipbo_junior", tmp_path / "a", "search", 768, ["--envs", "16", "--minibatch", "128"])
    assert [s for s, _ in a["teacher_agreement"]] == [256, 512, 768]
    agree = [x for _, x in a["teacher_agreement"]]
    assert agree[-1] > agree[0] + 0.15, agree
    with open(tmp_path / "a" / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["teacher_agree_rollout"]) for r in rows] == agree
    assert a["config"]["imitate"] == "search"


@pytest.mark.slow
def test_search_teacher_replays(tmp_path):
    """The same seeded command with the `search` teacher writes the same results, agreement included."""
    a = _run("skyjo", tmp_path / "a", "search", 1024)
    assert len(a["teacher_agreement"]) == 2
    _run("skyjo", tmp_path / "b", "search", 1024)
    assert (tmp_path / "a" / "results.json").read_bytes() == (tmp_path / "b" / "results.json").read_bytes()
    assert (tmp_path / "a" / "model.pt").read_bytes() == (tmp_path / "b" / "model.pt").read_bytes()


@pytest.mark.slow
def test_no_labels_for_an_update_without_imitation(tmp_path):
    """The weight falls to 0 at --teacher-until: the rollout whose update has weight 0 asks no labels."""
    a = _run("skipbo_junior", tmp_path / "a", "expert", 1536, ["--teacher-until", "1024"])
    assert [s for s, _ in a["teacher_agreement"]] == [512]  # updates weighted 0.5, 0, 0
    with open(tmp_path / "a" / "log.csv") as f:
        assert [r["imitation_weight"] for r in csv.DictReader(f)] == ["0.5", "0.0", "0.0"]


@pytest.mark.slow
def test_model_teacher_and_resume(tmp_path):
    """A model teacher (``agent``: the shipped model; or a model file) labels in one forward pass; a run
    stopped and resumed carries the teacher and its agreement history exactly."""
    a = _run("skipbo_junior", tmp_path / "agent", "agent", 1536, ["--no-anneal-lr"])
    agree = [x for _, x in a["teacher_agreement"]]
    assert agree[-1] > agree[0] + 0.1, agree
    model = tmp_path / "agent" / "model.pt"
    _run("skipbo_junior", tmp_path / "part", str(model), 512, ["--no-anneal-lr"])
    resumed = _run("skipbo_junior", tmp_path / "part", str(model), 1024, ["--no-anneal-lr", "--resume"])
    whole = _run("skipbo_junior", tmp_path / "whole", str(model), 1024, ["--no-anneal-lr"])
    assert len(resumed["teacher_agreement"]) == 2
    assert resumed["teacher_agreement"] == whole["teacher_agreement"]
    with pytest.raises(ValueError, match=r"--resume must keep.*imitate: '.*model.pt' -> 'expert'"):
        _run("skipbo_junior", tmp_path / "part", "expert", 1536, ["--no-anneal-lr", "--resume"])


@pytest.mark.slow
def test_bad_teachers_are_refused(tmp_path, capsys):
    for extra, msg in ((["--teacher", "wizard"], "argument --imitate/--teacher: must be a bot of skyjo (random, "
                                                "greedy, expert, search), agent (the shipped model), a saved model"),
                       (["--teacher", "expert", "--teacher-weight", "-1"], "argument --imitate-coef/--teacher-weight"),
                       (["--teacher", "expert", "--teacher-until", "x"], "argument --imitate-steps/--teacher-until")):
        with pytest.raises(SystemExit) as exc:  # refused when parsed, before anything runs
            main(["skyjo", "--out", str(tmp_path / "x"), *extra])
        assert exc.value.code == 2 and msg in capsys.readouterr().err
        assert not (tmp_path / "x").exists()
    # a model of another game, or a file that is no model: named, before any training
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a model")
    with pytest.raises(SystemExit, match="not a cardgym model"):
        main(["skyjo", "--out", str(tmp_path / "y"), "--teacher", str(junk), "--no-progress"])
    with pytest.raises(ValueError, match="trained on 'skipbo_junior', not 'skyjo'"):
        from cardgym.agents.pretrained import agent_path

        Trainer(Config(game="skyjo", out=str(tmp_path / "z"), num_envs=2, imitate=str(agent_path("skipbo_junior"))))
    with pytest.raises(ValueError, match="must be one of the game's bots .* or a saved model"):
        Trainer(Config(game="skyjo", out=str(tmp_path / "z"), num_envs=2, imitate="wizard"))


ROOT = Path(__file__).resolve().parents[1]


def test_compare_trainer_interleaves_and_keeps_the_best_of_each_tree(tmp_path, monkeypatch, capsys):
    mod = load_file(ROOT / "benchmarks" / "compare_trainer.py", "compare_trainer")
    trees = []
    for name in ("a", "b"):
        (tmp_path / name / "src" / "cardgym" / "train").mkdir(parents=True)
        trees.append(tmp_path / name)
    rates = {"a": [100.0, 300.0, 200.0], "b": [350.0, 120.0, 340.0]}
    calls = []

    def fake(tree, args):
        calls.append(tree.name)
        return rates[tree.name].pop(0)

    monkeypatch.setattr(mod, "run_once", fake)
    mod.main([str(trees[0]), str(trees[1]), "--rounds", "3"])
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert "before 300  after 350  after / before 1.167" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        mod.main([str(tmp_path), str(trees[1])])
    assert exc.value.code == 2 and "is not a cardgym source tree" in capsys.readouterr().err


@pytest.mark.slow
def test_teacher_cost_times_every_teacher_the_game_has(capsys):
    mod = load_file(ROOT / "benchmarks" / "teacher_cost.py", "teacher_cost")
    ms = mod.measure("skyjo", ["search", "expert", "agent"], envs=4, steps=3)
    assert set(ms) == {"search", "expert", "agent"} and all(v > 0 for v in ms.values())
    assert set(mod.measure("blackjack", ["search", "expert"], envs=2, steps=1)) == {"expert"}  # no search bot
    with pytest.raises(SystemExit) as exc:
        mod.main(["--games", "skyjo", "--teachers", "wizard"])
    assert exc.value.code == 2 and "'wizard' is neither agent nor a bot of skyjo" in capsys.readouterr().err
