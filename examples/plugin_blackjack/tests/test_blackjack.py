"""The generic suite of cardgym on Blackjack, and what is Blackjack's own."""

from __future__ import annotations

import numpy as np
import pytest

import cardgym
from cardgym.testing import CHECKS, check_game


@pytest.mark.parametrize("check", list(CHECKS))
def test_check_game(check):
    check_game("blackjack", checks=[check])


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
