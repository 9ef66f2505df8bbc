"""Compiled Skyjo rules: reset, legal, apply, state vector and the "vector" observation.

All kernels are pure functions over one state record ``s`` (dtype ``rules.STATE_DTYPE``) and the
parameter vector ``p`` (``SkyjoRules.params()``). Piles are int8 arrays with their top card last.
``s.seen`` counts the face-up cards by value (grids, the whole discard pile, the held card): it is kept
up to date incrementally so that the observation's "unseen" counts cost 15 subtractions.
"""

from __future__ import annotations

from numba import njit

from ...kit import (
    RUNNING, TERMINATED, TRUNCATED, below, clear_mask, clear_reward, deck_order, load_pile, shuffle,
    start_record,
)
from .rules import (
    A_DRAW,
    A_REPLACE,
    A_TAKE,
    COLS,
    DECK,
    DECK_COUNTS,
    DECK_SIZE,
    END_GAME,
    END_NONE,
    END_STALL,
    END_TRUNCATED,
    HIDDEN,
    MAX_PLAYERS,
    NUM_VALUES,
    P_END_SCORE,
    P_EPISODE,
    P_MAX_ROUNDS,
    P_MAX_TURNS,
    P_NUM_PLAYERS,
    P_RESHUFFLE,
    P_REWARD,
    P_SETUP,
    P_STALL_ROUNDS,
    PH_DRAWN,
    PH_OVER,
    PH_SETUP,
    PH_START,
    PH_TAKEN,
    REMOVED,
    SLOTS,
    UP,
)


# ---------------------------------------------------------------------------------------------------
# small helpers


@njit(cache=True)
def _push_discard(s, card):
    s.discard[s.discard_len] = card
    s.discard_len += 1


@njit(cache=True)
def _reveal(s, seat, pos):
    s.up[seat, pos] = UP
    s.hidden[seat] -= 1
    s.seen[s.grid[seat, pos] + 2] += 1


@njit(cache=True)
def _check_column(s, seat, col):
    """Remove column ``col`` of ``seat`` onto the discard pile if it shows three equal face-up values."""
    a = col
    b = col + 4
    c = col + 8
    if s.up[seat, a] == UP and s.up[seat, b] == UP and s.up[seat, c] == UP:
        v = s.grid[seat, a]
        if s.grid[seat, b] == v and s.grid[seat, c] == v:
            _push_discard(s, v)
            _push_discard(s, v)
            _push_discard(s, v)
            s.up[seat, a] = REMOVED
            s.up[seat, b] = REMOVED
            s.up[seat, c] = REMOVED
            return True
    return False


@njit(cache=True)
def round_points(s, seat):
    """Sum of the non-removed cards of ``seat`` (hidden ones included: full information)."""
    t = 0
    for pos in range(SLOTS):
        if s.up[seat, pos] != REMOVED:
            t += int(s.grid[seat, pos])
    return t


@njit(cache=True)
def _reshuffle(s, p):
    """The draw pile is empty: rebuild it from the discard pile (``reshuffle`` option)."""
    if p[P_RESHUFFLE] == 0:  # keep_top
        top = s.discard[s.discard_len - 1]
        m = s.discard_len - 1
    else:  # all_but_top_flip
        top = 0
        m = s.discard_len
    for k in range(m):
        card = s.discard[k]
        s.seen[card + 2] -= 1
        s.buf[k] = card
    shuffle(s, s.buf, m)
    # front of buf = top of the new draw pile
    for k in range(m):
        s.draw[m - 1 - k] = s.buf[k]
    s.draw_len = m
    if p[P_RESHUFFLE] == 0:
        s.discard[0] = top
        s.discard_len = 1
    else:
        card = s.draw[s.draw_len - 1]
        s.draw_len -= 1
        s.discard[0] = card
        s.discard_len = 1
        s.seen[card + 2] += 1


@njit(cache=True)
def _start_play(s, p):
    """Setup reveals done: choose the starting seat and open the first turn."""
    n = p[P_NUM_PLAYERS]
    if s.last_goer >= 0:
        s.current = s.last_goer
    else:
        best = -1000
        who = 0
        for i in range(n):
            t = 0
            for pos in range(SLOTS):
                if s.up[i, pos] == UP:
                    t += int(s.grid[i, pos])
            if t > best:
                best = t
                who = i
        s.current = who
    s.phase = PH_START


