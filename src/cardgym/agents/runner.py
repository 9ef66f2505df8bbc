"""Batched games whose seats are played by compiled bots, Python policies, or left to the caller.

`BatchRunner` is the episode driver of the core (`cardgym.core.envs.episodes.EpisodeDriver`), kept under
this name for `cardgym.eval.play` and code written against it: every round, the records whose seat to
act belongs to a player are grouped by player, a bot decides for its group in one compiled call, a
policy for its group in one batched forward pass, and every chosen action is applied in one compiled
call. Seats marked `EXTERNAL` (player ``-1``) are left to the caller.
"""

from __future__ import annotations

from cardgym.core.envs.episodes import EXTERNAL, EpisodeDriver, as_batched


class BatchRunner(EpisodeDriver):
    """`cardgym.core.envs.episodes.EpisodeDriver` under its older name (same arguments, same methods): records
    of one game, ``players`` (bot names and policies) and ``seat_player[i, seat]`` (a player index or
    `EXTERNAL`); ``play()`` lets the players act until every game is over or waits for an external seat."""

__all__ = ["BatchRunner", "EXTERNAL", "as_batched"]
