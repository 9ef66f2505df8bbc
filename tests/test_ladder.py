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
from cardgym.core.state.actions import bot_choice
from cardgym.eval import ladder as lad

#: the published anchors of ladder version 1 (docs/llm_agents.md): changing them is a new version
PINNED = {
    "skipbo": {"random": 0.0, "greedy": 1323.6, "expert": 1436.0},
    "skipbo_junior": {"random": 0.0, "greedy": 288.3, "expert": 343.1},
    "skyjo": {"random": 0.0, "greedy": 1471.6, "expert": 1760.8},
}


def test_scale_schedule_and_anchors_are_pinned():
    assert lad.LADDER_VERSION == 1
    assert lad.LADDER_BOTS == ("random", "greedy", "expert")
    assert (lad.SEED_BASE, lad.DEFAULT_DEALS, lad.ANCHOR_GAMES, lad.ANCHOR_SEED) == (20_260_000, 20, 2000, 1_000_000)
    assert lad.anchors() == PINNED
    for name in sorted(set(cardgym.GAMES) - set(PINNED)):  # plug-in games (the example's blackjack)
        with pytest.raises(ValueError, match=f"no anchors for '{name}'; games with anchors: skipbo, skipbo_junior"):
            lad.game_anchors(name)


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


@pytest.mark.parametrize("game", ["skipbo_junior", "skyjo"])
def test_expert_moves_rate_at_the_expert_anchor_and_random_at_its_own(game):
    spec = cardgym.get_game(game)
    r = lad.ladder(game, ExpertMoves(spec, spec.make_rules(num_players=2)), deals=4)
    lo, hi = r["ci95"]
    assert lo <= PINNED[game]["expert"] <= hi, r
    assert r["games"] == 3 * 2 * 4 and r["version"] == 1 and r["anchors"] == PINNED[game]
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
    assert py["games"] == 12 and py["scale"] == "Elo, random = 0" and "text" not in py
    assert py["ci95"][0] < py["rating"] < py["ci95"][1]
    rec = tmp_path / "records"
    out = _cli(["ladder", "skipbo_junior", "--player", f"text:{f}:first_listed", "--deals", "2",
                "--record", str(rec)])
    assert "rating of text:" in out and "illegal-move rate 0.0%" in out and "95% interval" in out
    assert len(list(rec.glob("*.jsonl"))) == 12
