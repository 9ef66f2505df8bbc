"""The anchored ladder (cardgym.eval.ladder, ``cardgym ladder``): the published scale, schedule and anchors
are pinned; a player that plays the expert's moves rates at the expert's anchor, ``random`` at its own."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

import cardgym
from cardgym import cli
from cardgym import eval as ev
from cardgym.core.state.actions import bot_choice
from cardgym.eval import ladder as lad

#: the published anchors of ladder version 2 (docs/llm_agents.md): changing them is a new version
PINNED = {'full': {'skyjo': {'random': 0.0,
                             'greedy-eps0.8': 262.2,
                             'greedy-eps0.6': 547.6,
                             'greedy-eps0.4': 852.3,
                             'greedy-eps0.3': 1022.4,
                             'greedy-eps0.2': 1196.0,
                             'greedy-eps0.1': 1394.2,
                             'greedy': 1624.1,
                             'expert': 1933.9},
                   'skipbo': {'random': 0.0,
                              'greedy-eps0.7': 22.6,
                              'greedy-eps0.6': 202.4,
                              'greedy-eps0.5': 491.2,
                              'greedy-eps0.4': 742.6,
                              'greedy-eps0.3': 973.2,
                              'greedy-eps0.2': 1193.3,
                              'greedy-eps0.1': 1394.7,
                              'greedy': 1584.5,
                              'expert': 1697.3},
                   'skipbo_junior': {'random': 0.0, 'greedy': 288.3, 'expert': 343.1}},
          'quick': {'skyjo': {'random': 0.0,
                              'greedy-eps0.8': 244.1,
                              'greedy-eps0.6': 464.5,
                              'greedy-eps0.4': 678.1,
                              'greedy-eps0.2': 902.6,
                              'greedy': 1121.6,
                              'expert': 1188.9},
                    'skipbo': {'random': 0.0,
                               'greedy-eps0.9': 168.7,
                               'greedy-eps0.8': 389.0,
                               'greedy-eps0.7': 611.9,
                               'greedy-eps0.6': 778.3,
                               'greedy-eps0.4': 1074.6,
                               'greedy-eps0.2': 1315.1,
                               'greedy': 1517.8,
                               'expert': 1584.7},
                    'skipbo_junior': {'random': 0.0, 'greedy': 288.3, 'expert': 343.1}}}


def test_scale_schedule_and_anchors_are_pinned():
    assert lad.LADDER_VERSION == 2
    assert lad.LADDER_BOTS == ("random", "greedy", "expert")
    assert (lad.SEED_BASE, lad.DEFAULT_DEALS, lad.ANCHOR_GAMES, lad.ANCHOR_SEED) == (20_260_000, 10, 2000, 1_000_000)
    assert lad.FORMATS == {"full": {}, "quick": {"skyjo": {"episode": "round"}, "skipbo": {"stock_size": 10}}}
    for fmt in lad.FORMATS:
        assert lad.anchors(fmt) == PINNED[fmt]
        for game, chain in lad.CHAINS[fmt].items():
            assert lad.ladder_bots(game, fmt) == list(chain)
    for name in sorted(set(cardgym.GAMES) - set(PINNED["full"])):  # plug-in games (the example's blackjack)
        with pytest.raises(ValueError, match=f"no anchors for '{name}'; games with anchors: skipbo, skipbo_junior"):
            lad.game_anchors(name)
    with pytest.raises(ValueError, match="the ladder's formats are full, quick, got 'fast'"):
        lad.anchors("fast")


@pytest.mark.parametrize("fmt", ["full", "quick"])
@pytest.mark.parametrize("game", ["skyjo", "skipbo", "skipbo_junior"])
def test_neighbouring_anchors_score_between_10_and_90_percent(game, fmt):
    """From the stored measurement: no rating of the scale rests on the fit's prior."""
    pairs = lad.neighbour_scores(game, fmt)
    assert len(pairs) == len(lad.CHAINS[fmt][game]) - 1
    for weaker, stronger, score in pairs:
        assert 0.1 <= score <= 0.9, (weaker, stronger, score)
    ratings = list(lad.game_anchors(game, fmt).values())
    assert ratings == sorted(ratings) and ratings[0] == 0.0


@pytest.mark.slow
def test_a_fresh_measurement_of_neighbours_agrees_with_the_stored_one():
    """400 fresh duplicate games (other seeds) of two neighbouring pairs of the quick Skyjo chain: each
    between 10% and 90% and within 8 points of the stored score."""
    from cardgym.eval.eps_bots import anchor_player

    stored = {(a, b): s for a, b, s in lad.neighbour_scores("skyjo", "quick")}
    rules = cardgym.get_game("skyjo").make_rules(episode="round")
    for a, b in [("random", "greedy-eps0.8"), ("greedy-eps0.4", "greedy-eps0.2")]:
        r = ev.match("skyjo", anchor_player("skyjo", b, rules), anchor_player("skyjo", a, rules), games=400,
                     seed=7_000_000, episode="round")
        assert 0.1 <= r["a_win_rate"] <= 0.9 and abs(r["a_win_rate"] - stored[(a, b)]) < 0.08, (a, b, r)


