"""Skip-Bo in words (not hot): action names, actions in the context of a state, the ANSI table, results."""

from __future__ import annotations

from ...kit import RUNNING, TERMINATED, TRUNCATED
from .._shared.builds import needs
from .rules import (
    A_DISCARD,
    A_PASS,
    DIRECTION_CODES,
    NUM_DISCARDS,
    NUM_PILES,
    OUT_DRAW,
    OUT_WIN,
    S_DISCARD,
    S_HAND_WILD,
    S_PARTNER_DISCARD,
    S_PARTNER_STOCK,
    S_STOCK,
    TOP,
)


def card_name(code: int) -> str:
    return "SB" if int(code) == 0 else str(int(code))


def action_to_str(a: int) -> str:
    a = int(a)
    if a == A_PASS:
        return "pass (empty hand, nothing to draw)"
    if A_DISCARD <= a < A_PASS:
        k = a - A_DISCARD
        card, pile = divmod(k, 4)
        name = "wild" if card == 12 else str(card + 1)
        return f"discard hand {name} onto own discard pile {pile}, ending the turn"
    if 0 <= a < A_DISCARD:
        src, pile = divmod(a, 4)
        if src == S_STOCK:
            what = "own stock top"
        elif src < S_HAND_WILD:
            what = f"hand {src}"
        elif src == S_HAND_WILD:
            what = "hand wild"
        elif src < S_PARTNER_STOCK:
            what = f"own discard pile {src - S_DISCARD} top"
        elif src == S_PARTNER_STOCK:
            what = "partner's stock top"
        else:
            what = f"partner's discard pile {src - S_PARTNER_DISCARD} top"
        return f"play {what} on build pile {pile}"
    raise ValueError(f"action {a} is out of range for skipbo (0..144)")


def describe_action(rec, rules, a: int) -> str:
    """Action ``a`` in words for the state ``rec`` it is taken in (``cardgym play``): the card it moves,
    where from and, for a wild on a build pile, the value the wild stands for there. An action whose
    source is empty in ``rec`` (not legal there) is described by `action_to_str`."""
    a = int(a)
    if not 0 <= a < A_PASS:
        return action_to_str(a)
    seat = int(rec["current"])
    if a >= A_DISCARD:
        card, pile = divmod(a - A_DISCARD, 4)
        name = "SKIP-BO" if card == 12 else str(card + 1)
        L = int(rec["disc_len"][seat, pile])
        onto = f"the {card_name(rec['disc'][seat, pile, L - 1])} of your discard pile {pile}" if L else (
            f"your empty discard pile {pile}")
        return f"discard the {name} from your hand onto {onto}, ending your turn"
    src, pile = divmod(a, 4)
    partner = rules.partner(seat)
    if src == S_STOCK or src == S_PARTNER_STOCK:
        who = seat if src == S_STOCK else partner
        k = int(rec["stock_len"][who]) if who >= 0 else 0
        code = int(rec["stock"][who, k - 1]) if k else -1
        where = "your stock" if src == S_STOCK else "your partner's stock"
    elif src <= S_HAND_WILD:
        code = src if src < S_HAND_WILD else 0
        code = code if int(rec["hand"][seat, code]) > 0 else -1
        where = "your hand"
    else:
        who, d = (seat, src - S_DISCARD) if src < S_PARTNER_STOCK else (partner, src - S_PARTNER_DISCARD)
        L = int(rec["disc_len"][who, d]) if who >= 0 else 0
        code = int(rec["disc"][who, d, L - 1]) if L else -1
        where = f"your discard pile {d}" if who == seat else f"your partner's discard pile {d}"
    if code < 0:
        return action_to_str(a)
    v = needs(rec, DIRECTION_CODES[rules.build_directions], TOP)[pile]
    card = f"a SKIP-BO (as {v})" if code == 0 else f"the {code}"
    done = ", completing it" if int(rec["heights"][pile]) == TOP - 1 else ""
    return f"play {card} from {where} on build pile {pile}{done}"


def render_ansi(rec, rules) -> str:
    """The table as spectators see it: stock tops and sizes, open discard piles, hands as ``##``."""
    n = int(rec["num_players"])
    lines = []
    st = int(rec["status"])
    head = f"Skip-Bo  turn {int(rec['turn'])}  hand {int(rec['hands']) + (1 if st == RUNNING else 0)}"
    if rules.match_target is not None:
        head += "  totals " + " ".join(str(int(rec["totals"][i])) for i in range(n))
    lines.append(head)
    builds = []
    need = needs(rec, DIRECTION_CODES[rules.build_directions], TOP)
    for b in range(NUM_PILES):
        h = int(rec["heights"][b])
        top = "--" if h == 0 else card_name(rec["builds"][b, int(rec["bcounts"][b]) - 1])
        builds.append(f"B{b}[{top} h{h} next {need[b]}]")
    lines.append("build piles: " + "  ".join(builds))
    lines.append(f"draw pile: {int(rec['draw_len'])}   completed: {int(rec['done_len'])}")
    if int(rec["cover"]) >= 0:
        lines.append(f"the wild on build pile {int(rec['cover'])} must be covered now")
    for i in range(n):
        mark = ">" if st == RUNNING and int(rec["current"]) == i else " "
        k = int(rec["stock_len"][i])
        top = card_name(rec["stock"][i, k - 1]) if k else "--"
        team = f" (partner {rules.partner(i)})" if rules.teams else ""
        hand = " ".join(["##"] * int(rec["hand_len"][i])) or "-"
        piles = []
        for d in range(NUM_DISCARDS):
            L = int(rec["disc_len"][i, d])
            piles.append("[" + " ".join(card_name(c) for c in rec["disc"][i, d, :L]) + "]")
        lines.append(f"{mark}P{i}{team}: stock {top} ({k} left)  hand {hand}  discards {' '.join(piles)}")
    if st != RUNNING:
        if st == TRUNCATED:
            lines.append("truncated (max_turns)")
        elif int(rec["outcome"]) == OUT_DRAW:
            lines.append("draw (stall rule)")
        elif int(rec["outcome"]) == OUT_WIN:
            lines.append(f"P{int(rec['winner'])} wins")
    return "\n".join(lines)


def result(rec, rules) -> dict:
    n = int(rec["num_players"])
    st = int(rec["status"])
    winners: list = []
    if st == TERMINATED and int(rec["outcome"]) == OUT_WIN:
        w = int(rec["winner"])
        winners = sorted({w, rules.partner(w)} - {-1})
    return {
        "winners": winners,
        "draw": st == TERMINATED and int(rec["outcome"]) == OUT_DRAW,
        "truncated": st == TRUNCATED,
        "scores": [int(rec["points"][i]) for i in range(n)],
        "totals": [int(rec["totals"][i]) for i in range(n)],
        "hands": int(rec["hands"]),
        "stock_left": [int(rec["stock_len"][i]) for i in range(n)],
        "turns": int(rec["turn"]),
    }
