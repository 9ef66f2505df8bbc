"""Every check of `cardgym.testing.check_game` that guards hidden information, legality or the cards is
proven by a game broken on purpose that it must fail (tests/mutants/README.md): each mutant of
Crazy Eights fails `check_game` at the checks it names, with the check's name in the error, and the
real Crazy Eights passes those checks with the same arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

import cardgym
from cardgym.testing import GameCheckError, check_game

MUTANTS_DIR = Path(__file__).with_name("mutants")
CONFIGS = [{"num_players": 3}]
STEPS = 60  # decisions of each random walk: every mutant fails within them

#: mutant -> {check it must fail: what the failure says}
MUTANTS = {
    "mutant_world_keeps": {
        "hidden_information": "WORLD does not re-deal draw\\[\\d+\\], a card seat \\d has not seen",
        "sample_world": "frequencies over 600 worlds are not those of the unseen cards",
    },
    "mutant_world_pins_top": {
        "hidden_information": "WORLD does not re-deal draw\\[\\d+\\]",
        "sample_world": "frequencies over 600 worlds are not those of the unseen cards",
    },
    "mutant_leaky_observation": {
        "hidden_information": "dict observation 'draw_size' leaks hidden cards to seat \\d",
    },
    "mutant_leaky_observation_world_keeps": {
        "hidden_information": "WORLD does not re-deal draw\\[\\d+\\]",
        "sample_world": "frequencies over 600 worlds are not those of the unseen cards",
    },
    "mutant_loose_mask": {"reference_legality": "mask \\[.*\\] != reference"},
    "mutant_loses_card": {"conservation": "the cards are not the deck"},
    "mutant_leaky_view": {"seat_views": "view\\(\\d\\) changes when the cards hidden from seat \\d are re-dealt"},
}
CASES = [(m, c) for m, checks in MUTANTS.items() for c in checks]


@pytest.fixture(scope="module")
def mutants():
    assert "crazy_eights" in cardgym.GAMES  # the mutants import it (tests/conftest.py registers it)
    added = [e.name for e in cardgym.registry.add(MUTANTS_DIR)]
    assert sorted(added) == sorted(MUTANTS), added  # every folder is in the table, and only those
    yield added
    for name in added:  # the other tests' games are those of the session
        cardgym.registry.remove(name)


@pytest.mark.parametrize("mutant,check", CASES)
def test_the_mutant_fails_the_check_that_guards_it(mutants, mutant, check):
    with pytest.raises(GameCheckError) as caught:
        check_game(mutant, CONFIGS, checks=[check], steps=STEPS)
    failures = caught.value.failures
    assert [f[0] for f in failures] == [check], failures
    assert f"- {check} [num_players=3]: " in str(caught.value)
    import re

    assert re.search(MUTANTS[mutant][check], failures[0][2]), failures[0][2]


@pytest.mark.parametrize("check", sorted({c for _, c in CASES}))
def test_crazy_eights_passes_the_checks_its_mutants_fail(mutants, check):
    report = check_game("crazy_eights", CONFIGS, checks=[check], steps=STEPS)
    assert set(report.values()) == {"passed"}, report
