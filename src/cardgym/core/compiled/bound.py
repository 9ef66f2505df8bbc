"""The game-independent compiled loops, and every entry point the Python layers call.

This file is written once for all games and is a template: `cardgym.core.contract.game.GameSpec.compiled`
(the binder, `cardgym.core.compiled.binder`) loads it once per game as its own module (``cardgym.games.<game>._bound``) and sets the game's kernels
as the module globals below before anything compiles. numba binds globals at compile time, so the
loops call the game's kernels directly, calls from Python pass only arrays and numbers (cheap to
type), and every function caches on disk (each game's record dtype gives it its own cache entries).
Bots are picked by number (``which_bot``, the order of ``GameSpec.bots``) and flat encoders likewise
(``which_obs``, -1 for none).

The episode loops (`vec_reset`, `vec_step`, `step_env`) take two packed values instead of a long list
of arrays: ``b``, a `cardgym.core.compiled.batch.Batch` (the batch's records, seats, masks, observations,
rewards, end flags and actions, one row per record) and ``setup``, a `cardgym.core.compiled.batch.Setup` (the
learner's seat choice, the opponents' bot, the encoder, the autoreset mode and the illegal-action
penalty). Fields are read by name; compiled, they cost nothing over separate arguments.

Compile time: typing a call compiles everything it can reach, so a dispatch over every bot compiles
every bot (the expert ones take most of a game's compile time). ``GameSpec.compiled(bot=, obs=)``
therefore also binds this template to ONE bot and/or ONE encoder (``bot``/``observe`` below become
`bot_fixed`/`observe_fixed`/`observe_none`, which ignore ``which``): an environment that plays one
opponent with one encoder compiles only those. Each such binding caches under its own names (``TAG``,
set before this file runs, suffixes every function's qualified name, which names numba's cache files;
it starts with the game's name, so two games with one record dtype never share a cache entry).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from cardgym.core.state.actions import TERMINAL_ACTION
from cardgym.core.compiled.fastcall import tagged_jit
from cardgym.core.compiled.prefetch import prefetch_row
from cardgym.core.compiled.rng import bot_below, next_seed
from cardgym.core.state.status import RUNNING

TAG = globals().get("TAG", "")  # set by GameSpec.compiled() before this file runs: "<game>[_<binding>]"


def _jit(**options):
    """``njit(cache=True)`` named with ``TAG`` (`cardgym.core.compiled.fastcall.tagged_jit`)."""
    return tagged_jit(TAG, **options)


# set by GameSpec.compiled() before the first call
RESET = LEGAL = APPLY = STATE_VECTOR = None
PREFETCH = None  # the game's optional ``kernels.prefetch(states, i)``, else `prefetch_nothing`
BOT0 = BOT1 = BOT2 = BOT3 = None  # the game's bots in GameSpec.bots order (unused slots repeat BOT0)
OBS0 = OBS1 = OBS2 = OBS3 = None  # the game's flat encoders in GameSpec.encoders order


@_jit()
def bot_any(s, p, mask, which):
    """The action of bot number ``which`` for the seat to act in record ``s``."""
    if which == 0:
        return BOT0(s, p, mask)
    if which == 1:
        return BOT1(s, p, mask)
    if which == 2:
        return BOT2(s, p, mask)
    return BOT3(s, p, mask)


@_jit()
def bot_fixed(s, p, mask, which):
    """`bot_any` for a binding to one bot (``BOT0``): ``which`` is ignored."""
    return BOT0(s, p, mask)


@_jit()
def observe_any(s, p, seat, out, which):
    """Flat encoder number ``which`` of ``seat`` into ``out`` (``which`` < 0: none, for dict encoders
    that are built in Python after the compiled step)."""
    if which < 0:
        return
    if which == 0:
        OBS0(s, p, seat, out)
    elif which == 1:
        OBS1(s, p, seat, out)
    elif which == 2:
        OBS2(s, p, seat, out)
    else:
        OBS3(s, p, seat, out)


@_jit()
def observe_fixed(s, p, seat, out, which):
    """`observe_any` for a binding to one flat encoder (``OBS0``); ``which`` < 0 still writes nothing."""
    if which >= 0:
        OBS0(s, p, seat, out)


@_jit()
def observe_none(s, p, seat, out, which):
    """`observe_any` for a binding to a dict encoder: no compiled observation at all."""
    return


bot = bot_any  # GameSpec.compiled() rebinds these two before anything compiles
observe = observe_any


@_jit()
def _summary(s):
    """(seat to act, status, whether the last action paid any reward)."""
    paid = False
    for k in range(s.reward.shape[0]):
        if s.reward[k] != 0:
            paid = True
    return s.current, s.status, paid


@_jit()
def reset_one(states, i, p, seed, deck, deck_len, mask):
    """Reset record ``i`` and write the mask of the first seat to act. Returns ``_summary``."""
    RESET(states[i], p, seed, deck, deck_len)
    LEGAL(states[i], p, mask)
    return _summary(states[i])


@_jit()
def apply_one(states, i, p, action, mask):
    """Apply one action to record ``i`` and write the next seat's mask (the AEC step). Returns
    ``_summary``."""
    APPLY(states[i], p, action)
    LEGAL(states[i], p, mask)
    return _summary(states[i])


@_jit()
def apply_observe_one(states, i, p, action, mask, out, which):
    """``apply_one`` and the observation of the next seat to act (flat encoder ``which``) in one call."""
    s = states[i]
    APPLY(s, p, action)
    LEGAL(s, p, mask)
    observe(s, p, s.current, out, which)
    return _summary(s)


@_jit()
def legal_one(states, i, p, mask):
    LEGAL(states[i], p, mask)
    return _summary(states[i])


@_jit()
def observe_one(states, i, p, seat, out, which):
    observe(states[i], p, seat, out, which)


@_jit()
def state_one(states, i, p, out):
    STATE_VECTOR(states[i], p, out)


@_jit()
def bot_one(states, i, p, mask, which):
    return bot(states[i], p, mask, which)


@_jit()
def seedless(states, i):
    """A seed for the next episode of record ``i``, drawn from its own generator."""
    return next_seed(states[i])


@_jit()
def draw_seat(states, i):
    """A random seat of record ``i`` from its bot generator."""
    return bot_below(states[i], states[i].num_players)


@_jit()
def advance_bots(s, params, learner, mask, which_bot):
    """Let bots play until it is ``learner``'s turn or the episode is over (``learner`` < 0: until
    the end). Returns (reward collected by ``learner``, decisions made); ``mask`` ends current."""
    reward = 0.0
    decisions = 0
    LEGAL(s, params, mask)
    while s.status == RUNNING and s.current != learner:
        a = bot(s, params, mask, which_bot)
        APPLY(s, params, a)
        if learner >= 0:
            reward += s.reward[learner]
        decisions += 1
        LEGAL(s, params, mask)
    return reward, decisions


@_jit()
def start_episode(s, params, seed, deck, deck_len, mask, setup):
    """Reset one record, pick the learner seat (``setup.seat_choice`` < 0: random from ``bot_rng``) and
    let the bots play up to the learner's first decision. Returns (seat, reward, decisions).

    A deal on which the episode ends before the learner's first decision (another seat wins at once,
    or a stall) gives the learner nothing to learn from and cannot be returned by ``reset()``: it is
    replaced by a fresh deal from the record's own generator (so this stays reproducible)."""
    RESET(s, params, seed, deck, deck_len)
    seat = setup.seat_choice
    if seat < 0:
        seat = bot_below(s, s.num_players)
    r, d = advance_bots(s, params, seat, mask, setup.which_bot)
    while s.status != RUNNING:
        RESET(s, params, next_seed(s), deck, 0)
        seat = setup.seat_choice
        if seat < 0:
            seat = bot_below(s, s.num_players)
        r2, d2 = advance_bots(s, params, seat, mask, setup.which_bot)
        r = r2
        d += d2
    return seat, r, d


