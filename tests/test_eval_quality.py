"""Beside the rating (cardgym.eval.quality): move quality against the expert's and the search's choices,
and the prompt ablation's paired test (a byte-identical template shows no difference, another does)."""

from __future__ import annotations

import re

import pytest

import cardgym
from cardgym.agents.text import DEFAULT_TEMPLATE, TextPlayer
from cardgym.app.game_records import play_recorded
from cardgym.eval.quality import ablation, move_quality, paired_difference

JUNIOR = "skipbo_junior"


def _scripted(prompt):
    """The first listed move, or the last when the prompt asks for it."""
    ids = re.findall(r"^(\d+): ", prompt, re.M)
    return ids[-1] if "PLAY THE LAST LISTED MOVE" in prompt else ids[0]


def _player(template, name):
    spec = cardgym.get_game(JUNIOR)
    return TextPlayer(spec, spec.make_rules(num_players=2), _scripted, template=template, name=name,
                      fallback="first")


@pytest.mark.slow
def test_a_byte_identical_template_shows_no_difference_and_another_does():
    same = "".join(list(DEFAULT_TEMPLATE))  # equal bytes, another string object
    assert same == DEFAULT_TEMPLATE and same is not DEFAULT_TEMPLATE
    null = ablation(JUNIOR, _player(DEFAULT_TEMPLATE, "a"), _player(same, "b"), "greedy", deals=6)
    assert null["deals_differing"] == 0 and null["mean_difference"] == 0 and null["ci95"] == [0, 0]
    assert null["sign_test_p"] == 1.0 and null["a_score"] == null["b_score"]
    other = DEFAULT_TEMPLATE + "\n\nPLAY THE LAST LISTED MOVE"
    diff = ablation(JUNIOR, _player(DEFAULT_TEMPLATE, "a"), _player(other, "c"), "greedy", deals=6)
    assert diff["deals_differing"] > 0 and diff["a_better"] + diff["b_better"] == diff["deals_differing"]


def test_paired_difference():
    r = paired_difference([2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [0] * 10)
    assert r["mean_difference"] == 2 and r["a_better"] == 10 and r["sign_test_p"] == pytest.approx(2 / 1024, abs=1e-6)
    r = paired_difference([1, 0, 2, 1], [0, 1, 1, 2])
    assert r["deals_differing"] == 4 and r["sign_test_p"] == 1.0 and r["ci95"][0] < 0 < r["ci95"][1]
    with pytest.raises(ValueError, match="same length"):
        paired_difference([1, 2], [1])


def test_move_quality_of_the_expert_is_the_experts_and_of_random_is_not(tmp_path):
    paths = [play_recorded(JUNIOR, ["expert", "random"], seed).save(tmp_path / f"g{seed}.jsonl") for seed in range(3)]
    expert = move_quality(paths, bots=("expert",), players={"expert"})["expert"]
    rnd = move_quality(paths, bots=("expert",), players={"random"})["expert"]
    assert expert["decisions"] > 10 and expert["rate"] == 1.0
    assert rnd["decisions"] > 10 and rnd["rate"] < 0.8 and rnd["ci95"][0] <= rnd["rate"] <= rnd["ci95"][1]
    assert move_quality(paths, bots=("expert",))["expert"]["decisions"] == 0  # no text seat
    with pytest.raises(ValueError, match="has no bot 'nobody'"):
        move_quality(paths, bots=("nobody",), players={"expert"})
