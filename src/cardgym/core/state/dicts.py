"""Plain-data views of state records: JSON-able dicts and back."""

from __future__ import annotations

import numpy as np


def record_to_dict(record) -> dict:
    """Every field of a structured record as plain Python data (ints, floats, nested lists)."""
    out = {}
    for name in record.dtype.names:
        if name.startswith("_"):
            continue
        value = record[name]
        out[name] = value.tolist() if isinstance(value, np.ndarray) else value.item()
    return out


def record_from_dict(dtype: np.dtype, data: dict) -> np.ndarray:
    """A 1-element record array of ``dtype`` filled from `record_to_dict` output."""
    if not isinstance(data, dict):
        raise ValueError(f"state record must be a dict of fields, got {type(data).__name__}")
    names = [n for n in dtype.names if not n.startswith("_")]
    missing = sorted(set(names) - set(data))
    unknown = sorted(set(data) - set(names))
    if missing or unknown:
        raise ValueError(f"state record fields do not match: missing {missing}, unknown {unknown}")
    arr = np.zeros(1, dtype)
    for name in names:
        want = dtype[name]
        try:
            value = np.asarray(data[name])
        except (OverflowError, ValueError, TypeError) as exc:
            raise ValueError(f"state field {name!r}: {exc}") from None
        if value.shape != want.shape:
            raise ValueError(f"state field {name!r} has shape {value.shape}, expected {want.shape}")
        base = want.base
        if np.issubdtype(base, np.integer):
            if value.dtype.kind not in "iu":
                raise ValueError(f"state field {name!r} must hold integers, got {value.dtype} values")
            info = np.iinfo(base)
            if value.size and (value.min() < info.min or value.max() > info.max):
                bad = value.min() if value.min() < info.min else value.max()
                raise ValueError(
                    f"state field {name!r} holds {int(bad)}, outside its {base} range {info.min}..{info.max}"
                )
        elif value.dtype.kind not in "iuf":
            raise ValueError(f"state field {name!r} must hold numbers, got {value.dtype} values")
        arr[0][name] = value.astype(base)
    return arr


def state_header(game, rules, env_name: str) -> dict:
    """The envelope `check_state_header` reads back: the game, the env's name and the rules."""
    return {"game": game.name, "env": env_name, "rules": rules.as_dict()}


def check_saved_seat(key: str, seat, n: int, fixed: int) -> int:
    """A learner seat read from a saved state (``key`` names it in the error): an int seat 0..n-1, and
    the environment's own ``fixed`` seat if it has one (``fixed >= 0``)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"state_dict {key}={seat!r} must be a seat 0..{n - 1}")
    if fixed >= 0 and seat != fixed:
        raise ValueError(f"state_dict {key}={seat} differs from this environment's seat={fixed}")
    return seat


def check_saved_flag(key: str, value) -> bool:
    """A flag read from a saved state (``key`` names it in the error): True or False, nothing else."""
    if not isinstance(value, bool):
        raise ValueError(f"state_dict {key}={value!r} must be True or False")
    return value


def check_state_header(game, rules, data, env_name: str) -> None:
    """The envelope of a saved environment state: a dict of this game's env and these rules."""
    if not isinstance(data, dict):
        raise ValueError(f"state_dict must be a dict, got {type(data).__name__}")
    if data.get("env") != env_name or data.get("game", game.name) != game.name:
        raise ValueError(f"state_dict is not a {env_name} state (env={data.get('env')!r})")
    if data.get("rules") != rules.as_dict():
        raise ValueError(f"state_dict rules {data.get('rules')} differ from this environment's {rules.as_dict()}")


def load_record(game, rules, data) -> np.ndarray:
    """A 1-element record array from `record_to_dict` output, refused with ``ValueError`` unless it is
    a state these rules can reach (`cardgym.core.contract.game.GameSpec.validate_record`)."""
    arr = record_from_dict(game.state_dtype, data)
    game.validate_record(arr[0], rules)
    return arr


def scratch_maker(dtype: np.dtype, n: int):
    """A function ``() -> n`` uninitialised records of ``dtype``, callable from compiled kernels (scratch
    space for searches). Under ``NUMBA_DISABLE_JIT=1`` the kernels run as Python and read fields as
    attributes, so there it returns a record array (as `cardgym.core.contract.game.GameSpec.new_states` does).
    Not cached on disk: numba cannot cache a closure, and this one compiles in milliseconds."""
    from numba import njit
    from numba.core import config

    if config.DISABLE_JIT:
        return lambda: np.zeros(n, dtype).view(np.recarray)

    def make():
        return np.empty(n, dtype)

    return njit(make)
