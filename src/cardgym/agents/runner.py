"""Batched games whose seats are played by compiled bots, Python policies, or left to the caller.

`BatchRunner` is the episode driver of the core (`cardgym.core.episodes.EpisodeDriver`), kept under
this name for `cardgym.eval.play` and code written against it: every round, the records whose seat to
act belongs to a player are grouped by player, a bot decides for its group in one compiled call, a
policy for its group in one batched forward pass, and every chosen action is applied in one compiled
call. Seats marked `EXTERNAL` (player ``-1``) are left to the caller.
"""

from __future__ import annotations

from ..core.episodes import EXTERNAL, EpisodeDriver, as_batched

BatchRunner = EpisodeDriver

__all__ = ["BatchRunner", "EXTERNAL", "as_batched"]
