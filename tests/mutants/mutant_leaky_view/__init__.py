"""# Mutant leaky view

Crazy Eights (tests/games/crazy_eights) with one piece broken on purpose:
A view that shows the draw pile's top card face up. `cardgym.testing.check_game`
must fail it at its `seat_views` check (tests/test_mutants.py; tests/mutants/README.md).

## Version history

- `v0`: the mutant.
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Mutant leaky view",
    gym_name="MutantLeakyView",
    contract=2,
    test_configs=[{"num_players": 3}],
)
