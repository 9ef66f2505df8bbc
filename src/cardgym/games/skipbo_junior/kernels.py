"""Skip-Bo Junior rules kernels (numba): reset, legal, apply, state_vector.

The deal, the build piles and the recycling are the shared Skip-Bo helpers of ``games/_shared``.
Turns in which the player cannot play are taken inside the kernels (no decision is asked for), so
whenever ``status == RUNNING`` the current seat has at least one legal action that is a play.
"""

from __future__ import annotations

from numba import njit

from ...kit import (
    RUNNING, TERMINATED, TRUNCATED, below, clear_mask, clear_reward, count_values, deck_order, load_pile,
    offset, pop, push, start_record, top,
)
from .._shared.builds import ASCENDING, accepts, pile_need, play, recyclable, recycle
from .observe import STATE, VECTOR, observe_vector
from .rules import (
    CODE_COUNTS,
    DECK_SIZE,
    END_TURN,
    FULL_DECK,
    NUM_CODES,
    NUM_PILES,
    NUM_STACKS,
    P_FIRST,
    P_MAX_TURNS,
    P_MUST_PLAY,
    P_NUM_PLAYERS,
    P_RECYCLE_BUILDS,
    P_STALL_ROUNDS,
    P_STOCK,
    TOP,
)

# ---------------------------------------------------------------------------------------------
# piles of the record


@njit(cache=True)
def stock_top(s, seat):
    """Code of ``seat``'s stock top, -1 if the stock is empty."""
    return top(s.stock[seat], s.stock_len[seat])


@njit(cache=True)
def stack_top(s, seat, k):
    """Code of the top card of ``seat``'s hand stack ``k``, -1 if the stack is empty."""
    return top(s.stacks[seat, k], s.stack_len[seat, k])


@njit(cache=True)
def _push_stack(s, seat, k, card):
    n = s.stack_len[seat, k]
    if n > 0:
        s.stack_under[seat, k, s.stacks[seat, k, n - 1]] += 1
    s.stack_len[seat, k] = push(s.stacks[seat, k], n, card)


@njit(cache=True)
def _pop_stack(s, seat, k):
    n = s.stack_len[seat, k]
    card = pop(s.stacks[seat, k], n)
    n -= 1
    s.stack_len[seat, k] = n
    if n > 0:
        s.stack_under[seat, k, s.stacks[seat, k, n - 1]] -= 1
    return card


@njit(cache=True)
def _pop_stock(s, seat):
    n = s.stock_len[seat]
    card = pop(s.stock[seat], n)
    n -= 1
    s.stock_len[seat] = n
    if n > 0:  # the next stock card is turned face up
        s.hidden[s.stock[seat, n - 1]] -= 1
    return card


@njit(cache=True)
def _recycle(s, p):
    """The draw pile is empty: shuffle the completed stack into a new one; failing that (option
    ``recycle_build_piles``) the cards under the build piles' top cards. They are hidden again."""
    m = recycle(s, p[P_RECYCLE_BUILDS] != 0)
    if m > 0:
        count_values(s.draw, m, s.hidden)
        s.recycles += 1


@njit(cache=True)
def _draw_card(s, p):
    """Next card of the draw pile (recycling if it is empty), -1 if there is none."""
    if s.draw_len == 0:
        _recycle(s, p)
        if s.draw_len == 0:
            return -1
    n = s.draw_len - 1
    s.draw_len = n
    card = s.draw[n]
    s.hidden[card] -= 1
    return card


@njit(cache=True)
def can_draw(s, p):
    """Could a card be dealt now (draw pile, completed stack, or cards under build tops)?"""
    return s.draw_len > 0 or recyclable(s, p[P_RECYCLE_BUILDS] != 0)


@njit(cache=True)
def wanted(s):
    """Bit set of the codes some build pile takes now (bit 0, the wild, is always set)."""
    bits = 1
    for b in range(NUM_PILES):
        # int(): in plain numpy (NUMBA_DISABLE_JIT) 1 << int8 stays int8 and drops codes >= 8
        bits |= 1 << int(pile_need(s.heights, b, ASCENDING, TOP))
    return bits


@njit(cache=True)
def has_play(s, seat):
    bits = wanted(s)
    c = int(stock_top(s, seat))
    if c >= 0 and (bits >> c) & 1:
        return True
    for k in range(NUM_STACKS):
        c = int(stack_top(s, seat, k))
        if c >= 0 and (bits >> c) & 1:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# turns


@njit(cache=True)
def _end_turn(s, p):
    """Close the current turn; True if the episode ended (stall draw or turn cap)."""
    n = s.num_players
    if s.played == 0 and not can_draw(s, p):
        s.idle += 1
    else:
        s.idle = 0
    s.turn += 1
    if s.idle >= p[P_STALL_ROUNDS] * n:
        s.status = TERMINATED  # draw: no winner, rewards stay 0
        return True
    if s.turn >= p[P_MAX_TURNS]:
        s.status = TRUNCATED
        return True
    s.current = (s.current + 1) % n
    s.played = 0
    return False


