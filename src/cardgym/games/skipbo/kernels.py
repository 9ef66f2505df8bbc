"""Skip-Bo rules kernels (compiled): reset, legal, apply, state_vector.

All functions are ``numba.njit(cache=True)`` over one state record ``s`` (dtype
``rules.STATE_DTYPE``) and the parameter vector ``p`` (``SkipBoRules.params()``). Nothing allocates.
"""

from __future__ import annotations

from numba import njit

from ...kit import (
    RUNNING, TERMINATED, TRUNCATED, below, clear_mask, clear_reward, deck_order, offset, prefetch_row,
    refill_from, start_record,
)
from .._shared import builds
from .._shared.builds import pile_need, recyclable, recycle
from .._shared.builds import play as build_play
from .observe import SEAT_BLOCK, STATE
from .rules import (
    A_DISCARD,
    A_PASS,
    DECK_SIZE,
    FULL_DECK,
    HAND,
    NUM_CODES,
    NUM_DISCARDS,
    NUM_PILES,
    OUT_DRAW,
    OUT_NONE,
    OUT_WIN,
    P_DIRECTIONS,
    P_FIRST,
    P_MATCH,
    MAX_TURN_PLAYS,
    P_MAX_TURNS,
    P_NUM_PLAYERS,
    P_RECYCLE,
    P_RECYCLE_BUILDS,
    P_REWARD,
    P_STALL_ROUNDS,
    P_STOCK,
    P_STOCK_POINTS,
    P_TEAMS,
    P_WILD_COVER,
    S_DISCARD,
    S_HAND_WILD,
    S_PARTNER_DISCARD,
    S_PARTNER_STOCK,
    S_STOCK,
    TOP,
)

# offsets of the full-information vector (observe.STATE, observe.SEAT_BLOCK)
O_SEATS = STATE.at("seats")
SEAT_SIZE = SEAT_BLOCK.total[1]
OS_STOCK_COUNTS = SEAT_BLOCK.at("stock_counts")[1]
OS_STOCK_TOP = SEAT_BLOCK.at("stock_top")[1]
OS_STOCK_SIZE = SEAT_BLOCK.at("stock_size")[1]
OS_DISCARD_TOP = SEAT_BLOCK.at("discard_top")[1]
OS_DISCARD_COUNTS = SEAT_BLOCK.at("discard_counts")[1]
O_BUILD_NEED = STATE.at("build_need")
O_BUILD_HEIGHT = STATE.at("build_height")
O_DRAW_COUNTS = STATE.at("draw_counts")
O_DRAW_SIZE = STATE.at("draw_size")
O_COMPLETED_SIZE = STATE.at("completed_size")
O_COVER_PILE = STATE.at("cover_pile")
O_CURRENT = STATE.at("current")
O_TOTALS = STATE.at("totals")


# --------------------------------------------------------------------------------------- helpers
@njit(cache=True)
def pile_start(p, b):
    """First value of build pile ``b`` (12 for the descending piles of two_up_two_down)."""
    return builds.pile_start(p[P_DIRECTIONS], b, TOP)


@njit(cache=True)
def pile_step(p, b):
    """+1 on an ascending build pile ``b``, -1 on a descending one."""
    return builds.pile_step(p[P_DIRECTIONS], b)


@njit(cache=True)
def next_need(p, b, v):
    """Value pile ``b`` needs after a card of value ``v`` went on it (a completed pile restarts)."""
    nv = v + pile_step(p, b)
    if nv < 1 or nv > TOP:
        nv = pile_start(p, b)
    return nv


@njit(cache=True)
def need(s, p, b):
    """Value build pile ``b`` needs next."""
    return pile_need(s.heights, b, p[P_DIRECTIONS], TOP)


