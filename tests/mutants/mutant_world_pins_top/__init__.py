"""# Mutant world pins top

Crazy Eights (tests/games/crazy_eights) with one piece broken on purpose:
A WORLD that re-deals everything but keeps the draw pile's top card. `cardgym.testing.check_game`
must fail it at its `sample_world` check (tests/test_mutants.py; tests/mutants/README.md).

## Version history

- `v0`: the mutant.
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Mutant world pins top",
    gym_name="MutantWorldPinsTop",
    contract=2,
    test_configs=[{"num_players": 3}],
)
