"""Untrusted input can never crash or corrupt (issue 11): numpy option scalars, hostile options and
actions in every layer, games that end inside reset(), the Skip-Bo cover pile at a win, stacked decks
in the single-agent env, and a vector env stepped from two threads."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import gymnasium as gym
import numpy as np
import pytest

import cardgym
from cardgym.core.state.actions import ActionTypeError
from cardgym.core.state.status import RUNNING

GAMES = ["skyjo", "skipbo", "skipbo_junior"]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]

#: every integer option of every game, with a value small enough for int8 (and not the default)
INT_OPTIONS = {
    "skyjo": {"num_players": 3, "end_score": 50, "max_rounds": 3, "max_turns": 100, "stall_rounds": 5},
    "skipbo": {"num_players": 3, "stock_size": 12, "first_player": 1, "stall_rounds": 3, "max_turns": 100,
               "match_target": 100},
    "skipbo_junior": {"num_players": 3, "stock_size": 12, "stall_rounds": 3, "first_player": 1,
                      "max_turns": 100},
}
BOOL_OPTIONS = {
    "skyjo": [],
    "skipbo": ["recycle_build_piles", "stock_points", "teams", "wild_must_be_covered"],
    "skipbo_junior": ["must_play", "recycle_build_piles"],
}


def _raw_env(name):
    mod = {"skyjo": "cardgym.skyjo_v0", "skipbo": "cardgym.skipbo_v0", "skipbo_junior": "cardgym.skipbo_junior_v0"}
    import importlib

    return importlib.import_module(mod[name])


# ------------------------------------------------------------------ numpy option scalars
@pytest.mark.parametrize("name", GAMES)
def test_numpy_integer_options_behave_like_python_ints(name):
    game = cardgym.get_game(name)
    mod = _raw_env(name)
    gym_id = cardgym.GAMES[name].gym_id
    for key, value in INT_OPTIONS[name].items():
        want_rules = game.make_rules(**{key: value})
        want_aec = mod.raw_env(**{key: value})
        want_space = want_aec.observation_space("player_0")["observation"].shape
        for dt in INT_DTYPES:
            opts = {key: dt(value)}
            rules = game.make_rules(**opts)
            assert rules == want_rules and type(getattr(rules, key)) is int, (key, dt)
            assert rules.params().tolist() == want_rules.params().tolist()
            aec = mod.raw_env(**opts)
            assert aec.observation_space("player_0")["observation"].shape == want_space, (key, dt)
            aec.reset(seed=1)
            json.dumps(aec.state_dict())
            single = gym.make(gym_id, **opts).unwrapped
            assert single.observation_space.shape == want_space, (key, dt)
            json.dumps(single.rules.as_dict())
            vec = cardgym.make_vec(name, 2, **opts)
            assert vec.single_observation_space.shape == want_space, (key, dt)
            json.dumps(vec.rules.as_dict())


@pytest.mark.parametrize("name", GAMES)
def test_numpy_bool_options_are_stored_as_bool(name):
    game = cardgym.get_game(name)
    mod = _raw_env(name)
    for key in BOOL_OPTIONS[name]:
        for value in (False, True):
            opts = {key: np.bool_(value)}
            if key == "teams" and value:
                opts["num_players"] = np.int8(4)
            rules = game.make_rules(**opts)
            assert type(getattr(rules, key)) is bool and getattr(rules, key) is value
            aec = mod.raw_env(**opts)
            aec.reset(seed=0)
            json.dumps(aec.state_dict())
            gym.make(cardgym.GAMES[name].gym_id, **opts)
            cardgym.make_vec(name, 2, **opts)
        with pytest.raises(ValueError, match=key):
            game.make_rules(**{key: 1})  # an int is not a bool
        with pytest.raises(ValueError, match=key):
            game.make_rules(**{key: np.int8(1)})


def test_the_reported_int8_observation_overflow():
    e = gym.make("cardgym/Skyjo-v0", num_players=np.int8(2))
    assert e.observation_space.shape == gym.make("cardgym/Skyjo-v0", num_players=2).observation_space.shape
    obs, info = e.reset(seed=0)
    e.step(int(np.flatnonzero(info["action_mask"])[0]))


@pytest.mark.parametrize("name", GAMES)
def test_hostile_integer_options_raise_naming_option_and_range(name):
    game = cardgym.get_game(name)
    for key in INT_OPTIONS[name]:
        for bad in (2**31, 2**63, np.uint64(2**64 - 1), -1, -(2**63), np.int64(-5)):
            with pytest.raises(ValueError, match=rf"{key}.*(allowed|range)"):
                game.make_rules(**{key: bad})
        for bad in (2.0, np.float32(2), "2", True, np.bool_(True), [2], np.array([2]), 2 + 0j):
            with pytest.raises(ValueError, match=key):
                game.make_rules(**{key: bad})


@pytest.mark.slow
@pytest.mark.subprocess
def test_hostile_options_never_crash_the_interpreter():
    """Every layer built with hostile options, in a subprocess: only ValueErrors, never a crash."""
    script = textwrap.dedent(
        """
        import numpy as np, gymnasium as gym, cardgym, importlib
        INT = %r
        hostile = [2**31, 2**63, 2**64, -1, np.uint64(2**64 - 1), np.int8(-128), 2.5, np.float64(3), "3",
                   True, np.bool_(False), [3], np.array(3.0), None, object()]
        mods = {"skyjo": "cardgym.skyjo_v0", "skipbo": "cardgym.skipbo_v0",
                "skipbo_junior": "cardgym.skipbo_junior_v0"}
        refused = 0
        for name, opts in INT.items():
            mod = importlib.import_module(mods[name])
            for key in opts:
                for bad in hostile:
                    for make in (lambda o: mod.raw_env(**o), lambda o: gym.make(cardgym.GAMES[name].gym_id, **o),
                                 lambda o: cardgym.make_vec(name, 2, **o)):
                        try:
                            e = make({key: bad})
                        except ValueError:
                            refused += 1
                            continue
                        e.reset(seed=0)  # the few accepted (None where allowed) must run
        print("refused", refused)
        """
    ) % (INT_OPTIONS,)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "refused" in out.stdout


# ------------------------------------------------------------------------------ actions
HOSTILE_ACTIONS = [0.7, np.float32(0.9), 1.0, "0", True, np.bool_(True), [0], np.array([0]),
                   np.array(0.0), object(), 1 + 0j]


def _legal(mask):
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("name", GAMES)
def test_actions_one_rule_in_every_layer(name):
    mod = _raw_env(name)
    game = cardgym.get_game(name)
    n = game.num_actions
    # raw AEC and env() (PettingZoo's wrappers)
    for make in (mod.raw_env, mod.env):
        e = make()
        e.reset(seed=0)
        for bad in HOSTILE_ACTIONS + [None]:
            with pytest.raises(ActionTypeError):
                e.step(bad)
        for bad in (-1, n, np.uint64(2**64 - 1), np.int8(-1)):
            with pytest.raises(ValueError, match="out of range"):
                e.step(bad)
        for dt in INT_DTYPES:
            e.reset(seed=0)
            e.step(dt(_legal(e.unwrapped.action_mask())))
        e.reset(seed=0)
        e.step(np.array(_legal(e.unwrapped.action_mask()), np.uint64))  # a 0-d integer array
    # single-agent
    s = gym.make(cardgym.GAMES[name].gym_id).unwrapped
    _, info = s.reset(seed=0)
    for bad in HOSTILE_ACTIONS + [None]:
        with pytest.raises(ActionTypeError):
            s.step(bad)
    for bad in (-1, n, np.uint64(2**63)):
        with pytest.raises(ValueError, match="out of range"):
            s.step(bad)
    for dt in INT_DTYPES:
        _, info = s.reset(seed=0)
        s.step(dt(_legal(info["action_mask"])))
    # vector
    v = cardgym.make_vec(name, 3)
    _, info = v.reset(seed=0)
    legal = np.array([_legal(m) for m in info["action_mask"]])
    for bad in (legal.astype(np.float64), legal.astype(bool), legal.astype(str), [0.5, 1, 2], [True, False, True]):
        with pytest.raises(ActionTypeError):
            v.step(bad)
    for bad in (legal[:2], np.stack([legal, legal]), np.int64(legal[0])):
        with pytest.raises(ValueError, match="shape"):
            v.step(bad)
    for bad_value in (-1, n, 2**63):
        acts = legal.astype(np.uint64 if bad_value > 0 else np.int64)
        acts[1] = bad_value
        with pytest.raises(ValueError, match="out of range"):
            v.step(acts)
    assert v._states["status"].tolist() == [RUNNING] * 3  # nothing reached the kernels
    for dt in INT_DTYPES:
        _, info = v.reset(seed=0)
        _, _, _, _, info = v.step(np.array([_legal(m) for m in info["action_mask"]], dt))
        assert "illegal_action" not in info
    _, info = v.reset(seed=0)
    v.step([_legal(m) for m in info["action_mask"]])  # a list of Python ints


# ------------------------------------------------------------------- end inside reset()
JUNIOR_DEAD = {"num_players": 2, "stock_size": 48}  # seed 0 ends (stall draw) inside reset()


def test_junior_game_decided_in_reset_raw_aec():
    from cardgym.skipbo_junior_v0 import raw_env

    e = raw_env(**JUNIOR_DEAD)
    e.reset(seed=0)
    assert e.record["status"] != RUNNING
    assert all(e.terminations.values()) or all(e.truncations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}  # a draw pays nobody
    assert all("result" in i for i in e.infos.values())
    steps = 0
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        assert term or trunc
        assert not obs["action_mask"].any()
        e.step(None)
        steps += 1
    assert steps == 2 and e.agents == []


def test_junior_game_decided_in_reset_wrapped_env_pays_nobody():
    from cardgym.skipbo_junior_v0 import env

    e = env(**JUNIOR_DEAD)
    e.reset(seed=0)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        total[agent] += rew
        assert term or trunc
        e.step(None)
    assert total == {"player_0": 0.0, "player_1": 0.0}


def test_junior_truncated_in_reset_is_reported_truncated():
    from cardgym.skipbo_junior_v0 import raw_env

    e = raw_env(max_turns=1)
    seen = 0
    for seed in range(200):
        e.reset(seed=seed)
        if e.record["status"] != RUNNING:  # the first player had no play: turn cap reached in reset
            seen += 1
            assert all(e.truncations.values()) and not any(e.terminations.values())
    assert seen > 0


def test_junior_single_and_vector_envs_never_show_a_dead_state():
    s = gym.make("cardgym/SkipBoJunior-v0", **JUNIOR_DEAD).unwrapped
    for seed in range(20):
        obs, info = s.reset(seed=seed)
        assert info["action_mask"].any() and s._states[0]["status"] == RUNNING
    v = cardgym.make_vec("skipbo_junior", 16, **JUNIOR_DEAD)
    _, info = v.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        live = info["action_mask"].any(axis=1)
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]])
        _, _, term, trunc, info = v.step(acts)
        ends += int((term | trunc).sum())
        # next_step autoreset: a finished game shows the terminal mask until the next step re-deals it live
        assert (info["action_mask"].any(axis=1) | term | trunc).all()
        assert live.any()
    v2 = cardgym.make_vec("skipbo_junior", 16, autoreset_mode="same_step", **JUNIOR_DEAD)
    _, info = v2.reset(seed=0)
    for _ in range(60):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        _, _, term, trunc, info = v2.step(acts)
        assert info["action_mask"].any(axis=1).all()  # autoreset never hands back a dead deal
    assert ends > 0


@pytest.mark.parametrize("name,opts", [
    ("skyjo", {"max_turns": 1, "stall_rounds": 1}),
    ("skyjo", {"max_turns": 1, "setup_reveal": "random", "num_players": 8}),
    ("skipbo", {"max_turns": 1, "stall_rounds": 1, "stock_size": 81}),
    ("skipbo", {"max_turns": 1, "stock_size": 1, "recycle_build_piles": False, "num_players": 6}),
])
def test_skyjo_and_skipbo_never_end_inside_reset(name, opts):
    mod = _raw_env(name)
    e = mod.raw_env(**opts)
    for seed in range(100):
        e.reset(seed=seed)
        assert e.record["status"] == RUNNING and e.action_mask().any()


@pytest.mark.parametrize("name", ["skipbo", "skipbo_junior"])
def test_learner_that_can_never_act_is_refused_not_hung(name):
    gym_id = cardgym.GAMES[name].gym_id
    with pytest.raises(ValueError, match="max_turns"):
        gym.make(gym_id, max_turns=1, seat=1)
    with pytest.raises(ValueError, match="max_turns"):
        cardgym.make_vec(name, 2, max_turns=2, seat=2, num_players=3)
    e = gym.make(gym_id, max_turns=1, seat="random")  # some deals give the learner the first turn
    e.reset(seed=0)


# --------------------------------------------------------------- stacked decks, single env
def _junior_dead_deck():
    """A Junior deck on which the 2-player game (stock 48) ends inside reset()."""
    from cardgym.skipbo_junior_v0 import raw_env

    game = cardgym.get_game("skipbo_junior")
    e = raw_env(**JUNIOR_DEAD)
    rng = np.random.default_rng(0)
    for _ in range(500):
        deck = rng.permutation(game.deck)
        e.reset(seed=0, options={"deck": deck})
        if e.record["status"] != RUNNING:
            return deck
    raise AssertionError("no dead deck found")


def test_single_env_refuses_a_stacked_deck_that_ends_before_the_learner_acts():
    deck = _junior_dead_deck()
    s = gym.make("cardgym/SkipBoJunior-v0", **JUNIOR_DEAD)
    with pytest.raises(ValueError, match="stacked deck ends the episode"):
        s.reset(seed=0, options={"deck": deck})
    p = gym.make("cardgym/SkipBoJunior-v0", opponent=lambda obs, mask: int(np.flatnonzero(mask)[0]), **JUNIOR_DEAD)
    with pytest.raises(ValueError, match="stacked deck ends the episode"):
        p.reset(seed=0, options={"deck": deck})


def test_junior_single_env_stacked_deck_mask_is_after_the_opponents_turns():
    """Item 5: the learner's first mask on a stacked deck is the AEC's after the opponents (the same bot,
    the same generator) played the turns before the learner's seat, not a mismatch."""
    from cardgym.skipbo_junior_v0 import raw_env

    game = cardgym.get_game("skipbo_junior")
    rng = np.random.default_rng(3)
    moved_first = 0
    for seed in range(60):
        deck = rng.permutation(game.deck)
        a = raw_env()
        a.reset(seed=seed, options={"deck": deck})
        if a.record["status"] != RUNNING:
            continue
        while a.agent_selection != "player_0" and a.record["status"] == RUNNING:
            a.step(a.bot_action("random"))
            moved_first += 1
        if a.record["status"] != RUNNING:
            continue
        s = gym.make("cardgym/SkipBoJunior-v0", opponent="random").unwrapped
        _, info = s.reset(seed=seed, options={"deck": deck})
        assert np.array_equal(info["action_mask"], a.action_mask()), seed
        assert int(s._states[0]["turn"]) == int(a.record["turn"])
    assert moved_first > 0


