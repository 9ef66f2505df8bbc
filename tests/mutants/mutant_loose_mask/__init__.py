"""# Mutant loose mask

Crazy Eights (tests/games/crazy_eights) with one piece broken on purpose:
A mask that also allows naming a suit while a card is to be played. `cardgym.testing.check_game`
must fail it at its `reference_legality` check (tests/test_mutants.py; tests/mutants/README.md).

## Version history

- `v0`: the mutant.
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Mutant loose mask",
    gym_name="MutantLooseMask",
    contract=2,
    test_configs=[{"num_players": 3}],
)
