"""Keeps numba's on-disk kernel cache consistent with the package's sources.

numba invalidates a cached function when *its own* file changes, not when a function it calls from
another file does (a documented limitation). cardgym's kernels call across files (games -> shared
helpers -> rng; ``core/bound.py`` -> every game), so on import we compare a stamp of every source file
with kernels (path, size, mtime) with the one saved beside the cache, and drop the cache when they
differ. A read-only install is left alone.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAMP = ROOT / "__pycache__" / "numba-sources.stamp"


def sources_stamp(root: Path = ROOT) -> str:
    """A stamp of every source file that holds compiled kernels (the others cannot make a cache stale)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        if b"njit" not in path.read_bytes():
            continue
        h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def refresh(root: Path = ROOT, stamp_file: Path = STAMP) -> bool:
    """Drop stale cached kernels; returns True when the cache was cleared."""
    try:
        stamp = sources_stamp(root)
        if stamp_file.exists() and stamp_file.read_text() == stamp:
            return False
        for pattern in ("*.nbi", "*.nbc"):
            for path in root.rglob(pattern):
                path.unlink(missing_ok=True)
        stamp_file.parent.mkdir(exist_ok=True)
        tmp = stamp_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(stamp)
        tmp.replace(stamp_file)
        return True
    except OSError:
        return False