@njit(cache=True)
def _new_round(s, p, deck, deck_len):
    """Deal a round: stacked (``deck_len > 0``) or shuffled with the game generator."""
    n = p[P_NUM_PLAYERS]
    deck_order(s, DECK, deck, deck_len, s.buf)
    for i in range(MAX_PLAYERS):
        s.hidden[i] = 0
        for pos in range(SLOTS):
            if i < n:
                s.grid[i, pos] = s.buf[pos * n + i]
                s.up[i, pos] = HIDDEN
            else:
                s.grid[i, pos] = 0
                s.up[i, pos] = REMOVED
        if i < n:
            s.hidden[i] = SLOTS
    for v in range(NUM_VALUES):
        s.seen[v] = 0
    first = SLOTS * n
    s.discard_len = 0
    _push_discard(s, s.buf[first])
    s.seen[s.buf[first] + 2] += 1
    s.draw_len = load_pile(s.draw, s.buf, first + 1, DECK_SIZE - first - 1)
    s.held = 0
    s.goer = -1
    s.final_left = 0
    s.stall = 0
    s.round_turns = 0
    s.setup_done = 0
    if p[P_SETUP] == 1:  # random reveals, with the game generator
        for i in range(n):
            a = below(s, SLOTS)
            b = below(s, SLOTS - 1)
            if b >= a:
                b += 1
            _reveal(s, i, a)
            _reveal(s, i, b)
        _start_play(s, p)
    else:
        s.phase = PH_SETUP
        s.current = 0


# ---------------------------------------------------------------------------------------------------
# protocol kernels


@njit(cache=True)
def reset(s, p, seed, deck, deck_len):
    n = p[P_NUM_PLAYERS]
    start_record(s, seed, n)
    for i in range(MAX_PLAYERS):
        s.scores[i] = 0
        s.totals[i] = 0
    s.round_no = 0
    s.last_goer = -1
    s.end_reason = END_NONE
    _new_round(s, p, deck, deck_len)


@njit(cache=True)
def legal(s, p, mask):
    if not clear_mask(s, mask):
        return
    me = s.current
    ph = s.phase
    if ph == PH_START:
        if s.draw_len > 0 or s.discard_len >= 2:
            mask[A_DRAW] = 1
        if s.discard_len > 0:
            mask[A_TAKE] = 1
    elif ph == PH_SETUP:
        for pos in range(SLOTS):
            if s.up[me, pos] == HIDDEN:
                mask[pos] = 1
    else:
        for pos in range(SLOTS):
            u = s.up[me, pos]
            if u != REMOVED:
                mask[A_REPLACE + pos] = 1
                if u == HIDDEN and ph == PH_DRAWN:
                    mask[pos] = 1


@njit(cache=True)
def _end_game(s, p, reason):
    n = p[P_NUM_PLAYERS]
    s.status = TERMINATED
    s.end_reason = reason
    s.phase = PH_OVER
    if reason == END_GAME and p[P_REWARD] == 0:
        low = s.totals[0]
        for i in range(1, n):
            low = min(low, s.totals[i])
        for i in range(n):
            s.reward[i] = 1.0 if s.totals[i] == low else -1.0


@njit(cache=True)
def _end_round(s, p):
    """Final reveal, columns, scoring with doubling, then the next round or the end of the game."""
    n = p[P_NUM_PLAYERS]
    for i in range(n):
        for pos in range(SLOTS):
            if s.up[i, pos] == HIDDEN:
                _reveal(s, i, pos)
        for col in range(COLS):
            _check_column(s, i, col)
    for i in range(n):
        s.scores[i] = round_points(s, i)
    g = s.goer
    if s.scores[g] > 0:
        for i in range(n):
            if i != g and s.scores[i] <= s.scores[g]:
                s.scores[g] = 2 * s.scores[g]
                break
    for i in range(n):
        s.totals[i] += s.scores[i]
        if p[P_REWARD] == 1:
            s.reward[i] = -float(s.scores[i])
    s.round_no += 1
    s.last_goer = g
    over = False
    if p[P_EPISODE] == 1:
        over = True
    elif p[P_MAX_ROUNDS] > 0:
        over = s.round_no >= p[P_MAX_ROUNDS]
    else:
        for i in range(n):
            if s.totals[i] >= p[P_END_SCORE]:
                over = True
    if over:
        _end_game(s, p, END_GAME)
    else:
        _new_round(s, p, s.buf, 0)


@njit(cache=True)
def _end_turn(s, p, progress):
    n = p[P_NUM_PLAYERS]
    s.turn += 1
    s.round_turns += 1
    if progress:
        s.stall = 0
    else:
        s.stall += 1
    cur = s.current
    ended = False
    if s.goer >= 0:
        s.final_left -= 1
        if s.final_left <= 0:
            _end_round(s, p)
            ended = True
    elif s.hidden[cur] == 0:
        s.goer = cur
        s.final_left = n - 1
    if not ended:
        s.current = (cur + 1) % n
        s.phase = PH_START
    if s.status == RUNNING:
        if p[P_STALL_ROUNDS] > 0 and s.stall >= p[P_STALL_ROUNDS] * n:
            _end_game(s, p, END_STALL)
        elif s.turn >= p[P_MAX_TURNS]:
            s.status = TRUNCATED
            s.end_reason = END_TRUNCATED
            s.phase = PH_OVER


