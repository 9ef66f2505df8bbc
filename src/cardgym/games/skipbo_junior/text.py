"""Skip-Bo Junior in words (not hot): action names, actions in the context of a state, the ANSI table,
results."""

from __future__ import annotations

from ...kit import RUNNING, TERMINATED
from .._shared.builds import ASCENDING, needs
from .rules import END_TURN, NUM_ACTIONS, NUM_PILES, NUM_STACKS, TOP

CODE_NAMES = ["W"] + [str(v) for v in range(1, 11)]


def action_to_str(a: int) -> str:
    a = int(a)
    if a == END_TURN:
        return "end turn"
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"unknown skipbo_junior action {a}; allowed: 0..{NUM_ACTIONS - 1}")
    src, pile = divmod(a, 4)
    what = "stock top" if src == 0 else f"top of hand stack {src - 1}"
    return f"play {what} onto build pile {pile}"


def describe_action(record, rules, a: int) -> str:
    """Action ``a`` in words for the state ``record`` it is taken in (``cardgym play``): the card it
    moves, where from and, for a wild, the value it stands for on that build pile. An action whose
    source is empty in ``record`` (not legal there) is described by `action_to_str`."""
    a = int(a)
    if a == END_TURN or not 0 <= a < NUM_ACTIONS:
        return action_to_str(a)
    seat = int(record["current"])
    src, pile = divmod(a, 4)
    if src == 0:
        k = int(record["stock_len"][seat])
        code = int(record["stock"][seat, k - 1]) if k else -1
        where = "your stock"
    else:
        m = int(record["stack_len"][seat, src - 1])
        code = int(record["stacks"][seat, src - 1, m - 1]) if m else -1
        where = f"your hand stack {src - 1}"
    if code < 0:
        return action_to_str(a)
    v = needs(record, ASCENDING, TOP)[pile]
    card = f"a wild (as {v})" if code == 0 else f"the {code}"
    done = ", completing it" if int(record["heights"][pile]) == TOP - 1 else ""
    return f"play {card} from {where} on build pile {pile}{done}"


def _pile_str(cards) -> str:
    return " ".join(CODE_NAMES[int(c)] for c in cards) if len(cards) else "-"


def render_ansi(record, rules) -> str:
    """Public view: hand stacks are face up in Junior; stocks show their top, the rest as ##."""
    n = int(record["num_players"])
    status = int(record["status"])
    head = f"Skip-Bo Junior - turn {int(record['turn'])}, "
    if status == RUNNING:
        head += f"player_{int(record['current'])} to play"
    elif int(record["winner"]) >= 0:
        head += f"player_{int(record['winner'])} wins"
    else:
        head += "draw (stall)" if status == TERMINATED else "truncated (turn cap)"
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
        mark = ">" if status == RUNNING and j == int(record["current"]) else " "
        lines.append(f"{mark}player_{j}: stock {stock:<10} hand stacks (bottom..top): {' '.join(stacks)}")
    return "\n".join(lines)


def result(record, rules) -> dict:
    n = int(record["num_players"])
    status = int(record["status"])
    w = int(record["winner"])
    outcome = "running" if status == RUNNING else ("win" if w >= 0 else ("draw" if status == TERMINATED else "truncated"))
    return {
        "outcome": outcome,
        "winners": [w] if w >= 0 else [],
        "stock_left": [int(record["stock_len"][j]) for j in range(n)],
        "turns": int(record["turn"]),
        "recycles": int(record["recycles"]),
    }
