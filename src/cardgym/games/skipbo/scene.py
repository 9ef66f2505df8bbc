"""Skip-Bo scene: build piles, draw pile, completed stack; per player the stock (top face up and its
size), the hand and four fanned discard piles; teams and match totals.

Hands are face down (backs, one per card) except the viewer's own; partners do not see each other's
hands either. When the viewer is the seat to act, the cards it can play onto a build pile right now are
highlighted (read from the game's legal-action mask).
"""

from __future__ import annotations

from ...kit import (
    BACK, EMPTY, RUNNING, TRUNCATED, Card, Palette, Pile, Region, Scene, check_viewer, legal_mask, you,
)
from .._shared.builds import needs
from .._shared.scene import build_piles_region, card
from .rules import (
    A_DISCARD,
    DIRECTION_CODES,
    HAND,
    NUM_CODES,
    NUM_DISCARDS,
    OUT_DRAW,
    OUT_WIN,
    S_DISCARD,
    S_HAND_WILD,
    S_PARTNER_DISCARD,
    S_PARTNER_STOCK,
    S_STOCK,
    TOP,
)

FAN_SLOTS = 8


def _band(value: int) -> str:
    return "sb_blue" if value <= 4 else ("sb_green" if value <= 8 else "sb_red")


#: Skip-Bo's card colours: 1-4 blue, 5-8 green, 9-12 red, red backs, the SKIP-BO wild
PALETTE = Palette("skipbo", _band, (170, 40, 40), wild_label="SKIP-BO", wild_short="SB")


def _playable(r, rules, viewer):
    """Sources the viewer (the seat to act) can play onto a build pile now."""
    from . import GAME

    src = set()
    mask = legal_mask(GAME, r, rules)
    for a in range(A_DISCARD):
        if mask[a]:
            src.add(a // 4)
    return src


def scene(r, rules, viewer=None) -> Scene:
    n = int(r["num_players"])
    viewer = check_viewer(viewer, n)
    st = int(r["status"])
    cur = int(r["current"])
    running = st == RUNNING
    match = rules.match_target is not None
    hand_no = int(r["hands"]) + (1 if running else 0)
    title = f"Skip-Bo - {'hand ' + str(hand_no) + ' - ' if match else ''}turn {int(r['turn'])}"
    if running:
        status = f"player_{cur}{you(cur, viewer)} to play"
        if int(r["cover"]) >= 0:
            status += f" - the wild on B{int(r['cover'])} must be covered now"
    elif st == TRUNCATED:
        status = "truncated (max_turns)"
    elif int(r["outcome"]) == OUT_DRAW:
        status = "draw (stall rule)"
    elif int(r["outcome"]) == OUT_WIN:
        w = int(r["winner"])
        status = f"player_{w} wins" + (f" (with partner player_{rules.partner(w)})" if rules.teams else "")
    else:
        status = "over"
    if match:
        goal = f"match to {rules.match_target}: totals " + "  ".join(
            f"p{i} {int(r['totals'][i])}" for i in range(n)
        )
    else:
        goal = "first to play the last card of their stock wins"
    if rules.teams:
        half = n // 2
        goal += "   teams: " + "  ".join(f"{chr(65 + t)} = p{t}+p{t + half}" for t in range(half))
    lines = [status, goal]

    table = build_piles_region(r, needs(r, DIRECTION_CODES[rules.build_directions], TOP))

    play = _playable(r, rules, viewer) if running and viewer == cur else set()
    partner_of_cur = rules.partner(cur) if rules.teams else -1
    players = []
    for i in range(n):
        own = running and i == cur and viewer == cur
        part = running and i == partner_of_cur and viewer == cur
        k = int(r["stock_len"][i])
        top = card(r["stock"][i, k - 1]) if k else None
        if top is not None and ((own and S_STOCK in play) or (part and S_PARTNER_STOCK in play)):
            top.highlight = True
        stock = Pile([top] if top else [], "stack", "stock", str(k), count=k)
        hl = int(r["hand_len"][i])
        if viewer == i:
            hand = []
            for code in list(range(1, NUM_CODES)) + [0]:
                for _ in range(int(r["hand"][i, code])):
                    c = card(code)
                    c.highlight = own and ((code == 0 and S_HAND_WILD in play) or (code > 0 and code in play))
                    hand.append(c)
        else:
            hand = [Card(BACK) for _ in range(hl)]
        hand += [Card(EMPTY) for _ in range(max(HAND - len(hand), 0))]
        piles = []
        for d in range(NUM_DISCARDS):
            L = int(r["disc_len"][i, d])
            cards = [card(x) for x in r["disc"][i, d, :L]]
            if cards and ((own and S_DISCARD + d in play) or (part and S_PARTNER_DISCARD + d in play)):
                cards[-1].highlight = True
            piles.append(Pile(cards, "fan", f"D{d}", "", fan_slots=FAN_SLOTS))
        name = f"player_{i}{you(i, viewer)}"
        team = None
        if rules.teams:
            team = i % (n // 2)
            name += f" - team {chr(65 + team)}, partner player_{rules.partner(i)}"
        info = f"stock {k}   hand {hl}"
        if match:
            info += f"   match total {int(r['totals'][i])}"
        players.append(
            Region(
                name,
                rows=[[stock, Pile(hand, "row", "hand", "" if viewer == i else f"{hl} face down")] + piles],
                lines=[info],
                active=running and i == cur,
                team=team,
            )
        )
    return Scene(PALETTE, title, lines, table, players, viewer)


def action_refs(r, rules, a: int) -> list:
    """The scene ids (`cardgym.render.view`) action ``a`` moves, in the order a person clicks them: the
    card to play (the stock, a hand card by its value, a discard pile's top, the partner's piles), then
    the build pile or own discard pile it goes to; the pass is no card (``[]``)."""
    from .rules import A_PASS

    a, cur = int(a), int(r["current"])
    if a == A_PASS:
        return []
    if a >= A_DISCARD:
        code, pile = divmod(a - A_DISCARD, 4)
        return [f"p{cur}.hand={'W' if code == 12 else code + 1}", f"p{cur}.D{pile}"]
    src, pile = divmod(a, 4)
    partner = rules.partner(cur) if rules.teams else cur
    if src == S_STOCK:
        ref = f"p{cur}.stock"
    elif src < S_HAND_WILD:
        ref = f"p{cur}.hand={src}"
    elif src == S_HAND_WILD:
        ref = f"p{cur}.hand=W"
    elif src < S_PARTNER_STOCK:
        ref = f"p{cur}.D{src - S_DISCARD}"
    elif src == S_PARTNER_STOCK:
        ref = f"p{partner}.stock"
    else:
        ref = f"p{partner}.D{src - S_PARTNER_DISCARD}"
    return [ref, f"table.B{pile}"]
