"""Saved states in: parsing and checking what the env layers' ``load_state_dict`` (and their copies,
`cardgym.core.envs.copies`) are given, against the environment that loads it. The records themselves are
checked by `cardgym.core.state.dicts.load_record` (`cardgym.core.contract.game.GameSpec.validate_record`). Nothing
here changes an environment: each function returns what to load, or raises ``ValueError`` naming the
field and the reason (docs/api.md, "Saved states")."""

from __future__ import annotations

import copy
import math

import numpy as np

from cardgym.core.state.status import RUNNING, TRUNCATED
from cardgym.core.envs.episodes import EXTERNAL
from cardgym.core.state.dicts import check_saved_flag, check_saved_seat, check_state_header, load_record


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an int too large for a float
        return False


def parse_aec_state(env, data) -> tuple:
    """``(record array, bookkeeping)`` of an AEC ``state_dict`` for ``env`` (a
    `cardgym.core.envs.aec.CardGameAEC`), or ``ValueError``; changes nothing (docs/api.md, "Saved states")."""
    game = env.game
    check_state_header(game, env.rules, data, game.env_name)
    keys = ("record", "agents", "agent_selection", "rewards", "cumulative_rewards", "terminations",
            "truncations", "infos")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"state_dict misses {missing}")
    arr = load_record(game, env.rules, data["record"])
    possible = env.possible_agents
    agents = data["agents"]
    if not isinstance(agents, list) or agents != [a for a in possible if a in agents]:
        raise ValueError(f"state_dict agents {agents!r} must be distinct agents of {possible}, in seat order")
    book = {"agents": list(agents), **_aec_per_agent(data, agents)}
    sel = data["agent_selection"]
    if sel not in possible or (agents and sel not in agents):
        raise ValueError(f"state_dict agent_selection {sel!r} is not one of the agents {agents or possible}")
    skip = data.get("skip_agent_selection")
    if skip is not None and skip not in possible:
        raise ValueError(f"state_dict skip_agent_selection {skip!r} is not one of {possible}")
    book["agent_selection"], book["skip_agent_selection"] = sel, skip
    _check_aec_against_record(env, arr[0], book)
    return arr, book


def _aec_per_agent(data, agents) -> dict:
    """The per-agent dicts of an AEC ``state_dict`` (``rewards``, ``cumulative_rewards``, ``terminations``,
    ``truncations``, ``infos``), each checked to cover exactly ``agents`` with values of its kind, and
    copied; or ``ValueError``."""
    book = {}
    for key, kind in (("rewards", "number"), ("cumulative_rewards", "number"), ("terminations", "bool"),
                      ("truncations", "bool"), ("infos", "dict")):
        value = data[key]
        if not isinstance(value, dict) or set(value) != set(agents):
            raise ValueError(f"state_dict {key} must be a dict over the agents {agents}, got {value!r}")
        for a, v in value.items():
            ok = (isinstance(v, bool) if kind == "bool" else isinstance(v, dict) if kind == "dict" else
                  isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v))
            if not ok:
                raise ValueError(f"state_dict {key}[{a!r}]={v!r} must be a {'finite ' * (kind == 'number')}{kind}")
        book[key] = copy.deepcopy(value) if kind == "dict" else {a: value[a] for a in agents}
    return book


def _check_aec_against_record(env, rec, book) -> None:
    """``ValueError`` unless the bookkeeping ``book`` agrees with the record ``rec``: a running game has
    every agent in, none done and its seat to act selected; a finished one has every agent terminated
    (or truncated) as its status says; nonzero rewards are those of the record's last action. A game that
    a wrapper ended (every agent both terminated and truncated while the record runs) is let be."""
    possible = env.possible_agents
    agents, sel, skip = book["agents"], book["agent_selection"], book["skip_agent_selection"]
    status, cur = int(rec["status"]), int(rec["current"])
    term, trunc, rew = book["terminations"], book["truncations"], book["rewards"]
    ended_by_wrapper = status == RUNNING and all(term[a] and trunc[a] for a in agents)
    if status == RUNNING and not ended_by_wrapper:
        # a game in progress: nobody is done, nobody has left, the seat to act is selected
        if agents != possible or any(term.values()) or any(trunc.values()) or skip is not None:
            raise ValueError(
                f"state_dict bookkeeping of a running game must list every agent {possible} as neither "
                f"terminated nor truncated (got agents {agents}, terminations {term}, truncations {trunc})"
            )
        if sel != possible[cur]:
            raise ValueError(
                f"state_dict agent_selection {sel!r} is not the seat to act, {possible[cur]!r} "
                f"(record current={cur})"
            )
    elif status != RUNNING:
        want_term = status != TRUNCATED
        if any(term[a] != want_term or trunc[a] == want_term for a in agents):
            raise ValueError(
                f"state_dict terminations {term} / truncations {trunc} disagree with the record's "
                f"status={status} ({'terminated' if want_term else 'truncated'}: every agent is)"
            )
    if not ended_by_wrapper and any(rew.values()):
        paid = {a: float(rec["reward"][env._index[a]]) for a in agents}
        if any(float(rew[a]) != paid[a] for a in agents):
            raise ValueError(
                f"state_dict rewards {rew} are neither zero nor the rewards of the record's last action {paid}"
            )


