"""# Mutant leaky observation

Crazy Eights (tests/games/crazy_eights) with one piece broken on purpose:
An observation that leaks the draw pile's top card (the dict encoder's draw_size). `cardgym.testing.check_game`
must fail it at its `hidden_information` check (tests/test_mutants.py; tests/mutants/README.md).

## Version history

- `v0`: the mutant.
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Mutant leaky observation",
    gym_name="MutantLeakyObservation",
    contract=2,
    test_configs=[{"num_players": 3}],
)
