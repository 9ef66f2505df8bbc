"""# Mutant world keeps

Crazy Eights (tests/games/crazy_eights) with one piece broken on purpose:
A WORLD whose resample re-deals nothing: every hidden card stays where it is. `cardgym.testing.check_game`
must fail it at its `hidden_information` check (tests/test_mutants.py; tests/mutants/README.md).

## Version history

- `v0`: the mutant.
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Mutant world keeps",
    gym_name="MutantWorldKeeps",
    contract=2,
    test_configs=[{"num_players": 3}],
)
