"""Skyjo's picture: every player's 3x4 grid, the draw and discard piles, the held card, scores.

Face-down grid cards are backs for everybody, the owner included (nobody has seen them); a removed
column leaves empty slots. The held card (drawn or taken) is public and highlighted.

`scene` is the game's ``GameSpec.scene``; `PALETTE` its card colours: the box's five bands (negative
cards dark blue, 0 light blue, 1-4 green, 5-8 yellow, 9-12 red) and a purple back.
"""

from __future__ import annotations

from ...kit import BACK, EMPTY, VALUE, Card, Palette, Pile, Region, Scene, check_viewer, you
from .rules import (
    COLS,
    END_GAME,
    END_STALL,
    END_TRUNCATED,
    HIDDEN,
    PH_DRAWN,
    PH_OVER,
    PH_SETUP,
    PH_START,
    PH_TAKEN,
    REMOVED,
    ROWS,
)


def _band(v: int) -> str:
    if v < 0:
        return "darkblue"
    if v == 0:
        return "lightblue"
    if v <= 4:
        return "green"
    if v <= 8:
        return "yellow"
    return "red"


PALETTE = Palette("skyjo", band=_band, back_fill=(104, 58, 128))

_PHASE = {
    PH_SETUP: "reveals two cards (setup)",
    PH_START: "draws a card or takes the discard",
    PH_DRAWN: "keeps the drawn card (replaces a card) or discards it and reveals one",
    PH_TAKEN: "replaces a card with the taken discard",
}


def scene(r, rules, viewer=None) -> Scene:
    n = int(r["num_players"])
    viewer = check_viewer(viewer, n)
    ph = int(r["phase"])
    running = int(r["status"]) == 0
    cur = int(r["current"])
    rnd = int(r["round_no"]) + (0 if ph == PH_OVER else 1)
    title = f"Skyjo - round {rnd} - turn {int(r['turn'])}"
    if running:
        status = f"player_{cur}{you(cur, viewer)} {_PHASE.get(ph, '')}"
        if ph in (PH_DRAWN, PH_TAKEN):
            status += f" - holds {int(r['held'])}"
    else:
        reason = int(r["end_reason"])
        totals = [int(x) for x in r["totals"][:n]]
        if reason == END_GAME:
            low = min(totals)
            status = "game over - winner: " + ", ".join(f"player_{i}" for i in range(n) if totals[i] == low)
        elif reason == END_STALL:
            status = "game over - draw (stall rule)"
        elif reason == END_TRUNCATED or int(r["status"]) == 2:
            status = "truncated (max_turns)"
        else:
            status = "game over"
    if rules.episode == "round":
        goal = "one round; lowest score wins"
    elif rules.max_rounds is not None:
        goal = f"{rules.max_rounds} round{'' if rules.max_rounds == 1 else 's'}; lowest total wins"
    else:
        goal = f"game ends when a total reaches {rules.end_score}; lowest total wins"
    lines = [status, goal]

    dl, drl = int(r["discard_len"]), int(r["draw_len"])
    draw = Pile([Card(BACK)] if drl else [], "stack", "draw", str(drl), count=drl)
    disc = Pile([Card(VALUE, int(r["discard"][dl - 1]))] if dl else [], "stack", "discard", str(dl), count=dl)
    if ph in (PH_DRAWN, PH_TAKEN) and running:
        how = "drawn" if ph == PH_DRAWN else "taken"
        held = Pile([Card(VALUE, int(r["held"]), highlight=True)], "stack", "held", how, count=0)
    else:
        held = Pile([], "stack", "held", "", count=0)
    table = Region("Table", rows=[[draw, disc, held]])

    goer = int(r["goer"])
    players = []
    for i in range(n):
        rows = []
        shown = 0
        for row in range(ROWS):
            cards = []
            for c in range(COLS):
                pos = COLS * row + c
                up = int(r["up"][i, pos])
                if up == REMOVED:
                    cards.append(Card(EMPTY))
                elif up == HIDDEN:
                    cards.append(Card(BACK))
                else:
                    v = int(r["grid"][i, pos])
                    shown += v
                    cards.append(Card(VALUE, v))
            rows.append([Pile(cards, "row")])
        tag = " - went out" if goer == i and ph != PH_OVER else ""
        players.append(
            Region(
                f"player_{i}{you(i, viewer)}{tag}",
                rows=rows,
                lines=[
                    f"total {int(r['totals'][i])}   last round {int(r['scores'][i])}",
                    f"face-up sum {shown}, {int(r['hidden'][i])} face down",
                ],
                active=running and i == cur,
                min_width=236,
            )
        )
    return Scene(PALETTE, title, lines, table, players, viewer)


def action_refs(r, rules, a: int) -> list:
    """The scene ids (`cardgym.render.view`) action ``a`` moves, in the order a person clicks them: the
    draw or discard pile; a grid card to replace or reveal; discarding the drawn card to reveal one is
    the discard pile, then the grid card."""
    from .rules import A_DRAW, A_REPLACE, A_REVEAL, A_TAKE

    a, cur = int(a), int(r["current"])
    if a == A_DRAW:
        return ["table.draw"]
    if a == A_TAKE:
        return ["table.discard"]
    pos = a - A_REPLACE if a >= A_REPLACE else a - A_REVEAL
    cell = f"p{cur}.row{pos // COLS}_0#{pos % COLS}"
    if a < A_REPLACE and int(r["phase"]) == PH_DRAWN:
        return ["table.discard", cell]
    return [cell]