@njit(cache=True)
def _start_turns(s, p):
    """Deal the current player's three cards; take every turn that has no play until a player can
    play (a decision) or the episode ends."""
    while True:
        seat = s.current
        for k in range(NUM_STACKS):
            c = _draw_card(s, p)
            if c < 0:
                break
            _push_stack(s, seat, k, c)
        if has_play(s, seat):
            return
        if _end_turn(s, p):
            return


@njit(cache=True)
def reset(s, p, seed, deck, deck_len):
    n = p[P_NUM_PLAYERS]
    ss = p[P_STOCK]
    start_record(s, seed, n)
    s.played = 0
    s.idle = 0
    s.winner = -1
    s.recycles = 0
    for i in range(s.reward.shape[0]):
        s.stock_len[i] = 0
        for k in range(NUM_STACKS):
            s.stack_len[i, k] = 0
            for c in range(NUM_CODES):
                s.stack_under[i, k, c] = 0
    for b in range(NUM_PILES):
        s.heights[b] = 0
        s.bcounts[b] = 0
    # deal order into the (empty) completed stack, used as scratch
    deck_order(s, FULL_DECK, deck, deck_len, s.done)
    for i in range(n):
        for r in range(ss):
            s.stock[i, r] = s.done[r * n + i]  # each new card on top
        s.stock_len[i] = ss
    s.draw_len = load_pile(s.draw, s.done, n * ss, DECK_SIZE - n * ss)
    s.done_len = 0
    for c in range(NUM_CODES):
        s.hidden[c] = CODE_COUNTS[c]
    for i in range(n):
        s.hidden[s.stock[i, ss - 1]] -= 1  # stock tops are face up
    first = p[P_FIRST]
    if first < 0:
        first = below(s, n)
    s.current = first
    _start_turns(s, p)


@njit(cache=True)
def legal(s, p, mask):
    if not clear_mask(s, mask):
        return
    seat = s.current
    for src in range(NUM_STACKS + 1):
        c = stock_top(s, seat) if src == 0 else stack_top(s, seat, src - 1)
        if c >= 0:
            for b in range(NUM_PILES):
                if accepts(c, s.heights[b], 1, 1):
                    mask[src * 4 + b] = 1
    if not p[P_MUST_PLAY]:
        mask[END_TURN] = 1


@njit(cache=True)
def apply(s, p, action):
    clear_reward(s)
    seat = s.current
    if action == END_TURN:
        if not _end_turn(s, p):
            _start_turns(s, p)
        return
    src = action >> 2
    pile = action & 3
    if src == 0:
        card = _pop_stock(s, seat)
    else:
        card = _pop_stack(s, seat, src - 1)
    _, done_len = play(s.builds, s.heights, s.bcounts, pile, card, TOP, s.done, s.done_len)
    s.done_len = done_len
    s.played = 1
    if s.stock_len[seat] == 0:
        s.status = TERMINATED
        s.winner = seat
        for i in range(s.num_players):
            s.reward[i] = 1.0 if i == seat else -1.0
        return
    if has_play(s, seat):
        return
    if not _end_turn(s, p):
        _start_turns(s, p)


# ---------------------------------------------------------------------------------------------
# the full-information vector (layout: observe.STATE)

VECTOR_SIZE = VECTOR.total  # the observation at the start: offset(VECTOR_SIZE, n) entries
O_CURRENT = STATE.at("current")
O_STOCK_HIDDEN = STATE.at("stock_hidden")
O_STOCK_NEXT = STATE.at("stock_next")
O_DRAW_NEXT = STATE.at("draw_next")


@njit(cache=True)
def state_vector(s, p, out):
    """Full information: seat 0's observation, the seat to act, every stock's hidden cards (counts
    under the top and the next card) and the next three cards of the draw pile. Offsets add record
    fields with int(): plain numpy (NUMBA_DISABLE_JIT) keeps int8 sums in int8."""
    n = int(s.num_players)
    m = offset(VECTOR_SIZE, n)
    observe_vector(s, p, 0, out[:m])  # zeroes out[:m] only
    for i in range(m, out.shape[0]):
        out[i] = 0.0
    if s.status == RUNNING:
        out[offset(O_CURRENT, n) + int(s.current)] = 1.0
    o_cnt = offset(O_STOCK_HIDDEN, n)
    o_nxt = offset(O_STOCK_NEXT, n)
    o_draw = offset(O_DRAW_NEXT, n)
    for j in range(n):
        L = s.stock_len[j]
        for k in range(L - 1):
            out[o_cnt + 11 * j + int(s.stock[j, k])] += 1.0
        if L >= 2:
            out[o_nxt + 11 * j + int(s.stock[j, L - 2])] = 1.0
    for t in range(3):
        if s.draw_len > t:
            out[o_draw + 11 * t + int(s.draw[s.draw_len - 1 - t])] = 1.0
