"""``state_dict``/``load_state_dict`` of the single-agent and vector environments (the AEC env's are
in test_env_api.py and test_tamper.py): exact round trips, and refusals that leave the env as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import GAME_NAMES as GAMES


@pytest.mark.parametrize("game_name", GAMES)
def test_single_env_state_dict_round_trip_and_refusal(game_name):
    import gymnasium as gym

    import cardgym

    gid = cardgym.GAMES[game_name].gym_id
    g = gym.make(gid, opponent="greedy", seat="random").unwrapped
    g.reset(seed=3)
    for _ in range(6):  # an episode may be shorter: stop at its last decision
        _, _, term, trunc, _ = g.step(int(np.flatnonzero(g.action_masks())[0]))
        if term or trunc:
            g.reset(seed=4)
            break
    state = json.loads(json.dumps(g.state_dict()))
    h = gym.make(gid, opponent="greedy", seat="random").unwrapped
    h.reset(seed=9)
    before = h.state_dict()
    bad_state = json.loads(json.dumps(state))
    n = g.rules.num_players  # another seat, or with one seat a seat that does not exist
    bad_state["record"]["current"] = (state["record"]["current"] + 1) % n if n > 1 else 1
    with pytest.raises(ValueError):
        h.load_state_dict(bad_state)
    if "draw_len" in state["record"]:
        bad_state = json.loads(json.dumps(state))
        bad_state["record"]["draw_len"] = 32767
        with pytest.raises(ValueError, match="'draw_len'=32767 out of range"):
            h.load_state_dict(bad_state)
    assert h.state_dict() == before
    h.load_state_dict(state)
    assert h.state_dict() == state
    assert (h.action_masks() == g.action_masks()).all()
    a = int(np.flatnonzero(g.action_masks())[-1])
    o1, o2 = g.step(a), h.step(a)
    np.testing.assert_array_equal(o1[0], o2[0])
    assert o1[1:4] == o2[1:4]
    if n > 1:  # an env fixed to another seat refuses the state (a one-seat game has no other seat)
        fixed = gym.make(gid, opponent="greedy", seat=1 - state["seat"] if state["seat"] < 2 else 0).unwrapped
        with pytest.raises(ValueError, match="differs from this environment's seat"):
            fixed.load_state_dict(state)


@pytest.mark.parametrize("game_name", GAMES)
def test_vector_env_state_dict_round_trip_and_refusal(game_name):
    import cardgym

    v = cardgym.make_vec(game_name, num_envs=3, opponent="random")
    v.reset(seed=1)
    for _ in range(25):
        v.step(v.action_masks().argmax(1))
    state = json.loads(json.dumps(v.state_dict()))
    w = cardgym.make_vec(game_name, num_envs=3, opponent="random")
    w.reset(seed=8)
    before = w.state_dict()
    bad_state = json.loads(json.dumps(state))
    bad_state["records"][2]["num_players"] = 4
    with pytest.raises(ValueError, match=r"records\[2\]: state field 'num_players'=4"):
        w.load_state_dict(bad_state)
    assert w.state_dict() == before
    w.load_state_dict(state)
    assert w.state_dict() == state
    np.testing.assert_array_equal(w.action_masks(), v.action_masks())
    acts = v.action_masks().argmax(1)
    for x, y in zip(v.step(acts)[:4], w.step(acts)[:4]):
        np.testing.assert_array_equal(x, y)


def test_validate_records_names_the_bad_record():
    import cardgym

    game = cardgym.get_game("skyjo")
    v = cardgym.make_vec("skyjo", num_envs=4, opponent="random")
    v.reset(seed=0)
    states = v.states.copy()
    game.validate_records(states, v.rules)
    states[2]["draw_len"] = -1
    with pytest.raises(ValueError, match=r"record 2: state field 'draw_len'=-1 out of range 0\.\.150"):
        game.validate_records(states, v.rules)