# -------------------------------------------------------------------------- cover pile
def test_skipbo_wild_winning_the_hand_leaves_no_cover_pile():
    from cardgym.skipbo_v0 import raw_env

    game = cardgym.get_game("skipbo")
    deck = list(game.deck)
    # front = top: seat 0's one stock card is a wild, seat 1's a 12, then seat 0 draws a 2
    for card in (0, 12, 2):
        deck.remove(card)
    deck = [0, 12, 2] + deck
    e = raw_env(stock_size=1, wild_must_be_covered=True)
    e.reset(seed=0, options={"deck": deck})
    assert e.agent_selection == "player_0"
    stock_plays = [a for a in e.legal_actions() if a // 4 == 0]
    assert stock_plays, "the wild (coverable by the 2 in hand) may be played from the stock"
    e.step(stock_plays[0])
    assert e.record["status"] != RUNNING and e.record["winner"] == 0
    assert e.record["cover"] == -1
    sl = e.encoder.offsets(e.rules)["cover_pile"]
    assert not e.observe("player_0")["observation"][sl].any()
    d = raw_env(stock_size=1, wild_must_be_covered=True, observation="dict")
    d.reset(seed=0, options={"deck": deck})
    d.step(stock_plays[0])
    assert int(d.observe("player_0")["observation"]["cover_pile"]) == -1


# ------------------------------------------------------------------------------ threads
def test_vector_env_stepped_from_two_threads_raises():
    inside, release = threading.Event(), threading.Event()

    def slow_opponent(obs, mask):
        inside.set()
        release.wait(60)
        return int(np.flatnonzero(mask)[0])

    v = cardgym.make_vec("skyjo", 2, opponent=slow_opponent)
    release.set()
    v.reset(seed=0)
    release.clear()
    inside.clear()
    errors = []

    def legal_now():
        return np.array([_legal(m) if m.any() else 0 for m in v.action_masks()])

    def first():  # steps until a step blocks inside the opponent, then finishes that step
        try:
            while not inside.is_set():
                v.step(legal_now())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=first)
    t.start()
    assert inside.wait(60)
    with pytest.raises(RuntimeError, match="another step"):
        v.step(np.zeros(2, np.int64))
    with pytest.raises(RuntimeError, match="another step"):
        v.reset(seed=1)
    release.set()
    t.join(60)
    assert not errors
    _, _, _, _, info = v.step(legal_now())
    assert "illegal_action" not in info