def parse_single_state(env, data) -> tuple:
    """``(record array, seat, done)`` of a single-agent env's ``state_dict`` for ``env`` (a
    `cardgym.core.envs.single.CardGameEnv`), or ``ValueError``; changes nothing."""
    check_state_header(env.game, env.rules, data, env.game.gym_id)
    missing = [k for k in ("record", "seat", "done") if k not in data]
    if missing:
        raise ValueError(f"state_dict misses {missing}")
    arr = load_record(env.game, env.rules, data["record"])
    seat, done = data["seat"], data["done"]
    n = env.rules.num_players
    check_saved_seat("seat", seat, n, env._seat_choice)
    check_saved_flag("done", done)
    rec = arr[0]
    running = int(rec["status"]) == RUNNING
    if not running and not done:
        raise ValueError(f"state_dict done=False but the record's game is over (status={int(rec['status'])})")
    if running and not done and int(rec["current"]) != seat:
        raise ValueError(
            f"state_dict record current={int(rec['current'])} is not the learner's seat {seat}: a running "
            "single-agent episode waits at the learner's decision"
        )
    return arr, seat, done


def parse_vector_state(env, data) -> tuple:
    """``(records, seats, needs_reset)`` of a vector env's ``state_dict`` for ``env`` (a
    `cardgym.core.envs.vector.CardGameVectorEnv`), or ``ValueError`` naming the env index; changes nothing."""
    check_state_header(env.game, env.rules, data, env.game.gym_id)
    missing = [k for k in ("num_envs", "records", "seats", "needs_reset") if k not in data]
    if missing:
        raise ValueError(f"state_dict misses {missing}")
    m, n = env.num_envs, env.rules.num_players
    if data["num_envs"] != m:
        raise ValueError(f"state_dict num_envs={data['num_envs']!r} differs from this environment's {m}")
    records, seats, resets = data["records"], data["seats"], data["needs_reset"]
    for key, value in (("records", records), ("seats", seats), ("needs_reset", resets)):
        if not isinstance(value, list) or len(value) != m:
            raise ValueError(f"state_dict {key} must be a list of {m} entries")
    arr = env.game.new_states(m)
    for i in range(m):
        try:
            arr[i] = load_record(env.game, env.rules, records[i])[0]
        except ValueError as exc:
            raise ValueError(f"state_dict records[{i}]: {exc}") from None
        seat, reset = seats[i], resets[i]
        check_saved_seat(f"seats[{i}]", seat, n, env._seat_choice)
        check_saved_flag(f"needs_reset[{i}]", reset)
        if not reset and (int(arr[i]["status"]) != 0 or int(arr[i]["current"]) != seat):
            raise ValueError(
                f"state_dict records[{i}] (status={int(arr[i]['status'])}, current={int(arr[i]['current'])}) "
                f"is not at learner {seat}'s decision and needs_reset[{i}] is False"
            )
    return arr, seats, resets


def check_vector_copy(env, mine: dict, theirs: dict) -> None:
    """``ValueError`` unless ``theirs`` (the arrays of a copied vector env, `cardgym.core.envs.copies`) fit
    ``env``'s arrays ``mine`` and hold valid records, seats, opponent assignments and masks."""
    if set(theirs) != set(mine):
        raise ValueError(f"a copy of a vector env holds arrays {sorted(theirs)}, this one needs {sorted(mine)}")
    for k, a in theirs.items():
        if not isinstance(a, np.ndarray) or a.shape != mine[k].shape or a.dtype != mine[k].dtype:
            raise ValueError(f"a copy of a vector env: array {k!r} does not fit this env "
                             f"({getattr(a, 'dtype', type(a))} {getattr(a, 'shape', '')})")
    env.game.validate_records(np.asarray(theirs["states"]).view(np.ndarray), env.rules)
    n = env.rules.num_players
    seats = theirs["seats"]
    if seats.size and (seats.min() < 0 or seats.max() >= n):
        raise ValueError(f"a copy of a vector env: learner seats {seats.tolist()} outside 0..{n - 1}")
    if "seat_player" in theirs:
        sp = theirs["seat_player"]
        k = len(env._driver.players)
        if sp.min() < EXTERNAL or sp.max() >= k:
            raise ValueError(f"a copy of a vector env: seat_player outside {EXTERNAL}..{k - 1}")
    if ((theirs["masks"] != 0) & (theirs["masks"] != 1)).any():
        raise ValueError("a copy of a vector env: masks must be 0 or 1")
