"""The Blackjack table as a `cardgym.render.scene.Scene`: the dealer's cards (the hole card face down
while the game runs) and every seat's hand, all face up."""

from __future__ import annotations

from cardgym.render.scene import BACK, VALUE, Card, Palette, Pile, Region, Scene

from .rules import card_value, hand_total
from .text import card_name


def _band(v: int) -> str:
    return "red" if v == 1 else ("darkblue" if v == 10 else "green")


PALETTE = Palette(name="blackjack", band=_band, back_fill=(120, 20, 30))


def _face(c) -> Card:
    return Card(VALUE, int(card_value(int(c))))


def scene(r, rules, viewer=None) -> Scene:
    n = int(r["num_players"])
    running = int(r["status"]) == 0
    cur = int(r["current"])
    dl = int(r["dealer_len"])
    shown = [_face(r["dealer"][0]), Card(BACK)] if running else [_face(c) for c in r["dealer"][:dl]]
    note = card_name(r["dealer"][0]) if running else str(int(hand_total(r["dealer"], dl)[0]))
    table = Region("dealer", rows=[[Pile(shown, layout="fan", label="dealer", note=note),
                                    Pile([Card(BACK)], layout="stack", label="shoe", count=int(r["draw_len"]))]],
                   lines=["dealer stands on 17" + (" (hits soft 17)" if rules.dealer_hits_soft_17 else "")])
    players = []
    for j in range(n):
        k = int(r["hand_len"][j])
        total, soft = hand_total(r["hand"][j], k)
        mine = viewer is not None and int(viewer) == j
        lines = [f"{'soft ' if soft else ''}{int(total)}", " ".join(card_name(c) for c in r["hand"][j][:k])]
        players.append(Region(f"player_{j}" + (" (you)" if mine else ""),
                              rows=[[Pile([_face(c) for c in r["hand"][j][:k]], layout="fan")]],
                              lines=lines, active=running and cur == j, you=mine))
    head = [f"turn {int(r['turn'])}: player_{cur} to play"] if running else ["over"]
    return Scene(PALETTE, "Blackjack", head, table, players, viewer)