@pytest.mark.slow
def test_eps_bots_are_named_checked_and_replay():
    from cardgym.eval.eps_bots import EpsBot, eps_bot, is_eps_name

    assert is_eps_name("greedy-eps0.25") and not is_eps_name("greedy-eps0") and not is_eps_name("greedy")
    b = eps_bot("skyjo", "greedy-eps0.5")
    assert (b.base, b.eps, str(b)) == ("greedy", 0.5, "greedy-eps0.5")
    with pytest.raises(ValueError, match="built on one of"):
        EpsBot("skyjo", "random", 0.5)
    with pytest.raises(ValueError, match=r"eps must be a probability in \(0, 1\]"):
        EpsBot("skyjo", "greedy", 1.5)
    with pytest.raises(ValueError, match="named BOT-epsP"):
        eps_bot("skyjo", "greedy-0.5")
    one = ev.match("skyjo", b, "greedy", games=20, seed=3)
    assert ev.match("skyjo", eps_bot("skyjo", "greedy-eps0.5"), "greedy", games=20, seed=3)["wins"] == one["wins"]
    # eps 1 plays random's moves: the same games as random
    rnd = ev.match("skyjo", eps_bot("skyjo", "greedy-eps1"), "greedy", games=20, seed=3)
    assert rnd["wins"] == ev.match("skyjo", "random", "greedy", games=20, seed=3)["wins"] == 0


@pytest.mark.slow
def test_a_player_rated_on_two_deal_sets_gets_overlapping_intervals():
    one = lad.ladder("skyjo", "greedy", deals=10, fmt="quick")
    two = lad.ladder("skyjo", "greedy", deals=10, fmt="quick", seed_base=lad.SEED_BASE + 500_000)
    assert one["ci95"][0] <= two["ci95"][1] and two["ci95"][0] <= one["ci95"][1], (one["ci95"], two["ci95"])
    anchor = lad.game_anchors("skyjo", "quick")["greedy"]
    assert one["ci95"][0] <= anchor <= one["ci95"][1] and two["ci95"][0] <= anchor <= two["ci95"][1]


def test_docs_ladder_figures_are_the_anchor_files():
    from pathlib import Path

    from cardgym.eval import ladder_docs

    docs = Path(__file__).resolve().parents[1] / "docs"
    data = lad.anchor_file()
    assert ladder_docs.block((docs / "llm_agents.md").read_text(), "anchors") == ladder_docs.anchors_block(data)
    assert ladder_docs.block((docs / "bots.md").read_text(), "pairs") == ladder_docs.pairs_block(data)
    assert ladder_docs.block((docs / "llm_real_models.md").read_text(), "costs").count("\n") == 7
    with pytest.raises(ValueError, match="no <!-- ladder:anchors -->"):
        ladder_docs.replace_block("no block here", "anchors", "x")


def test_fit_rating():
    fixed = {"random": 0.0, "greedy": 400.0}
    even = lad.fit_rating({"random": (10, 20), "greedy": (10, 20)}, fixed)
    assert 150 < even["rating"] < 250 and even["ci95"][0] < even["rating"] < even["ci95"][1]
    better = lad.fit_rating({"random": (18, 20), "greedy": (14, 20)}, fixed)
    assert better["rating"] > even["rating"]
    perfect = lad.fit_rating({"random": (20, 20), "greedy": (20, 20)}, fixed)
    assert np.isfinite(perfect["rating"]) and perfect["rating"] > better["rating"]
    # more games, a narrower interval
    wide = lad.fit_rating({"random": (5, 10), "greedy": (5, 10)}, fixed)
    assert wide["se"] > lad.fit_rating({"random": (50, 100), "greedy": (50, 100)}, fixed)["se"]
    assert lad.expected(400, 0) == pytest.approx(1 / 1.1, rel=1e-3)


class ExpertMoves:
    """A Python player that always plays the expert bot's move in the position it is given."""

    def __init__(self, game, rules):
        self.game, self.params = game, rules.params()

    def act_records(self, records, masks):
        return np.array([bot_choice(self.game, "expert", records[k:k + 1], self.params, masks[k:k + 1])
                         for k in range(len(records))], np.int64)

    def __str__(self):
        return "expert-moves"


@pytest.mark.slow
@pytest.mark.parametrize("game", ["skipbo_junior", "skyjo"])
def test_expert_moves_rate_at_the_expert_anchor_and_random_at_its_own(game):
    spec = cardgym.get_game(game)
    r = lad.ladder(game, ExpertMoves(spec, spec.make_rules(num_players=2)), deals=4)
    lo, hi = r["ci95"]
    assert lo <= PINNED["full"][game]["expert"] <= hi, r
    n = len(PINNED["full"][game])
    assert r["games"] == n * 2 * 4 and r["version"] == 2 and r["anchors"] == PINNED["full"][game]
    r = lad.ladder(game, "random", deals=4)
    lo, hi = r["ci95"]
    assert lo <= 0.0 <= hi, r


def _cli(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli.main(argv)
    return out.getvalue()


def test_cardgym_ladder_rates_a_python_player_and_a_text_player(tmp_path):
    f = tmp_path / "players.py"
    f.write_text(
        "import re\n"
        "import numpy as np\n"
        "def first_legal(obs, mask):\n"
        "    return int(np.flatnonzero(mask)[0])\n"
        "def first_listed(prompt):\n"
        "    return re.search(r'^(\\d+): ', prompt, re.M).group(1)\n")
    py = json.loads(_cli(["ladder", "skipbo_junior", "--player", f"{f}:first_legal", "--deals", "2", "--json"]))
    assert py["games"] == 12 and py["scale"] == "Elo, random = 0" and "text" not in py and py["format"] == "full"
    assert py["ci95"][0] < py["rating"] < py["ci95"][1]
    rec = tmp_path / "records"
    out = _cli(["ladder", "skipbo_junior", "--player", f"text:{f}:first_listed", "--deals", "2",
                "--record", str(rec)])
    assert "rating of text:" in out and "illegal-move rate 0.0%" in out and "95% interval" in out
    assert len(list(rec.glob("*.jsonl"))) == 12
