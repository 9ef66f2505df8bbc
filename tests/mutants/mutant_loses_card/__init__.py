"""# Mutant loses card

Crazy Eights (tests/games/crazy_eights) with one piece broken on purpose:
A kernel that loses a card: drawing also drops the next card of the draw pile. `cardgym.testing.check_game`
must fail it at its `conservation` check (tests/test_mutants.py; tests/mutants/README.md).

## Version history

- `v0`: the mutant.
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Mutant loses card",
    gym_name="MutantLosesCard",
    contract=2,
    test_configs=[{"num_players": 3}],
)
