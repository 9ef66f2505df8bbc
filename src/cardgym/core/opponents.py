"""Opponents of the single-agent and vector environments."""

from __future__ import annotations

from .game import GameSpec


def resolve_opponent(game: GameSpec, opponent):
    """A compiled bot dispatcher for a bot name, or the callable itself.

    Returns ``(bot_kernel_or_None, python_callable_or_None)``. Callables take ``(obs, mask)`` (the
    acting seat's own observation and int8 mask) and return an action id.
    """
    if isinstance(opponent, str):
        return game.bot(opponent), None
    if callable(opponent):
        return None, opponent
    raise ValueError(
        f"opponent must be a bot name {sorted(game.bots)} or a callable (obs, mask) -> action, got {opponent!r}"
    )


def resolve_seat(seat, num_players: int) -> int:
    """Seat index, or -1 for ``"random"`` (drawn from the episode's bot generator at each reset)."""
    if isinstance(seat, str):
        if seat == "random":
            return -1
        raise ValueError(f"seat must be 0..{num_players - 1} or 'random', got {seat!r}")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0..{num_players - 1} or 'random', got {seat!r}")
    return seat