@njit(cache=True)
def partner_of(s, p, seat):
    """Partner seat in teams, -1 otherwise."""
    if p[P_TEAMS] == 0:
        return -1
    n = s.num_players
    return (seat + n // 2) % n


@njit(cache=True)
def same_team(s, p, a, b):
    if a == b:
        return True
    return p[P_TEAMS] != 0 and b == (a + s.num_players // 2) % s.num_players


@njit(cache=True)
def stock_top(s, seat):
    """Top card code of ``seat``'s stock, -1 if empty."""
    return s.stop[seat]


@njit(cache=True)
def disc_top(s, seat, d):
    """Top card code of ``seat``'s discard pile ``d``, -1 if empty."""
    return s.dtop[seat, d]


@njit(cache=True)
def draw_cards(s, p, seat, k):
    """Draw up to ``k`` cards into ``seat``'s hand (recycling when the draw pile is empty)."""
    for _ in range(k):
        if s.draw_len == 0:
            if recycle(s, p[P_RECYCLE_BUILDS] != 0) == 0:
                return
        c = s.draw[s.draw_len - 1]
        s.draw_len -= 1
        s.hand[seat, c] += 1
        s.hand_len[seat] += 1


@njit(cache=True)
def prefetch(states, i):
    """The lines of record ``i`` past its head that the coming turns touch (the vector step asks for
    them two envs ahead, `cardgym.core.compiled.prefetch`): every seat's stock top and discard-pile tops (a
    discard writes there, a play from a pile reads the card under its top) and the draw pile's top."""
    s = states[i]
    for seat in range(s.num_players):
        for d in range(NUM_DISCARDS):
            prefetch_row(s.disc[seat, d], max(s.disc_len[seat, d] - 1, 0), 1)
        prefetch_row(s.stock[seat], max(s.stock_len[seat] - 1, 0), 1)
    prefetch_row(s.draw, max(s.draw_len - 1, 0), 1)


# --------------------------------------------------------------------------------------- dealing
@njit(cache=True)
def deal(s, p, deck, deck_len, start):
    """Deal a new hand (stacked deck if ``deck_len > 0``) and start ``start``'s turn."""
    n = s.num_players
    size = p[P_STOCK]
    order = s.done  # scratch: the deal order, front = top of the deck
    deck_order(s, FULL_DECK, deck, deck_len, order)
    for i in range(n):
        for r in range(size):
            s.stock[i, r] = order[r * n + i]  # each new card goes on top: index r = r-th card dealt
        s.stock_len[i] = size
        s.stop[i] = s.stock[i, size - 1]
        for c in range(NUM_CODES):
            s.hand[i, c] = 0
        s.hand_len[i] = 0
        for d in range(NUM_DISCARDS):
            s.disc_len[i, d] = 0
            s.dtop[i, d] = -1
            for c in range(NUM_CODES):
                s.disc_cnt[i, d, c] = 0
    for i in range(n, s.stock_len.shape[0]):
        s.stock_len[i] = 0
        s.hand_len[i] = 0
        s.stop[i] = -1
        for d in range(NUM_DISCARDS):
            s.disc_len[i, d] = 0
            s.dtop[i, d] = -1
    rest = DECK_SIZE - n * size
    for j in range(rest):
        s.draw[j] = order[DECK_SIZE - 1 - j]  # the deck's next card is the draw pile's top
    s.draw_len = rest
    s.done_len = 0
    for b in range(NUM_PILES):
        s.heights[b] = 0
        s.bcounts[b] = 0
    s.cover = -1
    s.idle = 0
    s.hand_turns = 0
    s.hand_start = start
    s.current = start
    start_turn(s, p)


@njit(cache=True)
def start_turn(s, p):
    seat = s.current
    s.played = 0
    s.turn_plays = 0
    if s.hand_len[seat] < HAND:
        draw_cards(s, p, seat, HAND - s.hand_len[seat])


@njit(cache=True)
def reset(s, p, seed, deck, deck_len):
    n = p[P_NUM_PLAYERS]
    start_record(s, seed, n)
    for i in range(s.reward.shape[0]):
        s.totals[i] = 0
        s.points[i] = 0
    s.hands = 0
    s.winner = -1
    s.outcome = OUT_NONE
    first = p[P_FIRST]
    if first < 0:
        first = below(s, n)
    deal(s, p, deck, deck_len, first)


# --------------------------------------------------------------------------------------- legality
@njit(cache=True)
def _has(s, seat, partner, v, hand_too):
    """Is a numbered card ``v`` available to ``seat`` from some source top (or the hand)?"""
    if hand_too and s.hand[seat, v] > 0:
        return True
    if stock_top(s, seat) == v:
        return True
    for d in range(NUM_DISCARDS):
        if disc_top(s, seat, d) == v:
            return True
    if partner >= 0:
        if stock_top(s, partner) == v:
            return True
        for d in range(NUM_DISCARDS):
            if disc_top(s, partner, d) == v:
                return True
    return False


@njit(cache=True)
def wild_ok(s, p, seat, partner, b):
    """May a wild go on build pile ``b`` now (wild_must_be_covered: only if it can be covered)?"""
    if p[P_WILD_COVER] == 0:
        return True
    h = s.heights[b] + 1  # the wild's height: the card that covers it is needed at h
    if h >= TOP:
        return False  # the wild would be the pile's last card
    return _has(s, seat, partner, builds.need(h, pile_start(p, b), pile_step(p, b)), True)


@njit(cache=True)
def legal(s, p, mask):
    """The mask of the seat to act. The free-play part assigns every entry it owns (0 or 1) without a
    branch per entry: the outcome of each test differs from one call to the next, and mispredicted
    branches were most of this kernel's time (benchmarks/throughput.py). Every entry belongs to one
    (source, pile) pair, so no assignment undoes another."""
    if not clear_mask(s, mask):
        return
    seat = s.current
    partner = partner_of(s, p, seat)
    st = stock_top(s, seat)
    pst = -1
    if partner >= 0:
        pst = stock_top(s, partner)
    if s.cover >= 0:  # only the covering plays onto that pile
        b = s.cover
        v = need(s, p, b)
        if st == v:
            mask[S_STOCK * 4 + b] = 1
        if s.hand[seat, v] > 0:
            mask[v * 4 + b] = 1
        for d in range(NUM_DISCARDS):
            if disc_top(s, seat, d) == v:
                mask[(S_DISCARD + d) * 4 + b] = 1
        if partner >= 0:
            if pst == v:
                mask[S_PARTNER_STOCK * 4 + b] = 1
            for d in range(NUM_DISCARDS):
                if disc_top(s, partner, d) == v:
                    mask[(S_PARTNER_DISCARD + d) * 4 + b] = 1
        return
    cover = p[P_WILD_COVER] != 0
    hand_wild = s.hand[seat, 0] > 0
    for b in range(NUM_PILES):
        v = need(s, p, b)
        w = True
        if cover:
            w = wild_ok(s, p, seat, partner, b)
        mask[S_STOCK * 4 + b] = (st == v) | ((st == 0) & w)
        mask[v * 4 + b] = s.hand[seat, v] > 0
        mask[S_HAND_WILD * 4 + b] = w & hand_wild
        for d in range(NUM_DISCARDS):
            t = disc_top(s, seat, d)
            mask[(S_DISCARD + d) * 4 + b] = (t == v) | ((t == 0) & w)
        if partner >= 0:
            mask[S_PARTNER_STOCK * 4 + b] = (pst == v) | ((pst == 0) & w)
            for d in range(NUM_DISCARDS):
                t = disc_top(s, partner, d)
                mask[(S_PARTNER_DISCARD + d) * 4 + b] = (t == v) | ((t == 0) & w)
    if s.hand_len[seat] == 0:
        mask[A_PASS] = 1
        return
    for c in range(NUM_CODES):
        k = c - 1 if c > 0 else 12
        held = s.hand[seat, c] > 0
        base = A_DISCARD + k * 4
        mask[base] = held
        mask[base + 1] = held
        mask[base + 2] = held
        mask[base + 3] = held


# --------------------------------------------------------------------------------------- apply
@njit(cache=True)
def _end_hand_win(s, p, w):
    n = s.num_players
    s.cover = -1  # a wild that won the hand (last stock card) is never covered: the hand is over
    pts = 25
    if p[P_STOCK_POINTS] != 0:
        for i in range(n):
            if not same_team(s, p, w, i):
                pts += 5 * s.stock_len[i]
    target = p[P_MATCH]
    s.hands += 1
    s.winner = w
    s.outcome = OUT_WIN
    for i in range(n):
        if same_team(s, p, w, i):
            s.points[i] = pts
            s.totals[i] += pts
            if p[P_REWARD] == 1:
                s.reward[i] = pts
        else:
            s.points[i] = 0
    if target == 0 or s.totals[w] >= target:
        s.status = TERMINATED
        if p[P_REWARD] == 0:
            for i in range(n):
                s.reward[i] = 1.0 if same_team(s, p, w, i) else -1.0
    else:
        s.turn += 1  # the winning turn counts
        deal(s, p, s.done, 0, (s.hand_start + 1) % n)
        if s.turn >= p[P_MAX_TURNS]:
            s.status = TRUNCATED


@njit(cache=True)
def _end_hand_draw(s, p):
    n = s.num_players
    s.hands += 1
    s.winner = -1
    s.outcome = OUT_DRAW
    for i in range(n):
        s.points[i] = 0
    if p[P_MATCH] == 0:
        s.status = TERMINATED
    else:
        deal(s, p, s.done, 0, (s.hand_start + 1) % n)


@njit(cache=True)
def _end_turn(s, p):
    n = s.num_players
    s.turn += 1
    s.hand_turns += 1
    if s.played != 0:
        s.idle = 0
    elif s.draw_len == 0 and not recyclable(s, p[P_RECYCLE_BUILDS] != 0):
        s.idle += 1
    else:
        s.idle = 0
    if p[P_STALL_ROUNDS] > 0 and s.idle >= p[P_STALL_ROUNDS] * n:
        _end_hand_draw(s, p)
        if s.status != RUNNING:
            return
    else:
        s.current = (s.current + 1) % n
        start_turn(s, p)
    if s.turn >= p[P_MAX_TURNS]:
        s.status = TRUNCATED


@njit(cache=True)
def apply(s, p, action):
    clear_reward(s)
    seat = s.current
    if action == A_PASS:
        _end_turn(s, p)
        return
    if action >= A_DISCARD:
        k = action - A_DISCARD
        ci = k // 4
        d = k % 4
        c = ci + 1 if ci < 12 else 0
        s.hand[seat, c] -= 1
        s.hand_len[seat] -= 1
        L = s.disc_len[seat, d]
        s.disc[seat, d, L] = c
        s.disc_len[seat, d] = L + 1
        s.dtop[seat, d] = c
        s.disc_cnt[seat, d, c] += 1
        _end_turn(s, p)
        return
    src = action // 4
    b = action % 4
    owner = -1  # whose stock the card came from
    if src == S_STOCK or src == S_PARTNER_STOCK:
        owner = seat if src == S_STOCK else partner_of(s, p, seat)
        L = s.stock_len[owner] - 1
        c = s.stock[owner, L]
        s.stock_len[owner] = L
        s.stop[owner] = s.stock[owner, L - 1] if L > 0 else -1
    elif src <= S_HAND_WILD:
        c = src if src < S_HAND_WILD else 0
        s.hand[seat, c] -= 1
        s.hand_len[seat] -= 1
    else:
        if src < S_PARTNER_STOCK:
            who = seat
            d = src - S_DISCARD
        else:
            who = partner_of(s, p, seat)
            d = src - S_PARTNER_DISCARD
        L = s.disc_len[who, d] - 1
        c = s.disc[who, d, L]
        s.disc_len[who, d] = L
        s.dtop[who, d] = s.disc[who, d, L - 1] if L > 0 else -1
        s.disc_cnt[who, d, c] -= 1
    if p[P_WILD_COVER] != 0:
        s.cover = b if c == 0 else -1
    old_done = s.done_len
    completed, new_done = build_play(s.builds, s.heights, s.bcounts, b, c, TOP, s.done, s.done_len)
    if completed and p[P_RECYCLE] == 1:
        s.draw_len = refill_from(s, s.draw, s.draw_len, s.done[old_done:], new_done - old_done)
        s.done_len = old_done
    else:
        s.done_len = new_done
    s.played = 1
    s.turn_plays += 1
    if owner >= 0 and s.stock_len[owner] == 0:
        partner = partner_of(s, p, owner)
        if partner < 0 or s.stock_len[partner] == 0:
            _end_hand_win(s, p, seat)
            return
    if s.hand_len[seat] == 0:
        draw_cards(s, p, seat, HAND)
    if s.turn_plays >= MAX_TURN_PLAYS:
        s.status = TRUNCATED  # a turn that never ends (see MAX_TURN_PLAYS)
        s.cover = -1


# --------------------------------------------------------------------------------------- state
@njit(cache=True)
def state_vector(s, p, out):
    """Full-information state (absolute seats), written through the layout ``observe.STATE``: per seat
    hand counts, stock contents counts, stock top one-hot, stock size, discard tops one-hot, discard
    counts; then build-pile need one-hot and heights, draw-pile counts, draw size, completed size, cover
    pile one-hot, current seat one-hot, totals. Offsets add record fields with int(): plain numpy
    (NUMBA_DISABLE_JIT) keeps int8 sums in int8."""
    n = int(s.num_players)
    for k in range(out.shape[0]):
        out[k] = 0.0
    for i in range(n):
        o = offset(O_SEATS, n) + i * SEAT_SIZE
        for c in range(NUM_CODES):
            out[o + c] = s.hand[i, c]
        for r in range(s.stock_len[i]):
            out[o + OS_STOCK_COUNTS + int(s.stock[i, r])] += 1.0
        t = int(stock_top(s, i))
        if t >= 0:
            out[o + OS_STOCK_TOP + t] = 1.0
        out[o + OS_STOCK_SIZE] = s.stock_len[i]
        for d in range(NUM_DISCARDS):
            t = int(disc_top(s, i, d))
            if t >= 0:
                out[o + OS_DISCARD_TOP + d * 13 + t] = 1.0
            for c in range(NUM_CODES):
                out[o + OS_DISCARD_COUNTS + d * 13 + c] = s.disc_cnt[i, d, c]
    o = offset(O_BUILD_NEED, n)
    for b in range(NUM_PILES):
        out[o + b * 12 + int(need(s, p, b)) - 1] = 1.0
    o = offset(O_BUILD_HEIGHT, n)
    for b in range(NUM_PILES):
        out[o + b] = s.heights[b]
    o = offset(O_DRAW_COUNTS, n)
    for k in range(s.draw_len):
        out[o + int(s.draw[k])] += 1.0
    out[offset(O_DRAW_SIZE, n)] = s.draw_len
    out[offset(O_COMPLETED_SIZE, n)] = s.done_len
    if s.cover >= 0:
        out[offset(O_COVER_PILE, n) + int(s.cover)] = 1.0
    if s.status == RUNNING:
        out[offset(O_CURRENT, n) + int(s.current)] = 1.0
    o = offset(O_TOTALS, n)
    for i in range(n):
        out[o + i] = s.totals[i]
