"""Opponent changes take effect at episode boundaries: ``set_opponent`` on the vector env and the
trainer's snapshot refresh never swap the opponent of a game in progress, and every finished episode's
``info["opponent_id"]`` names the one opponent that played it.

The check does not trust the env's bookkeeping: a spy on the episode driver records which player
object took every opponent decision of every env, and splits them into episodes at every deal
(``EpisodeDriver.reset``), so an episode played by two opponents shows up as two objects in one episode.
"""

from __future__ import annotations

import numpy as np
import pytest

import cardgym


class Stamp:
    """An opponent that plays random legal moves; its identity is the object itself."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)

    def act(self, obs, masks):
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in masks], np.int64)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def __repr__(self):
        return f"Stamp({self.name})"


class DriverSpy:
    """Which player object decided in each env, episode by episode (split at every deal)."""

    def __init__(self, vec):
        drv = vec.driver
        n = vec.num_envs
        self.current = [set() for _ in range(n)]  # players of the episode in progress
        self.closed = [[] for _ in range(n)]  # episodes closed by a deal since the last `take`
        orig_reset, orig_decide = drv.reset, drv.decide

        def reset(seeds, idx=None, deck=None):
            for i in (range(n) if idx is None else np.asarray(idx)):
                self.closed[int(i)].append(self.current[int(i)])
                self.current[int(i)] = set()
            return orig_reset(seeds, idx, deck)

        def decide(pid, idx, seats):
            p = drv.players[pid]
            assert p is not None, "a dropped player was asked to decide"
            for i in idx:
                self.current[int(i)].add(id(p))
            return orig_decide(pid, idx, seats)

        drv.reset, drv.decide = reset, decide

    def finished(self, i) -> set:
        """The players of the episode env ``i`` just finished (call once per finished episode, right
        after the step that ended it): the first episode closed during that step, or the current one
        when the env restarts only on the next step (``"next_step"`` autoreset)."""
        out = self.closed[i][0] if self.closed[i] else self.current[i]
        return out

    def step_done(self):
        for c in self.closed:
            c.clear()


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_set_opponent_applies_at_each_games_next_episode(mode):
    n, rng = 12, np.random.default_rng(5)
    made = [Stamp(f"s{k}", k) for k in range(3)]

    def new_episode(idx):
        return rng.integers(0, 2**62, idx.size), np.zeros(idx.size, np.int64), rng.integers(0, 3, idx.size)

    v = cardgym.make_vec("skyjo", n, opponent=list(made), new_episode=new_episode, autoreset_mode=mode,
                         episode="round")
    assert v.opponent_ids == [0, 1, 2]
    who = {i: id(p) for i, p in zip(v.opponent_ids, v.opponents)}  # opponent id -> player object
    keep = list(made)  # (ids of objects alive all along are unique)
    spy = DriverSpy(v)
    obs, info = v.reset()
    spy.step_done()
    episodes = swaps_in_play = 0
    for t in range(400):
        if t % 3 == 0:  # a new opponent for a random index, games in progress or not
            k = int(rng.integers(3))
            playing = id(v.opponents[k]) in set().union(*spy.current)
            new = Stamp(f"s{len(keep)}", len(keep))
            keep.append(new)
            oid = v.set_opponent(k, new)
            assert v.opponent_ids[k] == oid and oid not in who
            who[oid] = id(new)
            swaps_in_play += playing
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = v.step(acts)
        done = term | trunc
        if done.any():
            np.testing.assert_array_equal(info["_opponent_id"], done)
        for i in np.flatnonzero(done):
            players = spy.finished(int(i))
            assert len(players) <= 1, f"env {i}: one episode played by {len(players)} opponents"
            assert players <= {who[int(info["opponent_id"][i])]}, f"env {i}: info names another opponent"
            episodes += 1
        spy.step_done()
    assert episodes > 60 and swaps_in_play > 25  # the swaps did land on games in progress
    # a replaced opponent is dropped once its games are over: the driver holds at most one per game
    assert sum(p is not None for p in v.driver.players) <= 3 + n


def test_set_opponent_copies_keep_the_replaced_opponent_in_play():
    """A copy (deepcopy, pickle) taken while a replaced opponent still plays continues identically."""
    import copy
    import pickle

    for make_copy in (copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))):
        v = cardgym.make_vec("skyjo", 6, opponent=["greedy", "random"], episode="round")
        _, info = v.reset(seed=3)
        v.set_opponent(0, "random")  # games 0, 2, 4 go on against greedy
        assert v.opponent_ids == [2, 1] and v.opponents == ["random", "random"]
        c = make_copy(v)
        assert c.opponent_ids == v.opponent_ids
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(80):
            a = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
            oa, ra, ta, ua, info = v.step(a)
            ob, rb, tb, ub, ib = c.step(a)
            np.testing.assert_array_equal(oa, ob)
            np.testing.assert_array_equal(ra, rb)
            assert info.get("opponent_id", np.array([])).tolist() == ib.get("opponent_id", np.array([])).tolist()
            ended += int((ta | ua).sum())
        assert ended > 6


def test_compiled_opponent_episodes_name_opponent_zero():
    v = cardgym.make_vec("skyjo", 4, opponent="greedy", episode="round")
    _, info = v.reset(seed=0)
    for _ in range(200):
        acts = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
        _, _, term, trunc, info = v.step(acts)
        if (term | trunc).any():
            assert info["opponent_id"][term | trunc].tolist() == [0] * int((term | trunc).sum())
            return
    raise AssertionError("no episode ended")


# ------------------------------------------------------------------ the trainer
def _selfplay(seed, iterations=8):
    """A small self-play run (pool of 2, a snapshot every iteration) with the driver spied on; returns
    the trainer and the recounted episodes ``(opponent id, score)``, after checking every episode."""
    pytest.importorskip("torch")
    from cardgym.train import Config, Trainer

    tr = Trainer(Config(game="skyjo", rules={"episode": "round"}, seed=seed, num_envs=8, rollout=16, epochs=1,
                        minibatch=64, hidden=(16,), opponents="greedy:0.3,self:0.7", pool_size=2,
                        snapshot_every=1, threads=1, progress=False, eval_every=0, out="unused"))
    vec = tr.vec
    who = {i: id(p) for i, p in zip(vec.opponent_ids, vec.opponents)}
    spy = DriverSpy(vec)
    episodes, ret = [], np.zeros((8, tr.np))
    step = vec.step

    def spied_step(acts):
        out = step(acts)
        info = out[4]
        ret[:] += vec.seat_rewards[:, : tr.np]
        for i in np.flatnonzero(out[2] | out[3]):
            oid = int(info["opponent_id"][i])
            players = spy.finished(int(i))
            assert len(players) <= 1 and players <= {who[oid]}, f"env {i}: opponents {players}, info {oid}"
            best = ret[i].max()
            me = ret[i, seats_before[i]]
            episodes.append((oid, 1.0 / (ret[i] == best).sum() if me == best else 0.0))
            ret[i] = 0
        spy.step_done()
        seats_before[:] = tr.seats
        return out

    vec.step = spied_step
    tr._assign()
    spy.step_done()
    seats_before = tr.seats.copy()
    for _ in range(iterations):
        tr.update(tr.collect())
        tr._snapshot()
        who.update({i: id(p) for i, p in zip(vec.opponent_ids, vec.opponents)})
    return tr, episodes


@pytest.mark.slow
def test_selfplay_snapshots_land_at_episode_boundaries_and_stats_match_a_recount():
    tr, episodes = _selfplay(seed=3)
    assert len(episodes) > 20
    snap_ids = {i for i, _ in episodes if tr.opp_kind[i] == tr.kinds.index("self")}
    assert len(snap_ids) >= 3  # episodes against several generations of snapshots
    recount: dict = {}
    for oid, score in episodes:
        st = recount.setdefault(oid, [0, 0.0])
        st[0] += 1
        st[1] += score
    assert tr.opponent_stats.keys() == recount.keys()
    for oid, (n, score) in recount.items():
        assert tr.opponent_stats[oid][0] == n and tr.opponent_stats[oid][1] == pytest.approx(score)
    # the windows by kind are the same outcomes
    assert sorted(tr.window["self"]) == sorted(s for i, s in episodes if i in snap_ids)
    # a seeded run replays exactly
    again, episodes_again = _selfplay(seed=3)
    assert episodes_again == episodes and again.opponent_stats == tr.opponent_stats
    for k, w in tr.net.state_dict().items():
        assert (w == again.net.state_dict()[k]).all()


def test_rllib_policy_slot_refresh_lands_at_episode_boundaries():
    """`PolicySlot.set_policy` in an `RLlibVectorEnv` (the RLlib self-play refresh): games in progress
    finish against the policy they started with, later episodes play the new one."""
    from cardgym.wrappers import RLlibVectorEnv

    env = RLlibVectorEnv("skyjo", 8, opponent="self", keep_info=True, episode="round")
    slot, block = env.policy_slots[0], env.envs[0].unwrapped
    spy = DriverSpy(block)
    obs, info = env.reset(seed=1)
    spy.step_done()
    rng = np.random.default_rng(2)
    episodes, refreshes_in_play = 0, 0
    for t in range(300):
        if t % 5 == 0:
            refreshes_in_play += bool(set().union(*spy.current))
            slot.set_policy(Stamp(f"p{t}", t))
        mask = obs["action_mask"]
        obs, rew, term, trunc, info = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        for i in np.flatnonzero(term | trunc):
            assert len(spy.finished(int(i))) <= 1, f"env {i}: one episode played by two policies"
            episodes += 1
        spy.step_done()
    assert episodes > 20 and refreshes_in_play > 20
    assert block.opponents[0].policy is slot.policy


def test_sb3_vec_env_infos_name_the_opponent():
    pytest.importorskip("stable_baselines3")
    from cardgym.wrappers.sb3 import make_vec_env

    venv = make_vec_env("skyjo", 4, opponent=["random", "greedy"], episode="round")
    venv.reset()
    ended = 0
    for _ in range(300):
        masks = venv.action_masks()
        venv.step_async(np.array([np.flatnonzero(m)[0] for m in masks]))
        _, _, dones, infos = venv.step_wait()
        for i in np.flatnonzero(dones):
            assert infos[i]["opponent_id"] == i % 2  # env i plays opponent[i % 2]
            ended += 1
    assert ended >= 4

