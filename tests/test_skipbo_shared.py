"""What Skip-Bo and Skip-Bo Junior share (``games/_shared``): the build piles' next value, the layout
tables the encoders are written through, the words for an action in its state, and the palettes."""

from __future__ import annotations

import numpy as np
import pytest
from skipbo_helpers import W, Table, discard, dtop, hand, make_deck, stock
from test_skipbo_junior_rules import Game as JuniorGame
from test_skipbo_junior_rules import make_deck as junior_deck
from test_skipbo_junior_rules import stack_play, stock_play

from cardgym.games import skipbo, skipbo_junior
from cardgym.games._shared.builds import ASCENDING, TWO_UP_TWO_DOWN, needs, pile_need
from cardgym.kit.layout import Layout, Slot
from cardgym.games.skipbo import observe as sb_observe
from cardgym.games.skipbo.scene import PALETTE as SB_PALETTE
from cardgym.games.skipbo_junior import observe as jr_observe
from cardgym.games.skipbo_junior.scene import PALETTE as JR_PALETTE
from cardgym.render.scene import BANDS, Palette

# ------------------------------------------------------------------------------------ next value


def test_pile_need_both_directions():
    heights = np.array([0, 5, 0, 11], np.int8)
    assert [int(pile_need(heights, b, ASCENDING, 12)) for b in range(4)] == [1, 6, 1, 12]
    assert [int(pile_need(heights, b, TWO_UP_TWO_DOWN, 12)) for b in range(4)] == [1, 6, 12, 1]
    rec = np.zeros((), [("heights", np.int8, (4,))])
    rec["heights"] = heights
    assert needs(rec, TWO_UP_TWO_DOWN, 12) == [1, 6, 12, 1]
    assert needs(rec, ASCENDING, 10) == [1, 6, 1, 12]


def test_needs_agree_with_the_vector_observation_and_the_picture():
    t = Table(seed=3, num_players=2, build_directions="two_up_two_down")
    for _ in range(60):
        if t.s.status != 0:
            break
        t.bot_step("greedy")
    rules = t.rules
    want = needs(t.s, TWO_UP_TWO_DOWN, 12)
    enc = skipbo.GAME.encoders["vector"]
    out = np.zeros(enc.size(rules), np.float32)
    enc.kernel(t.s, t.p, 0, out)
    onehot = out[enc.offsets(rules)["build_need"]].reshape(4, 12)
    assert (onehot.argmax(1) + 1).tolist() == want
    table = skipbo.GAME.scene(t.s, rules, None).table
    assert [p.note for p in table.rows[0][:4]] == [f"next {v}" for v in want]


# ------------------------------------------------------------------------------------ layouts


def test_layout_offsets_sizes_and_fields():
    lay = Layout(Slot("a", 0, 3, 0, 1, "three"), Slot("b", 2, 1, 0, lambda r: r.num_players, "2n+1"),
                 Slot("c", 1, 0, -1, 1, "n"))
    assert lay.at("a") == (0, 0) and lay.at("b") == (0, 3) and lay.at("c") == (2, 4)
    assert lay.total == (3, 4) and lay.size(3) == 13

    class R:
        num_players = 3

    assert lay.size_of(R()) == 13
    f = lay.fields(R())
    assert [(x.name, x.size, x.high) for x in f] == [("a", 3, 1), ("b", 7, 3), ("c", 3, 1)]
    both = lay + Layout(Slot("d", 0, 2, 0, 1, "two"))
    assert both.at("d") == (3, 4) and both.size(2) == 12
    with pytest.raises(ValueError, match="unique"):
        Layout(Slot("a", 0, 1, 0, 1, ""), Slot("a", 0, 1, 0, 1, ""))
    with pytest.raises(ValueError, match="no field 'z'"):
        lay.at("z")


@pytest.mark.parametrize("game,observe", [(skipbo.GAME, sb_observe), (skipbo_junior.GAME, jr_observe)])
@pytest.mark.parametrize("n", [2, 4])
def test_encoders_and_state_are_sized_by_their_layout(game, observe, n):
    rules = game.make_rules(num_players=n)
    assert game.encoders["vector"].size(rules) == observe.VECTOR.size(n)
    assert game.state_size(rules) == observe.STATE.size(n) == sum(f.size for f in observe.STATE.fields(rules))
    st = game.new_states(1)
    game.compiled().reset_one(st, 0, rules.params(), 5, np.zeros(1, np.int8), 0, np.zeros(game.num_actions, np.int8))
    out = np.full(game.state_size(rules), np.nan, np.float32)
    game.compiled().state_one(st, 0, rules.params(), out)
    assert np.isfinite(out).all()  # the kernel wrote the whole vector of the layout's size
    cur = observe.STATE.at("current")
    assert out[cur[0] * n + cur[1] + int(st[0]["current"])] == 1.0


