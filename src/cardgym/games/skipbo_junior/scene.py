"""Skip-Bo Junior scene: build piles, draw pile, completed stack; per player the stock (top face up and
its size) and the three face-up hand stacks, fanned (the last card is the playable top).

In Junior everything but the stocks under their top and the draw pile is face up, so the public view
and a seat's view differ only in the "(you)" mark and, for the seat to act, the highlighted playable
cards.
"""

from __future__ import annotations

from ...kit import RUNNING, TERMINATED, Palette, Pile, Region, Scene, check_viewer, legal_mask, you
from .._shared.builds import ASCENDING, needs
from .._shared.scene import build_piles_region, card
from .rules import END_TURN, NUM_STACKS, TOP

FAN_SLOTS = 7


def _band(value: int) -> str:
    return "sb_blue" if value <= 3 else ("sb_green" if value <= 7 else "sb_red")


#: Skip-Bo Junior's card colours: 1-3 blue, 4-7 green, 8-10 red, blue backs, the WILD card
PALETTE = Palette("skipbo_junior", _band, (0, 120, 170), wild_label="WILD", wild_short="W")


def scene(r, rules, viewer=None) -> Scene:
    n = int(r["num_players"])
    viewer = check_viewer(viewer, n)
    st = int(r["status"])
    cur = int(r["current"])
    running = st == RUNNING
    title = f"Skip-Bo Junior - turn {int(r['turn'])}"
    if running:
        status = f"player_{cur}{you(cur, viewer)} to play"
    elif int(r["winner"]) >= 0:
        status = f"player_{int(r['winner'])} wins"
    else:
        status = "draw (stall rule)" if st == TERMINATED else "truncated (max_turns)"
    lines = [status, "first to play the last card of their stock wins"]

    table = build_piles_region(r, needs(r, ASCENDING, TOP))

    play = set()
    if running and viewer == cur:
        from . import GAME

        mask = legal_mask(GAME, r, rules)
        play = {a // 4 for a in range(END_TURN) if mask[a]}
    players = []
    for i in range(n):
        mine = running and viewer == cur == i
        k = int(r["stock_len"][i])
        top = card(r["stock"][i, k - 1]) if k else None
        if top is not None and mine and 0 in play:
            top.highlight = True
        row = [Pile([top] if top else [], "stack", "stock", str(k), count=k)]
        for j in range(NUM_STACKS):
            m = int(r["stack_len"][i, j])
            cards = [card(x) for x in r["stacks"][i, j, :m]]
            if cards and mine and (j + 1) in play:
                cards[-1].highlight = True
            row.append(Pile(cards, "fan", f"S{j}", "", fan_slots=FAN_SLOTS))
        players.append(
            Region(
                f"player_{i}{you(i, viewer)}",
                rows=[row],
                lines=[f"stock {k} left"],
                active=running and i == cur,
            )
        )
    return Scene(PALETTE, title, lines, table, players, viewer)


def action_refs(r, rules, a: int) -> list:
    """The scene ids (`cardgym.render.view`) action ``a`` moves, in the order a person clicks them: the
    stock or hand stack whose top is played, then the build pile; ending the turn is no card (``[]``)."""
    a, cur = int(a), int(r["current"])
    if a == END_TURN:
        return []
    src, pile = divmod(a, 4)
    return [f"p{cur}.stock" if src == 0 else f"p{cur}.S{src - 1}", f"table.B{pile}"]
