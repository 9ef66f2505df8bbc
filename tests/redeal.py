"""The re-deal of the leak tests: a world of one seat (`cardgym.core.contract.worlds.sample_world`, the game's
``WORLD``) that keeps the record's generators, so a bot reading ``bot_rng`` sees the same draws."""

from __future__ import annotations

import numpy as np

from cardgym.core.contract.worlds import sample_world


def redeal(game, rules, record, seat: int, rng):
    """A copy of ``record`` with every card ``seat`` cannot see dealt again (seeded from the numpy
    generator ``rng``), its ``rng`` and ``bot_rng`` those of ``record``: one record of a record array."""
    out = np.zeros(1, game.state_dtype).view(np.recarray)
    out[0] = sample_world(game, rules, record, int(seat), int(rng.integers(2**63)), check=False)
    out[0]["rng"], out[0]["bot_rng"] = record["rng"], record["bot_rng"]
    return out[0]