# ------------------------------------------------------------------------------------ words


def test_skipbo_describe_action_in_context():
    describe = skipbo.GAME.describe_action
    deck = make_deck(2, 5, [[1, W], [7]], draw=[2, 3, W, 5, 12])
    t = Table(deck=deck, num_players=2, stock_size=5)
    assert t.hand(0) == {2: 1, 3: 1, 0: 1, 5: 1, 12: 1}
    assert describe(t.s, t.rules, stock(2)) == "play the 1 from your stock on build pile 2"
    t.step(stock(2))
    assert describe(t.s, t.rules, stock(2)) == "play a SKIP-BO (as 2) from your stock on build pile 2"
    assert describe(t.s, t.rules, hand(W, 0)) == "play a SKIP-BO (as 1) from your hand on build pile 0"
    assert describe(t.s, t.rules, hand(2, 2)) == "play the 2 from your hand on build pile 2"
    assert (describe(t.s, t.rules, discard(W, 2))
            == "discard the SKIP-BO from your hand onto your empty discard pile 2, ending your turn")
    t.step(discard(W, 2))
    t.discard_any(0)  # seat 1
    assert describe(t.s, t.rules, dtop(2, 1)) == "play a SKIP-BO (as 1) from your discard pile 2 on build pile 1"
    # an empty source: the action's plain name
    assert describe(t.s, t.rules, dtop(3, 1)) == skipbo.GAME.action_to_str(dtop(3, 1))
    assert describe(t.s, t.rules, skipbo.GAME.num_actions - 1) == skipbo.GAME.action_to_str(144)


def test_skipbo_describe_action_partner_sources():
    t = Table(seed=1, num_players=4, teams=True, stock_size=5)
    describe = skipbo.GAME.describe_action
    k = int(t.s.stock_len[2])
    top = int(t.s.stock[2, k - 1])
    card = f"a SKIP-BO (as {needs(t.s, ASCENDING, 12)[0]})" if top == 0 else f"the {top}"
    assert describe(t.s, t.rules, 18 * 4 + 0) == f"play {card} from your partner's stock on build pile 0"


def test_junior_describe_action_in_context():
    describe = skipbo_junior.GAME.describe_action
    deck = junior_deck(2, 5, [[1], [9]], draw=[W, 2, 10])
    g = JuniorGame(deck, num_players=2, stock_size=5, must_play=False)
    assert describe(g.s, g.rules, stock_play(1)) == "play the 1 from your stock on build pile 1"
    assert describe(g.s, g.rules, stack_play(0, 3)) == "play a wild (as 1) from your hand stack 0 on build pile 3"
    g.step(stock_play(1))
    assert describe(g.s, g.rules, stack_play(1, 1)) == "play the 2 from your hand stack 1 on build pile 1"
    assert describe(g.s, g.rules, stack_play(0, 1)) == "play a wild (as 2) from your hand stack 0 on build pile 1"
    assert describe(g.s, g.rules, 16) == "end turn"


# ------------------------------------------------------------------------------------ palettes


@pytest.mark.parametrize("palette,bands,back,wild", [
    (SB_PALETTE, {1: "sb_blue", 4: "sb_blue", 5: "sb_green", 8: "sb_green", 9: "sb_red", 12: "sb_red"},
     (170, 40, 40), ("SKIP-BO", "SB")),
    (JR_PALETTE, {1: "sb_blue", 3: "sb_blue", 4: "sb_green", 7: "sb_green", 8: "sb_red", 10: "sb_red"},
     (0, 120, 170), ("WILD", "W")),
])
def test_palettes(palette, bands, back, wild):
    assert isinstance(palette, Palette)
    assert {v: palette.band(v) for v in bands} == bands
    assert all(palette.band(v) in BANDS for v in range(1, 13))
    assert palette.back_fill == back and (palette.wild_label, palette.wild_short) == wild


@pytest.mark.parametrize("game,palette", [(skipbo.GAME, SB_PALETTE), (skipbo_junior.GAME, JR_PALETTE)])
def test_scenes_carry_the_game_palette(game, palette):
    rules = game.make_rules()
    st = game.new_states(1)
    game.compiled().reset_one(st, 0, rules.params(), 2, np.zeros(1, np.int8), 0, np.zeros(game.num_actions, np.int8))
    assert game.palette is palette
    assert game.scene(st[0], rules, None).palette is palette
    assert game.scene(st[0], rules, 0).palette is palette
