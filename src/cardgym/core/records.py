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
            value = np.asarray(data[name], dtype=want.base)
        except (OverflowError, ValueError, TypeError) as exc:
            raise ValueError(f"state field {name!r}: {exc}") from None
        if value.shape != want.shape:
            raise ValueError(f"state field {name!r} has shape {value.shape}, expected {want.shape}")
        arr[0][name] = value
    return arr
