"""Multi-player ratings (``cardgym.eval.ratings``): finishing orders, line-ups, openskill Plackett-Luce."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

import cardgym
from cardgym import eval as ev
from cardgym.eval.ratings import finishing_ranks, lineups, plackett_luce


def test_plackett_luce_orders_a_known_ranking():
    # a always first, b always second, c always last: the ratings keep that order, intervals apart
    games = [(["a", "b", "c"], [1, 2, 3]), (["c", "a", "b"], [3, 1, 2]), (["b", "c", "a"], [2, 3, 1])] * 40
    r = plackett_luce(["a", "b", "c"], games)
    assert r["a"]["mu"] > r["b"]["mu"] > r["c"]["mu"]
    assert r["a"]["ci95"][0] > r["b"]["ci95"][1] and r["b"]["ci95"][0] > r["c"]["ci95"][1]
    for v in r.values():
        assert v["games"] == 120
        assert v["ci95"][0] == pytest.approx(v["mu"] - 1.96 * v["sigma"], abs=2e-3)


def test_plackett_luce_ties_and_unplayed():
    r = plackett_luce(["a", "b", "c"], [(["a", "b"], [1, 1])] * 30)
    assert r["a"]["mu"] == pytest.approx(r["b"]["mu"])
    assert r["c"]["mu"] == 25.0 and r["c"]["sigma"] == pytest.approx(25 / 3, abs=1e-3) and r["c"]["games"] == 0
    with pytest.raises(ValueError, match="once"):
        plackett_luce(["a", "b"], [(["a", "a"], [1, 2])])


@pytest.mark.parametrize("k,n", [(2, 2), (3, 2), (3, 4), (2, 5), (8, 8), (5, 3), (4, 4)])
def test_lineups_seat_every_player(k, n):
    ups = lineups(k, n)
    for order, rated in ups:
        assert len(order) == n and sorted(set(order[:rated])) == sorted(order[:rated])
        assert all(0 <= p < k for p in order)
        assert rated == min(k, n)
    rated_count = Counter(p for order, rated in ups for p in order[:rated])
    assert set(rated_count) == set(range(k)) and len(set(rated_count.values())) == 1, "every player rated alike"
    if k < n:  # fillers are shared out evenly too
        fill = Counter(p for order, rated in ups for p in order[rated:])
        assert len(set(fill.values())) == 1 and set(fill) == set(range(k))


def test_finishing_ranks_follow_the_result():
    skyjo = cardgym.get_game("skyjo")
    rules = skyjo.make_rules(num_players=4)
    seeds = np.arange(12, dtype=np.int64)
    _, status, _, finals = ev.play(skyjo, rules, seeds, [["greedy"] * 4] * 12, records=True)
    ranks = finishing_ranks(skyjo, rules, finals)
    for g in range(12):
        res = skyjo.result(finals[g], rules)
        if not res["winners"]:
            assert (ranks[g] == 1).all()
            continue
        assert set(np.flatnonzero(ranks[g] == 1)) == set(res["winners"])
        totals = res["totals"]
        for s in range(4):  # rank = 1 + seats strictly ahead (lower total)
            assert ranks[g, s] == 1 + sum(t < totals[s] for t in totals)
    # Skip-Bo: winners first, then fewer stock cards left
    skipbo = cardgym.get_game("skipbo")
    rules = skipbo.make_rules(num_players=3, stock_size=5)
    _, _, _, finals = ev.play(skipbo, rules, np.arange(6, dtype=np.int64), [["greedy"] * 3] * 6, records=True)
    ranks = finishing_ranks(skipbo, rules, finals)
    for g in range(6):
        res = skipbo.result(finals[g], rules)
        losers = [s for s in range(3) if s not in res["winners"]]
        assert all(ranks[g, w] == 1 for w in res["winners"])
        for s in losers:
            assert ranks[g, s] == 1 + len(res["winners"]) + sum(
                res["stock_left"][t] < res["stock_left"][s] for t in losers)


@pytest.mark.parametrize("name", ["skyjo", "skipbo_junior"])
def test_free_for_all_ranks_expert_above_random(name):
    out = ev.free_for_all(name, ["random", "expert"], num_players=3, games=240, seed=0)
    assert out["games"] == 240 and out["model"] == "plackett-luce"
    r = out["ratings"]
    assert r["expert"]["ci95"][0] > r["random"]["ci95"][1], r
    assert out["mean_rank"]["expert"] < out["mean_rank"]["random"]
    # deterministic for a seed
    assert ev.free_for_all(name, ["random", "expert"], num_players=3, games=240, seed=0)["ratings"] == r


def test_free_for_all_more_players_than_seats_and_policies():
    class FirstLegal:
        def act(self, obs, masks):
            return np.argmax(masks, axis=1)

    out = ev.free_for_all("skipbo", ["random", "greedy", FirstLegal(), "expert"], num_players=3, games=60,
                          seed=1, stock_size=5)
    assert out["games"] == 60 and len(out["ratings"]) == 4
    assert all(v["games"] > 0 for v in out["ratings"].values())


def test_tournament_multiplayer_and_bad_input():
    t = ev.tournament("skyjo", ["random", "greedy"], num_players=4, games=80, seed=0)
    assert t["ratings"] is None and t["multiplayer"]["games"] == 80
    assert t["multiplayer"]["ratings"]["greedy"]["mu"] > t["multiplayer"]["ratings"]["random"]["mu"]
    assert ev.tournament("skyjo", ["random", "greedy"], num_players=2, games=20)["multiplayer"] is None
    with pytest.raises(ValueError, match="num_players"):
        ev.free_for_all("skyjo", ["random", "greedy"], num_players=9, games=10)
    with pytest.raises(ValueError, match="distinct"):
        ev.free_for_all("skyjo", ["random", "random"], num_players=3, games=10)
    with pytest.raises(ValueError, match="games"):
        ev.free_for_all("skyjo", ["random", "greedy"], num_players=3, games=0)
    with pytest.raises(ValueError, match="at least two"):
        ev.free_for_all("skyjo", ["random"], num_players=3, games=10)


@pytest.mark.slow
@pytest.mark.subprocess
def test_cli_eval_prints_multiplayer_ratings():
    cmd = [sys.executable, "-m", "cardgym.cli", "eval", "skyjo", "--players", "4", "--bots", "random,greedy",
           "--games", "40"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "Plackett-Luce" in out and "95% interval" in out
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip().startswith(("greedy ", "random "))}
    assert set(lines) == {"greedy", "random"}
    js = json.loads(subprocess.run(cmd + ["--json"], capture_output=True, text=True, check=True).stdout)
    assert set(js["multiplayer"]["ratings"]) == {"random", "greedy"}