@njit(cache=True)
def apply(s, p, action):
    clear_reward(s)
    me = s.current
    ph = s.phase
    if ph == PH_START:
        if action == A_DRAW:
            if s.draw_len == 0:
                _reshuffle(s, p)
            s.draw_len -= 1
            card = s.draw[s.draw_len]
            s.held = card
            s.seen[card + 2] += 1
            s.phase = PH_DRAWN
        else:
            s.discard_len -= 1
            s.held = s.discard[s.discard_len]
            s.phase = PH_TAKEN
    elif ph == PH_SETUP:
        _reveal(s, me, action)
        s.setup_done += 1
        if s.setup_done == 2:
            s.setup_done = 0
            if me + 1 >= p[P_NUM_PLAYERS]:
                _start_play(s, p)
            else:
                s.current = me + 1
    else:
        progress = False
        if action >= A_REPLACE:
            pos = action - A_REPLACE
            old = s.grid[me, pos]
            if s.up[me, pos] == HIDDEN:
                s.hidden[me] -= 1
                s.seen[old + 2] += 1
                progress = True
            s.grid[me, pos] = s.held
            s.up[me, pos] = UP
            _push_discard(s, old)
        else:
            pos = action
            _push_discard(s, s.held)
            _reveal(s, me, pos)
            progress = True
        s.held = 0
        _check_column(s, me, pos % COLS)
        _end_turn(s, p, progress)


# ---------------------------------------------------------------------------------------------------
# encoders


@njit(cache=True)
def _write_common(s, p, seat, out, at):
    """Everything after the grids (shared by the observation and the state vector). Returns the end."""
    n = p[P_NUM_PLAYERS]
    # discard top (16: 15 values + empty)
    if s.discard_len > 0:
        out[at + int(s.discard[s.discard_len - 1]) + 2] = 1.0
    else:
        out[at + 15] = 1.0
    at += 16
    # held card (16: 15 values + none)
    ph = s.phase
    if ph == PH_DRAWN or ph == PH_TAKEN:
        out[at + int(s.held) + 2] = 1.0
    else:
        out[at + 15] = 1.0
    at += 16
    # phase (5)
    out[at + ph] = 1.0
    at += 5
    # current seat, relative (n)
    if s.status == RUNNING:
        out[at + (int(s.current) - seat + n) % n] = 1.0
    at += n
    # goer, relative (n)
    if s.goer >= 0 and s.status == RUNNING:
        out[at + (int(s.goer) - seat + n) % n] = 1.0
    at += n
    # last round's points and totals, relative (n each)
    for k in range(n):
        i = (seat + k) % n
        out[at + k] = s.scores[i] / 100.0
        t = s.totals[i] / 100.0
        if t > 10.0:
            t = 10.0
        elif t < -10.0:
            t = -10.0
        out[at + n + k] = t
    at += 2 * n
    r = s.round_no / 20.0
    out[at] = min(1.0, r)
    out[at + 1] = s.draw_len / 150.0
    at += 2
    for v in range(NUM_VALUES):
        out[at + v] = (DECK_COUNTS[v] - s.seen[v]) / 15.0
    return at + NUM_VALUES


@njit(cache=True)
def _write_grid(s, i, out, at, full):
    """Seat ``i``'s 12 slots from ``out[at]``, 17 values each: hidden flag, removed flag, then the value
    one-hot (-2..12 at offsets 2..16). A hidden slot shows its value only with ``full`` information
    (``state()``)."""
    for pos in range(SLOTS):
        base = at + pos * 17
        u = s.up[i, pos]
        if u == HIDDEN:
            out[base] = 1.0
        if u == REMOVED:
            out[base + 1] = 1.0
        elif u == UP or full:
            out[base + 4 + int(s.grid[i, pos])] = 1.0


@njit(cache=True)
def observe_vector(s, p, seat, out):
    n = p[P_NUM_PLAYERS]
    for k in range(out.shape[0]):
        out[k] = 0.0
    for k in range(n):
        _write_grid(s, (seat + k) % n, out, k * SLOTS * 17, False)
    _write_common(s, p, seat, out, n * SLOTS * 17)


@njit(cache=True)
def state_vector(s, p, out):
    """Full information, absolute seats: every slot [hidden flag, removed flag, true value one-hot],
    then the common part seen from seat 0, then the top card of the draw pile (16: 15 values + empty)."""
    n = p[P_NUM_PLAYERS]
    for k in range(out.shape[0]):
        out[k] = 0.0
    for i in range(n):
        _write_grid(s, i, out, i * SLOTS * 17, True)
    at = _write_common(s, p, 0, out, n * SLOTS * 17)
    if s.draw_len > 0:
        out[at + int(s.draw[s.draw_len - 1]) + 2] = 1.0
    else:
        out[at + 15] = 1.0
