"""Saved states in and out: parsing and checking the AEC env's ``state_dict`` bookkeeping against its
record (the record itself is checked by `cardgym.core.records.load_record`). Nothing here changes an
environment: it returns what to load, or raises ``ValueError`` naming the field and the reason."""

from __future__ import annotations

import copy
import math

from .game import RUNNING, TRUNCATED
from .records import check_state_header, load_record


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an int too large for a float
        return False


def parse_aec_state(env, data) -> tuple:
    """``(record array, bookkeeping)`` of an AEC ``state_dict`` for ``env`` (a
    `cardgym.core.aec.CardGameAEC`), or ``ValueError``; changes nothing (docs/api.md, "Saved states")."""
    game = env.game
    check_state_header(game, env.rules, data, game.env_name)
    keys = ("record", "agents", "agent_selection", "rewards", "cumulative_rewards", "terminations",
            "truncations", "infos")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"state_dict misses {missing}")
    arr = load_record(game, env.rules, data["record"])
    rec = arr[0]
    possible = env.possible_agents
    agents = data["agents"]
    if not isinstance(agents, list) or agents != [a for a in possible if a in agents]:
        raise ValueError(f"state_dict agents {agents!r} must be distinct agents of {possible}, in seat order")
    book = {"agents": list(agents)}
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
    sel = data["agent_selection"]
    if sel not in possible or (agents and sel not in agents):
        raise ValueError(f"state_dict agent_selection {sel!r} is not one of the agents {agents or possible}")
    skip = data.get("skip_agent_selection")
    if skip is not None and skip not in possible:
        raise ValueError(f"state_dict skip_agent_selection {skip!r} is not one of {possible}")
    book["agent_selection"], book["skip_agent_selection"] = sel, skip
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
    return arr, book
