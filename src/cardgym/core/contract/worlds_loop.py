"""The compiled loops of `cardgym.core.contract.worlds`, written once for every game.

A template like `cardgym.core.compiled.bound`: `cardgym.core.contract.worlds` loads it once per game and rollout bot as
its own module (``cardgym.games.<game>._worlds[_<bot>]``) with the game's kernels as the globals below,
set before anything compiles, so every loop calls them directly and caches on disk under names suffixed
by ``TAG`` (the game's name and bot: two games with one record dtype never share a cache entry).
"""

from __future__ import annotations

from cardgym.core.compiled.fastcall import tagged_jit
from cardgym.core.compiled.rng import next_seed, seed_record

TAG = globals().get("TAG", "")  # set before this file runs

RESAMPLE = None  # (t, seat, g, buf): re-deal in record t what seat has not seen (the game's WORLD.resample)
APPLY = LEGAL = None  # the game's kernels
BOT = None  # (s, p, mask) -> action: the bot of `play_out` and `bot_actions`


def _jit():
    return tagged_jit(TAG)


@_jit()
def stream(src, dst, seat, seed, g, buf):
    """``dst[k]`` = ``src[0]`` re-dealt for ``seat``, ``k`` in order, from one generator seeded by
    ``seed``: the search loop's steps for each rollout (copy, re-deal, reseed from the generator)."""
    seed_record(g[0], seed)
    for k in range(dst.shape[0]):
        dst[k] = src[0]
        RESAMPLE(dst[k], seat, g[0], buf)
        seed_record(dst[k], next_seed(g[0]))


@_jit()
def each(src, dst, seats, seeds, g, buf):
    """``dst[i]`` = ``src[i]`` re-dealt for ``seats[i]`` by a generator seeded by ``seeds[i]`` (the first
    world of `stream` for each record)."""
    for i in range(src.shape[0]):
        seed_record(g[0], seeds[i])
        dst[i] = src[i]
        RESAMPLE(dst[i], seats[i], g[0], buf)
        seed_record(dst[i], next_seed(g[0]))


@_jit()
def play_out(states, params, first, turns, masks, rewards):
    """Apply ``first[i]`` (if >= 0) to record ``i``, then let ``BOT`` play every seat for ``turns`` turns
    (0: to the end of the episode; -1: none); every seat's rewards add up in ``rewards[i]``."""
    for i in range(states.shape[0]):
        s = states[i]
        m = masks[i]
        if first[i] >= 0:
            APPLY(s, params, first[i])
            for j in range(rewards.shape[1]):
                rewards[i, j] += s.reward[j]
        if turns < 0:  # the first actions only
            continue
        stop = s.turn + turns if turns > 0 else 1 << 30
        while s.status == 0 and s.turn < stop:
            LEGAL(s, params, m)
            APPLY(s, params, BOT(s, params, m))
            for j in range(rewards.shape[1]):
                rewards[i, j] += s.reward[j]


@_jit()
def legal_bot(states, params, masks, out, decide):
    """Every record's legal mask and, if ``decide``, ``BOT``'s action for its seat to act (-1: over)."""
    for i in range(states.shape[0]):
        LEGAL(states[i], params, masks[i])
        out[i] = BOT(states[i], params, masks[i]) if (decide and states[i].status == 0) else -1
