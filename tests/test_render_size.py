"""The render-size error names what grew: `cardgym.render.size_change` between two scenes of one game."""

from __future__ import annotations

from cardgym import render
from cardgym.render.draw_rgb import scene_size
from cardgym.render.scene import BACK, EMPTY, Card, Palette, Pile, Region, Scene

PALETTE = Palette("demo", band=lambda v: "sb_low", back_fill=(40, 40, 120))


def table(hand: int, fan_slots: int = 8, lines: int = 1) -> Scene:
    players = [
        Region("player 0", rows=[[Pile([Card(value=v) for v in range(hand)], label="hand"),
                                  Pile([Card(BACK)] * 3, layout="stack", label="stock", count=3)]],
               lines=["score 0"] * lines),
        Region("player 1", rows=[[Pile([Card(BACK)] * 2, label="hand")]]),
    ]
    middle = Region("table", rows=[[Pile([Card(EMPTY)], layout="fan", label="discard", fan_slots=fan_slots)]])
    return Scene(PALETTE, "demo", ["to act: player 0"], middle, players)


def test_a_row_pile_that_grew_is_named_with_its_region_and_sizes():
    before, after = table(5), table(9)
    assert scene_size(before) != scene_size(after)
    why = render.size_change(before, after)
    assert "player region 0 'player 0'" in why and "pile 'hand'" in why, why
    assert "grew from 5 to 9 cards" in why, why
    assert "stock" not in why and "player 1" not in why  # only what changed
    assert "shrank from 9 to 5 cards" in render.size_change(after, before)


def test_fan_slots_region_lines_and_equal_layouts():
    assert "pile 'discard'" in render.size_change(table(5), table(5, fan_slots=12))
    assert "the table region 'table'" in render.size_change(table(5), table(5, fan_slots=12))
    assert "has 2 text lines, it had 1" in render.size_change(table(5), table(5, lines=2))
    same = table(5)
    same.players[0].rows[0][0].cards[0] = Card(value=11, highlight=True)  # values never change the size
    assert render.size_change(table(5), same) == ""
    assert scene_size(table(5)) == scene_size(same)


def test_many_changes_are_cut_short():
    a = Scene(PALETTE, "demo", [], Region("table"), [Region(f"p{i}", rows=[[Pile([Card()], label="hand")]])
                                                     for i in range(8)])
    b = Scene(PALETTE, "demo", [], Region("table"), [Region(f"p{i}", rows=[[Pile([Card()] * 2, label="hand")]])
                                                     for i in range(8)])
    why = render.size_change(a, b)
    assert why.count("grew from 1 to 2 cards") == 5 and why.endswith("and 3 more"), why


def test_check_game_names_the_pile_that_grew(monkeypatch):
    """The render check of `cardgym.testing.check_game` on a game whose scene grows a "row" pile after a
    few frames: the failure names the pile, its region and its cards then and now."""
    import pytest

    import cardgym
    from cardgym.testing import GameCheckError, check_game
    from conftest import GAME_NAMES

    real, calls, grown = render.table_scene, [0], []

    def growing(game, record, rules, viewer=None):
        scene = real(game, record, rules, viewer)
        calls[0] += 1
        if calls[0] > 6:  # after a few frames the first "row" pile holds four more cards
            pile = next(p for region in [scene.table, *scene.players] for row in region.rows for p in row
                        if p.layout == "row")
            pile.cards = list(pile.cards) + [Card(EMPTY)] * 4
            grown.append(pile.label)
        return scene

    monkeypatch.setattr(render, "table_scene", growing)
    name = GAME_NAMES[0]
    with pytest.raises(GameCheckError, match="frames of one game change size") as err:
        check_game(name, configs=cardgym.get_game(name).test_configs[:1], checks=["render"])
    assert f"pile {grown[0]!r}" in str(err.value) and "grew from" in str(err.value), str(err.value)
