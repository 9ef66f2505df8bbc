"""Skip-Bo Junior (Mattel): 96 cards, 2-4 players, stocks of 10, three face-up hand stacks.

See ``docs/skipbo_junior.md`` for the rules as implemented, the options, the action table and the
observation layouts. The deal, the build piles and the recycling are the Skip-Bo helpers of
``games/_shared``.
"""

from __future__ import annotations

import numpy as np

from ...core.game import DictEncoder, Field, FlatEncoder, GameSpec
from .._shared.presets import CLONE_EXPERT
from . import kernels as K
from .bots import bot_greedy, bot_random
from .expert import bot_expert
from .invariants import cards_of, check_state
from .search import bot_search
from .rules import (
    DECK_SIZE,
    END_TURN,
    FULL_DECK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    NUM_CODES,
    NUM_PILES,
    NUM_STACKS,
    STATE_DTYPE,
    JuniorRules,
)

__all__ = ["GAME", "JuniorRules", "state_layout", "vector_layout"]

CODE_NAMES = ["W"] + [str(v) for v in range(1, 11)]


def vector_layout(rules) -> list:
    """The "vector" observation, in order. Players are seated relative to the observer (index 0 =
    the observer, then the next seats in turn order); per-player blocks are player-major."""
    n = rules.num_players
    return [
        Field("stock_top", 11 * n, 0, 1,
              "one-hot code (0 = wild, 1..10) of each player's stock top; all 0 once a stock is empty"),
        Field("stock_size", n, 0, rules.stock_size, "cards left in each player's stock"),
        Field("stack_top", 33 * n, 0, 1,
              "per player, per hand stack 0..2: one-hot code of the top card (all 0 if the stack is empty)"),
        Field("stack_under", 33 * n, 0, 16,
              "per player, per hand stack 0..2: count of each code 0..10 under the top card"),
        Field("build_next", 40, 0, 1, "per build pile 0..3: one-hot of the value it takes next, 1..10"),
        Field("build_height", 4, 0, 9, "per build pile: value reached (0 = empty pile)"),
        Field("hidden_counts", 11, 0, 16,
              "count of each code nobody can see (draw pile + every stock under its top)"),
        Field("draw_size", 1, 0, DECK_SIZE, "cards in the draw pile"),
        Field("completed_size", 1, 0, DECK_SIZE, "cards in the completed stack (finished build piles)"),
    ]


def state_layout(rules) -> list:
    """The full-information ``state()`` vector: seat 0's observation (absolute seats) then hidden cards."""
    n = rules.num_players
    return vector_layout(rules) + [
        Field("current", n, 0, 1, "one-hot seat to act (all 0 once the episode is over)"),
        Field("stock_hidden", 11 * n, 0, 16, "per seat: count of each code under the stock top"),
        Field("stock_next", 11 * n, 0, 1, "per seat: one-hot code of the card under the stock top"),
        Field("draw_next", 33, 0, 1, "one-hot codes of the next three cards of the draw pile"),
    ]


def _state_size(rules) -> int:
    return sum(f.size for f in state_layout(rules))


# -- dict encoder -----------------------------------------------------------------------------


def dict_space(rules):
    from gymnasium import spaces

    n = rules.num_players
    i16 = np.int16
    return spaces.Dict(
        {
            "stock_top": spaces.Box(-1, 10, (n,), i16),
            "stock_size": spaces.Box(0, rules.stock_size, (n,), i16),
            "stack_top": spaces.Box(-1, 10, (n, NUM_STACKS), i16),
            "stack_size": spaces.Box(0, DECK_SIZE, (n, NUM_STACKS), i16),
            "stack_under": spaces.Box(0, 16, (n, NUM_STACKS, NUM_CODES), i16),
            "build_height": spaces.Box(0, 9, (NUM_PILES,), i16),
            "hidden_counts": spaces.Box(0, 16, (NUM_CODES,), i16),
            "draw_size": spaces.Box(0, DECK_SIZE, (1,), i16),
            "completed_size": spaces.Box(0, DECK_SIZE, (1,), i16),
        }
    )


def dict_encode(record, rules, seat) -> dict:
    n = int(record["num_players"])
    order = [(seat + r) % n for r in range(n)]
    stock_len = record["stock_len"]
    stock = record["stock"]
    stack_len = record["stack_len"]
    stacks = record["stacks"]
    out = {
        "stock_top": np.array(
            [stock[j, stock_len[j] - 1] if stock_len[j] > 0 else -1 for j in order], np.int16),
        "stock_size": np.array([stock_len[j] for j in order], np.int16),
        "stack_top": np.array(
            [[stacks[j, k, stack_len[j, k] - 1] if stack_len[j, k] > 0 else -1 for k in range(NUM_STACKS)]
             for j in order], np.int16),
        "stack_size": np.array([stack_len[j] for j in order], np.int16).reshape(n, NUM_STACKS),
        "stack_under": np.array(record["stack_under"][order], np.int16),
        "build_height": np.array(record["heights"], np.int16),
        "hidden_counts": np.array(record["hidden"], np.int16),
        "draw_size": np.array([record["draw_len"]], np.int16),
        "completed_size": np.array([record["done_len"]], np.int16),
    }
    return out