@_jit()
def vec_reset(b, params, seeds, deck, deck_len, setup):
    """Reset every record of batch ``b`` (a `cardgym.core.compiled.batch.Batch`) with ``seeds[i]`` and bring it
    to the learner's turn. Returns the decisions taken."""
    total = 0
    for i in range(b.states.shape[0]):
        s = b.states[i]
        seat, r, d = start_episode(s, params, seeds[i], deck, deck_len, b.masks[i], setup)
        b.seats[i] = seat
        b.rewards[i] = r
        total += d
        observe(s, params, seat, b.obs[i], setup.which_obs)
    return total


@_jit()
def step_env(b, i, params, setup):
    """Step record ``i`` of batch ``b``: the learner's action ``b.actions[i]``, then bots up to the
    learner's next turn.

    Autoreset: with ``setup.same_step`` a finished episode is reset inside this call (its last
    observation saved in ``b.final_obs``); otherwise (Gymnasium's NEXT_STEP mode) it is reset on the
    next call, which ignores that record's action. An illegal learner action ends the episode
    (terminated) with reward ``setup.penalty`` and sets ``b.illegal[i]``. Returns the number of
    decisions taken (all seats).
    """
    empty = np.empty(0, np.int8)
    s = b.states[i]
    mask = b.masks[i]
    b.illegal[i] = 0
    if b.needs_reset[i]:
        seat, r, d = start_episode(s, params, next_seed(s), empty, 0, mask, setup)
        b.seats[i] = seat
        observe(s, params, seat, b.obs[i], setup.which_obs)
        b.rewards[i] = r
        b.terminated[i] = False
        b.truncated[i] = False
        b.needs_reset[i] = False
        return d
    total = 0
    learner = b.seats[i]
    a = b.actions[i]
    if a < 0 or a >= mask.shape[0] or mask[a] == 0:
        b.rewards[i] = setup.penalty
        b.terminated[i] = True
        b.truncated[i] = False
        b.illegal[i] = 1
    else:
        APPLY(s, params, a)
        total += 1
        r = s.reward[learner]
        r2, d = advance_bots(s, params, learner, mask, setup.which_bot)
        total += d
        b.rewards[i] = r + r2
        b.terminated[i] = s.status == 1
        b.truncated[i] = s.status == 2
        observe(s, params, learner, b.obs[i], setup.which_obs)
    if b.terminated[i] or b.truncated[i]:
        if setup.same_step:
            for k in range(b.obs.shape[1]):  # a loop: the slice copy compiles a shape check (~2 s)
                b.final_obs[i, k] = b.obs[i, k]
            seat, r, d = start_episode(s, params, next_seed(s), empty, 0, mask, setup)  # the reward stays
            b.seats[i] = seat
            total += d
            observe(s, params, seat, b.obs[i], setup.which_obs)
        else:
            b.needs_reset[i] = True
            mask[:] = 0
            mask[TERMINAL_ACTION] = 1  # the terminal mask (core/state/actions.py): the reset step ignores it
    return total


