"""The values of a state record's ``status`` field (the common header, `cardgym.core.contract.game.state_dtype`).

A module of its own, importing nothing, so that every core module (`cardgym.core.contract.game` and the
validators in `cardgym.core.state.invariants` alike) can use them without importing another.
"""

RUNNING, TERMINATED, TRUNCATED = 0, 1, 2
