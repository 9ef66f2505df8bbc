"""TorchRL's own env checker on cardgym's envs (skipped when TorchRL is not installed): its ``GymEnv``
builds ``cardgym/<Game>-v0`` (it passes ``frameskip=`` first and retries without it on Python's standard
"unexpected keyword argument" ``TypeError``), its ``PettingZooWrapper`` wraps the AEC ``env()`` with the
action mask, and ``check_env_specs`` rolls both out against their specs."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GAME_NAMES, load_file

import cardgym


@pytest.fixture(scope="module")
def torchrl():
    """``(torchrl.envs, check_env_specs)``; the test is skipped without TorchRL (the ``dev`` extra has it)."""
    envs = pytest.importorskip("torchrl.envs", reason="TorchRL is not installed (pip install torchrl)")
    return envs, pytest.importorskip("torchrl.envs.utils").check_env_specs


def test_an_unknown_option_is_a_type_error_and_a_value_error():
    import gymnasium as gym

    from cardgym.core.state.rules import UnknownOptionError

    for make in (lambda: gym.make("cardgym/Skyjo-v0", frameskip=4), lambda: cardgym.make_vec("skyjo", 2, frameskip=4)):
        with pytest.raises(UnknownOptionError) as info:
            make()
        assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
        assert "unexpected keyword argument 'frameskip'" in str(info.value)
        assert "allowed options: [" in str(info.value)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_torchrl_gym_env_passes_check_env_specs(name, torchrl):
    torchrl_envs, check_env_specs = torchrl
    env = torchrl_envs.GymEnv(cardgym.GAMES[name].gym_id)
    check_env_specs(env, seed=0)
    env.close()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_torchrl_pettingzoo_wrapper_passes_check_env_specs(name, torchrl):
    torchrl_envs, check_env_specs = torchrl
    mod = importlib.import_module(cardgym.GAMES[name].module)
    env = torchrl_envs.PettingZooWrapper(env=mod.env(), use_mask=True)
    # check_env_specs rolls out 3 steps and then samples one more action from the last step's mask; the AEC
    # env's masks are all zeros once an episode is over (PettingZoo's convention, docs/api.md), so a game
    # whose episode ends within those steps (a hand against the house) cannot be sampled there
    env.set_seed(0)
    if env.rollout(3, break_when_any_done=True)["next", "done"].any():
        env.close()
        pytest.skip(f"{name}: an episode ends within check_env_specs' 3-step rollout")
    check_env_specs(env, seed=0)
    env.close()


# ------------------------------------------------------------------------ examples/torchrl_ppo.py
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ppo(torchrl):
    """The example as a module (its TorchRL imports happen inside its functions)."""
    spec = importlib.util.spec_from_file_location("torchrl_ppo_example", ROOT / "examples" / "torchrl_ppo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_learner_is_credited_across_the_other_seats_moves(ppo):
    # seat 0 acts at steps 0 and 2, seat 1 at 1 and 3; seat 1 makes the last move, which ends the game
    # (+1 for seat 0); a reward paid during seat 1's first move (a round score) belongs to seat 0's first
    # decision; the reward paid before seat 1 ever acted belongs to no decision of seat 1
    steps = [(0, (0.0, 0.25)), (1, (0.5, -0.5)), (0, (0.0, 0.0)), (1, (1.0, -1.0))]
    assert ppo.seat_transitions(steps, 0) == [
        {"reward": 0.5, "done": False, "terminated": False},
        {"reward": 1.0, "done": True, "terminated": True},
    ]
    assert ppo.seat_transitions(steps, 1) == [  # its own first move cost it 0.5
        {"reward": -0.5, "done": False, "terminated": False},
        {"reward": -1.0, "done": True, "terminated": True},
    ]
    credit = ppo.SeatCredit()
    credit.earn(0.25)
    assert credit.unowned == 0.25 and credit.end() is None
    # a game cut short (a turn limit) ends the trace without terminating it: GAE bootstraps from its value
    assert ppo.seat_transitions(steps[:3], 1, truncated=True) == [
        {"reward": -0.5, "done": True, "terminated": False}]
    # a seat that never acted has no transition
    assert ppo.seat_transitions([(0, (1.0, -1.0))], 1) == []


def test_gae_runs_over_the_learners_own_decisions(ppo):
    import torch
    from tensordict import TensorDict
    from torchrl.modules import ValueOperator

    # three decisions of the learner, the game ending after the third (another seat moved last); a critic
    # that says 2 everywhere: with gamma 0.9 and lambda 1 the advantage is the discounted return of the
    # learner's own rewards minus 2, and the terminal step does not bootstrap
    rows = ppo.seat_transitions([(0, (0, 0)), (1, (0, 0)), (0, (0, 0)), (1, (0.5, -0.5)), (0, (0, 0)),
                                 (1, (1.0, -1.0))], 0)
    assert [r["reward"] for r in rows] == [0.0, 0.5, 1.0] and [r["done"] for r in rows] == [False, False, True]
    lin = torch.nn.Linear(1, 1)
    with torch.no_grad():
        lin.weight.zero_()
        lin.bias.fill_(2.0)
    critic = ValueOperator(lin, in_keys=["observation"])
    col = lambda key: torch.tensor([[[float(r[key])] for r in rows]])  # noqa: E731
    batch = TensorDict(observation=torch.zeros(1, 3, 1), next=TensorDict(
        observation=torch.zeros(1, 3, 1), reward=col("reward"), done=col("done").bool(),
        terminated=col("terminated").bool(), batch_size=[1, 3]), batch_size=[1, 3])
    ppo.add_advantages(batch, critic, gamma=0.9, lmbda=1.0)
    want = torch.tensor([0.9 * 0.5 + 0.81 * 1.0, 0.5 + 0.9 * 1.0, 1.0]) - 2.0
    assert torch.allclose(batch["advantage"].flatten(), want), batch["advantage"].flatten()


def test_the_collector_closes_every_game_on_the_learners_last_decision(ppo):
    import torch

    torch.manual_seed(0)
    actor, _ = ppo.build_modules(*_sizes("skipbo_junior"), hidden=(16,))
    col = ppo.SeatCollector("skipbo_junior", 3, {"num_players": 2}, actor, {"random": 1.0, "self": 1.0}, seed_=0,
                            pool_size=1)
    first = list(col.opp)
    batch = col.collect(150)
    assert batch.batch_size == torch.Size([3, 150])
    assert bool(batch["action_mask"].gather(-1, batch["action"][..., None]).all())  # the acting seat's mask
    done, reward = batch["next", "done"][..., 0], batch["next", "reward"][..., 0]
    # Skip-Bo Junior pays only at the end of a game: every game's result lands on its last decision of
    # the learner, including the games the opponent finished, and nowhere else
    assert bool((reward[~done] == 0).all()) and bool((reward[done] != 0).any())
    for e in range(3):
        games = [g for g in col.finished if g["env"] == e]
        assert [g["return"] for g in games] == reward[e][done[e]].tolist()
    assert any(not g["learner_moved_last"] for g in col.finished) and any(g["learner_moved_last"] for g in col.finished)
    assert all(r == 0 for g in col.finished for r in [g["unowned"]])
    # a snapshot taken mid-game reaches only the games that start afterwards: the frozen opponents of the
    # games in progress keep their weights
    live = [(e, o[1]) for e, o in enumerate(col.opp) if o[0] == "self"] or [(0, first[0][1])]
    before = [[p.clone() for p in pol.net.parameters()] for _, pol in live if not isinstance(pol, str)]
    with torch.no_grad():
        for p in ppo.logits_of(actor).parameters():
            p.add_(1.0)
    col.snapshot(ppo.logits_of(actor))
    after = [[p.clone() for p in pol.net.parameters()] for _, pol in live if not isinstance(pol, str)]
    assert all(torch.equal(x, y) for b, a in zip(before, after) for x, y in zip(b, a))
    assert len(col.pool) == 1 and col.pool[0] is not live[0][1]


def _sizes(game):
    mod = importlib.import_module(cardgym.GAMES[game].module)
    env = mod.raw_env()
    return env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n


@pytest.mark.slow
@pytest.mark.subprocess
def test_torchrl_ppo_example_runs_and_replays(tmp_path, torchrl):
    args = ["--steps", 128, "--envs", 4, "--rollout", 16, "--epochs", 1, "--minibatch", 32, "--hidden", "32",
            "--games", 4, "--snapshot-every", 1, "--seed", 3]
    outs = []
    for run in ("a", "b"):
        proc = subprocess.run([sys.executable, str(ROOT / "examples" / "torchrl_ppo.py"), *map(str, args),
                               "--out", str(tmp_path / run)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        outs.append(proc.stdout)
        for f in ("results.json", "log.csv", "model.pt", "timing.json"):
            assert (tmp_path / run / f).is_file(), f
    res = json.loads((tmp_path / "a" / "results.json").read_text())
    assert res["iterations"] == 2 and [r["steps"] for r in res["log"]] == [64, 128]
    for when in ("before", "after"):
        assert set(res[when]) == {"random", "greedy"} and all(r["games"] == 4 for r in res[when].values())
    assert "before training  vs random" in outs[0] and "after training   vs greedy" in outs[0]
    # --seed replays the run: the same bytes (results.json holds no wall-clock time)
    assert (tmp_path / "a" / "results.json").read_bytes() == (tmp_path / "b" / "results.json").read_bytes()


@pytest.mark.slow
@pytest.mark.subprocess
def test_torchrl_ppo_example_refuses_bad_flags(tmp_path):
    for bad, word in ((["--opponents", "random:1,nobody:2"], "--opponents"), (["--steps", "0"], "--steps"),
                      (["--num-players", "1"], "--num-players"), (["--lr", "0"], "--lr")):
        proc = subprocess.run([sys.executable, str(ROOT / "examples" / "torchrl_ppo.py"), *bad, "--out",
                               str(tmp_path / "x")], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and word in proc.stderr and "--help" in proc.stderr, proc.stderr
        assert not (tmp_path / "x").exists()


def test_torchrl_collection_benchmark_counts_what_it_says(torchrl):
    bench = load_file(ROOT / "benchmarks" / "torchrl_aec.py", "torchrl_aec_bench")
    out = bench.main(["--steps", "300", "--envs", "4"])
    w, lp = out["wrapper"], out["loop"]
    assert w["steps"] == 300 and 0 <= w["results_paid_where_player_0_did_not_act"] <= w["results_paid"] <= w["games"]
    assert w["games"] >= 1 and lp["learner_decisions"] == 300 // 4 * 4 and lp["learner_decisions_per_cpu_s"] > 0