# -- words and pictures -------------------------------------------------------------------------


def action_to_str(a: int) -> str:
    a = int(a)
    if a == END_TURN:
        return "end turn"
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"unknown skipbo_junior action {a}; allowed: 0..{NUM_ACTIONS - 1}")
    src, pile = divmod(a, 4)
    what = "stock top" if src == 0 else f"top of hand stack {src - 1}"
    return f"play {what} onto build pile {pile}"


def _pile_str(cards) -> str:
    return " ".join(CODE_NAMES[int(c)] for c in cards) if len(cards) else "-"


def render_ansi(record, rules) -> str:
    """Public view: hand stacks are face up in Junior; stocks show their top, the rest as ##."""
    n = int(record["num_players"])
    status = int(record["status"])
    head = f"Skip-Bo Junior - turn {int(record['turn'])}, "
    if status == 0:
        head += f"player_{int(record['current'])} to play"
    elif int(record["winner"]) >= 0:
        head += f"player_{int(record['winner'])} wins"
    else:
        head += "draw (stall)" if status == 1 else "truncated (turn cap)"
    lines = [head]
    piles = []
    for b in range(NUM_PILES):
        h = int(record["heights"][b])
        c = int(record["bcounts"][b])
        if h == 0:
            piles.append("[  --  ]")
        else:
            top = int(record["builds"][b, c - 1])
            shown = f"W={h}" if top == 0 else str(h)
            piles.append(f"[{shown:^6}]")
    lines.append("build piles: " + " ".join(piles) + "   (value reached; next = value + 1)")
    lines.append(f"draw pile: {int(record['draw_len'])} cards   completed: {int(record['done_len'])} cards")
    for j in range(n):
        L = int(record["stock_len"][j])
        stock = f"{CODE_NAMES[int(record['stock'][j, L - 1])]} + ## x{L - 1}" if L else "(empty)"
        stacks = []
        for k in range(NUM_STACKS):
            m = int(record["stack_len"][j, k])
            stacks.append("[" + _pile_str(record["stacks"][j, k, :m]) + "]")
        mark = ">" if status == 0 and j == int(record["current"]) else " "
        lines.append(f"{mark}player_{j}: stock {stock:<10} hand stacks (bottom..top): {' '.join(stacks)}")
    return "\n".join(lines)


def result(record, rules) -> dict:
    n = int(record["num_players"])
    status = int(record["status"])
    w = int(record["winner"])
    outcome = "running" if status == 0 else ("win" if w >= 0 else ("draw" if status == 1 else "truncated"))
    return {
        "outcome": outcome,
        "winners": [w] if w >= 0 else [],
        "stock_left": [int(record["stock_len"][j]) for j in range(n)],
        "turns": int(record["turn"]),
        "recycles": int(record["recycles"]),
    }


# -- extras for the generic tests ----------------------------------------------------------------


def cards(record) -> np.ndarray:
    """Every card physically in the game (a permutation of the deck at every moment):
    `invariants.cards_of`."""
    return cards_of(record)


def resample_hidden(record, rules, seat, np_rng):
    """A copy of ``record`` whose hidden cards (every stock under its top, the draw pile) are dealt
    again at random. Everything any seat sees is unchanged, so no observation may change."""
    r = record.copy()
    n = int(r["num_players"])
    pool = [r["draw"][: int(r["draw_len"])]]
    for j in range(n):
        L = int(r["stock_len"][j])
        if L > 1:
            pool.append(r["stock"][j, : L - 1])
    pool = np.concatenate(pool).astype(np.int8)
    np_rng.shuffle(pool)
    at = 0
    m = int(r["draw_len"])
    r["draw"][:m] = pool[at:at + m]
    at += m
    for j in range(n):
        L = int(r["stock_len"][j])
        if L > 1:
            r["stock"][j, : L - 1] = pool[at:at + L - 1]
            at += L - 1
    return r


GAME = GameSpec(
    name="skipbo_junior",
    title="Skip-Bo Junior",
    env_name="skipbo_junior_v0",
    gym_id="cardgym/SkipBoJunior-v0",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    rules_cls=JuniorRules,
    state_dtype=STATE_DTYPE,
    deck=FULL_DECK.copy(),
    check_state=check_state,
    cards_of=cards_of,
    reset=K.reset,
    legal=K.legal,
    apply=K.apply,
    state_vector=K.state_vector,
    state_size=_state_size,
    encoders={
        "vector": FlatEncoder(
            "vector", vector_layout, K.observe_vector,
            "flat float32: stock tops and sizes, every hand stack (top + counts beneath), build piles, "
            "hidden-card counts, draw and completed sizes; seated relative to the observer",
        ),
        "dict": DictEncoder(
            "dict", dict_space, dict_encode,
            "the same information as 'vector' as int16 arrays (codes, -1 = no card)",
        ),
    },
    bots={"random": bot_random, "greedy": bot_greedy, "expert": bot_expert, "search": bot_search},
    action_to_str=action_to_str,
    render_ansi=render_ansi,
    result=result,
    extras={"cards": cards, "resample_hidden": resample_hidden, "state_layout": state_layout},
    train_preset=dict(CLONE_EXPERT, hidden=(512, 512), opponents="greedy:0.4,random:0.4,self:0.2"),
)