#: how many envs ahead the batch loops prefetch (`prefetch_env`), and how much of each record: the
#: small fields that every game keeps first in its record (the kilobytes of piles after them are
#: touched a line here and there: a game's own ``kernels.prefetch`` may ask for those lines, reading
#: the head fetched ``AHEAD`` envs earlier)
AHEAD = 2
RECORD_HEAD = 1024


@_jit()
def prefetch_nothing(states, i):
    """``PREFETCH`` of a game without a ``kernels.prefetch``."""
    return


@_jit()
def prefetch_env(b, i):
    """Ask for record ``i + AHEAD``'s head, and record ``i``'s mask row, observation row and the lines
    its game's ``PREFETCH`` names (`cardgym.core.compiled.prefetch`)."""
    n = b.states.shape[0]
    if i + AHEAD < n:
        prefetch_row(b.states, i + AHEAD, min(RECORD_HEAD, b.states.itemsize))
    if i < n:
        prefetch_row(b.masks, i, b.masks.shape[1])
        prefetch_row(b.obs, i, b.obs.shape[1] * 4)
        PREFETCH(b.states, i)


@_jit()
def vec_step(b, params, setup):
    """`step_env` for every record of batch ``b``. Returns the decisions taken."""
    total = 0
    n = b.states.shape[0]
    for i in range(n):
        prefetch_env(b, i + AHEAD)
        total += step_env(b, i, params, setup)
    return total


