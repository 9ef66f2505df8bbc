"""Property tests over random play, for every game configuration.

- cards are conserved (every card of the deck is somewhere, exactly once) and the states reached pass
  ``GameSpec.validate_record`` (what ``load_state_dict`` accepts);
- the mask equals an independent, plain-Python reading of the rules (tests/reference.py);
- nothing hidden from a seat reaches that seat's observations (resample what it cannot see: its
  observation must not change);
- a seeded run replays exactly; a clone and a reloaded state_dict continue identically.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference
from cardgym.testing import random_walk
from conftest import CONFIGS, module_of
from redeal import redeal

SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
configs = st.sampled_from(CONFIGS)
seeds = st.integers(0, 2**31)


@SETTINGS
@given(configs, seeds)
def test_cards_are_conserved(cfg, seed):
    name, opts = cfg
    game, mod = module_of(name)
    raw = mod.raw_env(**opts)
    raw.reset(seed=seed)
    want = np.sort(game.deck.astype(np.int64))

    visited = [0]

    def check(r):
        cards = np.sort(np.asarray(game.cards_of(r.record, r.rules), np.int64))
        np.testing.assert_array_equal(cards, want)
        visited[0] += 1
        if visited[0] % 10 == 0:  # every reachable state passes the load-time validator
            game.validate_record(r.record, r.rules)

    random_walk(raw, np.random.default_rng(seed), 400, check)


@SETTINGS
@given(configs, seeds)
def test_mask_equals_reference_legality(cfg, seed):
    name, opts = cfg
    game, mod = module_of(name)
    raw = mod.raw_env(**opts)
    raw.reset(seed=seed)
    ref = reference.legal_of(name)
    if ref is None:
        pytest.skip(f"{name} has no plain-Python reading of its legality (tests/reference.py)")

    def check(r):
        want = ref(r.record, r.rules)
        got = set(np.flatnonzero(r.action_mask()).tolist())
        assert got == want, f"mask {sorted(got)} != reference {sorted(want)}"
        assert got, "the acting seat must always have a legal action"

    random_walk(raw, np.random.default_rng(seed), 400, check)


@SETTINGS
@given(configs, seeds)
def test_no_hidden_information_leaks(cfg, seed):
    name, opts = cfg
    game, mod = module_of(name)
    raw = mod.raw_env(**opts)
    dict_raw = mod.raw_env(observation="dict", **opts) if "dict" in game.encoders else None
    raw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = raw.num_players

    def check(r):
        for seat in range(n):
            agent = r.possible_agents[seat]
            before = r.observe(agent)["observation"]
            before_dict = dict_encode(dict_raw, r.record, seat) if dict_raw is not None else {}
            other = redeal(game, r.rules, r.record.copy(), seat, rng)
            saved = r._states.copy()
            r._states[0] = other
            after = r.observe(agent)["observation"]
            after_dict = dict_encode(dict_raw, other, seat) if dict_raw is not None else {}
            r._states[:] = saved
            np.testing.assert_array_equal(before, after, err_msg=f"hidden information leaks to seat {seat}")
            for key in before_dict:
                np.testing.assert_array_equal(
                    before_dict[key], after_dict[key], err_msg=f"dict key {key!r} leaks to seat {seat}"
                )

    random_walk(raw, rng, 150, check)


def dict_encode(dict_raw, record, seat):
    return dict_raw.encoder.encode(record, dict_raw.rules, seat)


@SETTINGS
@given(configs, seeds)
def test_seeded_runs_replay_exactly(cfg, seed):
    name, opts = cfg
    _, mod = module_of(name)
    trails = []
    for _ in range(2):
        raw = mod.raw_env(**opts)
        raw.reset(seed=seed)
        trail = []
        random_walk(raw, np.random.default_rng(seed), 300,
                    lambda r: trail.append(r.observe(r.agent_selection)["observation"].tobytes()))
        trail.append(json.dumps(raw.state_dict(), sort_keys=True))
        trails.append(trail)
    assert trails[0] == trails[1]


@SETTINGS
@given(configs, seeds, st.integers(0, 200))
def test_clone_and_state_dict_continue_identically(cfg, seed, split):
    name, opts = cfg
    _, mod = module_of(name)
    raw = mod.raw_env(**opts)
    raw.reset(seed=seed)
    random_walk(raw, np.random.default_rng(seed), split)
    twin = raw.clone()
    loaded = mod.raw_env(**opts)
    loaded.load_state_dict(json.loads(json.dumps(raw.state_dict())))
    runs = []
    for e in (raw, twin, loaded):
        trail = []
        random_walk(e, np.random.default_rng(seed + 1), 200,
                    lambda r: trail.append(r.observe(r.agent_selection)["observation"].tobytes()))
        trail.append(json.dumps(e.state_dict(), sort_keys=True))
        runs.append(trail)
    assert runs[0] == runs[1] == runs[2]


@SETTINGS
@given(configs, seeds)
def test_observations_stay_in_their_space_and_layout(cfg, seed):
    name, opts = cfg
    game, mod = module_of(name)
    raw = mod.raw_env(**opts)
    raw.reset(seed=seed)
    space = raw.observation_space(raw.possible_agents[0])["observation"]
    layout = game.encoder("vector").layout(raw.rules)
    assert sum(f.size for f in layout) == space.shape[0]

    def check(r):
        for agent in r.possible_agents:
            obs = r.observe(agent)["observation"]
            assert obs.shape == space.shape and obs.dtype == np.float32
            bad = np.flatnonzero((obs < space.low) | (obs > space.high))
            assert bad.size == 0, f"values out of their layout range at {bad[:5]}: {obs[bad[:5]]}"

    random_walk(raw, np.random.default_rng(seed), 200, check)
