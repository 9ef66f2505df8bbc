"""Batched self-play for RLlib (``cardgym.wrappers.rllib_selfplay`` without Ray; the EnvRunner
``cardgym.wrappers.rllib_runner.SelfPlayEnvRunner`` and ``examples/rllib_selfplay_batched.py`` with Ray).

Without Ray: `SelfPlayBatch` cut into per-seat chunks must give, game by game and seat by seat, exactly
what the PettingZoo AEC env gives that seat when the same deal is replayed with the same actions (its
observations at its turns, the rewards ``last()`` reports, the end), however the harvests fall.
With Ray (skipped with the reason when ``ray.rllib`` does not import): the EnvRunner samples legal
actions from ``MaskedMLPModule`` in every seat, its episodes go through RLlib's PPO learner, and the
example runs end to end.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import cardgym
from cardgym.wrappers.rllib_selfplay import SelfPlayBatch
from conftest import assert_ppo_update_learns

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_selfplay_batched.py"


def _play(batch, steps, rng, harvest_every):
    """Random legal actions (with a fake 'logp' extra per decision); harvests at the given intervals."""
    chunks = []
    obs = batch.reset(seed=5)
    for t in range(steps):
        m = obs["action_mask"]
        acts = np.array([rng.choice(np.flatnonzero(row)) for row in m], np.int64)
        batch.step(acts, {"logp": np.full(batch.num_envs, float(t), np.float32), "vec": np.tile(acts[:, None], 2)})
        obs = batch.observe()
        if harvest_every and rng.random() < 1.0 / harvest_every:
            chunks += batch.harvest()
    return chunks + batch.harvest()


def _stitch(chunks):
    """(episode, seat) -> the chunks' data joined (observations overlap by one between chunks)."""
    by = defaultdict(list)
    for c in chunks:
        by[(c.episode, c.seat)].append(c)
    out = {}
    for key, cs in by.items():
        assert cs[0].first and not any(c.first for c in cs[1:]), key
        assert all(not c.done for c in cs[:-1]), key
        assert [c.t0 for c in cs] == np.cumsum([0] + [len(c) for c in cs[:-1]]).tolist(), key
        for a, b in zip(cs, cs[1:]):  # a chunk ends on the observation its successor starts with
            np.testing.assert_array_equal(a.obs[-1], b.obs[0])
            np.testing.assert_array_equal(a.masks[-1], b.masks[0])
        out[key] = dict(
            obs=np.concatenate([c.obs[:-1] for c in cs] + [cs[-1].obs[-1:]]),
            masks=np.concatenate([c.masks[:-1] for c in cs] + [cs[-1].masks[-1:]]),
            actions=np.concatenate([c.actions for c in cs]),
            rewards=np.concatenate([c.rewards for c in cs]),
            logp=np.concatenate([c.extras["logp"] for c in cs]),
            vec=np.concatenate([c.extras["vec"] for c in cs]),
            done=cs[-1].done, terminated=cs[-1].terminated, truncated=cs[-1].truncated,
            seed=cs[0].seed, game=cs[0].game,
        )
    return out


def _aec_replay(name, options, seed, seat_actions):
    """Replay one deal in the AEC env, each seat taking its recorded actions in order. Returns, per
    seat, its observations/masks at its turns, the reward ``last()`` reports at each next turn or end,
    and how it ended."""
    env = importlib.import_module(cardgym.GAMES[name].module).env(**options)
    env.reset(seed=seed)
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    got = {s: dict(obs=[], masks=[], rewards=[], end=None) for s in seat_of.values()}
    used = defaultdict(int)
    started = set()
    for agent in env.agent_iter(100_000):
        s = seat_of[agent]
        obs, rew, term, trunc, _ = env.last()
        if s in started:
            got[s]["rewards"].append(rew)
        if term or trunc:
            got[s]["end"] = ("terminated" if term else "truncated")
            got[s]["obs"].append(obs["observation"])
            got[s]["masks"].append(obs["action_mask"])
            env.step(None)
            continue
        got[s]["obs"].append(obs["observation"])
        got[s]["masks"].append(obs["action_mask"])
        started.add(s)
        if used[s] == len(seat_actions[s]):
            return got, False  # the batch's record of this game ends here (still running)
        env.step(int(seat_actions[s][used[s]]))
        used[s] += 1
    return got, True