@_jit(parallel=True)
def vec_step_parallel(b, params, setup):
    """`vec_step` with the records shared out over numba's threads (every record is
    independent: its own state, generators and output rows)."""
    total = 0
    n = b.states.shape[0]
    for i in prange(n):
        prefetch_env(b, i + AHEAD)
        total += step_env(b, i, params, setup)
    return total


@_jit()
def batch_bot(states, params, masks, which_bot, out):
    """``out[i]`` = the bot's action in record ``i`` (0 where nothing is legal)."""
    for i in range(states.shape[0]):
        m = masks[i]
        legal = False
        for a in range(m.shape[0]):
            if m[a]:
                legal = True
                break
        out[i] = bot(states[i], params, m, which_bot) if legal else 0


@_jit()
def batch_legal(states, params, masks):
    """Masks of the seat to act in every record."""
    for i in range(states.shape[0]):
        LEGAL(states[i], params, masks[i])


@_jit()
def batch_observe(states, params, idx, seats, out, which_obs):
    """``out[k]`` = observation of seat ``seats[k]`` in record ``idx[k]``."""
    for k in range(idx.shape[0]):
        observe(states[idx[k]], params, seats[k], out[k], which_obs)


@_jit()
def batch_apply(states, params, idx, actions, masks, rewards):
    """Apply ``actions[k]`` (legal, for the seat to act) to record ``idx[k]``, refresh its mask
    ``masks[idx[k]]`` and add the rewards it paid to ``rewards[idx[k], seat]``."""
    for k in range(idx.shape[0]):
        i = idx[k]
        s = states[i]
        APPLY(s, params, actions[k])
        for seat in range(s.reward.shape[0]):
            rewards[i, seat] += s.reward[seat]
        LEGAL(s, params, masks[i])


@_jit()
def batch_reset(states, params, seeds, masks, deck, deck_len):
    """Reset every record with ``seeds[i]`` (a stacked ``deck`` if ``deck_len > 0``)."""
    for i in range(states.shape[0]):
        RESET(states[i], params, seeds[i], deck, deck_len)
        LEGAL(states[i], params, masks[i])


@_jit()
def play_games(states, params, seeds, seat_bots, masks, rewards, status, turns, max_decisions):
    """Play one whole game per record: record ``i`` is reset with ``seeds[i]`` and seat ``j`` is
    played by bot ``seat_bots[i, j]``. Writes every seat's total reward, the final status and the
    turns taken. Returns the number of decisions."""
    total = 0
    for i in range(states.shape[0]):
        s = states[i]
        m = masks[i]
        RESET(s, params, seeds[i], np.empty(0, np.int8), 0)
        LEGAL(s, params, m)
        for seat in range(rewards.shape[1]):
            rewards[i, seat] = 0.0
        d = 0
        while s.status == RUNNING and d < max_decisions:
            a = bot(s, params, m, seat_bots[i, s.current])
            APPLY(s, params, a)
            for seat in range(rewards.shape[1]):
                rewards[i, seat] += s.reward[seat]
            LEGAL(s, params, m)
            d += 1
        status[i] = s.status
        turns[i] = s.turn
        total += d
    return total
