"""The generic suite of cardgym on Blackjack (its ``sample_world`` check among them), and what is
Blackjack's own: what its ``WORLD`` re-deals."""

from __future__ import annotations

import numpy as np
import pytest

import cardgym
from cardgym.testing import CHECKS, run_check


@pytest.mark.parametrize("check", list(CHECKS))
def test_check_game(check):
    run_check("blackjack", check)


def test_a_world_re_deals_only_the_hole_card_and_the_shoe():
    from cardgym.core.contract.worlds import sample_worlds

    env = cardgym.blackjack_v0.raw_env(num_players=3)
    env.reset(seed=2)
    game, rec = env.game, env.record
    ws = sample_worlds(game, env.rules, rec, 0, 7, 200)
    np.testing.assert_array_equal(ws["hand"], np.broadcast_to(rec["hand"], ws["hand"].shape))  # face up
    assert (ws["dealer"][:, 0] == rec["dealer"][0]).all()  # the up card stays
    assert len(set(ws["dealer"][:, 1].tolist())) > 10  # the hole card does not
    n = int(rec["draw_len"])
    unseen = np.sort(np.append(rec["draw"][:n], rec["dealer"][1]))
    for w in ws:  # the hole card and the shoe hold the same cards between them
        np.testing.assert_array_equal(np.sort(np.append(w["draw"][:n], w["dealer"][1])), unseen)
    assert not (ws["draw"][:, :n] == rec["draw"][:n]).all(axis=1).any()  # the shoe is reshuffled
    while env.agents:  # once the game is over the hole card is face up: it stays too
        agent = env.agent_selection
        env.step(None if env.terminations[agent] or env.truncations[agent] else env.bot_action("greedy"))
    ws = sample_worlds(game, env.rules, env.record, 0, 7, 50)
    assert (ws["dealer"] == env.record["dealer"]).all()


def test_the_dealer_plays_to_17_and_pays_each_seat():
    env = cardgym.blackjack_v0.raw_env(num_players=2)
    for seed in range(40):
        env.reset(seed=seed)
        while env.agents:
            agent = env.agent_selection
            env.step(None if env.terminations[agent] or env.truncations[agent] else env.bot_action("greedy"))
        res = env.result()
        assert res["dealer_total"] >= 17 or all(t > 21 for t in res["totals"])
        for seat, total in enumerate(res["totals"]):
            if total > 21:
                assert seat not in res["winners"] + res["pushes"]


def test_expert_beats_random():
    from cardgym import eval as ev

    r = ev.match("blackjack", "expert", "random", num_players=1, games=400, seed=0)
    assert r["a_win_rate"] > 0.5 and np.isfinite(r["a_mean_reward"])