@pytest.mark.parametrize("name,options,harvest_every", [
    ("skyjo", {"num_players": 2}, 3),
    ("skyjo", {"num_players": 3, "reward": "score"}, 1),
    ("skipbo", {"num_players": 2, "stock_size": 5}, 7),
    ("skipbo_junior", {"num_players": 4}, 0),
], ids=["skyjo-2p", "skyjo-3p-score", "skipbo-2p", "junior-4p-one-harvest"])
def test_seat_chunks_are_the_aec_env_seen_by_each_seat(name, options, harvest_every):
    batch = SelfPlayBatch(name, 5, **options)
    chunks = _play(batch, 400, np.random.default_rng(1), harvest_every)
    trajectories = _stitch(chunks)
    finished = {ep for (ep, s), tr in trajectories.items() if tr["done"]}
    assert len(finished) >= 3, "some games finished"
    total_steps = sum(len(c) for c in chunks)
    open_decisions = int(batch._p_has.sum())
    assert total_steps + open_decisions == 400 * 5, "every decision is in exactly one chunk or still open"
    by_episode = defaultdict(dict)
    for (ep, s), tr in trajectories.items():
        by_episode[ep][s] = tr
    for ep, seats in by_episode.items():
        any_tr = next(iter(seats.values()))
        players = batch.num_players
        actions = {s: (seats[s]["actions"] if s in seats else np.zeros(0, np.int64)) for s in range(players)}
        if not any_tr["done"]:  # the open decisions (played, kept by the batch for the next harvest)
            g = any_tr["game"]
            actions = {s: np.append(a, batch._p_action[g, s]) if batch._p_has[g, s] else a for s, a in actions.items()}
        ref, ended = _aec_replay(name, options, any_tr["seed"], actions)
        assert ended == any_tr["done"]
        for s, tr in seats.items():
            n = len(tr["actions"])
            assert tr["masks"][np.arange(n), tr["actions"]].all(), "actions legal under their masks"
            np.testing.assert_array_equal(tr["obs"][:n], np.asarray(ref[s]["obs"][:n]))
            np.testing.assert_array_equal(tr["masks"][:n], np.asarray(ref[s]["masks"][:n], np.float32))
            np.testing.assert_array_equal(tr["vec"][:, 0], tr["actions"])
            if tr["done"]:
                assert len(ref[s]["obs"]) == n + 1
                np.testing.assert_array_equal(tr["obs"][n], ref[s]["obs"][n])
                assert not tr["masks"][n].any()
                assert ref[s]["end"] == ("terminated" if tr["terminated"] else "truncated")
                np.testing.assert_allclose(tr["rewards"], ref[s]["rewards"][:n], atol=1e-6)
            else:  # the last chunk ends on the open decision's observation; rewards of closed decisions
                np.testing.assert_array_equal(tr["obs"][n], ref[s]["obs"][n])
                np.testing.assert_allclose(tr["rewards"], ref[s]["rewards"][:n], atol=1e-6)
    # the logp extra went with its decision: one value per step, increasing along each seat's trajectory
    for tr in trajectories.values():
        assert (np.diff(tr["logp"]) > 0).all()


def test_finished_games_are_counted_with_their_returns():
    batch = SelfPlayBatch("skyjo", 4)
    _play(batch, 300, np.random.default_rng(0), 0)
    done = batch.pop_finished()
    assert len(done) == batch.games_finished > 0
    for decisions, returns, status in done:
        assert decisions > 0 and returns.shape == (2,) and status in (1, 2)
        assert returns.sum() == pytest.approx(0.0, abs=1e-6)  # "win": +1 / -1 (or 0 each in a draw)
    assert batch.pop_finished() == []


def test_spaces_and_bad_input():
    batch = SelfPlayBatch("skipbo", 3)
    g = cardgym.make_vec("skipbo", 3)
    assert batch.single_observation_space["observations"] == g.single_observation_space
    assert batch.single_observation_space["action_mask"].shape == (g.single_action_space.n,)
    assert batch.single_action_space == g.single_action_space and batch.unwrapped is batch
    with pytest.raises(RuntimeError, match="reset"):
        batch.observe()
    obs = batch.reset(seed=0)
    assert batch.observation_space.contains(obs)
    with pytest.raises(ValueError, match="not legal"):
        batch.step(np.array([np.flatnonzero(m == 0)[0] for m in obs["action_mask"]]))
    with pytest.raises(ValueError, match="3 integers"):
        batch.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="3 integers"):
        batch.step(np.zeros(3, np.float32))
    legal = np.argmax(obs["action_mask"], axis=1)
    with pytest.raises(ValueError, match="rows"):
        batch.step(legal, {"logp": np.zeros(2)})
    batch.step(legal)  # without observe() in between: the seats to act are read by step()
    batch.step(np.argmax(batch.runner.masks, axis=1))
    chunks = batch.harvest()
    assert sum(len(c) for c in chunks) + int(batch._p_has.sum()) == 6
    with pytest.raises(ValueError, match="unknown game"):
        SelfPlayBatch("chess", 2)
    with pytest.raises(ValueError, match="num_envs"):
        SelfPlayBatch("skyjo", 0)


