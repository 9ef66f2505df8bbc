"""Tampered saved states can never crash the process or corrupt a game (issue 11).

For every game, one child process takes real mid-game states of several configurations (player
counts and variants), mutates every field of the state record (each scalar, and several elements of
each array: the ends, the last cards of the live piles, the middle) to boundary and hostile values
(-1, 0, 1, value +-1, the seat counts, the deck size and one past it, the dtype's extremes and one
past them, swapped values), and loads each into an AEC env with ``load_state_dict``. Each must either
be refused with ``ValueError`` (leaving the env exactly as it was) or load and play 200 random legal
actions with the cards of the deck conserved after every step and a non-empty mask for the acting
seat. The AEC bookkeeping around the record (agent_selection, agents, terminations, truncations,
rewards) is edited the same way. The child runs the mutations in a loop and prints a JSON summary; a
segfault, abort or hang kills only the child, and the test names the game and the last mutation it
started.

Run one child by hand: ``python tests/test_tamper.py skipbo`` (progress on stderr, summary on stdout).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

GAMES = ("skyjo", "skipbo", "skipbo_junior")

#: (rule options, random actions played before the state is taken) per game
CONFIGS = {
    "skyjo": [
        ({"num_players": 2}, 1),  # setup phase
        ({"num_players": 2}, 40),
        ({"num_players": 4, "setup_reveal": "random"}, 61),
        ({"num_players": 3, "episode": "round", "reward": "score", "reshuffle": "all_but_top_flip"}, 35),
    ],
    "skipbo": [
        ({"num_players": 2, "stock_size": 10}, 40),
        ({"num_players": 4, "teams": True, "stock_size": 5}, 30),
        ({"num_players": 3, "stock_size": 4, "build_directions": "two_up_two_down",
          "wild_must_be_covered": True, "match_target": 60}, 45),
        ({"num_players": 6, "stock_size": 10, "recycle": "immediately", "reward": "score"}, 50),
    ],
    "skipbo_junior": [
        ({"num_players": 2}, 25),
        ({"num_players": 3, "stock_size": 5}, 20),
        ({"num_players": 4, "must_play": False, "recycle_build_piles": True}, 30),
    ],
}
PLAY_STEPS = 200
SEED = 11


# ------------------------------------------------------------------------------------------ child
def _mutations(record: dict, dtype, game, rules, rng):
    """(label, field, flat index or None, new value) for every hostile edit of ``record``."""
    deck = int(len(game.deck))
    common = [-1, 0, 1, rules.num_players, rules.num_players - 1, game.max_players, deck, deck + 1, 127]
    scalars = []
    for name, value in record.items():
        base = dtype[name].base
        arr = np.asarray(value)
        if np.issubdtype(base, np.floating):
            hostile = [float("nan"), float("inf"), -1e30, 2.0]
        else:
            info = np.iinfo(base)
            hostile = common + [int(info.min), int(info.max), int(info.max) + 1]
        flat = arr.reshape(-1)
        if arr.ndim == 0:
            idxs = [None]
            scalars.append(name)
        else:
            nz = np.flatnonzero(flat)
            picks = {0, flat.size - 1, flat.size // 2, int(rng.integers(flat.size))}
            if nz.size:
                picks |= {int(nz[0]), int(nz[-1])}
            idxs = sorted(picks)
            if nz.size >= 2 and flat[nz[0]] != flat[nz[-1]]:
                yield f"{name}: swap [{nz[0]}] <-> [{nz[-1]}]", name, "swap", (int(nz[0]), int(nz[-1]))
        for k in idxs:
            old = arr.item() if k is None else flat[k].item()
            vals = hostile + ([] if isinstance(old, float) else [old - 1, old + 1])
            seen = set()
            for v in vals:
                key = repr(v)
                if key in seen or (v == old and type(v) is type(old)):
                    continue
                seen.add(key)
                yield f"{name}{'' if k is None else [k]}={v!r} (was {old!r})", name, k, v
    ints = [s for s in scalars if s not in ("rng", "bot_rng")]
    for i, a in enumerate(ints):
        for b in ints[i + 1:]:
            if record[a] != record[b]:
                yield f"swap {a}={record[a]} <-> {b}={record[b]}", (a, b), "pair", None


def _bookkeeping_edits(base: dict, possible: list):
    """(label, replaced keys) for hostile AEC bookkeeping around a valid record."""
    agents = base["agents"]
    for a in possible:
        if a != base["agent_selection"]:
            yield f"agent_selection={a!r}", {"agent_selection": a}
    yield "agent_selection='nobody'", {"agent_selection": "nobody"}
    yield f"skip_agent_selection={possible[0]!r}", {"skip_agent_selection": possible[0]}
    for a in agents:
        for key in ("terminations", "truncations"):
            yield f"{key}[{a!r}] flipped", {key: {**base[key], a: not base[key][a]}}
        for key in ("rewards", "cumulative_rewards"):
            for v in (float("nan"), float("inf"), 5.0, True):
                yield f"{key}[{a!r}]={v!r}", {key: {**base[key], a: v}}
    every = ("rewards", "cumulative_rewards", "terminations", "truncations", "infos")
    yield "agents reversed", {"agents": agents[::-1]}
    yield "agents=[]", {"agents": [], **{k: {} for k in every}}
    drop = agents[-1]
    yield f"agents without {drop!r}", {"agents": agents[:-1],
                                       **{k: {a: v for a, v in base[k].items() if a != drop} for k in every}}
    yield "every agent terminated", {"terminations": {a: True for a in agents}}
    yield "every agent truncated", {"truncations": {a: True for a in agents}}


def _apply(record: dict, name, k, v) -> dict:
    out = dict(record)
    if k == "pair":
        a, b = name
        out[a], out[b] = record[b], record[a]
        return out
    arr = np.asarray(record[name])
    if k is None:
        out[name] = v
        return out
    flat = arr.reshape(-1).astype(object)
    if k == "swap":
        i, j = v
        flat[i], flat[j] = flat[j], flat[i]
    else:
        flat[k] = v
    out[name] = flat.reshape(arr.shape).tolist()
    return out


def _snapshot(raw):
    return (raw.record.tobytes(), list(raw.agents), raw.agent_selection, dict(raw.rewards),
            dict(raw.terminations), dict(raw.truncations), raw.action_mask().tobytes())


def _play(raw, game, deck, rng, steps):
    """Random legal play; returns a failure string or None."""
    cards_of = game.cards_of
    for t in range(steps):
        if not raw.agents:
            return None
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        mask = raw.action_mask()
        if not mask.any():
            return f"step {t}: the acting seat {agent} has an empty mask"
        raw.step(int(rng.choice(np.flatnonzero(mask))))
        got = np.sort(np.asarray(cards_of(raw.record, raw.rules), np.int64))
        if got.shape != deck.shape or not np.array_equal(got, deck):
            return f"step {t}: {got.size} cards, not the {deck.size}-card deck"
    return None


def child(game_name: str) -> dict:
    import cardgym

    game = cardgym.get_game(game_name)
    mod = __import__(cardgym.GAMES[game_name].module, fromlist=["raw_env"])
    deck = np.sort(game.deck.astype(np.int64))
    summary = {"game": game_name, "mutations": 0, "refused": 0, "played": 0, "failures": [], "configs": 0}
    for ci, (opts, depth) in enumerate(CONFIGS[game_name]):
        rng = np.random.default_rng(SEED + ci)
        raw = mod.raw_env(**opts)
        raw.reset(seed=SEED + ci)
        for _ in range(depth):
            if not raw.agents or not raw.action_mask().any():
                break
            raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
        base = json.loads(json.dumps(raw.state_dict()))
        summary["configs"] += 1
        env = mod.raw_env(**opts)
        env.load_state_dict(base)
        before = _snapshot(env)
        picks = np.random.default_rng(SEED + ci)  # which array elements: independent of the play below
        edits = [(label, {"record": (name, k, v)})
                 for label, name, k, v in _mutations(base["record"], game.state_dtype, game, raw.rules, picks)]
        edits += list(_bookkeeping_edits(base, raw.possible_agents))
        for label, change in edits:
            tag = f"{game_name} {opts} after {depth} actions: {label}"
            print("START", tag, file=sys.stderr, flush=True)
            summary["mutations"] += 1
            data = {**base, **change}
            if "record" in change:
                data["record"] = _apply(base["record"], *change["record"])
            try:
                env.load_state_dict(data)
            except ValueError:
                summary["refused"] += 1
                if _snapshot(env) != before:
                    summary["failures"].append(f"{tag}: refused, but the env changed")
                continue
            except Exception as exc:  # noqa: BLE001 - any other error is a finding
                summary["failures"].append(f"{tag}: load raised {type(exc).__name__}: {exc}")
                continue
            summary["played"] += 1
            try:
                fail = _play(env, game, deck, rng, PLAY_STEPS)
            except Exception as exc:  # noqa: BLE001
                fail = f"play raised {type(exc).__name__}: {exc}"
            if fail:
                summary["failures"].append(f"{tag}: loaded, then {fail}")
            env.load_state_dict(base)  # a refused state leaves the env as it was: no reload needed then
    return summary


# ------------------------------------------------------------------------------------------ parent
@pytest.fixture(scope="module")
def children():
    """Start one child per game at once (they compile and run in parallel), collect on demand."""
    env = dict(os.environ)
    procs = {
        g: subprocess.Popen([sys.executable, __file__, g], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
        for g in GAMES
    }
    yield procs
    for p in procs.values():
        if p.poll() is None:
            p.kill()


@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.parametrize("game", GAMES)
def test_tampered_states_are_refused_or_play_safely(children, game):
    proc = children[game]
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        starts = [line for line in err.splitlines() if line.startswith("START ")]
        pytest.fail(f"{game}: the child hung for 600 s; last mutation started: {starts[-1][6:] if starts else None}")
    starts = [line for line in err.splitlines() if line.startswith("START ")]
    last = starts[-1][6:] if starts else "(none)"
    lines = out.strip().splitlines()
    summary = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
    if proc.returncode != 0:
        found = "" if summary is None else (
            f"; it finished its loop first (so memory was corrupted earlier) with {len(summary['failures'])} "
            "failures:\n" + "\n".join(summary["failures"][:10]))
        tail = "\n".join(line for line in err.splitlines()[-40:] if not line.startswith("START "))
        pytest.fail(
            f"{game}: the child died with return code {proc.returncode} "
            f"({'signal ' + str(-proc.returncode) if proc.returncode < 0 else 'error'}); last mutation "
            f"started: {last}{found}\n{tail[-2000:]}"
        )
    assert summary["configs"] == len(CONFIGS[game])
    assert summary["mutations"] > 300 * len(CONFIGS[game]) // 2, summary
    assert summary["refused"] > 0 and summary["played"] > 0, summary
    fails = summary["failures"]
    assert not fails, f"{game}: {len(fails)} of {summary['mutations']} mutations misbehaved:\n" + "\n".join(fails[:25])


# ------------------------------------------------------------------------- in-process checks
def _played(game_name, steps=40, seed=2, **opts):
    import cardgym

    mod = __import__(cardgym.GAMES[game_name].module, fromlist=["raw_env"])
    raw = mod.raw_env(**opts)
    raw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
    return raw, json.loads(json.dumps(raw.state_dict())), mod


VARIANTS = [(g, opts) for g in GAMES for opts, _ in CONFIGS[g]]


@pytest.mark.parametrize("variant", VARIANTS, ids=[f"{g}-{i}" for i, (g, _) in enumerate(VARIANTS)])
def test_every_reached_state_passes_the_validator(variant):
    """No false refusal: the states a game reaches (random play, through episode ends) load. (The
    property tests check the same along their random walks.)"""
    import cardgym

    game_name, opts = variant
    game = cardgym.get_game(game_name)
    raw = __import__(cardgym.GAMES[game_name].module, fromlist=["raw_env"]).raw_env(**opts)
    raw.reset(seed=21)
    rng = np.random.default_rng(21)
    for t in range(1500):
        if not raw.agents:
            raw.reset()
        agent = raw.agent_selection
        if t % 5 == 0 or raw.terminations[agent] or raw.truncations[agent]:
            game.validate_record(raw.record, raw.rules)
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))


#: the states of issue 11 that crashed or corrupted main: (game, steps, edit, message)
ISSUE_CASES = [
    ("skyjo", 40, lambda r: r.__setitem__("draw_len", 32767), "state field 'draw_len'=32767 out of range 0..150"),
    ("skyjo", 40, lambda r: r["grid"][0].__setitem__(3, 127), "state field 'grid'[0, 3]=127 out of range -2..12"),
    ("skyjo", 40, lambda r: r.__setitem__("phase", 9), "state field 'phase'=9 out of range 0..4"),
    ("skipbo", 40, lambda r: r.__setitem__("num_players", 3),
     "state field 'num_players'=3 differs from the rules' num_players=2"),
    ("skipbo", 40, lambda r: r.__setitem__("heights", [13] * 4), "state field 'heights'[0]=13 out of range 0..11"),
    ("skipbo_junior", 10, lambda r: r.__setitem__("done_len", 150), "state field 'done_len'=150 out of range 0..96"),
    ("skipbo_junior", 10, lambda r: r.__setitem__("hidden", [0] * 11), "state field 'hidden'"),
]


@pytest.mark.parametrize("case", ISSUE_CASES, ids=[f"{c[0]}-{c[3][:30]}" for c in ISSUE_CASES])
def test_refused_state_names_the_field_and_leaves_the_env_as_it_was(case):
    game_name, steps, edit, message = case
    raw, good, _ = _played(game_name, steps)
    bad_state = json.loads(json.dumps(good))
    edit(bad_state["record"])
    other, before, _ = _played(game_name, 7, seed=5)  # a different game in progress
    mask = other.action_mask()
    with pytest.raises(ValueError, match=re.escape(message)):
        other.load_state_dict(bad_state)
    assert other.state_dict() == before
    assert (other.action_mask() == mask).all()
    other.load_state_dict(good)  # the untouched state still loads and continues exactly
    assert other.state_dict() == raw.state_dict()


def test_aec_bookkeeping_must_agree_with_the_record():
    raw, good, mod = _played("skyjo", 40)
    env = mod.raw_env()
    env.reset(seed=1)
    before = env.state_dict()
    cur = good["record"]["current"]
    edits = {
        "agent_selection": ("player_1" if cur == 0 else "player_0", "not the seat to act"),
        "agents": (["player_1", "player_0"], "in seat order"),
        "terminations": ({"player_0": True, "player_1": False}, "running game"),
        "rewards": ({"player_0": float("nan"), "player_1": 0.0}, "finite number"),
        "infos": ({"player_0": {}}, "dict over the agents"),
    }
    for key, (value, msg) in edits.items():
        state = json.loads(json.dumps(good))
        state[key] = value
        with pytest.raises(ValueError, match=msg):
            env.load_state_dict(state)
        assert env.state_dict() == before, key
    # the end of a game: every agent terminated, the record over
    e = mod.raw_env()
    e.reset(seed=3)
    while not any(e.terminations.values()):
        e.step(int(np.flatnonzero(e.action_mask())[0]))
    end = json.loads(json.dumps(e.state_dict()))
    env.load_state_dict(end)
    assert env.state_dict() == end
    end["terminations"] = {a: False for a in end["terminations"]}
    with pytest.raises(ValueError, match="disagree with the record's status"):
        env.load_state_dict(end)


def test_classic_wrapper_illegal_end_still_round_trips():
    """TerminateIllegalWrapper ends a running game by marking every agent done: a reachable state."""
    import cardgym

    e = cardgym.skipbo_junior_v0.env()
    e.reset(seed=4)
    mask = e.observe(e.agent_selection)["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))  # PettingZoo logs "Illegal move made"
    assert all(e.terminations.values()) and all(e.truncations.values())
    state = json.loads(json.dumps(e.unwrapped.state_dict()))
    other = cardgym.skipbo_junior_v0.raw_env()
    other.load_state_dict(state)
    assert other.state_dict() == state


if __name__ == "__main__":
    result = child(sys.argv[1])
    print(json.dumps(result))
