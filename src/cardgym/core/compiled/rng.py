"""State-held random numbers for the compiled rules.

Every game record carries two 64-bit generator states in its header: ``rng`` (the game's own
randomness: shuffles, recycling, random seats) and ``bot_rng`` (the randomness of bots playing inside
the environments). Keeping them in the record means that copying a record clones the game exactly,
and that a bot's choices never shift the deal a learner sees.

The generator is xorshift64* (Vigna, 2016); seeds are spread with splitmix64. All arithmetic is done
in ``np.uint64`` so numba never promotes to float.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardgym.core.compiled.cache import hook_numba

hook_numba()  # before the first kernel is defined: cache folder, compile notice (core/compiled/cache.py)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STAR = np.uint64(2685821657736338717)
_BOT_SALT = np.uint64(0xD1B54A32D192ED03)
U64 = np.uint64


@njit(cache=True)
def splitmix64(x):
    """One splitmix64 step: a well-mixed, never-zero-for-our-use 64-bit value from ``x``."""
    z = U64(x) + _GOLDEN
    z = (z ^ (z >> U64(30))) * _M1
    z = (z ^ (z >> U64(27))) * _M2
    z = z ^ (z >> U64(31))
    if z == U64(0):
        z = _GOLDEN
    return z


@njit(cache=True)
def seed_record(s, seed):
    """Seed both generators of record ``s`` from an integer seed (0 <= seed < 2**64)."""
    s.rng = splitmix64(U64(seed))
    s.bot_rng = splitmix64(U64(seed) ^ _BOT_SALT)


@njit(cache=True)
def _xorshift(x):
    x ^= x >> U64(12)
    x ^= x << U64(25)
    x ^= x >> U64(27)
    return x


@njit(cache=True)
def next_u32(s):
    """Next 32 random bits from the game generator of record ``s``."""
    x = _xorshift(s.rng)
    s.rng = x
    return (x * _STAR) >> U64(32)


@njit(cache=True)
def below(s, n):
    """Uniform integer in ``[0, n)`` from the game generator (Lemire's method, n < 2**32)."""
    return np.int64((next_u32(s) * U64(n)) >> U64(32))


@njit(cache=True)
def bot_below(s, n):
    """Uniform integer in ``[0, n)`` from the bot generator of record ``s``."""
    x = _xorshift(s.bot_rng)
    s.bot_rng = x
    r = (x * _STAR) >> U64(32)
    return np.int64((r * U64(n)) >> U64(32))


_COPY_SALT = np.uint64(0x632BE59BD9B4E019)


@njit(cache=True)
def fork_bot_streams(bot_rng):
    """``(advanced, fresh)`` for an array of ``bot_rng`` states: ``advanced`` is each state one
    xorshift step on (what the record keeps), ``fresh`` a new generator state seeded by splitmix64 from
    that step (what a copy handed to a Python player gets). So every decision taken on a copy draws from
    its own stream, and the record's stream moves on, as it does when a bot decides inside the game."""
    n = bot_rng.shape[0]
    advanced = np.empty(n, np.uint64)
    fresh = np.empty(n, np.uint64)
    for i in range(n):
        x = _xorshift(U64(bot_rng[i]))
        advanced[i] = x
        fresh[i] = splitmix64(x ^ _COPY_SALT)
    return advanced, fresh


@njit(cache=True)
def next_seed(s):
    """A fresh 63-bit seed drawn from the game generator (used by seedless resets)."""
    hi = next_u32(s)
    lo = next_u32(s)
    return np.int64(((hi << U64(32)) | lo) >> U64(1))


@njit(cache=True)
def shuffle(s, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place with the game generator."""
    for i in range(n - 1, 0, -1):
        j = below(s, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


#: `pick_legal` counts legal actions in blocks of this many (one vector compare-and-add each)
_BLOCK = 16


@njit(cache=True)
def pick_legal(s, mask):
    """A uniformly random legal action of ``mask`` (int8) from the bot generator; -1 if none: the
    ``k``-th nonzero entry, ``k`` uniform below their count.

    Branch-free counting: the first pass and the block skipping of the second count ``mask[a] != 0``
    without a branch per entry (the compiler vectorizes them); only the last block is scanned entry
    by entry. A mask of 145 actions costs about half of a scan with a branch per entry."""
    n = mask.shape[0]
    count = 0
    for a in range(n):
        count += mask[a] != 0
    if count == 0:
        return -1
    k = bot_below(s, count)
    a0 = 0
    while a0 + _BLOCK <= n:
        c = 0
        for j in range(_BLOCK):
            c += mask[a0 + j] != 0
        if k < c:
            break
        k -= c
        a0 += _BLOCK
    for a in range(a0, n):
        k -= mask[a] != 0
        if k < 0:
            return a
    return -1