@pytest.mark.subprocess
def test_cardgym_and_the_example_import_no_ray():
    code = (
        "import importlib.util, sys\n"
        "import cardgym, cardgym.wrappers, cardgym.wrappers.rllib_selfplay\n"
        f"spec = importlib.util.spec_from_file_location('ex', {str(EXAMPLE)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "bad = sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------- with Ray installed
def _example():
    spec = importlib.util.spec_from_file_location("rllib_selfplay_batched", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # imports no Ray at module level
    return mod


def _config(**overrides):
    """The example's PPOConfig with test-sized settings (no ray.init needed for num_env_runners=0)."""
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (pip install -e '.[rllib]')")
    pytest.importorskip("torch")
    import argparse

    args = dict(game="skyjo", players=2, reward=None, envs_per_runner=6, train_batch=240, minibatch=120, epochs=1,
                lr=1e-3, ent_coef=0.01, gamma=0.99, hidden=[32], num_env_runners=0, seed=0)
    args.update(overrides)
    return _example().build_config(argparse.Namespace(**args))


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.parametrize("game,players", [("skyjo", 2), ("skipbo", 3)])
def test_selfplay_env_runner_plays_every_seat_and_trains(game, players):
    """The EnvRunner (no ray.init): every seat's decisions come back as SingleAgentEpisodes whose
    actions are legal and whose logits/log-probabilities are the module's at those observations; the
    PPO learner updates on them; finished games show in the metrics."""
    config = _config(game=game, players=players)
    import torch
    from ray.rllib.core.columns import Columns

    from cardgym.wrappers.rllib_module import MaskedMLPModule
    from cardgym.wrappers.rllib_runner import SelfPlayEnvRunner

    runner = SelfPlayEnvRunner(config=config)
    assert isinstance(runner.env, SelfPlayBatch) and runner.env.num_envs == 6
    assert isinstance(runner.module, MaskedMLPModule)
    episodes = runner.sample(num_timesteps=240)
    seats = {ep.id_.rsplit("-", 1)[1] for ep in episodes}
    assert seats == {str(s) for s in range(players)}
    steps = sum(len(ep) for ep in episodes)
    assert 240 - 6 * players <= steps <= 240
    for ep in episodes:
        assert ep.is_numpy
        obs = ep.get_observations(slice(0, len(ep)))
        acts = ep.get_actions(slice(0, len(ep)))
        assert obs["action_mask"][np.arange(len(ep)), acts].all()
        with torch.no_grad():
            logits = runner.module.forward_inference(
                {"obs": {k: torch.as_tensor(v) for k, v in obs.items()}})["action_dist_inputs"]
        np.testing.assert_allclose(ep.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS, slice(0, len(ep))),
                                   logits.numpy(), rtol=1e-5, atol=1e-5)
        logp = torch.log_softmax(logits, -1)[torch.arange(len(ep)), torch.as_tensor(acts)].numpy()
        np.testing.assert_allclose(ep.get_extra_model_outputs(Columns.ACTION_LOGP, slice(0, len(ep))), logp,
                                   rtol=1e-4, atol=1e-5)
    assert_ppo_update_learns(config, runner, episodes, steps)
    runner.sample(num_episodes=2)  # plays on until two more games have finished
    metrics = runner.get_metrics()
    assert metrics["num_episodes_lifetime"].peek() >= 2
    assert metrics["episode_len_mean"].peek() > players
    assert set(metrics["agent_episode_return_mean"]) == {f"seat_{s}" for s in range(players)}


@pytest.mark.slow
@pytest.mark.rllib
@pytest.mark.subprocess
def test_selfplay_example_end_to_end(tmp_path):
    """The script as a user runs it (a local Ray, one EnvRunner actor): trains two iterations,
    evaluates, writes results.json and a checkpoint."""
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (pip install -e '.[rllib]')")
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--iterations", "2", "--num-env-runners", "1", "--envs-per-runner", "8",
         "--train-batch", "256", "--minibatch", "128", "--epochs", "1", "--hidden", "16", "--eval-games", "4",
         "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads((out / "results.json").read_text())
    assert len(res["history"]) == 2 and res["history"][-1]["env_steps"] >= 512
    assert res["num_env_runners"] == 1 and res["envs_per_runner"] == 8 and res["steps_per_second"] > 0
    from cardgym.eval import baseline_bots

    assert set(res["final_eval"]) == set(baseline_bots("skyjo"))
    assert (out / "checkpoint").is_dir()
    assert "training throughput" in proc.stdout


@pytest.mark.slow
@pytest.mark.rllib
def test_examples_wait_for_slow_env_runners():
    """Both batched examples give RLlib a long sample timeout (default 600 s, ``--sample-timeout``):
    with RLlib's 60 s, EnvRunner actors (run by Ray at niceness 15) on a busy machine returned no steps."""
    config = _config()
    assert config.sample_timeout_s == 600.0
    assert _config(sample_timeout=30.0).sample_timeout_s == 30.0
    spec = importlib.util.spec_from_file_location("rllib_batched", EXAMPLE.parent / "rllib_batched.py")
    batched = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(batched)
    import argparse

    args = argparse.Namespace(game="skyjo", players=2, opponents="random", seat="random", envs_per_runner=4,
                              train_batch=64, minibatch=32, epochs=1, lr=1e-3, ent_coef=0.0, gamma=0.99,
                              hidden=[8], num_env_runners=0, seed=0, snapshot_every=1)
    assert batched.build_config(args).sample_timeout_s == 600.0
