"""Building blocks of the state validators (``games/<game>/invariants.py``).

Every check raises ``ValueError`` naming the record field, the offending value (and index, for an
array) and what is allowed, e.g. ``state field 'draw_len'=32767 out of range 0..150``. They run in
Python on load (``load_state_dict``, a trainer's resume), never on ``step()``.
"""

from __future__ import annotations

import numpy as np

from cardgym.core.state.status import RUNNING


def bad(name: str, value, reason: str, index=None) -> ValueError:
    """The error for field ``name`` (element ``index`` of an array field) holding ``value``."""
    at = "" if index is None else str([int(k) for k in np.atleast_1d(index)])
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    return ValueError(f"state field {name!r}{at}={value!r} {reason}")


def in_range(name: str, value, lo: int, hi: int) -> int:
    """``lo <= value <= hi`` for a scalar field; returns it as a Python int."""
    v = int(value)
    if not lo <= v <= hi:
        raise bad(name, v, f"out of range {lo}..{hi}")
    return v


def all_in_range(name: str, arr, lo, hi, where: str = "") -> None:
    """Every element of ``arr`` (a slice of field ``name``) within ``lo..hi``; ``where`` describes
    the slice in the error (e.g. "for seats 0..1")."""
    a = np.asarray(arr)
    if a.size == 0:
        return
    off = np.argwhere((a < lo) | (a > hi))
    if off.size:
        idx = tuple(int(k) for k in off[0])
        raise bad(name, a[idx], f"out of range {lo}..{hi}{' ' + where if where else ''}", idx)


def all_equal(name: str, arr, want, reason: str) -> None:
    """Every element of ``arr`` equals ``want`` (broadcast)."""
    a = np.asarray(arr)
    w = np.broadcast_to(np.asarray(want), a.shape)
    off = np.argwhere(a != w)
    if off.size:
        idx = tuple(int(k) for k in off[0])
        raise bad(name, a[idx], f"should be {w[idx].item()!r}: {reason}", idx)


def same_cards(cards, deck, what: str) -> None:
    """``cards`` (every card code in the state) is a permutation of ``deck``."""
    got = np.bincount(np.asarray(cards, np.int64) + 128, minlength=256)  # int8 codes, shifted
    want = np.bincount(np.asarray(deck, np.int64) + 128, minlength=256)
    if np.array_equal(got, want):
        return
    diff = [f"code {c - 128}: {got[c]} (want {want[c]})" for c in np.flatnonzero(got != want)[:6].tolist()]
    raise ValueError(
        f"state cards are not the {len(deck)}-card deck of these rules: {what} hold {int(got.sum())} "
        f"cards; {'; '.join(diff)}"
    )


def check_codes(name: str, cards, lo: int, hi: int, where: str = "") -> None:
    """Card codes of a pile slice are valid (``lo..hi``)."""
    all_in_range(name, cards, lo, hi, where or "(card codes)")


def check_common(record, rules) -> None:
    """The common header (``core.contract.game.state_dtype``): players, seat, status, turn, generators."""
    n = rules.num_players
    if int(record["num_players"]) != n:
        raise bad("num_players", record["num_players"], f"differs from the rules' num_players={n}")
    in_range("current", record["current"], 0, n - 1)
    status = in_range("status", record["status"], 0, 2)
    cap = int(rules.max_turns)
    turn = in_range("turn", record["turn"], 0, cap)
    if status == RUNNING and turn >= cap:
        raise bad("turn", turn, f"reaches max_turns={cap} in a running game (it would be truncated)")
    for key in ("rng", "bot_rng"):
        if int(record[key]) == 0:
            raise bad(key, 0, "is not a generator state (xorshift64* never holds 0)")
    reward = np.asarray(record["reward"], np.float64)
    if not np.all(np.isfinite(reward)):
        k = int(np.flatnonzero(~np.isfinite(reward))[0])
        raise bad("reward", reward[k], "is not a finite number", k)
    all_equal("reward", reward[n:], 0.0, f"seats {n}.. do not play")
