"""``cardgym.wrappers.rllib_tools``, the pieces the RLlib examples share, without Ray: history rows and lines,
throughput, the training loop over a fake algorithm, ModulePolicy over a fake RLModule, the bot evaluation."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cardgym.wrappers.rllib_tools import (
    SELFPLAY_ROW,
    ModulePolicy,
    evaluate_vs_bots,
    fmt,
    iteration_line,
    iteration_row,
    throughput,
    throughput_line,
    train_loop,
)


LEN, RET = np.float32(12.5), np.float64(0.25)  # numpy scalars, as RLlib reports them


def _result(steps, episodes=3, length=LEN, ret=RET, entropy=1.5, seat_ret=None):
    er = {"num_env_steps_sampled_lifetime": steps, "num_episodes_lifetime": episodes, "episode_len_mean": length,
          "episode_return_mean": ret}
    if seat_ret is not None:
        er["agent_episode_return_mean"] = {"seat_0": seat_ret, "seat_1": -seat_ret}
    return {"env_runners": er, "learners": {"default_policy": {"entropy": entropy}}}


def test_learner_row_and_line():
    row = iteration_row(_result(300), iteration=2, previous_steps=100, dt=0.5, seconds=3.04)
    assert row == {"iteration": 2, "env_steps": 300, "iteration_env_steps": 200, "episodes": 3,
                   "episode_len_mean": 12.5, "episode_return_mean": 0.25, "entropy": 1.5,
                   "iteration_seconds": 0.5, "seconds": 3.0, "steps_per_second": 400.0}
    assert list(row)[3:6] == ["episodes", "episode_len_mean", "episode_return_mean"]  # the JSON's order
    assert all(type(row[k]) is float for k in ("episode_len_mean", "episode_return_mean", "entropy"))
    assert iteration_line(row) == ("iter   2  steps       300  episodes      3  len 12.5  return +0.250  "
                                   "entropy 1.500  400 steps/s  3s")


def test_selfplay_row_takes_seat_0_return_and_missing_values_print_na():
    row = iteration_row(_result(50, seat_ret=-0.125, length=float("nan"), entropy=None), iteration=1,
                        previous_steps=0, dt=0.0, seconds=0.2, keys=SELFPLAY_ROW)
    assert row["games"] == 3 and row["seat_0_return_mean"] == -0.125 and "episodes" not in row
    assert row["entropy"] is None and np.isnan(row["game_len_mean"]) and row["steps_per_second"] is None
    assert iteration_row(_result(50), iteration=1, previous_steps=0, dt=1.0, seconds=1.0,
                         keys=SELFPLAY_ROW)["seat_0_return_mean"] is None  # no agent returns reported yet
    row["steps_per_second"] = 50.0
    assert iteration_line(row, SELFPLAY_ROW) == ("iter   1  steps        50  games      3  len n/a  seat 0 return "
                                                 "-0.125  entropy n/a  50 steps/s  0s")
    assert fmt(None) == "n/a" and fmt(float("nan")) == "n/a" and fmt(2.0, "+.1f") == "+2.0"


def test_throughput_excludes_the_warm_up_iteration():
    rows = [{"iteration_env_steps": 100, "iteration_seconds": 10.0, "env_steps": 100},
            {"iteration_env_steps": 200, "iteration_seconds": 1.0, "env_steps": 300},
            {"iteration_env_steps": 400, "iteration_seconds": 1.0, "env_steps": 700}]
    assert throughput(rows) == 300.0
    assert throughput(rows[:1]) == 10.0  # one iteration: that one
    assert throughput([]) == 0.0
    assert throughput_line(rows, 300.0, 12.4) == ("training throughput: 300 env steps/s (iterations 2..3; "
                                                   "700 steps in 12s)")
    assert throughput_line([], 0.0, 0.0).endswith("(iterations 2..0; 0 steps in 0s)")


class FakeAlgo:
    def __init__(self):
        self.calls = 0

    def train(self):
        self.calls += 1
        return _result(100 * self.calls, episodes=self.calls)


def test_train_loop_rows_lines_and_summary():
    lines = []
    algo = FakeAlgo()
    history, sps = train_loop(algo, 3, out=lambda s, flush: lines.append(s))
    assert algo.calls == 3 and [r["iteration"] for r in history] == [1, 2, 3]
    assert [r["iteration_env_steps"] for r in history] == [100, 100, 100]
    assert sps == throughput(history) > 0
    assert len(lines) == 4 and lines[0].startswith("iter   1  steps       100  episodes      1")
    assert lines[-1].startswith("training throughput:") and "300 steps in" in lines[-1]
    # with a time limit, iterations no longer bound the loop; a tiny limit stops it after the first iteration
    history, _ = train_loop(FakeAlgo(), 1, minutes=1e-9, out=lambda s, flush: None)
    assert len(history) <= 1
    with pytest.raises(ValueError, match="iterations"):
        train_loop(FakeAlgo(), -1)
    with pytest.raises(ValueError, match="minutes"):
        train_loop(FakeAlgo(), 1, minutes=0)


class FakeModule:  # the RLModule forward_inference contract: {"obs": {...}} -> action_dist_inputs
    def forward_inference(self, batch):
        import torch

        obs = batch["obs"]
        assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == torch.float32
        n = obs["action_mask"].shape[1]
        return {"action_dist_inputs": torch.arange(n, dtype=torch.float32).repeat(len(obs["observations"]), 1)}


def test_module_policy_masks_illegal_actions():
    pytest.importorskip("torch")
    masks = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 1]], np.int8)
    greedy = ModulePolicy(FakeModule())
    np.testing.assert_array_equal(greedy.act(np.zeros((3, 5), np.float32), masks), [2, 1, 3])
    assert greedy(np.zeros(5, np.float32), masks[0]) == 2
    sampler = ModulePolicy(FakeModule(), sample=True, seed=1)
    drawn = np.stack([sampler.act(np.zeros((3, 5), np.float32), masks) for _ in range(300)])
    assert all(masks[i, drawn[:, i]].all() for i in range(3))  # only legal actions, ever
    assert set(drawn[:, 0]) == {0, 2} and set(drawn[:, 1]) == {0, 1}  # both legal ones drawn (softmax, not argmax)
    assert (drawn[:, 0] == 2).mean() > 0.6  # logit 2 vs 0: p = 0.88
    with pytest.raises(TypeError, match="forward_inference"):
        ModulePolicy(object())


def test_evaluate_vs_bots_plays_every_baseline_bot():
    pytest.importorskip("torch")
    from cardgym.eval import baseline_bots

    lines = []
    final = evaluate_vs_bots("skyjo", ModulePolicy(FakeModule()), 2, 4, out=lambda s, flush: lines.append(s))
    assert list(final) == baseline_bots("skyjo")
    for bot, r in final.items():
        assert set(r) == {"games", "wins", "draws", "losses", "a_win_rate", "ci95"} and r["games"] == 4
    assert len(lines) == len(final) and lines[0].startswith(f"vs {baseline_bots('skyjo')[0]:<8} win rate")


@pytest.mark.subprocess
def test_rllib_tools_imports_no_ray():
    code = ("import sys, cardgym.wrappers, cardgym.wrappers.rllib_tools\n"
            "bad = sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)



def test_add_ppo_arguments_defaults_and_overrides():
    import argparse

    from cardgym.wrappers.rllib_tools import add_ppo_arguments

    p = add_ppo_arguments(argparse.ArgumentParser(), envs_per_runner=512, train_batch_help="decisions per iteration")
    a = p.parse_args([])
    assert (a.envs_per_runner, a.train_batch, a.minibatch, a.iterations, a.minutes, a.reward) == (
        512, 32768, 4096, 10, None, None)
    assert (a.sample_timeout, a.address, a.num_cpus, a.eval_games, a.hidden, a.out, a.init) == (
        600.0, None, 2, 200, None, None, None)
    a = p.parse_args(["--minutes", "1.5", "--hidden", "16", "16", "--reward", "score"])
    assert a.minutes == 1.5 and a.hidden == [16, 16] and a.reward == "score"
    assert "decisions per iteration" in p.format_help()
